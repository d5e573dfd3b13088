"""Issue 9, section 4: unsolicited lines, odd numbers, option injection, the gameover
line after a forfeit, and bot processes that must not outlive the controller."""

import os
import sys
import time
from pathlib import Path

import pytest

from cardtable.goofspiel import Ruleset
from cardtable.goofspiel.botcheck import check_bot
from cardtable.goofspiel.protocol import GoofspielProtocolBot
from cardtable.goofspiel.tournament import play_one
from cardtable.platform.tournament import TournamentConfig, TournamentError, parse_bot_spec, validate

BAD = f"{sys.executable} {Path(__file__).with_name('badbot.py')}"


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_gone(pids, limit_s=10.0) -> list[int]:
    """The pids still running after waiting up to ``limit_s`` (a hang guard, not a speed check)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


@pytest.mark.parametrize("mode", ["extra", "early"])
def test_unsolicited_lines_are_a_violation_of_their_own(mode):
    report = check_bot(f"{BAD} {mode}", rulesets=["standard"], games=2, time_ms=3000)
    assert [v.kind for v in report.violations] == ["unsolicited", "unsolicited"]
    assert "bid" in report.violations[0].detail


def test_superscript_digit_is_garbage_and_the_program_restarts():
    report = check_bot(f"{BAD} superscript", rulesets=["standard", "open-prizes"], games=1, time_ms=3000)
    assert [v.kind for v in report.violations] == ["garbage", "garbage"]
    assert "is not a card rank" in report.violations[0].detail


@pytest.mark.parametrize("value", ["2\nquit", "2\rquit", "a\u2028b", "x\x00"])
def test_option_values_cannot_inject_commands(value):
    with pytest.raises(ValueError, match="one line"):
        GoofspielProtocolBot(f"{BAD} legal", options={"margin": value})


def test_tournament_refuses_an_option_that_would_inject_a_command():
    entry = parse_bot_spec(f"cmd:{BAD} legal")
    entry = type(entry)(entry.label, entry.kind, entry.target, {"margin": "2\nquit"})
    with pytest.raises(TournamentError, match="one line"):
        validate(TournamentConfig(bots=(entry, parse_bot_spec("random")), ruleset="cards=4", games=2))


def test_gameover_after_a_forfeit_carries_the_points(tmp_path, monkeypatch):
    log = tmp_path / "lines.txt"
    monkeypatch.setenv("BADBOT_LOG", str(log))
    good, bad = (
        GoofspielProtocolBot(f"{BAD} legal", time_ms=3000),
        GoofspielProtocolBot(f"{BAD} garbage", time_ms=3000),
    )
    try:
        out = play_one(Ruleset(cards=4), [good, bad], seed="s")
    finally:
        good.close()
        bad.close()
    assert out.forfeit[:2] == (1, "garbage")
    gameover = [line for line in log.read_text().splitlines() if line.startswith("gameover")]
    assert gameover == ["gameover points 0 0 result win forfeit 1 garbage"]


def test_a_child_holding_stdout_is_killed_and_the_exit_is_a_crash(tmp_path, monkeypatch):
    pids = tmp_path / "pids.txt"
    monkeypatch.setenv("BADBOT_PIDS", str(pids))
    report = check_bot(f"{BAD} forkexit", rulesets=["standard"], games=1, time_ms=3000)
    assert [v.kind for v in report.violations] == ["crash"]
    children = [int(x) for x in pids.read_text().split()]
    assert children and wait_gone(children) == []


def test_a_bot_cannot_inject_markup_or_escapes_into_the_report(tmp_path):
    import subprocess

    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-m", "cardtable", "bot-check", f"{BAD} markup", "-r", "standard", "--games", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr and "\x1b" not in out.stdout + out.stderr
    assert "[/bold]" in out.stdout and "\\x1b" in out.stdout
