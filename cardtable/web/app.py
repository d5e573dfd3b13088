"""The web application: HTTP routes, the WebSocket endpoint and the static front end.

Routes:

- ``GET /`` -- the lobby and the creation form (``static/index.html``).
- ``GET /play/{room}`` -- the room's play page (the adapter's ``page``); an
  invite's claim code (``#claim=...``) or a seat token (``#token=...``) travels
  in the URL fragment, which browsers never send to the server, so credentials
  do not appear in logs.
- ``GET /api/games`` -- every game's creation options (variants, bots, seats).
- ``POST /api/games/{game}/bots`` -- which bots can play the posted settings
  (the creation form disables the others).
- ``GET /api/lobby`` -- listed rooms with a free seat.
- ``POST /api/rooms`` -- create a room (see :meth:`Hub.create_room`).
- ``POST /api/rooms/{room}/join`` -- take a free seat of a listed room (a fresh token).
- ``POST /api/rooms/{room}/seats/{seat}/invite`` -- the owner re-invites an
  unclaimed seat (revokes its claim code, issues a new one).
- ``GET /api/rooms/{room}/record?match=M`` or ``?game=N`` -- the record text of
  finished games (seeds are revealed only for finished games).
- ``GET /analysis/{room}?game=N`` and ``GET /api/rooms/{room}/analysis?game=N``
  -- the coach's analysis of a finished game (:mod:`cardtable.web.coach`).
- ``GET /replay``, ``POST /api/replay``, ``POST /api/replay/analysis``, ``GET /api/replay/rooms/{room}``
  -- the replay board (:mod:`cardtable.web.replay`); ``GET /explorer``, ``GET /api/explorer`` -- the
  equilibrium explorer (:mod:`cardtable.web.explorer`); their solves go through the analyses' pool.
- ``WS /ws`` -- the game protocol (:mod:`cardtable.web.protocol`).

Every body and message is validated by :mod:`cardtable.web.schema`; every limit
is in :class:`cardtable.web.limits.Limits` (docs/web.md, "Limits"). Every error
answer is ``{"error": text}`` (Starlette's own 404 and 405 included), and quotes
at most 64 characters of an id or path (:func:`cardtable.web.rooms.cut_id`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import logging
from pathlib import Path
from typing import Any, Callable

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect

from .coach import register as register_coach
from .games import ADAPTERS, ActionError, SettingsError, get_adapter
from .limits import Limits
from .paths import STATIC
from .protocol import FLOOD_CLOSE_CODE, POLICY_CLOSE_CODE, ProtocolError, RateLimiter, error, parse_message, seat_label
from .rooms import Connection, CredentialError, Hub, QuotaError, Room, cut_id, new_seed
from .schema import CREATE_ROOM, INVITE, SETTINGS_BODY, Act, Join, Next, Ping, SchemaError, validate_json
from .storage import StorageError, Store

log = logging.getLogger("cardtable.web")


def default_db_path() -> Path:
    """``$CARDTABLE_HOME/web.sqlite3`` (see :func:`cardtable.platform.storage.home`)."""
    from cardtable.platform.storage import home

    return home() / "web.sqlite3"


def server_options(limits: Limits | None = None) -> dict[str, Any]:
    """uvicorn settings that enforce the limits at the transport: a WebSocket frame
    (message) over :attr:`Limits.max_message_bytes` closes the connection with 1009
    before it is read into memory; at shutdown, requests still waiting (an analysis in a
    long queue) are cancelled after 5 s. ``cardtable serve``, the tests and the benchmarks
    pass these to ``uvicorn.run`` / ``uvicorn.Config``."""
    limits = limits or Limits()
    return {"ws_max_size": limits.max_message_bytes, "ws_max_queue": 16, "timeout_keep_alive": 5,
            "timeout_graceful_shutdown": 5}


class BodyLimit:
    """ASGI middleware: an HTTP request body over ``max_bytes`` is answered
    ``413 {"error": ...}`` without being read further (a ``Content-Length`` over the
    limit is refused before any byte is read)."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.max_bytes
                except ValueError:
                    too_big = True
                if too_big:
                    await self._refuse(scope, receive, send)
                    return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay() -> dict:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: dict, receive: Callable, send: Callable) -> None:
        response = JSONResponse({"error": f"the request body is over the limit of {self.max_bytes} bytes"},
                                status_code=413, headers={"connection": "close"})
        await response(scope, receive, send)


