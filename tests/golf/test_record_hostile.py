"""Issue 9, section 2, for Golf records: hostile or odd input gets a RecordError with a
line (and, in JSON, the game and action number), never another exception."""

from __future__ import annotations

import json

import pytest

from cardtable.golf.bots.heuristic import HeuristicBot
from cardtable.golf.bots.random_bot import RandomBot
from cardtable.golf.driver import play_game
from cardtable.golf.errors import GolfError
from cardtable.golf.record import (
    RecordError,
    from_json,
    parse_text,
    record_from_game,
    replay_text,
    to_json,
    write_text,
)
from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.state import GolfGame


def finished(seed=3):
    return play_game(
        GolfGame(GolfRuleset(players=2), seed=seed), [HeuristicBot(seed=seed), RandomBot(seed=seed)]
    )


@pytest.fixture(scope="module")
def text():
    return write_text(record_from_game(finished(), ["Ann", "Bot"]))


@pytest.fixture(scope="module")
def data():
    return json.loads(to_json(record_from_game(finished(), ["Ann", "Bot"])))


def test_tampered_json_action_names_its_action_and_line(data):
    changed = json.loads(json.dumps(data))
    changed[0]["actions"][5]["outcome"] = "KS" if changed[0]["actions"][5]["outcome"] != "KS" else "QS"
    body = json.dumps(changed, indent=1)
    with pytest.raises(RecordError) as info:
        replay_text(body)
    assert "action 6" in str(info.value) and info.value.line is not None


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d[0]["actions"][3].update(type=["draw"]), "action 4"),
        (lambda d: d[0]["actions"][3].update(outcome=7), "action 4"),
        (lambda d: d[0].update(players=["Ann", "Bot\u2028x"]), "U+2028"),
        (lambda d: d[0].update(result=[1, 2]), "result"),
        (lambda d: d[0].update(first=True), "first"),
        (lambda d: d[0].update(tags={"SeedCommit": 5}), "tags"),
        (lambda d: d.clear(), "empty"),
    ],
)
def test_json_schema_errors_are_record_errors(data, change, words):
    changed = json.loads(json.dumps(data))
    change(changed)
    with pytest.raises(RecordError) as info:
        from_json(json.dumps(changed, indent=1))
    assert words in str(info.value) and info.value.line is not None


def test_deeply_nested_json_is_a_record_error():
    with pytest.raises(RecordError, match="not valid JSON"):
        replay_text("[" * 200_000 + "]" * 200_000)


@pytest.mark.parametrize(
    "old, new",
    [
        ("1. P", "²1. P"),
        ("1. P1", "1. P²"),
        ("1. P", "1" * 5000 + ". P"),
    ],
)
def test_odd_numbers_in_action_lines_give_a_line(text, old, new):
    with pytest.raises(RecordError) as info:
        replay_text(text.replace(old, new, 1))
    assert info.value.line is not None


def test_long_lines_are_refused_with_a_short_message(text):
    with pytest.raises(RecordError) as info:
        replay_text(text.replace("1. P1", "1." + " " * 40_000 + "P1", 1))
    assert info.value.line is not None and len(str(info.value)) < 300


def test_byte_order_mark_is_accepted(text):
    assert replay_text("\ufeff" + text).startswith("1 game(s) verified")


def test_names_a_record_cannot_hold_are_refused():
    with pytest.raises(GolfError, match="U\\+2028"):
        record_from_game(finished(), ["Ann\u2028Lee", "Bot"])


def test_a_recorded_name_reads_back():
    rec = record_from_game(finished(), ["Zoë Ünal", "李 明"])
    assert parse_text(write_text(rec))[0].players == ["Zoë Ünal", "李 明"]


def match_blocks() -> list[str]:
    from cardtable.golf.driver import play_match

    games = play_match(GolfRuleset(), [HeuristicBot(seed=5), HeuristicBot(seed=6)], games=3, seed="m")
    return [
        write_text(record_from_game(g, ["A", "B"], {"MatchGame": f"{k}/3"})) for k, g in enumerate(games, 1)
    ]


def test_golf_match_numbering_is_checked():
    blocks = match_blocks()
    assert replay_text("\n".join(blocks)).startswith("3 game(s) verified")
    assert replay_text(blocks[1]).startswith("1 game(s) verified")  # a one-game excerpt
    for changed in (
        [blocks[0], blocks[2]],
        [blocks[1], blocks[0], blocks[2]],
        [blocks[0], blocks[1].replace('"2/3"', '"2/4"'), blocks[2]],
    ):
        with pytest.raises(RecordError, match="MatchGame") as info:
            replay_text("\n".join(changed))
        assert info.value.line is not None


def test_json_keys_given_twice_and_multi_line_tag_values_are_refused(data):
    """A JSON object that names a key twice would keep only the last one unseen; a free tag's
    value must be one line (its text record could not hold it otherwise). Same in Goofspiel."""
    body = json.dumps(data, indent=1)
    twice = body.replace('"players":', '"seed": "x",\n  "seed": "y",\n  "players":', 1)
    with pytest.raises(RecordError, match='key "seed" appears twice') as info:
        from_json(twice)
    assert info.value.line is not None and info.value.line > 1
    changed = json.loads(body)
    changed[0]["tags"] = {"Event": "a\nb"}
    with pytest.raises(RecordError, match="one line"):
        from_json(json.dumps(changed, indent=1))
    with pytest.raises(RecordError, match="one line of text"):
        record_from_game(finished(), ["Ann", "Bot"], {"Event": "a\rb"})


