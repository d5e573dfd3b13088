"""CFR+ seconds per iteration: our OpenSpiel game against OpenSpiel's native goofspiel.

OpenSpiel's Python ``CFRPlusSolver`` on each game, in the same run. Native:
``goofspiel(num_cards=n, points_order=random, returns_type=point_difference,
imp_info=False)`` (bids are public, as in our rules) through
``pyspiel.convert_to_turn_based`` (C++); ours: the turn-based form
``python_cardtable_goofspiel_turn_based`` with discard ties (the same game as
native) and carry-over ties, and, with ``--converted``, also the simultaneous
``python_cardtable_goofspiel`` through ``convert_to_turn_based``. Prints a
Markdown table: the first iteration (which builds our memoised tree), the mean
of the next ones, and the ratio to native's, in seconds of this process's CPU
time (``time.process_time``: on a shared machine wall time measures the other
jobs too). Usage:

    python bench/openspiel_cfr.py [--cards 3,4] [--iterations 3] [--converted]
"""

from __future__ import annotations

import argparse
import time


def time_cfr(game, iterations: int) -> tuple[float, float, int]:
    """(first iteration s, mean of the next ``iterations`` s, information states) of a sequential game."""
    from open_spiel.python.algorithms import cfr

    solver = cfr.CFRPlusSolver(game)
    start = time.process_time()
    solver.evaluate_and_update_policy()
    first = time.process_time() - start
    start = time.process_time()
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    return first, (time.process_time() - start) / iterations, len(solver._info_state_nodes)


def main() -> None:
    from cardtable.research.extra import missing

    if missing("pyspiel"):
        raise SystemExit(
            "bench/openspiel_cfr.py needs the 'research' extra (missing: pyspiel); "
            "install it with: pip install 'cardtable[research]'"
        )
    import pyspiel

    from cardtable.research import openspiel_game as og

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", default="3,4")
    ap.add_argument("--iterations", type=int, default=3, help="timed iterations after the first")
    ap.add_argument(
        "--converted", action="store_true", help="also our simultaneous game through convert_to_turn_based"
    )
    args = ap.parse_args()
    print("| n | game | information states | first iteration CPU s | later iterations CPU s | vs native |")
    print("|---:|---|---:|---:|---:|---:|")
    for n in map(int, args.cards.split(",")):
        native = pyspiel.load_game(
            "goofspiel",
            {"num_cards": n, "points_order": "random", "returns_type": "point_difference", "imp_info": False},
        )
        games = [
            (
                "OpenSpiel goofspiel (native C++), convert_to_turn_based",
                pyspiel.convert_to_turn_based(native),
            ),
            ("cardtable turn-based, discard ties", og.load(num_cards=n, tie_rule="discard", turn_based=True)),
            (
                "cardtable turn-based, carry-over ties",
                og.load(num_cards=n, tie_rule="carry", turn_based=True),
            ),
        ]
        if args.converted:
            games += [
                (
                    f"cardtable simultaneous, {t} ties, convert_to_turn_based",
                    pyspiel.convert_to_turn_based(og.load(num_cards=n, tie_rule=t)),
                )
                for t in ("discard", "carry")
            ]
        native = None
        for label, game in games:
            first, later, states = time_cfr(game, args.iterations)
            native = native or later
            print(
                f"| {n} | {label} | {states} | {first:.3f} | {later:.3f} | {later / native:.2f}x |",
                flush=True,
            )


if __name__ == "__main__":
    main()
