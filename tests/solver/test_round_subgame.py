"""Subgames solved for the round being played (cardtable.solver.round_subgame): the
same exact values as the whole subgame, on fewer matrix games, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from cardtable.goofspiel import Ruleset
from cardtable.solver import ImpossiblePosition, Position, solve
from cardtable.solver.equilibrium import EquilibriumSource
from cardtable.solver.round_subgame import restrict_to_prize, solve_round_subgame
from cardtable.solver.table import count_games, solve_subgame, subgame_layout


def _later_positions(rs: Ruleset, pos: Position, prize: int):
    """Every position one round after ``pos`` with ``prize`` played for (both pots), and
    whether those bids reach it (the pot carried exactly after a tie)."""
    rest = pos.prizes - {prize}
    for a in pos.hands[0]:
        for b in pos.hands[1]:
            tie = rs.strength(a) == rs.strength(b)
            for pot in (0, pos.pot + rs.prize_value(prize)):
                yield Position(rest, (pos.hands[0] - {a}, pos.hands[1] - {b}), pot), (pot > 0) == tie


@pytest.mark.parametrize(
    "rules,objective,pot",
    [
        (dict(cards=7, tie_rule="carry"), "points", 0),
        (dict(cards=7, tie_rule="carry"), "points", 2),
        (dict(cards=6, tie_rule="discard"), "points", 0),
        (dict(cards=6, tie_rule="carry", high_ace=True), "win", 5),
    ],
)
def test_same_values_as_the_whole_subgame(rules, objective, pot):
    rs = Ruleset(**rules)
    # both played the ace (and the 7 at 7 cards): ties could carry the pots of 2 and 5
    pos = Position(
        frozenset({1, 3, 4, 6}),
        (frozenset({2, 3, 5, 6}), frozenset({2, 3, 4, 6})),
        pot if rs.tie_rule == "carry" else 0,
    )
    whole = solve_subgame(rs, pos, objective)
    for prize in sorted(pos.prizes):
        part = solve_round_subgame(rs, pos, prize, objective)
        assert part.stats["games"] < count_games(whole.layout)
        got, want = part.round_strategy(pos, prize), whole.round_strategy(pos, prize)
        assert np.array_equal(got.matrix, want.matrix)
        assert got.a == want.a and got.b == want.b
        for later, reached in _later_positions(rs, pos, prize):
            if not later.k or (rs.tie_rule != "carry" and later.pot):
                continue
            try:
                want = whole.value(later)
            except ImpossiblePosition:  # a pot no game reaches (skipped by both solves)
                assert not reached
                with pytest.raises(ImpossiblePosition):
                    part.value(later)
                continue
            assert part.value(later) == want
            nxt = min(later.prizes)
            assert part.round_strategy(later, nxt).a == whole.round_strategy(later, nxt).a


def test_other_prizes_and_the_root_value_are_refused():
    rs = Ruleset(cards=6, tie_rule="carry")
    pos = Position(frozenset({1, 2, 5}), (frozenset({1, 2, 3}), frozenset({4, 5, 6})), 0)
    part = solve_round_subgame(rs, pos, 5)
    with pytest.raises(ImpossiblePosition):
        part.round_strategy(pos, 2)  # another prize's children are not solved
    with pytest.raises(ImpossiblePosition):
        part.value(pos)
    with pytest.raises(ImpossiblePosition):  # a position after another prize
        part.value(Position(frozenset({1, 5}), (frozenset({1, 2}), frozenset({4, 5})), 0))
    with pytest.raises(ImpossiblePosition):
        solve_round_subgame(rs, pos, 6)
    with pytest.raises(ValueError):
        restrict_to_prize(subgame_layout(rs, pos), 3)


def test_the_bot_plays_the_same_mixes_as_from_the_whole_game():
    # 6 cards carry-over: the whole game is small, so each first exact move of a
    # subgame is compared with the exact table of the whole game
    rs = Ruleset(cards=6, tie_rule="carry")
    table = solve(rs)
    src = EquilibriumSource(rs, use_table=False, approximation=False, subgame_limit=3000)
    # A's 4 lost the 5 to B's 5, then both bid 3 for the ace: the ace is in the pot
    pos = Position(frozenset({2, 3, 4, 6}), (frozenset({1, 2, 5, 6}), frozenset({1, 2, 4, 6})), 1)
    mix, source = src.strategy(pos, 4)
    assert source == "subgame"
    want = table.round_strategy(pos, 4).a
    assert mix == pytest.approx(want, abs=1e-12)
    later = Position(frozenset({2, 3, 6}), (frozenset({1, 2, 6}), frozenset({2, 4, 6})), 0)  # A's 5, B's ace
    mix, source = src.strategy(later, 6)
    assert source == "subgame"
    assert mix == pytest.approx(table.round_strategy(later, 6).a, abs=1e-12)
