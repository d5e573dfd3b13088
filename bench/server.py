"""Benchmark of the web server: N concurrent Goofspiel games over WebSockets on loopback.

Starts ``cardtable serve`` in a subprocess (its own SQLite file), creates N
rooms, connects two simulated players to each, and plays every game to the
end at the same time. Each player waits a random think time (uniform 0..2x
``--think`` seconds) before each bid, so the load resembles people playing;
``--think 0`` measures raw throughput instead.

Printed: games held (all finished), bids per second during play, the latency
from the last bid of a round to the reveal arriving at *both* clients (p50,
p99, max), and the server's memory (resident set after connecting, and peak).

    python bench/server.py --games 50
    python bench/server.py --games 500 --think 1.0

The clients run in this process and share the CPU with the server: on a small
machine the client side costs about as much as the server.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process in KiB, from /proc (Linux)."""
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0])
    return values.get("VmRSS", 0), values.get("VmHWM", 0)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc (Linux)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(port: int, db: Path) -> subprocess.Popen:
    exe = shutil.which("cardtable")
    cmd = [exe] if exe else [sys.executable, "-c", "from cardtable.cli import main; main()"]
    # one address (loopback) plays every game: lift the per-address quotas (docs/web.md, Limits)
    quotas = ["--limit", "room_burst=100000", "--limit", "connections_per_address=100000"]
    proc = subprocess.Popen(
        [*cmd, "serve", "--port", str(port), "--db", str(db), *quotas],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    import urllib.request

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


async def http_post(port: int, path: str, body: dict) -> dict:
    """A minimal HTTP/1.1 POST over asyncio streams (keeps the bench free of extra clients)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode()
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode()
        + data
    )
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, payload = raw.partition(b"\r\n\r\n")
    if b" 200 " not in head.split(b"\r\n")[0]:
        raise RuntimeError(head.decode(errors="replace"))
    return json.loads(payload)


class Player:
    def __init__(self, ws) -> None:
        self.ws = ws

    async def until(self, predicate) -> float:
        """Read messages until a state satisfies ``predicate``; returns the arrival time."""
        while True:
            msg = json.loads(await self.ws.recv())
            if msg.get("type") == "error":
                raise RuntimeError(msg)
            if msg.get("type") == "state" and predicate(msg["view"]):
                return time.perf_counter()


async def play_game(
    port: int, cards: int, think: float, start: asyncio.Event, stats: dict, rng: random.Random
):
    from websockets.asyncio.client import connect

    info = await http_post(port, "/api/rooms", {"settings": {"cards": cards}, "listed": False})
    url = f"ws://127.0.0.1:{port}/ws"
    async with connect(url, max_size=1 << 20) as wa, connect(url, max_size=1 << 20) as wb:
        players = [Player(wa), Player(wb)]
        for p, seat in zip(players, info["seats"], strict=True):
            await p.ws.send(json.dumps({"type": "join", "room": info["room"], "claim": seat["claim"]}))
            await p.until(lambda v: True)
        stats["held"] += 1
        await start.wait()
        hands = [list(range(1, cards + 1)), list(range(1, cards + 1))]
        for h in hands:
            rng.shuffle(h)
        for r in range(1, cards + 1):
            sent = [0.0, 0.0]

            # r and sent bound now (each move is awaited within this round)
            async def move(i: int, r: int = r, sent: list[float] = sent) -> float:
                await asyncio.sleep(rng.uniform(0, 2 * think) if think else 0)
                sent[i] = time.perf_counter()
                await players[i].ws.send(json.dumps({"type": "act", "action": {"bid": [hands[i][r - 1]]}}))
                return await players[i].until(lambda v, r=r: len(v["history"]) >= r)

            arrivals = await asyncio.gather(move(0), move(1))
            stats["latency"].append(max(arrivals) - max(sent))
            stats["bids"] += 2
        stats["finished"] += 1


async def run(args) -> dict:
    port = args.port or free_port()
    tmp = Path(tempfile.mkdtemp(prefix="cardtable-bench-"))
    proc = start_server(port, tmp / "bench.sqlite3")
    stats = {"held": 0, "finished": 0, "bids": 0, "latency": []}
    try:
        rss0, _ = rss_kib(proc.pid)
        start = asyncio.Event()
        rng = random.Random(args.seed)
        sem = asyncio.Semaphore(50)  # connect in waves

        async def one(i: int):
            async with sem:
                pass
            await play_game(port, args.cards, args.think, start, stats, random.Random(rng.random()))

        t0 = time.perf_counter()
        tasks = [asyncio.create_task(one(i)) for i in range(args.games)]
        while stats["held"] < args.games:
            await asyncio.sleep(0.05)
            for t in tasks:
                if t.done() and t.exception():
                    raise t.exception()
        connect_s = time.perf_counter() - t0
        rss_connected, _ = rss_kib(proc.pid)
        if args.client_gc == "frozen":  # keep the clients' own GC pauses out of the latency
            gc.collect()
            gc.freeze()
        t1 = time.perf_counter()
        cpu1 = cpu_seconds(proc.pid)
        own1 = time.process_time()
        start.set()
        await asyncio.gather(*tasks)
        play_s = time.perf_counter() - t1
        server_cpu = cpu_seconds(proc.pid) - cpu1
        client_cpu = time.process_time() - own1
        rss_end, hwm = rss_kib(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    lat = sorted(stats["latency"])
    q = statistics.quantiles(lat, n=100) if len(lat) > 1 else [lat[0]] * 99
    return {
        "games": args.games,
        "think": args.think,
        "held": stats["held"],
        "finished": stats["finished"],
        "connect_s": connect_s,
        "play_s": play_s,
        "bids_per_s": stats["bids"] / play_s,
        "cpu_us_per_bid": server_cpu / max(1, stats["bids"]) * 1e6,
        "cpu_share": server_cpu / play_s,
        "client_share": client_cpu / play_s,
        "p50_ms": q[49] * 1000,
        "p99_ms": q[98] * 1000,
        "max_ms": lat[-1] * 1000,
        "rss0_mib": rss0 / 1024,
        "rss_mib": rss_connected / 1024,
        "rss_end_mib": rss_end / 1024,
        "hwm_mib": hwm / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", type=int, nargs="+", default=[50], help="concurrent games (several: one run each)"
    )
    parser.add_argument("--cards", type=int, default=13)
    parser.add_argument(
        "--think", type=float, default=1.0, help="mean think time per bid, seconds (0: flat out)"
    )
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--client-gc",
        choices=["frozen", "default"],
        default="frozen",
        help="freeze the clients' long-lived objects before play (default) or not",
    )
    args = parser.parse_args()
    rows = []
    for n in args.games:
        one = argparse.Namespace(**{**vars(args), "games": n})
        rows.append(asyncio.run(run(one)))
    print(
        f"cardtable web bench: {args.cards}-card games, 2 simulated players each, think time "
        f"uniform 0..{2 * args.think:g} s, loopback, {os.cpu_count()} CPUs shared with the clients"
    )
    header = (
        "games",
        "held",
        "finished",
        "bids/s",
        "p50 ms",
        "p99 ms",
        "max ms",
        "RSS idle MiB",
        "RSS held MiB",
        "peak MiB",
        "play s",
        "srv CPU %",
        "srv us/bid",
        "clients CPU %",
    )
    print(" | ".join(f"{h:>12}" for h in header))
    for r in rows:
        cells = (
            r["games"],
            r["held"],
            r["finished"],
            f"{r['bids_per_s']:.0f}",
            f"{r['p50_ms']:.1f}",
            f"{r['p99_ms']:.1f}",
            f"{r['max_ms']:.1f}",
            f"{r['rss0_mib']:.0f}",
            f"{r['rss_mib']:.0f}",
            f"{r['hwm_mib']:.0f}",
            f"{r['play_s']:.1f}",
            f"{100 * r['cpu_share']:.0f}",
            f"{r['cpu_us_per_bid']:.0f}",
            f"{100 * r['client_share']:.0f}",
        )
        print(" | ".join(f"{c:>12}" for c in cells))


if __name__ == "__main__":
    main()
