"""Experiment (issue 23, part 2): would the exact carry-over tables compress like the discard ones?

Measurement only. For each layer ``k`` of a solved carry-over points table (table format 2,
``cardtable solve -n N --ties carry``; docs/solver.md, Table format 2) it takes the value
matrix ``states x patterns`` (a state is a prize subset with one of its reachable pots, in
points; the layer file is patterns x states, transposed here) and finds the smallest rank
``r`` of a truncated SVD ``M ~ W P^T`` (``W``: states x r float32, ``P``: patterns x r
float16, as :mod:`cardtable.solver.compressed` stores the discard tables) whose RMS error
over the *reachable* slots is at most ``--target`` points (default 0.01), measured with the
float16 / float32 factors as they would be stored.

Unreachable slots (a pot needing more tied prizes than both hands have given up;
:func:`cardtable.solver.lean.min_ties`; the table holds NaN there) are never read by a
player, so they are excluded from every error, but they must hold *some* number for the
SVD. ``--fill`` chooses it:

- ``zero``: 0 points;
- ``mean``: the state's mean over its reachable patterns (the column mean of the layer file);
- ``als``: no fill at all: for a rank ``q``, the factors fitted to the reachable slots
  alone by ``--als-steps`` rounds of alternating least squares (from the ``mean`` fill's SVD;
  the reachable slots form a staircase, so each step is a few least-squares solves); the
  smallest ``q`` that reaches the target (binary search below the ``mean`` rank).

``--group pot`` instead compresses one matrix per pot value (the states of that pot x
patterns), each to the same target, and adds up their bytes.

Prints one Markdown table per deck and method: layer, patterns, states, share of reachable
slots, rank, RMS and largest error (points, reachable slots), bytes of the factors (or of the
dense float32 matrix where that is smaller, rank shown as ``dense``) and of the layer's
float32 file; then the totals over all layers and over the layers a bot playing exactly
from ``--exact`` cards (default 8, :func:`cardtable.solver.approx.exact_layers` at 13
cards) would read: ``exact..N-1``. Usage (bench/results/carry-compression.md)::

    CARDTABLE_CACHE=/tmp/carrysvd cardtable solve -n 11 --ties carry
    python bench/carry_compress.py --cache /tmp/carrysvd --cards 9,10,11 --fill zero,mean,als
    python bench/carry_compress.py --cache /tmp/carrysvd --cards 11 --fill mean --group pot
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.linalg

from cardtable.goofspiel import Ruleset
from cardtable.solver.layers import folder_name, open_layered
from cardtable.solver.lean import expand_layer, min_ties, pot_prizes_allowed

_ROWS = 1 << 12  # rows per chunk when measuring errors


def layer_matrix(ct, k: int) -> tuple[np.ndarray, ...]:
    """Layer ``k`` of an open carry-over table ``ct`` as ``(M, reach, pots, rgroup,
    cgroup)``: ``M`` the states x patterns values (float64, points, NaN where unreachable),
    ``reach`` the same-shaped bool mask of reachable slots (``rgroup[j] <= cgroup[i]``),
    ``pots`` the pot (points) of each state, ``rgroup`` the fewest tied prizes of each
    state's pot, ``cgroup`` the most tied prizes each pattern's hands allow.

    Raises:
        ValueError: the NaN slots of the file are not exactly the unreachable ones."""
    lay = ct.lay
    S = int(lay.nstates[k])
    grid = expand_layer(lay, k, ct.layers[k])  # (npat, S) float64, a compact table too
    a = int(lay.skoff[k])
    rgroup, cgroup = min_ties(lay)[a : a + S], pot_prizes_allowed(lay, k)
    reach = rgroup[None, :] <= cgroup[:, None]
    if not np.array_equal(np.isfinite(grid), reach):
        raise ValueError(f"layer {k}: NaN slots differ from the unreachable ones")
    pots = lay.skeys[a : a + S] // lay.W
    return grid.T.copy(), reach.T.copy(), pots, rgroup, cgroup


def _svd(M: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Thin SVD ``M = U diag(s) V^T`` via the Gram matrix of the smaller side
    (singular values descending)."""
    m, n = M.shape
    if n <= m:
        ev, V = scipy.linalg.eigh(M.T @ M)
        ev, V = ev[::-1], V[:, ::-1]
        s = np.sqrt(np.maximum(ev, 0.0))
        U = (M @ V) / np.where(s > 0, s, 1.0)
    else:
        ev, U = scipy.linalg.eigh(M @ M.T)
        ev, U = ev[::-1], U[:, ::-1]
        s = np.sqrt(np.maximum(ev, 0.0))
        V = (M.T @ U) / np.where(s > 0, s, 1.0)
    return U, s, V


