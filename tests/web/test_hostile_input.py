"""Issue 9, "Web server": every example as a regression test (each failed on the old code).

Seat credentials, frame and body limits, flood control, the schema layer, the name
policy, resource limits (join timeout, claim expiry, quotas, coalesced presence,
abandoned rooms, paused bots), logs without tracebacks and private database files.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import time

import pytest
from web_helpers import CLAIMED, create_room, join, open_ws, seeds

from cardtable.web.limits import Limits
from cardtable.web.protocol import RateLimiter


def _states(ws):
    return [f for f in ws.frames if f["type"] == "state"]


# -- seat credentials ---------------------------------------------------------------------


def test_lobby_claim_revokes_the_creators_invite_and_hides_the_guests_bid(make_client):
    """The creator holds every invite of a listed room; after a stranger takes seat 2 from
    the lobby, nothing the creator can do works as seat 2 or shows the guest's pending bid."""
    client = make_client(seed_factory=seeds("cred"))
    info = create_room(
        client, settings={"cards": 5}, seats=[{"name": "Host"}, {"name": "Guest"}], listed=True
    )
    room, invite = info["room"], info["seats"][1]["claim"]
    host = join(client, room, info["seats"][0]["claim"])
    got = client.post(f"/api/rooms/{room}/join").json()  # a stranger takes seat 2 from the lobby
    assert got["seat"] == 1 and got["token"] != invite
    guest = join(client, room, got["token"])
    assert guest.state()["you"] == 1
    guest.request({"type": "act", "action": {"bid": [4]}})
    assert guest.state()["view"]["my_bid"] == [4]
    # the creator's copy of seat 2's invite no longer works ...
    stale = join(client, room, invite)
    assert stale.errors()[-1]["code"] == "bad_claim" and not _states(stale)
    as_token = open_ws(client)
    as_token.request({"type": "join", "room": room, "token": invite})  # nor as a token
    assert as_token.errors()[-1]["code"] == "bad_token"
    # ... a re-invite of a taken seat is refused ...
    r = client.post(f"/api/rooms/{room}/seats/1/invite", json={"owner": info["owner"]})
    assert r.status_code == 409 and "taken" in r.json()["error"]
    # ... and no frame the creator's connections receive carries the guest's bid or token
    watcher = join(client, room)
    host.sync()
    for ws in (host, stale, as_token, watcher):
        for f in ws.frames:
            if f["type"] == "state":
                assert f["view"]["my_bid"] is None or f["you"] == 0
            assert got["token"] not in json.dumps(f)
    assert host.state()["view"]["players"][1]["has_bid"] and host.state()["view"]["my_bid"] is None


def test_an_invite_works_once_and_the_token_only_for_its_holder(make_client):
    client = make_client(seed_factory=seeds("once"))
    info = create_room(client, settings={"cards": 5}, listed=False)
    code = info["seats"][1]["claim"]
    first = join(client, info["room"], code)
    token = CLAIMED[code]
    assert first.frames[0]["type"] == "welcome" and first.frames[0]["token"] == token != code
    second = open_ws(client)
    second.request({"type": "join", "room": info["room"], "claim": code})
    assert second.errors()[-1]["code"] == "bad_claim"
    again = join(client, info["room"], token)  # the holder reconnects with the token
    assert again.state()["you"] == 1 and "token" not in again.frames[0]


def test_owner_reinvites_an_unclaimed_seat(make_client):
    client = make_client()
    info = create_room(client, settings={"cards": 5}, listed=False)
    room, old = info["room"], info["seats"][1]["claim"]
    assert client.post(f"/api/rooms/{room}/seats/1/invite", json={"owner": "wrong-key"}).status_code == 403
    assert (
        client.post(
            f"/api/rooms/{room}/seats/1/invite", json={"owner": info["seats"][0]["claim"]}
        ).status_code
        == 403
    )
    r = client.post(f"/api/rooms/{room}/seats/1/invite", json={"owner": info["owner"]})
    assert r.status_code == 200 and r.json()["claim"] not in (old, None)
    assert join(client, room, old).errors()[-1]["code"] == "bad_claim"  # the old link is revoked
    ws = open_ws(client)
    ws.request({"type": "join", "room": room, "claim": r.json()["claim"]})
    assert ws.frames[0]["type"] == "welcome" and ws.frames[0]["seat"] == 1
    assert client.post(f"/api/rooms/{room}/seats/9/invite", json={"owner": info["owner"]}).status_code == 404


