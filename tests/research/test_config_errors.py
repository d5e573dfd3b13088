"""Configuration errors of `cardtable tournament` and `cardtable bot-check` are reported
before any game, in one line, with exit code 2, and nothing is written."""

import re
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cardtable.goofspiel.bots.mcts import MCTSBot
from cardtable.goofspiel.ruleset import PRESETS
from cardtable.platform.storage import home
from cardtable.platform.tournament import (
    TournamentConfig,
    TournamentError,
    bot_option_names,
    parse_bot_spec,
    run,
    validate,
)

ROOT = Path(__file__).resolve().parents[2]
BAD = f"{sys.executable} {Path(__file__).with_name('badbot.py')}"
PY = f"{sys.executable} {ROOT / 'examples' / 'protocol_bot.py'}"


def _app():
    from cardtable.cli import bot_check, tournament

    app = typer.Typer()
    tournament.register(app)
    bot_check.register(app)
    return app


def config(*specs, games=2, ruleset="cards=4"):
    return TournamentConfig(bots=tuple(parse_bot_spec(s) for s in specs), ruleset=ruleset, games=games)


# -- 1. a protocol bot that fails the handshake is a configuration error --------------------


def test_cli_missing_script_is_reported_before_any_game(tmp_path):
    db = tmp_path / "t.sqlite"
    res = CliRunner().invoke(
        _app(),
        [
            "tournament",
            "random",
            f"x=cmd:{sys.executable} {tmp_path / 'nothere.py'}",
            "--games",
            "2",
            "--backend",
            "serial",
            "--db",
            str(db),
        ],
    )
    assert res.exit_code == 2, res.output
    # the script is checked before the program starts (docs/protocol.md, "The bot's command")
    text = " ".join(res.output.split())
    assert "bot 'x': bot command" in text and f"script '{tmp_path / 'nothere.py'}' not found" in text
    assert "played" not in res.output and "Standings" not in res.output
    assert not db.exists()


def test_cli_missing_script_writes_no_default_database():
    res = CliRunner().invoke(
        _app(), ["tournament", "random", f"x=cmd:{sys.executable} nothere-xyz.py", "--games", "2"]
    )
    assert res.exit_code == 2, res.output
    assert not (home() / "tournaments").exists()


@pytest.mark.parametrize("mode, kind", [("badhello", "garbage"), ("silent", "timeout")])
def test_handshake_failures_name_the_bot_and_the_reason(tmp_path, mode, kind):
    cfg = config("random", f"bad=cmd:{BAD} {mode}")
    with pytest.raises(TournamentError, match=rf"^bot 'bad': failed the handshake: {kind}: "):
        validate(cfg, handshake_ms=300)


def test_run_refuses_a_crashing_program_and_writes_nothing(tmp_path):
    db = tmp_path / "t.sqlite"
    with pytest.raises(
        TournamentError, match=r"bot 'gone': failed the handshake: crash: the program exited \(code 3\)"
    ):
        run(config("random", f"gone=cmd:{sys.executable} -c 'import sys; sys.exit(3)'"), db, backend="serial")
    assert not db.exists()
    with pytest.raises(TournamentError, match="bot 'gone': bot command .*: script .*missing.py' not found"):
        run(config("random", f"gone=cmd:{sys.executable} {tmp_path / 'missing.py'}"), db, backend="serial")
    assert not db.exists()


def test_a_program_with_an_unknown_setoption_fails_before_any_game(tmp_path):
    from cardtable.platform.tournament import BotEntry

    cfg = TournamentConfig(
        bots=(parse_bot_spec("random"), BotEntry("py", "program", PY, {"nosuch": 1})),
        ruleset="cards=4",
        games=2,
    )
    db = tmp_path / "t.sqlite"
    with pytest.raises(TournamentError, match="bot 'py': failed the handshake: handshake: .*nosuch"):
        run(cfg, db, backend="serial")
    assert not db.exists()


