"""The Golf game state: deal, turns, Detective, Thief, snaps, the end, scores.

A :class:`GolfGame` is a pure state machine (no input, no output, no clock):
:meth:`GolfGame.apply` takes one action (:mod:`cardtable.golf.actions`),
validates it completely, then changes the state and returns an
:class:`Event`. An illegal action raises an
:class:`~cardtable.golf.errors.IllegalAction` and changes nothing.

Phases (``game.phase``), docs/golf.md "A turn":

- ``"draw"``: the current player draws (:class:`~.actions.Draw`) or ends the
  game early (:class:`~.actions.EndEarly`).
- ``"drawn"``: the current player holds the drawn card: discard it, swap it
  into the grid, or first use its power (Detective :class:`~.actions.Peek`,
  Thief :class:`~.actions.Steal`; at most once, optional).
- ``"pass"``: a player who snapped an opponent's card may give that opponent
  one of their own grid cards (:class:`~.actions.Pass`) or keep them
  (:class:`~.actions.NoPass`); no other action until they decide.
- ``"over"``: the game has ended; :meth:`GolfGame.result` gives the scores.

Snaps (:class:`~.actions.Snap`) are accepted from any player in phases
``"draw"`` and ``"drawn"`` whenever the discard pile is not empty and the
draw pile still holds the penalty card(s) a wrong snap costs, and are
resolved in the order they are applied (docs/golf.md, "Snapping"); not
by or against an early ender, whose grid is frozen (docs/golf.md, "Ending
early"). An emptied grid ends the game at once (docs/golf.md, "End of the game").

Ending early counts only the cards a player snapped from their *own* grid
(``own_snaps``), not snaps of opponents' cards (docs/golf.md, "Ending early").
A drawn Detective or Thief whose power was used cannot be swapped into the
card that power just used (``power_card``; docs/golf.md, "The Detective").

Knowledge: ``game.known[p]`` is the set of card ids player ``p`` has seen and
may therefore know. Every movement of a card is public (positions are seen
by all), so a known card stays known wherever it moves (a Thief swap), and a
card that arrives unseen (a passed card, a penalty card) is known only to
those who had already seen it.

>>> g = GolfGame(seed=7)
>>> g.phase, g.current, len(g.draw_pile), [len(x) for x in g.grids]
('draw', 0, 34, [9, 9])
>>> sorted(g.grids[0][6:]) == sorted(c for c in g.known[0] if c in g.grids[0])
True
>>> e = g.apply(Draw(0)); g.phase
'drawn'
>>> g.apply(Draw(1))
Traceback (most recent call last):
...
cardtable.golf.errors.NotYourTurn: it is P1's turn, not yours
"""

from __future__ import annotations

import dataclasses
import random
import secrets
from dataclasses import dataclass
from typing import Any, Callable, Literal, Sequence

from cardtable.errors import quoted

from .actions import Action, Discard, Draw, EndEarly, NoPass, Pass, Peek, Snap, Steal, Swap, format_seat
from .cards import card_rank, rank_name
from .errors import (
    EndTooSoon,
    FrozenGrid,
    GameOver,
    GolfError,
    IllegalAction,
    NoPenaltyCard,
    NoSuchCard,
    NothingToSnap,
    NotYourTurn,
    SameCard,
    WrongPhase,
)
from .ruleset import GolfRuleset

Phase = Literal["draw", "drawn", "pass", "over"]
EndReason = Literal["grid", "pile", "early"]


