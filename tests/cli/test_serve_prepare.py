"""``cardtable serve`` prepares the solver's kernels for the standard game in a background thread
at start-up and says when they are ready (docs/play.md, Speed)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import cardtable.cli.serve as serve_cli
import cardtable.solver.warm as warm
from cardtable.goofspiel import Ruleset
from cardtable.solver.table import TableFileError


def test_both_standard_games_are_prepared_carry_over_last(monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(
        warm, "warm_kernels", lambda ruleset, objective="points", cache=None: seen.append(ruleset)
    )
    worker = serve_cli._prepare_solver()
    assert worker.daemon  # a stopped server never waits for a compilation
    worker.join(10)
    assert seen == [Ruleset(cards=13, tie_rule="discard"), Ruleset(cards=13, tie_rule="carry")]
    assert "cardtable: solver prepared in 0.0 s" in capsys.readouterr().err


def test_a_damaged_table_is_reported_and_the_server_runs_on(monkeypatch, capsys):
    def damaged(ruleset, objective="points", cache=None):
        raise TableFileError("table file 'x.ctt': checksum mismatch")

    monkeypatch.setattr(warm, "warm_kernels", damaged)
    serve_cli._prepare_solver().join(10)
    err = capsys.readouterr().err
    assert "cardtable: preparing the solver failed: table file 'x.ctt': checksum mismatch" in err
    assert "solver prepared" not in err


def test_the_server_answers_before_the_solver_is_prepared(tmp_path):
    """The real server: the banner first, then (in the background) the solver's line."""
    env = {**os.environ, "CARDTABLE_CACHE": str(tmp_path / "cache"), "CARDTABLE_HOME": str(tmp_path)}
    cmd = [sys.executable, "-m", "cardtable", "serve", "--port", "0", "--db", str(tmp_path / "web.sqlite3")]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    guard = threading.Timer(300, proc.kill)  # a server that never says either line ends the wait
    guard.start()
    try:
        lines: list[str] = []
        assert proc.stderr is not None
        while True:
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            if "solver prepared" in line or "preparing the solver failed" in line:
                break
    finally:
        guard.cancel()
        proc.terminate()
        proc.wait(30)
    text = "".join(lines)
    assert lines and lines[0].startswith("cardtable: http://127.0.0.1:"), text
    assert "cardtable: solver prepared in " in text, text
