"""Issue 9, section 4: nothing a tournament starts outlives it, SIGKILL included, and the
first Ctrl-C stops it promptly and cleanly."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .test_protocol_hostile import alive, wait_gone

pytestmark = pytest.mark.slow  # each starts a real tournament with worker processes (~10 s)

BAD = f"{sys.executable} {Path(__file__).with_name('badbot.py')}"


def descendants(root: int) -> set[int]:
    """Every process below ``root`` (from /proc)."""
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError):
                pass
    found, frontier = set(), {root}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier} - found
        found |= frontier
    return found


def start_tournament(tmp_path):
    pids = tmp_path / "pids.txt"
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path / "home"), BADBOT_PIDS=str(pids), COLUMNS="120")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cardtable",
            "tournament",
            f"a=cmd:{BAD} slow",
            f"b=cmd:{BAD} slow",
            "random",
            "-r",
            "cards=13",
            "--games",
            "40",
            "-j",
            "2",
            "--time-ms",
            "5000",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
        text=True,
    )
    end = time.monotonic() + 60
    # wait until the workers have started their bots (2 from validate, then more in the workers)
    while time.monotonic() < end and (not pids.exists() or len(pids.read_text().split()) < 4):
        time.sleep(0.1)
    assert pids.exists() and len(pids.read_text().split()) >= 4, (
        proc.stderr.read() if proc.poll() is not None else ""
    )
    return proc, pids


def test_sigkill_of_a_tournament_leaves_nothing_running(tmp_path):
    proc, pids = start_tournament(tmp_path)
    below = descendants(proc.pid) | {int(p) for p in pids.read_text().split()}
    assert below
    proc.kill()
    proc.wait()
    assert wait_gone(below) == []


@pytest.mark.parametrize("group", [True, False])
def test_first_ctrl_c_stops_a_tournament_cleanly(tmp_path, group):
    proc, pids = start_tournament(tmp_path)
    below = descendants(proc.pid) | {int(p) for p in pids.read_text().split()}
    if group:
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends to its foreground group
    else:
        proc.send_signal(signal.SIGINT)  # kill -INT on the main process alone
    try:
        out, err = proc.communicate(timeout=30)  # a hang guard: a chunk of slow games takes minutes
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in out
    assert wait_gone(below) == []
    assert not alive(proc.pid)
