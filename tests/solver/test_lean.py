"""Table format 2 (lean layout, float32 layers): values against format 1 and the
LP reference, the float32 bound, resume after SIGKILL, damage, foreign tables."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cardtable.goofspiel import Ruleset
from cardtable.solver import Position, TableFileError, kernel, load_table, solve, write_table
from cardtable.solver.estimate import estimate_solve
from cardtable.solver.layers import LayerBackend, folder_name, lean_layout, open_layered, solve_layered
from cardtable.solver.lean import U32, expand_layer, float32_bound, solve_chunk
from cardtable.solver.table import FORMAT_LAYERED, default_path

sys.path.insert(0, str(Path(__file__).parent))
from solver_reference import make_reference, shared_reference  # noqa: E402


def lean_layers(lay):
    """Solve every layer in memory; returns [None, layer 1, ..., layer n]."""
    layers, prev = [None], None
    for k in range(1, lay.top + 1):
        prev, _ = solve_chunk(lay, k, 0, lay.npat(k), prev)
        layers.append(prev)
    return layers


def worst_vs_dense(rs, objective):
    """Per layer, max |lean - format 1| over every lean position, and positions compared."""
    lay = lean_layout(rs, objective)
    layers = lean_layers(lay)
    old = solve(rs, objective)
    L = old.layout
    worst, count = [0.0] * (lay.top + 1), 0
    for k in range(1, lay.top + 1):
        npat, S = L.npat(k), int(lay.nstates[k])
        grid = layers[k].reshape(npat, S)
        for r in range(int(L.mask_off[k + 1] - L.mask_off[k])):
            R = L.T - int(L.psum[L.masks[L.mask_off[k] + r]])
            s0, s1 = int(lay.soff[lay.so_off[k] + r]), int(lay.soff[lay.so_off[k] + r + 1])
            for j in range(s0, s1):
                key = int(lay.skeys[lay.skoff[k] + j])
                pot = key // lay.W
                d = key - pot * lay.W - L.T
                at = kernel.slot(k, r, pot, d, R, npat, L.base, L.base_off, L.val_off, L.carry, L.win)
                dense = old.values[at : at + npat]
                solved = ~np.isnan(grid[:, j])  # NaN: a pot these hands cannot hold (min_ties)
                # both kernels skip the same states (layout.pot_reach is min_ties in a full game)
                assert np.array_equal(np.isnan(dense), ~solved)
                if solved.any():
                    worst[k] = max(worst[k], float(np.max(np.abs(grid[solved, j] - dense[solved]))))
                count += int(solved.sum())
    return lay, worst, count, old


@pytest.mark.parametrize(
    "n,tie,objective",
    [
        (8, "carry", "points"),
        (8, "discard", "points"),
        (6, "carry", "win"),
        (7, "discard", "win"),
        pytest.param(8, "carry", "win", marks=pytest.mark.slow),
        pytest.param(8, "discard", "win", marks=pytest.mark.slow),
    ],
)
def test_lean_values_equal_format1_within_the_float32_bound(n, tie, objective):
    rs = Ruleset(cards=n, tie_rule=tie)
    lay, worst, count, old = worst_vs_dense(rs, objective)
    for k in range(1, n + 1):
        assert worst[k] <= float32_bound(lay, k), (k, worst[k])
    # float32 really is used (differences exist); both solve the same positions (the win
    # objective's format 1 also counts point differences decided before the end)
    assert max(worst) > 0
    assert count == old.stats["positions"] if objective == "points" else count <= old.stats["positions"]


def test_float32_bound_is_small_and_covers_rounding():
    lay = lean_layout(Ruleset(cards=13, tie_rule="carry"), "points")
    assert float32_bound(lay, 13) < 1e-4  # points: 13 layers x (2^-24 x 91 + 1e-9 x 92)
    v = np.float64(45.123456789)
    assert abs(float(np.float32(v)) - v) <= U32 * abs(v)


@pytest.mark.parametrize(
    "n,tie,objective",
    [
        (4, "carry", "points"),
        (5, "carry", "points"),
        (5, "discard", "points"),
        (4, "carry", "win"),
        (4, "discard", "win"),
    ],
)
def test_lean_table_matches_lp_reference(tmp_path, n, tie, objective):
    rs = Ruleset(cards=n, tie_rule=tie)
    solve_layered(rs, objective, tmp_path / "t")
    table = open_layered(tmp_path / "t")
    # points: test_values.py compares with the same one
    ref = shared_reference(n, tie) if objective == "points" else make_reference(n, tie, objective)
    f = frozenset(range(1, n + 1))
    ref(f, f, f)
    ref(f - {n}, f - {1}, f - {n}, 0, -n if objective == "win" else 0)  # B's king took the top prize
    assert len(ref.memo) > 100
    bound = float32_bound(table.lay, n)
    worst = max(
        abs(table.value(Position(p, (a, b), pot, d)) - v) for (p, a, b, pot, d), v in ref.memo.items()
    )
    assert worst <= bound
    # strategies from the layers meet both guarantees (carry-over: both bid 3 for the ace, so
    # the ace sits in the pot; a pot needs a tie, and a tie two cards of one strength)
    tied = (f - {1}, (f - {3}, f - {3}), 1) if tie == "carry" else (f - {1}, (f - {n}, f - {2}), 0)
    st = table.round_strategy(Position(*tied), n)
    assert st.gap < 1e-9 and abs(sum(st.a.values()) - 1) < 1e-12


def test_unreachable_state_is_refused(tmp_path):
    from cardtable.solver import ImpossiblePosition

    rs = Ruleset(cards=5, tie_rule="carry")
    solve_layered(rs, "win", tmp_path / "t")
    table = open_layered(tmp_path / "t")
    three = frozenset({1, 2, 3})
    # prizes 4 and 5 are gone: each was won by A, won by B or sits in the pot, so with no
    # pot the difference is +-1 or +-9, never 0 (format 1 stored such slots, never used)
    with pytest.raises(ImpossiblePosition, match="cannot arise"):
        table.value(Position(three, (three, three), 0, 0))
    pos = Position(three, (three, three), 0, 1)
    assert abs(table.value(pos) - solve(rs, "win").value(pos)) <= float32_bound(table.lay, 3)


KILLER = """
import os, signal, sys
from pathlib import Path
from cardtable.goofspiel import Ruleset
from cardtable.solver.layers import LayerBackend, solve_layered

