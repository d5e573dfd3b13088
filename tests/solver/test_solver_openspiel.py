"""Cross-check with OpenSpiel: our equilibrium (discard ties) has NashConv ~ 0 in
OpenSpiel's ``goofspiel`` (random prize order, point-difference returns).

OpenSpiel parameters used: ``imp_info=False`` (bids are revealed after each
round, as docs/rules.md, What each player knows, says; ``imp_info=True`` would hide the
opponent's bids, a different game), turned into a sequential game with
``convert_to_turn_based`` so that ``nash_conv`` applies. OpenSpiel discards
tied prizes; actions are ``card - 1`` for bids and point-card reveals.
"""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability  # noqa: E402

from cardtable.goofspiel import Ruleset  # noqa: E402
from cardtable.solver import Position, solve  # noqa: E402


def load(n):
    game = pyspiel.load_game(
        "goofspiel",
        {
            "num_cards": n,
            "points_order": "random",
            "returns_type": "point_difference",
            "imp_info": False,
        },
    )
    return pyspiel.convert_to_turn_based(game)


class TablePolicy(os_policy.Policy):
    """Both seats play the solver's equilibrium of the current round."""

    def __init__(self, game, table, n, tamper=0.0):
        super().__init__(game, [0, 1])
        self.table = table
        self.n = n
        self.tamper = tamper

    def action_probabilities(self, state, player_id=None):
        hist = state.history()
        player = state.current_player()
        full = frozenset(range(1, self.n + 1))
        prizes, a, b = set(full), set(full), set(full)
        rounds = len(hist) // 3
        for r in range(rounds):  # completed rounds (the pending bid of seat 0 is not used)
            p, x, y = hist[3 * r : 3 * r + 3]
            prizes.discard(p + 1)
            a.discard(x + 1)
            b.discard(y + 1)
        prize = hist[3 * rounds] + 1
        pos = Position(frozenset(prizes), (frozenset(a), frozenset(b)))
        strat = self.table.round_strategy(pos, prize)
        dist = strat.a if player == 0 else strat.b
        if self.tamper and player == 1 and len(dist) > 1:  # a deliberately wrong policy
            lo = min(dist)
            dist = {c: (1.0 if c == lo else 0.0) for c in dist}
        return {c - 1: p for c, p in dist.items()}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_equilibrium_has_zero_nash_conv(n):
    table = solve(Ruleset(cards=n, tie_rule="discard"))
    game = load(n)
    conv = exploitability.nash_conv(game, TablePolicy(game, table, n))
    assert conv < 1e-6


def test_nash_conv_detects_a_bad_policy():
    n = 4
    table = solve(Ruleset(cards=n, tie_rule="discard"))
    game = load(n)
    conv = exploitability.nash_conv(game, TablePolicy(game, table, n, tamper=1.0))
    assert conv > 0.1
