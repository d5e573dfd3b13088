"""The carry-over approximation (cardtable.solver.approx) and the exact best
response kernel (cardtable.solver.exploit_kernel): the kernel reproduces the
position-by-position best response, and the nash bot says what it plays from."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from cardtable.goofspiel import Ruleset
from cardtable.platform.bot import load_bot
from cardtable.solver import ImpossiblePosition, Position, solve
from cardtable.solver.approx import (
    DEFAULT_POT_MODEL,
    NCOEF,
    CarryApproximation,
    approx_value_array,
    default_coef,
    exact_layers,
    pot_model_data,
)
from cardtable.solver.equilibrium import EquilibriumSource
from cardtable.solver.exploit import (
    best_response,
    kernel_best_response,
    positional_best_response,
)
from cardtable.solver.exploit_kernel import layout_best_response
from cardtable.solver.table import full_layout
from cardtable.strategy.nash import NashBot


@pytest.mark.parametrize(
    "rules",
    [
        dict(cards=4, tie_rule="carry"),
        dict(cards=5, tie_rule="discard"),
        dict(cards=4, tie_rule="carry", high_ace=True),
        dict(cards=4, tie_rule="carry", prize_order="ascending"),
    ],
)
def test_kernel_matches_positions_for_random_and_tables(rules):
    rs = Ruleset(**rules)
    rand = load_bot("goofspiel", "random")
    k = kernel_best_response(rs, full_layout(rs, "points"), None)
    p = positional_best_response(rs, rand)
    assert k.values == pytest.approx(p.values, abs=1e-9)
    assert best_response(rs, rand).method == ("kernel" if rs.fixed_order else "random kernel")
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
    # the 8-card subgame needs 690,228 matrix games once the pots no game reaches are
    # skipped (6,151,512 slots), the 9-card one 4,509,030: exact from 8 cards per hand
    assert exact_layers(Ruleset(cards=13, tie_rule="carry")) == 8
    assert exact_layers(Ruleset(cards=13, tie_rule="carry"), 600_000) == 7


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
        CarryApproximation(
            Ruleset(cards=5, tie_rule="discard"), solve(Ruleset(cards=5, tie_rule="discard")), 3
        )
    with pytest.raises(ValueError, match="6 factors"):
        approx_value_array(rs, solve(Ruleset(cards=5, tie_rule="discard")), 3, scale=[1.0])


def test_nash_names_the_approximation_in_the_standard_game_shape(nash_sources):
    rs = Ruleset(cards=7, tie_rule="carry")
    bot = NashBot(seed=1, subgame_limit=20_000)  # the whole 7-card game does not fit: approximate
    bot.new_game(rs, 0)
    assert "CARRY-OVER APPROXIMATION" in bot.fallback_note
    assert "--layers 6` (a one-time build of the low layers) makes it exact from" in bot.fallback_note
    sources = nash_sources(bot, rs, 2, "heuristic")
    assert sources[0] == "approximation" and sources[-1] == "subgame"
    assert bot.last_source_text == "exact subgame solution"
    old = NashBot(approximation=False, subgame_limit=20_000)
    old.new_game(rs, 0)
    assert "lookahead FALLBACK" in old.fallback_note


# -- the fitted pot model (issue 10, part 2) ------------------------------------------------


def _positions(n: int, kmin: int):
    """Every carry-over position of ``n`` cards with at least ``kmin`` cards per hand:
    (position, prize), pots = sums of subsets of the prizes already revealed."""
    deck = range(1, n + 1)
    for k in range(kmin, n + 1):
        for prizes in combinations(deck, k):
            played = [c for c in deck if c not in prizes]
            pots = sorted({sum(s) for j in range(len(played) + 1) for s in combinations(played, j)})
            for a in combinations(deck, k):
                for b in combinations(deck, k):
                    for pot in pots:
                        pos = Position(frozenset(prizes), (frozenset(a), frozenset(b)), pot)
                        try:
                            pos.validate(Ruleset(cards=n, tie_rule="carry"))
                        except ImpossiblePosition:  # a pot these hands cannot have carried
                            continue
                        for prize in prizes:
                            yield pos, prize


@pytest.mark.parametrize("n,kmin", [(4, 1), (5, 1), (6, 5)])
def test_approximation_plays_a_distribution_at_every_position(n, kmin):
    rs = Ruleset(cards=n, tie_rule="carry")
    approx = CarryApproximation(rs, solve(Ruleset(cards=n, tie_rule="discard")), 1)
    assert approx.pot_model == DEFAULT_POT_MODEL
    count = 0
    for pos, prize in _positions(n, kmin):
        mix = approx.round_strategy(pos, prize).a
        assert set(mix) == set(pos.hands[0])
        assert min(mix.values()) >= -1e-12
        assert sum(mix.values()) == pytest.approx(1.0, abs=1e-9)
        count += 1
    assert count > 1000


def test_approximation_is_an_exact_equilibrium_where_it_solves_exactly():
    rs = Ruleset(cards=6, tie_rule="carry")
    exact = solve(rs)
    source = EquilibriumSource(rs, subgame_limit=300)
    assert source.approx is not None and source.approx.exact == 3
    seen = set()
    for pos, prize in _positions(6, 1):
        if pos.k > 3 or (pos.k, pos.pot) in seen and pos.k > 1:
            continue
        try:
            want = exact.round_strategy(pos, prize)
        except ImpossiblePosition:  # a pot no game reaches with these hands
            continue
        mix, src = source.strategy(pos, prize)
        assert src == "subgame"
        M = want.matrix
        x = np.array([mix[c] for c in sorted(pos.hands[0], key=rs.strength)])
        v = want.value
        # the mix guarantees the exact round value against every reply: an exact equilibrium
        assert (x @ M).min() >= v - 1e-9
        seen.add((pos.k, pos.pot))
    assert len(seen) > 10


def test_fitted_pot_model_is_measurably_less_exploitable_than_the_old_one():
    # 6 cards, carry-over, rounds with more than 2 cards per hand approximate: exact best
    # responses (kernel). The old model (1) measured 2.003 points per game here.
    rs = Ruleset(cards=6, tie_rule="carry")
    discard = solve(Ruleset(cards=6, tie_rule="discard"))
    old = kernel_best_response(rs, *approx_value_array(rs, discard, 2, pot_model=1)).exploitability
    new = kernel_best_response(rs, *approx_value_array(rs, discard, 2, pot_model=3)).exploitability
    assert old > 1.9
    assert new < 1.5  # the fitted model 3: 1.239


def test_value_model_4_beats_model_3_where_it_was_fitted_for():
    # 8 cards, carry-over, the first two rounds approximate (as the 10-card game with exact
    # subgames from 8 cards left): model 3 measured 0.386 points per game, model 4 0.209
    rs = Ruleset(cards=8, tie_rule="carry")
    discard = solve(Ruleset(cards=8, tie_rule="discard"))
    got = {
        m: kernel_best_response(rs, *approx_value_array(rs, discard, 6, pot_model=m)).exploitability
        for m in (3, 4)
    }
    assert DEFAULT_POT_MODEL == 4
    assert got[3] > 0.35
    assert got[4] < 0.25


def test_pot_model_data_file_says_how_it_was_fitted():
    for model, width in ((3, 8), (4, NCOEF)):
        data = pot_model_data(model)
        assert data["fitted_on_cards"] and "least squares" in data["about"]
        assert len(data["features"]["pot0"]) + len(data["features"]["pot"]) == width
        coef = default_coef(13, model=model)
        assert coef.shape == (14, NCOEF) and np.isfinite(coef).all()
        assert (coef[:, :width] != 0).any(axis=1).all() and not coef[:, width:].any()
    assert not default_coef(13, model=1).any()  # the unfitted models read no coefficients
    # a candidate model (scripts/fit_pot_model.py --out): row k from p = cards - k rounds played
    cand = {
        "by_rounds": {"1": {"pot0": [1.0] * 5, "pot": [1.0] * 3}, "2": {"pot0": [2.0] * 5, "pot": [2.0] * 3}}
    }
    got = default_coef(9, cand)
    pad = [0.0] * (NCOEF - 8)
    assert got[8].tolist() == [1.0] * 8 + pad and got[7].tolist() == [2.0] * 8 + pad
    assert got[3].tolist() == [2.0] * 8 + pad
    assert got[9].tolist() == [1.0] * 8 + pad  # p = 0 takes the smallest fitted p
    # a deck fitted on its own table (by_cards) takes its own coefficients, the others the pooled
    cand["by_cards"] = {"9": {"by_rounds": {"1": {"pot0": [3.0] * 5, "pot": [3.0] * 3}}}}
    assert default_coef(9, cand)[7].tolist() == [3.0] * 8 + pad
    assert default_coef(10, cand)[8].tolist() == [2.0] * 8 + pad
    assert pot_model_data(4)["by_cards"]["13"]["by_rounds"]  # the 13-card deck's own fit
    rs = Ruleset(cards=5, tie_rule="carry")
    with pytest.raises(ValueError, match="pot_model must be"):
        CarryApproximation(rs, solve(Ruleset(cards=5, tie_rule="discard")), 3, pot_model=7)
    with pytest.raises(ValueError, match=rf"coef needs shape \(6, {NCOEF}\)"):
        CarryApproximation(rs, solve(Ruleset(cards=5, tie_rule="discard")), 3, coef=np.ones(3))


def test_best_response_copies_the_exact_layers_without_changing_the_result():
    # below the first approximate layer the bot plays a subgame-perfect equilibrium:
    # a best response there scores the exact value, so the kernel copies those layers
    rs = Ruleset(cards=6, tie_rule="carry")
    lay, vals = approx_value_array(rs, solve(Ruleset(cards=6, tie_rule="discard")), 4)
    searched = layout_best_response(lay, vals)
    copied = layout_best_response(lay, vals, exact_below=4)
    assert copied[0] == pytest.approx(searched[0], abs=1e-9)
    assert copied[1] == pytest.approx(searched[1], abs=1e-9)
    assert searched[0] > 1e-3  # approximate above, measurably
    # copying a layer that is not exact would change the result: the check has teeth
    wrong = layout_best_response(lay, vals, exact_below=6)
    assert abs(wrong[0] - searched[0]) > 1e-3
    # the bot hands the kernel its first approximate layer
    got = EquilibriumSource(rs, subgame_limit=300).best_response_values()
    assert len(got) == 3 and got[2] == 3


def test_fit_script_writes_a_model_the_approximation_reads(tmp_path):
    """scripts/fit_pot_model.py on small exact tables: pooled coefficients and a deck's own
    (``--own``), which ``default_coef`` picks for that deck; in sample, least squares over
    features that include ``D`` does at least as well as ``pot_model`` 1 (a multiple of ``D``)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from typer.testing import CliRunner

    from cardtable.cli import app

    for n in (5, 6):
        for ties in ("carry", "discard"):
            r = CliRunner().invoke(app, ["solve", "-n", str(n), "--ties", ties, "--cache", str(tmp_path)])
            assert r.exit_code == 0, r.output
    out = tmp_path / "model.json"
    script = Path(__file__).resolve().parents[2] / "scripts" / "fit_pot_model.py"
    res = subprocess.run(
        [
            sys.executable,
            str(script),
            "--model",
            "4",
            "--cache",
            str(tmp_path),
            "--fit",
            "5",
            "--own",
            "6",
            "--kmin",
            "3",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    data = json.loads(out.read_text())
    assert data["model"] == 4 and set(data["by_cards"]) == {"6"}
    own = data["by_cards"]["6"]["by_rounds"]
    assert default_coef(6, data, 4)[5, :16].tolist() == own["1"]["pot0"] + own["1"]["pot"]
    assert (
        default_coef(5, data, 4)[4, :16].tolist()
        == data["by_rounds"]["1"]["pot0"] + data["by_rounds"]["1"]["pot"]
    )
    rows = [r for r in data["rms_points"] if r["coefficients"] == "own"]
    assert rows and all(r["rms_fit"] <= r["rms_model1"] + 1e-9 for r in rows)
    rs = Ruleset(cards=6, tie_rule="carry")
    approx = CarryApproximation(
        rs, solve(Ruleset(cards=6, tie_rule="discard")), 3, coef=default_coef(6, data, 4)
    )
    pos = Position(frozenset(range(1, 7)), (frozenset(range(1, 7)), frozenset(range(1, 7))), 0)
    mix = approx.round_strategy(pos, 6).a
    assert sum(mix.values()) == pytest.approx(1.0)
