"""A plain, independent reference solver for tests: recursion over actual
hands (no patterns, no symmetry), memoised, one SciPy HiGHS ``linprog`` per
matrix game. Slow; only for n <= 5."""

from __future__ import annotations

import functools

import numpy as np
from scipy.optimize import linprog


def game_value(M: np.ndarray) -> float:
    """Value of the zero-sum game M (row player maximises) by an LP:
    max v s.t. x'M >= v, sum x = 1, x >= 0."""
    k1, k2 = M.shape
    c = np.zeros(k1 + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-M.T, np.ones((k2, 1))])
    b_ub = np.zeros(k2)
    A_eq = np.hstack([np.ones((1, k1)), np.zeros((1, 1))])
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=b_ub,
        A_eq=A_eq,
        b_eq=[1.0],
        bounds=[(0, None)] * k1 + [(None, None)],
        method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    assert res.status == 0, res.message
    return float(res.x[-1])


def make_reference(
    n: int,
    tie_rule: str,
    objective: str = "points",
    high_ace: bool = False,
    order: tuple[int, ...] | None = None,
):
    """Return ``value(prizes, hand_a, hand_b, pot=0, diff=0)`` for the n-card game
    (``order``: a fixed, public prize order; then only its next prize can come);
    ``value.memo`` maps every position evaluated so far to its value."""

    def strength(c):
        return n + 1 if (high_ace and c == 1) else c

    prize_value = strength

    memo: dict = {}

    def value(prizes: frozenset, a: frozenset, b: frozenset, pot: int = 0, diff: int = 0) -> float:
        key = (prizes, a, b, pot, diff)
        if key in memo:
            return memo[key]
        if not prizes:
            return float(np.sign(diff)) if objective == "win" else 0.0
        last = len(prizes) == 1
        total = 0.0
        ra, rb = sorted(a), sorted(b)
        coming = list(prizes) if order is None else [next(c for c in order if c in prizes)]
        for p in coming:
            stake = pot + prize_value(p)
            M = np.empty((len(ra), len(rb)))
            for i, x in enumerate(ra):
                for j, y in enumerate(rb):
                    if strength(x) > strength(y):
                        gain, cpot = stake, 0
                    elif strength(x) < strength(y):
                        gain, cpot = -stake, 0
                    else:  # tie: carry the stake on, except in the last round (docs/rules.md, Ties)
                        gain, cpot = 0, (stake if tie_rule == "carry" and not last else 0)
                    child = value(
                        prizes - {p}, a - {x}, b - {y}, cpot, diff + gain if objective == "win" else 0
                    )
                    M[i, j] = child if objective == "win" else gain + child
            total += game_value(M)
        memo[key] = total / len(coming)
        return memo[key]

    value.memo = memo
    return value


def shared_reference(n: int, tie_rule: str, high_ace: bool = False):
    """:func:`make_reference`'s function for the points objective, one per game for the whole
    test session: the 5-card carry-over reference alone costs about 40 s of LPs, and the
    format-1 and layered tables (test_values.py, test_lean.py) are both compared with it.
    Its ``memo`` is the union of the positions every caller evaluated, so a test compares
    its table on all of them. (Not for the win objective: there a position's point
    difference must fit its history, which the layered table checks.)"""
    return _shared(n, tie_rule, high_ace)  # one cache key however the call is written


@functools.lru_cache(maxsize=None)
def _shared(n: int, tie_rule: str, high_ace: bool):
    return make_reference(n, tie_rule, "points", high_ace)
