"""The equilibrium explorer: the equilibrium of any 2-player Goofspiel position.

Routes (an :class:`~fastapi.APIRouter` that :func:`cardtable.web.app.create_app` includes):

- ``GET /explorer?cards=5&ties=carry&ace=low&prizes=1,3,5&you=2,4,5&opp=1,2,3&pot=0&prize=5``
  -- the page (``static/explorer.html``); the position is the query, so a link shares it.
- ``GET /api/explorer?...`` (the same query) -- the position's equilibrium (:func:`explore_position`),
  computed through the server's :class:`~cardtable.web.coach.Analyses` (its pool of worker
  processes, one solve per position however many ask, its cache and per-address quota).

The query: ``cards`` (2..13), ``ties`` (``carry`` or ``discard``), ``ace`` (``low`` or ``high``),
``prizes`` (the prizes still to be played for, the one on the table included), ``you`` and
``opp`` (both hands, as many cards as ``prizes``), ``pot`` (points carried from tied rounds),
``prize`` (optional: the prize on the table, one of ``prizes``). Cards are ranks ``1..cards`` or
``A 2 .. 10 J Q K``, separated by commas; ranges ``2-5`` work. Prizes are turned up in a shuffled
order (the solver's tables are of that game).

Where the equilibrium comes from is the analysis's choice (:class:`cardtable.solver.analysis.RoundSources`,
the source of the ``nash`` bot): a solved table of the rules (exact), exact subgame solving when
the rest of the game needs at most :data:`cardtable.strategy.coach.DEFAULT_LIMIT` matrix games
(exact), the carry-over approximation (carry-over ties, no table; not exact). A position none of
them covers is refused (400, :class:`TooBig`), and so is an impossible one (400, the solver's reason).
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, Response

from cardtable.errors import CardtableError
from cardtable.goofspiel import Ruleset
from cardtable.strategy.coach import DEFAULT_LIMIT, SOURCE_WORDS, points_table

from .errors import error
from .paths import STATIC
from .pooled import pooled

router = APIRouter()


class TooBig(CardtableError, ValueError):
    """No source covers the position within the server's solving limit."""


def _cards(text: str, name: str, n: int) -> tuple[int, ...]:
    # lazy: the solver loads NumPy and Numba; `cardtable serve` starts without them
    from cardtable.solver.position import parse_cards

    try:
        return tuple(sorted(parse_cards(text, n)))
    except ValueError as exc:  # CardError is one
        raise ValueError(f"{name}: {exc}") from None


def parse_position(
    cards: int,
    ties: Literal["carry", "discard"],
    ace: str,
    prizes: str,
    you: str,
    opp: str,
    pot: int,
    prize: int | None,
) -> tuple:
    """The position of the query, checked: ``(cards, ties, high_ace, prizes, you, opp, pot, prize)``
    (card tuples sorted), picklable for a worker.

    Raises:
        ValueError: unreadable cards; ImpossiblePosition: a position no game reaches.
    """
    # lazy: the solver loads NumPy and Numba; `cardtable serve` starts without them
    from cardtable.solver.position import ImpossiblePosition, Position

    rs = Ruleset(cards=cards, tie_rule=ties, high_ace=ace == "high")
    p, a, b = _cards(prizes, "prizes", cards), _cards(you, "you", cards), _cards(opp, "opp", cards)
    if not p:
        raise ImpossiblePosition("no prize is left: give the prizes still to be played for")
    Position(frozenset(p), (frozenset(a), frozenset(b)), pot, 0).validate(rs)
    if prize is not None and prize not in p:
        raise ImpossiblePosition(f"the prize on the table ({prize}) must be one of the prizes left {list(p)}")
    return (cards, ties, ace == "high", p, a, b, pot, prize)