# -- issue 24, section 4: the text and JSON notations accept the same records ------------------


@pytest.mark.parametrize("seed", ['3/0\n[Scores "0 0"]', "3\r0", "nul\x00"])
def test_a_golf_seed_with_a_control_character_is_refused_in_json_and_by_the_writers(data, seed):
    changed = json.loads(json.dumps(data))
    changed[0]["seed"] = seed
    with pytest.raises(
        RecordError, match="Seed: a tag's value is one line of text without control characters"
    ):
        from_json(json.dumps(changed, indent=1))
    record = record_from_game(finished(), ["Ann", "Bot"])
    record.seed = seed
    for write in (write_text, to_json):
        with pytest.raises(RecordError, match="cannot be recorded: Seed"):
            write(record)


def test_a_golf_text_tag_with_a_carriage_return_is_refused_like_its_json_form(text, data):
    changed = text.replace('[Game "golf"]', '[Game "golf"]\n[Event "club\rnight"]', 1)
    with pytest.raises(RecordError, match="U\\+000D") as info:
        replay_text(changed)
    assert info.value.line == 2
    body = json.loads(json.dumps(data))
    body[0]["tags"] = {"Event": "club\rnight"}
    with pytest.raises(RecordError, match="U\\+000D"):
        replay_text(json.dumps(body))


@pytest.mark.parametrize("players", [["Ann", "Bot\x1b"], ["Ann;", "Bot"], ["Ann"], ["Ann", "ann"]])
def test_golf_writers_check_the_names_of_a_hand_built_record(players):
    record = record_from_game(finished(), ["Ann", "Bot"])
    record.players = players
    for write in (write_text, to_json):
        with pytest.raises(RecordError, match="cannot be recorded"):
            write(record)


def test_golf_json_names_one_player_per_seat_like_text(data):
    body = json.loads(json.dumps(data))
    body[0]["players"] = ["Ann", "Bot", "Cy"]
    with pytest.raises(RecordError, match="3 player name\\(s\\) for 2 seats"):
        from_json(json.dumps(body))


def test_golf_end_and_game_tags_take_the_json_values_only(text):
    unfinished = (
        "\n".join(
            line
            for line in text.splitlines()
            if not line[:1].isdigit() and not line.startswith(("[Scores", "[Result", "[End"))
        )
        + "\n"
    )
    replay_text(unfinished)  # an unfinished game with no End tag
    with pytest.raises(RecordError, match="End: one of grid, pile, early expected"):
        replay_text(unfinished + '[End "later"]\n')
    with pytest.raises(RecordError, match="not a Golf record"):
        replay_text(unfinished.replace('[Game "golf"]', '[Game "GOLF"]'))


def test_a_golf_record_of_705k_tag_lines_is_refused_at_its_101st_free_tag(text):
    head = text.split("\n\n")[0] + "\n"
    many = head + "".join(f'[T{i} "x"]\n' for i in range(705_000))
    with pytest.raises(RecordError, match="more than 100 free tags in one game") as info:
        parse_text(many[: 8 * 2**20])
    assert info.value.line == head.count("\n") + 101
    assert len(parse_text(head + "".join(f'[T{i} "x"]\n' for i in range(100)))[0].tags) == 100


def test_a_utf16_golf_record_without_byte_order_mark_is_not_utf8(text):
    with pytest.raises(RecordError, match="not UTF-8 text"):
        replay_text(text.encode("utf-16-le").decode("utf-8"))


def test_json_text_that_only_parses_inside_the_games_wrapper_is_refused(data):
    """The reader wraps one game object as ``{"games": [...]}``: two objects with a comma
    between them, or a text that closes the wrapper and opens a second ``games``, are not one
    JSON value and are refused (they read as two games, or silently replaced the first)."""
    one = data[0] if isinstance(data, list) else data
    game = json.dumps(one)
    other = json.dumps({**one, "seed": "replaced"})
    for hostile in (f"{game}, {game}", f'{game}], "games": [{other}'):
        with pytest.raises(RecordError, match="not valid JSON|appears twice"):
            from_json(hostile)
    assert len(from_json(game)) == 1 and len(from_json(f"[{game}, {game}]")) == 2  # the real forms


def test_golf_errors_quote_at_most_60_characters_of_a_hostile_value(data):
    """A multi-megabyte value is refused with a short message (``cardtable.errors.quoted``),
    as Goofspiel's records do (docs/rules.md, Reading records)."""
    from cardtable.golf.actions import action_from_dict
    from cardtable.golf.ruleset import GolfRuleset, GolfRulesetError

    huge = "x" * 2_000_000
    with pytest.raises(GolfError) as err:
        action_from_dict({"type": huge})
    assert len(str(err.value)) < 300
    for bad in ({"decks": [1] * 500_000}, {"values": huge}, {"snap_opponents": huge}):
        with pytest.raises(GolfRulesetError) as err:
            GolfRuleset.from_dict(bad)
        assert len(str(err.value)) < 300, str(err.value)[:200]
    with pytest.raises(GolfRulesetError) as err:
        GolfRuleset.parse("decks=" + "9" * 100_000)
    assert len(str(err.value)) < 300
