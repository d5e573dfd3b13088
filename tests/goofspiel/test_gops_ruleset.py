import json

import pytest

from cardtable.goofspiel import PRESETS, Ruleset, RulesetError


def test_standard_preset_is_the_rules_md_default():
    rs = Ruleset.preset("standard")
    assert (rs.cards, rs.players, rs.tie_rule, rs.high_ace, rs.cards_per_bid, rs.open_prizes) == (
        13,
        2,
        "carry",
        False,
        1,
        1,
    )
    assert rs.total_prize_value == 91
    assert Ruleset.preset("discard").tie_rule == "discard"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_round_trips_through_the_notation(name):
    rs = Ruleset.preset(name)
    assert Ruleset.parse(rs.describe()) == rs
    assert Ruleset.from_mapping(rs.to_mapping()) == rs


def test_high_ace_values():
    rs = Ruleset(high_ace=True)
    assert rs.strength(1) == 14 > rs.strength(13) == 13
    assert rs.prize_value(1) == 14 and rs.total_prize_value == 104
    small = Ruleset(cards=5, high_ace=True)
    assert small.strength(1) == 6 and small.prize_value(1) == 6


@pytest.mark.parametrize(
    "kwargs, fields",
    [
        ({"cards": 0}, ("cards",)),
        ({"cards": 14}, ("cards",)),
        ({"players": 1}, ("players",)),
        ({"players": 6}, ("players",)),
        ({"tie_rule": "split"}, ("tie_rule",)),
        ({"cards": 3, "cards_per_bid": 4}, ("cards_per_bid", "cards")),
        ({"open_prizes": 3, "tie_rule": "discard"}, ("open_prizes", "tie_rule")),
        ({"cards": 4, "prize_order": (1, 2, 2, 4)}, ("prize_order", "cards")),
        ({"prize_order": "random"}, ("prize_order",)),
        ({"high_ace": "yes"}, ("high_ace",)),
        ({"cards": 5.0}, ("cards",)),
    ],
)
def test_impossible_rulesets_name_their_fields(kwargs, fields):
    with pytest.raises(RulesetError) as info:
        Ruleset(**kwargs)
    assert info.value.fields == fields
    assert str(info.value).startswith(", ".join(fields) + ":")


def test_load_toml_and_json(tmp_path):
    toml = tmp_path / "r.toml"
    toml.write_text('preset = "discard"\ncards = 8\nprize_order = [8,7,6,5,4,3,2,1]\n')
    rs = Ruleset.from_file(toml)
    assert rs == Ruleset(cards=8, tie_rule="discard", prize_order=(8, 7, 6, 5, 4, 3, 2, 1))
    js = tmp_path / "r.json"
    js.write_text(json.dumps(rs.to_mapping()))
    assert Ruleset.from_file(js) == rs
    table = tmp_path / "t.toml"
    table.write_text("[ruleset]\nplayers = 3\nunique_bids = true\n")
    assert Ruleset.from_file(table) == Ruleset(players=3, unique_bids=True)


@pytest.mark.parametrize(
    "content, words",
    [
        ("cards = ", "not valid toml"),
        ("colour = 'red'", "colour: unknown ruleset field"),
        ("cards = 20", "cards: must be 1..13"),
        ("preset = 'nope'", "unknown preset 'nope'"),
    ],
)
def test_bad_rules_files_get_clear_errors(tmp_path, content, words):
    f = tmp_path / "bad.toml"
    f.write_text(content)
    with pytest.raises(RulesetError, match=words):
        Ruleset.from_file(f)


def test_binary_file(tmp_path):
    f = tmp_path / "rules.toml"
    f.write_bytes(bytes(range(200, 256)))
    with pytest.raises(RulesetError, match="is not a text file"):
        Ruleset.from_file(f)


def test_missing_file():
    with pytest.raises(RulesetError, match="cannot be read"):
        Ruleset.from_file("/nonexistent/rules.toml")


@pytest.mark.parametrize("text", ["cards", "cards=x", "speed=3", "ace=maybe"])
def test_bad_notation(text):
    with pytest.raises(RulesetError):
        Ruleset.parse(text)


def test_ruleset_is_immutable():
    rs = Ruleset()
    with pytest.raises(AttributeError):
        rs.cards = 5  # type: ignore[misc]
