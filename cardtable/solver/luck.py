"""Luck-adjusted point differences: an unbiased estimate of a bot's expected result
with much less variance than the raw score (for benchmarks; docs/solver.md, Head to head).

In a 13-card carry-over game the point difference of one game spreads over about
+-30 points, mostly by luck: the order in which the prizes turn up, and which card a
mixing bot happened to draw. Following the control variates of AIVAT (Burch, Schmid,
Moravcik, Morrill and Bowling, "AIVAT: A New Variance Reduction Technique for Agent
Evaluation in Imperfect Information Games", AAAI 2018), each round subtracts two terms
whose expectation is exactly 0, so the mean is unchanged:

- *chance*: ``f(prize) - mean of f over the prizes face down``, where ``f(q)`` is the
  value of the round's matrix game had ``q`` turned up. The next prize is uniform over
  the face-down ones (docs/rules.md, The deal), so the term has mean 0 for any ``f``.
- *bids* of a player whose exact mixed bid ``x`` is known (a ``policy(view)``):
  ``W[a, b] - sum_a' x(a') W[a', b]`` for the row player's bid ``a`` against ``b``
  (the column player alike), where ``W[a, b]`` is the round's outcome times the stake
  plus an estimate of the value of the position after it. Bids are simultaneous, so
  ``a`` is drawn from ``x`` independently of ``b``: mean 0 for any ``W``.

``f`` and ``W`` come from a value estimate; the better it is, the more variance goes,
but any estimate keeps the mean exact: any object with a ``ruleset`` and a
``round_strategy(pos, prize)`` (:class:`ValueEstimate`), such as the carry-over
approximation (:class:`cardtable.solver.approx.CarryApproximation`), a solved table, or
:class:`SourceEstimate`, the values ``nash`` itself plays from (the closest to the truth
on a fresh install, so the most variance removed).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Protocol

from cardtable.goofspiel import Game, Ruleset

from .equilibrium import EquilibriumSource
from .position import Position, position_from_view
from .table import Table, solve_subgame
from .tables import ImpossiblePosition, RoundStrategy


class ValueEstimate(Protocol):
    """What the luck terms need of a value estimate: its ruleset, and each round's matrix
    game (``matrix``: the payoffs of every bid pair plus the value after it; ``value``)."""

    ruleset: Ruleset

    def round_strategy(self, pos: Position, prize: int) -> RoundStrategy: ...


class SourceEstimate:
    """The values ``nash`` plays from in a points game without a table
    (:class:`cardtable.solver.equilibrium.EquilibriumSource`): the shipped compressed table
    while more than ``compressed_exact`` cards are in each hand, then the exact subgame from
    the first position at or below it (solved once per game, a few tenths of a second at 13
    cards, and reused for every later position of that game).

    Raises:
        ValueError: a ruleset whose source has no compressed table (use its table or the
            approximation instead).
    """

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self._source = EquilibriumSource(ruleset)
        if self._source.compressed is None:
            raise ValueError(f"nash plays {ruleset.describe()} from no compressed table")
        self._sub: Table | None = None

    def round_strategy(self, pos: Position, prize: int) -> RoundStrategy:
        src = self._source
        assert src.compressed is not None  # checked in __init__
        if pos.k > src.compressed_exact:
            return src.compressed.round_strategy(pos, prize)
        if self._sub is not None:
            try:
                return self._sub.round_strategy(pos, prize)
            except ImpossiblePosition:  # a position of another game: solve its subgame
                pass
        self._sub = solve_subgame(self.ruleset, pos, low=src.low)
        return self._sub.round_strategy(pos, prize)


def adjusted_difference(
    game: Game,
    approx: ValueEstimate,
    mixes: Sequence[tuple[Mapping[int, float] | None, Mapping[int, float] | None]],
) -> float:
    """Player 1's luck-adjusted point difference (points of seat 0 minus seat 1) in ``game``.

    Args:
        game: a finished 2-player game of ``approx.ruleset`` (single-card bids).
        approx: the value estimate (any estimate keeps the result unbiased).
        mixes: per round, ``(x, y)``: the exact mixed bids ``{card: probability}`` the two
            seats drew their bids from, or ``None`` for a seat whose mix is unknown (its
            bid luck is then left in).

    Returns:
        ``points[0] - points[1]`` less the chance and bid-luck terms (module docstring);
        its expectation over deals and draws equals that of the raw difference.

    Raises:
        ValueError: ``game`` is not a finished game of ``approx.ruleset``; ``mixes`` is not a
            sequence of one ``(x, y)`` pair per round; a mix is not a probability
            distribution (finite, non-negative, summing to 1) over the seat's hand that
            gives its bid a positive probability.
    """
    _check_inputs(game, approx, mixes)
    rs = game.ruleset
    replay = Game(rs, prize_deck=game.initial_deck)
    luck = 0.0
    for r, (x, y) in zip(game.history, mixes, strict=True):
        pos, prize = position_from_view(replay.view(0))
        pos = Position(pos.prizes, pos.hands, pos.pot, 0)
        for seat, mix in ((0, x), (1, y)):
            if mix is not None:
                _check_mix(mix, pos.hands[seat], r.bids[seat][0], f"round {r.number}: seat {seat + 1}'s mix")
        rounds = {q: approx.round_strategy(pos, q) for q in pos.prizes}
        luck += rounds[prize].value - sum(s.value for s in rounds.values()) / len(rounds)
        W = rounds[prize].matrix
        rows = sorted(pos.hands[0], key=rs.strength)
        cols = sorted(pos.hands[1], key=rs.strength)
        a, b = r.bids[0][0], r.bids[1][0]
        luck = _add_bid_luck(luck, W, rows, cols, rows.index(a), cols.index(b), x, y)
        replay.play([a, b])
    return float(game.points[0] - game.points[1] - luck)


def _check_inputs(game: Game, approx: ValueEstimate, mixes) -> None:
    """Raise the ValueError of :func:`adjusted_difference` for a game that is no finished
    game of ``approx.ruleset``, or ``mixes`` that are not one ``(x, y)`` pair per round."""
    if not isinstance(game, Game):
        raise ValueError(f"a finished Goofspiel game is needed, not {type(game).__name__}")
    rs = game.ruleset
    if rs != approx.ruleset:
        raise ValueError(f"the game is {rs.describe()}, the estimate is for {approx.ruleset.describe()}")
    if not game.is_over:
        raise ValueError("the game is not finished: the luck terms are for whole games")
    if not isinstance(mixes, Sequence) or isinstance(mixes, (str, bytes)):
        raise ValueError(f"mixes must be a sequence of (x, y) pairs, not {type(mixes).__name__}")
    if len(mixes) != len(game.history):
        raise ValueError(f"{len(mixes)} mixes for {len(game.history)} rounds")
    for r, pair in zip(game.history, mixes, strict=True):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise ValueError(f"round {r.number}: a mix entry is an (x, y) pair, not {pair!r:.60}")


def _add_bid_luck(
    luck: float,
    W,
    rows: list[int],
    cols: list[int],
    i: int,
    j: int,
    x: Mapping[int, float] | None,
    y: Mapping[int, float] | None,
) -> float:
    """``luck`` plus the bid-luck terms of one round (module docstring): ``W`` the round's
    matrix (rows: ``rows``, A's cards by strength; columns: ``cols``), ``(i, j)`` the bids
    played, ``x``/``y`` the seats' mixes (None: unknown, its luck left in). The terms are
    added one by one, in a fixed order."""
    if x is not None:
        luck += W[i, j] - sum(x.get(c, 0.0) * W[ii, j] for ii, c in enumerate(rows))
        if y is not None:  # the rest of the expectation, over the column player's draw
            col = sum(
                y.get(c, 0.0) * sum(x.get(cr, 0.0) * W[ii, jj] for ii, cr in enumerate(rows))
                for jj, c in enumerate(cols)
            )
            luck += sum(x.get(c, 0.0) * W[ii, j] for ii, c in enumerate(rows)) - col
    elif y is not None:
        luck += W[i, j] - sum(y.get(c, 0.0) * W[i, jj] for jj, c in enumerate(cols))
    return luck


def _check_mix(mix, hand, bid: int, where: str) -> None:
    """Refuse a mix that is not a distribution over ``hand`` giving ``bid`` positive weight."""
    if not isinstance(mix, Mapping):
        raise ValueError(f"{where} is a mapping {{card: probability}}, not {type(mix).__name__}")
    total = 0.0
    for card, p in mix.items():
        if card not in hand:
            raise ValueError(f"{where} names {card!r:.20}, not a card of the hand {sorted(hand)}")
        if isinstance(p, bool) or not isinstance(p, numbers.Real) or not math.isfinite(p) or p < -1e-9:
            raise ValueError(f"{where}: {p!r:.20} is no probability")
        total += float(p)
    if abs(total - 1.0) > 1e-6:
        raise ValueError(f"{where} sums to {total:.6g}, not 1")
    if mix.get(bid, 0.0) <= 0:
        raise ValueError(f"{where} does not hold its bid {bid} (a bid it could not have drawn)")


__all__ = ["SourceEstimate", "ValueEstimate", "adjusted_difference"]
