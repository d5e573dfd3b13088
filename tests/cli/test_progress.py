"""Long work shows progress (issue 12): a Rich bar with done/total and an ETA."""

import io
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from cardtable.cli.progress import progress_bar

ROOT = Path(__file__).parents[2]


def test_progress_bar_counts_and_shows_an_eta():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with progress_bar("deals", total=4, console=console) as advance:
        advance()
        advance(2)
        advance(completed=4)
    text = out.getvalue()
    assert "deals" in text and "4/4" in text and "ETA" in text


def test_unknown_total_shows_elapsed_time_and_goes_away():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with progress_bar("searching", console=console):
        pass
    assert "0:00:00" in out.getvalue()


def test_golf_bench_reports_progress():
    res = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "golf_bots.py"), "--games", "2", "--pairings", "random-random"],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "COLUMNS": "120", "PATH": "/usr/bin:/bin"},
    )
    assert res.returncode == 0, res.stderr
    assert "random vs random (deals)" in res.stderr and "1/1" in res.stderr
    assert "random vs random" in res.stdout


def test_tournament_progress_counts_games_from_the_start(tmp_path):
    """The number of games is known before the first one: the bar shows done/total and an ETA
    (it once showed only a spinner and the elapsed time, whatever the tournament's size)."""
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "cardtable",
            "tournament",
            "random",
            "matcher",
            "--games",
            "4",
            "--backend",
            "serial",
            "--db",
            str(tmp_path / "t.sqlite"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={
            "PYTHONPATH": str(ROOT),
            "COLUMNS": "120",
            "PATH": "/usr/bin:/bin",
            "CARDTABLE_HOME": str(tmp_path / "home"),
        },
    )
    assert res.returncode == 0, res.stderr
    assert "games" in res.stderr and "4/4" in res.stderr and "ETA" in res.stderr, res.stderr
