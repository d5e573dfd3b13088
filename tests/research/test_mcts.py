"""The MCTS bot: legal on every variant, reproducible, stronger than random."""

import pytest

from cardtable.goofspiel import PRESETS, Game, Ruleset
from cardtable.goofspiel.autoplay import play_game
from cardtable.goofspiel.bots.mcts import MCTSBot, determinise
from cardtable.platform.bot import load_bot

VARIANTS = [Ruleset.preset(n) for n in PRESETS] + [
    Ruleset(cards=6, players=4, tie_rule="discard"),
    Ruleset(cards=6, players=5, unique_bids=True),
    Ruleset(cards=8, players=3, cards_per_bid=2, open_prizes=2),
    Ruleset(cards=7, high_ace=True, prize_order="descending", cards_per_bid=2),
]


@pytest.mark.parametrize("ruleset", VARIANTS, ids=lambda r: r.describe())
@pytest.mark.parametrize("selection", ["duct", "rm"])
def test_mcts_plays_legal_moves_in_every_variant(ruleset, selection):
    bots = [MCTSBot(seed=1, iterations=25, selection=selection)] + [
        load_bot("goofspiel", "random", seed=s) for s in range(ruleset.players - 1)]
    game = play_game(ruleset, bots, seed=4)  # play_game raises on any illegal action
    assert game.is_over and bots[0].last_iterations == 25


def test_registered_and_reproducible_with_a_seed_and_iterations():
    rs = Ruleset(cards=8)

    def run():
        bots = [load_bot("goofspiel", "mcts", seed=5, iterations=60), load_bot("goofspiel", "random", seed=6)]
        return play_game(rs, bots, seed=1).history

    assert run() == run()


def test_mcts_beats_random_on_the_standard_game():
    rs = Ruleset()
    diffs = []
    for g in range(4):
        mcts, rnd = MCTSBot(seed=g, iterations=300), load_bot("goofspiel", "random", seed=100 + g)
        seats = [mcts, rnd] if g % 2 == 0 else [rnd, mcts]
        game = play_game(rs, seats, seed=g // 2)   # duplicate: both seatings per deal
        diffs.append(game.result().point_difference[g % 2])
    assert sum(d > 0 for d in diffs) >= 3, diffs
    assert sum(diffs) / len(diffs) > 10, diffs


def test_time_budget_is_used_when_iterations_are_not_given():
    bot = MCTSBot(seed=0, time_limit=0.05)
    game = Game(Ruleset(cards=6), seed=1)
    bot.new_game(game.ruleset, 0)
    bid = bot.act(game.view(0))
    assert bid in game.legal_bids(0) and bot.last_iterations >= 1


def test_determinisation_is_consistent_with_the_view():
    rs = Ruleset(cards=7, open_prizes=3)
    game = Game(rs, seed=2)
    game.play([7, 1])
    game.choose(0, max(game.pot))
    game.play([2, 6])
    if game.phase == "choose":
        game.choose(game.chooser, min(game.pot))
    view = game.view(1)
    order = list(reversed(view.remaining_prizes))
    det = determinise(view, order)
    assert det.hands == game.hands and det.pot == game.pot and det.points == game.points
    assert det.remaining_prizes == game.remaining_prizes and det.deck == tuple(order)


@pytest.mark.parametrize("kw", [dict(iterations=0), dict(time_limit=0), dict(selection="best"), dict(gamma=0)])
def test_bad_options_are_rejected(kw):
    with pytest.raises(ValueError):
        MCTSBot(**kw)
