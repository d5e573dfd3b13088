"""Screenshots of every page of the browser table for docs/web.md, at 1280x800 and 390x844.

    python scripts/web_screenshots.py                 # writes docs/web/PAGE-1280x800.png and PAGE-390x844.png
    python scripts/web_screenshots.py --out /tmp/shots --only lobby,explorer

Starts `cardtable serve` on 127.0.0.1 (a free port, a database and CARDTABLE_HOME in a temporary
folder, removed at the end), plays real games in Chromium (/usr/bin/chromium, through Playwright) and
photographs: the lobby, Goofspiel during a reveal and at the end (you against the heuristic bot, 13
cards), Golf (the drawn card, swap mode), the analysis page and the replay board of a finished 8-card
game between two bots (its record pasted into the board), the explorer on a position of that game (the
board's "Explore this position" link), and the panel of an invite link opened a second time. Each PNG
is reduced to a palette of 64 colours when Pillow is installed, a few tens of KB each. The server is
stopped when the script ends, even after an error.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
SIZES = ((1280, 800), (390, 844))
PAGES = (
    "lobby",
    "goofspiel-reveal",
    "goofspiel-end",
    "golf",
    "analysis",
    "replay",
    "explorer",
    "invite-used",
)
TIMEOUT = 30000  # ms, per wait
SOLVE_TIMEOUT = 180000  # ms: an analysis under load


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`cardtable serve` in a child process, on 127.0.0.1, with its own temporary home and database."""

    def __init__(self, home: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, CARDTABLE_HOME=str(home))
        self.log = open(home / "serve.log", "wb")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cardtable",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--db",
                str(home / "web.sqlite3"),
            ],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        end = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > end:
                self.stop()
                raise SystemExit(f"cardtable serve did not start; its log: {home / 'serve.log'}")
            time.sleep(0.2)

    def room(self, **body) -> dict:
        r = httpx.post(self.url + "/api/rooms", json=body, timeout=30)
        r.raise_for_status()
        return r.json()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def small_png(path: Path) -> None:
    """A 64-colour palette PNG (the pages are flat colours and text: it reads the same)."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as im:
        out = im.convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out.save(path, optimize=True)


class Shots:
    def __init__(self, browser, server: Server, out: Path, only: set[str]) -> None:
        self.browser, self.server, self.out, self.only = browser, server, out, only
        self.written: list[Path] = []

    def page(self, size, **context):
        w, h = size
        page = self.browser.new_context(viewport={"width": w, "height": h}, **context).new_page()
        page.set_default_timeout(TIMEOUT)
        return page

    def take(self, page, name: str, size) -> None:
        path = self.out / f"{name}-{size[0]}x{size[1]}.png"
        page.screenshot(path=str(path))
        small_png(path)
        self.written.append(path)
        print(
            f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {path.stat().st_size // 1024} KB"
        )

    def wanted(self, *names: str) -> bool:
        return not self.only or any(n in self.only for n in names)

    # -- the pages -----------------------------------------------------------------------------
    def lobby(self, size) -> None:
        page = self.page(size)
        page.goto(self.server.url + "/")
        page.wait_for_selector(".lobby-room")
        self.take(page, "lobby", size)
        page.context.close()

    def goofspiel(self, size) -> str:
        """You against the heuristic bot, 13 cards: the reveal of round 3 and the end screen; the room."""
        info = self.server.room(
            settings={"preset": "standard"}, seats=[{"name": "Kim"}, {"bot": "heuristic"}]
        )
        # reduced motion: the bids are shown face up at once, so the pause's picture is the reveal itself
        page = self.page(size, reduced_motion="reduce")
        page.goto(f"{self.server.url}/play/{info['room']}#claim={info['seats'][0]['claim']}")
        shot_taken = not self.wanted("goofspiel-reveal")
        for number in range(1, 14):
            page.wait_for_selector(f'body[data-round="{number}"][data-phase="bid"]')
            prize = max(
                int(r)
                for r in page.eval_on_selector_all(
                    "#pot .card[data-rank]", "cs => cs.map(c => c.dataset.rank)"
                )
            )
            hand = [
                int(r)
                for r in page.eval_on_selector_all(
                    "#hand .card.playable", "cs => cs.map(c => c.dataset.rank)"
                )
            ]
            card = min(hand, key=lambda r: (abs(r - prize), -r))  # the card nearest the prize
            page.keyboard.type(str(card))
            page.keyboard.press("Enter")
            if number >= 3 and not shot_taken:
                page.wait_for_selector('body[data-reveal="pause"]')
                self.take(page, "goofspiel-reveal", size)
                # the pause (about a second) must still hold the reveal: else the next round's try again
                shot_taken = page.get_attribute("body", "data-reveal") == "pause"
        page.wait_for_selector('body[data-phase="over"]')
        page.wait_for_selector("#winner")
        if not shot_taken:
            print("warning: no screenshot of a reveal (each pause ended before the picture)", file=sys.stderr)
        if self.wanted("goofspiel-end"):
            self.take(page, "goofspiel-end", size)
        page.context.close()
        return info["room"]

    def golf(self, size) -> None:
        info = self.server.room(game="golf", seats=[{"name": "Kim"}, {"bot": "heuristic"}])
        page = self.page(size)
        page.goto(f"{self.server.url}/play/{info['room']}#claim={info['seats'][0]['claim']}")
        page.wait_for_selector('body[data-actor="0"][data-phase="draw"]')
        page.keyboard.press("d")
        page.wait_for_selector('body[data-phase="drawn"]')
        if page.locator("#mode-swap").count():
            page.keyboard.press("s")
            page.wait_for_selector('#mode-swap[aria-pressed="true"]')
        self.take(page, "golf", size)
        page.context.close()

    def bots_game(self) -> tuple[str, str]:
        """A finished 8-card game between two bots: its room and its record."""
        info = self.server.room(
            settings={"cards": 8, "tie_rule": "carry"},
            seats=[{"bot": "heuristic", "name": "Anna"}, {"bot": "matcher", "name": "Ben"}],
        )
        room = info["room"]
        page = self.page(SIZES[0])
        page.goto(f"{self.server.url}/play/{room}")  # a spectator: the bots play it out
        page.wait_for_selector('body[data-phase="over"]', timeout=120000)
        page.context.close()
        record = httpx.get(f"{self.server.url}/api/rooms/{room}/record?game=1", timeout=30).text
        return room, record

    def analysis(self, size, room: str) -> None:
        page = self.page(size)
        page.goto(f"{self.server.url}/analysis/{room}?game=1")
        page.wait_for_selector('body[data-state="ready"]', timeout=SOLVE_TIMEOUT)
        # the chart and the top of the rounds table
        page.eval_on_selector("#chart", "c => c.closest('section').scrollIntoView()")
        self.take(page, "analysis", size)
        page.context.close()

    def replay_and_explorer(self, size, record: str) -> None:
        page = self.page(size)
        page.goto(self.server.url + "/replay")
        page.fill("#recordtext", record)
        page.click("#load")
        page.wait_for_selector('body[data-round="1"]')
        page.locator("#where").click()
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        page.wait_for_selector('body[data-round="4"]')
        page.wait_for_selector("#expdiff", timeout=SOLVE_TIMEOUT)
        if self.wanted("replay"):
            page.eval_on_selector("#boards", "b => b.scrollIntoView()")
            self.take(page, "replay", size)
        explore = page.get_attribute("#explore", "href")
        page.context.close()
        if self.wanted("explorer") and explore:
            page = self.page(size)
            page.goto(self.server.url + explore)
            page.wait_for_selector('body[data-state="ready"]', timeout=SOLVE_TIMEOUT)
            self.take(page, "explorer", size)
            page.context.close()

    def invite_used(self, size) -> None:
        info = self.server.room(settings={"cards": 13}, seats=[{"name": "Host"}, {"name": "Friend"}])
        room, code = info["room"], info["seats"][1]["claim"]
        first = self.page(size)  # the friend opens the invite first, in another browser
        first.goto(f"{self.server.url}/play/{room}#claim={code}")
        first.wait_for_url("**#token=*")
        page = self.page(size)
        page.goto(f"{self.server.url}/play/{room}#claim={code}")
        page.locator("#refused").wait_for(state="visible")
        self.take(page, "invite-used", size)
        page.context.close()
        first.context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=ROOT / "docs" / "web", help="folder of the PNGs (default docs/web)"
    )
    parser.add_argument("--only", default="", help=f"comma-separated pages among {', '.join(PAGES)}")
    args = parser.parse_args(argv)
    only = {p for p in args.only.split(",") if p}
    unknown = only - set(PAGES)
    if unknown:
        parser.error(f"unknown page(s) {', '.join(sorted(unknown))}; known: {', '.join(PAGES)}")
    if not os.path.exists(CHROMIUM):
        parser.error(f"Chromium is missing at {CHROMIUM} (Debian package 'chromium')")
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="cardtable-shots-") as tmp:
        server = Server(Path(tmp))
        try:
            # the lobby lists one open game
            server.room(settings={"preset": "standard"}, seats=[{"name": "Sam"}, {}], listed=True)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                try:
                    shots = Shots(browser, server, args.out, only)
                    need_bots_game = shots.wanted("analysis", "replay", "explorer")
                    room, record = shots.bots_game() if need_bots_game else (None, None)
                    for size in SIZES:
                        if shots.wanted("lobby"):
                            shots.lobby(size)
                        if shots.wanted("goofspiel-reveal", "goofspiel-end"):
                            shots.goofspiel(size)
                        if shots.wanted("golf"):
                            shots.golf(size)
                        if shots.wanted("analysis"):
                            shots.analysis(size, room)
                        if shots.wanted("replay", "explorer"):
                            shots.replay_and_explorer(size, record)
                        if shots.wanted("invite-used"):
                            shots.invite_used(size)
                finally:
                    browser.close()
        finally:
            server.stop()
    print(f"{len(shots.written)} screenshot(s) in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
