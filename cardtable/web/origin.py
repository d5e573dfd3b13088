"""Cross-site requests: a page of another site may show this server's pages, but not act on them.

A browser sends an ``Origin`` header with every WebSocket handshake and every ``POST``. A
page on ``https://evil.example`` that a player visits could otherwise open ``/ws`` or post
to ``/api/rooms`` with the player's address: create rooms on the player's quota, claim
lobby seats, flood the server from many visitors' browsers. :class:`SameOrigin` refuses
such a request before any route sees it (docs/web.md, Security model):

- an ``http`` request whose method acts (anything but ``GET``, ``HEAD`` and ``OPTIONS``), and
  every ``websocket`` handshake,
- that carries an ``Origin`` header naming another host and port than the request's own
  ``Host`` header (``Origin: null``, sent by sandboxed frames and local files, counts as
  another),

is answered ``403 {"error": ...}`` (a WebSocket handshake: closed with 1008 before it is
accepted, which the server sends as HTTP 403). A request without ``Origin`` (``curl``, the
protocol bots, a script) is not a browser's cross-site request and passes. Behind a reverse
proxy that keeps the ``Host`` header (Caddy's default, docs/deploy.md) the check works
unchanged.

>>> foreign_origin([(b"host", b"localhost:8765"), (b"origin", b"http://localhost:8765")])
>>> foreign_origin([(b"host", b"localhost:8765"), (b"origin", b"https://evil.example")])
"the page's origin 'https://evil.example' is not this server (Host 'localhost:8765')"
>>> foreign_origin([(b"host", b"cards.example")])  # no Origin: not a browser's cross-site request
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from .errors import cut_id, error

__all__ = ["SameOrigin", "foreign_origin"]

#: Methods that only read: a cross-site page may send them (links, images, a shared record).
READING_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: The WebSocket close code of a refused handshake (RFC 6455: policy violation).
POLICY_CLOSE_CODE = 1008
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _host_port(netloc: str, scheme: str) -> tuple[str, int | None] | None:
    """``("host", port)`` of ``netloc`` with the scheme's default port filled in, lower case;
    ``None`` when it cannot be read."""
    try:
        parts = urlsplit(f"{scheme}://{netloc}")
        port = parts.port
    except ValueError:
        return None
    if parts.hostname is None:
        return None
    return parts.hostname.lower(), port if port is not None else _DEFAULT_PORTS.get(scheme)


def foreign_origin(headers: Sequence[tuple[bytes, bytes]]) -> str | None:
    """Why a request with these (ASGI, lower-case name) ``headers`` comes from another site,
    or ``None`` when it has no ``Origin`` header or its origin is the request's own host.

    The host and port of ``Origin`` are compared with the ``Host`` header's, each with its
    scheme's default port when none is written (a request's ``Host`` is read with the
    origin's scheme: the server may sit behind a TLS proxy). Several ``Origin`` headers, an
    unreadable one, ``null``, or none to compare with (no ``Host``) count as foreign.
    """
    origins = [value for name, value in headers if name == b"origin"]
    if not origins:
        return None
    hosts = [value for name, value in headers if name == b"host"]
    origin = origins[0].decode("latin-1")
    if len(origins) > 1:
        return "the request has more than one Origin header"
    parts = urlsplit(origin) if "://" in origin else None
    if parts is None or parts.scheme not in _DEFAULT_PORTS:
        return f"the page's origin {cut_id(origin)} is not this server"
    mine = _host_port(hosts[0].decode("latin-1"), parts.scheme) if len(hosts) == 1 else None
    theirs = _host_port(parts.netloc, parts.scheme)
    if mine is None or theirs != mine:
        where = (
            f"Host {cut_id(hosts[0].decode('latin-1'))}"
            if len(hosts) == 1
            else f"{len(hosts) or 'no'} Host headers"
        )
        return f"the page's origin {cut_id(origin)} is not this server ({where})"
    return None


class SameOrigin:
    """ASGI middleware: a browser's cross-site request that acts is refused before any route
    sees it (module docstring); everything else goes to ``app`` unchanged."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        acts = scope["type"] == "websocket" or (
            scope["type"] == "http" and scope.get("method", "GET") not in READING_METHODS
        )
        problem = foreign_origin(scope.get("headers", ())) if acts else None
        if problem is None:
            await self.app(scope, receive, send)
            return
        reason = f"cross-site request refused: {problem}"
        if scope["type"] == "websocket":
            await receive()  # the handshake's websocket.connect
            await send({"type": "websocket.close", "code": POLICY_CLOSE_CODE, "reason": reason[:120]})
            return
        await error(reason, 403)(scope, receive, send)
