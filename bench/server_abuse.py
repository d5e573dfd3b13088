"""Benchmark: a well-behaved game's latency while abusive clients attack the server.

Starts ``cardtable serve`` in a subprocess (its own SQLite file, default limits except the
per-address quotas, since every client here shares the loopback address). For each scenario
(0, 2 and 4 abusers of each kind) a good client plays one 13-card Goofspiel game holding
both seats (no think time) and creates rooms, and measures:

- reveal latency: from sending the last bid of a round to the reveal arriving at both seats;
- room creation latency: ``POST /api/rooms``.

Abuser kinds (each in its own process, reconnecting whenever the server closes it):

- ``frames``: streams maximum-size frames (4096 bytes, the protocol limit) as fast as it can;
- ``huge``: sends 1 MiB frames (closed at the transport, reconnects);
- ``joins``: joins the good games' rooms as a spectator and leaves, over and over.

Analysis load (``--suite analysis``, issue 24): a good client holds one seat of a 13-card
game against a room bot (``--bot``, default ``heuristic``) and bids as soon as each round
starts, while another process keeps ``--analyses`` requests for ``GET /api/rooms/R/analysis``
in flight at once (each over another finished 13-card game, ``--analysis-games`` of them,
so that every request costs a solve until they are all cached). Measured: the reveal latency
from the good client's bid to the reveal (the bot's action included); a reference row without
the analysis load is run first, on the same server. The per-address analysis quota and the
bound on games in flight are raised (every request then reaches the solver: the worst case).

Usage::

    python bench/server_abuse.py                 # every scenario, one table each
    python bench/server_abuse.py --suite abuse --abusers 0 4 --kinds frames
    python bench/server_abuse.py --suite analysis --out bench/results/server_abuse_analysis.md

Targets: issue 9, the good client's reveal p99 stays under 100 ms with 4 abusers;
issue 24, the reveal p99 against a bot stays under 500 ms with 50 concurrent analyses.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from websockets.asyncio.client import connect


def start_server(port: int, db: Path) -> subprocess.Popen:
    exe = shutil.which("cardtable")
    cmd = [exe] if exe else [sys.executable, "-c", "from cardtable.cli import main; main()"]
    quotas = [
        "--limit",
        "room_burst=100000",
        "--limit",
        "connections_per_address=100000",
        "--limit",
        "analysis_burst=100000",
        "--limit",
        "analyses_per_minute=1000000",
        "--limit",
        "analysis_queue=100000",
    ]
    proc = subprocess.Popen(
        [*cmd, "serve", "--port", str(port), "--db", str(db), *quotas],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    end = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/lobby", timeout=1).read()
            return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > end:
                raise SystemExit(
                    f"server did not start: {proc.stderr.read().decode() if proc.stderr else ''}"
                ) from None
            time.sleep(0.1)


def post(port: int, path: str, body: dict) -> dict:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


# -- abusers (each in its own process) ----------------------------------------------------


async def _abuse(kind: str, port: int, rooms: list[str], stop_at: float, sent) -> None:
    url = f"ws://127.0.0.1:{port}/ws"
    frame = json.dumps({"type": "ping"}).ljust(4096)
    huge = "x" * (1 << 20)
    turn = 0
    while time.monotonic() < stop_at:
        turn += 1
        room = rooms[turn % len(rooms)]
        try:
            async with connect(url, max_size=None, open_timeout=5, close_timeout=1) as ws:
                if kind == "joins":
                    await ws.send(json.dumps({"type": "join", "room": room}))
                    await ws.recv()
                    sent[0] += 1
                    sent[1] += 1
                    continue
                sent[1] += 1
                while time.monotonic() < stop_at:
                    await ws.send(huge if kind == "huge" else frame)
                    sent[0] += 1
        except Exception:  # closed by the server: come back
            await asyncio.sleep(0)


def abuser(kind: str, port: int, rooms: list[str], seconds: float, sent) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # lowest CPU priority: abusers stand for other machines, so their own busy loops must not
    # take this machine's CPU from the server and the good client (what is measured is the
    # server's handling of their traffic)
    os.nice(19)
    asyncio.run(_abuse(kind, port, rooms, time.monotonic() + seconds, sent))


# -- the good client -------------------------------------------------------------------------


async def _until(ws, predicate) -> None:
    while True:
        msg = json.loads(await ws.recv())
        if msg.get("type") == "error":
            raise RuntimeError(msg)
        if msg.get("type") == "state" and predicate(msg["view"]):
            return


async def good_game(port: int, info: dict) -> list[float]:
    url = f"ws://127.0.0.1:{port}/ws"
    async with connect(url, open_timeout=60) as a, connect(url, open_timeout=60) as b:
        for ws, seat in zip((a, b), info["seats"], strict=True):
            await ws.send(json.dumps({"type": "join", "room": info["room"], "claim": seat["claim"]}))
            await _until(ws, lambda v: True)
        latencies = []
        for r in range(1, 14):
            await a.send(json.dumps({"type": "act", "action": {"bid": [r]}}))
            await _until(a, lambda v, r=r: v["players"][0]["has_bid"] or len(v["history"]) >= r)
            t0 = time.perf_counter()
            await b.send(json.dumps({"type": "act", "action": {"bid": [14 - r]}}))
            await asyncio.gather(
                _until(a, lambda v, r=r: len(v["history"]) >= r),
                _until(b, lambda v, r=r: len(v["history"]) >= r),
            )
            latencies.append((time.perf_counter() - t0) * 1000)
        return latencies


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def scenario(port: int, kind: str, n: int, games: int, creations: int) -> dict:
    good = [post(port, "/api/rooms", {"settings": {"cards": 13}, "listed": False}) for _ in range(games)]
    # join abusers cycle through the good games' rooms (spectator joins and leaves)
    sent = [mp.Array("d", 2, lock=False) for _ in range(n)]  # frames (joins) sent, connections opened
    procs = [mp.Process(target=abuser, args=(kind, port, [g["room"] for g in good], 600, c)) for c in sent]
    t_start = time.perf_counter()
    for p in procs:
        p.start()
    time.sleep(1.0 if n else 0)  # let the abuse get going
    reveal, create, failed = [], [], 0
    try:
        for info in good:
            try:
                reveal += asyncio.run(good_game(port, info))
            except Exception as exc:  # the good client could not play (refused, timed out, closed): counted
                failed += 1
                print(f"  good game failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        for _ in range(creations):
            t0 = time.perf_counter()
            post(port, "/api/rooms", {"settings": {"cards": 5}, "listed": False})
            create.append((time.perf_counter() - t0) * 1000)
    except OSError as exc:
        print(f"  room creation failed: {exc}", file=sys.stderr)
        create = create or [float("nan")]
    finally:
        seconds = time.perf_counter() - t_start
        for p in procs:
            p.terminate()
        for p in procs:
            p.join(5)
    reveal = reveal or [float("nan")]
    frames_s = sum(c[0] for c in sent) / seconds
    conns_s = sum(c[1] for c in sent) / seconds
    return {
        "kind": kind if n else "-",
        "abusers": n,
        "failed games": failed,
        "reveals": len(reveal),
        "p50": pct(reveal, 0.5),
        "p99": pct(reveal, 0.99),
        "max": max(reveal),
        "create p50": pct(create, 0.5),
        "create p99": pct(create, 0.99),
        "abuse msgs/s": round(frames_s),
        "abuse conns/s": round(conns_s),
    }


# -- analysis load (issue 24) ------------------------------------------------------------------


def analysis_load(port: int, rooms: list[str], concurrent: int, seconds: float, counts) -> None:
    """Keep ``concurrent`` analysis requests in flight (threads, each one request at a time) for
    at most ``seconds``; thread i asks for rooms i, i + concurrent, ... (bounded by len(rooms)
    rounds each). ``counts``: answers 200, 429, 503, other, and the seconds of the slowest."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stop_at = time.monotonic() + seconds
    lock = threading.Lock()

    def worker(i: int) -> None:
        for k in range(len(rooms)):
            if time.monotonic() > stop_at:
                return
            room = rooms[(i + k * concurrent) % len(rooms)]
            t0 = time.monotonic()
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/api/rooms/{room}/analysis", timeout=max(1.0, stop_at - t0)
                ) as r:
                    r.read()
                    status = r.status
            except urllib.error.HTTPError as exc:
                status = exc.code
            except OSError:  # timed out at the end of the window
                return
            with lock:
                counts[{200: 0, 429: 1, 503: 2}.get(status, 3)] += 1
                counts[4] = max(counts[4], time.monotonic() - t0)

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(concurrent)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, stop_at - time.monotonic()) + 1)


