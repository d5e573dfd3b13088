"""The Goofspiel bot base class: one method for bids, one for open-prize choices."""

from __future__ import annotations

import abc

from cardtable.platform.bot import Bot

from ..state import Bid, PlayerView


class GoofspielBot(Bot):
    """Base class of Goofspiel bots.

    Subclasses implement :meth:`bid`; :meth:`choose_prize` defaults to taking
    the most valuable prize of the display (docs/rules.md, Open prizes).

    A bot may also expose ``policy(view) -> {card: probability}``: its exact
    mixed bid in a bid-phase view of a single-card-bid ruleset (probabilities
    sum to 1; cards not listed have probability 0). ``positional = True``
    declares that this policy reads only the position (both hands, the
    face-down prizes, the prizes in the pot, the seat) and not the history or
    the score; :mod:`cardtable.solver.exploit` then computes exact best
    responses to it by backward induction over positions.
    """

    #: True when :meth:`policy` depends on the position only (see the class docstring).
    positional: bool = False

    def act(self, view: PlayerView) -> Bid | int:
        """A bid (tuple of face ranks) in the bid phase, a prize in the choose phase."""
        if view.phase == "choose":
            return self.choose_prize(view)
        return self.bid(view)

    @abc.abstractmethod
    def bid(self, view: PlayerView) -> Bid:
        """Return a legal bid: a sorted tuple of ``cards_per_bid`` face ranks from ``view.hand``."""

    @staticmethod
    def check_policy_view(view: PlayerView) -> None:
        """Raise ValueError unless ``view`` is a bid-phase view of single-card bids
        (where ``policy(view)`` is defined)."""
        if view.phase != "bid":
            raise ValueError(f"policy(view) needs a bid-phase view, not phase {view.phase!r}")
        if view.ruleset.cards_per_bid != 1:
            raise ValueError("policy(view) is defined for single-card bids only")

    def choose_prize(self, view: PlayerView) -> int:
        """Return the prize (face rank) to take from ``view.pot``; default: the most valuable."""
        return max(view.pot, key=view.ruleset.prize_value)
