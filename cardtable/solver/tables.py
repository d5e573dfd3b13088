"""The one interface of a solved table, whatever its storage, and what both formats share.

Two storages answer the same queries: :class:`cardtable.solver.table.Table`
(format 1: one float64 array over a :class:`~cardtable.solver.layout.Layout`,
in memory or one memory-mapped file) and
:class:`cardtable.solver.layers.LayeredTable` (format 2: float32 layers over a
:class:`~cardtable.solver.lean.LeanLayout`, memory-mapped from a folder). Both
derive from :class:`SolvedTable`, which holds the lookup steps that do not
depend on the storage: the pattern code of two hands, the prize mask of a
position, the search of a canonical pattern in a layer, the checks of a
position and of a round's prize. Code that only queries a table
(``value``, ``round_strategy``, ``hand_code``) takes a :class:`SolvedTable`.

This module also holds what both table modules need and so sits below them:
the table errors, :class:`RoundStrategy`, the round's matrix game
(:func:`children`, :func:`strategy_of`), the format-1 layouts of a ruleset's
game (:func:`full_layout`, :func:`subgame_layout`) and the check of the game
fields of a table's record (:func:`game_fields_problem`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cardtable.errors import CardtableError
from cardtable.goofspiel import Ruleset
from cardtable.goofspiel.state import prize_order_for

from . import kernel
from .layout import Layout, SolverError, build_layout
from .position import OBJECTIVES, ImpossiblePosition, Position, check_supported


class TableFileError(CardtableError, ValueError):
    """A table file that is missing, damaged, truncated or of another version."""


class TableMismatchError(TableFileError):
    """A valid table of another ruleset or objective found under this game's name."""


@dataclass
class RoundStrategy:
    """The equilibrium of one round's matrix game.

    Attributes:
        value: game value for player A (points or win-minus-loss probability),
            given the prize turned up.
        a: A's mixed strategy, ``{card: probability}``.
        b: B's mixed strategy, ``{card: probability}``.
        matrix: payoff matrix (rows: A's cards ascending by strength; columns: B's).
        gap: difference of the two guarantees (<= 1e-9 relative).
    """

    value: float
    a: dict[int, float]
    b: dict[int, float]
    matrix: np.ndarray
    gap: float


def hand_code(ruleset: Ruleset, pos: Position) -> int:
    """Pattern code of the two hands of ``pos`` (strengths per ``ruleset``): an int
    below ``2**30`` (:func:`cardtable.solver.kernel.compress` of the two strength masks)."""
    st = ruleset.strength
    a = 0
    b = 0
    for c in pos.hands[0]:
        a |= 1 << (st(c) - 1)
    for c in pos.hands[1]:
        b |= 1 << (st(c) - 1)
    return int(kernel.compress(a, b, 15))