def _address(client: Any) -> str:
    return client.host if client is not None else ""


def create_app(
    db_path: str | Path | None = None,
    *,
    seed_factory: Callable[[], str] = new_seed,
    rate: float | None = None,
    burst: int | None = None,
    max_bytes: int | None = None,
    synchronous: str = "NORMAL",
    limits: Limits | None = None,
    analysis_executor: Callable[[int], Any] | None = None,
) -> FastAPI:
    """The ASGI app of ``cardtable serve``.

    Args:
        db_path: SQLite file (default :func:`default_db_path`); ``":memory:"`` for tests.
        seed_factory: makes the secret seed of each game (tests inject known seeds).
        limits: every server limit (default :class:`~cardtable.web.limits.Limits`).
        rate, burst, max_bytes: shortcuts that override ``limits.rate``, ``limits.burst``
            and ``limits.max_message_bytes``.
        synchronous: SQLite durability, ``"NORMAL"`` (survives a killed process)
            or ``"FULL"`` (also survives a power loss).
        analysis_executor: makes the analyses' pool from ``limits.analysis_workers``
            (default worker processes, :func:`cardtable.web.coach.process_pool`; tests
            pass ``concurrent.futures.ThreadPoolExecutor`` to count solves in-process).

    Raises:
        StorageError: the database cannot be opened.
        ValueError: a limit that is not a positive number.
    """
    limits = limits or Limits()
    overrides = {k: v for k, v in (("rate", rate), ("burst", burst), ("max_message_bytes", max_bytes))
                 if v is not None}
    if overrides:
        limits = dataclasses.replace(limits, **overrides)
    store = Store(db_path if db_path is not None else default_db_path(), synchronous=synchronous)
    hub = Hub(store, seed_factory=seed_factory, limits=limits)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        resumed = hub.resume_all()
        if resumed:
            log.info("resumed %d unfinished room(s) from %s", resumed, store.path)
        loop = asyncio.get_running_loop()
        tasks = [loop.create_task(_checkpoints(store)), loop.create_task(_sweeps(hub, analyses))]
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
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        analyses.close()
        hub.close()
        store.close()

    app = FastAPI(title="cardtable", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.hub = hub
    app.add_middleware(BodyLimit, max_bytes=limits.max_body_bytes)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        # the project's error format ({"error": text}, HTTP 400), not FastAPI's 422 detail list
        problems = []
        for e in exc.errors():
            where = ".".join(str(x) for x in e.get("loc", ()) if x not in ("query", "path", "body"))
            problems.append(f"{where or 'request'}: {e.get('msg', 'invalid')}")
        return JSONResponse({"error": "bad request: " + "; ".join(problems)[:400]}, status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        # Starlette's own answers (an unmatched route, a method a route does not take, a missing
        # static file) in the project's format, never echoing more than 64 characters of the path
        what = {404: "no such page", 405: "method not allowed"}.get(exc.status_code, str(exc.detail))
        return JSONResponse({"error": f"{what}: {request.method} {cut_id(request.url.path)}"},
                            status_code=exc.status_code, headers=exc.headers)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    # /analysis/{room} and its JSON (cardtable/web/coach.py)
    analyses = register_coach(app, hub, STATIC, analysis_executor)
    app.state.analyses = analyses
    from . import explorer, replay  # /replay and /explorer, their JSON routes use the same analyses
    for part in (replay, explorer):
        app.include_router(part.router)

    def refused(exc: Exception, status: int = 400) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=status)

    def quota(exc: QuotaError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=429,
                            headers={"retry-after": str(max(1, round(exc.retry_after)))})

    @app.get("/")
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/play/{room_id}")
    async def play_page(room_id: str) -> Response:
        room = hub.room(room_id)
        if room is None:
            return JSONResponse({"error": f"no room {cut_id(room_id)}"}, status_code=404)
        return FileResponse(STATIC / room.adapter.page)

    @app.get("/api/games")
    async def games() -> dict[str, Any]:
        return {name: get_adapter(name).options() for name in ADAPTERS}

    @app.post("/api/games/{game}/bots")
    async def playable_bots(game: str, request: Request) -> Response:
        # body: the creation form's settings; answers which bots can play them
        try:
            settings = validate_json(SETTINGS_BODY, await request.body())
            return JSONResponse(hub.playable_bots(game, settings))
        except SchemaError as exc:
            return refused(f"bad request: {exc}")
        except SettingsError as exc:
            return refused(exc)

    @app.get("/api/lobby")
    async def lobby() -> list[dict[str, Any]]:
        return hub.lobby()

    @app.post("/api/rooms")
    async def create_room(request: Request) -> Response:
        try:
            body = validate_json(CREATE_ROOM, await request.body())
            return JSONResponse(hub.create_room(body, _address(request.client)))
        except SchemaError as exc:
            return refused(f"bad request: {_seat_words(exc)}")
        except SettingsError as exc:
            return refused(exc)
        except QuotaError as exc:
            return quota(exc)

    @app.post("/api/rooms/{room_id}/join")
    async def join_room(room_id: str, request: Request) -> Response:
        room = hub.room(room_id)
        if room is None:
            return JSONResponse({"error": "no such room"}, status_code=404)
        if not room.row.listed:
            return JSONResponse({"error": "that room is not listed in the lobby; ask its creator for an invite link"},
                                status_code=409)
        try:
            seat = hub.claim(room_id, _address(request.client))
        except QuotaError as exc:
            return quota(exc)
        if seat is None:
            return JSONResponse({"error": "no free seat in that room"}, status_code=409)
        return JSONResponse(seat)

    @app.post("/api/rooms/{room_id}/seats/{seat}/invite")
    async def reinvite(room_id: str, seat: int, request: Request) -> Response:
        try:
            body = validate_json(INVITE, await request.body())
            return JSONResponse(hub.reinvite(room_id, seat, body.owner))
        except SchemaError as exc:
            return refused(f"bad request: {exc}")
        except KeyError:
            return JSONResponse({"error": "no such room or seat"}, status_code=404)
        except CredentialError as exc:
            return refused(exc, 403 if exc.code == "forbidden" else 409)

    @app.get("/api/rooms/{room_id}/record")
    async def record(room_id: str, match: int | None = None, game: int | None = None) -> Response:
        room = hub.room(room_id)
        if room is None:
            return JSONResponse({"error": f"no room {cut_id(room_id)}"}, status_code=404)
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
        address = _address(ws.client)
        await ws.accept()
        conn = Connection(address=address)
        loop = asyncio.get_running_loop()
        writer = loop.create_task(_writer(ws, conn))
        if not hub.connect(address):
            conn.close(POLICY_CLOSE_CODE, f"too many connections from your address (at most "
                       f"{limits.connections_per_address})")
            await writer
            return
        lim = hub.limits
        limiter = RateLimiter(lim.rate, lim.burst, byte_rate=lim.byte_rate, byte_burst=lim.byte_burst,
                              flood_factor=lim.flood_factor)
        join_timer = loop.call_later(lim.join_timeout, _join_timeout, conn, lim.join_timeout)
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
                size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))
                if not limiter.allow(size):
                    # docs/web.md, "Limits": one error when a bucket runs dry, then silence;
                    # a flood of dropped messages or bytes closes the connection with 1008
                    if limiter.flooding():
                        conn.close(FLOOD_CLOSE_CODE, "flooding: too many messages or bytes dropped")
                        break
                    if limiter.refused == 1:
                        conn.send(error("rate_limited", f"too many messages: at most {lim.rate:g} per second "
                                        f"(bursts of {lim.burst}) and {lim.byte_rate:g} bytes per second; "
                                        "messages are dropped until you slow down"))
                    continue
                ref = None
                try:
                    data = parse_message(raw, lim.max_message_bytes)
                    ref = data.ref
                    handle(hub, conn, data)
                    if conn.joined:
                        join_timer.cancel()
                except ProtocolError as exc:
                    conn.send(error(exc.code, str(exc), exc.ref if exc.ref is not None else ref))
                except (ActionError, CredentialError) as exc:
                    conn.send(error(exc.code, str(exc), ref))
                except StorageError as exc:
                    log.error("storage: %s", exc)
                    conn.send(error("storage", "the server could not store that; nothing changed, try again", ref))
        except WebSocketDisconnect:
            pass
        finally:
            join_timer.cancel()
            hub.disconnect(address)
            if conn.room is not None:
                conn.room.detach(conn)
            conn.close()
            await writer

    return app


