"""The batched simulator agrees with the engine on the same prize decks and bids."""

import numpy as np
import pytest

from cardtable.goofspiel import Game, Ruleset
from cardtable.platform.bot import load_bot
from cardtable.research.simulate import engine_prize_decks, simulate

RULESETS = [
    Ruleset(),
    Ruleset(tie_rule="discard"),
    Ruleset(high_ace=True, cards=9),
    Ruleset(players=3, unique_bids=True, cards=8),
    Ruleset(players=4, cards=7, tie_rule="discard"),
    Ruleset(cards=6, prize_order="descending"),
    Ruleset(players=5, cards=5, unique_bids=True),
]


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.describe())
def test_fixed_policies_make_the_engine_bots_bids_and_points(ruleset):
    G = 25
    decks = engine_prize_decks(ruleset, range(G))
    for policies in (
        ["heuristic"] * ruleset.players,
        ["random", "matcher"] + ["heuristic"] * (ruleset.players - 2),
    ):
        res = simulate(ruleset, policies, G, seed=3, prize_decks=decks, record=True)
        for g in range(G):
            game = Game(ruleset, seed=g)  # the engine's own shuffle for seed g
            assert list(game.initial_deck) == decks[g].tolist()
            bots = [None if p == "random" else load_bot("goofspiel", p) for p in policies]
            for seat, bot in enumerate(bots):
                if bot:
                    bot.new_game(ruleset, seat)
            r = 0
            while not game.is_over:
                bids = [
                    int(res.bids[g, r, s]) if bots[s] is None else bots[s].act(game.view(s))[0]
                    for s in range(ruleset.players)
                ]
                assert bids == res.bids[g, r].tolist(), (g, r)
                game.play(bids)
                r += 1
            assert game.points == tuple(res.points[g].tolist())
            assert game.result().point_difference == tuple(res.point_difference[g].tolist())


def test_random_policy_is_uniform_and_reproducible():
    rs = Ruleset(cards=4)
    a = simulate(rs, ["random", "random"], 4000, seed=9, record=True)
    b = simulate(rs, ["random", "random"], 4000, seed=9, record=True)
    assert np.array_equal(a.bids, b.bids)
    first = np.bincount(a.bids[:, 0, 0], minlength=5)[1:] / 4000
    assert np.allclose(first, 0.25, atol=0.03)
    for g in range(4000):  # every game uses each card exactly once
        assert sorted(a.bids[g, :, 1].tolist()) == [1, 2, 3, 4]
    # zero-sum by symmetry: mean point difference near 0, totals never exceed the prizes
    assert abs(a.point_difference[:, 0].mean()) < 0.5
    assert (a.points.sum(axis=1) <= rs.total_prize_value).all()


def test_random_batch_agrees_in_distribution_with_the_engine_random_bot():
    rs = Ruleset(cards=6, tie_rule="discard")
    sim = simulate(rs, ["random", "random"], 3000, seed=1).points[:, 0]
    eng = []
    for g in range(1500):
        game = Game(rs, seed=g)
        a, b = load_bot("goofspiel", "random", seed=2 * g), load_bot("goofspiel", "random", seed=2 * g + 1)
        while not game.is_over:
            game.play([a.act(game.view(0)), b.act(game.view(1))])
        eng.append(game.points[0])
    eng = np.array(eng)
    se = np.sqrt(sim.var() / len(sim) + eng.var() / len(eng))
    assert abs(sim.mean() - eng.mean()) < 4 * se


def test_unsupported_rulesets_and_bad_input_are_rejected():
    with pytest.raises(ValueError, match="single-card"):
        simulate(Ruleset(cards_per_bid=2), ["random", "random"], 3)
    with pytest.raises(ValueError, match="single-card"):
        simulate(Ruleset(open_prizes=3), ["random", "random"], 3)
    with pytest.raises(ValueError, match="policies"):
        simulate(Ruleset(), ["random"], 3)
    with pytest.raises(ValueError, match="unknown policy"):
        simulate(Ruleset(), ["random", "mcts"], 3)
    with pytest.raises(ValueError, match="permutations"):
        simulate(Ruleset(cards=3), ["random", "random"], 1, prize_decks=[[1, 1, 2]])
