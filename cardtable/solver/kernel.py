"""Numba kernels of the solver: hand patterns, the exact matrix-game simplex,
and the layer-by-layer backward induction.

Everything here works on plain integer/float arrays; the Python side
(:mod:`cardtable.solver.layout`) builds them. All functions are compiled with
``@njit(cache=True)`` so that the one-time compilation is stored on disk; those
on the per-game path also with ``_nrt=False`` (no reference counting, hence no
allocation: their workspaces are passed in), because the atomic reference counts
of array arguments cost about a third of a layer solve (docs/solver.md, Speed).

Hand patterns (see the package docstring for the worked example): the two
remaining hands, as bit masks over *strength positions*, are compressed to the
sequence of distinct strengths held by either player, low to high; each
strength gets a 2-bit label (1 = only player A holds it, 2 = only B, 3 = both).
Label ``i`` sits at bits ``2i, 2i+1`` of the pattern code. Swapping the players
swaps the two bits of every label.
"""

from __future__ import annotations

import numpy as np

from cardtable._numba import njit, prange

#: Tolerance of the optimality check: both players' guarantees must meet (docs/solver.md, Method).
CHECK_TOL = 1e-9
_EPS = 1e-12
_PIV = 1e-9  # smallest pivot element: smaller ones are rounding noise
_M55 = 0x5555555555555555


@njit(cache=True, _nrt=False)
def compress(amask, bmask, nbits):
    """Pattern code of two hands given as bit masks over ``nbits`` strength positions."""
    code = 0
    j = 0
    for i in range(nbits):
        lab = ((amask >> i) & 1) | (((bmask >> i) & 1) << 1)
        if lab:
            code |= lab << (2 * j)
            j += 1
    return code


@njit(cache=True, _nrt=False)
def swap_code(code):
    """The pattern code with the players swapped."""
    return ((code & _M55) << 1) | ((code >> 1) & _M55)


@njit(cache=True, _nrt=False)
def decode(code):
    """Bit masks ``(a, b, m)`` of a pattern over its ``m`` compressed positions."""
    a = 0
    b = 0
    m = 0
    while code:
        lab = code & 3
        if lab & 1:
            a |= 1 << m
        if lab & 2:
            b |= 1 << m
        m += 1
        code >>= 2
    return a, b, m


@njit(cache=True)
def enum_patterns(subs_a, subs_b, nbits):
    """Canonical codes (``min(code, swapped)``) of all pairs of sub-hands, unsorted."""
    out = np.empty(len(subs_a) * len(subs_b), dtype=np.int64)
    t = 0
    for a in subs_a:
        for b in subs_b:
            c = compress(a, b, nbits)
            s = swap_code(c)
            out[t] = c if c <= s else s
            t += 1
    return out


@njit(cache=True, _nrt=False)
def _find(codes, lo, hi, code):
    """Index of ``code`` in the sorted slice ``codes[lo:hi]`` (relative to lo), or -1."""
    i = np.searchsorted(codes[lo:hi], code)
    if i < hi - lo and codes[lo + i] == code:
        return i
    return -1


@njit(cache=True)
def game_workspace(k):
    """Workspaces for solving ``k x k`` games with :func:`solve_game_ws` /
    :func:`solve_game_warm`: ``(M, tab, basis, x, y, R)`` (the matrix, the
    tableau, the basis labels, both strategies, the refinement's workspace)."""
    return (
        np.empty((k, k)),
        np.empty((k + 1, 2 * k + 1)),
        np.empty(k, dtype=np.int64),
        np.empty(k),
        np.empty(k),
        np.empty((2 * k + 4, k)),
    )


@njit(cache=True)
def support_workspace(k):
    """Workspaces of :func:`solve_by_supports` for ``k x k`` games: ``(I, J, A, z, piv)``
    (one support slot each for the rows and the columns, the shifted support matrix,
    its right-hand sides and pivots)."""
    return (
        np.zeros((1, k), dtype=np.int64),
        np.zeros((1, k), dtype=np.int64),
        np.empty((k + 1, k + 1)),
        np.empty(3 * (k + 1)),
        np.empty(k + 1, dtype=np.int64),
    )


@njit(cache=True)
def children_workspace(k):
    """Outputs of :func:`pattern_children` for hands of ``k`` cards: ``(cidx, csign, outc)``."""
    return (
        np.zeros((k, k), dtype=np.int64),
        np.ones((k, k), dtype=np.int64),
        np.zeros((k, k), dtype=np.int64),
    )


@njit(cache=True, _nrt=False, inline="always")
def revealed_next(mask, fixed, p):
    """Whether prize ``p`` can be the next one turned up from the face-down set
    ``mask`` (``fixed >= 0``: the prize order is fixed and that one comes next;
    docs/rules.md, Prize order)."""
    return ((mask >> p) & 1) == 1 and (fixed < 0 or p == fixed)


@njit(cache=True, _nrt=False)
def solve_game_checked(M, k, tab, basis, x, y, R, sup):
    """The square game ``M[:k, :k]`` as :func:`solve_matrix_game` solves it, without
    allocating: :func:`solve_game_ws`, then :func:`solve_by_supports` (workspaces ``sup``
    from :func:`support_workspace`) when the simplex leaves it unverified. The layer
    kernels of format 1 and the best-response kernels use it, so that the strategy a best
    response meets is the one the ``nash`` bot plays. Returns ``(value, gap)``; ``x``,
    ``y`` hold the strategies."""
    v, gap = solve_game_ws(M, k, k, tab, basis, x, y, R)
    return _verified(M, k, k, v, gap, x, y, sup)


@njit(cache=True, _nrt=False)
def _verified(M, k1, k2, v, gap, x, y, sup):
    """``(v, gap)`` of the game ``M[:k1, :k2]`` as solved into ``x``, ``y``, or, when
    they fail the check (gap above ``CHECK_TOL`` relative, or NaN: rounding lost the optimum),
    what :func:`solve_by_supports` finds (workspaces ``sup`` from :func:`support_workspace`
    ``(max(k1, k2))``), if it finds a verified support."""
    if not (gap <= CHECK_TOL * (1.0 + abs(v))):
        ok, v2, gap2, _ = solve_by_supports(
            M, k1, k2, sup[0], sup[1], 0, sup[2], sup[3], sup[4], x, y, WARM_TOL
        )
        if ok:
            return v2, gap2
    return v, gap


