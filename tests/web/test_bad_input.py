"""Bad input over the WebSocket: the sender gets a clear error, the game state
does not change (in memory and in the database), and everybody else is still served."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest
from web_helpers import create_room, join, seeds

from cardtable.web.protocol import ProtocolError, RateLimiter, parse_message


def snapshot(client, room_id: str):
    """Everything that could change: the room's version, the engine state, pending bids, the event log."""
    room = client.app.state.hub.rooms[room_id]
    st = room.current.state
    db = room.hub.store.db
    events = db.execute("SELECT COUNT(*) FROM events WHERE room_id=?", (room_id,)).fetchone()[0]
    return (room.version, st.game.snapshot(), dict(st.pending), len(room.slots), events)


@pytest.fixture
def table(make_client):
    """A 5-card game between two people; returns (client, room id, seat-1 socket, seat-2 socket)."""
    client = make_client(seed_factory=seeds("seed-A"))
    info = create_room(client, settings={"cards": 5})
    a = join(client, info["room"], info["seats"][0]["claim"])
    b = join(client, info["room"], info["seats"][1]["claim"])
    return client, info["room"], a, b


def last_error(ws) -> dict:
    errors = ws.errors()
    assert errors, f"no error message among {ws.frames[-3:]}"
    return errors[-1]


def still_served(ws, card: int = 1) -> None:
    """The other player can still bid: the server answers with an ack."""
    got = ws.request({"type": "act", "action": {"bid": [card]}, "ref": "alive"})
    assert any(m["type"] == "ack" and m["ref"] == "alive" for m in got), got


def test_malformed_json(table):
    client, room, a, b = table
    before = snapshot(client, room)
    a.request('{"type": "act", "action": {"bid": [5]')
    err = last_error(a)
    assert err["code"] == "bad_json" and "malformed JSON" in err["message"]
    a.request(b"\xff\xfe not utf-8")
    assert last_error(a)["code"] == "bad_json"
    a.request("[" * 2000 + "]" * 2000)
    assert last_error(a)["code"] == "bad_json"
    assert snapshot(client, room) == before
    still_served(b)


@pytest.mark.parametrize(
    "message, code",
    [
        ({"type": "teleport"}, "unknown_type"),
        ({"no": "type"}, "bad_message"),
        ([1, 2, 3], "bad_message"),
        ({"type": "act"}, "bad_message"),
        ({"type": "act", "action": "K"}, "bad_action"),
        ({"type": "act", "action": {"bid": "K"}}, "bad_action"),
        ({"type": "act", "action": {"bid": 3}}, "bad_action"),  # a bid is a list, never a bare rank
        ({"type": "act", "action": {"bid": ["K"]}}, "bad_action"),
        ({"type": "act", "action": {"bid": [True]}}, "bad_action"),
        ({"type": "act", "action": {"bid": [3]}, "ref": 1.5}, "bad_message"),
        ({"type": "act", "action": {"bid": [3]}, "ref": ["x"]}, "bad_message"),
        ({"type": "act", "action": {"bid": [3]}, "ref": True}, "bad_message"),
        ({"type": "act", "action": {"bid": [3]}, "ref": "r" * 65}, "bad_message"),
        ({"type": "act", "action": {"bid": [3]}, "ref": 2**60}, "bad_message"),
        ({"type": "act", "action": {"bid": [1], "choose": 2}}, "bad_action"),
        ({"type": "act", "action": {"choose": 3}}, "wrong_phase"),
    ],
)
def test_unknown_or_malformed_messages(table, message, code):
    client, room, a, b = table
    before = snapshot(client, room)
    a.request(message)
    err = last_error(a)
    assert err["code"] == code and err["message"]
    assert snapshot(client, room) == before
    still_served(b)


def test_bare_int_bid_gets_the_same_error_as_a_bad_rank(table):
    client, room, a, b = table
    a.request({"type": "act", "action": {"bid": 3}})
    bare = last_error(a)
    a.request({"type": "act", "action": {"bid": ["K"]}})
    assert bare["code"] == last_error(a)["code"] == "bad_action"
    assert bare["message"] == last_error(a)["message"] == "a bid is a list of card ranks, e.g. [13]"
    assert client.app.state.hub.rooms[room].current.state.pending == {}


def test_bad_ref_is_refused_not_dropped(table):
    client, room, a, b = table
    before = snapshot(client, room)
    a.request({"type": "act", "action": {"bid": [3]}, "ref": "x" * 65})
    err = last_error(a)
    assert err["code"] == "bad_message" and "64 characters" in err["message"] and "ref" not in err
    assert snapshot(client, room) == before  # the bid was not taken
    got = a.request({"type": "act", "action": {"bid": [3]}, "ref": "y" * 64})  # the longest ref allowed
    assert any(m["type"] == "ack" and m["ref"] == "y" * 64 for m in got), got


