"""An adversary written to bait the ``exploiter`` bot (tests and ``bench/exploiter.py``).

It plays like a weak bot (``matcher`` by default) for its first
``bait_games`` games, so that the exploiter learns a wrong model and starts to
exploit it; then it switches to the **exact one-round best response against
the exploiter's current mix**. The exploiter's mix is a deterministic
function of the bids seen (its randomness is only in sampling from the mix),
so the adversary runs a shadow copy of the exploiter, fed with the same
public views, and knows that mix exactly: for each of its cards ``b`` it
evaluates the exploiter's expected result ``(x' M)_b - v`` with the round's
equilibrium matrix ``M`` and value ``v`` (:mod:`cardtable.goofspiel.bots.exploiter`)
and bids the card that minimises it.

This is the worst case the exploiter's safety guarantee is about: its
expected point difference against this adversary must not be below 0.
Only rulesets with an exact equilibrium (a table or exact subgame solving)
are meaningful; it is not in the bot registry.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardtable.platform.bot import Option

from ..state import Bid, PlayerView
from .base import GoofspielBot
from .exploiter import ExploiterBot, opponent_view


class BaitBot(GoofspielBot):
    """Plays ``weak`` for ``bait_games`` games, then best-responds to the exploiter (see the module docstring).

    Args:
        seed: seed of the weak bot.
        bait_games: games played as ``weak`` before switching (``>= 0``).
        weak: registry name of the bot it imitates first.
        exploiter_options: options of the exploiter it faces (its shadow copy
            must be identical to predict its mix).

    Raises:
        BotSpecError: an option value outside ``option_schema`` (a negative
            ``bait_games``, an unknown ``weak`` bot, a bad exploiter option).
    """

    name = "bait"
    description = "plays like a weak bot, then switches to its best response against the exploiter"
    option_schema = {
        "bait_games": Option(int, 3, 0, 1_000_000, unit="games", help="games played as the weak bot first"),
        "weak": Option(str, "matcher", bot_of="goofspiel", help="the bot it imitates first"),
        "exploiter_options": Option(dict, None, none=True,
                                    help="options of the exploiter it faces (checked as the exploiter's)"),
    }

    def __init__(self, seed: int | str | None = None, bait_games: int = 3, weak: str = "matcher",
                 exploiter_options: dict[str, Any] | None = None) -> None:
        super().__init__(seed)
        from cardtable.platform.bot import load_bot

        self.bait_games = bait_games
        self.weak = load_bot("goofspiel", weak, seed=seed)
        self.shadow = ExploiterBot(seed=0, **(exploiter_options or {}))
        self.games = -1
        self.seat = 0

    def new_game(self, ruleset: Any, seat: int) -> None:
        self.games += 1
        self.seat = seat
        self.weak.new_game(ruleset, seat)
        self.shadow.new_game(ruleset, 1 - seat)

    @property
    def baiting(self) -> bool:
        """True while it still imitates the weak bot."""
        return self.games < self.bait_games

    def bid(self, view: PlayerView) -> Bid:
        theirs_view = opponent_view(view)
        self.shadow.policy(theirs_view)  # the exploiter's mix this round (and its bookkeeping)
        pending = self.shadow._pending
        if self.baiting or pending is None or not pending["exact"]:
            return self.weak.bid(view)
        xM = np.asarray(pending["xM"])  # exploiter's expected result per card of ours
        ours = pending["their_cards"]
        j = int(np.argmin(xM))
        return (ours[j],)
