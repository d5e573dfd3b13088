"""Inputs a second hostile-input session found (one line, exit 2, nothing written, nothing
left running), kept as regression tests of their kinds:

- values that are refused only after the game: a seed the record cannot hold (a control
  character, a tag line over the limit) was accepted, the game played, then the record
  failed with a traceback; ``--match`` over what one record holds;
- bounds: ``play golf --games``, ``bot-check --games`` / ``--time-ms``, ``tournament
  --time-ms``, ``exploit --samples`` had none (10**20 ran for ever);
- paths that cannot even be looked at (a folder without permission on the way, a name
  longer than the system allows) gave an ``OSError`` traceback in every reader;
- a ``--record`` that is a link to nothing was accepted, then the game could not be saved;
- a refused ``solve --backend cuda`` left the cache folder and a lock file;
- JSON or TOML nested too deeply in a table's records or a tournament config raised
  ``RecursionError``.
"""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from cardtable.cli import app

from .refusals import refused

runner = CliRunner()
LONG = "a" * 300  # over the 255 bytes a file name may have


@pytest.mark.parametrize(
    "seed, words",
    [("a\tb", "U+0009"), ("\x01", "U+0001"), ("9" * 10_000, "tag line is")],
)
@pytest.mark.parametrize("game", [[], ["golf"]])
def test_a_seed_the_record_cannot_hold_is_refused_before_the_game(fresh, game, seed, words):
    refused(["play", *game, "--auto", "--delay", "0", "--seed", seed], "--seed cannot be recorded", words)
    assert not (fresh / "home").exists()


def test_a_match_longer_than_a_record_is_refused(fresh):
    refused(
        ["play", "--auto", "--delay", "0", "--no-save", "--match", "best-of 99999999999999999999"],
        "at most 10,000 games",
    )
    refused(["play", "--auto", "--delay", "0", "-n", "1", "--match", "total 10001"], "at most 10,000 games")


@pytest.mark.parametrize(
    "args, words",
    [
        (["play", "golf", "--auto", "--games", "99999999999999999999"], ["--games"]),
        (["bot-check", "--games", "99999999999999999999", "python3 x.py"], ["--games"]),
        (["bot-check", "--time-ms", "99999999999999999999", "python3 x.py"], ["--time-ms"]),
        (
            ["tournament", "random", "matcher", "--games", "2", "--time-ms", "99999999999999999999"],
            ["time_ms must be at most 600,000"],
        ),
        (
            ["exploit", "mcts:iterations=1", "-n", "2", "--samples", "99999999999999999999"],
            ["--samples must be at most 1,000,000"],
        ),
    ],
)
def test_numbers_without_end_are_refused(fresh, args, words):
    refused(args, *words)


@pytest.mark.parametrize(
    "args",
    [
        ["replay", LONG + ".gops"],
        ["verify", LONG + ".gops"],
        ["analyze", LONG + ".gops"],
        ["play", "--auto", "--delay", "0", "-n", "3", "--record", LONG + ".gops"],
        ["solve", "-n", "3", "--cache", LONG],
        ["strategy", "-n", "3", "--cache", LONG],
    ],
)
def test_a_path_that_cannot_be_looked_at_is_one_line(fresh, args):
    refused(args, "cannot be reached")


def test_the_same_kind_in_the_library_readers(tmp_path):
    from cardtable.goofspiel import Ruleset
    from cardtable.platform.protocol import split_command
    from cardtable.platform.storage import FolderError, check_folder
    from cardtable.solver import TableFileError
    from cardtable.solver.table import load_table

    with pytest.raises(FolderError, match="cannot be reached"):
        check_folder(tmp_path / LONG / "x", "the cache")
    with pytest.raises(ValueError, match="bot command"):
        split_command(f"python3 {tmp_path / LONG}.py")
    with pytest.raises(TableFileError, match="cannot look for a table"):
        load_table(Ruleset(cards=3), "points", tmp_path / LONG)


def test_a_record_path_that_is_a_link_to_nothing_is_refused_before_the_game(fresh):
    os.symlink(fresh / "nowhere" / "x.gops", fresh / "dangling.gops")
    os.symlink("loop.gops", fresh / "loop.gops")
    for name in ("dangling.gops", "loop.gops"):
        refused(["play", "--auto", "--delay", "0", "-n", "3", "--record", name], "already exists")