def test_unconfirmed_lobby_claims_expire_and_are_limited_per_address(make_client):
    client = make_client(limits=Limits(claim_ttl=0.3, claims_per_address=2, sweep_every=0.1))
    rooms = [
        create_room(client, settings={"cards": 5, "players": 3, "unique_bids": True}, listed=True)["room"]
        for _ in range(2)
    ]
    taken = [client.post(f"/api/rooms/{rooms[0]}/join") for _ in range(2)]
    assert [r.status_code for r in taken] == [200, 200]
    r = client.post(f"/api/rooms/{rooms[1]}/join")  # a third unconfirmed claim from the same address
    assert r.status_code == 429 and "retry-after" in r.headers
    assert client.get("/api/lobby").json()[0]["room"] == rooms[1]  # room 0 is full
    time.sleep(0.6)  # the holds run out: the seats are offered again, the tokens no longer work
    client.get("/api/lobby")  # (the sweep runs in the app's event loop)
    lobby = {r["room"]: r for r in client.get("/api/lobby").json()}
    assert [s["free"] for s in lobby[rooms[0]]["seats"]] == [False, True, True]
    late = join(client, rooms[0], taken[0].json()["token"])
    assert late.errors()[-1]["code"] == "bad_token"
    got = client.post(f"/api/rooms/{rooms[1]}/join").json()
    confirmed = join(client, rooms[1], got["token"])  # joining confirms the hold
    time.sleep(0.5)
    assert any(
        m["type"] == "ack" for m in confirmed.request({"type": "act", "action": {"bid": [1]}, "ref": 1})
    )


# -- frames, floods and bodies ------------------------------------------------------------


