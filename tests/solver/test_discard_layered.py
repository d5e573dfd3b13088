"""Discard-ties tables in format 2 (issue 23, part 3): the default of ``cardtable solve
--ties discard``, resumable, and read by every consumer of a discard table (the carry-over
approximation's kernels, the compressed-file writer, the whole-game best response) without
the general format-1 view; old format-1 files are still read, and format 2 wins where both
are in the cache (docs/solver.md, Table files)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.goofspiel import Game, Ruleset
from cardtable.solver import layers as layers_module
from cardtable.solver import table as table_module
from cardtable.solver.approx import CarryApproximation, approx_value_array
from cardtable.solver.compressed import (
    discard_layout,
    discard_value,
    discard_values,
    open_compressed,
    table_layer_matrix,
    table_source,
    write_compressed,
)
from cardtable.solver.equilibrium import EquilibriumSource, discard_table
from cardtable.solver.exploit import kernel_best_response
from cardtable.solver.layers import LayeredTable, folder_name, open_layered, solve_layered
from cardtable.solver.position import Position, position_from_view
from cardtable.solver.table import Table, TableFileError, load_table, solve, table_name, write_table
from cardtable.solver.tables import full_layout

D6 = Ruleset(cards=6, tie_rule="discard")
C6 = Ruleset(cards=6, tie_rule="carry")
#: float32 storage: the values of format 2 are within this of format 1's (at most 21 points)
F32 = 1e-5


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The 6-card discard table in format 1 (in memory) and format 2 (a folder, opened)
    with a format-1 view that cannot be built: ``DENSE_MAX = 0`` on the instance, so any
    consumer that still went through ``LayeredTable.values`` fails."""
    folder = tmp_path_factory.mktemp("d6") / folder_name(D6, "points")
    solve_layered(D6, "points", folder)
    t2 = open_layered(folder)
    t2.DENSE_MAX = 0
    return solve(D6), t2


def _positions(rs: Ruleset, games: int = 6):
    """(position, prize) of every round of a few games of random bids, points objective."""
    out = []
    for seed in range(games):
        rng = random.Random(seed)
        game = Game(rs, seed=seed)
        while not game.is_over:
            pos, prize = position_from_view(game.view(0))
            out.append((Position(pos.prizes, pos.hands, pos.pot, 0), prize))
            game.play([(rng.choice(sorted(game.view(s).hand)),) for s in range(2)])
    return out


def test_the_layout_and_every_value_are_format_1s(both):
    t1, t2 = both
    lay = discard_layout(t2)
    for name in ("codes", "code_off", "masks", "mask_off", "rank_of_mask", "val_off"):
        assert np.array_equal(getattr(lay, name), getattr(t1.layout, name)), name
    assert np.allclose(discard_values(t2), t1.values, atol=F32, rtol=0)
    for k in range(1, 7):
        m1, m2 = table_layer_matrix(t1, k), table_layer_matrix(t2, k)
        assert m2.shape == m1.shape == (lay.mask_off[k + 1] - lay.mask_off[k], lay.npat(k))
        assert np.allclose(m2, m1, atol=F32, rtol=0)
    with pytest.raises(TableFileError, match="more than 0"):  # the general format-1 view: never built
        _ = t2.values


def test_the_numba_lookup_reads_format_2_pattern_major(both):
    t1, t2 = both
    s1, s2 = table_source(t1), table_source(t2)
    assert list(s2[6][1:7]) == [-1] * 6  # every layer dense, patterns outermost
    assert s2[0].dtype == np.float32 and s2[0].size == t1.layout.size
    L = t1.layout
    worst = 0.0
    for k in range(1, 7):
        npat = L.npat(k)
        for r in range(int(L.mask_off[k + 1] - L.mask_off[k])):
            for i in range(npat):
                a, b = discard_value(k, r, i, npat, s1), discard_value(k, r, i, npat, s2)
                worst = max(worst, abs(a - b))
    assert worst < F32


def test_round_strategies_are_the_same(both):
    t1, t2 = both
    positions = _positions(D6)
    assert len(positions) == 36
    for pos, prize in positions:
        a, b = t1.round_strategy(pos, prize), t2.round_strategy(pos, prize)
        assert b.value == pytest.approx(a.value, abs=F32)
        assert b.a == pytest.approx(a.a, abs=1e-4) and b.b == pytest.approx(a.b, abs=1e-4)


