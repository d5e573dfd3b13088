"""The replay board (/replay, cardtable/web/replay.py) and the equilibrium explorer (/explorer,
cardtable/web/explorer.py): their JSON routes, refusals, the shared analysis pool, and the pages
in Chromium (keyboard steps, links to a round, the heat map, axe-core)."""

from __future__ import annotations

import concurrent.futures
import time
from urllib.parse import urlencode

import httpx
import pytest
from web_helpers import create_room

from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel.record import RecordError, load_records, record_from_game, replay, write_text
from cardtable.web.limits import Limits

# 5 cards, carry-over ties, a shuffled order from a seed; round 4 is a tie carried into round 5
BIDS = [(2, 5), (1, 3), (3, 2), (4, 4), (5, 1)]


def five_card_game() -> Game:
    g = Game(Ruleset(cards=5), seed="replay-test")
    for a, b in BIDS:
        g.play([a, b])
    assert g.is_over
    return g


RECORD = write_text(record_from_game(five_card_game(), ["Anna", "Ben"]))


def threads(n: int) -> concurrent.futures.Executor:
    return concurrent.futures.ThreadPoolExecutor(n)


@pytest.fixture
def client(make_client, monkeypatch, tmp_path):
    monkeypatch.setenv(
        "CARDTABLE_CACHE", str(tmp_path / "no-tables")
    )  # no solved table: the sources are known
    return make_client(analysis_executor=threads)


def idle(client) -> bool:
    a = client.app.state.analyses
    return not a.inflight and not a.cache


# -- the replay board's routes ------------------------------------------------------------------------


def test_replay_answers_every_round_of_a_record(client):
    r = client.post("/api/replay", json={"record": RECORD})
    assert r.status_code == 200, r.text
    (game,) = r.json()["games"]
    g = five_card_game()
    assert game["players"] == ["Anna", "Ben"] and game["cards"] == 5 and game["over"]
    assert game["scores"] == list(g.result().points) and game["analysable"]
    assert [r["bids"] for r in game["rounds"]] == [[[a], [b]] for a, b in BIDS]
    third = game["rounds"][2]
    assert third["number"] == 3
    assert third["hands"] == [[3, 4, 5], [1, 2, 4]]  # before round 3: 2,1 and 5,3 spent
    assert third["points_after"][0] - third["points_before"][0] == third["stake"]  # Anna's 3 beats Ben's 2
    assert third["turned"] == [g.history[2].prizes[-1]]
    fourth, fifth = game["rounds"][3], game["rounds"][4]
    assert fourth["winner"] is None and fourth["carried"] == fourth["prizes"]  # 4 against 4: carried
    assert fifth["carried_in"] == sum(fourth["prizes"]) and len(fifth["prizes"]) == 2
    # the explorer's position of round 1 is the whole game
    assert game["rounds"][0]["explore"].startswith(
        "cards=5&ties=carry&ace=low&prizes=1,2,3,4,5&you=1,2,3,4,5"
    )
    # the JSON notation reads the same
    from cardtable.goofspiel.record import to_json

    r2 = client.post("/api/replay", json={"record": to_json(load_records(RECORD))})
    assert r2.json()["games"][0]["rounds"] == game["rounds"]


@pytest.mark.parametrize(
    "text",
    [
        RECORD.replace("|", "", 1),  # a malformed round line
        RECORD.replace('[Scores "', '[Scores "1'),  # a stated score the rounds do not give
        RECORD.replace("1. ", "1. ", 1).replace(" | 2 +", " | 1 +", 1),  # a wrong stated outcome
    ],
)
def test_replay_refuses_a_malformed_record_with_the_readers_message(client, text):
    with pytest.raises(RecordError) as reader:
        for rec in load_records(text):
            replay(rec)
    r = client.post("/api/replay", json={"record": text})
    assert r.status_code == 400
    assert r.json() == {"error": f"not a valid record: {reader.value}"}
    r = client.post("/api/replay/analysis", json={"record": text, "game": 1})
    assert r.status_code == 400 and "not a valid record" in r.json()["error"]
    assert idle(client)  # nothing was solved or cached


