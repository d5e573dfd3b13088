"""Issue 9, section 3: one integer policy across the public engine API, strict rules
notation and rules files, and bad folders refused before any work."""

import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from cardtable.goofspiel import Game, GoofspielError, Ruleset, RulesetError
from cardtable.goofspiel.errors import IllegalChoice, WrongBidSize
from cardtable.goofspiel.record import parse_text, record_from_game, replay, write_text


def choosing_game() -> Game:
    g = Game(Ruleset(cards=3, open_prizes=3, prize_order="ascending"))
    g.play([3, 1])  # seat 0 chooses first from 1 2 3
    assert g.phase == "choose"
    return g


# -- one integer policy ----------------------------------------------------------------------


@pytest.mark.parametrize("bad", [3.0, "3", True, Fraction(3), None])
def test_choose_refuses_what_is_not_a_whole_number(bad):
    g = choosing_game()
    before = g.snapshot()
    with pytest.raises(GoofspielError):
        g.choose(0, bad)
    assert g.snapshot() == before


def test_choose_with_a_float_no_longer_writes_a_record_replay_rejects():
    g = choosing_game()
    with pytest.raises(IllegalChoice, match="whole number"):
        g.choose(0, 3.0)
    g.choose(0, np.int64(3))  # what operator.index accepts is fine, and stored as int
    assert all(type(p) is int for _, p in g.history[-1].taken)
    replay(parse_text(write_text(record_from_game(g, ["Ann", "Ben"])))[0])


@pytest.mark.parametrize("bids", [[3.0, 2], [True, 2], ["3", 2], [(3.0,), 2], [[1, 2.0], 2]])
def test_play_refuses_non_whole_bids(bids):
    g = Game(Ruleset(cards=3))
    before = g.snapshot()
    with pytest.raises(WrongBidSize):
        g.play(bids)
    assert g.snapshot() == before


def test_play_accepts_numpy_integers_and_stores_ints():
    g = Game(Ruleset(cards=3), prize_deck=[3, 2, 1])
    r = g.play([np.int64(3), np.int32(1)])
    assert r.bids == ((3,), (1,)) and all(type(b[0]) is int for b in r.bids)


@pytest.mark.parametrize("deck", [[1.0, 2, 3], ["1", 2, 3], [True, 2, 3]])
def test_prize_deck_must_be_whole_numbers(deck):
    with pytest.raises(GoofspielError, match="whole number"):
        Game(Ruleset(cards=3), prize_deck=deck)


@pytest.mark.parametrize("order", [(True, 2, 3), (1.0, 2, 3), ("1", 2, 3)])
def test_prize_order_must_be_whole_numbers(order):
    with pytest.raises(RulesetError, match="whole number"):
        Ruleset(cards=3, prize_order=order)


@pytest.mark.parametrize("method", ["legal_bids", "view"])
@pytest.mark.parametrize("seat", [True, False, 1.0, "1"])
def test_seats_are_whole_numbers_not_bools(method, seat):
    with pytest.raises(GoofspielError, match="no seat"):
        getattr(Game(Ruleset(cards=3)), method)(seat)


def test_ruleset_fields_take_numpy_integers_as_ints():
    rs = Ruleset(cards=np.int64(5), players=np.int8(2))
    assert type(rs.cards) is int and rs == Ruleset(cards=5)


def test_huge_numbers_give_a_ruleset_error():
    with pytest.raises(RulesetError, match="cards"):
        Ruleset(cards=10**5000)


# -- rules notation and files ----------------------------------------------------------------


def test_repeated_keys_are_refused():
    with pytest.raises(RulesetError, match="given twice"):
        Ruleset.parse("cards=5 cards=6")
    with pytest.raises(RulesetError, match="given twice"):
        Ruleset.parse("ties=carry tie_rule=discard")


@pytest.mark.parametrize("text", ["cards=²", "cards=" + "9" * 5000, "order=1,²,3", "x" * 300])
def test_odd_notation_gives_a_ruleset_error(text):
    with pytest.raises(RulesetError):
        Ruleset.parse(text)


@pytest.mark.parametrize(
    "content, name",
    [
        ('{"cards": 3, "prize_order": [1, "2", 3]}', "r.json"),
        ('{"preset": ["discard"]}', "r.json"),
        ('{"cards": 3.0}', "r.json"),
        ('{"cards": true}', "r.json"),
        ('{"high_ace": "yes"}', "r.json"),
        ('{"tie_rule": ["carry"]}', "r.json"),
        ('{"cards": 3, "cards": 4}', "r.json"),
        ("[" * 100_000, "r.json"),
        ("[1, 2]", "r.json"),
        ('prize_order = [1, "2", 3]\ncards = 3', "r.toml"),
        ('preset = ["discard"]', "r.toml"),
    ],
)
def test_rules_files_with_wrong_types_give_a_ruleset_error(tmp_path, content, name):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(RulesetError):
        Ruleset.from_file(path)


# -- the command line --------------------------------------------------------------------------


def cli(*args, home=None, env=None):
    full_env = dict(os.environ, **(env or {}))
    if home is not None:
        full_env["CARDTABLE_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "cardtable", *args], capture_output=True, text=True, env=full_env, timeout=120
    )


def test_long_rules_string_is_not_tried_as_a_path(tmp_path):
    out = cli("play", "--auto", "--rules", "cards=5 " + "x" * 300, "--no-save", home=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr and "bad rules" in out.stderr


def test_rules_order_and_cards_flag_conflict_is_refused(tmp_path):
    out = cli(
        "play", "--auto", "--rules", "cards=5 order=5,4,3,2,1", "--cards", "6", "--no-save", home=tmp_path
    )
    assert out.returncode == 2 and "conflicts" in out.stderr


def test_rules_order_is_kept_when_cards_flag_agrees(tmp_path):
    record = tmp_path / "g.txt"
    out = cli(
        "play",
        "--auto",
        "--delay",
        "0",
        "--rules",
        "cards=5 order=5,4,3,2,1",
        "--cards",
        "5",
        "--record",
        str(record),
        home=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "order=5,4,3,2,1" in record.read_text()


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "--cards", "3", "--cache", "{afile}/sub"],
        ["solve", "--cards", "3"],
        ["tournament", "random", "heuristic", "--games", "2", "-j", "1"],
        ["play", "--auto", "--cards", "3", "--delay", "0"],
    ],
)
def test_bad_folders_are_refused_before_the_work(tmp_path, args):
    afile = tmp_path / "afile"
    afile.write_text("x")
    out = cli(*[a.format(afile=afile) for a in args], home=afile)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr and "afile" in out.stderr
    assert "wins" not in out.stdout and "played" not in out.stdout  # nothing was played first


def test_serve_with_a_file_as_home_is_refused(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    out = cli("serve", "--port", "0", home=afile)
    assert out.returncode == 2 and "is a file, not a folder" in out.stderr
