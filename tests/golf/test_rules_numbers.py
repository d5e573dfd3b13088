"""Numbers in Golf's rules notation are ASCII digits within stated bounds (docs/golf.md, Rules
and variants; docs/rules.md, Numbers in text), in a ``--rules`` text and in a record's
``[Rules]`` tag alike: a value ``play`` accepted but its own record could not hold (a
23-digit card value) or another script's digit (``١``) was a helper's finding."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.golf.errors import GolfRulesetError
from cardtable.golf.ruleset import GolfRuleset

VALUES = "2,3,4,5,6,7,8,9,10,10,10,0"


@pytest.mark.parametrize(
    "text",
    [
        f"values=-99999999999999999999999,{VALUES}",
        f"values=١,{VALUES}",
        f"values=1_0,{VALUES}",
        f"values=+1,{VALUES}",
        f"values=100,{VALUES}",
        f"values=-100,{VALUES}",
        "rows=٣",
        "rows=-3",
        "penalty_cards=1e3",
    ],
)
def test_a_number_outside_the_notation_is_refused(text):
    with pytest.raises(GolfRulesetError):
        GolfRuleset.parse(text)


def test_bounds_and_signs_that_are_allowed():
    assert GolfRuleset.parse(f"values=-99,{VALUES}").values[0] == -99
    assert GolfRuleset.parse(f"values=99,{VALUES}").values[0] == 99
    assert GolfRuleset.parse("rows=03").rows == 3


def test_play_refuses_it_before_the_game_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path))
    record = tmp_path / "g.txt"
    res = CliRunner().invoke(
        app,
        [
            "play",
            "golf",
            "--auto",
            "--record",
            str(record),
            "--rules",
            f"values=-99999999999999999999999,{VALUES}",
        ],
    )
    assert res.exit_code == 2, res.output
    assert "ASCII digits" in res.output and not record.exists()


def test_a_record_whose_rules_tag_has_a_foreign_digit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path))
    record = tmp_path / "g.txt"
    played = CliRunner().invoke(app, ["play", "golf", "--auto", "--seed", "3", "--record", str(record)])
    assert played.exit_code == 0, played.output
    text = record.read_text()
    assert "values=1,2," in text
    bad = tmp_path / "bad.txt"
    bad.write_text(text.replace("values=1,2,", "values=١,2,"))
    res = CliRunner().invoke(app, ["replay", str(bad)])
    assert res.exit_code == 1, res.output
    assert "ASCII digits" in " ".join(res.output.split())
