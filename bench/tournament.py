"""Benchmark: tournament throughput (games per second) for the baseline bots.

Runs the same round-robin (random, matcher, heuristic; standard game) with the
serial backend and with 2 worker processes, plus one with the example Python
protocol bot, each into a fresh SQLite file. Prints a Markdown table. Usage:

    python bench/tournament.py [--games 200]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from cardtable.platform.tournament import TournamentConfig, parse_bot_spec, run

ROOT = Path(__file__).resolve().parents[1]


def timed(config: TournamentConfig, backend: str, workers: int) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as d:
        start = time.perf_counter()
        played = run(config, Path(d) / "t.sqlite", backend=backend, workers=workers)
        return played, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per pairing (even)")
    args = ap.parse_args()
    base = TournamentConfig(
        bots=tuple(parse_bot_spec(s) for s in ("random", "matcher", "heuristic")), games=args.games
    )
    proto = TournamentConfig(
        bots=(
            parse_bot_spec("heuristic"),
            parse_bot_spec(f"py=cmd:{sys.executable} {ROOT / 'examples' / 'protocol_bot.py'}"),
        ),
        games=args.games,
    )
    rows = []
    for label, cfg, backend, workers in (
        ("baselines, serial", base, "serial", 1),
        ("baselines, 2 processes", base, "process", 2),
        ("heuristic vs Python protocol bot, 2 processes", proto, "process", 2),
    ):
        played, secs = timed(cfg, backend, workers)
        rows.append((label, played, secs))
    print("| tournament | games | seconds | games/s |")
    print("|---|---:|---:|---:|")
    for label, played, secs in rows:
        print(f"| {label} | {played} | {secs:.2f} | {played / secs:,.0f} |")


if __name__ == "__main__":
    main()
