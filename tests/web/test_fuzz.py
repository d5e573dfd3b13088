"""Fuzz tests (issue 9, section 6): the WebSocket message handler and the HTTP creation
endpoint of a real in-process server (uvicorn on loopback, in a thread), fed by Hypothesis.

Property: every input gets a result or the documented error (an ``error`` frame with a
documented code; HTTP 200, 400, 413 or 429 with ``{"error": text}``), never another
status, never a closed connection, never a log record at WARNING or above, and the
server keeps serving a well-behaved player. Each test is bounded (examples and time).
"""

from __future__ import annotations

import json
import logging

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardtable.web.limits import Limits

ERROR_CODES = {
    "bad_json",
    "bad_message",
    "unknown_type",
    "too_large",
    "rate_limited",
    "not_joined",
    "already_joined",
    "bad_token",
    "bad_claim",
    "no_room",
    "forbidden",
    "bad_action",
    "illegal",
    "already_acted",
    "wrong_phase",
    "not_your_turn",
    "game_over",
}
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
words = st.sampled_from(
    [
        "join",
        "act",
        "next",
        "ping",
        "room",
        "token",
        "claim",
        "action",
        "ref",
        "seat",
        "bid",
        "choose",
        "type",
        "draw",
        "swap",
        "pos",
        "settings",
        "seats",
        "game",
        "golf",
        "goofspiel",
        "match",
        "timer",
        "listed",
        "name",
        "bot",
        "cards",
        "values",
        "games",
        "random",
    ]
)


def messages(room: str):
    """Mostly well-formed envelopes with odd fields, plus random JSON and random text."""
    envelope = st.fixed_dictionaries(
        {"type": st.sampled_from(["join", "act", "next", "ping", "pong", ""]) | st.text(max_size=5)},
        optional={
            "room": st.just(room) | st.text(max_size=10) | json_values,
            "token": json_values,
            "claim": json_values,
            "action": json_values | st.dictionaries(words, json_values, max_size=3),
            "ref": json_values,
            "seat": json_values,
        },
    ).map(json.dumps)
    return envelope | json_values.map(json.dumps) | st.text(max_size=200) | st.binary(max_size=100)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from web_helpers import LiveServer

    from cardtable.web.app import create_app

    limits = Limits(rate=10_000, burst=10_000, room_burst=100_000, byte_rate=1e9, byte_burst=1 << 30)
    db = tmp_path_factory.mktemp("fuzz") / "fuzz.sqlite3"
    with LiveServer(create_app(db, limits=limits)) as live:
        yield live


@pytest.fixture
def no_warnings(caplog):
    with caplog.at_level(logging.WARNING):
        yield
    bad = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not bad, [r.getMessage() for r in bad]


def test_fuzz_websocket_messages(server, no_warnings):
    from websockets.sync.client import connect

    info = httpx.post(server.url + "/api/rooms", json={"settings": {"cards": 13}}).json()
    golf = httpx.post(server.url + "/api/rooms", json={"game": "golf"}).json()
    url = server.url.replace("http", "ws") + "/ws"
    with connect(url) as player, connect(url) as other, connect(url) as golfer:
        for ws, room, claim in (
            (player, info["room"], info["seats"][0]["claim"]),
            (other, info["room"], info["seats"][1]["claim"]),
            (golfer, golf["room"], golf["seats"][0]["claim"]),
        ):
            ws.send(json.dumps({"type": "join", "room": room, "claim": claim}))
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        sockets = {"goofspiel": player, "golf": golfer}

        @FUZZ
        @given(data=st.data())
        def check(data):
            game = data.draw(st.sampled_from(["goofspiel", "golf"]))
            ws = sockets[game]
            raw = data.draw(messages(info["room"] if game == "goofspiel" else golf["room"]))
            ws.send(raw)
            ws.send(json.dumps({"type": "ping", "ref": "fuzz-sync"}))
            while True:  # every answer is a documented one, then the sync pong
                msg = json.loads(ws.recv(timeout=10))
                assert msg["type"] in ("error", "ack", "pong", "state", "welcome"), msg
                if msg["type"] == "error":
                    assert (
                        msg["code"] in ERROR_CODES
                        and isinstance(msg["message"], str)
                        and len(msg["message"]) < 600
                    )
                if msg == {"type": "pong", "ref": "fuzz-sync"}:
                    break

        check()
        # the game is still served: the other player's connection works
        other.send(json.dumps({"type": "ping", "ref": "alive"}))
        while json.loads(other.recv(timeout=10)).get("ref") != "alive":
            pass


creation_bodies = st.fixed_dictionaries(
    {},
    optional={
        "game": st.sampled_from(["goofspiel", "golf"]) | json_values,
        "settings": st.dictionaries(words | st.text(max_size=6), json_values, max_size=4) | json_values,
        "seats": st.lists(
            st.dictionaries(
                st.sampled_from(["bot", "name", "x"]),
                st.sampled_from(["random", "heuristic", "nash", None]) | json_values,
                max_size=2,
            ),
            max_size=4,
        )
        | json_values,
        "match": json_values
        | st.fixed_dictionaries({}, optional={"kind": json_values, "games": json_values}),
        "timer": json_values,
        "listed": json_values,
    },
)


def test_fuzz_room_creation(server, no_warnings):
    with httpx.Client(base_url=server.url, timeout=20) as http:

        @FUZZ
        @given(body=creation_bodies.map(json.dumps) | st.text(max_size=300) | st.binary(max_size=200))
        def check(body):
            content = body if isinstance(body, bytes) else body.encode("utf-8", "surrogatepass")
            r = http.post("/api/rooms", content=content, headers={"content-type": "application/json"})
            assert r.status_code in (200, 400), (r.status_code, r.text)
            data = r.json()
            if r.status_code == 200:
                assert set(data) == {"room", "game", "owner", "seats", "commit"}
                assert http.get(f"/play/{data['room']}").status_code == 200
            else:
                assert set(data) == {"error"} and 0 < len(data["error"]) < 1000

        check()
        assert http.get("/api/lobby").status_code == 200
