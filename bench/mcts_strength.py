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


def match(cards: int, players: int, opponent: str, games: int, options: dict, seed: int) -> dict:
    """Play the games; MCTS's per-deal mean point differences and W/D/L counts."""
    rs = Ruleset(cards=cards, players=players)
    deals, wdl = [], [0, 0, 0]
    for d in range(games // players):
        diffs = []
        for seat in range(players):
            g = d * players + seat
            bots = [load_bot("goofspiel", opponent, seed=seed + 1000 * g + s) for s in range(players)]
            bots[seat] = load_bot("goofspiel", "mcts", seed=seed + 1000 * g + 999, **options)
            result = play_game(rs, bots, seed=seed + d).result()
            diffs.append(result.point_difference[seat])
            wdl[("win", "draw", "loss").index(result.outcomes[seat])] += 1
        deals.append(statistics.fmean(diffs))
    return {"deals": deals, "wdl": wdl}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=8)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", default="2,3")
    ap.add_argument("--opponents", default="random,matcher,heuristic")
    ap.add_argument("--mcts", default="iterations=1000", help="MCTS options, key=value,...")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    options = parse_options(args.mcts)
    print(f"{args.cards} cards, carry-over ties; mcts {options}; games per row {args.games}")
    print("| players | opponent | games | W | D | L | mean point difference | 95% interval | seconds |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for players in map(int, args.players.split(",")):
        games = args.games - args.games % players
        for opponent in args.opponents.split(","):
            start = time.perf_counter()
            r = match(args.cards, players, opponent, games, options, args.seed)
            m, half = interval(r["deals"])
            w, dr, lo = r["wdl"]
            print(f"| {players} | {opponent} | {games} | {w} | {dr} | {lo} | {m:+.2f} | ± {half:.2f} | "
                  f"{time.perf_counter() - start:.0f} |", flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
