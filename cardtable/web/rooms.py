"""Rooms, seats and connections: the game-agnostic core of the web server.

A *room* is a table of seats playing a match (one or more games) of one game.
Each seat is a person, reached through a secret seat token known only to the
seat's holder (docs/web.md, "Seat credentials"), or a bot. The room
owns the authoritative state of its current game, through the game's adapter
(:mod:`cardtable.web.games`), and:

- checks every action with the adapter, commits it to the event log
  (:class:`~cardtable.web.storage.Store`) and only then applies it;
- sends every connection its own view after each change (a seat's view, or
  the spectators' view), never anybody else's;
- runs bots (in the hub's own bot thread pool, each action within
  :attr:`Limits.bot_deadline` seconds, else a random legal action for it) and
  the optional round timer; bots pause in a room nobody has watched for
  :attr:`Limits.bot_pause_after` seconds;
- coalesces presence changes (joins, disconnects, claims) into one ``state``
  per connection every :attr:`Limits.presence_delay` seconds;
- rebuilds itself after a restart by replaying the event log.

Nothing here knows a game's rules.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable

from cardtable.errors import CardtableError
from cardtable.platform.match import Match, MatchError, MatchFormat
from cardtable.platform.names import PlayerNameError, check_player_name, check_player_names

from .games import ActionError, GameAdapter, SettingsError, get_adapter
from .limits import Bucket, Limits
from .protocol import ProtocolError, seat_label
from .schema import ID_PATTERN, CreateRoom, MatchSpec
from .storage import RoomRow, SeatRow, Store, StorageError

log = logging.getLogger("cardtable.web")

_ID = re.compile(ID_PATTERN)


class QuotaError(CardtableError, RuntimeError):
    """An address used up one of its quotas (HTTP 429); ``retry_after`` in seconds."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class CredentialError(CardtableError, RuntimeError):
    """A claim code, token or owner key that does not (or no longer) work.

    Attributes:
        code: ``bad_claim``, ``bad_token``, ``forbidden`` or ``taken``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def cut_id(text: str, limit: int = 64) -> str:
    """An id (or path) from a request, quoted for an error text and cut to ``limit`` characters,
    so that an answer never echoes a huge input:

    >>> cut_id("abc")
    "'abc'"
    >>> cut_id("x" * 5000)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (5000 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def new_credential() -> str:
    """A fresh secret: 144 random bits as URL-safe text (24 characters)."""
    return secrets.token_urlsafe(18)


def _loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def new_seed() -> str:
    """A fresh secret seed (128 random bits as hex)."""
    return secrets.token_hex(16)


@dataclass
class GameSlot:
    """One game of a room: number (1-based), match number, secret seed and state."""

    game_no: int
    match_no: int
    seed: str
    state: Any


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


class Room:
    """A live room; create through :class:`Hub` (see the module docstring)."""

    def __init__(self, hub: "Hub", row: RoomRow, seats: list[SeatRow]) -> None:
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
        self.bots = {s.seat: self.adapter.new_bot(s.bot, s.seat, self.settings) for s in seats if s.bot}
        self.deadline: float | None = None
        self._turn: Any = None
        self._timer_task: asyncio.Task | None = None
        self._bot_task: asyncio.Task | None = None
        self._presence: asyncio.TimerHandle | None = None
        self.unwatched_since = time.monotonic()
        self.retired: set[int] = set()  # seats whose bot overran its deadline this game (see _bot_action)
        self._fallbacks: dict[int, Any] = {}  # seat -> the game's random bot, which acts for a failed bot

    # -- loading ------------------------------------------------------------------------

    @classmethod
    def load(cls, hub: "Hub", room_id: str) -> "Room | None":
        """Rebuild a room from the database by replaying its event log (``None``: no such room)."""
        row = hub.store.room(room_id)
        if row is None or row.status in ("broken", "abandoned"):
            return None
        room = cls(hub, row, hub.store.seats(room_id))
        games = {game_no: (match_no, seed) for game_no, match_no, seed in hub.store.games(room_id)}
        match_no, seed = games[1]
        room.slots.append(GameSlot(1, match_no, seed, room._new_state(seed, match_no)))
        for ev in hub.store.events(room_id):
            if ev.kind == "next":  # each game starts once the previous one is fully replayed
                match_no, seed = games[ev.game_no]
                room.slots.append(GameSlot(ev.game_no, match_no, seed, room._new_state(seed, match_no)))
            elif ev.kind == "act":
                state = room.slots[-1].state
                room.adapter.apply(state, ev.seat, room.adapter.check(state, ev.seat, ev.payload))
            room.version = ev.seq
        return room

    def _new_state(self, seed: str, match_no: int) -> Any:
        """A new game's state; the previous game of the same match is passed to the adapter."""
        previous = self.slots[-1].state if self.slots and self.slots[-1].match_no == match_no else None
        return self.adapter.new_state(self.settings, seed, previous)

    # -- state --------------------------------------------------------------------------

    @property
    def current(self) -> GameSlot:
        return self.slots[-1]

    def seat_for_token(self, token: Any) -> int | None:
        """The claimed seat whose token this is (constant-time compare), else ``None``."""
        if not isinstance(token, str) or not token:
            return None
        found = None
        for s in self.seats:
            if (secrets.compare_digest(s.token.encode(), token.encode("utf-8", "replace"))
                    and s.bot is None and s.claimed):
                found = s.seat
        return found

    def seat_for_claim(self, code: Any) -> int | None:
        """The unclaimed seat whose invite claim code this is (constant-time compare), else ``None``."""
        if not isinstance(code, str) or not code:
            return None
        found = None
        for s in self.seats:
            if (secrets.compare_digest((s.claim or "").encode(), code.encode("utf-8", "replace"))
                    and s.claim and s.bot is None and not s.claimed):
                found = s.seat
        return found

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
            {"seat": s.seat, "name": s.name, "bot": s.bot, "claimed": s.claimed or s.bot is not None,
             "connected": s.bot is not None or online.get(s.seat, 0) > 0}
            for s in self.seats
        ]

    def message_for(
        self, seat: int | None, seats_info: list[dict[str, Any]] | None = None,
        match_info: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The ``state`` message for one viewer (a seat, or ``None``: a spectator)."""
        cur = self.current
        timer = None
        if self.row.timer:
            left = None
            loop = _loop()
            if self.deadline is not None and loop is not None:
                left = max(0.0, round(self.deadline - loop.time(), 1))
            timer = {"seconds": self.row.timer, "left": left}
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
            "timer": timer,
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
        welcome: dict[str, Any] = {"type": "welcome", "room": self.id, "game": self.adapter.name, "seat": seat,
                                   "name": self.seats[seat].name if seat is not None else None}
        if token is not None:
            welcome["token"] = token
        conn.send(welcome)
        conn.send(self.message_for(seat))
        if seat is not None:
            self.hub.store.touch(self.id)
            self.presence_changed()
        self._wake_bots()  # bots paused in an unwatched room carry on

    def detach(self, conn: Connection) -> None:
        if conn in self.conns:
            self.conns.discard(conn)
            conn.room = None
            if conn.seat is not None:
                self.presence_changed()
                try:
                    self.hub.store.touch(self.id)
                except StorageError:  # presence is not worth failing a disconnect for
                    pass
        if not self.conns:
            self.unwatched_since = time.monotonic()
        if not self.conns and self.adapter.is_over(self.current.state) and self._bot_task is None:
            # nobody is watching a finished game: free the memory (reloaded from the database on demand)
            self.stop()
            if self.hub.rooms.get(self.id) is self:
                del self.hub.rooms[self.id]

    def presence_changed(self) -> None:
        """A seat's presence or claim changed: one ``state`` to every connection within
        :attr:`Limits.presence_delay` seconds, however many changes come meanwhile."""
        loop = _loop()
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
        info = self.seats_info()
        match = self.match_info()
        texts: dict[int | None, str] = {}
        for conn in list(self.conns):
            if conn.seat not in texts:
                texts[conn.seat] = json.dumps(self.message_for(conn.seat, info, match), separators=(",", ":"))
            conn.send_text(texts[conn.seat])

    # -- actions ------------------------------------------------------------------------

    def submit(self, seat: int, action: Any, auto: bool = False) -> None:
        """Check, commit, then apply one action of ``seat``; call :meth:`changed` after.

        Raises:
            ActionError: the game rejects the action (nothing stored, nothing changed).
            StorageError: the database refused the write (nothing changed).
        """
        cur = self.current
        if self.adapter.is_over(cur.state):
            raise ActionError("game_over", "the game is over; no more actions")
        canonical = self.adapter.check(cur.state, seat, action)
        self.hub.store.append_event(self.id, self.version + 1, cur.game_no, seat, "act", canonical, auto)
        self.version += 1
        self.adapter.apply(cur.state, seat, canonical)
        if self.adapter.is_over(cur.state) and self.match().is_over:
            self.hub.store.set_status(self.id, "over")

    def next_game(self, seat: int | None) -> None:
        """Start the next game of the match, or a new match (rematch) once it is over.

        Raises:
            ProtocolError: ``forbidden`` for spectators; ``wrong_phase`` while a game is on.
        """
        if seat is None:
            raise ProtocolError("forbidden", "spectators cannot start a game")
        cur = self.current
        if not self.adapter.is_over(cur.state):
            raise ProtocolError("wrong_phase", "the current game is not over yet")
        match_no = cur.match_no + 1 if self.match().is_over else cur.match_no
        seed = self.hub.seed_factory()
        game_no = cur.game_no + 1
        self.hub.store.start_game(self.id, self.version + 1, game_no, match_no, seed, seat)
        self.version += 1
        self.slots.append(GameSlot(game_no, match_no, seed, self._new_state(seed, match_no)))
        for s in self.seats:
            # a bot that learns its opponent (the exploiter) keeps its memory for the room's next games,
            # unless it overran its deadline: its thread may still be using it
            if s.bot and (s.seat in self.retired
                          or not getattr(self.bots.get(s.seat), "learns_across_games", False)):
                self.bots[s.seat] = self.adapter.new_bot(s.bot, s.seat, self.settings)
        self.retired.clear()
        self._fallbacks.clear()

    def changed(self) -> None:
        """After any change: send views, restart the round timer, wake the bots."""
        self._update_timer()
        self.broadcast()
        self._wake_bots()

    # -- bots ---------------------------------------------------------------------------

    def _wake_bots(self) -> None:
        state = self.current.state
        if self._bot_task is None and any(s in self.bots for s in self.adapter.to_act(state)):
            loop = _loop()
            if loop is not None:
                self._bot_task = loop.create_task(self._run_bots())

    async def _run_bots(self) -> None:
        try:
            while True:
                slot = self.current
                waiting = [s for s in sorted(self.adapter.to_act(slot.state)) if s in self.bots]
                if not waiting:
                    return
                if not self.conns and time.monotonic() - self.unwatched_since > self.hub.limits.bot_pause_after:
                    return  # nobody is watching: paused until somebody joins (attach wakes the bots)
                if self.hub.closed:
                    return
                seat = waiting[0]
                action = await self._bot_action(slot, seat)
                if self.current is not slot or seat not in self.adapter.to_act(slot.state):
                    continue
                if action is None:  # raised or overran its deadline (logged)
                    self._submit_fallback(slot, seat)
                    self._update_timer()
                    self.broadcast()
                    continue
                try:
                    self.submit(seat, action)
                except ActionError as exc:
                    log.warning("room %s: the %s bot of %s answered an illegal action (%s); a random legal "
                                "action is played for it", self.id, self.seats[seat].bot, seat_label(seat), exc)
                    self._submit_fallback(slot, seat)
                self._update_timer()
                self.broadcast()
        except StorageError:
            log.exception("room %s: could not store a bot action", self.id)
        finally:
            self._bot_task = None

    async def _bot_action(self, slot: GameSlot, seat: int) -> Any:
        """The bot's JSON action for ``seat``, computed in the hub's bot pool within
        :attr:`Limits.bot_deadline` seconds (queueing included); ``None`` when it raised
        or overran (logged). A bot that overran is retired for the rest of the game: its
        thread cannot be stopped and may still be using it, so the fallback acts for it."""
        if seat in self.retired:
            return None
        bot, name = self.bots[seat], self.seats[seat].bot
        view = self.adapter.bot_view(slot.state, seat)
        deadline = self.hub.limits.bot_deadline
        future = asyncio.get_running_loop().run_in_executor(self.hub.bot_pool, self.adapter.bot_action, bot, view, seat)
        try:
            done, _ = await asyncio.wait({future}, timeout=deadline)
        finally:
            future.cancel()  # not started yet (queued, or the room stopped): it never runs; done: no effect
        if not done:
            self.retired.add(seat)
            log.warning("room %s: the %s bot of %s took over %g s (bot_deadline); it is retired for this game "
                        "and random legal actions are played for it", self.id, name, seat_label(seat), deadline)
            return None
        try:
            return future.result()
        except Exception:  # a broken bot must not stop the game
            log.exception("room %s: the %s bot of %s failed; a random legal action is played for it",
                          self.id, name, seat_label(seat))
            return None

    def _submit_fallback(self, slot: GameSlot, seat: int) -> None:
        """Play a random legal action for ``seat`` (the game's ``random`` bot on the bot's view),
        marked ``auto`` in the event log; if even that fails, the round timer's action
        (:meth:`GameAdapter.timeout_action`). docs/web.md, "Bots"."""
        try:
            bot = self._fallbacks.get(seat)
            if bot is None:
                bot = self._fallbacks[seat] = self.adapter.new_bot("random", seat, self.settings)
            action = self.adapter.bot_action(bot, self.adapter.bot_view(slot.state, seat), seat)
            self.submit(seat, action, auto=True)
            return
        except StorageError:
            raise
        except Exception:
            log.exception("room %s: the random fallback for %s failed; playing the timeout action",
                          self.id, seat_label(seat))
        self.submit(seat, self.adapter.timeout_action(slot.state, seat), auto=True)

    # -- round timer --------------------------------------------------------------------

    def _update_timer(self) -> None:
        loop = _loop()
        if not self.row.timer or loop is None:
            return
        cur = self.current
        key = (cur.game_no, self.adapter.turn_key(cur.state))
        if key == self._turn:
            return
        self._turn = key
        if self._timer_task is not None:
            self._timer_task.cancel()
            self._timer_task = None
        self.deadline = None
        humans = [s for s in self.adapter.to_act(cur.state) if s not in self.bots]
        if humans:
            self.deadline = loop.time() + self.row.timer
            self._timer_task = loop.create_task(self._expire(key))

    async def _expire(self, key: Any) -> None:
        await asyncio.sleep(self.row.timer)
        cur = self.current
        if key != (cur.game_no, self.adapter.turn_key(cur.state)):
            return
        self._timer_task = None
        for seat in sorted(self.adapter.to_act(cur.state)):
            if seat in self.bots or self.adapter.is_over(cur.state):
                continue
            try:
                self.submit(seat, self.adapter.timeout_action(cur.state, seat), auto=True)
            except (ActionError, StorageError) as exc:
                log.warning("room %s: timeout action for seat %s refused: %s", self.id, seat, exc)
        self.changed()

    def stop(self) -> None:
        if self._presence is not None:
            self._presence.cancel()
            self._presence = None
        for task in (self._timer_task, self._bot_task):
            if task is not None:
                task.cancel()
        for conn in list(self.conns):
            conn.close()


class Hub:
    """All rooms of one server: creation, lazy loading from the database, the lobby,
    seat credentials, per-address quotas, the sweeps of :meth:`sweep` and the bots'
    thread pool (:attr:`Limits.bot_workers` threads; :meth:`close` shuts it down).

    Args:
        store: the database.
        seed_factory: makes each game's secret seed (tests inject known seeds).
        limits: every limit (:class:`~cardtable.web.limits.Limits`).
    """

    def __init__(self, store: Store, seed_factory: Callable[[], str] = new_seed, limits: Limits | None = None) -> None:
        self.store = store
        self.seed_factory = seed_factory
        self.limits = limits or Limits()
        self.rooms: dict[str, Room] = {}
        self._creations: dict[str, Bucket] = {}
        self._holds: dict[tuple[str, int], str] = {}  # unconfirmed lobby claim -> the address holding it
        self._connections: dict[str, int] = {}
        #: the room bots' own threads (not asyncio's default pool, which other work shares)
        self.bot_pool = concurrent.futures.ThreadPoolExecutor(self.limits.bot_workers,
                                                              thread_name_prefix="cardtable-bot")
        self.closed = False

    # -- rooms --------------------------------------------------------------------------

    def room(self, room_id: Any) -> Room | None:
        """The live room ``room_id``, loaded from the database if needed; ``None``: unknown
        (or not a well-formed room id: such an id is never looked up)."""
        if not isinstance(room_id, str) or not _ID.match(room_id):
            return None
        room = self.rooms.get(room_id)
        if room is None:
            try:
                room = Room.load(self, room_id)
            except Exception as exc:  # one bad room must not take the server down
                self.mark_broken(room_id, exc)
                return None
            if room is None:
                return None
            self.rooms[room_id] = room
            room._update_timer()
            room._wake_bots()
        return room

    def mark_broken(self, room_id: str, exc: BaseException) -> None:
        """Record that room ``room_id`` cannot be loaded: status ``broken`` with the reason
        (logged; the room leaves the lobby and is not resumed). Never raises."""
        reason = f"{type(exc).__name__}: {exc}"
        log.error("room %s cannot be loaded and is marked broken (the server serves every other room): %s",
                  room_id, reason, exc_info=exc)
        try:
            self.store.mark_broken(room_id, reason)
        except Exception as store_exc:
            log.error("room %s: could not mark it broken: %s", room_id, store_exc)

    def resume_all(self) -> int:
        """Load every unfinished room (after a restart): bots and timers carry on.

        Rooms idle for longer than :attr:`Limits.abandon_after` are abandoned first
        (:meth:`sweep`); a room that fails to load is marked broken (:meth:`mark_broken`).

        Returns:
            The number of rooms resumed.
        """
        self.abandon_idle()
        resumed = 0
        for room_id in self.store.unfinished_rooms():
            if self.room(room_id) is not None:
                resumed += 1
        return resumed

    # -- creation -----------------------------------------------------------------------

    def create_room(self, request: CreateRoom, address: str = "") -> dict[str, Any]:
        """Create a room from the creation form (already validated by :class:`CreateRoom`).

        Returns:
            ``{"room", "game", "owner", "seats": [{"seat", "name", "bot", "claim"}],
            "commit"}``: ``claim`` is each human seat's one-time claim code (the invite
            link), ``owner`` the key that re-invites a seat (:meth:`reinvite`),
            ``commit`` the first game's seed commitment.

        Raises:
            QuotaError: ``address`` created :attr:`Limits.room_burst` rooms too quickly.
            SettingsError: any bad field, or a bot that cannot play the ruleset
                (its ``new_game`` raises ``ValueError``); nothing is stored.
        """
        from cardtable.platform.bot import UnknownBotError, bot_class

        adapter = get_adapter(request.game)
        settings = adapter.normalise_settings(request.settings)
        n = adapter.seat_count(settings)
        seats_in = request.seats if request.seats is not None else []
        if request.seats is not None and len(seats_in) != n:
            raise SettingsError(f"the ruleset has {n} seats; 'seats' must list {n} entries")
        fmt = self._match_format(request.match)
        listed = request.listed
        bots: list[str | None] = []
        names: list[str] = []
        for i in range(n):
            entry = seats_in[i] if seats_in else None
            bot = (entry.bot or None) if entry is not None else None
            if bot is not None:
                try:
                    bot_class(adapter.name, bot)
                except UnknownBotError as exc:
                    raise SettingsError(f"{seat_label(i)}: {exc}") from None
                bot = bot.strip().lower()
            name = entry.name if entry is not None else None
            if name is None or not name.strip():
                name = f"{bot} bot" if bot else f"Player {i + 1}"
                if name.casefold() in {x.casefold() for x in names}:
                    name = f"{name} {i + 1}"
            else:
                try:
                    check_player_name(name)
                except PlayerNameError as exc:
                    raise SettingsError(f"{seat_label(i)}: {exc}") from None
            bots.append(bot)
            names.append(name)
        try:
            check_player_names(names)
        except PlayerNameError as exc:
            raise SettingsError(str(exc)) from None
        adapter.check_seats(settings, bots)
        for i, bot in enumerate(bots):
            if bot is not None:
                self._check_bot(adapter, bot, i, settings)
        self._take_quota(address)
        seats: list[SeatRow] = []
        for i, (bot, name) in enumerate(zip(bots, names)):
            human = bot is None
            # a listed room keeps its first human seat for the creator: the lobby offers the others
            reserved = listed and human and not any(x.bot is None for x in seats)
            seats.append(SeatRow(i, new_credential(), name, bot, not human, new_credential() if human else None,
                                 None, reserved))
        room_id = secrets.token_urlsafe(6)
        owner = new_credential()
        row = RoomRow(room_id, adapter.name, settings, str(fmt), float(request.timer), listed, "playing",
                      time.time(), owner)
        seed = self.seed_factory()
        self.store.create_room(row, seats, seed)
        room = self.room(room_id)
        assert room is not None
        return {
            "room": room_id,
            "game": adapter.name,
            "owner": owner,
            "seats": [{"seat": s.seat, "name": s.name, "bot": s.bot, "claim": s.claim} for s in seats],
            "commit": adapter.commitment(room.current.state),
        }

    @staticmethod
    def _match_format(spec: MatchSpec | str) -> MatchFormat:
        from .schema import MAX_MATCH_GAMES

        try:
            fmt = (MatchFormat(spec.kind, spec.games, spec.tiebreak) if isinstance(spec, MatchSpec)
                   else MatchFormat.parse(spec))
        except MatchError as exc:
            raise SettingsError(f"bad match format: {exc}") from None
        if not 1 <= fmt.games <= MAX_MATCH_GAMES:
            raise SettingsError(f"bad match format: a match has 1..{MAX_MATCH_GAMES} games, not {fmt.games}")
        return fmt

    def _take_quota(self, address: str) -> None:
        lim = self.limits
        bucket = self._creations.get(address)
        if bucket is None:
            bucket = self._creations[address] = Bucket(lim.rooms_per_hour / 3600.0, lim.room_burst)
        if not bucket.take():
            wait = bucket.wait()
            raise QuotaError(f"too many rooms created from your address: at most {lim.room_burst} at once and "
                             f"{lim.rooms_per_hour:g} per hour; try again in {wait:.0f} s", wait)

    def playable_bots(self, game: Any, raw_settings: Any) -> list[dict[str, Any]]:
        """Which of ``game``'s bots can play these creation settings (for the form).

        Returns:
            ``[{"name", "ok", "reason"}]`` per offered bot; ``reason`` is ``None`` when ``ok``.

        Raises:
            SettingsError: unknown game or bad settings.
        """
        adapter = get_adapter(game)
        settings = adapter.normalise_settings(raw_settings)
        out = []
        for entry in adapter.options().get("bots", []):
            try:
                self._check_bot(adapter, entry["name"], 0, settings)
                out.append({"name": entry["name"], "ok": True, "reason": None})
            except SettingsError as exc:
                out.append({"name": entry["name"], "ok": False, "reason": str(exc).split(": ", 1)[-1]})
        return out

    @staticmethod
    def _check_bot(adapter: GameAdapter, bot: str, seat: int, settings: dict[str, Any]) -> None:
        """Start ``bot`` on a throwaway instance (its ``new_game``) before anything is stored.

        Raises:
            SettingsError: ``"nash cannot play this ruleset: ..."`` when the bot raises
                ``ValueError`` (e.g. ``UnsupportedRuleset``), or a note that it failed to start.
        """
        try:
            adapter.new_bot(bot, seat, settings)
        except ValueError as exc:
            raise SettingsError(f"{seat_label(seat)}: {bot} cannot play this ruleset: {exc}") from None
        except Exception as exc:  # a broken bot must not become a room that cannot load
            log.exception("bot %s failed to start", bot)
            raise SettingsError(f"{seat_label(seat)}: the {bot} bot failed to start ({type(exc).__name__}: {exc})"
                                ) from None

    # -- seat credentials (docs/web.md, "Seat credentials") ------------------------------

    def claim(self, room_id: str, address: str = "") -> dict[str, Any] | None:
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
        room = self.room(room_id)
        if room is None or not room.row.listed:
            return None
        free = [s for s in room.seats if s.bot is None and not s.claimed and not s.reserved]
        if not free:
            return None
        held = sum(1 for a in self._holds.values() if a == address)
        if held >= self.limits.claims_per_address:
            raise QuotaError(f"your address already holds {held} seat(s) it has not joined; join them or wait "
                             f"{self.limits.claim_ttl:g} s until they are released", self.limits.claim_ttl)
        token = new_credential()
        row = self.store.take_seat(room_id, free[0].seat, token, time.time() + self.limits.claim_ttl)
        room.seats[row.seat] = row
        self._holds[(room_id, row.seat)] = address
        room.presence_changed()
        return {"room": room_id, "seat": row.seat, "name": row.name, "token": token, "hold": self.limits.claim_ttl}

    def redeem(self, room: Room, code: str) -> tuple[int, str]:
        """Exchange an invite's one-time claim code for the seat and a fresh token.

        Raises:
            CredentialError: ``bad_claim``: no unclaimed seat of this room has that code
                (used, revoked by a lobby claim or a re-invite, or never issued).
        """
        seat = room.seat_for_claim(code)
        if seat is None:
            raise CredentialError("bad_claim", "that invite link is used up or was replaced: each invite works "
                                  "once; ask the room's creator for a new one, or join without it to watch")
        token = new_credential()
        room.seats[seat] = self.store.take_seat(room.id, seat, token, None)
        return seat, token

    def confirm(self, room: Room, seat: int) -> None:
        """A connection joined with the seat's token: a lobby claim's hold becomes permanent."""
        if room.seats[seat].hold_until is not None:
            self.store.confirm_seat(room.id, seat)
            s = room.seats[seat]
            room.seats[seat] = SeatRow(s.seat, s.token, s.name, s.bot, s.claimed, s.claim, None, s.reserved)
        self._holds.pop((room.id, seat), None)

    def reinvite(self, room_id: str, seat: int, owner: str) -> dict[str, Any]:
        """Revoke an unclaimed seat's invite and issue a new claim code (the room's owner only).

        Returns:
            ``{"room", "seat", "claim"}``.

        Raises:
            CredentialError: ``forbidden`` (not the owner key, or a bot's seat),
                ``taken`` (a person holds the seat: their credential is theirs alone).
            KeyError: no such room or seat.
        """
        room = self.room(room_id)
        if room is None or not 0 <= seat < len(room.seats):
            raise KeyError(seat)
        key = room.row.owner or ""
        if not (key and secrets.compare_digest(key.encode(), owner.encode())):
            raise CredentialError("forbidden", "that is not this room's owner key")
        s = room.seats[seat]
        if s.bot is not None:
            raise CredentialError("forbidden", f"{seat_label(seat)} is a bot's seat")
        if s.claimed:
            raise CredentialError("taken", f"{seat_label(seat)} is taken: only its holder has its credential, "
                                  "and nobody can revoke it")
        code = new_credential()
        room.seats[seat] = self.store.free_seat(room_id, seat, new_credential(), code)
        return {"room": room_id, "seat": seat, "claim": code}

    # -- quotas and sweeps ----------------------------------------------------------------

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

    def sweep(self) -> None:
        """Release expired lobby claims, abandon idle rooms, forget full creation buckets."""
        for room_id, seat in self.store.expired_holds(time.time()):
            self._holds.pop((room_id, seat), None)
            row = self.store.free_seat(room_id, seat, new_credential(), None)
            log.info("room %s: an unconfirmed lobby claim of %s expired; the seat is free again",
                     room_id, seat_label(seat))
            room = self.rooms.get(room_id)
            if room is not None:
                room.seats[seat] = row
                room.presence_changed()
        self.abandon_idle()
        for address, bucket in list(self._creations.items()):
            if bucket.wait(bucket.capacity) == 0.0:
                del self._creations[address]

    def abandon_idle(self) -> None:
        """Abandon unfinished rooms idle for :attr:`Limits.abandon_after` seconds (no action,
        no seated connection): status ``abandoned``, unloaded, neither listed nor resumed."""
        for room_id in self.store.idle_rooms(time.time() - self.limits.abandon_after):
            room = self.rooms.get(room_id)
            if room is not None and any(c.seat is not None for c in room.conns):
                self.store.touch(room_id)
                continue
            self.store.set_status(room_id, "abandoned")
            log.info("room %s abandoned: no action and nobody seated for %g s", room_id, self.limits.abandon_after)
            if room is not None:
                room.stop()
                del self.rooms[room_id]

    def lobby(self) -> list[dict[str, Any]]:
        out = []
        for row, seats in self.store.lobby():
            try:
                adapter = get_adapter(row.game)
            except SettingsError:  # a game this server no longer has: not offered
                continue
            out.append({
                "room": row.id,
                "game": row.game,
                "title": adapter.title,
                "settings": row.settings,
                "match": row.match_format,
                "timer": row.timer,
                "seats": [{"seat": s.seat, "name": s.name, "bot": s.bot,
                           "free": s.bot is None and not s.claimed and not s.reserved} for s in seats],
                "created": row.created,
            })
        return out

    def close(self) -> None:
        """Stop every room and the bot pool (bot actions not started are dropped; one that
        is running finishes in its thread, its result unused)."""
        self.closed = True
        for room in self.rooms.values():
            room.stop()
        self.bot_pool.shutdown(wait=False, cancel_futures=True)