def _seat_words(exc: SchemaError) -> str:
    """``seats.1.name: ...`` -> ``seat 1 (the second seat): name: ...`` (docs/web.md, "Seat numbers")."""
    import re

    return re.sub(r"seats\.(\d)\.", lambda m: f"{seat_label(int(m.group(1)))}: ", str(exc))


def _join_timeout(conn: Connection, seconds: float) -> None:
    if not conn.joined:
        conn.close(POLICY_CLOSE_CODE, f"no join within {seconds:g} s")


async def _checkpoints(store: Store, every: float = 1.0) -> None:
    """Checkpoint the SQLite WAL in a worker thread, once a second."""
    while True:
        await asyncio.sleep(every)
        try:
            await asyncio.to_thread(store.checkpoint)
        except Exception as exc:  # a failed checkpoint loses nothing: the WAL keeps the data
            log.warning("WAL checkpoint failed: %s", exc)


async def _sweeps(hub: Hub, analyses: Any) -> None:
    """Every :attr:`Limits.sweep_every` seconds: expired lobby claims, abandoned rooms (:meth:`Hub.sweep`),
    full analysis quota buckets (:meth:`cardtable.web.coach.Analyses.sweep`)."""
    while True:
        await asyncio.sleep(hub.limits.sweep_every)
        analyses.sweep()
        try:
            hub.sweep()
        except StorageError as exc:
            log.warning("sweep failed: %s", exc)


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


