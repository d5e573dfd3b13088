"""One reader for bot specifications and one for rulesets, used by every command:
the same spec is accepted (or refused with the same message) everywhere."""

import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.goofspiel import Ruleset, RulesetError
from cardtable.goofspiel.ruleset import PRESETS
from cardtable.platform.bot import BotSpec, BotSpecError, load_bot_spec, parse_bot_spec
from cardtable.platform.tournament import TournamentError
from cardtable.platform.tournament import parse_bot_spec as tournament_spec

runner = CliRunner()
PRESET_LIST = "presets: " + ", ".join(PRESETS)


def invoke(*args):
    return runner.invoke(app, list(args), env={"COLUMNS": "400"})


# -- bot specifications --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("heuristic", BotSpec("heuristic", "builtin", "heuristic", {})),
        (" Heuristic ", BotSpec("Heuristic", "builtin", "heuristic", {})),
        ("mcts:iterations=50", BotSpec("mcts:iterations=50", "builtin", "mcts", {"iterations": 50})),
        (
            "mcts:iterations=50,time_limit=0.5,selection=rm",
            BotSpec(
                "mcts:iterations=50,time_limit=0.5,selection=rm",
                "builtin",
                "mcts",
                {"iterations": 50, "time_limit": 0.5, "selection": "rm"},
            ),
        ),
        ("fast=mcts:iterations=5", BotSpec("fast", "builtin", "mcts", {"iterations": 5})),
        ("cmd:python bot.py", BotSpec("python bot.py", "program", "python bot.py", {})),
        ("mine=cmd:python bot.py --x=1", BotSpec("mine", "program", "python bot.py --x=1", {})),
    ],
)
def test_parse_bot_spec(text, expected):
    assert parse_bot_spec(text) == expected
    assert tournament_spec(text) == expected  # the tournament uses the same reader


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty bot specification"),
        ("cmd:", "'cmd:' needs a command line"),
        ("heuristic:noise", "option 'noise' is not key=value"),
        ("mcts:iterations=5,iterations=6", "given twice"),
        (":iterations=5", "no bot name"),
    ],
)
def test_bad_bot_spec(text, message):
    with pytest.raises(BotSpecError, match=message):
        parse_bot_spec(text)
    with pytest.raises(TournamentError, match=message):
        tournament_spec(text)


def test_load_bot_spec_checks_options():
    bot = load_bot_spec("goofspiel", "mcts:iterations=7", seed=1)
    assert bot.name == "mcts"
    with pytest.raises(BotSpecError, match="unknown option 'iterationz'; options: iterations"):
        load_bot_spec("goofspiel", "mcts:iterationz=7")
    with pytest.raises(BotSpecError, match="protocol programs"):
        load_bot_spec("goofspiel", "cmd:python x.py")


def test_play_accepts_the_tournament_spec():
    """Issue 12: tournament accepted "mcts:iterations=50", play --vs called it an unknown bot."""
    res = invoke(
        "play",
        "--auto",
        "--vs",
        "mcts:iterations=20",
        "--vs",
        "fast=mcts:iterations=5",
        "--cards",
        "3",
        "--delay",
        "0",
        "--no-save",
        "--seed",
        "1",
    )
    assert res.exit_code == 0, res.output
    assert "fast" in res.output and "mcts" in res.output


def test_exploit_accepts_the_tournament_spec():
    res = invoke("exploit", "matcher:", "-n", "3")
    assert res.exit_code == 0, res.output
    assert "exploitability of matcher" in res.output


@pytest.mark.parametrize(
    "command",
    [
        ["play", "--vs", "mcts:iterationz=5"],
        ["exploit", "mcts:iterationz=5", "-n", "3"],
    ],
)
def test_unknown_bot_option_is_refused_the_same_way(command):
    res = invoke(*command)
    assert res.exit_code == 2, res.output
    assert "unknown option 'iterationz'; options: iterations" in res.output


@pytest.mark.parametrize(
    "command",
    [["play", "--vs", "nobody"], ["exploit", "nobody"], ["tournament", "random", "nobody", "--games", "2"]],
)
def test_unknown_bot_lists_the_bots(command):
    res = invoke(*command)
    assert res.exit_code == 2, res.output
    assert "unknown goofspiel bot 'nobody'; choose one of:" in res.output
    assert "heuristic" in res.output


# -- rulesets ------------------------------------------------------------------------------


def test_misspelt_preset_suggests_and_lists():
    with pytest.raises(RulesetError, match=r"unknown preset 'discrad' \(did you mean 'discard'\?\)"):
        Ruleset.parse("discrad")
    with pytest.raises(RulesetError, match="presets: standard"):
        Ruleset.parse("zzz")


@pytest.mark.parametrize(
    "command",
    [
        ["play", "--rules", "discrad"],
        ["tournament", "random", "matcher", "--rules", "discrad"],
        ["bot-check", "python -c pass", "--rules", "discrad"],
    ],
)
def test_misspelt_preset_lists_the_presets_in_every_command(command, tmp_path):
    """Issue 12: `play --rules discrad` said only "expected key=value"."""
    res = invoke(*command)
    assert res.exit_code == 2, res.output
    assert "unknown preset 'discrad' (did you mean 'discard'?)" in res.output
    assert PRESET_LIST in res.output
    assert "expected key=value" not in res.output


def test_key_value_mistakes_keep_their_own_message():
    res = invoke("play", "--rules", "cards=99")
    assert res.exit_code == 2 and "cards" in res.output and "presets" not in res.output


def test_golf_bots_take_specs_too():
    res = invoke(
        "play",
        "golf",
        "--auto",
        "--vs",
        "search:determinizations=2",
        "--vs",
        "random",
        "--seed",
        "3",
        "--no-save",
    )
    assert res.exit_code == 0, res.output
    res = invoke("play", "golf", "--vs", "search:foo=2")
    assert res.exit_code == 2 and "unknown option 'foo'; options: determinizations" in res.output


@pytest.mark.usefixtures("no_leaked_processes")  # it runs a protocol program (tests/conftest.py)
def test_bot_check_takes_the_tournament_form(tmp_path):
    """`bot-check "cmd:COMMAND"` and `"LABEL=cmd:COMMAND"` name the same program as in tournaments."""
    res = invoke("bot-check", "mine=cmd:", "--games", "1")
    assert res.exit_code == 2 and "'cmd:' needs a command line" in res.output
    import sys
    from pathlib import Path

    bot = Path(__file__).parents[2] / "examples" / "protocol_bot.py"
    res = invoke("bot-check", f"mine=cmd:{sys.executable} {bot}", "--rules", "cards=4", "--games", "1")
    assert res.exit_code == 0, res.output
    assert "no protocol violations" in res.output


def test_a_trailing_colon_and_a_labelled_empty_command_are_named_as_typed():
    assert parse_bot_spec("random:").label == "random"  # was shown as "random:"
    with pytest.raises(BotSpecError, match="'x=cmd:'"):  # was 'cmd:', losing the label
        parse_bot_spec("x=cmd:")
