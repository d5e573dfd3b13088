"""Write the compressed tables shipped in ``cardtable/solver/data/`` from solved tables.

For each deck (cards, ace) it opens the solved points table of the tie rule from the cache
folder (``cardtable solve -n N --ties discard|carry [--high-ace]``) and writes
``gops-nN-{discard,carry}-points-{low,high}ace.svd.npz``, printing each layer's rank and error
(the tables in docs/solver.md, Compressed tables):

- discard ties: every layer as the smallest truncated SVD whose RMS error is at most
  ``--target`` points (:mod:`cardtable.solver.compressed`);
- carry-over ties: the layers the ``nash`` bot reads, from its first exact subgame
  (:func:`cardtable.solver.approx.exact_layers`) up, each fitted on the slots a game reaches
  (:mod:`cardtable.solver.compressed_carry`; the 13-card layer 8, 1.9 billion values, in
  streamed passes: about 7.5 GB of page cache and 1 GB of memory).

Usage:

    python scripts/compress_tables.py --cards 11,12,13 [--ties discard] [--high-ace both]
        [--target 0.01] [--cache DIR] [--out cardtable/solver/data]
    python scripts/compress_tables.py --list      # the table of the shipped files (docs/solver.md)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cardtable.goofspiel import Ruleset
from cardtable.solver.approx import exact_layers
from cardtable.solver.compressed import DATA_DIR, compressed_name, open_compressed, write_compressed
from cardtable.solver.compressed_carry import (
    carry_compressed_name,
    open_compressed_carry,
    write_compressed_carry,
)
from cardtable.solver.layers import LayeredTable
from cardtable.solver.table import load_table


def list_files(folder: Path) -> None:
    """One Markdown row per compressed table in ``folder`` (docs/solver.md, Compressed tables):
    deck, tie rule, layers, bytes, the largest layer's rank, the largest per-layer RMS and absolute
    error."""
    print("| deck | ties | layers | file | MiB | largest rank | largest layer RMS error | largest error |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    order = sorted(
        folder.glob("*.svd.npz"), key=lambda p: ("carry" in p.name, "highace" in p.name, len(p.name), p.name)
    )
    for path in order:
        table = open_compressed_carry(path) if "-carry-" in path.name else open_compressed(path)
        layers = table.meta["layers"]
        rs = table.ruleset
        print(
            f"| {rs.cards} cards, {'high' if rs.high_ace else 'low'} ace | {rs.tie_rule} | "
            f"{layers[0]['k']}..{layers[-1]['k']} | `{path.name}` | "
            f"{path.stat().st_size / 2**20:.1f} | {max(x['rank'] for x in layers)} | "
            f"{max(x['rms'] for x in layers):.4f} | {max(x['max'] for x in layers):.3f} |"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cards", default="13", help="comma-separated deck sizes")
    ap.add_argument("--ties", choices=("discard", "carry"), default="discard")
    ap.add_argument("--high-ace", choices=("no", "yes", "both"), default="both")
    ap.add_argument(
        "--target", type=float, default=0.01, help="RMS error per layer, points (the shipped files: 0.01)"
    )
    ap.add_argument("--cache", type=Path, default=None, help="folder of the solved tables")
    ap.add_argument("--out", type=Path, default=DATA_DIR)
    ap.add_argument("--list", action="store_true", help="only print the table of the files in --out")
    args = ap.parse_args(argv)
    if args.list:
        list_files(args.out)
        return 0
    aces = {"no": [False], "yes": [True], "both": [False, True]}[args.high_ace]
    missing = 0
    for n in (int(x) for x in args.cards.split(",")):
        for high in aces:
            rs = Ruleset(cards=n, tie_rule=args.ties, high_ace=high)
            table = load_table(rs, "points", args.cache)
            if table is None:
                print(
                    f"{rs.describe()}: not solved (cardtable solve -n {n} --ties {args.ties}"
                    f"{' --high-ace' if high else ''})",
                    file=sys.stderr,
                )
                missing += 1
                continue
            t0 = time.perf_counter()
            if args.ties == "carry":
                if not isinstance(table, LayeredTable):
                    print(f"{rs.describe()}: a format-1 table; solve it in format 2", file=sys.stderr)
                    missing += 1
                    continue
                out = args.out / carry_compressed_name(rs)
                meta = write_compressed_carry(table, out, exact_layers(rs), args.target)
            else:
                meta = write_compressed(table, args.out / compressed_name(rs), args.target)
            print(f"\n{rs.describe()}: {meta['bytes'] / 2**20:.2f} MiB, {time.perf_counter() - t0:.0f} s")
            print("| layer k | rank | RMS error | largest error | seconds |")
            print("|---:|---:|---:|---:|---:|")
            for layer in meta["layers"]:
                rank = layer["rank"] or "dense"
                secs = layer.get("seconds", "")
                print(f"| {layer['k']} | {rank} | {layer['rms']:.4f} | {layer['max']:.4f} | {secs} |")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
