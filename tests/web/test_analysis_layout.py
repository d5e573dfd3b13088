"""The coach's analysis page (static/analysis.*) on a wide screen and on a phone: the rounds table of a
13-card game fits at 1280x800 (its last column, `source`, was cut), it scrolls sideways in its own box on
a 390 px phone without the page scrolling, and the chart's axis labels are readable there (they were
drawn about 6 px high: a fixed 640-unit viewBox squeezed into 366 px)."""

from __future__ import annotations

import concurrent.futures
import os

import httpx
import pytest
from web_helpers import ARGS, CHROMIUM

pytestmark = pytest.mark.browser

MIN_LABEL_PX = 11  # the smallest axis label, in CSS px as rendered

# where the rounds table and its box are, and the size of every axis label as drawn (its CSS font size
# times the SVG's scale on the screen)
MEASURE = """() => {
  const box = document.getElementById('tablebox').getBoundingClientRect();
  const table = document.getElementById('analysis').getBoundingClientRect();
  const heads = [...document.querySelectorAll('#analysis thead th')];
  const svg = document.getElementById('chart'), scale = svg.getScreenCTM().a;
  const ticks = [...svg.querySelectorAll('text.tick')].map((t) => ({
    text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale, box: t.getBoundingClientRect().toJSON() }));
  const scroller = document.getElementById('tablebox');
  return { box: box.toJSON(), table: table.toJSON(), last: heads[heads.length - 1].getBoundingClientRect().toJSON(),
           lastText: heads[heads.length - 1].textContent, ticks,
           scrolls: scroller.scrollWidth > scroller.clientWidth, tabindex: scroller.tabIndex,
           pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth };
}"""


def threads(n: int) -> concurrent.futures.Executor:
    return concurrent.futures.ThreadPoolExecutor(n)


def serious_violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:5]]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def test_analysis_table_fits_at_1280_and_the_chart_reads_on_a_phone(live_server, monkeypatch, tmp_path):
    assert os.path.exists(CHROMIUM), f"Chromium is missing at {CHROMIUM} (Debian package 'chromium')"
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv(
        "CARDTABLE_CACHE", str(tmp_path / "no-tables")
    )  # no table: the widest rows (every source)
    server = live_server(analysis_executor=threads)
    info = httpx.post(
        server.url + "/api/rooms",
        json={
            "settings": {"cards": 13, "tie_rule": "carry"},
            "seats": [{"bot": "heuristic", "name": "Anna"}, {"bot": "matcher", "name": "Ben"}],
        },
    ).json()
    room = info["room"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            pages = {}
            for size in ((1280, 800), (390, 844)):
                page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
                page.set_default_timeout(15000)
                errors: list[str] = []
                page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
                pages[size] = (page, errors)
            wide, wide_errors = pages[(1280, 800)]
            wide.goto(f"{server.url}/play/{room}")  # a spectator: the bots finish the game
            wide.wait_for_selector('body[data-phase="over"]', timeout=60000)
            for page, _ in pages.values():
                page.goto(f"{server.url}/analysis/{room}?game=1")
                page.wait_for_selector('body[data-state="ready"]', timeout=120000)

            # 1280x800: the whole table, its last column included, inside its box and the window
            m = wide.evaluate(MEASURE)
            assert m["lastText"] == "source"
            assert m["table"]["right"] <= m["box"]["right"] + 0.5, m
            assert m["last"]["right"] <= m["box"]["right"] + 0.5, m
            assert m["box"]["right"] <= m["viewport"] and not m["scrolls"], m
            assert m["pageWidth"] <= m["viewport"]
            assert min(t["px"] for t in m["ticks"]) >= MIN_LABEL_PX

            # 390x844: the chart's labels at least 11 px as drawn, one per round, not overlapping
            phone, phone_errors = pages[(390, 844)]
            m = phone.evaluate(MEASURE)
            rounds = [t for t in m["ticks"] if t["text"].isdigit()]
            assert [t["text"] for t in rounds] == [str(r) for r in range(1, 14)]
            assert len(m["ticks"]) == 13 + 3  # and three values on the vertical axis
            small = [(t["text"], round(t["px"], 1)) for t in m["ticks"] if t["px"] < MIN_LABEL_PX]
            assert small == [], small
            assert all(a["box"]["right"] < b["box"]["left"] for a, b in zip(rounds, rounds[1:], strict=False))
            # the table scrolls sideways in its own box (reachable by keyboard); the page does not
            assert m["scrolls"] and m["tabindex"] == 0, m
            assert m["box"]["right"] <= m["viewport"] and m["pageWidth"] <= m["viewport"], m
            assert serious_violations(phone) == []
            # turning the phone: the chart is drawn again for its new width, labels still full size
            phone.set_viewport_size({"width": 844, "height": 390})
            phone.wait_for_function("document.getElementById('chart').dataset.width > 700")
            m = phone.evaluate(MEASURE)
            assert min(t["px"] for t in m["ticks"]) >= MIN_LABEL_PX
            assert m["ticks"][-1]["box"]["right"] <= m["viewport"]
            assert not wide_errors and not phone_errors
        finally:
            browser.close()
