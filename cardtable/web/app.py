"""The web application: its routers, the lifespan and the limits on requests.

Routers (each module documents its routes):

- :mod:`cardtable.web.pages` -- ``GET /`` (the lobby and the creation form) and
  ``GET /play/{room}`` (the play page; credentials travel in the URL fragment).
- :mod:`cardtable.web.api` -- ``/api/games``, ``/api/lobby``, ``/api/rooms`` (creation,
  lobby claims, re-invites, records).
- :mod:`cardtable.web.ws` -- ``WS /ws``, the game protocol (:mod:`cardtable.web.protocol`).
- :mod:`cardtable.web.analysis` -- ``GET /analysis/{room}`` and ``GET /api/rooms/{room}/analysis``,
  the coach's analysis of a finished game (:mod:`cardtable.web.coach`).
- :mod:`cardtable.web.replay` -- ``GET /replay``, ``POST /api/replay``, ``POST /api/replay/analysis``,
  ``GET /api/replay/rooms/{room}``; :mod:`cardtable.web.explorer` -- ``GET /explorer``,
  ``GET /api/explorer``. Their solves go through the analyses' pool.
- ``/static`` -- the front end's files.

A browser's cross-site request that acts (a ``POST``, a WebSocket handshake) is refused
first (:mod:`cardtable.web.origin`). Every body and message is validated by :mod:`cardtable.web.schema`; every limit
is in :class:`cardtable.web.limits.Limits` (docs/web.md, "Limits"). Every error
answer is ``{"error": text}`` (Starlette's own 404 and 405 included), and quotes
at most 64 characters of an id or path (:func:`cardtable.web.errors.cut_id`).
The routers find the server's objects on ``app.state``: ``hub``
(:class:`~cardtable.web.hub.Hub`) and ``analyses`` (:class:`~cardtable.web.coach.Analyses`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from cardtable.platform.storage import home

from . import analysis, api, explorer, pages, replay, ws
from .coach import Analyses
from .errors import cut_id, error
from .hub import Hub
from .limits import Limits
from .origin import SameOrigin
from .paths import STATIC
from .rooms import new_seed
from .storage import StorageError, Store

log = logging.getLogger("cardtable.web")

__all__ = ["STATIC", "BodyLimit", "create_app", "default_db_path", "quiet_bad_requests", "server_options"]


def default_db_path() -> Path:
    """``$CARDTABLE_HOME/web.sqlite3`` (see :func:`cardtable.platform.storage.home`)."""
    return home() / "web.sqlite3"


def server_options(limits: Limits | None = None) -> dict[str, Any]:
    """uvicorn settings that enforce the limits at the transport: a WebSocket frame
    (message) over :attr:`Limits.max_message_bytes` closes the connection with 1009
    before it is read into memory; at shutdown, requests still waiting (an analysis in a
    long queue) are cancelled after 5 s. ``cardtable serve``, the tests and the benchmarks
    pass these to ``uvicorn.run`` / ``uvicorn.Config``."""
    limits = limits or Limits()
    return {
        "ws_max_size": limits.max_message_bytes,
        "ws_max_queue": 16,
        "timeout_keep_alive": 5,
        "timeout_graceful_shutdown": 5,
    }


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
        if self._declared_too_big(scope):
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

    def _declared_too_big(self, scope: dict) -> bool:
        """A ``Content-Length`` over the limit (or not a number)."""
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.max_bytes
                except ValueError:
                    too_big = True
                if too_big:
                    return True
        return False

    async def _refuse(self, scope: dict, receive: Callable, send: Callable) -> None:
        response = JSONResponse(
            {"error": f"the request body is over the limit of {self.max_bytes} bytes"},
            status_code=413,
            headers={"connection": "close"},
        )
        await response(scope, receive, send)


class _BadRequestNoise(logging.Filter):
    """Drops uvicorn's ``Invalid HTTP request received.`` warning: a malformed request (a
    ``Content-Length`` of ``-1``, a broken request line) is answered 400 by uvicorn and is bad
    input, which the server never logs (docs/web.md, Limits)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Invalid HTTP request received")