@njit(cache=True)
def solve_matrix_game(M, k1, k2, tab, basis, x, y):
    """Exact value of the zero-sum game ``M[:k1, :k2]`` (row player maximises).

    :func:`simplex` finds an optimal basis; when the two guarantees differ by
    more than 1e-13 (relative) its basic solution is recomputed from ``M`` by
    Gaussian elimination (:func:`_refine`); a game still unverified after that (gap above
    ``CHECK_TOL``, or NaN) gets :func:`solve_by_supports`, as in the layer kernels.

    Args and workspaces: as :func:`simplex`.

    Returns:
        ``(value, gap)`` where ``gap = max_i (M y)_i - min_j (x' M)_j >= 0`` is the
        difference of the two players' guarantees (0 up to rounding at optimum).
    """
    value, shift = simplex(M, k1, k2, tab, basis, x, y)
    gap = guarantee_gap(M, k1, k2, x, y)
    if shift != 0.0 and not (gap <= 1e-13 * (1.0 + abs(value))):  # NaN too
        value, gap = _refine(M, k1, k2, shift, basis, x, y, value, gap)
    if not (gap <= CHECK_TOL * (1.0 + abs(value))):  # workspaces only when needed
        value, gap = _verified(M, k1, k2, value, gap, x, y, support_workspace(max(k1, k2)))
    return value, gap


@njit(cache=True, _nrt=False, inline="always")
def _simplex_saddle(M, k1, k2, x, y):
    """First step of :func:`simplex`: zero ``x`` and ``y``, and look for a pure saddle
    point (``max_i min_j == min_j max_i``). Returns ``(found, value, smallest entry)``;
    when found, ``x`` and ``y`` hold the pure strategies."""
    mn = M[0, 0]
    for i in range(k1):
        for j in range(k2):
            if M[i, j] < mn:
                mn = M[i, j]
    for i in range(k1):
        x[i] = 0.0
    for j in range(k2):
        y[j] = 0.0
    best_row = 0
    lower = -1e300
    for i in range(k1):
        r = M[i, 0]
        for j in range(1, k2):
            if M[i, j] < r:
                r = M[i, j]
        if r > lower:
            lower = r
            best_row = i
    best_col = 0
    upper = 1e300
    for j in range(k2):
        c = M[0, j]
        for i in range(1, k1):
            if M[i, j] > c:
                c = M[i, j]
        if c < upper:
            upper = c
            best_col = j
    if upper - lower <= 0.0:
        x[best_row] = 1.0
        y[best_col] = 1.0
        return True, lower, mn
    return False, lower, mn


@njit(cache=True, _nrt=False, inline="always")
def _simplex_tableau(M, k1, k2, tab, basis, shift):
    """The starting tableau of :func:`simplex`: ``(M + shift) y + slack = 1``, the
    slacks basic, objective row ``-1'y`` (columns: ``k2`` strategies, ``k1`` slacks,
    right-hand side)."""
    ncol = k2 + k1 + 1
    rhs = ncol - 1
    for i in range(k1 + 1):
        for j in range(ncol):
            tab[i, j] = 0.0
    for i in range(k1):
        for j in range(k2):
            tab[i, j] = M[i, j] + shift
        tab[i, k2 + i] = 1.0
        tab[i, rhs] = 1.0
        basis[i] = k2 + i
    for j in range(k2):
        tab[k1, j] = -1.0


@njit(cache=True, _nrt=False, inline="always")
def _simplex_entering(tab, k1, rhs, bland):
    """The entering column: Bland's smallest index with a negative reduced cost
    (``bland``), else Dantzig's most negative one; -1 at the optimum."""
    e = -1
    if bland:
        for j in range(rhs):
            if tab[k1, j] < -_EPS:
                return j
        return e
    most = -_EPS
    for j in range(rhs):
        if tab[k1, j] < most:
            most = tab[k1, j]
            e = j
    return e


@njit(cache=True, _nrt=False, inline="always")
def _simplex_leaving(tab, basis, k1, e, rhs):
    """The ratio test of column ``e``: ``(leaving row, its ratio)``, ties within
    ``_EPS`` to the smallest basic index; row -1 when no entry is a pivot."""
    leave = -1
    best = 0.0
    for i in range(k1):
        a = tab[i, e]
        if a > _PIV:
            b = tab[i, rhs]
            ratio = (b if b > 0.0 else 0.0) / a
            if leave < 0 or ratio < best - _EPS or (ratio <= best + _EPS and basis[i] < basis[leave]):
                leave = i
                best = ratio
    return leave, best


@njit(cache=True, _nrt=False, inline="always")
def _simplex_pivot(tab, k1, ncol, leave, e):
    """Pivot the tableau on ``(leave, e)``."""
    piv = tab[leave, e]
    for j in range(ncol):
        tab[leave, j] /= piv
    for i in range(k1 + 1):
        if i != leave:
            f = tab[i, e]
            if f != 0.0:
                for j in range(ncol):
                    tab[i, j] -= f * tab[leave, j]


@njit(cache=True, _nrt=False, inline="always")
def _simplex_read(tab, basis, k1, k2, rhs, x, y):
    """The strategies of the optimal tableau: ``x`` from the slacks' reduced costs,
    ``y`` from the basic columns, both normalised; returns the LP's optimum ``z`` (NaN, and
    NaN strategies, when a sum is not positive: see the body)."""
    z = tab[k1, rhs]
    sx = 0.0
    for i in range(k1):
        v = tab[k1, k2 + i]
        if v < 0.0:
            v = 0.0
        x[i] = v
        sx += v
    sy = 0.0
    for i in range(k1):
        if basis[i] < k2:
            v = tab[i, rhs]
            if v < 0.0:
                v = 0.0
            y[basis[i]] = v
            sy += v
    if not (sx > 0.0 and sy > 0.0 and z > 0.0):
        # rounding lost the optimum (never so at an exact one: both sums equal z > 0); NaN
        # strategies make guarantee_gap NaN, which fails the callers' checks: the refinement,
        # then the support search, takes the game (this divided by zero in the 12-card win
        # solve with discard ties, layer 8, pattern 5628: tests/solver/test_support_fallback.py)
        for i in range(k1):
            x[i] = np.nan
        for j in range(k2):
            y[j] = np.nan
        return np.nan
    for i in range(k1):
        x[i] /= sx
    for j in range(k2):
        y[j] /= sy
    return z


