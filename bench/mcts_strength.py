"""Strength of the MCTS bot against the baseline bots, 2 and 3 players.

For each opponent and player count, plays ``--games`` games at ``--cards`` cards:
MCTS in one seat, copies of the opponent in the others; deals are played in
every seating (duplicate format: the same prize order with MCTS in each seat),
so ``--games`` must be a multiple of the player count. Prints a Markdown table
of MCTS's mean point difference (own points minus the best opponent's,
docs/rules.md) with a 95% Student-t interval over deals (the seatings of a deal
averaged first), and wins/draws/losses. Usage:

    python bench/mcts_strength.py [--cards 8] [--games 200] [--players 2,3]
        [--opponents random,matcher,heuristic] [--mcts iterations=1000,...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from scipy import stats

from cardtable.goofspiel import Ruleset
from cardtable.goofspiel.autoplay import play_game
from cardtable.platform.bot import load_bot


def parse_options(text: str) -> dict:
    """``"iterations=1000,selection=rm"`` -> keyword arguments (numbers converted)."""
    out: dict = {}
    for item in filter(None, text.split(",")):
        key, _, raw = item.partition("=")
        for conv in (int, float):
            try:
                out[key] = conv(raw)
                break
            except ValueError:
                continue
        else:
            out[key] = raw
    return out


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% Student-t interval."""
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, float("inf")
    half = stats.t.ppf(0.975, len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
    return m, half


def match(cards: int, players: int, opponent: str, games: int, options: dict, seed: int,
          deals_range: range | None = None, log=None) -> dict:
    """Play the games; MCTS's per-deal mean point differences and W/D/L counts.

    ``deals_range``: only these deals (of ``games // players``; the same deals as in the
    full run, so parts run in separate processes add up to it); ``log``: a file that
    gets one line per deal (``deal mean_difference wins draws losses``) as it ends."""
    rs = Ruleset(cards=cards, players=players)
    deals, wdl = [], [0, 0, 0]
    for d in deals_range if deals_range is not None else range(games // players):
        before = list(wdl)
        diffs = []
        for seat in range(players):
            g = d * players + seat
            bots = [load_bot("goofspiel", opponent, seed=seed + 1000 * g + s) for s in range(players)]
            bots[seat] = load_bot("goofspiel", "mcts", seed=seed + 1000 * g + 999, **options)
            result = play_game(rs, bots, seed=seed + d).result()
            diffs.append(result.point_difference[seat])
            wdl[("win", "draw", "loss").index(result.outcomes[seat])] += 1
        deals.append(statistics.fmean(diffs))
        if log is not None:
            print(d, deals[-1], *(a - b for a, b in zip(wdl, before)), file=log, flush=True)
    return {"deals": deals, "wdl": wdl}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=8)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", default="2,3")
    ap.add_argument("--opponents", default="random,matcher,heuristic")
    ap.add_argument("--mcts", default="iterations=1000", help="MCTS options, key=value,...")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deals", default="", metavar="START:STOP",
                    help="play only these deals (one player count and opponent); with --log, parts of a "
                         "row can run in separate processes")
    ap.add_argument("--log", default="", help="append one line per deal to this file")
    ap.add_argument("--merge", nargs="*", default=None, metavar="LOG",
                    help="print the row from per-deal logs (with --players P --opponents O) instead of playing")
    args = ap.parse_args()
    options = parse_options(args.mcts)
    print(f"{args.cards} cards, carry-over ties; mcts {options}; games per row {args.games}")
    print("| players | opponent | games | W | D | L | mean point difference | 95% interval | seconds |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    if args.merge is not None:
        rows = {}
        for path in args.merge:
            for line in open(path):
                d, m, *counts = line.split()
                rows[int(d)] = (float(m), [int(c) for c in counts])
        m, half = interval([v[0] for v in rows.values()])
        w, dr, lo = (sum(v[1][i] for v in rows.values()) for i in range(3))
        print(f"| {args.players} | {args.opponents} | {w + dr + lo} | {w} | {dr} | {lo} | {m:+.2f} | ± {half:.2f} | |")
        return
    log = open(args.log, "a") if args.log else None
    part = range(*map(int, args.deals.split(":"))) if args.deals else None
    for players in map(int, args.players.split(",")):
        games = args.games - args.games % players
        for opponent in args.opponents.split(","):
            start = time.perf_counter()
            r = match(args.cards, players, opponent, games, options, args.seed, part, log)
            m, half = interval(r["deals"])
            w, dr, lo = r["wdl"]
            print(f"| {players} | {opponent} | {games} | {w} | {dr} | {lo} | {m:+.2f} | ± {half:.2f} | "
                  f"{time.perf_counter() - start:.0f} |", flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
