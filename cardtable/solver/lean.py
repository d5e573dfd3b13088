"""The lean layout (table format 2): only reachable pots / point differences, one
float32 array per layer, patterns outermost.

A position of layer ``k`` (``k`` cards in each hand) is (hand pattern, prize
subset ``s`` of size ``k``, *state*), where the state is the pot and, for the
win objective, the point difference ``d``. The prizes already turned up are
the complement ``c`` of ``s``; every one of them was won by A, won by B, or
sits in the current pot (carry-over ties; with discard ties it was put
aside), so the reachable states of ``s`` are exactly::

    carry-over:  {(sum P, sum W_A - sum W_B) : P, W_A, W_B a partition of c}
    discard:     {(0,     sum W_A - sum W_B) : W_A, W_B disjoint subsets of c}

(any partition occurs: the won rounds first, the tied ones last; docs/rules.md,
Ties and Discard ties). With the points objective ``d`` is dropped (always 0). Each
subset's reachable states are ranked (sorted keys ``pot * W + d + T``, with
``T`` the total prize points and ``W = 2T + 1``), so a table holds no slot
for an impossible pot: at n = 13 carry-over this and float32 storage take the
values from 45.5 GiB (format 1) to the sizes in docs/solver.md.

Slot of a position inside layer ``k``'s array (pattern index ``i``, subset
rank ``r``, state rank ``j``)::

    i * S[k] + soff[so_off[k] + r] + j          (S[k] = states of the layer)

Patterns outermost make a pattern range one contiguous block: threads, Ray
workers and GPU blocks each write their own block, and all the states of a
child pattern lie together (few cache misses when layer ``k - 1`` is read).

Values are stored as float32; each matrix game is still built and solved in
float64 and verified (both guarantees within ``kernel.CHECK_TOL``). Rounding
bound: see :func:`float32_bound`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from cardtable._numba import njit, prange

from . import kernel
from .layout import Layout, SolverError, build_layout, fewest_tied_prizes, top_strengths

#: Unit roundoff of float32 (round to nearest): |fl(v) - v| <= U32 * |v|.
U32 = 2.0**-24


@dataclass
class LeanLayout:
    """A :class:`~cardtable.solver.layout.Layout` (patterns, prize subsets)
    plus the reachable states of every prize subset.

    Attributes (int64 arrays):
        dense: the pattern / subset arrays (its value offsets are unused).
        W: key stride; a state key is ``pot * W + d + T``.
        skeys: sorted state keys, layer ``k``'s at ``skoff[k]`` onwards.
        skoff: start of each layer's keys in ``skeys``, shape (top + 2,).
        soff, so_off: per layer, per subset rank, the subset's first state
            (layer-relative; length nsub + 1 per layer, the last entry = S[k]).
        nstates: S[k], states per pattern of layer k, shape (top + 1,).
    """

    dense: Layout
    W: int
    skeys: np.ndarray
    skoff: np.ndarray
    soff: np.ndarray
    so_off: np.ndarray
    nstates: np.ndarray
    #: compact slots (table format 2, compact layout): each pattern holds only the states its
    #: hands allow (:func:`slot_map`); False: every pattern holds all ``S[k]`` states
    compact: bool = False
    #: the cache of :func:`min_ties` (not part of the layout's identity)
    _min_ties: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)
    #: the cache of :func:`slot_map`
    _slots: "SlotMap | None" = field(default=None, init=False, repr=False, compare=False)

    @property
    def top(self) -> int:
        return self.dense.top

    @property
    def carry(self) -> bool:
        return self.dense.carry

    @property
    def win(self) -> bool:
        return self.dense.win

    def npat(self, k: int) -> int:
        return self.dense.npat(k)

    def layer_size(self, k: int) -> int:
        """Values (slots) of layer k: patterns x states (compact: each pattern's own states)."""
        if k <= 0:
            return 0
        if not self.compact:
            return self.npat(k) * int(self.nstates[k])
        return block(self, k, self.npat(k))

    def layer_games(self, k: int) -> int:
        """Matrix games of layer k (upper bound for the win objective, where
        decided positions need none)."""
        return k * self.layer_size(k)

    def arrays(self) -> dict[str, np.ndarray]:
        out = {"dense_" + k: v for k, v in self.dense.arrays().items()}
        out.update(
            skeys=self.skeys,
            skoff=self.skoff,
            soff=self.soff,
            so_off=self.so_off,
            nstates=self.nstates,
            scalars=np.array([self.dense.T, self.W, int(self.carry), int(self.win)]),
        )
        if self.compact:  # absent otherwise: the digests of tables written before stay valid
            out["compact"] = np.array([1])
        return out

    def digest(self) -> str:
        """SHA-256 of all index arrays (a layer file records the layout it belongs to)."""
        h = hashlib.sha256()
        for name, arr in sorted(self.arrays().items()):
            h.update(name.encode())
            h.update(np.ascontiguousarray(arr, dtype="<i8").tobytes())
        return h.hexdigest()

    @classmethod
    def from_arrays(cls, arrs: dict[str, np.ndarray]) -> "LeanLayout":
        T, W, carry, win = (int(x) for x in arrs["scalars"])
        d = {k[6:]: np.asarray(v, dtype=np.int64) for k, v in arrs.items() if k.startswith("dense_")}
        dense = Layout(
            d["pval"],
            T,
            bool(carry),
            bool(win),
            d["codes"],
            d["code_off"],
            d["masks"],
            d["mask_off"],
            d["rank_of_mask"],
            d["psum"],
            d["base"],
            d["base_off"],
            d["val_off"],
            d["next_prize"],
        )
        g = {k: np.asarray(arrs[k], dtype=np.int64) for k in ("skeys", "skoff", "soff", "so_off", "nstates")}
        compact = "compact" in arrs and bool(np.asarray(arrs["compact"]).ravel()[:1].any())
        return cls(dense, W, g["skeys"], g["skoff"], g["soff"], g["so_off"], g["nstates"], compact)


def _reachable(pval: np.ndarray, carry: bool, win: bool, T: int) -> list[np.ndarray]:
    """For every revealed set ``c`` (bit mask), the sorted reachable state keys."""
    n_p = len(pval)
    W = 2 * T + 1
    # reach[c]: boolean array over (pot 0..T, d -T..T) (d axis of length 1 without 'win')
    nd = W if win else 1
    doff = T if win else 0
    # every slot is filled by the loop below before it is read
    reach: list[np.ndarray] = [None] * (1 << n_p)  # type: ignore[list-item]
    start = np.zeros((T + 1, nd), dtype=bool)
    start[0, doff] = True
    reach[0] = start
    # as reach: the loop fills keys[c] before any later subset reads it
    keys: list[np.ndarray] = [None] * (1 << n_p)  # type: ignore[list-item]
    for c in range(1 << n_p):
        if c:
            low = (c & -c).bit_length() - 1
            prev = reach[c & (c - 1)]
            v = int(pval[low])
            cur = np.zeros_like(prev)
            if carry:
                cur[v:, :] |= prev[: T + 1 - v, :]  # tied away: into the pot
            else:
                cur |= prev  # discard tie: put aside
            if win:
                cur[:, v:] |= prev[:, : nd - v]  # won by A
                cur[:, : nd - v] |= prev[:, v:]  # won by B
            else:
                cur |= prev  # won by either player: the pot is unchanged
            reach[c] = cur
        pots, ds = np.nonzero(reach[c])
        keys[c] = np.sort(pots.astype(np.int64) * W + (ds.astype(np.int64) - doff) + T)
    return keys


def build_lean(
    pval, amask: int, bmask: int, nbits: int, carry: bool, win: bool, compact: bool = False
) -> LeanLayout:
    """The lean layout of the full game (all prizes face down, pot 0, difference 0);
    ``compact``: each pattern holds only the states its hands allow (:func:`slot_map`).

    Raises:
        SolverError: the hands do not hold as many cards as there are prizes.
    """
    dense = build_layout(pval, amask, bmask, nbits, carry, win)
    n_p = dense.top
    T = int(dense.T)
    W = 2 * T + 1
    keys = _reachable(dense.pval, carry, win, T)
    full = (1 << n_p) - 1
    skeys_l, soff_l = [], []
    skoff = np.zeros(n_p + 2, dtype=np.int64)
    so_off = np.zeros(n_p + 2, dtype=np.int64)
    nstates = np.zeros(n_p + 1, dtype=np.int64)
    for k in range(n_p + 1):
        masks = dense.masks[dense.mask_off[k] : dense.mask_off[k + 1]]
        offs = np.zeros(len(masks) + 1, dtype=np.int64)
        for r, m in enumerate(masks):
            ks = keys[full & ~int(m)]
            skeys_l.append(ks)
            offs[r + 1] = offs[r] + len(ks)
        soff_l.append(offs)
        nstates[k] = offs[-1]
        skoff[k + 1] = skoff[k] + offs[-1]
        so_off[k + 1] = so_off[k] + len(offs)
    skeys = np.concatenate(skeys_l) if skeys_l else np.zeros(0, dtype=np.int64)
    return LeanLayout(
        dense, W, skeys.astype(np.int64), skoff, np.concatenate(soff_l), so_off, nstates, bool(compact)
    )


def min_ties(lay: LeanLayout) -> np.ndarray:
    """For every state of the layout (aligned with ``lay.skeys``), the fewest
    turned-up prizes whose values add up to its pot (0 for pot 0).

    A pot of ``j`` prizes comes from the last ``j`` rounds, all tied (docs/rules.md,
    Ties), and a tie is two cards of one strength, so both players have played
    that strength: a position whose hands still hold ``m`` of the starting ``m0``
    strengths (either player) can carry a pot of at most ``m0 - m`` prizes. The
    kernels skip (store NaN for) the states whose pot needs more: no game reaches
    them, and no reachable position reads them (a tie removes one more strength
    from both hands as it adds one prize to the pot). Shape ``(len(lay.skeys),)``,
    int64; computed once per layout object (it is not part of the layout's digest,
    so tables written before this pruning stay valid).
    """
    cached = getattr(lay, "_min_ties", None)
    if cached is not None:
        return cached
    d = lay.dense
    W = int(lay.W)
    fewest = fewest_tied_prizes(d.pval, int(d.T))
    out = np.empty(len(lay.skeys), dtype=np.int64)
    for k in range(lay.top + 1):
        sk = int(lay.so_off[k])
        for r, m in enumerate(d.masks[d.mask_off[k] : d.mask_off[k + 1]]):
            a = int(lay.skoff[k] + lay.soff[sk + r])
            b = int(lay.skoff[k] + lay.soff[sk + r + 1])
            out[a:b] = fewest[int(m)][lay.skeys[a:b] // W]
    lay._min_ties = out
    return out


def pot_prizes_allowed(lay: LeanLayout, k: int, lo: int = 0, hi: int | None = None) -> np.ndarray:
    """For patterns ``lo..hi-1`` of layer ``k``: the most prizes a pot can hold with
    those hands (the starting strengths less the ones still held; :func:`min_ties`),
    int64, shape ``(hi - lo,)``."""
    d = lay.dense
    mtop = top_strengths(d)  # a whole game: both hands start equal, so shared = held
    return kernel.most_ties_each(d.codes[d.code_off[k] : d.code_off[k + 1]][lo:hi], mtop, mtop)


def reachable_games(lay: LeanLayout, k: int) -> tuple[int, int]:
    """``(positions, matrix games)`` of layer ``k`` that the kernels solve: the states
    :func:`min_ties` does not rule out, over all patterns (games: ``k`` per position;
    for the win objective an upper bound, decided positions need none)."""
    if k == 0:
        return 0, 0
    minj = min_ties(lay)
    a, b = int(lay.skoff[k]), int(lay.skoff[k + 1])
    at_most = np.bincount(np.minimum(minj[a:b], lay.top + 1), minlength=lay.top + 2).cumsum()
    pos = int(at_most[pot_prizes_allowed(lay, k)].sum())
    return pos, k * pos


def float32_bound(lay: LeanLayout, k: int) -> float:
    """Largest possible |stored value - exact value| of a layer-``k`` position.

    A matrix game's value moves by at most the largest change of an entry, and
    the mean over prizes does not enlarge it, so errors add up over layers:
    each layer adds the float32 rounding of its own value (``U32 * Vmax``) and
    the solve tolerance (``CHECK_TOL * (1 + Vmax)``), ``Vmax`` = the largest
    |value|: ``T`` (all prize points) for ``points``, 1 for ``win``.
    """
    vmax = 1.0 if lay.win else float(lay.dense.T)
    return k * (U32 * vmax + kernel.CHECK_TOL * (1.0 + vmax))


# -- slots: which states each pattern holds ---------------------------------------------


@dataclass
class SlotMap:
    """Where each pattern's states lie in a layer's array (what the kernels index by).

    The states of layer ``k`` are split into *groups* ``g = 0..G-1``: group ``g`` holds,
    per prize subset in rank order and by key within it, the states whose pot needs at
    most ``g`` ties (:func:`min_ties`). A pattern whose hands allow at most ``j`` tied
    prizes in the pot (:func:`pot_prizes_allowed`) holds group ``min(j, top)`` as one
    contiguous block. In the compact layout ``G = top + 1``: no slot for a state that no
    game reaches with those hands (at 13 cards, carry-over: 3.8 GiB instead of 16.1);
    otherwise ``G = 1``: one group with every state, the block of pattern ``i`` at
    ``i * S[k]`` (the layout of tables written before the compact one). With discard ties
    every pot is 0 and the two coincide.

    Attributes (int64 arrays):
        G: groups per layer.
        pgrp: group of each pattern, aligned with ``dense.codes``.
        poff, poff_off: layer ``k``'s block offsets, ``poff[poff_off[k] + i]`` for pattern
            ``i`` (``npat + 1`` entries per layer, the last = the layer's size).
        gkeys, gminj: the groups' state keys and their :func:`min_ties`, group ``(k, g)``
            from ``gkoff[k * G + g]`` to ``gkoff[k * G + g + 1]``.
        gsoff, gso_off: per group, per subset rank, the subset's first state within the
            group (``nsub + 1`` entries from ``gso_off[k * G + g]``).
    """

    G: int
    pgrp: np.ndarray
    poff: np.ndarray
    poff_off: np.ndarray
    gkeys: np.ndarray
    gminj: np.ndarray
    gkoff: np.ndarray
    gsoff: np.ndarray
    gso_off: np.ndarray

    @property
    def nbytes(self) -> int:
        """Bytes of all its arrays (held in memory while a layout is solved)."""
        return sum(int(getattr(self, f).nbytes) for f in self.__dataclass_fields__ if f != "G")


def slot_map(lay: LeanLayout) -> SlotMap:
    """The :class:`SlotMap` of ``lay`` (computed once per layout object; 13 cards,
    carry-over, compact: 0.5 s, 58 MiB)."""
    cached = getattr(lay, "_slots", None)
    if cached is not None:
        return cached
    d = lay.dense
    top = lay.top
    minj = min_ties(lay)
    G = top + 1 if lay.compact else 1
    mtop = top_strengths(d)
    pgrp = np.zeros(len(d.codes), dtype=np.int64)
    poff_l, gkeys_l, gminj_l, gsoff_l = [], [], [], []
    poff_off = np.zeros(top + 2, dtype=np.int64)
    gkoff = np.zeros((top + 1) * G + 1, dtype=np.int64)
    gso_off = np.zeros((top + 1) * G + 1, dtype=np.int64)
    for k in range(top + 1):
        sk, nsub = int(lay.so_off[k]), int(lay.so_off[k + 1] - lay.so_off[k]) - 1
        a, b = int(lay.skoff[k]), int(lay.skoff[k + 1])
        sizes = np.zeros(G, dtype=np.int64)
        for g in range(G):
            keep = minj[a:b] <= g if G > 1 else np.ones(b - a, dtype=bool)
            upto = np.concatenate(([0], np.cumsum(keep)))
            gkeys_l.append(lay.skeys[a:b][keep])
            gminj_l.append(minj[a:b][keep])
            gsoff_l.append(upto[lay.soff[sk : sk + nsub + 1]].astype(np.int64))
            sizes[g] = int(upto[-1])
            i = k * G + g
            gkoff[i + 1] = gkoff[i] + sizes[g]
            gso_off[i + 1] = gso_off[i] + nsub + 1
        lo, hi = int(d.code_off[k]), int(d.code_off[k + 1])
        if k > 0 and G > 1:
            pgrp[lo:hi] = np.minimum(kernel.most_ties_each(d.codes[lo:hi], mtop, mtop), top)
        poff_l.append(np.concatenate(([0], np.cumsum(sizes[pgrp[lo:hi]]))).astype(np.int64))
        poff_off[k + 1] = poff_off[k] + hi - lo + 1
    out = SlotMap(
        G,
        pgrp,
        np.concatenate(poff_l),
        poff_off,
        np.concatenate(gkeys_l).astype(np.int64),
        np.concatenate(gminj_l).astype(np.int64),
        gkoff,
        np.concatenate(gsoff_l),
        gso_off,
    )
    lay._slots = out
    return out


def block(lay: LeanLayout, k: int, i: int) -> int:
    """Offset of pattern ``i``'s block in layer ``k``'s array (``i = npat``: the layer's size)."""
    if not lay.compact:
        return i * int(lay.nstates[k])
    m = slot_map(lay)
    return int(m.poff[m.poff_off[k] + i])


def expand_layer(lay: LeanLayout, k: int, values: np.ndarray, dtype=np.float64) -> np.ndarray:
    """Layer ``k``'s ``values`` (its own slot order) as a ``(npat, S[k])`` array with every
    state of every pattern, NaN where a compact pattern holds none (what code written for
    the full layout reads: compression fits, best responses, format-1 views)."""
    npat, S = lay.npat(k), int(lay.nstates[k])
    v = np.asarray(values)
    if not lay.compact:
        return v.reshape(npat, S).astype(dtype, copy=False)
    m = slot_map(lay)
    out = np.full((npat, S), np.nan, dtype=dtype)
    minj = min_ties(lay)[lay.skoff[k] : lay.skoff[k + 1]]
    lo = int(m.poff_off[k])
    groups = m.pgrp[lay.dense.code_off[k] : lay.dense.code_off[k + 1]]
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        cols = np.flatnonzero(minj <= g)
        step = max(1, (1 << 24) // max(1, len(cols)))  # index arrays of at most 128 MiB
        for c in range(0, len(rows), step):
            part = rows[c : c + step]
            at = m.poff[lo + part][:, None] + np.arange(len(cols))[None, :]
            out[np.ix_(part, cols)] = v[at]
    return out


# -- kernels ------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _key_index(skeys, lo, n, key):
    """Rank of ``key`` among ``skeys[lo:lo+n]`` (sorted), or -1."""
    i = np.searchsorted(skeys[lo : lo + n], key)
    if i < n and skeys[lo + i] == key:
        return i
    return -1


@njit(cache=True, inline="always")
def _solve(M, k1, k2, warm, ws, wI, wJ, ws_i, tab, basis, xs, ys, A, z, mark, R, st):
    """Solve one game ``M[:k1, :k2]`` (the bids left after merging equivalent ones;
    warm-started from support slot ``ws_i`` of ``wI, wJ, ws`` when ``warm``) and
    account for it in ``st``; returns the value. A game the simplex leaves unverified
    gets :func:`kernel.solve_by_supports` (in slot ``ws_i``)."""
    if warm:
        v, gap, sz, hit = kernel.solve_game_warm(
            M, k1, k2, tab, basis, xs, ys, wI, wJ, ws_i, ws[ws_i], A, z, mark, R
        )
        if hit:
            st[5] += 1
        elif ws[ws_i] > 0:
            st[6] += 1
        ws[ws_i] = sz
    else:
        v, gap = kernel.solve_game_ws(M, k1, k2, tab, basis, xs, ys, R)
    if not (gap <= kernel.CHECK_TOL * (1.0 + abs(v))):  # the simplex lost the optimum to rounding
        ok, v2, gap2, sz = kernel.solve_by_supports(
            M, k1, k2, wI, wJ, ws_i, A, z, mark, xs, ys, kernel.WARM_TOL
        )
        if ok:
            v, gap = v2, gap2
        ws[ws_i] = sz  # the support found (0: none) is the next game's guess
        st[7] += 1
    st[0] += 1
    if not (gap <= kernel.CHECK_TOL * (1.0 + abs(v))):
        st[3] += 1
    if gap > st[2]:
        st[2] = gap
    return v


@njit(cache=True, inline="always")
def _child_states(k, mask, p, rank_of_mask, skoff, soff, so_off):
    """The states of the child subset (``mask`` less prize ``p``) in layer ``k - 1``:
    ``(first state in the layer, number of states, first key in skeys)``; zeros at k = 1."""
    if k == 1:
        return 0, 0, 0
    rc = rank_of_mask[mask & ~(1 << p)]
    so_c = so_off[k - 1]
    cs0 = soff[so_c + rc]
    return cs0, soff[so_c + rc + 1] - cs0, skoff[k - 1] + cs0


@njit(cache=True, inline="always")
def _copy_support(ws, wI, wJ, src, dst):
    """Support slot ``dst`` := slot ``src``."""
    n = ws[src]
    ws[dst] = n
    for i in range(n):
        wI[dst, i] = wI[src, i]
        wJ[dst, i] = wJ[src, i]


@njit(cache=True, inline="always")
def _group_states(k, r, G, g, gkoff, gsoff, gso_off):
    """Subset ``r``'s states in group ``g`` of layer ``k`` (:class:`SlotMap`): ``(first
    state within the group, number of states, first key in gkeys)``."""
    i = k * G + g
    so = gso_off[i]
    s0 = gsoff[so + r]
    return s0, gsoff[so + r + 1] - s0, gkoff[i] + s0


@njit(cache=True, inline="always")
def _children_blocks(k, code_off, pgrp, poff, poff_off, cidx, cgrp, cblk):
    """Each bid pair's child pattern: its group (``cgrp``) and block offset in layer
    ``k - 1`` (``cblk``)."""
    for a in range(k):
        for b in range(k):
            ci = cidx[a, b]
            cgrp[a, b] = pgrp[code_off[k - 1] + ci]
            cblk[a, b] = poff[poff_off[k - 1] + ci]


@njit(cache=True, _nrt=False)
def _pattern_points(
    k,
    pi,
    pval,
    carry,
    codes,
    code_off,
    masks,
    mask_off,
    rank_of_mask,
    next_prize,
    W,
    T,
    G,
    pgrp,
    poff,
    poff_off,
    gkeys,
    gkoff,
    gsoff,
    gso_off,
    gminj,
    mtop,
    prev,
    out,
    M,
    base,
    tab,
    basis,
    xs,
    ys,
    acc,
    cidx,
    csign,
    outc,
    cgrp,
    cblk,
    st,
    warm,
    ws,
    wI,
    wJ,
    A,
    z,
    mark,
    R,
    pab,
    tie_a,
    tie_b,
):
    """All positions of one pattern (points objective), pots vectorised, into ``out`` (the
    pattern's block: its group's states, :class:`SlotMap`).

    For a subset and a revealed prize, the games of all pots share the child
    values of every decided bid pair (the child has pot 0): ``base`` holds
    them once, and each pot only adds ``pot x outcome`` and reads its tie
    continuations (child pot = pot + prize: one rank per pot, found by walking
    the child's sorted pots alongside; every tie child allows one more tied prize
    than this pattern, so all of them hold the same group). With ``warm``, each pot's
    game first tries the previous pot's optimal support (:func:`kernel.solve_game_warm`).
    A state whose pot needs more tied prizes than the strengths both players
    have played (:func:`min_ties`) cannot occur: the compact layout has no slot for it;
    the full one stores NaN.
    ``st``: games, positions, max gap, failures, missing children, warm hits,
    warm misses.

    Complexity: one function on purpose. Its loops (subset, prize, pot, bid pair)
    are the solver's hot loop: the pots share the decided children computed once per
    prize, and the warm start carries the previous pot's support to the next, so
    the state lives across all loop levels; the small steps (slots, child ranks,
    the matrix game) are already inlined helpers (``inline='always'``).
    """
    code = codes[code_off[k] + pi]
    jmax = mtop - kernel.decode(code)[2]  # the most prizes a pot of this pattern can hold
    g = pgrp[code_off[k] + pi]
    if not kernel.pattern_children_ws(code, k, codes, code_off, cidx, csign, outc, pab[0], pab[1]):
        st[4] += 1
        return
    ka, kb = k, k  # the bids kept after merging equivalent ones (kernel.merge_equivalent_bids)
    if k > 1:
        _children_blocks(k, code_off, pgrp, poff, poff_off, cidx, cgrp, cblk)
        ka, kb = kernel.merge_equivalent_bids(k, cidx, csign, outc, cgrp, cblk, pab[0], pab[1])
    nt = 0  # the tied bid pairs (equal strengths): their continuation depends on the pot
    tg = -1  # the tie children's group
    for a in range(ka):
        for b in range(kb):
            if outc[a, b] == 0:
                tie_a[nt] = a
                tie_b[nt] = b
                nt += 1
                if k > 1:
                    if tg < 0:
                        tg = cgrp[a, b]
                    elif cgrp[a, b] != tg:
                        st[4] += 1  # the tie children disagree: a layout this kernel cannot read
                        return
    ws[:] = 0
    first = len(pval)
    nsub = mask_off[k + 1] - mask_off[k]
    for r in range(nsub):
        mask = masks[mask_off[k] + r]
        s0, ns, kbase = _group_states(k, r, G, g, gkoff, gsoff, gso_off)
        for j in range(ns):
            acc[j] = 0.0
        count = 0
        fixed = next_prize[mask]
        for p in range(len(pval)):
            if not kernel.revealed_next(mask, fixed, p):
                continue
            count += 1
            pv = pval[p]
            rc = rank_of_mask[mask & ~(1 << p)] if k > 1 else 0
            for a in range(ka):
                for b in range(kb):
                    o = outc[a, b]
                    cont = 0.0
                    if k > 1 and (o != 0 or not carry):  # child pot 0 = the subset's first state
                        cs0 = _group_states(k - 1, rc, G, cgrp[a, b], gkoff, gsoff, gso_off)[0]
                        cont = csign[a, b] * np.float64(prev[cblk[a, b] + cs0])
                    base[a, b] = o * pv + cont
            tcs0, tcns, tckb = 0, 0, 0
            if carry and k > 1 and nt > 0:
                tcs0, tcns, tckb = _group_states(k - 1, rc, G, tg, gkoff, gsoff, gso_off)
            ci = 0
            for j in range(ns):
                if gminj[kbase + j] > jmax:
                    continue
                pot = (gkeys[kbase + j] - T) // W
                for a in range(ka):
                    for b in range(kb):
                        M[a, b] = base[a, b] + outc[a, b] * pot
                if carry and k > 1:
                    key = (pot + pv) * W + T  # pots ascend, and so do the children's
                    while ci < tcns and gkeys[tckb + ci] < key:
                        ci += 1
                    if ci < tcns and gkeys[tckb + ci] == key:
                        for t in range(nt):
                            a = tie_a[t]
                            b = tie_b[t]
                            M[a, b] = csign[a, b] * np.float64(prev[cblk[a, b] + tcs0 + ci])
                    else:
                        st[4] += nt
                        for t in range(nt):
                            M[tie_a[t], tie_b[t]] = 0.0
                acc[j] += _solve(
                    M, ka, kb, warm, ws, wI, wJ, p if j else first + p, tab, basis, xs, ys, A, z, mark, R, st
                )
                if j == 0:
                    _copy_support(ws, wI, wJ, first + p, p)
        for j in range(ns):
            if gminj[kbase + j] > jmax:
                out[s0 + j] = np.nan
            else:
                out[s0 + j] = acc[j] / count
                st[1] += 1


@njit(cache=True, _nrt=False)
def _pattern_win(
    k,
    pi,
    pval,
    carry,
    codes,
    code_off,
    masks,
    mask_off,
    rank_of_mask,
    psum,
    next_prize,
    W,
    T,
    G,
    pgrp,
    poff,
    poff_off,
    gkeys,
    gkoff,
    gsoff,
    gso_off,
    gminj,
    mtop,
    prev,
    out,
    M,
    tab,
    basis,
    xs,
    ys,
    acc,
    cidx,
    csign,
    outc,
    cgrp,
    cblk,
    st,
    warm,
    ws,
    wI,
    wJ,
    A,
    z,
    mark,
    R,
    pab,
    crank,
):
    """All positions of one pattern, win objective (value = P(win) - P(loss)), into
    ``out`` (the pattern's block, :class:`SlotMap`).

    Per subset and revealed prize, the states (pot, point difference) in key
    order; a game's entries come from at most 18 child states (outcome x
    orientation x the child's group, which allows as many tied prizes as this
    pattern's or one or two more), each ranked once when first needed. With ``warm``,
    a game first tries the previous state's optimal support for the same prize. States
    that cannot occur (:func:`min_ties`) have no slot (compact) or are stored as NaN.

    Complexity: one function on purpose, as :func:`_pattern_points`: the hot loop
    over (subset, prize, state, bid pair) keeps the warm-start support and the
    child ranks across its levels; its small steps are inlined helpers.
    """
    code = codes[code_off[k] + pi]
    jmax = mtop - kernel.decode(code)[2]
    g = pgrp[code_off[k] + pi]
    if not kernel.pattern_children_ws(code, k, codes, code_off, cidx, csign, outc, pab[0], pab[1]):
        st[4] += 1
        return
    ka, kb = k, k  # the bids kept after merging equivalent ones (kernel.merge_equivalent_bids)
    if k > 1:
        _children_blocks(k, code_off, pgrp, poff, poff_off, cidx, cgrp, cblk)
        ka, kb = kernel.merge_equivalent_bids(k, cidx, csign, outc, cgrp, cblk, pab[0], pab[1])
    ws[:] = 0
    first = len(pval)
    nsub = mask_off[k + 1] - mask_off[k]
    for r in range(nsub):
        mask = masks[mask_off[k] + r]
        sp = psum[mask]
        s0, ns, kbase = _group_states(k, r, G, g, gkoff, gsoff, gso_off)
        fixed = next_prize[mask]
        for j in range(ns):
            acc[j] = 0.0
        count = 0
        for p in range(len(pval)):
            if not kernel.revealed_next(mask, fixed, p):
                continue
            count += 1
            rc = rank_of_mask[mask & ~(1 << p)] if k > 1 else 0
            nfirst = 0
            for j in range(ns):
                if gminj[kbase + j] > jmax:
                    continue
                key = gkeys[kbase + j]
                pot = key // W
                d = key - pot * W - T
                if d > sp + pot or -d > sp + pot:  # decided whatever happens
                    continue
                stake = pot + pval[p]
                if k == 1:
                    for a in range(k):
                        for b in range(k):
                            cd = d + outc[a, b] * stake
                            M[a, b] = 1.0 if cd > 0 else (-1.0 if cd < 0 else 0.0)
                else:
                    for q in range(18):
                        crank[q] = -2  # not looked up yet
                    for a in range(ka):
                        for b in range(kb):
                            sg = csign[a, b]
                            o = outc[a, b]
                            dg = cgrp[a, b] - g
                            if dg < 0 or dg > 2:
                                st[4] += 1  # a child group this kernel does not expect
                                M[a, b] = 0.0
                                continue
                            q = ((o + 1) * 2 + (sg + 1) // 2) * 3 + dg
                            if crank[q] == -2:
                                cpot = stake if (o == 0 and carry) else 0
                                cs0, cns, ckb = _group_states(k - 1, rc, G, cgrp[a, b], gkoff, gsoff, gso_off)
                                ci = _key_index(gkeys, ckb, cns, cpot * W + sg * (d + o * stake) + T)
                                crank[q] = cs0 + ci if ci >= 0 else -1
                            at = crank[q]
                            if at < 0:
                                st[4] += 1
                                M[a, b] = 0.0
                            else:
                                M[a, b] = sg * np.float64(prev[cblk[a, b] + at])
                slot = p if nfirst else first + p
                acc[j] += _solve(M, ka, kb, warm, ws, wI, wJ, slot, tab, basis, xs, ys, A, z, mark, R, st)
                if not nfirst:
                    _copy_support(ws, wI, wJ, first + p, p)
                nfirst += 1
        for j in range(ns):
            key = gkeys[kbase + j]
            pot = key // W
            d = key - pot * W - T
            if gminj[kbase + j] > jmax:
                out[s0 + j] = np.nan
                continue
            st[1] += 1
            if d > sp + pot or -d > sp + pot:
                out[s0 + j] = 1.0 if d > 0 else -1.0
            else:
                out[s0 + j] = acc[j] / count


#: Length of a kernel stats vector: games, positions, largest guarantee gap, games
#: failing the check, missing children, warm-start hits, warm-start misses, games the
#: simplex left unverified (solved again by :func:`kernel.solve_by_supports`).
NSTATS = 8


@njit(cache=True)
def solve_patterns(
    k,
    lo,
    hi,
    win,
    pval,
    carry,
    codes,
    code_off,
    masks,
    mask_off,
    rank_of_mask,
    psum,
    next_prize,
    W,
    T,
    G,
    pgrp,
    poff,
    poff_off,
    gkeys,
    gkoff,
    gsoff,
    gso_off,
    gminj,
    mtop,
    prev,
    out,
    st,
    warm=True,
):
    """Layer ``k``, patterns ``lo..hi-1``: writes their blocks (:class:`SlotMap`, from
    ``out[0]`` on: pattern ``i`` at ``poff[i] - poff[lo]``; float32) from the layer ``k - 1``
    values ``prev`` (float32).

    ``st`` (float64, length ``NSTATS``) accumulates: games, positions, largest
    guarantee gap, games failing the check, missing children, warm-start hits
    and misses, and support searches (games the simplex left unverified).
    ``warm``: each game first tries its neighbour's optimal support; the warm
    state restarts with every pattern, so results do not depend on how patterns
    are split into chunks or threads.
    """
    M, tab, basis, xs, ys, R = kernel.game_workspace(k)
    cidx, csign, outc = kernel.children_workspace(k)
    base = np.empty((k, k))
    top = gso_off[k * G + G - 1]  # the last group holds every state of the layer
    nsub = mask_off[k + 1] - mask_off[k]
    acc = np.empty(max(1, int(np.max(gsoff[top + 1 : top + nsub + 1] - gsoff[top : top + nsub]))))
    nprize = len(pval)  # support slots: per prize, its last game and its first pot's game
    ws = np.zeros(2 * nprize, dtype=np.int64)
    wI = np.zeros((2 * nprize, k), dtype=np.int64)
    wJ = np.zeros((2 * nprize, k), dtype=np.int64)
    A = np.empty((k + 1, k + 1))
    z = np.empty(3 * (k + 1))
    mark = np.empty(k + 1, dtype=np.int64)
    pab = np.empty((2, k), dtype=np.int64)
    tie_a = np.empty(k * k, dtype=np.int64)
    tie_b = np.empty(k * k, dtype=np.int64)
    cgrp = np.zeros((k, k), dtype=np.int64)
    cblk = np.zeros((k, k), dtype=np.int64)
    crank = np.empty(18, dtype=np.int64)
    b0 = poff[poff_off[k] + lo]
    for pi in range(lo, hi):
        o = out[poff[poff_off[k] + pi] - b0 : poff[poff_off[k] + pi + 1] - b0]
        if win:
            _pattern_win(
                k,
                pi,
                pval,
                carry,
                codes,
                code_off,
                masks,
                mask_off,
                rank_of_mask,
                psum,
                next_prize,
                W,
                T,
                G,
                pgrp,
                poff,
                poff_off,
                gkeys,
                gkoff,
                gsoff,
                gso_off,
                gminj,
                mtop,
                prev,
                o,
                M,
                tab,
                basis,
                xs,
                ys,
                acc,
                cidx,
                csign,
                outc,
                cgrp,
                cblk,
                st,
                warm,
                ws,
                wI,
                wJ,
                A,
                z,
                mark,
                R,
                pab,
                crank,
            )
        else:
            _pattern_points(
                k,
                pi,
                pval,
                carry,
                codes,
                code_off,
                masks,
                mask_off,
                rank_of_mask,
                next_prize,
                W,
                T,
                G,
                pgrp,
                poff,
                poff_off,
                gkeys,
                gkoff,
                gsoff,
                gso_off,
                gminj,
                mtop,
                prev,
                o,
                M,
                base,
                tab,
                basis,
                xs,
                ys,
                acc,
                cidx,
                csign,
                outc,
                cgrp,
                cblk,
                st,
                warm,
                ws,
                wI,
                wJ,
                A,
                z,
                mark,
                R,
                pab,
                tie_a,
                tie_b,
            )


@njit(cache=True, parallel=True)
def solve_patterns_parallel(
    k,
    lo,
    hi,
    win,
    pval,
    carry,
    codes,
    code_off,
    masks,
    mask_off,
    rank_of_mask,
    psum,
    next_prize,
    W,
    T,
    G,
    pgrp,
    poff,
    poff_off,
    gkeys,
    gkoff,
    gsoff,
    gso_off,
    gminj,
    mtop,
    prev,
    out,
    st,
    warm=True,
):
    """:func:`solve_patterns` with the patterns spread over Numba's threads
    (each pattern writes its own block: the result is bit-identical)."""
    n = hi - lo
    b0 = poff[poff_off[k] + lo]
    res = np.zeros((n, NSTATS))
    for t in prange(n):
        a = poff[poff_off[k] + lo + t] - b0
        b = poff[poff_off[k] + lo + t + 1] - b0
        solve_patterns(
            k,
            lo + t,
            lo + t + 1,
            win,
            pval,
            carry,
            codes,
            code_off,
            masks,
            mask_off,
            rank_of_mask,
            psum,
            next_prize,
            W,
            T,
            G,
            pgrp,
            poff,
            poff_off,
            gkeys,
            gkoff,
            gsoff,
            gso_off,
            gminj,
            mtop,
            prev,
            out[a:b],
            res[t],
            warm,
        )
    for t in range(n):
        for i in range(NSTATS):
            if i == 2:
                if res[t, 2] > st[2]:
                    st[2] = res[t, 2]
            else:
                st[i] += res[t, i]


def kernel_args(lay: LeanLayout) -> tuple:
    """The index arrays :func:`solve_patterns` takes after ``k, lo, hi`` (in order)."""
    d = lay.dense
    m = slot_map(lay)
    return (
        lay.win,
        d.pval,
        lay.carry,
        d.codes,
        d.code_off,
        d.masks,
        d.mask_off,
        d.rank_of_mask,
        d.psum,
        d.next_prize,
        lay.W,
        d.T,
        m.G,
        m.pgrp,
        m.poff,
        m.poff_off,
        m.gkeys,
        m.gkoff,
        m.gsoff,
        m.gso_off,
        m.gminj,
        top_strengths(lay.dense),
    )


def solve_chunk(
    lay: LeanLayout,
    k: int,
    lo: int,
    hi: int,
    prev: np.ndarray | None,
    threads: int = 1,
    args: tuple | None = None,
    warm: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Values of layer ``k``, patterns ``lo..hi-1`` (float32, their blocks from
    :func:`block` ``(k, lo)`` to ``(k, hi)``) and stats (length ``NSTATS``, see
    :func:`solve_patterns`). ``warm=False``: every game is solved cold (the kernel
    before the warm start; same values within the float32 bound).

    Raises:
        SolverError: a missing child, or a game failing the optimality check.
    """
    out = np.empty(block(lay, k, hi) - block(lay, k, lo), dtype=np.float32)
    st = np.zeros(NSTATS)
    args = kernel_args(lay) if args is None else args
    prev_arr = prev if k > 1 else np.zeros(1, dtype=np.float32)
    fn = solve_patterns_parallel if threads > 1 else solve_patterns
    call_args = (k, lo, hi, *args, prev_arr, out, st, bool(warm))  # the kernel's parameters, in order
    fn(*call_args)
    check_stats(k, st)
    return out, st


def check_stats(k: int, st: np.ndarray) -> None:
    """Raise :class:`SolverError` if a chunk's stats show a missing child or a failed game."""
    if st[4]:
        raise SolverError(f"layer {k}: {int(st[4])} children missing from the layout")
    if st[3]:
        raise SolverError(
            f"layer {k}: {int(st[3])} matrix games failed the optimality check "
            f"(guarantee gap {st[2]:.3g} > {kernel.CHECK_TOL})"
        )


def lean_slot(lay: LeanLayout, k: int, r: int, pi: int, pot: int, d: int) -> int:
    """Slot of (pattern index ``pi``, subset rank ``r``, pot, difference) in layer ``k``'s
    array, or -1 if the state cannot occur (in the compact layout: also a state these hands
    cannot reach)."""
    m = slot_map(lay)
    g = int(m.pgrp[lay.dense.code_off[k] + pi])
    i = k * m.G + g
    so = int(m.gso_off[i])
    s0 = int(m.gsoff[so + r])
    ns = int(m.gsoff[so + r + 1]) - s0
    key = pot * lay.W + (d if lay.win else 0) + lay.dense.T
    j = int(_key_index(m.gkeys, int(m.gkoff[i]) + s0, ns, key))
    if j < 0:
        return -1
    return block(lay, k, pi) + s0 + j