@njit(cache=True, _nrt=False)
def simplex(M, k1, k2, tab, basis, x, y):
    """Value and optimal strategies of the zero-sum game ``M[:k1, :k2]``.

    Pure saddle points and constant games are answered directly; otherwise the
    column player's LP ``max 1'y s.t. (M + c) y <= 1, y >= 0`` (all entries made
    positive by the shift ``c``) is solved by a dense tableau simplex: Dantzig's
    rule until the first degenerate pivot, Bland's smallest-index rule (which
    cannot cycle, Bland 1977) from then on. The row player's strategy is read
    from the reduced costs of the slack columns (LP duality).

    Args:
        M: payoff matrix (float64, at least ``k1 x k2``).
        tab: workspace, at least ``(k1 + 1) x (k1 + k2 + 1)``.
        basis: int64 workspace of length >= k1.
        x, y: outputs, mixed strategies of rows / columns (length >= k1 / k2).

    Allocates nothing and calls only its steps below (inlined by Numba,
    ``inline='always'``: no call per pivot), so the same code also compiles as a
    CUDA device function, its steps as device functions
    (:mod:`cardtable.solver.cuda_backend`).

    Returns:
        ``(value, shift)``: the value, and the shift used by the LP (0.0 when
        the game has a pure saddle point and no LP was solved).
    """
    found, lower, mn = _simplex_saddle(M, k1, k2, x, y)
    if found:
        return lower, 0.0
    shift = 1.0 - mn
    if shift == 0.0:  # 0.0 means "no LP" to the callers (a pure saddle point); any shift >= 1 - mn works
        shift = 1.0
    ncol = k2 + k1 + 1
    rhs = ncol - 1
    _simplex_tableau(M, k1, k2, tab, basis, shift)
    bland = False
    for _it in range(100000):
        e = _simplex_entering(tab, k1, rhs, bland)
        if e < 0:
            break
        leave, best = _simplex_leaving(tab, basis, k1, e, rhs)
        if leave < 0:  # unbounded cannot happen for a positive matrix
            return np.nan, shift
        if best <= _EPS:
            bland = True
        _simplex_pivot(tab, k1, ncol, leave, e)
        basis[leave] = e
    z = _simplex_read(tab, basis, k1, k2, rhs, x, y)
    return 1.0 / z - shift, shift


@njit(cache=True, _nrt=False)
def guarantee_gap(M, k1, k2, x, y):
    """``max_i (M y)_i - min_j (x' M)_j``: what B concedes at most minus what A secures.
    NaN when a strategy holds NaN (a simplex read that lost the optimum, :func:`_simplex_read`),
    so that every check (``not gap <= tol``) fails it; a plain ``s < lo`` would skip the NaN
    sums and return -2e300, which passes them all."""
    lo = 1e300
    for j in range(k2):
        s = 0.0
        for i in range(k1):
            s += x[i] * M[i, j]
        if s < lo or s != s:  # a NaN sum stays: no comparison with it is true
            lo = s
    hi = -1e300
    for i in range(k1):
        s = 0.0
        for j in range(k2):
            s += M[i, j] * y[j]
        if s > hi or s != s:
            hi = s
    return hi - lo


@njit(cache=True, _nrt=False)
def _gauss(A, b, n):
    """Solve ``A z = b`` in place (partial pivoting); False if (nearly) singular."""
    for c in range(n):
        p = c
        for r in range(c + 1, n):
            if abs(A[r, c]) > abs(A[p, c]):
                p = r
        if abs(A[p, c]) < 1e-13:
            return False
        if p != c:
            for j in range(n):
                t = A[c, j]
                A[c, j] = A[p, j]
                A[p, j] = t
            t = b[c]
            b[c] = b[p]
            b[p] = t
        for r in range(n):
            if r != c:
                f = A[r, c] / A[c, c]
                if f != 0.0:
                    for j in range(c, n):
                        A[r, j] -= f * A[c, j]
                    b[r] -= f * b[c]
    for c in range(n):
        b[c] /= A[c, c]
    return True


@njit(cache=True)
def _refine(M, k1, k2, shift, basis, x, y, value, gap):
    """:func:`_refine_ws` with its workspace allocated here."""
    R = np.empty((2 * k1 + 4, max(k1, k2)))
    return _refine_ws(M, k1, k2, shift, basis, x, y, value, gap, R)


@njit(cache=True, _nrt=False, inline="always")
def _basis_systems(M, k1, k2, shift, basis, B, BT, zb, cb):
    """The systems of :func:`_refine_ws`: ``B`` the basis columns of the shifted LP
    (``BT`` its transpose), ``zb = 1`` and ``cb`` the basic strategy columns' costs."""
    for i in range(k1):
        zb[i] = 1.0
        for c in range(k1):
            j = basis[c]
            if j < k2:
                B[i, c] = M[i, j] + shift
            else:
                B[i, c] = 1.0 if j - k2 == i else 0.0
            BT[c, i] = B[i, c]
    for c in range(k1):
        cb[c] = 1.0 if basis[c] < k2 else 0.0


