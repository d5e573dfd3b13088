"""``WS /ws``: the game protocol's endpoint (:mod:`cardtable.web.protocol`).

Each connection joins once (a seat by its token or an invite's claim code, or
as a spectator), then sends actions; the server answers every message in order.
A connection is refused beyond :attr:`Limits.connections_per_address` from one
address, closed when it does not join within :attr:`Limits.join_timeout` seconds,
and rate-limited per message and per byte (docs/web.md, "Limits").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from .connection import Connection
from .errors import CredentialError, cut_id
from .games import ActionError
from .hub import Hub
from .limits import Limits
from .protocol import (
    FLOOD_CLOSE_CODE,
    POLICY_CLOSE_CODE,
    ProtocolError,
    RateLimiter,
    error,
    parse_message,
    seat_label,
)
from .schema import Act, Join, Next, Ping
from .storage import StorageError

log = logging.getLogger("cardtable.web")

router = APIRouter()


def _address(client: Any) -> str:
    return client.host if client is not None else ""


@router.websocket("/ws")
async def websocket(ws: WebSocket) -> None:
    hub: Hub = ws.app.state.hub
    address = _address(ws.client)
    await ws.accept()
    conn = Connection(address=address)
    loop = asyncio.get_running_loop()
    writer = loop.create_task(_writer(ws, conn))
    if not hub.lobby.connect(address):
        conn.close(
            POLICY_CLOSE_CODE,
            f"too many connections from your address (at most {hub.limits.connections_per_address})",
        )
        await writer
        return
    join_timer = loop.call_later(hub.limits.join_timeout, _join_timeout, conn, hub.limits.join_timeout)
    try:
        await _serve(ws, hub, conn, join_timer)
    except WebSocketDisconnect:
        pass
    finally:
        join_timer.cancel()
        hub.lobby.disconnect(address)
        if conn.room is not None:
            conn.room.detach(conn)
        conn.close()
        await writer


def _limiter(lim: Limits) -> RateLimiter:
    return RateLimiter(
        lim.rate, lim.burst, byte_rate=lim.byte_rate, byte_burst=lim.byte_burst, flood_factor=lim.flood_factor
    )


async def _serve(ws: WebSocket, hub: Hub, conn: Connection, join_timer: asyncio.TimerHandle) -> None:
    """Read and answer the connection's messages until it closes (or is closed)."""
    lim = hub.limits
    limiter = _limiter(lim)
    while not conn.closed:
        msg = await ws.receive()
        if msg["type"] == "websocket.disconnect":
            break
        raw = msg.get("text")
        if raw is None:
            raw = msg.get("bytes")
        if raw is None:
            continue
        if not _allowed(limiter, lim, conn, raw):
            continue
        await _answer(hub, conn, raw)
        if conn.joined:
            join_timer.cancel()


def _allowed(limiter: RateLimiter, lim: Limits, conn: Connection, raw: str | bytes) -> bool:
    """Count the message against the rate limits. docs/web.md, "Limits": one error when a
    bucket runs dry, then silence; a flood of dropped messages or bytes closes the
    connection with 1008."""
    size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))
    if limiter.allow(size):
        return True
    if limiter.flooding():
        conn.close(FLOOD_CLOSE_CODE, "flooding: too many messages or bytes dropped")
    elif limiter.refused == 1:
        conn.send(
            error(
                "rate_limited",
                f"too many messages: at most {lim.rate:g} per second "
                f"(bursts of {lim.burst}) and {lim.byte_rate:g} bytes per second; "
                "messages are dropped until you slow down",
            )
        )
    return False


async def _answer(hub: Hub, conn: Connection, raw: str | bytes) -> None:
    """Parse and handle one message; a refusal is sent back as ``error``."""
    ref = None
    try:
        data = parse_message(raw, hub.limits.max_message_bytes)
        ref = data.ref
        await handle(hub, conn, data)
    except ProtocolError as exc:
        conn.send(error(exc.code, str(exc), exc.ref if exc.ref is not None else ref))
    except (ActionError, CredentialError) as exc:
        conn.send(error(exc.code, str(exc), ref))
    except StorageError as exc:
        log.error("storage: %s", exc)
        conn.send(error("storage", "the server could not store that; nothing changed, try again", ref))


def _join_timeout(conn: Connection, seconds: float) -> None:
    if not conn.joined:
        conn.close(POLICY_CLOSE_CODE, f"no join within {seconds:g} s")


async def _writer(ws: WebSocket, conn: Connection) -> None:
    """Send the connection's queued messages in order; close the socket once the
    queue ends (with :attr:`Connection.close_code` and its reason)."""
    try:
        while True:
            text = await conn.queue.get()
            if text is None:
                break
            await ws.send_text(text)
    except Exception:  # the client went away; the reader loop ends too
        pass
    finally:
        conn.closed = True
        with contextlib.suppress(Exception):
            await ws.close(code=conn.close_code, reason=conn.close_reason)


async def handle(hub: Hub, conn: Connection, data: Join | Act | Next | Ping) -> None:
    """Dispatch one validated client message (see :mod:`cardtable.web.protocol`).

    Raises:
        ProtocolError, ActionError, CredentialError, StorageError: sent back to the
            client as ``error``.
    """
    if isinstance(data, Ping):
        conn.send({"type": "pong", "ref": data.ref})
    elif isinstance(data, Join):
        await _join(hub, conn, data)
    elif conn.room is None:
        raise ProtocolError("not_joined", "send a 'join' message first")
    elif isinstance(data, Act):
        await _act(conn, data)
    else:
        room = conn.room
        await room.next_game(conn.seat)
        conn.send({"type": "ack", "ref": data.ref, "version": room.version})
        room.changed()


async def _join(hub: Hub, conn: Connection, data: Join) -> None:
    if conn.joined:
        raise ProtocolError(
            "already_joined",
            "this connection has already joined a room; a connection joins "
            "once (open a new connection to change rooms or seats)",
        )
    room = await hub.room(data.room)
    if room is None:
        raise ProtocolError("no_room", f"no room {cut_id(data.room)}")
    if data.token is not None and data.claim is not None:
        raise ProtocolError("bad_message", "join with a 'token' or a 'claim', not both")
    seat, token = None, None
    if data.token is not None:
        seat = await hub.seats.confirm(room, data.token)
        if seat is None:
            raise ProtocolError(
                "bad_token",
                "that seat token does not belong to this room (or was "
                "released); join without a token to watch",
            )
    elif data.claim is not None:
        seat, token = await hub.seats.redeem(room, data.claim)
    room.attach(conn, seat, token)
    conn.joined = True


async def _act(conn: Connection, data: Act) -> None:
    room = conn.room
    assert room is not None
    if conn.seat is None:
        raise ProtocolError("forbidden", "spectators cannot act; join with a seat token to play")
    if data.seat is not None and data.seat != conn.seat:
        raise ProtocolError("forbidden", f"this connection acts for {seat_label(conn.seat)} only")
    await room.submit(conn.seat, data.action)
    conn.send({"type": "ack", "ref": data.ref, "version": room.version})
    room.changed()
