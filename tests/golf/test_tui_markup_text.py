"""Golf in the terminal prints typed text (commands, player names) as written, never as Rich
markup: ``[/x]`` typed at a prompt, or a hot-seat name like ``[/b]``, once ended the game with
a MarkupError traceback."""

import os
import subprocess
import sys


def play(args, stdin, home):
    env = dict(os.environ, CARDTABLE_HOME=str(home), COLUMNS="100", TERM="dumb", NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "cardtable", "play", "golf", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_markup_typed_at_a_prompt_is_refused_as_text(tmp_path):
    run = play(["--no-save", "--seed", "1"], "[/x]\nquit\n", tmp_path)
    assert "Traceback" not in run.stderr, run.stderr
    assert "unknown action '[/x]'" in run.stdout
    assert run.returncode == 3


def test_markup_in_hotseat_names_is_shown_as_written(tmp_path):
    # Enter at every prompt draws, hands over or lets a snap go; "discard" answers the drawn card
    run = play(
        ["--no-save", "--seed", "1", "--hotseat", "--names", "[/b],[red]x"],
        "\n" + "\n\ndiscard\n\n\n" * 80,
        tmp_path,
    )
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 0
    assert "2 players: [/b], [red]x." in run.stdout
    assert "[red]x, your turn: draw" in run.stdout
    assert "(fewest points) — [/b] " in run.stdout