@njit(cache=True, _nrt=False, inline="always")
def _basic_strategies(k1, k2, basis, zb, cb, x2, y2):
    """The unnormalised strategies of the solved systems of :func:`_refine_ws` into
    ``x2``, ``y2`` (negative weights clipped to 0); returns their sums ``(sx, sy)``."""
    for i in range(k1):
        x2[i] = 0.0
    for j in range(k2):
        y2[j] = 0.0
    sx = 0.0
    sy = 0.0
    for i in range(k1):
        v = cb[i] if cb[i] > 0.0 else 0.0
        x2[i] = v
        sx += v
    for c in range(k1):
        if basis[c] < k2 and zb[c] > 0.0:
            y2[basis[c]] = zb[c]
            sy += zb[c]
    return sx, sy


@njit(cache=True, _nrt=False)
def _refine_ws(M, k1, k2, shift, basis, x, y, value, gap, R):
    """Recompute the basic solution of the final simplex basis from the original
    matrix (removes the rounding accumulated by the pivots); keep it if better.

    ``R``: float64 workspace of shape at least ``(2 k1 + 4, max(k1, k2))``
    (the basis matrix, its transpose, two right-hand sides, two strategies).
    Compiled without Numba's reference counting (``_nrt=False``): it allocates
    nothing, and a call costs no atomic operations (docs/solver.md, Speed)."""
    B = R[0:k1]
    BT = R[k1 : 2 * k1]
    zb = R[2 * k1]
    cb = R[2 * k1 + 1]
    x2 = R[2 * k1 + 2]
    y2 = R[2 * k1 + 3]
    _basis_systems(M, k1, k2, shift, basis, B, BT, zb, cb)
    if not _gauss(B, zb, k1) or not _gauss(BT, cb, k1):
        return value, gap
    sx, sy = _basic_strategies(k1, k2, basis, zb, cb, x2, y2)
    if sx <= 0.0 or sy <= 0.0:
        return value, gap
    for i in range(k1):
        x2[i] /= sx
    for j in range(k2):
        y2[j] /= sy
    gap2 = guarantee_gap(M, k1, k2, x2, y2)
    if gap2 < gap or gap != gap:  # better, or the simplex's strategies were NaN
        for i in range(k1):
            x[i] = x2[i]
        for j in range(k2):
            y[j] = y2[j]
        return 0.5 * (1.0 / sx + 1.0 / sy) - shift, gap2
    return value, gap


@njit(cache=True, _nrt=False)
def solve_game_ws(M, k1, k2, tab, basis, x, y, R):
    """:func:`solve_matrix_game` with the refinement's workspace ``R`` given (shape as
    :func:`_refine_ws`; :func:`solve_matrix_game`, for callers outside the kernels,
    allocates it only when a refinement is needed): allocates nothing and, compiled
    without reference counting, costs no atomic operations per call; the kernels'
    inner loops call this one."""
    value, gap, _ = _solve_cold(M, k1, k2, tab, basis, x, y, R)
    return value, gap


@njit(cache=True, _nrt=False)
def _solve_cold(M, k1, k2, tab, basis, x, y, R):
    """The cold solve of :func:`solve_game_ws`, also returning the simplex's shift
    (0.0: a pure saddle point), which :func:`solve_game_warm` needs for the next
    guess: ``(value, gap, shift)``."""
    value, shift = simplex(M, k1, k2, tab, basis, x, y)
    gap = guarantee_gap(M, k1, k2, x, y)
    if shift != 0.0 and not (gap <= 1e-13 * (1.0 + abs(value))):  # NaN too
        value, gap = _refine_ws(M, k1, k2, shift, basis, x, y, value, gap, R)
    return value, gap, shift


#: Warm start: a guessed support's solution is kept when both guarantees meet this
#: closely (relative to 1 + |value|); a cold solve refines to 1e-13 (docs/solver.md).
WARM_TOL = 1e-12
_NEG = 1e-12  # a support weight below -_NEG: the guessed support is wrong


@njit(cache=True, inline="always")
def _saddle_on_support(M, k1, k2, i0, j0, x, y):
    """:func:`solve_on_support` for a support of one row ``i0`` and one column ``j0``
    (a pure saddle point): ``(True, value, gap)``."""
    for i in range(k1):
        x[i] = 0.0
    for j in range(k2):
        y[j] = 0.0
    x[i0] = 1.0
    y[j0] = 1.0
    hi = M[0, j0]
    for i in range(1, k1):
        if M[i, j0] > hi:
            hi = M[i, j0]
    lo = M[i0, 0]
    for j in range(1, k2):
        if M[i0, j] < lo:
            lo = M[i0, j]
    return True, M[i0, j0], hi - lo


@njit(cache=True, inline="always")
def _shifted_lu(M, I, J, w, s, A, z, piv):
    """Build the shifted support matrix ``C = M_IJ + c`` of :func:`solve_on_support`
    (``c = 1 - min M_IJ``, so every entry is at least 1) in ``A`` and factor it in
    place, ``P C = L U`` (partial pivoting; L unit lower, below the diagonal; the row
    swaps in ``piv``, the reciprocal pivots in ``z[2n:2n + s]``, ``c`` in ``z[3n - 1]``,
    ``n = s + 1``). Returns False when ``C`` is (nearly) singular."""
    n = s + 1
    lo = 1e300
    for r in range(s):
        ir = I[w, r]
        for c in range(s):
            t = M[ir, J[w, c]]
            A[r, c] = t
            if t < lo:
                lo = t
    sh = 1.0 - lo
    z[3 * n - 1] = sh
    for r in range(s):
        for c in range(s):
            A[r, c] += sh
    for c in range(s):
        p = c
        big = abs(A[c, c])
        for r in range(c + 1, s):
            if abs(A[r, c]) > big:
                big = abs(A[r, c])
                p = r
        if big < 1e-13:
            return False
        piv[c] = p
        if p != c:
            for j in range(s):
                t = A[c, j]
                A[c, j] = A[p, j]
                A[p, j] = t
        inv = 1.0 / A[c, c]
        z[2 * n + c] = inv
        for r in range(c + 1, s):
            f = A[r, c] * inv
            A[r, c] = f
            if f != 0.0:
                for j in range(c + 1, s):
                    A[r, j] -= f * A[c, j]
    return True


