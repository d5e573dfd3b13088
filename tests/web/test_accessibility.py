"""Accessibility of the browser table: axe-core on every page, whole games from the keyboard
alone, and the reveal of Goofspiel bids (face down, turned together, a skippable pause against
a bot, reduced motion honoured).

axe-core runs from the axe.min.js shipped inside the axe-playwright-python wheel (no network).
These tests fail (they do not skip) when Chromium is missing: CI installs it.
"""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.browser

TIMEOUT = 15000  # ms, per wait
BLOCKING = ("serious", "critical")


def new_page(browser, **context):
    context.setdefault("viewport", {"width": 1280, "height": 800})
    page = browser.new_context(**context).new_page()
    page.set_default_timeout(TIMEOUT)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors
    return page


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now, one line each."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:5]]}"
        for v in found
        if v["impact"] in BLOCKING
    ]


def gops_room(server, cards: int = 5, bot: str = "heuristic") -> str:
    info = httpx.post(
        server.url + "/api/rooms",
        json={"seats": [{"name": "Kim"}, {"bot": bot}], "settings": {"cards": cards}},
    ).json()
    return f"{server.url}/play/{info['room']}#claim={info['seats'][0]['claim']}"


def golf_room(server) -> str:
    # the smallest grid there is: one card each
    info = httpx.post(
        server.url + "/api/rooms",
        json={
            "game": "golf",
            "settings": {"rows": 1, "cols": 1, "peek_rows": 1},
            "seats": [{"name": "Kim"}, {"bot": "heuristic"}],
        },
    ).json()
    assert "room" in info, info
    return f"{server.url}/play/{info['room']}#claim={info['seats'][0]['claim']}"


def focused(page, selector: str) -> bool:
    return page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector)


def tab_to(page, selector: str, limit: int = 60) -> None:
    """Press Tab until the focus is on an element matching selector."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if focused(page, selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def focus_ring(page) -> str:
    """The focused element's outline (style and width): visible focus, not the browser default."""
    return page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle + ' ' + s.outlineWidth; }"
    )


def test_lobby_has_no_serious_axe_violations(browser, live_server):
    server = live_server()
    page = new_page(browser)
    page.goto(server.url + "/")
    page.wait_for_selector("#seat-1")
    page.wait_for_selector(".lobby-room, #lobby .mini:not(:empty)")
    assert serious_violations(page) == []
    # the form is reachable from the keyboard with a visible focus
    tab_to(page, "#createbtn")
    assert focus_ring(page).startswith("solid 3px")
    assert not page.js_errors


def test_goofspiel_whole_game_by_keyboard_and_axe(browser, live_server):
    server = live_server()
    page = new_page(browser)
    page.goto(gops_room(server, cards=5))
    page.wait_for_selector('body[data-round="1"][data-phase="bid"]')
    assert serious_violations(page) == []
    # round 1: Tab to a hand card (a real button, focus visible), Enter selects it, Enter bids it
    tab_to(page, "#hand button.card")
    assert focus_ring(page).startswith("solid 3px")
    rank = page.evaluate("document.activeElement.dataset.rank")
    page.keyboard.press("Enter")
    assert page.get_attribute(f'#hand button.card[data-rank="{rank}"]', "aria-pressed") == "true"
    assert focused(page, f'#hand button.card[data-rank="{rank}"]')  # the focus survives the re-render
    page.keyboard.press("Enter")
    page.wait_for_selector('body[data-round="2"][data-phase="bid"]')
    assert page.locator(f'#hand .card.spent[data-rank="{rank}"]').count() == 1
    # the other rounds: type the card as in the terminal, Enter bids it
    left = [r for r in range(1, 6) if r != int(rank)]
    forms = {1: "A", 2: "2", 3: "3s", 4: "4♠", 5: "5"}
    for number, r in enumerate(left, start=2):
        page.wait_for_selector(f'body[data-round="{number}"][data-phase="bid"]')
        page.keyboard.type(forms[r])
        assert page.locator("#hand .card.selected").get_attribute("data-rank") == str(r)
        page.keyboard.press("Enter")
    page.wait_for_selector('body[data-phase="over"]')
    page.wait_for_selector("#winner")
    assert len(page.locator("#history tbody tr").all()) == 5
    assert serious_violations(page) == []
    log = page.inner_text("#announce")
    assert "revealed" in log and "Game over" in log
    # the analysis page of this game
    page.goto(server.url + page.get_attribute("#analysislink", "href"))
    page.wait_for_selector('body[data-state="ready"]', state="attached", timeout=60000)
    assert serious_violations(page) == []
    assert not page.js_errors


def test_goofspiel_typing_mistakes_are_explained(browser, live_server):
    server = live_server()
    page = new_page(browser)
    page.goto(gops_room(server, cards=5))
    page.wait_for_selector('body[data-round="1"][data-phase="bid"]')
    page.keyboard.type("K")  # not a card of a 5-card game
    assert "ranks run from A to 5" in page.inner_text("#hint")
    page.keyboard.press("Enter")
    assert page.get_attribute("body", "data-round") == "1"  # nothing was bid
    page.keyboard.press("Escape")
    assert page.input_value("#bidtype") == ""
    page.keyboard.type("4c")  # a club: seat 1 bids spades
    assert "not your suit" in page.inner_text("#hint")
    assert not page.js_errors


