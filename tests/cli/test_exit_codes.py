"""Exit codes and refusals of issue 12 (README.md, Exit codes): an abandoned game is
not a success, bad combinations are refused before anything is written, and files
that are not what a command reads are named as such."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.tui import ABANDONED

runner = CliRunner()


def invoke(*args, input=None):
    return runner.invoke(app, list(args), input=input, env={"COLUMNS": "400"})


def test_abandoned_code_is_documented():
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert ABANDONED == 3
    assert "## Exit codes" in readme and "| 3 |" in readme


@pytest.mark.parametrize("typed", ["K\nquit\n", "K\n"])  # `quit`, or input ends (Ctrl-D)
def test_abandoned_goofspiel_game_exits_3_and_keeps_the_rounds(typed, tmp_path):
    record = tmp_path / "g.gops"
    res = invoke(
        "play", "--cards", "5", "--seed", "3", "--record", str(record), input=typed.replace("K", "5")
    )
    assert res.exit_code == ABANDONED, res.output
    assert "Game abandoned." in res.output
    assert "1. " in record.read_text()  # the round played is saved


def test_abandoned_golf_game_exits_3():
    res = invoke("play", "golf", "--seed", "2", "--no-save", input="quit\n")
    assert res.exit_code == ABANDONED, res.output
    assert "Game abandoned." in res.output


def test_ctrl_c_in_a_terminal_exits_3(tmp_path):
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path), COLUMNS="120", TERM="dumb")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cardtable", "play", "--cards", "4", "--seed", "1"],
        env=env,
        encoding="utf-8",
        timeout=180,
    )
    try:
        child.expect("Your bid")
        child.sendline("4")
        child.expect("Your bid")
        child.sendintr()
        child.expect("Game abandoned.")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == ABANDONED


def test_finished_game_exits_0():
    res = invoke("play", "--auto", "--cards", "3", "--seed", "1", "--delay", "0", "--no-save")
    assert res.exit_code == 0, res.output


def test_no_save_with_record_is_refused(tmp_path):
    record = tmp_path / "x.json"
    res = invoke("play", "--no-save", "--record", str(record), "--auto", "--cards", "3")
    assert res.exit_code == 2, res.output
    assert "--record" in res.output and "--no-save" in res.output
    assert not record.exists()


def test_tournament_unknown_backend_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path / "home"))
    db = tmp_path / "t.sqlite"
    res = invoke("tournament", "random", "matcher", "--backend", "foo", "--db", str(db))
    assert res.exit_code == 2, res.output
    assert "--backend must be one of process, serial, ray, not 'foo'" in res.output
    assert not db.exists()
    res = invoke("tournament", "random", "matcher", "--backend", "foo")
    assert res.exit_code == 2
    assert not (tmp_path / "home" / "tournaments").exists()


def test_serve_checks_the_port_before_the_banner_and_the_database(tmp_path):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    db = tmp_path / "web.sqlite3"
    try:
        env = dict(os.environ, CARDTABLE_HOME=str(tmp_path))
        out = subprocess.run(
            [sys.executable, "-m", "cardtable", "serve", "--port", str(port), "--db", str(db)],
            capture_output=True,
            text=True,
            env=env,
            timeout=180,
        )
    finally:
        busy.close()
    assert out.returncode == 2, out.stderr
    assert f"port {port} on 127.0.0.1 is in use" in out.stderr
    assert "http://" not in out.stdout + out.stderr
    assert not db.exists()


@pytest.fixture
def golf_record(tmp_path):
    path = tmp_path / "golf.txt"
    res = invoke("play", "golf", "--auto", "--seed", "7", "--record", str(path))
    assert res.exit_code == 0, res.output
    return path


def test_verify_on_a_golf_text_record_names_the_missing_tag(golf_record):
    """Issue 12: it said "no Seed or SeedCommit tag" though a Seed is there."""
    res = invoke("verify", str(golf_record))
    assert res.exit_code == 1, res.output
    assert "no SeedCommit tag" in res.output and "no Seed " not in res.output


@pytest.mark.parametrize("command", [["analyze"], ["strategy", "--record"]])
def test_analysis_of_a_golf_record_says_it_is_for_goofspiel(command, golf_record):
    res = invoke(*command, str(golf_record))
    assert res.exit_code == 2, res.output
    assert "is a Golf record: the equilibrium analysis is for Goofspiel records" in res.output
    assert "decks" not in res.output


@pytest.mark.parametrize("command", ["replay", "verify", "analyze"])
def test_a_file_that_is_not_a_record(command, tmp_path):
    path = tmp_path / "passwd"
    path.write_text("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n")
    res = invoke(command, str(path))
    assert res.exit_code == 1, res.output
    assert "not a game record" in res.output


def test_replay_etc_passwd():
    if not Path("/etc/passwd").is_file():
        pytest.skip("no /etc/passwd here")
    res = invoke("replay", "/etc/passwd")
    assert res.exit_code == 1 and "not a game record" in res.output


@pytest.mark.parametrize(
    "args, words",
    [
        (["play", "golf", "--players", "9"], "players: must be 2 or 3"),
        (["play", "golf", "--vs", "nobody"], "nobody"),
        (["play", "--players", "9"], "players"),  # Goofspiel's, the same way
    ],
)
def test_a_refused_game_says_so_on_stderr_only(tmp_path, args, words):
    env = dict(os.environ, CARDTABLE_HOME=str(tmp_path), COLUMNS="200")
    out = subprocess.run(
        [sys.executable, "-m", "cardtable", *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stdout == ""
    assert out.stderr.startswith("error:") and words in out.stderr and out.stderr.count("\n") == 1
