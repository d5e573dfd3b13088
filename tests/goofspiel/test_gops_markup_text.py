"""Text a person types (bids, player names) is printed as written, never read as Rich
markup: ``[/b]`` as a bid or a name once ended ``cardtable play`` with a MarkupError
traceback, and the coach's ``[y/N]`` was swallowed as a style tag."""

import os
import re
import subprocess
import sys


def play(args, stdin, home):
    env = dict(os.environ, CARDTABLE_HOME=str(home), COLUMNS="100", TERM="dumb", NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "cardtable", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_markup_in_a_bid_is_refused_as_text(tmp_path):
    run = play(["--cards", "2", "--no-save", "--vs", "random", "--seed", "1"], "[/x]\nquit\n", tmp_path)
    assert "Traceback" not in run.stderr
    assert "'[/x]' is not a card" in run.stdout
    assert run.returncode == 3


def test_markup_in_hotseat_names_is_shown_as_written(tmp_path):
    # Enter for each hand-over, then the bids: round 1 "[/b]" bids 2 and "[red]x" A, round 2 the rest
    run = play(
        ["--cards", "2", "--no-save", "--hotseat", "--names", "[/b],[red]x", "--seed", "1"],
        "\n[/x]\n2\n\nA\n\nA\n\n2\nn\n",
        tmp_path,
    )
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 0
    assert "Pass the keyboard to [/b]" in run.stdout
    assert "[red]x, your bid" in run.stdout
    assert "'[/x]' is not a card" in run.stdout
    assert re.search(r"wins — \[/b\] \d, \[red\]x \d", run.stdout)  # the final scores name both as typed
    assert "points given up)? [y/N]" in run.stdout  # the coach's prompt shows its choices
