"""Rooms: the game-agnostic core of the web server.

A *room* is a table of seats playing a match (one or more games) of one game.
Each seat is a person, reached through a secret seat token known only to the
seat's holder (docs/web.md, "Seat credentials"), or a bot. The room
owns the authoritative state of its current game, through the game's adapter
(:mod:`cardtable.web.games`), and:

- checks every action with the adapter, commits it to the event log
  (:class:`~cardtable.web.storage.Store`, through the database thread of
  :class:`~cardtable.web.database.Database`) and only then applies it; the room's
  lock is held from the check to the apply, so its events are written in order;
- sends every connection its own view after each change (a seat's view, or
  the spectators' view), never anybody else's;
- runs bots and the optional round timer (:mod:`cardtable.web.driver`);
- coalesces presence changes (joins, disconnects, claims) into one ``state``
  per connection every :attr:`Limits.presence_delay` seconds;
- rebuilds itself after a restart by replaying the event log (:meth:`Room.build`).

The hub (:mod:`cardtable.web.hub`) creates, loads and unloads rooms; seat
credentials are in :mod:`cardtable.web.seats`. Nothing here knows a game's rules.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from cardtable.errors import CardtableError
from cardtable.platform.match import Match, MatchError, MatchFormat

from .connection import Connection
from .database import Database
from .driver import BotDriver, RoundTimer
from .games import ActionError, GameAdapter, get_adapter
from .limits import Limits
from .protocol import ProtocolError
from .storage import EventRow, RoomRow, SeatRow, StorageError

log = logging.getLogger("cardtable.web")


def new_seed() -> str:
    """A fresh secret seed (128 random bits as hex)."""
    return secrets.token_hex(16)


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop, or ``None`` outside one (tests that drive a room directly)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class GameState(Protocol):
    """What the core may assume of an adapter's game state: the engine's game as ``game``
    (read by the coach and the replay board); everything else goes through the adapter."""

    game: Any


class RoomHost(Protocol):
    """What a room needs of the hub that holds it (:class:`cardtable.web.hub.Hub`)."""

    db: Database
    limits: Limits
    seed_factory: Callable[[], str]
    bot_pool: concurrent.futures.ThreadPoolExecutor
    closed: bool
    rooms: dict[str, Room]

    async def off_loop(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in :attr:`bot_pool`, awaited (:meth:`cardtable.web.hub.Hub.off_loop`)."""
        ...


@dataclass
class GameSlot:
    """One game of a room: number (1-based), match number, secret seed and state."""

    game_no: int
    match_no: int
    seed: str
    state: GameState


@dataclass
class RoomRecord:
    """Everything the database holds about a room, read in one go (on the database thread)
    so that the room can be rebuilt on the event loop (:meth:`Room.build`)."""

    row: RoomRow
    seats: list[SeatRow]
    games: dict[int, tuple[int, str]]  # game_no -> (match_no, seed)
    events: list[EventRow] = field(default_factory=list)

    @classmethod
    def read(cls, store: Any, room_id: str) -> RoomRecord | None:
        """Read room ``room_id`` from ``store`` (``None``: no such room, or broken or abandoned)."""
        row = store.room(room_id)
        if row is None or row.status in ("broken", "abandoned"):
            return None
        games = {game_no: (match_no, seed) for game_no, match_no, seed in store.games(room_id)}
        return cls(row, store.seats(room_id), games, list(store.events(room_id)))


