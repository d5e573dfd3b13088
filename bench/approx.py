"""Benchmark: move time of the ``nash`` bot in the standard game (13 cards, carry-over
ties, no carry-over table): the carry-over approximation, then exact subgame solving.

One process, one thread. Prints the one-time preparation (opening and checking
the 13-card discard table, compiling the kernels at the first move), then per
source (``approximation``, ``subgame``) the number of moves and the mean and
largest seconds per move (wall clock, and the process's CPU time beside it: the
machine may be shared), over ``--games`` games against ``heuristic``. The
reference row is the same bot with ``approximation=False`` (the one-round
lookahead fallback it replaced) on the same deals.

Usage (the numbers in docs/solver.md)::

    python bench/approx.py --games 4

Needs the 13-card discard table (``cardtable solve -n 13 --ties discard``, a
one-time build) in the cache folder (``CARDTABLE_CACHE``).
"""

from __future__ import annotations

import argparse
import time

from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel.bots.nash import NashBot
from cardtable.platform.bot import load_bot
from cardtable.solver.equilibrium import discard_table


def play(bot: NashBot, rs: Ruleset, games: int, seed: int) -> dict[str, list[tuple[float, float]]]:
    """(wall, cpu) seconds of each of ``bot``'s moves by source, over ``games`` games."""
    times: dict[str, list[tuple[float, float]]] = {}
    for g in range(games):
        game = Game(rs, seed=seed + g)
        other = load_bot("goofspiel", "heuristic", seed=g)
        seat = g % 2
        bot.new_game(rs, seat)
        other.new_game(rs, 1 - seat)
        while not game.is_over:
            w0, c0 = time.perf_counter(), time.process_time()
            mine = bot.act(game.view(seat))
            times.setdefault(bot.last_source, []).append((time.perf_counter() - w0, time.process_time() - c0))
            theirs = other.act(game.view(1 - seat))
            game.play([mine, theirs] if seat == 0 else [theirs, mine])
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=13)
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--seed", type=int, default=100)
    args = ap.parse_args()
    rs = Ruleset(cards=args.cards, tie_rule="carry")
    print(f"bench/approx.py {vars(args)}")
    t0 = time.perf_counter()
    if discard_table(rs) is None:
        raise SystemExit(f"no {args.cards}-card discard table: run `cardtable solve -n {args.cards} --ties discard`")
    print(f"one-time preparation: opening and checking the discard table {time.perf_counter() - t0:.1f} s")
    bot = NashBot(seed=1)
    t0 = time.perf_counter()
    play(bot, rs, 1, args.seed - 1)  # compiles the kernels; not counted below
    print(f"one-time preparation: first game (kernel compilation) {time.perf_counter() - t0:.1f} s")
    print("| bot | source | moves | mean s (wall) | max s (wall) | mean s (CPU) | max s (CPU) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for label, b in (("nash", bot), ("nash:approximation=false (reference)", NashBot(seed=1, approximation=False))):
        for source, ts in sorted(play(b, rs, args.games, args.seed).items()):
            wall = [w for w, _ in ts]
            cpu = [c for _, c in ts]
            print(f"| {label} | {source} | {len(ts)} | {sum(wall) / len(ts):.3f} | {max(wall):.3f} | "
                  f"{sum(cpu) / len(ts):.3f} | {max(cpu):.3f} |", flush=True)


if __name__ == "__main__":
    main()