@pytest.mark.parametrize(
    "options, words",
    [
        ({"margin": "2.5"}, "option margin: the value '2.5' is not a whole number (the bot declares int)"),
        ({"margin": True}, "option margin: the value 'True' is not a whole number"),
        ({"noise": "lots"}, "option noise: the value 'lots' is not a finite number (the bot declares float)"),
        ({"noise": "inf"}, "option noise: the value 'inf' is not a finite number"),
    ],
)
def test_a_setoption_of_the_wrong_type_fails_before_any_game(tmp_path, options, words):
    # the example bot declares `margin type int` and `noise type float` (docs/protocol.md)
    from cardtable.platform.tournament import BotEntry

    cfg = TournamentConfig(
        bots=(parse_bot_spec("random"), BotEntry("py", "program", PY, options)), ruleset="cards=4", games=2
    )
    db = tmp_path / "t.sqlite"
    with pytest.raises(
        TournamentError, match="bot 'py': failed the handshake: handshake: " + re.escape(words)
    ):
        run(cfg, db, backend="serial")
    assert not db.exists()


@pytest.mark.parametrize(
    "line, words",
    [
        (
            "option name depth type spin default 3",
            "option depth: type 'spin' is not one of int, float, string, bool",
        ),
        ("option name depth type int default deep", "option depth: the default 'deep' is not a whole number"),
        (
            "option name depth type int default " + "9" * 30,
            "option depth: the default '" + "9" * 30 + "' is over 18 digits",
        ),
        ("option name fast type bool default yes", "option fast: the default 'yes' is not true or false"),
    ],
)
def test_a_program_declaring_a_malformed_option_fails_the_handshake(tmp_path, line, words):
    script = tmp_path / "bot.py"
    script.write_text(
        "import sys\n"
        "sys.stdin.readline()\n"
        f"print('id name Typed', flush=True)\nprint({line!r}, flush=True)\nprint('ready', flush=True)\n"
        "for text in sys.stdin:\n"
        "    if text.startswith('isready'): print('readyok', flush=True)\n"
    )
    cfg = config("random", f"typed=cmd:{sys.executable} {script}")
    db = tmp_path / "t.sqlite"
    with pytest.raises(
        TournamentError, match="bot 'typed': failed the handshake: handshake: " + re.escape(words)
    ):
        run(cfg, db, backend="serial")
    assert not db.exists()


def test_a_good_program_passes_and_plays(tmp_path):
    db = tmp_path / "t.sqlite"
    assert run(config("random", f"py=cmd:{PY}"), db, backend="serial") == 2


# -- 2. built-in bot options are checked against the constructor ----------------------------


def test_option_names_come_from_the_signature():
    names = bot_option_names(MCTSBot)
    assert names[:2] == ["iterations", "time_limit"] and "seed" not in names


def test_cli_unknown_builtin_option_lists_the_options(tmp_path):
    db = tmp_path / "t.sqlite"
    res = CliRunner().invoke(_app(), ["tournament", "random", "mcts:foo=1", "--db", str(db)])
    assert res.exit_code == 2, res.output
    assert "mcts: unknown option 'foo'; options: iterations, time_limit" in res.output
    assert "unexpected keyword" not in res.output
    assert not db.exists()


@pytest.mark.parametrize(
    "spec, message",
    [
        ("m=mcts:foo=1", r"^bot 'm': mcts: unknown option 'foo'; options: iterations"),
        ("mcts:seed=3", r"option 'seed' is set by the tournament's --seed"),
        ("matcher:depth=2", r"^matcher: unknown option 'depth'"),
    ],
)
def test_unknown_options_fail_validation(spec, message):
    with pytest.raises(TournamentError, match=message):
        validate(config("random", spec))


def test_known_options_still_pass():
    validate(config("random", "mcts:iterations=5,time_limit=0.5"))


# -- 3. a bad ruleset lists the preset names ------------------------------------------------


def test_bot_check_bad_ruleset_lists_the_presets():
    res = CliRunner().invoke(_app(), ["bot-check", PY, "-r", "bogus"])
    assert res.exit_code == 2, res.output
    assert "unknown preset 'bogus'" in res.output
    assert "presets: " + ", ".join(PRESETS) in res.output.replace("\n", "")


def test_tournament_bad_ruleset_lists_the_presets(tmp_path):
    res = CliRunner().invoke(
        _app(), ["tournament", "random", "matcher", "-r", "bogus", "--db", str(tmp_path / "t.sqlite")]
    )
    assert res.exit_code == 2, res.output
    assert "presets: " + ", ".join(PRESETS) in res.output.replace("\n", "")
    assert not (tmp_path / "t.sqlite").exists()


def test_bad_key_value_ruleset_keeps_its_own_message():
    res = CliRunner().invoke(_app(), ["bot-check", PY, "-r", "cards=99"])
    assert res.exit_code == 2 and "cards" in res.output and "presets" not in res.output
