"""The carry-over approximation (cardtable.solver.approx) and the exact best
response kernel (cardtable.solver.exploit_kernel): the kernel reproduces the
position-by-position best response, and the nash bot says what it plays from."""

from __future__ import annotations

import pytest

from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel.bots.nash import NashBot
from cardtable.platform.bot import load_bot
from cardtable.solver import Position, solve
from cardtable.solver.approx import CarryApproximation, approx_value_array, exact_layers
from cardtable.solver.exploit import best_response, kernel_best_response, positional_best_response
from cardtable.solver.table import full_layout


@pytest.mark.parametrize("rules", [dict(cards=4, tie_rule="carry"), dict(cards=5, tie_rule="discard"),
                                   dict(cards=4, tie_rule="carry", high_ace=True),
                                   dict(cards=4, tie_rule="carry", prize_order="ascending")])
def test_kernel_matches_positions_for_random_and_tables(rules):
    rs = Ruleset(**rules)
    rand = load_bot("goofspiel", "random")
    k = kernel_best_response(rs, full_layout(rs, "points"), None)
    p = positional_best_response(rs, rand)
    assert k.values == pytest.approx(p.values, abs=1e-9)
    assert best_response(rs, rand).method == "kernel"
    table = solve(rs)
    assert abs(kernel_best_response(rs, table.layout, table.values).exploitability) < 1e-9


def test_kernel_matches_positions_for_the_approximation():
    rs = Ruleset(cards=5, tie_rule="carry")
    # a small subgame limit makes the top layer approximate (exact from 4 cards)
    assert exact_layers(rs, 1500) == 4
    kernel = best_response(rs, NashBot(subgame_limit=1500))
    positions = positional_best_response(rs, NashBot(subgame_limit=1500))
    assert kernel.method == "kernel"
    assert kernel.values == pytest.approx(positions.values, abs=1e-9)
    assert kernel.exploitability > 1e-3  # approximate, measurably


def test_exact_layers_of_the_standard_game():
    assert exact_layers(Ruleset(cards=13, tie_rule="carry")) == 7


def test_approximation_is_exact_where_the_continuation_is_exact():
    # a 2-card position: the children are last rounds, which the approximation values exactly
    rs = Ruleset(cards=5, tie_rule="carry")
    exact = solve(rs)
    approx = CarryApproximation(rs, solve(Ruleset(cards=5, tie_rule="discard")), 1)
    pos = Position(frozenset({2, 5}), (frozenset({1, 4}), frozenset({3, 4})), 0)
    got = approx.round_strategy(pos, 5)
    want = exact.round_strategy(pos, 5)
    assert got.value == pytest.approx(want.value, abs=1e-9)
    assert got.a == pytest.approx(want.a, abs=1e-9)


def test_approximation_checks_its_inputs():
    rs = Ruleset(cards=5, tie_rule="carry")
    with pytest.raises(ValueError, match="discard table of 5 cards"):
        CarryApproximation(rs, solve(Ruleset(cards=4, tie_rule="discard")), 3)
    with pytest.raises(ValueError, match="carry-over rulesets"):
        CarryApproximation(Ruleset(cards=5, tie_rule="discard"), solve(Ruleset(cards=5, tie_rule="discard")), 3)
    with pytest.raises(ValueError, match="6 factors"):
        approx_value_array(rs, solve(Ruleset(cards=5, tie_rule="discard")), 3, scale=[1.0])


def test_nash_names_the_approximation_in_the_standard_game_shape():
    rs = Ruleset(cards=7, tie_rule="carry")
    bot = NashBot(seed=1, subgame_limit=20_000)  # the whole 7-card game does not fit: approximate
    bot.new_game(rs, 0)
    assert "CARRY-OVER APPROXIMATION" in bot.fallback_note
    game = Game(rs, seed=2)
    other = load_bot("goofspiel", "heuristic")
    other.new_game(rs, 1)
    sources = []
    while not game.is_over:
        a = bot.act(game.view(0))
        sources.append(bot.last_source)
        game.play([a, other.act(game.view(1))])
    assert sources[0] == "approximation" and sources[-1] == "subgame"
    assert bot.last_source_text == "exact subgame solution"
    old = NashBot(approximation=False, subgame_limit=20_000)
    old.new_game(rs, 0)
    assert "lookahead FALLBACK" in old.fallback_note
