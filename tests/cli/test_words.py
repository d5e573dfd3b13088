"""The person at the terminal is "you" (second person), everyone else is named
(issue 12: "You wins", "Match over: You loss, heuristic win")."""

import re

from typer.testing import CliRunner

from cardtable.cli import app

runner = CliRunner()


def play(*args, input):
    res = runner.invoke(app, ["play", *args, "--no-save"], input=input, env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    return res.output


def test_second_person_for_the_human():
    # seed 3, 4 cards, bids 2 4 A 3: heuristic wins rounds 1 and 3, you win 2 and 4, and the game
    out = play("--cards", "4", "--seed", "3", input="2\n4\nA\n3\n")
    assert "Your bid" in out
    assert not re.search(r"\bYou (wins|takes|loss)\b", out), out
    assert "Round 1: 2♦  2♠ 4♣  → heuristic wins 2" in out
    assert "Round 2: A♦  4♠ A♣  → You win 1" in out
    assert "You lose — you 4, heuristic 6" in [line.strip() for line in out.splitlines()]


def test_match_over_in_second_person():
    out = play("--cards", "4", "--seed", "3", "--match", "total 2", input="4\n3\n2\nA\n\n4\n3\n2\nA\n")
    line = next(ln for ln in out.splitlines() if ln.startswith("Match over:"))
    assert re.match(r"Match over: you (win|lose|draw), heuristic (wins|loses|draws)", line), line


def test_bots_and_hotseat_players_are_named():
    out = play("--auto", "--cards", "3", "--seed", "1", "--delay", "0", input="")
    assert not re.search(r"\b[Yy]ou\b", out), out  # nobody at the table is "you"
    assert re.search(r"(heuristic|random) wins", out)
