"""Positions of 2-player Goofspiel as the solver sees them, and which rulesets it covers.

A :class:`Position` is taken *before* the next prize is turned up: the
face-down prizes, both hands, the pot carried from tied rounds (carry-over
ties) and the running point difference (win objective). During a bid round
the prize just turned up is still counted among the face-down prizes and the
round is described by :class:`Position` plus that ``prize``
(:func:`position_from_view`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable

from cardtable.errors import CardtableError
from cardtable.goofspiel import Ruleset, parse_card, rank_name
from cardtable.goofspiel.state import prize_order_for

Objective = str  # "points" | "win"
OBJECTIVES = ("points", "win")
TIE_RULES = ("carry", "discard")


class UnsupportedRuleset(CardtableError, ValueError):
    """The ruleset is outside the exact solver's reach (3+ players, multi-card bids, open prizes)."""


class ImpossiblePosition(CardtableError, ValueError):
    """A position that no game of the ruleset can reach (the message says why)."""


def check_supported(ruleset: Ruleset) -> None:
    """Raise :class:`UnsupportedRuleset` unless the solver covers ``ruleset``.

    Covered: 2 players, single-card bids, one prize at a time, shuffled or
    fixed prize order, either tie rule, low or high ace, 1..13 cards.
    """
    problems = []
    if ruleset.players != 2:
        problems.append(f"{ruleset.players} players (the solver handles 2-player zero-sum games)")
    if ruleset.cards_per_bid != 1:
        problems.append("multi-card bids")
    if ruleset.open_prizes != 1:
        problems.append("open prizes")
    if problems:
        raise UnsupportedRuleset(
            "the exact solver does not cover "
            + ", ".join(problems)
            + f" (ruleset: {ruleset.describe()}); it solves 2-player games with single-card bids "
            "and one prize at a time"
        )


@dataclass(frozen=True)
class Position:
    """A 2-player position before the next prize is revealed.

    Attributes:
        prizes: face-down prizes (face ranks), as many as cards in each hand.
        hands: (player A's cards, player B's cards), face ranks.
        pot: points carried from tied rounds (carry-over ties; 0 with discard).
        diff: A's points minus B's points so far (used by the win objective).
    """

    prizes: frozenset[int]
    hands: tuple[frozenset[int], frozenset[int]]
    pot: int = 0
    diff: int = 0

    @property
    def k(self) -> int:
        return len(self.prizes)

    def swapped(self) -> "Position":
        """The same position with the players exchanged (value negated)."""
        return Position(self.prizes, (self.hands[1], self.hands[0]), self.pot, -self.diff)

    def _check_pot(self, ruleset: Ruleset, gone: list[int], values: list[int]) -> None:
        """Raise :class:`ImpossiblePosition` unless the (positive) pot is a sum of the
        revealed prizes ``gone`` (values ``values``) that these hands can have tied for."""
        fewest = _fewest_summing(values, self.pot)
        if fewest is None:
            raise ImpossiblePosition(f"a pot of {self.pot} is no sum of prizes already revealed ({gone})")
        deck = set(range(1, ruleset.cards + 1))
        st = ruleset.strength
        both = {st(c) for c in deck - set(self.hands[0])} & {st(c) for c in deck - set(self.hands[1])}
        if fewest > len(both):  # docs/solver.md, Table format 2: states no game reaches
            raise ImpossiblePosition(
                f"a pot of {self.pot} cannot arise with these hands (a pot of j prizes needs j "
                f"strengths that both players have played; {len(both)} have been)"
            )

    def validate(self, ruleset: Ruleset) -> None:
        """Raise :class:`ImpossiblePosition` unless a game of ``ruleset`` can reach it."""
        n = ruleset.cards
        deck = set(range(1, n + 1))
        for name, cards in (
            ("prizes", self.prizes),
            ("A's hand", self.hands[0]),
            ("B's hand", self.hands[1]),
        ):
            bad = sorted(set(cards) - deck)
            if bad:
                raise ImpossiblePosition(f"{name} hold {bad}, not cards of a 1..{n} suit")
        k = len(self.prizes)
        if len(self.hands[0]) != k or len(self.hands[1]) != k:
            raise ImpossiblePosition(
                f"each hand must hold as many cards as there are face-down prizes ({k}); "
                f"got {len(self.hands[0])} and {len(self.hands[1])}"
            )
        if ruleset.fixed_order:
            order = prize_order_for(ruleset, None)
            if set(order[len(order) - k :]) != set(self.prizes):
                raise ImpossiblePosition(
                    f"with the prize order {order} the face-down prizes must be the last {k} of it"
                )
        gone = sorted(deck - set(self.prizes))
        values = [ruleset.prize_value(c) for c in gone]
        if self.pot < 0:
            raise ImpossiblePosition(f"the pot cannot be negative ({self.pot})")
        if self.pot and ruleset.tie_rule == "discard":
            raise ImpossiblePosition("with discard ties there is never a pot")
        if self.pot:
            self._check_pot(ruleset, gone, values)
        if abs(self.diff) + self.pot > sum(values):
            raise ImpossiblePosition(
                f"a point difference of {self.diff} with a pot of {self.pot} exceeds the "
                f"{sum(values)} points of the prizes already revealed"
            )


