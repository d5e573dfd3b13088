"""The web server's SQLite database (stdlib :mod:`sqlite3`), knowing no game's rules.

Tables:

- ``rooms``: one row per room (a table playing a match): id, game name,
  settings (JSON), match format, round timer, lobby listing, status.
- ``seats``: one row per seat: the holder's secret token (valid only once the
  seat is claimed), display name, bot name or NULL, whether a person has taken
  it, the invite's one-time claim code (NULL once used or revoked), the end of
  an unconfirmed lobby claim's hold, and whether the seat is the creator's
  (not offered in the lobby).
- ``games``: one row per game of a room: its number, match number and the
  secret seed that orders every shuffle (revealed when that game ends).
- ``events``: the append-only log of accepted actions, numbered per room
  (``seq``), with the seat and the action as JSON. Pending simultaneous bids
  are events like any other, so the log rebuilds the exact state.

Durability: every accepted action is committed (:meth:`Store.append_event`)
before the sender gets its ``ack``. The database runs in WAL mode with
``synchronous=NORMAL`` by default: a committed transaction survives the server
process being killed (SIGKILL); ``synchronous="FULL"`` also survives a power
loss at the cost of one fsync per action.

The database file holds seat tokens and the seeds of running games: it is
created readable by its owner only (mode 0600), and SQLite gives its ``-wal``
and ``-shm`` files the same mode; an existing file is made 0600 when opened.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from cardtable.errors import CardtableError
from cardtable.platform.files import NotRegularFileError, check_regular_or_missing, file_kind

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    settings TEXT NOT NULL,
    match_format TEXT NOT NULL,
    timer REAL NOT NULL DEFAULT 0,
    listed INTEGER NOT NULL DEFAULT 1,
    status TEXT NOT NULL DEFAULT 'playing',
    created REAL NOT NULL,
    owner TEXT,
    active REAL
);
CREATE TABLE IF NOT EXISTS seats (
    room_id TEXT NOT NULL REFERENCES rooms(id),
    seat INTEGER NOT NULL,
    token TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    bot TEXT,
    claimed INTEGER NOT NULL DEFAULT 0,
    claim TEXT,
    hold_until REAL,
    reserved INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (room_id, seat)
);
CREATE TABLE IF NOT EXISTS games (
    room_id TEXT NOT NULL REFERENCES rooms(id),
    game_no INTEGER NOT NULL,
    match_no INTEGER NOT NULL,
    seed TEXT NOT NULL,
    PRIMARY KEY (room_id, game_no)
);
CREATE TABLE IF NOT EXISTS events (
    room_id TEXT NOT NULL REFERENCES rooms(id),
    seq INTEGER NOT NULL,
    game_no INTEGER NOT NULL,
    seat INTEGER,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    auto INTEGER NOT NULL DEFAULT 0,
    at REAL NOT NULL,
    PRIMARY KEY (room_id, seq)
);
CREATE INDEX IF NOT EXISTS rooms_lobby ON rooms(listed, status);
CREATE TABLE IF NOT EXISTS broken_rooms (
    room_id TEXT PRIMARY KEY REFERENCES rooms(id),
    reason TEXT NOT NULL,
    at REAL NOT NULL
);
"""

#: Columns added after the first release: ``ALTER TABLE`` adds them to an older database.
_ADDED_COLUMNS = (
    ("seats", "claim", "TEXT"),
    ("seats", "hold_until", "REAL"),
    ("seats", "reserved", "INTEGER NOT NULL DEFAULT 0"),
    ("rooms", "owner", "TEXT"),
    ("rooms", "active", "REAL"),
)
_SEAT_COLUMNS = "seat, token, name, bot, claimed, claim, hold_until, reserved"


class StorageError(CardtableError, RuntimeError):
    """The database cannot be opened or a write was refused (the action is not accepted)."""


@dataclass(frozen=True)
class SeatRow:
    """One seat as stored (docs/web.md, "Seat credentials").

    Attributes:
        token: the holder's secret credential; valid only while ``claimed``.
        bot: a bot name, or ``None`` for a person.
        claimed: a person holds the seat (or it is a bot's).
        claim: the invite's one-time claim code, ``None`` once used or revoked.
        hold_until: for a lobby claim not yet confirmed by a connection, when the
            hold ends (UNIX time); ``None`` otherwise.
        reserved: the creator's seat of a listed room (never offered in the lobby).
    """

    seat: int
    token: str
    name: str
    bot: str | None
    claimed: bool
    claim: str | None = None
    hold_until: float | None = None
    reserved: bool = False


