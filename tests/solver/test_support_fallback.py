"""The fallback for a matrix game the simplex leaves unverified (kernel.solve_by_supports,
docs/solver.md, Guarantees): every pair of square supports, smallest first, until one's
equalising strategies meet both guarantees. It must solve every game, degenerate ones
included, to the simplex's value."""

from __future__ import annotations

import sys
from math import comb
from pathlib import Path

import numpy as np
import pytest

from cardtable.solver import kernel, lean

sys.path.insert(0, str(Path(__file__).parent))
from solver_reference import game_value  # noqa: E402


def _fallback(M):
    k = M.shape[0]
    rows, cols, A, z, piv = kernel.support_workspace(k)  # what the format-1 kernel passes
    x, y = np.empty(k), np.empty(k)
    ok, v, gap, s = kernel.solve_by_supports(M, k, k, rows, cols, 0, A, z, piv, x, y, kernel.WARM_TOL)
    return ok, v, gap, s, x, y, rows[0, :s], cols[0, :s]


@pytest.mark.parametrize("k", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("kind", ["real", "signs", "win-like"])
def test_it_solves_every_game_to_the_simplex_value(k, kind):
    rng = np.random.default_rng(1000 * k + len(kind))
    for _ in range(40):
        if kind == "real":
            M = rng.normal(size=(k, k))
        elif kind == "signs":  # ties everywhere: degenerate games
            M = rng.integers(-1, 2, size=(k, k)).astype(float)
        else:  # entries of a win-objective game: -1, 0, 1 and a few probabilities
            M = rng.choice([-1.0, 0.0, 1.0, 0.5, -0.25, 1 / 3], size=(k, k))
        ok, v, gap, s, x, y, sup_rows, sup_cols = _fallback(M)
        assert ok and 1 <= s <= k and len(set(sup_rows)) == s and len(set(sup_cols)) == s
        tab, basis, xs, ys = np.empty((k + 1, 2 * k + 1)), np.empty(k, np.int64), np.empty(k), np.empty(k)
        want, _ = kernel.solve_matrix_game(M, k, k, tab, basis, xs, ys)
        assert v == pytest.approx(want, abs=1e-9)
        assert (
            np.all(x >= 0) and np.all(y >= 0) and x.sum() == pytest.approx(1) and y.sum() == pytest.approx(1)
        )
        assert np.max(M @ y) - np.min(x @ M) <= 1e-12 * (1 + abs(v))  # both guarantees, the whole matrix
        assert set(np.flatnonzero(x > 0)) <= set(sup_rows) and set(np.flatnonzero(y > 0)) <= set(sup_cols)


@pytest.mark.parametrize("n, s", [(1, 1), (4, 2), (6, 3), (7, 7)])
def test_next_subset_visits_every_subset_once_in_order(n, s):
    C = np.zeros((1, n), np.int64)
    C[0, :s] = np.arange(s)
    seen = [tuple(C[0, :s])]
    while kernel._next_subset(C, 0, s, n):
        seen.append(tuple(C[0, :s]))
    assert len(seen) == comb(n, s) == len(set(seen)) and seen == sorted(seen)


def test_a_tableau_whose_strategies_sum_to_zero_reads_as_nan_not_a_division_by_zero():
    """A final tableau whose strategies sum to 0 (rounding; never at an exact optimum) reads
    as NaN strategies, and their guarantee gap is NaN: it fails every check."""
    k1 = k2 = 3
    tab = np.zeros((k1 + 1, k1 + k2 + 1))  # every reduced cost and basic value 0: both sums 0
    basis = np.arange(k1, dtype=np.int64)
    x, y = np.empty(k1), np.empty(k2)
    z = kernel._simplex_read(tab, basis, k1, k2, k1 + k2, x, y)
    assert np.isnan(z) and np.isnan(x).all() and np.isnan(y).all()
    gap = kernel.guarantee_gap(np.eye(3), k1, k2, x, y)
    assert np.isnan(gap) and not gap <= kernel.CHECK_TOL  # (a plain minimum gave -2e300)
    # a good tableau reads as before: normalised strategies, the LP's optimum
    tab[k1, k2 : k2 + k1] = [0.2, 0.3, 0.5]
    tab[k1, k1 + k2] = 1.0
    tab[:k1, k1 + k2] = [0.25, 0.25, 0.5]
    basis[:] = [0, 1, 2]
    z = kernel._simplex_read(tab, basis, k1, k2, k1 + k2, x, y)
    assert z == 1.0 and np.allclose(x, [0.2, 0.3, 0.5]) and np.allclose(y, [0.25, 0.25, 0.5])


#: The 6 x 7 game (bids left after merging equivalent ones; float32 child values) that stopped
#: the 12-card win solve with discard ties at layer 8, pattern 5628: the simplex's pivots on
#: the near-equal entries of rows 0 and 1 (3e-7 apart) left a tableau whose strategies sum to
#: 0, which divided by zero inside the kernel; after the first guard, its NaN strategies had
#: a guarantee gap of -2e300, which passed the check and would have stored a NaN value.
STOPPED_12_CARD_SOLVE = np.array(
    [
        [1.0, -0.8647314310073853, -0.8647311329841614, -0.7976341843605042, -0.6985899209976196, -0.5467907786369324, -0.5445178151130676],
        [1.0, 0.2892667055130005, -0.8647314310073853, -0.7976341843605042, -0.6985899209976196, -0.5467907786369324, -0.5445178151130676],
        [1.0, 1.0, 1.0, 0.057346411049366, -1.0, -1.0, -1.0],
        [1.0, 1.0, 1.0, 1.0, 0.057346411049366, -1.0, -1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0, 0.057346411049366, -1.0],
        [0.5100485682487488, 0.5190672278404236, 0.5326107740402222, 0.5919135808944702, 0.7264054417610168, 0.8596492409706116, 1.0],
    ]
)  # fmt: skip


@pytest.mark.parametrize("warm", [False, True])
def test_the_game_that_stopped_the_12_card_solve_gets_its_value_in_the_layer_kernel(warm):
    """``lean._solve`` (the layer kernels' per-game step) and ``kernel.solve_matrix_game``
    give this game its value (SciPy HiGHS, tests/solver/solver_reference.py) with a
    verified gap: no exception, no NaN, no game counted as failed."""
    k, (k1, k2) = 8, STOPPED_12_CARD_SOLVE.shape
    M = np.zeros((k, k))
    M[:k1, :k2] = STOPPED_12_CARD_SOLVE
    want = game_value(STOPPED_12_CARD_SOLVE)
    tab, basis, xs, ys, R = kernel.game_workspace(k)[1:]
    wI, wJ, A, z, mark = kernel.support_workspace(k)  # one support slot, as the kernels' shapes
    ws = np.zeros(1, np.int64)
    st = np.zeros(lean.NSTATS)
    v = lean._solve(M, k1, k2, warm, ws, wI, wJ, 0, tab, basis, xs, ys, A, z, mark, R, st)
    assert v == pytest.approx(want, abs=1e-9)
    assert st[0] == 1 and st[3] == 0 and st[2] <= kernel.CHECK_TOL
    assert st[7] == 1  # the support search took it (the simplex and its refinement did not)
    v2, gap = kernel.solve_matrix_game(M, k1, k2, tab, basis, xs, ys)
    assert v2 == pytest.approx(want, abs=1e-9) and gap <= kernel.CHECK_TOL
    assert np.max(STOPPED_12_CARD_SOLVE @ ys[:k2]) - np.min(xs[:k1] @ STOPPED_12_CARD_SOLVE) <= 1e-9