def _errors(M: np.ndarray, reach: np.ndarray, W: np.ndarray, P: np.ndarray) -> tuple[float, float]:
    """RMS and largest error of ``W P^T`` against ``M`` on the reachable slots."""
    ss, mx, cnt = 0.0, 0.0, 0
    Pd = P.astype(np.float64)
    for a in range(0, M.shape[0], _ROWS):
        err = (W[a : a + _ROWS].astype(np.float64) @ Pd.T - M[a : a + _ROWS])[reach[a : a + _ROWS]]
        if err.size:
            ss += float(err @ err)
            mx = max(mx, float(np.abs(err).max()))
            cnt += err.size
    return (np.sqrt(ss / cnt) if cnt else 0.0), mx


def _factors(U, s, V, r):
    return (U[:, :r] * s[:r]).astype(np.float32), V[:, :r].astype(np.float16)


def smallest_rank(M: np.ndarray, reach: np.ndarray, target: float) -> dict:
    """The smallest rank whose stored factors (``W`` float32, ``P`` float16) reach RMS
    ``target`` on the reachable slots of ``M`` (every slot of ``M`` finite). Returns
    ``{"rank", "rms", "max", "bytes", "recon"}`` (``rank`` "dense": dense float32 is smaller;
    ``recon``: the rank's reconstruction as ``(W, P)``, or None)."""
    m, n = M.shape
    dense = {"rank": "dense", "rms": 0.0, "max": 0.0, "bytes": 4 * m * n, "recon": None}
    if min(m, n) <= 2:
        return dense
    U, s, V = _svd(M)
    nreach = int(reach.sum())
    # upper bound: the error over all slots bounds the one over the reachable ones
    tail = np.append(np.cumsum((s**2)[::-1])[::-1], 0.0)
    hi = int(np.argmax(tail <= (target**2) * nreach))
    while True:  # half precision can push the bound just over the target
        if hi * (4 * m + 2 * n) >= dense["bytes"]:
            return dense
        rms, mx = _errors(M, reach, *_factors(U, s, V, hi))
        if rms <= target or hi >= len(s):
            break
        hi += 1
    best = (hi, rms, mx)
    lo = 0  # rank lo fails (rank 0 is never below target for a non-zero layer)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        rms, mx = _errors(M, reach, *_factors(U, s, V, mid))
        if rms <= target:
            hi, best = mid, (mid, rms, mx)
        else:
            lo = mid
    r, rms, mx = best
    nbytes = r * (4 * m + 2 * n)
    if nbytes >= dense["bytes"]:
        return dense
    return {"rank": r, "rms": rms, "max": mx, "bytes": nbytes, "recon": _factors(U, s, V, r)}


def filled(M: np.ndarray, reach: np.ndarray, how: str) -> np.ndarray:
    """``M`` with its unreachable slots set to 0 (``zero``) or to the row's (state's)
    mean over its reachable slots (``mean``, ``als``)."""
    F = np.where(reach, M, 0.0)
    if how == "zero":
        return F
    cnt = reach.sum(axis=1)
    mean = F.sum(axis=1) / np.maximum(cnt, 1)
    return np.where(reach, M, mean[:, None])


