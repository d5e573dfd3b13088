"""Re-run the benches behind the docs' result tables and rewrite the tables in place.

Each table lives between marker comments in a docs file,
``<!-- bench:NAME:begin -->`` and ``<!-- bench:NAME:end -->``; everything
between them is replaced by the fresh table, headed by the exact command that
produced it and the game counts. Run it before a release (every published
figure must come from the current code); the counts are options, so a quick
run and a full one differ only in the size of the intervals. Sections:

- ``exploiter`` (docs/exploiter.md): ``bench/exploiter.py`` at ``--cards``,
  one table per tie rule of ``--ties``: the exploiter against each opponent
  (whole match and games 2..N), ``nash`` against the same opponents, the
  budget invariant.
- ``mcts-multiplayer`` (docs/research.md): ``bench/mcts_strength.py`` for 3
  and 4 players at 8 cards: MCTS beside the baselines in the same seat, with
  its paired margins.
- ``estimates`` (docs/solver.md): ``bench/solver.py --fit`` on the solves recorded in
  ``bench/results/estimates.jsonl`` (``bench/solver.py --estimates 10,11,12`` measures
  them: about an hour of one core without the win objective at 12 cards): the fitted prices
  and the current ``estimate_solve`` beside each measured solve. Seconds, not minutes.

Usage::

    python scripts/regen_docs_figures.py [--only exploiter,mcts-multiplayer,estimates] [--dry-run]
        [--exploiter-games 200] [--exploiter-slow-games 60] [--mcts-games 60|N3,N4]
        [--mcts-jobs 2]

Raises ``SystemExit`` when a bench fails or a docs file lacks its markers.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SLOW = ("mcts", "match-adversary")  # opponents that get --exploiter-slow-games


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the part between ``name``'s markers replaced by ``body``.

    Raises:
        SystemExit: the markers are missing or out of order."""
    pattern = re.compile(
        rf"(<!-- bench:{re.escape(name)}:begin -->\n).*?(<!-- bench:{re.escape(name)}:end -->)", re.S
    )
    if not pattern.search(text):
        raise SystemExit(f"markers for {name!r} not found")
    return pattern.sub(lambda m: m.group(1) + body.rstrip("\n") + "\n" + m.group(2), text, count=1)


def run(cmd: list[str]) -> str:
    print("$", " ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run([sys.executable, *cmd], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stderr[-2000:]}")
    return out.stdout


def exploiter_section(args) -> str:
    opponents = args.exploiter_opponents.split(",")
    baseline = [o for o in opponents if o in ("matcher", "heuristic", "random") or o.startswith("mcts")]
    counts = ";".join(f"{o}={args.exploiter_slow_games}" for o in opponents if o.startswith(SLOW))
    parts = []
    for tie in args.ties.split(","):
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "r.json"
            cmd = [
                "bench/exploiter.py",
                "--cards",
                str(args.cards),
                "--ties",
                tie,
                "--games",
                str(args.exploiter_games),
                "--match",
                "10",
                "--opponents",
                ",".join(opponents),
                "--baseline",
                ",".join(baseline),
                "--games-for",
                counts,
                "--out",
                str(out),
            ]
            run(cmd)
            data = json.loads(out.read_text())
        rows = data["rows"]
        exact = data["matcher_exploitability"]
        nash = {r["second"]: r for r in rows if r["first"] == "nash"}
        shown = " ".join(
            c if " " not in c and ";" not in c else repr(c) for c in cmd[1:] if "r.json" not in c
        )
        parts.append(
            f"**{args.cards} cards, {tie} ties** (exact exploitability of `matcher`: "
            f"{exact:.2f} points per game; `python bench/exploiter.py {shown.replace(' --out', '')}`)\n"
        )
        parts.append(
            "| opponent | games | `exploiter`, whole match | `exploiter`, games 2-10 | "
            "`nash`, same opponent (games) | budget invariant |"
        )
        parts.append("|---|---:|---:|---:|---:|---|")
        for r in rows:
            if r["first"] != "exploiter":
                continue
            share = f" ({100 * r['share_later']:.0f}% of {exact:.2f})" if "share_later" in r else ""
            n = nash.get(r["second"])
            ncell = f"{n['mean']:+.2f} ± {n['ci']:.2f} ({n['games']})" if n else "-"
            parts.append(
                f"| {r['second']} | {r['games']} | {r['mean']:+.2f} ± {r['ci']:.2f} | "
                f"{r['mean_later']:+.2f} ± {r['ci_later']:.2f}{share} | {ncell} | "
                f"{'holds' if r['budget_ok'] else 'VIOLATED'} |"
            )
        parts.append("")
    return "\n".join(parts)


