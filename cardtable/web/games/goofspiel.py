"""The Goofspiel adapter: maps :mod:`cardtable.goofspiel` to the web server core.

Bids are simultaneous (docs/rules.md, A round: bids are laid face
down and turned up together). The engine resolves a round only when it
gets every bid together (:meth:`Game.play`), so the adapter keeps the bids
received so far in :attr:`GoofspielState.pending`, outside the engine, and
shows a viewer only *whether* each other seat has bid, never what. Hands in
the engine keep a pending card until the reveal, so nothing about a pending
bid leaks through the public remaining cards either.

Actions (JSON):

- ``{"bid": [13]}`` -- a bid: always a list of face ranks (``[7, 9]`` for
  two-card bids); a bare ``13`` is refused like ``["K"]``;
- ``{"choose": 12}`` -- open prizes: take one prize from the display.

Round timer fallback: a seat that has not bid when the timer runs out bids its
weakest legal bid (the lowest card); a chooser takes the least valuable prize
of the display.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Annotated, Any, Callable, Hashable, Literal, Sequence, Union

from pydantic import Field, StringConstraints, TypeAdapter

from cardtable.goofspiel import PLAYER_SUITS, PRIZE_SUIT, Game, Ruleset, RulesetError, format_card
from cardtable.goofspiel.errors import GoofspielError
from cardtable.goofspiel.record import (
    RecordError,
    record_from_game,
    replay_match,
    revealed_prizes,
    write_text,
)
from cardtable.goofspiel.ruleset import PRESETS
from cardtable.goofspiel.state import PlayerView, RoundResult, prize_order_for
from cardtable.platform.bot import bot_class, bot_names
from cardtable.platform.fairness import seed_commitment
from cardtable.strategy.coach import analysable

from ..protocol import seat_label
from ..schema import SchemaError, Strict, validate
from .base import ActionError, GameAdapter, SettingsError

Rank = Annotated[int, Field(ge=1, le=13)]


class GoofspielSettings(Strict):
    """The creation form's Goofspiel settings; every limit the form shows (``options()``)."""

    # the preset names as a Literal built from PRESETS at import (pydantic reads it; mypy cannot)
    preset: Literal[tuple(PRESETS)] | None = None  # type: ignore[valid-type]
    rules: Annotated[str, StringConstraints(max_length=300)] | None = None
    cards: Rank | None = None
    players: Annotated[int, Field(ge=2, le=5)] | None = None
    tie_rule: Literal["carry", "discard"] | None = None
    unique_bids: bool | None = None
    high_ace: bool | None = None
    cards_per_bid: Rank | None = None
    open_prizes: Rank | None = None
    prize_order: (
        Literal["shuffled", "ascending", "descending"] | Annotated[list[Rank], Field(max_length=13)] | None
    ) = None
    hints: bool | None = None  # the coach's hint before each bid (cardtable/web/coach.py)


_SETTINGS = TypeAdapter(GoofspielSettings)
#: Card ranks as clients may send them; out-of-range ranks get ``illegal`` with the game's own reason.
_AnyRank = Annotated[int, Field(ge=-(2**31), le=2**31)]


class Bid(Strict):
    bid: Annotated[list[_AnyRank], Field(max_length=13)]


class Choose(Strict):
    choose: _AnyRank


_ACTION: TypeAdapter[Bid | Choose] = TypeAdapter(Union[Bid, Choose])


@dataclass
class GoofspielState:
    """A game in progress plus the bids received for the current round.

    Attributes:
        game: the engine state (the only authority on legality and outcomes).
        pending: seat -> bid (sorted tuple of ranks) received this round, secret
            until every seat has bid.
    """

    game: Game
    pending: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: the room shows the equilibrium hint before each bid (cardtable/web/coach.py)
    hints: bool = False
    hint_cache: dict = field(default_factory=dict, repr=False, compare=False)
    hint_bots: dict = field(default_factory=dict, repr=False, compare=False)


@lru_cache(maxsize=65536)
def _commit(seed: str | None) -> str | None:
    return None if seed is None else seed_commitment(seed)


