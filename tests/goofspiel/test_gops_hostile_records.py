"""Issue 9, section 2: hostile or odd Goofspiel records get a clear RecordError with a
line number (never another exception), in bounded time and memory; matches and names
cannot fool the checks."""

import json
from dataclasses import replace

import pytest

from cardtable.goofspiel import Game, GoofspielError, Ruleset
from cardtable.goofspiel.record import (
    RecordError,
    from_json,
    load_records,
    parse_text,
    record_from_game,
    replay,
    replay_match,
    to_json,
    write_text,
)
from cardtable.platform.records import MAX_LINE

GOOD = """\
[Game "goofspiel"]
[Rules "cards=3 players=2 ties=carry ace=low bid=1 display=1 order=ascending"]
[Players "Anna; Ben"]
[Scores "3 3"]
[Result "draw draw"]

1. A♦ | 2♠ 2♣ | tie carried
2. A♦ 2♦ | A♠ 3♣ | 2 +3
3. 3♦ | 3♠ A♣ | 1 +3
"""


def rejected(text: str) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay_match(load_records(text))
    return info.value


# -- linear time, bounded lines, bounded messages ------------------------------------------


def test_round_line_of_spaces_is_refused_with_its_line():
    err = rejected(GOOD.replace("3. 3♦ | 3♠ A♣ | 1 +3", "1." + " " * 40_000 + "x"))
    assert err.line == 9 and len(str(err)) < 300


def test_huge_tag_value_is_refused_before_it_is_read_whole():
    err = rejected(
        GOOD.replace('[Players "Anna; Ben"]', '[Event "' + "x" * 5_000_000 + '"]\n[Players "Anna; Ben"]')
    )
    assert err.line == 3 and f"at most {MAX_LINE}" in str(err) and len(str(err)) < 300


def test_bad_outcome_message_quotes_a_bounded_excerpt():
    err = rejected(GOOD.replace("1 +3\n", "1 +3 " + "y" * 3000 + "\n"))
    assert err.line == 9 and "bad outcome" in str(err) and len(str(err)) < 300


# -- never a traceback, always a line --------------------------------------------------------


@pytest.mark.parametrize(
    "old, new, line",
    [
        ("3♠ A♣ | 1 +3", "²♠ A♣ | 1 +3", 9),  # a digit str.isdigit accepts and int refuses
        ("3. 3♦", "3" * 5000 + ". 3♦", 9),  # a number over Python's 4,300 digits
        ('[Scores "3 3"]', '[Scores "' + "3" * 5000 + ' 3"]', 4),
        ("| 1 +3", "| ¹ +3", 9),
        ("| 1 +3", "| 1 +" + "3" * 5000, 9),
    ],
)
def test_odd_numbers_give_a_record_error_with_a_line(old, new, line):
    err = rejected(GOOD.replace(old, new))
    assert err.line == line, str(err)


def game_json(**changes) -> str:
    data = json.loads(to_json(parse_text(GOOD)))
    game = data["games"][0]
    for key, value in changes.items():
        if key.startswith("round3_"):
            game["rounds"][2][key[7:]] = value
        else:
            game[key] = value
    return json.dumps(data, indent=1)


@pytest.mark.parametrize(
    "text, words",
    [
        (game_json(round3_taken=[[0]]), "rounds[2].taken[0]"),
        (game_json(result=[1, 2]), "result[0]"),
        (game_json(tags=[["Event"]]), "tags[0]"),
        (game_json(tags=[["SeedCommit", 5]]), "tags[0][1]"),
        (game_json(round3_bids=[[3.0], [1]]), "rounds[2].bids[0][0]"),
        (game_json(round3_bids=[[True], [1]]), "rounds[2].bids[0][0]"),
        (game_json(scores=[77777, 3]).replace("77777", "7" * 5000), "not valid JSON"),
        (game_json(players=["Anna", "Ben\u2028x"]), "U+2028"),
        ("[" * 200_000 + "]" * 200_000, "not valid JSON"),
        ('{"format": "cardtable-goofspiel-record", "version": 1, "games": []}', "empty"),
        # the version is the whole number 1: true and 1.0 equal 1 in Python, not in the format
        (game_json().replace('"version": 1', '"version": true'), "version 1 (version"),
        (game_json().replace('"version": 1', '"version": 1.0'), "version 1 (version"),
        (game_json().replace('"version": 1', '"version": "1"'), "version 1 (version"),
    ],
)
def test_json_records_are_checked_by_the_schema(text, words):
    with pytest.raises(RecordError) as info:
        from_json(text)
    assert words in str(info.value)
    assert info.value.line is not None