def test_replay_refuses_golf_oversized_and_malformed_bodies(client):
    r = client.post("/api/replay", json={"record": '[Game "golf"]\n[Rules "rows=1"]\n'})
    assert r.status_code == 400 and "Goofspiel records only" in r.json()["error"]
    r = client.post("/api/replay", json={"record": RECORD * 80})  # over the body limit
    assert r.status_code == 413 and "over the limit" in r.json()["error"]
    r = client.post("/api/replay", json={"record": "x" * 16001})  # under the body limit, over the field's
    assert r.status_code == 400 and r.json()["error"].startswith("bad request: record")
    r = client.post("/api/replay", json={"text": RECORD})
    assert r.status_code == 400 and "bad request" in r.json()["error"]
    r = client.post("/api/replay", content=b"{not json")
    assert r.status_code == 400 and set(r.json()) == {"error"}
    r = client.post("/api/replay/analysis", json={"record": RECORD, "game": 2})
    assert r.status_code == 404 and r.json() == {"error": "no game 2: the record holds 1"}
    assert idle(client)


def test_replay_analysis_goes_through_the_pool_once(client, monkeypatch):
    from cardtable.web import coach

    solves = []
    real = coach.analyse_state
    monkeypatch.setattr(coach, "analyse_state", lambda state, names: solves.append(1) or real(state, names))
    first = client.post("/api/replay/analysis", json={"record": RECORD, "game": 1})
    assert first.status_code == 200, first.text
    # the same game with other spacing is the same solve: answered from the cache
    again = client.post(
        "/api/replay/analysis", json={"record": "\n\n" + RECORD.replace("\n\n", "\n\n\n"), "game": 1}
    )
    assert again.json() == first.json() and len(solves) == 1
    data = first.json()
    assert data["players"] == ["Anna", "Ben"] and len(data["rounds"]) == 5
    assert [r["bids"] for r in data["rounds"]] == [list(b) for b in BIDS]


def test_replay_analysis_counts_against_the_address_quota(make_client, monkeypatch, tmp_path):
    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path / "none"))
    c = make_client(analysis_executor=threads, limits=Limits(analysis_burst=1, analyses_per_minute=0.5))
    assert c.post("/api/replay/analysis", json={"record": RECORD, "game": 1}).status_code == 200
    other = RECORD.replace("Anna", "Ada")
    r = c.post("/api/replay/analysis", json={"record": other, "game": 1})
    assert (
        r.status_code == 429
        and "too many analyses" in r.json()["error"]
        and int(r.headers["retry-after"]) >= 1
    )
    # the explorer draws on the same bucket
    r = c.get("/api/explorer?cards=3&ties=discard&prizes=1,2&you=1,2&opp=2,3")
    assert r.status_code == 429


def finished_bot_room(client, cards: int = 4) -> str:
    info = create_room(client, settings={"cards": cards}, seats=[{"bot": "heuristic"}, {"bot": "random"}])
    room = client.app.state.hub.rooms[info["room"]]  # loaded by its creation
    end = time.monotonic() + 20
    while not room.adapter.is_over(room.current.state):
        assert time.monotonic() < end, "the bots did not finish"
        time.sleep(0.05)
    return info["room"]


def test_room_replay_serves_finished_games_only(client):
    room = finished_bot_room(client)
    r = client.get(f"/api/replay/rooms/{room}")
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["room"] == room and data["game"] == 1 and len(data["rounds"]) == 4 and data["over"]
    assert data["finished_games"] == [1]
    # a game in progress: its hands are hidden, nothing is served
    live = create_room(client, settings={"cards": 4}, seats=[{"name": "Kim"}, {"bot": "heuristic"}])["room"]
    r = client.get(f"/api/replay/rooms/{live}")
    assert r.status_code == 409 and r.json() == {"error": "no finished game to replay yet"}
    r = client.get(f"/api/replay/rooms/{live}?game=1")
    assert r.status_code == 409 and "not finished" in r.json()["error"]
    assert client.get(f"/api/replay/rooms/{room}?game=9").status_code == 404
    r = client.get("/api/replay/rooms/" + "r" * 500)
    assert r.status_code == 404 and len(r.json()["error"]) < 120
    golf = create_room(
        client,
        game="golf",
        settings={"rows": 1, "cols": 1, "peek_rows": 1},
        seats=[{"name": "Kim"}, {"bot": "heuristic"}],
    )["room"]
    r = client.get(f"/api/replay/rooms/{golf}")
    assert r.status_code == 400 and "Goofspiel" in r.json()["error"]


