"""The example protocol bot survives lines it cannot read (docs/protocol.md, `info`)."""

import subprocess
import sys
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "examples" / "protocol_bot.py"


def test_malformed_host_lines_are_reported_and_the_bot_keeps_answering():
    lines = [
        "cardtable 1",
        "go",
        "go bid",
        "newgame ruleset cards=x",
        "round pot",
        "setoption name",
        "isready",
        "quit",
    ]
    done = subprocess.run(
        [sys.executable, str(BOT)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    out = done.stdout.splitlines()
    assert out[:5] == [
        "id name Example Python bot",
        "id author cardtable examples",
        "option name margin type int default 1",
        "option name noise type float default 0",
        "ready",
    ]
    ignored = [line for line in out if line.startswith("info ignored a malformed line: ")]
    assert len(ignored) == 5
    assert out[-1] == "readyok"


def test_a_valid_game_start_still_gets_a_legal_bid():
    lines = [
        "cardtable 1",
        "newgame ruleset cards=5 bid=1 ace=low",
        "round 1 pot 3 remaining 1 2 4 5",
        "go bid",
        "quit",
    ]
    done = subprocess.run(
        [sys.executable, str(BOT)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60
    )
    bid = [line for line in done.stdout.splitlines() if line.startswith("bid ")]
    assert bid == ["bid 4"]
