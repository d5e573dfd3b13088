"""``--build-table`` on ``cardtable play`` and ``cardtable serve`` (issue 23, part 3): the
table is built by a child ``cardtable solve`` at nice 19 that never outlives the command
(normal end, Ctrl-C, SIGTERM, SIGKILL), a second run resumes the finished layers, a table
another process is building is left to it, rules without a table are refused; the nash
bot switches to a table completed during the session (docs/solver.md, Background builds).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from filelock import FileLock
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.cli.build import STANDARD, BuildRefused, plan_build
from cardtable.goofspiel import Ruleset
from cardtable.platform.keeper import descendants
from cardtable.solver.catalog import build_log, game_lock
from cardtable.solver.layers import folder_name, solve_layered
from cardtable.strategy.exploiter import ExploiterBot
from cardtable.strategy.nash import NashBot

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
    pytest.mark.usefixtures("no_leaked_processes"),
]

C6 = Ruleset(cards=6, tie_rule="carry")
C10 = Ruleset(cards=10, tie_rule="carry")  # a build of about 20 s: long enough to be seen and stopped
WAIT_S = 120  # bounds on waits for a loaded 2-core machine (not timing assertions)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv("CARDTABLE_CACHE", str(folder))
    return folder


def cardtable(*args: str) -> subprocess.Popen:
    """``cardtable ARGS`` in a child process (the test's environment: its cache and home)."""
    return subprocess.Popen(
        [sys.executable, "-m", "cardtable", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )


def play_10(*extra: str) -> subprocess.Popen:
    """Two random bots at 10 cards with ``--build-table``: the game lasts ``--delay`` x 10 s."""
    return cardtable(
        "play", "--auto", "-n", "10", "--vs", "random", "--vs", "random", "--no-save", "--build-table", *extra
    )


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def alive(pid: int) -> bool:
    """Running (not gone, not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def nice_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as f:
        return int(f.read().rsplit(b")", 1)[1].split()[16])


def wait_for(what, label: str, wait_s: float = WAIT_S):
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        found = what()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"waited {wait_s} s for {label}")


def the_solve(parent: int, cache: Path) -> tuple[int, list[int]]:
    """The build's ``cardtable solve`` process below ``parent`` and every process of the build."""

    def find():
        tree = descendants(parent)
        solves = [p for p in tree if cmdline(p).split(" ")[1:4] == ["-m", "cardtable", "solve"]]
        return (solves[0], tree) if solves else None

    return wait_for(find, "the build's cardtable solve")


def layer_files(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in sorted(folder.glob("layer-*.json"))}


# -- the child: lowest priority, never outlives the command ---------------------------------


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_the_build_runs_at_nice_19_and_ends_with_the_command(cache, how):
    proc = play_10("--delay", "5")
    solve, tree = the_solve(proc.pid, cache)
    assert nice_of(solve) == 19
    assert "-m cardtable solve -n 10 --ties carry --cache" in cmdline(solve)
    os.kill(proc.pid, how)
    out, err = proc.communicate(timeout=WAIT_S)
    wait_for(lambda: not any(alive(p) for p in tree), "the build's processes to end", 15)
    log = build_log(C10, "points", cache).read_text()
    assert "cardtable play (pid" in log and "runs: cardtable solve -n 10 --ties carry" in log
    assert "building in the background at the lowest priority: `cardtable solve -n 10 --ties carry`" in out
    if how == signal.SIGINT:  # the command ends as a Ctrl-C ends a game, and says what became of the build
        assert proc.returncode == 3, err
        assert "the background build was stopped when cardtable play ended" in out
        assert "stopped: cardtable play" in log
    else:  # killed: the keeper ends the build on its own
        assert proc.returncode == -how


def test_the_build_ends_when_the_game_ends(cache):
    proc = play_10("--delay", "0", "--seed", "2")
    out, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0, err
    assert "the background build was stopped when cardtable play ended: its finished layers are kept" in out
    assert str(build_log(C10, "points", cache)) in out
    gone = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    assert f"--cache {cache}" not in gone  # no solve of this test's cache left anywhere


@pytest.mark.slow
def test_a_second_run_resumes_from_the_finished_layers(cache):
    folder = cache / folder_name(C10, "points")
    # 200 s of game: on a fresh clone the build first compiles the solver's kernels (about a
    # minute on a loaded 2-core machine), and a game that ended first would stop the build
    first = play_10("--delay", "20")
    wait_for(lambda: (folder / "layer-03.json").exists(), "layer 3", 180)
    first.send_signal(signal.SIGINT)
    first.communicate(timeout=WAIT_S)
    kept = layer_files(folder)
    assert len(kept) >= 3 and not (folder / "table.json").exists()
    second = play_10("--delay", "20")  # 200 s of game: the build finishes first
    log = build_log(C10, "points", cache)
    wait_for(lambda: "] exit code 0" in log.read_text(), "the build to finish", 300)
    second.send_signal(signal.SIGINT)
    out, _ = second.communicate(timeout=WAIT_S)
    after = layer_files(folder)
    assert {k: after[k] for k in kept} == kept  # not written again
    text = log.read_text()
    assert text.count("runs: cardtable solve -n 10 --ties carry") == 2
    assert f"resumed layers {list(range(1, len(kept) + 1))}" in text  # the solve's own report
    # the log's last line is written just before the build's processes exit: on a loaded machine
    # the command may still find them running and stop them (the table is complete either way)
    assert "the background build finished" in out or "the background build was stopped" in out
    code, listing, _ = run_cli("tables", "--json")
    (entry,) = json.loads(listing)["tables"]
    assert (entry["state"], entry["percent_done"], entry["building"]) == ("complete", 100.0, False)


# -- one build per table; rules without a table ----------------------------------------------


def run_cli(*args: str):
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.stdout, " ".join(r.stderr.split())


def test_a_table_another_process_builds_is_left_to_it(cache):
    lock = FileLock(str(game_lock(C6, "points", cache)))
    with lock.acquire(timeout=0):  # as a `cardtable solve` of that table holds it
        code, out, err = run_cli(
            "play", "--auto", "-n", "6", "--vs", "random", "--vs", "random", "--no-save", "--build-table"
        )
        assert code == 0, err
        assert (
            "--build-table: nothing to build: the 6 cards, carry ties table is being built by another process"
            in out
        )
        assert str(lock.lock_file) in out
        code, listing, _ = run_cli("tables", "--json")
        (entry,) = json.loads(listing)["tables"]
        assert (entry["state"], entry["building"]) == ("building", True)
        assert entry["state_text"] == "building (nothing written yet; format 1 writes its file at the end)"
    assert not build_log(C6, "points", cache).exists()  # nothing started, nothing written


@pytest.mark.parametrize(
    "flags, why",
    [
        (["--players", "3"], "the exact solver does not cover 3 players"),
        (["--bid-cards", "2"], "there is no table to build for these rules"),
        (["--display", "3"], "there is no table to build for these rules"),
        (["--order", "descending"], "no table to build for a fixed prize order"),
    ],
)
def test_rules_without_a_table_are_refused_before_anything_starts(cache, flags, why):
    code, out, err = run_cli("play", "--auto", "--no-save", "--build-table", *flags)
    assert code == 2 and why in err and "--build-table" in err
    assert "Round 1" not in out and list(cache.iterdir()) == []


def test_build_table_is_a_goofspiel_option(cache):
    code, _, err = run_cli("play", "golf", "--build-table")
    assert code == 2 and "--build-table is a Goofspiel option, not for golf" in err


# -- what is built -----------------------------------------------------------------------------


def test_the_plan_for_the_standard_game(cache, monkeypatch):
    free = shutil.disk_usage(cache)._replace(free=1 << 40)
    monkeypatch.setattr("cardtable.solver.plan.shutil.disk_usage", lambda _: free)  # as on a 1 TiB disk
    plan = plan_build(STANDARD, cache, memory=64 << 30)
    assert [s.command for s in plan.steps] == [
        "cardtable solve -n 13 --ties carry --layers 6",  # 18 min: the bot exact from 9 cards left
        "cardtable solve -n 13 --ties discard",  # 32 min, format 2
        "cardtable solve -n 13 --ties carry",  # 2.3 h, format 2
    ]
    assert [s.needs.table_format for s in plan.steps] == [2, 2, 2]  # every step resumable
    small = plan_build(STANDARD, cache, memory=2 << 30)  # the whole carry-over table needs 1.8 GiB
    assert [s.command for s in small.steps] == [
        "cardtable solve -n 13 --ties carry --layers 6",
        "cardtable solve -n 13 --ties discard",
    ]
    assert (
        "not the whole 13 cards, carry ties table: it needs 1.8 GiB of memory, more than 80% of the 2.0 GiB"
        in (small.describe())
    )
    with pytest.raises(BuildRefused, match="fixed prize order"):
        plan_build((Ruleset(prize_order="descending"),), cache)


# -- the nash bot picks up a table completed during the session --------------------------------


def test_the_nash_bot_switches_to_a_table_completed_between_games(cache):
    bot, exploiter = NashBot(seed=1), ExploiterBot(seed=1)
    for b in (bot, exploiter):
        b.new_game(C6, 0)
    assert bot.fallback_note == "plays the exact equilibrium (the whole game is solved at the first move)"
    assert bot.take_news() == "" and exploiter.take_news() == ""
    bot.new_game(C6, 1)  # nothing changed: the same source
    source = bot._source
    bot.new_game(C6, 0)
    assert bot._source is source and bot.take_news() == ""
    solve_layered(C6, "points", cache / folder_name(C6, "points"))  # a build finished meanwhile
    for b in (bot, exploiter):
        b.new_game(C6, 0)
        assert b.take_news() == (
            "a table was completed in the cache folder since the last game; from now on: "
            "plays the exact equilibrium from the solved table"
        )
        assert b.take_news() == ""  # said once
    assert bot._table is not None and bot.fallback_note == "plays the exact equilibrium from the solved table"


@pytest.mark.slow
def test_play_says_when_the_bot_plays_from_the_table_built_meanwhile(cache):
    proc = cardtable(
        "play", "--auto", "-n", "6", "--vs", "nash", "--vs", "random", "--match", "total 2", "--delay", "3",
        "--seed", "4", "--no-save", "--build-table",
    )  # fmt: skip
    out, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0, err
    first, second = out.split("Round 1:", 2)[1:]
    assert "nash bid from its exact subgame solution" in first  # before the table exists
    assert "nash: a table was completed in the cache folder since the last game" in first  # before game 2
    assert "nash bid from its solved table" in second and "exact subgame" not in second
    assert "the background build finished" in out


@pytest.mark.slow
def test_serve_builds_the_standard_game_and_stops_with_the_server(cache, tmp_path):
    proc = cardtable("serve", "--port", "0", "--build-table", "--db", str(tmp_path / "web.sqlite3"))
    solve, tree = the_solve(proc.pid, cache)
    assert nice_of(solve) == 19 and "solve -n 13 --ties carry --layers 6" in cmdline(solve)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=WAIT_S)
    wait_for(lambda: not any(alive(p) for p in tree), "the build's processes to end", 15)
    err = " ".join(err.split())
    assert (
        "building in the background at the lowest priority: `cardtable solve -n 13 --ties carry --layers 6`"
        in err
    )
    assert "the background build was stopped when cardtable serve ended" in err
