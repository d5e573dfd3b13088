"""The CUDA backend (``--backend cuda``): one layer's matrix games on an NVIDIA GPU.

One CUDA block per *position* (hand pattern x prize subset), one thread per
pot (state) of that position. For each revealed prize, the block's threads
first fill the shared part of the matrix game (the child values of every
decided bid pair, identical for all pots) into shared memory; then each
thread adds its pot and its tie continuations and runs the same dense simplex
as the CPU (:func:`cardtable.solver.kernel.simplex`, compiled as a device
function), verifies both guarantees, and accumulates the mean over prizes in
the same order as the CPU. Values are written as float32 like the CPU layers.
The CPU additionally re-solves a game by Gaussian elimination when its two
guarantees differ by more than 1e-13; the GPU does not, so its values may
differ from the CPU's in the last bits, always within the float32 bound of
docs/solver.md (the check of 1e-9 applies to every game on both).

Points objective only (the win objective has no shared part to vectorise).
Needs ``pip install 'cardtable[cuda]'`` (numba-cuda) and a GPU; without one,
``NUMBA_ENABLE_CUDASIM=1`` runs the very same kernel in Numba's CUDA
simulator (slow: tests use n <= 4).
"""

from __future__ import annotations

import hashlib
import math
import os
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
from numba import cuda, float64, int64

from cardtable._numba import njit
from cardtable.errors import CardtableError

from . import kernel
from .layers import LayerBackend
from .lean import LeanLayout, min_ties, pot_prizes_allowed

#: Largest hand the device code handles (local arrays have fixed shapes).
KMAX = 13


class CudaUnavailable(CardtableError, RuntimeError):
    """No usable CUDA device (or the numba-cuda extra is missing)."""


@njit(cache=True)
def layer_children(k, lo, hi, codes, code_off, cidx, csign, outc):
    """Child pattern index, sign and round outcome of every bid pair, for patterns
    ``lo..hi-1`` of layer ``k`` (arrays of shape (hi - lo, k, k)); False if one is missing."""
    for t in range(hi - lo):
        if not kernel.pattern_children(
            codes[code_off[k] + lo + t], k, codes, code_off, cidx[t], csign[t], outc[t]
        ):
            return False
    return True


def _device(kernel_fn, **steps):
    """The Python function of the njit kernel ``kernel_fn`` compiled as a CUDA device
    function, with the njit steps it calls (global names) bound to the device
    functions ``steps`` instead: the same source on both targets."""
    py = kernel_fn.py_func
    scope = dict(py.__globals__, **steps)
    return cuda.jit(device=True)(
        types.FunctionType(py.__code__, scope, py.__name__, py.__defaults__, py.__closure__)
    )


#: The steps :func:`cardtable.solver.kernel.simplex` calls (inlined on the CPU).
_SIMPLEX_STEPS = (
    "_simplex_saddle",
    "_simplex_tableau",
    "_simplex_entering",
    "_simplex_leaving",
    "_simplex_pivot",
    "_simplex_read",
)
_simplex_dev = _device(kernel.simplex, **{name: _device(getattr(kernel, name)) for name in _SIMPLEX_STEPS})
_gap_dev = cuda.jit(device=True)(kernel.guarantee_gap.py_func)


@cuda.jit(device=True)
def _key_index_dev(skeys, lo, n, key):
    """Rank of ``key`` in the sorted ``skeys[lo:lo+n]``, or -1 (binary search)."""
    a = 0
    b = n
    while a < b:
        m = (a + b) // 2
        if skeys[lo + m] < key:
            a = m + 1
        else:
            b = m
    if a < n and skeys[lo + a] == key:
        return a
    return -1


