"""Analysis of finished games against the equilibrium (``cardtable analyze``).

For each round: the bids, the equilibrium mixed strategies of that round, and
the expected points each player gave up versus equilibrium play. With the
round's matrix ``M`` (points for A), value ``v`` and equilibrium strategies
``x`` (A) and ``y`` (B), a bid ``a`` by A gives up ``v - (M y)_a >= 0`` and a
bid ``b`` by B gives up ``(x' M)_b - v >= 0``: the expected loss of that bid
against an opponent playing the equilibrium, with equilibrium play after it.

The *expected point difference* before and after a round is A's points minus
B's so far plus the equilibrium value of the position (before the next prize
is turned up): the final point difference both players can expect if they
play the equilibrium from there on. Its change over a round is the round's
luck (the prize turned up, the mixed bids) minus the points given up.

Where a position's equilibrium comes from (:class:`RoundSources`), best first:

1. ``"table"``: a solved table of the ruleset;
2. ``"subgame"``: exact subgame solving, from the first position whose rest
   needs at most ``subgame_limit`` matrix games (one solve serves the rest of
   the game);
3. ``"approximation"``: the carry-over approximation that the ``nash`` bot
   plays in carry-over games without their table
   (:class:`cardtable.solver.equilibrium.EquilibriumSource`, docs/solver.md,
   The carry-over approximation): each round's matrix game solved exactly with
   later positions valued from the discard-ties table; not the exact
   equilibrium. It needs the discard table of the same deck (solved in memory
   for at most 10 cards, else ``cardtable solve -n N --ties discard``, else the
   compressed one shipped with the package);
   rounds where the approximation plays exactly are solved as subgames
   (reading the low layers that the bot reads: docs/solver.md, Low layers);
4. ``"compressed"``: no table of the game: the compressed table shipped with the
   package (discard ties: :mod:`cardtable.solver.compressed`; carry-over ties, its upper
   layers: :mod:`cardtable.solver.compressed_carry`; values within about 0.01 points RMS
   of the exact ones), where the ``nash`` bot plays it;
5. ``"not solved"``: none of these (e.g. a deck the package ships no compressed
   table for, before the rest of the game is small).

With the approximation, the value of a position is the mean over the prizes
of its rounds' matrix-game values, so that the expected difference after a
round equals the one before the next round, whichever source each uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cardtable.goofspiel import Game

from .approx import CarryApproximation
from .equilibrium import EquilibriumSource
from .layers import LayeredTable
from .position import Position, check_supported, position_from_view
from .table import Table, count_games, solve_subgame
from .tables import RoundStrategy, SolvedTable, subgame_layout

#: Subgames are counted (not solved) only from this many cards per hand down:
#: larger rests exceed any practical limit and counting them costs time.
COUNT_FROM = 10


@dataclass
class RoundAnalysis:
    """One analysed round (see the module docstring).

    Attributes:
        number: 1-based round.
        prize: prize turned up; ``pot``: points carried into the round.
        bids: (A's card, B's card).
        strategy: the round's equilibrium, or ``None`` when not solved.
        given_up: expected points given up by (A, B), or ``None``. A bid inside
            the support of an equilibrium gives up nothing (indifference
            principle); only bids the equilibrium never plays cost points.
        probability: equilibrium probability of each actual bid (A's, B's), or ``None``.
        source: ``"table"``, ``"subgame"``, ``"approximation"``, ``"compressed"`` or ``"not solved"``
            (module docstring).
        expected_before, expected_after: the expected point difference for A
            (module docstring) before the round's prize is turned up and after
            the round, or ``None`` when not solved.
    """

    number: int
    prize: int
    pot: int
    bids: tuple[int, int]
    strategy: RoundStrategy | None
    given_up: tuple[float, float] | None
    source: str
    probability: tuple[float, float] | None = None
    expected_before: float | None = None
    expected_after: float | None = None


class _Approximation:
    """The carry-over approximation seen as a solver: ``round_strategy`` and ``value``."""

    def __init__(self, approx) -> None:
        self.approx = approx

    def round_strategy(self, pos: Position, prize: int) -> RoundStrategy:
        return self.approx.round_strategy(pos, prize)

    def value(self, pos: Position) -> float:
        """Mean over the face-down prizes of the round's matrix-game value (points for A)."""
        return sum(self.approx.round_strategy(pos, p).value for p in pos.prizes) / pos.k


