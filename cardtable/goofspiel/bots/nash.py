"""The ``nash`` bot: samples its bid from the exact equilibrium of the round.

Where the equilibrium comes from, in order:

1. the solved table of the ruleset in the cache folder (``cardtable solve``),
   memory-mapped; one matrix game per move (well under a second for 13 cards);
2. *exact subgame solving*: when the rest of the game from the current
   position needs at most ``subgame_limit`` matrix games (about a second;
   typically from 9 cards left with discard ties, 7 with carry-over), the bot
   solves it once and reuses the result for the remaining rounds;
3. before that, the **one-round lookahead** fallback: the equilibrium of this
   round's matrix game with every later position valued by the heuristic
   ``(prize points still to come) x (S_A - S_B) / (S_A + S_B)``, where ``S`` is
   the sum of a player's remaining bid strengths. It is not an equilibrium of
   the whole game.

Covers every 2-player ruleset with single-card bids and one prize at a time
(either tie rule, low or high ace, shuffled or fixed prize order; with a fixed
order chance disappears and the whole game is usually small enough to solve
at the first move); for other rulesets :meth:`NashBot.new_game` raises
:class:`cardtable.solver.UnsupportedRuleset`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..state import Bid, PlayerView
from .base import GoofspielBot


class NashBot(GoofspielBot):
    """Equilibrium bot (see the module docstring).

    Args:
        seed: seed of the bot's random number generator.
        objective: ``"points"`` (expected point difference, the default) or
            ``"win"`` (win = 1, draw = 0, loss = -1).
        subgame_limit: most matrix games for exact subgame solving.
        use_table: look for a solved table in the cache folder.
    """

    name = "nash"
    description = (
        "samples bids from the exact equilibrium: a solved table (cardtable solve) if present, "
        "else exact subgame solving once the rest is small, before that a one-round lookahead fallback"
    )

    def __init__(self, seed: int | str | None = None, objective: str = "points",
                 subgame_limit: int = 2_000_000, use_table: bool = True) -> None:
        super().__init__(seed)
        if objective not in ("points", "win"):
            raise ValueError(f"objective must be 'points' or 'win', not {objective!r}")
        self.objective = objective
        #: the points objective reads only the position; the win objective also the score
        self.positional = objective == "points"
        self.subgame_limit = subgame_limit
        self.use_table = use_table
        self.ruleset = None
        self.seat = 0
        self._table = None
        self._sub = None
        #: where the last policy came from: "table", "subgame" or "lookahead"
        self.last_source = ""

    def new_game(self, ruleset: Any, seat: int) -> None:
        """Load the table if one is solved. Raises UnsupportedRuleset for rulesets
        outside the solver (3+ players, multi-card bids, open prizes)."""
        from cardtable.solver import check_supported, load_table

        check_supported(ruleset)
        if self.ruleset != ruleset:
            use = self.use_table and not ruleset.fixed_order  # tables are for shuffled prizes
            self._table = load_table(ruleset, self.objective) if use else None
        self.ruleset = ruleset
        self.seat = seat
        self._sub = None

    @property
    def fallback_note(self) -> str:
        """What the bot plays from in this ruleset, for front ends to show (``""`` before a game)."""
        if self.ruleset is None:
            return ""
        if self._table is not None:
            return "plays the exact equilibrium from the solved table"
        if self.ruleset.fixed_order:
            return "plays the exact equilibrium (the fixed-order game is solved at the first move)"
        if self._whole_game_fits():
            return "plays the exact equilibrium (the whole game is solved at the first move)"
        return (
            "no solved table for these rules: plays a one-round lookahead FALLBACK (not an equilibrium) "
            f"until the rest of the game needs at most {self.subgame_limit:,} matrix games, then the exact "
            f"subgame equilibrium; run `cardtable solve --cards {self.ruleset.cards} --ties "
            f"{self.ruleset.tie_rule}` for the exact equilibrium from the first move"
        )

    def _whole_game_fits(self) -> bool:
        """True when exact subgame solving covers the game from its first move."""
        from cardtable.goofspiel import Game
        from cardtable.solver.position import position_from_view
        from cardtable.solver.table import count_games, subgame_layout

        if self.ruleset.cards > 10:
            return False
        pos, _ = position_from_view(Game(self.ruleset, seed="note").view(0))
        return count_games(subgame_layout(self.ruleset, pos, self.objective)) <= self.subgame_limit

    #: Words for :attr:`last_source`, for front ends.
    SOURCE_TEXT = {"table": "solved table", "subgame": "exact subgame solution", "lookahead": "lookahead fallback"}

    @property
    def last_source_text(self) -> str:
        """Where the last bid came from, in words (``""`` before the first bid)."""
        return self.SOURCE_TEXT.get(self.last_source, self.last_source)

    def policy(self, view: PlayerView) -> dict[int, float]:
        """The bot's mixed bid for ``view``: ``{card: probability}`` over its hand."""
        from cardtable.solver import ImpossiblePosition, solve_subgame
        from cardtable.solver.position import position_from_view
        from cardtable.solver.table import count_games, subgame_layout

        if self.ruleset != view.ruleset:
            self.new_game(view.ruleset, view.seat)
        pos, prize = position_from_view(view)
        if view.seat == 1:
            pos = pos.swapped()
        if self.objective == "points":
            pos = type(pos)(pos.prizes, pos.hands, pos.pot, 0)
        if self._table is not None:
            self.last_source = "table"
            return self._table.round_strategy(pos, prize).a
        if self._sub is not None:
            try:
                strat = self._sub.round_strategy(pos, prize).a
                self.last_source = "subgame"
                return strat
            except ImpossiblePosition:
                self._sub = None
        if pos.k <= 10 or view.ruleset.fixed_order:  # fixed order: no chance, small game
            layout = subgame_layout(view.ruleset, pos, self.objective)
            if count_games(layout) <= self.subgame_limit:
                self._sub = solve_subgame(view.ruleset, pos, self.objective, layout)
                self.last_source = "subgame"
                return self._sub.round_strategy(pos, prize).a
        self.last_source = "lookahead"
        return lookahead_strategy(view.ruleset, pos, prize)

    def bid(self, view: PlayerView) -> Bid:
        probs = self.policy(view)
        cards = sorted(probs)
        weights = [max(0.0, probs[c]) for c in cards]
        return (self.rng.choices(cards, weights=weights)[0],)


