"""Helpers for the web tests (imported by conftest.py and the tests): an in-process app (Starlette TestClient), a
synchronised WebSocket client wrapper, and a real uvicorn server on a free port."""

from __future__ import annotations

import itertools
import json
import os
import socket
import threading
import time
import warnings
from typing import Any

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")

#: Debian's Chromium, which Playwright drives in the browser tests, and its flags.
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser():
    """One Chromium for a test module (skipped nowhere: a missing Chromium fails)."""
    assert os.path.exists(CHROMIUM), f"Chromium is missing at {CHROMIUM} (Debian package 'chromium')"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def seeds(*values: str):
    """A seed factory handing out the given seeds, then ``extra-N``."""
    it = itertools.chain(values, (f"extra-{i}" for i in itertools.count()))
    return lambda: next(it)


class WS:
    """A test WebSocket client that records every frame it receives.

    :meth:`sync` sends a ``ping`` and reads until the matching ``pong``: the
    server handles a connection's messages in order, so every message caused by
    anything that completed before is in by then.
    """

    _refs = itertools.count(1)

    def __init__(self, session) -> None:
        self.session = session
        self.frames: list[dict[str, Any]] = []

    def close(self) -> None:
        cm = getattr(self, "_cm", None)
        if cm is not None:
            self._cm = None
            try:
                cm.__exit__(None, None, None)
            except Exception:
                pass

    def send(self, message: Any) -> None:
        if isinstance(message, bytes):
            self.session.send_bytes(message)
        else:
            self.session.send_text(message if isinstance(message, str) else json.dumps(message))

    def receive(self) -> dict[str, Any]:
        msg = json.loads(self.session.receive_text())
        self.frames.append(msg)
        return msg

    def sync(self) -> list[dict[str, Any]]:
        ref = f"sync-{next(self._refs)}"
        self.send({"type": "ping", "ref": ref})
        got = []
        while True:
            msg = self.receive()
            if msg.get("type") == "pong" and msg.get("ref") == ref:
                return got
            got.append(msg)

    def request(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        self.send(message)
        return self.sync()

    def state(self) -> dict[str, Any]:
        return [f for f in self.frames if f["type"] == "state"][-1]

    def errors(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == "error"]

    def wait_for(self, predicate, timeout: float = 20.0) -> dict[str, Any]:
        """Sync until the latest state satisfies ``predicate`` (bots act in a thread)."""
        end = time.monotonic() + timeout
        while True:
            self.sync()
            if predicate(self.state()):
                return self.state()
            if time.monotonic() > end:
                raise AssertionError(f"timed out; last state: {self.state()['view']}")
            time.sleep(0.1)  # stay under the default rate limit (20 messages per second)


@pytest.fixture
def make_client(tmp_path):
    """``make_client(**create_app_kwargs) -> TestClient`` (entered; closed at teardown)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from cardtable.web.app import create_app

    clients = []

    def make(db=None, **kwargs):
        app = create_app(db or tmp_path / "web.sqlite3", **kwargs)
        client = TestClient(app)
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for c in reversed(clients):
        for ws in getattr(c, "test_sockets", []):
            ws.close()
        try:
            c.__exit__(None, None, None)
        except Exception:  # already closed by the test (a simulated restart)
            pass


#: claim code -> the seat token it was exchanged for (what a browser keeps after following an invite)
CLAIMED: dict[str, str] = {}
#: every claim code handed out by :func:`create_room`
CLAIMS: set[str] = set()


def create_room(client, **request) -> dict[str, Any]:
    request.setdefault("game", "goofspiel")
    r = client.post("/api/rooms", json=request)
    assert r.status_code == 200, r.text
    info = r.json()
    CLAIMS.update(s["claim"] for s in info["seats"] if s["claim"])
    return info


def credential(code_or_token: str | None) -> dict[str, str]:
    """The ``join`` fields for an invite's claim code (first use) or a seat token (later uses,
    as the browser does after following an invite)."""
    if code_or_token is None:
        return {}
    if not isinstance(code_or_token, str):
        return {"token": code_or_token}
    if code_or_token in CLAIMED:
        return {"token": CLAIMED[code_or_token]}
    if code_or_token in CLAIMS:
        return {"claim": code_or_token}
    return {"token": code_or_token}


def remember(code_or_token: str | None, frames: list[dict[str, Any]]) -> None:
    """Keep the token a ``welcome`` gave for a claim code (see :func:`credential`)."""
    for f in frames:
        if f.get("type") == "welcome" and f.get("token") and code_or_token in CLAIMS:
            CLAIMED[code_or_token] = f["token"]


def open_ws(client) -> WS:
    """A WebSocket that has not joined (closed by ``make_client`` at teardown)."""
    cm = client.websocket_connect("/ws")
    ws = WS(cm.__enter__())
    ws._cm = cm
    client.__dict__.setdefault("test_sockets", []).append(ws)
    return ws


def join(client, room: str, token: str | None = None) -> WS:
    """Open a WebSocket, join the room (``token``: a claim code of :func:`create_room` or a
    seat token) and read the welcome and first state."""
    cm = client.websocket_connect("/ws")
    session = cm.__enter__()
    ws = WS(session)
    ws._cm = cm  # closed by ws.close() (make_client closes every socket at teardown)
    client.__dict__.setdefault("test_sockets", []).append(ws)
    message: dict[str, Any] = {"type": "join", "room": room, **credential(token)}
    remember(token, ws.request(message))
    return ws


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """uvicorn serving ``app`` on 127.0.0.1 in a background thread."""

    def __init__(self, app, port: int | None = None) -> None:
        import uvicorn

        self.port = port or free_port()
        self.app = app
        from cardtable.web.app import server_options

        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", **server_options(app.state.hub.limits)
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        end = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > end or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def live_server(tmp_path):
    """``live_server(**create_app_kwargs) -> LiveServer`` (started; stopped at teardown)."""
    from cardtable.web.app import create_app

    servers = []

    def start(**kwargs):
        kwargs.setdefault("db_path", tmp_path / "live.sqlite3")
        server = LiveServer(create_app(**kwargs)).__enter__()
        servers.append(server)
        return server

    yield start
    for s in reversed(servers):
        s.__exit__()