def test_json_schema_errors_point_at_the_line():
    text = game_json(round3_taken=[[0]])
    with pytest.raises(RecordError) as info:
        from_json(text)
    assert '"taken"' in "\n".join(text.splitlines()[info.value.line - 2 : info.value.line])


def test_changed_scores_tag_is_reported_at_its_own_line():
    err = rejected(GOOD.replace('[Scores "3 3"]', '[Scores "4 2"]'))
    assert err.line == 4


def test_seed_mismatch_has_a_line():
    g = Game(Ruleset(cards=4), seed="abc")
    while not g.is_over:
        g.play([g.legal_bids(0)[0], g.legal_bids(1)[-1]])
    text = write_text(record_from_game(g, ["Ann", "Ben"])).replace('[Seed "abc"]', '[Seed "abd"]')
    err = rejected(text)
    assert err.line == 4 and "Seed" in str(err)


def test_byte_order_mark_is_accepted():
    (game,), _ = replay_match(load_records("\ufeff" + GOOD))
    assert game.points == (3, 3)
    rec = parse_text(GOOD)
    assert load_records("\ufeff" + to_json(rec)) == rec


# -- matches -------------------------------------------------------------------------------


def best_of_5() -> list[str]:
    """A best-of-5 match that takes all five games (winners: 1, 2, 1, 2, 1), as text blocks."""
    rs = Ruleset(cards=3, prize_order="descending")
    blocks = []
    for k, winner in enumerate([0, 1, 0, 1, 0], 1):
        g = Game(rs)
        for w, lo in [(2, 1), (3, 2), (1, 3)]:  # the winner takes 3 and 2, the loser 1
            g.play([w, lo] if winner == 0 else [lo, w])
        tags = [("Match", "best-of 5"), ("MatchGame", str(k))]
        if k == 5:
            tags.append(("MatchResult", "win loss"))
        blocks.append(write_text(record_from_game(g, ["Ann", "Ben"], tags)))
    return blocks


def test_whole_match_verifies():
    games, match = replay_match(load_records("\n".join(best_of_5())))
    assert len(games) == 5 and match.result() == ("win", "loss")


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda b: b[:1] + b[2:], "MatchGame"),  # game 2 deleted
        (lambda b: [b[1], b[0]] + b[2:], "MatchGame"),  # games 1 and 2 swapped
        (
            lambda b: b[:2] + [b[2].replace('[MatchGame "3"]', '[MatchGame "7"]')] + b[3:],
            "MatchGame",
        ),  # renumbered
        (lambda b: b[:4] + [b[4].replace('[Match "best-of 5"]', '[Match "best-of 3"]')], "one match"),
        (
            lambda b: b[:4] + [b[4].replace('[MatchResult "win loss"]', '[MatchResult "loss win"]')],
            "MatchResult",
        ),
    ],
)
def test_tampered_matches_are_caught(change, words):
    err = rejected("\n".join(change(best_of_5())))
    assert words in str(err) and err.line is not None


def test_one_game_excerpt_of_a_match_replays():
    games, match = replay_match(load_records(best_of_5()[2]))
    assert len(games) == 1 and match is None


# -- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Ann\u2028Lee", "Ann\x1bLee", "Ann\u202eLee", "A;B", 'A"B'])
def test_names_a_record_cannot_hold_are_refused_at_entry(name):
    g = Game(Ruleset(cards=1))
    g.play([1, 1])
    with pytest.raises(GoofspielError, match="cannot be recorded"):
        record_from_game(g, [name, "Ben"])


def test_a_recorded_name_reads_back():
    g = Game(Ruleset(cards=1))
    g.play([1, 1])
    rec = record_from_game(g, ["Zoë Ünal", "李 明"])
    assert parse_text(write_text(rec)) == [rec]


# -- the command line shows what it quotes as plain text -------------------------------------


@pytest.mark.parametrize("line", ["[/Event x]", "1. 2♦ | A♠ \x1b[2J | 1 +3"])
def test_replay_quotes_markup_and_escapes_as_plain_text(tmp_path, line):
    import os
    import subprocess
    import sys

    path = tmp_path / "r.gops"
    path.write_text(
        '[Game "goofspiel"]\n[Rules "cards=3"]\n[Players "A; B"]\n' + line + "\n", encoding="utf-8"
    )
    out = subprocess.run(
        [sys.executable, "-m", "cardtable", "replay", str(path)],
        capture_output=True,
        text=True,
        env=dict(os.environ, CARDTABLE_HOME=str(tmp_path)),
        timeout=120,
    )
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "\x1b" not in out.stderr and "line 4" in out.stderr


