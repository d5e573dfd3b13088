"""``cardtable play`` and ``cardtable replay`` driven end to end through the real
console script and its prompts (pexpect gives them a real terminal)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def spawn(args, home):
    env = dict(os.environ, CARDTABLE_HOME=str(home), COLUMNS="120", TERM="dumb")
    return pexpect.spawn(sys.executable, ["-m", "cardtable", *args], env=env, encoding="utf-8", timeout=60)


def saved_record(child):
    child.expect(r"Record saved to\s+(\S+\.gops)")
    return Path(re.sub(r"\s+", "", child.match.group(1)))


def replay(path, home):
    env = dict(os.environ, CARDTABLE_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "cardtable", "replay", str(path)], capture_output=True, text=True, env=env)


def test_full_13_card_game_against_heuristic(tmp_path):
    child = spawn(["play", "--vs", "heuristic", "--seed", "42"], tmp_path)
    # a bad key press first: one-line explanation, new prompt
    child.expect("your bid")
    child.sendline("Z")
    child.expect("'Z' is not a card")
    child.expect("your bid")
    child.sendline("K")
    for rank in RANKS[:-1]:  # then A..Q; K already spent
        child.expect("your bid")
        if rank == "2":  # an already spent card is refused
            child.sendline("K")
            child.expect("not in your hand")
            child.expect("your bid")
        child.sendline(rank)
    child.expect(r"(wins|Draw between)")
    path = saved_record(child)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = path.read_text()
    assert '[Players "You; heuristic"]' in text and '[Seed "42"]' in text
    assert len([l for l in text.splitlines() if re.match(r"^\d+\. ", l)]) == 13
    result = replay(path, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "1 game(s) verified" in result.stdout


def test_hot_seat_game_hides_bids(tmp_path):
    child = spawn(["play", "--hotseat", "--cards", "4", "--names", "Ann,Ben", "--seed", "7"], tmp_path)
    for rnd in range(4):
        for name in ("Ann", "Ben"):
            child.expect(f"Pass the keyboard to {name}")
            child.sendline("")
            child.expect(f"{name}, your bid")
            child.sendline("000" + str(rnd + 1))  # a legal way to type the card; never echoed
    child.expect(r"(wins|Draw between)")
    before = child.before
    path = saved_record(child)
    child.expect(pexpect.EOF)
    assert "0001" not in before and "0002" not in child.before
    text = path.read_text()
    assert '[Players "Ann; Ben"]' in text and "[Result \"draw draw\"]" in text
    assert replay(path, tmp_path).returncode == 0


def test_auto_game_with_a_variant(tmp_path):
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-m", "cardtable", "play", "--auto", "--players", "3", "--unique", "--vs", "heuristic",
         "--vs", "random", "--vs", "matcher", "--cards", "6", "--seed", "3", "--delay", "0"],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    path = Path(re.sub(r"\s+", "", re.search(r"Record saved to\s+(\S+\.gops)", out.stdout).group(1)))
    assert "players=3" in path.read_text() and "unique=yes" in path.read_text()
    assert replay(path, tmp_path).returncode == 0


def test_match_of_three_games(tmp_path):
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-m", "cardtable", "play", "--auto", "--match", "total 3", "--cards", "5", "--seed", "m"],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "Match over" in out.stdout
    path = Path(re.sub(r"\s+", "", re.search(r"Record saved to\s+(\S+\.gops)", out.stdout).group(1)))
    assert path.read_text().count('[Match "total 3"]') == 3
    result = replay(path, tmp_path)
    assert result.returncode == 0 and "match total 3" in result.stdout


@pytest.mark.parametrize("args, words", [
    (["--ties", "split"], "tie_rule: must be 'carry' or 'discard'"),
    (["--display", "3", "--ties", "discard"], "open_prizes, tie_rule"),
    (["--vs", "nobody"], "unknown goofspiel bot 'nobody'"),
    (["--rules", "/nonexistent.toml"], "cannot be read"),
    (["--match", "league 2"], "match kind must be"),
    (["--cards", "20"], "cards: must be 1..13"),
])
def test_bad_flags_get_one_line_errors(tmp_path, args, words):
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path), COLUMNS="200")
    out = subprocess.run([sys.executable, "-m", "cardtable", "play", *args], capture_output=True, text=True, env=env, timeout=60, input="")
    assert out.returncode == 2
    assert words in out.stderr
    assert "Traceback" not in out.stderr + out.stdout


def test_replay_reports_a_broken_record(tmp_path):
    bad = tmp_path / "bad.gops"
    bad.write_text('[Game "goofspiel"]\n[Rules "cards=2 order=ascending"]\n[Players "a; b"]\n\n1. A♦ | 2♠ A♣ | 2 +1\n')
    result = replay(bad, tmp_path)
    assert result.returncode == 1
    assert "line 5" in result.stderr and "stated outcome is wrong" in result.stderr
