"""``bench/solver.py --estimates --keep``: a solve measured in parts (issue 23: the 12-card win
solves take longer than one sitting). Each layer records its own CPU seconds; the kept run
resumes the finished layers and reports their sum."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "solver.py"


def bench(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, str(BENCH), "--estimates", "6", "--ties", "carry", "--objectives", "win"]
    cmd += ["--keep", str(tmp_path / "kept"), "--log", str(tmp_path / "log.jsonl"), *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def test_a_kept_solve_resumes_and_sums_its_layers_cpu(tmp_path):
    first = bench(tmp_path, "--upto", "3")
    assert first.returncode == 0, first.stderr
    assert "partial" in first.stdout
    assert not (tmp_path / "log.jsonl").exists()  # a partial solve is no record
    folder = tmp_path / "kept" / "6-carry-win"
    second = bench(tmp_path)
    assert second.returncode == 0, second.stderr
    runs = [json.loads(x) for x in (folder / "bench-runs.jsonl").read_text().splitlines()]
    assert [r["solved_layers"] for r in runs] == [[1, 2, 3], [4, 5, 6]]
    (record,) = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    metas = [json.loads((folder / f"layer-{k:02d}.json").read_text()) for k in range(1, 7)]
    assert all(m["cpu_seconds"] >= 0 for m in metas)
    assert record["cpu_s"] == sum(m["cpu_seconds"] for m in metas)
    # each run solved the reference game; the record's reference is their CPU-weighted mean
    assert all(r["reference_cpu_s"] > 0 for r in runs)
    weighted = sum(r["cpu_s"] * r["reference_cpu_s"] for r in runs) / sum(r["cpu_s"] for r in runs)
    assert record["reference_cpu_s"] == pytest.approx(weighted)
    assert [k for k, _, _ in record["layers"]] == [1, 2, 3, 4, 5, 6]
    assert record["peak_mb"] == max(r["peak_mb"] for r in runs)
    assert abs(record["value"]) < 1e-9  # the symmetric game's value


def test_layers_without_their_cpu_seconds_are_refused(tmp_path):
    assert bench(tmp_path, "--upto", "2").returncode == 0
    meta_path = tmp_path / "kept" / "6-carry-win" / "layer-01.json"
    meta = json.loads(meta_path.read_text())
    del meta["cpu_seconds"]  # a layer solved by an older cardtable: its CPU is unknown
    meta_path.write_text(json.dumps(meta))
    out = bench(tmp_path)
    assert "record no cpu_seconds" in out.stdout + out.stderr
    assert not (tmp_path / "log.jsonl").exists()
    assert not (tmp_path / "kept" / "6-carry-win" / "layer-03.json").exists()  # refused before solving


def test_upto_needs_keep(tmp_path):
    out = subprocess.run(
        [sys.executable, str(BENCH), "--estimates", "6", "--upto", "3"], capture_output=True, text=True
    )
    assert out.returncode == 2 and "--upto needs --keep" in out.stderr


def test_threads_are_recorded_and_wall_time_is_compared(tmp_path):
    """``--threads 2``: the record says so and a row compares the wall seconds with the
    estimate's linear ``hours(2)`` (how the 12-card carry-over win solve fits one sitting)."""
    out = bench(tmp_path, "--threads", "2")
    assert out.returncode == 0, out.stderr
    assert "2 threads" in out.stdout and "wall s on 2 threads" in out.stdout
    (record,) = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert record["threads"] == 2
    metas = [
        json.loads((tmp_path / "kept" / "6-carry-win" / f"layer-{k:02d}.json").read_text())
        for k in range(1, 7)
    ]
    assert record["solve_s"] == sum(m["seconds"] for m in metas)
    (run,) = [
        json.loads(x)
        for x in (tmp_path / "kept" / "6-carry-win" / "bench-runs.jsonl").read_text().splitlines()
    ]
    assert run["threads"] == 2