def test_second_join_is_refused_and_changes_nothing(make_client):
    client = make_client(seed_factory=seeds("s1", "s2"))
    info = create_room(client, settings={"cards": 5})
    other = create_room(client, settings={"cards": 5})
    room = info["room"]
    a = join(client, room, info["seats"][0]["claim"])
    for again in (
        {"type": "join", "room": room, "token": info["seats"][1]["claim"]},  # another seat
        {"type": "join", "room": room},  # spectator
        {"type": "join", "room": other["room"], "token": other["seats"][0]["claim"]},
    ):  # another room
        got = a.request(again)
        assert [m["code"] for m in got if m["type"] == "error"] == ["already_joined"], got
        assert not [m for m in got if m["type"] in ("welcome", "state")], got
    hub = client.app.state.hub
    conn = next(iter(hub.rooms[room].conns))
    assert conn.seat == 0 and conn.room is hub.rooms[room]
    assert not hub.rooms[other["room"]].conns
    got = a.request({"type": "act", "action": {"bid": [2]}, "ref": "still-seat-0"})
    assert any(m["type"] == "ack" for m in got), got
    assert hub.rooms[room].current.state.pending == {0: (2,)}


def test_oversized_message_is_not_processed(table):
    client, room, a, b = table
    before = snapshot(client, room)
    a.request(json.dumps({"type": "act", "action": {"bid": [5]}, "pad": "x" * 5000}))
    err = last_error(a)
    assert err["code"] == "too_large" and "4096" in err["message"]
    assert snapshot(client, room) == before
    still_served(b)
    still_served(a, 2)  # the sender's connection still works


@pytest.mark.parametrize("bid, fragment", [([14], "not a card"), ([0], "not a card"), ([1, 2], "exactly 1")])
def test_bid_for_unknown_card(table, bid, fragment):
    client, room, a, b = table
    before = snapshot(client, room)
    a.request({"type": "act", "action": {"bid": bid}})
    err = last_error(a)
    assert err["code"] == "illegal" and fragment in err["message"]
    assert snapshot(client, room) == before
    still_served(b)


def test_bid_for_spent_card(table):
    client, room, a, b = table
    a.request({"type": "act", "action": {"bid": [5]}})
    b.request({"type": "act", "action": {"bid": [4]}})
    a.sync()
    assert a.state()["view"]["round"] == 2
    before = snapshot(client, room)
    a.request({"type": "act", "action": {"bid": [5]}})
    err = last_error(a)
    assert err["code"] == "illegal" and "already spent 5♠" in err["message"]
    assert snapshot(client, room) == before
    still_served(b)


def test_second_bid_in_the_same_round(table):
    client, room, a, b = table
    a.request({"type": "act", "action": {"bid": [3]}})
    before = snapshot(client, room)
    a.request({"type": "act", "action": {"bid": [4]}})
    err = last_error(a)
    assert err["code"] == "already_acted" and "3♠" in err["message"]
    assert snapshot(client, room) == before
    assert client.app.state.hub.rooms[room].current.state.pending == {0: (3,)}
    still_served(b)


def test_bid_after_the_game_ended(make_client):
    client = make_client(seed_factory=seeds("short"))
    info = create_room(client, settings={"cards": 2})
    a = join(client, info["room"], info["seats"][0]["claim"])
    b = join(client, info["room"], info["seats"][1]["claim"])
    for card in (1, 2):
        a.request({"type": "act", "action": {"bid": [card]}})
        b.request({"type": "act", "action": {"bid": [card]}})
    a.sync()
    assert a.state()["view"]["phase"] == "over"
    before = snapshot(client, info["room"])
    a.request({"type": "act", "action": {"bid": [1]}})
    err = last_error(a)
    assert err["code"] == "game_over"
    assert snapshot(client, info["room"]) == before


def test_bad_or_missing_seat_token(make_client):
    client = make_client(seed_factory=seeds("s1", "s2"))
    one = create_room(client, settings={"cards": 5})
    other = create_room(client, settings={"cards": 5})
    room = one["room"]
    a = join(client, room, one["seats"][0]["claim"])
    before = snapshot(client, room)
    for bad, code in (
        ("nope", "bad_token"),
        (other["seats"][0]["claim"], "bad_claim"),
        (12345, "bad_message"),
        ("", "bad_message"),
        ("x" * 65, "bad_message"),
    ):
        intruder = join(client, room, bad)
        err = last_error(intruder)
        assert err["code"] == code, err
        intruder.request({"type": "act", "action": {"bid": [1]}})
        assert last_error(intruder)["code"] == "not_joined"
        assert not [f for f in intruder.frames if f["type"] == "state"]  # saw nothing of the game
    watcher = join(client, room)  # no token: a spectator
    assert watcher.state()["you"] is None and watcher.state()["view"]["hand"] is None
    watcher.request({"type": "act", "action": {"bid": [1]}})
    assert last_error(watcher)["code"] == "forbidden"
    watcher.request({"type": "next"})
    assert last_error(watcher)["code"] == "forbidden"
    assert snapshot(client, room) == before
    still_served(a)


