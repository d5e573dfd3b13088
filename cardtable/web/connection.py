"""One WebSocket client as the rooms see it: an outgoing queue that never blocks a room."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .rooms import Room

log = logging.getLogger("cardtable.web")


class Connection:
    """One WebSocket client: an outgoing queue drained by a writer task.

    ``send`` never blocks the room: a client that stops reading is dropped once
    ``max_queue`` messages are waiting.

    Attributes:
        joined: a ``join`` succeeded (a connection joins once).
        close_code, close_reason: the WebSocket close frame sent when the queue ends
            (1000 normally; 1008 with a reason for a flood).
    """

    def __init__(self, max_queue: int = 256, address: str = "") -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=max_queue)
        self.address = address
        self.room: Room | None = None
        self.seat: int | None = None
        self.closed = False
        self.joined = False
        self.close_code = 1000
        self.close_reason = ""

    def send(self, message: dict[str, Any]) -> None:
        self.send_text(json.dumps(message, separators=(",", ":")))

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("dropping a client that does not read its messages")
            self.close()

    def close(self, code: int = 1000, reason: str = "") -> None:
        """End the connection: the writer sends what is queued, then a close frame
        with ``code`` and ``reason`` (at most 123 bytes of UTF-8)."""
        if not self.closed:
            self.closed = True
            self.close_code, self.close_reason = code, reason[:120]
            try:
                self.queue.put_nowait(None)
            except asyncio.QueueFull:  # a client that does not read: drop what it has not read
                while not self.queue.empty():
                    self.queue.get_nowait()
                self.queue.put_nowait(None)
