"""Low-rank fits of table layers too large to hold in float64: a streamed, randomized SVD
with a rank chosen on the slots a game can reach.

A layer of a carry-over table (table format 2, docs/solver.md) is a ``patterns x states``
float32 matrix with NaN where no game reaches (a pot needing more tied prizes than the hands
have given up; :func:`.lean.min_ties`). Slot ``(i, j)`` is reachable exactly when
``fewest[j] <= allowed[i]`` (the state's fewest tied prizes against the most the pattern's
hands allow: a staircase). The unreachable slots are filled with the state's mean over its
reachable slots, the filled matrix ``A`` is factored as ``A ~ U diag(s) V^T``, and the rank
``r`` is the smallest whose RMS error over the **reachable** slots is at most the target.

Layers of up to :data:`EXACT_MAX` values get NumPy's exact SVD. Larger ones (13 cards, layer
8: 1.9 billion values, 7.5 GB as float32) get the randomized range finder of Halko,
Martinsson and Tropp, "Finding structure with randomness" (SIAM Review 53(2), 2011),
Algorithm 4.4 (subspace iteration), reading the matrix in row blocks from its memory map:
each pass is one product with the whole matrix, and nothing larger than a block, the
``patterns x l`` sketch and the ``states x l`` one is held. Whatever the sketch's accuracy, the
chosen rank's error is measured against the matrix itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

#: Largest layer (values) factored by an exact SVD in memory (float64: 400 MB).
EXACT_MAX = 50_000_000
#: Values per row block of a streamed pass (float64: 256 MB).
BLOCK_VALUES = 1 << 25


@dataclass
class LayerFit:
    """A layer's factors and their errors over the reachable slots.

    Attributes:
        pattern: ``patterns x r`` float16, unit-norm columns (``None``: stored densely).
        state: ``states x r`` float32 (singular values folded in).
        dense: ``patterns x states`` float32 (filled) when that is smaller than the factors.
        rank, rms, max: the stored form's rank (0: dense) and its RMS and largest error,
            in points, over the reachable slots.
        reachable: reachable slots.
    """

    pattern: np.ndarray | None
    state: np.ndarray | None
    dense: np.ndarray | None
    rank: int
    rms: float
    max: float
    reachable: int


def _blocks(npat: int, S: int) -> Iterator[slice]:
    rows = max(1, BLOCK_VALUES // max(S, 1))
    for lo in range(0, npat, rows):
        yield slice(lo, min(npat, lo + rows))


def _reach(fewest: np.ndarray, allowed: np.ndarray, rows: slice) -> np.ndarray:
    return fewest[None, :] <= allowed[rows, None]


def _filled(
    M: np.ndarray, fewest: np.ndarray, allowed: np.ndarray, mean: np.ndarray, rows: slice
) -> np.ndarray:
    return np.where(_reach(fewest, allowed, rows), np.asarray(M[rows], dtype=np.float64), mean[None, :])


def state_means(M: np.ndarray, fewest: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, int]:
    """(each state's mean over its reachable slots (0 where none), reachable slots)."""
    npat, S = M.shape
    total = np.zeros(S)
    count = np.zeros(S)
    for rows in _blocks(npat, S):
        reach = _reach(fewest, allowed, rows)
        total += np.where(reach, np.asarray(M[rows], dtype=np.float64), 0.0).sum(axis=0)
        count += reach.sum(axis=0)
    return total / np.maximum(count, 1), int(count.sum())


def _svd(M, fewest, allowed, mean, sketch: int, power: int, seed: int):
    """``(U, s, Vt)`` of the filled matrix: exact when small, else randomized (module doc)."""
    npat, S = M.shape
    if npat * S <= EXACT_MAX:
        A = np.concatenate([_filled(M, fewest, allowed, mean, rows) for rows in _blocks(npat, S)])
        return np.linalg.svd(A, full_matrices=False)
    cols = min(sketch, npat, S)
    omega = np.random.default_rng(seed).standard_normal((S, cols))
    Y = np.empty((npat, cols))
    for rows in _blocks(npat, S):
        Y[rows] = _filled(M, fewest, allowed, mean, rows) @ omega
    for _ in range(power):
        Q = np.linalg.qr(Y)[0]
        Z = np.zeros((S, cols))
        for rows in _blocks(npat, S):
            Z += _filled(M, fewest, allowed, mean, rows).T @ Q[rows]
        Qz = np.linalg.qr(Z)[0]
        for rows in _blocks(npat, S):
            Y[rows] = _filled(M, fewest, allowed, mean, rows) @ Qz
    Q = np.linalg.qr(Y)[0]
    Bt = np.zeros((S, cols))  # B = Q^T A, kept transposed
    for rows in _blocks(npat, S):
        Bt += _filled(M, fewest, allowed, mean, rows).T @ Q[rows]
    Ub, s, Vt = np.linalg.svd(Bt.T, full_matrices=False)
    return Q @ Ub, s, Vt


def reachable_errors(M, fewest, allowed, P: np.ndarray, Wt: np.ndarray) -> tuple[float, float]:
    """(RMS, largest) error of ``P @ Wt`` (``patterns x r`` by ``r x states``) against ``M``
    over the reachable slots, in one streamed pass."""
    npat, S = M.shape
    sq, big, n = 0.0, 0.0, 0
    for rows in _blocks(npat, S):
        reach = _reach(fewest, allowed, rows)
        err = (P[rows].astype(np.float64) @ Wt.astype(np.float64) - np.asarray(M[rows], dtype=np.float64))[
            reach
        ]
        if err.size:
            sq += float(err @ err)
            big = max(big, float(np.abs(err).max()))
            n += err.size
    return (np.sqrt(sq / n) if n else 0.0), big


def fit_layer(
    M: np.ndarray,
    fewest: np.ndarray,
    allowed: np.ndarray,
    target_rms: float,
    sketch: int = 400,
    power: int = 2,
    seed: int = 0,
) -> LayerFit:
    """The smallest stored form of layer ``M`` (``patterns x states``, float32, a memory map
    is fine) whose RMS error over the reachable slots (``fewest[j] <= allowed[i]``) is at
    most ``target_rms`` points: the factors of the smallest such rank (found by bisection,
    each step one streamed pass), or the filled dense matrix where that is no larger.

    ``sketch``: columns of the randomized sketch (the largest rank it can give); ``power``:
    subspace iterations. Raises ``ValueError`` when even rank ``sketch`` misses the target.
    """
    npat, S = M.shape
    fewest = np.asarray(fewest, dtype=np.int64)
    allowed = np.asarray(allowed, dtype=np.int64)
    mean, reachable = state_means(M, fewest, allowed)
    dense_bytes = 4 * npat * S

    def dense() -> LayerFit:
        D = np.concatenate([_filled(M, fewest, allowed, mean, rows) for rows in _blocks(npat, S)])
        # the reachable slots keep their float32 values exactly: no error
        return LayerFit(None, None, D.astype(np.float32), 0, 0.0, 0.0, reachable)

    if min(npat, S) <= 2 or 4 * S + 2 * npat >= dense_bytes:
        return dense()
    U, s, Vt = _svd(M, fewest, allowed, mean, sketch, power, seed)

    def stored(r: int) -> tuple[np.ndarray, np.ndarray]:
        return U[:, :r].astype(np.float16), (Vt[:r].T * s[:r]).astype(np.float32)

    measured: dict[int, tuple[float, float]] = {}  # rank -> errors: each is one streamed pass

    def error(r: int) -> tuple[float, float]:
        if r not in measured:
            P, W = stored(r)
            measured[r] = reachable_errors(M, fewest, allowed, P, W.T)
        return measured[r]

    hi = len(s)
    if error(hi)[0] > target_rms:
        raise ValueError(f"rank {hi} misses the target {target_rms} points RMS: raise the sketch")
    lo = 0  # error(lo) > target (rank 0 is taken to miss it)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if error(mid)[0] <= target_rms:
            hi = mid
        else:
            lo = mid
    if hi * (4 * S + 2 * npat) >= dense_bytes:
        return dense()
    P, W = stored(hi)
    rms, big = error(hi)
    return LayerFit(P, W, None, hi, rms, big, reachable)


__all__ = ["EXACT_MAX", "LayerFit", "fit_layer", "reachable_errors", "state_means"]