def test_no_such_room_and_act_before_join(make_client):
    client = make_client()
    ws = join(client, "no-such-room", "x")
    assert last_error(ws)["code"] == "no_room"
    ws.request({"type": "next"})
    assert last_error(ws)["code"] == "not_joined"


def test_bid_for_another_seat(table):
    client, room, a, b = table
    before = snapshot(client, room)
    a.request({"type": "act", "seat": 1, "action": {"bid": [2]}})
    err = last_error(a)
    # names the connection's own seat, in the protocol's 0-based numbering (docs/web.md, "Seat numbers")
    assert err["code"] == "forbidden"
    assert err["message"] == "this connection acts for seat 0 (the first seat) only"
    assert snapshot(client, room) == before
    still_served(b)


def test_flood_closes_with_policy_violation(make_client):
    """Past 20 x burst dropped messages in a row: exactly one rate_limited error, then close 1008 with a reason."""
    from starlette.websockets import WebSocketDisconnect

    client = make_client(seed_factory=seeds("flood"), rate=0.2, burst=2)
    info = create_room(client, settings={"cards": 5})
    room = info["room"]
    a = join(client, room, info["seats"][0]["claim"])
    join(client, room, info["seats"][1]["claim"])
    before = snapshot(client, room)
    for _ in range(200):
        a.send({"type": "act", "action": {"bid": [99]}})
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            a.receive()
    assert closed.value.code == 1008 and "flooding" in closed.value.reason
    assert [f["code"] for f in a.errors()].count("rate_limited") == 1
    assert snapshot(client, room) == before
    room_obj = client.app.state.hub.rooms[room]
    assert [c.seat for c in room_obj.conns] == [1]  # the other player is still connected


def test_flood_is_rate_limited(make_client):
    # a slow refill (one message per 2 s), so that a loaded machine does not end the run early
    client = make_client(seed_factory=seeds("flood"), rate=0.5, burst=5)
    info = create_room(client, settings={"cards": 5})
    room = info["room"]
    a = join(client, room, info["seats"][0]["claim"])
    b = join(client, room, info["seats"][1]["claim"])
    time.sleep(4.2)  # refill a's bucket after joining
    before = snapshot(client, room)
    for _ in range(60):
        a.send({"type": "act", "action": {"bid": [99]}})
    time.sleep(2.2)  # let the bucket refill so the sync ping gets through
    a.sync()
    limited = [f for f in a.errors() if f["code"] == "rate_limited"]
    illegal = [f for f in a.errors() if f["code"] == "illegal"]
    assert len(limited) == 1 and "at most 0.5 per second" in limited[0]["message"]
    assert 5 <= len(illegal) < 60  # only the burst got through
    assert snapshot(client, room) == before
    still_served(b)


def test_parse_message_unit():
    assert parse_message('{"type": "join", "room": "x"}').room == "x"
    for text, code in [
        ("{", "bad_json"),
        ("1", "bad_message"),
        ('{"type": 3}', "bad_message"),
        ('{"type": "x"}', "unknown_type"),
        ("x" * 5000, "too_large"),
    ]:
        with pytest.raises(ProtocolError) as info:
            parse_message(text)
        assert info.value.code == code


def test_rate_limiter_refills():
    now = [0.0]
    rl = RateLimiter(rate=2.0, burst=2, clock=lambda: now[0])
    assert [rl.allow() for _ in range(3)] == [True, True, False]
    now[0] = 0.5
    assert rl.allow() and not rl.allow()


def test_event_log_is_committed_before_ack(table, tmp_path):
    """An ack means the bid is in the database file (read through a second connection)."""
    client, room, a, b = table
    got = a.request({"type": "act", "action": {"bid": [4]}, "ref": 7})
    assert any(m["type"] == "ack" and m["ref"] == 7 for m in got)
    other = sqlite3.connect(tmp_path / "web.sqlite3")
    rows = other.execute("SELECT seat, kind, payload FROM events WHERE room_id=?", (room,)).fetchall()
    assert (0, "act", '{"bid": [4]}') in rows
    other.close()


