"""The coach (strategy/coach.py): post-game analysis data, the chart, the hint, the terminal offer."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel.autoplay import play_game
from cardtable.platform.bot import load_bot
from cardtable.solver import Position, UnsupportedRuleset, solve
from cardtable.strategy.coach import (
    analysis,
    chart_lines,
    hint,
    hint_text,
    offer_analysis,
    render_analysis,
    source_words,
)
from cardtable.strategy.nash import NashBot
from cardtable.tui import Terminal


def _game(rules, seed=4):
    rs = Ruleset(**rules)
    return play_game(
        rs,
        [load_bot("goofspiel", "heuristic", seed=1), load_bot("goofspiel", "random", seed=seed)],
        seed=seed,
    )


@pytest.mark.parametrize("tie", ["discard", "carry"])
def test_expected_difference_runs_from_the_value_to_the_final_score(tie):
    game = _game(dict(cards=6, tie_rule=tie))
    table = solve(game.ruleset)
    data = analysis(game, ["h", "r"], table)
    rounds = data["rounds"]
    assert len(rounds) == 6 and all(r["source"] == "table" for r in rounds)
    assert data["start"] == pytest.approx(0.0, abs=1e-9)  # the symmetric game's value
    pts = game.result().points
    assert rounds[-1]["expected_after"] == pytest.approx(pts[0] - pts[1])
    for a, b in zip(rounds, rounds[1:], strict=False):  # after one round == before the next one
        assert a["expected_after"] == pytest.approx(b["expected_before"])
    full = frozenset(game.ruleset.deck)
    assert rounds[0]["expected_before"] == pytest.approx(table.value(Position(full, (full, full))))
    for r in rounds:
        assert sum(r["strategy"][0].values()) == pytest.approx(1.0)
        # a bid inside the equilibrium's support gives up nothing; outside it, a positive amount
        for seat in (0, 1):
            p = r["strategy"][seat].get(str(r["bids"][seat]), 0.0)
            assert (r["given_up"][seat] > 0) == (p < 1e-9) or r["given_up"][seat] < 1e-6
    assert data["given_up"][1] == pytest.approx(sum(r["given_up"][1] for r in rounds))


def test_without_table_early_rounds_come_from_the_shipped_compressed_table(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path))  # nothing built
    for ties, first in (("carry", "approximation"), ("discard", "compressed")):
        game = _game(dict(cards=11, tie_rule=ties))
        data = analysis(game, ["h", "r"], None, limit=20_000)
        sources = [r["source"] for r in data["rounds"]]
        assert sources[0] == first and sources[-1] == "subgame" and "not solved" not in sources
        assert all(r["expected_after"] is not None for r in data["rounds"])  # every round analysed
        assert data["start"] == pytest.approx(0.0, abs=0.05)  # the symmetric game's value, near-exact


def test_without_any_source_early_rounds_are_labelled_not_solved(tmp_path, monkeypatch):
    from cardtable.solver import compressed

    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path))
    monkeypatch.setattr(compressed, "DATA_DIR", tmp_path)  # a package without its shipped tables
    compressed._bundled.cache_clear()
    game = _game(dict(cards=11, tie_rule="carry"))
    data = analysis(game, ["h", "r"], None, limit=20_000)
    compressed._bundled.cache_clear()
    sources = [r["source"] for r in data["rounds"]]
    assert sources[0] == "not solved" and sources[-1] == "subgame"
    assert data["start"] is None and data["rounds"][0]["expected_after"] is None
    assert "not solved" in data["sources"]
    lines = chart_lines(data)
    assert "not solved" in lines[0]
    # no discard table of 11 cards here: the words say which one-time build gives the approximation
    assert "cardtable solve -n 11 --ties discard" in data["sources"]["not solved"]


def test_source_words_for_the_standard_game_name_the_discard_build():
    words = source_words("not solved", Ruleset())  # 13 cards, carry-over: the default game
    assert "`cardtable solve -n 13 --ties discard`" in words and "carry-over approximation" in words
    assert "cardtable solve" not in source_words("not solved", Ruleset(tie_rule="discard"))
    assert "not the exact equilibrium" in source_words("approximation", Ruleset())


def test_carry_over_without_table_uses_the_nash_bots_approximation_labelled_as_such():
    # 8 cards carry-over with a small limit: the whole game is not solved exactly, so the early
    # rounds come from the carry-over approximation (discard table solved in memory), the rest exactly
    limit = 20_000
    game = _game(dict(cards=8, tie_rule="carry"), seed=3)
    data = analysis(game, ["h", "r"], None, limit=limit)
    rounds = data["rounds"]
    sources = [r["source"] for r in rounds]
    assert sources[0] == "approximation" and sources[-1] == "subgame"
    assert sources == sorted(sources)  # approximation first, then exact ("approximation" < "subgame")
    assert "not the exact equilibrium" in data["sources"]["approximation"]
    assert data["start"] == pytest.approx(0.0, abs=1e-9)  # symmetric position
    pts = game.result().points
    assert rounds[-1]["expected_after"] == pytest.approx(pts[0] - pts[1])
    for a, b in zip(rounds, rounds[1:], strict=False):  # the chain holds across the change of source
        assert a["expected_after"] == pytest.approx(b["expected_before"])
    replay_game = Game(game.ruleset, prize_deck=game.initial_deck)
    for r, played in zip(rounds, game.history, strict=True):
        assert all(g >= 0 for g in r["given_up"])
        for seat in (0, 1):  # each player's mix is what the nash bot plays in that seat
            assert sum(r["strategy"][seat].values()) == pytest.approx(1.0)
            bot = NashBot(seed=0, subgame_limit=limit)
            bot.new_game(game.ruleset, seat)
            mix = bot.policy(replay_game.view(seat))
            assert bot.last_source == r["source"]
            assert {str(c): p for c, p in mix.items()} == pytest.approx(r["strategy"][seat], abs=1e-9)
        replay_game.play([b[0] for b in played.bids])
    lines = chart_lines(data)
    assert "~" in lines[0]  # the start value is the approximation's
    assert not any("~" in line for line in lines[-3:])  # the last rounds are exact
    buf = io.StringIO()
    render_analysis(Console(file=buf, width=200), data)
    out = buf.getvalue()
    assert "approximation: carry-over approximation, not the exact equilibrium" in out
    assert "(~: carry-over approximation)" in out


def test_approximation_off_labels_the_early_rounds_not_solved():
    game = _game(dict(cards=8, tie_rule="carry"), seed=3)
    from cardtable.solver.analysis import analyze_game

    rounds = analyze_game(game, None, 20_000, approximation=False)
    assert rounds[0].source == "not solved" and rounds[0].strategy is None


def test_chart_draws_bars_both_ways():
    data = {
        "start": 0.0,
        "rounds": [{"number": 1, "expected_after": 4.0}, {"number": 2, "expected_after": -2.0}],
    }
    lines = chart_lines(data, width=20)
    assert lines[1].endswith("│" + "█" * 10) and "+4.00" in lines[1]
    assert "█" * 5 + "│" in lines[2] and "-2.00" in lines[2]


def test_render_analysis_prints_table_and_chart():
    game = _game(dict(cards=4, tie_rule="discard"))
    buf = io.StringIO()
    render_analysis(Console(file=buf, width=200), analysis(game, ["Ann", "Bob"]))
    out = buf.getvalue()
    assert "equilibrium 1" in out and "given up versus equilibrium" in out and "│" in out


def test_unsupported_rulesets_raise():
    game = _game(dict(cards=4, players=2, cards_per_bid=2, tie_rule="discard"))
    with pytest.raises(UnsupportedRuleset):
        analysis(game, ["a", "b"])


def test_hint_is_the_equilibrium_for_the_viewer():
    rs = Ruleset(cards=5, tie_rule="discard")
    game = Game(rs, seed=2)
    game.play([3, 4])
    bot = NashBot(seed=0)
    bot.new_game(rs, 1)
    h = hint(bot, game.view(1))
    assert h["exact"] and h["round"] == 2
    assert set(h["strategy"]) == {str(c) for c in game.hands[1]}
    assert sum(h["strategy"].values()) == pytest.approx(1.0)
    from cardtable.solver.position import position_from_view

    pos, prize = position_from_view(game.view(1))
    strat = solve(rs).round_strategy(pos.swapped(), prize)
    assert h["strategy"] == pytest.approx({str(c): p for c, p in strat.a.items()}, abs=1e-9)


def _terminal(answers):
    buf = io.StringIO()
    it = iter(answers)

    def read(prompt, hidden):
        buf.write(prompt)
        return next(it)

    return Terminal(Console(file=buf, width=200), input_fn=read), buf


def test_offer_analysis_yes_no_and_bad_answers():
    game = _game(dict(cards=4, tie_rule="carry"))
    term, buf = _terminal(["perhaps", "y"])
    offer_analysis(term, [game], ["You", "heuristic"])
    out = buf.getvalue()
    assert "answer y or n" in out and "given up versus equilibrium" in out
    term, buf = _terminal([""])
    offer_analysis(term, [game], ["You", "heuristic"])
    assert "Show the analysis of this game" in buf.getvalue() and "given up versus" not in buf.getvalue()
    three = play_game(
        Ruleset(cards=3, players=3), [load_bot("goofspiel", "random", seed=s) for s in range(3)], seed=1
    )
    term, buf = _terminal([])
    offer_analysis(term, [three], ["a", "b", "c"])  # 3 players: nothing to offer
    assert buf.getvalue() == ""


def test_hint_text_names_the_source_and_rounds_the_mix():
    exact = {
        "round": 1,
        "strategy": {"13": 0.523, "12": 0.474, "1": 0.003},
        "source": "solved table",
        "exact": True,
    }
    assert hint_text(exact) == "Hint — equilibrium mix for this round (solved table): K 52% · Q 47%"
    approx = dict(
        exact, exact=False, source="carry-over approximation (an approximation, not the equilibrium)"
    )
    assert hint_text(approx).startswith("Hint — approximate mix for this round (carry-over approximation")
