"""CFR+ seconds per iteration: our OpenSpiel game against OpenSpiel's native goofspiel.

Both games are converted with ``pyspiel.convert_to_turn_based`` and solved by
OpenSpiel's Python ``CFRPlusSolver`` in the same run. Native: ``goofspiel(num_cards=n,
points_order=random, returns_type=point_difference, imp_info=False)`` (bids are
public, as in our rules); ours: ``python_cardtable_goofspiel`` with discard ties
(the same game) and with carry-over ties. Prints a Markdown table: the first
iteration (which builds our memoised tree) and the mean of the next ones, and
the ratio to native. Usage:

    python bench/openspiel_cfr.py [--cards 3,4] [--iterations 3]
"""

from __future__ import annotations

import argparse
import time


def time_cfr(game, iterations: int) -> tuple[float, float, int]:
    """(first iteration s, mean of the next ``iterations`` s, information states)."""
    import pyspiel
    from open_spiel.python.algorithms import cfr

    solver = cfr.CFRPlusSolver(pyspiel.convert_to_turn_based(game))
    start = time.perf_counter()
    solver.evaluate_and_update_policy()
    first = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    return first, (time.perf_counter() - start) / iterations, len(solver._info_state_nodes)


def main() -> None:
    from cardtable.research.extra import missing

    if missing("pyspiel"):
        raise SystemExit("bench/openspiel_cfr.py needs the 'research' extra (missing: pyspiel); "
                         "install it with: pip install 'cardtable[research]'")
    import pyspiel

    from cardtable.research import openspiel_game as og

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", default="3,4")
    ap.add_argument("--iterations", type=int, default=3, help="timed iterations after the first")
    args = ap.parse_args()
    print("| n | game | information states | first iteration s | later iterations s | vs native |")
    print("|---:|---|---:|---:|---:|---:|")
    for n in map(int, args.cards.split(",")):
        games = [
            ("OpenSpiel goofspiel (native C++)", pyspiel.load_game("goofspiel", {
                "num_cards": n, "points_order": "random", "returns_type": "point_difference", "imp_info": False})),
            ("cardtable, discard ties", og.load(num_cards=n, tie_rule="discard")),
            ("cardtable, carry-over ties", og.load(num_cards=n, tie_rule="carry")),
        ]
        native = None
        for label, game in games:
            first, later, states = time_cfr(game, args.iterations)
            native = native or later
            print(f"| {n} | {label} | {states} | {first:.2f} | {later:.2f} | {later / native:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