def test_the_carry_over_approximation_mixes_are_the_same(both):
    t1, t2 = both
    a1, a2 = CarryApproximation(C6, t1, 1), CarryApproximation(C6, t2, 1)
    positions = _positions(C6)
    assert any(pos.pot for pos, _ in positions)  # tied rounds with a pot among them
    for pos, prize in positions:
        x, y = a1.round_strategy(pos, prize), a2.round_strategy(pos, prize)
        assert y.value == pytest.approx(x.value, abs=1e-4)
        assert y.a == pytest.approx(x.a, abs=1e-4)
    l1, v1 = approx_value_array(C6, t1, 3)
    l2, v2 = approx_value_array(C6, t2, 3)
    assert np.array_equal(np.isnan(v1), np.isnan(v2))
    assert np.allclose(v2, v1, atol=1e-4, rtol=0, equal_nan=True)


def test_the_compressed_file_is_the_same(both, tmp_path):
    t1, t2 = both
    m1 = write_compressed(t1, tmp_path / "one.svd.npz", 0.01)
    m2 = write_compressed(t2, tmp_path / "two.svd.npz", 0.01)
    assert [x["rank"] for x in m2["layers"]] == [x["rank"] for x in m1["layers"]]
    assert any(x["rank"] for x in m1["layers"])  # some layer stored as factors
    assert m2["patterns_sha256"] == m1["patterns_sha256"]
    for x, y in zip(m1["layers"], m2["layers"], strict=True):
        assert y["rms"] == pytest.approx(x["rms"], abs=1e-4)
    c1, c2 = open_compressed(tmp_path / "one.svd.npz"), open_compressed(tmp_path / "two.svd.npz")
    assert np.allclose(c2.values, c1.values, atol=1e-3, rtol=0)


def test_the_whole_game_best_response_reads_format_2_without_the_general_view(both, tmp_path):
    t1, t2 = both
    folder = tmp_path / folder_name(D6, "points")
    solve_layered(D6, "points", folder)
    source = EquilibriumSource(D6, cache=tmp_path)
    assert isinstance(source.table, LayeredTable)
    source.table.DENSE_MAX = 0  # the general format-1 view would refuse
    lay, vals = source.best_response_values()
    assert np.allclose(vals, t1.values, atol=F32, rtol=0)
    assert kernel_best_response(D6, lay, vals).exploitability == pytest.approx(0, abs=1e-4)


def test_an_approximation_reads_format_1_format_2_and_prefers_format_2(tmp_path):
    """A cache with only an old format-1 discard table still serves the approximation; with
    both formats of the table, format 2 is read."""
    write_table(solve(D6), tmp_path / table_name(D6, "points"))
    pos, prize = _positions(C6, 1)[0]

    def approx_source():
        table_module._OPENED.clear()  # a new process: nothing verified before
        src = EquilibriumSource(C6, cache=tmp_path, subgame_limit=100)
        assert src.approx is not None and src.strategy(pos, prize)[1] == "approximation"
        return src

    one = approx_source()
    assert isinstance(one.approx.discard, Table) and one.approx.discard.path.name.endswith(".v1.ctt")
    solve_layered(D6, "points", tmp_path / folder_name(D6, "points"))
    two = approx_source()
    assert isinstance(two.approx.discard, LayeredTable)
    assert isinstance(discard_table(C6, tmp_path), LayeredTable)
    assert two.strategy(pos, prize)[0] == pytest.approx(one.strategy(pos, prize)[0], abs=1e-4)


def _run(*args):
    r = CliRunner().invoke(app, [str(a) for a in args])
    return r.exit_code, " ".join(r.output.split())


def test_discard_tables_are_of_format_2_by_default_and_format_1_still_works(tmp_path):
    code, out = _run("solve", "-n", 4, "--ties", "discard", "--cache", tmp_path)
    assert code == 0, out
    assert "(estimate), backend threads; table folder" in out  # the estimate, printed first
    assert (tmp_path / "gops-n4-discard-points-lowace.v2" / "table.json").is_file()
    assert not (tmp_path / "gops-n4-discard-points-lowace.v1.ctt").exists()
    assert "float32; values within" in out
    other = tmp_path / "f1"
    code, out = _run("solve", "-n", 4, "--ties", "discard", "--format", 1, "--cache", other)
    assert code == 0, out
    assert (other / "gops-n4-discard-points-lowace.v1.ctt").is_file()
    assert not (other / "gops-n4-discard-points-lowace.v2").exists()
    # a format-1 table counts as solved; --format 2 asks for the other format beside it
    code, out = _run("solve", "-n", 4, "--ties", "discard", "--cache", other)
    assert code == 0 and "already solved" in out and ".v1.ctt" in out, out
    code, out = _run("solve", "-n", 4, "--ties", "discard", "--format", 2, "--cache", other)
    assert code == 0 and "already solved" not in out and "table folder" in out, out
    assert isinstance(load_table(Ruleset(cards=4, tie_rule="discard"), "points", other), LayeredTable)


