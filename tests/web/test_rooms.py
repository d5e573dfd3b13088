"""Rooms over the HTTP API and the WebSocket: creation, lobby, variants, bots,
spectators, matches, the round timer, records and ``cardtable verify``."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner
from web_helpers import create_room, join, seeds

from cardtable.cli import app as cli
from cardtable.goofspiel.record import parse_text, replay_match
from cardtable.platform.bot import bot_names


def bid(ws, *cards):
    got = ws.request({"type": "act", "action": {"bid": list(cards)}})
    assert not [m for m in got if m["type"] == "error"], got


@pytest.mark.parametrize(
    "request_, fragment",
    [
        ({"game": "chess"}, "unknown game"),
        ({"settings": {"cards": 14}}, "cards"),
        ({"settings": {"players": 2, "open_prizes": 3, "tie_rule": "discard"}}, "open_prizes"),
        ({"settings": {"colour": "red"}}, "colour: Extra inputs are not permitted"),
        ({"seats": [{}]}, "2 seats"),
        ({"seats": [{}, {"bot": "deep-blue"}]}, "unknown goofspiel bot"),
        ({"seats": [{"name": "a;b"}, {}]}, "name"),
        ({"match": "best-of zero"}, "match"),
        ({"timer": -1}, "timer"),
        ({"timer": "soon"}, "timer"),
        ({"listed": "yes"}, "listed"),
    ],
)
def test_bad_creation_requests_are_refused(make_client, request_, fragment):
    client = make_client()
    r = client.post("/api/rooms", json={"game": "goofspiel", **request_})
    assert r.status_code == 400 and fragment in r.json()["error"], r.text
    assert client.get("/api/lobby").json() == []
    assert client.post("/api/rooms", content=b"{nope").status_code == 400


def test_options_list_every_bot_and_preset(make_client):
    options = make_client().get("/api/games").json()["goofspiel"]
    assert [b["name"] for b in options["bots"]] == bot_names("goofspiel")
    assert {"standard", "discard", "open-prizes", "two-card-bids", "three-player"} <= set(options["presets"])


def test_lobby_lists_open_games_and_hands_out_free_seats(make_client):
    client = make_client()
    info = create_room(
        client,
        settings={"players": 3, "cards": 5, "unique_bids": True},
        seats=[{"name": "Host"}, {}, {"bot": "random"}],
        listed=True,
    )
    hidden = create_room(client, listed=False)
    lobby = client.get("/api/lobby").json()
    assert [r["room"] for r in lobby] == [info["room"]]
    assert [s["free"] for s in lobby[0]["seats"]] == [False, True, False]  # seat 1 is the creator's
    assert "token" not in str(lobby)
    got = client.post(f"/api/rooms/{info['room']}/join").json()
    assert got["seat"] == 1 and got["token"] != info["seats"][1]["claim"]  # a fresh token, not the invite
    assert client.post(f"/api/rooms/{info['room']}/join").status_code == 409
    assert client.post(f"/api/rooms/{hidden['room']}/join").status_code == 409
    assert client.get("/api/lobby").json() == []


def test_spectators_see_no_hand_and_no_pending_bid(make_client):
    client = make_client(seed_factory=seeds("spec"))
    info = create_room(client, settings={"cards": 4})
    a = join(client, info["room"], info["seats"][0]["claim"])
    watcher = join(client, info["room"])
    bid(a, 3)
    watcher.sync()
    view = watcher.state()["view"]
    assert view["hand"] is None and view["my_bid"] is None
    assert view["players"][0]["has_bid"] is True and view["players"][0]["remaining"] == [1, 2, 3, 4]
    assert "3" not in str(view["players"][0]["spent"])
    assert a.state()["view"]["my_bid"] == [3]


def test_open_prizes_with_a_choice(make_client):
    client = make_client(seed_factory=seeds("open"))
    info = create_room(
        client,
        settings={"preset": "open-prizes", "cards": 6, "players": 3},
        seats=[{}, {}, {"bot": "heuristic"}],
    )
    a = join(client, info["room"], info["seats"][0]["claim"])
    b = join(client, info["room"], info["seats"][1]["claim"])
    bid(a, 6)
    bid(b, 5)
    state = a.wait_for(lambda s: s["view"]["phase"] == "choose")
    view = state["view"]
    assert view["chooser"] == 0 and view["revealed"]["bids"][0] == [6]
    b.request({"type": "act", "action": {"choose": view["pot"][0]}})
    assert b.errors()[-1]["code"] == "not_your_turn"
    best = max(view["pot"])
    a.request({"type": "act", "action": {"choose": best}})
    after = a.wait_for(lambda s: s["view"]["round"] == 2 and s["view"]["phase"] == "bid")
    assert best in after["view"]["players"][0]["won"]


def test_two_card_bids_against_a_bot(make_client):
    client = make_client(seed_factory=seeds("two"))
    info = create_room(
        client, settings={"preset": "two-card-bids", "cards": 8}, seats=[{}, {"bot": "random"}]
    )
    a = join(client, info["room"], info["seats"][0]["claim"])
    a.request({"type": "act", "action": {"bid": [8]}})
    assert a.errors()[-1]["code"] == "illegal"
    for pair in ((1, 2), (3, 4), (5, 6), (7, 8)):
        a.wait_for(lambda s: s["view"]["players"][1]["has_bid"] or s["view"]["phase"] == "over")
        bid(a, *pair)
    final = a.wait_for(lambda s: s["view"]["phase"] == "over")["view"]
    assert len(final["history"]) == 4 and all(len(r["bids"][1]) == 2 for r in final["history"])


def test_round_timer_bids_the_lowest_card(make_client):
    client = make_client(seed_factory=seeds("timer"))
    info = create_room(client, settings={"cards": 5}, timer=1)
    a = join(client, info["room"], info["seats"][0]["claim"])
    b = join(client, info["room"], info["seats"][1]["claim"])
    assert a.state()["timer"]["seconds"] == 1 and a.state()["timer"]["left"] is not None
    bid(b, 5)
    state = a.wait_for(lambda s: s["view"]["round"] == 2, timeout=10)
    first = state["view"]["history"][0]
    assert first["bids"] == [[1], [5]]  # seat 1 timed out: its lowest card was bid
    db = client.app.state.hub.store.db
    assert db.execute(
        "SELECT seat, auto FROM events WHERE room_id=? AND auto=1", (info["room"],)
    ).fetchall() == [(0, 1)]


def test_match_next_game_rematch_and_records(make_client, tmp_path):
    client = make_client(seed_factory=seeds("m1", "m2", "m3"))
    info = create_room(client, settings={"cards": 3}, match="best-of 3 total-points")
    room = info["room"]
    a = join(client, room, info["seats"][0]["claim"])
    b = join(client, room, info["seats"][1]["claim"])
    assert client.get(f"/api/rooms/{room}/record").status_code == 409  # nothing finished: no seed revealed
    a.request({"type": "next"})
    assert a.errors()[-1]["code"] == "wrong_phase"
    for game_no in (1, 2):
        for card in (1, 2, 3):
            bid(a, 4 - card)
            bid(b, card)
        a.sync()
        state = a.state()
        assert state["view"]["phase"] == "over" and state["match"]["game"] == game_no
        if game_no == 1:
            assert state["match"]["next"] == "next game" and not state["match"]["over"]
            a.request({"type": "next"})
            a.sync()
            assert a.state()["game_no"] == 2 and a.state()["view"]["phase"] == "bid"
            assert a.state()["view"]["seed_commit"] != state["view"]["seed_commit"]
    match = a.state()["match"]
    assert match["over"] and match["next"] == "rematch" and len(match["scores"]) == 2
    text = client.get(f"/api/rooms/{room}/record?match=1").text
    records = parse_text(text)
    games, m = replay_match(records)
    assert len(games) == 2 and m is not None and list(m.result()) == match["result"]
    assert f'[MatchResult "{" ".join(match["result"])}"]' in text and text.count("[SeedCommit") == 2
    path = tmp_path / "match.txt"
    path.write_text(text, encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(cli, ["verify", str(path)])
    assert result.exit_code == 0 and "2 game(s)" in result.output, result.output
    assert runner.invoke(cli, ["replay", str(path)]).exit_code == 0
    # a tampered seed fails verification
    path.write_text(text.replace('[Seed "m1"]', '[Seed "m9"]'), encoding="utf-8")
    bad = runner.invoke(cli, ["verify", str(path)])
    assert bad.exit_code == 1 and "SeedCommit" in bad.output
    # rematch: a new match in the same room, same seats
    b.request({"type": "next"})
    b.sync()
    assert b.state()["match"]["match_no"] == 2 and b.state()["game_no"] == 3
    assert client.get(f"/api/rooms/{room}/record?game=3").status_code == 409


def test_verify_refuses_records_without_commitment(tmp_path):
    from cardtable.goofspiel import Game, Ruleset
    from cardtable.goofspiel.record import record_from_game, write_text

    game = Game(Ruleset(cards=3), seed="x")
    for _ in range(3):
        game.play([min(game.hands[0]), min(game.hands[1])])
    path = tmp_path / "r.txt"
    path.write_text(write_text(record_from_game(game, ["A", "B"])), encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert result.exit_code == 1 and "no SeedCommit tag" in result.output
    assert CliRunner().invoke(cli, ["verify", str(tmp_path / "missing.txt")]).exit_code == 2


def test_finished_rooms_leave_memory_and_come_back(make_client):
    import time

    client = make_client(seed_factory=seeds("evict"))
    info = create_room(client, settings={"cards": 2})
    a = join(client, info["room"], info["seats"][0]["claim"])
    b = join(client, info["room"], info["seats"][1]["claim"])
    for card in (2, 1):
        bid(a, card)
        bid(b, card)
    a.sync()
    final = a.state()["view"]
    assert final["phase"] == "over"
    a.close()
    b.close()
    hub = client.app.state.hub
    end = time.monotonic() + 10
    while info["room"] in hub.rooms:
        assert time.monotonic() < end, "the finished room stayed in memory"
        time.sleep(0.02)
    watcher = join(client, info["room"])
    view = watcher.state()["view"]
    assert view["history"] == final["history"] and view["result"] == final["result"] and view["hand"] is None


def test_serve_refuses_bad_options(tmp_path):
    runner = CliRunner()
    bad_db = tmp_path / "not-a-db.sqlite3"
    bad_db.write_bytes(b"this is not an SQLite database" * 100)
    result = runner.invoke(
        cli, ["serve", "--port", "0", "--db", str(bad_db)]
    )  # port 0: free whatever else runs
    assert result.exit_code == 2 and "cannot open the database" in result.output
    assert runner.invoke(cli, ["serve", "--log-level", "loud"]).exit_code == 2
    assert runner.invoke(cli, ["serve", "--port", "70000"]).exit_code == 2
