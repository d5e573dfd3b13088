"""The WebSocket message protocol: parsing, limits and errors (no game rules here).

Every message is one JSON object with a ``"type"``. Client to server:

- ``{"type": "join", "room": ID, "token": TOKEN}`` -- act for the seat the
  token belongs to; ``"claim": CODE`` instead of ``token``: take the seat of an
  invite's one-time claim code (the ``welcome`` carries the seat's fresh token);
  with neither: watch as a spectator. Must come first,
  and succeeds once per connection: a second ``join`` gets ``already_joined``
  and changes nothing (open a new connection to switch rooms or seats).
- ``{"type": "act", "action": {...}, "ref": ANY}`` -- one game action (for
  Goofspiel ``{"bid": [13]}`` or ``{"choose": 12}``); the server answers
  ``ack`` with the same ``ref`` once the action is committed to the database.
- ``{"type": "next"}`` -- start the next game of the match, or a rematch.
- ``{"type": "ping"}`` -- answered by ``pong``.

Server to client: ``welcome``, ``state`` (the full per-viewer view, sent after
every change), ``ack``, ``error`` (``{"type": "error", "code", "message",
"ref"}``) and ``pong``. Full details: docs/web.md.

Every message is validated by the schema layer (:mod:`cardtable.web.schema`).

>>> parse_message('{"type": "ping"}')
Ping(type='ping', ref=None)
>>> parse_message('{"type": ')
Traceback (most recent call last):
...
cardtable.web.protocol.ProtocolError: malformed JSON: EOF while parsing a value at line 1 column 9
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import TypeAdapter

from cardtable.errors import CardtableError

from .limits import Bucket
from .schema import (
    CLIENT_TYPES,
    MAX_REF_CHARS,
    MAX_REF_INT,
    Act,
    Join,
    Next,
    Ping,
    SchemaError,
    message_ref,
    parse_client_message,
)

#: Largest message accepted, in bytes of UTF-8 (an action is well under 200); see
#: :class:`cardtable.web.limits.Limits`.
MAX_MESSAGE_BYTES = 4096

#: WebSocket close code for a flood (RFC 6455, 7.4.1: policy violation).
FLOOD_CLOSE_CODE = 1008
#: WebSocket close code for a connection that did not join in time, or one too many
#: from an address (RFC 6455, 7.4.1: policy violation).
POLICY_CLOSE_CODE = 1008


class ProtocolError(CardtableError, ValueError):
    """A message the server cannot accept.

    Attributes:
        code: ``bad_json``, ``bad_message``, ``unknown_type``, ``too_large``,
            ``rate_limited``, ``not_joined``, ``already_joined``, ``bad_token``,
            ``bad_claim``, ``no_room``, ``forbidden``, or a game's
            :class:`~cardtable.web.games.ActionError` code.
        ref: the message's ``ref`` when it was valid (echoed in the error).
    """

    def __init__(self, code: str, message: str, ref: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.ref = ref


def parse_message(text: str | bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> Join | Act | Next | Ping:
    """Check one client message's size, then parse and validate it with the schema
    (:func:`cardtable.web.schema.parse_client_message`).

    Raises:
        ProtocolError: ``too_large`` (over ``max_bytes``), ``bad_json`` (not UTF-8 JSON,
            or nested too deeply), ``unknown_type``, ``bad_message`` (not an object,
            no ``type``, a missing, unknown or badly typed field).
    """
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ProtocolError("too_large", f"message of {size} bytes is over the limit of {max_bytes} bytes")
    try:
        return parse_client_message(text)
    except SchemaError as exc:
        ref = message_ref(text) if exc.kind != "json" else None
        raise _protocol_error(text, exc, ref) from None


def _protocol_error(text: str | bytes, exc: SchemaError, ref: Any) -> ProtocolError:
    if exc.kind == "json":
        return ProtocolError("bad_json", str(exc))
    locs = exc.locations
    if any(loc.split(".")[1:2] == ["ref"] for loc in locs):
        return ProtocolError(
            "bad_message",
            f"'ref' must be a string of at most {MAX_REF_CHARS} characters or an integer within +-{MAX_REF_INT}",
        )
    message = str(exc)
    if locs == ("",) or not locs:
        if "tag" in message and "'type'" in message and "does not match" in message:
            kind = _peek_type(text)
            if isinstance(kind, str):
                return ProtocolError(
                    "unknown_type",
                    f"unknown message type {kind[:40]!r}; expected one of: {', '.join(CLIENT_TYPES)}",
                    ref,
                )
            return ProtocolError("bad_message", "the message's 'type' must be text", ref)
        if "Unable to extract tag" in message:
            return ProtocolError("bad_message", "the message has no 'type'", ref)
        return ProtocolError("bad_message", "a message is a JSON object with a 'type'", ref)
    return ProtocolError("bad_message", message, ref)


def _peek_type(text: str | bytes) -> Any:
    try:
        return TypeAdapter(dict[str, Any]).validate_json(text).get("type")
    except ValueError:  # pydantic.ValidationError: not a JSON object; the caller reports it as malformed
        return None


def error(code: str, message: str, ref: Any = None) -> dict[str, Any]:
    """The ``error`` message sent to the client that caused it."""
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        out["ref"] = ref
    return out


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def seat_label(seat: int) -> str:
    """How messages name a seat: its 0-based protocol number, then its place in words.

    >>> seat_label(0)
    'seat 0 (the first seat)'
    """
    place = _ORDINALS[seat] if 0 <= seat < len(_ORDINALS) else f"#{seat + 1}"
    return f"seat {seat} (the {place} seat)"


class RateLimiter:
    """Per-connection flood control: a message bucket and a byte bucket, and a
    flood count that closes abusers (docs/web.md, "Limits").

    Every frame received is charged its bytes; a frame is processed only if both
    buckets have room. Each dropped frame adds one message and its bytes to the
    flood count, which drains at ``rate`` messages and ``byte_rate`` bytes per
    second; an accepted message does not reset it. :meth:`flooding` is true once
    the count passes ``flood_factor`` x ``burst`` messages or ``flood_factor`` x
    ``byte_burst`` bytes.

    >>> rl = RateLimiter(rate=1.0, burst=2, clock=lambda: 0.0)
    >>> [rl.allow() for _ in range(3)]
    [True, True, False]
    """

    def __init__(
        self,
        rate: float = 20.0,
        burst: int = 40,
        clock=time.monotonic,
        *,
        byte_rate: float = 16384.0,
        byte_burst: int = 65536,
        flood_factor: int = 20,
    ) -> None:
        self.rate, self.burst = rate, burst
        self.byte_rate, self.byte_burst = byte_rate, byte_burst
        self.flood_factor = flood_factor
        self.clock = clock
        self.messages = Bucket(rate, burst, clock)
        self.bytes = Bucket(byte_rate, byte_burst, clock)
        self.refused = 0  # dropped messages since the last accepted one (one error per run)
        self.debt_messages = 0.0
        self.debt_bytes = 0.0
        self.last = clock()

    def allow(self, size: int = 0) -> bool:
        """Charge one message of ``size`` bytes; ``False`` (counted as dropped) when over a limit."""
        now = self.clock()
        elapsed, self.last = now - self.last, now
        self.debt_messages = max(0.0, self.debt_messages - elapsed * self.rate)
        self.debt_bytes = max(0.0, self.debt_bytes - elapsed * self.byte_rate)
        if self.bytes.wait(size) == 0.0 and self.messages.take():
            self.bytes.take(size)
            self.refused = 0
            return True
        self.bytes.take(min(size, self.bytes.tokens))  # dropped bytes still drain the byte bucket
        self.refused += 1
        self.debt_messages += 1
        self.debt_bytes += size
        return False

    def flooding(self) -> bool:
        """True once the dropped messages or bytes outstanding pass the flood threshold."""
        return (
            self.debt_messages > self.flood_factor * self.burst
            or self.debt_bytes > self.flood_factor * self.byte_burst
        )
