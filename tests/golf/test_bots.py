"""Golf bots: registry, legal play, the heuristic's rules of thumb, search, determinisation."""

from __future__ import annotations

import random
import statistics

import pytest

from cardtable.golf.actions import Discard, Draw, Snap, Swap
from cardtable.golf.bots.heuristic import HeuristicBot
from cardtable.golf.bots.random_bot import RandomBot
from cardtable.golf.bots.search import SearchBot
from cardtable.golf.determinize import determinize
from cardtable.golf.driver import play_game, play_match
from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.state import GolfGame
from cardtable.golf.views import build_view
from cardtable.platform.bot import UnknownBotError, bot_names, load_bot

P1 = [2, 3, 4, 5, 6, 7, 8, 9, 10]
P2 = [1, 1, 1, 2, 3, 4, 13, 13, 5]


def test_registry():
    assert set(bot_names("golf")) == {"random", "heuristic", "search"}
    for name in bot_names("golf"):
        bot = load_bot("golf", name, seed=1)
        assert bot.name == name and bot.description
    with pytest.raises(UnknownBotError, match="choose one of"):
        load_bot("golf", "nope")


@pytest.mark.parametrize("players", [2, 3])
def test_bots_play_whole_legal_games(players):
    rs = GolfRuleset(players=players)
    kinds = [RandomBot, HeuristicBot, lambda seed: SearchBot(seed=seed, determinizations=2)][:players]
    if players == 2:
        kinds = [RandomBot, lambda seed: SearchBot(seed=seed, determinizations=2)]
    for seed in range(2):
        g = play_game(GolfGame(rs, seed=seed), [k(seed=seed) for k in kinds])
        assert g.over and sorted(g.all_cards()) == list(range(rs.deck_size))


def test_heuristic_beats_random():
    diffs = []
    for i in range(30):
        g = play_game(GolfGame(seed=i, first_player=i % 2), [HeuristicBot(seed=i), RandomBot(seed=i)])
        diffs.append(g.result().score_difference[0])
    assert statistics.mean(diffs) < -10


def test_heuristic_swaps_a_king_for_its_known_ten(make_game):
    g = make_game([P1, P2], [13])
    bot = HeuristicBot(seed=0)
    bot.new_game(g.ruleset, 0)
    g.apply(bot.act(build_view(g, 0)))
    assert bot.act(build_view(g, 0)) == Swap(0, 8)


def test_heuristic_discards_to_snap_its_matching_card(make_game):
    g = make_game([P1, P2], [9])  # P1 knows its 9 at position 8
    bot = HeuristicBot(seed=0)
    g.apply(Draw(0))
    assert bot.act(build_view(g, 0)) == Discard(0)
    g.apply(Discard(0))
    assert bot.snap(build_view(g, 0)) == Snap(0, 0, 7)


def test_heuristic_snaps_only_when_sure(make_game):
    g = make_game([P1, P2], [6, 7])  # P1's 6 at position 5 is unknown to P1
    g.apply(Draw(0))
    g.apply(Discard(0))
    assert HeuristicBot(seed=0).snap(build_view(g, 0)) is None
    assert build_view(g, 0).legal_snaps()  # a guess would be legal


def test_search_bot_keeps_a_drawn_king(make_game):
    # discarding a K (0 points) is clearly worse than any swap; which swap is best is
    # the search's call (a known 10 is also worth keeping as a snap target)
    g = make_game([P1, P2], [13])
    g.apply(Draw(0))
    bot = SearchBot(seed=3, determinizations=8)
    assert isinstance(bot.act(build_view(g, 0)), Swap)


def test_match_gives_the_losing_early_ender_an_extra_card():
    seen = []
    games = play_match(
        GolfRuleset(),
        [HeuristicBot(seed=1), HeuristicBot(seed=2)],
        games=6,
        seed="m",
        on_game_start=lambda g: seen.append(g.extra_cards),
    )
    for prev, nxt in zip(games, seen[1:], strict=False):
        assert nxt == prev.result().extra_cards
    assert [g.first_player for g in games] == [0, 1, 0, 1, 0, 1]


def test_determinize_is_consistent_with_the_view():
    rng = random.Random(4)
    for seed in range(15):
        g = GolfGame(GolfRuleset(players=2 + seed % 2), seed=seed)
        bots = [HeuristicBot(seed=s) for s in range(g.players)]
        for _ in range(rng.randrange(1, 40)):
            if g.over:
                break
            a = bots[g.actor].act(build_view(g, g.actor))
            g.apply(a)
        if g.over:
            continue
        seat = rng.randrange(g.players)
        v = build_view(g, seat)
        d = determinize(v, rng)
        dv = build_view(d, seat)
        assert dv.grids == v.grids and dv.seen_by == v.seen_by and dv.discard == v.discard
        assert dv.drawn == v.drawn and dv.draw_pile == v.draw_pile and dv.phase == v.phase
        assert sorted(d.all_cards()) == list(range(g.ruleset.deck_size))
