"""The lobby listing and the per-address quotas of room creations and WebSockets.

Lobby claims (taking a listed room's free seat) are counted per address by
:class:`cardtable.web.seats.SeatDesk`; the analyses' quota is in
:mod:`cardtable.web.coach`.
"""

from __future__ import annotations

from typing import Any

from .database import Database
from .games import SettingsError, get_adapter
from .limits import AddressQuota, Limits
from .storage import RoomRow, SeatRow

#: Which-bots-can-play answers the lobby keeps (the same settings asked again cost nothing).
BOT_ANSWERS_KEPT = 256


def lobby_entry(row: RoomRow, seats: list[SeatRow]) -> dict[str, Any] | None:
    """One listed room as ``GET /api/lobby`` shows it; ``None`` for a game this server no longer has."""
    try:
        adapter = get_adapter(row.game)
    except SettingsError:
        return None
    return {
        "room": row.id,
        "game": row.game,
        "title": adapter.title,
        "settings": row.settings,
        "match": row.match_format,
        "timer": row.timer,
        "seats": [
            {
                "seat": s.seat,
                "name": s.name,
                "bot": s.bot,
                "free": s.bot is None and not s.claimed and not s.reserved,
            }
            for s in seats
        ],
        "created": row.created,
    }


class Lobby:
    """The lobby (listed rooms with a free seat) and the quotas kept per address.

    Args:
        db: the database thread (the listing is read there).
        limits: ``rooms_per_hour``, ``room_burst`` and ``connections_per_address``.
    """

    def __init__(self, db: Database, limits: Limits) -> None:
        self.db = db
        self.limits = limits
        self._creations = AddressQuota(limits.rooms_per_hour / 3600.0, limits.room_burst)
        self._bot_checks = AddressQuota(limits.bot_checks_per_minute / 60.0, limits.bot_check_burst)
        #: answers of ``POST /api/games/G/bots`` by (game, settings), the oldest dropped first
        self._bot_answers: dict[str, list[dict[str, Any]]] = {}
        self._connections: dict[str, int] = {}

    async def listing(self) -> list[dict[str, Any]]:
        """``GET /api/lobby``: listed rooms still playing with a free person's seat, newest first."""
        rows = await self.db.call(self.db.store.lobby)
        return [entry for entry in (lobby_entry(row, seats) for row, seats in rows) if entry is not None]

    def take_creation(self, address: str) -> None:
        """Count one room creation from ``address``.

        Raises:
            QuotaError: ``address`` created :attr:`Limits.room_burst` rooms too quickly.
        """
        self._creations.take_or_refuse(address, "rooms created", "hour")

    def take_bot_check(self, address: str) -> None:
        """Count one which-bots-can-play request from ``address`` that the cache did not answer.

        Raises:
            QuotaError: more than :attr:`Limits.bot_check_burst` at once, or beyond
                :attr:`Limits.bot_checks_per_minute`.
        """
        self._bot_checks.take_or_refuse(address, "bot checks", "minute")

    def known_bots(self, key: str) -> list[dict[str, Any]] | None:
        """A kept which-bots-can-play answer for ``key`` (game and normalised settings), or None."""
        return self._bot_answers.get(key)

    def remember_bots(self, key: str, answer: list[dict[str, Any]]) -> None:
        """Keep a which-bots-can-play answer (at most :data:`BOT_ANSWERS_KEPT`, oldest dropped)."""
        self._bot_answers.pop(key, None)
        self._bot_answers[key] = answer
        while len(self._bot_answers) > BOT_ANSWERS_KEPT:
            del self._bot_answers[next(iter(self._bot_answers))]

    def connect(self, address: str) -> bool:
        """Count a new WebSocket from ``address``; ``False`` when it is one too many."""
        n = self._connections.get(address, 0)
        if n >= self.limits.connections_per_address:
            return False
        self._connections[address] = n + 1
        return True

    def disconnect(self, address: str) -> None:
        n = self._connections.get(address, 0) - 1
        if n > 0:
            self._connections[address] = n
        else:
            self._connections.pop(address, None)

    def forget_full_buckets(self) -> None:
        """Drop the creation and bot-check buckets that have refilled (the sweep)."""
        self._creations.sweep()
        self._bot_checks.sweep()
