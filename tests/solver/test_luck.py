"""The luck-adjusted point difference (cardtable.solver.luck) has exactly the mean of the
raw one, computed over every prize order and every draw of the mixing bots, and less
variance; bad input is refused."""

from __future__ import annotations

from itertools import permutations

import pytest

from cardtable.goofspiel import Game, Ruleset
from cardtable.platform.bot import load_bot
from cardtable.solver import solve
from cardtable.solver.approx import CarryApproximation
from cardtable.solver.luck import adjusted_difference


def _exact_moments(rs, approx, bots, known):
    """(mean, variance) of the raw and the adjusted difference over every prize order and
    every pair of bids the bots' policies give, each weighted by its probability.
    ``known[s]``: whether seat s's mix is handed to the estimator."""
    stats = {"raw": [0.0, 0.0], "adj": [0.0, 0.0]}
    decks = list(permutations(rs.deck))

    def walk(deck, bids, mixes, prob):
        game = Game(rs, prize_deck=deck)
        for pair in bids:
            game.play(list(pair))
        if game.is_over:
            raw = game.points[0] - game.points[1]
            adj = adjusted_difference(game, approx, mixes)
            for key, v in (("raw", raw), ("adj", adj)):
                stats[key][0] += prob * v
                stats[key][1] += prob * v * v
            return
        pols = [bots[s].policy(game.view(s)) for s in (0, 1)]
        for a, pa in pols[0].items():
            for b, pb in pols[1].items():
                if pa * pb > 0:
                    walk(
                        deck,
                        bids + [(a, b)],
                        mixes + [tuple(pols[s] if known[s] else None for s in (0, 1))],
                        prob * pa * pb,
                    )

    for deck in decks:
        for s, b in enumerate(bots):
            b.new_game(rs, s)
        walk(list(deck), [], [], 1.0 / len(decks))
    return {k: (m, sq - m * m) for k, (m, sq) in stats.items()}


@pytest.mark.parametrize(
    "cards,other,known",
    [
        (4, "matcher", (True, False)),  # nash's mix known, matcher deterministic (its luck left in)
        (3, "random", (True, True)),  # both mixes known: both bid-luck terms
        (3, "random", (False, True)),  # only the column player's mix known
    ],
)
def test_adjusted_difference_keeps_the_mean_exactly_and_cuts_the_variance(cards, other, known):
    rs = Ruleset(cards=cards, tie_rule="carry")
    approx = CarryApproximation(rs, solve(Ruleset(cards=cards, tie_rule="discard")), 1)
    bots = [load_bot("goofspiel", "nash", seed=1), load_bot("goofspiel", other, seed=1)]
    got = _exact_moments(rs, approx, bots, known)
    (m_raw, v_raw), (m_adj, v_adj) = got["raw"], got["adj"]
    assert m_adj == pytest.approx(m_raw, abs=1e-9)
    assert v_raw > 0.5 and v_adj < 0.6 * v_raw, got  # measured: 0.50, and lower with random


def test_bad_input_is_refused():
    rs = Ruleset(cards=3, tie_rule="carry")
    approx = CarryApproximation(rs, solve(Ruleset(cards=3, tie_rule="discard")), 1)
    game = Game(rs, prize_deck=[1, 2, 3])
    for c in (1, 2, 3):
        game.play([c, c])
    with pytest.raises(ValueError, match="3 rounds"):
        adjusted_difference(game, approx, [(None, None)])
    with pytest.raises(ValueError, match="does not hold its bid"):
        adjusted_difference(game, approx, [({2: 1.0}, None)] * 3)
    other = Game(Ruleset(cards=3, tie_rule="discard"), prize_deck=[1, 2, 3])
    with pytest.raises(ValueError, match="the estimate is for"):
        adjusted_difference(other, approx, [])


