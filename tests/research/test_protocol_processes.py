"""Issue 24, section 2: nothing the product starts outlives it, including a grandchild that
double-forks and calls setsid() (docs/protocol.md, "Processes"). Linux only: elsewhere only
the program's process group is killed."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardtable.goofspiel.botcheck import check_bot
from cardtable.goofspiel.protocol import GoofspielProtocolBot
from cardtable.platform import tournament as tour
from cardtable.platform.keeper import descendants, kill_tree
from cardtable.platform.protocol import BotFailure, BotProcess, keeps_descendants

from .test_protocol_hostile import alive, wait_gone

pytestmark = pytest.mark.skipif(not keeps_descendants(), reason="the keeper needs Linux (prctl, /proc)")

BADBOT = Path(__file__).with_name("badbot.py")
DAEMON = f"{sys.executable} {BADBOT} daemon"


@pytest.fixture
def daemon_pids(tmp_path, monkeypatch):
    """The file where each detached grandchild of ``badbot.py daemon`` writes its pid; they
    are killed at the end whatever happened (so a failing test leaves nothing behind)."""
    pids = tmp_path / "pids.txt"
    monkeypatch.setenv("BADBOT_PIDS", str(pids))
    yield pids
    for pid in read_pids(pids):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def read_pids(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def running(pids) -> list[int]:
    return [p for p in pids if alive(p)]


def test_bot_check_leaves_no_detached_grandchild(daemon_pids, tmp_path):
    """The named example: `cardtable bot-check` left 2 grandchildren running."""
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path / "home"))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "cardtable",
            "bot-check",
            DAEMON,
            "-r",
            "standard",
            "-r",
            "cards=4",
            "--games",
            "1",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    pids = read_pids(daemon_pids)
    assert pids and running(pids) == []  # gone when the command returns, not eventually


def test_check_bot_in_process_leaves_no_detached_grandchild(daemon_pids):
    report = check_bot(DAEMON, rulesets=["cards=4"], games=2, time_ms=3000)
    assert report.ok, report.violations
    pids = read_pids(daemon_pids)
    assert pids and running(pids) == []


@pytest.mark.parametrize("backend,workers", [("serial", 1), ("process", 2)])
def test_tournament_leaves_no_detached_grandchild(daemon_pids, tmp_path, backend, workers):
    """The named example: `cardtable tournament` left 4 grandchildren running (serial and -j 2)."""
    config = tour.TournamentConfig(
        bots=(tour.parse_bot_spec(f"a=cmd:{DAEMON}"), tour.parse_bot_spec("random")),
        ruleset="cards=4",
        games=4,
        time_ms=3000,
    )
    played = tour.run(config, tmp_path / "t.db", workers=workers, backend=backend)
    assert played == 4
    pids = read_pids(daemon_pids)
    assert len(pids) >= 2  # validate's start, then the games' own
    assert running(pids) == []


def test_cli_tournament_with_two_workers_leaves_no_detached_grandchild(daemon_pids, tmp_path):
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path / "home"), COLUMNS="120")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "cardtable",
            "tournament",
            f"a=cmd:{DAEMON}",
            "random",
            "-r",
            "cards=4",
            "--games",
            "4",
            "-j",
            "2",
            "--time-ms",
            "3000",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    pids = read_pids(daemon_pids)
    assert len(pids) >= 2 and running(pids) == []


#: A program that double-forks a grandchild in a new session which keeps stdout open and
#: writes its pid there, then exits: it is a crash, and the grandchild dies with it.
DETACH_AND_EXIT = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        sys.stdout.write(f"info grandchild {os.getpid()}\\n"); sys.stdout.flush()
        time.sleep(3600)
    os._exit(0)
os.wait()
time.sleep(0.3)
sys.exit(4)
"""


def test_a_program_that_exits_leaving_a_detached_grandchild_on_its_output_is_a_crash():
    bot = BotProcess([sys.executable, "-c", DETACH_AND_EXIT])
    bot.start()
    try:
        with pytest.raises(BotFailure) as failure:
            bot.read_reply(("bid",), timeout_ms=20000)
        assert failure.value.kind == "crash" and "code 4" in failure.value.detail
        grandchild = int(
            next(line for p, line in bot.transcript if line.startswith("info grandchild")).split()[2]
        )
        # the keeper killed it when the program exited: nothing holds the output, end of file came
        assert not alive(grandchild)
    finally:
        bot.close()