class SolvedTable(ABC):
    """A solved table of either format: the queries every consumer uses.

    Attributes (set by each format):
        ruleset: the 2-player ruleset (cards, tie rule, high ace).
        objective: ``"points"`` (expected point difference) or ``"win"``
            (P(win) - P(loss)).
        prize_cards: face rank of each prize index of the layout.
        stats: solve statistics (games, positions, seconds, max_gap, ...).
        path: the file (format 1) or folder (format 2) it was opened from, or None.
        layout: the format-1 :class:`~cardtable.solver.layout.Layout`, and
            ``values`` its float64 value array (one per slot, NaN where no
            position is): a format-2 table builds them on first use and raises
            :class:`TableFileError` when they would be too large.

    Subclasses implement :meth:`value`, :meth:`round_strategy`, :meth:`close`
    and :attr:`upto`.
    """

    ruleset: Ruleset
    objective: str
    prize_cards: tuple[int, ...]
    stats: dict[str, Any]
    path: Path | None

    if TYPE_CHECKING:  # a dataclass field in one format, a property in the other

        @property
        def layout(self) -> Layout: ...

        @property
        def values(self) -> np.ndarray: ...

    @property
    @abstractmethod
    def upto(self) -> int:
        """The most cards per hand the table covers (its highest layer)."""

    @abstractmethod
    def value(self, pos: Position) -> float:
        """Equilibrium value for player A before the next prize is revealed.

        Units: points of A minus points of B still to come (objective ``points``),
        or P(A wins) - P(A loses) of the whole game (``win``; uses ``pos.diff``).

        Raises:
            ImpossiblePosition: the position cannot arise in this table's game.
        """

    @abstractmethod
    def round_strategy(self, pos: Position, prize: int) -> RoundStrategy:
        """Equilibrium of the round played for ``prize`` (just turned up) at ``pos``.

        Raises:
            ImpossiblePosition: bad position, or ``prize`` is not face down there.
        """

    @abstractmethod
    def close(self) -> None:
        """Release the memory maps (queries fail afterwards)."""

    # -- lookup steps shared by both formats ----------------------------------------------

    def hand_code(self, pos: Position) -> int:
        """Pattern code of the two hands (strengths per the ruleset; :func:`hand_code`)."""
        return hand_code(self.ruleset, pos)

    def _check_size(self, pos: Position) -> None:
        """Raise :class:`ImpossiblePosition` when ``pos`` has more cards per hand than
        the table covers."""
        if pos.k > self.upto:
            raise ImpossiblePosition(f"this table covers at most {self.upto} cards per hand")

    def _prize_mask(self, prizes) -> int:
        """Bit mask of the prize indices of the face ranks ``prizes``.

        Raises:
            ImpossiblePosition: a prize is not among this table's prizes.
        """
        try:
            mask = 0
            for c in prizes:
                mask |= 1 << self.prize_cards.index(c)
        except ValueError:
            raise ImpossiblePosition(
                f"prizes {sorted(prizes)} are not all among this table's prizes {sorted(self.prize_cards)}"
            ) from None
        return mask

    @staticmethod
    def _check_prize(pos: Position, prize: int) -> None:
        """Raise :class:`ImpossiblePosition` unless ``prize`` is face down at ``pos``."""
        if prize not in pos.prizes:
            raise ImpossiblePosition(f"prize {prize} is not among the face-down prizes {sorted(pos.prizes)}")

    def _pattern(self, L: Layout, k: int, pos: Position) -> tuple[int, int, int]:
        """(pattern index in layer ``k`` of ``L``, sign, code) of the hands of ``pos``:
        the canonical (smaller) of the code and its swap is stored; sign -1 when the
        position is stored with the players exchanged.

        Raises:
            ImpossiblePosition: the hands are not in the layout.
        """
        code = self.hand_code(pos)
        sw = int(kernel.swap_code(code))
        canon, sign = (code, 1) if code <= sw else (sw, -1)
        lo, hi = int(L.code_off[k]), int(L.code_off[k + 1])
        i = int(np.searchsorted(L.codes[lo:hi], canon))
        if i >= hi - lo or int(L.codes[lo + i]) != canon:
            raise ImpossiblePosition("these hands cannot arise in this table's game")
        return i, sign, code