def _seat(r: tuple) -> SeatRow:
    return SeatRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6], bool(r[7]))


@dataclass(frozen=True)
class RoomRow:
    """One room as stored (settings already parsed from JSON)."""

    id: str
    game: str
    settings: dict[str, Any]
    match_format: str
    timer: float
    listed: bool
    status: str
    created: float
    owner: str | None = None


@dataclass(frozen=True)
class EventRow:
    """One accepted action (``kind="act"``) or the start of the next game (``kind="next"``)."""

    seq: int
    game_no: int
    seat: int | None
    kind: str
    payload: Any
    auto: bool


class Store:
    """A connection to the server database at ``path`` (created if missing).

    Args:
        path: database file; ``":memory:"`` for a throwaway database.
        synchronous: SQLite ``synchronous`` pragma, ``"NORMAL"`` or ``"FULL"``.

    Raises:
        StorageError: the file cannot be opened or is not a cardtable database.
    """

    def __init__(self, path: str | Path, synchronous: str = "NORMAL") -> None:
        if synchronous.upper() not in ("NORMAL", "FULL"):
            raise StorageError(f"synchronous must be NORMAL or FULL, not {synchronous!r}")
        self.path = str(path)
        try:
            if self.path != ":memory:":
                check_regular_or_missing(self.path)  # a FIFO, device, socket or folder, by name
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                _private(Path(self.path))
            self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(f"PRAGMA synchronous={synchronous.upper()}")
            # checkpoints (copying the WAL into the database, with an fsync) run off the
            # event loop in :meth:`checkpoint`, so a commit never waits for one
            self.db.execute("PRAGMA wal_autocheckpoint=0")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
            self._migrate()
            if self.path != ":memory:":
                for suffix in ("-wal", "-shm"):
                    extra = Path(self.path + suffix)
                    if extra.exists():
                        os.chmod(extra, 0o600)
        except (sqlite3.DatabaseError, OSError) as exc:
            raise StorageError(f"cannot open the database {self.path!r}: {exc}") from exc
        self._checkpointer: sqlite3.Connection | None = None
        self._checkpoint_lock = threading.Lock()
        self._closed = False

    def _migrate(self) -> None:
        """Add the columns of :data:`_ADDED_COLUMNS` that an older database lacks; an
        older database's unclaimed seats keep their invite links working as claim codes."""
        for table, column, decl in _ADDED_COLUMNS:
            have = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
            if column not in have:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")
                if (table, column) == ("seats", "claim"):
                    self.db.execute("UPDATE seats SET claim=token WHERE claimed=0 AND bot IS NULL")

    def checkpoint(self) -> None:
        """Copy committed WAL pages into the database file (``PRAGMA wal_checkpoint(PASSIVE)``).

        Called from a worker thread every second by the app (its own connection), so
        the event loop never blocks on the checkpoint's fsync.
        """
        if self.path == ":memory:":
            return
        with self._checkpoint_lock:
            if self._closed:
                return
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        with self._checkpoint_lock:  # waits for a checkpoint running in a worker thread
            self._closed = True
            if self._checkpointer is not None:
                self._checkpointer.close()
        try:
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.DatabaseError:
            pass
        self.db.close()

    # -- writing ------------------------------------------------------------------------

    def _transaction(self) -> "_Tx":
        return _Tx(self.db)

    def create_room(
        self,
        room: RoomRow,
        seats: list[SeatRow],
        seed: str,
    ) -> None:
        """Store a new room, its seats and the seed of its first game, in one transaction."""
        with self._transaction():
            self.db.execute(
                "INSERT INTO rooms (id, game, settings, match_format, timer, listed, status, created, owner, active)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    room.id,
                    room.game,
                    json.dumps(room.settings),
                    room.match_format,
                    room.timer,
                    int(room.listed),
                    room.status,
                    room.created,
                    room.owner,
                    room.created,
                ),
            )
            self.db.executemany(
                "INSERT INTO seats (room_id, seat, token, name, bot, claimed, claim, hold_until, reserved)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        room.id,
                        s.seat,
                        s.token,
                        s.name,
                        s.bot,
                        int(s.claimed),
                        s.claim,
                        s.hold_until,
                        int(s.reserved),
                    )
                    for s in seats
                ],
            )
            self.db.execute(
                "INSERT INTO games (room_id, game_no, match_no, seed) VALUES (?, 1, 1, ?)", (room.id, seed)
            )

    def append_event(
        self,
        room_id: str,
        seq: int,
        game_no: int,
        seat: int | None,
        kind: str,
        payload: Any,
        auto: bool = False,
    ) -> None:
        """Commit one accepted action; returns only once it is durable.

        Raises:
            StorageError: the write failed (e.g. ``seq`` already used); nothing was stored.
        """
        try:
            with self._transaction():
                self.db.execute(
                    "INSERT INTO events (room_id, seq, game_no, seat, kind, payload, auto, at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (room_id, seq, game_no, seat, kind, json.dumps(payload), int(auto), time.time()),
                )
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"could not store the action: {exc}") from exc

    def start_game(
        self, room_id: str, seq: int, game_no: int, match_no: int, seed: str, seat: int | None
    ) -> None:
        """Commit the start of game ``game_no`` (its secret seed and a ``next`` event) atomically."""
        try:
            with self._transaction():
                self.db.execute(
                    "INSERT INTO games (room_id, game_no, match_no, seed) VALUES (?, ?, ?, ?)",
                    (room_id, game_no, match_no, seed),
                )
                self.db.execute(
                    "INSERT INTO events (room_id, seq, game_no, seat, kind, payload, auto, at)"
                    " VALUES (?, ?, ?, ?, 'next', ?, 0, ?)",
                    (room_id, seq, game_no, seat, json.dumps({"match_no": match_no}), time.time()),
                )
                self.db.execute("UPDATE rooms SET status='playing' WHERE id=?", (room_id,))
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"could not start the next game: {exc}") from exc

    def set_status(self, room_id: str, status: str) -> None:
        with self._transaction():
            self.db.execute("UPDATE rooms SET status=? WHERE id=?", (status, room_id))

    def mark_broken(self, room_id: str, reason: str) -> None:
        """Set a room's status to ``broken`` and keep the reason (see :meth:`broken_reason`);
        broken rooms are neither listed nor resumed, and their rows stay for inspection."""
        with self._transaction():
            self.db.execute("UPDATE rooms SET status='broken' WHERE id=?", (room_id,))
            self.db.execute(
                "INSERT OR REPLACE INTO broken_rooms (room_id, reason, at) VALUES (?, ?, ?)",
                (room_id, reason, time.time()),
            )

    def broken_reason(self, room_id: str) -> str | None:
        """Why room ``room_id`` was marked broken (``None``: it is not)."""
        row = self.db.execute("SELECT reason FROM broken_rooms WHERE room_id=?", (room_id,)).fetchone()
        return None if row is None else row[0]

    def take_seat(self, room_id: str, seat: int, token: str, hold_until: float | None = None) -> SeatRow:
        """Give seat ``seat`` to a person: its token becomes ``token``, its claim code is
        revoked, and ``hold_until`` (a lobby claim) or ``None`` (confirmed) is stored."""
        with self._transaction():
            self.db.execute(
                "UPDATE seats SET claimed=1, token=?, claim=NULL, hold_until=? WHERE room_id=? AND seat=?",
                (token, hold_until, room_id, seat),
            )
            return self._seat(room_id, seat)

    def confirm_seat(self, room_id: str, seat: int) -> None:
        """A lobby claim's holder connected: the seat is held without a time limit."""
        with self._transaction():
            self.db.execute("UPDATE seats SET hold_until=NULL WHERE room_id=? AND seat=?", (room_id, seat))

    def free_seat(self, room_id: str, seat: int, token: str, claim: str | None) -> SeatRow:
        """Release or re-invite a person's seat: nobody holds it; its token becomes
        ``token`` (never handed out until the next claim) and its claim code ``claim``."""
        with self._transaction():
            self.db.execute(
                "UPDATE seats SET claimed=0, token=?, claim=?, hold_until=NULL WHERE room_id=? AND seat=?"
                " AND bot IS NULL",
                (token, claim, room_id, seat),
            )
            return self._seat(room_id, seat)

    def expired_holds(self, now: float) -> list[tuple[str, int]]:
        """``(room, seat)`` of every lobby claim whose hold ended before ``now``."""
        return [
            tuple(r)
            for r in self.db.execute(
                "SELECT room_id, seat FROM seats WHERE hold_until IS NOT NULL AND hold_until < ?", (now,)
            )
        ]

    def touch(self, room_id: str, when: float | None = None) -> None:
        """Note activity in a room (a seated connection came or went), for abandonment."""
        with self._transaction():
            self.db.execute(
                "UPDATE rooms SET active=? WHERE id=?", (time.time() if when is None else when, room_id)
            )

    def idle_rooms(self, before: float) -> list[str]:
        """Unfinished rooms with no activity (creation, action, seated connection) since ``before``."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT r.id FROM rooms r WHERE r.status='playing' AND max(r.created, coalesce(r.active, 0),"
                " coalesce((SELECT max(e.at) FROM events e WHERE e.room_id = r.id), 0)) < ?",
                (before,),
            )
        ]

    def _seat(self, room_id: str, seat: int) -> SeatRow:
        row = self.db.execute(
            f"SELECT {_SEAT_COLUMNS} FROM seats WHERE room_id=? AND seat=?", (room_id, seat)
        ).fetchone()
        return _seat(row)

    # -- reading ------------------------------------------------------------------------

    def room(self, room_id: str) -> RoomRow | None:
        row = self.db.execute(
            "SELECT id, game, settings, match_format, timer, listed, status, created, owner FROM rooms WHERE id=?",
            (room_id,),
        ).fetchone()
        if row is None:
            return None
        return RoomRow(
            row[0], row[1], json.loads(row[2]), row[3], row[4], bool(row[5]), row[6], row[7], row[8]
        )

    def seats(self, room_id: str) -> list[SeatRow]:
        rows = self.db.execute(
            f"SELECT {_SEAT_COLUMNS} FROM seats WHERE room_id=? ORDER BY seat", (room_id,)
        ).fetchall()
        return [_seat(r) for r in rows]

    def games(self, room_id: str) -> list[tuple[int, int, str]]:
        """``(game_no, match_no, seed)`` of every game of the room, in order."""
        return [
            tuple(r)
            for r in self.db.execute(
                "SELECT game_no, match_no, seed FROM games WHERE room_id=? ORDER BY game_no", (room_id,)
            )
        ]

    def events(self, room_id: str) -> Iterator[EventRow]:
        for r in self.db.execute(
            "SELECT seq, game_no, seat, kind, payload, auto FROM events WHERE room_id=? ORDER BY seq",
            (room_id,),
        ):
            yield EventRow(r[0], r[1], r[2], r[3], json.loads(r[4]), bool(r[5]))

    def lobby(self, limit: int = 100) -> list[tuple[RoomRow, list[SeatRow]]]:
        """Listed rooms still playing that have a free human seat, newest first."""
        ids = [
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT r.id, r.created FROM rooms r JOIN seats s ON s.room_id = r.id"
                " WHERE r.listed=1 AND r.status='playing' AND s.bot IS NULL AND s.claimed=0 AND s.reserved=0"
                " ORDER BY r.created DESC LIMIT ?",
                (limit,),
            )
        ]
        # room(i) is typed RoomRow | None; every id comes from the rooms table just read
        return [(self.room(i), self.seats(i)) for i in ids]  # type: ignore[misc]

    def unfinished_rooms(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT id FROM rooms WHERE status='playing'")]


def _private(path: Path) -> None:
    """Create ``path`` readable and writable by its owner only (0600), or make an
    existing file so; SQLite creates ``-wal`` and ``-shm`` with the database's mode."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NONBLOCK", 0), 0o600)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # never chmod a FIFO or a device (/dev/null)
            raise NotRegularFileError(path, file_kind(mode))
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


class _Tx:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on error) for an autocommit connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> "_Tx":
        self.db.execute("BEGIN IMMEDIATE")
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.db.execute("COMMIT")
        else:
            self.db.execute("ROLLBACK")