def lookahead_strategy(ruleset, pos, prize: int) -> dict[int, float]:
    """The one-round lookahead fallback for player A at ``pos`` with ``prize`` up."""
    from cardtable.solver.kernel import solve_matrix_game

    st = ruleset.strength
    a_cards = sorted(pos.hands[0], key=st)
    b_cards = sorted(pos.hands[1], key=st)
    k = len(a_cards)
    rest = sum(ruleset.prize_value(c) for c in pos.prizes) - ruleset.prize_value(prize)
    stake = pos.pot + ruleset.prize_value(prize)
    sa = sum(st(c) for c in a_cards)
    sb = sum(st(c) for c in b_cards)
    last = k == 1
    M = np.empty((k, k))
    for i, a in enumerate(a_cards):
        for j, b in enumerate(b_cards):
            o = (st(a) > st(b)) - (st(a) < st(b))
            carried = stake if (o == 0 and ruleset.tie_rule == "carry" and not last) else 0
            ca, cb = sa - st(a), sb - st(b)
            h = (rest + carried) * (ca - cb) / (ca + cb) if ca + cb else 0.0
            M[i, j] = o * stake + h
    x = np.empty(k)
    y = np.empty(k)
    solve_matrix_game(M, k, k, np.empty((k + 1, 2 * k + 1)), np.empty(k, dtype=np.int64), x, y)
    return {c: float(x[i]) for i, c in enumerate(a_cards)}
