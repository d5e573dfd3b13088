"""Test-wide settings: every test writes its files (records, tables, databases)
under a temporary CARDTABLE_HOME, never into the user's folders; after every test of a
module that starts bot programs, no process it started is left running."""

import ctypes
import gc
import os
import signal
import sys
import time

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# A suite started in the background by a non-interactive shell (`cmd &`, nohup) inherits
# SIGINT ignored, and so would every program the tests start: the Ctrl-C tests would then
# test nothing. Python's own handler here makes the children start with the default action.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _cardtable_home(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path / "cardtable-home"))
    monkeypatch.delenv("CARDTABLE_RECORDS", raising=False)
    monkeypatch.delenv("CARDTABLE_CACHE", raising=False)
    yield


# -- no process outlives a protocol test ----------------------------------------------------

#: Test modules that start protocol bot programs (by file name, without ``.py``, or prefix).
PROTOCOL_TEST_MODULES = ("test_protocol", "test_tournament", "test_config_errors", "test_example_bot_input")
_PR_SET_CHILD_SUBREAPER = 36


def processes_below(root: int) -> dict[int, tuple[str, str]]:
    """``{pid: (state, command line)}`` of every process below ``root``, from /proc (a
    state ``Z`` is a zombie: finished, not yet reaped)."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                table[int(entry)] = (int(fields[1]), fields[0].decode())
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = {}, {root}
    while frontier:
        frontier = {pid for pid, (ppid, _) in table.items() if ppid in frontier and pid not in found}
        for pid in frontier:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
            except OSError:
                cmd = "?"
            found[pid] = (table[pid][1], cmd)
    return found


def _process_helpers() -> set[int]:
    """Long-lived helpers that the standard library starts once and keeps for the whole
    session: multiprocessing's resource tracker and fork server."""
    import multiprocessing.forkserver
    import multiprocessing.resource_tracker

    pids = {
        getattr(multiprocessing.resource_tracker._resource_tracker, "_pid", None),
        getattr(multiprocessing.forkserver._forkserver, "_forkserver_pid", None),
    }
    return {pid for pid in pids if pid}


def _freeze_and_kill(root: int, spare: set[int]) -> None:
    """SIGKILL every live process below ``root`` but ``spare``: SIGSTOP first, repeated
    until 20 reads of /proc in a row find nothing new (a runaway chain of forks cannot
    move on once stopped, and one read can miss a process that forks and exits)."""
    stopped: set[int] = set()
    quiet = 0
    while quiet < 20:
        new = [
            pid
            for pid, (state, _) in processes_below(root).items()
            if state != "Z" and pid not in spare | stopped
        ]
        quiet = 0 if new else quiet + 1
        for pid in new:
            stopped.add(pid)
            try:
                os.kill(pid, signal.SIGSTOP)
            except OSError:
                pass
    for pid in stopped:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    time.sleep(0.2)


@pytest.fixture
def no_leaked_processes():
    """Fail the test when a process started during it below the test process is still
    running afterwards. For the test's length this process is a child subreaper (Linux
    ``prctl``), so a grandchild that double-forked and called ``setsid()`` is found too
    instead of escaping to init. Waits up to 10 s for processes on their way out (a hang
    guard); what is left is killed, so the next tests run clean. Zombies left below this
    process are reaped. Not counted: processes already running before the test, and the
    standard library's long-lived helpers (:func:`_process_helpers`). A no-op without /proc."""
    if not sys.platform.startswith("linux") or not os.path.isdir("/proc/self"):
        yield
        return
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    me = os.getpid()
    prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    before = set(processes_below(me))  # long-lived helpers started earlier are not this test's
    try:
        yield
        gc.collect()  # a bot dropped without close() is killed by its finaliser
        end = time.monotonic() + 10
        while True:
            left = {
                pid: cmd
                for pid, (state, cmd) in processes_below(me).items()
                if state != "Z" and pid not in before | _process_helpers()
            }
            if not left or time.monotonic() > end:
                break
            time.sleep(0.05)
        if left:
            _freeze_and_kill(me, before | _process_helpers())
        for pid, (state, _) in processes_below(me).items():
            if pid not in before and state == "Z":
                try:
                    os.waitpid(pid, os.WNOHANG)  # an orphan that came to this subreaper
                except ChildProcessError:
                    pass  # not a child of this process: its own parent reaps it
        assert not left, f"processes left running after the test: {left}"
    finally:
        prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


@pytest.fixture(autouse=True)
def _protocol_tests_leave_no_process(request):
    """Every test of :data:`PROTOCOL_TEST_MODULES` runs under :func:`no_leaked_processes`."""
    module = getattr(request, "module", None)
    name = getattr(module, "__name__", "").rsplit(".", 1)[-1]
    if name.startswith(PROTOCOL_TEST_MODULES):
        request.getfixturevalue("no_leaked_processes")
    yield


@pytest.fixture
def nash_sources():
    """``play(bot, ruleset, seed, opponent, opponent_seed=None)``: one game with ``bot`` (a
    ``nash``-type bot) in seat 0 against the registered bot ``opponent``; returns where each of
    ``bot``'s bids came from (``bot.last_source`` after each bid)."""
    from cardtable.goofspiel import Game  # lazy: keeps the conftest light for every test module
    from cardtable.platform.bot import load_bot  # lazy: as above

    def play(bot, ruleset, seed, opponent, opponent_seed=None):
        game = Game(ruleset, seed=seed)
        other = load_bot("goofspiel", opponent, seed=opponent_seed)
        bot.new_game(ruleset, 0)
        other.new_game(ruleset, 1)
        sources = []
        while not game.is_over:
            bid = bot.act(game.view(0))
            sources.append(bot.last_source)
            game.play([bid, other.act(game.view(1))])
        return sources

    return play