# -- the Hints tag holds on or off, in every reader and writer -----------------------------


@pytest.mark.parametrize("value", ["maybe", "", "ON", "on " * 3])
def test_a_bad_hints_tag_is_refused_in_both_notations(value):
    text = GOOD.replace('[Scores "3 3"]', f'[Hints "{value}"]\n[Scores "3 3"]')
    err = rejected(text)
    assert err.line == 4 and "bad Hints tag" in str(err), str(err)
    data = json.loads(to_json(parse_text(GOOD)))
    data["games"][0]["tags"] = [["Event", "x"], ["Hints", value]]
    with pytest.raises(RecordError) as info:
        from_json(json.dumps(data, indent=1))
    assert "tags[1]: bad Hints tag" in str(info.value) and info.value.line is not None
    game = replay(parse_text(GOOD)[0])
    with pytest.raises(GoofspielError, match="bad Hints tag"):
        record_from_game(game, ["Anna", "Ben"], [("Hints", value)])


@pytest.mark.parametrize("value", ["on", "off"])
def test_a_good_hints_tag_reads_back(value):
    text = GOOD.replace('[Scores "3 3"]', f'[Hints "{value}"]\n[Scores "3 3"]')
    rec = load_records(text)[0]
    assert rec.tag("Hints") == value
    assert from_json(to_json(rec))[0].tag("Hints") == value


def test_json_tags_and_keys_given_twice_are_refused_like_text():
    data = json.loads(to_json(parse_text(GOOD)))
    data["games"][0]["tags"] = [["Hints", "on"], ["Hints", "off"]]
    with pytest.raises(RecordError, match="tags\\[1\\]: tag Hints appears twice"):
        from_json(json.dumps(data, indent=1))
    data["games"][0]["tags"] = [["Event", "a\nb"]]
    with pytest.raises(RecordError, match="one line"):
        from_json(json.dumps(data, indent=1))
    data["games"][0]["tags"] = []
    text = json.dumps(data, indent=1).replace('"players":', '"seed": "1",\n   "seed": "2",\n   "players":', 1)
    with pytest.raises(RecordError, match='key "seed" appears twice') as info:
        from_json(text)
    assert info.value.line is not None and info.value.line > 1


@pytest.mark.parametrize(
    "tags, words",
    [
        ([("Hints", "on"), ("Hints", "off")], "appears twice"),
        ([("Event", "a"), ("Event", "b")], "appears twice"),
        ([("Hints", None)], "pair"),
        ([("Hints", 1)], "pair"),
        ([("Event", "a\rb")], "one line"),
    ],
)
def test_record_from_game_refuses_tags_a_record_cannot_hold(tags, words):
    game = replay(parse_text(GOOD)[0])
    with pytest.raises(GoofspielError, match=words):
        record_from_game(game, ["Anna", "Ben"], tags)


# -- issue 24, section 4: the text and JSON notations accept the same records ------------------


def _json_game(**changes):
    data = json.loads(to_json(parse_text(GOOD)))
    data["games"][0].update(changes)
    return json.dumps(data, indent=1)


@pytest.mark.parametrize("seed", ['1\n[Scores "9 9"]', "a\rb", "tab\there", "nul\x00", "\x1b[31m"])
def test_a_seed_with_a_control_character_is_refused_in_json_and_by_the_writers(seed):
    body = _json_game(seed=seed)
    with pytest.raises(
        RecordError, match="Seed: a tag's value is one line of text without control characters"
    ) as info:
        from_json(body)
    assert info.value.line == body[: body.index('"seed"')].count("\n") + 1  # the line of "seed"
    record = replace(parse_text(GOOD)[0], seed=seed)
    for write in (write_text, to_json):  # never a text record with an injected tag line
        with pytest.raises(RecordError, match="cannot be recorded: Seed: a tag's value is one line"):
            write(record)


def test_a_text_tag_with_a_carriage_return_is_refused_like_its_json_form():
    text = GOOD.replace('[Players "Anna; Ben"]', '[Players "Anna; Ben"]\n[Event "club\rnight"]')
    err = rejected(text)
    assert err.line == 4 and "U+000D" in str(err)
    with pytest.raises(RecordError, match="U\\+000D"):
        from_json(_json_game(tags=[["Event", "club\rnight"]]))
    seed = GOOD.replace('[Players "Anna; Ben"]', '[Players "Anna; Ben"]\n[Seed "7\r8"]')
    assert rejected(seed).line == 4


