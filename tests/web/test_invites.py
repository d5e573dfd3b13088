"""Invites and the lobby: a room is listed only when its creator asks (every person's seat has an
invite meant for someone), and a used or replaced invite opened again says so and offers to watch."""

from __future__ import annotations

import pytest
from web_helpers import create_room, join, open_ws


def test_a_room_whose_open_seats_have_invites_is_not_listed_by_default(make_client):
    client = make_client()
    info = create_room(client, settings={"cards": 5}, seats=[{"name": "Host"}, {"name": "Friend"}])
    three = create_room(
        client, settings={"cards": 5, "players": 3, "unique_bids": True}, seats=[{"name": "Host"}, {}, {}]
    )
    assert all(s["claim"] for s in info["seats"])  # both seats are invite links
    assert client.get("/api/lobby").json() == []
    for room in (info["room"], three["room"]):
        r = client.post(f"/api/rooms/{room}/join")  # nobody takes the friend's seat from outside
        assert r.status_code == 409 and "not listed" in r.json()["error"]
    friend = join(client, info["room"], info["seats"][1]["claim"])  # the invite still works
    assert friend.frames[0]["type"] == "welcome" and friend.frames[0]["seat"] == 1


def test_a_room_is_listed_when_its_creator_asks(make_client):
    client = make_client()
    info = create_room(
        client, settings={"cards": 5}, seats=[{"name": "Host"}, {"name": "Anyone"}], listed=True
    )
    lobby = client.get("/api/lobby").json()
    assert [r["room"] for r in lobby] == [info["room"]]
    assert [s["free"] for s in lobby[0]["seats"]] == [False, True]  # the creator's seat is kept
    got = client.post(f"/api/rooms/{info['room']}/join")
    assert got.status_code == 200 and got.json()["seat"] == 1
    # the lobby claim revoked seat 2's invite
    assert join(client, info["room"], info["seats"][1]["claim"]).errors()[-1]["code"] == "bad_claim"


@pytest.mark.parametrize(
    "listed, bad", [(None, False), (False, False), (True, False), ("yes", True), (1, True)]
)
def test_listed_is_a_strict_boolean_defaulting_to_false(make_client, listed, bad):
    client = make_client()
    body = {"game": "goofspiel", "settings": {"cards": 4}, "seats": [{}, {"bot": "random"}]}
    if listed is not None:
        body["listed"] = listed
    r = client.post("/api/rooms", json=body)
    if bad:
        assert r.status_code == 400 and "listed" in r.json()["error"]
        assert client.get("/api/lobby").json() == []
        return
    assert r.status_code == 200
    # one person and a bot: the person's seat is the creator's, so even a listed room offers nothing
    assert client.get("/api/lobby").json() == []


def test_a_used_invite_is_refused_and_the_same_connection_can_then_watch(make_client):
    client = make_client()
    info = create_room(client, settings={"cards": 5}, seats=[{"name": "Host"}, {"name": "Friend"}])
    room, code = info["room"], info["seats"][1]["claim"]
    join(client, room, code)  # the friend used it
    again = open_ws(client)  # the link opened again in another browser (no token kept for it)
    again.request({"type": "join", "room": room, "claim": code})
    err = again.errors()[-1]
    assert err["code"] == "bad_claim" and "used up or was replaced" in err["message"]
    again.request({"type": "join", "room": room})  # a failed join may be retried: watch instead
    state = again.state()
    assert state["you"] is None and state["view"]["hand"] is None


# -- in a real browser ----------------------------------------------------------------------------
def serious_axe_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [f"{v['id']} ({v['impact']})" for v in found if v["impact"] in ("serious", "critical")]


@pytest.mark.browser
@pytest.mark.parametrize("how", ["used", "replaced"])
def test_a_used_or_replaced_invite_says_so_and_offers_to_watch(live_server, how):
    import httpx
    from playwright.sync_api import sync_playwright
    from test_browser import new_page
    from web_helpers import ARGS, CHROMIUM

    server = live_server()
    info = httpx.post(
        server.url + "/api/rooms",
        json={"settings": {"cards": 5}, "seats": [{"name": "Host"}, {"name": "Friend"}]},
    ).json()
    room, code = info["room"], info["seats"][1]["claim"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            if how == "used":
                first = new_page(browser)  # the friend opens it first, in another browser
                first.goto(f"{server.url}/play/{room}#claim={code}")
                first.wait_for_url("**#token=*")
            else:
                r = httpx.post(f"{server.url}/api/rooms/{room}/seats/1/invite", json={"owner": info["owner"]})
                assert r.status_code == 200 and r.json()["claim"] != code
            page = new_page(browser)
            page.goto(f"{server.url}/play/{room}#claim={code}")
            box = page.locator("#refused")
            box.wait_for(state="visible")
            assert box.get_attribute("data-code") == "bad_claim"
            assert box.locator("h2").text_content() == "This invite link no longer works"
            assert "new link" in box.inner_text()  # how to get another one
            assert page.inner_text("#status") == "Invite link used up"  # not "Connecting…" for good
            assert serious_axe_violations(page) == []
            page.click("#watchbtn")
            page.wait_for_selector('body[data-round="1"]')
            assert page.locator("#refused").count() == 0
            assert "#claim=" not in page.url
            assert "Host" in page.inner_text("#players") and "Friend" in page.inner_text("#players")
            assert page.locator("#hand .card").count() == 0  # a spectator: no hand
            page.reload()  # the address no longer carries the refused invite
            page.wait_for_selector('body[data-round="1"]')
            assert page.locator("#refused").count() == 0
            assert not page.js_errors
        finally:
            browser.close()
