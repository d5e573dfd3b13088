"""Tournament tables (issue 12): no interval from a sample too small for one, and
bot labels shown whole (they were cut to "mcts:iterati…")."""

import re

from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.platform.tournament import MIN_CI_DEALS

runner = CliRunner()
LABEL = "mcts:iterations=5,selection=rm"


def tournament(tmp_path, games, width=80):
    res = runner.invoke(
        app,
        [
            "tournament",
            "random",
            LABEL,
            "--rules",
            "cards=5",
            "--games",
            str(games),
            "--backend",
            "serial",
            "--db",
            str(tmp_path / f"t{games}.sqlite"),
            "--report",
            str(tmp_path / f"report{games}"),
        ],
        env={"COLUMNS": str(width)},
    )
    assert res.exit_code == 0, res.output
    return res.output


def test_small_sample_gets_no_interval_and_labels_stay_whole(tmp_path):
    out = tournament(tmp_path, 4)
    assert "±" not in out
    assert out.count("too few") == 3  # two bots and one pairing
    assert f"at least {MIN_CI_DEALS} deals" in out
    assert LABEL in out and f"random vs {LABEL}" in out and "…" not in out
    assert max(len(line) for line in out.splitlines()) <= 80
    md = (tmp_path / "report4" / "standings.md").read_text()
    assert "too few" in md and "±" not in md and LABEL in md


def test_enough_deals_get_an_interval(tmp_path):
    out = tournament(tmp_path, 2 * MIN_CI_DEALS)
    rows = [line for line in out.splitlines() if line.lstrip().startswith(("random", LABEL))]
    assert len(rows) == 3
    assert all(re.search(r"± \d+\.\d\d", row) for row in rows), rows
    assert "too few" not in out
