"""Terminal play: whole games through the real prompts (input fed by a function)."""

from __future__ import annotations

import io
import itertools
import re

from rich.console import Console
from typer.testing import CliRunner

from cardtable.golf.record import replay_text
from cardtable.golf.tui import run
from cardtable.golf.views import build_view
from cardtable.platform.storage import records_dir


def scripted(log: list[str], bad_every: int = 4):
    """A player that draws, keeps low cards by position order, passes on snaps, and
    types a bad command now and then."""
    count = itertools.count()

    def answer(prompt: str, hidden: bool) -> str:
        log.append(prompt)
        k = next(count)
        if k % bad_every == 1:
            return "fly away"
        if "snap onto" in prompt:
            return ""
        if "pass them one" in prompt:
            return "pass 1"
        if "You hold" in prompt:
            m = re.search(r"You hold (\w+)", prompt)
            return "swap 1" if m and m.group(1) in ("K", "A", "2") else "discard"
        if "draw" in prompt:
            return "draw"
        return ""

    return answer


def test_whole_game_against_a_bot_with_bad_keys():
    buf = io.StringIO()
    prompts: list[str] = []
    code = run(vs=["heuristic"], seed=11, console=Console(file=buf, width=120), input_fn=scripted(prompts))
    out = buf.getvalue()
    assert code == 0
    assert "unknown action 'fly'" in out  # a one-line explanation, then the prompt again
    assert "Traceback" not in out
    assert re.search(r"(wins|Draw between) \(fewest points\)", out)
    assert any("snap onto" in p for p in prompts)
    files = list(records_dir().glob("golf-*.txt"))
    assert len(files) == 1
    assert replay_text(files[0].read_text()).startswith("1 game(s) verified: game 1: You ")


def test_illegal_command_is_explained_not_raised():
    buf = io.StringIO()
    answers = iter(["swap 3", "draw", "swap 42", "discard"])

    def inp(prompt: str, hidden: bool) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    code = run(vs=["random"], seed=2, console=Console(file=buf, width=120), input_fn=inp, save=False)
    out = buf.getvalue()
    assert code == 3 and "Game abandoned." in out  # quitting (here: end of input): exit code 3
    assert "cannot swap now" in out and "no position 42" in out
    assert "Traceback" not in out


def test_memory_mode_shows_the_bottom_row_once():
    buf = io.StringIO()
    answers = iter(["draw", "discard"])

    def inp(prompt: str, hidden: bool) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    run(vs=["heuristic"], seed=5, console=Console(file=buf, width=120), input_fn=inp, save=False)
    screens = buf.getvalue().split("Golf with Detective and Thief ─")
    first, second = screens[1], screens[2]
    assert re.search(r" 7:(?!▒▒)\S", first)  # bottom row visible on the first screen
    assert " 7:▒▒" in second  # ... hidden afterwards (memory mode)


def test_open_memory_keeps_known_cards():
    buf = io.StringIO()
    answers = iter(["draw", "discard"])

    def inp(prompt: str, hidden: bool) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    run(
        vs=["heuristic"],
        seed=5,
        console=Console(file=buf, width=120),
        input_fn=inp,
        save=False,
        open_memory=True,
    )
    screens = buf.getvalue().split("Golf with Detective and Thief ─")
    assert re.search(r" 7:(?!▒▒)\S", screens[2])


def test_hotseat_hands_over_and_bots_only_and_bad_options():
    buf = io.StringIO()
    answers = iter(["", "", "", "draw", "discard", "", "", "draw"])  # Ben's look first, then Ann's turn
    prompts = []

    def inp(prompt: str, hidden: bool) -> str:
        prompts.append(prompt)
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    code = run(
        hotseat=True, names="Ann, Ben", seed=3, console=Console(file=buf, width=120), input_fn=inp, save=False
    )
    assert code == 3 and "Pass the keyboard to Ben" in prompts[0]  # input ends: abandoned
    assert any("Ben: snap onto" in p for p in prompts)  # a public snap window, no hand-over
    assert any("Pass the keyboard to Ben" in p for p in prompts)
    buf = io.StringIO()
    assert (
        run(
            auto=True,
            vs=["heuristic", "random"],
            seed=1,
            console=Console(file=buf, width=120),
            save=False,
            games=2,
        )
        == 0
    )
    assert "Totals:" in buf.getvalue()
    buf = io.StringIO()
    assert run(vs=["nobody"], console=Console(file=buf, width=120)) == 2
    assert "unknown golf bot" in buf.getvalue()


def test_cli_play_golf_auto():
    from cardtable.cli import app

    result = CliRunner().invoke(app, ["play", "golf", "--auto", "--seed", "4", "--no-save"])
    assert result.exit_code == 0, result.output
    assert "fewest points" in result.output


def test_snap_and_pass_prompts(make_game):
    from cardtable.golf.actions import Discard, Draw, Pass, Snap, Swap
    from cardtable.golf.tui import GolfTable, HumanAgent
    from cardtable.tui import Terminal

    P1 = [2, 3, 4, 5, 6, 7, 8, 9, 10]
    P2 = [1, 1, 1, 2, 3, 4, 13, 13, 5]
    g = make_game([P1, P2], [13, 5, 5])
    g.apply(Draw(0))
    g.apply(Swap(0, 0))
    g.apply(Draw(1))
    g.apply(Discard(1))  # a 5 on top
    answers = iter(["snap P4:1", "snap P2:9", "pass 12", "pass 1"])
    buf = io.StringIO()
    prompts = []
    terminal = Terminal(
        console=Console(file=buf, width=120), input_fn=lambda p, h: (prompts.append(p), next(answers))[1]
    )
    table = GolfTable(terminal, g.ruleset, ["You", "bot"], [None, object()])
    table.game = g
    human = table.agents[0]
    assert isinstance(human, HumanAgent)
    snap = human.snap(build_view(g, 0))
    assert snap == Snap(0, 1, 8) and "no player P4" in buf.getvalue()
    g.apply(snap)
    action = human.act(build_view(g, 0))
    assert action == Pass(0, 0) and "no position 12" in buf.getvalue()
    assert "snap onto the 5" in prompts[0] and "pass them one of yours" in prompts[-1]
