"""Issue 12 in the terminal: second-person words, the first look before any action in every
mode, memory mode that hides what it claims to hide, the early ender's note, snap prompts
naming every opponent, one name policy."""

from __future__ import annotations

import io
import re

from rich.console import Console

from cardtable.golf.narrate import describe_event, ender_note, verdict
from cardtable.golf.state import GolfResult
from cardtable.golf.tui import run

NAMES = ["You", "heuristic", "Ben"]


def _answers(prompts: list[str], buf: io.StringIO, marks: list[tuple[int, str]]):
    """A person who draws and discards, lets every snap go, never passes a card and presses
    Enter at every pause; ``marks`` gets (output offset, prompt) for every prompt."""

    def answer(prompt: str, hidden: bool) -> str:
        prompts.append(prompt)
        marks.append((len(buf.getvalue()), prompt))
        if "You hold" in prompt:
            return "discard"
        if "snapped" in prompt:
            return "nopass"
        return ""

    return answer


def test_event_sentences_address_the_reader():
    pass_ev = {
        "player": 1,
        "type": "pass",
        "action": {"type": "pass", "player": 1, "pos": 2},
        "card": None,
        "correct": None,
        "penalty": 0,
        "to_pos": 6,
        "to_seat": 0,
    }
    assert (
        describe_event(pass_ev, NAMES, 0)
        == "heuristic passed their position 3 face down into your position 7"
    )
    assert (
        describe_event(pass_ev, ["Ann", "Ben"], None)
        == "Ben passed their position 3 face down into Ann's position 7"
    )
    steal = {
        "player": 1,
        "type": "steal",
        "action": {"type": "steal", "player": 1, "pos": 6, "target": 0, "target_pos": 6},
        "card": None,
    }
    assert (
        describe_event(steal, NAMES, 0)
        == "heuristic swapped their position 7 with your position 7 (nobody looks)"
    )
    wrong = {
        "player": 0,
        "type": "snap",
        "action": {"type": "snap", "player": 0, "owner": 2, "pos": 4},
        "card": 9,
        "correct": False,
        "penalty": 1,
        "to_pos": 9,
    }
    assert describe_event(wrong, NAMES, 0) == (
        "You snapped Ben's position 5: 9 — wrong, turned back; penalty: 1 card face down at your position 10"
    )
    nopass = {"player": 2, "type": "nopass", "action": {"type": "nopass", "player": 2}, "to_seat": 0}
    assert describe_event(nopass, NAMES, 0) == "Ben passed nothing to you"


def _result(scores, ended_by, outcomes, extra):
    return GolfResult(tuple(scores), tuple(outcomes), "early", ended_by, tuple(extra), (0,) * len(scores))


def test_early_ender_notes_for_a_loss_a_tie_and_a_single_game():
    lost = _result([20, 10], 0, ["loss", "win"], [1, 0])
    assert (
        ender_note(lost, NAMES, 0, next_game=True)
        == "You ended early and lost: 1 extra card in the bottom row next game"
    )
    assert ender_note(lost, NAMES, 0, next_game=False) == "You ended early and lost"  # no "next game"
    tie = _result([10, 10], 1, ["draw", "draw"], [0, 0])
    assert (
        ender_note(tie, NAMES, 0, next_game=False)
        == "heuristic ended early and shared the lowest score: a tie is not a loss, so no extra card"
    )
    assert verdict(tie, NAMES, 0) == "Draw between you and heuristic"
    assert verdict(lost, NAMES, 1) == "You win" and verdict(lost, NAMES, 0) == "heuristic wins"
    assert ender_note(_result([5, 10], 0, ["win", "loss"], [0, 0]), NAMES, 0, True) is None


