"""Refused command lines (exit 2) write nothing, and values no command can use are refused
in one line (README, Exit codes): found by a new user's session trying bad input.

- a refused ``solve`` (memory, hours, threads) made the cache folder and a lock file;
  ``play`` with bad rules made the records folder; ``tables`` and ``strategy`` made the
  cache folder they only read;
- an empty path (``--cache ''``) meant the current folder, for every path option;
- ``play --delay inf`` crashed in ``time.sleep``; ``tournament --games 10**20`` built its
  whole schedule in memory.
"""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from cardtable.cli import app

runner = CliRunner()


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A data folder and a cache folder that do not exist yet."""
    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CARDTABLE_RECORDS", raising=False)
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "-n", "13", "--max-memory", "0.001"],
        ["solve", "-n", "13", "--max-hours", "0.0001"],
        ["solve", "-n", "13", "--ties", "discard", "--max-memory", "0.01"],
        ["solve", "-n", "13", "--format", "1", "--max-memory", "0.5"],
        ["solve", "-n", "3", "--threads", "999"],
        ["play", "-n", "0", "--auto"],
        ["play", "--auto", "--vs", "bogus"],
        ["play", "--auto", "--match", "nonsense"],
        ["strategy", "-n", "3", "--limit", "0"],
    ],
)
def test_a_refused_command_creates_no_folder_or_file(fresh, args):
    out = runner.invoke(app, args)
    assert out.exit_code == 2, out.output
    assert sorted(p.name for p in fresh.iterdir()) == [], out.output


def test_listing_a_missing_cache_creates_it_not(fresh):
    out = runner.invoke(app, ["tables"])
    assert out.exit_code == 0 and "no tables in" in out.output
    assert not (fresh / "cache").exists()


def test_an_accepted_solve_still_makes_its_folders(fresh):
    out = runner.invoke(app, ["solve", "-n", "3"])
    assert out.exit_code == 0, out.output
    assert (fresh / "cache" / "gops-n3-carry-points-lowace.v2" / "table.json").is_file()


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "-n", "3", "--cache", ""],
        ["tables", "--cache", " "],
        ["strategy", "-n", "3", "--cache", ""],
        ["analyze", ""],
        ["play", "--auto", "-n", "3", "--record", ""],
        ["replay", ""],
        ["verify", ""],
        ["tournament", "random", "matcher", "-r", "cards=2", "--games", "2", "--db", ""],
        ["tournament", "random", "matcher", "--config", ""],
        ["tournament", "random", "matcher", "-r", "cards=2", "--games", "2", "--report", ""],
        ["serve", "--db", ""],
    ],
)
def test_an_empty_path_is_refused_not_read_as_the_current_folder(fresh, monkeypatch, args):
    monkeypatch.chdir(fresh)
    out = runner.invoke(app, args)
    assert out.exit_code == 2, out.output
    assert "is empty; give a path" in out.output
    assert sorted(p.name for p in fresh.iterdir()) == []


@pytest.mark.parametrize("delay", ["inf", "nan", "1e300", "61", "-1"])
def test_a_delay_that_is_not_a_pace_is_refused(fresh, delay):
    out = runner.invoke(app, ["play", "--auto", "-n", "3", "--no-save", "--delay", delay])
    assert out.exit_code == 2 and "--delay" in out.output
    assert out.exception is None or isinstance(out.exception, SystemExit)


@pytest.mark.parametrize("games", ["100000000000000000000", "1000002"])
def test_a_tournament_past_the_most_games_is_refused_before_its_database(fresh, games):
    db = fresh / "t.db"
    out = runner.invoke(
        app, ["tournament", "random", "heuristic", "-r", "cards=2", "--games", games, "--db", str(db)]
    )
    assert out.exit_code == 2 and "at most 1,000,000" in out.output
    assert not db.exists()


def test_names_without_hot_seat_is_refused_not_ignored(fresh):
    out = runner.invoke(
        app, ["play", "--names", "A,B", "-n", "3", "--vs", "random", "--no-save"], input="3\n"
    )
    assert out.exit_code == 2 and "--names names the hot-seat players" in out.output


@pytest.mark.parametrize(
    ("prizes", "message"),
    [("3-A", "the range '3-A' is empty: write the lower card first (A-3)"), ("", "leaves no prize")],
)
def test_an_empty_prize_list_is_named_as_such(fresh, prizes, message):
    out = runner.invoke(app, ["strategy", "-n", "3", "--prizes", prizes])
    assert out.exit_code == 2 and message in " ".join(out.output.split())


def test_a_refused_solve_suggests_every_core_of_this_machine_not_the_refused_one(fresh):
    out = runner.invoke(app, ["solve", "-n", "13", "--ties", "discard", "--max-hours", "0.05"])
    assert out.exit_code == 2
    text = " ".join(out.output.split())
    assert "about under" not in text
    cores = os.cpu_count() or 1
    if cores > 1:
        assert f"`--threads {cores}` here" in text and "`--threads 1` here" not in text