def progress(k, done, npat, games):
    if k == 5 and npat // 2 < done < npat:  # half of layer 5 is written: die at once
        os.kill(os.getpid(), signal.SIGKILL)

solve_layered(Ruleset(cards=7, tie_rule="carry"), "points", Path(sys.argv[1]),
              LayerBackend(chunk_games=2000), progress)
"""


def test_resume_after_sigkill_mid_layer_gives_identical_files(tmp_path):
    folder = tmp_path / "killed"
    r = subprocess.run([sys.executable, "-c", KILLER, str(folder)], capture_output=True, timeout=600)
    assert r.returncode == -9, r.stderr.decode()[-2000:]
    assert (folder / "layer-05.f32.partial").stat().st_size > 0
    assert not (folder / "layer-05.json").exists() and not (folder / "table.json").exists()
    rs = Ruleset(cards=7, tie_rule="carry")
    with pytest.raises(TableFileError, match="unfinished"):
        open_layered(folder)
    resumed = solve_layered(rs, "points", folder)
    assert resumed["stats"]["resumed_layers"] == [1, 2, 3, 4]
    fresh = solve_layered(rs, "points", tmp_path / "fresh")
    # A layer's record holds its solve time, so the record's own checksum differs between the
    # two runs; everything else (values, counts, value checksums) must be identical.
    assert resumed["layers"] == [
        dict(x, seconds=y["seconds"], record_sha256=y["record_sha256"])
        for x, y in zip(fresh["layers"], resumed["layers"], strict=True)
    ]
    for rec in resumed["layers"]:
        record = folder / rec["file"].replace(".f32", ".json")
        assert hashlib.sha256(record.read_bytes()).hexdigest() == rec["record_sha256"]
    for name in sorted(p.name for p in (tmp_path / "fresh").glob("layer-*.f32")):
        assert (folder / name).read_bytes() == (tmp_path / "fresh" / name).read_bytes()
    assert (folder / "layout.npz").read_bytes() == (tmp_path / "fresh" / "layout.npz").read_bytes()
    assert not list(folder.glob("*.partial"))


def test_damaged_finished_layer_is_recomputed_on_resume(tmp_path):
    rs = Ruleset(cards=5, tie_rule="carry")
    folder = tmp_path / "t"
    solve_layered(rs, "points", folder)
    good = (folder / "layer-03.f32").read_bytes()
    data = bytearray(good)
    data[10] ^= 0x40
    (folder / "layer-03.f32").write_bytes(bytes(data))
    with pytest.raises(TableFileError, match="checksum"):
        open_layered(folder)
    again = solve_layered(rs, "points", folder)
    assert again["stats"]["resumed_layers"] == [1, 2, 4, 5]
    assert (folder / "layer-03.f32").read_bytes() == good


def test_damaged_truncated_and_missing_tables_are_refused(tmp_path):
    rs = Ruleset(cards=4, tie_rule="carry")
    folder = tmp_path / "t"
    solve_layered(rs, "points", folder)
    manifest = json.loads((folder / "table.json").read_text())
    manifest["cards"] = 5
    (folder / "table.json").write_text(json.dumps(manifest))
    with pytest.raises(TableFileError, match="digest"):
        open_layered(folder)
    solve_layered(rs, "points", folder)
    (folder / "layer-02.f32").write_bytes((folder / "layer-02.f32").read_bytes()[:-4])
    with pytest.raises(TableFileError, match="truncated"):
        open_layered(folder)
    with pytest.raises(TableFileError, match="missing"):
        open_layered(tmp_path / "nothing")


@pytest.mark.parametrize("fmt", [1, 2])
def test_table_of_another_ruleset_under_this_name_is_refused(tmp_path, fmt):
    """Issue 9, section 3: a valid table copied under another ruleset's name."""
    discard, carry = Ruleset(cards=4, tie_rule="discard"), Ruleset(cards=4, tie_rule="carry")
    if fmt == 1:
        write_table(solve(discard), default_path(carry, "points", tmp_path))
        write_table(solve(carry), default_path(carry, "win", tmp_path))
    else:
        solve_layered(discard, "points", default_path(carry, "points", tmp_path, FORMAT_LAYERED))
        solve_layered(carry, "points", default_path(carry, "win", tmp_path, FORMAT_LAYERED))
    with pytest.raises(TableFileError, match="copied or renamed"):
        load_table(carry, "points", tmp_path)  # another tie rule
    with pytest.raises(TableFileError, match="copied or renamed"):
        load_table(carry, "win", tmp_path)  # another objective
    assert load_table(discard, "points", tmp_path) is None  # nothing under its own name


