"""The terminal table asks the bots for their bids while the person decides (a worker thread per
round, cardtable/goofspiel/tui.py): same bids as asking them afterwards, a bot's error re-raised,
a quit waits for the bots, and no thread outlives the game."""

from __future__ import annotations

import io
import threading

import pytest
from rich.console import Console

from cardtable.goofspiel import Ruleset
from cardtable.goofspiel.autoplay import play_game
from cardtable.goofspiel.bots.base import GoofspielBot
from cardtable.goofspiel.tui import GoofspielTable, Seat
from cardtable.platform.bot import load_bot
from cardtable.tui import QuitGame, Terminal


class Lowest(GoofspielBot):
    """Bids its lowest card: what the scripted person types."""

    name = "lowest"

    def bid(self, view):
        return (min(view.hand, key=view.ruleset.strength),)


class Signals(GoofspielBot):
    """Bids its lowest card; sets ``asked`` when asked, then waits for ``go`` (if given)."""

    name = "signals"

    def __init__(self, seed=None) -> None:
        super().__init__(seed)
        self.asked = threading.Event()
        self.go: threading.Event | None = None
        self.done = 0
        self.histories: list[int] = []

    def bid(self, view):
        self.histories.append(len(view.history))
        self.asked.set()
        if self.go is not None:
            assert self.go.wait(30)
        self.done += 1
        return (min(view.hand, key=view.ruleset.strength),)


class Boom(GoofspielBot):
    name = "boom"

    def bid(self, view):
        raise RuntimeError("boom: the bot failed")


def table(rs: Ruleset, bots, answer) -> GoofspielTable:
    """A table of one person (seat 0, typing ``answer(prompt)``) and ``bots``."""
    term = Terminal(console=Console(file=io.StringIO(), width=200), input_fn=lambda prompt, hidden: answer())
    return GoofspielTable(term, rs, [Seat("You")] + [Seat(b.name, b) for b in bots])


def lowest_card_typer(rs: Ruleset):
    """The person's answers: the lowest card left, round by round (1, 2, 3, ...)."""
    cards = iter(sorted(rs.deck, key=rs.strength))
    return lambda: str(next(cards))


def bot_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "bot-bids"]


@pytest.mark.parametrize(
    ("rs", "names"),
    [
        (Ruleset(cards=8), ["random"]),
        (Ruleset(cards=6, tie_rule="discard"), ["nash"]),
        (Ruleset(cards=7, players=3), ["random", "mcts:iterations=30"]),
    ],
)
def test_a_seeded_game_has_the_same_bids_as_when_the_bots_were_asked_after_the_person(rs, names):
    def bots():
        return [
            load_bot("goofspiel", n.split(":")[0], seed=f"s{i}", **_options(n)) for i, n in enumerate(names)
        ]

    game = table(rs, bots(), lowest_card_typer(rs)).play_game(seed=11)
    reference = play_game(rs, [Lowest(0), *bots()], seed=11)  # one after the other, person first
    assert [r.bids for r in game.history] == [r.bids for r in reference.history]
    assert bot_threads() == []


def _options(name: str) -> dict:
    return {k: int(v) for k, v in (o.split("=") for o in name.split(":")[1:])}


def test_the_bot_thinks_before_the_person_answers_and_sees_only_its_own_view():
    rs = Ruleset(cards=4)
    bot = Signals()
    typed = lowest_card_typer(rs)
    started = []

    def answer():
        started.append(bot.asked.wait(30))  # the bot was asked before the person answered
        bot.asked.clear()
        return typed()

    game = table(rs, [bot], answer).play_game(seed=1)
    assert started == [True] * 4
    assert bot.histories == [0, 1, 2, 3]  # asked each round before that round's bids existed
    assert game.is_over


def test_a_bot_error_is_raised_in_the_main_thread():
    rs = Ruleset(cards=4)
    with pytest.raises(RuntimeError, match="boom: the bot failed"):
        table(rs, [Boom(0)], lowest_card_typer(rs)).play_game(seed=1)
    assert bot_threads() == []


def test_quitting_waits_for_the_bot_and_leaves_no_thread():
    rs = Ruleset(cards=4)
    go = threading.Event()
    bot = Signals()
    bot.go = go

    def quit_while_the_bot_thinks():
        assert bot.asked.wait(30)
        go.set()
        return "quit"

    with pytest.raises(QuitGame) as caught:
        table(rs, [bot], quit_while_the_bot_thinks).play_game(seed=1)
    assert caught.value.game is not None and not caught.value.game.history  # nothing was played
    assert bot.done == 1  # the bot finished its bid before play_game returned
    assert bot_threads() == []
