"""The coach in the browser: the analysis of a finished Goofspiel game, and hints.

Routes (added to the app by :func:`register`):

- ``GET /analysis/{room}?game=N`` -- the analysis page (``static/analysis.html``):
  per round the equilibrium strategy of each player, both bids, the expected
  points each gave up, and a drawn chart of the expected point difference
  (:mod:`cardtable.goofspiel.coach`; the numbers ``cardtable analyze`` prints for
  the downloaded record).
- ``GET /api/rooms/{room}/analysis?game=N`` -- the same as JSON
  (:func:`cardtable.goofspiel.coach.analysis` plus ``"game"``, ``"hints"``).
  Only finished games are analysed (a game in progress would tell a player the
  equilibrium mid-game); without ``game``, the latest finished game.

Errors (JSON ``{"error": text}``): 404 no such room or game, 409 the game is
not finished, 400 a ruleset the solver does not cover (3+ players, multi-card
bids, open prizes) or a game that is not Goofspiel.

The analysis is solved in a worker thread (a table lookup per round, one
exact subgame solve of about a second, and in carry-over games without their
table the carry-over approximation of the ``nash`` bot for the early rounds,
labelled ``"approximation"``; :mod:`cardtable.solver.analysis`) and kept for the
most recent :data:`CACHE_SIZE` games.

Hints (settings key ``"hints": true``, a room with one person and bots only;
:mod:`cardtable.web.games.goofspiel`) use :func:`hint_for`.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse, JSONResponse, Response

CACHE_SIZE = 64


def register(app: FastAPI, hub: Any, static_dir) -> None:
    """Add the analysis page and its JSON route to ``app`` (rooms come from ``hub``)."""
    cache: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()

    @app.get("/analysis/{room_id}")
    async def analysis_page(room_id: str) -> Response:
        if hub.room(room_id) is None:
            return JSONResponse({"error": f"no room {room_id!r}"}, status_code=404)
        return FileResponse(static_dir / "analysis.html")

    @app.get("/api/rooms/{room_id}/analysis")
    async def analysis_json(room_id: str, game: int | None = None) -> Response:
        room = hub.room(room_id)
        if room is None:
            return JSONResponse({"error": f"no room {room_id!r}"}, status_code=404)
        if room.adapter.name != "goofspiel":
            return JSONResponse({"error": "the analysis covers Goofspiel games"}, status_code=400)
        finished = [s for s in room.slots if room.adapter.is_over(s.state)]
        if game is None:
            if not finished:
                return JSONResponse({"error": "no finished game to analyse yet"}, status_code=409)
            slot = finished[-1]
        else:
            slots = [s for s in room.slots if s.game_no == game]
            if not slots:
                return JSONResponse({"error": f"no game {game}"}, status_code=404)
            slot = slots[0]
            if slot not in finished:
                return JSONResponse({"error": f"game {game} is not finished: the analysis is shown after the game"},
                                    status_code=409)
        key = (room_id, slot.game_no)
        data = cache.get(key)
        if data is None:
            names = [s.name for s in room.seats]
            try:
                data = await asyncio.to_thread(analyse_state, slot.state, names)
            except ValueError as exc:  # UnsupportedRuleset, TableFileError
                return JSONResponse({"error": str(exc)}, status_code=400)
            data["game"] = slot.game_no
            cache[key] = data
            while len(cache) > CACHE_SIZE:
                cache.popitem(last=False)
        return JSONResponse(data)


def analyse_state(state: Any, names: list[str]) -> dict[str, Any]:
    """The coach's analysis of a web game state (:class:`~cardtable.web.games.goofspiel.GoofspielState`).

    Raises:
        UnsupportedRuleset: a ruleset outside the solver; TableFileError: a damaged table.
    """
    from cardtable.goofspiel.coach import analysis, points_table

    game = state.game
    data = analysis(game, names, points_table(game.ruleset))
    data["hints"] = bool(getattr(state, "hints", False))
    return data


def hint_for(state: Any, seat: int) -> dict[str, Any]:
    """The equilibrium hint for ``seat`` in the current bid round, cached per round.

    Returns ``{"round", "strategy": {rank: probability}, "source", "exact"}``
    (:func:`cardtable.goofspiel.coach.hint`).
    """
    from cardtable.goofspiel.bots.nash import NashBot
    from cardtable.goofspiel.coach import hint

    game = state.game
    key = (game.round, seat)
    cached = state.hint_cache.get(key)
    if cached is None:
        bot = state.hint_bots.get(seat)
        if bot is None:
            bot = state.hint_bots[seat] = NashBot(seed=0)
            bot.new_game(game.ruleset, seat)
        cached = state.hint_cache[key] = hint(bot, game.view(seat))
    return cached
