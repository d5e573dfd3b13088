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
"""

from __future__ import annotations

from dataclasses import dataclass

from cardtable.goofspiel import Game

from .position import Position, check_supported, position_from_view
from .table import RoundStrategy, Table, count_games, solve_subgame, subgame_layout


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
        source: ``"table"``, ``"subgame"`` or ``"not solved"``.
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


def analyze_game(game: Game, table: Table | None = None,
                 subgame_limit: int = 2_000_000) -> list[RoundAnalysis]:
    """Analyse a finished (or partly played) game, round by round.

    Rounds are solved with ``table`` when given; otherwise by one exact subgame
    solve from the first round whose rest needs at most ``subgame_limit``
    matrix games; earlier rounds are reported as ``"not solved"``.

    Raises:
        UnsupportedRuleset: the ruleset is outside the solver's reach.
    """
    rs = game.ruleset
    check_supported(rs)
    replay = Game(rs, prize_deck=game.initial_deck)
    sub: Table | None = None
    out = []
    for r in game.history:
        pos, prize = position_from_view(replay.view(0))
        pos = Position(pos.prizes, pos.hands, pos.pot, 0)
        a, b = r.bids[0][0], r.bids[1][0]
        source = "not solved"
        solver = table
        if solver is not None:
            source = "table"
        else:
            if sub is None and (pos.k <= 10 or rs.fixed_order):
                layout = subgame_layout(rs, pos)
                if count_games(layout) <= subgame_limit:
                    sub = solve_subgame(rs, pos, layout=layout)
            if sub is not None:
                solver, source = sub, "subgame"
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
                after += solver.value(Position(nxt.prizes, nxt.hands, nxt.pot, 0))
        out.append(RoundAnalysis(r.number, prize, pos.pot, (a, b), strat, given, source, prob,
                                 before, after))
    return out
