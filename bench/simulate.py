"""Benchmark: random 13-card Goofspiel games per second.

Compares, in the same run: the batched NumPy simulator (cardtable.research.simulate),
OpenSpiel's C++ ``goofspiel`` driven from Python (random legal actions), and our
engine with two RandomBots. Prints a Markdown table. Usage:

    python bench/simulate.py [--games 200000] [--reference-games 2000] [--repeat 3]

Each rate is the best of ``--repeat`` runs (the machines are shared).
"""

from __future__ import annotations

import argparse
import time

from engine import bench_openspiel  # the same OpenSpiel reference loop as bench/engine.py


def bench_batched(games: int, batch: int) -> float:
    from cardtable.goofspiel import Ruleset
    from cardtable.research.simulate import simulate

    rs = Ruleset(tie_rule="discard")
    simulate(rs, ["random", "random"], 1000, seed=0)  # warm up
    start = time.perf_counter()
    done, seed = 0, 1
    while done < games:
        n = min(batch, games - done)
        simulate(rs, ["random", "random"], n, seed=seed)
        done += n
        seed += 1
    return done / (time.perf_counter() - start)


def bench_engine(games: int) -> float:
    from cardtable.goofspiel import Ruleset
    from cardtable.goofspiel.autoplay import play_game
    from cardtable.platform.bot import load_bot

    rs = Ruleset(tie_rule="discard")
    bots = [load_bot("goofspiel", "random", seed=1), load_bot("goofspiel", "random", seed=2)]
    start = time.perf_counter()
    for g in range(games):
        play_game(rs, bots, seed=g)
    return games / (time.perf_counter() - start)


def main() -> None:
    from cardtable.research.extra import missing

    if missing("pyspiel"):  # the reference needs OpenSpiel (the research extra)
        raise SystemExit(
            "bench/simulate.py needs the 'research' extra (missing: pyspiel) for its "
            "OpenSpiel reference; install it with: pip install 'cardtable[research]'"
        )
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200_000, help="games for the batched simulator")
    ap.add_argument("--batch", type=int, default=100_000, help="games per simulate() call")
    ap.add_argument("--reference-games", type=int, default=2_000, help="games for OpenSpiel and the engine")
    ap.add_argument(
        "--repeat", type=int, default=3, help="runs of each; the best rate counts (shared machines)"
    )
    args = ap.parse_args()
    best = lambda f, *a: max(f(*a) for _ in range(args.repeat))  # noqa: E731
    rows = [
        ("batched simulator (Numba path)", args.games, best(bench_batched, args.games, args.batch)),
        (
            "OpenSpiel goofspiel (C++ from Python)",
            args.reference_games,
            best(bench_openspiel, args.reference_games),
        ),
        ("cardtable engine + RandomBot", args.reference_games, best(bench_engine, args.reference_games)),
    ]
    ref = rows[1][2]
    print("| implementation | games | games/s | vs OpenSpiel |")
    print("|---|---:|---:|---:|")
    for name, n, rate in rows:
        print(f"| {name} | {n} | {rate:,.0f} | {rate / ref:.1f}x |")


if __name__ == "__main__":
    main()