@pytest.mark.parametrize(
    "raw",
    ['{"type":"ping","ref":1,"ref":"dup"}', '{"type":"act","action":{"bid":[1],"bid":[2]}}'],
)
def test_a_key_twice_in_one_object_is_malformed_json(table, raw):
    """Regression (a hostile-input session): the parser kept the last value, so one message
    could mean two things. Refused as bad_json over the socket (nothing changes), and in
    HTTP bodies (below)."""
    with pytest.raises(ProtocolError) as exc:
        parse_message(raw)
    assert exc.value.code == "bad_json" and "twice" in str(exc.value)
    client, room, a, b = table
    before = snapshot(client, room)
    a.request(raw)
    err = last_error(a)
    assert err["code"] == "bad_json" and "twice" in err["message"]
    assert snapshot(client, room) == before
    still_served(b)


def test_a_key_twice_in_a_creation_form_is_refused(make_client):
    client = make_client()
    body = '{"settings":{"cards":3},"settings":{"cards":5}}'
    r = client.post("/api/rooms", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "twice" in r.json()["error"]
    assert client.get("/api/lobby").json() == []


def test_a_bot_that_fails_to_start_for_the_next_game_is_replaced_not_fatal(make_client, monkeypatch, caplog):
    """``next`` starts the room's bots again; one that raises (a table damaged since the room
    was made) is logged and replaced by random legal play, and the connection lives on (it
    raised through the WebSocket handler and closed the connection)."""
    client = make_client(rate=1000, burst=1000)
    info = create_room(
        client, seats=[{"name": "Ann"}, {"bot": "heuristic"}], settings={"cards": 1}, match="total 3"
    )
    room_id = info["room"]
    me = join(client, room_id, info["seats"][0]["claim"])
    me.request({"type": "act", "action": {"bid": [1]}})
    me.wait_for(lambda s: s["view"]["phase"] == "over")
    adapter = client.app.state.hub.rooms[room_id].adapter
    real = type(adapter).new_bot  # patched on the class: an instance attribute would outlive the test

    def broken(self, name, seat, settings):
        if name == "heuristic":
            raise RuntimeError("the table is damaged")
        return real(self, name, seat, settings)

    monkeypatch.setattr(type(adapter), "new_bot", broken)
    me.request({"type": "next"})
    assert me.state()["game_no"] == 2
    me.request({"type": "act", "action": {"bid": [1]}})
    assert (
        me.wait_for(lambda s: s["view"]["phase"] == "over")["game_no"] == 2
    )  # the bot's seat was played for
    assert "failed to start" in caplog.text
    me.request({"type": "next"})  # the connection lives on: the third game starts
    assert me.state()["game_no"] == 3 and not me.errors()


def test_a_room_plays_at_most_max_room_games(make_client, monkeypatch):
    """Rematches grew a room without end (each game in memory, replayed at each load)."""
    import cardtable.web.rooms as rooms_module

    monkeypatch.setattr(rooms_module, "MAX_ROOM_GAMES", 2)
    client = make_client(rate=1000, burst=1000)
    info = create_room(client, seats=[{"name": "Ann"}, {"bot": "random"}], settings={"cards": 1})
    me = join(client, info["room"], info["seats"][0]["claim"])
    for _ in range(2):
        me.request({"type": "act", "action": {"bid": [1]}})
        me.wait_for(lambda s: s["view"]["phase"] == "over")
        me.request({"type": "next"})
    assert last_error(me)["code"] == "room_full" and "create a new room" in last_error(me)["message"]
    assert me.state()["game_no"] == 2  # nothing changed


def test_a_bot_that_fails_when_its_room_loads_is_replaced_not_fatal(make_client, monkeypatch, caplog):
    """A room loaded again (a restart) whose bot cannot start: the room is not marked broken;
    random legal play stands in for the bot, and the game can be finished."""
    from cardtable.web.games import get_adapter

    client = make_client(rate=1000, burst=1000)
    info = create_room(client, seats=[{"name": "Ann"}, {"bot": "heuristic"}], settings={"cards": 2})
    room_id = info["room"]
    me = join(client, room_id, info["seats"][0]["claim"])
    me.close()
    hub = client.app.state.hub
    hub.rooms.pop(room_id).driver.stop()  # as after a restart: the next join loads it again
    adapter = get_adapter("goofspiel")
    real = type(adapter).new_bot

    def broken(self, name, seat, settings):
        if name == "heuristic":
            raise RuntimeError("the table is damaged")
        return real(self, name, seat, settings)

    monkeypatch.setattr(type(adapter), "new_bot", broken)
    watcher = join(client, room_id)  # loads the room
    assert watcher.state()["game_no"] == 1 and not watcher.errors()
    assert "failed to start" in caplog.text
    assert room_id in hub.rooms  # loaded, not marked broken
