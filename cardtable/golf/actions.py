"""Golf actions: small frozen dataclasses, as text and as JSON.

Every action names the acting ``player`` (0-based seat). Grid positions are
0-based in objects and JSON (``pos``), 1-based in text: a 3x3 grid reads
1 2 3 / 4 5 6 / 7 8 9 top to bottom; extra cards (penalty cards, an early
ender's extra card) get the next numbers 10, 11, ...  Seats are ``P1``,
``P2``, ``P3`` in text.

=========================  ==========================  ===============================
text (seat P1 acting)      object                      meaning (docs/golf.md)
=========================  ==========================  ===============================
``draw``                   ``Draw(0)``                 take the top card of the draw pile
``end``                    ``EndEarly(0)``             end the game early (start of turn)
``discard``                ``Discard(0)``              put the drawn card on the discard pile
``swap 5``                 ``Swap(0, 4)``              drawn card into position 5, old card discarded
``peek 5``                 ``Peek(0, 4)``              Detective: look at own position 5
``steal 5 P2:3``           ``Steal(0, 4, 1, 2)``       Thief: own 5 <-> P2's 3, unseen
``snap P2:3``              ``Snap(0, 1, 2)``           turn P2's card 3 onto the discard pile
``pass 4``                 ``Pass(0, 3)``              after snapping an opponent: give them card 4
``nopass``                 ``NoPass(0)``               after snapping an opponent: give nothing
=========================  ==========================  ===============================

>>> parse_action("steal 5 P2:3", player=0)
Steal(player=0, pos=4, target=1, target_pos=2)
>>> format_action(Snap(1, 1, 8))
'snap P2:9'
>>> action_from_dict(Swap(0, 4).to_dict())
Swap(player=0, pos=4)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar, Union

from cardtable.errors import quoted
from cardtable.platform.records import whole_number

from .errors import ActionFormatError


@dataclass(frozen=True)
class Draw:
    """Draw the top card of the draw pile (start of a turn; docs/golf.md, "A turn")."""

    player: int
    kind: ClassVar[str] = "draw"


@dataclass(frozen=True)
class EndEarly:
    """End the game early at the start of one's turn (docs/golf.md, "Ending early": needs three cards of
    one's own grid snapped)."""

    player: int
    kind: ClassVar[str] = "end"


@dataclass(frozen=True)
class Discard:
    """Put the drawn card face up on the discard pile; ends the turn (docs/golf.md, "A turn")."""

    player: int
    kind: ClassVar[str] = "discard"


@dataclass(frozen=True)
class Swap:
    """Put the drawn card face down at own ``pos``; the old card goes face up onto the discard pile
    (docs/golf.md, "A turn"). A Detective or Thief whose power was used goes into a further card,
    not the one the power used (docs/golf.md, "The Detective")."""

    player: int
    pos: int
    kind: ClassVar[str] = "swap"


@dataclass(frozen=True)
class Peek:
    """Detective: look at own card ``pos`` (docs/golf.md, "The Detective")."""

    player: int
    pos: int
    kind: ClassVar[str] = "peek"


@dataclass(frozen=True)
class Steal:
    """Thief: swap own card ``pos`` with seat ``target``'s card ``target_pos``, neither looked at
    (docs/golf.md, "The Thief")."""

    player: int
    pos: int
    target: int
    target_pos: int
    kind: ClassVar[str] = "steal"


@dataclass(frozen=True)
class Snap:
    """Turn seat ``owner``'s card ``pos`` onto the discard pile, claiming it matches the top card
    (docs/golf.md, "Snapping")."""

    player: int
    owner: int
    pos: int
    kind: ClassVar[str] = "snap"


@dataclass(frozen=True)
class Pass:
    """After snapping an opponent's card: give that opponent own card ``pos`` face down
    (optional; docs/golf.md, "Snapping")."""

    player: int
    pos: int
    kind: ClassVar[str] = "pass"


@dataclass(frozen=True)
class NoPass:
    """After snapping an opponent's card: keep all own cards (passing is optional, docs/golf.md "Snapping")."""

    player: int
    kind: ClassVar[str] = "nopass"


Action = Union[Draw, EndEarly, Discard, Swap, Peek, Steal, Snap, Pass, NoPass]
ACTION_TYPES: dict[str, type] = {
    c.kind: c for c in (Draw, EndEarly, Discard, Swap, Peek, Steal, Snap, Pass, NoPass)
}