def _lstsq_rows(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``X`` minimising ``|A - X B^T|`` (rows of ``A`` against the columns' factors ``B``)."""
    G = B.T @ B
    return scipy.linalg.solve(G + (1e-12 * np.trace(G) + 1e-12) * np.eye(len(G)), (A @ B).T, assume_a="pos").T


def _als(M, reach, rgroup, cgroup, q, steps, usv):
    """Rank-``q`` factors fitted to the reachable slots only (alternating least squares,
    ``steps`` rounds from the ``mean`` fill's SVD ``usv``). The mask is a staircase:
    ``reach[j, i] = rgroup[j] <= cgroup[i]`` (a state's fewest tied prizes against a
    pattern's most), so each least-squares step is one solve per group."""
    U, s, V = usv
    W, P = U[:, :q] * s[:q], V[:, :q].copy()
    Mz = np.where(reach, M, 0.0)
    for it in range(steps + 1):
        for g in np.unique(rgroup):
            rows, cols = rgroup == g, cgroup >= g
            W[rows] = _lstsq_rows(Mz[np.ix_(rows, cols)], P[cols])
        if it == steps:
            break
        for h in np.unique(cgroup):
            cols, rows = cgroup == h, rgroup <= h
            P[cols] = _lstsq_rows(Mz[np.ix_(rows, cols)].T, W[rows])
    # store as compressed.py does: unit-norm pattern factors in float16, then refit W to them
    norm = np.linalg.norm(P, axis=0)
    P16 = (P / np.where(norm > 0, norm, 1.0)).astype(np.float16)
    P64 = P16.astype(np.float64)
    for g in np.unique(rgroup):
        rows, cols = rgroup == g, cgroup >= g
        W[rows] = _lstsq_rows(Mz[np.ix_(rows, cols)], P64[cols])
    W32 = W.astype(np.float32)
    return (*_errors(Mz, reach, W32, P16), (W32, P16))


def compress(M, reach, how, target, steps, rgroup=None, cgroup=None) -> dict:
    """:func:`smallest_rank` of ``M`` filled by ``how`` (module docstring); ``als``: the
    smallest rank ``q`` (binary search below the ``mean`` result's) whose factors fitted to
    the reachable slots alone (:func:`_als`, ``steps`` rounds) reach ``target``."""
    res = smallest_rank(filled(M, reach, how), reach, target)
    if how != "als" or reach.all() or res["rank"] == "dense":
        return res
    lo, hi = 0, int(res["rank"])
    m, n = M.shape
    usv = _svd(filled(M, reach, "mean"))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        rms, mx, _ = _als(M, reach, rgroup, cgroup, mid, steps, usv)
        if rms <= target:
            hi = mid
            res = {"rank": mid, "rms": rms, "max": mx, "bytes": mid * (4 * m + 2 * n), "recon": None}
        else:
            lo = mid
    return res


def compress_grouped(
    M: np.ndarray, reach: np.ndarray, pots: np.ndarray, how: str, target: float, steps: int, rgroup, cgroup
) -> dict:
    """One :func:`compress` per pot value (the states of that pot), the bytes added up and
    the errors pooled over all reachable slots."""
    ss, mx, cnt, nbytes, ranks = 0.0, 0.0, 0, 0, []
    for p in np.unique(pots):
        rows = pots == p
        res = compress(M[rows], reach[rows], how, target, steps, rgroup[rows], cgroup)
        c = int(reach[rows].sum())
        ss += res["rms"] ** 2 * c
        cnt += c
        mx = max(mx, res["max"])
        nbytes += res["bytes"]
        ranks.append(res["rank"])
    ints = [r for r in ranks if r != "dense"]
    return {
        "rank": f"{max(ints, default=0)} max, {len(ranks)} pots ({len(ranks) - len(ints)} dense)",
        "rms": np.sqrt(ss / max(cnt, 1)),
        "max": mx,
        "bytes": nbytes,
    }


def run_deck(
    n: int, cache: Path, fills: list[str], group: str, target: float, steps: int, exact: int, layers
) -> None:
    rs = Ruleset(cards=n, tie_rule="carry")
    folder = cache / folder_name(rs, "points")
    ct = open_layered(folder, verify=False)
    ks = [k for k in range(1, n) if layers is None or k in layers]
    rows: dict[str, list] = {f: [] for f in fills}
    for k in ks:
        M, reach, pots, rgroup, cgroup = layer_matrix(ct, k)
        for f in fills:
            t0 = time.perf_counter()
            if group == "pot":
                res = compress_grouped(M, reach, pots, f, target, steps, rgroup, cgroup)
            else:
                res = compress(M, reach, f, target, steps, rgroup, cgroup)
            dt = time.perf_counter() - t0
            rows[f].append((k, M.shape[1], M.shape[0], reach.mean(), res, 4 * M.size, dt))
            print(
                f"  [{n} cards, layer {k}, {f}: rank {res['rank']}, {dt:.0f} s]", file=sys.stderr, flush=True
            )
    for f in fills:
        print(f"\n### {n} cards, carry-over, fill {f}, group {group}, target RMS {target} points\n")
        print(
            "| layer k | patterns | states | reachable | rank | RMS | largest error | factor bytes | float32 bytes | ratio |"
        )
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        tot = {"all": [0, 0], "bot": [0, 0]}
        for k, npat, S, share, res, f32, _dt in rows[f]:
            print(
                f"| {k} | {npat:,} | {S:,} | {share:.1%} | {res['rank']} | {res['rms']:.4f} | {res['max']:.3f} | "
                f"{res['bytes']:,} | {f32:,} | {res['bytes'] / f32:.4f} |"
            )
            for key in ("all", "bot") if k >= exact else ("all",):
                tot[key][0] += res["bytes"]
                tot[key][1] += f32
        for key, label in (("all", "all layers shown"), ("bot", f"layers {exact}..{n - 1}")):
            b, f32 = tot[key]
            if f32:
                print(
                    f"| {label} | | | | | | | {b:,} ({b / 2**20:.2f} MiB) | {f32:,} ({f32 / 2**20:.1f} MiB) "
                    f"| {b / f32:.4f} |"
                )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, required=True, help="folder of the solved carry-over tables")
    ap.add_argument("--cards", default="11", help="comma-separated deck sizes")
    ap.add_argument("--fill", default="mean", help="comma-separated: zero, mean, als")
    ap.add_argument("--group", choices=("none", "pot"), default="none")
    ap.add_argument("--target", type=float, default=0.01, help="RMS error per layer, points")
    ap.add_argument("--als-steps", type=int, default=8)
    ap.add_argument("--exact", type=int, default=8, help="the bot reads layers exact..N-1")
    ap.add_argument("--layers", default=None, help="comma-separated layers (default: 1..N-1)")
    args = ap.parse_args(argv)
    fills = args.fill.split(",")
    bad = [f for f in fills if f not in ("zero", "mean", "als")]
    if bad:
        ap.error(f"unknown --fill {', '.join(bad)} (zero, mean, als)")
    layers = None if args.layers is None else {int(x) for x in args.layers.split(",")}
    for n in (int(x) for x in args.cards.split(",")):
        run_deck(n, args.cache, fills, args.group, args.target, args.als_steps, args.exact, layers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
