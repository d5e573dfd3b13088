"""The ``nash`` bot: legal play in every covered ruleset, equilibrium policy,
zero exploitability, clear errors for rulesets outside the solver."""

from __future__ import annotations

import pytest

from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel.autoplay import play_game
from cardtable.platform.bot import load_bot
from cardtable.solver import Position, UnsupportedRuleset, solve, write_table
from cardtable.solver.exploit import best_response
from cardtable.solver.table import default_path
from cardtable.strategy.nash import NashBot


def test_registered():
    assert isinstance(load_bot("goofspiel", "nash", seed=1), NashBot)


@pytest.mark.parametrize(
    "rules",
    [
        dict(cards=6, tie_rule="discard"),
        dict(cards=6, tie_rule="carry"),
        dict(cards=5, high_ace=True),
        dict(cards=1),
        dict(cards=7, tie_rule="carry"),
        dict(cards=6, prize_order="descending"),
        dict(cards=5, prize_order=(2, 5, 1, 4, 3), tie_rule="discard"),
    ],
)
def test_plays_legal_games(rules):
    rs = Ruleset(**rules)
    for seed in range(3):
        game = play_game(rs, [NashBot(seed=seed), load_bot("goofspiel", "random", seed=seed)], seed=seed)
        assert game.is_over


def test_policy_is_the_tables_equilibrium():
    rs = Ruleset(cards=5, tie_rule="carry")
    table = solve(rs)
    write_table(table, default_path(rs, "points"))
    bots = [NashBot(seed=1), NashBot(seed=2)]
    game = Game(rs, prize_deck=[3, 1, 5, 2, 4])
    for seat, b in enumerate(bots):
        b.new_game(rs, seat)
    game.play([2, 2])  # tie: the 3 carries over
    view0, view1 = game.view(0), game.view(1)
    pos = Position(frozenset({1, 2, 4, 5}), (frozenset({1, 3, 4, 5}),) * 2, 3)
    strat = table.round_strategy(pos, 1)
    assert bots[0].policy(view0) == strat.a
    assert bots[0].last_source == "table"
    p1 = bots[1].policy(view1)
    assert p1 == pytest.approx(strat.b, abs=1e-12)  # symmetric position: same mix
    assert sum(p1.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("tie", ["discard", "carry"])
def test_nash_is_unexploitable_and_others_are_not(tie):
    rs = Ruleset(cards=4, tie_rule=tie)
    br = best_response(rs, NashBot(seed=3, use_table=False))
    assert abs(br.exploitability) < 1e-9
    assert best_response(rs, load_bot("goofspiel", "matcher")).exploitability > 0.5


def test_without_table_plays_the_shipped_table_then_the_subgame(tmp_path, monkeypatch, nash_sources):
    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path))  # nothing built: a fresh install
    rs = Ruleset(cards=13, tie_rule="discard")
    sources = nash_sources(NashBot(seed=5), rs, 4, "random", 1)
    assert sources[:5] == ["compressed"] * 5 and sources[5:] == ["subgame"] * 8  # exact from 8 cards
    # without the compressed table (approximation=False) the named fallback comes back
    bot = NashBot(seed=5, approximation=False)
    assert "fallback" in bot.description
    sources = nash_sources(bot, rs, 4, "random", 1)
    assert sources[0] == "lookahead" and sources[-1] == "subgame"
    assert "table" not in sources


@pytest.mark.parametrize("rules", [dict(players=3), dict(cards_per_bid=2), dict(open_prizes=3)])
def test_unsupported_rulesets_fail_at_new_game(rules):
    with pytest.raises(UnsupportedRuleset, match="does not cover"):
        NashBot().new_game(Ruleset(**rules), 0)


def test_fixed_order_nash_is_unexploitable_and_solves_13_cards_at_once():
    rs = Ruleset(cards=4, tie_rule="carry", prize_order="ascending")
    assert abs(best_response(rs, NashBot(seed=1)).exploitability) < 1e-9
    rs13 = Ruleset(cards=13, tie_rule="discard", prize_order="ascending")
    bot = NashBot(seed=2)
    bot.new_game(rs13, 0)
    game = Game(rs13)
    bot.act(game.view(0))
    assert bot.last_source == "subgame"  # the whole fixed-order game, solved exactly
