"""The warm-started layer kernel (docs/solver.md, Warm start): each matrix game first
tries its neighbour's optimal support; tables equal the cold kernel's within the
float32 bound, and the warm path is really taken."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardtable.goofspiel import Ruleset
from cardtable.solver import kernel
from cardtable.solver.layers import LayerBackend, lean_layout, open_layered, solve_layered
from cardtable.solver.lean import NSTATS, float32_bound, solve_chunk


def _work(k):
    return (
        np.empty((k + 1, 2 * k + 1)),
        np.empty(k, np.int64),
        np.empty(k),
        np.empty(k),
        np.zeros((1, k), np.int64),
        np.zeros((1, k), np.int64),
        np.empty((k + 1, k + 1)),
        np.empty(3 * (k + 1)),
        np.empty(k + 1, np.int64),
        np.empty((2 * k + 4, k)),
    )


def _warm(M, s, work):
    tab, basis, x, y, sup_i, sup_j, A, z, mark, R = work
    k = M.shape[0]
    return kernel.solve_game_warm(M, k, k, tab, basis, x, y, sup_i, sup_j, 0, s, A, z, mark, R)


def test_support_of_a_cold_solve_solves_a_neighbour_game():
    # rock-paper-scissors with one payoff doubled: fully mixed
    M = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 2.0, 0.0]])
    work = _work(3)
    v, gap, s, hit = _warm(M, 0, work)
    assert not hit and s == 3 and gap < 1e-12
    x, y = work[2].copy(), work[3].copy()
    assert np.all(x > 0.1) and np.all(y > 0.1) and abs(x.sum() - 1) < 1e-12 and abs(y.sum() - 1) < 1e-12
    assert np.max(M @ y) - np.min(x @ M) < 1e-12
    # a neighbour game (a pot added to the decided pairs): the same support, new weights
    signs = np.sign(M)
    v2, gap2, s2, hit2 = _warm(M + 0.5 * signs, s, work)
    assert hit2 and s2 == 3 and gap2 < 1e-12
    tab, basis, xs, ys = np.empty((4, 7)), np.empty(3, np.int64), np.empty(3), np.empty(3)
    cold, cgap = kernel.solve_matrix_game(M + 0.5 * signs, 3, 3, tab, basis, xs, ys)
    assert abs(v2 - cold) < 1e-12
    assert np.all(work[2] >= 0) and np.all(work[3] >= 0)


def test_wrong_support_falls_back_to_the_simplex():
    M = np.array([[3.0, 0.0], [0.0, 1.0]])  # mixed: value 3/4
    work = _work(2)
    work[4][0, 0], work[5][0, 0] = 0, 0  # guess: the saddle point (row 0, column 0): wrong
    v, gap, s, hit = _warm(M, 1, work)
    assert not hit and s == 2 and abs(v - 0.75) < 1e-12 and gap < 1e-12
    # a pure saddle point is found from a one-cell support
    S = np.array([[2.0, 5.0], [1.0, 0.0]])
    v, gap, s, hit = _warm(S, 0, work)
    assert (v, s, hit) == (2.0, 1, False)
    v, gap, s, hit = _warm(S + 1.0, s, work)
    assert (v, s, hit, gap) == (3.0, 1, True, 0.0)
    # a singular support system is refused, not divided by zero
    ok, *_ = kernel.solve_on_support(
        np.ones((2, 2)),
        2,
        2,
        np.array([[0, 1]]),
        np.array([[0, 1]]),
        0,
        2,
        np.empty((3, 3)),
        np.empty(9),
        np.empty(3, np.int64),
        np.empty(2),
        np.empty(2),
    )
    assert not ok


def test_a_support_whose_own_matrix_is_singular_is_solved_through_the_shift():
    # matching pennies: M_IJ is singular (det 0) and the value is 0, so the unshifted
    # formula v = 1 / (1' M^-1 1) has nothing to invert; M + c (c = 1 - min M) has every
    # entry at least 1 and is nonsingular ([[3, 1], [1, 3]] at scale 1, for every offset)
    for scale in (1.0, 4.0):
        M = scale * np.array([[1.0, -1.0], [-1.0, 1.0]])
        for offset in (0.0, -7.5, 30.0):  # value 0, then a negative and a large positive one
            work = _work(2)
            work[4][0, :2], work[5][0, :2] = [0, 1], [1, 0]  # the full support, in any order
            v, gap, s, hit = _warm(M + offset, 2, work)
            assert hit and s == 2 and abs(v - offset) < 1e-12 and gap < 1e-12
            assert np.allclose(work[2][:2], 0.5) and np.allclose(work[3][:2], 0.5)


def test_a_mixed_game_whose_smallest_entry_is_one_reports_its_real_support():
    # the simplex's shift is 1 - (smallest entry): 0 here, which once read as "a pure saddle
    # point, no LP" and left the previous game's support (stale indices) as the next guess
    M = np.array([[1.0, 3.0], [3.0, 1.0]])  # mixed, value 2
    work = _work(2)
    work[4][0, 0], work[5][0, 0] = 1, 1  # a stale one-cell support from an earlier game
    v, gap, s, hit = _warm(M, 0, work)
    assert not hit and abs(v - 2.0) < 1e-12 and gap < 1e-12
    assert s == 2 and sorted(work[4][0, :2]) == [0, 1] and sorted(work[5][0, :2]) == [0, 1]
    # that support is right for the next game: a hit, not a wrong one-cell guess taken
    v2, gap2, s2, hit2 = _warm(M + np.array([[0.5, -0.5], [-0.5, 0.5]]), s, work)
    assert hit2 and abs(v2 - 2.0) < 1e-12 and s2 == 2


def test_a_guessed_support_is_checked_on_a_rectangular_game():
    # after merging equivalent bids the layer kernels solve k1 x k2 games (k1 != k2)
    M = np.zeros((3, 3))
    M[:3, :2] = [[10.25, 2.0], [9.0, 7.0], [8.0, 12.0]]
    work = _work(3)
    tab, basis, x, y, sup_i, sup_j, A, z, mark, R = work
    v, gap, s, hit = kernel.solve_game_warm(M, 3, 2, tab, basis, x, y, sup_i, sup_j, 0, 0, A, z, mark, R)
    assert not hit and gap < 1e-12 and s == 2
    assert max(sup_i[0, :s]) < 3 and max(sup_j[0, :s]) < 2
    # the value of the LP: max over x of min over the two columns
    grid = np.linspace(0, 1, 20001)
    best = max(min(g * 10.25 + (1 - g) * 8.0, g * 2.0 + (1 - g) * 12.0) for g in grid)
    assert abs(v - best) < 1e-3
    v2, gap2, s2, hit2 = kernel.solve_game_warm(M, 3, 2, tab, basis, x, y, sup_i, sup_j, 0, s, A, z, mark, R)
    assert hit2 and abs(v2 - v) < 1e-12


def _layers(lay, warm):
    out, prev, st = [None], None, np.zeros(NSTATS)
    for k in range(1, lay.top + 1):
        prev, s = solve_chunk(lay, k, 0, lay.npat(k), prev, warm=warm)
        out.append(prev)
        st += s
    return out, st


@pytest.mark.parametrize(
    "n,tie,objective",
    [
        (7, "carry", "points"),
        (7, "discard", "points"),
        (6, "carry", "win"),
        (6, "discard", "win"),
    ],
)
def test_warm_and_cold_kernels_give_equal_tables_within_the_float32_bound(n, tie, objective):
    lay = lean_layout(Ruleset(cards=n, tie_rule=tie), objective)
    warm, wst = _layers(lay, True)
    cold, cst = _layers(lay, False)
    assert wst[0] == cst[0] > 1000 and wst[1] == cst[1]  # the same games and positions
    assert wst[3] == cst[3] == 0 and wst[2] < 1e-11
    assert wst[5] > 0.5 * wst[0]  # the warm path is taken for most games
    assert cst[5] == cst[6] == 0  # the cold kernel never tries a support
    for k in range(1, n + 1):
        skipped = np.isnan(warm[k])  # states no game reaches (lean.min_ties): the same in both
        assert np.array_equal(skipped, np.isnan(cold[k]))
        worst = float(np.max(np.abs(warm[k][~skipped].astype(float) - cold[k][~skipped])))
        assert worst <= float32_bound(lay, k), (k, worst)


def test_layer_files_record_warm_hits_and_a_cold_backend_records_none(tmp_path):
    rs = Ruleset(cards=6, tie_rule="carry")
    warm = solve_layered(rs, "points", tmp_path / "warm")
    cold = solve_layered(rs, "points", tmp_path / "cold", LayerBackend(warm=False))
    metas = [json.loads((tmp_path / "warm" / f"layer-{k:02d}.json").read_text()) for k in range(1, 7)]
    assert sum(m["warm_hits"] for m in metas) > 0
    assert all(m["warm_hits"] + m["warm_misses"] <= m["games"] for m in metas)
    cmeta = json.loads((tmp_path / "cold" / "layer-05.json").read_text())
    assert cmeta["warm_hits"] == cmeta["warm_misses"] == 0
    assert warm["layout_sha256"] == cold["layout_sha256"] and warm["stats"]["games"] == cold["stats"]["games"]


def test_a_table_begun_by_the_cold_kernel_is_finished_by_the_warm_one(tmp_path):
    """The lead's resumable solves: early layers from the cold kernel, later ones warm."""
    rs = Ruleset(cards=6, tie_rule="carry")
    mixed = tmp_path / "mixed"
    solve_layered(rs, "points", mixed, LayerBackend(warm=False))
    for k in (4, 5, 6):  # as if interrupted after layer 3
        (mixed / f"layer-{k:02d}.json").unlink()
    resumed = solve_layered(rs, "points", mixed)
    assert resumed["stats"]["resumed_layers"] == [1, 2, 3]
    warm = solve_layered(rs, "points", tmp_path / "warm")
    assert resumed["layout_sha256"] == warm["layout_sha256"] and resumed["version"] == warm["version"]
    table = open_layered(mixed)
    lay = table.lay
    for k in range(1, 7):
        a = np.fromfile(mixed / f"layer-{k:02d}.f32", dtype="<f4").astype(float)
        b = np.fromfile(tmp_path / "warm" / f"layer-{k:02d}.f32", dtype="<f4")
        assert len(a) == len(b) and np.array_equal(np.isnan(a), np.isnan(b))
        both = ~np.isnan(a)
        assert float(np.max(np.abs(a[both] - b[both]))) <= float32_bound(lay, k)