@njit(cache=True, inline="always")
def _support_columns(s, A, z, piv):
    """The columns' system ``C y' = 1`` from the factors of :func:`_shifted_lu`:
    ``y = y' / sum(y')`` into ``z[:s]`` and ``v = 1 / sum(y') - c`` into ``z[s]``.
    Returns False when ``sum(y')`` is not positive (no equalising strategy)."""
    n = s + 1
    for r in range(s):
        z[r] = 1.0
    for r in range(1, s):
        t = z[r]
        for j in range(r):
            t -= A[r, j] * z[j]
        z[r] = t
    tot = 0.0
    for r in range(s - 1, -1, -1):
        t = z[r]
        for j in range(r + 1, s):
            t -= A[r, j] * z[j]
        t *= z[2 * n + r]
        z[r] = t
        tot += t
    if not tot > 0.0:
        return False
    inv = 1.0 / tot
    for r in range(s):
        z[r] *= inv
    z[s] = inv - z[3 * n - 1]
    return True


@njit(cache=True, inline="always")
def _support_rows(s, A, z, piv):
    """The rows' system ``C' x' = 1`` from the factors of :func:`_shifted_lu`
    (``U' q = 1, L' t = q, x' = P' t``): ``x = x' / sum(x')`` into ``z[n:n + s]`` and
    ``-v`` into ``z[n + s]``. Returns False when ``sum(x')`` is not positive."""
    n = s + 1
    u = n
    for r in range(s):
        t = 1.0
        for j in range(r):
            t -= A[j, r] * z[u + j]
        z[u + r] = t * z[2 * n + r]
    for r in range(s - 2, -1, -1):
        t = z[u + r]
        for j in range(r + 1, s):
            t -= A[j, r] * z[u + j]
        z[u + r] = t
    for c in range(s - 1, -1, -1):
        p = piv[c]
        if p != c:
            t = z[u + c]
            z[u + c] = z[u + p]
            z[u + p] = t
    tot = 0.0
    for r in range(s):
        tot += z[u + r]
    if not tot > 0.0:
        return False
    inv = 1.0 / tot
    for r in range(s):
        z[u + r] *= inv
    z[u + s] = z[3 * n - 1] - inv
    return True


@njit(cache=True, inline="always")
def _negative_weight(z, at, s):
    """True when one of the ``s`` weights ``z[at:at + s]`` is below ``-_NEG`` (the
    guessed support is wrong)."""
    for c in range(s):
        if z[at + c] < -_NEG:
            return True
    return False


@njit(cache=True, inline="always")
def _support_gap(M, k1, k2, I, J, w, s, x, y):
    """The guarantee gap (as :func:`guarantee_gap`) of ``(x, y)``, zero off the
    supports, summed over the supports only: O(s k), not O(k^2)."""
    lo = 1e300
    for j in range(k2):
        t = 0.0
        for r in range(s):
            t += x[I[w, r]] * M[I[w, r], j]
        if t < lo:
            lo = t
    hi = -1e300
    for i in range(k1):
        t = 0.0
        for c in range(s):
            t += M[i, J[w, c]] * y[J[w, c]]
        if t > hi:
            hi = t
    return hi - lo


@njit(cache=True, inline="always")
def solve_on_support(M, k1, k2, I, J, w, s, A, z, piv, x, y):
    """Solve the game ``M[:k1, :k2]`` on a guessed square support (rows ``I[w, :s]``,
    columns ``J[w, :s]``): the equalising systems ``M_IJ y_J = v 1``, ``x_I' M_IJ = v 1'``
    with weights summing to 1. With the shift ``c = 1 - min M_IJ`` and
    ``C = M_IJ + c`` (entries >= 1, so a solution has value ``v + c >= 1``), they are
    ``C y' = 1`` and ``C' x' = 1`` with ``y = y' / sum(y')``, ``x = x' / sum(x')`` and
    ``v + c = 1 / sum(y') = 1 / sum(x')`` (the completely mixed game's formula,
    Shapley and Snow 1950, "Basic solutions of discrete games"): one LU factorisation
    of the ``s x s`` matrix ``C`` (partial pivoting) serves both; the value returned is
    the mean of the two. On the kernel of Shapley and Snow's theorem (a square support
    with optimal equalising strategies whose matrix, shifted by any constant that makes
    the value nonzero, is nonsingular) ``C`` is nonsingular too, so
    :func:`solve_by_supports` still finds it: ``det C = (v + c) 1' adj(M_IJ) 1`` (the
    adjugate's sum does not change when a constant is added to every entry; it is
    nonzero on the kernel), and ``v + c >= 1``.

    Args:
        A: float64 workspace, at least ``(s + 1) x (s + 1)``; z: float64, length
            >= 3 (s + 1); piv: int64, length >= s + 1.
        x, y: outputs (length >= k1 / k2), zero off the support.

    Returns:
        ``(ok, value, gap)``: ok is False when ``C`` is singular or a weight is
        negative (the support is wrong); else gap = the guarantee gap of (x, y)
        on the whole matrix (:func:`guarantee_gap`). A pure saddle point
        (``s == 1``) is read off directly. Allocates nothing; its steps are
        helpers inlined into the caller (``inline='always'``: no call per game).
    """
    if s == 1:
        return _saddle_on_support(M, k1, k2, I[w, 0], J[w, 0], x, y)
    if not _shifted_lu(M, I, J, w, s, A, z, piv):
        return False, 0.0, 0.0
    if not _support_columns(s, A, z, piv) or _negative_weight(z, 0, s):
        return False, 0.0, 0.0
    u = s + 1
    if not _support_rows(s, A, z, piv) or _negative_weight(z, u, s):
        return False, 0.0, 0.0
    for i in range(k1):
        x[i] = 0.0
    for j in range(k2):
        y[j] = 0.0
    for c in range(s):
        wt = z[c]
        y[J[w, c]] = wt if wt > 0.0 else 0.0
        wt = z[u + c]
        x[I[w, c]] = wt if wt > 0.0 else 0.0
    return True, 0.5 * (z[s] - z[u + s]), _support_gap(M, k1, k2, I, J, w, s, x, y)