_BAD_REQUEST_NOISE = _BadRequestNoise()


def quiet_bad_requests() -> None:
    """Install :class:`_BadRequestNoise` on uvicorn's error logger (once per process)."""
    logger = logging.getLogger("uvicorn.error")
    if _BAD_REQUEST_NOISE not in logger.filters:
        logger.addFilter(_BAD_REQUEST_NOISE)


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
    quiet_bad_requests()
    overrides: dict[str, Any] = {
        k: v for k, v in (("rate", rate), ("burst", burst), ("max_message_bytes", max_bytes)) if v is not None
    }
    if overrides:
        limits = dataclasses.replace(limits, **overrides)
    store = Store(db_path if db_path is not None else default_db_path(), synchronous=synchronous)
    app = FastAPI(title="cardtable", lifespan=_lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.hub = Hub(store, seed_factory=seed_factory, limits=limits)
    app.state.analyses = Analyses(limits, executor=analysis_executor)
    app.add_middleware(BodyLimit, max_bytes=limits.max_body_bytes)
    app.add_middleware(SameOrigin)  # added last: runs first, before a body is read
    # Starlette types a handler as taking any Exception; ours take the class they are registered for
    app.add_exception_handler(RequestValidationError, _bad_request)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, _http_error)  # type: ignore[arg-type]
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for part in (pages, api, ws, analysis, replay, explorer):
        app.include_router(part.router)
    return app


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Resume the unfinished rooms, run the checkpoints and sweeps; at the end stop them,
    the analyses, the rooms and (after its queued writes) the database."""
    hub: Hub = app.state.hub
    analyses: Analyses = app.state.analyses
    resumed = await hub.resume_all()
    if resumed:
        log.info("resumed %d unfinished room(s) from %s", resumed, hub.store.path)
    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(_checkpoints(hub.store)), loop.create_task(_sweeps(hub, analyses))]
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
    await hub.close()


async def _bad_request(request: Request, exc: RequestValidationError) -> Response:
    """The project's error format (``{"error": text}``, HTTP 400), not FastAPI's 422 detail list."""
    problems = []
    for e in exc.errors():
        where = ".".join(str(x) for x in e.get("loc", ()) if x not in ("query", "path", "body"))
        problems.append(f"{where or 'request'}: {e.get('msg', 'invalid')}")
    return error("bad request: " + "; ".join(problems)[:400], 400)


async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
    """Starlette's own answers (an unmatched route, a method a route does not take, a missing
    static file) in the project's format, never echoing more than 64 characters of the path."""
    what = {404: "no such page", 405: "method not allowed"}.get(exc.status_code, str(exc.detail))
    return error(
        f"{what}: {request.method} {cut_id(request.url.path)}", exc.status_code, **(exc.headers or {})
    )


async def _checkpoints(store: Store, every: float = 1.0) -> None:
    """Checkpoint the SQLite WAL in a worker thread, once a second."""
    while True:
        await asyncio.sleep(every)
        try:
            await asyncio.to_thread(store.checkpoint)
        except Exception as exc:  # a failed checkpoint loses nothing: the WAL keeps the data
            log.warning("WAL checkpoint failed: %s", exc)


async def _sweeps(hub: Hub, analyses: Analyses) -> None:
    """Every :attr:`Limits.sweep_every` seconds: expired lobby claims, abandoned rooms (:meth:`Hub.sweep`),
    full analysis quota buckets (:meth:`cardtable.web.coach.Analyses.sweep`)."""
    while True:
        await asyncio.sleep(hub.limits.sweep_every)
        analyses.sweep()
        try:
            await hub.sweep()
        except StorageError as exc:
            log.warning("sweep failed: %s", exc)
