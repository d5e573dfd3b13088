"""Action notation (text and JSON) and the ruleset notation: round trips and bad input."""

from __future__ import annotations

import json

import pytest

from cardtable.golf.actions import (
    Discard,
    Draw,
    EndEarly,
    Pass,
    Peek,
    Snap,
    Steal,
    Swap,
    action_from_dict,
    action_to_dict,
    format_action,
    parse_action,
)
from cardtable.golf.cards import cards_from_names
from cardtable.golf.errors import ActionFormatError, GolfRulesetError
from cardtable.golf.ruleset import GolfRuleset

ACTIONS = [
    Draw(0),
    EndEarly(1),
    Discard(2),
    Swap(0, 4),
    Peek(1, 0),
    Steal(0, 8, 1, 2),
    Snap(2, 0, 10),
    Snap(1, 1, 3),
    Pass(0, 6),
]


@pytest.mark.parametrize("action", ACTIONS)
def test_round_trips(action):
    assert parse_action(format_action(action), action.player) == action
    assert action_from_dict(json.loads(json.dumps(action_to_dict(action)))) == action


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty action"),
        ("jump", "unknown action 'jump'"),
        ("swap", "swap takes 1 argument"),
        ("swap 0", "not a position"),
        ("swap x", "not a position"),
        ("snap Z:3", "not a player"),
        ("steal 1", "steal takes 2"),
    ],
)
def test_bad_text(text, message):
    with pytest.raises(ActionFormatError, match=message):
        parse_action(text, 0)


@pytest.mark.parametrize(
    "data",
    [
        {"type": "fly"},
        {"type": "swap", "player": 0},
        {"type": "swap", "player": 0, "pos": "3"},
        {"type": "draw", "player": -1},
        {"type": "draw", "player": True},
        [1, 2],
    ],
)
def test_bad_json(data):
    with pytest.raises(ActionFormatError):
        action_from_dict(data)


def test_ruleset_notation_round_trip():
    for rs in (
        GolfRuleset(),
        GolfRuleset(players=3),
        GolfRuleset(thief_rank=None, early_end_min=2, values=(1,) * 13, snap_opponents=False),
    ):
        assert GolfRuleset.parse(rs.describe()) == rs
        assert GolfRuleset.from_dict(json.loads(json.dumps(rs.to_dict()))) == rs


@pytest.mark.parametrize(
    "text, field",
    [
        ("players=4", "players"),
        ("decks=0", "decks"),
        ("values=1,2", "values"),
        ("thief=J", "detective_rank"),
        ("snap_opponents=maybe", "snap_opponents"),
        ("rows=x", "rows"),
        ("peek_rows=4", "peek_rows"),
    ],
)
def test_bad_ruleset(text, field):
    with pytest.raises(GolfRulesetError) as info:
        GolfRuleset.parse(text)
    assert field in info.value.fields or field in str(info.value)


def test_card_names_two_decks():
    ids = cards_from_names(["AS", "AS", "10h"], decks=2)
    assert ids == [0, 52, 22]
    with pytest.raises(ActionFormatError, match="more than 1"):
        cards_from_names(["AS", "AS"], decks=1)
    with pytest.raises(ActionFormatError, match="not a card name"):
        cards_from_names(["ZZ"], decks=1)
