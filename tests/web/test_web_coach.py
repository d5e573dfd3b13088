"""The coach in the browser (cardtable/web/coach.py): the analysis route and page, and hints.

The Playwright test finishes a game against a bot with hints on, opens the
analysis and checks every number against ``cardtable analyze`` of the
downloaded record (a separate process).
"""

from __future__ import annotations

import os
import subprocess
import sys

import httpx
import pytest
from web_helpers import create_room, join

from cardtable.goofspiel.record import parse_text, replay
from cardtable.strategy.coach import analysis


def _play_out(ws, seat=0):
    """Bid the lowest card every round until the game is over; returns the last state."""
    state = ws.state()
    while state["view"]["phase"] != "over":
        view = state["view"]
        if view["phase"] == "bid" and view["my_bid"] is None:
            ws.request({"type": "act", "action": {"bid": [min(view["hand"])]}})
        state = ws.wait_for(lambda s, r=view["round"]: s["view"]["phase"] == "over" or s["view"]["round"] > r)
    return state


def test_analysis_route_matches_the_record_and_refuses_early_or_unknown(make_client):
    client = make_client()
    info = create_room(
        client, settings={"cards": 5, "tie_rule": "carry"}, seats=[{"name": "Ann"}, {"bot": "heuristic"}]
    )
    room = info["room"]
    assert client.get("/api/rooms/nope/analysis").status_code == 404
    r = client.get(f"/api/rooms/{room}/analysis")
    assert r.status_code == 409 and "no finished game" in r.json()["error"]
    ws = join(client, room, info["seats"][0]["claim"])
    ws.request({"type": "act", "action": {"bid": [3]}})
    r = client.get(f"/api/rooms/{room}/analysis?game=1")
    assert r.status_code == 409 and "not finished" in r.json()["error"]  # no equilibrium mid-game
    assert "hint" not in ws.state()["view"] and ws.state()["view"]["hints"] is False  # off by default
    _play_out(ws)
    assert client.get(f"/api/rooms/{room}/analysis?game=7").status_code == 404
    data = client.get(f"/api/rooms/{room}/analysis?game=1").json()
    assert data["game"] == 1 and data["hints"] is False and data["players"] == ["Ann", "heuristic bot"]
    record = client.get(f"/api/rooms/{room}/record?game=1").text
    assert "Hints" not in record
    rec = parse_text(record)[0]
    expected = analysis(replay(rec), rec.players)
    assert data["rounds"] == expected["rounds"] and data["given_up"] == expected["given_up"]
    assert client.get(f"/api/rooms/{room}/analysis").json() == data  # the latest finished game
    assert client.get(f"/analysis/{room}").status_code == 200
    assert client.get("/analysis/nope").status_code == 404


def test_carry_over_analysis_without_table_labels_the_compressed_table(make_client):
    # 10 cards carry-over, no carry-over table solved: the first rounds come from the compressed
    # carry-over table shipped with the package (the nash bot's source), labelled with its
    # measured exploitability; the last ones from exact subgames. (The carry-over approximation's
    # labels: tests/cli/test_play_hints.py and the browser test below, 13 cards with the high ace.)
    client = make_client()
    info = create_room(
        client, settings={"cards": 10, "tie_rule": "carry"}, seats=[{"name": "Ann"}, {"bot": "heuristic"}]
    )
    ws = join(client, info["room"], info["seats"][0]["claim"])
    _play_out(ws)
    data = client.get(f"/api/rooms/{info['room']}/analysis?game=1").json()
    sources = [r["source"] for r in data["rounds"]]
    assert sources[0] == "compressed" and sources[-1] == "subgame"
    assert "compressed table shipped with cardtable" in data["sources"]["compressed"]
    assert data["rounds"][0]["strategy"] is not None and data["start"] is not None  # drawn, not "not solved"
    rec = parse_text(client.get(f"/api/rooms/{info['room']}/record?game=1").text)[0]
    expected = analysis(replay(rec), rec.players)
    assert data["rounds"] == expected["rounds"] and data["sources"] == expected["sources"]


