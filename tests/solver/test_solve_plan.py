"""Solve planning (cardtable/solver/plan.py): every format and tie rule gets its estimate
and the same refusals (memory, hours, disk) before it starts; Ctrl-C during a format-1
solve says what was lost (issue 23 section 3)."""

from __future__ import annotations

import shutil
from collections import namedtuple

import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.goofspiel import Ruleset
from cardtable.solver import solve, write_table
from cardtable.solver.estimate import FORMAT1_HEADER_BYTES, estimate_solve, size_text
from cardtable.solver.plan import SolveRefused, plan_solve


def run(*args):
    r = CliRunner().invoke(app, list(args))
    return r.exit_code, " ".join(r.output.split())  # Rich may wrap long lines


@pytest.mark.parametrize("ties, objective", [("discard", "points"), ("carry", "points"), ("carry", "win")])
def test_format1_estimate_is_the_solve_and_the_file(tmp_path, ties, objective):
    rs = Ruleset(cards=6, tie_rule=ties)
    table = solve(rs, objective)
    path = write_table(table, tmp_path / "t.ctt")
    needs = estimate_solve(rs, objective, table_format=1)
    assert needs.table_format == 1
    assert needs.positions == table.stats["positions"]
    if objective == "points":  # the win objective's count is an upper bound (decided positions)
        assert needs.games == table.stats["games"]
    else:
        assert needs.games >= table.stats["games"]
    size = path.stat().st_size
    assert size <= needs.disk_bytes <= size + FORMAT1_HEADER_BYTES
    assert needs.memory_bytes >= table.values.nbytes


def test_plan_refuses_bad_arguments(tmp_path):
    rs = Ruleset(cards=4, tie_rule="discard")
    with pytest.raises(ValueError, match="format must be 1 or 2"):
        plan_solve(rs, "points", tmp_path / "x", table_format=3)
    with pytest.raises(ValueError, match="low layers are format 2"):
        plan_solve(rs, "points", tmp_path / "x", table_format=1, upto=2)
    with pytest.raises(ValueError, match="max_hours"):
        plan_solve(rs, "points", tmp_path / "x", max_hours=float("nan"))
    with pytest.raises(SolveRefused, match="longer than --max-hours"):
        plan_solve(Ruleset(cards=10, tie_rule="carry"), "points", tmp_path / "x", max_hours=1e-6)


def test_format1_solve_prints_its_estimate_first(tmp_path):
    code, out = run("solve", "-n", "5", "--ties", "discard", "--format", "1", "--cache", str(tmp_path))
    assert code == 0, out
    need = estimate_solve(Ruleset(cards=5, tie_rule="discard"), "points", table_format=1)
    line = out.split("solved ")[0]  # printed before the solve's own report
    for part in (
        f"{size_text(need.memory_bytes)} of memory",
        f"{size_text(need.disk_bytes)} of disk",
        "on 1 core (estimate), format 1",
        "an interruption loses the work",
    ):
        assert part in line, part
    assert (tmp_path / "gops-n5-discard-points-lowace.v1.ctt").is_file()


@pytest.mark.parametrize(
    "flag, value, says",
    [
        (
            "--max-hours",
            "0.1",
            "longer than --max-hours 0.1. Raise --max-hours to run it here (format 1 does not resume",
        ),
        ("--max-memory", "1", "more memory than --max-memory 1 GiB (format 1 holds every value in memory)"),
    ],
)
def test_format1_discard_13_is_refused_over_a_limit(tmp_path, flag, value, says):
    code, out = run(
        "solve", "-n", "13", "--ties", "discard", "--format", "1", "--cache", str(tmp_path), flag, value
    )
    assert code == 2, out
    assert "1.34e+09 matrix games; 1.5 GiB of memory, 1.3 GiB of disk; about 32 min on 1 core" in out
    assert says in out and "`--format 2`" in out, out
    assert "format 1 only" not in out  # every reader of a discard table reads format 2 too
    # nothing started, nothing written (but the lock file every solve holds)
    assert [p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")] == []


def test_format1_disk_refusal(tmp_path, monkeypatch):
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(10**12, 10**12 - 1000, 1000))
    code, out = run("solve", "-n", "6", "--ties", "discard", "--format", "1", "--cache", str(tmp_path))
    need = estimate_solve(Ruleset(cards=6, tie_rule="discard"), "points", table_format=1)
    assert code == 2, out
    assert f"this solve needs {size_text(need.disk_bytes)} of disk in {tmp_path}, 1000 bytes are free" in out
    assert not (tmp_path / "gops-n6-discard-points-lowace.v1.ctt").exists()


def test_ctrl_c_in_a_format1_solve_says_what_was_lost(tmp_path, monkeypatch):
    import cardtable.solver.layout as layout_mod

    def interrupted(layout, progress=None, **kw):
        progress(1, 50, 180)  # some games done, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(layout_mod, "run_backward_induction", interrupted)
    code, out = run("solve", "-n", "4", "--ties", "discard", "--format", "1", "--cache", str(tmp_path))
    assert code == 130, out
    assert "interrupted after 50 of 180 matrix games (28%)" in out, out
    assert "this work is lost and no file was written" in out
    assert "`cardtable solve -n 4 --ties discard --format 2` solves in layers" in out
    assert not any(tmp_path.glob("gops-n4-discard*"))  # no table, no temporary file
