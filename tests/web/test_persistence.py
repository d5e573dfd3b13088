"""Nothing is lost: every acknowledged action survives a killed server, and a
restarted server resumes every game exactly where it was (event-log replay)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import httpx
from web_helpers import CLAIMS, create_room, credential, free_port, join, remember, seeds
from websockets.sync.client import connect

from cardtable.goofspiel import Game, Ruleset


def test_restart_in_process_restores_every_view(make_client, tmp_path):
    db = tmp_path / "restart.sqlite3"
    c1 = make_client(db=db, seed_factory=seeds("r-seed"))
    info = create_room(c1, settings={"cards": 6, "players": 3, "unique_bids": True}, timer=0)
    tokens = [s["claim"] for s in info["seats"]]
    socks = [join(c1, info["room"], t) for t in tokens]
    for bids in [(6, 5, 4), (1, 2, 3)]:
        for ws, bid in zip(socks, bids, strict=True):
            ws.request({"type": "act", "action": {"bid": [bid]}})
    socks[1].request({"type": "act", "action": {"bid": [6]}})  # a pending bid of round 3
    before = [(ws.sync(), ws.state())[1] for ws in socks]
    for ws in socks:
        ws.close()
    c1.__exit__(None, None, None)

    c2 = make_client(db=db, seed_factory=seeds("unused"))
    after = [join(c2, info["room"], t).state() for t in tokens]
    for b, a in zip(before, after, strict=True):
        assert a["view"] == b["view"] and a["version"] == b["version"] and a["match"] == b["match"]
    assert after[1]["view"]["my_bid"] == [6] and after[0]["view"]["my_bid"] is None
    assert after[0]["view"]["players"][1]["has_bid"] is True


def _cardtable_cmd() -> list[str]:
    exe = shutil.which("cardtable")
    return [exe] if exe else [sys.executable, "-c", "from cardtable.cli import main; main()"]


def _start(port: int, db) -> subprocess.Popen:
    proc = subprocess.Popen(
        [*_cardtable_cmd(), "serve", "--port", str(port), "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    end = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/lobby", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stderr.read().decode()}")
        if time.monotonic() > end:
            proc.kill()
            raise AssertionError("server did not start")
        time.sleep(0.1)


class Player:
    def __init__(self, port: int, room: str, token: str) -> None:
        self.cm = connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10)
        self.ws = self.cm.__enter__()
        self.n = 0
        self.last = None
        self.acks = []
        self.claim = token
        self.request({"type": "join", "room": room, **credential(token)})

    def request(self, message: dict) -> None:
        self.n += 1
        ref = f"r{self.n}"
        self.ws.send(json.dumps({**message, "ref": ref}))
        if message["type"] != "ping":
            self.ws.send(json.dumps({"type": "ping", "ref": ref + "p"}))
            ref += "p"
        while True:
            msg = json.loads(self.ws.recv(timeout=10))
            if msg["type"] == "state":
                self.last = msg
            if msg["type"] == "ack":
                self.acks.append(msg["ref"])
            if msg["type"] == "welcome":
                remember(self.claim, [msg])
            assert msg["type"] != "error", msg
            if msg["type"] == "pong" and msg["ref"] == ref:
                return

    def wait(self, predicate, timeout: float = 20.0) -> None:
        end = time.monotonic() + timeout
        while not predicate(self.last["view"]):
            assert time.monotonic() < end, self.last["view"]
            time.sleep(0.02)
            self.request({"type": "ping"})

    def bid(self, card: int) -> None:
        self.request({"type": "act", "action": {"bid": [card]}})

    def close(self) -> None:
        try:
            self.cm.__exit__(None, None, None)
        except Exception:
            pass


def test_sigkill_mid_game_and_restart(tmp_path):
    port, db = free_port(), tmp_path / "kill.sqlite3"
    bids_a = [13, 1, 12, 2, 11, 3, 10, 4, 9, 5, 8, 6, 7]
    bids_b = [1, 13, 2, 12, 3, 11, 4, 10, 5, 9, 6, 8, 7]
    proc = _start(port, db)
    try:
        base = f"http://127.0.0.1:{port}"
        info = httpx.post(base + "/api/rooms", json={"settings": {"cards": 13}}).json()
        bot_room = httpx.post(
            base + "/api/rooms", json={"settings": {"cards": 13}, "seats": [{}, {"bot": "heuristic"}]}
        ).json()
        room, tokens = info["room"], [s["claim"] for s in info["seats"]]
        CLAIMS.update(tokens + [bot_room["seats"][0]["claim"]])
        a, b = Player(port, room, tokens[0]), Player(port, room, tokens[1])
        for r in range(6):
            a.bid(bids_a[r])
            b.bid(bids_b[r])
        a.bid(bids_a[6])  # acknowledged, pending: the other bid of round 7 is not in
        assert a.acks[-1] == f"r{a.n}"
        b.request({"type": "ping"})
        h = Player(port, bot_room["room"], bot_room["seats"][0]["claim"])
        for r in range(4):
            h.wait(lambda v: v["players"][1]["has_bid"])  # the bot bids in a worker thread
            h.bid(r + 1)
        h.wait(lambda v: v["round"] == 5 and v["players"][1]["has_bid"])
        before = (a.last, b.last, h.last)
        assert before[0]["view"]["my_bid"] == [bids_a[6]] and before[0]["view"]["round"] == 7
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    for p in (a, b, h):
        p.close()

    proc = _start(port, db)
    try:
        a, b = Player(port, room, tokens[0]), Player(port, room, tokens[1])
        h = Player(port, bot_room["room"], bot_room["seats"][0]["claim"])
        h.request({"type": "ping"})
        for old, new in zip(before, (a.last, b.last, h.last), strict=True):
            assert new["view"] == old["view"]
            assert new["version"] == old["version"] and new["game_no"] == old["game_no"]
        b.bid(bids_b[6])
        for r in range(7, 13):
            a.bid(bids_a[r])
            b.bid(bids_b[r])
        a.request({"type": "ping"})
        for r in range(4, 13):
            h.wait(lambda v: v["players"][1]["has_bid"])
            h.bid(r + 1)
        h.request({"type": "ping"})
        final = a.last["view"]
        assert final["phase"] == "over" and h.last["view"]["phase"] == "over"
        # the same bids on a fresh engine with the revealed seed give the identical game
        game = Game(Ruleset(cards=13), seed=final["seed"])
        for x, y in zip(bids_a, bids_b, strict=True):
            game.play([x, y])
        assert final["result"]["points"] == list(game.points)
        assert [r["bids"] for r in final["history"]] == [
            [[x], [y]] for x, y in zip(bids_a, bids_b, strict=True)
        ]
        assert [r["prizes"] for r in final["history"]] == [list(r.prizes) for r in game.history]
        assert final["fairness"]["commit_ok"] and final["fairness"]["order_ok"]
        assert final["seed_commit"] == info["commit"]  # the commitment published at creation
        record = httpx.get(f"http://127.0.0.1:{port}/api/rooms/{room}/record").text
        assert f'[SeedCommit "{info["commit"]}"]' in record
    finally:
        for p in (a, b, h):
            p.close()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