# -- the explorer's route ------------------------------------------------------------------------------


def explore(client, **q):
    return client.get("/api/explorer?" + urlencode(q))


@pytest.mark.parametrize(
    "ties, prizes, you, opp, pot",
    [
        ("discard", {1, 3, 4}, {1, 2, 4}, {2, 3, 4}, 0),
        ("carry", {2, 4}, {1, 3}, {2, 3}, 1),  # prize 1 tied and carried, 3 won by somebody
    ],
)
def test_explorer_value_is_the_solvers(client, ties, prizes, you, opp, pot):
    from cardtable.solver import Position, solve

    rs = Ruleset(cards=4, tie_rule=ties)
    table = solve(rs)  # the whole 4-card game, solved here independently of the server's subgame
    pos = Position(frozenset(prizes), (frozenset(you), frozenset(opp)), pot)
    cards = lambda s: ",".join(map(str, sorted(s)))  # noqa: E731
    top = max(prizes)
    r = explore(
        client, cards=4, ties=ties, prizes=cards(prizes), you=cards(you), opp=cards(opp), pot=pot, prize=top
    )
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["source"] == "subgame" and data["exact"] is True
    assert data["prize"] == top
    assert data["value"] == pytest.approx(table.value(pos), abs=1e-9)
    assert [row["prize"] for row in data["rows"]] == sorted(prizes)
    for row in data["rows"]:
        st = table.round_strategy(pos, row["prize"])
        assert row["value"] == pytest.approx(st.value, abs=1e-9)
        assert sum(row["mix"].values()) == pytest.approx(1.0)
        # every bid the equilibrium plays is worth the round's value against the equilibrium
        for card, p in row["mix"].items():
            if p > 1e-6:
                assert row["bid_values"][card] == pytest.approx(st.value, abs=1e-7)
            else:
                assert row["bid_values"][card] <= st.value + 1e-7
    # the mean over the prizes of the round values is the position's value
    assert sum(row["value"] for row in data["rows"]) / len(prizes) == pytest.approx(data["value"], abs=1e-9)


@pytest.mark.parametrize(
    "query, status, words",
    [
        (
            {"cards": 4, "prizes": "1,2", "you": "1,2,3", "opp": "1,2"},
            400,
            "impossible position: each hand must hold",
        ),
        (
            {"cards": 4, "ties": "discard", "prizes": "1,2", "you": "1,2", "opp": "3,4", "pot": 3},
            400,
            "impossible position: with discard ties there is never a pot",
        ),
        (
            {"cards": 4, "prizes": "1,2", "you": "1,2", "opp": "3,4", "prize": 3},
            400,
            "must be one of the prizes left",
        ),
        ({"cards": 4, "prizes": "1,x", "you": "1,2", "opp": "3,4"}, 400, "prizes: 'x' is not a card"),
        (
            {"cards": 4, "prizes": "1,9", "you": "1,2", "opp": "3,4"},
            400,
            "prizes: '9' is not a card of this game",
        ),
        ({"cards": 4, "prizes": "", "you": "", "opp": ""}, 400, "no prize is left"),
        ({"cards": 14, "prizes": "1", "you": "1", "opp": "1"}, 400, "bad request: cards"),
        ({"cards": 4, "ties": "sometimes", "prizes": "1", "you": "1", "opp": "1"}, 400, "bad request: ties"),
        ({"cards": 4, "you": "1", "opp": "1"}, 400, "bad request: prizes"),
    ],
)
def test_explorer_refuses_with_the_error_shape(client, query, status, words):
    r = explore(client, **query)
    assert r.status_code == status
    assert set(r.json()) == {"error"} and words in r.json()["error"], r.json()