def children(code: int, k: int, L: Layout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(child pattern index, sign, round outcome) of every bid pair, each ``(k, k)`` int64.

    Raises:
        SolverError: a child is missing from the layout (damaged or foreign table).
    """
    cidx, csign, outc = kernel.children_workspace(k)
    if not kernel.pattern_children(code, k, L.codes, L.code_off, cidx, csign, outc):
        raise SolverError("child position missing from the table layout")
    return cidx, csign, outc


def strategy_of(M: np.ndarray, pos: Position, ruleset: Ruleset) -> RoundStrategy:
    """Solve the round's ``k x k`` matrix ``M`` (rows: A's cards by strength, columns: B's)."""
    k = M.shape[0]
    tab = np.empty((k + 1, 2 * k + 1))
    basis = np.empty(k, dtype=np.int64)
    x = np.empty(k)
    y = np.empty(k)
    v, gap = kernel.solve_matrix_game(M, k, k, tab, basis, x, y)
    st = ruleset.strength
    a_cards = sorted(pos.hands[0], key=st)
    b_cards = sorted(pos.hands[1], key=st)
    return RoundStrategy(
        float(v),
        {c: float(x[j]) for j, c in enumerate(a_cards)},
        {c: float(y[j]) for j, c in enumerate(b_cards)},
        M,
        float(gap),
    )


# -- the format-1 layouts of a game ------------------------------------------------------


def full_layout(ruleset: Ruleset, objective: str, codes_l: list[np.ndarray] | None = None) -> Layout:
    """The layout of the whole game of ``ruleset`` (both hands full, pot 0); ``codes_l``:
    its pattern codes per layer when known (:func:`.layout.build_layout`).

    Raises:
        UnsupportedRuleset: ruleset outside the solver's reach.
        ValueError: unknown objective.
    """
    check_supported(ruleset)
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    n = ruleset.cards
    pval = [ruleset.prize_value(c) for c in range(1, n + 1)]
    full = 0
    for c in range(1, n + 1):
        full |= 1 << (ruleset.strength(c) - 1)
    return build_layout(
        pval,
        full,
        full,
        15,
        ruleset.tie_rule == "carry",
        objective == "win",
        order=_order_indices(ruleset, tuple(range(1, n + 1))),
        codes_l=codes_l,
    )


def _order_indices(ruleset: Ruleset, cards: tuple[int, ...]) -> list[int] | None:
    """Reveal order of ``cards`` as indices into ``cards`` (fixed order), or None (shuffled)."""
    if not ruleset.fixed_order:
        return None
    order = [c for c in prize_order_for(ruleset, None) if c in cards]
    return [cards.index(c) for c in order]


def subgame_layout(ruleset: Ruleset, pos: Position, objective: str = "points") -> Layout:
    """Layout of the positions reachable from ``pos`` (hands, face-down prizes, pot, diff).

    Raises:
        UnsupportedRuleset, ImpossiblePosition.
    """
    check_supported(ruleset)
    pos.validate(ruleset)
    cards = tuple(sorted(pos.prizes))
    st = ruleset.strength
    a = sum(1 << (st(c) - 1) for c in pos.hands[0])
    b = sum(1 << (st(c) - 1) for c in pos.hands[1])
    layout = build_layout(
        [ruleset.prize_value(c) for c in cards],
        a,
        b,
        15,
        ruleset.tie_rule == "carry",
        objective == "win",
        pos.pot,
        pos.diff if objective == "win" else 0,
        order=_order_indices(ruleset, cards),
    )
    layout.extra["prize_cards"] = cards
    return layout


# -- records of both formats --------------------------------------------------------------


def _whole(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def game_fields_problem(meta: dict) -> str | None:
    """The first malformed game field of a table's record (format 1 header or format 2
    ``table.json``: ``cards``, ``tie_rule``, ``high_ace``, ``objective``, ``prize_cards``),
    or None."""
    if not _whole(meta.get("cards")) or not 1 <= meta["cards"] <= 13:
        return "cards"
    if meta.get("tie_rule") not in ("carry", "discard") or not isinstance(meta.get("high_ace"), bool):
        return "ruleset"
    if meta.get("objective") not in OBJECTIVES:
        return "objective"
    if meta.get("prize_cards") != list(range(1, meta["cards"] + 1)):
        return "prize_cards"
    return None


def check_table_matches(table: SolvedTable, ruleset: Ruleset, objective: str) -> None:
    """Refuse a valid table of another game found under this game's name (a copied
    or renamed file): its header's ruleset and objective must be the requested ones.

    Raises:
        TableMismatchError: (a ``TableFileError``) the table was solved for another
            ruleset or objective.
    """
    got, want = table.ruleset, ruleset
    same = (got.cards, got.tie_rule, got.high_ace) == (want.cards, want.tie_rule, want.high_ace)
    if not same or table.objective != objective:
        raise mismatch_error(table.path, got, table.objective, want, objective)


def mismatch_error(
    path, got: Ruleset, got_objective: str, want: Ruleset, objective: str
) -> TableMismatchError:
    """The error for a table (file, folder or format-2 manifest ``path``) of the game ``got``
    found where the one of ``want`` belongs; the message names both games."""
    return TableMismatchError(
        f"{path} holds the table of {got.describe()} (objective {got_objective}), "
        f"not of {want.describe()} (objective {objective}): it was copied or renamed; delete it "
        "and run `cardtable solve` for these rules"
    )


__all__ = [
    "RoundStrategy",
    "SolvedTable",
    "TableFileError",
    "TableMismatchError",
    "check_table_matches",
    "children",
    "full_layout",
    "game_fields_problem",
    "hand_code",
    "mismatch_error",
    "strategy_of",
    "subgame_layout",
]