def _fewest_summing(values: Iterable[int], target: int) -> int | None:
    """The fewest of ``values`` (each used at most once) adding up to ``target``, or None."""
    fewest = {0: 0}
    for v in values:
        for total, count in list(fewest.items()):
            t = total + v
            if t <= target and fewest.get(t, count + 2) > count + 1:
                fewest[t] = count + 1
    return fewest.get(target)


def position_from_view(view) -> tuple[Position, int]:
    """The position before this round's reveal, and the prize turned up.

    ``view`` is a :class:`cardtable.goofspiel.PlayerView` in the bid phase. The
    position is seen from seat 0 (A = seat 0); ``diff`` is seat 0's points minus
    seat 1's.

    Raises:
        ValueError: the view is not in the bid phase.
    """
    if view.phase != "bid":
        raise ValueError(f"no bid is pending (phase {view.phase!r})")
    rs = view.ruleset
    prize = view.pot[-1]
    carried = view.pot[:-1]
    prizes = frozenset(view.remaining_prizes) | {prize}
    pot = sum(rs.prize_value(c) for c in carried)
    diff = view.points[0] - view.points[1]
    return Position(prizes, (frozenset(view.hands[0]), frozenset(view.hands[1])), pot, diff), prize


def parse_cards(text: str, n: int) -> frozenset[int]:
    """Parse ``"1,2,5-7"`` / ``"A 2 J Q K"`` / ``"all"`` into face ranks.

    Raises:
        ValueError: unreadable card names, a card listed twice, a range from high to low.
    """
    text = text.strip()
    if text.lower() in ("all", "*"):
        return frozenset(range(1, n + 1))
    if text in ("", "-", "none"):
        return frozenset()
    out: list[int] = []
    for item in text.replace(",", " ").split():
        lo, sep, hi = item.partition("-")
        if sep and lo and hi:
            first, last = parse_card(lo, n), parse_card(hi, n)
            if first > last:  # "3-A": an empty range is a typo, not "no cards"
                raise ValueError(f"the range {item!r} is empty: write the lower card first ({hi}-{lo})")
            out.extend(range(first, last + 1))
        else:
            out.append(parse_card(item, n))
    repeated = sorted({c for c in out if out.count(c) > 1})
    if repeated:
        raise ValueError(f"{', '.join(rank_name(c) for c in repeated)} listed twice in {text!r}")
    return frozenset(out)


def all_positions_small(n: int, k: int):
    """Every (prizes, A, B) triple with ``k`` cards of 1..n (small n only; tests)."""
    deck = range(1, n + 1)
    for p in combinations(deck, k):
        for a in combinations(deck, k):
            for b in combinations(deck, k):
                yield frozenset(p), frozenset(a), frozenset(b)