@njit(cache=True, inline="always")
def basis_support(k1, k2, shift, basis, x, y, I, J, w, mark):
    """The square support of the optimal basis :func:`simplex` left: the basic
    columns ``J`` and the rows ``I`` whose slack is not basic (as many); for a
    pure saddle point (``shift == 0``) its row and column. Writes ``I``, ``J``
    (length >= k1); ``mark``: int64 workspace of length >= k1. Returns the size."""
    if shift == 0.0:
        for i in range(k1):
            if x[i] == 1.0:
                I[w, 0] = i
        for j in range(k2):
            if y[j] == 1.0:
                J[w, 0] = j
        return 1
    for i in range(k1):
        mark[i] = 0
    s = 0
    for c in range(k1):
        if basis[c] < k2:
            J[w, s] = basis[c]
            s += 1
        else:
            mark[basis[c] - k2] = 1
    t = 0
    for i in range(k1):
        if mark[i] == 0:
            I[w, t] = i
            t += 1
    return s if t == s else 0


@njit(cache=True, _nrt=False)
def solve_game_warm(M, k1, k2, tab, basis, x, y, I, J, w, s, A, z, mark, R):
    """:func:`solve_matrix_game` warm-started from a neighbour game's optimal
    support ``(I[w, :s], J[w, :s])`` (``s = 0``: none): that support's equalising
    solution (:func:`solve_on_support`) is kept when both guarantees meet within
    ``WARM_TOL x (1 + |value|)``; otherwise the cold simplex solves the game and
    its optimal basis becomes the support for the next game.

    Supports: ``I, J`` are int64 arrays of shape ``(slots, >= k1)``; slot ``w``
    is read and overwritten. Workspaces: ``tab, basis`` as :func:`simplex`;
    ``A``: ``(k1 + 1) x (k1 + 1)``; ``z``: float64, length ``3 (k1 + 1)``;
    ``mark``: int64, length ``k1 + 1``; ``R`` as :func:`_refine_ws`. Compiled
    without reference counting (``_nrt=False``): per game no allocation and no
    atomic operation, which cost about a third of the layer solve when these
    functions were inlined into the reference-counted layer loop
    (docs/solver.md, Speed).

    Returns:
        ``(value, gap, s, hit)``: value and guarantee gap as
        :func:`solve_matrix_game`, the support size now in slot ``w`` (0: none),
        and whether the guessed support was kept.
    """
    if s > 0:
        ok, v, gap = solve_on_support(M, k1, k2, I, J, w, s, A, z, mark, x, y)
        if ok and gap <= WARM_TOL * (1.0 + abs(v)):
            return v, gap, s, True
    value, gap, shift = _solve_cold(M, k1, k2, tab, basis, x, y, R)
    return value, gap, basis_support(k1, k2, shift, basis, x, y, I, J, w, mark), False


@njit(cache=True, _nrt=False, inline="always")
def _next_subset(C, w, s, n):
    """Advance ``C[w, :s]`` to the next ``s``-subset of ``0..n-1`` in lexicographic order;
    False after the last."""
    i = s - 1
    while i >= 0 and C[w, i] == n - s + i:
        i -= 1
    if i < 0:
        return False
    C[w, i] += 1
    for t in range(i + 1, s):
        C[w, t] = C[w, t - 1] + 1
    return True


@njit(cache=True, _nrt=False)
def solve_by_supports(M, k1, k2, I, J, w, A, z, piv, x, y, tol):
    """The fallback for a game ``M[:k1, :k2]`` the simplex left unverified (a
    degenerate game whose pivots lost the optimum to rounding): every pair of square
    supports, smallest first, solved exactly as :func:`solve_on_support` does, until one
    meets both guarantees within ``tol`` (relative to 1 + |value|). By Shapley and Snow
    (1950, "Basic solutions of discrete games") some square submatrix is a kernel whose
    equalising strategies are optimal, so the search ends there. Uses support slot ``w`` of
    ``I``, ``J`` as scratch; workspaces as :func:`solve_game_warm`. Cost: up to C(2k, k)
    small LU solves (3,432 at k = 7, square games), paid only by the rare games that fail
    the check.

    Returns:
        ``(ok, value, gap, s)``; when ok, ``x``, ``y`` the strategies and ``(I[w, :s],
        J[w, :s])`` their support (the next game's guess).
    """
    for s in range(1, min(k1, k2) + 1):
        for t in range(s):
            I[w, t] = t
        while True:
            for t in range(s):
                J[w, t] = t
            while True:
                ok, v, gap = solve_on_support(M, k1, k2, I, J, w, s, A, z, piv, x, y)
                if ok and gap <= tol * (1.0 + abs(v)):
                    return True, v, gap, s
                if not _next_subset(J, w, s, k2):
                    break
            if not _next_subset(I, w, s, k1):
                break
    return False, 0.0, 0.0, 0


@njit(cache=True)
def pattern_children(code, k, codes, code_off, cidx, csign, outc):
    """For a pattern with ``k`` cards each, the child pattern of every bid pair.

    Fills ``cidx[a, b]`` (index of the canonical child pattern in layer ``k-1``),
    ``csign[a, b]`` (+1, or -1 when the child is stored with the players
    swapped) and ``outc[a, b]`` (+1 if A's ``a``-th lowest card beats B's
    ``b``-th lowest, -1 if it loses, 0 on a tie). Returns False if a child is
    missing from the layout (a bug or a foreign table).
    """
    return pattern_children_ws(
        code, k, codes, code_off, cidx, csign, outc, np.empty(k, dtype=np.int64), np.empty(k, dtype=np.int64)
    )


