"""Fit the carry-over approximation's value model (``pot_model`` 3 or 4) to exact carry-over tables.

Writes the model's data file in ``cardtable/solver/data`` (``carry_pot_model.json`` for 3,
``carry_value_model.json`` for 4; docs/solver.md, The carry-over approximation), or to
``--out FILE`` (a candidate, e.g. for ``default_coef(cards, json.load(FILE))``). Samples: the reachable carry-over positions
of layers ``k >= --kmin`` (default 6) of the exact tables of ``--fit`` cards (at most ``--per-layer`` of them per layer and
kind, drawn at random by (prize subset, pot) block). Target: the exact carry-over
value. Features (R = prize points face down, D = the discard value of the same
position, from the discard table of the deck):

- model 3, at pot 0 (:func:`cardtable.solver.approx.fitted_value`): ``D``, ``D shared / k``,
  ``top R / k``, ``rank difference R / k^2``, ``D |D| / R``; with a pot: ``D``, ``X2``
  (:func:`cardtable.solver.approx.next_round_value`: the next round valued exactly on
  scaled discard children, tie cells as ``a D (1 + stake / R)``) and ``pot tanh(8 D / R)``;
- model 4 (:func:`cardtable.solver.approx.fitted_value4`): model 3's features and ``X2``
  at pot 0 too; with a pot also ``pot D / R``, ``X2 shared / k``, ``top R / k``,
  ``rank difference R / k^2``, ``X2 |X2| / R``, ``pot tanh(8 X2 / R)`` and ``pot X2 / R``.

Ordinary least squares, one coefficient set per kind and number of rounds played
``p = cards - k`` (pooled over the tables), then the RMS error (points) of the fit
and of ``pot_model`` 1 on each layer of the ``--check`` tables (out of sample when
they were not fitted on).

Usage (tables from ``cardtable solve -n N --ties carry`` and ``--ties discard``)::

    python scripts/fit_pot_model.py --model 4 --cache DIR --fit 8,9 --own 13,12

(``--own 13,12``: the 13- and 12-card decks get coefficients fitted on their own tables alone
(``cardtable solve -n 13 --ties carry``, 16 GiB), so the approximation for people without
those tables plays from a few hundred numbers distilled from them; other decks use the pooled
8- and 9-card fit)

(model 4's data file; model 3's: ``--model 3 --fit 8,9 --check 11 --check-cache DIR11
--per-layer 100000``; the issue-10 refits of model 3, measured worse by exploitability:
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
from cardtable.solver.approx import (
    NCOEF,
    POT_MODEL_FILES,
    TANH_SLOPE,
    approx_value,
    default_scale,
    next_round_value,
    pattern_features,
)
from cardtable.solver.compressed import dense_source, discard_layout, discard_values
from cardtable.solver.layers import folder_name, open_layered
from cardtable.solver.lean import expand_layer, min_ties, pot_prizes_allowed
from cardtable.solver.table import load_table

DATA = Path(__file__).resolve().parents[1] / "cardtable" / "solver" / "data"

#: The features of each model and kind (the data file's "features"; docs/solver.md).
FEATURES = {
    3: {
        "pot0": ["D", "D*shared/k", "top*R/k", "rankdiff*R/k^2", "D*|D|/R"],
        "pot": ["D", "X2", "pot*tanh(8*D/R)"],
    },
    4: {
        "pot0": ["D", "D*shared/k", "top*R/k", "rankdiff*R/k^2", "D*|D|/R", "X2"],
        "pot": [
            "D",
            "X2",
            "pot*tanh(8*D/R)",
            "pot*D/R",
            "X2*shared/k",
            "top*R/k",
            "rankdiff*R/k^2",
            "X2*|X2|/R",
            "pot*tanh(8*X2/R)",
            "pot*X2/R",
        ],
    },
}


@njit(cache=True)
def _model_values(
    k,
    codes,
    masks,
    pots,
    pot_model,
    pval,
    lcodes,
    code_off,
    lmasks,
    mask_off,
    rank_of_mask,
    psum,
    dsrc,
    scale,
    coef,
    out,
):
    M, tab, basis, x, y, _ = kernel.game_workspace(k)
    cidx, csign, outc = kernel.children_workspace(k)
    for s in range(len(codes)):
        out[s] = approx_value(
            k,
            codes[s],
            masks[s],
            pots[s],
            pval,
            lcodes,
            code_off,
            lmasks,
            mask_off,
            rank_of_mask,
            psum,
            dsrc,
            scale,
            coef,
            M,
            tab,
            basis,
            x,
            y,
            cidx,
            csign,
            outc,
            pot_model,
        )


@njit(cache=True)
def _x2_values(
    k,
    codes,
    masks,
    pots,
    pval,
    lcodes,
    code_off,
    rank_of_mask,
    psum,
    dsrc,
    scale,
    out,
):
    M, tab, basis, x, y, _ = kernel.game_workspace(k)
    cidx, csign, outc = kernel.children_workspace(k)
    for s in range(len(codes)):
        out[s] = next_round_value(
            k,
            codes[s],
            masks[s],
            pots[s],
            pval,
            lcodes,
            code_off,
            rank_of_mask,
            psum,
            dsrc,
            scale,
            True,
            M,
            tab,
            basis,
            x,
            y,
            cidx,
            csign,
            outc,
        )


def samples(n: int, cache: Path, dcache: Path, kmin: int, per_layer: int, rng, model: int) -> dict:
    """Per layer k (kmin..n-1) and kind ("pot0", "pot"): the features of ``model``, exact
    values and the values of ``pot_model`` 1."""
    rsc = Ruleset(cards=n, tie_rule="carry")
    ct = open_layered(cache / folder_name(rsc, "points"), verify=False)
    dt = load_table(Ruleset(cards=n, tie_rule="discard"), "points", dcache, verify=False)
    if dt is None:
        raise SystemExit(f"no {n}-card discard table in {dcache}")
    L, lay, DL = ct.lay.dense, ct.lay, discard_layout(dt)
    minj = min_ties(lay)
    dvals = discard_values(dt)  # the discard table of either format as format-1 values
    scale = default_scale(n)
    coef = np.zeros((n + 1, NCOEF))
    out = {}
    for k in range(kmin, n):
        lo, hi = int(DL.code_off[k]), int(DL.code_off[k + 1])
        assert np.array_equal(L.codes[L.code_off[k] : L.code_off[k + 1]], DL.codes[lo:hi])
        npat, S = hi - lo, int(lay.nstates[k])
        grid = expand_layer(lay, k, ct.layers[k], np.float32)  # (npat, S), a compact table too
        sk = int(lay.so_off[k])
        feats_of = np.array([pattern_features(int(c)) for c in DL.codes[lo:hi]], dtype=float)
        blocks = {"pot0": [], "pot": []}  # (r, state j, pot)
        for r in range(int(L.mask_off[k + 1] - L.mask_off[k])):
            for j in range(int(lay.soff[sk + r]), int(lay.soff[sk + r + 1])):
                pot = int(lay.skeys[lay.skoff[k] + j]) // lay.W
                blocks["pot" if pot > 0 else "pot0"].append((r, j, pot))
        a = int(lay.skoff[k])
        jmax = pot_prizes_allowed(lay, k)
        reach = minj[a : a + S][None, :] <= jmax[:, None]
        out[k] = {
            kind: _layer(
                k, n, npat, lo, hi, b, feats_of, L, DL, grid, dvals, scale, coef, per_layer, rng, reach, model
            )
            for kind, b in blocks.items()
        }
        print(
            f"  {n} cards, layer {k}: {len(out[k]['pot0']['V']):,} positions at pot 0, "
            f"{len(out[k]['pot']['V']):,} with a pot",
            flush=True,
        )
    return out


def _layer(
    k, n, npat, lo, hi, blocks, feats_of, L, DL, grid, dvals, scale, coef, per_layer, rng, reach, model
) -> dict:
    """Features, exact values and ``pot_model`` 1 values of a random subset of ``blocks``
    (``reach[i, j]``: pattern ``i`` can hold state ``j``)."""
    take = min(len(blocks), max(1, per_layer // npat))
    pick = rng.choice(len(blocks), take, replace=False) if take < len(blocks) else np.arange(len(blocks))
    D, V, P, R, M = [], [], [], [], []
    for b in np.sort(pick):
        r, j, pot = blocks[b]
        mask = int(L.masks[L.mask_off[k] + r])
        s = kernel.slot(
            k, r, 0, 0, DL.T - int(DL.psum[mask]), npat, DL.base, DL.base_off, DL.val_off, False, False
        )
        D.append(dvals[s : s + npat])
        V.append(np.asarray(grid[:, j], dtype=np.float64))
        P.append(np.full(npat, pot))
        R.append(np.full(npat, float(DL.psum[mask])))
        M.append(np.full(npat, mask))
    D, V, P, R, M = map(np.concatenate, (D, V, P, R, M))
    codes = np.tile(DL.codes[lo:hi], len(pick))
    m1 = np.empty(len(D))
    _model_values(
        k,
        codes,
        M,
        P,
        1,
        DL.pval,
        DL.codes,
        DL.code_off,
        DL.masks,
        DL.mask_off,
        DL.rank_of_mask,
        DL.psum,
        dense_source(dvals, DL),
        scale,
        coef,
        m1,
    )
    x2 = np.empty(len(D))
    _x2_values(
        k,
        codes,
        M,
        P,
        DL.pval,
        DL.codes,
        DL.code_off,
        DL.rank_of_mask,
        DL.psum,
        dense_source(dvals, DL),
        scale,
        x2,
    )
    f = feats_of[np.tile(np.arange(npat), len(pick))]
    X = design(model, P[0] > 0, k, D, R, P, x2, f)
    # fit on the positions a game can reach: a pot of j prizes needs j strengths both players
    # have played (lean.min_ties; tables solved since hold NaN at the others, older ones values)
    keep = np.concatenate([reach[:, blocks[b][1]] for b in np.sort(pick)]) & np.isfinite(V)
    return dict(X=X[keep], V=V[keep], M1=m1[keep], B=np.repeat(np.arange(len(pick)), npat)[keep])


def design(model: int, with_pot: bool, k: int, D, R, P, x2, f) -> np.ndarray:
    """The columns of :data:`FEATURES` ``[model]`` (one row per position; ``f``: shared,
    top, rank difference of each position's pattern)."""
    sh, top, diff = f[:, 0], f[:, 1], f[:, 2]
    if with_pot:
        cols = [D, x2, P * np.tanh(TANH_SLOPE * D / R)]
        if model == 4:
            cols += [
                P * D / R,
                x2 * sh / k,
                top * R / k,
                diff * R / (k * k),
                x2 * np.abs(x2) / R,
                P * np.tanh(TANH_SLOPE * x2 / R),
                P * x2 / R,
            ]
    else:
        cols = [D, D * sh / k, top * R / k, diff * R / (k * k), D * np.abs(D) / R]
        if model == 4:
            cols.append(x2)
    return np.stack(cols, 1)


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


def fit(data: dict, centre: bool) -> dict:
    """Least-squares coefficients by rounds played ``p`` and kind, pooled over the decks of
    ``data`` (``{cards: samples(...)}``): ``{p: {"pot0": [...], "pot": [...]}}``."""
    coef: dict = {}
    for kind in ("pot0", "pot"):
        by_p: dict[int, list] = {}
        for n, layers in data.items():
            for k, d in layers.items():
                by_p.setdefault(n - k, []).append(d[kind])
        for p in sorted(by_p):
            X = np.concatenate([_centred(d, "X", centre) for d in by_p[p]])
            V = np.concatenate([_centred(d, "V", centre) for d in by_p[p]])
            c, *_ = np.linalg.lstsq(X, V, rcond=None)
            coef.setdefault(p, {})[kind] = [round(float(v), 4) for v in c]
    return coef


def rms(e: np.ndarray) -> float:
    return float(np.sqrt(np.mean(e * e)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True, help="folder with the carry-over and discard tables")
    ap.add_argument("--fit", default="8,9")
    ap.add_argument(
        "--own", default="", help="decks (e.g. 13) given coefficients fitted on their table alone"
    )
    ap.add_argument("--check", default="")
    ap.add_argument("--check-cache", type=Path, help="folder of the --check carry-over tables")
    ap.add_argument("--per-layer", type=int, default=300_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kmin", type=int, default=6, help="smallest layer (cards per hand) sampled")
    ap.add_argument(
        "--centre",
        action="store_true",
        help="fit differences within each (prize subset, pot) block instead of values",
    )
    ap.add_argument("--model", type=int, choices=(3, 4), default=4, help="pot_model to fit")
    ap.add_argument("--out", type=Path, help="where to write the model (default: the package's data file)")
    args = ap.parse_args()
    out = args.out or DATA / POT_MODEL_FILES[args.model]
    rng = np.random.default_rng(args.seed)
    fit_n = [int(v) for v in args.fit.split(",")]
    own_n = [int(v) for v in args.own.split(",") if v]
    data = {
        n: samples(n, args.cache, args.cache, args.kmin, args.per_layer, rng, args.model)
        for n in fit_n + own_n
    }
    coef = fit({n: data[n] for n in fit_n}, args.centre)
    own = {n: fit({n: data[n]}, args.centre) for n in own_n}
    report = []
    checks = [(n, data[n]) for n in fit_n + own_n]
    for n in [int(v) for v in args.check.split(",") if v]:
        checks.append(
            (
                n,
                samples(
                    n, args.check_cache or args.cache, args.cache, args.kmin, args.per_layer, rng, args.model
                ),
            )
        )
    for n, layers in checks:
        cn = own.get(n, coef)
        top = max(cn)
        for k, both in sorted(layers.items()):
            for kind, d in both.items():
                c = np.array(cn[min(n - k, top)][kind])
                row = dict(
                    cards=n,
                    k=k,
                    rounds=n - k,
                    pot="0" if kind == "pot0" else "> 0",
                    positions=len(d["V"]),
                    sample="in" if n in fit_n + own_n else "out",
                    coefficients="own" if n in own else "pooled",
                    rms_model1=round(rms(d["V"] - d["M1"]), 4),
                    rms_fit=round(rms(d["V"] - d["X"] @ c), 4),
                )
                report.append(row)
                print(row, flush=True)
    feats = FEATURES[args.model]
    out.write_text(
        json.dumps(
            {
                "about": (
                    f"pot_model {args.model} of cardtable.solver.approx: at pot 0 V~ = c . "
                    f"({', '.join(feats['pot0'])}) ('pot0'); with a pot V~ = c . ({', '.join(feats['pot'])}) "
                    "('pot'); R = prize points face down, X2 = approx.next_round_value; coefficients by "
                    "rounds played p = cards - k (the largest p serves larger ones). Fitted by "
                    "scripts/fit_pot_model.py: ordinary least squares on the reachable positions of layers "
                    f"k >= {args.kmin} of exact carry-over tables, at most per_layer positions per layer "
                    "and kind, random blocks; by_cards: decks with coefficients fitted on their own "
                    "table alone (default_coef uses them for that deck)."
                ),
                "fitted_on_cards": fit_n,
                "per_layer": args.per_layer,
                "seed": args.seed,
                "kmin": args.kmin,
                "centre": args.centre,
                "model": args.model,
                "features": feats,
                "by_rounds": {str(p): c for p, c in coef.items()},
                "by_cards": {
                    str(n): {"by_rounds": {str(p): c for p, c in cn.items()}} for n, cn in own.items()
                },
                "rms_points": report,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {out}: {coef}")


if __name__ == "__main__":
    main()
