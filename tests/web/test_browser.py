"""The front end in a real browser: Playwright driving Debian's Chromium.

These tests fail (they do not skip) when Chromium is missing: CI installs it.
"""

from __future__ import annotations

import re

import httpx
import pytest
from web_helpers import CLAIMED, create_room, join, seeds

from cardtable.goofspiel.record import parse_text, replay_match
from cardtable.web.games.goofspiel import verify_records

pytestmark = pytest.mark.browser

TIMEOUT = 15000  # ms, per wait


def new_page(browser, **context):
    ctx = browser.new_context(**context)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors
    return page


def bid(page, rank: int) -> None:
    """Click a card to select it, click it again to confirm."""
    card = page.locator(f'#hand .card[data-rank="{rank}"]')
    card.click()
    assert "selected" in card.get_attribute("class")
    card.click()


def wait_round(page, number: int, total: int) -> None:
    if number > total:
        page.wait_for_selector('body[data-phase="over"]')
    else:
        page.wait_for_selector(f'body[data-round="{number}"][data-phase="bid"]')


def test_two_browsers_play_a_whole_game(browser, live_server):
    server = live_server()
    a = new_page(browser, viewport={"width": 1000, "height": 900})
    a.goto(server.url + "/")
    a.wait_for_selector("#seat-1")
    assert not a.is_checked("#listed")  # invite-only unless the creator asks for the lobby
    a.check("#listed")
    a.click("#createbtn")
    a.wait_for_selector("a.seat-link")
    link_a = a.get_attribute('a.seat-link[data-seat="0"]', "href")
    link_b = a.get_attribute('a.seat-link[data-seat="1"]', "href")
    assert "#claim=" in link_a and link_a != link_b
    room = a.get_attribute("#created", "data-room")
    a.goto(link_a)
    # the second player finds the game in the lobby and takes the free seat
    b = new_page(browser, viewport={"width": 800, "height": 800})
    b.goto(server.url + "/")
    b.click(f'.lobby-room[data-room="{room}"] button')
    b.wait_for_url(re.compile(r"#token="))  # a fresh token of its own, not the creator's invite for seat 2
    assert link_b.split("#claim=")[1] not in b.url
    wait_round(a, 1, 13)
    wait_round(b, 1, 13)
    for r in range(1, 14):
        bid(a, r)  # seat 1 bids A, 2, 3, ...; seat 2 bids K, Q, J, ...
        a.wait_for_selector('body[data-waiting="yes"]')
        assert "Waiting for the other player" in a.inner_text("#status")
        b.wait_for_selector('.player[data-seat="0"] .state.ready')  # "has bid", not what
        assert "has bid" in b.inner_text('.player[data-seat="0"]')
        if r == 7:  # reload while waiting: the exact view comes back
            hand_before = a.inner_html("#hand")
            a.reload()
            a.wait_for_selector('body[data-waiting="yes"]')
            assert a.inner_html("#hand") == hand_before
            assert "You bid 7♠" in a.inner_text("#hint")
        bid(b, 14 - r)
        wait_round(a, r + 1, 13)
        wait_round(b, r + 1, 13)
        if r < 13:
            reveal = a.inner_text("#reveal")
            assert (
                f"Round {r}:" in reveal and f"{'A' if r == 1 else r if r < 11 else 'JQK'[r - 11]}♠" in reveal
            )
    for page in (a, b):
        page.wait_for_selector("#winner")
        page.wait_for_selector("#fair-commit.ok")
        page.wait_for_selector("#fair-order.ok")
        assert len(page.locator("#history tbody tr").all()) == 13
    record = a.request.get(server.url + a.get_attribute("#download", "href")).text()
    records = parse_text(record)
    games, _ = replay_match(records)
    assert games[0].is_over and verify_records(records)
    assert [r.bids for r in records[0].rounds] == [((r,), (14 - r,)) for r in range(1, 14)]
    # rematch from the end screen: both players get a fresh game
    a.click("#nextbtn")
    wait_round(a, 1, 13)
    wait_round(b, 1, 13)
    assert len(b.locator("#hand .card.playable").all()) == 13
    assert not a.js_errors and not b.js_errors