@cuda.jit
def _layer_kernel(
    k,
    lo,
    nsub,
    S,
    S_prev,
    carry,
    pval,
    masks_k,
    rank_of_mask,
    W,
    T,
    skeys,
    skoff_k,
    skoff_c,
    soff_k,
    soff_c,
    cidx,
    csign,
    outc,
    prev,
    out,
    stats,
    minj,
    jmax,
):
    """Block = (pattern lo + t, subset r); thread = state (pot) of that subset. A state
    whose pot these hands cannot hold (``minj > jmax[t]``, :func:`lean.min_ties`) is
    skipped and stored as NaN, as on the CPU.

    Complexity: one function on purpose: a CUDA kernel whose thread builds its
    ``k x k`` matrix in local arrays and solves it; splitting it would pass those
    arrays through device calls in the innermost loop for no gain in clarity (the
    matrix game itself is the device :func:`cardtable.solver.kernel.simplex`)."""
    blk = cuda.blockIdx.x
    t = blk // nsub
    r = blk - t * nsub
    tid = cuda.threadIdx.x
    base = cuda.shared.array((KMAX, KMAX), float64)
    M = cuda.local.array((KMAX, KMAX), float64)
    tab = cuda.local.array((KMAX + 1, 2 * KMAX + 1), float64)
    basis = cuda.local.array(KMAX, int64)
    xs = cuda.local.array(KMAX, float64)
    ys = cuda.local.array(KMAX, float64)
    mask = masks_k[r]
    s0 = soff_k[r]
    ns = soff_k[r + 1] - s0
    pot = 0
    live = False
    if tid < ns:
        pot = (skeys[skoff_k + s0 + tid] - T) // W
        live = minj[skoff_k + s0 + tid] <= jmax[t]
    acc = 0.0
    count = 0
    for p in range(pval.shape[0]):
        if not (mask >> p) & 1:
            continue
        count += 1
        pv = pval[p]
        cs0 = 0
        cns = 0
        if k > 1:
            rc = rank_of_mask[mask & ~(1 << p)]
            cs0 = soff_c[rc]
            cns = soff_c[rc + 1] - cs0
        # numba's stubs type the intrinsic's typing-time call, not the call in a kernel
        cuda.syncthreads()  # type: ignore[call-arg]
        e = tid
        while e < k * k:  # the shared part: decided bid pairs (child pot 0)
            a = e // k
            b = e - a * k
            o = outc[t, a, b]
            cont = 0.0
            if k > 1 and (o != 0 or not carry):
                cont = csign[t, a, b] * float64(prev[cidx[t, a, b] * S_prev + cs0])
            base[a, b] = o * pv + cont
            e += cuda.blockDim.x
        cuda.syncthreads()
        if live:
            missing = 0
            for a in range(k):
                for b in range(k):
                    o = outc[t, a, b]
                    if o != 0:
                        M[a, b] = base[a, b] + o * pot
                    elif carry and k > 1:
                        ci = _key_index_dev(skeys, skoff_c + cs0, cns, (pot + pv) * W + T)
                        if ci < 0:
                            missing += 1
                            M[a, b] = 0.0
                        else:
                            M[a, b] = csign[t, a, b] * float64(prev[cidx[t, a, b] * S_prev + cs0 + ci])
                    else:
                        M[a, b] = base[a, b]
            v, shift = _simplex_dev(M, k, k, tab, basis, xs, ys)
            g = _gap_dev(M, k, k, xs, ys)
            cuda.atomic.add(stats, 0, 1.0)
            if not (g <= 1e-9 * (1.0 + abs(v))):
                cuda.atomic.add(stats, 3, 1.0)
            if missing:
                cuda.atomic.add(stats, 4, float64(missing))
            cuda.atomic.max(stats, 2, g)
            acc += v
    if live:
        out[t * S + s0 + tid] = acc / count
        cuda.atomic.add(stats, 1, 1.0)  # type: ignore[call-arg]  # numba's stubs: as syncthreads above
    elif tid < ns:
        out[t * S + s0 + tid] = math.nan