def test_load_table_prefers_format2_and_still_reads_format1(tmp_path):
    rs = Ruleset(cards=5, tie_rule="carry")
    t1 = write_table(solve(rs), default_path(rs, "points", tmp_path))
    f = frozenset(range(1, 6))
    # A's 5 took the ace from B's 1, then both bid 3 for the 2: the 2 is in the pot
    pos = Position(f - {1, 2}, (f - {3, 5}, f - {1, 3}), 2)
    table = load_table(rs, "points", tmp_path)
    assert table.path == t1
    exact = table.value(pos)
    solve_layered(rs, "points", default_path(rs, "points", tmp_path, FORMAT_LAYERED))
    table = load_table(rs, "points", tmp_path)
    assert table.path.name == folder_name(rs, "points")
    assert abs(table.value(pos) - exact) <= float32_bound(table.lay, 3) and table.value(pos) != exact
    assert table.round_strategy(pos, 5).a.keys() == {1, 2, 4}
    # the format-1 view (layout, values) for code that walks format-1 arrays
    dense = solve(rs)
    assert table.layout.size == dense.layout.size
    both = ~np.isnan(table.values)
    assert np.array_equal(both, ~np.isnan(dense.values))  # reachable states only, in both
    assert np.max(np.abs(table.values[both] - dense.values[both])) <= float32_bound(table.lay, 5)


