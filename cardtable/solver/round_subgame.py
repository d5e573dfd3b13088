"""Exact subgame solving for the round being played (the ``nash`` bot's subgames).

When a bot first needs the exact equilibrium at a position (docs/solver.md,
The `nash` bot), the prize of the round is already face up. Only the positions
reachable *after* that prize are needed for this move and every later one:
the prize subsets of the lower layers that lack it. :func:`solve_round_subgame`
solves just those (at 7 prizes left about 1/7 of the subsets with 6 prizes,
1/3 of those with 4), the same backward induction as
:func:`cardtable.solver.table.solve_subgame`, so every value it holds is the
exact one (float64, each game checked).
"""

from __future__ import annotations

import numpy as np

from cardtable.goofspiel import Ruleset

from .layers import LayeredTable
from .layout import Layout
from .low_layers import read_low_layers, solve_low_layers, solve_reading_low_layers
from .position import ImpossiblePosition, Position
from .table import Table
from .tables import subgame_layout


def restrict_to_prize(layout: Layout, p: int) -> Layout:
    """``layout`` with the prize subsets of layers below the top limited to those
    without prize index ``p`` (the positions after ``p`` was played for).

    The top layer keeps its one subset; its slots are kept but not solvable here
    (a round for another prize would read children that are not in the result).

    Raises:
        ValueError: ``p`` is not a prize index of ``layout``.
    """
    top = layout.top
    if not 0 <= p < top:
        raise ValueError(f"prize index {p} is not in 0..{top - 1}")
    masks_l = []
    rank_of_mask = np.full(len(layout.rank_of_mask), -1, dtype=np.int64)
    for k in range(top + 1):
        lst = layout.masks[layout.mask_off[k] : layout.mask_off[k + 1]]
        if k < top:
            lst = lst[(lst >> p) & 1 == 0]
        masks_l.append(lst)
        rank_of_mask[lst] = np.arange(len(lst))
    mask_off = np.zeros(top + 2, dtype=np.int64)
    base_l = []
    base_off = np.zeros(top + 2, dtype=np.int64)
    val_off = np.zeros(top + 2, dtype=np.int64)
    for k in range(top + 1):
        mask_off[k + 1] = mask_off[k] + len(masks_l[k])
        npat = layout.npat(k) if k > 0 else 0
        R = layout.T - layout.psum[masks_l[k]]
        npot = R + 1 if layout.carry else np.ones_like(R)
        nd = 2 * R + 1 if layout.win else np.ones_like(R)
        b = np.zeros(len(masks_l[k]) + 1, dtype=np.int64)
        b[1:] = np.cumsum(npot * nd * npat)
        base_l.append(b)
        base_off[k + 1] = base_off[k] + len(b)
        val_off[k + 1] = val_off[k] + b[-1]
    out = Layout(
        layout.pval,
        layout.T,
        layout.carry,
        layout.win,
        layout.codes,
        layout.code_off,
        np.concatenate(masks_l).astype(np.int64),
        mask_off,
        rank_of_mask,
        layout.psum,
        np.concatenate(base_l),
        base_off,
        val_off,
        layout.next_prize,
        pot0=layout.pot0,
    )
    out.extra.update(layout.extra)
    return out


def round_subgame_games(layout: Layout) -> int:
    """Matrix games :func:`solve_round_subgame` solves on a restricted ``layout``
    (layers below the top)."""
    return sum(k * int(layout.base[layout.base_off[k + 1] - 1]) for k in range(1, layout.top))


def solve_round_subgame(
    ruleset: Ruleset,
    pos: Position,
    prize: int,
    objective: str = "points",
    layout: Layout | None = None,
    low: LayeredTable | None = None,
) -> Table:
    """Solve the positions reachable from ``pos`` once ``prize`` is turned up.

    The result answers ``round_strategy(pos, prize)`` and every query at a later
    position of this game (exactly as :func:`cardtable.solver.table.solve_subgame`
    would); ``pos`` itself holds no value (``value(pos)`` and a round for another
    prize raise :class:`ImpossiblePosition`). ``layout``: :func:`subgame_layout`
    of ``pos``, if already built.

    Raises:
        UnsupportedRuleset, ImpossiblePosition: a ruleset outside the solver, an
            impossible position, or ``prize`` not face down at ``pos``.
        SolverError: a game failing its optimality check.
    """
    if layout is None:
        layout = subgame_layout(ruleset, pos, objective)
    cards = layout.extra["prize_cards"]
    if prize not in cards:
        raise ImpossiblePosition(f"prize {prize} is not among the face-down prizes {sorted(cards)}")
    lay = restrict_to_prize(layout, cards.index(prize))
    values, stats, read = solve_reading_low_layers(lay, lay.top - 1, low)
    return Table(
        ruleset,
        objective,
        lay,
        values,
        cards,
        {"games": int(stats[0]), "positions": int(stats[1]), "max_gap": float(stats[2]), "low_layers": read},
    )


__all__ = [
    "read_low_layers",
    "restrict_to_prize",
    "round_subgame_games",
    "solve_low_layers",
    "solve_reading_low_layers",
    "solve_round_subgame",
]