@dataclass
class CudaBackend(LayerBackend):
    """``--backend cuda``: layer kernels on the first CUDA device (or the simulator)."""

    name: str = "cuda"
    chunk_patterns: int = 65536
    _dev: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not cuda.is_available():
            raise CudaUnavailable(
                "no CUDA GPU is available: install the extra (pip install 'cardtable[cuda]') on a machine "
                "with an NVIDIA GPU, or set NUMBA_ENABLE_CUDASIM=1 to run the kernel in Numba's simulator "
                "(slow; small n only)"
            )

    def start(self, lay: LeanLayout) -> None:
        if lay.win:
            raise ValueError("the CUDA backend solves the points objective; use --backend threads for win")
        if lay.top > KMAX:
            raise ValueError(f"the CUDA backend handles at most {KMAX} cards")
        if lay.compact:
            raise ValueError(
                "the CUDA backend writes the full layout (every state of every pattern); this table "
                "folder holds the compact one: finish it with --backend threads or ray"
            )
        d = lay.dense
        self._dev = {
            name: cuda.to_device(np.ascontiguousarray(a))
            for name, a in (
                ("pval", d.pval),
                ("rank_of_mask", d.rank_of_mask),
                ("skeys", lay.skeys),
                ("minj", min_ties(lay)),
            )
        }

    def stop(self) -> None:
        self._dev = {}

    def solve_layer(
        self,
        lay: LeanLayout,
        k: int,
        prev: np.ndarray | None,
        prev_path: Path | None,
        out_path: Path,
        progress: Callable[[int, int], None],
    ) -> tuple[np.ndarray, str]:
        d = lay.dense
        fn = _layer_kernel
        npat = lay.npat(k)
        nsub = int(d.mask_off[k + 1] - d.mask_off[k])
        S = int(lay.nstates[k])
        S_prev = int(lay.nstates[k - 1])
        soff_k = np.ascontiguousarray(lay.soff[lay.so_off[k] : lay.so_off[k + 1]])
        soff_c = np.ascontiguousarray(lay.soff[lay.so_off[k - 1] : lay.so_off[k]])
        most = int(np.max(np.diff(soff_k)))
        threads = max(32, -(-max(most, 1) // 32) * 32)
        g_prev = cuda.to_device(
            np.ascontiguousarray(prev, dtype=np.float32)
            if prev is not None and len(prev)
            else np.zeros(1, np.float32)
        )
        masks_k = cuda.to_device(np.ascontiguousarray(d.masks[d.mask_off[k] : d.mask_off[k + 1]]))
        g_soff_k, g_soff_c = cuda.to_device(soff_k), cuda.to_device(soff_c)
        st = np.zeros(5)
        h = hashlib.sha256()
        with open(out_path, "wb") as f:
            for lo in range(0, npat, self.chunk_patterns):
                hi = min(npat, lo + self.chunk_patterns)
                n = hi - lo
                cidx = np.zeros((n, k, k), np.int64)
                csign = np.ones((n, k, k), np.int64)
                outc = np.zeros((n, k, k), np.int64)
                if not layer_children(k, lo, hi, d.codes, d.code_off, cidx, csign, outc):
                    st[4] += 1
                    break
                jmax = pot_prizes_allowed(lay, k, lo, hi)
                g_out = cuda.device_array(n * S, dtype=np.float32)
                g_st = cuda.to_device(np.zeros(5))
                fn[n * nsub, threads](
                    k,
                    lo,
                    nsub,
                    S,
                    S_prev,
                    lay.carry,
                    self._dev["pval"],
                    masks_k,
                    self._dev["rank_of_mask"],
                    lay.W,
                    d.T,
                    self._dev["skeys"],
                    int(lay.skoff[k]),
                    int(lay.skoff[k - 1]),
                    g_soff_k,
                    g_soff_c,
                    cuda.to_device(cidx),
                    cuda.to_device(csign),
                    cuda.to_device(outc),
                    g_prev,
                    g_out,
                    g_st,
                    self._dev["minj"],
                    cuda.to_device(jmax),
                )
                s = g_st.copy_to_host()
                st[0] += s[0]
                st[1] += s[1]
                st[2] = max(st[2], s[2])
                st[3] += s[3]
                st[4] += s[4]
                buf = g_out.copy_to_host().astype("<f4", copy=False).tobytes()
                f.write(buf)
                h.update(buf)
                progress(hi, npat)
            f.flush()
            os.fsync(f.fileno())
        return st, h.hexdigest()
