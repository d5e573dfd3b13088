"""The static front end's pages: ``GET /`` (the lobby and the creation form) and
``GET /play/{room}`` (the room's play page, the adapter's ``page``).

An invite's claim code (``#claim=...``) or a seat token (``#token=...``) travels
in the URL fragment, which browsers never send to the server, so credentials do
not appear in logs. The pages' scripts and styles are under ``/static``.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response

from .errors import cut_id, error
from .paths import STATIC

router = APIRouter()


@router.api_route("/", methods=["GET", "HEAD"])  # HEAD: monitors and link checkers
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@router.api_route("/play/{room_id}", methods=["GET", "HEAD"])
async def play_page(room_id: str, request: Request) -> Response:
    room = await request.app.state.hub.room(room_id)
    if room is None:
        return error(f"no room {cut_id(room_id)}", 404)
    return FileResponse(STATIC / room.adapter.page)
