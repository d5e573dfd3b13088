"""What moves a room's game on without a person: its bots and its round timer.

:class:`BotDriver` asks each bot whose turn it is for its action, in the hub's
bot thread pool, within :attr:`Limits.bot_deadline` seconds (queueing included);
a bot that raises, answers an illegal action or overruns is replaced for that
action by the game's ``random`` bot (docs/web.md, "Bots"). Bots pause in a room
nobody has watched for :attr:`Limits.bot_pause_after` seconds.

:class:`RoundTimer` plays the adapter's timeout action for every person who has
not acted when a room's round timer runs out.

Both act through the room (:meth:`cardtable.web.rooms.Room.commit` under the
room's lock), so their actions are checked, stored and applied like a person's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from .games import ActionError
from .protocol import seat_label
from .storage import StorageError

if TYPE_CHECKING:
    from .rooms import GameSlot, Room

log = logging.getLogger("cardtable.web")


def _loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class BotDriver:
    """The bots of one room and the task that runs them.

    Attributes:
        bots: seat -> bot (from the adapter's ``new_bot``).
        retired: seats whose bot overran its deadline this game (see :meth:`_ask`).
    """

    def __init__(self, room: Room) -> None:
        self.room = room
        # at a load, a bot that cannot play the ruleset (ValueError) breaks the room (Hub._load)
        self.bots: dict[int, Any] = {
            s.seat: self._start(s.seat, s.bot, loading=True) for s in room.seats if s.bot
        }
        self.retired: set[int] = set()
        self._fallbacks: dict[int, Any] = {}  # seat -> the game's random bot, which acts for a failed bot
        self._task: asyncio.Task | None = None

    @property
    def running(self) -> bool:
        return self._task is not None

    def wake(self) -> None:
        """Start the bots' task if a bot is to act and it is not running."""
        room = self.room
        if self._task is None and any(s in self.bots for s in room.adapter.to_act(room.current.state)):
            loop = _loop()
            if loop is not None:
                self._task = loop.create_task(self._run())

    def _start(self, seat: int, name: str, loading: bool = False) -> Any:
        """The adapter's ``new_bot``, or, when it raises, the game's ``random`` bot, logged: a
        broken bot must not stop the room (docs/web.md, "Bots"). ``loading``: a ``ValueError``
        (the bot cannot play the room's ruleset, which creation refuses) propagates, and the hub
        marks the room broken. May solve for seconds: off the event loop."""
        room = self.room
        try:
            return room.adapter.new_bot(name, seat, room.settings)
        except Exception as exc:
            if loading and isinstance(exc, ValueError):
                raise
            log.exception(
                "room %s: the %s bot of %s failed to start; random legal actions are played for it",
                room.id,
                name,
                seat_label(seat),
            )
            return room.adapter.new_bot("random", seat, room.settings)

    def fresh_bots(self) -> dict[int, Any]:
        """The bots of the room's next game (run in the bots' thread pool: a start may solve),
        to hand to :meth:`new_game`: fresh ones, except those that learn across games."""
        fresh = {}
        for s in self.room.seats:
            # a bot that learns its opponent (the exploiter) keeps its memory for the room's next games,
            # unless it overran its deadline: its thread may still be using it
            if s.bot and (
                s.seat in self.retired or not getattr(self.bots.get(s.seat), "learns_across_games", False)
            ):
                fresh[s.seat] = self._start(s.seat, s.bot)
        return fresh

    def new_game(self, fresh: dict[int, Any]) -> None:
        """The room started its next game with the bots of :meth:`fresh_bots`."""
        self.bots.update(fresh)
        self.retired.clear()
        self._fallbacks.clear()

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def _next_seat(self, slot: GameSlot) -> int | None:
        """The first bot seat to act, or ``None`` when no bot should act now (none is to,
        the room has been unwatched too long, or the server is stopping)."""
        room = self.room
        waiting = [s for s in sorted(room.adapter.to_act(slot.state)) if s in self.bots]
        if not waiting:
            return None
        if not room.conns and time.monotonic() - room.unwatched_since > room.hub.limits.bot_pause_after:
            return None  # nobody is watching: paused until somebody joins (attach wakes the bots)
        if room.hub.closed:
            return None
        return waiting[0]

    async def _run(self) -> None:
        room = self.room
        try:
            while True:
                slot = room.current
                seat = self._next_seat(slot)
                if seat is None:
                    return
                action = await self._ask(slot, seat)
                async with room.lock:
                    if room.current is not slot or seat not in room.adapter.to_act(slot.state):
                        continue
                    await self._play(slot, seat, action)
                room.timer.update()
                room.broadcast()
        except StorageError:
            log.exception("room %s: could not store a bot action", room.id)
        finally:
            self._task = None

    async def _play(self, slot: GameSlot, seat: int, action: Any) -> None:
        """Commit the bot's action, or the fallback's when it has none or an illegal one (lock held)."""
        room = self.room
        if action is None:  # raised or overran its deadline (logged)
            await self._fallback(slot, seat)
            return
        try:
            await room.commit(seat, action)
        except ActionError as exc:
            log.warning(
                "room %s: the %s bot of %s answered an illegal action (%s); a random legal "
                "action is played for it",
                room.id,
                room.seats[seat].bot,
                seat_label(seat),
                exc,
            )
            await self._fallback(slot, seat)

    async def _ask(self, slot: GameSlot, seat: int) -> Any:
        """The bot's JSON action for ``seat``, computed in the hub's bot pool within
        :attr:`Limits.bot_deadline` seconds (queueing included); ``None`` when it raised
        or overran (logged). A bot that overran is retired for the rest of the game: its
        thread cannot be stopped and may still be using it, so the fallback acts for it."""
        if seat in self.retired:
            return None
        room = self.room
        bot, name = self.bots[seat], room.seats[seat].bot
        view = room.adapter.bot_view(slot.state, seat)
        deadline = room.hub.limits.bot_deadline
        future = asyncio.get_running_loop().run_in_executor(
            room.hub.bot_pool, room.adapter.bot_action, bot, view, seat
        )
        try:
            done, _ = await asyncio.wait({future}, timeout=deadline)
        finally:
            future.cancel()  # not started yet (queued, or the room stopped): it never runs; done: no effect
        if not done:
            self.retired.add(seat)
            log.warning(
                "room %s: the %s bot of %s took over %g s (bot_deadline); it is retired for this game "
                "and random legal actions are played for it",
                room.id,
                name,
                seat_label(seat),
                deadline,
            )
            return None
        try:
            return future.result()
        except Exception:  # a broken bot must not stop the game
            log.exception(
                "room %s: the %s bot of %s failed; a random legal action is played for it",
                room.id,
                name,
                seat_label(seat),
            )
            return None

    async def _fallback(self, slot: GameSlot, seat: int) -> None:
        """Play a random legal action for ``seat`` (the game's ``random`` bot on the bot's view),
        marked ``auto`` in the event log; if even that fails, the round timer's action
        (:meth:`GameAdapter.timeout_action`). docs/web.md, "Bots". The room's lock is held."""
        room = self.room
        try:
            bot = self._fallbacks.get(seat)
            if bot is None:
                bot = self._fallbacks[seat] = room.adapter.new_bot("random", seat, room.settings)
            action = room.adapter.bot_action(bot, room.adapter.bot_view(slot.state, seat), seat)
            await room.commit(seat, action, auto=True)
            return
        except StorageError:
            raise
        except Exception:  # the fallback is a bot too: whatever it raises, the timeout action still plays
            log.exception(
                "room %s: the random fallback for %s failed; playing the timeout action",
                room.id,
                seat_label(seat),
            )
        await room.commit(seat, room.adapter.timeout_action(slot.state, seat), auto=True)


class RoundTimer:
    """A room's round timer (``row.timer`` seconds per decision; none when 0).

    Attributes:
        deadline: event loop time when the running timer ends, ``None`` when none runs.
    """

    def __init__(self, room: Room) -> None:
        self.room = room
        self.deadline: float | None = None
        self._turn: tuple[int, Hashable] | None = None
        self._task: asyncio.Task | None = None

    def info(self) -> dict[str, Any] | None:
        """The ``timer`` field of a ``state`` message: ``{"seconds", "left"}``, or ``None``."""
        seconds = self.room.row.timer
        if not seconds:
            return None
        left = None
        loop = _loop()
        if self.deadline is not None and loop is not None:
            left = max(0.0, round(self.deadline - loop.time(), 1))
        return {"seconds": seconds, "left": left}

    def _key(self) -> tuple[int, Hashable]:
        cur = self.room.current
        return (cur.game_no, self.room.adapter.turn_key(cur.state))

    def update(self) -> None:
        """Restart the timer when the decision point changed (and a person is to act)."""
        room = self.room
        loop = _loop()
        if not room.row.timer or loop is None:
            return
        key = self._key()
        if key == self._turn:
            return
        self._turn = key
        self.stop()
        self.deadline = None
        humans = [s for s in room.adapter.to_act(room.current.state) if s not in room.bots]
        if humans:
            self.deadline = loop.time() + room.row.timer
            self._task = loop.create_task(self._expire(key))

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _expire(self, key: tuple[int, Hashable]) -> None:
        room = self.room
        await asyncio.sleep(room.row.timer)
        if key != self._key():
            return
        self._task = None
        async with room.lock:
            if key == self._key():
                await self._time_out()
        room.changed()

    async def _time_out(self) -> None:
        """Play the timeout action of every person still to act (the room's lock is held)."""
        room = self.room
        cur = room.current
        for seat in sorted(room.adapter.to_act(cur.state)):
            if seat in room.bots or room.adapter.is_over(cur.state):
                continue
            try:
                await room.commit(seat, room.adapter.timeout_action(cur.state, seat), auto=True)
            except (ActionError, StorageError) as exc:
                log.warning("room %s: timeout action for seat %s refused: %s", room.id, seat, exc)