def test_threads_give_identical_files_and_estimate_counts_games(tmp_path):
    rs = Ruleset(cards=7, tie_rule="carry")
    one = solve_layered(rs, "points", tmp_path / "one", LayerBackend(chunk_games=50_000))
    two = solve_layered(rs, "points", tmp_path / "two", LayerBackend(threads=2, chunk_games=50_000))
    assert [x["sha256"] for x in one["layers"]] == [x["sha256"] for x in two["layers"]]
    needs = estimate_solve(rs, "points")
    assert needs.games == one["stats"]["games"] and needs.positions == one["stats"]["positions"]
    disk = sum(p.stat().st_size for p in (tmp_path / "one").glob("layer-*.f32"))
    assert disk <= needs.disk_bytes < disk + (1 << 20)


def test_skipped_states_are_exactly_the_pots_no_game_can_hold(tmp_path):
    """The kernels skip a state (NaN) iff its pot needs more tied prizes than the
    strengths both players have played (lean.min_ties), checked against a brute force
    over the turned-up prizes; and every position a real game reaches (all bid and
    prize sequences from the start) keeps a finite value."""
    from itertools import combinations

    from cardtable.solver import ImpossiblePosition

    n = 6
    rs = Ruleset(cards=n, tie_rule="carry")
    solve_layered(rs, "points", tmp_path / "t")
    table = open_layered(tmp_path / "t")
    lay = table.lay
    L = lay.dense
    skipped = solved = 0
    for k in range(1, n + 1):
        grid = expand_layer(lay, k, table.layers[k])  # compact: NaN where a pattern has no slot
        for i in range(lay.npat(k)):
            played_by_both = n - kernel.decode(int(L.codes[L.code_off[k] + i]))[2]
            for r in range(int(L.mask_off[k + 1] - L.mask_off[k])):
                up = [int(L.pval[p]) for p in range(n) if not (int(L.masks[L.mask_off[k] + r]) >> p) & 1]
                s0, s1 = int(lay.soff[lay.so_off[k] + r]), int(lay.soff[lay.so_off[k] + r + 1])
                for j in range(s0, s1):
                    pot = int(lay.skeys[lay.skoff[k] + j]) // lay.W
                    fewest = min(
                        c for c in range(len(up) + 1) if any(sum(x) == pot for x in combinations(up, c))
                    )
                    assert np.isnan(grid[i, j]) == (fewest > played_by_both), (k, i, r, pot)
                    skipped += fewest > played_by_both
                    solved += fewest <= played_by_both
    assert skipped > solved > 0  # most pot states of 6 cards cannot occur
    # every position of a real game: all bids and prizes from the start, ties carried. Its
    # value is a finite expected point difference that no game can exceed: at most the
    # prizes still to come plus the pot.
    seen = {}

    def walk(prizes, a, b, pot):
        if not prizes or (prizes, a, b, pot) in seen:
            return
        v = seen[prizes, a, b, pot] = table.value(Position(prizes, (a, b), pot))
        assert abs(v) <= sum(prizes) + pot, (prizes, a, b, pot, v)
        for q in prizes:
            for x in a:
                for y in b:
                    walk(prizes - {q}, a - {x}, b - {y}, pot + q if x == y else 0)

    f = frozenset(range(1, n + 1))
    walk(f, f, f, 0)
    assert len(seen) > 10_000
    # with two prizes left, every 40th of those positions (a fixed sample: the reference
    # solver is slow) has the independent reference solver's value
    ref = make_reference(n, "carry", "points")
    late = sorted(
        (key for key in seen if len(key[0]) == 2),
        key=lambda key: [sorted(part) for part in key[:3]] + [key[3]],
    )
    assert len(late) > 1_000
    for prizes, a, b, pot in late[::40]:
        assert seen[prizes, a, b, pot] == pytest.approx(ref(prizes, a, b, pot), abs=1e-4), (prizes, a, b, pot)
    with pytest.raises(ImpossiblePosition, match="strengths that both players have played"):
        table.value(Position(f - {1, 2}, (f - {5, 6}, f - {1, 2}), 3))
