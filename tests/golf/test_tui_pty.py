"""`cardtable play golf` in a real pseudo-terminal (pexpect): a whole game against a bot."""

from __future__ import annotations

import os
import shutil
import sys

import pexpect
import pytest


def test_play_golf_in_a_pty(tmp_path):
    exe = shutil.which("cardtable")
    cmd, args = (exe, []) if exe else (sys.executable, ["-m", "cardtable"])
    env = dict(os.environ, COLUMNS="110", LINES="40", CARDTABLE_HOME=str(tmp_path))
    child = pexpect.spawn(
        cmd,
        args + ["play", "golf", "--vs", "random", "--seed", "21", "--no-save"],
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 110),
    )
    bad_sent = False
    try:
        for _ in range(400):
            i = child.expect(
                [
                    r"draw( or end)? \[Enter = draw\]: ",
                    r"You hold \S+: .*: ",
                    r"snap onto the \S+\? .*: ",
                    r"pass them one of yours .*: ",
                    r"fewest points",
                    pexpect.EOF,
                ]
            )
            if i == 0:
                child.sendline("draw")
            elif i == 1:
                if not bad_sent:
                    child.sendline("wiggle")
                    child.expect("unknown action 'wiggle'")
                    bad_sent = True
                    continue
                child.sendline("discard")
            elif i == 2:
                child.sendline("")
            elif i == 3:
                child.sendline("pass 1")
            else:
                break
        else:
            pytest.fail("the game did not end")
        assert i == 4, child.before
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert bad_sent
    assert child.exitstatus == 0


def test_ctrl_c_in_a_pty_abandons_the_game_with_exit_code_3(tmp_path):
    exe = shutil.which("cardtable")
    cmd, args = (exe, []) if exe else (sys.executable, ["-m", "cardtable"])
    env = dict(os.environ, COLUMNS="110", LINES="40", CARDTABLE_HOME=str(tmp_path))
    child = pexpect.spawn(
        cmd,
        args + ["play", "golf", "--vs", "random", "--seed", "21"],
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 110),
    )
    try:
        child.expect(r"draw( or end)? \[Enter = draw\]: ")
        child.sendline("draw")
        child.expect(r"You hold \S+: .*: ")
        child.sendintr()  # Ctrl-C at a prompt
        child.expect("Game abandoned.")
        child.expect("Check it with: cardtable replay")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 3  # abandoned (README.md, Exit codes)
    saved = list((tmp_path / "records").glob("golf-*.txt"))
    assert len(saved) == 1 and "1. P1 draw" in saved[0].read_text()
