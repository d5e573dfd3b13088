"""Dense indexing of positions ("layout") and the backward-induction driver.

A *problem* is a 2-player Goofspiel (sub)game: ``np`` prizes with values
``pval`` (prize index ``i`` -> points), two starting hands as bit masks over
strength positions, a tie rule, an objective and a starting pot / point
difference. The full ``n``-card game is the problem with prizes ``1..n`` and
both hands full; a subgame (the ``nash`` bot without a table) is the problem
starting from the current position.

Layer ``k`` holds every position with ``k`` cards in each hand (and ``k``
face-down prizes). See :mod:`cardtable.solver` for the slot formula and a
worked example.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from math import comb
from typing import Callable

import numpy as np

from cardtable._numba import use_threads
from cardtable.errors import CardtableError

from . import kernel


class SolverError(CardtableError, ValueError):
    """A solve that failed its own checks (missing child, guarantee gap > 1e-9)."""


@dataclass
class Layout:
    """Arrays that map positions to slots of the value array.

    Attributes (all NumPy arrays, int64 unless noted):
        pval: prize value per prize index, shape (np,).
        T: pot / point-difference bound: sum(pval) + start pot + |start difference|.
        carry, win: tie rule is carry-over; objective is win/draw/loss.
        codes, code_off: canonical pattern codes, layer ``k`` in
            ``codes[code_off[k]:code_off[k+1]]`` (sorted), k = 0..np.
        masks, mask_off: prize subsets (bit masks over prize indices) of layer k
            in rank order (combinatorial rank, colex).
        rank_of_mask: rank of a subset within its layer, shape (2**np,).
        psum: sum of prize values of a subset, shape (2**np,).
        base, base_off: per layer, per subset rank, offset of the subset's slots
            within the layer (length nsub + 1 per layer).
        val_off: offset of layer k in the value array, shape (np + 2,).
        next_prize: per subset mask, the prize index revealed next with a fixed
            prize order, or -1 (shuffled: each face-down prize equally likely),
            shape (2**np,).
        extra: free annotations (``prize_cards`` of a subgame).
        pot0: the pot carried into the start position (a subgame's), points.
    """

    pval: np.ndarray
    T: int
    carry: bool
    win: bool
    codes: np.ndarray
    code_off: np.ndarray
    masks: np.ndarray
    mask_off: np.ndarray
    rank_of_mask: np.ndarray
    psum: np.ndarray
    base: np.ndarray
    base_off: np.ndarray
    val_off: np.ndarray
    next_prize: np.ndarray | None = None
    extra: dict = field(default_factory=dict)
    pot0: int = 0

    def __post_init__(self) -> None:
        if self.next_prize is None:  # shuffled prizes: every face-down prize may come next
            self.next_prize = np.full(len(self.rank_of_mask), -1, dtype=np.int64)

    @property
    def top(self) -> int:
        return len(self.pval)

    @property
    def size(self) -> int:
        return int(self.val_off[-1])

    def npat(self, k: int) -> int:
        return int(self.code_off[k + 1] - self.code_off[k])

    def arrays(self) -> dict[str, np.ndarray]:
        """The integer arrays by name (what a table file stores)."""
        return {
            "pval": self.pval,
            "codes": self.codes,
            "code_off": self.code_off,
            "masks": self.masks,
            "mask_off": self.mask_off,
            "rank_of_mask": self.rank_of_mask,
            "psum": self.psum,
            "base": self.base,
            "base_off": self.base_off,
            "val_off": self.val_off,
            "next_prize": self._next_prize(),
        }

    def _next_prize(self) -> np.ndarray:
        assert self.next_prize is not None  # __post_init__ fills it
        return self.next_prize


def _submasks_by_size(mask: int) -> list[list[int]]:
    bits = [i for i in range(mask.bit_length()) if (mask >> i) & 1]
    out: list[list[int]] = [[] for _ in range(len(bits) + 1)]
    for sub in range(1 << len(bits)):
        m = 0
        for j, b in enumerate(bits):
            if (sub >> j) & 1:
                m |= 1 << b
        out[bin(sub).count("1")].append(m)
    return out


def _pattern_layers(amask: int, bmask: int, n_p: int, nbits: int) -> list[np.ndarray]:
    """The sorted canonical pattern codes of each layer ``0..n_p`` (hands drawn from
    ``amask`` and ``bmask``, ``k`` cards each), int64 arrays."""
    subs_a = _submasks_by_size(amask)
    subs_b = _submasks_by_size(bmask)
    codes_l = [np.zeros(0, dtype=np.int64)]
    for k in range(1, n_p + 1):
        raw = kernel.enum_patterns(
            np.array(subs_a[k], dtype=np.int64), np.array(subs_b[k], dtype=np.int64), nbits
        )
        codes_l.append(np.unique(raw))
    return codes_l


def _prize_subsets(n_p: int, order) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """``(masks of each layer in colex order, rank of each mask (-1: not a subset of
    the layout), next prize of each mask (-1: shuffled))`` of ``n_p`` prizes; with a
    fixed ``order`` layer k holds only the last k prizes of the order.

    Raises:
        SolverError: ``order`` does not list each prize index once.
    """
    by_size = _submasks_by_size((1 << n_p) - 1)
    masks_l = []
    rank_of_mask = np.full(1 << n_p, -1, dtype=np.int64)  # -1: not a subset of this layout
    next_prize = np.full(1 << n_p, -1, dtype=np.int64)
    if order is not None:
        order = [int(i) for i in order]
        if sorted(order) != list(range(n_p)):
            raise SolverError(f"a prize order must list each prize index 0..{n_p - 1} once")
        for m in range(1, 1 << n_p):
            next_prize[m] = next(i for i in order if (m >> i) & 1)
        suffix = [sum(1 << i for i in order[n_p - k :]) for k in range(n_p + 1)]
    for k in range(n_p + 1):
        lst = sorted(by_size[k])  # integer order of masks = colex order
        if order is not None:
            lst = [suffix[k]]  # only the last k prizes of the order can be face down
        masks_l.append(np.array(lst, dtype=np.int64))
        for r, m in enumerate(lst):
            rank_of_mask[m] = r
    return masks_l, rank_of_mask, next_prize


def _slot_bases(
    codes_l, masks_l, psum: np.ndarray, T: int, carry: bool, win: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(base, base_off, val_off)`` of a layout: the first slot of each prize subset
    (``npot x nd x patterns`` slots each) and of each layer."""
    n_p = len(masks_l) - 1
    base_l = []
    base_off = np.zeros(n_p + 2, dtype=np.int64)
    val_off = np.zeros(n_p + 2, dtype=np.int64)
    for k in range(n_p + 1):
        npat = len(codes_l[k]) if k > 0 else 0
        b = np.zeros(len(masks_l[k]) + 1, dtype=np.int64)
        for r, m in enumerate(masks_l[k]):
            R = T - int(psum[m])
            npot = R + 1 if carry else 1
            nd = 2 * R + 1 if win else 1
            b[r + 1] = b[r] + npot * nd * npat
        base_l.append(b)
        base_off[k + 1] = base_off[k] + len(b)
        val_off[k + 1] = val_off[k] + b[-1]
    return np.concatenate(base_l), base_off, val_off


def build_layout(
    pval,
    amask: int,
    bmask: int,
    nbits: int,
    carry: bool,
    win: bool,
    pot0: int = 0,
    d0: int = 0,
    order=None,
    codes_l: list[np.ndarray] | None = None,
) -> Layout:
    """Index every position reachable from the start (hands ``amask``/``bmask``,
    all ``len(pval)`` prizes face down, pot ``pot0``, difference ``d0``).

    ``order``: prize indices in their public reveal order (docs/rules.md, Fixed prize
    order); then layer k holds only the last k prizes of the order. ``None``:
    shuffled prizes. ``codes_l``: the sorted canonical pattern codes of each layer
    ``0..len(pval)``, when already known (a compressed table stores them: enumerating the
    13-card game's takes seconds).

    Raises:
        SolverError: the hands do not hold as many cards as there are prizes.
    """
    pval = np.asarray(pval, dtype=np.int64)
    n_p = len(pval)
    if bin(amask).count("1") != n_p or bin(bmask).count("1") != n_p:
        raise SolverError("each hand must hold as many cards as there are prizes left")
    T = int(pval.sum()) + int(pot0) + abs(int(d0))
    if codes_l is None:
        codes_l = _pattern_layers(amask, bmask, n_p, nbits)
    code_off = np.zeros(n_p + 2, dtype=np.int64)
    for k in range(n_p + 1):
        code_off[k + 1] = code_off[k] + len(codes_l[k])
    codes = np.concatenate(codes_l).astype(np.int64)
    masks_l, rank_of_mask, next_prize = _prize_subsets(n_p, order)
    psum = np.zeros(1 << n_p, dtype=np.int64)
    for m in range(1 << n_p):
        psum[m] = sum(int(pval[i]) for i in range(n_p) if (m >> i) & 1)
    mask_off = np.zeros(n_p + 2, dtype=np.int64)
    for k in range(n_p + 1):
        mask_off[k + 1] = mask_off[k] + len(masks_l[k])
    masks = np.concatenate(masks_l)
    base, base_off, val_off = _slot_bases(codes_l, masks_l, psum, T, carry, win)
    return Layout(
        pval,
        T,
        bool(carry),
        bool(win),
        codes,
        code_off,
        masks,
        mask_off,
        rank_of_mask,
        psum,
        base,
        base_off,
        val_off,
        next_prize,
        pot0=int(pot0),
    )


def top_strengths(layout: Layout) -> int:
    """Strengths held by either player at the start (the top layer's one pattern):
    ``m0`` of :func:`fewest_tied_prizes`."""
    return int(kernel.decode(int(layout.codes[layout.code_off[layout.top]]))[2])


def fewest_tied_prizes(pval, T: int) -> np.ndarray:
    """``out[mask, pot]``: the fewest turned-up prizes (those not in the face-down set
    ``mask``) whose values add up to ``pot`` (``len(pval) + 1`` if none do), for pots
    ``0..T``; shape ``(2**len(pval), T + 1)``, int64.

    A carried pot of ``j`` prizes needs ``j`` ties, each of two cards of one strength
    (docs/rules.md, Ties), so a position whose hands hold ``m`` of the ``m0`` starting
    strengths (either player) carries at most ``m0 - m`` prizes: the kernels skip the
    states with ``out[mask, pot] > m0 - m`` (no game reaches them).
    """
    pval = np.asarray(pval, dtype=np.int64)
    n_p = len(pval)
    full = (1 << n_p) - 1
    by_up = np.empty((1 << n_p, T + 1), dtype=np.int64)  # indexed by the turned-up set
    by_up[0] = n_p + 1
    by_up[0, 0] = 0
    for c in range(1, 1 << n_p):
        low = (c & -c).bit_length() - 1
        prev = by_up[c & (c - 1)]
        v = int(pval[low])
        by_up[c] = prev
        if v <= T:
            by_up[c, v:] = np.minimum(prev[v:], prev[: T + 1 - v] + 1)
    return by_up[full ^ np.arange(1 << n_p)]


def pot_reach(layout: Layout) -> tuple[np.ndarray, int, int]:
    """What the in-memory kernels need to skip the pot states no game reaches:
    ``(fewest, mtop, shtop)``. ``fewest[mask, pot]``: the fewest ties that leave
    ``pot`` carried with the prizes ``mask`` face down (:func:`fewest_tied_prizes`; a
    start position's own pot ``pot0`` counts only when every round since the start
    tied, so ``pot0 +`` all the turned-up prizes takes as many ties as rounds
    played); ``mtop``, ``shtop``: the strengths held by either player, and by both,
    at the start.

    A tie is two cards of one strength, so it uses up a strength both players held:
    a pattern holding ``m`` strengths, ``sh`` of them in both hands, has seen at most
    ``min(mtop - m, shtop - sh)`` ties (:func:`cardtable.solver.kernel.most_ties`);
    states whose pot needs more are skipped (NaN). Full games start with equal hands
    (``shtop = mtop``), where this is the bound of :func:`cardtable.solver.lean.min_ties`.
    """
    fewest = fewest_tied_prizes(layout.pval, int(layout.T))
    if layout.carry and layout.pot0 > 0:
        n_p = len(layout.pval)
        full = (1 << n_p) - 1
        for mask in range(1 << n_p):
            up = full ^ mask
            pot = layout.pot0 + int(layout.psum[up])
            if pot <= layout.T:
                fewest[mask, pot] = min(int(fewest[mask, pot]), bin(up).count("1"))
    a, b, m = kernel.decode(int(layout.codes[layout.code_off[layout.top]]))
    return fewest, int(m), bin(a & b).count("1")


def layer_games(layout: Layout, k: int) -> int:
    """Matrix games of layer ``k`` (an upper bound for the win objective)."""
    return k * int(layout.base[layout.base_off[k + 1] - 1])


def run_backward_induction(
    layout: Layout,
    progress: Callable[[int, int, int], None] | None = None,
    out: np.ndarray | None = None,
    chunk_games: int = 2_000_000,
    threads: int = 1,
) -> tuple[np.ndarray, dict]:
    """Fill the value array layer by layer (k = 1 .. top).

    Args:
        progress: called as ``progress(k, games_done, games_total)`` (games solved so
            far, and :func:`count_games`; the total is an upper bound for 'win') after
            each chunk of about ``chunk_games`` matrix games (counted over all slots).
        out: a float64 array of ``layout.size`` to fill (e.g. a memory map);
            a new one otherwise.
        threads: > 1 spreads each layer's patterns over that many Numba threads
            (compiles a parallel kernel on first use).

    Returns:
        ``(values, stats)``: stats has games, positions, max_gap, seconds.

    Raises:
        SolverError: a missing child pattern, or a game whose two guarantees
            differ by more than ``kernel.CHECK_TOL`` (relative to 1 + |value|).
    """
    values = out if out is not None else np.empty(layout.size, dtype=np.float64)
    values[:] = np.nan
    stats = np.zeros(4, dtype=np.float64)
    t0 = time.perf_counter()
    reach = pot_reach(layout)
    fewest, mtop, shtop = reach
    total = count_games(layout, reach)
    layer_fn = kernel.solve_layer
    if threads > 1:
        use_threads(threads)
        layer_fn = kernel.solve_layer_parallel
        chunk_games *= threads
    for k in range(1, layout.top + 1):
        npat = layout.npat(k)
        per_pattern = max(1, layer_games(layout, k) // max(1, npat))
        chunk = max(1, chunk_games // per_pattern)
        for lo in range(0, npat, chunk):
            hi = min(npat, lo + chunk)
            bad = layer_fn(
                k,
                lo,
                hi,
                layout.pval,
                layout.T,
                layout.carry,
                layout.win,
                layout.codes,
                layout.code_off,
                layout.masks,
                layout.mask_off,
                layout.rank_of_mask,
                layout.psum,
                layout.base,
                layout.base_off,
                layout.val_off,
                layout.next_prize,
                values,
                stats,
                fewest,
                mtop,
                shtop,
            )
            if bad:
                raise SolverError(f"layer {k}: {bad} patterns have children missing from the layout")
            if stats[3]:
                raise SolverError(
                    f"layer {k}: {int(stats[3])} matrix games failed the optimality check "
                    f"(guarantee gap {stats[2]:.3g} > {kernel.CHECK_TOL})"
                )
            if progress is not None:
                progress(k, int(stats[0]), total)
    return values, {
        "games": int(stats[0]),
        "positions": int(stats[1]),
        "max_gap": float(stats[2]),
        "seconds": time.perf_counter() - t0,
    }


def count_games(layout: Layout, reach: tuple | None = None, above: int = 0) -> int:
    """Matrix games a full solve of ``layout`` needs: ``k`` per position of layer ``k``
    that some game reaches (:func:`pot_reach`, or ``reach`` if already computed; an upper
    bound for 'win', whose decided point differences need none). :func:`layer_games`
    counts every slot instead. ``above``: count layers ``k > above`` only (the lower
    ones read from stored low layers)."""
    return sum(games_per_layer(layout, reach, above)[above:])


def games_per_layer(layout: Layout, reach: tuple | None = None, above: int = 0) -> list[int]:
    """The matrix games of :func:`count_games` layer by layer: item ``k - 1`` for layer
    ``k``, 0 for the layers ``k <= above`` (not counted)."""
    out = [0] * layout.top
    if not layout.carry:
        for k in range(above + 1, layout.top + 1):
            out[k - 1] = layer_games(layout, k)
        return out
    fewest, mtop, shtop = reach if reach is not None else pot_reach(layout)
    for k in range(above + 1, layout.top + 1):
        jmax = kernel.most_ties_each(layout.codes[layout.code_off[k] : layout.code_off[k + 1]], mtop, shtop)
        # patterns[j]: how many patterns of the layer allow j or more ties
        patterns = np.cumsum(np.bincount(jmax, minlength=layout.top + 2)[::-1])[::-1]
        total = 0
        for mask in layout.masks[layout.mask_off[k] : layout.mask_off[k + 1]]:
            R = layout.T - int(layout.psum[mask])
            need = fewest[mask, : R + 1]
            ok = need < len(patterns)
            diffs = 2 * (R - np.arange(R + 1)[ok]) + 1 if layout.win else 1  # the kernel's d range
            total += k * int((patterns[need[ok]] * diffs).sum())
        out[k - 1] = total
    return out


__all__ = [
    "Layout",
    "SolverError",
    "build_layout",
    "run_backward_induction",
    "count_games",
    "games_per_layer",
    "comb",
    "pot_reach",
]
