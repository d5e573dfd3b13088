"""The whole-match adversary of the ``exploiter`` bot (``MatchAdversary``, docs/exploiter.md).

It predicts the exploiter's mix from public bids alone and best-responds to it
with lookahead over the match; the exploiter's safety guarantee says its
expected result against it is still at least 0 points per game.
"""

from __future__ import annotations

import math
import statistics

import pytest

from cardtable.goofspiel import Game, Ruleset
from cardtable.solver import solve, write_table
from cardtable.solver.table import default_path
from cardtable.strategy.bait import BaitBot, MatchAdversary
from cardtable.strategy.exploiter import ExploiterBot


@pytest.fixture(scope="module")
def ruleset():
    table = solve(Ruleset(cards=6, tie_rule="discard"))
    write_table(table, default_path(table.ruleset, "points"))
    return table.ruleset


def _match(rs, ex, adv, games, check=None):
    """Point differences (exploiter minus adversary), seats alternating; ``check(view, seat)``
    runs after both bots have bid and before the round is played."""
    diffs = []
    for g in range(games):
        seat = g % 2
        bots = [adv, adv]
        bots[seat] = ex
        ex.new_game(rs, seat)
        adv.new_game(rs, 1 - seat)
        game = Game(rs, seed=f"adv-{g}")
        while not game.is_over:
            bids = [bots[s].act(game.view(s)) for s in (0, 1)]
            if check is not None:
                check(game.view(seat), seat)
            game.play(bids)
        diffs.append(game.points[seat] - game.points[1 - seat])
    return diffs


def test_prediction_is_the_exploiters_policy(ruleset):
    ex = ExploiterBot(seed=4)
    adv = MatchAdversary(seed=4, bait_games=1, depth=2)
    seen = []

    def check(view, seat):
        actual = ex.policy(view)
        assert adv.predicted.keys() == actual.keys()
        assert all(adv.predicted[c] == pytest.approx(actual[c], abs=1e-12) for c in actual)
        # the lookahead forks the shadow; the shadow itself follows the real exploiter
        assert adv.shadow.budget == pytest.approx(ex.budget, abs=1e-12)
        seen.append(max(actual.values()) < 1)

    _match(ruleset, ex, adv, 3, check)
    assert len(seen) == 18 and any(seen)  # every round of 3 games; some mixes are mixed


def test_depth_one_is_the_one_round_best_response(ruleset):
    ex, adv = ExploiterBot(seed=2), MatchAdversary(seed=2, depth=1)
    ex.new_game(ruleset, 0)
    adv.new_game(ruleset, 1)
    game = Game(ruleset, seed=9)
    adv.act(game.view(1))
    p = adv.shadow._pending
    costs = adv.bid_costs(game.view(1))
    assert costs == {c: pytest.approx(p["xM"][j] - p["value"]) for j, c in enumerate(p["their_cards"])}
    # at the first round the exploiter plays the equilibrium: no card costs it anything
    assert min(costs.values()) == pytest.approx(0.0, abs=1e-7)
    deeper = MatchAdversary(seed=2, depth=2)
    deeper.new_game(ruleset, 1)
    deeper.act(game.view(1))
    assert set(deeper.bid_costs(game.view(1))) == set(costs)


@pytest.mark.parametrize("bait_games", [0, 2])
def test_exploiter_is_not_below_zero_against_it(ruleset, bait_games):
    """A seeded 10-game match: the mean point difference is not below 0 by more than its
    95% interval, and the exploiter's budget (its banked expected gain) never goes negative."""
    ex = ExploiterBot(seed=7)
    diffs = _match(ruleset, ex, MatchAdversary(seed=7, bait_games=bait_games), 10)
    m = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs))
    assert m + half >= 0
    assert min(e.budget for e in ex.log) >= -1e-7
    assert all(e.worst >= -e.budget - 1e-7 for e in ex.log)


def test_options():
    assert MatchAdversary().depth == 2 and isinstance(MatchAdversary(), BaitBot)
    with pytest.raises(ValueError, match="depth"):
        MatchAdversary(depth=0)
