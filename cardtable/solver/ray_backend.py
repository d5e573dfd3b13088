"""The Ray backend: the patterns of each layer sharded across Ray workers.

Each task solves a contiguous range of patterns with the same serial kernel
as ``--threads`` (:func:`cardtable.solver.lean.solve_patterns`), reading
layer ``k - 1`` memory-mapped from the table folder and writing its block of
layer ``k`` straight into the layer file at its own offset; so the table is
byte-identical to the threaded one (tested with 2 local workers), and on a
cluster the table folder must be a path every worker sees (a shared file
system). ``ray.init`` connects to the cluster named by ``RAY_ADDRESS``, or
starts ``workers`` local worker processes; the backend shuts Ray down when the
solve ends if it started it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np

from .layers import LayerBackend, _merge, sha256_file
from .lean import NSTATS, LeanLayout, block, min_ties, slot_map, solve_chunk

if TYPE_CHECKING:  # ray is imported when a solve starts, not with the module
    from ray.remote_function import RemoteFunction


def _chunk_task(
    lay: LeanLayout, k: int, lo: int, hi: int, prev_path: str | None, out_path: str, warm: bool = True
) -> np.ndarray:
    """Solve patterns ``lo..hi-1`` of layer ``k`` and write them into ``out_path``."""
    prev: np.ndarray | None = np.memmap(prev_path, dtype="<f4", mode="r") if prev_path else None
    if prev is not None and prev.size == 0:
        prev = np.zeros(1, np.float32)
    out, st = solve_chunk(lay, k, lo, hi, prev, warm=warm)
    fd = os.open(out_path, os.O_WRONLY)
    try:
        os.pwrite(fd, out.astype("<f4", copy=False).tobytes(), block(lay, k, lo) * 4)
    finally:
        os.close(fd)
    return st


@dataclass
class RayBackend(LayerBackend):
    """``--backend ray``: ``workers`` Ray tasks in flight per layer, one CPU each."""

    workers: int = 2
    name: str = "ray"
    _started: bool = field(default=False, repr=False)
    _lay_ref: object = field(default=None, repr=False)
    _task: RemoteFunction | None = field(default=None, repr=False)

    def start(self, lay: LeanLayout) -> None:
        # lazy: Ray is an optional extra (research); this module loads without it
        import ray

        if not ray.is_initialized():
            address = os.environ.get("RAY_ADDRESS")
            env = {"env_vars": {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "NUMBA_NUM_THREADS": "1"}}
            if address:
                ray.init(address=address, runtime_env=env, log_to_driver=False)
            else:
                # Ray starts its workers at niceness 15; a solve's workers are the work itself
                os.environ.setdefault("RAY_worker_niceness", "0")
                ray.init(num_cpus=self.workers, include_dashboard=False, runtime_env=env, log_to_driver=False)
            self._started = True
        min_ties(lay)  # computed once here: it travels with the layout, not once per task
        slot_map(lay)  # likewise
        self._lay_ref = ray.put(lay)
        self._task = ray.remote(num_cpus=1)(_chunk_task)

    def stop(self) -> None:
        import ray  # lazy: as in start (the optional Ray extra)

        self._lay_ref = None
        if self._started and ray.is_initialized():
            ray.shutdown()
        self._started = False

    def solve_layer(
        self,
        lay: LeanLayout,
        k: int,
        prev: np.ndarray | None,
        prev_path: Path | None,
        out_path: Path,
        progress: Callable[[int, int], None],
    ) -> tuple[np.ndarray, str]:
        import ray  # lazy: as in start (the optional Ray extra)

        npat = lay.npat(k)
        with open(out_path, "wb") as f:
            f.truncate(4 * lay.layer_size(k))
        # enough shards to balance the workers, each at most chunk_games games
        step = max(
            1,
            min(
                -(-npat // (4 * self.workers)),
                self.chunk_games // max(1, k * (lay.layer_size(k) // max(1, npat))),
            ),
        )
        task = self._task
        assert task is not None  # start() made it
        pending = {}
        for lo in range(0, npat, step):
            hi = min(npat, lo + step)
            ref = task.remote(
                self._lay_ref, k, lo, hi, str(prev_path) if prev_path else None, str(out_path), self.warm
            )
            pending[ref] = hi - lo
        st = np.zeros(NSTATS)
        done = 0
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                _merge(st, ray.get(ref))
                done += pending.pop(ref)
                progress(done, npat)
        with open(out_path, "rb+") as f:
            os.fsync(f.fileno())
        return st, sha256_file(out_path)


__all__ = ["RayBackend"]