async def _view(ws, predicate) -> dict:
    while True:
        msg = json.loads(await ws.recv())
        if msg.get("type") == "error":
            raise RuntimeError(msg)
        if msg.get("type") == "state" and predicate(msg["view"]):
            return msg["view"]


async def bot_game(port: int, info: dict) -> list[float]:
    """Seat 0 of a room against a bot: bid the lowest card as soon as each round starts; the
    milliseconds from each bid to its reveal."""
    async with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=60) as ws:
        await ws.send(json.dumps({"type": "join", "room": info["room"], "claim": info["seats"][0]["claim"]}))
        view = await _view(ws, lambda v: True)
        latencies = []
        for r in range(1, 14):
            view = (
                await _view(ws, lambda v: v["phase"] == "bid" and v["my_bid"] is None)
                if view["my_bid"]
                else view
            )
            t0 = time.perf_counter()
            await ws.send(json.dumps({"type": "act", "action": {"bid": [min(view["hand"])]}}))
            view = await _view(ws, lambda v, r=r: len(v["history"]) >= r)
            latencies.append((time.perf_counter() - t0) * 1000)
        return latencies


def finished_games(port: int, n: int) -> list[str]:
    """``n`` rooms whose 13-card game two bots played to the end (bounded wait)."""
    rooms = [
        post(
            port,
            "/api/rooms",
            {"settings": {"cards": 13}, "listed": False, "seats": [{"bot": "random"}, {"bot": "heuristic"}]},
        )["room"]
        for _ in range(n)
    ]
    end = time.monotonic() + 120
    for room in rooms:
        while True:
            try:
                urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/api/rooms/{room}/record?game=1", timeout=10
                ).read()
                break
            except urllib.error.HTTPError:
                if time.monotonic() > end:
                    raise SystemExit("the all-bot games did not finish within 120 s") from None
                time.sleep(0.1)
    return rooms