@lru_cache(maxsize=1024)
def _ruleset_json(rs: Ruleset) -> tuple[str, dict[str, Any]]:
    """``(describe(), to_mapping())`` of a ruleset, computed once (views are built per change)."""
    return rs.describe(), rs.to_mapping()


@lru_cache(maxsize=65536)
def _round_json(r: RoundResult) -> dict[str, Any]:
    """A resolved round as JSON (cached: history entries never change; callers must not mutate it)."""
    return {
        "number": r.number,
        "prizes": list(r.prizes),
        "bids": [list(b) for b in r.bids],
        "strengths": list(r.strengths),
        "winner": r.winner,
        "taken": [list(t) for t in r.taken],
        "carried": list(r.carried),
        "discarded": list(r.discarded),
    }


class GoofspielAdapter(GameAdapter):
    """Goofspiel for the web server (see the module docstring)."""

    name = "goofspiel"
    title = "Goofspiel"
    page = "goofspiel.html"

    # -- creation ---------------------------------------------------------------------

    def options(self) -> dict[str, Any]:
        bots = []
        for name in bot_names(self.name):
            try:
                description = bot_class(self.name, name).description
            except Exception:  # a bot whose module fails to import is not offered
                continue
            bots.append({"name": name, "description": description})
        return {
            "title": self.title,
            "presets": {name: Ruleset.preset(name).to_mapping() for name in PRESETS},
            "defaults": Ruleset().to_mapping(),
            "fields": {
                "cards": {"min": 1, "max": 13},
                "players": {"min": 2, "max": 5},
                "tie_rule": ["carry", "discard"],
                "unique_bids": "bool",
                "high_ace": "bool",
                "cards_per_bid": {"min": 1, "max": 13},
                "open_prizes": {"min": 1, "max": 13},
                "prize_order": ["shuffled", "ascending", "descending"],
                "hints": "bool",
            },
            "bots": bots,
            "seats": {"min": 2, "max": 5},
        }

    def normalise_settings(self, raw: Any) -> dict[str, Any]:
        try:
            spec = validate(_SETTINGS, {} if raw is None else raw)
        except SchemaError as exc:
            raise SettingsError(f"bad ruleset: {exc}") from None
        data = spec.model_dump(exclude_none=True)
        hints = data.pop("hints", False)
        try:
            if "rules" in data:
                text = data.pop("rules")
                if data:
                    raise SettingsError("give either 'rules' text or ruleset fields, not both")
                ruleset = Ruleset.parse(text)
            else:
                ruleset = Ruleset.from_mapping(data)
        except (RulesetError, TypeError, ValueError) as exc:
            raise SettingsError(f"bad ruleset: {exc}"[:400]) from None
        if hints:
            if not analysable(ruleset):
                raise SettingsError(
                    "hints need a 2-player game with single-card bids and one prize at a time "
                    "(the equilibrium is solved for those only)"
                )
            return {"ruleset": ruleset.to_mapping(), "hints": True}
        return {"ruleset": ruleset.to_mapping()}

    def check_seats(self, settings: dict[str, Any], bots: Sequence[str | None]) -> None:
        """Hints are for one person playing bots only (another person would get no hints).

        Raises:
            SettingsError: hints on with no bot seat or more than one person.
        """
        people = sum(1 for b in bots if b is None)
        if settings.get("hints") and (people != 1 or len(bots) - people < 1):
            raise SettingsError(
                "hints are for a game of one person against bots: "
                "make every other seat a bot, or turn hints off"
            )

    @staticmethod
    def ruleset(settings: dict[str, Any]) -> Ruleset:
        """The :class:`Ruleset` of normalised settings."""
        return Ruleset.from_mapping(settings["ruleset"])

    def seat_count(self, settings: dict[str, Any]) -> int:
        return self.ruleset(settings).players

    def new_state(self, settings: dict[str, Any], seed: str, previous: Any = None) -> GoofspielState:
        return GoofspielState(Game(self.ruleset(settings), seed=seed), hints=bool(settings.get("hints")))

    def commitment(self, state: GoofspielState) -> str | None:
        return _commit(state.game.seed) if not state.game.ruleset.fixed_order else None

    # -- play ---------------------------------------------------------------------------

    def to_act(self, state: GoofspielState) -> frozenset[int]:
        game = state.game
        if game.phase == "bid":
            return frozenset(s for s in range(game.ruleset.players) if s not in state.pending)
        chooser = game.chooser
        if chooser is not None:  # the choose phase
            return frozenset({chooser})
        return frozenset()

    def turn_key(self, state: GoofspielState) -> Hashable:
        game = state.game
        return (len(game.history), game.phase, game.chooser)

    def check(self, state: GoofspielState, seat: int, action: Any) -> Any:
        game = state.game
        if not isinstance(action, dict) or len(action) != 1 or not ({"bid", "choose"} & set(action)):
            raise ActionError("bad_action", 'a Goofspiel action is {"bid": [ranks]} or {"choose": rank}')
        try:
            action = validate(_ACTION, action).model_dump()
        except SchemaError:
            if "bid" in action:
                raise ActionError("bad_action", "a bid is a list of card ranks, e.g. [13]") from None
            raise ActionError(
                "bad_action", 'a prize choice is {"choose": rank}, e.g. {"choose": 12}'
            ) from None
        if game.phase == "over":
            raise ActionError("game_over", "the game is over; no more bids")
        if "bid" in action:
            return {"bid": list(self._check_bid(state, seat, action["bid"]))}
        prize = action["choose"]
        chooser = game.chooser
        if chooser is None:  # not the choose phase
            raise ActionError("wrong_phase", "no prize choice is pending")
        if seat != chooser:
            raise ActionError("not_your_turn", f"{seat_label(chooser)} chooses a prize now")
        if not isinstance(prize, int) or isinstance(prize, bool) or prize not in game.pot:
            raise ActionError("illegal", f"{prize!r} is not a prize in the display")
        return {"choose": prize}

    @staticmethod
    def _check_bid(state: GoofspielState, seat: int, bid: Any) -> tuple[int, ...]:
        """``seat``'s bid checked against the game: its cards, sorted.

        Raises:
            ActionError: ``wrong_phase``, ``already_acted``, ``bad_action`` or ``illegal``.
        """
        game = state.game
        rs = game.ruleset
        if game.phase != "bid":
            chooser = game.chooser
            assert chooser is not None  # check() refused a finished game: this is the choose phase
            raise ActionError(
                "wrong_phase", f"waiting for {seat_label(chooser)} to choose a prize, not for bids"
            )
        if seat in state.pending:
            mine = "+".join(format_card(c, PLAYER_SUITS[seat]) for c in state.pending[seat])
            raise ActionError(
                "already_acted", f"you have already bid {mine} this round; a bid cannot be changed"
            )
        if not isinstance(bid, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in bid):
            raise ActionError("bad_action", "a bid is a list of card ranks, e.g. [13]")
        cards = tuple(sorted(bid))
        if len(cards) != rs.cards_per_bid:
            raise ActionError("illegal", f"a bid is exactly {rs.cards_per_bid} card(s), not {len(cards)}")
        if len(set(cards)) != len(cards):
            raise ActionError("illegal", "the same card appears twice in the bid")
        hand = game.hands[seat]
        for c in cards:
            if not 1 <= c <= rs.cards:
                raise ActionError(
                    "illegal", f"{c} is not a card of this game: ranks run from 1 (A) to {rs.cards}"
                )
            if c not in hand:
                raise ActionError("illegal", f"you have already spent {format_card(c, PLAYER_SUITS[seat])}")
        return cards

    def apply(self, state: GoofspielState, seat: int, action: Any) -> None:
        game = state.game
        if "bid" in action:
            state.pending[seat] = tuple(action["bid"])
            if len(state.pending) == game.ruleset.players:
                bids = [state.pending[s] for s in range(game.ruleset.players)]
                state.pending = {}
                game.play(bids)
        else:
            game.choose(seat, action["choose"])

    def is_over(self, state: GoofspielState) -> bool:
        return state.game.is_over

    def scores(self, state: GoofspielState) -> tuple[float, ...]:
        return tuple(state.game.result().points)

    def timeout_action(self, state: GoofspielState, seat: int) -> Any:
        game = state.game
        rs = game.ruleset
        if game.phase == "choose":
            return {"choose": min(game.pot, key=lambda p: (rs.prize_value(p), p))}
        weakest = min(game.legal_bids(seat), key=lambda b: (sum(rs.strength(c) for c in b), b))
        return {"bid": list(weakest)}

    # -- views --------------------------------------------------------------------------

    def background_work(self, state: GoofspielState, seat: int) -> Callable[[], None] | None:
        """The hint of a hints room's person for this round, until it is cached
        (:func:`cardtable.web.coach.hint_job`)."""
        if not state.hints or state.game.phase != "bid" or seat in state.pending:
            return None
        from ..coach import hint_job  # lazy: web.coach loads FastAPI (as in view)

        return hint_job(state, seat)

    def view(self, state: GoofspielState, seat: int | None) -> dict[str, Any]:
        game = state.game
        rs = game.ruleset
        hands = game.hands
        players = _players_json(state)
        rules_text, rules_json = _ruleset_json(rs)
        out: dict[str, Any] = {
            "rules": rules_text,
            "ruleset": rules_json,
            "prize_suit": PRIZE_SUIT,
            "phase": game.phase,
            "round": game.round,
            "rounds": rs.rounds,
            "pot": list(game.pot),
            "pot_value": sum(rs.prize_value(p) for p in game.pot),
            "remaining_prizes": list(game.remaining_prizes),
            "upcoming": list(game.deck) if rs.fixed_order else None,
            "players": players,
            "to_act": sorted(self.to_act(state)),
            "history": [_round_json(r) for r in game.history],
            "chooser": game.chooser,
            "choices": list(game.legal_choices()),
            "revealed": _round_json(game.view(0).pending) if game.phase == "choose" else None,
            "seed_commit": self.commitment(state),
            "you": seat,
            "hand": sorted(hands[seat]) if seat is not None else None,
            "my_bid": list(state.pending[seat]) if seat is not None and seat in state.pending else None,
            "result": None,
            "hints": state.hints,
        }
        if state.hints and seat is not None and game.phase == "bid" and seat not in state.pending:
            # lazy: web.coach loads FastAPI, which `cardtable verify` (verify_records, below) need not
            from ..coach import cached_hint

            # computed off the event loop (background_work); the view is sent again when it is ready
            out["hint"] = cached_hint(state, seat)
            out["hint_pending"] = (game.round, seat) not in state.hint_cache
        if game.is_over:
            out["result"] = _result_json(game)
            out["fairness"] = self.fairness(state)
            out["seed"] = game.seed
        return out

    def fairness(self, state: GoofspielState) -> dict[str, Any]:
        """End-of-game check of the provably fair shuffle (only once the game is over).

        Returns ``{"seed", "commit", "commit_ok", "prize_order", "order_ok"}``:
        ``commit_ok`` when SHA-256 of the seed equals the commitment published at
        the start; ``order_ok`` when :func:`prize_order_for` with the seed gives
        the prize order the game was played with.
        """
        game = state.game
        if not game.is_over:
            raise ActionError("wrong_phase", "the seed is revealed only when the game is over")
        rs = game.ruleset
        if rs.fixed_order:
            return {
                "seed": None,
                "commit": None,
                "commit_ok": None,
                "prize_order": list(game.initial_deck),
                "order_ok": True,
            }
        order = prize_order_for(rs, game.seed)
        return {
            "seed": game.seed,
            "commit": self.commitment(state),
            "commit_ok": _commit(game.seed) == self.commitment(state),
            "prize_order": order,
            "order_ok": tuple(order) == game.initial_deck,
        }

    # -- bots ---------------------------------------------------------------------------

    def new_bot(self, name: str, seat: int, settings: dict[str, Any]) -> Any:
        bot = super().new_bot(name, seat, settings)
        bot.new_game(self.ruleset(settings), seat)
        return bot

    def bot_view(self, state: GoofspielState, seat: int) -> PlayerView:
        return state.game.view(seat)

    def bot_action(self, bot: Any, view: PlayerView, seat: int) -> Any:
        action = bot.act(view)
        if view.phase == "choose":
            return {"choose": int(action)}
        if isinstance(action, int):
            return {"bid": [action]}
        return {"bid": [int(c) for c in action]}

    # -- records ------------------------------------------------------------------------

    def record_text(
        self,
        states: Sequence[GoofspielState],
        players: Sequence[str],
        tags: Sequence[Sequence[tuple[str, str]]],
    ) -> str:
        records = []
        for state, extra in zip(states, tags, strict=True):
            extra = list(extra)
            commit = self.commitment(state)
            if commit is not None:
                extra.insert(0, ("SeedCommit", commit))
            if state.hints:
                extra.append(("Hints", "on"))
            records.append(record_from_game(state.game, list(players), extra))
        return write_text(records)