def handle(hub: Hub, conn: Connection, data: Join | Act | Next | Ping) -> None:
    """Dispatch one validated client message (see :mod:`cardtable.web.protocol`).

    Raises:
        ProtocolError, ActionError, CredentialError, StorageError: sent back to the
            client as ``error``.
    """
    ref = data.ref
    if isinstance(data, Ping):
        conn.send({"type": "pong", "ref": ref})
        return
    if isinstance(data, Join):
        if conn.joined:
            raise ProtocolError("already_joined", "this connection has already joined a room; a connection joins "
                                "once (open a new connection to change rooms or seats)")
        room = hub.room(data.room)
        if room is None:
            raise ProtocolError("no_room", f"no room {cut_id(data.room)}")
        if data.token is not None and data.claim is not None:
            raise ProtocolError("bad_message", "join with a 'token' or a 'claim', not both")
        seat, token = None, None
        if data.token is not None:
            seat = room.seat_for_token(data.token)
            if seat is None:
                raise ProtocolError("bad_token", "that seat token does not belong to this room (or was "
                                    "released); join without a token to watch")
            hub.confirm(room, seat)
        elif data.claim is not None:
            seat, token = hub.redeem(room, data.claim)
        room.attach(conn, seat, token)
        conn.joined = True
        return
    room = conn.room
    if room is None:
        raise ProtocolError("not_joined", "send a 'join' message first")
    if isinstance(data, Act):
        if conn.seat is None:
            raise ProtocolError("forbidden", "spectators cannot act; join with a seat token to play")
        if data.seat is not None and data.seat != conn.seat:
            raise ProtocolError("forbidden", f"this connection acts for {seat_label(conn.seat)} only")
        room.submit(conn.seat, data.action)
        conn.send({"type": "ack", "ref": ref, "version": room.version})
        room.changed()
    elif isinstance(data, Next):
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