def test_the_limits_apply_to_a_discard_solve_of_format_2(tmp_path):
    code, out = _run("solve", "-n", 13, "--ties", "discard", "--cache", tmp_path, "--max-hours", "0.1")
    assert code == 2, out
    assert "longer than --max-hours 0.1" in out and "it resumes after an interruption" in out, out
    code, out = _run("solve", "-n", 13, "--ties", "discard", "--cache", tmp_path, "--max-memory", "0.1")
    assert code == 2 and "more memory than --max-memory 0.1 GiB" in out, out
    assert list(tmp_path.iterdir()) == []  # refused before anything is written: no table, no lock file


def test_an_interrupted_discard_solve_keeps_its_layers_and_resumes(tmp_path, monkeypatch):
    real = layers_module.check_stats

    def ctrl_c_in_layer_4(k, st):
        if k == 4:
            raise KeyboardInterrupt
        return real(k, st)

    monkeypatch.setattr(layers_module, "check_stats", ctrl_c_in_layer_4)
    code, out = _run("solve", "-n", 6, "--ties", "discard", "--cache", tmp_path)
    assert code == 130, out
    assert "interrupted: the finished layers are kept" in out and "run the same command to resume" in out
    folder = tmp_path / folder_name(D6, "points")
    assert sorted(p.name for p in folder.glob("layer-*.json")) == [f"layer-0{k}.json" for k in (1, 2, 3)]
    assert not (folder / "table.json").exists() and not list(folder.glob("*.partial"))
    code, out = _run("tables", "--cache", tmp_path, "--json")
    (entry,) = json.loads(out)["tables"]
    assert entry["format"] == 2 and entry["state"] == "partial" and entry["layers_present"] == 3
    monkeypatch.setattr(layers_module, "check_stats", real)
    code, out = _run("solve", "-n", 6, "--ties", "discard", "--cache", tmp_path)
    assert code == 0 and "resumed layers [1, 2, 3]" in out, out
    fresh = tmp_path / "fresh"
    solve_layered(D6, "points", fresh)
    for k in range(1, 7):
        name = f"layer-0{k}.f32"
        assert (folder / name).read_bytes() == (fresh / name).read_bytes(), name


def test_tables_lists_a_format_2_discard_table_and_a_format_1_one_beside_it(tmp_path):
    write_table(solve(D6), tmp_path / table_name(D6, "points"))
    code, out = _run("tables", "--cache", tmp_path, "--json")
    (only,) = json.loads(out)["tables"]
    assert only["format"] == 1 and only["state_text"] == "complete" and only["shadowed_by"] is None
    solve_layered(D6, "points", tmp_path / folder_name(D6, "points"))
    code, out = _run("tables", "--cache", tmp_path, "--json", "--verify")
    assert code == 0, out
    by_format = {t["format"]: t for t in json.loads(out)["tables"]}
    two, one = by_format[2], by_format[1]
    assert (two["ties"], two["cards"], two["state_text"], two["checksum"]) == (
        "discard",
        6,
        "complete",
        "verified",
    )
    assert two["path"].endswith("gops-n6-discard-points-lowace.v2") and two["shadowed_by"] is None
    assert one["state_text"] == "complete, not read: the format-2 table gops-n6-discard-points-lowace.v2 is"
    assert one["shadowed_by"] == two["path"]
    code, out = _run("tables", "--cache", tmp_path)
    assert code == 0 and "│ 6 cards, discard ties, low ace │ points │ 2 │" in out, out
    assert "│ 6 cards, discard ties, low ace │ points │ 1 │" in out and "complete, not read" in out, out


def test_a_format_2_table_of_another_kind_is_refused_by_the_discard_readers(tmp_path):
    folder = tmp_path / folder_name(C6, "points")
    solve_layered(C6, "points", folder, upto=3)
    low = open_layered(folder, low=True)
    with pytest.raises(ValueError, match="needs a discard-ties table of the points objective"):
        table_source(low)
    with pytest.raises(ValueError, match="needs the discard table of 6 cards"):
        CarryApproximation(C6, low, 1)
    d_low = tmp_path / folder_name(D6, "points")
    solve_layered(D6, "points", d_low, upto=2)
    with pytest.raises(ValueError, match=r"needs the whole game's table: this one holds layers 1\.\.2 of 6"):
        table_source(open_layered(d_low, low=True))
    assert full_layout(D6, "points").top == 6