def explore_position(state: tuple) -> dict[str, Any]:
    """The equilibrium of a position (run in an analysis worker).

    ``state``: :func:`parse_position`'s tuple. "You" are player A (the rows of every matrix).

    Returns:
        ``{"rules", "position": {"prizes", "you", "opp", "pot"}, "prize", "value"`` (expected points
        still to come, yours minus the opponent's, before a prize is turned up), ``"source"``
        (``table``, ``subgame``, ``approximation``), ``"exact"``, ``"source_words"``,
        ``"your_cards"``, ``"opp_cards"`` (by bid strength), ``"rows"``: per prize left
        ``{"prize", "value"`` (the position's value with that prize turned up), ``"mix"``,
        ``"opp_mix"`` (``{card: probability}``), ``"bid_values"`` (per card of yours: your expected
        points if you bid it and the opponent plays the equilibrium, equilibrium play after),
        ``"opp_bid_values"`` (per card of theirs: your expected points if they bid it against your
        equilibrium)``}``. Dictionary keys are card ranks as strings.

    Raises:
        TooBig: no source covers the position; ImpossiblePosition, UnsupportedRuleset, TableFileError.
    """
    # lazy: the solver loads NumPy and Numba; the server starts without them (this runs in a worker)
    from cardtable.solver.analysis import RoundSources
    from cardtable.solver.position import Position  # lazy: as above

    cards, ties, high_ace, prizes, you, opp, pot, prize = state
    rs = Ruleset(cards=cards, tie_rule=ties, high_ace=high_ace)
    pos = Position(frozenset(prizes), (frozenset(you), frozenset(opp)), pot, 0)
    pos.validate(rs)
    solver, source = RoundSources(rs, points_table(rs), DEFAULT_LIMIT).find(pos)
    if solver is None:
        raise TooBig(
            f"this position is too big to solve on the server: {pos.k} cards in each hand, no solved table "
            f"for these rules, and exact subgame solving takes positions whose rest needs at most "
            f"{DEFAULT_LIMIT:,} matrix games (`cardtable solve -n {cards} --ties {ties}` builds the table); "
            "try a position with fewer cards left"
        )
    a_cards = sorted(you, key=rs.strength)
    b_cards = sorted(opp, key=rs.strength)
    rows = []
    for p in sorted(prizes, key=rs.prize_value):
        st = solver.round_strategy(pos, p)
        M = st.matrix
        x = [float(st.a.get(c, 0.0)) for c in a_cards]
        y = [float(st.b.get(c, 0.0)) for c in b_cards]
        rows.append(
            {
                "prize": p,
                "value": _clean(st.value),
                "mix": {str(c): _clean(v) for c, v in zip(a_cards, x, strict=True)},
                "opp_mix": {str(c): _clean(v) for c, v in zip(b_cards, y, strict=True)},
                "bid_values": {
                    str(c): _clean(sum(M[i, j] * y[j] for j in range(len(y)))) for i, c in enumerate(a_cards)
                },
                "opp_bid_values": {
                    str(c): _clean(sum(x[i] * M[i, j] for i in range(len(x)))) for j, c in enumerate(b_cards)
                },
            }
        )
    return {
        "rules": rs.describe(),
        "position": {"prizes": list(prizes), "you": list(you), "opp": list(opp), "pot": pot},
        "prize": prize,
        "value": _clean(solver.value(pos)),
        "source": source,
        "exact": source in ("table", "subgame"),
        "source_words": SOURCE_WORDS.get(source, source),
        "your_cards": a_cards,
        "opp_cards": b_cards,
        "rows": rows,
    }


def _clean(v: float) -> float:
    """Float noise below 1e-9 reads as 0."""
    v = float(v)
    return 0.0 if abs(v) < 1e-9 else v


@router.api_route("/explorer", methods=["GET", "HEAD"])
async def explorer_page() -> Response:
    return FileResponse(STATIC / "explorer.html")


@router.get("/api/explorer")
async def explorer_json(
    request: Request,
    cards: int = Query(ge=2, le=13),
    ties: Literal["carry", "discard"] = "carry",
    ace: Literal["low", "high"] = "low",
    prizes: str = Query(max_length=80),
    you: str = Query(max_length=80),
    opp: str = Query(max_length=80),
    pot: int = Query(default=0, ge=0, le=1000),
    prize: int | None = Query(default=None, ge=1, le=13),
) -> Response:
    try:
        state = parse_position(cards, ties, ace, prizes, you, opp, pot, prize)
    except ValueError as exc:  # unreadable cards, ImpossiblePosition, RulesetError
        return error(
            f"impossible position: {exc}" if type(exc).__name__ == "ImpossiblePosition" else str(exc)
        )
    cards_, ties_, high, p, a, b, pot_, prize_ = state
    # one solve per position, whichever prize on the table the link names
    key = (f"explore:{cards_}:{ties_}:{int(high)}:{p}:{a}:{b}:{pot_}", 0)
    return await pooled(request, key, state[:-1] + (None,), [], explore_position, {"prize": prize_})
