"""Benchmark: playing strength of the Goofspiel bots, in one run.

1. Exploitability table (bots x cards x tie rule): the exact best response's
   expected point difference per game (cardtable.solver.exploit; 0 = equilibrium),
   with the method and the seconds it took.
2. Head-to-head table: mean point difference per game of the first bot against
   each other one (``--all-pairs``: every pairing) over duplicate games (each
   deal played with both seatings), with the 95% interval (Student t over deals).

Usage (the README's numbers):

    python bench/strength.py --exploit-cards 8,9,10 --h2h-cards 13 --h2h-ties carry --games 200

``--bots`` lists the bot specs (as in ``cardtable tournament``); bots whose
play depends on the history (``mcts``, ``exploiter``) get the sampled history
search at ``--history-cards`` (at most 5 cards), the others the exact best
response at ``--exploit-cards``. Runs at one thread; the 13-card ``nash`` needs the discard table
(``cardtable solve -n 13 --ties discard``, or ``CARDTABLE_HOME`` pointing at a
folder that has it).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from cardtable.goofspiel import Ruleset
from cardtable.platform.bot import load_bot
from cardtable.platform.tournament import TournamentConfig, parse_bot_spec, run, standings
from cardtable.solver.exploit import best_response, is_positional


def exploit_table(
    bots: list[str], cards: list[int], ties: list[str], history_cards: list[int], samples: int, repeats: int
) -> None:
    """Exploitability of each bot: exact (positional bots) at ``cards``; bots whose play
    depends on the history by the sampled history search at ``history_cards`` (at most 5)."""
    print("| bot | cards | ties | exploitability (points/game) | method | seconds |")
    print("|---|---:|---|---:|---|---:|")
    for spec in bots:
        entry = parse_bot_spec(spec)
        positional = is_positional(load_bot("goofspiel", entry.target, seed=0, **entry.options))
        for n in cards if positional else history_cards:
            for tie in ties:
                bot = load_bot("goofspiel", entry.target, seed=0, **entry.options)
                t0 = time.perf_counter()
                br = best_response(Ruleset(cards=n, tie_rule=tie), bot, samples, repeats)
                se = "" if br.stderr is None else f" +- {br.stderr:.3f}"
                print(
                    f"| {entry.label} | {n} | {tie} | {br.exploitability:.4f}{se} | {br.method} | "
                    f"{time.perf_counter() - t0:.1f} |",
                    flush=True,
                )


def head_to_head(bots: list[str], n: int, tie: str, games: int, seed: int, all_pairs: bool) -> None:
    """Duplicate games of the first bot against each other one (``all_pairs``: every pairing),
    then the same margins as a bots x bots cross table (row bot's mean point difference)."""
    pairs = (
        [(a, b) for i, a in enumerate(bots) for b in bots[i + 1 :]]
        if all_pairs
        else [(bots[0], b) for b in bots[1:]]
    )
    print(
        f"\nHead to head, {n} cards, {tie} ties, {games} games per pairing "
        f"({games // 2} deals x both seatings)"
    )
    print("| pairing | games | mean point difference (first bot) | 95% interval | seconds |")
    print("|---|---:|---:|---|---:|")
    cells: dict[tuple[str, str], str] = {}
    for a, b in pairs:
        cfg = TournamentConfig(
            bots=(parse_bot_spec(a), parse_bot_spec(b)),
            games=games,
            seed=seed,
            ruleset=Ruleset(cards=n, tie_rule=tie).describe(),
        )
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            run(cfg, Path(d) / "h2h.sqlite", backend="serial", workers=1)
            secs = time.perf_counter() - t0
            st = standings(cfg, Path(d) / "h2h.sqlite")
        line = st.pairings[0]
        lo, hi = line.mean_diff - line.ci95, line.mean_diff + line.ci95
        print(
            f"| {line.label} | {line.games} | {line.mean_diff:+.2f} | [{lo:+.2f}, {hi:+.2f}] | {secs:.0f} |",
            flush=True,
        )
        cells[a, b] = f"{line.mean_diff:+.2f} ± {line.ci95:.2f}"
        cells[b, a] = f"{-line.mean_diff:+.2f} ± {line.ci95:.2f}"
    names = [parse_bot_spec(b).label for b in bots]
    print(
        f"\nCross table, {n} cards, {tie} ties: the row bot's mean point difference per game "
        "against the column bot, ± the 95% interval's half-width"
    )
    print("| bot | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for a, name in zip(bots, names, strict=True):
        print(f"| {name} | " + " | ".join("" if a == b else cells.get((a, b), "-") for b in bots) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--bots",
        default="nash,heuristic,matcher,random,mcts:iterations=200",
        help="comma-free list separated by ';' or ',' of bot specs",
    )
    ap.add_argument("--exploit-cards", default="6,8", help="cards for the exploitability table")
    ap.add_argument("--exploit-ties", default="carry,discard")
    ap.add_argument(
        "--history-cards",
        default="3",
        help="cards for the bots whose play depends on the history (sampled search, at most 5)",
    )
    ap.add_argument("--samples", type=int, default=50, help="act() calls per decision (bots without policy)")
    ap.add_argument("--repeats", type=int, default=3, help="searches averaged for noisy mixes")
    ap.add_argument("--h2h-cards", type=int, default=8)
    ap.add_argument("--h2h-ties", default="carry")
    ap.add_argument("--games", type=int, default=40, help="games per pairing (even)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--all-pairs", action="store_true", help="every pairing, not only the first bot's")
    ap.add_argument("--no-exploit", action="store_true", help="skip the exploitability table")
    args = ap.parse_args()
    sep = ";" if ";" in args.bots else ","
    bots = [b.strip() for b in args.bots.split(sep) if b.strip()]
    if sep == ",":  # options of a spec also use commas: rejoin key=value pieces
        merged: list[str] = []
        for b in bots:
            if "=" in b and ":" not in b and merged:
                merged[-1] += "," + b
            else:
                merged.append(b)
        bots = merged
    print(f"bench/strength.py {vars(args)}")
    if not args.no_exploit:
        exploit_table(
            bots,
            [int(c) for c in args.exploit_cards.split(",") if c],
            [t for t in args.exploit_ties.split(",") if t],
            [int(c) for c in args.history_cards.split(",") if c],
            args.samples,
            args.repeats,
        )
    if args.games > 0:
        head_to_head(bots, args.h2h_cards, args.h2h_ties, args.games, args.seed, args.all_pairs)


if __name__ == "__main__":
    main()