def test_one_browser_against_a_bot(browser, live_server):
    server = live_server()
    page = new_page(browser, viewport={"width": 900, "height": 900})
    page.goto(server.url + "/")
    page.wait_for_selector("#seat-1")
    page.select_option("#seat-1", "heuristic")
    page.fill("#name-0", "Anna")
    page.click("#createbtn")
    page.wait_for_selector("a.seat-link")
    page.click('a.seat-link[data-seat="0"]')
    for r in range(1, 14):
        wait_round(page, r, 13)
        assert "heuristic bot" in page.inner_text("#players")
        rank = int(page.locator("#hand .card.playable").last.get_attribute("data-rank"))
        bid(page, rank)
    wait_round(page, 14, 13)
    assert page.locator("#winner").is_visible()
    assert "Anna" in page.inner_text("#myname")
    assert len(page.locator("#history tbody tr").all()) == 13
    assert not page.js_errors


def test_phone_screen_shows_the_whole_hand(browser, live_server, tmp_path):
    server = live_server()
    info = httpx.post(server.url + "/api/rooms", json={"seats": [{}, {"bot": "random"}]}).json()
    page = new_page(
        browser, viewport={"width": 375, "height": 667}, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    page.goto(f"{server.url}/play/{info['room']}#claim={info['seats'][0]['claim']}")
    wait_round(page, 1, 13)
    for r in (1, 2):
        bid(page, r)
        wait_round(page, r + 1, 13)
    shot = tmp_path / "phone.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 1000
    cards = page.locator("#hand .card").all()
    assert len(cards) == 13
    for c in cards:
        box = c.bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= 375, box
        assert box["y"] >= 0 and box["y"] + box["height"] <= 667, box
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375  # no sideways scrolling
    assert not page.js_errors


def test_golf_page_against_a_bot(browser, live_server):
    server = live_server()
    page = new_page(browser, viewport={"width": 900, "height": 1000})
    page.goto(server.url + "/")
    page.wait_for_selector("#seat-1")
    page.select_option("#game", "golf")
    page.select_option("#seat-1", "heuristic")
    page.click("#createbtn")
    page.wait_for_selector("a.seat-link")
    page.click('a.seat-link[data-seat="0"]')
    page.wait_for_selector('body[data-actor="0"]')
    # the bottom row is known, the rest face down; the bot's grid is all face down
    assert len(page.locator('.grid[data-seat="0"] .card[data-rank]').all()) == 3
    assert len(page.locator('.grid[data-seat="1"] .card.back').all()) == 9
    for _ in range(300):
        page.wait_for_selector('body[data-actor="0"], body[data-phase="over"]')
        phase = page.get_attribute("body", "data-phase")
        if phase == "over":
            break
        if phase == "draw":
            page.click("#btn-draw")
        elif phase == "drawn":
            if page.locator("#mode-swap").count():
                page.click("#mode-swap")
                page.locator('.grid[data-seat="0"] .card').first.click()
            else:
                page.click("#btn-discard")
        else:  # pass a card after snapping
            page.locator('.grid[data-seat="0"] .card').first.click()
        page.wait_for_function(
            f"document.body.dataset.phase !== '{phase}' || document.body.dataset.actor !== '0'"
        )
    page.wait_for_selector("#winner")
    page.wait_for_selector("#fair-commit.ok")
    assert "fewest points" in page.inner_text("#winner")
    assert not page.js_errors


def test_page_reconnects_after_a_server_restart(browser, tmp_path):
    """The server goes away mid-game and comes back on the same database: the
    page shows that it is reconnecting, reconnects by itself and plays on."""
    from web_helpers import LiveServer

    from cardtable.web.app import create_app

    db = tmp_path / "restart.sqlite3"
    first = LiveServer(create_app(db)).__enter__()
    port = first.port
    try:
        info = httpx.post(first.url + "/api/rooms", json={"seats": [{}, {"bot": "matcher"}]}).json()
        page = new_page(browser, viewport={"width": 900, "height": 900})
        page.goto(f"{first.url}/play/{info['room']}#claim={info['seats'][0]['claim']}")
        wait_round(page, 1, 13)
        bid(page, 13)
        wait_round(page, 2, 13)
    finally:
        first.__exit__()
    page.wait_for_selector("#conn:not(.hidden)")  # "Reconnecting…"
    second = LiveServer(create_app(db), port=port).__enter__()
    try:
        page.wait_for_selector("#conn.hidden", state="attached")
        wait_round(page, 2, 13)
        assert page.locator('#hand .card.spent[data-rank="13"]').count() == 1
        bid(page, 12)
        wait_round(page, 3, 13)
        assert len(page.locator("#history tbody tr").all()) == 2
    finally:
        second.__exit__()


def visible_texts(page, text: str) -> int:
    """How many visible elements show exactly ``text`` (innermost elements only)."""
    return page.evaluate(
        """(t) => Array.from(document.querySelectorAll('body *')).filter((e) =>
             e.children.length === 0 && e.textContent.trim() === t && e.offsetParent !== null).length""",
        text,
    )


def test_lobby_refuses_a_bot_that_cannot_play_the_ruleset(browser, live_server):
    server = live_server()
    page = new_page(browser, viewport={"width": 1000, "height": 900})
    page.goto(server.url + "/")
    page.wait_for_selector("#seat-1")
    sub = page.inner_text("#subtitle")
    assert "Goofspiel" in sub and "Golf" in sub
    page.select_option("#seat-1", "nash")  # allowed for the standard rules ...
    page.fill("#f-cards_per_bid", "2")
    page.dispatch_event("#f-cards_per_bid", "change")
    # ... the form marks it once the rules change (checked by the server) ...
    page.wait_for_selector('#seat-0 option[value="nash"]:disabled', state="attached")
    assert "cannot play these rules" in page.inner_text('#seat-0 option[value="nash"]')
    assert page.locator('#seat-0 option[value="heuristic"]:disabled').count() == 0
    page.click("#createbtn")  # ... and the server refuses the seat still set to nash
    page.wait_for_selector("#err:not(.hidden)")
    assert "nash cannot play this ruleset" in page.inner_text("#err")
    assert page.locator("#created").is_hidden()
    assert httpx.get(server.url + "/api/lobby").json() == []
    assert not page.js_errors


def test_goofspiel_phone_single_card_bids_and_one_game_over(browser, live_server):
    server = live_server()
    info = httpx.post(
        server.url + "/api/rooms", json={"settings": {"cards": 3}, "seats": [{}, {"bot": "matcher"}]}
    ).json()
    page = new_page(browser, viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True)
    page.goto(f"{server.url}/play/{info['room']}#claim={info['seats'][0]['claim']}")
    wait_round(page, 1, 3)
    assert page.inner_text("#hint") == "Click or type a card to bid it"
    assert page.locator("#bidbtn").is_hidden()  # single-card bids: click the card, no Bid button
    page.locator('#hand .card[data-rank="2"]').click()
    # the page re-renders on its own schedule (a loaded machine): wait for the text, do not sample it
    from playwright.sync_api import expect

    expect(page.locator("#hint")).to_have_text("Enter (or the card again) bids 2♠", timeout=TIMEOUT)
    assert page.locator("#bidbtn").is_hidden()
    page.locator('#hand .card[data-rank="2"]').click()
    for r in (2, 3):
        wait_round(page, r, 3)
        rank = int(page.locator("#hand .card.playable").first.get_attribute("data-rank"))
        bid(page, rank)
    wait_round(page, 4, 3)
    page.wait_for_selector("#winner")
    assert visible_texts(page, "Game over") == 1
    assert not page.js_errors


def test_goofspiel_two_card_bids_keep_the_bid_button(browser, live_server):
    server = live_server()
    info = httpx.post(
        server.url + "/api/rooms",
        json={"settings": {"cards": 6, "cards_per_bid": 2}, "seats": [{}, {"bot": "random"}]},
    ).json()
    page = new_page(browser, viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True)
    page.goto(f"{server.url}/play/{info['room']}#claim={info['seats'][0]['claim']}")
    wait_round(page, 1, 3)
    assert page.locator("#bidbtn").is_visible() and page.locator("#bidbtn").is_disabled()
    assert "Pick 2 cards" in page.inner_text("#hint")


def test_golf_first_turn_end_wording_and_empty_pile(browser, live_server, make_client, tmp_path):
    """Two people draw and discard until the draw pile runs out (in-process), then a
    server on the same database shows a fresh game's first turn and the finished game."""
    db = tmp_path / "golf.sqlite3"
    client = make_client(db=db, seed_factory=seeds("golf-pile"), rate=1000, burst=1000)
    info = create_room(client, game="golf", seats=[{"name": "Ann"}, {"name": "Bob"}])
    room, tokens = info["room"], [s["claim"] for s in info["seats"]]

    socks = [join(client, room, t) for t in tokens]
    for _ in range(400):
        view = socks[0].state()["view"]
        if view["phase"] == "over":
            break
        action = {"type": "draw"} if view["phase"] == "draw" else {"type": "discard"}
        got = socks[view["actor"]].request({"type": "act", "action": action})
        assert not [m for m in got if m["type"] == "error"], got
        socks[0].sync()
    view = socks[0].state()["view"]
    assert view["phase"] == "over" and view["result"]["reason"] == "pile" and view["draw_pile"] == 0
    fresh = create_room(client, game="golf", seats=[{"name": "Ann"}, {"name": "Bob"}])
    server = live_server(db_path=db)  # on the same database, after the game above
    page = new_page(browser, viewport={"width": 900, "height": 1000})
    page.goto(f"{server.url}/play/{fresh['room']}#claim={fresh['seats'][0]['claim']}")
    page.wait_for_selector('body[data-actor="0"][data-phase="draw"]')
    # the first turn: the status line and the hint under the buttons say the same thing
    assert page.inner_text("#status") == "Your turn: draw a card"
    assert "press Draw" in page.inner_text("#hint") and "waiting" not in page.inner_text("#hint")
    assert page.locator("#pilecard.card.back").count() == 1

    page.goto(
        f"{server.url}/play/{room}#token={CLAIMED[tokens[0]]}"
    )  # the token the invite was exchanged for
    page.wait_for_selector("#winner")
    winner = page.inner_text("#winner")
    assert "the draw pile ran out" in winner and "ended by" not in winner
    assert page.locator("#pilecard.slot-hole").count() == 1 and page.locator("#pile .card.back").count() == 0
    assert page.inner_text("#pilecount").strip() == "empty"
    assert visible_texts(page, "Game over") == 1
    assert not page.js_errors


def test_browser_recomputes_the_shuffle_and_keeps_the_commitment(browser, live_server, monkeypatch):
    """The end screen checks the seed itself: the documented shuffle in JavaScript (the same
    orders as Python's), against the commitment kept across a reload; a server that reveals
    another seat at the end, with a matching new commitment and a "✓" verdict, is caught."""
    import hashlib

    from cardtable.goofspiel import Ruleset
    from cardtable.goofspiel.state import prize_order_for
    from cardtable.web.games.goofspiel import GoofspielAdapter

    forged = "forged-seed"
    assert prize_order_for(Ruleset(cards=5), forged) != prize_order_for(Ruleset(cards=5), "liar-seed")
    real_view = GoofspielAdapter.view

    def lying_view(self, state, seat):
        out = real_view(self, state, seat)
        if state.game.seed == "liar-seed" and out["phase"] == "over":
            commit = hashlib.sha256(forged.encode()).hexdigest()
            order = prize_order_for(state.game.ruleset, forged)
            out.update(seed=forged, seed_commit=commit)
            out["fairness"] = {
                "seed": forged,
                "commit": commit,
                "commit_ok": True,
                "prize_order": order,
                "order_ok": True,
            }
        return out

    monkeypatch.setattr(GoofspielAdapter, "view", lying_view)
    server = live_server(seed_factory=seeds("honest-seed", "liar-seed"))
    page = new_page(browser, viewport={"width": 900, "height": 900})
    for name in ("honest", "liar"):
        info = httpx.post(
            server.url + "/api/rooms", json={"settings": {"cards": 5}, "seats": [{}, {"bot": "matcher"}]}
        ).json()
        page.goto(f"{server.url}/play/{info['room']}#claim={info['seats'][0]['claim']}")
        wait_round(page, 1, 5)
        if name == "honest":  # the JavaScript shuffle gives Python's orders
            for seed in ("42", "abc", "9cd1440647e56d6287100651cf327378", "é✓"):
                got = page.evaluate("(s) => CT.seededShuffle([1,2,3,4,5,6,7,8,9,10,11,12,13], s)", seed)
                assert got == prize_order_for(Ruleset(cards=13), seed), seed
        for r in range(1, 6):
            bid(page, r)
            wait_round(page, r + 1, 5)
            if r == 2:
                page.reload()  # the commitment seen at the start survives a reload
                wait_round(page, 3, 5)
        page.wait_for_selector("#fair-commit")
        commit, order = page.inner_text("#fair-commit"), page.inner_text("#fair-order")
        if name == "honest":
            assert page.locator("#fair-commit.ok").count() == 1 and "saw at the start" in commit
            assert page.locator("#fair-order.ok").count() == 1 and "recomputed in this browser" in order
        else:
            assert page.locator("#fair-commit.bad").count() == 1 and "does not match" in commit
            assert page.locator("#fair-order.bad").count() == 1
    assert not page.js_errors
