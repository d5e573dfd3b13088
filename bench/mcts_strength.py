"""Strength of the MCTS bot against the baseline bots, 2-4 players, beside the baselines.

For each player count P and opponent O, plays ``--games`` games at ``--cards`` cards:
the bot X in one seat, copies of O in the others; deals are played in every
seating (duplicate format: the same prize order with X in each seat), so
``--games`` is rounded down to a multiple of P. X is MCTS and then, in the same
seat against the same opponents (same deals, same opponent seeds: a random
opponent bids the same cards whatever X does, since its hand depends only on
its own bids), each baseline bot of ``--baselines``. Two copies of a
deterministic bot tie each other every round, so with 3 or more players even a
random bidder scores well against copies of ``matcher`` or ``heuristic``: a row
means something only beside its baselines.

Prints, per (P, O), a Markdown table with one row per X: its mean point
difference per game (own points minus the best opponent's, docs/rules.md, End
of the game), a 95% Student-t interval over deals (the seatings of a deal
averaged first) and wins/draws/losses; then the margin of MCTS over each
baseline, paired by deal (MCTS's deal mean minus the baseline's on the same
deal), with its 95% interval, and over the best baseline (the one with the
highest mean). "Clearly ahead" means the lower end of every margin's interval
is above 0; ``bar`` is what MCTS's mean would need to be for that at this
interval width (the best baseline's mean plus that margin's half-width: an
estimate, since the width depends on MCTS's own spread). Usage:

    python bench/mcts_strength.py [--cards 8] [--games 200] [--players 2,3,4]
        [--opponents random,matcher,heuristic] [--baselines random,matcher,heuristic]
        [--mcts iterations=1000,...] [--ties carry]
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

MCTS = "mcts"


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
    sd = statistics.stdev(values)
    half = stats.t.ppf(0.975, len(values) - 1) * sd / len(values) ** 0.5 if sd > 0 else 0.0
    return m, half


def match(
    cards: int,
    players: int,
    opponent: str,
    games: int,
    options: dict,
    seed: int,
    deals_range: range | None = None,
    log=None,
    bot: str = MCTS,
    ties: str = "carry",
) -> dict:
    """Play the games with ``bot`` (``"mcts"`` with ``options``, or a baseline's registry
    name) in one seat; its per-deal mean point differences and W/D/L counts.

    The seeds depend only on the deal and the seat, not on ``bot``, so every bot meets
    the same prize orders and identically seeded opponents. ``deals_range``: only these
    deals (of ``games // players``; the same deals as in the full run, so parts run in
    separate processes add up to it); ``log``: a file that gets one line per deal
    (``bot deal mean_difference wins draws losses``) as it ends."""
    rs = Ruleset(cards=cards, players=players, tie_rule=ties)
    deals, wdl = [], [0, 0, 0]
    for d in deals_range if deals_range is not None else range(games // players):
        before = list(wdl)
        diffs = []
        for seat in range(players):
            g = d * players + seat
            bots = [load_bot("goofspiel", opponent, seed=seed + 1000 * g + s) for s in range(players)]
            bots[seat] = load_bot(
                "goofspiel", bot, seed=seed + 1000 * g + 999, **(options if bot == MCTS else {})
            )
            result = play_game(rs, bots, seed=seed + d).result()
            diffs.append(result.point_difference[seat])
            wdl[("win", "draw", "loss").index(result.outcomes[seat])] += 1
        deals.append(statistics.fmean(diffs))
        if log is not None:
            print(bot, d, deals[-1], *(a - b for a, b in zip(wdl, before, strict=True)), file=log, flush=True)
    return {"deals": deals, "wdl": wdl}


def comparison(rows: dict[str, dict]) -> list[str]:
    """Markdown lines: MCTS's paired margin over each baseline in ``rows`` and over the best
    one, with 95% intervals, the verdict and the bar (see the module docstring).

    ``rows``: bot -> ``{"deals": [per-deal mean], ...}`` over the same deals; must hold
    ``"mcts"`` and at least one baseline."""
    base = [b for b in rows if b != MCTS]
    ours = rows[MCTS]["deals"]
    out = ["| margin of mcts over | mean | 95% interval | clearly ahead |", "|---|---:|---:|---|"]
    lows = []
    for b in base:
        m, half = interval([x - y for x, y in zip(ours, rows[b]["deals"], strict=True)])
        lows.append(m - half)
        out.append(f"| {b} | {m:+.2f} | ± {half:.2f} | {'yes' if m - half > 0 else 'no'} |")
    best = max(base, key=lambda b: statistics.fmean(rows[b]["deals"]))
    m, half = interval([x - y for x, y in zip(ours, rows[best]["deals"], strict=True)])
    bar = statistics.fmean(rows[best]["deals"]) + half
    out.append(
        f"| best baseline ({best}) | {m:+.2f} | ± {half:.2f} | "
        f"{'yes' if min(lows) > 0 else 'no'} (bar: mcts mean > {bar:+.2f}) |"
    )
    return out


def print_block(players: int, opponent: str, rows: dict[str, dict], secs: dict[str, float]) -> None:
    print(f"\n{players} players, opponents {players - 1} x {opponent}")
    print("| bot in the seat | games | W | D | L | mean point difference | 95% interval | seconds |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for b, r in rows.items():
        m, half = interval(r["deals"])
        w, dr, lo = r["wdl"]
        print(f"| {b} | {w + dr + lo} | {w} | {dr} | {lo} | {m:+.2f} | ± {half:.2f} | {secs.get(b, 0):.0f} |")
    if MCTS in rows and len(rows) > 1:
        print()
        print("\n".join(comparison(rows)))
    sys.stdout.flush()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=8)
    ap.add_argument("--ties", default="carry", choices=["carry", "discard"])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", default="2,3")
    ap.add_argument("--opponents", default="random,matcher,heuristic")
    ap.add_argument(
        "--baselines",
        default="random,matcher,heuristic",
        help="bots played in MCTS's seat against the same opponents ('' for none)",
    )
    ap.add_argument("--mcts", default="iterations=1000", help="MCTS options, key=value,...")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--deals",
        default="",
        metavar="START:STOP",
        help="play only these deals (one player count and opponent); with --log, parts of a "
        "row can run in separate processes",
    )
    ap.add_argument("--log", default="", help="append one line per deal to this file")
    ap.add_argument(
        "--merge",
        nargs="*",
        default=None,
        metavar="LOG",
        help="print the block from per-deal logs (with --players P --opponents O) instead of playing",
    )
    args = ap.parse_args()
    options = parse_options(args.mcts)
    baselines = [b for b in args.baselines.split(",") if b]
    print(
        f"{args.cards} cards, {args.ties} ties; mcts {options}; games per row {args.games}; seed {args.seed}"
    )
    if args.merge is not None:
        per: dict[str, dict[int, tuple[float, list[int]]]] = {}
        for path in args.merge:
            for line in open(path):
                b, d, m, *counts = line.split()
                per.setdefault(b, {})[int(d)] = (float(m), [int(c) for c in counts])
        common = sorted(set.intersection(*(set(v) for v in per.values())))
        rows = {
            b: {
                "deals": [v[d][0] for d in common],
                "wdl": [sum(v[d][1][i] for d in common) for i in range(3)],
            }
            for b, v in per.items()
        }
        print_block(int(args.players), args.opponents, rows, {})
        return
    log = open(args.log, "a") if args.log else None
    part = range(*map(int, args.deals.split(":"))) if args.deals else None
    for players in map(int, args.players.split(",")):
        games = args.games - args.games % players
        for opponent in args.opponents.split(","):
            rows, secs = {}, {}
            for b in [MCTS, *baselines]:
                start = time.perf_counter()
                rows[b] = match(
                    args.cards, players, opponent, games, options, args.seed, part, log, bot=b, ties=args.ties
                )
                secs[b] = time.perf_counter() - start
            print_block(players, opponent, rows, secs)


if __name__ == "__main__":
    main()
