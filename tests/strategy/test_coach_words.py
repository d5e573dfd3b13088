"""The coach in words (strategy/coach.py, ``round_words``): one sentence per round and player,
built from the same numbers as the analysis table; ``cardtable analyze`` prints them."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.goofspiel import Ruleset
from cardtable.goofspiel.record import load_records, replay
from cardtable.strategy.coach import analysis, round_words

RS = Ruleset(cards=13)


def row(
    number=5,
    prize=4,
    pot=0,
    bids=(13, 7),
    strategy=None,
    given_up=(0.0, 0.0),
    probability=None,
    source="table",
):
    """A constructed analysis round (the shape :func:`analysis` gives)."""
    if strategy is None:
        strategy = [{"5": 0.1, "6": 0.15, "7": 0.4, "8": 0.2, "9": 0.15, "13": 0.0}, {"7": 0.42, "4": 0.58}]
    if probability is None and strategy is not False:
        probability = [strategy[s].get(str(bids[s]), 0.0) for s in (0, 1)]
    return {
        "number": number,
        "prize": prize,
        "pot": pot,
        "bids": list(bids),
        "strategy": None if strategy is False else strategy,
        "probability": probability,
        "given_up": given_up,
        "source": source,
    }


def test_a_loss_names_the_cards_with_their_suits_the_points_and_the_equilibrium_range():
    r = row(given_up=(3.1234, 0.0))
    assert round_words(r, 0, RS) == (
        "Your K♠ on the 4♦ gave up about 3.1 points; at equilibrium you bid 5-9 here, most often 7."
    )


def test_small_losses_keep_their_digits():
    assert "gave up about 0.25 points" in round_words(row(given_up=(0.2468, 0.0)), 0, RS)
    assert "gave up about 0.004 points" in round_words(row(given_up=(0.0041, 0.0)), 0, RS)


def test_an_equilibrium_bid_gives_up_nothing():
    r = row(bids=(7, 7), given_up=(0.0, 0.0))
    assert (
        round_words(r, 0, RS) == "Your 7♠ on the 4♦ was an equilibrium bid (played 40% of the time): no loss."
    )
    assert (
        round_words(r, 1, RS) == "Your 7♣ on the 4♦ was an equilibrium bid (played 42% of the time): no loss."
    )


def test_a_single_bid_equilibrium_has_no_range_and_no_most_often():
    pure = [{"9": 1.0, "2": 0.0}, {"3": 1.0}]
    lost = row(bids=(2, 3), strategy=pure, given_up=(2.0, 0.0), pot=3)
    assert (
        round_words(lost, 0, RS)
        == "Your 2♠ on the 4♦ with 3 carried gave up about 2.0 points; at equilibrium you bid 9 here."
    )
    assert round_words(lost, 1, RS) == "Your 3♣ on the 4♦ with 3 carried was the equilibrium bid: no loss."


def test_a_bid_outside_the_support_that_costs_nothing_says_no_loss():
    r = row(bids=(13, 7), given_up=(0.0, 0.0))
    assert round_words(r, 0, RS) == (
        "Your K♠ on the 4♦ gave up nothing (no loss), though at equilibrium you bid 5-9 here, most often 7."
    )


def test_gaps_in_the_support_and_equally_likely_bids():
    mix = [{"2": 0.3, "5": 0.3, "6": 0.2, "13": 0.2}, {"1": 1.0}]
    words = round_words(row(bids=(9, 1), strategy=mix, given_up=(1.5, 0.0)), 0, RS)
    assert words.endswith("at equilibrium you bid 2, 5-6, K here, most often 2 or 5.")


def test_the_high_ace_is_the_strongest_card_of_a_range():
    high = Ruleset(cards=13, high_ace=True)
    mix = [{"12": 0.2, "13": 0.3, "1": 0.5}, {"2": 1.0}]
    assert "you bid Q-A here, most often A." in round_words(
        row(bids=(3, 2), strategy=mix, given_up=(4.0, 0.0)), 0, high
    )


def test_the_last_round_is_forced():
    r = row(number=13, prize=4, pot=2, bids=(13, 1), strategy=[{"13": 1.0}, {"1": 1.0}])
    assert round_words(r, 0, RS) == "Your K♠ on the 4♦ with 2 carried was forced: your last card."
    assert round_words(r, 1, RS) == "Your A♣ on the 4♦ with 2 carried was forced: your last card."


def test_an_unsolved_round_says_so():
    r = row(strategy=False, given_up=None, probability=None, source="not solved")
    assert round_words(r, 1, RS) == (
        "The coach cannot rate your 7♣ on the 4♦: this round is not solved "
        "(no equilibrium is known for its position)."
    )


def test_approximated_rounds_name_the_approximation():
    lost = round_words(row(given_up=(3.0, 0.0), source="approximation"), 0, RS)
    assert "by the carry-over approximation you bid 5-9 here" in lost and "at equilibrium" not in lost
    kept = round_words(row(bids=(7, 7), source="approximation"), 0, RS)
    assert kept == (
        "Your 7♠ on the 4♦ was a bid of the carry-over approximation (played 40% of the time; "
        "not the exact equilibrium): no loss."
    )


# -- a real record ---------------------------------------------------------------------------

runner = CliRunner()


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    path = tmp_path_factory.mktemp("words") / "game.gops"
    res = runner.invoke(
        app,
        [
            "play",
            "--auto",
            "--cards",
            "5",
            "--vs",
            "heuristic",
            "--vs",
            "exploiter",
            "--seed",
            "11",
            "--delay",
            "0",
            "--record",
            str(path),
        ],
    )
    assert res.exit_code == 0, res.output
    return path


def test_analysis_rows_carry_the_sentences_with_the_tables_numbers(record):
    rec = load_records(record.read_text())[0]
    data = analysis(replay(rec), rec.players)
    rounds = data["rounds"]
    assert all(r["words"] == [round_words(r, 0, rec.ruleset), round_words(r, 1, rec.ruleset)] for r in rounds)
    assert rounds[-1]["words"][0].endswith("was forced: your last card.")
    for r in rounds:
        for seat in (0, 1):
            lost = r["given_up"][seat]
            m = re.search(r"gave up about ([\d.]+) points", r["words"][seat])
            assert (m is not None) == (lost > 5e-4)
            if m:  # the table's number, rounded
                assert float(m.group(1)) == pytest.approx(lost, abs=0.06)


def test_cardtable_analyze_prints_the_words_by_default_and_on_their_own(record):
    rec = load_records(record.read_text())[0]
    data = analysis(replay(rec), rec.players)
    wide = {"COLUMNS": "220"}
    both = runner.invoke(app, ["analyze", str(record)], env=wide)
    assert both.exit_code == 0, both.output
    assert "final points" in both.output and "in words" in both.output
    for r in data["rounds"]:
        for sentence in r["words"]:
            assert sentence in both.output
    words = runner.invoke(app, ["analyze", "--words", str(record)], env=wide)
    assert words.exit_code == 0 and "final points" not in words.output
    assert all(s in words.output for r in data["rounds"] for s in r["words"])
    assert re.search(r"round 4\s+heuristic\s+Your 3♠ on the 2♦ gave up about 4\.0 points", words.output), (
        words.output
    )
    table = runner.invoke(app, ["analyze", "--table", str(record)], env=wide)
    assert table.exit_code == 0 and "final points" in table.output and "in words" not in table.output
