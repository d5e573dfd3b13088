"""Golf through the same server core: the adapter, per-viewer views, bad input,
restart, records and ``cardtable verify`` for Golf records."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner
from web_helpers import create_room, join, seeds

from cardtable.cli import app as cli
from cardtable.golf.cards import card_rank
from cardtable.golf.record import parse_text, replay_records


def strip(action: dict) -> dict:
    return {k: v for k, v in action.items() if k != "player"}


def check_views(client, room_id, frames_by_seat) -> int:
    """Every rank a viewer sees in a grid is a card that viewer has seen (spectators: none).
    Returns how many frames were checked (a frame is compared only with the state it shows:
    bots act in a thread, so the live game may be ahead of the last frame)."""
    game = client.app.state.hub.rooms[room_id].current.state.game
    checked = 0
    for seat, view in frames_by_seat.items():
        if game.over or len(view["events"]) != len(game.history):
            continue
        checked += 1
        for owner, grid in enumerate(view["grids"]):
            for pos, rank in enumerate(grid):
                card = game.grids[owner][pos]
                if card is None:
                    assert rank is None
                elif rank:
                    assert seat is not None and card in game.known[seat] and card_rank(card) == rank
        if view["drawn"] is not None:  # spectators see only a shown Detective or Thief
            knowers = game.known if seat is None else [game.known[seat]]
            assert all(game.drawn in k for k in knowers)
    return checked


def play_out(client, room, me, watcher, seat=0, limit=600):
    """Play seat ``seat``'s turns (draw, then swap into the first slot or discard) until the game ends."""
    checked = 0
    for _ in range(limit):
        me.sync()
        watcher.sync()
        view = me.state()["view"]
        checked += check_views(client, room, {seat: view, None: watcher.state()["view"]})
        if view["phase"] == "over":
            assert checked >= 10  # most frames were compared with the game
            return view
        if view["actor"] != seat:
            me.wait_for(lambda s: s["view"]["actor"] == seat or s["view"]["phase"] == "over")
            continue
        legal = view["legal_actions"]
        swaps = [a for a in legal if a["type"] in ("swap", "pass")]
        choice = swaps[0] if swaps and view["phase"] != "draw" else legal[0]
        got = me.request({"type": "act", "action": strip(choice)})
        assert not [m for m in got if m["type"] == "error"], got
    raise AssertionError("the game did not end")


def test_golf_against_a_bot_with_a_spectator(make_client, tmp_path):
    client = make_client(seed_factory=seeds("golf-1", "golf-2"), rate=1000, burst=1000)
    info = create_room(client, game="golf", seats=[{"name": "Ann"}, {"bot": "heuristic"}], match="total 2")
    room = info["room"]
    me = join(client, room, info["seats"][0]["claim"])
    watcher = join(client, room)
    first = me.state()["view"]
    assert first["grids"][0][6:] != [0, 0, 0] and first["grids"][0][:6] == [0] * 6  # the bottom row is seen
    assert watcher.state()["view"]["grids"][0] == [0] * 9 and watcher.state()["view"]["legal_actions"] == []
    final = play_out(client, room, me, watcher)
    assert final["fairness"]["commit_ok"] and final["fairness"]["order_ok"]
    assert final["seed_commit"] == info["commit"]
    # next game of the match: the other seat starts
    me.request({"type": "next"})
    assert me.state()["game_no"] == 2 and me.state()["view"]["current"] == 1
    play_out(client, room, me, watcher)
    text = client.get(f"/api/rooms/{room}/record?match=1").text
    games = replay_records(parse_text(text))
    assert len(games) == 2 and all(g.over for g in games)
    path = tmp_path / "golf.txt"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert result.exit_code == 0 and "SeedCommit" in result.output, result.output
    path.write_text(text.replace('[Seed "golf-1"]', '[Seed "golf-9"]'), encoding="utf-8")
    assert CliRunner().invoke(cli, ["verify", str(path)]).exit_code == 1
    # the JSON notation of the same record verifies the same (regression: it was read as text)
    from cardtable.golf.record import to_json

    jpath = tmp_path / "golf.json"
    jpath.write_text(to_json(parse_text(text)), encoding="utf-8")
    result = CliRunner().invoke(cli, ["verify", str(jpath)])
    assert result.exit_code == 0 and "SeedCommit" in result.output, result.output
    jpath.write_text(
        to_json(parse_text(text.replace('[Seed "golf-1"]', '[Seed "golf-9"]'))), encoding="utf-8"
    )
    result = CliRunner().invoke(cli, ["verify", str(jpath)])
    assert result.exit_code == 1 and "not the published SeedCommit" in result.output


@pytest.mark.parametrize(
    "action, code",
    [
        ({"type": "swap", "pos": 0}, "wrong_phase"),
        ({"type": "draw", "player": 1}, "forbidden"),
        ({"type": "fly"}, "bad_action"),
        ({"type": "swap"}, "bad_action"),
        ("draw", "bad_action"),
    ],
)
def test_golf_bad_actions_change_nothing(make_client, action, code):
    client = make_client(seed_factory=seeds("golf-bad"))
    info = create_room(client, game="golf")
    a = join(client, info["room"], info["seats"][0]["claim"])
    b = join(client, info["room"], info["seats"][1]["claim"])
    room = client.app.state.hub.rooms[info["room"]]
    before = (room.version, room.current.state.game.snapshot())
    a.request({"type": "act", "action": action})
    assert a.errors()[-1]["code"] == code
    b.request({"type": "act", "action": {"type": "draw"}})
    assert b.errors()[-1]["code"] == "not_your_turn"
    assert (room.version, room.current.state.game.snapshot()) == before
    got = a.request({"type": "act", "action": {"type": "draw"}, "ref": "ok"})
    assert any(m["type"] == "ack" and m["ref"] == "ok" for m in got)


def test_golf_restart_restores_the_state(make_client, tmp_path):
    db = tmp_path / "golf.sqlite3"
    c1 = make_client(db=db, seed_factory=seeds("golf-r"))
    info = create_room(c1, game="golf", settings={"players": 3}, seats=[{}, {}, {}])
    socks = [join(c1, info["room"], s["claim"]) for s in info["seats"]]
    socks[0].request({"type": "act", "action": {"type": "draw"}})
    socks[0].request({"type": "act", "action": {"type": "swap", "pos": 8}})
    socks[1].request({"type": "act", "action": {"type": "draw"}})
    before = c1.app.state.hub.rooms[info["room"]].current.state.game.snapshot()
    views = [(ws.sync(), ws.state()["view"])[1] for ws in socks]
    for ws in socks:
        ws.close()
    c1.__exit__(None, None, None)
    c2 = make_client(db=db)
    again = [join(c2, info["room"], s["claim"]).state()["view"] for s in info["seats"]]
    assert c2.app.state.hub.rooms[info["room"]].current.state.game.snapshot() == before
    assert again == views


def test_golf_round_timer_draws_and_discards(make_client):
    client = make_client(seed_factory=seeds("golf-timer"))
    info = create_room(client, game="golf", timer=1)
    a = join(client, info["room"], info["seats"][0]["claim"])
    state = a.wait_for(lambda s: s["view"]["actor"] == 1, timeout=10)
    kinds = [e["type"] for e in state["view"]["events"]]
    assert kinds == ["draw", "discard"]
    db = client.app.state.hub.store.db
    autos = db.execute("SELECT seat FROM events WHERE room_id=? AND auto=1", (info["room"],)).fetchall()
    assert autos == [(0,), (0,)]
