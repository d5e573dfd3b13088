"""The solver's values against an independent reference (recursion over actual
hands + SciPy HiGHS per matrix game), symmetry, and strategies."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from cardtable.goofspiel import Ruleset
from cardtable.solver import Position, solve, solve_subgame
from cardtable.solver.kernel import solve_matrix_game

sys.path.insert(0, str(Path(__file__).parent))
from solver_reference import game_value, make_reference, shared_reference  # noqa: E402

TOL = 1e-9


def full(n):
    return frozenset(range(1, n + 1))


def compare_all(table, ref):
    """Max |table - reference| over every position the reference evaluated."""
    worst = 0.0
    for (prizes, a, b, pot, diff), v in ref.memo.items():
        pos = Position(prizes, (a, b), pot, diff)
        worst = max(worst, abs(table.value(pos) - v))
    return worst


CASES = [
    (4, "discard", "points", False),
    (4, "carry", "points", False),
    (5, "discard", "points", False),
    (5, "carry", "points", False),
    (4, "discard", "win", False),
    (4, "carry", "win", False),
    (4, "carry", "points", True),
]


@pytest.mark.parametrize("n,tie,objective,high_ace", CASES)
def test_every_position_matches_reference(n, tie, objective, high_ace):
    rs = Ruleset(cards=n, tie_rule=tie, high_ace=high_ace)
    table = solve(rs, objective)
    if objective == "points":  # test_lean.py compares with the same one
        ref = shared_reference(n, tie, high_ace)
    else:
        ref = make_reference(n, tie, objective, high_ace)
    f = full(n)
    ref(f, f, f)
    # asymmetric positions: A has lost the ace, B the king (and the reverse)
    ref(f - {n}, f - {1}, f - {n})
    ref(f - {1}, f - {n}, f - {1})
    assert len(ref.memo) > 100
    assert compare_all(table, ref) < TOL
    assert abs(table.value(Position(f, (f, f)))) < TOL  # symmetric game: value 0


def test_reference_sees_a_nonzero_asymmetric_value():
    # guards the comparison above against trivially-zero tables
    n = 4
    table = solve(Ruleset(cards=n, tie_rule="discard"))
    f = full(n)
    pos = Position(f - {n}, (f - {1}, f - {n}))
    v = table.value(pos)
    assert v > 1.0
    assert abs(v - make_reference(n, "discard")(pos.prizes, *pos.hands)) < TOL


@pytest.mark.parametrize(
    "tie,objective,pot,diff",
    [
        ("carry", "points", 8, 0),
        ("carry", "win", 3, -4),
        ("discard", "win", 0, 2),
        ("discard", "points", 0, 0),
    ],
)
def test_subgame_matches_reference(tie, objective, pot, diff):
    rs = Ruleset(cards=7, tie_rule=tie)
    # both played 2 and 4 (two ties are possible: a pot of 8 = 1 + 7, or 3), A the 6, B the 7
    pos = Position(frozenset({2, 4, 5, 6}), (frozenset({1, 3, 5, 7}), frozenset({1, 3, 5, 6})), pot, diff)
    sub = solve_subgame(rs, pos, objective)
    ref = make_reference(7, tie, objective)
    r = ref(pos.prizes, pos.hands[0], pos.hands[1], pos.pot, pos.diff)
    assert abs(sub.value(pos) - r) < TOL
    assert compare_all(sub, ref) < TOL


@pytest.mark.parametrize("tie", ["discard", "carry"])
def test_mirrored_positions_negate(tie):
    n = 5
    table = solve(Ruleset(cards=n, tie_rule=tie))
    rng = np.random.default_rng(1)
    seen_nonzero = 0
    for _ in range(200):
        k = int(rng.integers(1, n + 1))
        deck = np.arange(1, n + 1)
        p = frozenset(rng.choice(deck, k, replace=False).tolist())
        a = frozenset(rng.choice(deck, k, replace=False).tolist())
        b = frozenset(rng.choice(deck, k, replace=False).tolist())
        pos = Position(p, (a, b))
        v = table.value(pos)
        assert abs(v + table.value(pos.swapped())) < TOL
        seen_nonzero += abs(v) > 1e-6
    assert seen_nonzero > 50


def test_win_objective_mirrors_with_difference():
    table = solve(Ruleset(cards=5, tie_rule="carry"), "win")
    # A's 5 took the 4 from B's 3, then both bid 2 for the ace: the ace is in the pot
    pos = Position(frozenset({2, 3, 5}), (frozenset({1, 3, 4}), frozenset({1, 4, 5})), 1, 3)
    assert abs(table.value(pos) + table.value(pos.swapped())) < TOL
    assert -1.0 <= table.value(pos) <= 1.0


def test_round_strategies_are_equilibria():
    n = 5
    rs = Ruleset(cards=n, tie_rule="carry")
    table = solve(rs)
    f = full(n)
    # A's 5 took the ace from B's 1, then both bid 2 for the 3: the 3 is in the pot
    pos = Position(f - {1, 3}, (f - {2, 5}, f - {1, 2}), 3)
    vals = []
    for prize in sorted(pos.prizes):
        strat = table.round_strategy(pos, prize)
        assert abs(sum(strat.a.values()) - 1) < 1e-12 and abs(sum(strat.b.values()) - 1) < 1e-12
        assert set(strat.a) == pos.hands[0] and set(strat.b) == pos.hands[1]
        assert strat.gap <= TOL
        assert abs(strat.value - game_value(strat.matrix)) < TOL
        x = np.array([strat.a[c] for c in sorted(pos.hands[0])])
        y = np.array([strat.b[c] for c in sorted(pos.hands[1])])
        assert (x @ strat.matrix).min() >= strat.value - TOL  # A's guarantee
        assert (strat.matrix @ y).max() <= strat.value + TOL  # B's guarantee
        vals.append(strat.value)
    assert abs(np.mean(vals) - table.value(pos)) < TOL


def test_simplex_on_degenerate_and_random_games():
    rng = np.random.default_rng(7)
    tab = np.empty((14, 27))
    basis = np.empty(13, dtype=np.int64)
    x = np.empty(13)
    y = np.empty(13)
    for trial in range(300):
        k1, k2 = int(rng.integers(1, 14)), int(rng.integers(1, 14))
        if trial % 3 == 0:  # many equal entries: degenerate pivots
            M = rng.integers(-2, 3, size=(k1, k2)).astype(float)
        else:
            M = rng.normal(size=(k1, k2)) * 30
        v, gap = solve_matrix_game(M, k1, k2, tab, basis, x, y)
        assert gap <= TOL * (1 + abs(v))
        assert abs(v - game_value(M)) < 1e-8


def test_parallel_layers_match_serial():
    from cardtable.solver.layout import run_backward_induction
    from cardtable.solver.table import full_layout

    layout = full_layout(Ruleset(cards=6, tie_rule="carry"), "points")
    serial, s1 = run_backward_induction(layout)
    parallel, s2 = run_backward_induction(layout, threads=2)
    assert np.array_equal(serial, parallel, equal_nan=True)  # NaN: the same skipped states
    assert s1["games"] == s2["games"] > 0


@pytest.mark.parametrize(
    "order,tie",
    [
        ("ascending", "carry"),
        ("descending", "discard"),
        ((3, 1, 5, 2, 4), "carry"),
        ((2, 5, 1, 4, 3), "discard"),
    ],
)
def test_fixed_prize_order_matches_reference(order, tie):
    rs = Ruleset(cards=5, tie_rule=tie, prize_order=order)
    table = solve(rs)
    from cardtable.goofspiel.state import prize_order_for

    seq = tuple(prize_order_for(rs, None))
    ref = make_reference(5, tie, order=seq)
    f = full(5)
    ref(f, f, f)
    assert compare_all(table, ref) < TOL
    assert abs(table.value(Position(f, (f, f)))) < TOL
    # a subgame from round 3 agrees too, and a non-suffix prize set is refused
    rest = frozenset(seq[2:])
    pos = Position(rest, (frozenset({1, 3, 5}), frozenset({2, 4, 5})))
    sub = solve_subgame(rs, pos)
    assert abs(sub.value(pos) - ref(pos.prizes, *pos.hands)) < TOL
    from cardtable.solver import ImpossiblePosition

    with pytest.raises(ImpossiblePosition):
        table.value(Position(frozenset(seq[:3]), (frozenset({1, 3, 5}), frozenset({2, 4, 5}))))
    with pytest.raises(ImpossiblePosition, match="comes next"):
        table.round_strategy(pos, seq[3])