@njit(cache=True, _nrt=False)
def pattern_children_ws(code, k, codes, code_off, cidx, csign, outc, pa, pb):
    """:func:`pattern_children` with its two scratch arrays given (int64, length
    >= k): allocates nothing, so the kernels compiled without reference
    counting can call it."""
    am, bm, m = decode(code)
    ia = 0
    ib = 0
    for i in range(m):
        if (am >> i) & 1:
            pa[ia] = i
            ia += 1
        if (bm >> i) & 1:
            pb[ib] = i
            ib += 1
    for a in range(k):
        for b in range(k):
            if pa[a] > pb[b]:
                outc[a, b] = 1
            elif pa[a] < pb[b]:
                outc[a, b] = -1
            else:
                outc[a, b] = 0
            if k > 1:
                c = compress(am & ~(1 << pa[a]), bm & ~(1 << pb[b]), m)
                s = swap_code(c)
                if c <= s:
                    csign[a, b] = 1
                    cc = c
                else:
                    csign[a, b] = -1
                    cc = s
                idx = _find(codes, code_off[k - 1], code_off[k], cc)
                if idx < 0:
                    return False
                cidx[a, b] = idx
    return True


@njit(cache=True, _nrt=False, inline="always")
def _equal_bids(k, cidx, csign, outc, u, v, rows):
    """Whether A's bids ``u`` and ``v`` (``rows``; else B's) meet every bid of the other
    player with the same outcome and the same child position."""
    for t in range(k):
        a1, b1, a2, b2 = (u, t, v, t) if rows else (t, u, t, v)
        if outc[a1, b1] != outc[a2, b2] or cidx[a1, b1] != cidx[a2, b2] or csign[a1, b1] != csign[a2, b2]:
            return False
    return True


@njit(cache=True, _nrt=False, inline="always")
def _first_of_each_class(k, cidx, csign, outc, keep, rows):
    """The first bid of each class of equal bids into ``keep`` (ascending); their number."""
    n = 0
    for u in range(k):
        new = True
        for q in range(n):
            if _equal_bids(k, cidx, csign, outc, keep[q], u, rows):
                new = False
                break
        if new:
            keep[n] = u
            n += 1
    return n


@njit(cache=True, _nrt=False)
def merge_equivalent_bids(k, cidx, csign, outc, cgrp, cblk, ra, rb):
    """Keep one bid of each class of equivalent bids, in place: ``(ka, kb)``.

    Two of A's cards are equivalent when they meet every card of B with the same
    outcome and lead to the same child position (the same ``cidx``, ``csign``): in
    a pattern, two neighbouring strengths that only A holds (docs/solver.md, Method:
    equivalent bids). Their rows of the round's matrix game are equal, so the game
    keeps one of them and its value does not change (a mixed strategy over equal
    rows is worth what its total weight on one of them is worth). The same holds for
    B's columns. The first card of each class stays: ``ra[:ka]``, ``rb[:kb]`` are the
    kept rows and columns (ascending), and ``cidx``, ``csign``, ``outc``, ``cgrp``,
    ``cblk`` (``k x k`` int64, filled for bid pairs, ``k > 1``) are compacted to their
    first ``ka x kb`` entries (entry ``(i, j)`` := ``(ra[i], rb[j])``: every source lies
    at or after its target in row-major order, so the copy in place is safe)."""
    ka = _first_of_each_class(k, cidx, csign, outc, ra, True)
    kb = _first_of_each_class(k, cidx, csign, outc, rb, False)
    if ka < k or kb < k:
        for i in range(ka):
            for j in range(kb):
                a = ra[i]
                b = rb[j]
                cidx[i, j] = cidx[a, b]
                csign[i, j] = csign[a, b]
                outc[i, j] = outc[a, b]
                cgrp[i, j] = cgrp[a, b]
                cblk[i, j] = cblk[a, b]
    return ka, kb


@njit(cache=True, _nrt=False)
def slot(k, r, pot, d, R, npat, base, base_off, val_off, carry, win):
    """Index in the value array of layer ``k``, subset rank ``r``, pot, point difference ``d``."""
    nd = 2 * R + 1 if win else 1
    dd = d + R if win else 0
    p = pot if carry else 0
    return val_off[k] + base[base_off[k] + r] + (p * nd + dd) * npat


@njit(cache=True, _nrt=False)
def fill_matrix(
    M,
    k,
    r_child,
    R_child,
    pot,
    d,
    stake,
    carry,
    win,
    cidx,
    csign,
    outc,
    values,
    codes,
    code_off,
    base,
    base_off,
    val_off,
):
    """Payoff matrix of one round: rows = A's cards low to high, columns = B's.

    ``stake`` is the pot plus the revealed prize. Entry = (points objective)
    round outcome x stake + value of the child position; (win objective) the
    child's value at the new point difference. A tie keeps the stake in the pot
    (carry-over) unless it is the last round, where nobody gets it (docs/rules.md,
    Ties); with discard ties it is put aside.
    """
    npat_c = code_off[k] - code_off[k - 1] if k > 1 else 0
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
                if win:
                    M[a, b] = 1.0 if cd > 0 else (-1.0 if cd < 0 else 0.0)
                else:
                    M[a, b] = o * stake
                continue
            if win:
                sg = csign[a, b]
                dlook = cd if sg > 0 else -cd
                s0 = slot(k - 1, r_child, cpot, dlook, R_child, npat_c, base, base_off, val_off, carry, win)
                M[a, b] = sg * values[s0 + cidx[a, b]]
            else:
                s0 = slot(k - 1, r_child, cpot, 0, R_child, npat_c, base, base_off, val_off, carry, win)
                M[a, b] = o * stake + csign[a, b] * values[s0 + cidx[a, b]]


@njit(cache=True, _nrt=False)
def most_ties(code, mtop, shtop):
    """The most ties a game can have had on its way to hand pattern ``code`` from a start
    holding ``mtop`` strengths (either hand), ``shtop`` of them in both: each tie uses up
    a strength both hands held (docs/rules.md, Ties), so at most ``min(mtop - m,
    shtop - sh)`` with ``m``, ``sh`` the pattern's own counts
    (:func:`cardtable.solver.layout.pot_reach`)."""
    m = 0
    sh = 0
    while code:
        if code & 3 == 3:
            sh += 1
        m += 1
        code >>= 2
    return min(mtop - m, shtop - sh)