@dataclass(frozen=True)
class Event:
    """One applied action and what it revealed or moved.

    Attributes:
        number: 1-based index in the game's history.
        action: the action.
        card: the card id the action showed or moved: the drawn card (draw,
            discard), the replaced card sent to the discard pile (swap), the card
            looked at (peek), the turned card (snap), the passed card (pass);
            ``None`` for steal and end.
        seen_by: seats that saw ``card`` in this event (all for face-up cards).
        correct: for a snap, whether the turned card matched the discard pile.
        penalty: penalty card ids drawn face down after a wrong snap (seen by nobody).
        to_pos: for a pass, the receiver's position the card went to; for a
            penalty, the snapper's new position of the first penalty card.
        ended: ``None``, or why the game ended right after this event.
        to_seat: for a pass or a declined pass (``nopass``), the seat whose card was
            snapped (the receiver); else ``None``.
    """

    number: int
    action: Action
    card: int | None = None
    seen_by: frozenset[int] = frozenset()
    correct: bool | None = None
    penalty: tuple[int, ...] = ()
    to_pos: int | None = None
    ended: EndReason | None = None
    to_seat: int | None = None


@dataclass(frozen=True)
class GolfResult:
    """The outcome of a finished game (docs/golf.md, "Scoring": fewest points wins).

    Attributes:
        scores: points left in each grid, per seat.
        outcomes: per seat ``"win"`` (unique lowest score), ``"draw"`` (shared
            lowest) or ``"loss"``.
        reason: ``"grid"`` (a grid emptied), ``"pile"`` (draw pile empty) or
            ``"early"`` (ended early, last turns played).
        ended_by: the seat that ended early, or ``None``.
        extra_cards: extra bottom-row cards per seat for the next game: the
            early ender gets ``ruleset.ender_extra_cards`` when they lost
            (a shared lowest score is a draw, not a loss; docs/golf.md, "Ending early").
        score_difference: per seat, own score minus the best opponent's score
            (negative is good).
    """

    scores: tuple[int, ...]
    outcomes: tuple[str, ...]
    reason: EndReason
    ended_by: int | None
    extra_cards: tuple[int, ...]
    score_difference: tuple[int, ...]

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats with the lowest score."""
        return tuple(s for s, o in enumerate(self.outcomes) if o != "loss")

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {
            "scores": list(self.scores),
            "outcomes": list(self.outcomes),
            "reason": self.reason,
            "ended_by": self.ended_by,
            "extra_cards": list(self.extra_cards),
            "score_difference": list(self.score_difference),
        }


def shuffled_deck(ruleset: GolfRuleset, seed: str) -> list[int]:
    """The deal order (card ids, first dealt first) for ``seed`` (``random.Random(seed)``)."""
    deck = list(range(ruleset.deck_size))
    random.Random(seed).shuffle(deck)
    return deck


class GolfGame:
    """A Golf game in progress (docs/golf.md, Rules).

    Args:
        ruleset: the variant (default :class:`GolfRuleset()`).
        seed: shuffles the deck (kept as text in ``self.seed``); ``None`` draws
            a fresh seed so every game can be recorded.
        deck: an explicit deal order of card ids (first dealt first), a
            permutation of ``range(ruleset.deck_size)``; overrides ``seed``.
        first_player: the seat that takes the first turn (default 0).
        extra_cards: per seat, extra bottom-row cards dealt after the grids
            (an early ender's penalty from the previous game); looked at with
            the bottom row.

    Deal: one card at a time to each seat in turn, filling each grid row by
    row from the top; then the extra cards. The rest is the draw pile, in
    order (``self.draw_pile[-1]`` is the top).

    Raises:
        GolfError: a bad deck, seat or extra-card count.
    """

    def __init__(
        self,
        ruleset: GolfRuleset | None = None,
        *,
        seed: int | str | None = None,
        deck: Sequence[int] | None = None,
        first_player: int = 0,
        extra_cards: Sequence[int] | None = None,
    ) -> None:
        self.ruleset = rs = ruleset if ruleset is not None else GolfRuleset()
        n = rs.players
        self.seed, order = _deal_order(rs, seed, deck)
        extra = _check_start(n, first_player, extra_cards)
        self.initial_deck: tuple[int, ...] = tuple(order)
        self.first_player = first_player
        self.extra_cards = extra
        self._deal(order)
        self.discard: list[int] = []
        first_peek_row = rs.rows - rs.peek_rows
        self.known: list[set[int]] = [
            {
                c
                for c, r in zip(self.grids[p], self.slot_rows[p], strict=True)
                if r >= first_peek_row and c is not None
            }
            for p in range(n)
        ]
        self.phase: Phase = "draw"
        self.current = first_player
        self.turn = 1
        self.drawn: int | None = None
        self.power_used = False
        self.power_card: int | None = None  # the card the held Detective/Thief just used
        self.passer: int | None = None
        self.pass_target: tuple[int, int] | None = None
        self.resume_phase: Phase = "draw"
        self.snaps_made = [0] * n  # successful snaps, own and opponents' cards
        self.own_snaps = [0] * n  # own grid cards discarded by a snap: count toward ending early
        self.ended_by: int | None = None
        self.last_turns: list[int] = []
        self.end_reason: EndReason | None = None
        self.history: list[Event] = []
        self._check_end()

    def _deal(self, order: list[int]) -> None:
        """Deal ``order`` (first card first): the grids row by row, one card per seat in turn,
        then each seat's extra cards into the bottom row; the rest is the draw pile."""
        rs = self.ruleset
        n = rs.players
        self.grids: list[list[int | None]] = [[] for _ in range(n)]
        self.slot_rows: list[list[int]] = [[] for _ in range(n)]
        it = iter(order)
        for i in range(rs.grid_size):
            for p in range(n):
                self.grids[p].append(next(it))
                self.slot_rows[p].append(i // rs.cols)
        for p in range(n):
            for _ in range(self.extra_cards[p]):
                self.grids[p].append(next(it))
                self.slot_rows[p].append(rs.rows - 1)
        self.draw_pile: list[int] = list(it)[::-1]

    # ----------------------------------------------------------------- queries
    @property
    def players(self) -> int:
        """Number of seats."""
        return self.ruleset.players

    @property
    def actor(self) -> int | None:
        """The seat whose turn action (not a snap) the game waits for; ``None`` when over."""
        if self.phase == "over":
            return None
        if self.phase == "pass":
            return self.passer
        return self.current

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.phase == "over"

    @property
    def top(self) -> int | None:
        """The top card of the discard pile, or ``None``."""
        return self.discard[-1] if self.discard else None

    def cards_in(self, seat: int) -> list[int]:
        """Positions of ``seat``'s grid that hold a card (holes left out)."""
        return [i for i, c in enumerate(self.grids[seat]) if c is not None]

    def can_end_early(self, seat: int) -> bool:
        """Whether ``EndEarly(seat)`` is legal now: the start of ``seat``'s turn, nobody has
        ended early, and ``seat`` has snapped at least ``early_end_min`` cards of their own grid
        (``own_snaps``; docs/golf.md, "Ending early")."""
        return (
            self.phase == "draw"
            and self.current == seat
            and self.ended_by is None
            and self.own_snaps[seat] >= self.ruleset.early_end_min
        )

    def snaps_open(self) -> bool:
        """Whether snaps are accepted now (by a player whose grid is not frozen): phase
        ``"draw"`` or ``"drawn"``, a card on the discard pile, and at least
        ``ruleset.penalty_cards`` cards in the draw pile, so that a wrong snap can take its
        penalty (docs/golf.md, "Snapping")."""
        return (
            self.phase in ("draw", "drawn")
            and bool(self.discard)
            and len(self.draw_pile) >= self.ruleset.penalty_cards
        )

    def power_pos(self) -> int | None:
        """The position in the current player's grid of the card the held Detective or Thief
        just used (looked at, or received in the Thief's exchange), where that card may not be
        swapped (docs/golf.md, "The Detective"); ``None`` when no power was used or that card
        has left the grid."""
        if self.power_card is None or self.drawn is None:
            return None
        grid = self.grids[self.current]
        return grid.index(self.power_card) if self.power_card in grid else None

    def scores(self) -> tuple[int, ...]:
        """Points in each grid now (docs/golf.md, "Scoring": counted at the end)."""
        v = self.ruleset.values
        return tuple(sum(v[c % 13] for c in g if c is not None) for g in self.grids)

    def result(self) -> GolfResult:
        """Scores and outcomes of the finished game.

        Raises:
            WrongPhase: the game is not over.
        """
        if self.phase != "over":
            raise WrongPhase("the game is not over yet")
        scores = self.scores()
        low = min(scores)
        n_low = scores.count(low)
        outcomes = tuple("loss" if s > low else ("win" if n_low == 1 else "draw") for s in scores)
        extra = [0] * self.players
        if self.ended_by is not None and outcomes[self.ended_by] == "loss":
            extra[self.ended_by] = self.ruleset.ender_extra_cards
        diff = tuple(s - min(scores[o] for o in range(self.players) if o != p) for p, s in enumerate(scores))
        assert self.end_reason is not None
        return GolfResult(scores, outcomes, self.end_reason, self.ended_by, tuple(extra), diff)

    def all_cards(self) -> list[int]:
        """Every card id in the game: grids, draw pile, discard pile and the drawn card."""
        cards = [c for g in self.grids for c in g if c is not None]
        cards += self.draw_pile + self.discard
        if self.drawn is not None:
            cards.append(self.drawn)
        return cards

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """The turn actions (not snaps) ``seat`` (default: the actor) may take now."""
        if seat is None:
            seat = self.actor
        if seat is None or seat != self.actor:
            return []
        own = self.cards_in(seat)
        if self.phase == "pass":
            return [*(Pass(seat, p) for p in own), NoPass(seat)]
        if self.phase == "draw":
            acts: list[Action] = [Draw(seat)]
            if self.can_end_early(seat):
                acts.append(EndEarly(seat))
            return acts
        used = self.power_pos()
        return [Discard(seat), *(Swap(seat, p) for p in own if p != used), *self._power_actions(seat, own)]

    def _power_actions(self, seat: int, own: list[int]) -> list[Action]:
        """The Detective's peeks or the Thief's steals the held card allows (none once used)."""
        if self.power_used:
            return []
        power = self.ruleset.power(card_rank(self._held()))
        if power == "detective":
            return [Peek(seat, p) for p in own]
        if power == "thief":
            return [
                Steal(seat, p, t, q)
                for p in own
                for t in range(self.players)
                if t != seat and t != self.ended_by
                for q in self.cards_in(t)
            ]
        return []

    def legal_snaps(self, seat: int) -> list[Snap]:
        """Every snap ``seat`` may try now (right or wrong), own cards first."""
        if not self.snaps_open() or seat == self.ended_by:
            return []
        owners = [seat] + (
            [o for o in range(self.players) if o != seat and o != self.ended_by]
            if self.ruleset.snap_opponents
            else []
        )
        return [Snap(seat, o, p) for o in owners for p in self.cards_in(o)]

    def snapshot(self) -> tuple:
        """Every part of the state as nested tuples (equal snapshots = equal states)."""
        return (
            self.ruleset,
            self.seed,
            self.initial_deck,
            self.first_player,
            self.extra_cards,
            tuple(map(tuple, self.grids)),
            tuple(map(tuple, self.slot_rows)),
            tuple(self.draw_pile),
            tuple(self.discard),
            tuple(frozenset(k) for k in self.known),
            self.phase,
            self.current,
            self.turn,
            self.drawn,
            self.power_used,
            self.power_card,
            self.passer,
            self.pass_target,
            self.resume_phase,
            tuple(self.snaps_made),
            tuple(self.own_snaps),
            self.ended_by,
            tuple(self.last_turns),
            self.end_reason,
            tuple(self.history),
        )

    def copy(self) -> "GolfGame":
        """An independent copy (history shared as an immutable prefix)."""
        g = GolfGame.__new__(GolfGame)
        g.__dict__.update(self.__dict__)
        g.grids = [list(x) for x in self.grids]
        g.slot_rows = [list(x) for x in self.slot_rows]
        g.draw_pile = list(self.draw_pile)
        g.discard = list(self.discard)
        g.known = [set(k) for k in self.known]
        g.snaps_made = list(self.snaps_made)
        g.own_snaps = list(self.own_snaps)
        g.last_turns = list(self.last_turns)
        g.history = list(self.history)
        return g

    # ----------------------------------------------------------------- actions
    def apply(self, action: Action) -> Event:
        """Validate and apply one action; return the :class:`Event`.

        Raises:
            GameOver: the game has ended.
            NotYourTurn: a turn action by someone other than :attr:`actor`.
            WrongPhase: an action that does not fit the step of the turn.
            NoSuchCard: a position that does not exist or is a hole.
            NothingToSnap: a snap onto an empty discard pile.
            NoPenaltyCard: a snap while the draw pile holds fewer cards than a wrong
                snap's penalty (``ruleset.penalty_cards``).
            SameCard: swapping a drawn Detective or Thief into the card its power just used.
            EndTooSoon: ending early without enough own grid cards discarded by snapping.
            FrozenGrid: a snap by the early ender, or a snap or Thief swap against them.
            IllegalAction: any other rule violation (the base class of all above).
        """
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise IllegalAction(f"{quoted(action)} is not a Golf action")
        if not _is_seat(action.player, self.players):
            raise IllegalAction(f"no player {quoted(action.player)} in a {self.players}-player game")
        if self.phase == "over":
            raise GameOver("the game is over", action.player)
        return handler(self, action)

    def _held(self) -> int:
        """The drawn card: set in the phases after a draw (``drawn``, ``power``), which every
        caller has checked first."""
        assert self.drawn is not None, f"no card is drawn in phase {self.phase!r}"
        return self.drawn

    def _pass_seat(self) -> int:
        """The seat that must pass a card: set in the ``pass`` phase, which every caller has
        checked first."""
        assert self.passer is not None, f"nobody passes in phase {self.phase!r}"
        return self.passer

    def _pass_slot(self) -> tuple[int, int]:
        """``(owner, position)`` of the snapped card that earned the pass: set with
        :meth:`_pass_seat`."""
        assert self.pass_target is not None, f"no pass is due in phase {self.phase!r}"
        return self.pass_target

    def _need_turn(self, action: Action, *phases: str) -> None:
        if action.player != self.actor:
            if self.phase == "pass":
                raise NotYourTurn(
                    f"{format_seat(self._pass_seat())} must first pass a card or pass nothing; you wait",
                    action.player,
                )
            raise NotYourTurn(f"it is {format_seat(self.current)}'s turn, not yours", action.player)
        if self.phase not in phases:
            wanted = {
                "draw": "draw or end",
                "drawn": "discard, swap, peek or steal",
                "pass": "pass a card or pass nothing",
            }[self.phase]
            raise WrongPhase(f"cannot {action.kind} now: you must {wanted}", action.player)

    def _need_card(self, seat: int, pos: object, whose: str = "your") -> int:
        grid = self.grids[seat]
        if not isinstance(pos, int) or isinstance(pos, bool) or not 0 <= pos < len(grid):
            raise NoSuchCard(
                f"{whose} grid has no position {_pos_text(pos)} (positions 1..{len(grid)})", seat
            )
        card = grid[pos]
        if card is None:
            raise NoSuchCard(f"position {pos + 1} of {whose} grid is empty", seat)
        return card

    def _event(self, action: Action, card: int | None = None, seen_by=(), **kw) -> Event:
        ev = Event(len(self.history) + 1, action, card, frozenset(seen_by), **kw)
        self.history.append(ev)
        return ev

    def _all(self) -> range:
        return range(self.players)

    def _draw(self, a: Draw) -> Event:
        self._need_turn(a, "draw")
        card = self.draw_pile.pop()
        self.drawn = card
        self.power_used = False
        self.power_card = None
        self.phase = "drawn"
        public = self.ruleset.power(card_rank(card)) is not None
        seen = set(self._all()) if public else {a.player}
        for p in seen:
            self.known[p].add(card)
        return self._event(a, card, seen)

    def _end_early(self, a: EndEarly) -> Event:
        self._need_turn(a, "draw")
        if self.ended_by is not None:
            raise EndTooSoon(f"{format_seat(self.ended_by)} has already ended the game early", a.player)
        need = self.ruleset.early_end_min
        if self.own_snaps[a.player] < need:
            raise EndTooSoon(
                f"ending early needs {need} discarded grid cards (cards of your own grid you "
                f"snapped; snaps of opponents' cards do not count); you have {self.own_snaps[a.player]}",
                a.player,
            )
        self.ended_by = a.player
        n = self.players
        self.last_turns = [(a.player + k) % n for k in range(1, n)]
        ev = self._event(a)
        self.turn += 1
        self.current = self.last_turns[0]
        self._check_end()
        return self._mark_end(ev)

    def _discard(self, a: Discard) -> Event:
        self._need_turn(a, "drawn")
        card = self.drawn
        assert card is not None
        self.discard.append(card)
        self._reveal(card)
        self.drawn = None
        ev = self._event(a, card, self._all())
        self._end_turn()
        return self._mark_end(ev)

    def _swap(self, a: Swap) -> Event:
        self._need_turn(a, "drawn")
        old = self._need_card(a.player, a.pos)
        if old == self.power_card:
            power = "Detective" if self.ruleset.power(card_rank(self._held())) == "detective" else "Thief"
            used = "looked at" if power == "Detective" else "received from the exchange"
            raise SameCard(
                f"the {power} can only go into a further card of your grid, not position {a.pos + 1}, "
                f"the card you just {used}",
                a.player,
            )
        self.grids[a.player][a.pos] = self.drawn
        self.discard.append(old)
        self._reveal(old)
        self.drawn = None
        ev = self._event(a, old, self._all())
        self._end_turn()
        return self._mark_end(ev)

    def _peek(self, a: Peek) -> Event:
        self._need_turn(a, "drawn")
        if self.ruleset.power(card_rank(self._held())) != "detective":
            raise WrongPhase(
                f"only a drawn Detective lets you look at a card; you hold {rank_name(card_rank(self._held()))}",
                a.player,
            )
        if self.power_used:
            raise WrongPhase("the Detective has already been used this turn", a.player)
        card = self._need_card(a.player, a.pos)
        self.known[a.player].add(card)
        self.power_used = True
        self.power_card = card
        return self._event(a, card, {a.player})

    def _steal(self, a: Steal) -> Event:
        self._need_turn(a, "drawn")
        if self.ruleset.power(card_rank(self._held())) != "thief":
            raise WrongPhase(
                f"only a drawn Thief lets you swap with an opponent; you hold {rank_name(card_rank(self._held()))}",
                a.player,
            )
        if self.power_used:
            raise WrongPhase("the Thief has already been used this turn", a.player)
        if not _is_seat(a.target, self.players) or a.target == a.player:
            raise IllegalAction(
                f"the Thief swaps with an opponent; {_seat_text(a.target)} is not one", a.player
            )
        if a.target == self.ended_by:
            raise FrozenGrid(f"{format_seat(a.target)} ended the game early: their grid is frozen", a.player)
        mine = self._need_card(a.player, a.pos)
        theirs = self._need_card(a.target, a.target_pos, f"{format_seat(a.target)}'s")
        self.grids[a.player][a.pos] = theirs
        self.grids[a.target][a.target_pos] = mine
        self.power_used = True
        self.power_card = theirs
        return self._event(a)

    def _snap(self, a: Snap) -> Event:
        self._check_snap(a)
        whose = "your" if a.owner == a.player else f"{format_seat(a.owner)}'s"
        card = self._need_card(a.owner, a.pos, whose)
        self._reveal(card)
        if card_rank(card) == card_rank(self.discard[-1]):
            ev = self._right_snap(a, card)  # over at once if a grid is now empty
        else:  # the card stays where it was, in its owner's grid (docs/golf.md, "Snapping")
            ev = self._wrong_snap(a, card)
        if self.phase == "draw":
            self._check_end()
        return self._mark_end(ev)

    def _check_snap(self, a: Snap) -> None:
        """Refuse a snap out of turn order, onto nothing, without penalty cards, or against the rules."""
        if self.phase == "pass":
            raise WrongPhase(
                f"wait: {format_seat(self._pass_seat())} must first pass a card or pass nothing", a.player
            )
        if not self.discard:
            raise NothingToSnap("the discard pile is empty: there is nothing to snap onto", a.player)
        need = self.ruleset.penalty_cards
        if len(self.draw_pile) < need:
            left = "is empty" if not self.draw_pile else f"holds {len(self.draw_pile)} card(s)"
            raise NoPenaltyCard(
                f"no more snaps: the draw pile {left}, so a wrong snap could not take its "
                f"{need} penalty card(s)",
                a.player,
            )
        if not _is_seat(a.owner, self.players):
            raise IllegalAction(f"no player {_seat_text(a.owner)} to snap from", a.player)
        if a.owner != a.player and not self.ruleset.snap_opponents:
            raise IllegalAction("this ruleset does not allow snapping opponents' cards", a.player)
        if a.player == self.ended_by:
            raise FrozenGrid("you ended the game early: your grid is frozen, so you snap no more", a.player)
        if a.owner == self.ended_by:
            raise FrozenGrid(f"{format_seat(a.owner)} ended the game early: their grid is frozen", a.player)

    def _right_snap(self, a: Snap, card: int) -> Event:
        """The snapped ``card`` goes onto the discard pile; after an opponent's card, the snapper
        passes one of theirs (the phase becomes ``"pass"``), unless a grid is now empty (over)."""
        self.grids[a.owner][a.pos] = None
        self.discard.append(card)
        self.snaps_made[a.player] += 1
        if a.owner == a.player:
            self.own_snaps[a.player] += 1
        ev = self._event(a, card, self._all(), correct=True)
        if self._grid_emptied():
            return self._mark_end(ev)
        if a.owner != a.player and self.cards_in(a.player):
            self.resume_phase = self.phase
            self.phase = "pass"
            self.passer = a.player
            self.pass_target = (a.owner, a.pos)
        return ev

    def _wrong_snap(self, a: Snap, card: int) -> Event:
        """The snapper takes the penalty cards from the draw pile into new slots of their grid."""
        penalty = []
        first = len(self.grids[a.player])
        for _ in range(self.ruleset.penalty_cards):  # the draw pile holds them: checked above
            penalty.append(self.draw_pile.pop())
            self.grids[a.player].append(penalty[-1])
            self.slot_rows[a.player].append(0)
        return self._event(
            a, card, self._all(), correct=False, penalty=tuple(penalty), to_pos=first if penalty else None
        )

    def _pass(self, a: Pass) -> Event:
        self._need_turn(a, "pass")
        card = self._need_card(a.player, a.pos)
        owner, pos = self._pass_slot()
        self.grids[a.player][a.pos] = None
        self.grids[owner][pos] = card
        seen = {p for p in self._all() if card in self.known[p]}
        self._resume()
        ev = self._event(a, card, seen, to_pos=pos, to_seat=owner)
        if not self._grid_emptied() and self.phase == "draw":
            self._check_end()
        return self._mark_end(ev)

    def _no_pass(self, a: NoPass) -> Event:
        self._need_turn(a, "pass")
        owner = self._pass_slot()[0]
        self._resume()
        ev = self._event(a, to_seat=owner)
        if self.phase == "draw":
            self._check_end()
        return self._mark_end(ev)

    def _resume(self) -> None:
        self.phase = self.resume_phase
        self.passer = None
        self.pass_target = None

    # ---------------------------------------------------------------- helpers
    def _reveal(self, card: int) -> None:
        for k in self.known:
            k.add(card)

    def _end_turn(self) -> None:
        self.turn += 1
        self.power_used = False
        self.power_card = None
        if self.ended_by is not None:
            self.last_turns.pop(0)
            if not self.last_turns:
                self.phase = "over"
                self.end_reason = "early"
                return
            self.current = self.last_turns[0]
        else:
            self.current = (self.current + 1) % self.players
        self.phase = "draw"
        self._check_end()

    def _grid_emptied(self) -> bool:
        """End the game at once, in any phase, when a grid holds no card (docs/golf.md,
        "End of the game"); a card still held by the drawer belongs to no grid."""
        if any(all(c is None for c in g) for g in self.grids):
            self.phase, self.end_reason = "over", "grid"
            self.passer = self.pass_target = None
            return True
        return False

    def _check_end(self) -> None:
        if self.phase != "draw":
            return
        if not self._grid_emptied() and not self.draw_pile:
            self.phase, self.end_reason = "over", "pile"

    def _mark_end(self, ev: Event) -> Event:
        if self.phase == "over" and ev.ended is None:
            ev = dataclasses.replace(ev, ended=self.end_reason)
            self.history[-1] = ev
        return ev

    def __repr__(self) -> str:
        return (
            f"<GolfGame seed={self.seed!r} phase={self.phase} turn={self.turn} "
            f"current={format_seat(self.current)} pile={len(self.draw_pile)}>"
        )


def _deal_order(
    rs: GolfRuleset, seed: int | str | None, deck: Sequence[int] | None
) -> tuple[str | None, list[int]]:
    """``(seed text, deal order)`` for :class:`GolfGame`: ``deck`` as given (the seed kept only
    as a label) or the seed's shuffle (a random seed when none is given).

    Raises:
        GolfError: ``deck`` is not each card id once.
    """
    if deck is not None:
        order = list(deck)
        if sorted(order) != list(range(rs.deck_size)):
            raise GolfError(f"deck must hold each card id 0..{rs.deck_size - 1} once")
        return (None if seed is None else str(seed)), order
    seed_text = str(seed) if seed is not None else secrets.token_hex(8)
    return seed_text, shuffled_deck(rs, seed_text)


def _check_start(n: int, first_player: int, extra_cards: Sequence[int] | None) -> tuple[int, ...]:
    """The extra cards per seat (``0`` each by default), after checking the starting seat.

    Raises:
        GolfError: ``first_player`` is not a seat, or ``extra_cards`` is not 0..3 per seat.
    """
    if not isinstance(first_player, int) or not 0 <= first_player < n:
        raise GolfError(f"first_player must be a seat 0..{n - 1}, not {quoted(first_player)}")
    extra = tuple(extra_cards) if extra_cards is not None else (0,) * n
    if len(extra) != n or any(not isinstance(x, int) or not 0 <= x <= 3 for x in extra):
        raise GolfError(f"extra_cards must give 0..3 cards for each of {n} seats, not {quoted(extra_cards)}")
    return extra


def _is_seat(x: object, players: int) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < players


def _pos_text(pos: object) -> str:
    return str(pos + 1) if isinstance(pos, int) and not isinstance(pos, bool) else repr(pos)


def _seat_text(seat: object) -> str:
    return (
        format_seat(seat)
        if isinstance(seat, int) and not isinstance(seat, bool) and seat >= 0
        else repr(seat)
    )


# each handler takes the game and its own action class (the key); Any stands for that pairing
_HANDLERS: dict[type, Callable[[GolfGame, Any], Event]] = {
    Draw: GolfGame._draw,
    EndEarly: GolfGame._end_early,
    Discard: GolfGame._discard,
    Swap: GolfGame._swap,
    Peek: GolfGame._peek,
    Steal: GolfGame._steal,
    Snap: GolfGame._snap,
    Pass: GolfGame._pass,
    NoPass: GolfGame._no_pass,
}

__all__ = ["GolfGame", "Event", "GolfResult", "shuffled_deck"]