def test_analysis_refuses_rulesets_outside_the_solver(make_client):
    client = make_client()
    info = create_room(
        client, settings={"cards": 3, "players": 3}, seats=[{}, {"bot": "random"}, {"bot": "random"}]
    )
    ws = join(client, info["room"], info["seats"][0]["claim"])
    _play_out(ws)
    r = client.get(f"/api/rooms/{info['room']}/analysis?game=1")
    assert r.status_code == 400 and "does not cover" in r.json()["error"]


@pytest.mark.parametrize(
    "request_json, words",
    [
        ({"settings": {"cards": 5, "hints": True}, "seats": [{}, {}]}, "one person against bots"),
        (
            {"settings": {"cards": 5, "hints": True}, "seats": [{"bot": "random"}, {"bot": "nash"}]},
            "one person against bots",
        ),
        (
            {
                "settings": {"cards": 4, "players": 3, "hints": True},
                "seats": [{}, {"bot": "random"}, {"bot": "random"}],
            },
            "2-player game",
        ),
        ({"settings": {"cards": 5, "hints": "yes"}, "seats": [{}, {"bot": "random"}]}, "hints"),
    ],
)
def test_bad_hint_settings_are_refused(make_client, request_json, words):
    client = make_client()
    r = client.post("/api/rooms", json={"game": "goofspiel", **request_json})
    assert r.status_code == 400 and words in r.json()["error"]
    assert client.get("/api/lobby").json() == []  # nothing stored


def test_hints_show_the_equilibrium_before_each_bid_and_are_recorded(make_client):
    client = make_client()
    info = create_room(
        client,
        settings={"cards": 4, "tie_rule": "discard", "hints": True},
        seats=[{"bot": "nash"}, {"name": "Ann"}],
    )
    ws = join(client, info["room"], info["seats"][1]["claim"])
    # the hint is solved off the event loop: the view comes again once it is ready
    view = ws.wait_for(lambda s: not s["view"]["hint_pending"])["view"]
    assert view["hints"] is True and view["hint"]["exact"] and view["hint"]["round"] == 1
    assert set(view["hint"]["strategy"]) == {str(c) for c in view["hand"]}
    assert sum(view["hint"]["strategy"].values()) == pytest.approx(1.0)
    spectator = join(client, info["room"])
    assert "hint" not in spectator.state()["view"]  # only the person's own seat gets one
    ws.request({"type": "act", "action": {"bid": [1]}})
    view = ws.wait_for(lambda s: s["view"]["round"] == 2 and not s["view"]["hint_pending"])["view"]
    assert view["hint"]["round"] == 2
    _play_out(ws, seat=1)
    record = client.get(f"/api/rooms/{info['room']}/record?game=1").text
    assert '[Hints "on"]' in record
    assert client.get(f"/api/rooms/{info['room']}/analysis?game=1").json()["hints"] is True


# -- in a real browser ----------------------------------------------------------------------------


def _browser_game(server, settings, bot, each_round=None):
    """Create a room (Ann against ``bot``) and return ``(room, page_of)``: ``page_of()`` is a
    context manager giving a Chromium page on which Ann has played the whole game (her highest
    card each round, ``each_round(page)`` called before each bid); on leaving it the page must
    have raised no JavaScript error and the browser is closed."""
    from contextlib import contextmanager

    from playwright.sync_api import sync_playwright
    from test_browser import new_page, wait_round
    from web_helpers import CHROMIUM

    cards = settings["cards"]
    info = httpx.post(
        server.url + "/api/rooms", json={"settings": settings, "seats": [{"name": "Ann"}, {"bot": bot}]}
    ).json()

    @contextmanager
    def page_of():
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            try:
                page = new_page(browser)
                page.goto(f"{server.url}/play/{info['room']}#claim={info['seats'][0]['claim']}")
                for rnd in range(1, cards + 1):
                    wait_round(page, rnd, cards)
                    if each_round is not None:
                        each_round(page)
                    rank = page.locator("#hand .card.playable").last.get_attribute("data-rank")
                    page.locator(f'#hand .card[data-rank="{rank}"]').click()
                    page.locator(f'#hand .card[data-rank="{rank}"]').click()
                wait_round(page, cards + 1, cards)
                yield page
                assert not page.js_errors
            finally:
                browser.close()

    return info["room"], page_of


