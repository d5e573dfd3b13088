"""An adversary written to bait the ``exploiter`` bot (tests and ``bench/exploiter.py``).

It plays like a weak bot (``matcher`` by default) for its first
``bait_games`` games, so that the exploiter learns a wrong model and starts to
exploit it; then it switches to the **exact one-round best response against
the exploiter's current mix**. The exploiter's mix is a deterministic
function of the bids seen (its randomness is only in sampling from the mix),
so the adversary runs a shadow copy of the exploiter, fed with the same
public views, and knows that mix exactly: for each of its cards ``b`` it
evaluates the exploiter's expected result ``(x' M)_b - v`` with the round's
equilibrium matrix ``M`` and value ``v`` (:mod:`cardtable.strategy.exploiter`)
and bids the card that minimises it.

This is the worst case the exploiter's safety guarantee is about: its
expected point difference against this adversary must not be below 0.
Only rulesets with an exact equilibrium (a table or exact subgame solving)
are meaningful; it is not in the bot registry.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any, cast

import numpy as np

from cardtable.goofspiel.bots.base import GoofspielBot
from cardtable.goofspiel.bots.mcts import determinise
from cardtable.goofspiel.state import Bid, PlayerView
from cardtable.platform.bot import Option, load_bot

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
        "exploiter_options": Option(
            dict, None, none=True, help="options of the exploiter it faces (checked as the exploiter's)"
        ),
    }

    def __init__(
        self,
        seed: int | str | None = None,
        bait_games: int = 3,
        weak: str = "matcher",
        exploiter_options: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(seed)
        self.bait_games = bait_games
        self.weak = cast(GoofspielBot, load_bot("goofspiel", weak, seed=seed))  # a Goofspiel registry bot
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


class MatchAdversary(BaitBot):
    """A best response to the exploiter's predicted policy over the whole match, by lookahead.

    Every quantity it uses is public or follows from public bids: its shadow
    copy of the exploiter (as :class:`BaitBot`) gives, each round, the
    exploiter's exact mix ``x``, the round's equilibrium matrix ``M`` and value
    ``v``, and the exploiter's budget. Ganzfried and Sandholm's accounting
    (docs/exploiter.md, Method) makes the exploiter's expected point difference
    over a match equal the expected sum over rounds of its banked gains
    ``g = (x' M)_b - v``, whatever the opponent does; so minimising the
    exploiter's expected match result is minimising the expected sum of ``g``
    over all the rounds left, which is what this adversary does, with every
    change its bids cause to the exploiter's model and budget simulated on a
    copy of the shadow. For each bid ``b`` it takes ``g(b)`` plus, up to
    ``depth - 1`` further rounds of the same game, the expectation over the
    exploiter's card (its mix) and the next prize (uniform over the face-down
    prizes) of the least such sum from there; rounds beyond the horizon count 0
    (the equilibrium continuation that ``M`` already holds). ``depth = 1`` is the
    one-round best response of :class:`BaitBot`. It bids the minimising card
    (ties: the weakest).

    Args:
        seed: seed of the weak bot.
        bait_games: games played as ``weak`` first (``0``: best-responds from
            the first round; the gifts the weak play gives are part of the
            match it plays).
        weak: registry name of the bot it imitates first.
        exploiter_options: options of the exploiter it faces.
        depth: rounds of lookahead, ``>= 1`` (cost about ``(cards^2 * prizes)^(depth-1)``
            exploiter decisions per bid).

    Raises:
        BotSpecError: an option value outside ``option_schema``.
    """

    name = "match-adversary"
    description = (
        "best response to the exploiter's predicted policy over the match (lookahead on a shadow copy)"
    )
    option_schema = {
        **BaitBot.option_schema,
        "depth": Option(
            int, 2, 1, 4, unit="rounds", help="rounds of lookahead (1: the one-round best response)"
        ),
    }

    def __init__(
        self,
        seed: int | str | None = None,
        bait_games: int = 0,
        weak: str = "matcher",
        exploiter_options: dict[str, Any] | None = None,
        depth: int = 2,
    ) -> None:
        super().__init__(seed, bait_games=bait_games, weak=weak, exploiter_options=exploiter_options)
        self.depth = depth
        #: the exploiter's mix this adversary predicted for the current round, ``{card: probability}``
        self.predicted: dict[int, float] = {}

    def bid(self, view: PlayerView) -> Bid:
        self.predicted = self.shadow.policy(opponent_view(view))
        pending = self.shadow._pending
        if self.baiting or pending is None or not pending["exact"]:
            return self.weak.bid(view)
        costs = self.bid_costs(view)
        ours = pending["their_cards"]
        return (min(ours, key=lambda c: (costs[c], view.ruleset.strength(c))),)

    def bid_costs(self, view: PlayerView) -> dict[int, float]:
        """For each card of ours, the exploiter's expected banked gain (points) this round
        plus the least expected sum over the next ``depth - 1`` rounds of this game.

        ``view``: this bot's view of a bid round on which the shadow has decided
        (:meth:`bid` does that first); a multi-round lookahead needs the game's
        equilibrium solved (a table or exact subgame solving)."""
        return _costs(self.shadow, view, self.depth)


def _fork(ex: ExploiterBot) -> ExploiterBot:
    """A copy of ``ex`` whose model and budget can move on without touching ``ex``
    (its equilibrium solver and expert bots are shared: they hold no match state)."""
    new = copy.copy(ex)
    new.log = [replace(e) for e in ex.log[-1:]]
    new._logw = dict(ex._logw)
    new._learned = copy.deepcopy(ex._learned)
    new._pending = dict(ex._pending) if ex._pending is not None else None
    return new


def _costs(shadow: ExploiterBot, view: PlayerView, depth: int) -> dict[int, float]:
    p = shadow._pending
    assert p is not None  # the shadow has decided this round (see bid_costs)
    ours = p["their_cards"]
    g = {c: float(p["xM"][j] - p["value"]) for j, c in enumerate(ours)}
    if depth <= 1 or len(ours) <= 1:
        return g
    me = view.seat
    theirs = p["mix"]
    rest = list(view.remaining_prizes)
    out = {}
    for c in ours:
        future = 0.0
        for a, q in theirs.items():
            if q <= 1e-12:
                continue
            for prize in rest:
                game = determinise(view, [prize, *(x for x in rest if x != prize)])
                bids = [(c,), (a,)] if me == 0 else [(a,), (c,)]  # by seat
                game.play(bids)
                if game.is_over:
                    continue
                fork = _fork(shadow)
                fork.policy(game.view(1 - me))
                if fork._pending is None or not fork._pending["exact"]:
                    continue
                nxt = _costs(fork, game.view(me), depth - 1)
                future += q * min(nxt.values()) / len(rest)
        out[c] = g[c] + future
    return out
