"""The coach in ``cardtable play``: hints before a bid (``--hints`` or typing ``hint``),
recorded as in the browser, the post-game analysis with the carry-over approximation,
and what ``--vs nash`` says it plays (issue 10 part 4, issue 13 item 6)."""

import os
import sys

import pexpect
import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.goofspiel.record import parse_text, replay

runner = CliRunner()


def invoke(*args, input=None):
    return runner.invoke(app, list(args), input=input, env={"COLUMNS": "200"})


def bids(cards):
    """Input that bids the highest card left each round (n, n-1, ..., 1)."""
    return "".join(f"{c}\n" for c in range(cards, 0, -1))


def test_hints_flag_shows_the_equilibrium_every_round_and_is_recorded(tmp_path):
    path = tmp_path / "g.gops"
    res = invoke(
        "play",
        "--cards",
        "4",
        "--ties",
        "discard",
        "--hints",
        "--seed",
        "3",
        "--record",
        str(path),
        input=bids(4) + "n\n",
    )
    assert res.exit_code == 0, res.output
    assert res.output.count("Hint — equilibrium mix for this round (exact subgame solution): ") == 4
    assert "hint to see the equilibrium" not in res.output  # shown anyway: nothing to type
    text = path.read_text()
    assert '[Hints "on"]' in text
    assert replay(parse_text(text)[0]).is_over  # the record reads back and replays


def test_typing_hint_shows_one_hint_and_marks_that_game_only(tmp_path):
    path = tmp_path / "m.gops"
    # game 1: "hint" (and "?") before the first bid; game 2: no hint
    typed = "hint\n?\n" + bids(3) + "\n" + bids(3) + "n\n"
    res = invoke(
        "play", "--cards", "3", "--match", "total 2", "--seed", "5", "--record", str(path), input=typed
    )
    assert res.exit_code == 0, res.output
    assert "hint to see the equilibrium; quit to stop" in res.output
    assert res.output.count("Hint — equilibrium mix for this round") == 2
    games = path.read_text().split('[Game "goofspiel"]')[1:]
    assert len(games) == 2 and '[Hints "on"]' in games[0] and "Hints" not in games[1]


def test_no_hint_no_tag(tmp_path):
    path = tmp_path / "g.gops"
    res = invoke("play", "--cards", "3", "--seed", "5", "--record", str(path), input=bids(3) + "n\n")
    assert res.exit_code == 0, res.output
    assert "Hint —" not in res.output and "Hints" not in path.read_text()


@pytest.mark.parametrize(
    "args, words",
    [
        (["--hints", "--hotseat"], "one person against bots"),
        (["--hints", "--auto"], "one person against bots"),
        (["--hints", "--players", "3"], "2-player game with single-card bids"),
        (["--hints", "--bid-cards", "2", "--cards", "6"], "2-player game with single-card bids"),
        (["golf", "--hints"], "is a Goofspiel option"),
    ],
)
def test_hints_where_the_coach_cannot_give_them_are_refused(args, words, tmp_path):
    res = invoke("play", *args, "--record", str(tmp_path / "x.gops"))
    assert res.exit_code == 2 and words in res.output, res.output
    assert not (tmp_path / "x.gops").exists()  # refused before anything was written


def test_typing_hint_in_a_hot_seat_game_is_explained(tmp_path):
    res = invoke("play", "--hotseat", "--cards", "3", "--seed", "1", "--no-save", input="\nhint\nquit\n")
    assert res.exit_code == 3
    assert "hints are for a game of one person against bots" in res.output


def test_analysis_after_a_carry_over_game_without_table_uses_the_approximation(tmp_path):
    # 13 cards with the high ace, carry-over: no carry-over table, and none ships for this deck
    # (every other deck of 10-13 cards has one), so the rounds with more than 8 cards left come from
    # the carry-over approximation (as the nash bot plays it), the rest from exact subgames
    res = invoke("play", "--cards", "13", "--high-ace", "--seed", "5", "--no-save", input=bids(13) + "y\n")
    assert res.exit_code == 0, res.output
    out = res.output
    assert "source" in out and "approximation" in out and "subgame" in out
    assert "approximation: carry-over approximation, not the exact equilibrium" in out
    assert "(~: carry-over approximation)" in out


def test_vs_nash_in_the_standard_game_says_what_it_plays_and_what_a_solve_needs(tmp_path):
    # the default game (13 cards, carry-over ties) without any table: the note names the compressed
    # carry-over table shipped with the package and its measured exploitability (never the lookahead
    # fallback), where exact play starts, and the full solve's cost (issue 13, item 6; issue 23)
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path), COLUMNS="400", TERM="dumb")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cardtable", "play", "--vs", "nash", "--seed", "1", "--no-save"],
        env=env,
        encoding="utf-8",
        timeout=120,
    )
    child.expect("[Yy]our bid")
    note = " ".join(child.before.split())
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 3
    assert (
        "nash: no carry-over table solved for these rules: plays from the COMPRESSED CARRY-OVER TABLE" in note
    )
    from cardtable.solver.compressed import DATA_DIR, measured_exploitability  # lazy: the solver loads Numba

    measured = measured_exploitability(DATA_DIR / "gops-n13-carry-points-lowace.svd.npz")
    assert measured is not None and measured < 0.25  # recorded for the shipped bytes (data/measured.json)
    assert f"measured exploitability {measured:.3f} points per game" in note
    assert "until 8 cards are left, then the exact subgame equilibrium" in note
    assert "FALLBACK" not in note
    assert "a full solve of this game needs" in note and "GiB of memory" in note and " on 1 core" in note
