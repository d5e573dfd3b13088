"""``cardtable analyze`` renders with Rich to the terminal's width (issue 12: a table
fixed at about 140 columns wrapped into garbage in an 80-column terminal)."""

import re

import pytest
from typer.testing import CliRunner

from cardtable.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    path = tmp_path_factory.mktemp("analyze") / "game.gops"
    res = runner.invoke(
        app,
        [
            "play",
            "--auto",
            "--cards",
            "5",
            "--ties",
            "discard",
            "--seed",
            "5",
            "--delay",
            "0",
            "--record",
            str(path),
        ],
    )
    assert res.exit_code == 0, res.output
    return path


@pytest.mark.parametrize("width", [80, 100, 160])
def test_analyze_fits_the_terminal(record, width):
    res = runner.invoke(app, ["analyze", str(record)], env={"COLUMNS": str(width)})
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert max(len(line) for line in lines) <= width, "\n".join(lines)
    rows = [line for line in lines if re.match(r"^\s+\d+\s+\S+\s+\d+\s", line)]
    assert [int(r.split()[0]) for r in rows] == [1, 2, 3, 4, 5]  # every round, in order, none cut
    assert all(re.search(r"\d\.\d{3}\s+\d+\.\d{3}\s+[+-]\d+\.\d{2}\s*$", r) for r in rows), (
        rows
    )  # both "lost" columns and the running difference whole
    assert re.search(r"\w:\d\.\d\d", res.output)  # the equilibrium is shown
    assert "final points" in res.output
