"""A page of another site cannot act on the server through a visitor's browser: every route that
acts (each POST route, the WebSocket) refuses a foreign ``Origin`` before it runs, and nothing is
created; reading routes and clients without ``Origin`` (curl, bots) are served
(cardtable/web/origin.py; docs/web.md, Security model)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from starlette.routing import Route
from starlette.websockets import WebSocketDisconnect
from web_helpers import create_room, join

from cardtable.web.origin import foreign_origin

EVIL = {"origin": "https://evil.example"}
BODY = {"game": "goofspiel", "seats": [{}, {"bot": "random"}]}


def rooms_in_db(client) -> int:
    """Rooms stored by the app of ``client`` (a TestClient or a LiveServer)."""
    return client.app.state.hub.store.db.execute("SELECT COUNT(*) FROM rooms").fetchone()[0]


def acting_routes() -> list[str]:
    """Every HTTP route of the app's routers that takes a method other than GET/HEAD/OPTIONS, as a
    concrete path."""
    from cardtable.web import analysis, api, explorer, pages, replay, ws

    paths = []
    for part in (pages, api, ws, analysis, replay, explorer):
        for route in part.router.routes:
            if isinstance(route, Route) and set(route.methods or ()) - {"GET", "HEAD", "OPTIONS"}:
                path = route.path.replace("{room_id}", "AAAAAAAA").replace("{seat}", "0")
                paths.append(path.replace("{game}", "goofspiel"))
    return paths


def test_every_acting_route_refuses_a_foreign_origin_and_creates_nothing(make_client):
    client = make_client()
    paths = acting_routes()
    assert "/api/rooms" in paths and "/api/replay" in paths and len(paths) >= 6
    for path in paths:
        for origin in (
            "https://evil.example",
            "null",
            "http://testserver:8080",
            "https://testserver.evil.example",
        ):
            r = client.post(path, json=BODY, headers={"origin": origin})
            assert r.status_code == 403, (path, origin, r.text)
            assert r.json()["error"].startswith("cross-site request refused: the page's origin"), r.text
    assert rooms_in_db(client) == 0
    assert client.get("/api/lobby").json() == []


def test_own_origin_and_no_origin_are_served(make_client):
    client = make_client()
    assert client.post("/api/rooms", json=BODY, headers={"origin": "http://testserver"}).status_code == 200
    assert client.post("/api/rooms", json=BODY, headers={"origin": "http://TESTSERVER:80"}).status_code == 200
    assert client.post("/api/rooms", json=BODY).status_code == 200  # curl, scripts, bots
    assert rooms_in_db(client) == 3


def test_reading_routes_serve_any_origin(make_client):
    client = make_client()
    info = create_room(client, seats=[{}, {"bot": "random"}])
    for path in ("/", "/api/lobby", "/api/games", f"/play/{info['room']}", "/replay", "/explorer"):
        assert client.get(path, headers=EVIL).status_code == 200, path


def test_a_foreign_websocket_handshake_is_refused_and_the_own_one_plays(make_client):
    client = make_client()
    info = create_room(client, seats=[{}, {"bot": "random"}])
    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect("/ws", headers=EVIL) as ws:
            ws.send_text(
                json.dumps({"type": "join", "room": info["room"], "claim": info["seats"][0]["claim"]})
            )
            ws.receive_text()
    assert refused.value.code == 1008
    # the claim code was not used: the invited person still takes the seat
    ws = join(client, info["room"], info["seats"][0]["claim"])
    assert ws.state()["view"]["phase"] == "bid"
    with client.websocket_connect("/ws", headers={"origin": "http://testserver"}) as own:
        own.send_text(json.dumps({"type": "ping", "ref": 1}))
        assert json.loads(own.receive_text())["type"] == "pong"


def test_a_real_server_refuses_the_handshake_and_the_post(live_server):
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    server = live_server()
    ws_url = server.url.replace("http", "ws") + "/ws"
    with pytest.raises(InvalidStatus) as refused:
        connect(ws_url, origin="https://evil.example", open_timeout=10)
    assert refused.value.response.status_code == 403
    with connect(ws_url, origin=server.url, open_timeout=10) as ws:  # the play page's own origin
        ws.send(json.dumps({"type": "ping", "ref": 1}))
        assert json.loads(ws.recv(timeout=10))["type"] == "pong"
    request = urllib.request.Request(
        server.url + "/api/rooms",
        data=json.dumps(BODY).encode(),
        headers={
            "content-type": "text/plain",
            "origin": "https://evil.example",
        },  # what a cross-site form sends
    )
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(request, timeout=10)
    assert answer.value.code == 403
    assert "cross-site request refused" in json.loads(answer.value.read())["error"]
    assert rooms_in_db(server) == 0


@pytest.mark.parametrize(
    "headers, foreign",
    [
        ([(b"host", b"localhost:8765"), (b"origin", b"http://localhost:8765")], False),
        ([(b"host", b"localhost"), (b"origin", b"http://localhost:80")], False),
        ([(b"host", b"cards.example"), (b"origin", b"https://cards.example")], False),  # behind a TLS proxy
        ([(b"host", b"cards.example:443"), (b"origin", b"https://cards.example")], False),
        ([(b"host", b"[::1]:8765"), (b"origin", b"http://[::1]:8765")], False),
        ([(b"host", b"localhost:8765")], False),
        ([(b"host", b"localhost:8765"), (b"origin", b"http://localhost:8766")], True),
        ([(b"host", b"localhost:8765"), (b"origin", b"http://127.0.0.1:8765")], True),
        ([(b"host", b"localhost:8765"), (b"origin", b"null")], True),
        ([(b"host", b"localhost:8765"), (b"origin", b"file://")], True),
        ([(b"host", b"localhost:8765"), (b"origin", b"http://localhost:99999")], True),
        (
            [(b"host", b"localhost:8765"), (b"origin", b"http://localhost:8765"), (b"origin", b"http://x")],
            True,
        ),
        ([(b"origin", b"http://localhost:8765")], True),  # no Host to compare with
        ([(b"host", b"a:1"), (b"host", b"b:1"), (b"origin", b"http://a:1")], True),
        ([(b"host", b"localhost:8765"), (b"origin", b"http://" + b"x" * 5000)], True),
        ([(b"host", b"\xff\xfe"), (b"origin", b"http://\xff\xfe")], False),
    ],
)
def test_foreign_origin(headers, foreign):
    why = foreign_origin(headers)
    assert (why is not None) == foreign, why
    if why is not None:
        assert len(why) < 250  # a huge header is never echoed


def test_a_long_host_is_cut_and_quoted_whole():
    why = foreign_origin([(b"host", b"h" * 300), (b"origin", b"http://evil.example")])
    assert why is not None and len(why) < 250
    assert f"(Host {'h' * 64!r}... (300 characters))" in why  # one pair of quotes, then the length
    assert "(Host 'localhost:1')" in (
        foreign_origin([(b"host", b"localhost:1"), (b"origin", b"http://x")]) or ""
    )
