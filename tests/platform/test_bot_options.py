"""Issue 24, section 1: bot options follow one declared schema per bot (type, range, unit),
checked at every construction (library, CLI, tournaments, web); a wrong value is refused
with BotSpecError, never turned into a wrong result; every policy is a distribution."""

from __future__ import annotations

import inspect
import math
import re

import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel.bots.heuristic import HeuristicBot
from cardtable.goofspiel.bots.mcts import MCTSBot
from cardtable.platform.bot import (
    Bot,
    BotSpecError,
    Option,
    bot_class,
    bot_names,
    check_bot_options,
    check_distribution,
    load_bot,
    load_bot_spec,
)
from cardtable.platform.tournament import (
    TournamentConfig,
    TournamentError,
    parse_bot_spec,
    validate,
)
from cardtable.solver.exploit import (
    BestResponse,
    ImpossibleResult,
    best_response,
    check_figures,
)
from cardtable.strategy.bait import BaitBot

runner = CliRunner()
CLASSES = [bot_class(g, n) for g in ("goofspiel", "golf") for n in bot_names(g)] + [BaitBot]


def invoke(*args):
    return runner.invoke(app, list(args), env={"COLUMNS": "400"})


# -- the schema matches the constructor ----------------------------------------------------------


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: f"{c.__module__.split('.')[1]}-{c.name}")
def test_schema_names_the_constructor_options_and_their_defaults(cls):
    params = {
        p.name: p.default
        for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
        if p.name != "seed"
    }
    assert list(cls.option_schema) == list(params)
    for key, option in cls.option_schema.items():
        assert option.default == params[key], key
        assert option.check(option.default) == option.default, key  # every default is accepted
        assert option.help, key


def test_a_schema_that_does_not_match_the_constructor_is_refused_when_the_class_is_made():
    with pytest.raises(TypeError, match="option_schema names"):

        class Wrong(Bot):  # noqa: F841
            option_schema = {"depth": Option(int, 3, 1, 10)}

            def __init__(self, seed=None, width: int = 3):
                super().__init__(seed)

            def act(self, view):
                return None


# -- the named examples --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, options, message",
    [
        (
            "heuristic",
            {"noise": 5},
            r"heuristic: option noise must be a number from 0 to 1 \(probability\), not 5$",
        ),
        ("heuristic", {"noise": -0.1}, "option noise must be a number from 0 to 1"),
        ("heuristic", {"noise": math.nan}, "option noise must be a number from 0 to 1"),
        ("heuristic", {"lam": -3}, "option lam must be a number from 0 to 100"),
        ("heuristic", {"lam": "0.5\r"}, r"option lam must be a number .*, not '0.5\\r'"),
        ("heuristic", {"foo": 1}, "heuristic: unknown option 'foo'; options: lam, noise"),
        (
            "nash",
            {"subgame_limit": -1},
            "nash: option subgame_limit must be a whole number from 0 to 100,000,000",
        ),
        ("nash", {"objective": "draw"}, "option objective must be one of points, win"),
        ("nash", {"use_table": 1}, "option use_table must be true or false"),
        (
            "mcts",
            {"iterations": 99999999999999999999},
            "option iterations must be a whole number from 1 to 10,000,000",
        ),
        ("mcts", {"iterations": 1e99}, "option iterations must be a whole number"),
        ("mcts", {"iterations": True}, "option iterations must be a whole number"),
        ("mcts", {"time_limit": 1e308}, r"option time_limit must be a number above 0 and at most 3600 \(s\)"),
        ("mcts", {"time_limit": 0}, "option time_limit must be a number above 0"),
        ("mcts", {"c": math.inf}, "mcts: option c must be a number from 0 to 100"),
        ("mcts", {"gamma": 0}, "option gamma must be a number above 0 and at most 1"),
        ("exploiter", {"smoothing": 1}, "option smoothing must be a number above 0 and below 1"),
        ("random", {"noise": 0.1}, "random: unknown option 'noise'; options: none"),
    ],
)
def test_library_refuses_wrong_values_with_a_clear_message(name, options, message):
    with pytest.raises(BotSpecError, match=message):
        load_bot("goofspiel", name, **options)


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("random", {"snap_rate": 1.5}, "option snap_rate must be a number from 0 to 1"),
        ("heuristic", {"end_margin": math.inf}, "option end_margin must be a number from 0 to 100"),
        ("search", {"determinizations": 0}, "option determinizations must be a whole number from 1 to 1,000"),
        (
            "search",
            {"swap_margin": 1.0},
            "search: unknown option 'swap_margin'; options: determinizations, steal_width",
        ),
    ],
)
def test_golf_bots_are_checked_the_same_way(name, options, message):
    with pytest.raises(BotSpecError, match=message):
        load_bot("golf", name, **options)


