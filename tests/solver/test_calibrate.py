"""This machine's speed in the time estimate (docs/solver.md, Estimates and refusals): a
reference solve of the same kind, measured first, scales ``estimate_solve``'s time
(``estimate.machine_factor``), so that an estimate made with prices measured on one machine
holds on another; ``cardtable solve`` does it by default for solves estimated at 10 minutes or
more (``--calibrate`` / ``--no-calibrate``)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.goofspiel import Ruleset
from cardtable.solver.estimate import (
    REFERENCE_CARDS,
    REFERENCE_CPU_S,
    estimate_solve,
    machine_factor,
    measure_reference,
    reference_ruleset,
)
from cardtable.solver.plan import SolveRefused, plan_solve


def run(*args):
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    return r.exit_code, " ".join(r.stdout.split()), " ".join(r.stderr.split())


def test_every_kind_has_a_reference_of_seconds():
    for (ties, objective), cards in REFERENCE_CARDS.items():
        assert reference_ruleset(ties, objective) == Ruleset(cards=cards, tie_rule=ties)
        assert REFERENCE_CPU_S[(ties, objective)] > 0
        assert estimate_solve(reference_ruleset(ties, objective), objective).cpu_seconds < 60


def test_calibrated_needs_scale_the_time_only_and_do_not_compound():
    needs = estimate_solve(Ruleset(cards=8, tie_rule="carry"), "points")
    slow = needs.calibrated(1.5)
    assert slow.cpu_seconds == pytest.approx(1.5 * needs.cpu_seconds)
    assert (slow.games, slow.memory_bytes, slow.disk_bytes) == (
        needs.games,
        needs.memory_bytes,
        needs.disk_bytes,
    )
    assert slow.calibrated(0.5).cpu_seconds == pytest.approx(
        0.5 * needs.cpu_seconds
    )  # of the base, not of 1.5x
    assert "1.50 x the reference time" in slow.describe() and "reference" not in needs.describe()


def test_the_factor_moves_the_hours_check(tmp_path):
    rs = Ruleset(cards=12, tie_rule="discard")
    hours = estimate_solve(rs, "points").hours()
    plan_solve(rs, "points", tmp_path / "t", max_hours=hours * 1.2)  # within the limit as priced
    with pytest.raises(SolveRefused):
        plan_solve(rs, "points", tmp_path / "t", max_hours=hours * 1.2, machine_factor=1.5)


def test_measure_reference_solves_the_reference_game():
    cpu = measure_reference("discard", "points")
    assert cpu > 0
    assert machine_factor("discard", "points", cpu) == pytest.approx(
        cpu / REFERENCE_CPU_S[("discard", "points")]
    )


def test_solve_calibrates_when_asked_and_says_so(tmp_path):
    code, out, err = run("solve", "-n", "6", "--ties", "discard", "--cache", str(tmp_path), "--calibrate")
    assert code == 0, out + err
    assert "measuring this machine's speed: the 10-card reference solve" in err
    assert "x the reference time" in out


def test_solve_does_not_calibrate_small_solves_or_when_told_not_to(tmp_path):
    code, out, err = run("solve", "-n", "6", "--ties", "discard", "--cache", str(tmp_path / "a"))
    assert code == 0 and "measuring" not in err and "reference time" not in out
    # a big solve refused over its hours without a measurement
    code, out, err = run(
        "solve",
        "-n",
        "13",
        "--ties",
        "discard",
        "--cache",
        str(tmp_path / "b"),
        "--no-calibrate",
        "--max-hours",
        "0.01",
    )
    assert code == 2 and "measuring" not in err
    assert not (tmp_path / "b").exists()


def test_a_big_solve_is_measured_before_its_hours_are_checked(tmp_path):
    code, out, err = run(
        "solve", "-n", "13", "--ties", "discard", "--cache", str(tmp_path), "--max-hours", "0.01"
    )
    assert code == 2
    assert "measuring this machine's speed" in err
    assert "x the reference time" in out + err  # the refusal names the measured estimate
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


def test_calibrate_says_when_it_cannot_apply_or_cannot_measure(tmp_path, monkeypatch):
    code, out, err = run("solve", "-n", "4", "--cache", str(tmp_path / "a"), "--format", "1", "--calibrate")
    assert code == 0 and "not done for format 1" in err and "reference time" not in out

    import cardtable.solver.estimate as estimate

    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(estimate, "measure_reference", no_space)
    code, out, err = run("solve", "-n", "4", "--cache", str(tmp_path / "b"), "--calibrate")
    assert code == 0, out + err  # solved, with the reference machine's estimate
    assert "could not measure it (No space left on device)" in err and "reference time" not in out
