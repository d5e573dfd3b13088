"""The HTTP API of rooms: games, bots, the lobby, creation, seats and records.

- ``GET /api/games`` -- every game's creation options (variants, bots, seats).
- ``POST /api/games/{game}/bots`` -- which bots can play the posted settings.
- ``GET /api/lobby`` -- listed rooms with a free seat.
- ``POST /api/rooms`` -- create a room (:meth:`Hub.create_room <cardtable.web.hub.Hub.create_room>`).
- ``POST /api/rooms/{room}/join`` -- take a free seat of a listed room (a fresh token).
- ``POST /api/rooms/{room}/seats/{seat}/invite`` -- the owner re-invites an unclaimed seat.
- ``GET /api/rooms/{room}/record?match=M`` or ``?game=N`` -- the record text of finished games.

Every error answer is ``{"error": text}``.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from .errors import CredentialError, QuotaError, cut_id, error
from .games import ADAPTERS, SettingsError, get_adapter
from .hub import Hub
from .protocol import seat_label
from .rooms import GameSlot, Room
from .schema import CREATE_ROOM, INVITE, SETTINGS_BODY, SchemaError, validate_json

router = APIRouter()


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else ""


def quota(exc: QuotaError) -> JSONResponse:
    """429 with ``Retry-After`` (whole seconds, at least 1)."""
    return JSONResponse(
        {"error": str(exc)}, status_code=429, headers={"retry-after": str(max(1, round(exc.retry_after)))}
    )


def seat_words(exc: SchemaError) -> str:
    """``seats.1.name: ...`` -> ``seat 1 (the second seat): name: ...`` (docs/web.md, "Seat numbers")."""
    return re.sub(r"seats\.(\d)\.", lambda m: f"{seat_label(int(m.group(1)))}: ", str(exc))


@router.get("/api/games")
async def games() -> dict[str, Any]:
    return {name: get_adapter(name).options() for name in ADAPTERS}


@router.post("/api/games/{game}/bots")
async def playable_bots(game: str, request: Request) -> Response:
    # body: the creation form's settings; answers which bots can play them (each bot is started:
    # the same settings again are answered from the lobby's cache, new ones count per address)
    try:
        settings = validate_json(SETTINGS_BODY, await request.body())
        return JSONResponse(await _hub(request).playable_bots(game, settings, _address(request)))
    except SchemaError as exc:
        return error(f"bad request: {exc}")
    except SettingsError as exc:
        return error(exc)
    except QuotaError as exc:
        return quota(exc)


@router.get("/api/lobby")
async def lobby(request: Request) -> list[dict[str, Any]]:
    return await _hub(request).lobby.listing()


@router.post("/api/rooms")
async def create_room(request: Request) -> Response:
    try:
        body = validate_json(CREATE_ROOM, await request.body())
        return JSONResponse(await _hub(request).create_room(body, _address(request)))
    except SchemaError as exc:
        return error(f"bad request: {seat_words(exc)}")
    except SettingsError as exc:
        return error(exc)
    except QuotaError as exc:
        return quota(exc)


@router.post("/api/rooms/{room_id}/join")
async def join_room(room_id: str, request: Request) -> Response:
    if await request.body():  # the lobby's claim takes the next free seat; a name comes with `join`
        return error("bad request: a lobby claim takes no body (the next free seat is claimed)")
    hub = _hub(request)
    room = await hub.room(room_id)
    if room is None:
        return error("no such room", 404)
    if not room.row.listed:
        return error("that room is not listed in the lobby; ask its creator for an invite link", 409)
    try:
        seat = await hub.seats.claim(room_id, _address(request))
    except QuotaError as exc:
        return quota(exc)
    if seat is None:
        return error("no free seat in that room", 409)
    return JSONResponse(seat)


@router.post("/api/rooms/{room_id}/seats/{seat}/invite")
async def reinvite(room_id: str, seat: int, request: Request) -> Response:
    try:
        body = validate_json(INVITE, await request.body())
        return JSONResponse(await _hub(request).seats.reinvite(room_id, seat, body.owner))
    except SchemaError as exc:
        return error(f"bad request: {exc}")
    except KeyError:
        return error("no such room or seat", 404)
    except CredentialError as exc:
        return error(exc, 403 if exc.code == "forbidden" else 409)


@router.get("/api/rooms/{room_id}/record")
async def record(
    room_id: str, request: Request, match: int | None = None, game: int | None = None
) -> Response:
    room = await _hub(request).room(room_id)
    if room is None:
        return error(f"no room {cut_id(room_id)}", 404)
    if game is not None and not any(s.game_no == game for s in room.slots):
        return error(f"no game {game}", 404)
    if match is not None and not any(s.match_no == match for s in room.slots):
        return error(f"no match {match}", 404)
    text = record_text(room, match=match, game=game)
    if text is None:
        return error("no finished game to download yet", 409)
    which = f"game-{game}" if game else f"match-{match or room.current.match_no}"
    name = f"{room.adapter.name}-{room.id}-{which}"
    return PlainTextResponse(
        text,
        media_type="text/plain; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}{room.adapter.record_suffix}"'},
    )


def record_text(room: Room, match: int | None = None, game: int | None = None) -> str | None:
    """The record of a room's finished games: one game (``game``) or one match
    (``match``; default the current one). ``None`` when none is finished."""
    if game is not None:
        slots = [s for s in room.slots if s.game_no == game]
        m = slots[0].match_no if slots else None
    else:
        m = match if match is not None else room.current.match_no
        slots = [s for s in room.slots if s.match_no == m]
    finished = [s for s in slots if room.adapter.is_over(s.state)]
    if not finished:
        return None
    tags = _match_tags(room, m, finished, whole_match=game is None)
    return room.adapter.record_text([s.state for s in finished], [s.name for s in room.seats], tags)


def _match_tags(
    room: Room, match_no: int | None, finished: list[GameSlot], whole_match: bool
) -> list[list[tuple[str, str]]]:
    """Each finished game's extra record tags: the room, and for a match of more than one game
    its format, the game's number in the match and (on the match's last game) the result."""
    all_in_match = [s for s in room.slots if s.match_no == match_no]
    full = room.match(match_no)
    tags = []
    for slot in finished:
        t = [("Event", f"cardtable web room {room.id}")]
        if str(room.format) != "total 1":
            t.append(("Match", str(room.format)))
            t.append(("MatchGame", str(all_in_match.index(slot) + 1)))
            if full.is_over and slot is all_in_match[-1] and whole_match:
                t.append(("MatchResult", " ".join(full.result())))
        tags.append(t)
    return tags