def test_direct_construction_goes_through_the_same_check():
    with pytest.raises(BotSpecError, match="option noise must be a number from 0 to 1"):
        HeuristicBot(noise=5)
    with pytest.raises(BotSpecError, match="option noise must be a number from 0 to 1"):
        HeuristicBot(0, 0.5, 5)  # positional, too
    with pytest.raises(BotSpecError, match="mcts: unknown option 'iteration'"):
        MCTSBot(iteration=5)
    with pytest.raises(BotSpecError, match="bait: option weak must be a goofspiel bot"):
        BaitBot(weak="nope")
    with pytest.raises(BotSpecError, match="exploiter: option smoothing"):
        BaitBot(exploiter_options={"smoothing": 2})
    with pytest.raises(BotSpecError, match="bait: option bait_games must be a whole number from 0"):
        BaitBot(bait_games=-1)


def test_accepted_values_reach_the_bot_as_declared():
    bot = load_bot("goofspiel", "heuristic", lam=1, noise=1)
    assert bot.lam == 1.0 and isinstance(bot.lam, float) and bot.noise == 1.0
    assert load_bot("goofspiel", "mcts", iterations=10_000_000, time_limit=3600).time_limit == 3600.0
    assert BaitBot(weak="heuristic").weak.name == "heuristic"
    assert check_bot_options(MCTSBot, {"c": 2}) == {"c": 2.0}


@pytest.mark.parametrize(
    "spec, message",
    [
        ("heuristic:noise=5", "option noise must be a number from 0 to 1"),
        ("heuristic:lam=-3", "option lam must be a number from 0 to 100"),
        ("nash:subgame_limit=-1", "option subgame_limit must be a whole number from 0"),
        (
            "mcts:iterations=99999999999999999999",
            "option iterations must be a whole number from 1 to 10,000,000",
        ),
        ("mcts:time_limit=1e308", "option time_limit must be a number above 0 and at most 3600"),
        ("mcts:iterations=1e99", "option iterations must be a whole number"),
        ("mcts:c=inf", "option c must be a number from 0 to 100"),
        ("mcts:c=nan", "option c must be a number from 0 to 100"),
        ("mcts:seed=3", "option 'seed' is set by --seed"),
    ],
)
def test_specs_are_refused_with_the_same_message(spec, message):
    with pytest.raises(BotSpecError, match=message):
        load_bot_spec("goofspiel", spec)


def test_tournament_refuses_a_wrong_value_before_any_game(tmp_path):
    config = TournamentConfig(
        bots=(parse_bot_spec("random"), parse_bot_spec("heuristic:noise=5")), ruleset="cards=3", games=2
    )
    with pytest.raises(TournamentError, match="heuristic: option noise must be a number from 0 to 1"):
        validate(config)
    db = tmp_path / "t.sqlite"
    res = invoke(
        "tournament", "random", "mcts:time_limit=1e308", "-r", "cards=3", "--games", "2", "--db", str(db)
    )
    assert res.exit_code == 2, res.output
    assert "option time_limit must be a number above 0 and at most 3600" in res.output
    assert not db.exists()


@pytest.mark.parametrize(
    "command",
    [
        ["exploit", "heuristic:noise=5", "-n", "3"],
        ["exploit", "heuristic:lam=-3", "-n", "3"],
        ["exploit", "nash:subgame_limit=-1", "-n", "3"],
        ["exploit", "mcts:iterations=99999999999999999999", "-n", "3"],
        ["play", "--vs", "heuristic:noise=5", "--cards", "3", "--no-save"],
        ["play", "--auto", "--vs", "mcts:time_limit=1e308", "--cards", "3", "--no-save"],
    ],
)
def test_cli_refuses_with_exit_2_and_prints_no_figure(command):
    res = invoke(*command)
    assert res.exit_code == 2, res.output
    assert "must be" in res.output and "points per game" not in res.output


# -- policies are probability distributions ------------------------------------------------------


