"""Issue 24, section 6: no anonymous request can stall other players.

- room bots run in their own pool with a deadline; a bot that raises, answers an
  illegal bid or hangs is replaced by a random legal action and the game goes on;
- analyses run in their own bounded pool, one solve per game however many ask,
  cached, with a per-address quota (429) and a bound on games in flight (503);
- every error answer is ``{"error": ...}`` (unmatched routes and methods included),
  and no answer echoes more than 64 characters of an id or path.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time

import pytest
from web_helpers import create_room, join

from cardtable.web import coach
from cardtable.web.coach import Analyses, AnalysisBusy
from cardtable.web.errors import QuotaError
from cardtable.web.limits import Limits

#: the analyses' pool in threads, so that a monkeypatched solve counts in this process
#: (the server's default pool is worker processes, used by the quota test and test_web_coach.py)
THREADS = concurrent.futures.ThreadPoolExecutor


def _until(predicate, what: str, timeout: float = 20.0) -> None:
    """Poll ``predicate`` (a failure bound for the test, not a timing assertion)."""
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _auto_events(client, room: str) -> list[tuple[int, int, object]]:
    """``(game, seat, payload)`` of the actions played for a seat (``auto`` in the event log)."""
    store = client.app.state.hub.store
    return [(e.game_no, e.seat, e.payload) for e in store.events(room) if e.kind == "act" and e.auto]


# -- bots: a deadline and a fallback ----------------------------------------------------------


class _Raises:
    calls = 0

    def act(self, view):
        self.calls += 1
        raise RuntimeError("this bot is broken")


class _Illegal:
    calls = 0

    def act(self, view):
        self.calls += 1
        return 99  # not a card of any hand


class _Hangs:
    def __init__(self) -> None:
        self.calls = 0
        self.release = threading.Event()

    def act(self, view):
        self.calls += 1
        self.release.wait(60)  # released at the end of the test: a thread cannot be stopped
        return min(view.hand)


def _play_against(client, bot_factory, **limits):
    """A 4-card game, a person (seat 0) against a random bot whose instance is replaced by
    ``bot_factory()`` once it has bid in the first round; the person bids her lowest card each round.
    Returns ``(room id, the replacement bot, the person's socket)``."""
    info = create_room(
        client, settings={"cards": 4}, seats=[{"name": "Ann"}, {"bot": "random"}], listed=False
    )
    room_id = info["room"]
    ws = join(client, room_id, info["seats"][0]["claim"])
    room = client.app.state.hub.rooms[room_id]
    ws.wait_for(lambda s: s["view"]["players"][1]["has_bid"])  # the real bot's first bid is in
    bot = bot_factory()
    room.bots[1] = bot
    state = ws.state()
    while state["view"]["phase"] != "over":
        view = state["view"]
        if view["my_bid"] is None:
            ws.request({"type": "act", "action": {"bid": [min(view["hand"])]}})
        state = ws.wait_for(lambda s, r=view["round"]: s["view"]["phase"] == "over" or s["view"]["round"] > r)
    return room_id, bot, ws


@pytest.mark.parametrize("factory, words", [(_Raises, "failed"), (_Illegal, "illegal action")])
def test_a_bot_that_raises_or_bids_illegally_is_replaced_by_a_random_legal_bid(
    make_client, caplog, factory, words
):
    client = make_client()
    with caplog.at_level(logging.WARNING, logger="cardtable.web"):
        room_id, bot, ws = _play_against(client, factory)
    state = ws.state()
    assert state["view"]["phase"] == "over" and len(state["view"]["history"]) == 4
    assert bot.calls == 3  # asked every round after the first (one failure does not retire a bot)
    auto = _auto_events(client, room_id)
    assert [(g, s) for g, s, _ in auto] == [(1, 1)] * 3  # the fallback's bids, marked auto
    bids = [tuple(p["bid"]) for _, _, p in auto]
    assert len(set(bids)) == 3 and all(
        len(b) == 1 and 1 <= b[0] <= 4 for b in bids
    )  # legal: three distinct cards
    assert any(words in r.getMessage() and "random legal action" in r.getMessage() for r in caplog.records)


def test_a_bot_that_hangs_is_retired_after_its_deadline_and_the_game_goes_on(make_client, caplog):
    client = make_client(limits=Limits(bot_deadline=2.0))  # the real bot's first bid must beat it
    hung = []

    def factory():
        hung.append(_Hangs())
        return hung[-1]

    try:
        with caplog.at_level(logging.WARNING, logger="cardtable.web"):
            room_id, bot, ws = _play_against(client, factory)
        state = ws.state()
        assert state["view"]["phase"] == "over" and len(state["view"]["history"]) == 4
        assert (
            bot.calls == 1
        )  # retired after its deadline: never asked again this game (its thread still runs)
        assert [(g, s) for g, s, _ in _auto_events(client, room_id)] == [(1, 1)] * 3
        assert any("bot_deadline" in r.getMessage() for r in caplog.records)
        room = client.app.state.hub.rooms[room_id]
        assert room.retired == {1}
        ws.request({"type": "next"})  # the next game gets a fresh bot, no longer retired
        assert room.retired == set() and room.bots[1] is not bot and ws.state()["game_no"] == 2
    finally:
        for b in hung:
            b.release.set()


def test_bots_have_their_own_pool_and_do_not_wait_behind_analyses(make_client, monkeypatch):
    """Eight analyses blocked in the analysis pool (one worker); a game against a bot still
    plays to its end. Before, both shared asyncio's default pool of six threads."""
    gate = threading.Event()

    def blocked(state, names):
        gate.wait(60)
        return {"hints": False}

    monkeypatch.setattr(coach, "analyse_state", blocked)
    client = make_client(limits=Limits(analysis_queue=20, analysis_burst=20), analysis_executor=THREADS)
    finished = []
    for _ in range(8):  # one-card games between two bots finish by themselves
        info = create_room(client, settings={"cards": 1}, seats=[{"bot": "random"}, {"bot": "random"}])
        finished.append(info["room"])
    for r in finished:
        _until(lambda r=r: client.get(f"/api/rooms/{r}/record?game=1").status_code == 200, "an all-bot game")
    analyses = client.app.state.analyses
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        try:
            answers = [pool.submit(client.get, f"/api/rooms/{r}/analysis?game=1") for r in finished]
            _until(lambda: len(analyses.inflight) == 8, "eight analyses in flight")
            _, _, ws = _play_against(client, _Raises)  # any bot: the point is the pool
            assert ws.state()["view"]["phase"] == "over"
            assert len(analyses.inflight) == 8  # all still blocked while the game was played
        finally:
            gate.set()
        assert [a.result().status_code for a in answers] == [200] * 8


# -- analyses: single flight, cache, quota, bound -------------------------------------------------


def _finished_bot_game(client) -> str:
    room = create_room(client, settings={"cards": 3}, seats=[{"bot": "random"}, {"bot": "heuristic"}])["room"]
    _until(lambda: client.get(f"/api/rooms/{room}/record?game=1").status_code == 200, "an all-bot game")
    return room


def test_concurrent_identical_analysis_requests_start_one_solve(make_client, monkeypatch):
    solves = []
    gate = threading.Event()
    real = coach.analyse_state

    def counted(state, names):
        solves.append(names)
        gate.wait(60)
        return real(state, names)

    arrived = []
    real_get = Analyses.get

    async def counting_get(self, *args):
        arrived.append(args[0])
        return await real_get(self, *args)

    monkeypatch.setattr(coach, "analyse_state", counted)
    monkeypatch.setattr(Analyses, "get", counting_get)
    client = make_client(limits=Limits(analysis_burst=10), analysis_executor=THREADS)
    room = _finished_bot_game(client)
    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        try:
            answers = [pool.submit(client.get, f"/api/rooms/{room}/analysis?game=1") for _ in range(10)]
            _until(lambda: len(arrived) == 10, "ten requests waiting")
        finally:
            gate.set()
        bodies = [a.result() for a in answers]
    assert [b.status_code for b in bodies] == [200] * 10
    assert len(solves) == 1  # one solve, ten answers
    assert all(b.json() == bodies[0].json() for b in bodies) and bodies[0].json()["game"] == 1
    for _ in range(20):  # from the cache now: neither a solve nor the quota (ten tokens are spent)
        assert client.get(f"/api/rooms/{room}/analysis").status_code == 200
    assert len(solves) == 1


def test_analysis_quota_per_address_answers_429(make_client):
    # a 3-player game: the solver (in the default worker process) refuses it (400), nothing is
    # cached, every request costs a token
    client = make_client(limits=Limits(analysis_burst=2, analyses_per_minute=1))
    room = create_room(
        client,
        settings={"cards": 2, "players": 3},
        seats=[{"bot": "random"}, {"bot": "random"}, {"bot": "random"}],
    )["room"]
    _until(lambda: client.get(f"/api/rooms/{room}/record?game=1").status_code == 200, "an all-bot game")
    assert [client.get(f"/api/rooms/{room}/analysis").status_code for _ in range(2)] == [400, 400]
    r = client.get(f"/api/rooms/{room}/analysis")
    assert r.status_code == 429 and set(r.json()) == {"error"}, r.text
    assert "too many analyses" in r.json()["error"] and int(r.headers["retry-after"]) >= 1
    assert (
        client.get("/api/rooms/nope/analysis").status_code == 404
    )  # a refusal before any solve costs nothing


def test_analyses_unit_single_flight_busy_bound_cache_and_errors(monkeypatch):
    solves = []
    gate = threading.Event()

    def fake(state, names):
        solves.append(state)
        gate.wait(10)
        if state == "bad":
            raise ValueError("the solver does not cover this ruleset")
        return {"state": state}

    monkeypatch.setattr(coach, "analyse_state", fake)

    async def scenario():
        a = Analyses(Limits(analysis_queue=1, analysis_burst=100), cache_size=1, executor=THREADS)
        try:
            first = [asyncio.ensure_future(a.get(("r", 1), "s1", [], "x")) for _ in range(5)]
            await asyncio.sleep(0)
            with pytest.raises(AnalysisBusy):  # one game in flight fills a queue of one
                await a.get(("r", 2), "s2", [], "x")
            gate.set()
            got = await asyncio.gather(*first)
            assert got == [{"state": "s1", "game": 1}] * 5 and solves == ["s1"]
            assert await a.get(("r", 2), "s2", [], "x") == {"state": "s2", "game": 2}
            assert list(a.cache) == [("r", 2)]  # a cache of one: game 1 was dropped
            await a.get(("r", 1), "s1", [], "x")
            assert solves == ["s1", "s2", "s1"]
            for _ in range(2):  # an error reaches the caller and is not kept
                with pytest.raises(ValueError, match="does not cover"):
                    await a.get(("r", 3), "bad", [], "x")
            assert solves.count("bad") == 2 and a.inflight == {}
        finally:
            a.close()

    asyncio.run(scenario())


def test_analysis_quota_unit_refuses_before_anything_starts(monkeypatch):
    monkeypatch.setattr(coach, "analyse_state", lambda state, names: {"state": state})

    async def scenario():
        a = Analyses(Limits(analysis_burst=1, analyses_per_minute=6), executor=THREADS)
        try:
            await a.get(("r", 1), "s1", [], "addr")
            with pytest.raises(QuotaError) as refused:
                await a.get(("r", 2), "s2", [], "addr")
            assert not isinstance(refused.value, AnalysisBusy) and 1 <= refused.value.retry_after <= 10
            assert a.inflight == {} and list(a.cache) == [("r", 1)]
            assert await a.get(("r", 2), "s2", [], "other") == {"state": "s2", "game": 2}  # per address
        finally:
            a.close()

    asyncio.run(scenario())


# -- error answers --------------------------------------------------------------------------------


def test_unmatched_routes_and_methods_answer_the_error_shape(make_client):
    client = make_client()
    r = client.get("/nope")
    assert (r.status_code, r.json()) == (404, {"error": "no such page: GET '/nope'"})
    r = client.get("/static/no-such-file.js")
    assert r.status_code == 404 and set(r.json()) == {"error"}
    r = client.post("/api/lobby")
    assert (r.status_code, r.json()) == (405, {"error": "method not allowed: POST '/api/lobby'"})
    assert "GET" in r.headers["allow"]
    r = client.get("/api/rooms")  # POST only
    assert r.status_code == 405 and set(r.json()) == {"error"}
    r = client.post("/api/rooms/x/seats/not-a-number/invite", json={"owner": "k"})
    assert r.status_code == 400 and set(r.json()) == {"error"} and "seat" in r.json()["error"]


def test_pages_answer_head_as_get_without_a_body(make_client):
    # monitors and link checkers ask HEAD; the pages said 405 before
    client = make_client()
    info = client.post("/api/rooms", json={"seats": [{}, {"bot": "random"}]}).json()
    for path in ("/", f"/play/{info['room']}", "/replay", "/explorer"):
        got, head = client.get(path), client.head(path)
        assert (head.status_code, head.content) == (200, b""), path
        assert head.headers["content-type"] == got.headers["content-type"] == "text/html; charset=utf-8"
        assert head.headers["content-length"] == str(len(got.content))
    assert client.head("/play/nosuchroom").status_code == 404


def test_long_ids_are_cut_in_every_error_answer(make_client):
    client = make_client()
    long_id = "r" * 5000
    for path in (
        f"/api/rooms/{long_id}/analysis",
        f"/analysis/{long_id}",
        f"/play/{long_id}",
        f"/api/rooms/{long_id}/record",
        f"/{long_id}",
        f"/api/rooms/{long_id}/nothing-here",
    ):
        r = client.get(path)
        assert r.status_code == 404, (path[:80], r.status_code)
        text = r.json()["error"]
        assert set(r.json()) == {"error"} and len(text) < 140 and "(5" in text and "characters)" in text, text
    r = client.post(f"/api/rooms/{long_id}/join")  # answers without echoing the id
    assert r.status_code == 404 and len(r.json()["error"]) < 140


def test_a_queued_analysis_nobody_waits_for_any_more_is_dropped(monkeypatch):
    solves = []
    gate = threading.Event()

    def fake(state, names):
        solves.append(state)
        gate.wait(10)
        return {"state": state}

    monkeypatch.setattr(coach, "analyse_state", fake)

    async def scenario():
        a = Analyses(Limits(analysis_workers=1, analysis_burst=100), executor=THREADS)
        try:
            running = asyncio.ensure_future(a.get(("r", 1), "s1", [], "x"))
            queued = [asyncio.ensure_future(a.get(("r", 2), "s2", [], "x")) for _ in range(2)]
            for _ in range(2000):  # until s1 has started in the only worker; s2 waits behind it
                if solves:
                    break
                await asyncio.sleep(0.01)
            queued[0].cancel()  # one of two waiters leaves: the solve stays
            await asyncio.sleep(0)
            assert ("r", 2) in a.inflight
            queued[1].cancel()  # the last one leaves: the solve, not started, is dropped
            running.cancel()  # started: it finishes and is cached all the same
            await asyncio.sleep(0)
            gate.set()
            for _ in range(2000):
                if not a.inflight:
                    break
                await asyncio.sleep(0.01)
            assert solves == ["s1"] and list(a.cache) == [("r", 1)]
        finally:
            a.close()

    asyncio.run(scenario())


def test_a_client_that_hangs_up_drops_its_queued_analysis(live_server, monkeypatch):
    """Against real uvicorn: the route notices the closed connection and stops waiting, and the
    solve nobody waits for any more never runs."""
    import socket

    import httpx

    solves = []
    gate = threading.Event()

    def blocked(state, names):
        solves.append(state)
        gate.wait(60)
        return {"hints": False}

    monkeypatch.setattr(coach, "analyse_state", blocked)
    server = live_server(limits=Limits(analysis_burst=50), analysis_executor=THREADS)
    analyses = server.app.state.analyses
    rooms = [
        httpx.post(
            server.url + "/api/rooms",
            json={"settings": {"cards": 3}, "seats": [{"bot": "random"}, {"bot": "random"}]},
        ).json()["room"]
        for _ in range(2)
    ]
    for r in rooms:
        _until(
            lambda r=r: httpx.get(f"{server.url}/api/rooms/{r}/record?game=1").status_code == 200,
            "a bot game",
        )
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        try:
            first = pool.submit(httpx.get, f"{server.url}/api/rooms/{rooms[0]}/analysis", timeout=60)
            _until(lambda: solves, "the first solve running")
            with socket.create_connection(("127.0.0.1", server.port)) as s:
                s.sendall(f"GET /api/rooms/{rooms[1]}/analysis HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                _until(lambda: (rooms[1], 1) in analyses.inflight, "the second analysis queued")
            _until(lambda: (rooms[1], 1) not in analyses.inflight, "the hung-up request's solve dropped")
        finally:
            gate.set()
        assert first.result().status_code == 200
    assert len(solves) == 1 and list(analyses.cache) == [(rooms[0], 1)]


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n",
        b"NOT A REQUEST\r\n\r\n",
    ],
)
def test_a_malformed_http_request_is_answered_and_not_logged(live_server, request_bytes):
    """A helper's finding: uvicorn logged ``WARNING: Invalid HTTP request received.`` for a
    malformed request; bad input is answered (400) and writes nothing to the log."""
    import socket

    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    server = live_server(db_path=":memory:")
    logger = logging.getLogger("uvicorn.error")
    keep = Keep()
    logger.addHandler(keep)  # after the logger's filters, as uvicorn's own handler
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(request_bytes)
            answer = s.recv(4096)
    finally:
        logger.removeHandler(keep)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:80]
    assert not [m for m in seen if "Invalid HTTP" in m], seen
