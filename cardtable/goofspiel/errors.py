"""Exceptions of the Goofspiel engine.

Every exception the engine raises for bad input derives from
:class:`GoofspielError` (itself a :class:`ValueError`), so a front end can
catch one class and show the message. An exception raised by a state method
always leaves the state exactly as it was.
"""

from __future__ import annotations

from cardtable.errors import CardtableError


class GoofspielError(CardtableError, ValueError):
    """Base class of every Goofspiel input error."""


class RulesetError(GoofspielError):
    """An invalid or impossible ruleset; the message names the offending fields."""

    def __init__(self, message: str, fields: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.fields = fields


class CardError(GoofspielError):
    """Text that does not name a card of this ruleset (e.g. ``"Z"``, ``"14"``)."""


class IllegalBid(GoofspielError):
    """A bid the rules do not allow (docs/rules.md, Illegal bids)."""

    def __init__(self, message: str, player: int | None = None) -> None:
        super().__init__(message)
        self.player = player


class CardNotInHand(IllegalBid):
    """The card was never in this player's hand (not a card of the ruleset)."""


class CardAlreadySpent(IllegalBid):
    """The card was in the player's hand but has been bid in an earlier round."""


class WrongBidSize(IllegalBid):
    """Too many or too few cards in one bid, or the same card twice."""


class MissingBid(IllegalBid):
    """A round submitted without a bid for every player, or with too many bids."""


class WrongPhase(GoofspielError):
    """An action that is not the one the game is waiting for (bid, prize choice, or none)."""


class IllegalChoice(GoofspielError):
    """An open-prize choice by the wrong player or of a prize not in the display."""
