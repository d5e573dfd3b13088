"""Fit the carry-over approximation's pot model (``pot_model`` 3) to exact carry-over tables.

Writes ``cardtable/solver/data/carry_pot_model.json`` (docs/solver.md, The carry-over
approximation), or to ``--out FILE`` (a candidate, e.g. for
``default_coef(cards, json.load(FILE))``). Samples: the reachable carry-over positions
of layers ``k >= --kmin`` (default 6) of the exact tables of ``--fit`` cards (at most ``--per-layer`` of them per layer and
kind, drawn at random by (prize subset, pot) block). Target: the exact carry-over
value. Features (R = prize points face down, D = the discard value of the same
position, from the discard table of the deck):

- at pot 0 (:func:`cardtable.solver.approx.fitted_value`): ``D``, ``D shared / k``,
  ``top R / k``, ``rank difference R / k^2``, ``D |D| / R``;
- with a pot: ``D``, ``X2`` (the value of ``pot_model`` 2: the pot's next round
  valued exactly on scaled discard children, tie cells as ``a D (1 + stake / R)``)
  and ``pot tanh(8 D / R)``.

Ordinary least squares, one coefficient set per kind and number of rounds played
``p = cards - k`` (pooled over the tables), then the RMS error (points) of the fit
and of ``pot_model`` 1 on each layer of the ``--check`` tables (out of sample when
they were not fitted on).

Usage (tables from ``cardtable solve -n N --ties carry`` and ``--ties discard``)::

    python scripts/fit_pot_model.py --cache DIR --fit 8,9 --check 11 --check-cache DIR11 --per-layer 100000

(the data file's model; the issue-10 refits, measured worse by exploitability:
``--fit 8,9,10,11,12 --kmin 7 --out FILE``, docs/solver.md)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from numba import njit

from cardtable.goofspiel import Ruleset
from cardtable.solver import kernel
from cardtable.solver.approx import TANH_SLOPE, approx_value, default_scale, pattern_features
from cardtable.solver.layers import folder_name, open_layered
from cardtable.solver.lean import min_ties, pot_prizes_allowed
from cardtable.solver.table import load_table

OUT = Path(__file__).resolve().parents[1] / "cardtable" / "solver" / "data" / "carry_pot_model.json"


@njit(cache=True)
def _model_values(k, codes, masks, pots, pot_model, pval, T, lcodes, code_off, lmasks, mask_off,
                  rank_of_mask, psum, base, base_off, val_off, dvals, scale, coef, out):
    M = np.empty((k, k))
    tab = np.empty((k + 1, 2 * k + 1))
    basis = np.empty(k, dtype=np.int64)
    x = np.empty(k)
    y = np.empty(k)
    cidx = np.zeros((k, k), dtype=np.int64)
    csign = np.ones((k, k), dtype=np.int64)
    outc = np.zeros((k, k), dtype=np.int64)
    for s in range(len(codes)):
        out[s] = approx_value(k, codes[s], masks[s], pots[s], pval, T, lcodes, code_off, lmasks,
                              mask_off, rank_of_mask, psum, base, base_off, val_off, dvals, scale,
                              coef, M, tab, basis, x, y, cidx, csign, outc, pot_model)


def samples(n: int, cache: Path, dcache: Path, kmin: int, per_layer: int, rng) -> dict:
    """Per layer k (kmin..n-1) and kind ("pot0", "pot"): features, exact values and the
    values of ``pot_model`` 1."""
    rsc = Ruleset(cards=n, tie_rule="carry")
    ct = open_layered(cache / folder_name(rsc, "points"), verify=False)
    dt = load_table(Ruleset(cards=n, tie_rule="discard"), "points", dcache, verify=False)
    if dt is None:
        raise SystemExit(f"no {n}-card discard table in {dcache}")
    L, lay, DL = ct.lay.dense, ct.lay, dt.layout
    minj = min_ties(lay)
    dvals = np.asarray(dt.values)
    scale = default_scale(n)
    coef = np.zeros((n + 1, 8))
    out = {}
    for k in range(kmin, n):
        lo, hi = int(DL.code_off[k]), int(DL.code_off[k + 1])
        assert np.array_equal(L.codes[L.code_off[k]:L.code_off[k + 1]], DL.codes[lo:hi])
        npat, S = hi - lo, int(lay.nstates[k])
        grid = np.asarray(ct.layers[k]).reshape(npat, S)
        sk = int(lay.so_off[k])
        feats_of = np.array([pattern_features(int(c)) for c in DL.codes[lo:hi]], dtype=float)
        blocks = {"pot0": [], "pot": []}  # (r, state j, pot)
        for r in range(int(L.mask_off[k + 1] - L.mask_off[k])):
            for j in range(int(lay.soff[sk + r]), int(lay.soff[sk + r + 1])):
                pot = int(lay.skeys[lay.skoff[k] + j]) // lay.W
                blocks["pot" if pot > 0 else "pot0"].append((r, j, pot))
        a = int(lay.skoff[k])
        jmax = pot_prizes_allowed(lay, k)
        reach = minj[a:a + S][None, :] <= jmax[:, None]
        out[k] = {kind: _layer(k, n, npat, lo, hi, b, feats_of, L, DL, grid, dvals, scale, coef, per_layer, rng,
                               reach)
                  for kind, b in blocks.items()}
        print(f"  {n} cards, layer {k}: {len(out[k]['pot0']['V']):,} positions at pot 0, "
              f"{len(out[k]['pot']['V']):,} with a pot", flush=True)
    return out


def _layer(k, n, npat, lo, hi, blocks, feats_of, L, DL, grid, dvals, scale, coef, per_layer, rng,
           reach) -> dict:
    """Features, exact values and ``pot_model`` 1 values of a random subset of ``blocks``
    (``reach[i, j]``: pattern ``i`` can hold state ``j``)."""
    take = min(len(blocks), max(1, per_layer // npat))
    pick = rng.choice(len(blocks), take, replace=False) if take < len(blocks) else np.arange(len(blocks))
    D, V, P, R, M = [], [], [], [], []
    for b in np.sort(pick):
        r, j, pot = blocks[b]
        mask = int(L.masks[L.mask_off[k] + r])
        s = kernel.slot(k, r, 0, 0, DL.T - int(DL.psum[mask]), npat, DL.base, DL.base_off,
                        DL.val_off, False, False)
        D.append(dvals[s:s + npat])
        V.append(np.asarray(grid[:, j], dtype=np.float64))
        P.append(np.full(npat, pot))
        R.append(np.full(npat, float(DL.psum[mask])))
        M.append(np.full(npat, mask))
    D, V, P, R, M = map(np.concatenate, (D, V, P, R, M))
    codes = np.tile(DL.codes[lo:hi], len(pick))
    feats = {}
    for pm in ((1, 2) if P[0] > 0 else (1,)):
        v = np.empty(len(D))
        _model_values(k, codes, M, P, pm, DL.pval, DL.T, DL.codes, DL.code_off, DL.masks,
                      DL.mask_off, DL.rank_of_mask, DL.psum, DL.base, DL.base_off, DL.val_off,
                      dvals, scale, coef, v)
        feats[pm] = v
    if P[0] > 0:
        X = np.stack([D, feats[2], P * np.tanh(TANH_SLOPE * D / R)], 1)
    else:
        f = feats_of[np.tile(np.arange(npat), len(pick))]
        X = np.stack([D, D * f[:, 0] / k, f[:, 1] * R / k, f[:, 2] * R / (k * k), D * np.abs(D) / R], 1)
    # fit on the positions a game can reach: a pot of j prizes needs j strengths both players
    # have played (lean.min_ties; tables solved since hold NaN at the others, older ones values)
    keep = np.concatenate([reach[:, blocks[b][1]] for b in np.sort(pick)]) & np.isfinite(V)
    return dict(X=X[keep], V=V[keep], M1=feats[1][keep], B=np.repeat(np.arange(len(pick)), npat)[keep])


def _centred(d: dict, key: str, centre: bool) -> np.ndarray:
    """``d[key]``, less its mean over each (prize subset, pot) block when ``centre``
    (the fit then matches differences between positions of one block, not levels)."""
    a = d[key]
    if not centre:
        return a
    counts = np.bincount(d["B"])
    if a.ndim == 1:
        return a - (np.bincount(d["B"], a) / counts)[d["B"]]
    return np.stack([c - (np.bincount(d["B"], c) / counts)[d["B"]] for c in a.T], 1)


def rms(e: np.ndarray) -> float:
    return float(np.sqrt(np.mean(e * e)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True, help="folder with the carry-over and discard tables")
    ap.add_argument("--fit", default="8,9")
    ap.add_argument("--check", default="")
    ap.add_argument("--check-cache", type=Path, help="folder of the --check carry-over tables")
    ap.add_argument("--per-layer", type=int, default=300_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kmin", type=int, default=6, help="smallest layer (cards per hand) sampled")
    ap.add_argument("--centre", action="store_true",
                    help="fit differences within each (prize subset, pot) block instead of values")
    ap.add_argument("--out", type=Path, default=OUT, help="where to write the model (default: the package's data file)")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    fit_n = [int(v) for v in args.fit.split(",")]
    data = {n: samples(n, args.cache, args.cache, args.kmin, args.per_layer, rng) for n in fit_n}
    coef: dict = {}
    for kind in ("pot0", "pot"):
        by_p: dict[int, list] = {}
        for n, layers in data.items():
            for k, d in layers.items():
                by_p.setdefault(n - k, []).append(d[kind])
        for p in sorted(by_p):
            X = np.concatenate([_centred(d, "X", args.centre) for d in by_p[p]])
            V = np.concatenate([_centred(d, "V", args.centre) for d in by_p[p]])
            c, *_ = np.linalg.lstsq(X, V, rcond=None)
            coef.setdefault(p, {})[kind] = [round(float(v), 4) for v in c]
    report = []
    checks = [(n, data[n]) for n in fit_n]
    for n in [int(v) for v in args.check.split(",") if v]:
        checks.append((n, samples(n, args.check_cache or args.cache, args.cache, args.kmin, args.per_layer, rng)))
    top = max(coef)
    for n, layers in checks:
        for k, both in sorted(layers.items()):
            for kind, d in both.items():
                c = np.array(coef[min(n - k, top)][kind])
                row = dict(cards=n, k=k, rounds=n - k, pot="0" if kind == "pot0" else "> 0",
                           positions=len(d["V"]), sample="in" if n in fit_n else "out",
                           rms_model1=round(rms(d["V"] - d["M1"]), 4),
                           rms_fit=round(rms(d["V"] - d["X"] @ c), 4))
                report.append(row)
                print(row, flush=True)
    args.out.write_text(json.dumps({
        "about": ("pot_model 3 of cardtable.solver.approx: at pot 0 V~ = c . (D, D shared/k, "
                  "top R/k, rank difference R/k^2, D |D|/R) ('pot0'); with a pot V~ = c . (D, X2, "
                  "pot tanh(8 D/R)) ('pot'); coefficients by rounds played p = cards - k (the "
                  "largest p serves larger ones). Fitted by scripts/fit_pot_model.py: ordinary "
                  f"least squares on the positions of layers k >= {args.kmin} of exact carry-over tables, "
                  "at most per_layer positions per layer and kind, random blocks."),
        "fitted_on_cards": fit_n, "per_layer": args.per_layer, "seed": args.seed, "kmin": args.kmin, "centre": args.centre,
        "features": {"pot0": ["D", "D*shared/k", "top*R/k", "rankdiff*R/k^2", "D*|D|/R"],
                     "pot": ["D", "X2", "pot*tanh(8*D/R)"]},
        "by_rounds": {str(p): c for p, c in coef.items()},
        "rms_points": report,
    }, indent=1) + "\n")
    print(f"wrote {args.out}: {coef}")


if __name__ == "__main__":
    main()
