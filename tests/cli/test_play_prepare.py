"""``cardtable play`` prepares the solver's kernels before the first game when a bot plays from
the solver or ``--hints`` are on (cardtable/solver/warm.py; docs/play.md, Speed)."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import cardtable.cli.play as play_cli
import cardtable.solver.warm as warm
from cardtable.cli import app
from cardtable.goofspiel import Ruleset
from cardtable.solver.table import TableFileError

runner = CliRunner()


def invoke(*args, input="quit\n"):
    return runner.invoke(app, ["play", "--no-save", *args], input=input, env={"COLUMNS": "200"})


@pytest.fixture
def calls(monkeypatch):
    """warm_kernels replaced by a recorder (the real one is tested in tests/solver)."""
    seen: list[tuple[Ruleset, str]] = []

    def fake(ruleset, objective="points", cache=None):
        seen.append((ruleset, objective))
        return 0.0

    monkeypatch.setattr(warm, "warm_kernels", fake)
    return seen


@pytest.mark.parametrize(
    ("args", "objectives"),
    [
        (["--vs", "nash"], ["points"]),
        (["--vs", "exploiter"], ["points"]),
        (["--vs", "nash:objective=win", "--hints"], ["points", "win"]),
        (["--vs", "heuristic", "--hints"], ["points"]),
    ],
)
def test_solver_players_get_their_kernels_prepared(calls, args, objectives):
    res = invoke("--cards", "5", "--ties", "discard", *args)
    assert res.exit_code == 3, res.output  # quit at the first bid
    assert calls == [(Ruleset(cards=5, tie_rule="discard"), o) for o in objectives]
    assert "preparing the solver" not in res.output and "solver prepared" not in res.output  # quick: silent


@pytest.mark.parametrize("args", [["--vs", "heuristic"], ["--vs", "random"], ["--auto"], ["--hotseat"]])
def test_games_without_the_solver_prepare_nothing(calls, args):
    res = invoke("--cards", "5", *args, input="quit\n" * 3)
    assert res.exit_code in (0, 3), res.output
    assert calls == []


def test_a_slow_preparation_says_how_long_it_took(monkeypatch):
    monkeypatch.setattr(play_cli, "PREPARE_QUIET", 0.01)
    monkeypatch.setattr(warm, "warm_kernels", lambda ruleset, objective="points", cache=None: time.sleep(0.2))
    res = invoke("--cards", "5", "--vs", "nash")
    assert res.exit_code == 3, res.output
    assert "solver prepared in 0." in res.output
    assert res.output.index("solver prepared") < res.output.index("round 1/5")  # before the game


def test_a_damaged_table_found_while_preparing_exits_1(monkeypatch):
    def damaged(ruleset, objective="points", cache=None):
        raise TableFileError("table file 'x.ctt': checksum mismatch")

    monkeypatch.setattr(warm, "warm_kernels", damaged)
    res = invoke("--cards", "5", "--vs", "nash")
    assert res.exit_code == 1
    assert "checksum mismatch" in res.output
    assert "round 1/5" not in res.output  # no game started


def test_ctrl_c_while_preparing_ends_with_nothing_played(monkeypatch, calls):
    class Interrupted(threading.Thread):
        def join(self, timeout=None):
            raise KeyboardInterrupt

    monkeypatch.setattr(play_cli, "threading", SimpleNamespace(Thread=Interrupted))
    res = invoke("--cards", "5", "--vs", "nash")
    assert res.exit_code == 3
    assert "Interrupted before the game started; nothing was played." in res.output
    assert "round 1/5" not in res.output
