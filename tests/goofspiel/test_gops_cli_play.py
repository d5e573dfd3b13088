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
    return subprocess.run(
        [sys.executable, "-m", "cardtable", "replay", str(path)], capture_output=True, text=True, env=env
    )


def test_full_13_card_game_against_heuristic(tmp_path):
    child = spawn(["play", "--vs", "heuristic", "--seed", "42"], tmp_path)
    # a bad key press first: one-line explanation, new prompt
    child.expect("[Yy]our bid")
    child.sendline("Z")
    child.expect("'Z' is not a card")
    child.expect("[Yy]our bid")
    child.sendline("K")
    for rank in RANKS[:-1]:  # then A..Q; K already spent
        child.expect("[Yy]our bid")
        if rank == "2":  # an already spent card is refused
            child.sendline("K")
            child.expect("not in your hand")
            child.expect("[Yy]our bid")
        child.sendline(rank)
    child.expect(r"(You win|You lose|Draw between)")
    path = saved_record(child)
    child.expect(r"Show the analysis of this game")  # the coach's offer (strategy/coach.py)
    child.sendline("maybe")
    child.expect("answer y or n")
    child.sendline("y")
    child.expect("given up versus equilibrium")
    child.expect("expected point difference")
    child.expect(r"\s13\s+[+-]\d+\.\d\d\s")  # the chart's last row: the final point difference
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = path.read_text()
    assert '[Players "You; heuristic"]' in text and '[Seed "42"]' in text
    assert len([ln for ln in text.splitlines() if re.match(r"^\d+\. ", ln)]) == 13
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
    child.expect("Show the analysis of this game")
    child.sendline("")  # the default: no
    child.expect(pexpect.EOF)
    assert "given up versus" not in child.before
    assert "0001" not in before and "0002" not in child.before
    text = path.read_text()
    assert '[Players "Ann; Ben"]' in text and '[Result "draw draw"]' in text
    assert replay(path, tmp_path).returncode == 0


def test_auto_game_with_a_variant(tmp_path):
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "cardtable",
            "play",
            "--auto",
            "--players",
            "3",
            "--unique",
            "--vs",
            "heuristic",
            "--vs",
            "random",
            "--vs",
            "matcher",
            "--cards",
            "6",
            "--seed",
            "3",
            "--delay",
            "0",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    path = Path(re.sub(r"\s+", "", re.search(r"Record saved to\s+(\S+\.gops)", out.stdout).group(1)))
    assert "players=3" in path.read_text() and "unique=yes" in path.read_text()
    assert replay(path, tmp_path).returncode == 0


def test_match_of_three_games(tmp_path):
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "cardtable",
            "play",
            "--auto",
            "--match",
            "total 3",
            "--cards",
            "5",
            "--seed",
            "m",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "Match over" in out.stdout
    path = Path(re.sub(r"\s+", "", re.search(r"Record saved to\s+(\S+\.gops)", out.stdout).group(1)))
    assert path.read_text().count('[Match "total 3"]') == 3
    result = replay(path, tmp_path)
    assert result.returncode == 0 and "match total 3" in result.stdout


@pytest.mark.parametrize(
    "args, words",
    [
        (["--ties", "split"], "tie_rule: must be 'carry' or 'discard'"),
        (["--display", "3", "--ties", "discard"], "open_prizes, tie_rule"),
        (["--vs", "nobody"], "unknown goofspiel bot 'nobody'"),
        (["--rules", "/nonexistent.toml"], "cannot be read"),
        (["--match", "league 2"], "match kind must be"),
        (["--cards", "20"], "cards: must be 1..13"),
    ],
)
def test_bad_flags_get_one_line_errors(tmp_path, args, words):
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path), COLUMNS="200")
    out = subprocess.run(
        [sys.executable, "-m", "cardtable", "play", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        input="",
    )
    assert out.returncode == 2
    assert words in out.stderr
    assert "Traceback" not in out.stderr + out.stdout


def test_replay_reports_a_broken_record(tmp_path):
    bad = tmp_path / "bad.gops"
    bad.write_text(
        '[Game "goofspiel"]\n[Rules "cards=2 order=ascending"]\n[Players "a; b"]\n\n1. A♦ | 2♠ A♣ | 2 +1\n'
    )
    result = replay(bad, tmp_path)
    assert result.returncode == 1
    assert "line 5" in result.stderr and "stated outcome is wrong" in result.stderr


def test_default_record_names_never_collide(tmp_path):
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path))
    paths = set()
    for _ in range(3):
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "cardtable",
                "play",
                "--auto",
                "--cards",
                "2",
                "--seed",
                "same",
                "--delay",
                "0",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        paths.add(re.search(r"Record saved to (\S+)", out.stdout).group(1))
    assert len(paths) == 3 and all(Path(p).exists() for p in paths)


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda d: d, "is a folder"),
        (lambda d: d / "missing" / "x.gops", "does not exist"),
        (lambda d: (d / "old.gops").write_text("keep") and d / "old.gops", "already exists"),
    ],
)
def test_bad_record_paths_are_refused_before_play(tmp_path, make, words):
    target = make(tmp_path)
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path / "home"))
    out = subprocess.run(
        [sys.executable, "-m", "cardtable", "play", "--auto", "--cards", "2", "--record", str(target)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == 2 and words in out.stderr
    assert "Round 1" not in out.stdout  # refused before any game was played
    if target.name == "old.gops":
        assert target.read_text() == "keep"


def test_json_record_by_suffix(tmp_path):
    target = tmp_path / "game.json"
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path / "home"))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "cardtable",
            "play",
            "--auto",
            "--cards",
            "3",
            "--record",
            str(target),
            "--delay",
            "0",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert target.read_text().startswith("{")
    assert replay(target, tmp_path).returncode == 0


@pytest.mark.parametrize(
    "args, words",
    [
        (["--name", "Al; Bo"], "must not contain ';'"),
        (["--name", ""], "must not be empty"),
        (["--hotseat", "--names", "A,a"], "every name must be different"),
        (["--hotseat", "--vs", "random"], "--hotseat seats people only"),
        (["--seed", ""], "--seed must not be empty"),
        (["golf", "--cards", "5"], "--cards is a Goofspiel option"),
        (["--games", "2"], "--games is a Golf option"),
        (["--open-memory"], "--open-memory is a Golf option"),
        (["golf", "--rules", "decks=9"], "bad Golf rules"),
    ],
)
def test_bad_names_and_misplaced_flags(tmp_path, args, words):
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path), COLUMNS="200")
    out = subprocess.run(
        [sys.executable, "-m", "cardtable", "play", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        input="",
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert words in out.stderr


def test_replay_notes_an_unchecked_prize_order(tmp_path):
    rec = tmp_path / "noseed.gops"
    rec.write_text(
        '[Game "goofspiel"]\n[Rules "cards=2"]\n[Players "a; b"]\n\n1. 2♦ | 2♠ A♣ | 1 +2\n2. A♦ | A♠ 2♣ | 2 +1\n'
    )
    result = replay(rec, tmp_path)
    assert result.returncode == 0
    assert "no Seed tag" in result.stdout
