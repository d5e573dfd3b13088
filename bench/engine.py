"""Benchmark: full random 13-card Goofspiel games per second through the public API,
cardtable's engine against OpenSpiel's ``goofspiel`` driven from Python, in the same run.

Both use discard ties, a random prize order and uniformly random legal bids, with
Python's ``random`` choosing for both. Run:  python bench/engine.py [--games N]
"""

from __future__ import annotations

import argparse
import platform
import random
import time


def bench_cardtable(games: int, tie_rule: str = "discard", seeded: bool = True) -> float:
    """``seeded``: each game orders its prizes from its own seed (recordable, verifiable);
    otherwise the driver's ``rng`` deals the prize deck, as it plays OpenSpiel's chance nodes."""
    from cardtable.goofspiel import Game, Ruleset

    rs = Ruleset(tie_rule=tie_rule)
    rng = random.Random(1)
    deck = list(rs.deck)
    start = time.perf_counter()
    for i in range(games):
        game = Game(rs, seed=i) if seeded else Game(rs, prize_deck=rng.sample(deck, len(deck)))
        while not game.is_over:
            game.play([rng.choice(game.legal_bids(0)), rng.choice(game.legal_bids(1))])
    return games / (time.perf_counter() - start)


def bench_openspiel(games: int) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game_def = pyspiel.load_game(
        "goofspiel", {"num_cards": 13, "points_order": "random", "returns_type": "point_difference"}
    )
    rng = random.Random(1)
    start = time.perf_counter()
    for _ in range(games):
        state = game_def.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice(outcomes)[0])
            else:
                state.apply_actions([rng.choice(state.legal_actions(0)), rng.choice(state.legal_actions(1))])
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=5000, help="games per engine per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats; the best rate counts")
    args = parser.parse_args()
    runs = {
        "cardtable Game, discard ties, seeded shuffle per game": lambda: bench_cardtable(
            args.games, "discard"
        ),
        "cardtable Game, carry-over ties, seeded shuffle per game": lambda: bench_cardtable(
            args.games, "carry"
        ),
        "cardtable Game, discard ties, deck dealt by the driver's rng": lambda: bench_cardtable(
            args.games, "discard", False
        ),
        "OpenSpiel goofspiel (discard ties)": lambda: bench_openspiel(args.games),
    }
    best: dict[str, float | None] = {name: None for name in runs}
    for _ in range(args.repeats):  # interleaved, so background load hits every engine alike
        for name, run in runs.items():
            rate = run()
            if rate is not None and (best[name] is None or rate > best[name]):
                best[name] = rate
    rows = list(best.items())
    reference = rows[-1][1]
    print(
        f"random 13-card games, best of {args.repeats} x {args.games} each, Python {platform.python_version()}"
    )
    print("| engine | games/s | vs OpenSpiel |")
    print("|---|---:|---:|")
    for name, rate in rows:
        if rate is None:
            print(f"| {name} | not installed | |")
        else:
            ratio = f"{rate / reference:.2f}x" if reference else ""
            print(f"| {name} | {rate:,.0f} | {ratio} |")


if __name__ == "__main__":
    main()
