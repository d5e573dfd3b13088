"""The replay board: step through a Goofspiel record round by round, its analysis beside it.

Routes (an :class:`~fastapi.APIRouter` that :func:`cardtable.web.app.create_app` includes):

- ``GET /replay`` -- the page (``static/replay.html``): paste or upload a record, or
  ``/replay?room=R&game=N`` for a room's finished game; ``#round=5`` opens round 5.
- ``POST /api/replay`` -- body ``{"record": TEXT}`` (the text notation or JSON of
  :mod:`cardtable.goofspiel.record`, at most :data:`MAX_RECORD` characters): the record is
  read and re-played with the project's reader (:func:`~cardtable.goofspiel.record.load_records`,
  :func:`~cardtable.goofspiel.record.replay`), and answered as ``{"games": [GAME, ...]}``
  (:func:`game_json`). A malformed or inconsistent record: 400 with the reader's message.
- ``POST /api/replay/analysis`` -- body ``{"record": TEXT, "game": N}``: the coach's analysis of
  game N of the record (the JSON of ``GET /api/rooms/R/analysis``), solved through the
  server's :class:`~cardtable.web.coach.Analyses` (pool, single flight, cache, quota).
- ``GET /api/replay/rooms/{room}?game=N`` -- a room's finished game N (default: the latest
  finished one) as one GAME. A game in progress is never served (409): its hands are hidden.
  Its analysis is ``GET /api/rooms/R/analysis?game=N``.

Golf records are refused with a message: the board steps through Goofspiel records only.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import Field, TypeAdapter

from cardtable.goofspiel.record import RecordError, load_records, replay, write_game
from cardtable.goofspiel.state import Game
from cardtable.strategy.coach import analysable

from .coach import Finished
from .errors import cut_id, error
from .paths import STATIC
from .pooled import pooled
from .rooms import SlotError
from .schema import SchemaError, Strict, validate_json

#: Most characters of a posted record (the body limit, ``max_body_bytes``, also applies).
MAX_RECORD = 16000

router = APIRouter()


class ReplayBody(Strict):
    record: str = Field(min_length=1, max_length=MAX_RECORD)


class ReplayAnalysisBody(Strict):
    record: str = Field(min_length=1, max_length=MAX_RECORD)
    game: int = Field(default=1, ge=1, le=10_000)


REPLAY = TypeAdapter(ReplayBody)
REPLAY_ANALYSIS = TypeAdapter(ReplayAnalysisBody)

_GOLF = re.compile(r'^\s*(\[Game\s+"golf"\]|\{.*"game"\s*:\s*"golf")', re.S | re.I)
GOLF_REFUSAL = (
    "this is a Golf record: the replay board steps through Goofspiel records only "
    "(`cardtable replay FILE` checks a Golf record in the terminal)"
)


def explorable(ruleset) -> bool:
    """True when the equilibrium explorer takes this ruleset's positions: 2 players, single-card
    bids, one prize at a time, shuffled prizes (the rules the explorer's form offers)."""
    return (
        ruleset.players == 2
        and ruleset.cards_per_bid == 1
        and ruleset.open_prizes == 1
        and not ruleset.fixed_order
    )


def explore_query(ruleset, view) -> str:
    """The explorer's query for the position of a bid round (seat 0 is "you")."""
    # lazy: the solver loads NumPy and Numba; `cardtable serve` starts without them
    from cardtable.solver.position import position_from_view

    pos, prize = position_from_view(view)
    cards = lambda s: ",".join(str(c) for c in sorted(s))  # noqa: E731
    return (
        f"cards={ruleset.cards}&ties={ruleset.tie_rule}&ace={'high' if ruleset.high_ace else 'low'}"
        f"&prizes={cards(pos.prizes)}&you={cards(pos.hands[0])}&opp={cards(pos.hands[1])}"
        f"&pot={pos.pot}&prize={prize}"
    )


def game_json(game: Game, players: list[str], number: int) -> dict[str, Any]:
    """A played game as the replay board shows it, round by round.

    Returns:
        ``{"game", "players", "rules", "cards", "over", "scores", "result", "analysable",
        "rounds": [...]}``; each round: ``{"number", "prizes"`` (face up, played for),
        ``"turned"`` (turned up this round), ``"carried_in"`` (points carried into the round),
        ``"stake"`` (points played for), ``"bids"`` (per seat, a list of ranks), ``"winner"``
        (seat or ``None``), ``"taken"`` (``[seat, prize]`` pairs), ``"carried"``, ``"discarded"``,
        ``"hands"`` and ``"face_down"`` (before the round), ``"points_before"``, ``"points_after"``,
        ``"explore"`` (the explorer's query for that position, or ``None``)}``. Cards are face ranks.
    """
    rs = game.ruleset
    step = Game(rs, prize_deck=game.initial_deck)
    rounds = []
    carried: tuple[int, ...] = ()
    for r in game.history:
        rounds.append(_round_json(step, r, carried))
        carried = r.carried
    over = game.is_over
    res = game.result() if over else None
    return {
        "game": number,
        "players": list(players),
        "rules": rs.describe(),
        "cards": rs.cards,
        "over": over,
        "scores": list(res.points) if res else list(game.points),
        "result": list(res.outcomes) if res else None,
        "analysable": analysable(rs),
        "rounds": rounds,
    }


def _round_json(step: Game, r: Any, carried: tuple[int, ...]) -> dict[str, Any]:
    """Round ``r`` (a :class:`~cardtable.goofspiel.state.RoundResult`) as :func:`game_json` shows it;
    plays it on ``step``, the game replayed up to it (``carried``: the prizes carried into it)."""
    rs = step.ruleset
    view = step.view(0)
    before = {
        "hands": [sorted(h) for h in view.hands],
        "face_down": sorted(view.remaining_prizes),
        "points_before": list(view.points),
    }
    explore = explore_query(rs, view) if explorable(rs) and view.phase == "bid" else None
    step.play(list(r.bids))
    for seat, prize in r.taken:
        if step.phase == "choose":  # a lone last prize is taken automatically
            step.choose(seat, prize)
    return {
        "number": r.number,
        "prizes": list(r.prizes),
        "turned": [p for p in r.prizes if p not in carried],
        "carried_in": sum(rs.prize_value(p) for p in carried),
        "stake": sum(rs.prize_value(p) for p in r.prizes),
        "bids": [list(b) for b in r.bids],
        "winner": r.winner,
        "taken": [list(t) for t in r.taken],
        "carried": list(r.carried),
        "discarded": list(r.discarded),
        **before,
        "points_after": list(step.points),
        "explore": explore,
    }


def read_record(text: str) -> list[tuple[Any, Game]]:
    """``(GameRecord, re-played Game)`` per game of a record text.

    Raises:
        RecordError: a Golf record, or the reader's first problem (with its line).
    """
    if _GOLF.match(text):
        raise RecordError(GOLF_REFUSAL)
    records = load_records(text)
    if not records:
        raise RecordError("the record is empty: no game found")
    return [(rec, replay(rec)) for rec in records]


def _body(adapter: TypeAdapter, raw: bytes) -> Any:
    return validate_json(adapter, raw)


@router.api_route("/replay", methods=["GET", "HEAD"])
async def replay_page() -> Response:
    return FileResponse(STATIC / "replay.html")


@router.post("/api/replay")
async def replay_record(request: Request) -> Response:
    try:
        body = _body(REPLAY, await request.body())
        games = read_record(body.record)
    except SchemaError as exc:
        return error(f"bad request: {exc}")
    except RecordError as exc:
        return error(f"not a valid record: {exc}")
    return JSONResponse(
        {"games": [game_json(g, list(rec.players), k) for k, (rec, g) in enumerate(games, 1)]}
    )


@router.post("/api/replay/analysis")
async def replay_analysis(request: Request) -> Response:
    try:
        body = _body(REPLAY_ANALYSIS, await request.body())
        games = read_record(body.record)
    except SchemaError as exc:
        return error(f"bad request: {exc}")
    except RecordError as exc:
        return error(f"not a valid record: {exc}")
    if body.game > len(games):
        return error(f"no game {body.game}: the record holds {len(games)}", 404)
    rec, game = games[body.game - 1]
    if not analysable(game.ruleset):
        return error(
            "the analysis covers 2-player games with single-card bids and one prize at a time "
            f"(this game: {game.ruleset.describe()})"
        )
    # the same game pasted again (whatever its spacing or tags' order) is the same solve
    digest = hashlib.sha256(write_game(rec).encode()).hexdigest()
    return await pooled(request, (f"record:{digest}", body.game), Finished(game, False), list(rec.players))


@router.get("/api/replay/rooms/{room_id}")
async def replay_room(room_id: str, request: Request, game: int | None = None) -> Response:
    hub = request.app.state.hub
    room = await hub.room(room_id)
    if room is None:
        return error(f"no room {cut_id(room_id)}", 404)
    if room.adapter.name != "goofspiel":
        return error("the replay board steps through Goofspiel games only")
    try:
        slot = room.finished_slot(game, "replay", "replay")
    except SlotError as exc:
        return error(str(exc), exc.status)
    data = game_json(slot.state.game, [s.name for s in room.seats], slot.game_no)
    data["room"] = room.id
    data["finished_games"] = room.finished_games()
    return JSONResponse(data)