def test_look_comes_before_the_bots_first_move_in_game_two():
    buf = io.StringIO()
    prompts: list[str] = []
    marks: list[tuple[int, str]] = []
    code = run(
        vs=["heuristic"],
        games=2,
        seed=3,
        save=False,
        console=Console(file=buf, width=120),
        input_fn=_answers(prompts, buf, marks),
    )
    out = buf.getvalue()
    assert code == 0
    nxt = next(pos for pos, p in marks if "next game" in p)
    look = [pos for pos, p in marks if "your look at your bottom row" in p and pos > nxt]
    assert look, "no look screen in game 2, which the bot starts"
    first_bot_move = out.index("· heuristic drew", nxt)
    assert look[0] <= first_bot_move  # offsets: the look's prompt was asked before the bot's move
    # the screen of the look shows the bottom row, and the bot has not moved yet
    screen = out[nxt : look[0]]
    assert "heuristic drew" not in screen and "Turn 1" in screen


def test_memory_mode_clears_each_screen_and_keeps_own_cards_out_of_the_log():
    buf = io.StringIO()
    prompts: list[str] = []
    console = Console(file=buf, width=120, force_terminal=True, color_system=None)
    run(vs=["heuristic"], seed=5, save=False, console=console, input_fn=_answers(prompts, buf, []))
    out = buf.getvalue()
    screens = out.count("Golf with Detective and Thief ─") + out.count("Golf with Detective and Thief ━")
    assert screens >= 3
    assert out.count("\x1b[3J") >= screens - 1  # every screen but the final one replaces the last
    assert "You drew a card" in out
    assert not re.search(r"You drew (A|[2-9]|10|K)\b", out)  # your draws are not repeated (J, Q are shown)
    # open memory: nothing is cleared, and the log names your cards
    buf2 = io.StringIO()
    run(
        vs=["heuristic"],
        seed=5,
        save=False,
        open_memory=True,
        console=Console(file=buf2, width=120, force_terminal=True, color_system=None),
        input_fn=_answers([], buf2, []),
    )
    assert "\x1b[3J" not in buf2.getvalue()
    assert re.search(r"You drew (A|[2-9]|10|J|Q|K)\b", buf2.getvalue())


def test_three_player_snap_prompt_names_every_opponent():
    buf = io.StringIO()
    prompts: list[str] = []
    run(
        vs=["heuristic", "random"],
        seed=2,
        save=False,
        console=Console(file=buf, width=140),
        input_fn=_answers(prompts, buf, []),
    )
    snap_prompts = [p for p in prompts if "snap onto" in p]
    assert any("(snap N, snap P2:N, snap P3:N; Enter = no)" in p for p in snap_prompts)
    # every prompt lists each opponent one may snap from (an early ender's grid is frozen)
    assert all(re.search(r"\(snap N(, snap P[23]:N)+; Enter = no\)", p) for p in snap_prompts)
    assert (
        "You win" in buf.getvalue()
        or "wins (fewest points)" in buf.getvalue()
        or "Draw between" in buf.getvalue()
    )
    assert "You wins" not in buf.getvalue()


def test_engine_messages_use_names_and_the_second_person():
    buf = io.StringIO()
    answers = iter(["swap 3", "draw", "discard"])
    prompts: list[str] = []

    def answer(prompt: str, hidden: bool) -> str:
        prompts.append(prompt)
        if "look at your bottom row" in prompt:
            return ""
        try:
            return next(answers)
        except StopIteration:
            return "quit"

    run(vs=["heuristic"], seed=4, save=False, console=Console(file=buf, width=120), input_fn=answer)
    out = buf.getvalue()
    assert "cannot swap now: you must draw or end" in out
    assert "P1 must" not in out


def test_bad_names_follow_the_one_name_policy():
    buf = io.StringIO()
    code = run(name="Ann\u202eX", console=Console(file=buf, width=120), save=False)
    assert code == 2 and "U+202E" in buf.getvalue()
    buf = io.StringIO()
    code = run(hotseat=True, names="Ann,ann", console=Console(file=buf, width=120), save=False)
    assert code == 2 and "every name must be different" in buf.getvalue()
