"""Issue 24.4, second pass: a name in a text record's Players tag is read exactly as written
(only the one space after each ';' is the separator), so text and JSON accept the same names:
' Ann' or 'Ann ' is refused in both notations of both games instead of being trimmed in text."""

from __future__ import annotations

import json

import pytest

from cardtable.golf import record as golf_record
from cardtable.golf.bots.heuristic import HeuristicBot as GolfHeuristic
from cardtable.golf.bots.random_bot import RandomBot as GolfRandom
from cardtable.golf.driver import play_game
from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.state import GolfGame
from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel import record as gops_record
from cardtable.platform.names import PlayerNameError, split_player_names
from cardtable.platform.records import quote_tag

NAMES = [
    " Ann",
    "Ann ",
    "Ann\u00a0",
    "\u00a0Ann",
    "Ann\u2028",
    "Ann\u0085",
    "Ann",
    "Zo\u00eb \u00dcnal",
    "A  B",
]


def accepted(load, text: str) -> bool:
    try:
        load(text)
    except (gops_record.RecordError, golf_record.RecordError):
        return False
    return True


def gops_pair(name: str) -> tuple[str, str]:
    game = Game(Ruleset(cards=3), seed="1")
    while not game.is_over:
        game.play([game.legal_bids(p)[0] for p in range(2)])
    rec = gops_record.record_from_game(game, ["Ann", "Ben"])
    text = gops_record.write_text(rec).replace('[Players "Ann; Ben"]', quote_tag("Players", f"{name}; Ben"))
    data = json.loads(gops_record.to_json(rec))
    data["games"][0]["players"] = [name, "Ben"]
    return text, json.dumps(data)


def golf_pair(name: str) -> tuple[str, str]:
    game = play_game(GolfGame(GolfRuleset(players=2), seed=3), [GolfHeuristic(seed=3), GolfRandom(seed=3)])
    rec = golf_record.record_from_game(game, ["Ann", "Ben"])
    text = golf_record.write_text(rec).replace('[Players "Ann; Ben"]', quote_tag("Players", f"{name}; Ben"))
    data = json.loads(golf_record.to_json(rec))
    games = data if isinstance(data, list) else data["games"]
    games[0]["players"] = [name, "Ben"]
    return text, json.dumps(data)


@pytest.mark.parametrize("name", NAMES)
def test_goofspiel_text_and_json_accept_the_same_names(name):
    text, js = gops_pair(name)
    load = lambda t: [gops_record.replay(r) for r in gops_record.load_records(t)]  # noqa: E731
    assert accepted(load, text) == accepted(load, js)


@pytest.mark.parametrize("name", NAMES)
def test_golf_text_and_json_accept_the_same_names(name):
    text, js = golf_pair(name)
    assert accepted(golf_record.parse_text, text) == accepted(golf_record.from_json, js)


def test_a_name_with_a_space_around_it_is_refused_in_text():
    text, _ = gops_pair(" Ann")
    with pytest.raises(gops_record.RecordError, match="must not start or end with a space"):
        gops_record.load_records(text)
    text, _ = golf_pair("Ann ")
    with pytest.raises(golf_record.RecordError, match="must not start or end with a space"):
        golf_record.parse_text(text)


def test_split_player_names_drops_only_the_separator_space():
    assert split_player_names("Ann; Ben") == ["Ann", "Ben"]
    assert split_player_names("Ann;Ben") == ["Ann", "Ben"]
    with pytest.raises(PlayerNameError):
        split_player_names("Ann ; Ben")
