"""The Ray and CUDA backends give the threaded backend's table (docs/solver.md, Backends)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cardtable.goofspiel import Ruleset
from cardtable.solver.layers import LayerBackend, solve_layered


def test_ray_with_two_local_workers_equals_threads(tmp_path, monkeypatch):
    pytest.importorskip("ray")
    import ray

    from cardtable.solver.ray_backend import RayBackend

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_raylet_start_wait_time_s", "300")  # a loaded machine starts Ray slowly
    rs = Ruleset(cards=6, tie_rule="carry")
    threads = solve_layered(rs, "points", tmp_path / "threads", LayerBackend(threads=2))
    ray_run = solve_layered(rs, "points", tmp_path / "ray", RayBackend(workers=2, chunk_games=2000))
    assert ray_run["stats"]["backend"] == "ray"
    assert not ray.is_initialized()  # the backend shut down the Ray it started
    assert [x["sha256"] for x in ray_run["layers"]] == [x["sha256"] for x in threads["layers"]]
    assert ray_run["stats"]["games"] == threads["stats"]["games"] > 10_000  # 14,856 (min_ties)


CUDASIM = """
import sys, numpy as np
from pathlib import Path
from cardtable.goofspiel import Ruleset
from cardtable.solver.cuda_backend import CudaBackend
from cardtable.solver.layers import LayerBackend, lean_layout, solve_layered
from cardtable.solver.lean import float32_bound
n, tie, out = int(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
rs = Ruleset(cards=n, tie_rule=tie)
lay = lean_layout(rs, "points")
cpu = solve_layered(rs, "points", out / "cpu", LayerBackend(), lay=lay)  # the full layout, as the GPU's
gpu = solve_layered(rs, "points", out / "gpu", CudaBackend())
assert gpu["stats"]["backend"] == "cuda" and gpu["stats"]["games"] == cpu["stats"]["games"]
for k in range(1, n + 1):
    a = np.fromfile(out / "cpu" / f"layer-{k:02d}.f32", dtype="<f4")
    b = np.fromfile(out / "gpu" / f"layer-{k:02d}.f32", dtype="<f4")
    assert len(a) == len(b) > 0
    assert np.array_equal(np.isnan(a), np.isnan(b))  # the same states skipped (lean.min_ties)
    both = ~np.isnan(a)
    worst = float(np.max(np.abs(a[both].astype(float) - b[both])))
    print(k, len(a), worst, np.array_equal(a[both], b[both]))
    assert worst <= float32_bound(lay, k), (k, worst)
print("games", gpu["stats"]["games"])
"""


@pytest.mark.parametrize("n,tie", [(4, "carry"), (4, "discard"), (3, "carry")])
def test_cuda_kernel_under_the_simulator_equals_cpu(tmp_path, n, tie):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    r = subprocess.run(
        [sys.executable, "-c", CUDASIM, str(n), tie, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.split("\n")
    assert sum(1 for ln in lines if ln.endswith("True") or ln.endswith("False")) == n
    assert int(lines[-2].split()[1]) > 0


def test_cuda_backend_without_a_gpu_says_what_to_do():
    r = subprocess.run(
        [sys.executable, "-c", "from cardtable.solver.cuda_backend import CudaBackend\nCudaBackend()"],
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"},
    )
    assert r.returncode != 0 and "NUMBA_ENABLE_CUDASIM=1" in r.stderr and "cardtable[cuda]" in r.stderr