def mcts_games(text: str) -> dict[int, int]:
    """``--mcts-games``: ``"N"`` (every player count) or ``"N3,N4"`` -> ``{3: N3, 4: N4}``.

    Raises:
        SystemExit: not one or two positive integers.
    """
    try:
        counts = [int(x) for x in text.split(",")]
    except ValueError:
        counts = []
    if len(counts) not in (1, 2) or min(counts) < 1:
        raise SystemExit(f"--mcts-games: one or two positive integers (3 and 4 players), not {text!r}")
    return dict(zip((3, 4), counts * 2 if len(counts) == 1 else counts, strict=True))


def mcts_section(args) -> str:
    """The 3- and 4-player tables, one bench process per player count (side by side, or one
    after the other with ``--mcts-jobs 1``)."""
    games = mcts_games(args.mcts_games)
    cmds = [
        [
            "bench/mcts_strength.py",
            "--cards",
            "8",
            "--games",
            str(games[p]),
            "--players",
            str(p),
            "--opponents",
            "random,matcher,heuristic",
            "--baselines",
            "random,matcher,heuristic",
            "--mcts",
            args.mcts,
        ]
        for p in (3, 4)
    ]
    outputs = []
    for start in range(0, len(cmds), args.mcts_jobs):
        batch = cmds[start : start + args.mcts_jobs]
        procs = []
        for cmd in batch:
            print("$", " ".join(cmd), file=sys.stderr, flush=True)
            procs.append(
                subprocess.Popen(
                    [sys.executable, *cmd],
                    cwd=ROOT,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        for cmd, proc in zip(batch, procs, strict=True):
            out, err = proc.communicate()
            if proc.returncode != 0:
                raise SystemExit(f"{' '.join(cmd)} failed:\n{err[-2000:]}")
            outputs.append((cmd, out))
    parts = []
    for cmd, out in outputs:
        lines = out.splitlines()
        parts.append(
            f"`python {' '.join(cmd)}` ({lines[0]}; games rounded down to whole deals):\n"
            + "\n".join(lines[1:])
            + "\n"
        )
    return "\n".join(parts)


def estimates_section(args) -> str:
    """The fitted prices and estimate-vs-measured table from the recorded solves."""
    cmd = ["bench/solver.py", "--fit", "bench/results/estimates.jsonl"]
    out = run(cmd).replace("\n## ", "\n#### ")  # below the docs section's own heading
    return f"`python {' '.join(cmd)}`:\n" + out


SECTIONS = {
    "exploiter": ("docs/exploiter.md", exploiter_section),
    "mcts-multiplayer": ("docs/research.md", mcts_section),
    "estimates": ("docs/solver.md", estimates_section),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(SECTIONS), help="sections to regenerate")
    ap.add_argument("--dry-run", action="store_true", help="print the tables, write nothing")
    ap.add_argument("--cards", type=int, default=8, help="exploiter tables: cards")
    ap.add_argument("--ties", default="discard,carry", help="exploiter tables: tie rules")
    ap.add_argument("--exploiter-games", type=int, default=200, help="games per pairing (a multiple of 10)")
    ap.add_argument(
        "--exploiter-slow-games",
        type=int,
        default=60,
        help="games per pairing against mcts and match-adversary (a multiple of 10)",
    )
    ap.add_argument(
        "--exploiter-opponents",
        default="matcher,heuristic,random,nash,bait,match-adversary,match-adversary:bait_games=3,"
        "mcts:iterations=100",
    )
    ap.add_argument(
        "--mcts-games",
        default="60",
        help="games per row of the multi-player table: N, or N3,N4 for 3 and 4 players",
    )
    ap.add_argument(
        "--mcts-jobs",
        type=int,
        choices=(1, 2),
        default=2,
        help="bench processes at a time for the multi-player table (1: one after the other)",
    )
    ap.add_argument("--mcts", default="iterations=1000", help="MCTS options for the multi-player table")
    args = ap.parse_args()
    for name in args.only.split(","):
        path, make = SECTIONS[name]
        body = make(args)
        if args.dry_run:
            print(f"--- {name} ({path})\n{body}")
            continue
        file = ROOT / path
        file.write_text(replace_block(file.read_text(), name, body))
        print(f"{path}: {name} rewritten", file=sys.stderr)


if __name__ == "__main__":
    main()
