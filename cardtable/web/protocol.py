"""The WebSocket message protocol: parsing, limits and errors (no game rules here).

Every message is one JSON object with a ``"type"``. Client to server:

- ``{"type": "join", "room": ID, "token": TOKEN}`` -- act for the seat the
  token belongs to; without ``token``: watch as a spectator. Must come first,
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

>>> parse_message('{"type": "ping"}')
{'type': 'ping'}
>>> parse_message('{"type": ')
Traceback (most recent call last):
...
cardtable.web.protocol.ProtocolError: malformed JSON: Expecting value at character 9
"""

from __future__ import annotations

import json
import time
from typing import Any

#: Largest message accepted, in bytes of UTF-8 (an action is well under 200).
MAX_MESSAGE_BYTES = 4096

#: A connection whose dropped messages in a row exceed ``FLOOD_FACTOR * burst`` is closed ...
FLOOD_FACTOR = 20
#: ... with this WebSocket close code (RFC 6455, 7.4.1: policy violation).
FLOOD_CLOSE_CODE = 1008

CLIENT_TYPES = ("join", "act", "next", "ping")


class ProtocolError(ValueError):
    """A message the server cannot accept.

    Attributes:
        code: ``bad_json``, ``bad_message``, ``unknown_type``, ``too_large``,
            ``rate_limited``, ``not_joined``, ``already_joined``, ``bad_token``,
            ``no_room``, ``forbidden``, or a game's :class:`~cardtable.web.games.ActionError` code.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def parse_message(text: str | bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """Decode one client message and check its envelope.

    Raises:
        ProtocolError: ``too_large`` (over ``max_bytes``), ``bad_json``,
            ``bad_message`` (not an object, or no string ``type``), ``unknown_type``.
    """
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ProtocolError("too_large", f"message of {size} bytes is over the limit of {max_bytes} bytes")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        detail = f"{exc.msg} at character {exc.pos}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise ProtocolError("bad_json", f"malformed JSON: {detail}") from None
    except RecursionError:
        raise ProtocolError("bad_json", "malformed JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message is a JSON object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "the message has no 'type' string")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            "unknown_type", f"unknown message type {kind[:40]!r}; expected one of: {', '.join(CLIENT_TYPES)}"
        )
    return data


def error(code: str, message: str, ref: Any = None) -> dict[str, Any]:
    """The ``error`` message sent to the client that caused it."""
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        out["ref"] = ref
    return out


#: Longest ``ref`` string echoed back, in characters.
MAX_REF_CHARS = 64
#: ``ref`` integers must lie within +-MAX_REF_INT (exact in JavaScript numbers).
MAX_REF_INT = 2**53 - 1


def safe_ref(data: dict[str, Any]) -> Any:
    """The client's ``ref`` (echoed back in ``ack`` and ``error``): absent or ``null``
    gives ``None``; otherwise a string of at most :data:`MAX_REF_CHARS` characters
    or an integer within +-:data:`MAX_REF_INT`.

    >>> safe_ref({"ref": "a1"}), safe_ref({}), safe_ref({"ref": 7})
    ('a1', None, 7)

    Raises:
        ProtocolError: ``bad_message`` for any other ``ref`` (a float, a list,
            ``true``, a longer string, a bigger integer).
    """
    ref = data.get("ref")
    if ref is None:
        return None
    if isinstance(ref, str) and len(ref) <= MAX_REF_CHARS:
        return ref
    if isinstance(ref, int) and not isinstance(ref, bool) and abs(ref) <= MAX_REF_INT:
        return ref
    raise ProtocolError(
        "bad_message",
        f"'ref' must be a string of at most {MAX_REF_CHARS} characters or an integer "
        f"within +-{MAX_REF_INT}; got {type(ref).__name__}"
        + (f" of {len(ref)} characters" if isinstance(ref, str) else ""),
    )


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def seat_label(seat: int) -> str:
    """How messages name a seat: its 0-based protocol number, then its place in words.

    >>> seat_label(0)
    'seat 0 (the first seat)'
    """
    place = _ORDINALS[seat] if 0 <= seat < len(_ORDINALS) else f"#{seat + 1}"
    return f"seat {seat} (the {place} seat)"


class RateLimiter:
    """Token bucket: ``burst`` messages at once, refilled at ``rate`` per second.

    >>> rl = RateLimiter(rate=1.0, burst=2, clock=lambda: 0.0)
    >>> [rl.allow() for _ in range(3)]
    [True, True, False]
    """

    def __init__(self, rate: float = 20.0, burst: int = 40, clock=time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = float(burst)
        self.last = clock()
        self.refused = 0

    def allow(self) -> bool:
        """Take one token; ``False`` (and count a refusal) when the bucket is empty."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            self.refused = 0
            return True
        self.refused += 1
        return False