def _to_dict(self: Any) -> dict[str, Any]:
    return {"type": self.kind, **asdict(self)}


# every action class gets the same to_dict; mypy cannot see a method set on a class after the fact
for _cls in ACTION_TYPES.values():
    _cls.to_dict = _to_dict  # type: ignore[attr-defined]


def action_to_dict(action: Action) -> dict[str, Any]:
    """JSON-ready form, e.g. ``{"type": "swap", "player": 0, "pos": 4}``."""
    return _to_dict(action)


def action_from_dict(data: Any) -> Action:
    """Read the form :func:`action_to_dict` writes.

    Raises:
        ActionFormatError: unknown type, missing or extra fields, non-integer values.
    """
    if not isinstance(data, dict) or data.get("type") not in ACTION_TYPES:
        raise ActionFormatError(
            f"an action is an object with a 'type' of {', '.join(ACTION_TYPES)}; got {quoted(data)}"
        )
    cls = ACTION_TYPES[data["type"]]
    names = [f.name for f in fields(cls)]
    given = {k: v for k, v in data.items() if k != "type"}
    if set(given) != set(names):
        raise ActionFormatError(f"a {data['type']} action has the fields {names}; got {sorted(given)}")
    for k, v in given.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ActionFormatError(f"{k} must be a whole number >= 0, not {quoted(v)}")
    return cls(**given)


def format_seat(seat: int) -> str:
    """``0 -> 'P1'``."""
    return f"P{seat + 1}"


def parse_seat(text: str) -> int:
    """``'P2' -> 1`` (also ``'p2'``, ``'2'``).

    Raises:
        ActionFormatError: not a seat.
    """
    t = text.strip().upper().removeprefix("P")
    seat = whole_number(t, max_digits=2)
    if seat is None or seat < 1:
        raise ActionFormatError(f"{text[:20]!r} is not a player: write P1, P2 or P3")
    return seat - 1


def _parse_pos(text: str) -> int:
    pos = whole_number(text.strip(), max_digits=3)
    if pos is None or pos < 1:
        raise ActionFormatError(f"{text[:20]!r} is not a position: write a number 1, 2, 3, ...")
    return pos - 1


def _parse_place(text: str, player: int) -> tuple[int, int]:
    seat, colon, pos = text.partition(":")
    if not colon:
        return player, _parse_pos(seat)
    return parse_seat(seat), _parse_pos(pos)


def format_action(action: Action) -> str:
    """The text form of ``action`` without the actor (see the table above)."""
    if isinstance(action, Steal):
        return f"steal {action.pos + 1} {format_seat(action.target)}:{action.target_pos + 1}"
    if isinstance(action, Snap):
        return f"snap {format_seat(action.owner)}:{action.pos + 1}"
    if isinstance(action, (Swap, Peek, Pass)):
        return f"{action.kind} {action.pos + 1}"
    return action.kind


def parse_action(text: str, player: int) -> Action:
    """Read the text form for seat ``player``; ``snap 3`` means one's own card 3.

    Raises:
        ActionFormatError: unknown word, wrong number of arguments, bad position.
    """
    words = text.strip().lower().split()
    if not words:
        raise ActionFormatError("empty action")
    kind, args = words[0], words[1:]
    wanted = {
        "draw": 0,
        "end": 0,
        "discard": 0,
        "swap": 1,
        "peek": 1,
        "pass": 1,
        "nopass": 0,
        "snap": 1,
        "steal": 2,
    }
    if kind not in wanted:
        raise ActionFormatError(f"unknown action {quoted(words[0])}; use one of: {', '.join(wanted)}")
    if len(args) != wanted[kind]:
        raise ActionFormatError(f"{kind} takes {wanted[kind]} argument(s), got {len(args)}")
    if kind == "draw":
        return Draw(player)
    if kind == "end":
        return EndEarly(player)
    if kind == "discard":
        return Discard(player)
    if kind == "nopass":
        return NoPass(player)
    if kind in ("swap", "peek", "pass"):
        return ACTION_TYPES[kind](player, _parse_pos(args[0]))
    if kind == "snap":
        owner, pos = _parse_place(args[0], player)
        return Snap(player, owner, pos)
    target, target_pos = _parse_place(args[1], player)
    return Steal(player, _parse_pos(args[0]), target, target_pos)
