"""The Golf adapter: maps :mod:`cardtable.golf` (Golf with Detective and Thief) to the web server.

Actions are the engine's JSON form (:func:`cardtable.golf.actions.action_to_dict`)
without the ``player`` field, which the server fills in from the seat token:
``{"type": "draw"}``, ``{"type": "discard"}``, ``{"type": "swap", "pos": 4}``,
``{"type": "peek", "pos": 2}``, ``{"type": "steal", "pos": 0, "target": 1,
"target_pos": 5}``, ``{"type": "snap", "owner": 1, "pos": 3}``,
``{"type": "pass", "pos": 7}``, ``{"type": "nopass"}``, ``{"type": "end"}``
(positions 0-based).

Snaps (docs/golf.md "Snapping": allowed in your turn or not) are accepted from any
seat whenever the engine allows them, resolved in order of arrival; while a
snapper decides whether to pass a card, snaps are refused (``wrong_phase``),
not queued: the client sends them again afterwards. Bots snap
only at the start of their own turn (at most twice a turn); the terminal
driver's snap windows need a turn order that a real-time table does not have.

Views: a seat gets :func:`cardtable.golf.views.build_view` (``GolfView.to_dict()``: only the
cards that seat has seen); spectators get the public view (face-up cards only).

Round timer fallback: draw, then discard the drawn card; a pending pass is
declined (``{"type": "nopass"}``: passing is optional).

Matches: game ``k`` of a match is started by the next seat, and an early ender
who lost gets the extra card of docs/golf.md "Ending early" in the next game (the previous state
is passed to :meth:`GolfAdapter.new_state`). Scores are negated for
:mod:`cardtable.platform.match` (fewest points wins).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Hashable, Literal, Sequence, Union

from pydantic import Field, TypeAdapter

from cardtable.golf import GolfGame, GolfRuleset
from cardtable.golf.actions import Discard, Draw, NoPass, Snap, action_from_dict, action_to_dict
from cardtable.golf.cards import card_rank
from cardtable.golf.errors import GolfError, IllegalAction, NotYourTurn, WrongPhase
from cardtable.golf.record import RecordError, load_records, record_from_game, replay_text, write_text
from cardtable.golf.state import shuffled_deck
from cardtable.golf.views import build_view
from cardtable.platform.bot import bot_class, bot_names
from cardtable.platform.fairness import seed_commitment

from ..protocol import seat_label
from ..schema import SchemaError, Strict, validate
from .base import ActionError, GameAdapter, SettingsError

#: The largest card value the server accepts in ``values`` (the form offers the default values).
MAX_CARD_VALUE = 25


class GolfSettings(Strict):
    """The creation form's Golf settings: every limit the form shows (``options()``), and
    bounds for the fields it does not show (``decks`` 1..4, ``values`` 13 numbers
    0..:data:`MAX_CARD_VALUE`, ``detective``/``thief`` ranks 1..13 or null)."""

    preset: Literal["standard", "three-player"] | None = None
    players: Annotated[int, Field(ge=2, le=3)] | None = None
    decks: Annotated[int, Field(ge=1, le=4)] | None = None
    rows: Annotated[int, Field(ge=1, le=5)] | None = None
    cols: Annotated[int, Field(ge=1, le=5)] | None = None
    peek_rows: Annotated[int, Field(ge=0, le=5)] | None = None
    early_end_min: Annotated[int, Field(ge=0, le=20)] | None = None
    penalty_cards: Annotated[int, Field(ge=0, le=3)] | None = None
    ender_extra_cards: Annotated[int, Field(ge=0, le=3)] | None = None
    snap_opponents: bool | None = None
    detective_rank: Annotated[int, Field(ge=1, le=13)] | None = None
    thief_rank: Annotated[int, Field(ge=1, le=13)] | None = None
    values: (
        Annotated[list[Annotated[int, Field(ge=0, le=MAX_CARD_VALUE)]], Field(min_length=13, max_length=13)]
        | None
    ) = None


_SETTINGS = TypeAdapter(GolfSettings)


def _presets() -> dict[str, dict[str, Any]]:
    """The Golf presets of the creation form, as ruleset mappings."""
    return {"standard": GolfRuleset().to_dict(), "three-player": GolfRuleset(players=3).to_dict()}


_Pos = Annotated[int, Field(ge=0, le=255)]
_Seat = Annotated[int, Field(ge=0, le=2)]


class _GolfAction(Strict):
    player: _Seat | None = None


class _Draw(_GolfAction):
    type: Literal["draw"]


class _End(_GolfAction):
    type: Literal["end"]


class _Discard(_GolfAction):
    type: Literal["discard"]


class _Swap(_GolfAction):
    type: Literal["swap"]
    pos: _Pos


class _Peek(_GolfAction):
    type: Literal["peek"]
    pos: _Pos


class _Steal(_GolfAction):
    type: Literal["steal"]
    pos: _Pos
    target: _Seat
    target_pos: _Pos


class _Snap(_GolfAction):
    type: Literal["snap"]
    owner: _Seat
    pos: _Pos


class _Pass(_GolfAction):
    type: Literal["pass"]
    pos: _Pos


class _NoPass(_GolfAction):
    type: Literal["nopass"]


_ACTION: TypeAdapter[_GolfAction] = TypeAdapter(
    Annotated[
        Union[_Draw, _End, _Discard, _Swap, _Peek, _Steal, _Snap, _Pass, _NoPass], Field(discriminator="type")
    ]
)


@dataclass
class GolfState:
    """A Golf game in progress (the engine state is the whole state)."""

    game: GolfGame


def _commit(seed: str | None) -> str | None:
    return None if seed is None else seed_commitment(seed)


_BOOL_FIELDS = ("snap_opponents",)


class GolfAdapter(GameAdapter):
    """Golf for the web server (see the module docstring)."""

    name = "golf"
    title = "Golf (Detective & Thief)"
    page = "golf.html"

    def options(self) -> dict[str, Any]:
        bots = []
        for name in bot_names(self.name):
            try:
                bots.append({"name": name, "description": bot_class(self.name, name).description})
            except Exception:  # a bot whose module fails to import is not offered
                continue
        return {
            "title": self.title,
            "presets": _presets(),
            "defaults": GolfRuleset().to_dict(),
            "fields": {
                "players": {"min": 2, "max": 3},
                "rows": {"min": 1, "max": 5},
                "cols": {"min": 1, "max": 5},
                "peek_rows": {"min": 0, "max": 5},
                "early_end_min": {"min": 0, "max": 20},
                "penalty_cards": {"min": 0, "max": 3},
                "snap_opponents": "bool",
            },
            "bots": bots,
            "seats": {"min": 2, "max": 3},
        }

    def normalise_settings(self, raw: Any) -> dict[str, Any]:
        try:
            spec = validate(_SETTINGS, {} if raw is None else raw)
        except SchemaError as exc:
            raise SettingsError(f"bad Golf ruleset: {exc}") from None
        data = spec.model_dump(exclude_unset=True)
        preset = data.pop("preset", None)
        base = _presets()[preset] if preset else {}
        try:
            ruleset = GolfRuleset.from_dict({**base, **data})
        except (GolfError, TypeError, ValueError) as exc:
            raise SettingsError(f"bad Golf ruleset: {exc}"[:400]) from None
        return {"ruleset": ruleset.to_dict()}

    @staticmethod
    def ruleset(settings: dict[str, Any]) -> GolfRuleset:
        return GolfRuleset.from_dict(settings["ruleset"])

    def seat_count(self, settings: dict[str, Any]) -> int:
        return self.ruleset(settings).players

    def new_state(self, settings: dict[str, Any], seed: str, previous: Any = None) -> GolfState:
        rs = self.ruleset(settings)
        first, extra = 0, None
        if previous is not None:
            first = (previous.game.first_player + 1) % rs.players
            if previous.game.over:
                extra = previous.game.result().extra_cards
        return GolfState(GolfGame(rs, seed=seed, first_player=first, extra_cards=extra))

    def commitment(self, state: GolfState) -> str | None:
        return _commit(state.game.seed)

    # -- play ---------------------------------------------------------------------------

    def to_act(self, state: GolfState) -> frozenset[int]:
        actor = state.game.actor
        return frozenset() if actor is None else frozenset({actor})

    def turn_key(self, state: GolfState) -> Hashable:
        g = state.game
        return (g.turn, g.phase, g.actor)

    def check(self, state: GolfState, seat: int, action: Any) -> Any:
        game = state.game
        try:
            action = validate(_ACTION, action).model_dump(exclude_none=True)
        except SchemaError as exc:
            raise ActionError(
                "bad_action",
                f'a Golf action is an object such as {{"type": "draw"}} '
                f'or {{"type": "swap", "pos": 4}}: {exc}',
            ) from None
        if "player" in action and action["player"] != seat:
            raise ActionError("forbidden", f"this connection acts for {seat_label(seat)} only")
        if game.over:
            raise ActionError("game_over", "the game is over; no more actions")
        try:
            parsed = action_from_dict({**action, "player": seat})
        except GolfError as exc:
            raise ActionError("bad_action", str(exc)) from None
        try:
            game.copy().apply(parsed)  # the engine validates; the real state is untouched
        except NotYourTurn as exc:
            raise ActionError("not_your_turn", str(exc)) from None
        except WrongPhase as exc:
            raise ActionError("wrong_phase", str(exc)) from None
        except IllegalAction as exc:
            raise ActionError("illegal", str(exc)) from None
        return action_to_dict(parsed)

    def apply(self, state: GolfState, seat: int, action: Any) -> None:
        state.game.apply(action_from_dict(action))

    def is_over(self, state: GolfState) -> bool:
        return state.game.over

    def scores(self, state: GolfState) -> tuple[float, ...]:
        return tuple(-s for s in state.game.result().scores)

    def timeout_action(self, state: GolfState, seat: int) -> Any:
        game = state.game
        if game.phase == "pass":
            return action_to_dict(NoPass(seat))
        if game.phase == "drawn":
            return action_to_dict(Discard(seat))
        return action_to_dict(Draw(seat))

    # -- views --------------------------------------------------------------------------

    def view(self, state: GolfState, seat: int | None) -> dict[str, Any]:
        game = state.game
        if seat is not None:
            v = build_view(game, seat)
            out = v.to_dict()
            out["legal_snaps"] = [action_to_dict(s) for s in v.legal_snaps()]
        else:
            out = self._public_view(game)
        out["you"] = seat
        out["seed_commit"] = self.commitment(state)
        if game.over:
            out["seed"] = game.seed
            out["fairness"] = {
                "seed": game.seed,
                "commit": self.commitment(state),
                "commit_ok": _commit(game.seed) == self.commitment(state),
                "order_ok": (
                    game.seed is not None
                    and tuple(shuffled_deck(game.ruleset, game.seed)) == game.initial_deck
                ),
            }
        return out

    @staticmethod
    def _public_view(game: GolfGame) -> dict[str, Any]:
        """What a spectator may see: face-up cards only (the discard pile, shown powers)."""
        out = build_view(game, 0).to_dict()
        everyone = set(range(game.players))
        over = game.over
        out["seat"] = None
        out["grids"] = [[None if c is None else (card_rank(c) if over else 0) for c in g] for g in game.grids]
        drawn = game.drawn
        out["drawn"] = card_rank(drawn) if drawn is not None and all(drawn in k for k in game.known) else None
        for e, ev in zip(out["events"], game.history, strict=True):
            e["card"] = card_rank(ev.card) if ev.card is not None and set(ev.seen_by) >= everyone else None
        out["legal_actions"] = []
        out["legal_snaps"] = []
        return out

    # -- bots ---------------------------------------------------------------------------

    def new_bot(self, name: str, seat: int, settings: dict[str, Any]) -> Any:
        bot = super().new_bot(name, seat, settings)
        bot.new_game(self.ruleset(settings), seat)
        return bot

    def bot_view(self, state: GolfState, seat: int) -> Any:
        return build_view(state.game, seat)

    def bot_action(self, bot: Any, view: Any, seat: int) -> Any:
        if view.phase == "draw" and view.discard:
            count = getattr(bot, "_web_snaps", (None, 0))
            used = count[1] if count[0] == view.turn else 0
            if used < 2:
                snap = bot.snap(view)
                if isinstance(snap, Snap):
                    bot._web_snaps = (view.turn, used + 1)
                    return action_to_dict(snap)
        return action_to_dict(bot.act(view))

    # -- records ------------------------------------------------------------------------

    def record_text(
        self, states: Sequence[GolfState], players: Sequence[str], tags: Sequence[Sequence[tuple[str, str]]]
    ) -> str:
        records = []
        for state, extra in zip(states, tags, strict=True):
            t = {"SeedCommit": self.commitment(state) or ""}
            t.update(dict(extra))
            records.append(record_from_game(state.game, list(players), t))
        return write_text(records)


def verify_golf_text(text: str) -> list[str]:
    """``cardtable verify`` for Golf records: SHA-256 of each ``Seed`` equals its
    ``SeedCommit``, the seed deals the recorded ``Deck``, and the file replays
    (:func:`cardtable.golf.record.replay_text`).

    Raises:
        RecordError: the first failed check.
    """
    lines = []
    for i, rec in enumerate(load_records(text), 1):
        commit = rec.tags.get("SeedCommit")
        if rec.seed is None or not commit:
            missing = " and ".join(t for t, v in (("Seed", rec.seed), ("SeedCommit", commit)) if not v)
            raise RecordError(
                f"game {i}: no {missing} tag, so the shuffle cannot be verified"
                " (only games of 'cardtable serve' publish a SeedCommit)",
                rec.tag_lines.get("Seed") or rec.tag_lines.get("Game"),
            )
        if _commit(rec.seed) != commit.strip().lower():
            raise RecordError(
                f"game {i}: SHA-256 of the Seed {rec.seed[:60]!r} is not the published SeedCommit "
                f"{commit[:70]}",
                rec.tag_lines.get("SeedCommit"),
            )
        if tuple(shuffled_deck(rec.ruleset, rec.seed)) != tuple(rec.deck):
            raise RecordError(
                f"game {i}: the Seed does not deal the recorded Deck", rec.tag_lines.get("Seed")
            )
        lines.append(
            f"game {i}: SHA-256(seed) = SeedCommit {commit[:16]}..., the seed deals the recorded deck"
        )
    lines.append(replay_text(text))
    return lines
