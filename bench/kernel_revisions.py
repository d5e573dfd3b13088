"""Benchmark: CPU cost per matrix game of the carry-over solve in two checkouts of
the project (before and after a kernel change), in the same run. Prints a table;
asserts nothing.

    git worktree add /tmp/before <commit>        # the reference checkout
    python bench/kernel_revisions.py --trees /tmp/before,. --cards 9,10

Each (tree, n) runs in its own Python process with that tree first on
``sys.path``: the whole format-2 solve (``solve_layered``, carry-over ties,
points, ``--threads`` threads, warm start on) into a temporary folder, after a
first small solve that loads (or compiles) that tree's kernels. The columns are
the solving process's CPU seconds (``time.process_time``), the matrix games that
checkout solves (``lean.reachable_games`` where it has it), the
CPU nanoseconds per game, and the same cost over ``games x k^2`` (the unit of
``cardtable.solver.estimate.NS_PER_GAME_K2``). Rows alternate between the trees,
so a change in the machine's load affects both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, sys, tempfile, time
from pathlib import Path
from cardtable.goofspiel import Ruleset
from cardtable.solver.layers import LayerBackend, lean_layout, solve_layered
n, threads = int(sys.argv[1]), int(sys.argv[2])
be = LayerBackend(threads=threads)
with tempfile.TemporaryDirectory() as tmp:
    solve_layered(Ruleset(cards=5, tie_rule="carry"), "points", Path(tmp) / "load", be)
    rs = Ruleset(cards=n, tie_rule="carry")
    lay = lean_layout(rs, "points")
    try:  # the checkout skips the states no game reaches: count the games it solves
        from cardtable.solver.lean import reachable_games
        per = [reachable_games(lay, k)[1] for k in range(lay.top + 1)]
    except ImportError:
        per = [lay.layer_size(k) * k for k in range(lay.top + 1)]
    games = sum(per)
    games_k2 = sum(g * k * k for k, g in enumerate(per))
    c0, w0 = time.process_time(), time.perf_counter()
    solve_layered(rs, "points", Path(tmp) / "t", be, lay=lay)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
import cardtable
print(json.dumps({"games": games, "cpu": cpu, "wall": wall, "ns": cpu / games * 1e9,
                  "ns_k2": cpu / games_k2 * 1e9, "src": cardtable.__file__}))
"""


def run(tree: Path, n: int, threads: int) -> dict:
    # the tree first on the path (also as the working folder: `python -c` puts it first)
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_NUM_THREADS=str(threads))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), str(threads)],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=6 * 3600,
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", required=True, help="comma-separated checkout folders (reference first)")
    ap.add_argument("--cards", default="9,10", help="carry-over n list")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    trees = [Path(t).resolve() for t in a.trees.split(",")]
    print(f"## Carry-over solve, points, format 2, --threads {a.threads}: CPU per matrix game by checkout")
    print("| n | checkout | matrix games | CPU s | wall s | ns/game | ns/(game k^2) | vs first |")
    print("|---|---|---|---|---|---|---|---|")
    for n in [int(x) for x in a.cards.split(",")]:
        first = None
        for tree in trees:
            r = run(tree, n, a.threads)
            if "error" in r:
                print(f"| {n} | {tree} | error: {r['error']} |", flush=True)
                continue
            if not r["src"].startswith(str(tree)):
                print(f"| {n} | {tree} | error: imported {r['src']} instead |", flush=True)
                continue
            first = first or r["cpu"]
            print(
                f"| {n} | {tree} | {r['games']:,} | {r['cpu']:.1f} | {r['wall']:.1f} | "
                f"{r['ns']:.0f} | {r['ns_k2']:.1f} | {first / r['cpu']:.2f}x |",
                flush=True,
            )


if __name__ == "__main__":
    main()
