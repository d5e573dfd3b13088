"""Benchmark: move time of the ``nash`` bot in the standard game (13 cards, carry-over
ties, no carry-over table): the carry-over approximation, then exact subgame solving.

One process, one thread. Prints the one-time preparation (opening and checking
the 13-card discard table, compiling the kernels at the first move), then per
source (``approximation``, ``subgame``; the first exact move of each game, where
the subgame is solved, separately, beside the time to solve the whole subgame
at the same position, as before issue 10's change) the number of moves and the mean and
largest seconds per move (wall clock, and the process's CPU time beside it: the
machine may be shared), over ``--games`` games against ``heuristic``. The
reference row is the same bot with ``approximation=False`` (the one-round
lookahead fallback it replaced) on the same deals.

Usage (the numbers in docs/solver.md)::

    python bench/approx.py --games 3
    python bench/approx.py --games 3 --subgame-limit 5000000   # exact from 9 cards left

With the low layers in the cache folder (``cardtable solve -n 13 --ties carry
--layers 5``) the bot plays exactly from 9 cards left at the default limit; the first
exact move then has one more reference row, the same round subgame searched without
them.

``--h2h "heuristic;matcher;mcts:iterations=200;cmd:python examples/protocol_bot.py;oneline"
--deals N --log FILE [--ties discard]``: instead,
duplicate games of ``nash`` against each opponent (each deal played with both
seatings; ``cmd:`` a protocol program, ``oneline`` the one-line strategy of issue 23,
:class:`OneLine`), one deal per opponent in turn, appended to the JSON-lines ``FILE``
(run again to continue: deals already logged are skipped); ``--report --log
FILE [--log FILE2 ...]`` prints the table so far: nash's mean point difference per
game with the 95% interval (Student t over deals, the mean of a deal's two games
being one observation), raw and luck-adjusted (:mod:`cardtable.solver.luck`: the
same mean, about a quarter of the spread; the estimate, named in each log line, is nash's
own values where it plays from a compressed table, :class:`~cardtable.solver.luck.SourceEstimate`).

Reads the 13-card discard table from the cache folder (``CARDTABLE_CACHE``), else the
compressed one shipped with the package: with an empty cache folder, nash plays as on a
fresh install.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from scipy import stats

from cardtable.goofspiel import Game, Ruleset
from cardtable.platform.bot import Bot, load_bot
from cardtable.solver.approx import CarryApproximation, exact_layers
from cardtable.solver.equilibrium import discard_table
from cardtable.solver.luck import SourceEstimate, adjusted_difference
from cardtable.solver.position import Position, position_from_view
from cardtable.solver.round_subgame import solve_round_subgame
from cardtable.solver.table import solve_subgame
from cardtable.strategy.nash import NashBot


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
            view = game.view(seat)
            first_exact = bot._sub is None
            w0, c0 = time.perf_counter(), time.process_time()
            mine = bot.act(view)
            spent = (time.perf_counter() - w0, time.process_time() - c0)
            times.setdefault(bot.last_source, []).append(spent)
            if first_exact and bot.last_source == "subgame":
                times.setdefault("subgame: first exact move", []).append(spent)
                times.setdefault("(reference) the whole subgame solved at that move", []).append(
                    whole_subgame_seconds(rs, view)
                )
                if bot._source.low is not None:
                    times.setdefault(
                        "(reference) that round's subgame searched without the low layers", []
                    ).append(round_subgame_seconds(rs, view))
            theirs = other.act(game.view(1 - seat))
            game.play([mine, theirs] if seat == 0 else [theirs, mine])
    return times


def whole_subgame_seconds(rs: Ruleset, view) -> tuple[float, float]:
    """(wall, cpu) seconds to solve every position reachable from ``view``'s position
    (:func:`solve_subgame`, what the first exact move solved before issue 10's change)."""
    pos, _ = position_from_view(view)
    pos = Position(pos.prizes, pos.hands, pos.pot, 0)
    w0, c0 = time.perf_counter(), time.process_time()
    solve_subgame(rs, pos)
    return time.perf_counter() - w0, time.process_time() - c0


def round_subgame_seconds(rs: Ruleset, view) -> tuple[float, float]:
    """(wall, cpu) seconds of the first exact move's round subgame at ``view`` with every
    layer searched (what it costs without the low layers, docs/solver.md, Low layers)."""
    pos, prize = position_from_view(view)
    if view.seat == 1:
        pos = pos.swapped()
    w0, c0 = time.perf_counter(), time.process_time()
    solve_round_subgame(rs, Position(pos.prizes, pos.hands, pos.pot, 0), prize)
    return time.perf_counter() - w0, time.process_time() - c0


class OneLine(Bot):
    """The "one-line strategy" of issue 23, which beat the lookahead fallback 55-36 and 60-19:
    on a big stake (prize plus carried pot worth at least ``BIG``) bid the lowest card above the
    stake (the highest card when none is), else dump the lowest card. Bench-only."""

    name = "oneline"
    BIG = 7

    def act(self, view):
        hand = sorted(view.hand)
        stake = view.pot_value  # the face-up prizes: the one turned up and any carried, points
        if stake >= self.BIG:
            above = [c for c in hand if c > stake]
            return (above[0] if above else hand[-1],)
        return (hand[0],)


def opponent_bot(spec: str, seed: int) -> Bot:
    """``oneline`` (:class:`OneLine`), a registered bot with options, or ``cmd:PROGRAM``."""
    from cardtable.goofspiel.tournament import make_bot
    from cardtable.platform.tournament import parse_bot_spec

    if spec == OneLine.name:
        return OneLine(seed)
    entry = parse_bot_spec(spec)
    return make_bot(entry.kind, entry.target, dict(entry.options), seed)


def duplicate_deal(opponent: str, rs: Ruleset, deal: int, approx) -> tuple[float, float]:
    """nash's mean point difference over the two seatings of deal ``deal`` against
    ``opponent``: raw, and luck-adjusted (:func:`cardtable.solver.luck.adjusted_difference`,
    nash's own mixes known, the value estimate ``approx``: the carry-over approximation, or the
    discard table with discard ties)."""
    diffs, adjusted = [], []
    for seat in (0, 1):
        game = Game(rs, seed=deal)
        other = opponent_bot(opponent, deal)
        bots = [NashBot(seed=deal), other]
        if seat == 1:
            bots.reverse()
        try:
            for s, b in enumerate(bots):
                b.new_game(rs, s)
            mixes = []
            while not game.is_over:
                mix = bots[seat].policy(game.view(seat))  # nash's exact mixed bid, then its draw
                mixes.append((mix, None) if seat == 0 else (None, mix))
                game.play([b.act(game.view(s)) for s, b in enumerate(bots)])
        finally:
            close = getattr(other, "close", None)
            if close is not None:
                close()
        pts = game.points
        sign = 1 if seat == 0 else -1
        diffs.append(pts[seat] - pts[1 - seat])
        adjusted.append(sign * adjusted_difference(game, approx, mixes))
    return sum(diffs) / 2, sum(adjusted) / 2


def luck_estimate(rs: Ruleset):
    """The luck terms' value estimate: nash's own values (the shipped compressed table, then
    exact subgames) where it plays from one, else the approximation (carry-over) or the
    discard table."""
    try:
        return SourceEstimate(rs), "nash's source"
    except ValueError:
        pass
    discard = discard_table(rs)
    if discard is None:
        raise SystemExit(f"no {rs.cards}-card discard table, solved or shipped")
    if rs.tie_rule == "carry":
        return CarryApproximation(rs, discard, exact_layers(rs)), "approximation"
    return discard, "discard table"


def head_to_head(opponents: list[str], rs: Ruleset, deals: int, log: Path) -> None:
    approx, estimate = luck_estimate(rs)
    done = set()
    if log.exists():
        done = {(r["opponent"], r["deal"]) for r in map(json.loads, log.read_text().splitlines())}
    with log.open("a") as f:
        for deal in range(deals):
            for opp in opponents:
                if (opp, deal) in done:
                    continue
                t0 = time.perf_counter()
                d, adj = duplicate_deal(opp, rs, deal, approx)
                f.write(
                    json.dumps(
                        {
                            "opponent": opp,
                            "deal": deal,
                            "cards": rs.cards,
                            "ties": rs.tie_rule,
                            "cache": os.environ.get("CARDTABLE_CACHE", ""),
                            "diff": d,
                            "adjusted": round(adj, 6),
                            "estimate": estimate,
                            "seconds": round(time.perf_counter() - t0, 1),
                        }
                    )
                    + "\n"
                )
                f.flush()


def _interval(x: np.ndarray) -> str:
    half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else float("inf")
    return f"{x.mean():+.2f} [{x.mean() - half:+.2f}, {x.mean() + half:+.2f}]"


def report(logs: list[Path]) -> None:
    """The table of the logged deals (several logs: run in parallel, one opponent each)."""
    rows: dict[str, list[tuple[float, float]]] = {}
    for log in logs:
        for r in map(json.loads, log.read_text().splitlines()):
            rows.setdefault(r["opponent"], []).append((r["diff"], r.get("adjusted", np.nan)))
    print(
        "| pairing | deals | games | nash's mean point difference, 95% interval | luck-adjusted, 95% interval |"
    )
    print("|---|---:|---:|---|---|")
    for opp, xs in rows.items():
        x = np.array(xs)
        adj = x[:, 1][~np.isnan(x[:, 1])]
        print(
            f"| nash vs {opp} | {len(x)} | {2 * len(x)} | {_interval(x[:, 0])} | "
            f"{_interval(adj) if len(adj) else '-'} |"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=13)
    ap.add_argument("--ties", choices=("carry", "discard"), default="carry", help="--h2h only")
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--h2h", default="", help="opponents of nash, separated by ';'")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument(
        "--log",
        type=Path,
        action="append",
        help="JSON-lines log of the deals (default approx-h2h.jsonl); --report reads every one given",
    )
    ap.add_argument("--report", action="store_true")
    ap.add_argument(
        "--subgame-limit",
        type=int,
        default=2_000_000,
        help="nash's subgame_limit (5000000: exact subgames from 9 cards left)",
    )
    args = ap.parse_args()
    rs = Ruleset(cards=args.cards, tie_rule="carry")
    logs = args.log or [Path("approx-h2h.jsonl")]
    if args.report:
        report(logs)
        return
    if args.h2h:
        rs = Ruleset(cards=args.cards, tie_rule=args.ties)
        head_to_head([o for o in args.h2h.split(";") if o], rs, args.deals, logs[0])
        return
    print(f"bench/approx.py {vars(args)}")
    t0 = time.perf_counter()
    if discard_table(rs) is None:
        raise SystemExit(
            f"no {args.cards}-card discard table: run `cardtable solve -n {args.cards} --ties discard`"
        )
    print(f"one-time preparation: opening and checking the discard table {time.perf_counter() - t0:.1f} s")
    bot = NashBot(seed=1, subgame_limit=args.subgame_limit)
    t0 = time.perf_counter()
    bot.new_game(rs, 0)
    src = bot._source
    low = (
        f"low layers 1..{src.low_upto} ({'read' if src.low.path else 'solved in memory'})"
        if src.low is not None
        else "no low layers"
    )
    print(
        f"one-time preparation: the bot's sources ({low}; exact from {src.approx.exact} cards left) "
        f"{time.perf_counter() - t0:.1f} s"
    )
    t0 = time.perf_counter()
    play(bot, rs, 1, args.seed - 1)  # compiles the kernels; not counted below
    print(f"one-time preparation: first game (kernel compilation) {time.perf_counter() - t0:.1f} s")
    print("| bot | source | moves | mean s (wall) | max s (wall) | mean s (CPU) | max s (CPU) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    nash_label = "nash" if args.subgame_limit == 2_000_000 else f"nash:subgame_limit={args.subgame_limit}"
    for label, b in (
        (nash_label, bot),
        ("nash:approximation=false (reference)", NashBot(seed=1, approximation=False)),
    ):
        for source, ts in sorted(play(b, rs, args.games, args.seed).items()):
            wall = [w for w, _ in ts]
            cpu = [c for _, c in ts]
            print(
                f"| {label} | {source} | {len(ts)} | {sum(wall) / len(ts):.3f} | {max(wall):.3f} | "
                f"{sum(cpu) / len(ts):.3f} | {max(cpu):.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
