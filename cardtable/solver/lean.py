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
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from . import kernel
from .layout import Layout, SolverError, build_layout

#: Unit roundoff of float32 (round to nearest): |fl(v) - v| <= U32 * |v|.
U32 = 2.0 ** -24


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
        """Values (slots) of layer k: patterns x states."""
        return self.npat(k) * int(self.nstates[k]) if k > 0 else 0

    def layer_games(self, k: int) -> int:
        """Matrix games of layer k (upper bound for the win objective, where
        decided positions need none)."""
        return k * self.layer_size(k)

    def arrays(self) -> dict[str, np.ndarray]:
        out = {"dense_" + k: v for k, v in self.dense.arrays().items()}
        out.update(skeys=self.skeys, skoff=self.skoff, soff=self.soff, so_off=self.so_off,
                   nstates=self.nstates, scalars=np.array([self.dense.T, self.W,
                                                           int(self.carry), int(self.win)]))
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
        dense = Layout(d["pval"], T, bool(carry), bool(win), d["codes"], d["code_off"], d["masks"],
                       d["mask_off"], d["rank_of_mask"], d["psum"], d["base"], d["base_off"],
                       d["val_off"], d["next_prize"])
        g = {k: np.asarray(arrs[k], dtype=np.int64) for k in ("skeys", "skoff", "soff", "so_off", "nstates")}
        return cls(dense, W, g["skeys"], g["skoff"], g["soff"], g["so_off"], g["nstates"])


def _reachable(pval: np.ndarray, carry: bool, win: bool, T: int) -> list[np.ndarray]:
    """For every revealed set ``c`` (bit mask), the sorted reachable state keys."""
    n_p = len(pval)
    W = 2 * T + 1
    # reach[c]: boolean array over (pot 0..T, d -T..T) (d axis of length 1 without 'win')
    nd = W if win else 1
    doff = T if win else 0
    reach: list[np.ndarray] = [None] * (1 << n_p)  # type: ignore[list-item]
    start = np.zeros((T + 1, nd), dtype=bool)
    start[0, doff] = True
    reach[0] = start
    keys: list[np.ndarray] = [None] * (1 << n_p)  # type: ignore[list-item]
    for c in range(1 << n_p):
        if c:
            low = (c & -c).bit_length() - 1
            prev = reach[c & (c - 1)]
            v = int(pval[low])
            cur = np.zeros_like(prev)
            if carry:
                cur[v:, :] |= prev[:T + 1 - v, :]  # tied away: into the pot
            else:
                cur |= prev  # discard tie: put aside
            if win:
                cur[:, v:] |= prev[:, :nd - v]  # won by A
                cur[:, :nd - v] |= prev[:, v:]  # won by B
            else:
                cur |= prev  # won by either player: the pot is unchanged
            reach[c] = cur
        pots, ds = np.nonzero(reach[c])
        keys[c] = np.sort(pots.astype(np.int64) * W + (ds.astype(np.int64) - doff) + T)
    return keys


