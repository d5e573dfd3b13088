"""Every resource limit of the web server, in one place (docs/web.md, "Limits").

:class:`Limits` holds the defaults; ``create_app(limits=Limits(...))`` and
``cardtable serve --limit NAME=VALUE`` change them.

>>> Limits().max_message_bytes
4096
>>> Limits().with_overrides(["join_timeout=2.5"]).join_timeout
2.5
>>> Limits().with_overrides(["nope=1"])
Traceback (most recent call last):
...
ValueError: unknown limit 'nope'; known: abandon_after, analyses_per_minute, analysis_burst, analysis_queue, analysis_workers, bot_check_burst, bot_checks_per_minute, bot_deadline, bot_pause_after, bot_workers, burst, byte_burst, byte_rate, claim_ttl, claims_per_address, connections_per_address, flood_factor, join_timeout, max_body_bytes, max_message_bytes, presence_delay, rate, room_burst, rooms_per_hour, sweep_every
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cardtable.platform.integers import number_text


@dataclass(frozen=True)
class Limits:
    """The server's limits; every number is positive (``0`` is refused, so no limit can be switched off).

    Attributes:
        max_message_bytes: largest WebSocket message, bytes of UTF-8; also the
            transport's frame limit (uvicorn ``ws_max_size``), so a bigger frame is
            never read into memory (the connection is closed with 1009).
        max_body_bytes: largest HTTP request body, bytes (HTTP 413 beyond).
        rate, burst: messages per second per connection, and the bucket size.
        byte_rate, byte_burst: bytes per second per connection, and the bucket size;
            every frame received counts, whether processed or dropped.
        flood_factor: a connection whose dropped messages (or bytes) outstanding
            exceed ``flood_factor`` x ``burst`` (or x ``byte_burst``) is closed with
            1008; the count drains at ``rate`` (``byte_rate``) per second, so accepted
            messages in between do not reset it.
        join_timeout: seconds a WebSocket may stay open without a successful ``join``.
        claim_ttl: seconds a lobby claim (``POST /api/rooms/R/join``) holds a seat
            before its holder connects; unconfirmed, the seat returns to the lobby.
        claims_per_address: unconfirmed lobby claims one address may hold at once.
        connections_per_address: open WebSockets per address.
        rooms_per_hour, room_burst: room creations per address: a bucket of
            ``room_burst`` refilled at ``rooms_per_hour``.
        presence_delay: seconds over which seat presence changes (joins, disconnects,
            claims) are coalesced into one ``state`` per connection.
        abandon_after: seconds after which an unfinished room with nobody seated
            connected and no action is abandoned: no longer resumed, listed or playable.
        bot_pause_after: seconds bots keep playing in a room nobody is connected to;
            they carry on when somebody joins.
        sweep_every: seconds between sweeps for expired claims and abandoned rooms.
        bot_workers: threads that compute room bots' actions (their own pool: bots never
            wait behind analyses or other work).
        bot_deadline: seconds a bot's action may take, queueing included; beyond it (or
            when the bot raises or answers an illegal action) a random legal action is
            played for it (docs/web.md, "Bots").
        analysis_workers: worker processes that solve analyses (``GET /api/rooms/R/analysis``);
            their own pool, so analyses never delay bots.
        analysis_queue: distinct games being analysed or waiting for a worker; one more
            is answered 503 with ``Retry-After``.
        bot_checks_per_minute, bot_check_burst: which-bots-can-play requests
            (``POST /api/games/G/bots``, each starts every bot of the game) per address that
            the server's cache does not answer: a bucket of ``bot_check_burst`` refilled at
            ``bot_checks_per_minute``; beyond it 429 with ``Retry-After``.
        analyses_per_minute, analysis_burst: analysis requests per address that the
            cache does not answer: a bucket of ``analysis_burst`` refilled at
            ``analyses_per_minute``; beyond it 429 with ``Retry-After``.
    """

    max_message_bytes: int = 4096
    max_body_bytes: int = 16384
    rate: float = 20.0
    burst: int = 40
    byte_rate: float = 16384.0
    byte_burst: int = 65536
    flood_factor: int = 20
    join_timeout: float = 10.0
    claim_ttl: float = 120.0
    claims_per_address: int = 4
    connections_per_address: int = 64
    rooms_per_hour: float = 60.0
    room_burst: int = 20
    presence_delay: float = 0.25
    abandon_after: float = 7 * 24 * 3600.0
    bot_pause_after: float = 60.0
    sweep_every: float = 10.0
    bot_workers: int = 4
    bot_deadline: float = 30.0
    analysis_workers: int = 1
    analysis_queue: int = 8
    analyses_per_minute: float = 12.0
    analysis_burst: int = 6
    bot_checks_per_minute: float = 30.0
    bot_check_burst: int = 20

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value <= 0
            ):
                raise ValueError(f"limit {f.name} must be a positive number, not {value!r}")
            if f.type == "int" and not isinstance(value, int):
                raise ValueError(f"limit {f.name} must be a whole number, not {value!r}")

    def with_overrides(self, items: Iterable[str]) -> "Limits":
        """A copy with ``NAME=VALUE`` items applied (``cardtable serve --limit``).

        Raises:
            ValueError: unknown name, or a value that is not a positive number.
        """
        types = {f.name: f.type for f in dataclasses.fields(self)}
        changes: dict[str, Any] = {}  # each value of its field's type (int or float)
        for item in items:
            name, eq, text = item.partition("=")
            name = name.strip()
            if name not in types:
                raise ValueError(f"unknown limit {name!r}; known: {', '.join(sorted(types))}")
            if not eq:
                raise ValueError(f"--limit {item!r}: expected NAME=VALUE")
            if name in changes:  # as everywhere else: a repeated key is an error, not "the last wins"
                raise ValueError(f"limit {name} is given twice")
            text = text.strip()
            # ASCII digits, no sign (number_text: no 1_000, ٣, inf or nan)
            value = number_text(text, signed=False, max_length=30)
            if value is None or (types[name] == "int" and not isinstance(value, int)):
                raise ValueError(
                    f"limit {name}: {text[:40]!r} is not a {types[name] == 'int' and 'whole ' or ''}number"
                )
            value = value if types[name] == "int" else float(value)
            if value > COMMAND_LINE_MAX.get(name, 1e9):
                raise ValueError(f"limit {name}: at most {COMMAND_LINE_MAX.get(name, 1e9):,g}, not {text}")
            changes[name] = value
        return dataclasses.replace(self, **changes)


#: The largest value ``--limit`` takes per limit (docs/web.md, Limits): a delay or a pool
#: size beyond these switches a limit off in effect; every other limit at most 1e9.
COMMAND_LINE_MAX: dict[str, float] = {
    "join_timeout": 3600,
    "claim_ttl": 86400,
    "presence_delay": 10,
    "abandon_after": 365 * 86400,
    "bot_pause_after": 86400,
    "sweep_every": 3600,
    "bot_deadline": 600,
    "bot_workers": 64,
    "analysis_workers": 64,
}


class Bucket:
    """A token bucket: ``capacity`` tokens, refilled at ``rate`` per second.

    >>> b = Bucket(rate=1.0, capacity=2, clock=lambda: 0.0)
    >>> [b.take() for _ in range(3)]
    [True, True, False]
    """

    def __init__(self, rate: float, capacity: float, clock=time.monotonic) -> None:
        self.rate = rate
        self.capacity = capacity
        self.clock = clock
        self.tokens = float(capacity)
        self.last = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
        self.last = now

    def take(self, amount: float = 1.0) -> bool:
        """Take ``amount`` tokens if there are that many; ``False`` (nothing taken) otherwise."""
        self._refill()
        if self.tokens >= amount:
            self.tokens -= amount
            return True
        return False

    def wait(self, amount: float = 1.0) -> float:
        """Seconds until ``amount`` tokens are there (0 when they are)."""
        self._refill()
        return max(0.0, (amount - self.tokens) / self.rate)


class AddressQuota:
    """One :class:`Bucket` per client address (``rate`` per second, ``capacity`` at once),
    made on the address's first request and forgotten by :meth:`sweep` once it has refilled.

    >>> q = AddressQuota(rate=1.0, capacity=1, clock=lambda: 0.0)
    >>> q.take("a"), q.take("a"), q.take("b")
    (None, 1.0, None)
    """

    def __init__(self, rate: float, capacity: float, clock=time.monotonic) -> None:
        self.rate = rate
        self.capacity = capacity
        self.clock = clock
        self.buckets: dict[str, Bucket] = {}

    def take(self, address: str) -> float | None:
        """Take one token of ``address``: ``None`` when it had one, else the seconds until it has."""
        bucket = self.buckets.get(address)
        if bucket is None:
            bucket = self.buckets[address] = Bucket(self.rate, self.capacity, self.clock)
        return None if bucket.take() else bucket.wait()

    def take_or_refuse(self, address: str, what: str, per: str) -> None:
        """Take one token of ``address``, or refuse the request.

        Args:
            what: what is counted, as the message says it (``"rooms created"``).
            per: the rate's unit: ``"minute"`` or ``"hour"``.

        Raises:
            QuotaError: no token: ``too many WHAT from your address: at most C at once and R
                per PER; try again in N s``, with the seconds to wait (``Retry-After``).
        """
        wait = self.take(address)
        if wait is not None:
            # lazy: the limits are read by the record checks, which must not load Starlette
            from .errors import QuotaError

            rate = self.rate * {"minute": 60.0, "hour": 3600.0}[per]
            raise QuotaError(
                f"too many {what} from your address: at most {self.capacity:g} at once and "
                f"{rate:g} per {per}; try again in {wait:.0f} s",
                wait,
            )

    def sweep(self) -> None:
        """Forget the buckets that are full again (they hold nothing an address owes)."""
        for address, bucket in list(self.buckets.items()):
            if bucket.wait(bucket.capacity) == 0.0:
                del self.buckets[address]
