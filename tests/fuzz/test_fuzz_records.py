"""Fuzz: the Goofspiel and Golf record readers (text and JSON), fed edits of real records
and hostile text, either return games or raise their RecordError with a message; never
another exception. Big hostile inputs stay under a fixed memory bound."""

from __future__ import annotations

import json
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardtable.golf import record as golf_record
from cardtable.golf.bots.random_bot import RandomBot
from cardtable.golf.driver import play_game
from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.state import GolfGame
from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel import record as gops_record
from cardtable.platform.names import PlayerNameError, check_player_name

from .mutations import edited, edited_json, hostile_text


def _gops_match() -> list:
    recs = []
    for k, rs in enumerate([Ruleset(cards=4), Ruleset(cards=4)], 1):
        g = Game(rs, seed=f"s{k}")
        while not g.is_over:
            g.play([g.legal_bids(0)[0], g.legal_bids(1)[-1]])
        tags = [
            ("Match", "total 2"),
            ("MatchGame", str(k)),
            ("SeedCommit", gops_record.seed_commitment(f"s{k}")),
        ]
        if k == 2:
            tags.append(("MatchResult", "loss win"))
        recs.append(gops_record.record_from_game(g, ["Ann", "Ben"], tags))
    g = Game(Ruleset(cards=5, players=3, open_prizes=3, prize_order="ascending"))
    while not g.is_over:
        if g.phase == "choose":
            g.choose(g.chooser, g.legal_choices()[0])
        else:
            g.play([g.legal_bids(s)[i] for s, i in enumerate((0, -1, 1))])
    recs.append(gops_record.record_from_game(g, ["A", "B", "C"]))
    return recs


GOPS = _gops_match()
GOPS_TEXTS = [gops_record.write_text(GOPS[:2]), gops_record.write_text(GOPS[2])]
GOPS_TEXT = GOPS_TEXTS[0]
GOPS_JSONS = [json.loads(gops_record.to_json(GOPS[:2])), json.loads(gops_record.to_json(GOPS[2]))]
GOLF = golf_record.record_from_game(
    play_game(
        GolfGame(GolfRuleset(players=2), seed=5), [RandomBot(seed=1, snap_rate=0.3), RandomBot(seed=2)]
    ),
    ["Ann", "Ben"],
)
GOLF_TEXT = golf_record.write_text(GOLF)
GOLF_JSON = json.loads(golf_record.to_json(GOLF))


def read_gops(text: str) -> None:
    try:
        gops_record.replay_match(gops_record.load_records(text))
    except gops_record.RecordError as exc:
        assert str(exc) and len(str(exc)) < 1000


def read_golf(text: str) -> None:
    try:
        golf_record.replay_text(text)
    except golf_record.RecordError as exc:
        assert str(exc) and len(str(exc)) < 1000


def test_the_seed_records_are_valid():
    for text in GOPS_TEXTS:
        gops_record.replay_match(gops_record.load_records(text))
    assert gops_record.replay_match(gops_record.load_records(GOPS_TEXT))[1] is not None
    assert golf_record.replay_text(GOLF_TEXT).startswith("1 game(s) verified")


@given(st.sampled_from(GOPS_TEXTS).flatmap(edited))
def test_goofspiel_text_reader(text):
    read_gops(text)


@given(st.sampled_from(GOPS_JSONS).flatmap(edited_json))
def test_goofspiel_json_reader(text):
    read_gops(text)


@given(edited(GOLF_TEXT))
def test_golf_text_reader(text):
    read_golf(text)


@given(edited_json(GOLF_JSON))
def test_golf_json_reader(text):
    read_golf(text)


@given(
    st.one_of(
        hostile_text,
        st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace")),
        hostile_text.map(lambda t: "{" + t),
        hostile_text.map(lambda t: "[" + t),
    )
)
def test_random_text_in_both_readers(text):
    read_gops(text)
    read_golf(text)


@given(st.text(min_size=1, max_size=45))
def test_every_accepted_name_survives_write_and_parse(name):
    try:
        check_player_name(name)
    except PlayerNameError:
        return
    other = "Zed" if name.casefold() != "zed" else "Yan"
    g = Game(Ruleset(cards=1))
    g.play([1, 1])
    rec = gops_record.record_from_game(g, [name, other])
    assert gops_record.parse_text(gops_record.write_text(rec))[0].players == (name, other)
    assert gops_record.from_json(gops_record.to_json(rec))[0].players == (name, other)
    grec = golf_record.record_from_game(GolfGame(GolfRuleset(players=2), seed=1), [name, other])
    assert golf_record.parse_text(golf_record.write_text(grec))[0].players == [name, other]
    assert golf_record.from_json(golf_record.to_json(grec))[0].players == [name, other]


BIG = 5_000_000


@pytest.mark.parametrize(
    "text",
    [
        "1." + " " * BIG + "x",
        '[Event "' + "x" * BIG + '"]\n',
        GOPS_TEXT.replace("[Players", "[Players" + " " * BIG, 1),
        "[" * BIG,
        '{"format": "cardtable-goofspiel-record", "version": 1, "games": [' + "[" * BIG,
        GOPS_TEXT + ("\n" + GOPS_TEXT.split("\n\n")[0]) * 2000,
    ],
    ids=["spaces", "tag", "players", "brackets", "json-depth", "many-tags"],
)
@pytest.mark.parametrize("reader", [read_gops, read_golf], ids=["goofspiel", "golf"])
def test_big_hostile_inputs_stay_under_a_memory_bound(text, reader):
    tracemalloc.start()
    try:
        reader(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * len(text) + 32 * 2**20, f"peak {peak / 2**20:.0f} MiB"
