"""The two simplest bots: ``random`` and ``matcher``."""

from __future__ import annotations

from ..state import Bid, PlayerView
from .base import GoofspielBot


class RandomBot(GoofspielBot):
    """Bids a uniformly random legal bid; chooses a random prize."""

    name = "random"
    description = "bids a uniformly random card (a random legal bid)"
    positional = True

    def policy(self, view: PlayerView) -> dict[int, float]:
        """Uniform over the hand: ``{card: 1 / hand size}`` (single-card bids)."""
        self.check_policy_view(view)
        return {c: 1.0 / len(view.hand) for c in sorted(view.hand)}

    def bid(self, view: PlayerView) -> Bid:
        return self.rng.choice(view.legal_bids())

    def choose_prize(self, view: PlayerView) -> int:
        return self.rng.choice(sorted(view.pot))


class MatcherBot(GoofspielBot):
    """Bids the card whose strength equals the newest prize's value.

    This is the predictable rule the rule texts warn against (docs/rules.md,
    Tips from the texts): two matchers tie every round. When that card is gone (open
    prizes, multi-card bids) it bids the card closest in strength, filling a
    multi-card bid with its lowest cards. Deterministic.
    """

    name = "matcher"
    description = "bids the card equal to the prize (predictable: the Portuguese text warns against it)"
    positional = True

    def policy(self, view: PlayerView) -> dict[int, float]:
        """The one card :meth:`bid` plays, with probability 1 (single-card bids)."""
        self.check_policy_view(view)
        return {self.bid(view)[0]: 1.0}

    def bid(self, view: PlayerView) -> Bid:
        rs = view.ruleset
        target_prize = view.pot[-1] if rs.open_prizes == 1 else max(view.pot, key=rs.prize_value)
        target = rs.prize_value(target_prize)
        hand = sorted(view.hand, key=rs.strength)
        first = min(hand, key=lambda c: (abs(rs.strength(c) - target), rs.strength(c)))
        rest = [c for c in hand if c != first][: rs.cards_per_bid - 1]
        return tuple(sorted([first, *rest]))
