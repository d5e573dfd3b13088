"""The ``heuristic`` bot: the beginners' tips of the rule texts, as a policy.

From seeds/000 and seeds/003 ("Tips for beginners") and seeds/002 (section 06):

1. *Keep big cards for big prizes*: the pot's rank among the prizes still in
   play (its quantile ``q``) sets how strong a card it deserves.
2. *Win by one*: predict each opponent's bid as the card at the same quantile of
   their remaining hand, and bid the cheapest card that beats the strongest
   prediction, if that card is not far above what the pot deserves.
3. *Give up cheaply*: when the pot is not worth winning, bid the lowest card.
4. *Count the cards*: every opponent's remaining hand is public; when a card
   beats everything any opponent still holds, win with the cheapest such card;
   when even the lowest card wins, bid it.

A little noise (probability ``noise``, default 0.1) picks a neighbouring card,
so the bot is not fully predictable.
"""

from __future__ import annotations

from itertools import combinations

from ..state import Bid, PlayerView
from .base import GoofspielBot


def _quantile_pick(options: list[int], q: float) -> int:
    """The element at quantile ``q`` (0..1) of an ascending list."""
    return options[min(len(options) - 1, max(0, round(q * (len(options) - 1))))]


class HeuristicBot(GoofspielBot):
    """Plays the rule texts' tips (see the module docstring)."""

    name = "heuristic"
    description = "keeps big cards for big prizes, wins by one, dumps its lowest card, counts cards"

    def __init__(self, seed: int | str | None = None, noise: float = 0.1, slack: float = 0.2) -> None:
        super().__init__(seed)
        self.noise = noise
        self.slack = slack

    def bid(self, view: PlayerView) -> Bid:
        rs = view.ruleset
        k = rs.cards_per_bid
        options = sorted(
            view.legal_bids(), key=lambda b: (sum(rs.strength(c) for c in b), b)
        )
        if len(options) == 1:
            return options[0]
        strength = {b: sum(rs.strength(c) for c in b) for b in options}

        # 1. how much the pot deserves: its quantile among the prizes in play
        pot_value = view.pot_value if rs.open_prizes == 1 else max(rs.prize_value(p) for p in view.pot)
        in_play = sorted(rs.prize_value(p) for p in (*view.remaining_prizes, *view.pot))
        q = sum(1 for v in in_play if v <= pot_value) / len(in_play)
        q = min(1.0, q + 0.15 * (len(view.pot) - 1)) if rs.open_prizes == 1 else q

        # 4. count the cards: the strongest bid any opponent can still make
        opp_max = max(
            sum(sorted((rs.strength(c) for c in view.hands[s]), reverse=True)[:k])
            for s in view.opponents
        )
        lowest = options[0]
        if strength[lowest] > opp_max:
            return lowest
        # 2. predict each opponent at the same quantile of their hand
        predicted = max(
            _quantile_pick(
                sorted(sum(rs.strength(c) for c in combo) for combo in combinations(view.hands[s], k)), q
            )
            for s in view.opponents
        )
        target = min(predicted, opp_max)
        winners = [b for b in options if strength[b] > target]
        sure = [b for b in options if strength[b] > opp_max]
        my_rank = {b: i / (len(options) - 1) for i, b in enumerate(options)}
        choice = lowest  # 3. give up cheaply
        if sure and q >= 0.75 and my_rank[sure[0]] <= q + self.slack:
            choice = sure[0]
        elif winners and my_rank[winners[0]] <= q + self.slack:
            choice = winners[0]
        if self.noise and self.rng.random() < self.noise:
            i = options.index(choice) + self.rng.choice((-1, 1))
            choice = options[min(len(options) - 1, max(0, i))]
        return choice