def test_reveal_pause_and_reduced_motion(browser, live_server):
    server = live_server()
    page = new_page(browser, reduced_motion="reduce")
    page.goto(gops_room(server, cards=4))
    page.wait_for_selector('body[data-round="1"][data-phase="bid"]')
    page.keyboard.type("4")
    page.keyboard.press("Enter")
    # against the bot: the reveal holds the table (still round 1) until the pause ends or a key is pressed
    page.wait_for_selector('body[data-reveal="pause"]')
    assert page.get_attribute("body", "data-round") == "1"
    flips = page.locator("#revealcards .flip")
    assert flips.count() == 2
    assert page.locator("#revealcards .flip:not(.turned)").count() == 0  # reduced motion: face up at once
    duration = page.evaluate(
        "getComputedStyle(document.querySelector('#revealcards .flip-inner')).transitionDuration"
    )
    assert duration == "0s"
    score = page.inner_text("#scoreline")
    assert "You" in score and "heuristic" in score
    assert page.is_visible("#skiphint")
    page.keyboard.press("Space")  # skip the pause
    page.wait_for_selector('body[data-round="2"][data-phase="bid"]')
    assert page.get_attribute("body", "data-reveal") == ""
    assert "Round 1 revealed" in page.inner_text("#announce")
    # with motion the bids turn over (a transition on the card), and a click also skips the pause
    moving = new_page(browser)
    moving.goto(gops_room(server, cards=4))
    moving.wait_for_selector('body[data-round="1"][data-phase="bid"]')
    moving.keyboard.type("1")
    moving.keyboard.press("Enter")
    moving.wait_for_selector('body[data-reveal="pause"]')
    duration = moving.evaluate(
        "getComputedStyle(document.querySelector('#revealcards .flip-inner')).transitionDuration"
    )
    assert duration != "0s"
    moving.wait_for_selector("#revealcards .flip.turned")
    moving.mouse.click(5, 5)
    moving.wait_for_selector('body[data-round="2"][data-phase="bid"]')
    # without a key the pause ends by itself
    moving.keyboard.type("2")
    moving.keyboard.press("Enter")
    moving.wait_for_selector('body[data-reveal="pause"]')
    moving.wait_for_selector('body[data-round="3"][data-phase="bid"]')
    assert not page.js_errors and not moving.js_errors


def test_golf_whole_game_by_keyboard_and_axe(browser, live_server):
    server = live_server()
    page = new_page(browser)
    page.goto(golf_room(server))
    page.wait_for_selector('body[data-actor="0"]')
    assert serious_violations(page) == []
    assert "1 = you" in page.inner_text("#seenlegend")
    # Tab reaches the Draw button with a visible focus; Enter presses it
    tab_to(page, "#btn-draw")
    assert focus_ring(page).startswith("solid 3px")
    page.keyboard.press("Enter")
    page.wait_for_selector('body[data-phase="drawn"]')
    checked_drawn = False
    for _ in range(400):
        page.wait_for_selector('body[data-actor="0"], body[data-phase="over"]')
        phase = page.get_attribute("body", "data-phase")
        turn = page.get_attribute("body", "data-turn")
        if phase == "over":
            break
        if phase == "draw":
            page.keyboard.press("d")
        elif phase == "drawn":
            if not checked_drawn:
                assert serious_violations(page) == []
                checked_drawn = True
            if page.locator("#mode-swap").count():
                page.keyboard.press("s")
                assert page.get_attribute("#mode-swap", "aria-pressed") == "true"
                # the grid card is a focusable button now; its number chooses it
                assert page.locator('.grid[data-seat="0"] button.card').count() >= 1
                page.keyboard.press("1")
            else:
                page.keyboard.press("x")
        else:  # pass a card after a snap: its number
            page.keyboard.press("1")
        page.wait_for_function(
            f"document.body.dataset.phase !== '{phase}' || document.body.dataset.actor !== '0'"
            f" || document.body.dataset.turn !== '{turn}'"
        )
    page.wait_for_selector("#winner")
    assert "fewest points" in page.inner_text("#winner")
    assert serious_violations(page) == []
    assert "Game over" in page.inner_text("#announce")
    assert not page.js_errors


def test_replay_board_and_explorer_have_no_serious_axe_violations(browser, live_server):
    # the pages of tests/web/test_replay_explorer.py, with content: a record stepped to round 2, a 3-card position
    from test_replay_explorer import RECORD

    server = live_server()
    page = new_page(browser)
    page.goto(server.url + "/replay")
    assert serious_violations(page) == []  # the empty board
    page.fill("#recordtext", RECORD)
    tab_to(page, "#load")
    page.keyboard.press("Enter")
    page.wait_for_selector('body[data-round="1"]')
    tab_to(page, "#next")
    assert focus_ring(page).startswith("solid 3px")
    page.keyboard.press("Enter")
    page.wait_for_selector('body[data-round="2"]')
    assert serious_violations(page) == []
    page.goto(server.url + "/explorer?cards=3&ties=discard&prizes=1,2,3&you=1,2,3&opp=1,2,3&prize=3")
    page.wait_for_selector('body[data-state="ready"]')
    assert serious_violations(page) == []
    tab_to(page, '#heat tr[data-prize="2"] button')
    page.keyboard.press("Enter")
    assert "prize=2" in page.url
    assert not page.js_errors
