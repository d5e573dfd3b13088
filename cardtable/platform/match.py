"""Matches of several games, for any game whose games end with a score per player.

Two formats (docs/rules.md, Matches):

- ``total``: play ``games`` games and add each player's points; the highest sum
  wins the match, an equal highest sum shares it.
- ``best-of``: games are won, drawn or lost, with no running point total.
  A game counts 1 for its unique top scorer, 1/2 to each player sharing the top
  score, 0 otherwise. The match ends as soon as no other player can catch the
  leader. A match still level after ``games`` games is decided by the tiebreak
  agreed beforehand: ``extra-game`` (one more game; if that too is level, the match
  is shared -- a decision of this project, so a match always ends) or
  ``total-points`` (points summed over the games played; equal sums share).

Scores are "higher is better" (Goofspiel prize points). A game where lower is
better (Golf) passes negated scores.

>>> m = Match(MatchFormat("best-of", 3), players=2)
>>> m.add_game((40, 30)); m.add_game((50, 41)); m.is_over
True
>>> m.result()
('win', 'loss')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal, Sequence

from cardtable.errors import CardtableError

MatchKind = Literal["total", "best-of"]
Tiebreak = Literal["extra-game", "total-points"]


class MatchError(CardtableError, ValueError):
    """A malformed match format, or a game added to a match that is over."""


@dataclass(frozen=True)
class MatchFormat:
    """How a match is decided.

    Args:
        kind: ``"total"`` or ``"best-of"``.
        games: number of games, at least 1 (odd for best-of is usual, not required).
        tiebreak: for best-of only: ``"extra-game"`` or ``"total-points"``.

    Raises:
        MatchError: for an unknown kind or tiebreak, or ``games < 1``.
    """

    kind: MatchKind = "total"
    games: int = 1
    tiebreak: Tiebreak = "extra-game"

    def __post_init__(self) -> None:
        if self.kind not in ("total", "best-of"):
            raise MatchError(f"match kind must be 'total' or 'best-of', not {self.kind!r}")
        if not isinstance(self.games, int) or self.games < 1:
            raise MatchError(f"match games must be a whole number >= 1, not {self.games!r}")
        if self.tiebreak not in ("extra-game", "total-points"):
            raise MatchError(f"match tiebreak must be 'extra-game' or 'total-points', not {self.tiebreak!r}")

    def __str__(self) -> str:
        if self.kind == "total":
            return f"total {self.games}"
        return f"best-of {self.games} {self.tiebreak}"

    @classmethod
    def parse(cls, text: str) -> "MatchFormat":
        """Parse ``"total 3"``, ``"best-of 5"`` or ``"best-of 3 total-points"``.

        Raises:
            MatchError: for any other text.
        """
        parts = text.split()
        # the kind and tie-break words arrive as plain text: __post_init__ checks them (MatchError)
        try:
            if len(parts) == 2:
                return cls(parts[0], int(parts[1]))  # type: ignore[arg-type]
            if len(parts) == 3:
                return cls(parts[0], int(parts[1]), parts[2])  # type: ignore[arg-type]
        except ValueError as exc:
            if isinstance(exc, MatchError):
                raise
        raise MatchError(
            f"bad match format {text!r}; expected e.g. 'total 3', 'best-of 5' or 'best-of 3 total-points'"
        )


@dataclass
class Match:
    """The running state of a match; add each finished game's scores in order."""

    format: MatchFormat
    players: int
    games: list[tuple[float, ...]] = field(default_factory=list)

    def totals(self) -> tuple[float, ...]:
        """Each player's points summed over the games played."""
        return tuple(sum(g[i] for g in self.games) for i in range(self.players))

    def game_points(self) -> tuple[Fraction, ...]:
        """Best-of tally: 1 per game won, 1/2 per game shared at the top."""
        tally = [Fraction(0)] * self.players
        for scores in self.games:
            top = max(scores)
            winners = [i for i, s in enumerate(scores) if s == top]
            share = Fraction(1, len(winners)) if len(winners) == 1 else Fraction(1, 2)
            for i in winners:
                tally[i] += share
        return tuple(tally)

    @property
    def is_over(self) -> bool:
        n = len(self.games)
        if self.format.kind == "total":
            return n >= self.format.games
        if n > self.format.games:  # the extra game has been played
            return True
        tally = self.game_points()
        left = self.format.games - n
        ranked = sorted(tally, reverse=True)
        if self.players > 1 and ranked[0] > ranked[1] + left:
            return True
        if n < self.format.games:
            return False
        # level after the agreed number of games
        return self.format.tiebreak == "total-points" or self._unique_top(tally)

    @property
    def next_game_is_extra(self) -> bool:
        """True when the next game is the best-of extra (tiebreak) game."""
        return self.format.kind == "best-of" and len(self.games) == self.format.games and not self.is_over

    def add_game(self, scores: Sequence[float]) -> None:
        """Record one finished game's scores (one per player).

        Raises:
            MatchError: the match is already over, or the scores have the wrong length.
        """
        if len(scores) != self.players:
            raise MatchError(f"expected {self.players} scores, got {len(scores)}")
        if self.is_over:
            raise MatchError("the match is over; no more games can be added")
        self.games.append(tuple(scores))

    @staticmethod
    def _unique_top(values: Sequence) -> bool:
        top = max(values)
        return sum(1 for v in values if v == top) == 1

    def standings(self) -> tuple:
        """What decides the match: totals for ``total``; game points, then the tiebreak."""
        if self.format.kind == "total":
            return self.totals()
        tally = self.game_points()
        if (
            self.format.tiebreak == "total-points"
            and len(self.games) >= self.format.games
            and not self._unique_top(tally)
        ):
            top = max(tally)
            totals = self.totals()
            # only the players level at the top compete on total points
            return tuple((t, totals[i]) if t == top else (t, float("-inf")) for i, t in enumerate(tally))
        return tally

    def result(self) -> tuple[str, ...]:
        """Per player ``"win"``, ``"draw"`` (shared) or ``"loss"``.

        Raises:
            MatchError: the match is not over yet.
        """
        if not self.is_over:
            raise MatchError("the match is not over yet")
        standing = self.standings()
        top = max(standing)
        leaders = [i for i, s in enumerate(standing) if s == top]
        outcome = "win" if len(leaders) == 1 else "draw"
        return tuple(outcome if i in leaders else "loss" for i in range(self.players))