def test_a_refused_cuda_solve_writes_nothing(fresh):
    from numba import cuda

    if cuda.is_available():  # the refusal under test needs a machine without a GPU (CI has none)
        pytest.skip("a CUDA GPU is available here")
    refused(["solve", "-n", "3", "--backend", "cuda"], "no CUDA GPU")
    assert not (fresh / "cache").exists()


def test_deeply_nested_json_in_a_table_is_a_damaged_table(fresh):
    assert runner.invoke(app, ["solve", "-n", "3"]).exit_code == 0
    table = fresh / "cache" / "gops-n3-carry-points-lowace.v2"
    (table / "table.json").write_text("[" * 100_000 + "]" * 100_000)
    for args in (["tables"], ["strategy", "-n", "3", "--prize", "2"]):
        result = runner.invoke(app, args)
        assert "Traceback" not in result.output and "RecursionError" not in result.output
        assert "table.json is damaged" in result.output, result.output


def test_deeply_nested_toml_in_a_tournament_config_is_refused(fresh):
    (fresh / "nested.toml").write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    refused(
        ["tournament", "random", "matcher", "--games", "2", "--backend", "serial", "--config", "nested.toml"],
        "not valid TOML",
    )


def test_tournament_and_bot_check_read_rules_files_as_play_does(fresh):
    """docs/rules.md: every command that takes a ruleset reads files the same way (regression:
    ``tournament -r rules.json`` looked for a preset of that name)."""
    refused(["tournament", "random", "matcher", "--games", "2", "-r", "nosuch.json"], "cannot be read")
    assert not (fresh / "home").exists()
    (fresh / "r.json").write_text('{"cards": 4, "tie_rule": "discard"}')
    result = runner.invoke(
        app, ["tournament", "random", "matcher", "--games", "2", "--backend", "serial", "-r", "r.json"]
    )
    assert result.exit_code == 0, result.output
    bot = f"python3 {os.path.dirname(__file__)}/../../examples/protocol_bot.py"
    result = runner.invoke(app, ["bot-check", "-r", "r.json", "--games", "1", bot])
    assert result.exit_code == 0 and "OK" in result.output, result.output


def test_golf_verify_reads_json_records_as_replay_does(fresh):
    assert (
        runner.invoke(
            app, ["play", "golf", "--auto", "--delay", "0", "--seed", "7", "--record", "g.json"]
        ).exit_code
        == 0
    )
    result = runner.invoke(app, ["verify", "g.json"])
    assert result.exit_code == 1 and "no SeedCommit tag" in result.output, result.output


def test_a_refused_tournament_report_writes_nothing(fresh):
    (fresh / "g5.gops").write_text("x")
    refused(
        ["tournament", "random", "matcher", "-r", "cards=3", "--games", "2", "--report", "g5.gops"],
        "--report",
    )
    assert not (fresh / "home").exists()


def test_golf_rules_are_strict_in_both_notations(fresh):
    """A Golf key given twice is refused as in Goofspiel's notation; Golf JSON rules take JSON
    types (``"rows": "3"`` is text, not a number)."""
    from cardtable.golf.errors import GolfRulesetError
    from cardtable.golf.ruleset import GolfRuleset

    refused(["play", "golf", "--auto", "--rules", "rows=3 rows=4"], "rows: given twice")
    for bad in ({"rows": "3"}, {"players": "2"}, {"snap_opponents": "false"}):
        with pytest.raises(GolfRulesetError, match="give a JSON number or true/false"):
            GolfRuleset.from_dict(bad)
    assert GolfRuleset.from_dict({"rows": 3, "detective": "J"}) == GolfRuleset.parse("rows=3 detective=J")


def test_the_protocol_bot_itself_bounds_its_time():
    """The bound lives in the protocol bot (every caller: tournament, bot-check, the library)."""
    from cardtable.goofspiel.protocol import GoofspielProtocolBot
    from cardtable.platform.protocol import MAX_TIME_MS

    with pytest.raises(ValueError, match="at most 600,000"):
        GoofspielProtocolBot("python3 x.py", time_ms=MAX_TIME_MS + 1)