class SlotError(CardtableError, LookupError):
    """No finished game to show (``status`` 404: no such game; 409: not finished yet)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


#: The most games one room plays (matches and rematches together): each stays in memory and
#: its events are replayed whenever the room loads (docs/web.md, Messages).
MAX_ROOM_GAMES = 1000


class Room:
    """A live room; created and loaded by the hub (see the module docstring)."""

    def __init__(self, hub: RoomHost, row: RoomRow, seats: list[SeatRow]) -> None:
        self.hub = hub
        self.id = row.id
        self.row = row
        self.adapter: GameAdapter = get_adapter(row.game)
        self.settings = row.settings
        self.seats = seats
        self.format = MatchFormat.parse(row.match_format)
        self.slots: list[GameSlot] = []
        self.version = 0
        self.conns: set[Connection] = set()
        self.driver = BotDriver(self)
        self.timer = RoundTimer(self)
        self.lock = asyncio.Lock()  # held from an action's check until it is applied
        self._presence: asyncio.TimerHandle | None = None
        self._background: asyncio.Task[None] | None = None  # the views' slow work (hints), off the loop
        self.unwatched_since = time.monotonic()

    # -- loading ------------------------------------------------------------------------

    @classmethod
    def build(cls, hub: RoomHost, record: RoomRecord) -> Room:
        """Rebuild a room by replaying its event log (every action is checked again)."""
        room = cls(hub, record.row, record.seats)
        match_no, seed = record.games[1]
        room.slots.append(GameSlot(1, match_no, seed, room._new_state(seed, match_no)))
        for ev in record.events:
            if ev.kind == "next":  # each game starts once the previous one is fully replayed
                match_no, seed = record.games[ev.game_no]
                room.slots.append(GameSlot(ev.game_no, match_no, seed, room._new_state(seed, match_no)))
            elif ev.kind == "act":
                state, seat = room.slots[-1].state, cast(int, ev.seat)  # an action always has its seat
                room.adapter.apply(state, seat, room.adapter.check(state, seat, ev.payload))
            room.version = ev.seq
        return room

    def _new_state(self, seed: str, match_no: int) -> GameState:
        """A new game's state; the previous game of the same match is passed to the adapter."""
        previous = self.slots[-1].state if self.slots and self.slots[-1].match_no == match_no else None
        state: GameState = self.adapter.new_state(self.settings, seed, previous)
        return state

    # -- state --------------------------------------------------------------------------

    @property
    def current(self) -> GameSlot:
        return self.slots[-1]

    @property
    def bots(self) -> dict[int, Any]:
        """Seat -> the bot playing it (see :class:`~cardtable.web.driver.BotDriver`)."""
        return self.driver.bots

    @property
    def retired(self) -> set[int]:
        """Seats whose bot overran its deadline this game."""
        return self.driver.retired

    @property
    def deadline(self) -> float | None:
        """When the round timer runs out (event loop time), ``None``: no timer running."""
        return self.timer.deadline

    def finished_slot(self, game: int | None, verb: str, noun: str) -> GameSlot:
        """Finished game ``game`` (default: the last finished one), for a page that shows
        it only after the game (``verb``, ``noun``: its words, ``"analyse"``, ``"analysis"``).

        Raises:
            SlotError: 409 nothing finished yet (or ``game`` is not), 404 no such game.
        """
        finished = [s for s in self.slots if self.adapter.is_over(s.state)]
        if game is None:
            if not finished:
                raise SlotError(f"no finished game to {verb} yet", 409)
            return finished[-1]
        slots = [s for s in self.slots if s.game_no == game]
        if not slots:
            raise SlotError(f"no game {game}", 404)
        if slots[0] not in finished:  # its hands and bids are still hidden
            raise SlotError(f"game {game} is not finished: the {noun} is shown after the game", 409)
        return slots[0]

    def finished_games(self) -> list[int]:
        """Numbers of the finished games."""
        return [s.game_no for s in self.slots if self.adapter.is_over(s.state)]

    def match(self, match_no: int | None = None) -> Match:
        """The match (finished games only) of ``match_no`` (default: the current one)."""
        m = self.current.match_no if match_no is None else match_no
        match = Match(self.format, players=len(self.seats))
        for slot in self.slots:
            if slot.match_no == m and self.adapter.is_over(slot.state):
                try:
                    match.add_game(self.adapter.scores(slot.state))
                except MatchError:
                    break
        return match

    def match_info(self) -> dict[str, Any]:
        match = self.match()
        cur = self.current
        games = [s for s in self.slots if s.match_no == cur.match_no]
        over = match.is_over
        game_over = self.adapter.is_over(cur.state)
        return {
            "format": str(self.format),
            "match_no": cur.match_no,
            "game": len(games),
            "scores": [list(g) for g in match.games],
            "totals": list(match.totals()),
            "game_points": [float(x) for x in match.game_points()],
            "over": over,
            "result": list(match.result()) if over else None,
            "next": ("rematch" if over else "next game") if game_over else None,
        }

    def seats_info(self) -> list[dict[str, Any]]:
        online: dict[int, int] = {}
        for c in self.conns:
            if c.seat is not None:
                online[c.seat] = online.get(c.seat, 0) + 1
        return [
            {
                "seat": s.seat,
                "name": s.name,
                "bot": s.bot,
                "claimed": s.claimed or s.bot is not None,
                "connected": s.bot is not None or online.get(s.seat, 0) > 0,
            }
            for s in self.seats
        ]

    def message_for(
        self,
        seat: int | None,
        seats_info: list[dict[str, Any]] | None = None,
        match_info: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The ``state`` message for one viewer (a seat, or ``None``: a spectator)."""
        cur = self.current
        return {
            "type": "state",
            "room": self.id,
            "game": self.adapter.name,
            "you": seat,
            "version": self.version,
            "game_no": cur.game_no,
            "seats": seats_info if seats_info is not None else self.seats_info(),
            "view": self.adapter.view(cur.state, seat),
            "match": match_info if match_info is not None else self.match_info(),
            "timer": self.timer.info(),
        }

    # -- connections --------------------------------------------------------------------

    def attach(self, conn: Connection, seat: int | None, token: str | None = None) -> None:
        """Add a connection (``seat`` ``None``: a spectator): it gets ``welcome`` (with
        ``token`` when a claim code was just exchanged for one) and its view at once;
        the others learn of a seated connection through a coalesced presence update."""
        if conn.room is not None:
            conn.room.detach(conn)
        conn.room, conn.seat = self, seat
        self.conns.add(conn)
        welcome: dict[str, Any] = {
            "type": "welcome",
            "room": self.id,
            "game": self.adapter.name,
            "seat": seat,
            "name": self.seats[seat].name if seat is not None else None,
        }
        if token is not None:
            welcome["token"] = token
        conn.send(welcome)
        self._start_background()
        conn.send(self.message_for(seat))
        if seat is not None:
            self.hub.db.post(self.hub.db.store.touch, self.id)  # activity, for abandonment
            self.presence_changed()
        self.driver.wake()  # bots paused in an unwatched room carry on

    def detach(self, conn: Connection) -> None:
        if conn in self.conns:
            self.conns.discard(conn)
            conn.room = None
            if conn.seat is not None:
                self.presence_changed()
                self.hub.db.post(self.hub.db.store.touch, self.id)
        if not self.conns:
            self.unwatched_since = time.monotonic()
        if not self.conns and self.adapter.is_over(self.current.state) and not self.driver.running:
            # nobody is watching a finished game: free the memory (reloaded from the database on demand)
            self.stop()
            if self.hub.rooms.get(self.id) is self:
                del self.hub.rooms[self.id]

    def presence_changed(self) -> None:
        """A seat's presence or claim changed: one ``state`` to every connection within
        :attr:`Limits.presence_delay` seconds, however many changes come meanwhile."""
        loop = running_loop()
        if loop is None:
            self.broadcast()
        elif self._presence is None:
            self._presence = loop.call_later(self.hub.limits.presence_delay, self._flush_presence)

    def _flush_presence(self) -> None:
        self._presence = None
        self.broadcast()

    def broadcast(self) -> None:
        """Send every connection its own view (built once per distinct viewer); a pending
        presence update is included."""
        if self._presence is not None:
            self._presence.cancel()
            self._presence = None
        if not self.conns:
            return
        self._start_background()
        info = self.seats_info()
        match = self.match_info()
        texts: dict[int | None, str] = {}
        for conn in list(self.conns):
            if conn.seat not in texts:
                texts[conn.seat] = json.dumps(self.message_for(conn.seat, info, match), separators=(",", ":"))
            conn.send_text(texts[conn.seat])

    def _start_background(self) -> None:
        """Start the slow work a person's view waits for (:meth:`GameAdapter.background_work
        <cardtable.web.games.GameAdapter.background_work>`, e.g. a hint) in the bots' thread
        pool, one job at a time; the views are sent again when it is done. Outside an event
        loop (tests that drive a room directly) the work runs here."""
        if self._background is not None:
            return
        for s in self.seats:
            if s.bot is None:
                job = self.adapter.background_work(self.current.state, s.seat)
                if job is None:
                    continue
                if running_loop() is None:
                    job()
                    continue
                self._background = asyncio.ensure_future(self._run_background(job))
                return

    async def _run_background(self, job: Callable[[], None]) -> None:
        try:
            await self.hub.off_loop(job)
        except RuntimeError:  # the hub is closing: its pool takes no new work
            return
        finally:
            self._background = None
        self.broadcast()

    # -- actions ------------------------------------------------------------------------

    async def submit(self, seat: int, action: Any, auto: bool = False) -> None:
        """Check, commit, then apply one action of ``seat`` (under the room's lock);
        call :meth:`changed` after.

        Raises:
            ActionError: the game rejects the action (nothing stored, nothing changed).
            StorageError: the database refused the write (nothing changed).
        """
        async with self.lock:
            await self.commit(seat, action, auto)

    async def commit(self, seat: int, action: Any, auto: bool = False) -> None:
        """:meth:`submit` for a caller that holds :attr:`lock`."""
        cur = self.current
        if self.adapter.is_over(cur.state):
            raise ActionError("game_over", "the game is over; no more actions")
        canonical = self.adapter.check(cur.state, seat, action)
        await self.hub.db.call(
            self.hub.db.store.append_event,
            self.id,
            self.version + 1,
            cur.game_no,
            seat,
            "act",
            canonical,
            auto,
        )
        self.version += 1
        self.adapter.apply(cur.state, seat, canonical)
        if self.adapter.is_over(cur.state) and self.match().is_over:
            await self.hub.db.call(self.hub.db.store.set_status, self.id, "over")

    async def next_game(self, seat: int | None) -> None:
        """Start the next game of the match, or a new match (rematch) once it is over.

        Raises:
            ProtocolError: ``forbidden`` for spectators; ``wrong_phase`` while a game is on;
                ``room_full`` after :data:`MAX_ROOM_GAMES` games.
            StorageError: the database refused the write (nothing changed).
        """
        if seat is None:
            raise ProtocolError("forbidden", "spectators cannot start a game")
        async with self.lock:
            cur = self.current
            if not self.adapter.is_over(cur.state):
                raise ProtocolError("wrong_phase", "the current game is not over yet")
            if cur.game_no >= MAX_ROOM_GAMES:  # each game stays in memory and is replayed at each load
                raise ProtocolError(
                    "room_full",
                    f"this room has played its {MAX_ROOM_GAMES:,} games; create a new room to play on",
                )
            match_no = cur.match_no + 1 if self.match().is_over else cur.match_no
            seed = self.hub.seed_factory()
            game_no = cur.game_no + 1
            # the next game's bots first (a start may solve: off the loop); then nothing is
            # awaited between the stored start and the new slot with its bots
            fresh = await self.hub.off_loop(self.driver.fresh_bots)
            await self.hub.db.call(
                self.hub.db.store.start_game, self.id, self.version + 1, game_no, match_no, seed, seat
            )
            self.version += 1
            self.slots.append(GameSlot(game_no, match_no, seed, self._new_state(seed, match_no)))
            self.driver.new_game(fresh)

    def changed(self) -> None:
        """After any change: send views, restart the round timer, wake the bots."""
        self.timer.update()
        self.broadcast()
        self.driver.wake()

    def start(self) -> None:
        """A room just loaded: start its round timer and its bots."""
        self.timer.update()
        self.driver.wake()

    def stop(self) -> None:
        if self._presence is not None:
            self._presence.cancel()
            self._presence = None
        self.timer.stop()
        self.driver.stop()
        for conn in list(self.conns):
            conn.close()


__all__ = ["GameSlot", "GameState", "Room", "RoomHost", "RoomRecord", "SlotError", "StorageError", "new_seed"]