def test_explorer_solves_a_position_once(client, monkeypatch):
    from cardtable.web import explorer

    calls = []
    real = explorer.explore_position
    monkeypatch.setattr(explorer, "explore_position", lambda s: calls.append(s) or real(s))
    q = {"cards": 4, "ties": "discard", "prizes": "1,3,4", "you": "1,2,4", "opp": "2,3,4"}
    a = explore(client, **q, prize=1).json()
    b = explore(client, **q, prize=4).json()  # another prize on the table: the same solve
    assert len(calls) == 1 and (a["prize"], b["prize"]) == (1, 4) and a["rows"] == b["rows"]


# -- the pages in Chromium -----------------------------------------------------------------------------


def new_page(browser):
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.set_default_timeout(15000)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors
    return page


def serious_violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:5]]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


@pytest.fixture
def server(live_server, monkeypatch, tmp_path):
    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path / "no-tables"))
    return live_server(analysis_executor=threads)


def bid_cells(page) -> list[str]:
    return page.locator('#seats td[data-col="bid"]').all_inner_texts()


@pytest.mark.browser
def test_replay_board_steps_a_pasted_record_by_keyboard_and_links_a_round(browser, server):
    page = new_page(browser)
    page.goto(server.url + "/replay")
    page.fill("#recordtext", RECORD)
    page.click("#load")
    page.wait_for_selector('body[data-round="1"]')
    assert bid_cells(page) == ["2", "5"]
    page.locator("#where").click()  # focus off the text area: the arrows step the board
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('body[data-round="3"]')
    assert page.inner_text("#where") == "Round 3 of 5"
    assert bid_cells(page) == ["3", "2"]
    assert "3 4 5" in " ".join(page.locator('#seats tr[data-seat="0"] .chip').all_inner_texts())
    # the analysis of round 3 beside it
    page.wait_for_selector("#expdiff")
    assert "Anna minus Ben" in page.inner_text("#expdiff")
    # the coach's sentence of round 3 for each player, the server's words (as on the analysis page)
    words = httpx.post(server.url + "/api/replay/analysis", json={"record": RECORD, "game": 1}).json()[
        "rounds"
    ][2]["words"]
    assert len(words) == 2 and all(words)
    shown = [page.inner_text(f'#roundwords p[data-seat="{s}"]') for s in (0, 1)]
    assert shown == [f"Anna: {words[0]}", f"Ben: {words[1]}"]
    page.keyboard.press("ArrowRight")  # the next round's sentences replace them
    page.wait_for_selector('body[data-round="4"]')
    assert page.inner_text('#roundwords p[data-seat="0"]') != shown[0]
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector('body[data-round="3"]')
    assert "explorer?cards=5" in page.get_attribute("#explore", "href")
    link = page.url
    assert "round=3" in link and "rec=" in link
    assert serious_violations(page) == []
    page.keyboard.press("End")
    page.wait_for_selector('body[data-round="5"]')
    page.keyboard.press("Home")
    page.wait_for_selector('body[data-round="1"]')
    # the link with #round=3 opens round 3 of the same record, in a fresh page
    other = new_page(browser)
    other.goto(link)
    other.wait_for_selector('body[data-round="3"]')
    assert bid_cells(other) == ["3", "2"] and other.inner_text("#where") == "Round 3 of 5"
    # a malformed record: the reader's message, the board unchanged
    page.fill("#recordtext", RECORD.replace("|", "", 1))
    page.click("#load")
    page.wait_for_selector("#err:not(.hidden)")
    assert "malformed round line" in page.inner_text("#err")
    assert page.get_attribute("body", "data-round") == "1"
    assert not page.js_errors and not other.js_errors