def test_a_value_whose_quoted_tag_line_is_too_long_is_refused_in_both_notations():
    value = '"' * 3000  # 3,000 characters, 6,000 once quoted: no text record can hold it
    with pytest.raises(RecordError, match="its tag line is 6,010 characters"):
        from_json(_json_game(tags=[["Event", value]]))
    with pytest.raises(RecordError, match="at most 4096"):
        parse_text(GOOD.replace("[Scores", '[Event "' + value.replace('"', '\\"') + '"]\n[Scores'))
    fits = '"' * 2000
    assert from_json(_json_game(tags=[["Event", fits]]))[0].tag("Event") == fits
    assert parse_text(write_text(from_json(_json_game(tags=[["Event", fits]]))))[0].tag("Event") == fits


@pytest.mark.parametrize("players", [("Anna", "Ben\x1b"), ("Anna;", "Ben"), ("Anna",), ("Anna", "anna")])
def test_write_text_and_to_json_check_the_names_of_a_hand_built_record(players):
    record = replace(parse_text(GOOD)[0], players=players)
    for write in (write_text, to_json):
        with pytest.raises(RecordError, match="cannot be recorded"):
            write(record)


def test_json_names_one_player_per_seat_like_text():
    with pytest.raises(RecordError, match="players names 3 player\\(s\\); the rules have 2"):
        from_json(_json_game(players=["Anna", "Ben", "Cy"]))


def test_a_record_of_705k_tag_lines_is_refused_at_its_101st_free_tag():
    """The 8 MiB example: refused at the tag line past the limit, not after reading every line."""
    head = GOOD.split("\n\n")[0] + "\n"
    text = head + "".join(f'[T{i} "x"]\n' for i in range(705_000))
    text = text[: 8 * 2**20 - 100] + "\n\n1. A♦ | 2♠ 2♣ | tie carried\n"
    err = rejected(text)
    assert err.line == 106 and "more than 100 free tags in one game" in str(err)
    with pytest.raises(RecordError, match="List should have at most 100 items"):
        from_json(_json_game(tags=[[f"T{i}", "x"] for i in range(101)]))
    assert len(from_json(_json_game(tags=[[f"T{i}", "x"] for i in range(100)]))[0].tags) == 100
    assert len(parse_text(head + "".join(f'[T{i} "x"]\n' for i in range(100)))[0].tags) == 100


def test_more_games_than_json_allows_are_refused_in_text_too():
    game = GOOD.replace('[Scores "3 3"]\n[Result "draw draw"]\n', "")
    text = "\n".join([game] * 10_001)
    with pytest.raises(RecordError, match="more than 10,000 games in one record") as info:
        parse_text(text)
    assert info.value.line == 10_000 * (game.count("\n") + 1) + 1


def test_a_utf16_record_without_byte_order_mark_is_not_utf8():
    text = GOOD.encode("utf-16-le").decode("utf-8")  # valid UTF-8: every other byte is NUL
    for read in (parse_text, load_records, from_json):
        with pytest.raises(RecordError, match="not UTF-8 text: it holds NUL characters"):
            read(text)


@pytest.mark.parametrize("odd", ["\v", "\u00a0", "\t", "\u2028", "\u3000"])
def test_words_of_a_round_line_are_separated_by_spaces_only(odd):
    """A helper's finding: ``1.\\v2♠ ...`` and a no-break space replayed as if spaces."""
    err = rejected(GOOD.replace("2. A♦ 2♦ | A♠", f"2.{odd}A♦ 2♦ | A♠"))
    assert err.line == 8 and f"U+{ord(odd):04X}" in str(err)
    tagged = GOOD.replace("[Players", '[Event "club\u00a0night"]\n[Players')
    assert replay_match(load_records(tagged))  # a tag's value is text: it may


def test_a_golf_record_line_with_odd_spaces_is_refused(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from cardtable.cli import app

    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path))
    record = tmp_path / "g.txt"
    assert (
        CliRunner().invoke(app, ["play", "golf", "--auto", "--seed", "3", "--record", str(record)]).exit_code
        == 0
    )
    lines = record.read_text().split("\n")
    i = next(n for n, line in enumerate(lines) if line and not line.startswith("[") and " " in line)
    lines[i] = lines[i].replace(" ", "\v", 1)
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines))
    res = CliRunner().invoke(app, ["replay", str(bad)])
    assert res.exit_code == 1 and "U+000B" in res.output and f"line {i + 1}" in res.output
