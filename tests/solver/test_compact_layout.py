"""The compact layout of table format 2 (cardtable.solver.lean.SlotMap): each pattern holds
only the states its hands allow. Its values are bit for bit those of the full layout, new
carry-over tables get it, tables begun in the full layout resume and read as before, and
every reader (queries, low layers, compression, best response) gives the same answers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cardtable.goofspiel import Ruleset
from cardtable.solver import ImpossiblePosition, Position, TableFileError
from cardtable.solver.estimate import estimate_solve
from cardtable.solver.layers import (
    folder_layout,
    lean_layout,
    open_layered,
    solve_layered,
)
from cardtable.solver.lean import block, expand_layer, lean_slot, slot_map, solve_chunk


def _layers(lay, threads=1):
    out, prev = [None], None
    for k in range(1, lay.top + 1):
        prev, _ = solve_chunk(lay, k, 0, lay.npat(k), prev, threads=threads)
        out.append(prev)
    return out


@pytest.mark.parametrize(
    "n,objective,threads",
    [(6, "points", 1), (8, "points", 2), (6, "win", 1), (5, "win", 2)],
)
def test_compact_values_are_the_full_layouts_bit_for_bit(n, objective, threads):
    rs = Ruleset(cards=n, tie_rule="carry")
    full, comp = lean_layout(rs, objective), lean_layout(rs, objective, compact=True)
    a, b = _layers(full), _layers(comp, threads)
    smaller = 0
    for k in range(1, n + 1):
        assert len(b[k]) == comp.layer_size(k) == block(comp, k, comp.npat(k))
        grid = expand_layer(comp, k, b[k], np.float32)
        want = a[k].reshape(full.npat(k), int(full.nstates[k]))
        # NaN exactly where the full layout skips a state, every other value identical
        assert np.array_equal(np.isnan(grid), np.isnan(want))
        assert np.array_equal(grid[~np.isnan(grid)], want[~np.isnan(want)])
        assert not np.isnan(b[k]).any()  # no slot is wasted on a state these hands cannot reach
        smaller += full.layer_size(k) - comp.layer_size(k)
    assert smaller > 0


def test_slot_of_every_state_agrees_with_the_expanded_layer():
    rs = Ruleset(cards=6, tie_rule="carry")
    comp = lean_layout(rs, "points", compact=True)
    vals = _layers(comp)
    L = comp.dense
    missing = found = 0
    for k in range(1, comp.top + 1):
        grid = expand_layer(comp, k, vals[k])
        for r in range(int(L.mask_off[k + 1] - L.mask_off[k])):
            s0, s1 = int(comp.soff[comp.so_off[k] + r]), int(comp.soff[comp.so_off[k] + r + 1])
            for j in range(s0, s1):
                pot = int(comp.skeys[comp.skoff[k] + j]) // comp.W
                for i in range(comp.npat(k)):
                    s = lean_slot(comp, k, r, i, pot, 0)
                    if s < 0:
                        assert np.isnan(grid[i, j])
                        missing += 1
                    else:
                        assert vals[k][s] == grid[i, j]
                        found += 1
    assert missing > 0 and found > 0


def test_new_carry_tables_are_compact_and_discard_tables_full(tmp_path):
    rs = Ruleset(cards=7, tie_rule="carry")
    comp = solve_layered(rs, "points", tmp_path / "comp")
    full = solve_layered(rs, "points", tmp_path / "full", lay=lean_layout(rs, "points"))
    assert comp["layout"] == "compact" and "layout" not in full
    assert comp["stats"]["games"] == full["stats"]["games"]
    a, b = open_layered(tmp_path / "comp"), open_layered(tmp_path / "full")
    assert a.lay.compact and not b.lay.compact
    disk = sum(p.stat().st_size for p in (tmp_path / "comp").glob("layer-*.f32"))
    assert disk < 0.6 * sum(p.stat().st_size for p in (tmp_path / "full").glob("layer-*.f32"))
    needs = estimate_solve(rs, "points")  # the estimate prices the layout a new folder gets
    assert disk <= needs.disk_bytes < disk + (1 << 20)
    assert estimate_solve(rs, "points", compact=False).disk_bytes > needs.disk_bytes
    full_deck = frozenset(rs.deck)
    start = Position(full_deck, (full_deck, full_deck))
    assert a.value(start) == b.value(start)
    for prize in (1, 4, 7):
        sa, sb = a.round_strategy(start, prize), b.round_strategy(start, prize)
        assert np.array_equal(sa.matrix, sb.matrix) and sa.a == sb.a
    # a state these hands cannot reach: a pot of two prizes after one round
    six = frozenset(range(1, 7))
    with pytest.raises(ImpossiblePosition):
        a.value(Position(six, (six, six), pot=3))
    d = solve_layered(Ruleset(cards=5, tie_rule="discard"), "points", tmp_path / "d")
    assert "layout" not in d


def test_a_table_begun_in_the_full_layout_resumes_in_it(tmp_path):
    rs = Ruleset(cards=7, tie_rule="carry")
    folder = tmp_path / "t"
    solve_layered(rs, "points", folder, lay=lean_layout(rs, "points"), upto=4)
    assert not folder_layout(folder, rs, "points").compact
    done = solve_layered(rs, "points", folder)
    assert done["stats"]["resumed_layers"] == [1, 2, 3, 4] and "layout" not in done
    assert not open_layered(folder).lay.compact
    new = tmp_path / "new"
    assert folder_layout(new, rs, "points").compact
    assert not folder_layout(new, rs, "points", compact=False).compact


def test_the_layout_field_of_a_manifest_is_checked(tmp_path):
    from cardtable.solver.layers import _manifest_digest

    rs = Ruleset(cards=5, tie_rule="carry")
    folder = tmp_path / "t"
    solve_layered(rs, "points", folder)
    path = folder / "table.json"
    for bad in ("sparse", 1, None):
        m = json.loads(path.read_text())
        m["layout"] = bad
        m["digest"] = _manifest_digest(m)
        path.write_text(json.dumps(m))
        with pytest.raises(TableFileError, match="layout"):
            open_layered(folder)
    m = json.loads(path.read_text())
    del m["layout"]  # a compact table that claims the full layout: its digest is not the full one's
    m["digest"] = _manifest_digest(m)
    path.write_text(json.dumps(m))
    with pytest.raises(TableFileError, match="layout"):
        open_layered(folder)


def test_low_layers_of_a_compact_table_give_the_same_subgames(tmp_path):
    from cardtable.solver.round_subgame import solve_round_subgame

    rs = Ruleset(cards=8, tie_rule="carry")
    solve_layered(rs, "points", tmp_path / "c", upto=5)
    solve_layered(rs, "points", tmp_path / "f", lay=lean_layout(rs, "points"), upto=5)
    lc, lf = open_layered(tmp_path / "c", low=True), open_layered(tmp_path / "f", low=True)
    assert lc.lay.compact and not lf.lay.compact
    hand = frozenset({1, 3, 4, 5, 6, 8})  # played 2 and 7
    other = frozenset({1, 3, 4, 5, 7, 8})  # played 2 and 6: the 2s tied, prize 5 in the pot
    pos = Position(frozenset({2, 3, 4, 6, 7, 8}), (hand, other), pot=5)
    a = solve_round_subgame(rs, pos, 7, low=lc)
    b = solve_round_subgame(rs, pos, 7, low=lf)
    sa, sb = a.round_strategy(pos, 7), b.round_strategy(pos, 7)
    assert sa.value == sb.value and sa.a == sb.a


def test_compression_and_best_response_read_a_compact_table(tmp_path):
    from cardtable.solver.compressed_carry import open_compressed_carry, write_compressed_carry
    from cardtable.solver.exploit_lean import compressed_carry_best_response

    rs = Ruleset(cards=7, tie_rule="carry")
    solve_layered(rs, "points", tmp_path / "c")
    solve_layered(rs, "points", tmp_path / "f", lay=lean_layout(rs, "points"))
    tc, tf = open_layered(tmp_path / "c"), open_layered(tmp_path / "f")
    metas = [write_compressed_carry(t, tmp_path / f"{name}.svd.npz", 4) for name, t in (("c", tc), ("f", tf))]
    assert [x["rank"] for x in metas[0]["layers"]] == [x["rank"] for x in metas[1]["layers"]]
    assert [x["rms"] for x in metas[0]["layers"]] == pytest.approx([x["rms"] for x in metas[1]["layers"]])
    shipped = open_compressed_carry(tmp_path / "c.svd.npz")  # digest of the full layout: it opens
    got = compressed_carry_best_response(shipped, tc, 4)
    want = compressed_carry_best_response(shipped, tf, 4)
    assert got[:2] == pytest.approx(want[:2], abs=1e-9)


def test_the_cuda_backend_refuses_a_compact_folder(tmp_path):
    """A table begun compact cannot be finished by the CUDA kernel (it writes the full
    layout): one error line, exit code 2, nothing written (under Numba's CUDA simulator)."""
    pytest.importorskip("numba.cuda")
    import os
    import subprocess
    import sys

    from cardtable.solver.layers import folder_name

    rs = Ruleset(cards=4, tie_rule="carry")
    folder = tmp_path / folder_name(rs, "points")
    solve_layered(rs, "points", folder, upto=2)
    before = sorted(p.name for p in folder.iterdir())
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "cardtable",
            "solve",
            "-n",
            "4",
            "--backend",
            "cuda",
            "--cache",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1"),
        timeout=300,
    )
    assert r.returncode == 2, r.stderr
    assert "compact" in r.stderr and "Traceback" not in r.stderr
    assert sorted(p.name for p in folder.iterdir()) == before


def test_slot_map_of_the_full_layout_is_the_old_formula():
    lay = lean_layout(Ruleset(cards=6, tie_rule="carry"), "points")
    m = slot_map(lay)
    assert m.G == 1 and not m.pgrp.any()
    for k in range(1, lay.top + 1):
        assert [block(lay, k, i) for i in range(lay.npat(k) + 1)] == [
            i * int(lay.nstates[k]) for i in range(lay.npat(k) + 1)
        ]
        assert int(m.poff[m.poff_off[k] + lay.npat(k)]) == lay.layer_size(k)


def test_expand_layer_of_the_full_layout_is_a_view(tmp_path):
    rs = Ruleset(cards=5, tie_rule="carry")
    solve_layered(rs, "points", tmp_path / "f", lay=lean_layout(rs, "points"))
    t = open_layered(tmp_path / "f")
    grid = expand_layer(t.lay, 4, t.layers[4], np.float32)
    assert np.shares_memory(grid, t.layers[4])
    assert Path(t.path).is_dir()
