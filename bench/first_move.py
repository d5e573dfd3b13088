"""Benchmark: how soon the ``nash`` bot bids on a fresh install (issue 23, part 2).

Each row is one game of ``nash`` (seat 0) against ``heuristic`` in a fresh Python process,
with an empty table folder (``CARDTABLE_CACHE``: the bot plays from the compressed tables
shipped with the package, as after ``pip install``) and its own Numba cache folder
(``NUMBA_CACHE_DIR``): **cold** is an empty one (a fresh install: every kernel is compiled),
**warm** the one the cold run filled (a later run). With ``warm_kernels`` the process first
calls :func:`cardtable.solver.warm.warm_kernels`, as ``cardtable play`` and ``cardtable serve``
do before the first game. Columns, in seconds of wall clock:

- ``prepare``: ``warm_kernels`` (``-`` when not called);
- ``new_game``: making the bot and its ``new_game`` (opening the shipped table);
- ``first bid``: from the end of ``new_game`` to the bot's first bid;
- ``longest``: the longest bid of the game and where it came from (``bot.last_source``).

Usage (the numbers in docs/play.md, Speed)::

    nice -n 10 python bench/first_move.py                 # 12 cards (13 too once its shipped table exists)
    nice -n 10 python bench/first_move.py --cards 11 --ties discard

One process at a time; the machine may be shared, so the times are an upper bound.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The game played in each child process; prints one JSON line.
CHILD = """
import json, sys, time
t0 = time.perf_counter()
from cardtable.goofspiel import Game, Ruleset
from cardtable.platform.bot import load_bot
cards, ties, warm = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
rs = Ruleset(cards=cards, tie_rule=ties)
prepare = None
if warm:
    from cardtable.solver.warm import warm_kernels
    prepare = warm_kernels(rs)
t1 = time.perf_counter()
nash, other = load_bot("goofspiel", "nash", seed=1), load_bot("goofspiel", "heuristic", seed=2)
nash.new_game(rs, 0)
other.new_game(rs, 1)
t2 = time.perf_counter()
game = Game(rs, seed=7)
moves = []
while not game.is_over:
    t = time.perf_counter()
    bid = nash.act(game.view(0))
    moves.append((time.perf_counter() - t, nash.last_source))
    game.play([bid, other.act(game.view(1))])
longest = max(moves)
print(json.dumps({"prepare": prepare, "new_game": t2 - t1, "first": moves[0][0],
                  "longest": longest[0], "where": longest[1]}))
"""


def _run(cards: int, ties: str, warm_kernels: bool, numba_cache: Path, tables: Path) -> dict:
    env = {**os.environ, "CARDTABLE_CACHE": str(tables), "NUMBA_CACHE_DIR": str(numba_cache)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(cards), ties, "1" if warm_kernels else "0"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _rows(cards: int, ties: str) -> list[tuple[str, bool, dict]]:
    """Cold and warm Numba cache, without and with warm_kernels: four fresh processes."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tables = Path(tmp) / "tables"
        tables.mkdir()
        for prepared in (False, True):
            numba_cache = Path(tmp) / f"numba-{int(prepared)}"
            numba_cache.mkdir()
            for cache in ("cold", "warm"):  # the warm run reuses what the cold one compiled
                rows.append((cache, prepared, _run(cards, ties, prepared, numba_cache, tables)))
    return rows


def _shipped_13() -> bool:
    return (ROOT / "cardtable" / "solver" / "data" / "gops-n13-discard-points-lowace.svd.npz").exists()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--cards", type=int, action="append", help="cards per suit (repeatable; default 12, and 13)"
    )
    ap.add_argument("--ties", choices=("carry", "discard"), action="append", help="tie rule (default both)")
    args = ap.parse_args(argv)
    decks = args.cards or ([12, 13] if _shipped_13() else [12])
    if any(not 2 <= n <= 13 for n in decks):
        ap.error("--cards must be 2..13")
    print(
        "| cards | ties | Numba cache | warm_kernels | prepare s | new_game s | first bid s | longest s (source) |"
    )
    print("|---:|---|---|---|---:|---:|---:|---|")
    for cards in decks:
        for ties in args.ties or ("carry", "discard"):
            for cache, prepared, r in _rows(cards, ties):
                prep = "-" if r["prepare"] is None else f"{r['prepare']:.2f}"
                print(
                    f"| {cards} | {ties} | {cache} | {'yes' if prepared else 'no'} | {prep} | "
                    f"{r['new_game']:.2f} | {r['first']:.2f} | {r['longest']:.2f} ({r['where']}) |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
