"""Seat credentials (docs/web.md, "Seat credentials"): tokens, invites and lobby claims.

Each person's seat has a secret token, known only to its holder, that a
connection joins with. Before anybody holds it, a seat has an invite: a one-time
claim code that is exchanged for the seat and a fresh token (:meth:`SeatDesk.redeem`).
A listed room's free seats can also be taken from the lobby (:meth:`SeatDesk.claim`):
the seat is held for :attr:`Limits.claim_ttl` seconds until a connection joins with
its token (:meth:`SeatDesk.confirm`), then for good. The room's owner may revoke an
unclaimed seat's invite and issue another (:meth:`SeatDesk.reinvite`).

Every comparison of a secret is constant-time; every change is stored (through the
database thread) before the room's seats change.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .database import Database
from .errors import CredentialError, QuotaError
from .limits import Limits
from .protocol import seat_label
from .storage import SeatRow

if TYPE_CHECKING:
    from .rooms import Room

log = logging.getLogger("cardtable.web")


def new_credential() -> str:
    """A fresh secret: 144 random bits as URL-safe text (24 characters)."""
    return secrets.token_urlsafe(18)


def _same(secret: str | None, given: str) -> bool:
    return secrets.compare_digest((secret or "").encode(), given.encode("utf-8", "replace"))


def seat_for_token(seats: list[SeatRow], token: Any) -> int | None:
    """The claimed person's seat whose token this is (constant-time compare), else ``None``."""
    if not isinstance(token, str) or not token:
        return None
    found = None
    for s in seats:
        if _same(s.token, token) and s.bot is None and s.claimed:
            found = s.seat
    return found


def seat_for_claim(seats: list[SeatRow], code: Any) -> int | None:
    """The unclaimed seat whose invite claim code this is (constant-time compare), else ``None``."""
    if not isinstance(code, str) or not code:
        return None
    found = None
    for s in seats:
        if _same(s.claim, code) and s.claim and s.bot is None and not s.claimed:
            found = s.seat
    return found


class SeatDesk:
    """Hands out, confirms and revokes seat credentials.

    Args:
        db: the database thread.
        limits: ``claim_ttl`` and ``claims_per_address``.
        find: the hub's room lookup (a coroutine: the room loaded, or ``None``).
    """

    def __init__(self, db: Database, limits: Limits, find: Callable[[Any], Awaitable[Room | None]]) -> None:
        self.db = db
        self.limits = limits
        self.find = find
        self.holds: dict[tuple[str, int], str] = {}  # unconfirmed lobby claim -> the address holding it
        #: held from a seat's check to its write: two joins with one invite, or two lobby
        #: claims of one free seat, each awaited the database between the two, and both won
        self.lock = asyncio.Lock()

    async def claim(self, room_id: str, address: str = "") -> dict[str, Any] | None:
        """Give the first free seat of a listed room to a lobby visitor: a fresh token,
        known only to them; the seat's invite claim code is revoked. The seat is held
        for :attr:`Limits.claim_ttl` seconds until a connection joins with the token,
        then for good.

        Returns:
            ``{"room", "seat", "name", "token", "hold"}``, or ``None``: no free seat.

        Raises:
            QuotaError: ``address`` already holds :attr:`Limits.claims_per_address`
                unconfirmed claims.
        """
        room = await self.find(room_id)  # outside the lock: a load may take a while
        async with self.lock:
            if room is None or not room.row.listed:
                return None
            free = [s for s in room.seats if s.bot is None and not s.claimed and not s.reserved]
            if not free:
                return None
            held = sum(1 for a in self.holds.values() if a == address)
            ttl = self.limits.claim_ttl
            if held >= self.limits.claims_per_address:
                raise QuotaError(
                    f"your address already holds {held} seat(s) it has not joined; join them or wait "
                    f"{ttl:g} s until they are released",
                    ttl,
                )
            token = new_credential()
            row = await self.db.call(self.db.store.take_seat, room_id, free[0].seat, token, time.time() + ttl)
            room.seats[row.seat] = row
            self.holds[(room_id, row.seat)] = address
            room.presence_changed()
            return {"room": room_id, "seat": row.seat, "name": row.name, "token": token, "hold": ttl}

    async def redeem(self, room: Room, code: str) -> tuple[int, str]:
        """Exchange an invite's one-time claim code for the seat and a fresh token.

        Raises:
            CredentialError: ``bad_claim``: no unclaimed seat of this room has that code
                (used, revoked by a lobby claim or a re-invite, or never issued).
        """
        async with self.lock:
            seat = seat_for_claim(room.seats, code)
            if seat is None:
                raise CredentialError(
                    "bad_claim",
                    "that invite link is used up or was replaced: each invite works "
                    "once; ask the room's creator for a new one, or join without it to watch",
                )
            token = new_credential()
            room.seats[seat] = await self.db.call(self.db.store.take_seat, room.id, seat, token, None)
            return seat, token

    async def confirm(self, room: Room, token: Any) -> int | None:
        """A connection joins with a seat token: the seat whose token it is, a lobby claim's
        hold on it made permanent; ``None`` when no seat has that token (released, say). Under
        the lock: an expiring hold cannot free the seat between the lookup and the confirm."""
        async with self.lock:
            seat = seat_for_token(room.seats, token)
            if seat is None:
                return None
            if room.seats[seat].hold_until is not None:
                await self.db.call(self.db.store.confirm_seat, room.id, seat)
                room.seats[seat] = replace(room.seats[seat], hold_until=None)
            self.holds.pop((room.id, seat), None)
            return seat

    async def reinvite(self, room_id: str, seat: int, owner: str) -> dict[str, Any]:
        """Revoke an unclaimed seat's invite and issue a new claim code (the room's owner only).

        Returns:
            ``{"room", "seat", "claim"}``.

        Raises:
            CredentialError: ``forbidden`` (not the owner key, or a bot's seat),
                ``taken`` (a person holds the seat: their credential is theirs alone).
            KeyError: no such room or seat.
        """
        room = await self.find(room_id)  # outside the lock: a load may take a while
        async with self.lock:
            if room is None or not 0 <= seat < len(room.seats):
                raise KeyError(seat)
            key = room.row.owner or ""
            if not (key and secrets.compare_digest(key.encode(), owner.encode())):
                raise CredentialError("forbidden", "that is not this room's owner key")
            s = room.seats[seat]
            if s.bot is not None:
                raise CredentialError("forbidden", f"{seat_label(seat)} is a bot's seat")
            if s.claimed:
                raise CredentialError(
                    "taken",
                    f"{seat_label(seat)} is taken: only its holder has its credential, and nobody can revoke it",
                )
            code = new_credential()
            room.seats[seat] = await self.db.call(
                self.db.store.free_seat, room_id, seat, new_credential(), code
            )
            return {"room": room_id, "seat": seat, "claim": code}

    async def release_expired(self, rooms: dict[str, Room]) -> None:
        """Free every seat whose unconfirmed lobby claim expired (``rooms``: the loaded rooms)."""
        async with self.lock:
            store = self.db.store
            for room_id, seat in await self.db.call(store.expired_holds, time.time()):
                self.holds.pop((room_id, seat), None)
                row = await self.db.call(store.free_seat, room_id, seat, new_credential(), None)
                log.info(
                    "room %s: an unconfirmed lobby claim of %s expired; the seat is free again",
                    room_id,
                    seat_label(seat),
                )
                room = rooms.get(room_id)
                if room is not None:
                    room.seats[seat] = row
                    room.presence_changed()
