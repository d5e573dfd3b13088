"""The bot interface shared by every game, and the bot registry.

A bot is one class: subclass :class:`Bot`, give it a ``name`` and a
``description``, and implement :meth:`Bot.act`, which receives the bot's own
per-player view (never the full state) and returns an action of the game.
What a *view* and an *action* are is defined by each game package
(for Goofspiel: :class:`cardtable.goofspiel.PlayerView` and a bid tuple).

Bots are found by name through :func:`load_bot`. Each game package
``cardtable.<game>.bots`` exposes a mapping ``BOTS`` from bot name to a
``"module:Class"`` string, so that heavy bots (the solver-backed ``nash``)
are imported only when asked for.

>>> {"random", "matcher", "heuristic"} <= set(bot_names("goofspiel"))
True
"""

from __future__ import annotations

import abc
import importlib
import random
from typing import Any, ClassVar


class UnknownBotError(ValueError):
    """Raised by :func:`load_bot` for a bot name the game does not have."""


class Bot(abc.ABC):
    """A computer player for one game.

    Subclasses set the class attributes ``name`` (registry name, lower case),
    ``description`` (one line for menus) and implement :meth:`act`.

    Args:
        seed: seed for the bot's own random number generator (``self.rng``);
            ``None`` seeds from the operating system.
    """

    name: ClassVar[str] = "bot"
    description: ClassVar[str] = ""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def new_game(self, ruleset: Any, seat: int) -> None:
        """Called once before each game with the game's ruleset and the bot's seat (0-based)."""

    @abc.abstractmethod
    def act(self, view: Any) -> Any:
        """Return the bot's action for the decision its ``view`` shows as pending."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def _bots_table(game: str) -> dict[str, str]:
    try:
        module = importlib.import_module(f"cardtable.{game}.bots")
    except ModuleNotFoundError as exc:
        raise UnknownBotError(f"unknown game {game!r}") from exc
    return dict(module.BOTS)


def bot_names(game: str) -> list[str]:
    """Names of the bots available for ``game`` (e.g. ``"goofspiel"``, ``"golf"``)."""
    return list(_bots_table(game))


def bot_class(game: str, name: str) -> type[Bot]:
    """The class registered as ``name`` for ``game``.

    Raises:
        UnknownBotError: no such game or bot; the message lists the known bots.
    """
    table = _bots_table(game)
    key = name.strip().lower()
    if key not in table:
        raise UnknownBotError(
            f"unknown {game} bot {name!r}; choose one of: {', '.join(sorted(table))}"
        )
    module_name, _, class_name = table[key].partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def load_bot(game: str, name: str, seed: int | str | None = None, **options: Any) -> Bot:
    """Create the bot registered as ``name`` for ``game``.

    Raises:
        UnknownBotError: no such game or bot.
    """
    return bot_class(game, name)(seed=seed, **options)