def test_transport_caps_frames_at_the_protocol_limit(live_server):
    """A 1 MiB frame (and one byte over 4096) closes the connection at the transport (1009)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    server = live_server()
    url = server.url.replace("http", "ws") + "/ws"
    for size in (1 << 20, 4097):
        with connect(url, max_size=None) as ws:
            ws.send("x" * size)
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd.code == 1009
    with connect(url) as ws:  # the largest allowed message is read and answered
        ws.send(json.dumps({"type": "ping", "ref": "p"}).ljust(4096))
        assert json.loads(ws.recv(timeout=10)) == {"type": "pong", "ref": "p"}


def test_accepted_messages_do_not_reset_the_flood_count():
    """The old limiter forgot a flood whenever one message got through (every 50 ms)."""
    now = [0.0]
    rl = RateLimiter(
        rate=20, burst=40, clock=lambda: now[0], byte_rate=16384, byte_burst=65536, flood_factor=20
    )
    accepted = 0
    for step in range(100_000):
        now[0] = step * 0.001  # 1000 frames of 1000 bytes per second
        accepted += rl.allow(1000)
        if rl.flooding():
            break
    assert rl.flooding() and now[0] < 60 and accepted > 40
    calm = RateLimiter(rate=20, burst=40, clock=lambda: now[0])
    for step in range(2000):  # 10 small messages per second for 200 s: never a flood
        now[0] = step * 0.1
        assert calm.allow(100)
    assert not calm.flooding()


def test_streaming_big_frames_is_closed_for_flooding(make_client):
    """Bytes count: frames of 4 KiB at a message rate the message bucket allows are a flood."""
    from starlette.websockets import WebSocketDisconnect

    client = make_client(
        limits=Limits(rate=1000, burst=1000, byte_rate=4096, byte_burst=8192, flood_factor=4)
    )
    info = create_room(client, settings={"cards": 5})
    a = join(client, info["room"], info["seats"][0]["claim"])
    b = join(client, info["room"], info["seats"][1]["claim"])
    frame = json.dumps({"type": "ping"}).ljust(4096)
    with pytest.raises(WebSocketDisconnect) as closed:
        for _ in range(200):
            a.send(frame)
        while True:
            a.receive()
    assert closed.value.code == 1008 and "flooding" in closed.value.reason
    assert [f["code"] for f in a.errors()] == ["rate_limited"]
    got = b.request({"type": "act", "action": {"bid": [2]}, "ref": "alive"})
    assert any(m["type"] == "ack" for m in got)


def test_http_bodies_are_bounded(make_client):
    client = make_client()
    for body in (
        '{"settings": ' + "[" * 100_000 + "]" * 100_000 + "}",  # nested 100,000 deep: was HTTP 500
        '{"game": "golf", "settings": {"values": [' + ",".join(["9" * 4300] * 13) + "]}}",
    ):
        r = client.post("/api/rooms", content=body.encode(), headers={"content-type": "application/json"})
        assert r.status_code == 413, r.text
    big = b'{"game": "goofspiel", "pad": "' + b"x" * (50 << 20) + b'"}'
    r = client.post("/api/rooms", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "16384" in r.json()["error"]

    def chunks():  # no Content-Length: counted as it arrives
        yield b'{"game": "goofspiel", "pad": "'
        for _ in range(100):
            yield b"x" * 1000
        yield b'"}'

    r = client.post("/api/rooms", content=chunks())
    assert r.status_code == 413
    assert client.get("/api/lobby").json() == []


# -- one schema layer: every field typed and bounded ----------------------------------------


def test_golf_action_of_the_wrong_type_gets_an_error_frame(make_client):
    client = make_client(seed_factory=seeds("golf-type"))
    info = create_room(client, game="golf")
    me = join(client, info["room"], info["seats"][0]["claim"])
    for action in (
        {"type": ["draw"]},
        {"type": "swap", "pos": "4"},
        {"type": "swap", "pos": 10**30},
        {"type": "draw", "extra": 1},
        ["draw"],
        None,
    ):
        got = me.request({"type": "act", "action": action})
        assert [m["code"] for m in got if m["type"] == "error"] == ["bad_action"], got
    got = me.request({"type": "act", "action": {"type": "draw"}, "ref": "ok"})  # the connection lives on
    assert any(m["type"] == "ack" for m in got), got


@pytest.mark.parametrize(
    "body, fragment",
    [
        ('{"game": ["golf"]}', "game"),
        ('{"seats": [{"name": "\\ud800x"}, {}]}', "malformed JSON"),
        ('{"settings": {"cards": ' + "[" * 5_000 + "]" * 5_000 + "}}", "malformed JSON"),
        ('{"game": "golf", "settings": {"penalty_cards": ' + "9" * 4300 + "}}", "penalty_cards"),
        ('{"game": "golf", "settings": {"values": [' + ",".join(["99"] * 13) + "]}}", "values"),
        ('{"game": "golf", "settings": {"values": [-1,2,3,4,5,6,7,8,9,10,10,10,0]}}', "values"),
        ('{"game": "golf", "settings": {"penalty_cards": 1000000}}', "penalty_cards"),
        ('{"match": {"kind": "total", "games": 1e9}}', "games"),
        ('{"match": {"kind": "total", "games": 1000000000}}', "games"),
        ('{"match": "total 1000000000"}', "1..99 games"),
        ('{"timer": 1.5}', "timer"),
        ('{"listed": 1}', "listed"),
        ('{"settings": {"cards": "5"}}', "cards"),
        ('{"settings": {"cards": true}}', "cards"),
        ('{"seats": [{"bot": "random", "name": "x", "extra": 1}, {}]}', "extra"),
        ('{"settings": {"rules": "' + "cards=5 " * 100 + '"}}', "rules"),
    ],
)
def test_creation_fields_are_typed_and_bounded(make_client, body, fragment):
    """Each was accepted, or answered HTTP 500, before the schema layer."""
    client = make_client()
    r = client.post("/api/rooms", content=body.encode(), headers={"content-type": "application/json"})
    assert r.status_code == 400 and fragment in r.json()["error"], r.text
    assert len(r.text) < 1000  # a huge value is never echoed back
    assert client.get("/api/lobby").json() == []


def test_every_limit_the_creation_form_shows_is_enforced(make_client):
    client = make_client(limits=Limits(room_burst=1000))
    options = client.get("/api/games").json()
    for game, spec in options.items():
        for field, bounds in spec["fields"].items():
            if isinstance(bounds, dict):
                for bad in (bounds["min"] - 1, bounds["max"] + 1):
                    r = client.post("/api/rooms", json={"game": game, "settings": {field: bad}})
                    assert r.status_code == 400 and field in r.json()["error"], (game, field, bad, r.text)
            elif isinstance(bounds, list):
                r = client.post("/api/rooms", json={"game": game, "settings": {field: "nope"}})
                assert r.status_code == 400 and field in r.json()["error"], (game, field)
            else:
                r = client.post("/api/rooms", json={"game": game, "settings": {field: "true"}})
                assert r.status_code == 400 and field in r.json()["error"], (game, field)
    for match in ({"games": 0}, {"games": 100}, {"kind": "best of"}, {"tiebreak": "coin"}):
        r = client.post("/api/rooms", json={"match": match})
        assert r.status_code == 400, match
    for timer in (-1, 3601):
        assert client.post("/api/rooms", json={"timer": timer}).status_code == 400
    assert client.get("/api/lobby").json() == []


@pytest.mark.parametrize(
    "name, shown",
    [
        ("A\x00B", "U+0000"),
        ("A\x1b[2JB", "U+001B"),
        ("A\tB", "U+0009"),
        ("A\u202eB", "U+202E"),
        ("A\u200bB", "U+200B"),
        ("A\u2028B", "U+2028"),
        ("A\ufeffB", "U+FEFF"),
    ],
)
def test_names_with_control_or_format_characters_are_refused(make_client, name, shown):
    client = make_client()
    r = client.post("/api/rooms", json={"seats": [{"name": name}, {}]})
    assert r.status_code == 400, r.text
    assert "seat 0 (the first seat)" in r.json()["error"] and shown in r.json()["error"]
    r = client.post("/api/rooms", json={"seats": [{"name": "Ann"}, {"name": "ann"}]})
    assert r.status_code == 400 and "every name must be different" in r.json()["error"]


@pytest.mark.parametrize(
    "name, words", [("\n", "empty"), ("\t", "empty"), ("   ", "empty"), ("\u00a0", "empty")]
)
def test_a_blank_looking_name_is_refused_not_replaced(make_client, name, words):
    """Regression (a hostile-input session): whitespace-only names became "Player 1"
    silently while a control character was refused; only a missing or empty name is "none"."""
    client = make_client()
    r = client.post("/api/rooms", json={"seats": [{"name": name}, {}]})
    assert r.status_code == 400 and words in r.json()["error"], r.text
    assert client.post("/api/rooms", json={"seats": [{"name": ""}, {}]}).status_code == 200


@pytest.mark.parametrize("pair", [("A\u0300nn", "\u00c0nn"), ("\uff21nn", "ann"), ("Ann", "random bot")])
def test_names_that_look_the_same_are_one_name(make_client, pair):
    """A composed and a decomposed accent, or a full-width letter, are the same name; a person
    named like a bot keeps it and the bot is numbered."""
    client = make_client()
    if pair[1] == "random bot":
        r = client.post("/api/rooms", json={"seats": [{"name": "Random Bot"}, {"bot": "random"}]})
        assert r.status_code == 200 and [s["name"] for s in r.json()["seats"]] == [
            "Random Bot",
            "random bot 2",
        ]
        return
    r = client.post("/api/rooms", json={"seats": [{"name": pair[0]}, {"name": pair[1]}]})
    assert r.status_code == 400 and "every name must be different" in r.json()["error"], r.text


# -- resources ------------------------------------------------------------------------------


def test_unjoined_websockets_are_closed(make_client):
    from starlette.websockets import WebSocketDisconnect

    client = make_client(limits=Limits(join_timeout=0.3))
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "ping", "ref": 1}))
        assert json.loads(ws.receive_text())["type"] == "pong"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 1008 and "no join within 0.3 s" in closed.value.reason


def test_connections_per_address_are_limited(make_client):
    from starlette.websockets import WebSocketDisconnect

    client = make_client(limits=Limits(connections_per_address=2))
    info = create_room(client, settings={"cards": 5})
    a, b = join(client, info["room"]), join(client, info["room"])
    with client.websocket_connect("/ws") as third:
        with pytest.raises(WebSocketDisconnect) as closed:
            third.receive_text()
        assert closed.value.code == 1008 and "too many connections" in closed.value.reason
    b.close()
    time.sleep(0.1)
    c = join(client, info["room"])  # a freed place can be used again
    assert c.state()["you"] is None
    assert a.sync() == []


def test_room_creation_is_limited_per_address(make_client):
    client = make_client(limits=Limits(room_burst=3, rooms_per_hour=1))
    for _ in range(3):
        create_room(client, settings={"cards": 3})
    r = client.post("/api/rooms", json={"settings": {"cards": 3}})
    assert (
        r.status_code == 429 and "too many rooms" in r.json()["error"] and int(r.headers["retry-after"]) > 0
    )


def test_refused_creations_count_before_any_bot_starts(make_client, monkeypatch):
    """Every creation attempt counts, a refused one too, and it is counted before the room's
    bots start (each may solve for seconds on the bots' threads): over the quota, no bot starts."""
    import cardtable.web.hub as hub_module

    started = []
    real = hub_module.plan_room
    monkeypatch.setattr(hub_module, "plan_room", lambda request: started.append(1) or real(request))
    client = make_client(limits=Limits(room_burst=2, rooms_per_hour=1))
    for _ in range(2):  # refused after the bots started (nash cannot play 3 players) still count
        r = client.post(
            "/api/rooms",
            json={
                "settings": {"cards": 3, "players": 3},
                "seats": [{"name": "Kim"}, {"bot": "nash"}, {"bot": "nash"}],
            },
        )
        assert r.status_code == 400 and "nash" in r.text, r.text
    r = client.post("/api/rooms", json={"settings": {"cards": 3}})
    assert r.status_code == 429 and "too many rooms" in r.json()["error"]
    assert len(started) == 2  # the third attempt started nothing


def test_bot_checks_are_cached_and_limited_per_address(make_client, monkeypatch):
    """``POST /api/games/goofspiel/bots`` starts every bot of the game: the same settings are
    answered from the cache, new ones count against the address's quota (429 beyond it)."""
    import cardtable.web.hub as hub_module

    calls = []
    real = hub_module.playable_bots
    monkeypatch.setattr(
        hub_module, "playable_bots", lambda game, settings: calls.append(1) or real(game, settings)
    )
    client = make_client(limits=Limits(bot_check_burst=2, bot_checks_per_minute=1))
    first = client.post("/api/games/goofspiel/bots", json={"cards": 4})
    assert first.status_code == 200
    for _ in range(5):  # the same settings: the cache, no quota, no bot started
        assert client.post("/api/games/goofspiel/bots", json={"cards": 4}).json() == first.json()
    # the same settings spelt otherwise (a default given) are the same question
    assert (
        client.post("/api/games/goofspiel/bots", json={"cards": 4, "tie_rule": "carry"}).json()
        == first.json()
    )
    assert len(calls) == 1
    assert client.post("/api/games/goofspiel/bots", json={"cards": 5}).status_code == 200
    r = client.post("/api/games/goofspiel/bots", json={"cards": 6})
    assert r.status_code == 429 and "too many bot checks" in r.json()["error"]
    assert int(r.headers["retry-after"]) > 0 and len(calls) == 2


def test_joins_and_leaves_are_coalesced(make_client):
    """One client cycling joins sent a full state to every spectator per join; now spectator
    joins send the others nothing, and seat joins are coalesced. Counted, not timed: with a
    presence delay longer than the test, 60 seat joins and leaves leave one pending update,
    which reaches each watcher as one state when it is due."""
    client = make_client(limits=Limits(presence_delay=3600, rate=1000, burst=1000))
    info = create_room(client, settings={"cards": 5}, listed=False)
    room_id, token = info["room"], None
    watchers = [join(client, room_id) for _ in range(5)]
    room = client.app.state.hub.rooms[room_id]
    for w in watchers:
        w.sync()
        w.frames.clear()
    for _ in range(30):
        join(client, room_id).close()  # a spectator comes and goes: nothing changes for the others
    for w in watchers:
        w.sync()
        assert _states(w) == []
    assert room._presence is None  # not even an update pending
    for _ in range(30):
        ws = join(client, room_id, info["seats"][0]["claim"] if token is None else token)
        token = CLAIMED[info["seats"][0]["claim"]]
        ws.close()
    end = time.monotonic() + 20  # a failure bound: the server has seen the last leave
    while any(c.seat is not None for c in list(room.conns)):
        assert time.monotonic() < end, "the seat's connections did not close"
        time.sleep(0.02)
    for w in watchers:
        w.sync()
        assert _states(w) == []  # 60 seat joins and leaves: one update pending, none sent yet
    assert room._presence is not None
    client.portal.call(room._flush_presence)  # the update falls due
    for w in watchers:
        w.sync()
        assert len(_states(w)) == 1, len(_states(w))
        assert _states(w)[0]["seats"][0]["connected"] is False


def test_abandoned_rooms_expire_and_are_not_resumed(make_client, tmp_path):
    db = tmp_path / "idle.sqlite3"
    client = make_client(db=db, limits=Limits(abandon_after=0.5, sweep_every=0.1))
    idle = create_room(client, settings={"cards": 5}, listed=True)
    busy = create_room(client, settings={"cards": 5}, listed=True)
    player = join(client, busy["room"], busy["seats"][0]["claim"])
    time.sleep(1.0)
    client.get("/api/lobby")
    assert [r["room"] for r in client.get("/api/lobby").json()] == [busy["room"]]
    assert client.get(f"/play/{idle['room']}").status_code == 404
    hub = client.app.state.hub
    assert idle["room"] not in hub.rooms and busy["room"] in hub.rooms
    assert (
        hub.store.db.execute("SELECT status FROM rooms WHERE id=?", (idle["room"],)).fetchone()[0]
        == "abandoned"
    )
    assert any(m["type"] == "ack" for m in player.request({"type": "act", "action": {"bid": [3]}, "ref": 1}))


def test_bots_pause_in_a_room_nobody_watches(make_client):
    # a pause after 1 ms: the bots stop within their first moves (a whole game takes well over that)
    client = make_client(limits=Limits(bot_pause_after=0.001), seed_factory=seeds("paused"))
    info = create_room(client, game="golf", seats=[{"bot": "random"}, {"bot": "random"}], listed=False)
    room = client.app.state.hub.rooms[info["room"]]
    time.sleep(0.5)
    moves = room.version
    time.sleep(0.5)
    assert room.version == moves and not room.adapter.is_over(room.current.state)  # paused, not finished
    watcher = join(client, info["room"])  # somebody watches: the bots carry on
    watcher.wait_for(lambda s: s["version"] > moves)


# -- logs and files ---------------------------------------------------------------------------


def test_bad_room_ids_log_nothing(make_client, caplog):
    client = make_client()
    with caplog.at_level(logging.INFO, logger="cardtable.web"):
        ws = join(client, "placeholder")
        ws.frames.clear()
        ws.request('{"type": "join", "room": "\\ud800"}')
        assert ws.errors()[-1]["code"] == "bad_json"
        ws.request(json.dumps({"type": "join", "room": "\u00e9\u0000"}))
        assert ws.errors()[-1]["code"] == "no_room"
        assert asyncio.run(client.app.state.hub.room("\ud800")) is None
        assert client.post("/api/rooms/%ED%A0%80/join").status_code == 404
        assert client.get("/api/rooms/%00/record").status_code == 404
        assert client.get("/api/rooms/x/record?game=" + "9" * 5000).status_code == 400
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert client.app.state.hub.store.db.execute("SELECT COUNT(*) FROM broken_rooms").fetchone()[0] == 0


def test_database_files_are_private(make_client, tmp_path):
    db = tmp_path / "private.sqlite3"
    client = make_client(db=db)
    info = create_room(client, settings={"cards": 5})
    join(client, info["room"], info["seats"][0]["claim"]).request({"type": "act", "action": {"bid": [1]}})
    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        assert path.exists() and stat.S_IMODE(os.stat(path).st_mode) == 0o600, path
    for ws in client.test_sockets:
        ws.close()
    client.__exit__(None, None, None)
    os.chmod(db, 0o644)  # an older server's world-readable file is made private when opened
    make_client(db=db)
    assert stat.S_IMODE(os.stat(db).st_mode) == 0o600


def test_an_older_database_gets_the_new_columns_and_its_invites_keep_working(tmp_path):
    """A database written before claim codes: unclaimed seats' old tokens become claim codes."""
    import sqlite3

    from cardtable.web.storage import Store

    db = tmp_path / "old.sqlite3"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE rooms (id TEXT PRIMARY KEY, game TEXT NOT NULL, settings TEXT NOT NULL,
            match_format TEXT NOT NULL, timer REAL NOT NULL DEFAULT 0, listed INTEGER NOT NULL DEFAULT 1,
            status TEXT NOT NULL DEFAULT 'playing', created REAL NOT NULL);
        CREATE TABLE seats (room_id TEXT NOT NULL REFERENCES rooms(id), seat INTEGER NOT NULL,
            token TEXT NOT NULL UNIQUE, name TEXT NOT NULL, bot TEXT, claimed INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (room_id, seat));
        INSERT INTO rooms VALUES ('r1', 'goofspiel', '{}', 'total 1', 0, 1, 'playing', 0);
        INSERT INTO seats VALUES ('r1', 0, 'held-token', 'Ann', NULL, 1), ('r1', 1, 'sent-link', 'Bob', NULL, 0),
            ('r1', 2, 'bot-token', 'bot', 'random', 1);
    """)
    con.close()
    store = Store(db)
    seats = store.seats("r1")
    assert [(s.claimed, s.claim) for s in seats] == [(True, None), (False, "sent-link"), (True, None)]
    assert store.room("r1").owner is None
    store.close()


@pytest.mark.parametrize("body", [b'{"seat": 2, "name": "Zed"}', b"this is not json", b"{}"])
def test_a_lobby_claim_with_a_body_is_refused_and_claims_nothing(make_client, body):
    """The lobby claim takes the next free seat and no body: a body (a seat or name it would
    have ignored) is refused with 400, and the seat stays free."""
    client = make_client(seed_factory=seeds("body"))
    info = create_room(
        client, settings={"cards": 5, "players": 3}, seats=[{"name": "Host"}, {}, {}], listed=True
    )
    r = client.post(f"/api/rooms/{info['room']}/join", content=body)
    assert r.status_code == 400 and "takes no body" in r.json()["error"]
    got = client.post(f"/api/rooms/{info['room']}/join").json()
    assert got["seat"] == 1  # the first free seat was not taken by the refused claim


def test_one_invite_used_twice_at_once_gives_the_seat_once(make_client):
    """Two joins with one claim code, or two lobby claims of one free seat, at the same moment:
    each checked the seat, then awaited the database, and both won (the later token silently
    replaced the first). The seat desk now holds its lock from the check to the write."""
    client = make_client()
    info = create_room(client, seats=[{"name": "Ann"}, {"name": "Ben"}], settings={"cards": 3}, listed=True)
    hub = client.app.state.hub
    room = client.portal.call(hub.room, info["room"])
    code = info["seats"][1]["claim"]

    async def twice(fn, *args):
        return await asyncio.gather(fn(*args), fn(*args), return_exceptions=True)

    got = client.portal.call(twice, hub.seats.redeem, room, code)
    assert sum(not isinstance(g, Exception) for g in got) == 1, got
    assert [g.code for g in got if isinstance(g, Exception)] == ["bad_claim"]
    (won,) = [g for g in got if not isinstance(g, Exception)]
    assert room.seats[1].token == won[1]  # the winner's token is the seat's
    # the lobby: the listed room's one free seat (seat 0 is the creator's, reserved), claimed twice at once
    other = create_room(client, seats=[{"name": "Ann"}, {"name": "Ben"}], settings={"cards": 3}, listed=True)
    claims = client.portal.call(twice, hub.seats.claim, other["room"], "1.2.3.4")
    assert sorted(c is None for c in claims) == [False, True], claims