#: A bot that answers the handshake and then sleeps, after starting a tree: two children
#: in new sessions, one of them with a grandchild of its own; it prints every pid.
TREE_BOT = """
import os, sys, time
def spawn(depth):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if depth:
            spawn(depth - 1)
        time.sleep(3600)
    return pid
pids = [spawn(1), spawn(0)]
time.sleep(0.2)
print("id name tree " + " ".join(str(p) for p in [os.getpid()] + pids), flush=True)
print("ready", flush=True)
for line in sys.stdin:
    if line.startswith("isready"):
        print("readyok", flush=True)
"""


def test_close_kills_the_whole_tree_and_nothing_else():
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    bot = GoofspielProtocolBot([sys.executable, "-c", TREE_BOT], time_ms=2000)
    try:
        ident = bot.ensure_started()
        keeper = bot.process.proc.pid
        tree = descendants(keeper)
        assert len(tree) == 4  # the program, its two children and one grandchild
        assert {int(p) for p in ident.name.split()[1:]} <= set(tree)
        bot.close()  # the program ignores quit: after a second it is killed, with its tree
        assert running(tree + [keeper]) == []
        assert alive(bystander.pid)  # a process of the host's own is left alone
    finally:
        bot.close()
        bystander.kill()
        bystander.wait()


def test_exit_codes_and_start_failures_pass_through_the_keeper(tmp_path):
    bot = BotProcess([sys.executable, "-c", "import sys; sys.stdin.readline(); sys.exit(0)"])
    bot.start()
    assert bot.close() == 0  # quit answered by exiting: bot-check's clean exit
    bot = BotProcess([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"])
    bot.start()
    with pytest.raises(BotFailure, match=r"code -15\)"):
        bot.read_reply(("id",), 20000)
    bot.close()
    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\necho hi\n")  # not executable
    bot = BotProcess([str(script)])
    with pytest.raises(BotFailure, match=r"cannot start .*Permission denied") as failure:
        bot.start()
    assert failure.value.kind == "crash" and bot.proc is None


def test_a_killed_host_takes_the_programs_tree_with_it(daemon_pids, tmp_path):
    """SIGKILL of the process hosting a bot: the keeper (parent-death signal) kills the tree."""
    host = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from cardtable.goofspiel.protocol import GoofspielProtocolBot\n"
            f"bot = GoofspielProtocolBot({json.dumps(DAEMON)})\n"
            "bot.ensure_started()\nprint(bot.process.proc.pid, flush=True)\ntime.sleep(3600)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        keeper = int(host.stdout.readline())
        end = time.monotonic() + 30
        while not read_pids(daemon_pids) and time.monotonic() < end:
            time.sleep(0.05)
        below = descendants(host.pid) + read_pids(daemon_pids)
        assert keeper in below and read_pids(daemon_pids)
    finally:
        host.kill()
        host.wait()
    assert wait_gone(below) == []  # a hang guard: the parent-death signal is asynchronous


def test_kill_tree_kills_below_the_root_only():
    root = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, subprocess, sys, time\n"
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3600)'], start_new_session=True)\n"
            "print('up', flush=True); time.sleep(3600)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert root.stdout.readline().strip() == "up"
        child = descendants(root.pid)
        assert len(child) == 1
        assert kill_tree(root.pid) == child
        assert wait_gone(child) == [] and alive(root.pid)  # the root itself is not killed
    finally:
        root.kill()
        root.wait()


#: A bot that starts a runaway chain: a process that forks, leaves its child in a new
#: session and exits, over and over (so its pid keeps changing), each writing its pid.
RUNAWAY_BOT = """
import os, sys, time
if os.fork() == 0:
    while True:
        if os.fork():
            os._exit(0)
        os.setsid()
        with open(sys.argv[1], "a") as f:
            f.write(f"{os.getpid()}\\n")
        time.sleep(0.01)
for line in sys.stdin:
    pass
"""


def test_a_runaway_chain_of_setsid_forks_is_frozen_and_killed(tmp_path):
    pids = tmp_path / "chain.txt"
    bot = BotProcess([sys.executable, "-c", RUNAWAY_BOT, str(pids)])
    bot.start()
    try:
        end = time.monotonic() + 30
        while len(read_pids(pids)) < 5 and time.monotonic() < end:
            time.sleep(0.05)
        assert len(read_pids(pids)) >= 5
    finally:
        bot.close()
    time.sleep(0.2)  # a surviving chain would have written its newer pids by now
    assert running(read_pids(pids)) == []
