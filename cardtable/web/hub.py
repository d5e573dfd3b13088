"""The hub: every room of one server, and the parts that are not one room's.

:class:`Hub` keeps the live rooms (loading one from the database on demand,
unloading it when nobody watches its finished game), creates rooms, resumes the
unfinished ones after a restart and runs the periodic sweep. Seat credentials are
handed out by its :class:`~cardtable.web.seats.SeatDesk` (``hub.seats``), the lobby
and the per-address quotas are its :class:`~cardtable.web.lobby.Lobby`
(``hub.lobby``). Every database call goes through the database thread
(``hub.db``, :class:`~cardtable.web.database.Database`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

from .creation import plan_room, playable_bots
from .database import Database
from .games import get_adapter
from .limits import Limits
from .lobby import Lobby
from .rooms import Room, RoomRecord, new_seed
from .schema import ID_PATTERN, CreateRoom
from .seats import SeatDesk, new_credential
from .storage import RoomRow, SeatRow, Store

log = logging.getLogger("cardtable.web")

_ID = re.compile(ID_PATTERN)


class Hub:
    """All rooms of one server (see the module docstring) and the bots' thread pool
    (:attr:`Limits.bot_workers` threads; :meth:`close` shuts it down).

    Args:
        store: the database.
        seed_factory: makes each game's secret seed (tests inject known seeds).
        limits: every limit (:class:`~cardtable.web.limits.Limits`).
    """

    def __init__(
        self, store: Store, seed_factory: Callable[[], str] = new_seed, limits: Limits | None = None
    ) -> None:
        self.store = store
        self.db = Database(store)
        self.seed_factory = seed_factory
        self.limits = limits or Limits()
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        self._bot_checks: dict[str, asyncio.Future[list[dict[str, Any]]]] = {}  # being computed
        self.seats = SeatDesk(self.db, self.limits, self.room)
        self.lobby = Lobby(self.db, self.limits)
        #: the room bots' own threads (not asyncio's default pool, which other work shares)
        self.bot_pool = concurrent.futures.ThreadPoolExecutor(
            self.limits.bot_workers, thread_name_prefix="cardtable-bot"
        )
        self.closed = False

    # -- rooms --------------------------------------------------------------------------

    async def room(self, room_id: Any) -> Room | None:
        """The live room ``room_id``, loaded from the database if needed; ``None``: unknown
        (or not a well-formed room id: such an id is never looked up). Two requests for a
        room being loaded share the one load."""
        if not isinstance(room_id, str) or not _ID.match(room_id):
            return None
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        loading = self._loading.get(room_id)
        if loading is None:
            loading = self._loading[room_id] = asyncio.ensure_future(self._load(room_id))
            loading.add_done_callback(lambda _: self._loading.pop(room_id, None))
        return await asyncio.shield(loading)

    async def _load(self, room_id: str) -> Room | None:
        if self.closed:  # stopping: the bots' pool is shut down, and a room loaded now would not run
            return None
        try:
            record = await self.db.call(RoomRecord.read, self.store, room_id)
            # off the loop: the replay checks every action, and the bots start (nash may solve)
            room = await self.off_loop(Room.build, self, record) if record is not None else None
        except Exception as exc:  # one bad room must not take the server down
            await self.mark_broken(room_id, exc)
            return None
        if room is None:
            return None
        self.rooms[room_id] = room
        room.start()
        return room

    async def mark_broken(self, room_id: str, exc: BaseException) -> None:
        """Record that room ``room_id`` cannot be loaded: status ``broken`` with the reason
        (logged; the room leaves the lobby and is not resumed). Never raises."""
        reason = f"{type(exc).__name__}: {exc}"
        log.error(
            "room %s cannot be loaded and is marked broken (the server serves every other room): %s",
            room_id,
            reason,
            exc_info=exc,
        )
        try:
            await self.db.call(self.store.mark_broken, room_id, reason)
        except Exception as store_exc:  # already failing: log it, the server keeps serving the other rooms
            log.error("room %s: could not mark it broken: %s", room_id, store_exc)

    async def resume_all(self) -> int:
        """Load every unfinished room (after a restart): bots and timers carry on.

        Rooms idle for longer than :attr:`Limits.abandon_after` are abandoned first
        (:meth:`sweep`); a room that fails to load is marked broken (:meth:`mark_broken`).

        Returns:
            The number of rooms resumed.
        """
        await self.abandon_idle()
        resumed = 0
        for room_id in await self.db.call(self.store.unfinished_rooms):
            if await self.room(room_id) is not None:
                resumed += 1
        return resumed

    async def off_loop(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the bots' thread pool, awaited: for work that may solve (a bot's
        ``new_game``, a hint), which would otherwise hold the event loop and every other
        client for seconds. The solver's kernels release the interpreter lock while they
        run (``cardtable._numba``), so the loop goes on meanwhile. Exceptions propagate."""
        return await asyncio.get_running_loop().run_in_executor(self.bot_pool, fn, *args)

    # -- creation -----------------------------------------------------------------------

    async def playable_bots(self, game: Any, settings: Any, address: str = "") -> list[dict[str, Any]]:
        """``POST /api/games/G/bots``: which bots can play these settings
        (:func:`cardtable.web.creation.playable_bots`, which starts every bot, off the loop).
        The same game and normalised settings are answered from the lobby's cache, and asked
        twice at once computed once; a new question counts against ``address``'s quota.

        Raises:
            SettingsError: unknown game or bad settings (nothing counted).
            QuotaError: ``address`` asked :attr:`Limits.bot_check_burst` new questions too quickly.
        """
        adapter = get_adapter(game)
        key = json.dumps([adapter.name, adapter.normalise_settings(settings)], sort_keys=True, default=str)
        answer = self.lobby.known_bots(key)
        if answer is not None:
            return answer
        pending = self._bot_checks.get(key)
        if pending is None:
            self.lobby.take_bot_check(address)
            pending = self._bot_checks[key] = asyncio.ensure_future(
                self.off_loop(playable_bots, game, settings)
            )
            pending.add_done_callback(lambda _: self._bot_checks.pop(key, None))
        answer = await asyncio.shield(pending)
        self.lobby.remember_bots(key, answer)
        return answer

    async def create_room(self, request: CreateRoom, address: str = "") -> dict[str, Any]:
        """Create a room from the creation form (already validated by :class:`CreateRoom`).

        Returns:
            ``{"room", "game", "owner", "seats": [{"seat", "name", "bot", "claim"}],
            "commit"}``: ``claim`` is each human seat's one-time claim code (the invite
            link), ``owner`` the key that re-invites a seat (:meth:`SeatDesk.reinvite
            <cardtable.web.seats.SeatDesk.reinvite>`), ``commit`` the first game's seed commitment.

        Raises:
            QuotaError: ``address`` asked for :attr:`Limits.room_burst` rooms too quickly
                (every attempt counts, refused ones too: each starts the room's bots).
            SettingsError: any bad field, or a bot that cannot play the ruleset
                (its ``new_game`` raises ``ValueError``); nothing is stored.
        """
        # counted first: every attempt, refused or not, so that one address cannot make the
        # bots' threads start bots (each may solve for seconds) beyond its quota
        self.lobby.take_creation(address)
        plan = await self.off_loop(plan_room, request)  # starts each bot: may solve (seconds)
        seats: list[SeatRow] = []
        for i, (bot, name) in enumerate(zip(plan.bots, plan.names, strict=True)):
            human = bot is None
            # a listed room keeps its first human seat for the creator: the lobby offers the others
            reserved = request.listed and human and not any(x.bot is None for x in seats)
            seats.append(
                SeatRow(
                    i,
                    new_credential(),
                    name,
                    bot,
                    not human,
                    new_credential() if human else None,
                    None,
                    reserved,
                )
            )
        room_id = secrets.token_urlsafe(6)
        owner = new_credential()
        row = RoomRow(
            room_id,
            plan.adapter.name,
            plan.settings,
            str(plan.format),
            float(request.timer),
            request.listed,
            "playing",
            time.time(),
            owner,
        )
        await self.db.call(self.store.create_room, row, seats, self.seed_factory())
        room = await self.room(room_id)
        assert room is not None
        return {
            "room": room_id,
            "game": plan.adapter.name,
            "owner": owner,
            "seats": [{"seat": s.seat, "name": s.name, "bot": s.bot, "claim": s.claim} for s in seats],
            "commit": plan.adapter.commitment(room.current.state),
        }

    # -- sweeps ---------------------------------------------------------------------------

    async def sweep(self) -> None:
        """Release expired lobby claims, abandon idle rooms, forget full creation buckets."""
        await self.seats.release_expired(self.rooms)
        await self.abandon_idle()
        self.lobby.forget_full_buckets()

    async def abandon_idle(self) -> None:
        """Abandon unfinished rooms idle for :attr:`Limits.abandon_after` seconds (no action,
        no seated connection): status ``abandoned``, unloaded, neither listed nor resumed."""
        for room_id in await self.db.call(self.store.idle_rooms, time.time() - self.limits.abandon_after):
            room = self.rooms.get(room_id)
            if room is not None and any(c.seat is not None for c in room.conns):
                await self.db.call(self.store.touch, room_id)
                continue
            await self.db.call(self.store.set_status, room_id, "abandoned")
            log.info(
                "room %s abandoned: no action and nobody seated for %g s", room_id, self.limits.abandon_after
            )
            room = self.rooms.get(room_id)
            if room is not None:
                room.stop()
                del self.rooms[room_id]

    async def close(self) -> None:
        """Stop every room and the bot pool (bot actions not started are dropped; one that
        is running finishes in its thread, its result unused), then the database thread
        after the writes still queued (the store is closed on it)."""
        self.closed = True
        for room in self.rooms.values():
            room.stop()
        self.bot_pool.shutdown(wait=False, cancel_futures=True)
        await self.db.close()
