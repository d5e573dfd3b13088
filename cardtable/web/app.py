"""The web application: HTTP routes, the WebSocket endpoint and the static front end.

Routes:

- ``GET /`` -- the lobby and the creation form (``static/index.html``).
- ``GET /play/{room}`` -- the room's play page (the adapter's ``page``); a seat
  token travels in the URL fragment (``#token=...``), which browsers never send
  to the server, so tokens do not appear in logs.
- ``GET /api/games`` -- every game's creation options (variants, bots, seats).
- ``POST /api/games/{game}/bots`` -- which bots can play the posted settings
  (the creation form disables the others).
- ``GET /api/lobby`` -- listed rooms with a free seat.
- ``POST /api/rooms`` -- create a room (see :meth:`Hub.create_room`).
- ``POST /api/rooms/{room}/join`` -- take a free seat of a listed room.
- ``GET /api/rooms/{room}/record?match=M`` or ``?game=N`` -- the record text of
  finished games (seeds are revealed only for finished games).
- ``WS /ws`` -- the game protocol (:mod:`cardtable.web.protocol`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.websockets import WebSocketDisconnect

from .games import ADAPTERS, ActionError, SettingsError, get_adapter
from .protocol import (
    FLOOD_CLOSE_CODE, FLOOD_FACTOR, MAX_MESSAGE_BYTES, ProtocolError, RateLimiter, error, parse_message, safe_ref, seat_label,
)
from .rooms import Connection, Hub, Room, new_seed
from .storage import StorageError, Store

log = logging.getLogger("cardtable.web")

STATIC = Path(str(resources.files("cardtable.web") / "static"))


def default_db_path() -> Path:
    """``$CARDTABLE_HOME/web.sqlite3`` (see :func:`cardtable.platform.storage.home`)."""
    from cardtable.platform.storage import home

    return home() / "web.sqlite3"


def create_app(
    db_path: str | Path | None = None,
    *,
    seed_factory: Callable[[], str] = new_seed,
    rate: float = 20.0,
    burst: int = 40,
    max_bytes: int = MAX_MESSAGE_BYTES,
    synchronous: str = "NORMAL",
) -> FastAPI:
    """The ASGI app of ``cardtable serve``.

    Args:
        db_path: SQLite file (default :func:`default_db_path`); ``":memory:"`` for tests.
        seed_factory: makes the secret seed of each game (tests inject known seeds).
        rate, burst: per-connection rate limit (messages per second, burst).
        max_bytes: largest WebSocket message accepted.
        synchronous: SQLite durability, ``"NORMAL"`` (survives a killed process)
            or ``"FULL"`` (also survives a power loss).

    Raises:
        StorageError: the database cannot be opened.
    """
    store = Store(db_path if db_path is not None else default_db_path(), synchronous=synchronous)
    hub = Hub(store, seed_factory=seed_factory, rate=rate, burst=burst, max_bytes=max_bytes)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        resumed = hub.resume_all()
        if resumed:
            log.info("resumed %d unfinished room(s) from %s", resumed, store.path)
        checkpoints = asyncio.get_running_loop().create_task(_checkpoints(store))
        # long-lived objects (modules, loaded rooms) leave the cyclic GC's view, and
        # young collections run less often: full collections over a big heap paused
        # the event loop for 100+ ms under load (bench/server.py)
        gc.collect()
        gc.freeze()
        old_threshold = gc.get_threshold()
        gc.set_threshold(50_000, 20, 100)
        yield
        gc.set_threshold(*old_threshold)
        gc.unfreeze()
        checkpoints.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await checkpoints
        hub.close()
        store.close()

    app = FastAPI(title="cardtable", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.hub = hub

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        # the project's error format ({"error": text}, HTTP 400), not FastAPI's 422 detail list
        problems = []
        for e in exc.errors():
            where = ".".join(str(x) for x in e.get("loc", ()) if x not in ("query", "path", "body"))
            problems.append(f"{where or 'request'}: {e.get('msg', 'invalid')}")
        return JSONResponse({"error": "bad request: " + "; ".join(problems)}, status_code=400)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/")
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/play/{room_id}")
    async def play_page(room_id: str) -> Response:
        room = hub.room(room_id)
        if room is None:
            return PlainTextResponse(f"no room {room_id!r}", status_code=404)
        return FileResponse(STATIC / room.adapter.page)

    @app.get("/api/games")
    async def games() -> dict[str, Any]:
        return {name: get_adapter(name).options() for name in ADAPTERS}

    @app.post("/api/games/{game}/bots")
    async def playable_bots(game: str, request: Request) -> Response:
        # body: the creation form's settings; answers which bots can play them
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "the request body must be JSON"}, status_code=400)
        try:
            return JSONResponse(hub.playable_bots(game, body))
        except SettingsError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)

    @app.get("/api/lobby")
    async def lobby() -> list[dict[str, Any]]:
        return hub.lobby()

    @app.post("/api/rooms")
    async def create_room(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "the request body must be JSON"}, status_code=400)
        try:
            return JSONResponse(hub.create_room(body))
        except SettingsError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)

    @app.post("/api/rooms/{room_id}/join")
    async def join_room(room_id: str) -> Response:
        room = hub.room(room_id)
        if room is None:
            return JSONResponse({"error": "no such room"}, status_code=404)
        if not room.row.listed:
            return JSONResponse({"error": "that room is not listed in the lobby; ask its creator for an invite link"},
                                status_code=409)
        seat = hub.claim(room_id)
        if seat is None:
            return JSONResponse({"error": "no free seat in that room"}, status_code=409)
        return JSONResponse(seat)

    @app.get("/api/rooms/{room_id}/record")
    async def record(room_id: str, match: int | None = None, game: int | None = None) -> Response:
        room = hub.room(room_id)
        if room is None:
            return JSONResponse({"error": f"no room {room_id!r}"}, status_code=404)
        if game is not None and not any(s.game_no == game for s in room.slots):
            return JSONResponse({"error": f"no game {game}"}, status_code=404)
        if match is not None and not any(s.match_no == match for s in room.slots):
            return JSONResponse({"error": f"no match {match}"}, status_code=404)
        text = record_text(room, match=match, game=game)
        if text is None:
            return JSONResponse({"error": "no finished game to download yet"}, status_code=409)
        name = f"{room.adapter.name}-{room.id}-{'game-' + str(game) if game else 'match-' + str(match or room.current.match_no)}"
        return PlainTextResponse(
            text, media_type="text/plain; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}{room.adapter.record_suffix}"'},
        )

    @app.websocket("/ws")
    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        conn = Connection()
        writer = asyncio.get_running_loop().create_task(_writer(ws, conn))
        limiter = RateLimiter(hub.rate, hub.burst)
        try:
            while not conn.closed:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                raw = msg.get("text")
                if raw is None:
                    raw = msg.get("bytes")
                if raw is None:
                    continue
                if not limiter.allow():
                    # docs/web.md, "Limits": one error when the bucket runs dry, then silence;
                    # a flood of dropped messages closes the connection with 1008
                    if limiter.refused == 1:
                        conn.send(error("rate_limited", f"too many messages: at most {hub.rate:g} per second "
                                        f"(bursts of {hub.burst}); messages are dropped until you slow down"))
                    if limiter.refused > FLOOD_FACTOR * hub.burst:
                        conn.close(FLOOD_CLOSE_CODE, f"flooding: over {FLOOD_FACTOR * hub.burst} messages "
                                   "dropped in a row")
                        break
                    continue
                ref = None
                try:
                    data = parse_message(raw, hub.max_bytes)
                    ref = safe_ref(data)
                    handle(hub, conn, data, ref)
                except (ProtocolError, ActionError) as exc:
                    conn.send(error(exc.code, str(exc), ref))
                except StorageError as exc:
                    log.error("storage: %s", exc)
                    conn.send(error("storage", "the server could not store that; nothing changed, try again", ref))
        except WebSocketDisconnect:
            pass
        finally:
            if conn.room is not None:
                conn.room.detach(conn)
            conn.close()
            await writer

    return app


async def _checkpoints(store: Store, every: float = 1.0) -> None:
    """Checkpoint the SQLite WAL in a worker thread, once a second."""
    while True:
        await asyncio.sleep(every)
        try:
            await asyncio.to_thread(store.checkpoint)
        except Exception as exc:  # a failed checkpoint loses nothing: the WAL keeps the data
            log.warning("WAL checkpoint failed: %s", exc)


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


def handle(hub: Hub, conn: Connection, data: dict[str, Any], ref: Any) -> None:
    """Dispatch one parsed client message (see :mod:`cardtable.web.protocol`).

    Raises:
        ProtocolError, ActionError, StorageError: sent back to the client as ``error``.
    """
    kind = data["type"]
    if kind == "ping":
        conn.send({"type": "pong", "ref": ref})
        return
    if kind == "join":
        if conn.joined:
            raise ProtocolError("already_joined", "this connection has already joined a room; a connection joins "
                                "once (open a new connection to change rooms or seats)")
        room = hub.room(data.get("room"))
        if room is None:
            raise ProtocolError("no_room", f"no room {str(data.get('room'))[:64]!r}")
        token = data.get("token")
        seat = None
        if token is not None:
            seat = room.seat_for_token(token)
            if seat is None:
                raise ProtocolError("bad_token", "that seat token does not belong to this room; "
                                    "join without a token to watch")
        room.attach(conn, seat)
        conn.joined = True
        return
    room = conn.room
    if room is None:
        raise ProtocolError("not_joined", "send a 'join' message first")
    if kind == "act":
        if conn.seat is None:
            raise ProtocolError("forbidden", "spectators cannot act; join with a seat token to play")
        if "seat" in data and data["seat"] != conn.seat:
            raise ProtocolError("forbidden", f"this connection acts for {seat_label(conn.seat)} only")
        if "action" not in data:
            raise ProtocolError("bad_message", "an 'act' message needs an 'action'")
        room.submit(conn.seat, data["action"])
        conn.send({"type": "ack", "ref": ref, "version": room.version})
        room.changed()
    elif kind == "next":
        room.next_game(conn.seat)
        conn.send({"type": "ack", "ref": ref, "version": room.version})
        room.changed()


def record_text(room: Room, match: int | None = None, game: int | None = None) -> str | None:
    """The record of a room's finished games: one game (``game``) or one match
    (``match``; default the current one). ``None`` when none is finished."""
    adapter = room.adapter
    if game is not None:
        slots = [s for s in room.slots if s.game_no == game]
        m = slots[0].match_no if slots else None
    else:
        m = match if match is not None else room.current.match_no
        slots = [s for s in room.slots if s.match_no == m]
    finished = [s for s in slots if adapter.is_over(s.state)]
    if not finished:
        return None
    all_in_match = [s for s in room.slots if s.match_no == m]
    full = room.match(m)
    tags = []
    for slot in finished:
        t = [("Event", f"cardtable web room {room.id}")]
        if str(room.format) != "total 1":
            t.append(("Match", str(room.format)))
            t.append(("MatchGame", str(all_in_match.index(slot) + 1)))
            if full.is_over and slot is all_in_match[-1] and game is None:
                t.append(("MatchResult", " ".join(full.result())))
        tags.append(t)
    players = [s.name for s in room.seats]
    return adapter.record_text([s.state for s in finished], players, tags)
