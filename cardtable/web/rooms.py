"""Rooms, seats and connections: the game-agnostic core of the web server.

A *room* is a table of seats playing a match (one or more games) of one game.
Each seat is a person, reached through a secret seat token, or a bot. The room
owns the authoritative state of its current game, through the game's adapter
(:mod:`cardtable.web.games`), and:

- checks every action with the adapter, commits it to the event log
  (:class:`~cardtable.web.storage.Store`) and only then applies it;
- sends every connection its own view after each change (a seat's view, or
  the spectators' view), never anybody else's;
- runs bots (in a worker thread) and the optional round timer;
- rebuilds itself after a restart by replaying the event log.

Nothing here knows a game's rules.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable

from cardtable.platform.match import Match, MatchError, MatchFormat

from .games import ActionError, GameAdapter, SettingsError, get_adapter
from .protocol import ProtocolError, seat_label
from .storage import RoomRow, SeatRow, Store, StorageError

log = logging.getLogger("cardtable.web")

#: Longest round timer accepted at creation, in seconds.
MAX_TIMER = 3600
MAX_NAME = 40


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

    def __init__(self, max_queue: int = 256) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=max_queue)
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

    # -- loading ------------------------------------------------------------------------

    @classmethod
    def load(cls, hub: "Hub", room_id: str) -> "Room | None":
        """Rebuild a room from the database by replaying its event log (``None``: no such room)."""
        row = hub.store.room(room_id)
        if row is None or row.status == "broken":
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
        """The seat whose token this is (constant-time compare), else ``None``."""
        if not isinstance(token, str) or not token:
            return None
        found = None
        for s in self.seats:
            if s.bot is None and secrets.compare_digest(s.token.encode(), token.encode("utf-8", "replace")):
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

    def attach(self, conn: Connection, seat: int | None) -> None:
        if conn.room is not None:
            conn.room.detach(conn)
        conn.room, conn.seat = self, seat
        self.conns.add(conn)
        if seat is not None and not self.seats[seat].claimed:
            self.hub.store.claim_seat(self.id, seat)
            s = self.seats[seat]
            self.seats[seat] = SeatRow(s.seat, s.token, s.name, s.bot, True)
        conn.send({"type": "welcome", "room": self.id, "game": self.adapter.name, "seat": seat,
                   "name": self.seats[seat].name if seat is not None else None})
        self.broadcast()

    def detach(self, conn: Connection) -> None:
        if conn in self.conns:
            self.conns.discard(conn)
            conn.room = None
            self.broadcast()
        if not self.conns and self.adapter.is_over(self.current.state) and self._bot_task is None:
            # nobody is watching a finished game: free the memory (reloaded from the database on demand)
            self.stop()
            if self.hub.rooms.get(self.id) is self:
                del self.hub.rooms[self.id]

    def broadcast(self) -> None:
        """Send every connection its own view (built once per distinct viewer)."""
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
            if s.bot:
                self.bots[s.seat] = self.adapter.new_bot(s.bot, s.seat, self.settings)

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
                seat = waiting[0]
                view = self.adapter.bot_view(slot.state, seat)
                try:
                    action = await asyncio.to_thread(self.adapter.bot_action, self.bots[seat], view, seat)
                except Exception:  # a broken bot must not stop the game
                    log.exception("bot %s failed; playing the timeout action", self.seats[seat].bot)
                    action = None
                if self.current is not slot or seat not in self.adapter.to_act(slot.state):
                    continue
                try:
                    if action is None:
                        raise ActionError("bad_action", "bot failed")
                    self.submit(seat, action)
                except ActionError as exc:
                    log.warning("bot %s: %s; playing the timeout action", self.seats[seat].bot, exc)
                    self.submit(seat, self.adapter.timeout_action(slot.state, seat), auto=True)
                self._update_timer()
                self.broadcast()
        except StorageError:
            log.exception("room %s: could not store a bot action", self.id)
        finally:
            self._bot_task = None

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
        for task in (self._timer_task, self._bot_task):
            if task is not None:
                task.cancel()
        for conn in list(self.conns):
            conn.close()


class Hub:
    """All rooms of one server: creation, lazy loading from the database, the lobby.

    Args:
        store: the database.
        seed_factory: makes each game's secret seed (tests inject known seeds).
        rate, burst: per-connection message rate limit (messages/second, burst size).
        max_bytes: largest accepted message.
    """

    def __init__(
        self,
        store: Store,
        seed_factory: Callable[[], str] = new_seed,
        rate: float = 20.0,
        burst: int = 40,
        max_bytes: int = 4096,
    ) -> None:
        self.store = store
        self.seed_factory = seed_factory
        self.rate = rate
        self.burst = burst
        self.max_bytes = max_bytes
        self.rooms: dict[str, Room] = {}

    def room(self, room_id: Any) -> Room | None:
        """The live room ``room_id``, loaded from the database if needed; ``None``: unknown."""
        if not isinstance(room_id, str) or not 1 <= len(room_id) <= 64:
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

        A room that fails to load is marked broken (:meth:`mark_broken`) and skipped.

        Returns:
            The number of rooms resumed.
        """
        resumed = 0
        for room_id in self.store.unfinished_rooms():
            if self.room(room_id) is not None:
                resumed += 1
        return resumed

    def create_room(self, request: Any) -> dict[str, Any]:
        """Create a room from the creation form's JSON.

        ``request``: ``{"game": "goofspiel", "settings": {...}, "seats": [{"bot":
        null|NAME, "name": TEXT}, ...], "match": "total 1", "timer": SECONDS,
        "listed": true}``; everything but ``game`` is optional.

        Returns:
            ``{"room", "game", "seats": [{"seat", "name", "bot", "token"}], "commit"}``;
            ``token`` only for human seats (the invite links), ``commit`` is the
            first game's seed commitment.

        Raises:
            SettingsError: any bad field, or a bot that cannot play the ruleset
                (its ``new_game`` raises ``ValueError``); nothing is stored.
        """
        from cardtable.platform.bot import UnknownBotError, bot_class

        if not isinstance(request, dict):
            raise SettingsError("the request must be a JSON object")
        adapter = get_adapter(request.get("game", "goofspiel"))
        settings = adapter.normalise_settings(request.get("settings"))
        n = adapter.seat_count(settings)
        seats_in = request.get("seats")
        if seats_in is None:
            seats_in = [{} for _ in range(n)]
        if not isinstance(seats_in, list) or len(seats_in) != n:
            raise SettingsError(f"the ruleset has {n} seats; 'seats' must list {n} entries")
        try:
            fmt_raw = request.get("match", "total 1")
            if isinstance(fmt_raw, dict):
                fmt = MatchFormat(fmt_raw.get("kind", "total"), fmt_raw.get("games", 1),
                                  fmt_raw.get("tiebreak", "extra-game"))
            elif isinstance(fmt_raw, str):
                fmt = MatchFormat.parse(fmt_raw)
            else:
                raise MatchError("match must be text such as 'total 3' or an object")
        except MatchError as exc:
            raise SettingsError(f"bad match format: {exc}") from None
        timer = request.get("timer", 0) or 0
        if isinstance(timer, bool) or not isinstance(timer, (int, float)) or not 0 <= timer <= MAX_TIMER:
            raise SettingsError(f"timer must be 0 (none) or 1..{MAX_TIMER} seconds")
        if 0 < timer < 1:
            raise SettingsError("timer must be at least 1 second")
        listed = request.get("listed", True)
        if not isinstance(listed, bool):
            raise SettingsError("listed must be true or false")
        seats: list[SeatRow] = []
        for i, entry in enumerate(seats_in):
            if not isinstance(entry, dict):
                raise SettingsError(f"{seat_label(i)}: expected an object such as {{\"bot\": \"heuristic\"}}")
            bot = entry.get("bot") or None
            if bot is not None:
                if not isinstance(bot, str):
                    raise SettingsError(f"{seat_label(i)}: bot must be a bot name")
                try:
                    bot_class(adapter.name, bot)
                except UnknownBotError as exc:
                    raise SettingsError(f"{seat_label(i)}: {exc}") from None
                bot = bot.strip().lower()
                self._check_bot(adapter, bot, i, settings)
            name = entry.get("name")
            if name is None or (isinstance(name, str) and not name.strip()):
                name = f"{bot} bot" if bot else f"Player {i + 1}"
            if not isinstance(name, str) or len(name) > MAX_NAME or any(ch in name for ch in ';"\\\n\r'):
                raise SettingsError(f"{seat_label(i)}: a name is up to {MAX_NAME} characters without ; \" or \\")
            # a listed room keeps its first human seat for the creator: the lobby offers the others
            reserved = listed and bot is None and not any(x.bot is None for x in seats)
            seats.append(SeatRow(i, secrets.token_urlsafe(18), name.strip(), bot, bot is not None or reserved))
        room_id = secrets.token_urlsafe(6)
        row = RoomRow(room_id, adapter.name, settings, str(fmt), float(timer), listed, "playing", time.time())
        seed = self.seed_factory()
        self.store.create_room(row, seats, seed)
        room = self.room(room_id)
        assert room is not None
        return {
            "room": room_id,
            "game": adapter.name,
            "seats": [{"seat": s.seat, "name": s.name, "bot": s.bot, "token": None if s.bot else s.token}
                      for s in seats],
            "commit": adapter.commitment(room.current.state),
        }

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

    def claim(self, room_id: str) -> dict[str, Any] | None:
        """Give the first free human seat of a listed room to a lobby visitor (``None``: none free)."""
        room = self.room(room_id)
        if room is None or not room.row.listed:
            return None
        row = self.store.claim_free_seat(room_id)
        if row is None:
            return None
        room.seats[row.seat] = row
        room.broadcast()
        return {"room": room_id, "seat": row.seat, "name": row.name, "token": row.token}

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
                "seats": [{"seat": s.seat, "name": s.name, "bot": s.bot, "free": s.bot is None and not s.claimed}
                          for s in seats],
                "created": row.created,
            })
        return out

    def close(self) -> None:
        for room in self.rooms.values():
            room.stop()
