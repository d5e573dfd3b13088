"""The coach in words in the browser: the analysis JSON carries each round's sentences (made by
``cardtable.strategy.coach.round_words``, the text ``cardtable analyze`` prints), and the pages
show that text."""

from __future__ import annotations

import pytest
from test_web_coach import _browser_game, _play_out
from typer.testing import CliRunner
from web_helpers import create_room, join

from cardtable.cli import app
from cardtable.goofspiel.record import parse_text
from cardtable.strategy.coach import round_words


def test_analysis_json_carries_the_sentences_cardtable_analyze_prints(make_client, tmp_path):
    client = make_client()
    info = create_room(
        client, settings={"cards": 5, "tie_rule": "carry"}, seats=[{"name": "Ann"}, {"bot": "heuristic"}]
    )
    _play_out(join(client, info["room"], info["seats"][0]["claim"]))
    data = client.get(f"/api/rooms/{info['room']}/analysis?game=1").json()
    record = client.get(f"/api/rooms/{info['room']}/record?game=1").text
    rules = parse_text(record)[0].ruleset
    assert len(data["rounds"]) == 5
    for r in data["rounds"]:
        assert r["words"] == [round_words(r, 0, rules), round_words(r, 1, rules)]
    assert data["rounds"][-1]["words"][0].endswith("was forced: your last card.")
    path = tmp_path / "game.gops"
    path.write_text(record)
    out = CliRunner().invoke(app, ["analyze", "--words", str(path)], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    for r in data["rounds"]:
        for sentence in r["words"]:
            assert sentence in out.output


def serious_axe_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [f"{v['id']} ({v['impact']})" for v in found if v["impact"] in ("serious", "critical")]


@pytest.mark.browser
def test_game_over_panel_and_analysis_page_show_the_servers_sentences(live_server):
    import httpx

    server = live_server()
    room, page_of = _browser_game(server, {"cards": 4, "tie_rule": "discard"}, "heuristic")
    with page_of() as page:
        box = page.locator("#coachwords")
        box.wait_for(state="visible")
        assert page.locator("#wordslist li").count() == 0  # nothing solved until asked
        page.click("#wordsbtn")
        page.wait_for_selector("#wordslist li[data-round='4']")
        data = httpx.get(f"{server.url}/api/rooms/{room}/analysis?game=1").json()
        shown = [
            page.locator(f"#wordslist li[data-round='{r['number']}'] div[data-seat='{s}']").inner_text()
            for r in data["rounds"]
            for s in (0, 1)
        ]
        names = data["players"]
        assert shown == [f"{names[s]}: {r['words'][s]}" for r in data["rounds"] for s in (0, 1)]
        assert page.locator("#wordsbtn").is_hidden()
        assert serious_axe_violations(page) == []
        page.goto(f"{server.url}/analysis/{room}?game=1")
        page.wait_for_selector('body[data-state="ready"]')
        on_page = [
            page.locator(f"#words li[data-round='{r['number']}'] div[data-seat='{s}']").inner_text()
            for r in data["rounds"]
            for s in (0, 1)
        ]
        assert on_page == shown
        assert serious_axe_violations(page) == []
