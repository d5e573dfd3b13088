"""Golf bot tournament: mean score difference with a 95% confidence interval.

Each pairing plays duplicate games: every deal is played twice with the seats
swapped, so the luck of the deal cancels out. For a game the *score
difference* is bot A's points minus bot B's (negative: A is better, since
fewest points win). The table shows the mean over all games, its 95%
confidence interval (Student t over deal pairs, the pair being the unit of
independence), A's win/draw/loss counts and the time per game.

A progress bar with an ETA (on standard error) shows how far each pairing is.

Usage::

    python bench/golf_bots.py                 # 1000 games per pairing (slow: search)
    python bench/golf_bots.py --games 200     # quicker
    python bench/golf_bots.py --workers 2 --determinizations 8
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from cardtable.cli.progress import progress_bar
from cardtable.golf.bots.heuristic import HeuristicBot
from cardtable.golf.bots.random_bot import RandomBot
from cardtable.golf.bots.search import SearchBot
from cardtable.golf.driver import play_game
from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.state import GolfGame

PAIRINGS = [("search", "random"), ("search", "heuristic"), ("heuristic", "random")]


def make(name: str, seed: int, determinizations: int):
    if name == "search":
        return SearchBot(seed=seed, determinizations=determinizations)
    return {"random": RandomBot, "heuristic": HeuristicBot}[name](seed=seed)


def play_pair(args: tuple[str, str, int, int]) -> tuple[float, list[int], float]:
    """Play deal ``k`` twice (A in seat 1, then seat 2); returns (mean diff, outcomes of A, seconds)."""
    a, b, k, det = args
    rs = GolfRuleset()
    diffs, outcomes = [], []
    t0 = time.perf_counter()
    for swap in (False, True):
        bots = [make(a, 2 * k, det), make(b, 2 * k + 1, det)]
        if swap:
            bots.reverse()
        g = play_game(GolfGame(rs, seed=f"bench-{k}", first_player=0), bots)
        res = g.result()
        sa, sb = (1, 0) if swap else (0, 1)
        diffs.append(res.scores[sa] - res.scores[sb])
        outcomes.append({"win": 1, "draw": 0, "loss": -1}[res.outcomes[sa]])
    return sum(diffs) / 2, outcomes, time.perf_counter() - t0


def t95(n: int) -> float:
    try:
        from scipy.stats import t

        return float(t.ppf(0.975, n - 1))
    except ImportError:  # pragma: no cover
        return 1.96


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=1000, help="games per pairing (even; default 1000)")
    p.add_argument("--determinizations", type=int, default=16, help="search bot samples per decision")
    p.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    p.add_argument("--pairings", default=",".join(f"{a}-{b}" for a, b in PAIRINGS))
    args = p.parse_args(argv)
    pairs = [tuple(x.split("-")) for x in args.pairings.split(",")]
    n_pairs = max(1, args.games // 2)
    print(
        f"Golf bots, duplicate deals, {2 * n_pairs} games per pairing, 2 players, default rules, "
        f"search: {args.determinizations} samples/decision"
    )
    print(f"{'A vs B':<22}{'games':>6}{'mean A-B':>10}{'95% CI':>20}{'A win/draw/loss':>18}{'ms/game':>9}")
    for a, b in pairs:
        jobs = [(a, b, k, args.determinizations) for k in range(n_pairs)]
        results = []
        with progress_bar(f"{a} vs {b} (deals)", total=len(jobs)) as advance:
            if args.workers > 1:
                with ProcessPoolExecutor(args.workers) as ex:
                    for r in ex.map(play_pair, jobs, chunksize=4):
                        results.append(r)
                        advance()
            else:
                for j in jobs:
                    results.append(play_pair(j))
                    advance()
        means = [r[0] for r in results]
        outs = [o for r in results for o in r[1]]
        m = statistics.mean(means)
        half = (
            t95(len(means)) * statistics.stdev(means) / math.sqrt(len(means))
            if len(means) > 1
            else float("nan")
        )
        wdl = f"{outs.count(1)}/{outs.count(0)}/{outs.count(-1)}"
        ms = 1000 * sum(r[2] for r in results) / (2 * len(results))
        print(
            f"{a + ' vs ' + b:<22}{2 * len(results):>6}{m:>10.2f}{f'[{m - half:.2f}, {m + half:.2f}]':>20}"
            f"{wdl:>18}{ms:>9.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
