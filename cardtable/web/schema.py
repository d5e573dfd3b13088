"""The one schema layer of the web server: Pydantic models for every HTTP body and
every WebSocket message (docs/web.md, "Limits").

Every field is typed strictly (no ``"1"`` for ``1``, no ``true`` for ``1``, no
``1.0`` for ``1``), every string and list is bounded, and unknown fields are
refused. JSON is parsed by Pydantic's own parser (nesting beyond 200 levels and lone
surrogates are malformed JSON; a number outside its field's range is a refused
field); only text it has accepted reaches ``json.loads``, to refuse a key given
twice in one object. The games' settings and actions are models in their
adapters (:mod:`cardtable.web.games`), built on :class:`Strict`.

>>> parse_client_message(b'{"type": "ping", "ref": 3}')
Ping(type='ping', ref=3)
>>> parse_client_message(b'{"type": "act"}')
Traceback (most recent call last):
...
cardtable.web.schema.SchemaError: act.action: Field required
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from cardtable.errors import CardtableError
from cardtable.platform.records import check_repeated_keys

#: Room ids, seat tokens, claim codes and owner keys: URL-safe base64 text.
ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"

RoomId = Annotated[str, StringConstraints(pattern=ID_PATTERN)]
Credential = Annotated[str, StringConstraints(pattern=ID_PATTERN)]
#: Longest ``ref`` string echoed back, in characters.
MAX_REF_CHARS = 64
#: ``ref`` integers must lie within +-MAX_REF_INT (exact in JavaScript numbers).
MAX_REF_INT = 2**53 - 1
Ref = Union[
    Annotated[int, Field(ge=-MAX_REF_INT, le=MAX_REF_INT)],
    Annotated[str, StringConstraints(max_length=MAX_REF_CHARS)],
    None,
]
#: A seat number (0-based) as clients write it.
SeatNo = Annotated[int, Field(ge=0, le=7)]


class Strict(BaseModel):
    """Base of every model: strict types, unknown fields refused, immutable."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class SchemaError(CardtableError, ValueError):
    """Input the schema refuses.

    Attributes:
        kind: ``"json"`` (not JSON, or JSON nested too deeply) or ``"fields"``.
        locations: the dotted location of each problem (``"settings.cards"``).
    """

    def __init__(self, message: str, kind: str = "fields", locations: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.kind = kind
        self.locations = locations


_UNION_MEMBER = re.compile(
    r"^(constrained-\w+|function-.*|int|str|bool|float|none|list\[.*\]|dict\[.*\]|[A-Z]\w*)$"
)


def _where(loc: tuple[Any, ...]) -> str:
    """``("seats", 1, "name")`` -> ``"seats.1.name"``, without Pydantic's union member labels."""
    return ".".join(str(x) for x in loc if not (isinstance(x, str) and _UNION_MEMBER.match(x)))


def schema_error(exc: ValidationError, most: int = 3) -> SchemaError:
    """A :class:`SchemaError` naming at most ``most`` problems (input values are never quoted,
    so a huge or hostile value is not echoed back)."""
    errors = exc.errors(include_url=False, include_input=False, include_context=False)
    if any(e["type"] == "json_invalid" for e in errors):
        msg = next(e["msg"] for e in errors if e["type"] == "json_invalid")
        detail = msg.removeprefix("Invalid JSON: ")
        return SchemaError(f"malformed JSON: {detail}"[:200], "json")
    parts, locs = [], []
    for e in errors[:most]:
        where = _where(e["loc"])
        locs.append(where)
        parts.append(f"{where}: {e['msg']}" if where else e["msg"])
    more = f" (and {len(errors) - most} more)" if len(errors) > most else ""
    return SchemaError("; ".join(parts)[:400] + more, "fields", tuple(locs))


def validate_json(adapter: TypeAdapter, raw: str | bytes) -> Any:
    """Parse and validate JSON text in one step.

    Raises:
        SchemaError: malformed JSON (``kind="json"``) or a refused field.
    """
    try:
        value = adapter.validate_json(raw)
    except ValidationError as exc:
        raise schema_error(exc) from None
    # a key twice in one object: the parser kept the last one (the records' own check)
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    check_repeated_keys(text, lambda message, _line: SchemaError(f"malformed JSON: {message}", "json"))
    return value


def validate(adapter: TypeAdapter, data: Any) -> Any:
    """Validate already-parsed JSON data (a nested part of a message).

    Raises:
        SchemaError: a refused field.
    """
    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        raise schema_error(exc) from None


# -- WebSocket messages (client to server; docs/web.md, "The message protocol") ---------


class Join(Strict):
    """Join a room: with ``token`` (a seat's credential), with ``claim`` (an invite's
    one-time claim code, exchanged for a fresh token) or with neither (watch)."""

    type: Literal["join"]
    room: Annotated[str, StringConstraints(max_length=64)]
    token: Credential | None = None
    claim: Credential | None = None
    ref: Ref = None


class Act(Strict):
    """One game action; ``action`` is checked by the game's adapter (its own model)."""

    type: Literal["act"]
    action: Any
    seat: SeatNo | None = None
    ref: Ref = None


class Next(Strict):
    """Start the next game of the match, or a rematch."""

    type: Literal["next"]
    ref: Ref = None


class Ping(Strict):
    """Answered by ``pong``."""

    type: Literal["ping"]
    ref: Ref = None


ClientMessage = Annotated[Union[Join, Act, Next, Ping], Field(discriminator="type")]
CLIENT_TYPES = ("join", "act", "next", "ping")
_CLIENT_MESSAGE: TypeAdapter = TypeAdapter(ClientMessage)


class _RefOnly(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    ref: Ref = None


_REF_ONLY = TypeAdapter(_RefOnly)


def parse_client_message(raw: str | bytes) -> Join | Act | Next | Ping:
    """Parse one WebSocket message (size is checked by the caller first).

    Raises:
        SchemaError: malformed JSON, an unknown ``type``, a missing, extra or badly
            typed field.
    """
    return validate_json(_CLIENT_MESSAGE, raw)


def message_ref(raw: str | bytes) -> Any:
    """The valid ``ref`` of a refused message (to echo in the error), else ``None``."""
    try:
        return _REF_ONLY.validate_json(raw).ref
    except ValidationError:
        return None


# -- HTTP bodies -------------------------------------------------------------------------

#: The longest player name, bot name or rules text accepted before the finer checks.
Name = Annotated[str, StringConstraints(max_length=40)]
#: Most games in a match the creation form offers.
MAX_MATCH_GAMES = 99
#: Longest round timer, seconds.
MAX_TIMER = 3600


class SeatSpec(Strict):
    """One seat of the creation form: a bot (its name) or a person (``bot`` null)."""

    bot: Name | None = None
    name: Name | None = None


class MatchSpec(Strict):
    """A match format as the creation form sends it."""

    kind: Literal["total", "best-of"] = "total"
    games: Annotated[int, Field(ge=1, le=MAX_MATCH_GAMES)] = 1
    tiebreak: Literal["extra-game", "total-points"] = "extra-game"


class CreateRoom(Strict):
    """``POST /api/rooms``. ``settings`` is validated by the game's own settings model.

    ``listed``: offer the room's free seats in the lobby. Every person's seat has an invite
    link, so a room is listed only when its creator asks for it (``true``): listed, a
    stranger pressing **Join** can take a seat the creator meant for an invited friend."""

    game: Annotated[str, StringConstraints(max_length=40)] = "goofspiel"
    settings: dict[Annotated[str, StringConstraints(max_length=40)], Any] | None = Field(
        default=None, max_length=16
    )
    seats: list[SeatSpec] | None = Field(default=None, max_length=8)
    match: MatchSpec | Annotated[str, StringConstraints(max_length=40)] = "total 1"
    timer: Annotated[int, Field(ge=0, le=MAX_TIMER)] = 0
    listed: bool = False


CREATE_ROOM: TypeAdapter = TypeAdapter(CreateRoom)
#: ``POST /api/games/G/bots``: the creation form's settings.
SETTINGS_BODY: TypeAdapter = TypeAdapter(
    Annotated[dict[Annotated[str, StringConstraints(max_length=40)], Any], Field(max_length=16)] | None
)


class Invite(Strict):
    """``POST /api/rooms/R/seats/S/invite``: the room's owner key from creation."""

    owner: Credential


INVITE: TypeAdapter = TypeAdapter(Invite)