@pytest.mark.parametrize(
    "mix, words",
    [
        ({1: -5.0, 2: 6.0}, "no probability"),
        ({1: float("nan"), 2: 1.0}, "no probability"),
        ({1: float("inf")}, "no probability"),
        ({1: 5.0, 2: 5.0}, "sums to 10"),
        ({1: 0.0, 2: 1.0}, "does not hold its bid 1"),
        ({1: 0.5, 7: 0.5}, "not a card of the hand"),
        ({1: "0.5", 2: 0.5}, "no probability"),
        ([1.0], "is a mapping"),
    ],
)
def test_a_mix_that_is_no_distribution_over_the_hand_is_refused(mix, words):
    rs = Ruleset(cards=3, tie_rule="carry")
    approx = CarryApproximation(rs, solve(Ruleset(cards=3, tie_rule="discard")), 1)
    game = Game(rs, prize_deck=[1, 2, 3])
    for a, b in ((1, 2), (2, 1), (3, 3)):
        game.play([a, b])
    with pytest.raises(ValueError, match=words):
        adjusted_difference(game, approx, [(mix, None)] + [(None, None)] * 2)


def test_an_unfinished_game_and_odd_containers_are_refused():
    rs = Ruleset(cards=3, tie_rule="carry")
    approx = CarryApproximation(rs, solve(Ruleset(cards=3, tie_rule="discard")), 1)
    game = Game(rs, prize_deck=[1, 2, 3])
    game.play([1, 2])
    with pytest.raises(ValueError, match="not finished"):
        adjusted_difference(game, approx, [(None, None)])
    game.play([2, 1])
    game.play([3, 3])
    with pytest.raises(ValueError, match="sequence"):
        adjusted_difference(game, approx, ((None, None) for _ in range(3)))
    with pytest.raises(ValueError, match="pair"):
        adjusted_difference(game, approx, [None, None, None])
    with pytest.raises(ValueError, match="finished Goofspiel game"):
        adjusted_difference(None, approx, [])
    assert isinstance(adjusted_difference(game, approx, [({1: 1.0}, None)] + [(None, None)] * 2), float)


def test_nash_source_estimate_gives_nash_own_values(tmp_path, monkeypatch):
    """SourceEstimate answers from the shipped compressed table above ``compressed_exact``
    and from the exact subgame at and below it (reused within a game, re-solved for another
    game's position), and it keeps the adjusted difference a finished game's number."""
    from cardtable.goofspiel import Game
    from cardtable.solver.equilibrium import EquilibriumSource
    from cardtable.solver.luck import SourceEstimate
    from cardtable.solver.position import position_from_view
    from cardtable.solver.table import solve_subgame

    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path))  # a fresh install
    rs = Ruleset(cards=11, tie_rule="carry")
    est = SourceEstimate(rs)
    src = EquilibriumSource(rs)
    assert src.compressed is not None
    game = Game(rs, seed=3)
    bots = [load_bot("goofspiel", "nash", seed=1), load_bot("goofspiel", "random", seed=2)]
    for s, b in enumerate(bots):
        b.new_game(rs, s)
    mixes, seen_low = [], 0
    while not game.is_over:
        pos, prize = position_from_view(game.view(0))
        got = est.round_strategy(pos, prize)
        if pos.k > src.compressed_exact:
            want = src.compressed.round_strategy(pos, prize)
        else:
            seen_low += 1
            want = solve_subgame(rs, pos).round_strategy(pos, prize)
        assert got.value == pytest.approx(want.value, abs=1e-9)
        assert got.matrix == pytest.approx(want.matrix, abs=1e-9)
        mixes.append((bots[0].policy(game.view(0)), None))
        game.play([b.act(game.view(s)) for s, b in enumerate(bots)])
    assert seen_low == src.compressed_exact  # every exact round was checked
    assert isinstance(adjusted_difference(game, est, mixes), float)
    with pytest.raises(ValueError, match="no compressed table"):
        SourceEstimate(Ruleset(cards=6, tie_rule="carry"))