def analysis_scenario(port: int, load: int, rooms: list[str], games: int, bot: str, seconds: float) -> dict:
    counts = mp.Array("d", 5, lock=False)
    proc = None
    if load:
        proc = mp.Process(target=analysis_load, args=(port, rooms, load, 600, counts))
        proc.start()
        time.sleep(1.0)  # let every request arrive and the solves start
    reveal, failed = [], 0
    t_start = time.perf_counter()
    played = 0
    try:
        # at least `games` games and `seconds` seconds (at most 10,000 games)
        while played < 10_000 and (played < games or time.perf_counter() - t_start < seconds):
            played += 1
            info = post(
                port,
                "/api/rooms",
                {"settings": {"cards": 13}, "listed": False, "seats": [{"name": "good"}, {"bot": bot}]},
            )
            try:
                reveal += asyncio.run(bot_game(port, info))
            except Exception as exc:  # the good client could not play: counted
                failed += 1
                print(f"  good game failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    finally:
        elapsed = time.perf_counter() - t_start
        if proc is not None:
            proc.terminate()
            proc.join(5)
    reveal = reveal or [float("nan")]
    return {
        "analyses in flight": load,
        "seconds": round(elapsed, 1),
        "good games": played,
        "analyses answered": int(counts[0]),
        "429": int(counts[1]),
        "503": int(counts[2]),
        "failed games": failed,
        "reveals": len(reveal),
        "p50": pct(reveal, 0.5),
        "p99": pct(reveal, 0.99),
        "max": max(reveal),
    }


def table(rows: list[dict], cols: list[str]) -> list[str]:
    ms = ("p50", "p99", "max", "create p50", "create p99")
    lines = ["| " + " | ".join(c + (" ms" if c in ms else "") for c in cols) + " |", "|" + "---|" * len(cols)]
    for row in rows:
        lines.append(
            "| "
            + " | ".join(f"{row[c]:.1f}" if isinstance(row[c], float) else str(row[c]) for c in cols)
            + " |"
        )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", choices=["all", "abuse", "analysis"], default="all")
    ap.add_argument("--abusers", type=int, nargs="+", default=[0, 2, 4])
    ap.add_argument(
        "--kinds", nargs="+", default=["frames", "huge", "joins"], choices=["frames", "huge", "joins"]
    )
    ap.add_argument("--games", type=int, default=4, help="good games per scenario (13 reveals each)")
    ap.add_argument("--creations", type=int, default=20, help="timed room creations per scenario")
    ap.add_argument("--analyses", type=int, default=50, help="analysis requests in flight at once")
    ap.add_argument(
        "--analysis-games", type=int, default=60, help="finished games the analysis requests ask for"
    )
    ap.add_argument("--bot", default="heuristic", help="the good client's opponent in the analysis suite")
    ap.add_argument(
        "--seconds",
        type=float,
        default=20.0,
        help="the analysis suite's good client plays at least this long per row",
    )
    ap.add_argument("--port", type=int, default=8799)
    ap.add_argument("--out", type=Path, default=None, help="also write the report (markdown) to this file")
    args = ap.parse_args()
    for name in ("games", "creations", "analyses", "analysis_games"):
        if getattr(args, name) < (0 if name == "creations" else 1):
            ap.error(f"--{name.replace('_', '-')} must be at least {0 if name == 'creations' else 1}")
    rows, analysis_rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(args.port, Path(tmp) / "abuse.sqlite3")
        try:
            if args.suite in ("all", "abuse"):
                for kind in args.kinds:
                    for n in args.abusers:
                        if n == 0 and kind != args.kinds[0]:
                            continue
                        rows.append(scenario(args.port, kind, n, args.games, args.creations))
                        print(f"  done: {rows[-1]['kind']} x{n}", file=sys.stderr)
            if args.suite in ("all", "analysis"):
                rooms = finished_games(args.port, args.analysis_games)
                for load in (0, args.analyses):  # the reference row first: nothing cached yet either way
                    analysis_rows.append(
                        analysis_scenario(args.port, load, rooms, args.games, args.bot, args.seconds)
                    )
                    print(f"  done: {load} analyses", file=sys.stderr)
        finally:
            proc.terminate()
            proc.wait(10)
    cpus = os.cpu_count()
    out = [
        f"`python bench/server_abuse.py {' '.join(sys.argv[1:])}`, {time.strftime('%Y-%m-%d %H:%M')}, loopback, "
        f"{cpus} CPUs shared by all, load average {os.getloadavg()[0]:.1f} at the end",
        "",
    ]
    if rows:
        out.append(
            f"cardtable server under abuse: one good 13-card game at a time (both seats, no think time), "
            f"{args.games} games and {args.creations} room creations per row"
        )
        out.append("")
        out += table(
            rows,
            [
                "kind",
                "abusers",
                "abuse msgs/s",
                "abuse conns/s",
                "failed games",
                "reveals",
                "p50",
                "p99",
                "max",
                "create p50",
                "create p99",
            ],
        )
        worst = max((r["p99"] for r in rows if r["abusers"] == max(args.abusers)), default=0.0)
        out.append("")
        out.append(
            f"target: reveal p99 < 100 ms with {max(args.abusers)} abusers: "
            f"{'met' if worst < 100 else 'NOT met'} (worst {worst:.1f} ms)"
        )
        out.append("")
    if analysis_rows:
        out.append(
            f"cardtable server under analysis load: good 13-card games (at least {args.games}, for at least "
            f"{args.seconds:g} s per row) against the {args.bot} bot (one seat, bids at once); "
            f"{args.analyses} concurrent analysis requests over "
            f"{args.analysis_games} finished 13-card games; quota and bound on analyses raised"
        )
        out.append("")
        out += table(
            analysis_rows,
            [
                "analyses in flight",
                "seconds",
                "good games",
                "analyses answered",
                "429",
                "503",
                "failed games",
                "reveals",
                "p50",
                "p99",
                "max",
            ],
        )
        loaded = analysis_rows[-1]["p99"]
        out.append("")
        out.append(
            f"target: reveal p99 < 500 ms with {args.analyses} analyses in flight: "
            f"{'met' if loaded < 500 else 'NOT met'} ({loaded:.1f} ms)"
        )
    text = "\n".join(out)
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
