"""The Goofspiel bot base class: one method for bids, one for open-prize choices."""

from __future__ import annotations

import abc

from cardtable.platform.bot import Bot

from ..state import Bid, PlayerView


class GoofspielBot(Bot):
    """Base class of Goofspiel bots.

    Subclasses implement :meth:`bid`; :meth:`choose_prize` defaults to taking
    the most valuable prize of the display (docs/rules.md, Open prizes).
    """

    def act(self, view: PlayerView) -> Bid | int:
        """A bid (tuple of face ranks) in the bid phase, a prize in the choose phase."""
        if view.phase == "choose":
            return self.choose_prize(view)
        return self.bid(view)

    @abc.abstractmethod
    def bid(self, view: PlayerView) -> Bid:
        """Return a legal bid: a sorted tuple of ``cards_per_bid`` face ranks from ``view.hand``."""

    def choose_prize(self, view: PlayerView) -> int:
        """Return the prize (face rank) to take from ``view.pot``; default: the most valuable."""
        return max(view.pot, key=view.ruleset.prize_value)
