"""Hosting for friends (docs/deploy.md): a real Caddy (Debian's package) with its internal CA
terminates TLS in front of a real ``cardtable serve``; a game of Golf is played through
https and wss in Chromium, and every process the test starts is gone at the end."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

CADDY = shutil.which("caddy") or "/usr/bin/caddy"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

pytestmark = [pytest.mark.slow, pytest.mark.browser]

# The Caddyfile of docs/deploy.md ("Try it on one machine"), with test ports and folders.
CADDYFILE = """\
{{
	admin off
	skip_install_trust
	http_port {http}
	https_port {https}
	servers {{
		timeouts {{
			read_header 10s
		}}
	}}
}}

https://localhost:{https} {{
	tls internal
	reverse_proxy 127.0.0.1:{app}
}}
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(check, what: str, proc: subprocess.Popen, log: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{what} exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
        try:
            if check():
                return
        except (OSError, httpx.HTTPError):
            pass
        time.sleep(0.1)
    raise AssertionError(f"{what} did not come up in {seconds} s:\n{log.read_text(errors='replace')}")


def _stop(proc: subprocess.Popen) -> None:
    """End ``proc`` and its process group: SIGTERM, then SIGKILL after 10 s."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _trust(root: Path) -> ssl.SSLContext:
    """A TLS context that trusts only Caddy's local root CA."""
    return ssl.create_default_context(cafile=str(root))


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _group_gone(pgid: int, within: float = 10.0) -> bool:
    """Whether every process of group ``pgid`` has exited within ``within`` seconds. The server's
    analysis pool has a multiprocessing resource tracker, which ignores SIGTERM by design and
    exits by itself once the server (the last holder of its pipe) has exited: a moment later."""
    deadline = time.monotonic() + within
    while _group_alive(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def tls_site(tmp_path):
    """``(https_url, root_ca_path, db_path)``: cardtable serve behind Caddy; both stopped after."""
    assert os.path.exists(CADDY), (
        f"Caddy is missing at {CADDY} (Debian package 'caddy'; scripts/test.sh installs it)"
    )
    app_port, https_port, http_port = _free_port(), _free_port(), _free_port()
    env = {
        **os.environ,
        "CARDTABLE_HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "HOME": str(tmp_path),
    }
    db = tmp_path / "state" / "web.sqlite3"
    db.parent.mkdir()
    procs: list[subprocess.Popen] = []
    server_log, caddy_log = tmp_path / "serve.log", tmp_path / "caddy.log"
    try:
        with open(server_log, "wb") as out:
            server = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "cardtable",
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(app_port),
                    "--db",
                    str(db),
                    "--log-level",
                    "info",
                ],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        procs.append(server)
        _wait_for(
            lambda: httpx.get(f"http://127.0.0.1:{app_port}/", timeout=2).status_code == 200,
            "cardtable serve",
            server,
            server_log,
        )
        caddyfile = tmp_path / "Caddyfile"
        caddyfile.write_text(CADDYFILE.format(http=http_port, https=https_port, app=app_port))
        with open(caddy_log, "wb") as out:
            caddy = subprocess.Popen(
                [CADDY, "run", "--config", str(caddyfile), "--adapter", "caddyfile"],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        procs.append(caddy)
        root = tmp_path / "xdg-data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
        url = f"https://localhost:{https_port}"
        _wait_for(
            lambda: root.exists() and httpx.get(url + "/", verify=_trust(root), timeout=2).status_code == 200,
            "caddy",
            caddy,
            caddy_log,
        )
        yield url, root, db, server_log
    finally:
        for p in reversed(procs):
            _stop(p)
        for p in procs:  # nothing the test started outlives it
            assert p.poll() is not None and _group_gone(p.pid), f"process {p.args[0]} still runs"


def test_golf_through_caddy_over_https_and_wss(tls_site):
    url, root, db, server_log = tls_site
    # TLS is real: the chain verifies against Caddy's internal root CA, and only against it
    page = httpx.get(url + "/", verify=_trust(root))
    assert page.status_code == 200 and "cardtable" in page.text.lower()
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/", timeout=5)  # the system's CAs do not know Caddy's local CA
    created = httpx.post(
        url + "/api/rooms",
        verify=_trust(root),
        json={
            "game": "golf",
            "settings": {"rows": 2, "cols": 2, "early_end_min": 1},
            "seats": [{"name": "Ann"}, {"bot": "heuristic"}],
        },
    )
    assert created.status_code == 200, created.text
    info = created.json()
    claim = info["seats"][0]["claim"]
    # proxy headers: Caddy replaces a forged X-Forwarded-For with the real client address, and
    # cardtable (uvicorn) takes the address from Caddy's header (port 0), not from the connection
    httpx.get(url + "/?probe=forwarded", verify=_trust(root), headers={"X-Forwarded-For": "203.0.113.9"})
    deadline = time.monotonic() + 10
    while "probe=forwarded" not in server_log.read_text(errors="replace") and time.monotonic() < deadline:
        time.sleep(0.1)  # the access log line may come a moment after the response
    log = server_log.read_text(errors="replace")
    assert '127.0.0.1:0 - "GET /?probe=forwarded' in log
    assert "203.0.113.9" not in log

    assert os.path.exists(CHROMIUM), f"Chromium is missing at {CHROMIUM} (Debian package 'chromium')"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            # the browser cannot be told about the local CA without changing the machine's
            # trust store; httpx above checked the chain, Chromium only skips that check
            ctx = browser.new_context(ignore_https_errors=True, viewport={"width": 900, "height": 1000})
            pg = ctx.new_page()
            pg.set_default_timeout(20000)
            sockets: list[str] = []
            pg.on("websocket", lambda ws: sockets.append(ws.url))
            errors: list[str] = []
            pg.on("pageerror", lambda e: errors.append(str(e)))
            pg.goto(f"{url}/play/{info['room']}#claim={claim}")
            pg.wait_for_selector('body[data-actor="0"], body[data-phase="over"]')
            assert pg.evaluate("location.protocol") == "https:"
            assert sockets and all(s.startswith(f"wss://localhost:{url.rsplit(':', 1)[1]}/") for s in sockets)
            # the bot seat reads "heuristic bot", not "heuristic bot (bot)"
            assert pg.inner_text(".player:not(.me) .name").startswith("heuristic bot")
            assert "(bot)" not in pg.inner_text(".player:not(.me) .name")
            # the "seen by" digits on a face-down card are white on a dark chip
            color = pg.evaluate("getComputedStyle(document.querySelector('.card.back .seenby')).color")
            assert color == "rgb(255, 255, 255)"
            for _ in range(200):
                pg.wait_for_selector('body[data-actor="0"], body[data-phase="over"]')
                phase = pg.get_attribute("body", "data-phase")
                if phase == "over":
                    break
                if phase == "draw":
                    pg.click("#btn-draw")
                elif phase == "drawn":
                    pg.click("#btn-discard")
                else:  # after a snap: passing is optional
                    pg.click("#btn-nopass")
                pg.wait_for_function(
                    f"document.body.dataset.phase !== '{phase}' || document.body.dataset.actor !== '0'"
                )
            pg.wait_for_selector("#winner")
            pg.wait_for_selector("#fair-commit.ok")
            assert "fewest points" in pg.inner_text("#winner")
            moves = pg.inner_text("#events")
            assert "You drew" in moves and "You discarded" in moves  # second person for you
            assert "heuristic bot" in moves
            assert not errors
        finally:
            browser.close()
    # the game was stored where the unit file of docs/deploy.md keeps it
    assert db.exists() and db.stat().st_size > 0


def test_caddy_closes_a_half_sent_request(tls_site):
    """docs/deploy.md's `read_header 10s`: a client that never finishes its request headers is
    disconnected by Caddy (cardtable's uvicorn has no such timeout; a helper held 500 such
    connections open on a bare server)."""
    url, root, _db, _log = tls_site
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("localhost", port), timeout=30) as raw:
        with _trust(root).wrap_socket(raw, server_hostname="localhost") as tls:
            tls.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n")  # and never the blank line
            start = time.monotonic()
            try:
                got = tls.recv(4096)  # Caddy answers 408 or just closes
            except (ConnectionResetError, ssl.SSLError):
                got = b""
            waited = time.monotonic() - start
    assert waited < 25, f"still open after {waited:.0f} s"
    assert got == b"" or got.startswith(b"HTTP/1.1 408"), got[:80]