class RoundSources:
    """The best equilibrium source for each position of one game (module docstring).

    Args:
        ruleset: a ruleset the solver covers.
        table: a solved points table of ``ruleset``, or ``None``.
        subgame_limit: most matrix games for an exact subgame solve.
        approximation: use the carry-over approximation where it applies
            (prepared on the first call of :meth:`find` that needs it: for
            at most 10 cards the discard table is solved in memory, 10 cards: about 5 s).
        cache: the folder of solved tables the approximation reads the discard
            table from (default ``$CARDTABLE_CACHE``, else the user cache folder).

    Raises:
        UnsupportedRuleset: the ruleset is outside the solver's reach.
    """

    def __init__(
        self,
        ruleset,
        table: SolvedTable | None = None,
        subgame_limit: int = 2_000_000,
        approximation: bool = True,
        cache: Path | None = None,
    ) -> None:
        check_supported(ruleset)
        self.ruleset = ruleset
        self.table = table
        self.limit = subgame_limit
        self.sub: Table | None = None
        self.cache = cache
        #: None: not looked for yet; False: none applies
        self._approx: CarryApproximation | bool | None = None if approximation and table is None else False
        #: the low layers the nash bot's subgames read (with the approximation), or None
        self.low: LayeredTable | None = None
        #: the nash bot's source without a table (made with the approximation), or None
        self._source: EquilibriumSource | None = None

    def approximation(self):
        """The ``nash`` bot's carry-over approximation for this ruleset, or ``None`` where it
        does not apply (another tie rule, fixed prize order, no discard table, the whole game
        solvable exactly within the limit)."""
        if self._approx is None:
            src = EquilibriumSource(
                self.ruleset,
                "points",
                self.limit,
                use_table=False,
                approximation=True,
                cache=self.cache,
                low=True,
            )
            self._approx = src.approx or False
            self.low = src.low
            self._source = src
        return self._approx or None

    @property
    def compressed(self):
        """The compressed table the ``nash`` bot plays from in this ruleset, or ``None``
        (prepared with :meth:`approximation`)."""
        self.approximation()
        return None if self._source is None else self._source.compressed

    def find(self, pos: Position):
        """``(solver, source)`` for ``pos`` (points objective, ``pos.diff`` ignored): ``solver``
        has ``round_strategy(pos, prize)`` and ``value(pos)``; ``(None, "not solved")`` if none."""
        rs = self.ruleset
        if self.table is not None:
            return self.table, "table"
        if self.sub is not None:
            return self.sub, "subgame"
        approx = self.approximation() if not rs.fixed_order else None
        comp = self.compressed
        # where the nash bot plays exactly
        exact_now = (approx is not None and pos.k <= approx.exact) or (
            comp is not None and self._source is not None and pos.k <= self._source.compressed_exact
        )
        if pos.k <= COUNT_FROM or rs.fixed_order or exact_now:
            layout = subgame_layout(rs, pos)
            # the low layers are read, not solved: not counted where the bot does not count them
            above = self._source.counted_above(pos.k) if self.low is not None and self._source else 0
            if exact_now or count_games(layout, above=above) <= self.limit:
                self.sub = solve_subgame(rs, pos, layout=layout, low=self.low)
                return self.sub, "subgame"
        if approx is not None:
            return _Approximation(approx), "approximation"
        if comp is not None:
            return comp, "compressed"
        return None, "not solved"


def analyze_game(
    game: Game,
    table: SolvedTable | None = None,
    subgame_limit: int = 2_000_000,
    approximation: bool = True,
    cache: Path | None = None,
) -> list[RoundAnalysis]:
    """Analyse a finished (or partly played) game, round by round.

    Each position's equilibrium comes from the best source available
    (:class:`RoundSources`, the module docstring): ``table`` when given, else
    exact subgame solving once the rest needs at most ``subgame_limit`` matrix
    games, else (carry-over ties, ``approximation``) the carry-over
    approximation (its discard table from ``cache``, default ``$CARDTABLE_CACHE``);
    rounds without any are reported as ``"not solved"``.

    Raises:
        UnsupportedRuleset: the ruleset is outside the solver's reach.
        TableFileError: a damaged discard table in the cache folder.
    """
    rs = game.ruleset
    sources = RoundSources(rs, table, subgame_limit, approximation, cache)
    replay = Game(rs, prize_deck=game.initial_deck)
    out = []
    for r in game.history:
        pos, prize = position_from_view(replay.view(0))
        pos = Position(pos.prizes, pos.hands, pos.pot, 0)
        a, b = r.bids[0][0], r.bids[1][0]
        solver, source = sources.find(pos)
        strat = given = prob = before = after = None
        if solver is not None:
            before = replay.points[0] - replay.points[1] + solver.value(pos)
            strat = solver.round_strategy(pos, prize)
            M = strat.matrix
            a_cards = sorted(pos.hands[0], key=rs.strength)
            b_cards = sorted(pos.hands[1], key=rs.strength)
            ia, ib = a_cards.index(a), b_cards.index(b)
            y = [strat.b[c] for c in b_cards]
            x = [strat.a[c] for c in a_cards]
            row = sum(M[ia, j] * y[j] for j in range(len(y)))
            col = sum(x[i] * M[i, ib] for i in range(len(x)))
            ga, gb = float(strat.value - row), float(col - strat.value)
            given = (ga if ga > 1e-9 else 0.0, gb if gb > 1e-9 else 0.0)
            prob = (strat.a[a], strat.b[b])
        replay.play([a, b])
        if solver is not None:
            after = replay.points[0] - replay.points[1]
            if not replay.is_over:
                nxt, _ = position_from_view(replay.view(0))
                nxt = Position(nxt.prizes, nxt.hands, nxt.pot, 0)
                later, _ = sources.find(nxt)
                after = None if later is None else after + later.value(nxt)
        out.append(RoundAnalysis(r.number, prize, pos.pot, (a, b), strat, given, source, prob, before, after))
    return out