@pytest.mark.browser
def test_replay_board_of_a_finished_room_and_its_end_screen_link(browser, server):
    info = httpx.post(
        server.url + "/api/rooms",
        json={"settings": {"cards": 4}, "seats": [{"bot": "heuristic"}, {"bot": "random"}]},
    ).json()
    room = info["room"]
    page = new_page(browser)
    page.goto(f"{server.url}/play/{room}")  # a spectator: the bots finish the game
    page.wait_for_selector('#replaylink[href*="/replay?room="]', state="attached")
    page.click("#replaylink")
    page.wait_for_selector('body[data-round="1"]')
    assert page.inner_text("#where") == "Round 1 of 4"
    page.click("#last")
    page.wait_for_selector('body[data-round="4"]')
    assert "#round=4" in page.url and "rec=" not in page.url
    assert not page.js_errors


@pytest.mark.browser
def test_explorer_shows_a_heat_map_and_the_value(browser, server):
    from cardtable.solver import Position, solve

    table = solve(Ruleset(cards=4, tie_rule="discard"))
    pos = Position(frozenset({1, 3, 4}), (frozenset({1, 2, 4}), frozenset({2, 3, 4})))
    page = new_page(browser)
    page.goto(
        server.url + "/explorer?cards=4&ties=discard&ace=low&prizes=1,3,4&you=1,2,4&opp=2,3,4&pot=0&prize=4"
    )
    page.wait_for_selector('body[data-state="ready"]')
    assert page.locator("#heat tbody tr").count() == 3  # a row per prize left
    assert page.locator("#heat tbody tr td").count() == 9  # a cell per bid
    assert page.inner_text("#posvalue") == f"{table.value(pos):+.2f}"
    assert page.inner_text("#roundvalue") == f"{table.round_strategy(pos, 4).value:+.2f}"
    assert page.get_attribute('#heat tr[data-prize="4"]', "class") == "current"
    assert "exact" in page.inner_text("#source")
    assert serious_violations(page) == []
    # the form: another position, and the address shares it
    page.fill("#prizes", "1-4")
    page.fill("#you", "1-4")
    page.fill("#opp", "1-4")
    page.fill("#prize", "")
    page.click("#show")
    page.wait_for_selector("#heat tbody tr:nth-child(4)")
    assert "prizes=1-4" in page.url
    assert page.inner_text("#posvalue") == "+0.00"  # the symmetric start
    page.click('#heat tr[data-prize="2"] button')
    assert "prize=2" in page.url and "Prize 2" in page.inner_text("#detail")
    # an impossible position: the server's message
    page.fill("#you", "1,2")
    page.click("#show")
    page.wait_for_selector("#err:not(.hidden)")
    assert "impossible position" in page.inner_text("#err")
    assert not page.js_errors


@pytest.mark.parametrize("ties", ["discard", "carry"])
def test_the_13_card_first_round_comes_from_the_shipped_compressed_table(client, ties):
    # once refused as too big to solve on the server: the compressed table of either tie rule
    # (carry-over: its upper layers) answers the standard game's first round
    r = explore(client, cards=13, ties=ties, prizes="all", you="all", opp="all")
    assert r.status_code == 200
    data = r.json()
    assert data["source"] == "compressed" and data["exact"] is False
    assert "compressed table" in data["source_words"]
    assert data["value"] == pytest.approx(0.0, abs=1e-6)  # the symmetric start


def test_a_position_no_source_covers_is_too_big(tmp_path, monkeypatch):
    from cardtable.solver import compressed
    from cardtable.web.explorer import TooBig, explore_position

    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path))
    monkeypatch.setattr(compressed, "DATA_DIR", tmp_path)  # a package without its shipped tables
    compressed._bundled.cache_clear()
    full = tuple(range(1, 14))
    try:
        with pytest.raises(TooBig, match="too big to solve on the server"):
            explore_position((13, "discard", False, full, full, full, 0, None))
    finally:
        compressed._bundled.cache_clear()