def test_check_distribution():
    assert check_distribution({1: 0.5, 2: 0.5}, moves=(1, 2)) == {1: 0.5, 2: 0.5}
    assert check_distribution({1: 1.0, 3: 0.0}, moves=(1, 2)) == {
        1: 1.0,
        3: 0.0,
    }  # 0 off the hand is harmless
    for dist, message in [
        ({1: -1.5, 2: 2.5}, "probability -1.5 of 1 is negative"),
        ({1: 0.5, 2: 0.4}, "sum to 0.9"),
        ({1: math.nan, 2: 1.0}, "not a finite number"),
        ({}, "empty"),
        ({4: 1.0}, "4 is not one of the legal moves"),
    ]:
        with pytest.raises(ValueError, match=message):
            check_distribution(dist, moves=(1, 2))


POLICY_BOTS = [
    ("random", {}),
    ("matcher", {}),
    ("heuristic", {}),
    ("heuristic", {"noise": 1}),
    ("heuristic", {"noise": 0.3, "lam": 0}),
    ("nash", {}),
    ("exploiter", {}),
    ("mcts", {"iterations": 30}),
]


@pytest.mark.parametrize(
    "rules", [dict(cards=4, tie_rule="carry"), dict(cards=5, tie_rule="discard", high_ace=True)]
)
@pytest.mark.parametrize("name, options", POLICY_BOTS)
def test_every_policy_is_a_distribution_over_the_hand(rules, name, options):
    rs = Ruleset(**rules)
    for g in range(2):
        game = Game(rs, seed=g)
        bot, other = load_bot("goofspiel", name, seed=g, **options), load_bot("goofspiel", "random", seed=g)
        bot.new_game(rs, 0)
        other.new_game(rs, 1)
        while game.phase != "over":
            view = game.view(0)
            dist = bot.search_policy(view) if name == "mcts" else bot.policy(view)
            check_distribution(dist, view.hand)
            bid = bot.act(view)
            assert bid[0] in view.hand
            if name != "mcts":  # (each mcts call is a new random search)
                assert dist.get(bid[0], 0) > 0  # it plays from its own mix
            game.play([bid, other.act(game.view(1))])


# -- exploit refuses an impossible figure -------------------------------------------------------


def test_check_figures_bounds_are_the_games_points():
    rs = Ruleset(cards=3)  # 6 prize points
    assert check_figures(rs, BestResponse((6.0, -6.0), 0.0, 1)).values == (6.0, -6.0)
    for values, expl in [((16.458333, 16.458333), 16.458333), ((-1.0, -1.0), -1.0), ((math.nan, 0.0), 0.0)]:
        with pytest.raises(ImpossibleResult, match="in a game of 6 prize points"):
            check_figures(rs, BestResponse(values, expl, 1))


def test_a_policy_that_is_no_distribution_stops_the_best_response(monkeypatch):
    """The issue's cause: noise=5 gave {1: -1.5, 2: 2.5}; such a policy now stops the search."""
    monkeypatch.setattr(
        HeuristicBot, "policy", lambda self, view: {min(view.hand): -1.5, max(view.hand): 2.5}
    )
    # with noise the bot's mixes go through the search over positions, which asks its policy
    with pytest.raises(ImpossibleResult, match="heuristic: policy .* is negative"):
        best_response(Ruleset(cards=3), HeuristicBot(noise=0.1))
    res = invoke("exploit", "heuristic:noise=0.1", "-n", "3")
    assert res.exit_code == 1, res.output
    assert "not a probability distribution" in res.output and "points per game" not in res.output


def test_exploit_exits_1_rather_than_print_a_figure_out_of_range(monkeypatch):
    import cardtable.solver.exploit as exploit

    monkeypatch.setattr(
        exploit,
        "positional_best_response",
        lambda rs, bot: BestResponse((16.458333, 16.458333), 16.458333, 10),
    )
    res = invoke("exploit", "heuristic:noise=0.1", "-n", "3")  # noise: the search over positions
    assert res.exit_code == 1, res.output
    assert "16.458333 points per game is impossible in a game of 6 prize points" in res.output
    assert "exploitability of" not in res.output


# -- the listing ---------------------------------------------------------------------------------


def test_bots_command_lists_every_option_with_its_range():
    res = invoke("bots")
    assert res.exit_code == 0, res.output
    # each bot's options in a column as wide as its longest name, then the range
    assert re.search(r"noise +0\.\.1 probability, default 0\.0", res.output)
    assert re.search(r"time_limit +> 0, <= 3600 s, default unset", res.output)
    assert re.search(r"determinizations +1\.\.1,000 deals per decision, default 16", res.output)
    for game in ("goofspiel", "golf"):
        for name in bot_names(game):
            for key in bot_class(game, name).option_schema:
                assert f"      {key} " in res.output, (game, name, key)
    res = invoke("bots", "chess")
    assert res.exit_code == 2 and "unknown game 'chess'" in res.output


