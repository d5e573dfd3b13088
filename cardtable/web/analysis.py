"""The coach's analysis of a room's finished game (:mod:`cardtable.web.coach`).

- ``GET /analysis/{room}?game=N`` -- the analysis page (``static/analysis.html``).
- ``GET /api/rooms/{room}/analysis?game=N`` -- the same as JSON
  (:func:`cardtable.web.coach.analyse_state` plus ``"game"``); only finished
  games are analysed, by default the latest. The solve goes through the server's
  :class:`~cardtable.web.coach.Analyses` (``app.state.analyses``), with its
  statuses (:func:`cardtable.web.pooled.pooled`).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response

from .coach import Finished
from .errors import cut_id, error
from .paths import STATIC
from .pooled import pooled
from .rooms import SlotError

router = APIRouter()


@router.api_route("/analysis/{room_id}", methods=["GET", "HEAD"])
async def analysis_page(room_id: str, request: Request) -> Response:
    if await request.app.state.hub.room(room_id) is None:
        return error(f"no room {cut_id(room_id)}", 404)
    return FileResponse(STATIC / "analysis.html")


@router.get("/api/rooms/{room_id}/analysis")
async def analysis_json(room_id: str, request: Request, game: int | None = None) -> Response:
    room = await request.app.state.hub.room(room_id)
    if room is None:
        return error(f"no room {cut_id(room_id)}", 404)
    if room.adapter.name != "goofspiel":
        return error("the analysis covers Goofspiel games")
    try:
        slot = room.finished_slot(game, "analyse", "analysis")
    except SlotError as exc:
        return error(str(exc), exc.status)
    finished = Finished(slot.state.game, bool(getattr(slot.state, "hints", False)))
    return await pooled(
        request, (room_id, slot.game_no), finished, [s.name for s in room.seats], what="analysis"
    )
