"""Fuzz: bot option strings for every bot of both games (issue 24, section 1). Any
specification is either refused (BotSpecError in the library, exit code 2 on the command
line) or gives a bot that plays legal games whose mixed bids are probability
distributions, and ``exploit`` prints only figures inside [0, the game's points]."""

from __future__ import annotations

import re

from hypothesis import event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.golf.driver import play_game
from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.state import GolfGame
from cardtable.goofspiel import Game, Ruleset
from cardtable.platform.bot import (
    BotSpecError,
    bot_class,
    bot_names,
    check_distribution,
    load_bot,
    load_bot_spec,
    parse_bot_spec,
)

from .mutations import hostile_text

BOTS = [(g, n) for g in ("goofspiel", "golf") for n in bot_names(g)]
KEYS = sorted({k for g, n in BOTS for k in bot_class(g, n).option_schema}) + ["foo", "seed", "Noise", " "]


def _bounds() -> list[str]:
    """Each declared bound, just inside and just outside it, as text."""
    out = []
    for g, n in BOTS:
        for opt in bot_class(g, n).option_schema.values():
            for b in (opt.minimum, opt.maximum):
                if b is not None:
                    out += [repr(b), repr(b + 1), repr(b - 1), repr(b + 1e-9), repr(b - 1e-9)]
    return sorted(set(out))


VALUES = _bounds() + [
    "0",
    "-0",
    "0.5",
    "1",
    "2",
    "5",
    "-3",
    "1e99",
    "1e308",
    "-1e308",
    "99999999999999999999",
    "inf",
    "-inf",
    "nan",
    "true",
    "false",
    "True",
    "duct",
    "rm",
    "exp3",
    "points",
    "win",
    "informed",
    "random",
    "mix",
    "max",
    "matcher",
    "heuristic",
    "bait",
    "",
    "0.5\r",
    "٣",
    "1_000",
    "0x10",
    "1/2",
    "=",
    "none",
]
value = st.one_of(st.sampled_from(VALUES), st.sampled_from(VALUES), hostile_text)
any_pair = st.tuples(st.sampled_from(KEYS), value)


def valid_value(option) -> st.SearchStrategy[str]:
    """Text of a value inside the option's declared range."""
    if option.type is bool:
        return st.sampled_from(["true", "false"])
    if option.type is str:
        return st.sampled_from(bot_names(option.bot_of) if option.bot_of else option.choices)
    if option.type is int:
        return st.integers(option.minimum, option.maximum).map(str)
    return st.floats(
        option.minimum, option.maximum, exclude_min=option.above_minimum, exclude_max=option.below_maximum
    ).map(repr)


@st.composite
def bot_and_pairs(draw, games=("goofspiel", "golf")):
    """A bot and up to 3 options: some inside their declared ranges, some anything."""
    game, name = draw(st.sampled_from([(g, n) for g, n in BOTS if g in games]))
    schema = bot_class(game, name).option_schema
    valid = [st.tuples(st.just(k), valid_value(o)) for k, o in schema.items() if o.type is not dict]
    pair = st.one_of(any_pair, *valid, *valid) if valid else any_pair
    return game, name, draw(st.lists(pair, max_size=3, unique_by=lambda kv: kv[0]))


def spec_text(name: str, pairs: list[tuple[str, str]]) -> str:
    return name + (":" + ",".join(f"{k}={v}" for k, v in pairs) if pairs else "")


def play_goofspiel(bot, cards: int, seed: int) -> None:
    """One whole game against ``random``; every mixed bid the bot shows is a distribution
    over its hand and every bid it makes is legal (the game refuses illegal ones)."""
    rs = Ruleset(cards=cards)
    game = Game(rs, seed=seed)
    other = load_bot("goofspiel", "random", seed=seed)
    bot.new_game(rs, 0)
    other.new_game(rs, 1)
    while game.phase != "over":
        view = game.view(0)
        mix = getattr(bot, "policy", None) or bot.search_policy
        check_distribution(mix(view), view.hand)
        game.play([bot.act(view), other.act(game.view(1))])
    assert game.phase == "over"


@settings(max_examples=40, deadline=None)
@given(bot_and_pairs(), st.integers(0, 3))
def test_library_refuses_or_plays_legal_games(bot, seed):
    game, name, pairs = bot
    text = spec_text(name, pairs)
    try:
        spec = parse_bot_spec(text)
        made = load_bot_spec(game, spec, seed=seed)
    except BotSpecError as exc:
        assert str(exc)
        event("refused")
        return
    event(f"accepted: {game} {name}")
    schema = type(made).option_schema
    for key, v in spec.options.items():  # accepted: every value is inside its declared range
        schema[key].check(v)
    if game == "goofspiel":
        play_goofspiel(made, 3 + seed % 3, seed)  # 3..5 cards
    elif getattr(made, "determinizations", 0) <= 8:  # (a 1000-sample search is legal, only slow)
        g = play_game(
            GolfGame(GolfRuleset(rows=2, cols=2), seed=seed), [made, load_bot("golf", "random", seed=seed)]
        )
        assert g.over


FIGURE = re.compile(r"exploitability of .*?: (-?[0-9.]+(?:e[-+]?\d+)?)")


@settings(max_examples=20, deadline=None)
@given(bot_and_pairs(games=("goofspiel",)))
def test_exploit_refuses_with_exit_2_or_prints_a_possible_figure(bot):
    _, name, pairs = bot
    text = spec_text(name, pairs)
    cards = 2 if name in ("mcts", "exploiter") else 3  # the history search grows like n!^3
    res = CliRunner().invoke(app, ["exploit", text, "-n", str(cards), "--samples", "2", "--repeats", "1"])
    if res.exit_code == 2:
        assert "error:" in res.output and "points per game" not in res.output
        event("refused")
        return
    assert res.exit_code == 0, res.output
    event(f"accepted: {name}")
    figure = float(FIGURE.search(res.output).group(1))
    assert 0 <= figure <= Ruleset(cards=cards).total_prize_value, res.output
