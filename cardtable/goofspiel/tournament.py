"""Goofspiel's side of tournaments: play one game safely, with the forfeit rule.

The generic tournament (:mod:`cardtable.platform.tournament`) knows no rules;
it calls :func:`parse_ruleset`, :func:`make_bot` and :func:`play_one` here.

Forfeit rule (docs/protocol.md, "Losing by rule"): a bot that crashes, hangs
past its time, sends garbage, floods, or makes an illegal bid or choice (a
built-in bot that raises counts the same) **loses the game at once**. The
game's finished rounds are discarded for scoring: the offender scores
``loss`` with point difference ``-T`` (``T`` = the ruleset's total prize
value, 91 in the standard game); with 2 players the opponent scores ``win``
with ``+T``; with 3-5 players every other seat scores ``draw`` with ``0``.
When several seats fail in the same round, the lowest seat is charged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from cardtable.platform.bot import Bot, load_bot
from cardtable.platform.protocol import BotFailure

from .errors import IllegalBid, IllegalChoice
from .protocol import GoofspielProtocolBot
from .ruleset import Ruleset
from .state import Game


@dataclass(frozen=True)
class Outcome:
    """One finished (or forfeited) game, per seat.

    Attributes:
        points: prize points per seat (for a forfeit: the points when it happened).
        outcomes: ``"win"``/``"draw"``/``"loss"`` per seat.
        point_difference: own points minus the best opponent's (forfeit: ``-T``/``+T``/``0``).
        forfeit: ``(seat, kind, detail)`` when a seat lost by rule, else ``None``.
        prize_deck: the prize order, top first (the same for both seatings of a deal).
    """

    points: tuple[int, ...]
    outcomes: tuple[str, ...]
    point_difference: tuple[int, ...]
    forfeit: tuple[int, str, str] | None
    prize_deck: tuple[int, ...]


def parse_ruleset(text: str | Ruleset) -> Ruleset:
    """A ruleset from a preset name, ``describe()`` text or a rules file, read as
    ``play --rules`` reads it (:meth:`Ruleset.from_spec`).

    Raises:
        RulesetError: invalid text or file; a mistyped preset name gets the list of
            presets (:meth:`Ruleset.parse`).
    """
    if isinstance(text, Ruleset):
        return text
    return Ruleset.from_spec(text)


def players(ruleset: Ruleset) -> int:
    return ruleset.players


def make_bot(kind: str, target: str, options: dict[str, Any], seed: int | None) -> Bot:
    """A built-in bot (``kind="builtin"``, ``target`` its registry name) or a protocol
    bot (``kind="program"``, ``target`` its command line; option ``time_ms``).

    Raises:
        UnknownBotError, ValueError, TypeError: bad names, commands or options.
    """
    if kind == "program":
        opts = dict(options)
        time_ms = opts.pop("time_ms", 1000)
        return GoofspielProtocolBot(target, time_ms=time_ms, options=opts)
    return load_bot("goofspiel", target, seed=seed, **options)


def start_bot(bot: Bot, handshake_ms: int) -> None:
    """Start a protocol bot's program and complete the handshake within
    ``handshake_ms`` milliseconds (no-op for built-in bots); used to try every
    program once before a tournament (docs/research.md, "Tournaments").

    Raises:
        ValueError: ``"failed the handshake: KIND: DETAIL"`` (kinds as in
            :class:`~cardtable.platform.protocol.BotFailure`: crash, timeout, garbage,
            flood, handshake).
    """
    if not isinstance(bot, GoofspielProtocolBot):
        return
    bot.handshake_ms = handshake_ms
    try:
        bot.ensure_started()
    except BotFailure as exc:
        raise ValueError(f"failed the handshake: {exc.kind}: {exc.detail}") from None


def forfeit_outcome(ruleset: Ruleset, game: Game, seat: int, kind: str, detail: str) -> Outcome:
    """The result of a game lost by rule by ``seat`` (see the module docstring)."""
    total = ruleset.total_prize_value
    n = ruleset.players
    outcomes, diffs = [], []
    for s in range(n):
        if s == seat:
            outcomes.append("loss")
            diffs.append(-total)
        elif n == 2:
            outcomes.append("win")
            diffs.append(total)
        else:
            outcomes.append("draw")
            diffs.append(0)
    return Outcome(game.points, tuple(outcomes), tuple(diffs), (seat, kind, detail), game.initial_deck)


def play_one(ruleset: Ruleset, bots: Sequence[Bot], seed: int | str) -> Outcome:
    """Play one game; any bot failure forfeits it (never raises for a bot's fault).

    Args:
        ruleset: the variant; ``bots``: one per seat; ``seed``: orders the prizes
            (:func:`~cardtable.goofspiel.state.prize_order_for`), so equal seeds give
            equal prize orders whoever sits where.
    """
    game = Game(ruleset, seed=seed)
    failure = _start_bots(ruleset, bots)
    while failure is None and not game.is_over:
        failure = _bid_round(game, bots) if game.phase == "bid" else _choose_turn(game, bots)
    if failure is not None:
        out = forfeit_outcome(ruleset, game, *failure)
    else:
        r = game.result()
        out = Outcome(r.points, r.outcomes, r.point_difference, None, game.initial_deck)
    for seat, bot in enumerate(bots):
        if isinstance(bot, GoofspielProtocolBot):
            bot.end_game(game, out.outcomes[seat], (failure[0], failure[1]) if failure else None)
    return out


#: A bot's failure: (seat, kind, detail), as :func:`forfeit_outcome` takes it.
Failure = tuple[int, str, str]


def _start_bots(ruleset: Ruleset, bots: Sequence[Bot]) -> Failure | None:
    """Start the game for every bot; the first failure, if any."""
    failure: Failure | None = None
    for seat, bot in enumerate(bots):
        try:
            bot.new_game(ruleset, seat)
        except Exception as exc:  # a built-in bot's bug: it loses by rule too
            failure = failure or (seat, "crash", f"new_game raised {exc!r}")
    return failure


def _bid_round(game: Game, bots: Sequence[Bot]) -> Failure | None:
    """Ask every bot for its bid and play them; the first failure (every bot is asked all the same)."""
    failure: Failure | None = None
    bids: list[Any] = []
    for seat, bot in enumerate(bots):
        try:
            bids.append(bot.act(game.view(seat)))
        except BotFailure as exc:
            failure = failure or (seat, exc.kind, exc.detail)
            bids.append(None)
        except Exception as exc:  # a built-in bot's bug: it loses by rule, the tournament goes on
            failure = failure or (seat, "crash", f"act raised {exc!r}")
            bids.append(None)
    if failure is not None:
        return failure
    try:
        game.play(bids)
    except IllegalBid as exc:
        return (exc.player if exc.player is not None else 0, "illegal", str(exc))
    return None


def _choose_turn(game: Game, bots: Sequence[Bot]) -> Failure | None:
    """Ask the chooser for its prize and take it; its failure, if any."""
    chooser = game.chooser
    assert chooser is not None  # the choose phase
    try:
        game.choose(chooser, bots[chooser].act(game.view(chooser)))
    except BotFailure as exc:
        return (chooser, exc.kind, exc.detail)
    except (IllegalChoice, ValueError) as exc:
        return (chooser, "illegal", str(exc))
    except Exception as exc:  # as for a bid: a bot's bug loses the game by rule
        return (chooser, "crash", f"act raised {exc!r}")
    return None


def close_bot(bot: Bot) -> None:
    """Stop a protocol bot's program (no-op for built-in bots)."""
    if isinstance(bot, GoofspielProtocolBot):
        bot.close()
