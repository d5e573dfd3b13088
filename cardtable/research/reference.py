"""A tiny exact reference solver for small 2-player Goofspiel, to check other tools.

Independent of :mod:`cardtable.solver` (the project's real solver): plain
backward induction over *public states* with one linear program per state.

In 2-player Goofspiel with single-card bids and one prize at a time, everything
except the face-down prize order is public at the start of a round (bids are
revealed; docs/rules.md, What each player knows), so the game is a stochastic game of simultaneous-move
stages. With point-difference payoffs (additive over rounds) the value of a
public state ``(hand0, hand1, pot, remaining prizes)`` is the value of the
matrix game whose entry for bids ``(a, b)`` is the points won this round
(``+pot`` / ``-pot`` / ``0``) plus the expected value of the next state (the
next prize uniform over the face-down ones, or the known next prize for a
fixed order). Each matrix game is solved as a linear program with SciPy's
``linprog`` (HiGHS): maximise ``v`` subject to ``x^T A >= v`` for every column,
``sum(x) = 1``, ``x >= 0`` (von Neumann's minimax theorem).

Only 2 players, ``cards_per_bid == 1``, ``open_prizes == 1``; cost grows as
``4^n`` states, so ``cards <= 6`` is practical.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import numpy as np
from scipy.optimize import linprog

from cardtable.goofspiel import Ruleset, prize_order_for, top_bidder

#: A public state at the start of a round: own hands, pot (face-up prizes), face-down prizes.
State = tuple[frozenset, frozenset, tuple, frozenset]


def solve_matrix_game(payoff: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Value and optimal mixed strategies ``(x, y)`` of a zero-sum matrix game
    (row player maximises ``x^T A y``), via two LPs (HiGHS).

    Raises:
        RuntimeError: the LP solver failed (should not happen for finite matrices).
    """
    a = np.asarray(payoff, dtype=float)
    m, n = a.shape

    def maximin(mat: np.ndarray) -> tuple[float, np.ndarray]:
        rows, cols = mat.shape
        # variables x_1..x_rows, v ; minimise -v
        c = np.zeros(rows + 1)
        c[-1] = -1.0
        a_ub = np.hstack([-mat.T, np.ones((cols, 1))])  # v - x^T A_j <= 0
        b_ub = np.zeros(cols)
        a_eq = np.hstack([np.ones((1, rows)), np.zeros((1, 1))])
        bounds = [(0, None)] * rows + [(None, None)]
        res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
        if not res.success:
            raise RuntimeError(f"linprog failed: {res.message}")
        x = np.clip(res.x[:rows], 0, None)
        return float(res.x[-1]), x / x.sum()

    v, x = maximin(a)
    _, y = maximin(-a.T)
    return v, x, y


@dataclass
class ReferenceSolution:
    """Values and equilibrium strategies of every reachable public state.

    Attributes:
        ruleset: the solved variant.
        value: player 0's equilibrium expected point difference (points minus the
            opponent's) before the first prize is turned up.
        values: state -> value at the start of that round.
        strategies: state -> (player 0's, player 1's) mixed strategy over their
            hands in ascending card order.
    """

    ruleset: Ruleset
    value: float
    values: dict = field(default_factory=dict)
    strategies: dict = field(default_factory=dict)


def _check(ruleset: Ruleset) -> None:
    if ruleset.players != 2 or ruleset.cards_per_bid != 1 or ruleset.open_prizes != 1:
        raise ValueError("the reference solver handles 2 players, single-card bids, one prize at a time")
    if ruleset.cards > 7:
        raise ValueError("the reference solver is for small games (cards <= 7)")


def _next_states(rs: Ruleset, h0: frozenset, h1: frozenset, carried: tuple, remaining: frozenset):
    """``(probability, state)`` of the round after; empty when the game ends."""
    if not h0 or not remaining:
        return []
    if rs.fixed_order:
        order = _fixed_order(rs)
        nxt = next(p for p in order if p in remaining)
        return [(1.0, (h0, h1, carried + (nxt,), remaining - {nxt}))]
    k = len(remaining)
    return [(1.0 / k, (h0, h1, carried + (p,), remaining - {p})) for p in sorted(remaining)]


def _fixed_order(rs: Ruleset) -> tuple[int, ...]:

    return tuple(prize_order_for(rs, None))


def _round_outcomes(rs: Ruleset, state: State):
    """For each bid pair: (points to player 0 minus player 1 this round, next states)."""
    h0, h1, pot, remaining = state
    a0, a1 = sorted(h0), sorted(h1)
    value = sum(rs.prize_value(p) for p in pot)
    out = {}
    for i, b0 in enumerate(a0):
        for j, b1 in enumerate(a1):
            winner = top_bidder([rs.strength(b0), rs.strength(b1)], rs.unique_bids)
            n0, n1 = h0 - {b0}, h1 - {b1}
            last = not n0 or not remaining
            gain = 0.0 if winner is None else (value if winner == 0 else -value)
            carried = pot if (winner is None and rs.tie_rule == "carry" and not last) else ()
            out[i, j] = (gain, _next_states(rs, n0, n1, carried, remaining))
    return a0, a1, out


def solve(ruleset: Ruleset) -> ReferenceSolution:
    """Solve a small 2-player game exactly (see the module docstring).

    Raises:
        ValueError: an unsupported ruleset (players, multi-card bids, open prizes, size).
    """
    _check(ruleset)
    rs = ruleset
    sol = ReferenceSolution(rs, 0.0)

    @lru_cache(maxsize=None)
    def value(state: State) -> float:
        a0, a1, outcomes = _round_outcomes(rs, state)
        mat = np.zeros((len(a0), len(a1)))
        for (i, j), (gain, nxt) in outcomes.items():
            mat[i, j] = gain + sum(p * value(s) for p, s in nxt)
        v, x, y = solve_matrix_game(mat)
        sol.values[state] = v
        sol.strategies[state] = (x, y)
        return v

    full = frozenset(rs.deck)
    start = _next_states(rs, full, full, (), full)
    sol.value = sum(p * value(s) for p, s in start)
    return sol


def best_response_value(
    ruleset: Ruleset, responder: int, policy: Callable[[State, int], np.ndarray]
) -> float:
    """The responder's expected point difference when best-responding to the other
    player's ``policy`` (``policy(state, seat)`` gives that seat's mixed strategy over
    its hand in ascending order at a public state). Backward induction: public
    states make the best response a per-state maximisation.
    """
    _check(ruleset)
    rs = ruleset
    other = 1 - responder

    @lru_cache(maxsize=None)
    def value(state: State) -> float:
        a0, a1, outcomes = _round_outcomes(rs, state)
        mat = np.zeros((len(a0), len(a1)))
        for (i, j), (gain, nxt) in outcomes.items():
            mat[i, j] = gain + sum(p * value(s) for p, s in nxt)  # player 0's view
        pi = np.asarray(policy(state, other), dtype=float)
        if responder == 0:
            return float(np.max(mat @ pi))
        return float(np.min(pi @ mat))

    full = frozenset(rs.deck)
    v0 = sum(p * value(s) for p, s in _next_states(rs, full, full, (), full))
    return v0 if responder == 0 else -v0
