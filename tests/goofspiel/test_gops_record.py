"""Record notation: exact round trips, and every inconsistency reported with its line."""

import pytest

from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel.record import (
    RecordError,
    from_json,
    parse_text,
    record_from_game,
    replay,
    replay_match,
    seed_commitment,
    to_json,
    write_text,
)

GOOD = """\
[Game "goofspiel"]
[Rules "cards=3 players=2 ties=carry ace=low bid=1 display=1 order=ascending"]
[Players "Anna; Ben"]
[Scores "0 6"]
[Result "loss win"]

1. A♦ | 2♠ 2♣ | tie carried
2. A♦ 2♦ | A♠ 3♣ | 2 +3
3. 3♦ | 3♠ A♣ | 1 +3
"""


CONSISTENT = GOOD.replace('[Scores "0 6"]', '[Scores "3 3"]').replace('"loss win"', '"draw draw"')


def test_parse_and_replay_a_good_record():
    (rec,) = parse_text(CONSISTENT)
    game = replay(rec)
    assert game.points == (3, 3)


def test_wrong_scores_are_reported_at_the_scores_tag_line():
    (rec,) = parse_text(GOOD)
    with pytest.raises(RecordError) as info:
        replay(rec)
    assert info.value.line == 4
    assert "Scores tag says 0 6; the rounds give 3 3" in str(info.value)


@pytest.mark.parametrize(
    "old, new, line, words",
    [
        ("2. A♦ 2♦ | A♠ 3♣ | 2 +3", "2. A♦ 2♦ | A♠ 3♣ | 1 +3", 8, "stated outcome is wrong"),
        ("2. A♦ 2♦ | A♠ 3♣ | 2 +3", "2. A♦ 2♦ | A♠ 3♣ | 2 +4", 8, "stated outcome is wrong"),
        ("3. 3♦ | 3♠ A♣", "3. 3♦ | 2♠ A♣", 9, "already spent 2♠"),
        ("1. A♦ | 2♠ 2♣ | tie carried", "1. A♦ | 2♠ 2♣ | tie discarded", 7, "stated outcome is wrong"),
        ("2. A♦ 2♦ |", "2. 2♦ |", 8, "prizes face up were A♦ 2♦"),
        ("2. A♦ 2♦ | A♠ 3♣", "2. A♦ 2♦ | A♠ 3♠", 8, "not your suit"),
        ("3. 3♦", "4. 3♦", 9, "round number 4 where round 3"),
        ("2. A♦ 2♦ | A♠ 3♣ | 2 +3", "2. A♦ 2♦ | A♠ 3♣ | 2 gets 3", 8, "bad outcome"),
        ("2. A♦ 2♦ | A♠ 3♣ | 2 +3", "2. A♦ 2♦ | A♠ | 2 +3", 8, "1 bid(s) where 2 players bid"),
        ("3. 3♦ | 3♠ A♣ | 1 +3", "3. 3♦ | 3♠ Z♣ | 1 +3", 9, "'Z' is not a card"),
        ('[Players "Anna; Ben"]', '[Players "Anna"]', 3, "names 1 player"),
        ('[Players "Anna; Ben"]', '[Players "Anna; "]', 3, "must not be empty"),
        ('[Rules "cards=3', '[Rules "cards=30', 2, "bad Rules tag"),
        ('[Result "draw draw"]', '[Result "draw lost"]', 5, "bad Result tag"),
        ('[Scores "3 3"]', "[Scores 3 3]", 4, "malformed tag line"),
    ],
)
def test_inconsistencies_are_reported_with_their_line(old, new, line, words):
    assert old in CONSISTENT
    text = CONSISTENT.replace(old, new)
    with pytest.raises(RecordError) as info:
        replay(parse_text(text)[0])
    assert info.value.line == line, str(info.value)
    assert words in str(info.value)


def test_seed_must_reproduce_the_prize_order_and_commitment():
    game = Game(Ruleset(cards=5), seed="fair")
    while not game.is_over:
        game.play([min(game.hands[0]), max(game.hands[1])])
    tags = [("SeedCommit", seed_commitment("fair"))]
    rec = record_from_game(game, ["a", "b"], tags)
    assert replay(parse_text(write_text(rec))[0]).points == game.points
    forged = write_text(rec).replace('[Seed "fair"]', '[Seed "unfair"]')
    with pytest.raises(RecordError, match="does not reproduce the prize order"):
        replay(parse_text(forged)[0])
    bad_commit = write_text(rec).replace(seed_commitment("fair"), seed_commitment("other"))
    with pytest.raises(RecordError, match="SeedCommit does not match"):
        replay(parse_text(bad_commit)[0])


def test_match_records_check_the_match_result():
    games = []
    for _ in range(2):
        g = Game(Ruleset(cards=3, prize_order="ascending"))
        # b wins 5 to 1
        g.play([3, 1])
        g.play([2, 3])
        g.play([1, 2])
        games.append(g)
    recs = [
        record_from_game(games[0], ["a", "b"], [("Match", "best-of 3 extra-game"), ("MatchGame", "1")]),
        record_from_game(
            games[1],
            ["a", "b"],
            [("Match", "best-of 3 extra-game"), ("MatchGame", "2"), ("MatchResult", "loss win")],
        ),
    ]
    text = write_text(recs)
    played, match = replay_match(parse_text(text))
    assert match.is_over and match.result() == ("loss", "win")
    with pytest.raises(RecordError, match="MatchResult says win loss"):
        replay_match(parse_text(text.replace('MatchResult "loss win"', 'MatchResult "win loss"')))


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("hello", "round line before the Rules tag"),
        ('{"format": "x"}', "not a cardtable Goofspiel JSON record"),
        ("{not json", "not valid JSON"),
    ],
)
def test_malformed_files(text, words):
    from cardtable.goofspiel.record import load_records

    with pytest.raises(RecordError, match=words):
        load_records(text)


def test_json_structure_errors():
    with pytest.raises(RecordError, match=r"games\[0\]\.players: missing field"):
        from_json('{"format": "cardtable-goofspiel-record", "version": 1, "games": [{"rules": {}}]}')
    with pytest.raises(RecordError, match=r"games\[0\]: Input should be an object"):
        from_json('{"format": "cardtable-goofspiel-record", "version": 1, "games": ["x"]}')
    with pytest.raises(RecordError, match="games: Input should be a valid array"):
        from_json('{"format": "cardtable-goofspiel-record", "version": 1, "games": 3}')
    rec = parse_text(GOOD)[0]
    assert from_json(to_json(rec)) == [rec]


def test_json_replay_errors_name_the_round():
    import json

    data = json.loads(to_json(parse_text(CONSISTENT)[0]))
    data["games"][0]["rounds"][2]["bids"][0] = [2]  # 2♠ was spent in round 1
    text = json.dumps(data)
    with pytest.raises(RecordError, match="round 3: player 1 has already spent 2♠"):
        replay(from_json(text)[0])


def test_names_that_the_notation_cannot_hold_are_refused():
    from cardtable.goofspiel import GoofspielError

    g = Game(Ruleset(cards=1))
    g.play([1, 1])
    for bad in ["Al; Bo", "", "  "]:
        with pytest.raises(GoofspielError, match="cannot be recorded"):
            record_from_game(g, [bad, "x"])