def build_lean(pval, amask: int, bmask: int, nbits: int, carry: bool, win: bool) -> LeanLayout:
    """The lean layout of the full game (all prizes face down, pot 0, difference 0).

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
        masks = dense.masks[dense.mask_off[k]:dense.mask_off[k + 1]]
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
    return LeanLayout(dense, W, skeys.astype(np.int64), skoff, np.concatenate(soff_l), so_off,
                      nstates)


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


# -- kernels ------------------------------------------------------------------------------


@njit(cache=True)
def _key_index(skeys, lo, n, key):
    """Rank of ``key`` among ``skeys[lo:lo+n]`` (sorted), or -1."""
    i = np.searchsorted(skeys[lo:lo + n], key)
    if i < n and skeys[lo + i] == key:
        return i
    return -1


@njit(cache=True)
def _pattern_points(k, pi, pval, carry, codes, code_off, masks, mask_off, rank_of_mask,
                    next_prize, W, T, skeys, skoff, soff, so_off, S_prev, prev, out,
                    M, base, tab, basis, xs, ys, acc, cidx, csign, outc, st):
    """All positions of one pattern (points objective), pots vectorised.

    For a subset and a revealed prize, the games of all pots share the child
    values of every decided bid pair (the child has pot 0): ``base`` holds
    them once, and each pot only adds ``pot x outcome`` and looks up its own
    tie continuations (child pot = pot + prize). ``st``: games, positions,
    max gap, failures, missing children.
    """
    code = codes[code_off[k] + pi]
    if not kernel.pattern_children(code, k, codes, code_off, cidx, csign, outc):
        st[4] += 1
        return
    nsub = mask_off[k + 1] - mask_off[k]
    sk = so_off[k]
    for r in range(nsub):
        mask = masks[mask_off[k] + r]
        s0 = soff[sk + r]
        ns = soff[sk + r + 1] - s0
        kbase = skoff[k] + s0
        for j in range(ns):
            acc[j] = 0.0
        count = 0
        fixed = next_prize[mask]
        for p in range(len(pval)):
            if not (mask >> p) & 1:
                continue
            if fixed >= 0 and p != fixed:
                continue
            count += 1
            pv = pval[p]
            cs0 = 0
            cns = 0
            ckb = 0
            if k > 1:
                rc = rank_of_mask[mask & ~(1 << p)]
                so_c = so_off[k - 1]
                cs0 = soff[so_c + rc]
                cns = soff[so_c + rc + 1] - cs0
                ckb = skoff[k - 1] + cs0
            for a in range(k):
                for b in range(k):
                    o = outc[a, b]
                    cont = 0.0
                    if k > 1 and (o != 0 or not carry):  # child pot 0 = the subset's first state
                        cont = csign[a, b] * np.float64(prev[cidx[a, b] * S_prev + cs0])
                    base[a, b] = o * pv + cont
            for j in range(ns):
                pot = (skeys[kbase + j] - T) // W
                for a in range(k):
                    for b in range(k):
                        o = outc[a, b]
                        if o != 0:
                            M[a, b] = base[a, b] + o * pot
                        elif carry and k > 1:
                            ci = _key_index(skeys, ckb, cns, (pot + pv) * W + T)
                            if ci < 0:
                                st[4] += 1
                                M[a, b] = 0.0
                            else:
                                M[a, b] = csign[a, b] * np.float64(prev[cidx[a, b] * S_prev + cs0 + ci])
                        else:
                            M[a, b] = base[a, b]
                v, gap = kernel.solve_matrix_game(M, k, k, tab, basis, xs, ys)
                st[0] += 1
                if not (gap <= kernel.CHECK_TOL * (1.0 + abs(v))):
                    st[3] += 1
                if gap > st[2]:
                    st[2] = gap
                acc[j] += v
        for j in range(ns):
            out[s0 + j] = acc[j] / count
        st[1] += ns


@njit(cache=True)
def _pattern_win(k, pi, pval, carry, codes, code_off, masks, mask_off, rank_of_mask, psum,
                 next_prize, W, T, skeys, skoff, soff, so_off, S_prev, prev, out,
                 M, tab, basis, xs, ys, cidx, csign, outc, st):
    """All positions of one pattern, win objective (value = P(win) - P(loss))."""
    code = codes[code_off[k] + pi]
    if not kernel.pattern_children(code, k, codes, code_off, cidx, csign, outc):
        st[4] += 1
        return
    nsub = mask_off[k + 1] - mask_off[k]
    sk = so_off[k]
    for r in range(nsub):
        mask = masks[mask_off[k] + r]
        sp = psum[mask]
        s0 = soff[sk + r]
        ns = soff[sk + r + 1] - s0
        kbase = skoff[k] + s0
        fixed = next_prize[mask]
        for j in range(ns):
            key = skeys[kbase + j]
            pot = key // W
            d = key - pot * W - T
            st[1] += 1
            if d > sp + pot or -d > sp + pot:  # decided whatever happens
                out[s0 + j] = 1.0 if d > 0 else -1.0
                continue
            total = 0.0
            count = 0
            for p in range(len(pval)):
                if not (mask >> p) & 1:
                    continue
                if fixed >= 0 and p != fixed:
                    continue
                count += 1
                stake = pot + pval[p]
                cs0 = 0
                cns = 0
                ckb = 0
                if k > 1:
                    rc = rank_of_mask[mask & ~(1 << p)]
                    so_c = so_off[k - 1]
                    cs0 = soff[so_c + rc]
                    cns = soff[so_c + rc + 1] - cs0
                    ckb = skoff[k - 1] + cs0
                for a in range(k):
                    for b in range(k):
                        o = outc[a, b]
                        if o != 0:
                            cpot = 0
                            cd = d + o * stake
                        else:
                            cpot = stake if (carry and k > 1) else 0
                            cd = d
                        if k == 1:
                            M[a, b] = 1.0 if cd > 0 else (-1.0 if cd < 0 else 0.0)
                            continue
                        sg = csign[a, b]
                        ci = _key_index(skeys, ckb, cns, cpot * W + sg * cd + T)
                        if ci < 0:
                            st[4] += 1
                            M[a, b] = 0.0
                        else:
                            M[a, b] = sg * np.float64(prev[cidx[a, b] * S_prev + cs0 + ci])
                v, gap = kernel.solve_matrix_game(M, k, k, tab, basis, xs, ys)
                st[0] += 1
                if not (gap <= kernel.CHECK_TOL * (1.0 + abs(v))):
                    st[3] += 1
                if gap > st[2]:
                    st[2] = gap
                total += v
            out[s0 + j] = total / count


@njit(cache=True)
def solve_patterns(k, lo, hi, win, pval, carry, codes, code_off, masks, mask_off, rank_of_mask,
                   psum, next_prize, W, T, skeys, skoff, soff, so_off, nstates, prev, out, st):
    """Layer ``k``, patterns ``lo..hi-1``: writes ``out[(i - lo) * S[k] + ...]``
    (float32) from the layer ``k - 1`` values ``prev`` (float32).

    ``st`` (float64, length 5) accumulates: games, positions, largest
    guarantee gap, games failing the check, missing children.
    """
    S = nstates[k]
    S_prev = nstates[k - 1]
    M = np.empty((k, k))
    base = np.empty((k, k))
    tab = np.empty((k + 1, 2 * k + 1))
    basis = np.empty(k, dtype=np.int64)
    xs = np.empty(k)
    ys = np.empty(k)
    acc = np.empty(max(1, int(np.max(soff[so_off[k] + 1:so_off[k + 1]] - soff[so_off[k]:so_off[k + 1] - 1]))))
    cidx = np.zeros((k, k), dtype=np.int64)
    csign = np.ones((k, k), dtype=np.int64)
    outc = np.zeros((k, k), dtype=np.int64)
    for pi in range(lo, hi):
        o = out[(pi - lo) * S:(pi - lo + 1) * S]
        if win:
            _pattern_win(k, pi, pval, carry, codes, code_off, masks, mask_off, rank_of_mask, psum,
                         next_prize, W, T, skeys, skoff, soff, so_off, S_prev, prev, o,
                         M, tab, basis, xs, ys, cidx, csign, outc, st)
        else:
            _pattern_points(k, pi, pval, carry, codes, code_off, masks, mask_off, rank_of_mask,
                            next_prize, W, T, skeys, skoff, soff, so_off, S_prev, prev, o,
                            M, base, tab, basis, xs, ys, acc, cidx, csign, outc, st)


@njit(cache=True, parallel=True)
def solve_patterns_parallel(k, lo, hi, win, pval, carry, codes, code_off, masks, mask_off,
                            rank_of_mask, psum, next_prize, W, T, skeys, skoff, soff, so_off,
                            nstates, prev, out, st):
    """:func:`solve_patterns` with the patterns spread over Numba's threads
    (each pattern writes its own block: the result is bit-identical)."""
    n = hi - lo
    S = nstates[k]
    res = np.zeros((n, 5))
    for t in prange(n):
        solve_patterns(k, lo + t, lo + t + 1, win, pval, carry, codes, code_off, masks, mask_off,
                       rank_of_mask, psum, next_prize, W, T, skeys, skoff, soff, so_off, nstates,
                       prev, out[t * S:(t + 1) * S], res[t])
    for t in range(n):
        st[0] += res[t, 0]
        st[1] += res[t, 1]
        if res[t, 2] > st[2]:
            st[2] = res[t, 2]
        st[3] += res[t, 3]
        st[4] += res[t, 4]


def kernel_args(lay: LeanLayout) -> tuple:
    """The index arrays :func:`solve_patterns` takes after ``k, lo, hi`` (in order)."""
    d = lay.dense
    return (lay.win, d.pval, lay.carry, d.codes, d.code_off, d.masks, d.mask_off, d.rank_of_mask,
            d.psum, d.next_prize, lay.W, d.T, lay.skeys, lay.skoff, lay.soff, lay.so_off,
            lay.nstates)


def solve_chunk(lay: LeanLayout, k: int, lo: int, hi: int, prev: np.ndarray, threads: int = 1,
                args: tuple | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Values of layer ``k``, patterns ``lo..hi-1`` (float32, ``(hi - lo) * S[k]``) and stats.

    Raises:
        SolverError: a missing child, or a game failing the optimality check.
    """
    out = np.empty((hi - lo) * int(lay.nstates[k]), dtype=np.float32)
    st = np.zeros(5)
    args = kernel_args(lay) if args is None else args
    prev_arr = prev if k > 1 else np.zeros(1, dtype=np.float32)
    fn = solve_patterns_parallel if threads > 1 else solve_patterns
    fn(k, lo, hi, *args, prev_arr, out, st)
    check_stats(k, st)
    return out, st


def check_stats(k: int, st: np.ndarray) -> None:
    """Raise :class:`SolverError` if a chunk's stats show a missing child or a failed game."""
    if st[4]:
        raise SolverError(f"layer {k}: {int(st[4])} children missing from the layout")
    if st[3]:
        raise SolverError(f"layer {k}: {int(st[3])} matrix games failed the optimality check "
                          f"(guarantee gap {st[2]:.3g} > {kernel.CHECK_TOL})")


def lean_slot(lay: LeanLayout, k: int, r: int, pi: int, pot: int, d: int) -> int:
    """Slot of (pattern index ``pi``, subset rank ``r``, pot, difference) in layer ``k``'s
    array, or -1 if the state cannot occur."""
    sk = int(lay.so_off[k])
    s0 = int(lay.soff[sk + r])
    ns = int(lay.soff[sk + r + 1]) - s0
    key = pot * lay.W + (d if lay.win else 0) + lay.dense.T
    j = int(_key_index(lay.skeys, int(lay.skoff[k]) + s0, ns, key))
    if j < 0:
        return -1
    return pi * int(lay.nstates[k]) + s0 + j
