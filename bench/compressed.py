"""The compressed discard tables: size, error and the exact exploitability of the bot playing them.

For each deck (``--cards``, low and high ace) and RMS target (``--targets``): compresses the
solved discard table from the cache folder (format 1 or 2; :mod:`cardtable.solver.compressed`)
and prints a Markdown row with the file's size, the largest per-layer RMS and absolute error, and the exact
exploitability (points per game, the mean of the best response's gains in both seats) of the
``nash`` bot as a fresh install plays it: the compressed values while more than
:func:`~cardtable.solver.equilibrium.compressed_exact_layers` cards are in each hand, exact subgames
from there. Reference in the same run: the exact table's size on disk and its bot's exploitability
(0 by construction, computed by the same kernel as a check). Usage:

    python bench/compressed.py [--cards 11] [--targets 0.005,0.01,0.02] [--high-ace no|yes|both]
        [--cache DIR]

Needs the solved discard tables (``cardtable solve -n N --ties discard [--high-ace]``); 13 cards:
about 4 GiB of memory and an hour of one core per best response.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from cardtable.goofspiel import Ruleset
from cardtable.solver.compressed import (
    compressed_name,
    discard_layout,
    discard_values,
    open_compressed,
    write_compressed,
)
from cardtable.solver.equilibrium import compressed_exact_layers
from cardtable.solver.exploit_kernel import layout_best_response
from cardtable.solver.low_layers import solve_low_layers
from cardtable.solver.table import load_table


def exploitability(layout, values: np.ndarray, exact_below: int) -> float:
    """Mean over both seats of the best response's expected gain, points per game."""
    v0, v1, _ = layout_best_response(layout, values, exact_below=exact_below)
    return (v0 + v1) / 2


def table_bytes(path: Path | None) -> int:
    """Bytes of a table on disk: its file (format 1) or the regular files of its folder (format 2)."""
    if path is None:
        return 0
    if path.is_dir():
        return sum(p.stat().st_size for p in path.iterdir() if p.is_file())
    return path.stat().st_size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", default="11")
    ap.add_argument("--targets", default="0.005,0.01,0.02")
    ap.add_argument("--high-ace", choices=("no", "yes", "both"), default="no")
    ap.add_argument("--cache", type=Path, default=None)
    args = ap.parse_args()
    aces = {"no": [False], "yes": [True], "both": [False, True]}[args.high_ace]
    print(
        "| deck | table | bytes | exact from | largest layer RMS | largest error | exploitability | seconds |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for n in (int(x) for x in args.cards.split(",")):
        for high in aces:
            rs = Ruleset(cards=n, tie_rule="discard", high_ace=high)
            exact = load_table(rs, "points", args.cache)
            if exact is None:
                raise SystemExit(f"{rs.describe()}: not solved")
            deck = f"{n} cards, {'high' if high else 'low'} ace"
            k0 = compressed_exact_layers(rs)
            t0 = time.perf_counter()
            e = exploitability(discard_layout(exact), discard_values(exact), 1)
            size = table_bytes(exact.path)
            fmt = 2 if exact.path is not None and exact.path.is_dir() else 1
            print(
                f"| {deck} | exact (format {fmt}) | {size:,} | - | 0 | 0 | {e:.6f} | "
                f"{time.perf_counter() - t0:.0f} |"
            )
            for target in (float(x) for x in args.targets.split(",")):
                with tempfile.TemporaryDirectory() as tmp:
                    path = Path(tmp) / compressed_name(rs)
                    meta = write_compressed(exact, path, target)
                    table = open_compressed(path)
                    t0 = time.perf_counter()
                    vals = np.array(table.values)
                    if k0 > 1:
                        solve_low_layers(table.layout, k0 - 1, vals)
                    e = exploitability(table.layout, vals, k0)
                rms = max(layer["rms"] for layer in meta["layers"])
                worst = max(layer["max"] for layer in meta["layers"])
                print(
                    f"| {deck} | compressed, RMS target {target} | {meta['bytes']:,} | {k0} | {rms:.4f} | "
                    f"{worst:.3f} | {e:.6f} | {time.perf_counter() - t0:.0f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