@njit(cache=True)
def most_ties_each(codes, mtop, shtop):
    """:func:`most_ties` of every code in ``codes`` (int64 array, same shape)."""
    out = np.empty(len(codes), dtype=np.int64)
    for i in range(len(codes)):
        out[i] = most_ties(codes[i], mtop, shtop)
    return out


@njit(cache=True)
def solve_layer(
    k,
    pat_lo,
    pat_hi,
    pval,
    T,
    carry,
    win,
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
    values,
    stats,
    fewest,
    mtop,
    shtop,
):
    """Fill ``values`` for the positions of layer ``k`` (k cards in each hand)
    whose pattern index lies in ``pat_lo..pat_hi-1`` (chunks allow progress reports).

    The states whose pot no game reaches (``fewest[mask, pot]`` more than
    :func:`most_ties` of the pattern; ``fewest, mtop, shtop`` from
    :func:`cardtable.solver.layout.pot_reach`) are skipped: their slots keep what
    they hold (NaN from the callers), and no reachable state reads them.

    Value of a position = mean over the next revealed prize of the matrix-game
    value (docs/rules.md, What each player knows); with a fixed prize order
    (``next_prize[mask] >= 0``) only that prize is revealed next. ``stats``: [0] games
    solved, [1] positions, [2] largest guarantee gap seen (float view), so the
    caller can verify every game met ``CHECK_TOL``; [3] failures.
    Returns the number of patterns whose children were missing (0 when sound).
    """
    M, tab, basis, xs, ys, RW = game_workspace(k)
    cidx, csign, outc = children_workspace(k)
    sup = support_workspace(k)
    bad = 0
    for pi in range(pat_lo, pat_hi):
        code = codes[code_off[k] + pi]
        if not pattern_children(code, k, codes, code_off, cidx, csign, outc):
            bad += 1
            continue
        _solve_pattern(
            k,
            pi,
            pval,
            T,
            carry,
            win,
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
            values,
            stats,
            M,
            tab,
            basis,
            xs,
            ys,
            cidx,
            csign,
            outc,
            RW,
            sup,
            fewest,
            most_ties(code, mtop, shtop),
        )
    return bad


@njit(cache=True, _nrt=False)
def _solve_pattern(
    k,
    pi,
    pval,
    T,
    carry,
    win,
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
    values,
    stats,
    M,
    tab,
    basis,
    xs,
    ys,
    cidx,
    csign,
    outc,
    RW,
    sup,
    fewest,
    jmax,
):
    """The positions of pattern ``pi`` for :func:`solve_layer` (its children in
    ``cidx, csign, outc``); workspaces given, so that, compiled without reference
    counting, its per-game calls cost no atomic operations (docs/solver.md, Speed).
    A game the simplex leaves unverified gets :func:`solve_by_supports` (workspaces
    ``sup``, :func:`support_workspace`); only a game still unverified after it counts
    as a failure.

    Complexity: one function on purpose: the format-1 hot loop over (subset, prize,
    pot, difference) fills and solves one matrix per state; the slot arithmetic and
    the matrix game are already helpers, and what remains are the loop levels and
    the objective's and tie rule's branches inside them."""
    npat = code_off[k + 1] - code_off[k]
    nsub = mask_off[k + 1] - mask_off[k]
    games = 0
    positions = 0
    maxgap = 0.0
    fails = 0
    for r in range(nsub):
        mask = masks[mask_off[k] + r]
        sp = psum[mask]
        R = T - sp
        npot = R + 1 if carry else 1
        for pot in range(npot):
            if fewest[mask, pot] > jmax:  # no game reaches this pot with these hands
                continue
            dlo = -(R - pot) if win else 0
            dhi = (R - pot) if win else 0
            for d in range(dlo, dhi + 1):
                idx = slot(k, r, pot, d, R, npat, base, base_off, val_off, carry, win) + pi
                positions += 1
                if win and (d > sp + pot or -d > sp + pot):
                    values[idx] = 1.0 if d > 0 else -1.0
                    continue
                total = 0.0
                count = 0
                fixed = next_prize[mask]
                for p in range(len(pval)):
                    if not revealed_next(mask, fixed, p):
                        continue
                    count += 1
                    cm = mask & ~(1 << p)
                    rc = rank_of_mask[cm]
                    Rc = T - psum[cm]
                    stake = pot + pval[p]
                    fill_matrix(
                        M,
                        k,
                        rc,
                        Rc,
                        pot,
                        d,
                        stake,
                        carry,
                        win,
                        cidx,
                        csign,
                        outc,
                        values,
                        codes,
                        code_off,
                        base,
                        base_off,
                        val_off,
                    )
                    v, gap = solve_game_checked(M, k, tab, basis, xs, ys, RW, sup)
                    games += 1
                    scale = 1.0 + abs(v)
                    if not (gap <= CHECK_TOL * scale):
                        fails += 1
                    if gap > maxgap:
                        maxgap = gap
                    total += v
                values[idx] = total / count
    stats[0] += games
    stats[1] += positions
    if maxgap > stats[2]:
        stats[2] = maxgap
    stats[3] += fails


@njit(cache=True, parallel=True)
def solve_layer_parallel(
    k,
    pat_lo,
    pat_hi,
    pval,
    T,
    carry,
    win,
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
    values,
    stats,
    fewest,
    mtop,
    shtop,
):
    """:func:`solve_layer` with the patterns spread over Numba's threads.

    Each pattern owns distinct slots, so the threads never write the same value.
    Returns the number of patterns with missing children, like :func:`solve_layer`.
    """
    n = pat_hi - pat_lo
    res = np.zeros((n, 5))
    for t in prange(n):
        res[t, 4] = solve_layer(
            k,
            pat_lo + t,
            pat_lo + t + 1,
            pval,
            T,
            carry,
            win,
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
            values,
            res[t],
            fewest,
            mtop,
            shtop,
        )
    bad = 0
    for t in range(n):
        stats[0] += res[t, 0]
        stats[1] += res[t, 1]
        if res[t, 2] > stats[2]:
            stats[2] = res[t, 2]
        stats[3] += res[t, 3]
        bad += int(res[t, 4])
    return bad
