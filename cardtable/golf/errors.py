"""Exceptions of the Golf engine.

Every exception the engine raises for bad input derives from
:class:`GolfError` (itself a :class:`ValueError`), so a front end can catch
one class and show the message. A state method that raises leaves the game
exactly as it was (it validates everything before it changes anything).
"""

from __future__ import annotations

from cardtable.errors import CardtableError


class GolfError(CardtableError, ValueError):
    """Base class of every Golf input error."""


class GolfRulesetError(GolfError):
    """An invalid or impossible Golf ruleset; the message starts with the field names."""

    def __init__(self, message: str, fields: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.fields = fields


class IllegalAction(GolfError):
    """An action the rules do not allow now (docs/golf.md, Rules).

    Attributes:
        player: the seat that tried it, when known.
    """

    def __init__(self, message: str, player: int | None = None) -> None:
        super().__init__(message)
        self.player = player


class NotYourTurn(IllegalAction):
    """A turn action (draw, swap, ...) by a player who is not the one to act."""


class WrongPhase(IllegalAction):
    """An action that does not fit the step of the turn (e.g. swap before drawing)."""


class NoSuchCard(IllegalAction):
    """A grid position that does not exist or holds no card (a hole)."""


class NothingToSnap(IllegalAction):
    """A snap while the discard pile is empty."""


class NoPenaltyCard(IllegalAction):
    """A snap while the draw pile holds fewer cards than the penalty of a wrong snap
    (docs/golf.md, "Snapping": the penalty card is a must, so no snap without one)."""


class SameCard(IllegalAction):
    """Swapping a drawn Detective or Thief into the card its power just used: it goes into a
    further card (docs/golf.md, "The Detective")."""


class EndTooSoon(IllegalAction):
    """Ending early before discarding enough grid cards, or not at the start of a turn."""


class FrozenGrid(IllegalAction):
    """A snap by, or a snap or Thief swap against, the player who ended early (docs/golf.md, "Ending early")."""


class GameOver(IllegalAction):
    """Any action after the game has ended."""


class ActionFormatError(GolfError):
    """Text or JSON that does not describe a Golf action."""
