"""The database thread: every SQLite call the event loop needs runs here, in order.

:class:`~cardtable.web.storage.Store` is synchronous; a commit waits for the disk.
The server's coroutines never call it directly: they hand each call to
:class:`Database`, which runs them one at a time, in the order they were handed
over, on one dedicated thread. So the event loop never blocks on SQLite, two
transactions never interleave on the shared connection, and the writes of one
room reach the event log in the order the room made them (the room also holds
its lock from checking an action until it is applied, see
:meth:`cardtable.web.rooms.Room.submit`).

The WAL checkpoint has its own connection and thread (``Store.checkpoint``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Callable
from typing import TypeVar

from .storage import Store

log = logging.getLogger("cardtable.web")

T = TypeVar("T")


class Database:
    """A :class:`Store` behind one worker thread.

    Args:
        store: the database; its methods are only called on the worker thread
            once the server runs (tests may still read it from their own thread).
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="cardtable-db")

    async def call(self, fn: Callable[..., T], *args: object) -> T:
        """Run ``fn(*args)`` (a :class:`Store` method) on the database thread after every
        call handed over before it; returns its result, raises what it raised
        (``StorageError`` for a refused write)."""
        return await asyncio.wrap_future(self._thread.submit(fn, *args))

    def post(self, fn: Callable[..., object], *args: object) -> None:
        """Queue ``fn(*args)`` without waiting for it (in order with every other call);
        a failure is logged, not raised. For writes nobody waits on (a room's activity time)."""
        self._thread.submit(fn, *args).add_done_callback(_log_failure)

    async def close(self) -> None:
        """Run the calls still queued, close the store on the same thread, stop the thread."""
        try:
            await self.call(self.store.close)
        finally:
            self._thread.shutdown(wait=False)


def _log_failure(future: concurrent.futures.Future) -> None:
    exc = future.exception() if not future.cancelled() else None
    if exc is not None:
        log.warning("a database write nobody waited for failed: %s", exc)
