"""Illegal actions raise clear errors and change nothing (state equal before and after)."""

from __future__ import annotations

import pytest

from cardtable.golf.actions import Discard, Draw, EndEarly, Pass, Peek, Snap, Steal, Swap
from cardtable.golf.errors import (
    EndTooSoon,
    GameOver,
    IllegalAction,
    NoSuchCard,
    NothingToSnap,
    NotYourTurn,
    WrongPhase,
)
from cardtable.golf.state import GolfGame

P1 = [2, 3, 4, 5, 6, 7, 8, 9, 10]
P2 = [1, 1, 1, 2, 3, 4, 13, 13, 5]


def rejected(game: GolfGame, action, error, match: str):
    before = game.snapshot()
    with pytest.raises(error, match=match):
        game.apply(action)
    assert game.snapshot() == before


def test_out_of_turn(make_game):
    g = make_game([P1, P2], [7])
    rejected(g, Draw(1), NotYourTurn, "P1's turn, not yours")
    g.apply(Draw(0))
    rejected(g, Discard(1), NotYourTurn, "P1's turn")
    rejected(g, Swap(1, 0), NotYourTurn, "P1's turn")


def test_wrong_step_of_the_turn(make_game):
    g = make_game([P1, P2], [7, 7])
    rejected(g, Discard(0), WrongPhase, "must draw or end")
    rejected(g, Swap(0, 1), WrongPhase, "must draw or end")
    g.apply(Draw(0))
    rejected(g, Draw(0), WrongPhase, "must discard, swap")
    rejected(g, Peek(0, 0), WrongPhase, "only a drawn Detective")
    rejected(g, Steal(0, 0, 1, 0), WrongPhase, "only a drawn Thief")
    rejected(g, Pass(0, 0), WrongPhase, "must discard")


def test_end_early_too_soon(make_game):
    g = make_game([P1, P2], [7])
    rejected(g, EndEarly(0), EndTooSoon, "needs 3 discarded grid cards.*have 0")
    rejected(g, EndEarly(1), NotYourTurn, "P1's turn")


def test_swap_with_a_card_that_does_not_exist(make_game):
    g = make_game([P1, P2], [2, 7, 7])
    g.apply(Draw(0))
    rejected(g, Swap(0, 9), NoSuchCard, "no position 10")
    rejected(g, Swap(0, -1), NoSuchCard, "no position 0")
    g.apply(Discard(0))  # a 2 on the pile
    g.apply(Snap(0, 0, 0))  # P1 snaps its 2 (a guess, right): position 1 is a hole
    g.apply(Draw(1))
    g.apply(Discard(1))
    g.apply(Draw(0))
    rejected(g, Swap(0, 0), NoSuchCard, "position 1 of your grid is empty")


def test_snap_with_nothing_to_snap_onto(make_game):
    g = make_game([P1, P2], [7])
    rejected(g, Snap(1, 1, 0), NothingToSnap, "discard pile is empty")


def test_snap_a_hole_or_missing_player(make_game):
    g = make_game([P1, P2], [7, 7])
    g.apply(Draw(0))
    g.apply(Discard(0))
    rejected(g, Snap(0, 2, 0), IllegalAction, "no player P3")
    rejected(g, Snap(0, 1, 12), NoSuchCard, "P2's grid has no position 13")
    rejected(g, Draw(5), IllegalAction, "no player 5")


def test_thief_needs_an_opponent(make_game):
    g = make_game([P1, P2], [12])
    g.apply(Draw(0))
    rejected(g, Steal(0, 0, 0, 1), IllegalAction, "swaps with an opponent")
    rejected(g, Steal(0, 0, 1, 9), NoSuchCard, "P2's grid has no position 10")


def test_nothing_else_while_a_pass_is_due(make_game):
    g = make_game([P1, P2], [13, 5, 5])
    g.apply(Draw(0))
    g.apply(Swap(0, 0))
    g.apply(Draw(1))
    g.apply(Discard(1))
    g.apply(Snap(0, 1, 8))
    rejected(g, Snap(1, 1, 0), WrongPhase, "P1 must first pass")
    rejected(g, Draw(0), WrongPhase, "must pass a card")
    rejected(g, Pass(1, 0), NotYourTurn, "P1 must first pass")
    rejected(g, Pass(0, 0), NoSuchCard, "position 1 of your grid is empty") if g.grids[0][0] is None else None
    g.apply(Pass(0, 1))


def test_nothing_after_the_end(make_game):
    g = make_game([P1, P2], [])
    while not g.over:
        g.apply(Draw(g.current))
        g.apply(Discard(g.current))
    rejected(g, Draw(g.current), GameOver, "over")
    rejected(g, Snap(0, 0, 0), GameOver, "over")


def test_not_an_action():
    g = GolfGame(seed=1)
    before = g.snapshot()
    with pytest.raises(IllegalAction, match="not a Golf action"):
        g.apply("draw")  # type: ignore[arg-type]
    assert g.snapshot() == before


def test_bad_construction():
    from cardtable.golf.errors import GolfError, GolfRulesetError
    from cardtable.golf.ruleset import GolfRuleset

    with pytest.raises(GolfError, match="deck must hold"):
        GolfGame(deck=[0, 1, 2])
    with pytest.raises(GolfError, match="first_player"):
        GolfGame(first_player=2)
    with pytest.raises(GolfRulesetError, match="values"):
        GolfRuleset(values=(1, 2))
    with pytest.raises(GolfRulesetError, match="unknown setting"):
        GolfRuleset.parse("colour=red")
    with pytest.raises(GolfRulesetError, match="cannot deal"):
        GolfRuleset(players=3, decks=1, rows=5, cols=5)
