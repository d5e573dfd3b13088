"""Per-player views: exactly what one seat may know, as plain data.

:func:`build_view` turns the full state of a game into a
:class:`GolfView`. A card's rank appears in a view only if that seat has seen
the card (``game.known[seat]``), or it lies face up (the discard pile, a
shown Detective or Thief), or the game is over (all cards are turned up).
:meth:`GolfView.to_dict` gives JSON-ready data for a server.

Grid slots in a view: ``None`` = a hole (the card left), ``0`` = a face-down
card the viewer does not know, ``1..13`` = the rank the viewer knows.
``seen_by`` tells, per slot, which seats know that card; it is public, because
every look (the bottom row, a Detective, a draw that is swapped in) happens in
front of everyone even though the rank stays secret.

"Memory mode" (seen cards shown once, then hidden) and "open memory" are
options of the interface (:mod:`cardtable.golf.tui`), not of the view: a view
always holds everything the seat may know.

>>> from cardtable.golf.state import GolfGame
>>> v = build_view(GolfGame(seed=1), 0)
>>> v.grids[0][:6], all(r > 0 for r in v.grids[0][6:]), v.grids[1]
((0, 0, 0, 0, 0, 0), True, (0, 0, 0, 0, 0, 0, 0, 0, 0))
>>> v.legal_actions()
[Draw(player=0)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cardtable.errors import quoted

from .actions import (
    Action,
    Discard,
    Draw,
    EndEarly,
    NoPass,
    Pass,
    Peek,
    Snap,
    Steal,
    Swap,
    action_to_dict,
    format_action,
)
from .cards import card_rank
from .ruleset import GolfRuleset

if TYPE_CHECKING:
    from .state import GolfGame, Phase

UNKNOWN = 0


@dataclass(frozen=True)
class GolfView:
    """What seat ``seat`` may know (docs/golf.md, "Knowledge"; rules in the module doc).

    Attributes:
        seat: the viewer (0-based).
        ruleset: the game's ruleset.
        phase: ``"draw"``, ``"drawn"``, ``"pass"`` or ``"over"``.
        current: the seat whose turn it is.
        actor: the seat whose turn action is awaited (the passer in ``"pass"``);
            ``None`` when over.
        turn: 1-based turn number.
        grids: per seat, per position: ``None`` (hole), ``0`` (unknown) or a rank.
        slot_rows: per seat, per position: the row (0 = top) the slot belongs to.
        seen_by: per seat, per position: sorted seats that know the card (``()`` for holes).
        drawn: the rank of the card held by the current player, if the viewer may
            see it (the drawer; everyone for a Detective or Thief); else ``None``.
        holding: whether the current player holds a drawn card.
        power_used: whether the held Detective/Thief has been used.
        power_pos: the current player's position holding the card the held
            Detective/Thief just used (looked at, or received in the exchange): the
            power card may not be swapped there (docs/golf.md, "The Detective"); else ``None``.
        discard: ranks on the discard pile, bottom to top (face up: public).
        draw_pile: cards left in the draw pile (snaps need ``ruleset.penalty_cards`` of them).
        snaps_made: successful snaps per seat, own and opponents' cards.
        own_snaps: per seat, cards of their own grid they snapped (ending early needs
            ``early_end_min``; docs/golf.md, "Ending early").
        ended_by: the seat that ended early, or ``None``.
        last_turns: seats still to take their last turn after an early end.
        pass_target: in ``"pass"``: ``(seat, position)`` the passed card goes to.
        events: the history as dicts, each ``card`` rank shown only if seen by the viewer.
        result: the result dict when over (see :class:`~cardtable.golf.state.GolfResult`).
    """

    seat: int
    ruleset: GolfRuleset
    phase: Phase
    current: int
    actor: int | None
    turn: int
    grids: tuple[tuple[int | None, ...], ...]
    slot_rows: tuple[tuple[int, ...], ...]
    seen_by: tuple[tuple[tuple[int, ...], ...], ...]
    drawn: int | None
    holding: bool
    power_used: bool
    power_pos: int | None
    discard: tuple[int, ...]
    draw_pile: int
    snaps_made: tuple[int, ...]
    own_snaps: tuple[int, ...]
    ended_by: int | None
    last_turns: tuple[int, ...]
    pass_target: tuple[int, int] | None
    events: tuple[dict, ...]
    result: dict | None

    # ------------------------------------------------------------ helpers
    @property
    def players(self) -> int:
        """Number of seats."""
        return self.ruleset.players

    @property
    def opponents(self) -> tuple[int, ...]:
        """The other seats, in turn order after the viewer."""
        n = self.players
        return tuple((self.seat + k) % n for k in range(1, n))

    @property
    def top(self) -> int | None:
        """Rank on top of the discard pile, or ``None``."""
        return self.discard[-1] if self.discard else None

    def cards_in(self, seat: int) -> list[int]:
        """Positions of ``seat``'s grid holding a card."""
        return [i for i, r in enumerate(self.grids[seat]) if r is not None]

    def can_end_early(self) -> bool:
        """Whether the viewer may end the game early now."""
        return (
            self.phase == "draw"
            and self.actor == self.seat
            and self.ended_by is None
            and self.own_snaps[self.seat] >= self.ruleset.early_end_min
        )

    def legal_actions(self) -> list[Action]:
        """The viewer's legal turn actions now (empty if not the viewer's to act)."""
        s = self.seat
        if self.actor != s:
            return []
        own = self.cards_in(s)
        if self.phase == "pass":
            return [*(Pass(s, p) for p in own), NoPass(s)]
        if self.phase == "draw":
            return [Draw(s), *([EndEarly(s)] if self.can_end_early() else [])]
        return [Discard(s), *(Swap(s, p) for p in own if p != self.power_pos), *self._power_actions(own)]

    def _power_actions(self, own: list[int]) -> list[Action]:
        """The peeks or steals the held Detective or Thief allows the viewer (none once used)."""
        if self.power_used or self.drawn is None:
            return []
        s = self.seat
        power = self.ruleset.power(self.drawn)
        if power == "detective":
            return [Peek(s, p) for p in own]
        if power == "thief":
            return [
                Steal(s, p, t, q)
                for p in own
                for t in self.opponents
                if t != self.ended_by
                for q in self.cards_in(t)
            ]
        return []

    def snaps_open(self) -> bool:
        """Whether snaps are accepted now: phase ``"draw"`` or ``"drawn"``, a card on the
        discard pile, and the penalty card(s) of a wrong snap left in the draw pile."""
        return (
            self.phase in ("draw", "drawn")
            and bool(self.discard)
            and self.draw_pile >= self.ruleset.penalty_cards
        )

    def legal_snaps(self) -> list[Snap]:
        """Every snap the viewer may try now (right or wrong)."""
        if not self.snaps_open() or self.seat == self.ended_by:
            return []
        owners = [self.seat] + (
            [o for o in self.opponents if o != self.ended_by] if self.ruleset.snap_opponents else []
        )
        return [Snap(self.seat, o, p) for o in owners for p in self.cards_in(o)]

    def sure_snaps(self) -> list[Snap]:
        """Snaps the viewer knows are right: known cards matching the top rank."""
        top = self.top
        if top is None:
            return []
        return [s for s in self.legal_snaps() if self.grids[s.owner][s.pos] == top]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (lists, ints, strings, ``None``)."""
        return {
            "seat": self.seat,
            "ruleset": self.ruleset.to_dict(),
            "phase": self.phase,
            "current": self.current,
            "actor": self.actor,
            "turn": self.turn,
            "grids": [list(g) for g in self.grids],
            "slot_rows": [list(r) for r in self.slot_rows],
            "seen_by": [[list(s) for s in g] for g in self.seen_by],
            "drawn": self.drawn,
            "holding": self.holding,
            "power_used": self.power_used,
            "power_pos": self.power_pos,
            "discard": list(self.discard),
            "draw_pile": self.draw_pile,
            "snaps_made": list(self.snaps_made),
            "own_snaps": list(self.own_snaps),
            "ended_by": self.ended_by,
            "last_turns": list(self.last_turns),
            "pass_target": list(self.pass_target) if self.pass_target else None,
            "events": [dict(e) for e in self.events],
            "result": self.result,
            "legal_actions": [action_to_dict(a) for a in self.legal_actions()],
        }


def event_dict(ev, seat: int) -> dict[str, Any]:
    """One :class:`~cardtable.golf.state.Event` as the viewer ``seat`` may see it."""
    a = ev.action
    return {
        "n": ev.number,
        "player": a.player,
        "type": a.kind,
        "action": action_to_dict(a),
        "text": format_action(a),
        "card": card_rank(ev.card) if ev.card is not None and seat in ev.seen_by else None,
        "correct": ev.correct,
        "penalty": len(ev.penalty),
        "to_pos": ev.to_pos,
        "to_seat": ev.to_seat,
        "ended": ev.ended,
    }


def build_view(game: "GolfGame", seat: int) -> GolfView:
    """The view of ``seat`` (0-based) of ``game``.

    Raises:
        ValueError: ``seat`` is not a seat of the game.
    """
    if not isinstance(seat, int) or not 0 <= seat < game.players:
        raise ValueError(f"no seat {quoted(seat)} in a {game.players}-player game")
    over = game.phase == "over"
    known = game.known[seat]
    drawn = None
    if game.drawn is not None and game.drawn in known:
        drawn = card_rank(game.drawn)
    return GolfView(
        seat=seat,
        ruleset=game.ruleset,
        phase=game.phase,
        current=game.current,
        actor=game.actor,
        turn=game.turn,
        grids=_visible_grids(game, known, over),
        slot_rows=tuple(map(tuple, game.slot_rows)),
        seen_by=_seen_by(game),
        drawn=drawn,
        holding=game.drawn is not None,
        power_used=game.power_used,
        power_pos=game.power_pos(),
        discard=tuple(card_rank(c) for c in game.discard),
        draw_pile=len(game.draw_pile),
        snaps_made=tuple(game.snaps_made),
        own_snaps=tuple(game.own_snaps),
        ended_by=game.ended_by,
        last_turns=tuple(game.last_turns),
        pass_target=game.pass_target,
        events=tuple(event_dict(e, seat) for e in game.history),
        result=game.result().to_dict() if over else None,
    )


def _visible_grids(game: "GolfGame", known: set[int], over: bool) -> tuple[tuple[int | None, ...], ...]:
    """Per seat, per slot: ``None`` (hole), the rank (known, or the game is over) or :data:`UNKNOWN`."""
    return tuple(
        tuple(None if c is None else (card_rank(c) if over or c in known else UNKNOWN) for c in g)
        for g in game.grids
    )


def _seen_by(game: "GolfGame") -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per seat, per slot: the seats that know the card there (``()`` for a hole)."""
    return tuple(
        tuple(() if c is None else tuple(p for p in range(game.players) if c in game.known[p]) for c in g)
        for g in game.grids
    )


__all__ = ["GolfView", "build_view", "event_dict", "UNKNOWN"]