def test_the_hint_shows_only_a_distribution():
    from cardtable.strategy.coach import hint

    class Broken:
        last_source, last_source_text = "table", "solved table"

        def policy(self, view):
            return {min(view.hand): -1.5, max(view.hand): 2.5}

    view = Game(Ruleset(cards=3), seed=1).view(0)
    with pytest.raises(ValueError, match="hint .* is not a probability distribution"):
        hint(Broken(), view)
    assert sum(hint(load_bot("goofspiel", "nash"), view)["strategy"].values()) == pytest.approx(1.0)


# -- odd spellings of numbers (issue 24.1, second pass) ------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        "mcts:iterations=1_000",
        "mcts:iterations=\u0663",
        "nash:subgame_limit=\u0663",
        "heuristic:lam=\u0663",
        "heuristic:noise=\u0660.\u0665",
        "mcts:iterations=0x10",
        "mcts:iterations=1e3",
        "heuristic:noise=nan",
        "heuristic:noise=",
        "heuristic:noise=0.5\u00a0",
        "heuristic:noise=0.5\u2028",
        "heuristic:noise=\uff10",
        "heuristic:noise=1" + "0" * 400,
        "mcts:iterations=" + "9" * 5000,
        "heuristic:noise=1,noise=0",
        "heuristic:n\u00f3ise=1",
    ],
)
@pytest.mark.parametrize("game_spec", ["goofspiel"])
def test_odd_number_spellings_are_refused(spec, game_spec):
    with pytest.raises(BotSpecError):
        load_bot_spec(game_spec, spec)


@pytest.mark.parametrize(
    "spec",
    [
        "search:determinizations=\u0663",
        "search:steal_width=1_0",
        "heuristic:end_margin=\u0663",
        "random:snap_rate=1" + "0" * 400,
    ],
)
def test_odd_number_spellings_are_refused_for_golf_bots(spec):
    with pytest.raises(BotSpecError):
        load_bot_spec("golf", spec)


def test_plain_spellings_still_read():
    assert load_bot_spec("goofspiel", "mcts:iterations= +5 ,c=-0,time_limit=1e1").iterations == 5
    assert load_bot_spec("goofspiel", "heuristic:noise=.5").noise == 0.5


@pytest.mark.parametrize("option", ["noise", "lam"])
def test_an_int_too_large_for_a_float_is_a_bot_spec_error(option):
    with pytest.raises(BotSpecError, match=f"option {option} must be a number"):
        load_bot("goofspiel", "heuristic", **{option: 10**400})


def test_cli_refuses_a_non_ascii_digit_with_exit_2():
    res = invoke("exploit", "mcts:iterations=\u0663", "-n", "3")
    assert res.exit_code == 2, res.output
    assert "points per game" not in res.output


@pytest.mark.parametrize(
    "line, message",
    [
        ("seed = 1.5", "seed must be a whole number"),
        ('seed = "abc"', "seed must be a whole number"),
        ("seed = true", "seed must be a whole number"),
        ("time_ms = true", "time_ms must be a positive whole number"),
        ('time_ms = "100"', "time_ms must be a positive whole number, not '100'"),
        (
            "games = 2.0",
            "games per pairing must be an even number >= 2 (both seatings of each deal), not 2.0",
        ),
        # a helper's finding: a ruleset that is no string gave a traceback
        (
            "ruleset = {cards = 3}",
            "ruleset must be a string, not dict",
        ),
        ('ruleset = ["cards=3"]', "ruleset must be a string, not list"),
        ("ruleset = 3", "ruleset must be a string, not int"),
        ('ruleset = ""', "the rules text is empty"),
        ("game = 1", "game 1 has no tournament support"),
    ],
)
def test_tournament_config_file_values_of_the_wrong_type_are_refused(tmp_path, line, message):
    config = tmp_path / "c.toml"
    base = {"games": "games = 2", "ruleset": 'ruleset = "cards=3"'}
    base[line.split(" =")[0]] = line  # the line replaces its key's good value
    config.write_text('bots = ["random", "matcher"]\n' + "\n".join(base.values()) + "\n")
    db = tmp_path / "t.sqlite"
    res = invoke("tournament", "--config", str(config), "--backend", "serial", "--db", str(db))
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())
    assert not db.exists()
