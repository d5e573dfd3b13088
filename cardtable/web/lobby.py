"""The lobby listing and the per-address quotas of room creations and WebSockets.

Lobby claims (taking a listed room's free seat) are counted per address by
:class:`cardtable.web.seats.SeatDesk`; the analyses' quota is in
:mod:`cardtable.web.coach`.
"""

from __future__ import annotations

from typing import Any

from .database import Database
from .errors import QuotaError
from .games import SettingsError, get_adapter
from .limits import AddressQuota, Limits
from .storage import RoomRow, SeatRow


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
        lim = self.limits
        wait = self._creations.take(address)
        if wait is not None:
            raise QuotaError(
                f"too many rooms created from your address: at most {lim.room_burst} at once and "
                f"{lim.rooms_per_hour:g} per hour; try again in {wait:.0f} s",
                wait,
            )

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
        """Drop the creation buckets that have refilled (the sweep)."""
        self._creations.sweep()