def replay_events(settings: dict[str, Any], seed: str, events: Sequence[tuple[int, Any]]) -> GoofspielState:
    """Rebuild a state from its seed and the ``(seat, action)`` log (for tests and tools).

    Raises:
        ActionError: an event the game rejects (a corrupt log).
    """
    adapter = GoofspielAdapter()
    state = adapter.new_state(settings, seed)
    for seat, action in events:
        adapter.apply(state, seat, adapter.check(state, seat, action))
    return state


def verify_records(records: Sequence[Any]) -> list[str]:
    """Check the provably fair shuffle of recorded games (``cardtable verify``).

    For each shuffled game: the ``Seed`` and ``SeedCommit`` tags are present,
    SHA-256 of the seed equals the commitment, and
    :func:`~cardtable.goofspiel.state.prize_order_for` with the seed turns up
    the prizes in the order the record shows; then the whole file replays
    (:func:`~cardtable.goofspiel.record.replay_match`: legal bids, outcomes,
    scores, match result).

    Returns:
        One summary line per game.

    Raises:
        RecordError: the first failed check, naming the game.
    """
    lines = []
    for i, rec in enumerate(records, 1):
        rs = rec.ruleset
        if rs.fixed_order:
            lines.append(
                f"game {i}: fixed prize order ({rs.describe().split()[-1]}): nothing secret to verify"
            )
            continue
        commit = rec.tag("SeedCommit")
        if rec.seed is None or commit is None:
            missing = " and ".join(t for t, v in (("Seed", rec.seed), ("SeedCommit", commit)) if v is None)
            raise RecordError(
                f"game {i}: no {missing} tag, so the shuffle cannot be verified"
                " (only games of 'cardtable serve' publish a SeedCommit)",
                rec.line_of("SeedCommit") or rec.line_of("Seed") or rec.line_of("Rules"),
            )
        if _commit(rec.seed) != commit.strip().lower():
            raise RecordError(
                f"game {i}: SHA-256 of the Seed {rec.seed[:60]!r} is {_commit(rec.seed)}, "
                f"not the published SeedCommit {commit[:70]}",
                rec.line_of("SeedCommit"),
            )
        order = prize_order_for(rs, rec.seed)
        turned = revealed_prizes(rec)
        if order[: len(turned)] != turned:
            raise RecordError(
                f"game {i}: the Seed orders the prizes {order[: len(turned)]}, "
                f"but the game turned up {turned}",
                rec.line_of("Seed"),
            )
        lines.append(
            f"game {i}: SHA-256(seed) = SeedCommit {commit[:16]}..., "
            f"the seed reproduces the {len(turned)} prizes turned up"
        )
    replay_match(records)
    return lines


__all__ = ["GoofspielAdapter", "GoofspielState", "GoofspielError", "replay_events", "verify_records"]


def _players_json(state: GoofspielState) -> list[dict[str, Any]]:
    """Each seat's public side of a view: suit, cards left and spent, points, prizes won, whether it has bid."""
    game = state.game
    rs = game.ruleset
    return [
        {
            "seat": s,
            "suit": PLAYER_SUITS[s],
            "remaining": sorted(game.hands[s]),
            "spent": [c for c in rs.deck if c not in game.hands[s]],
            "points": game.points[s],
            "won": list(game.won[s]),
            "has_bid": game.phase == "bid" and s in state.pending,
        }
        for s in range(rs.players)
    ]


def _result_json(game: Game) -> dict[str, Any]:
    """A finished game's result as a view shows it."""
    res = game.result()
    return {
        "points": list(res.points),
        "outcomes": list(res.outcomes),
        "point_difference": list(res.point_difference),
        "unowned": res.unowned,
        "winner": res.winner,
    }