def _cli_rows(path, home):
    """The rows of ``cardtable analyze`` (a wide terminal): {round: [10 cells]}, the totals line, the source."""
    env = dict(os.environ, CARDTABLE_HOME=str(home), COLUMNS="250")
    out = subprocess.run(
        [sys.executable, "-m", "cardtable", "analyze", str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    head = next(i for i, ln in enumerate(lines) if "equilibrium 1" in ln and ln.lstrip().startswith("rnd"))
    h = lines[head]
    at = {name: h.index(name) for name in ("prize", "bid 1", "bid 2", "equilibrium 1", "equilibrium 2")}
    rows = {}
    for line in lines[head + 1 :]:
        if line.startswith("final points"):
            break
        rnd = line[: at["prize"]].strip()
        if not rnd.isdigit():
            continue
        prize, pot = line[at["prize"] : at["bid 1"]].split()
        rest = line[at["equilibrium 2"] :].split()
        eq2 = [t for t in rest if ":" in t] or rest[:1]
        tail = rest[len(eq2) :]
        rows[int(rnd)] = [
            rnd,
            prize,
            pot,
            line[at["bid 1"] : at["bid 2"]].strip(),
            line[at["bid 2"] : at["equilibrium 1"]].strip(),
            line[at["equilibrium 1"] : at["equilibrium 2"]].strip(),
            " ".join(eq2),
            *tail[:3],
        ]
    totals = next(ln for ln in lines if "given up versus equilibrium" in ln)
    source = next(ln for ln in lines if "; source: " in ln).split("; source: ")[1].strip()
    return rows, totals, source


@pytest.mark.browser
def test_browser_game_with_hints_then_analysis_matches_cardtable_analyze(live_server, tmp_path):
    server = live_server()
    cards = 5

    def check_hint(page):
        import re

        from playwright.sync_api import expect

        # "Hint — computing…" first, while the hint is solved off the server's event loop
        expect(page.locator("#coachhint")).to_have_text(re.compile("^Hint — equilibrium mix"), timeout=20_000)
        hint = page.inner_text("#coachhint")
        assert hint.startswith("Hint — equilibrium mix for this round") and "%" in hint
        assert "hints on" in page.inner_text("#matchline")

    room, page_of = _browser_game(
        server, {"cards": cards, "tie_rule": "carry", "hints": True}, "nash", check_hint
    )
    with page_of() as page:
        assert page.locator("#coachhint").is_hidden()
        page.locator("#analysislink").click()
        page.wait_for_selector('body[data-state="ready"]')
        assert "hints on" in page.inner_text("#summary")
        web_rows = {}
        for tr in page.locator("#analysis tbody tr").all():
            web_rows[int(tr.get_attribute("data-round"))] = [
                td.inner_text().strip() for td in tr.locator("td").all()
            ]
        web_totals = page.inner_text("#totals")
        dots = page.locator("#chart circle.dot")
        chart = {int(d.get_attribute("data-round")): d.get_attribute("data-value") for d in dots.all()}
        assert page.locator("#chart polyline.line").count() == 1  # drawn, not only listed
    record = httpx.get(f"{server.url}/api/rooms/{room}/record?game=1").text
    assert '[Hints "on"]' in record
    path = tmp_path / "game.gops"
    path.write_text(record)
    cli_rows, cli_totals, source = _cli_rows(path, os.environ["CARDTABLE_HOME"])
    assert sorted(web_rows) == sorted(cli_rows) == list(range(1, cards + 1))
    for rnd, cells in cli_rows.items():
        assert web_rows[rnd] == cells + [source], rnd  # bids, equilibria, points lost, expected difference
        assert chart[rnd] == cells[9].lstrip("+")
    # "... given up versus equilibrium: Ann 0.000, nash bot 1.234 (solved rounds only ..."
    assert cli_totals.split("equilibrium: ")[1].split(" (")[0] in web_totals
    assert chart[0] in ("0.00", "-0.00")  # the game's value before the first prize


@pytest.mark.browser
def test_browser_analysis_draws_approximated_values_hollow(live_server):
    server = live_server()
    cards = 13  # high ace, carry-over, no table shipped or solved: the first rounds approximated
    room, page_of = _browser_game(
        server, {"cards": cards, "tie_rule": "carry", "high_ace": True}, "heuristic"
    )
    with page_of() as page:
        page.goto(f"{server.url}/analysis/{room}?game=1")
        # A 10-card carry-over analysis is a real solve in the analysis worker process (its
        # kernels compile there first): on a loaded 2-core machine it took 46 s.
        page.wait_for_selector('body[data-state="ready"]', timeout=180_000)
        assert page.inner_text('#analysis tr[data-round="1"] td[data-col="source"]') == "approximation"
        hollow = page.locator("#chart circle.dot.approx")
        assert hollow.count() >= 1 and hollow.first.get_attribute("data-round") == "0"  # the start value
        assert "carry-over approximation" in hollow.first.text_content()  # its tooltip
        assert "Hollow dots" in page.inner_text("#chartnote")
        assert "approximation: carry-over approximation, not the exact equilibrium" in page.inner_text(
            "#sources"
        )


def test_exploiter_keeps_its_model_for_the_rooms_next_game(make_client):
    client = make_client()
    info = create_room(
        client,
        settings={"cards": 4, "tie_rule": "discard"},
        seats=[{"name": "Ann"}, {"bot": "exploiter"}],
        match="total 2",
    )
    room = client.app.state.hub.rooms[info["room"]]
    ws = join(client, info["room"], info["seats"][0]["claim"])
    bot = room.bots[1]
    _play_out(ws)
    ws.request({"type": "next"})
    ws.wait_for(lambda s: s["game_no"] == 2)
    assert room.bots[1] is bot  # the same object: budget and opponent model carry over
    ws.request({"type": "act", "action": {"bid": [1]}})
    ws.wait_for(lambda s: s["view"]["round"] == 2)
    assert bot.games == 1 and len(bot.log) >= 5


def test_slow_work_runs_off_the_event_loop(make_client, monkeypatch):
    """A bot's start (which may solve for seconds) and a hint run in the bots' thread pool,
    never on the event loop that answers every client (regression: one POST of a 10-card
    creation form held the whole server for 12 s)."""
    import threading

    from cardtable.web import coach, creation

    threads: dict[str, set[str]] = {"check": set(), "hint": set()}
    check_bot, hint = creation.check_bot, coach.hint

    def spy_check(*args):
        threads["check"].add(threading.current_thread().name)
        return check_bot(*args)

    def spy_hint(*args):
        threads["hint"].add(threading.current_thread().name)
        return hint(*args)

    monkeypatch.setattr(creation, "check_bot", spy_check)
    monkeypatch.setattr(coach, "hint", spy_hint)
    client = make_client()
    assert client.post("/api/games/goofspiel/bots", json={"cards": 4}).status_code == 200
    info = create_room(
        client,
        settings={"cards": 4, "tie_rule": "discard", "hints": True},
        seats=[{"bot": "nash"}, {"name": "Ann"}],
    )
    ws = join(client, info["room"], info["seats"][1]["claim"])
    assert ws.wait_for(lambda s: not s["view"]["hint_pending"])["view"]["hint"]["round"] == 1
    for kind in ("check", "hint"):
        assert threads[kind] and all(name.startswith("cardtable-bot") for name in threads[kind]), threads


def test_every_solver_kernel_releases_the_interpreter_lock():
    """The kernels are compiled with ``nogil=True`` (cardtable._numba), so a solve in a thread
    leaves the server's event loop running."""
    import importlib
    import pkgutil

    from numba.core.dispatcher import Dispatcher

    import cardtable.solver

    kernels = []
    for mod in pkgutil.iter_modules(cardtable.solver.__path__):
        if mod.name in ("cuda_backend", "ray_backend"):
            continue
        module = importlib.import_module(f"cardtable.solver.{mod.name}")
        kernels += [
            k
            for k in vars(module).values()
            if isinstance(k, Dispatcher) and k.py_func.__module__ == module.__name__
        ]
    assert len(kernels) > 30
    assert [k.py_func.__name__ for k in kernels if not k.targetoptions.get("nogil")] == []
