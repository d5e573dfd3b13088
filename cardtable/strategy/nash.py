"""The ``nash`` bot: samples its bid from the equilibrium of the round.

The mixes come from :class:`cardtable.solver.equilibrium.EquilibriumSource`
(the solver's module; this bot only samples from them), in order:

1. the solved table of the ruleset in the cache folder (``cardtable solve``),
   memory-mapped; one matrix game per move (well under a second for 13 cards);
2. carry-over ties without their table (the standard game): the **carry-over
   approximation** (each round's matrix game solved exactly, later positions
   valued from the discard-ties table of the same deck by a model fitted to
   exact carry-over tables; docs/solver.md, The carry-over approximation) while
   more than 8 cards are in each hand (13 cards:
   :func:`cardtable.solver.approx.exact_layers`), then exact subgame solving
   (the first exact move about 0.7 s). Needs the discard table
   (13 cards: ``cardtable solve -n 13 --ties discard``, a one-time build); for
   at most 10 cards it is solved in memory at the first move (10 cards: about 5 s);
3. otherwise *exact subgame solving* once the rest of the game needs at most
   ``subgame_limit`` matrix games, before that the **one-round lookahead**
   fallback (not an equilibrium).

A table completed while the bot is in use (``cardtable play --build-table``, or a
``cardtable solve`` in another terminal) is picked up at the next game: :meth:`NashBot.new_game`
compares the table files' modification times and sizes (a few ``stat`` calls,
:func:`cardtable.solver.catalog.table_files_key`) and makes a new source when they
changed; :meth:`NashBot.take_news` then says once what the bot plays from now
(docs/solver.md, Background builds).

Covers every 2-player ruleset with single-card bids and one prize at a time
(either tie rule, low or high ace, shuffled or fixed prize order); for other
rulesets :meth:`NashBot.new_game` raises
:class:`cardtable.solver.UnsupportedRuleset`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cardtable.goofspiel.bots.base import GoofspielBot
from cardtable.goofspiel.state import Bid, PlayerView
from cardtable.platform.bot import Option

if TYPE_CHECKING:  # the solver loads Numba: imported where used (see new_game)
    from cardtable.solver.equilibrium import EquilibriumSource


class NashBot(GoofspielBot):
    """Equilibrium bot (see the module docstring).

    Args:
        seed: seed of the bot's random number generator.
        objective: ``"points"`` (expected point difference, the default) or
            ``"win"`` (win = 1, draw = 0, loss = -1).
        subgame_limit: most matrix games for exact subgame solving.
        use_table: look for a solved table in the cache folder.
        approximation: use the carry-over approximation where no table exists
            (``False``: the one-round lookahead fallback instead).
    """

    name = "nash"
    description = (
        "samples bids from the exact equilibrium: a solved table (cardtable solve) if present; "
        "carry-over without its table: the carry-over approximation, exact from 8 cards left; "
        "else exact subgame solving once the rest is small, before that a one-round lookahead fallback"
    )

    option_schema = {
        "objective": Option(
            str,
            "points",
            choices=("points", "win"),
            help="points: expected point difference; win: win 1, draw 0, loss -1",
        ),
        "subgame_limit": Option(
            int,
            2_000_000,
            0,
            100_000_000,
            unit="matrix games",
            help="most matrix games for exact subgame solving",
        ),
        "use_table": Option(bool, True, help="look for a solved table in the cache folder"),
        "approximation": Option(bool, True, help="the carry-over approximation where no table exists"),
    }

    def __init__(
        self,
        seed: int | str | None = None,
        objective: str = "points",
        subgame_limit: int = 2_000_000,
        use_table: bool = True,
        approximation: bool = True,
    ) -> None:
        super().__init__(seed)
        self.objective = objective
        #: the points objective reads only the position; the win objective also the score
        self.positional = objective == "points"
        self.subgame_limit = subgame_limit
        self.use_table = use_table
        self.approximation = approximation
        self.ruleset = None
        self.seat = 0
        self._source: EquilibriumSource | None = None
        #: the table files seen when the source was made (:func:`table_files_key`)
        self._tables_seen: tuple | None = None
        self._news = ""
        #: where the last policy came from: "table", "subgame", "approximation" or "lookahead"
        self.last_source = ""

    def new_game(self, ruleset: Any, seat: int) -> None:
        """Load the table if one is solved (else prepare the approximation); in the same
        ruleset as the last game, again only when a table file appeared or changed in the
        cache folder since (then :meth:`take_news` says what the bot plays from now).

        Raises:
            UnsupportedRuleset: a ruleset outside the solver (3+ players, multi-card bids,
                open prizes).
            TableFileError: a damaged table in the cache folder.
        """
        # lazy: the bot registry (`cardtable bots`) reads this module without loading Numba
        from cardtable.solver.catalog import table_files_key
        from cardtable.solver.equilibrium import EquilibriumSource
        from cardtable.solver.position import check_supported

        check_supported(ruleset)
        seen = (
            table_files_key(ruleset, self.objective) if self.use_table and not ruleset.fixed_order else None
        )
        source = self._source
        if source is None or self.ruleset != ruleset or seen != self._tables_seen:
            # what it plays from, without the full solve's estimate (seconds at 13 cards)
            before = source.note(estimate=False) if source is not None and self.ruleset == ruleset else None
            source = EquilibriumSource(
                ruleset, self.objective, self.subgame_limit, self.use_table, self.approximation
            )
            self._source, self._tables_seen = source, seen
            now = source.note(estimate=False) if before is not None else ""
            if before is not None and now != before:
                self._news = (
                    f"a table was completed in the cache folder since the last game; from now on: {now}"
                )
        self.ruleset = ruleset
        self.seat = seat
        source.sub = None

    def take_news(self) -> str:
        """What changed in the bot's play since the last game, once (a table completed in
        the cache folder meanwhile: :meth:`new_game`), for front ends to show; ``""`` when
        nothing changed or it was already taken."""
        news, self._news = self._news, ""
        return news

    # the table and the current subgame solution, for bots built on this one
    @property
    def _table(self):
        return None if self._source is None else self._source.table

    @property
    def _sub(self):
        return None if self._source is None else self._source.sub

    @_sub.setter
    def _sub(self, value) -> None:
        if self._source is not None:
            self._source.sub = value

    @property
    def fallback_note(self) -> str:
        """What the bot plays from in this ruleset, for front ends to show (``""`` before a game)."""
        return "" if self._source is None else self._source.note()

    @property
    def source_exploitability(self) -> float | None:
        """The measured exploitability (points per game) of the shipped compressed table the
        bot plays from in this ruleset (docs/solver.md, Compressed tables), or None."""
        return None if self._source is None else self._source.compressed_exploitability()

    @property
    def last_source_text(self) -> str:
        """Where the last bid came from, in words (``""`` before the first bid)."""
        # lazy: the bot registry (`cardtable bots`) reads this module without loading Numba
        from cardtable.solver.equilibrium import SOURCE_TEXT

        return SOURCE_TEXT.get(self.last_source, self.last_source)

    def policy(self, view: PlayerView) -> dict[int, float]:
        """The bot's mixed bid for ``view``: ``{card: probability}`` over its hand."""
        # lazy: the bot registry (`cardtable bots`) reads this module without loading Numba
        from cardtable.solver.position import position_from_view

        self.check_policy_view(view)
        if self.ruleset != view.ruleset or self._source is None:
            self.new_game(view.ruleset, view.seat)
        pos, prize = position_from_view(view)
        if view.seat == 1:
            pos = pos.swapped()
        source = self._source
        assert source is not None  # new_game made it
        mix, self.last_source = source.strategy(pos, prize)
        return mix

    def best_response_values(self, ruleset: Any):
        """``(layout, values)`` whose round equilibria are this bot's mixes in every
        position of ``ruleset`` (for :mod:`cardtable.solver.exploit_kernel`), or None;
        with the carry-over approximation a third item, the first layer that is not
        exact (see :meth:`cardtable.solver.equilibrium.EquilibriumSource.best_response_values`)."""
        if self.ruleset != ruleset or self._source is None:
            self.new_game(ruleset, 0)
        source = self._source
        assert source is not None  # new_game made it
        return source.best_response_values()

    def bid(self, view: PlayerView) -> Bid:
        probs = self.policy(view)
        cards = sorted(probs)
        weights = [max(0.0, probs[c]) for c in cards]
        return (self.rng.choices(cards, weights=weights)[0],)
