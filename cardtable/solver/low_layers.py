"""The exact values of a subgame's low layers: solved, or read from the full game's
stored low layers (docs/solver.md, Low layers).

Used by :func:`cardtable.solver.table.solve_subgame` and
:func:`cardtable.solver.round_subgame.solve_round_subgame`; it works on layouts and
value arrays only, so it sits below both table modules.
"""

from __future__ import annotations

import numpy as np

from cardtable._numba import njit

from . import kernel
from .layers import LayeredTable
from .layout import Layout, SolverError, pot_reach
from .lean import _key_index, slot_map


def solve_low_layers(lay: Layout, top: int, out: np.ndarray, start: int = 1) -> np.ndarray:
    """Exact values of layers ``start..top`` of ``lay`` into ``out`` (backward induction,
    float64, reading layer ``start - 1`` from ``out``; the pot states no game reaches are
    left as they are, NaN in a new array: :func:`cardtable.solver.layout.pot_reach`).
    Returns the kernel's stats (games, positions, largest gap, failures).

    Raises:
        SolverError: a missing child or a game failing its optimality check.
    """
    stats = np.zeros(4)
    fewest, mtop, shtop = pot_reach(lay)
    for k in range(start, top + 1):
        bad = kernel.solve_layer(
            k,
            0,
            lay.npat(k),
            lay.pval,
            lay.T,
            lay.carry,
            lay.win,
            lay.codes,
            lay.code_off,
            lay.masks,
            lay.mask_off,
            lay.rank_of_mask,
            lay.psum,
            lay.base,
            lay.base_off,
            lay.val_off,
            lay.next_prize,
            out,
            stats,
            fewest,
            mtop,
            shtop,
        )
        if bad or stats[3]:
            raise SolverError(f"layer {k}: the exact solve failed its checks")
    return stats


@njit(cache=True)
def _gather_layer(
    k,
    codes,
    code_off,
    masks,
    mask_off,
    psum,
    T,
    base,
    base_off,
    val_off,
    to_full,
    fcodes,
    fcode_off,
    frank_of_mask,
    W,
    fT,
    G,
    pgrp,
    poff,
    poff_off,
    gkeys,
    gkoff,
    gsoff,
    gso_off,
    layer,
    out,
):
    """Copy layer ``k`` of a subgame layout (points, carry-over) from a stored layer of
    the full game's lean table (its slots: :class:`.lean.SlotMap`): every (subset, pot,
    pattern) slot that the table holds; the rest stay as they are. ``to_full``: the full
    game's prize index of each of the subgame's. Returns the slots copied, or -1 when a
    pattern is missing from the table."""
    npat = code_off[k + 1] - code_off[k]
    flo = fcode_off[k]
    fn = fcode_off[k + 1] - flo
    pidx = np.empty(npat, dtype=np.int64)
    for i in range(npat):
        c = codes[code_off[k] + i]
        j = np.searchsorted(fcodes[flo : flo + fn], c)
        if j >= fn or fcodes[flo + j] != c:
            return -1
        pidx[i] = j
    at_g = np.empty(G, dtype=np.int64)  # per group: the state's offset in a block, or -1
    copied = 0
    for r in range(mask_off[k + 1] - mask_off[k]):
        mask = masks[mask_off[k] + r]
        fm = 0
        for b in range(len(to_full)):
            if (mask >> b) & 1:
                fm |= 1 << to_full[b]
        rf = frank_of_mask[fm]
        R = T - psum[mask]
        for pot in range(R + 1):
            any_state = False
            for g in range(G):
                i = k * G + g
                s0 = gsoff[gso_off[i] + rf]
                ns = gsoff[gso_off[i] + rf + 1] - s0
                j = _key_index(gkeys, gkoff[i] + s0, ns, pot * W + fT)
                at_g[g] = s0 + j if j >= 0 else -1
                any_state = any_state or j >= 0
            if not any_state:
                continue
            at = kernel.slot(k, r, pot, 0, R, npat, base, base_off, val_off, True, False)
            for i in range(npat):
                fi = flo + pidx[i]
                s = at_g[pgrp[fi]]
                if s >= 0:
                    out[at + i] = layer[poff[poff_off[k] + pidx[i]] + s]
                    copied += 1
    return copied


def read_low_layers(lay: Layout, low: LayeredTable, top: int, out: np.ndarray) -> None:
    """Fill layers ``1..top`` of the subgame layout ``lay`` (carry-over, points) from
    ``low``, the full game's stored low layers (a :class:`~.layers.LayeredTable` holding
    at least ``top`` layers, e.g. ``open_layered(folder, low=True)``), instead of solving
    them. The values are the table's (float32, within its ``float32_bound``).

    Raises:
        SolverError: ``low`` is another deck's or lacks a pattern of the subgame.
    """
    cards = lay.extra["prize_cards"]
    if lay.win or not lay.carry or low.objective != "points" or top > low.upto:
        raise SolverError("the low layers do not fit this subgame")
    try:
        to_full = np.array([low.prize_cards.index(c) for c in cards], dtype=np.int64)
    except ValueError:
        raise SolverError("the low layers are another deck's") from None
    f = low.lay
    d = f.dense
    m = slot_map(f)
    for k in range(1, top + 1):
        n = _gather_layer(
            k,
            lay.codes,
            lay.code_off,
            lay.masks,
            lay.mask_off,
            lay.psum,
            int(lay.T),
            lay.base,
            lay.base_off,
            lay.val_off,
            to_full,
            d.codes,
            d.code_off,
            d.rank_of_mask,
            int(f.W),
            int(d.T),
            m.G,
            m.pgrp,
            m.poff,
            m.poff_off,
            m.gkeys,
            m.gkoff,
            m.gsoff,
            m.gso_off,
            np.asarray(low.layers[k]),
            out,
        )
        if n < 0:
            raise SolverError(f"layer {k}: a pattern of the subgame is missing from the low layers")


def solve_reading_low_layers(
    lay: Layout,
    top: int,
    low: LayeredTable | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Exact values of layers ``1..top`` of the subgame layout ``lay`` in a new array, the
    layers below its top read from ``low`` (:func:`read_low_layers`; carry-over, points;
    ``None``: none read) and the rest solved (:func:`solve_low_layers`). Returns
    ``(values, the kernel's stats, layers read)``.

    Raises:
        SolverError: as :func:`read_low_layers` and :func:`solve_low_layers`.
    """
    values = np.full(lay.size, np.nan)
    read = 0
    if low is not None and lay.carry and not lay.win:
        read = min(low.upto, lay.top - 1)
        read_low_layers(lay, low, read, values)
    return values, solve_low_layers(lay, top, values, read + 1), read


__all__ = ["read_low_layers", "solve_low_layers", "solve_reading_low_layers"]
