"""The help of every ``cardtable`` command follows one set of conventions
(cardtable/cli/conventions.py): flags show no type, value options name their
value in capitals, every option is described, defaults are shown one way,
``-n`` always means cards per suit, arguments are named in capitals."""

import re

import pytest
import typer
from typer.testing import CliRunner

from cardtable import __version__
from cardtable.cli import app
from cardtable.cli.conventions import CardtableCommand

runner = CliRunner()
GROUP = typer.main.get_command(app)
COMMANDS = sorted(GROUP.commands)


def help_text(*args):
    result = runner.invoke(app, [*args, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return result.output


def test_every_command_uses_the_conventions():
    assert set(COMMANDS) >= {
        "play",
        "replay",
        "serve",
        "verify",
        "tournament",
        "bot-check",
        "solve",
        "strategy",
        "analyze",
        "exploit",
    }
    for name in COMMANDS:
        assert isinstance(GROUP.commands[name], CardtableCommand), name


@pytest.mark.parametrize("command", [[]] + [[c] for c in COMMANDS])
def test_help_has_no_type_tags_no_braces_no_second_default_style(command):
    text = help_text(*command)
    assert "<bool>" not in text
    assert not re.search(r"<(str|int|float|path|list\[str\])>", text), text
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage, usage
    assert "(default" not in text, text


@pytest.mark.parametrize("name", COMMANDS)
def test_every_option_is_described_and_value_options_name_their_value(name):
    command = GROUP.commands[name]
    for param in command.params:
        assert param.help and param.help.strip(), f"{name}: {param.name} has no description"
        assert param.help.strip()[0].isupper() or param.help.strip()[0] in "'\"", f"{name}: {param.help!r}"
        if param.param_type_name == "option" and not param.is_flag:
            assert param.metavar and param.metavar == param.metavar.upper(), (
                f"{name}: {param.opts} metavar {param.metavar!r}"
            )
        if param.param_type_name == "option" and param.is_flag:
            assert param.metavar == "", f"{name}: flag {param.opts} shows a type"


def test_dash_n_always_means_cards_per_suit():
    users = []
    for name in COMMANDS:
        for param in GROUP.commands[name].params:
            if "-n" in getattr(param, "opts", ()):
                users.append(name)
                assert "--cards" in param.opts, f"{name}: -n is {param.opts}"
    assert {"play", "solve", "strategy", "exploit"} <= set(users)


def test_required_argument_is_named_in_capitals():
    text = help_text("replay")
    assert re.search(r"Usage: \S+ replay \[OPTIONS\] FILE\b", text), text
    assert "[BOTS]..." in help_text("tournament")
    result = runner.invoke(app, ["replay"])
    assert result.exit_code == 2
    assert "Missing argument 'FILE'" in result.output


def test_flags_show_no_type_and_defaults_one_style():
    text = help_text("play")
    line = next(ln for ln in text.splitlines() if "--hotseat" in ln)
    assert "bool" not in line
    assert "[default: heuristic]" in text  # a computed default, shown like the others
    assert "[default: You]" in text


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(flag):
    result = runner.invoke(app, [flag])
    assert result.exit_code == 0
    assert result.output.strip() == f"cardtable {__version__}"


def test_every_command_has_a_one_line_summary_in_the_command_list():
    """``cardtable -h`` lists each command on one line: the docstring's first paragraph is one
    line (``tournament``'s once wrapped in the middle of a parenthesis)."""
    for name in COMMANDS:
        summary = (GROUP.commands[name].help or "").strip().split("\n\n")[0]
        assert summary and "\n" not in summary, (name, summary)
    text = help_text()
    assert re.search(
        r"│ tournament +Play a round-robin tournament and print the standings; interrupted runs "
        r"resume\. +│",
        text,
    ), text
