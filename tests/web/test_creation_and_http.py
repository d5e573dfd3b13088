"""Room creation with bots that cannot play the ruleset, rooms that fail to load at
startup, and the HTTP error format (status codes and ``{"error": text}`` bodies)."""

from __future__ import annotations

import logging
import sqlite3

import pytest
from web_helpers import create_room, join, seeds


def room_rows(db) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT id, status FROM rooms").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize(
    "settings, why",
    [
        ({"players": 3}, "3 players"),
        ({"cards_per_bid": 2}, "multi-card bids"),
        ({"open_prizes": 2}, "open prizes"),
    ],
)
def test_bot_that_cannot_play_the_ruleset_is_refused_before_anything_is_stored(
    make_client, tmp_path, settings, why
):
    client = make_client()
    n = settings.get("players", 2)
    seats = [{} for _ in range(n - 1)] + [{"bot": "nash"}]
    r = client.post("/api/rooms", json={"game": "goofspiel", "settings": settings, "seats": seats})
    assert r.status_code == 400, r.text
    message = r.json()["error"]
    assert f"seat {n - 1}" in message and "nash cannot play this ruleset" in message and why in message
    assert room_rows(tmp_path / "web.sqlite3") == []  # nothing saved
    assert client.get("/api/lobby").json() == []
    assert client.app.state.hub.rooms == {}


def test_nash_is_accepted_where_it_can_play(make_client):
    client = make_client()
    info = create_room(client, settings={"cards": 5}, seats=[{}, {"bot": "nash"}])
    assert info["seats"][1]["bot"] == "nash"


def test_a_room_that_fails_to_load_does_not_stop_the_server(make_client, tmp_path, caplog):
    """An old database holding a room whose bot cannot play its ruleset (saved before the
    check existed): the server starts, marks the room broken with the reason, serves the rest."""
    db = tmp_path / "old.sqlite3"
    c1 = make_client(db=db, seed_factory=seeds("g1", "g2"))
    good = create_room(c1, settings={"cards": 5}, listed=True)
    bad = create_room(c1, settings={"cards": 5, "players": 3}, seats=[{}, {}, {"bot": "random"}], listed=True)
    c1.__exit__(None, None, None)
    con = sqlite3.connect(db)
    with con:  # what the server used to store: a nash bot in a 3-player room
        con.execute("UPDATE seats SET bot='nash' WHERE room_id=? AND seat=2", (bad["room"],))
    con.close()

    with caplog.at_level(logging.ERROR, logger="cardtable.web"):
        c2 = make_client(db=db, seed_factory=seeds("g3"))  # the lifespan (startup) runs here
    assert any(bad["room"] in r.getMessage() and "broken" in r.getMessage() for r in caplog.records)
    hub = c2.app.state.hub
    assert dict(room_rows(db)) == {good["room"]: "playing", bad["room"]: "broken"}
    assert "UnsupportedRuleset" in hub.store.broken_reason(bad["room"])
    assert [r["room"] for r in c2.get("/api/lobby").json()] == [good["room"]]
    assert c2.get(f"/play/{bad['room']}").status_code == 404
    assert c2.post(f"/api/rooms/{bad['room']}/join").status_code == 404
    ws = join(c2, bad["room"])
    assert ws.errors()[-1]["code"] == "no_room"
    # everything else is served
    a = join(c2, good["room"], good["seats"][0]["claim"])
    got = a.request({"type": "act", "action": {"bid": [5]}, "ref": "ok"})
    assert any(m["type"] == "ack" for m in got), got
    assert hub.store.broken_reason(good["room"]) is None


def test_http_errors_use_the_project_format(make_client):
    client = make_client(seed_factory=seeds("h1"))
    info = create_room(client, settings={"cards": 5})
    room = info["room"]
    r = client.post("/api/rooms/nope/join")
    assert (r.status_code, r.json()) == (404, {"error": "no such room"})
    r = client.get(f"/api/rooms/{room}/record?game=99")
    assert (r.status_code, r.json()) == (404, {"error": "no game 99"})
    r = client.get(f"/api/rooms/{room}/record?match=7")
    assert (r.status_code, r.json()) == (404, {"error": "no match 7"})
    r = client.get(f"/api/rooms/{room}/record?game=1")  # exists, not finished
    assert r.status_code == 409 and "no finished game" in r.json()["error"]
    for query, field in (("match=abc", "match"), ("game=1.5", "game")):
        r = client.get(f"/api/rooms/{room}/record?{query}")
        assert r.status_code == 400, r.text
        body = r.json()
        assert set(body) == {"error"} and field in body["error"] and "integer" in body["error"], body
    r = client.get("/api/rooms/nope/record?game=1")
    assert r.status_code == 404 and set(r.json()) == {"error"}


def test_form_is_told_which_bots_can_play_the_rules(make_client):
    client = make_client()
    two = {b["name"]: b for b in client.post("/api/games/goofspiel/bots", json={"players": 2}).json()}
    three = {b["name"]: b for b in client.post("/api/games/goofspiel/bots", json={"players": 3}).json()}
    assert two["nash"]["ok"] and two["nash"]["reason"] is None
    assert not three["nash"]["ok"] and "nash cannot play this ruleset" in three["nash"]["reason"]
    assert three["heuristic"]["ok"] and three["random"]["ok"]
    r = client.post("/api/games/goofspiel/bots", json={"cards": 99})
    assert r.status_code == 400 and "cards" in r.json()["error"]
    assert client.post("/api/games/chess/bots", json={}).status_code == 400
