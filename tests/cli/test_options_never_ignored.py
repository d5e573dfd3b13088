"""An option the command would not use is refused, never silently ignored: ``cardtable strategy``
takes its position either from the options (``-n``, ``--ties``, ``--prizes``, ...) or from
``--record`` (with ``--game`` and ``--round``), and mixing the two is one line, exit 2."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cardtable.cli import app

runner = CliRunner()


@pytest.fixture
def record(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "game.gops"
    game = "play --auto -n 4 --vs random --vs random --seed 1 --record".split()
    played = runner.invoke(app, [*game, str(path)])
    assert played.exit_code == 0, played.output
    return path


def one_line(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, (args, result.output)
    text = " ".join(result.output.split())
    assert text.startswith("error: ") and "Traceback" not in text
    return text


@pytest.mark.parametrize(
    "extra, named",
    [
        (["-n", "7"], "-n/--cards"),  # the finding: -n 7 was ignored and the record's 4 cards used
        (["--ties", "discard"], "--ties"),
        (["--high-ace"], "--high-ace"),
        (["--prizes", "A,2"], "--prizes"),
        (["--hand-a", "A"], "--hand-a"),
        (["--prize", "A"], "--prize"),
        (["--pot", "3", "--diff", "1"], "--pot, --diff"),
    ],
)
def test_strategy_from_a_record_refuses_position_options(record, extra, named):
    text = one_line(["strategy", "--record", str(record), *extra])
    assert text == f"error: --record takes the rules and the position from the record; leave out {named}"


@pytest.mark.parametrize(
    "extra, named", [(["--game", "2"], "--game"), (["--round", "3", "--game", "1"], "--game, --round")]
)
def test_strategy_without_a_record_refuses_record_options(extra, named):
    text = one_line(["strategy", "-n", "4", *extra])
    assert text == f"error: {named}: only with --record FILE (the game and round of a record)"


def test_strategy_from_a_record_still_takes_its_own_options(record):
    result = runner.invoke(
        app, ["strategy", "--record", str(record), "--round", "2", "--game", "1", "--limit", "1000"]
    )
    assert result.exit_code == 0, result.output
    assert "cards=4" in result.output and "position: prizes" in result.output
