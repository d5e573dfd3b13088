"""Compressed discard tables: the exact discard-ties values in a few MiB, shipped in the package.

A solved discard-ties table (points objective) stores, per layer ``k``, one value per
(prize subset, hand pattern): a ``nsub x npat`` matrix (docs/solver.md, Indexing). These
matrices are close to low rank (the value of a pair of hands moves almost linearly with the
prizes left), so each layer is stored as the truncated singular value decomposition
``D_k ~ W_k P_k^T`` (``W_k``: ``nsub x r`` float32, ``P_k``: ``npat x r`` float16) with the
smallest rank ``r`` whose root-mean-square error against the exact table is at most a target,
or densely where that is smaller. The 13-card table (168 million values, 1.3 GiB) becomes a
file of a few MiB; docs/solver.md, Compressed tables, gives each layer's rank and error.

One lookup ``D(k, r, i)`` (layer ``k``, subset rank ``r``, pattern index ``i``) is
:func:`discard_value`: the same Numba function serves an exact table of format 1 (every layer
dense, subset-major, the offsets of its layout), one of format 2 (every layer dense,
pattern-major: with discard ties and the points objective a lean layer holds one state per
prize subset, so layer ``k`` is the transpose of format 1's ``nsub x npat`` matrix, slot
``i * nsub + r``; docs/solver.md, Table format 2) and a compressed one, so the carry-over
approximation (:mod:`.approx`) reads any of them (:func:`table_source`; :func:`discard_layout`
and :func:`table_layer_matrix` give the layout and each layer's matrix without a format-1
value array). :class:`CompressedTable` answers the queries of :class:`~.tables.SolvedTable`
from the factors.

File (``.npz``, NumPy's zip of arrays, read with ``allow_pickle=False``): ``meta`` (UTF-8
JSON as uint8: ruleset fields, ranks, per-layer errors, the exact table's checksum, the
digest of the pattern codes), ``codes`` and ``code_off`` (the layout's canonical pattern codes
and layer offsets, int64: enumerating them for 13 cards takes seconds), then per layer ``k``
either ``d{k}`` (dense, ``nsub x npat``) or ``w{k}`` and ``p{k}`` (the factors).
:func:`write_compressed` writes one from a solved table (``scripts/compress_tables.py``);
:func:`bundled_table` opens the one shipped in ``cardtable/solver/data/`` for a ruleset.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
import stat
import zipfile
import zlib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np

from cardtable._numba import njit
from cardtable.goofspiel import Ruleset
from cardtable.platform.files import read_regular_bytes

from .layers import LayeredTable
from .layout import Layout
from .position import ImpossiblePosition, Position
from .tables import (
    RoundStrategy,
    SolvedTable,
    TableFileError,
    children,
    full_layout,
    strategy_of,
)

#: The folder of the compressed tables shipped with the package.
DATA_DIR = Path(__file__).resolve().parent / "data"
#: Version of the compressed file's layout (``meta["version"]``).
COMPRESSED_VERSION = 1
#: Largest compressed-table file read, in bytes (the shipped ones: 0.5 to 11 MiB).
MAX_FILE_BYTES = 256 << 20
#: Largest total of a file's arrays once unpacked, in bytes (the shipped ones: at most 13 MiB).
MAX_UNPACKED_BYTES = 1 << 30
#: Largest ``meta`` (JSON) and ``measured.json`` read, in bytes.
MAX_META_BYTES = 1 << 20

#: A discard-value source for the Numba kernels: ``(dd, doff, lw, woff, lp, poff, rk)``.
#: Layer ``k`` is dense when ``rk[k] == 0``: ``dd[doff[k] + r * npat_k + i]`` (format 1);
#: dense pattern-major when ``rk[k] == -1``: ``dd[doff[k] + i * nsub_k + r]`` with
#: ``nsub_k = (doff[k + 1] - doff[k]) // npat_k`` (format 2); else
#: ``sum_j lw[woff[k] + r * rk[k] + j] * lp[poff[k] + i * rk[k] + j]``.
DiscardSource = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@njit(cache=True)
def discard_value(k, r, i, npat, src):
    """``D`` of layer ``k``, prize-subset rank ``r``, pattern index ``i`` (``npat``
    patterns in layer ``k``) from a :data:`DiscardSource`, in points for the canonical
    pattern's A hand."""
    dd, doff, lw, woff, lp, poff, rk = src
    n = rk[k]
    if n == 0:
        return dd[doff[k] + r * npat + i]
    if n < 0:  # format 2: patterns outermost, one state (pot 0) per prize subset
        return dd[doff[k] + i * ((doff[k + 1] - doff[k]) // npat) + r]
    w = woff[k] + r * n
    p = poff[k] + i * n
    s = 0.0
    for j in range(n):
        s += np.float64(lw[w + j]) * np.float64(lp[p + j])
    return s


_EMPTY_F = np.zeros(0, dtype=np.float32)


def dense_source(values: np.ndarray, layout: Layout) -> DiscardSource:
    """The :data:`DiscardSource` of an exact discard table (``values`` on ``layout``)."""
    zeros = np.zeros(layout.top + 2, dtype=np.int64)
    return (np.asarray(values), layout.val_off, _EMPTY_F, zeros, _EMPTY_F, zeros, zeros)


def check_discard_points(table: SolvedTable) -> None:
    """Refuse a table that is not a discard-ties table of the points objective covering the
    whole game (what :func:`table_source`, :func:`table_layer_matrix` and
    :func:`discard_values` read).

    Raises:
        ValueError: another tie rule or objective, or low layers only.
    """
    rs = table.ruleset
    if rs.tie_rule != "discard" or table.objective != "points":
        raise ValueError(
            f"needs a discard-ties table of the points objective, not {rs.describe()} "
            f"(objective {table.objective})"
        )
    if table.upto != rs.cards:
        raise ValueError(f"needs the whole game's table: this one holds layers 1..{table.upto} of {rs.cards}")


def discard_layout(table: SolvedTable) -> Layout:
    """The format-1 :class:`~.layout.Layout` (pattern codes, prize subsets, value offsets) of
    the game of a table of any kind, without a format-1 value array: a format-2 table gives
    its lean layout's pattern and subset arrays (:attr:`.lean.LeanLayout.dense`, the same
    arrays as :func:`~.tables.full_layout`), the others their own layout."""
    if isinstance(table, LayeredTable):
        return table.lay.dense
    return table.layout


def layered_source(table: LayeredTable) -> DiscardSource:
    """The :data:`DiscardSource` of a format-2 discard-ties points table: every layer dense
    and pattern-major (``rk[k] == -1``), read from :meth:`~.layers.LayeredTable.joined_layers`
    (a float32 copy of the layers, kept with the table).

    Raises:
        ValueError: not a whole discard-ties points table (:func:`check_discard_points`),
            or a layer with more than one state per prize subset.
    """
    check_discard_points(table)
    lay = table.lay
    for k in range(1, lay.top + 1):
        nsub = int(lay.dense.mask_off[k + 1] - lay.dense.mask_off[k])
        if int(lay.nstates[k]) != nsub:
            raise ValueError(f"layer {k} holds {int(lay.nstates[k])} states for {nsub} prize subsets")
    dd, doff = table.joined_layers()
    rk = np.zeros(lay.top + 2, dtype=np.int64)
    rk[1 : lay.top + 1] = -1
    zeros = np.zeros(lay.top + 2, dtype=np.int64)
    return (dd, doff, _EMPTY_F, zeros, _EMPTY_F, zeros, rk)


def table_source(table: SolvedTable) -> DiscardSource:
    """The :data:`DiscardSource` of a discard table of any kind: format 1, format 2
    (:func:`layered_source`) or compressed.

    Raises:
        ValueError: a format-2 table that is not a whole discard-ties points table.
    """
    if isinstance(table, CompressedTable):
        return table.source
    if isinstance(table, LayeredTable):
        return layered_source(table)
    return dense_source(np.asarray(table.values), table.layout)


def layer_matrix(values: np.ndarray, layout: Layout, k: int) -> np.ndarray:
    """Layer ``k`` of a format-1 discard-ties points value array as its ``nsub x npat``
    matrix (a view)."""
    lo, hi = int(layout.val_off[k]), int(layout.val_off[k + 1])
    npat = layout.npat(k)
    return np.asarray(values[lo:hi]).reshape((hi - lo) // npat, npat)


def table_layer_matrix(table: SolvedTable, k: int) -> np.ndarray:
    """Layer ``k`` (``1..cards``) of a whole discard-ties points table of format 1 or 2 as
    its ``nsub x npat`` matrix (rows: prize subsets by rank, columns: patterns; points for
    the canonical pattern's A hand): a view, float64 (format 1) or float32 (format 2: the
    transpose of the layer as stored, docs/solver.md, Table format 2).

    Raises:
        ValueError: not a whole discard-ties points table, or ``k`` outside ``1..cards``.
    """
    check_discard_points(table)
    if not 1 <= k <= table.upto:
        raise ValueError(f"layer k must be 1..{table.upto}, not {k}")
    if isinstance(table, LayeredTable):
        npat = table.lay.npat(k)
        return np.asarray(table.layers[k]).reshape(npat, -1).T
    return layer_matrix(np.asarray(table.values), table.layout, k)


def discard_values(table: SolvedTable) -> np.ndarray:
    """The format-1 float64 value array of a whole discard-ties points table of any format
    (on :func:`discard_layout`; for :mod:`.exploit_kernel`): format 1 and compressed tables
    give their own :attr:`values`, a format-2 table its layers transposed into a new array,
    however large (8 bytes a slot: 1.3 GiB at 13 cards; not the general format-1 view of
    :attr:`.layers.LayeredTable.values`, which stops at ``DENSE_MAX``).

    Raises:
        ValueError: not a whole discard-ties points table.
    """
    check_discard_points(table)
    if not isinstance(table, LayeredTable):
        return np.asarray(table.values)
    L = table.lay.dense
    out = np.empty(int(L.val_off[L.top + 1]))
    for k in range(1, L.top + 1):
        out[int(L.val_off[k]) : int(L.val_off[k + 1])] = table_layer_matrix(table, k).ravel()
    return out


def compress_layer(M: np.ndarray, target_rms: float) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The smallest storage of ``M`` whose RMS error is at most ``target_rms`` points:
    dense when that is no larger than the factors. Returns ``(arrays, stats)``:
    ``{"d": M}`` (float32) or ``{"w": W, "p": P}`` (``W`` float32, ``P`` float16) and
    ``{"rank", "rms", "max"}`` (the errors of the stored arrays against ``M``)."""
    nsub, npat = M.shape
    dense = {"d": M.astype(np.float32)}
    if min(nsub, npat) <= 2:
        return dense, _errors(M, dense["d"], 0)
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    tail = np.sqrt(np.cumsum((s**2)[::-1])[::-1] / M.size)  # RMS error of rank r: tail[r]
    tail = np.append(tail, 0.0)
    r = max(1, int(np.argmax(tail <= target_rms)))  # a file layer holds at least one factor
    if r * (4 * nsub + 2 * npat) >= 4 * nsub * npat:  # bytes of the factors against the dense float32
        return dense, _errors(M, dense["d"], 0)
    W = (U[:, :r] * s[:r]).astype(np.float32)
    P = Vt[:r].T.astype(np.float16)  # unit-norm columns: half precision adds about 10% to the error
    return {"w": W, "p": P}, _errors(M, W.astype(np.float64) @ P.T.astype(np.float64), r)


def _errors(M: np.ndarray, A: np.ndarray, rank: int) -> dict[str, Any]:
    err = np.asarray(A, dtype=np.float64) - M
    return {"rank": rank, "rms": float(np.sqrt(np.mean(err**2))), "max": float(np.abs(err).max())}


def write_compressed(table: SolvedTable, path: Path, target_rms: float = 0.01) -> dict[str, Any]:
    """Compress the discard-ties points ``table`` (every layer, :func:`compress_layer` at
    ``target_rms`` points) into ``path``. Returns the file's ``meta`` (per-layer rank and
    errors, bytes).

    Raises:
        ValueError: not a discard-ties points table of a whole game.
    """
    if table.ruleset.tie_rule != "discard" or table.objective != "points":
        raise ValueError("only discard-ties tables of the points objective are compressed")
    L = discard_layout(table)
    if L.npat(L.top) != 1 or table.upto != table.ruleset.cards:
        raise ValueError("only a whole game's table is compressed")
    arrays: dict[str, np.ndarray] = {}
    layers = []
    for k in range(1, L.top + 1):
        M = np.asarray(table_layer_matrix(table, k), dtype=np.float64)
        stored, stats = compress_layer(M, target_rms)
        for name, a in stored.items():
            arrays[f"{name}{k}"] = a
        layers.append({"k": k, **stats})
    arrays["codes"] = np.asarray(L.codes, dtype=np.int64)
    arrays["code_off"] = np.asarray(L.code_off, dtype=np.int64)
    rs = table.ruleset
    meta = {
        "version": COMPRESSED_VERSION,
        "cards": rs.cards,
        "tie_rule": "discard",
        "high_ace": rs.high_ace,
        "objective": "points",
        "target_rms": target_rms,
        "layers": layers,
        "patterns_sha256": patterns_digest(arrays["codes"], arrays["code_off"]),
        "source": {k: table.stats.get(k) for k in ("data_sha256", "games", "seconds") if k in table.stats},
    }
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)  # type: ignore[arg-type]  # numpy's stub types the kwargs as bool
    path.write_bytes(buf.getvalue())
    meta["bytes"] = path.stat().st_size
    return meta


def patterns_digest(codes: np.ndarray, code_off: np.ndarray) -> str:
    """SHA-256 of the stored pattern codes and their layer offsets (little-endian int64)."""
    h = hashlib.sha256(np.ascontiguousarray(codes, dtype="<i8").tobytes())
    h.update(np.ascontiguousarray(code_off, dtype="<i8").tobytes())
    return h.hexdigest()


def _stored_patterns(meta: dict, arrays: dict[str, np.ndarray], cards: int) -> list[np.ndarray]:
    """The pattern codes of each layer ``0..cards`` stored in the file, checked against the
    digest in ``meta`` and against the game (:func:`_codes_problem`: exactly the game's
    canonical patterns, in order; a rewritten digest does not pass damaged codes).

    Raises:
        TableFileError: missing, malformed, not matching their digest or not the game's."""
    codes, off = arrays.pop("codes", None), arrays.pop("code_off", None)
    if codes is None or off is None or codes.dtype.kind != "i" or off.dtype.kind != "i" or codes.ndim != 1:
        raise TableFileError("compressed table: the pattern codes are missing")
    if off.shape != (cards + 2,) or patterns_digest(codes, off) != meta.get("patterns_sha256"):
        raise TableFileError("compressed table: the pattern codes do not match their checksum (damaged)")
    off = off.astype(np.int64)
    if off[0] != 0 or off[-1] != len(codes) or (np.diff(off) < 0).any() or off[1] != 0:
        raise TableFileError(f"compressed table: the pattern-code offsets {off.tolist()} are not the layers'")
    out = [codes[off[k] : off[k + 1]].astype(np.int64) for k in range(cards + 1)]
    for k in range(1, cards + 1):
        bad = _codes_problem(out[k], k, cards)
        if bad:
            raise TableFileError(f"compressed table: {bad} (damaged)")
    return out


def read_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of a compressed-table file (``.npz``: a zip of ``.npy`` members), by name.

    Each member's ``.npy`` header is read first: it must name a plain numeric dtype (bool,
    integer or float of at most 8 bytes; never objects, strings, records or complex numbers)
    and a size that fills the member exactly, and the members together may unpack to at most
    :data:`MAX_UNPACKED_BYTES`, so a zip bomb or a header claiming a huge array is refused
    before anything is allocated.

    Raises:
        TableFileError: not a regular file (a folder, FIFO, device; a symlink is followed),
            over :data:`MAX_FILE_BYTES`, not a zip of ``.npy`` members, truncated, or
            holding another kind of array.
    """
    try:
        raw = read_regular_bytes(path, limit=MAX_FILE_BYTES)
    except OSError as exc:
        raise TableFileError(f"{path}: {exc}") from None
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            infos = zf.infolist()
            names = [info.filename for info in infos]
            if len(set(names)) != len(names) or not all(name.endswith(".npy") for name in names):
                raise TableFileError(f"{path}: not a compressed table (members {names[:8]})")
            unpacked = sum(info.file_size for info in infos)
            if unpacked > MAX_UNPACKED_BYTES:
                raise TableFileError(
                    f"{path}: its arrays unpack to {unpacked:,} bytes (more than {MAX_UNPACKED_BYTES:,})"
                )
            return {info.filename[:-4]: _read_member(zf, info) for info in infos}
    except TableFileError:
        raise
    except (
        ValueError,
        OSError,
        EOFError,
        RuntimeError,
        zipfile.BadZipFile,
        zlib.error,
        NotImplementedError,
    ) as exc:
        raise TableFileError(f"{path}: not a compressed table ({exc})") from None


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    """One ``.npy`` member, its header checked before its data is read (:func:`read_arrays`)."""
    fmt = np.lib.format
    with zf.open(info) as f:
        version = fmt.read_magic(f)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f"{info.filename}: .npy version {version} is not read")
        reader = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        shape, _, dtype = reader(f)
        if dtype.hasobject or dtype.fields is not None or dtype.kind not in "biuf" or dtype.itemsize > 8:
            raise ValueError(f"{info.filename} holds {dtype}, not plain numbers")
        if f.tell() + math.prod(shape) * dtype.itemsize != info.file_size:
            raise ValueError(f"the header of {info.filename} (shape {shape}) does not fit its size")
    with zf.open(info) as f:
        return fmt.read_array(f, allow_pickle=False)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def read_meta(path: Path, arrays: dict[str, np.ndarray], tie_rule: str, version: int) -> tuple[dict, Ruleset]:
    """``(meta, ruleset)`` of a compressed-table file: its ``meta`` array (popped from
    ``arrays``) checked field by field: ``version`` (int), ``tie_rule``, ``cards`` (int,
    1..13), ``high_ace`` (bool), ``objective`` (``"points"``), a carry-over file's ``lo``
    (int; its range is checked with the layout), ``source`` (an object, if present). The
    per-layer records: :func:`check_meta_layers`.

    Raises:
        TableFileError: ``meta`` missing, not UTF-8 JSON of an object, over
            :data:`MAX_META_BYTES`, nested too deep, or a field above missing or malformed.
    """
    m = arrays.pop("meta", None)
    if m is None or m.dtype != np.uint8 or m.ndim != 1 or m.size > MAX_META_BYTES:
        raise TableFileError(
            f"{path}: bad compressed-table header (meta must be 1-d uint8 of at most {MAX_META_BYTES:,} bytes)"
        )
    try:
        meta = json.loads(m.tobytes().decode())
    except (ValueError, RecursionError) as exc:
        raise TableFileError(f"{path}: bad compressed-table header ({str(exc)[:100]})") from None
    bad = _meta_problem(meta, tie_rule, version)
    if bad:
        raise TableFileError(f"{path}: bad compressed-table header ({bad})")
    rule: Literal["carry", "discard"] = "carry" if tie_rule == "carry" else "discard"
    return meta, Ruleset(cards=meta["cards"], tie_rule=rule, high_ace=meta["high_ace"])


def _meta_problem(meta: Any, tie_rule: str, version: int) -> str | None:
    """What is malformed in a compressed table's ``meta`` (:func:`read_meta`), or None."""
    if not isinstance(meta, dict):
        return f"a JSON {type(meta).__name__}, not an object"
    if not _is_int(meta.get("version")) or meta["version"] != version or meta.get("tie_rule") != tie_rule:
        what = {"carry": "carry-over", "discard": "discard-ties"}[tie_rule]
        return (
            f"not a compressed {what} table of version {version}: version {meta.get('version')!r:.20} "
            f"is not supported (tie rule {meta.get('tie_rule')!r:.20})"
        )
    n = meta.get("cards")
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 13:
        return f"cards must be a whole number 1..13, not {n!r:.40}"
    if not isinstance(meta.get("high_ace"), bool):
        return f"high_ace must be true or false, not {meta.get('high_ace')!r:.40}"
    if meta.get("objective") != "points":
        return f"objective must be points, not {meta.get('objective')!r:.40}"
    if tie_rule == "carry" and not _is_int(meta.get("lo")):
        return f"lo must be a whole number, not {meta.get('lo')!r:.40}"
    if not isinstance(meta.get("source", {}), dict):
        return "source must be an object"
    return None


def check_meta_layers(path: Path, meta: dict, first: int) -> None:
    """Refuse a ``meta["layers"]`` that is not one record per stored layer ``first..cards``,
    in order, each with ``k`` and ``rank`` (int) and ``rms`` and ``max`` (finite, at least
    0): what the bots' notes and ``scripts/compress_tables.py`` read.

    Raises:
        TableFileError: a missing, extra or malformed record."""
    n, layers = meta["cards"], meta.get("layers")
    ks = (
        [rec.get("k") if isinstance(rec, dict) else None for rec in layers]
        if isinstance(layers, list)
        else None
    )
    if ks != list(range(first, n + 1)):
        raise TableFileError(
            f"{path}: bad compressed-table header (layers must hold one record per layer {first}..{n})"
        )
    for rec in meta["layers"]:
        if not _is_int(rec.get("rank")) or not all(
            _is_number(rec.get(x)) and rec[x] >= 0 for x in ("rms", "max")
        ):
            raise TableFileError(
                f"{path}: bad compressed-table header (layer {rec['k']}: rank, rms or max malformed)"
            )


def check_layer_array(
    path: Path | None, name: str, a: np.ndarray, shape: tuple[int, int], bound: float, rows: bool
) -> None:
    """Refuse a stored layer array that is not a float array of ``shape`` whose values (or,
    ``rows``, the Euclidean norms of its rows) are finite and at most ``bound`` in size.
    The bounds (:func:`layer_bounds`) hold for every file the writers make; a value past them
    is damage, never a value of the game.

    Raises:
        TableFileError: another dtype or shape, a value that is not finite, or past ``bound``.
    """
    if a.shape != shape or a.dtype.kind != "f":
        raise TableFileError(
            f"{path}: {name} has shape {a.shape} ({a.dtype}), the game needs {shape} (float)"
        )
    x = np.asarray(a, dtype=np.float64)
    if not np.isfinite(x).all():
        raise TableFileError(f"{path}: {name} holds a value that is not finite")
    size = np.sqrt(np.einsum("ij,ij->i", x, x)) if rows else np.abs(x)
    if size.size and float(size.max()) > bound:
        what = "a row of norm" if rows else "a value of size"
        raise TableFileError(
            f"{path}: {name} holds {what} {float(size.max()):.4g}, past {bound:.4g} (damaged)"
        )


def layer_bounds(ruleset: Ruleset, npat: int) -> dict[str, float]:
    """Largest size of a stored value of a layer with ``npat`` patterns, per kind of array:
    ``"d"`` a dense value (a game's points still to come or in the pot: at most the deck's
    total prize points ``T``), ``"p"`` the norm of a row of the unit-norm pattern factor
    (at most 1, plus float16 rounding), ``"w"`` the norm of a row of the state factor (the
    projection of one state's ``npat`` values: at most ``T * sqrt(npat)``)."""
    total = float(sum(ruleset.prize_value(c) for c in range(1, ruleset.cards + 1)))
    return {"d": total * (1 + 1e-3) + 1e-3, "p": 1.01, "w": total * math.sqrt(npat) * (1 + 1e-3) + 1e-3}


def pattern_count(cards: int, k: int) -> int:
    """Number of canonical hand patterns with ``k`` cards per hand (``1..cards``): strings of
    labels A-only, B-only, both over the strengths either hand holds, ``c`` of them held by
    both (``2k - c <= cards``), counted once with their swap (the all-both string is its own)."""
    f = math.factorial
    total = sum(f(2 * k - c) // (f(c) * f(k - c) ** 2) for c in range(max(0, 2 * k - cards), k + 1))
    return (total + 1) // 2


def _codes_problem(codes: np.ndarray, k: int, cards: int) -> str | None:
    """What is wrong with the stored pattern codes of layer ``k`` (strictly increasing,
    canonical, each two hands of ``k`` strengths over at most ``cards`` labels, as many as
    :func:`pattern_count`: then they are exactly the game's), or None."""
    c = np.asarray(codes, dtype=np.int64)
    if len(c) != pattern_count(cards, k):
        return f"layer {k} holds {len(c)} codes, not the game's {pattern_count(cards, k)}"
    if len(c) > 1 and not (np.diff(c) > 0).all():
        return f"layer {k}: the codes are not strictly increasing"
    if (c < 0).any() or (c >> (2 * cards)).any():
        return f"layer {k}: a code outside {cards} strengths"
    labs = np.stack([(c >> (2 * j)) & 3 for j in range(cards)])
    gap = (labs[:-1] == 0) & (labs[1:] != 0)
    a, b = (labs & 1).sum(axis=0), (labs >> 1).sum(axis=0)
    m55 = int("01" * cards, 2) if cards else 0
    swapped = ((c & m55) << 1) | ((c >> 1) & m55)
    if gap.any() or (a != k).any() or (b != k).any() or (c > swapped).any():
        return f"layer {k}: a code that is no canonical pattern of two {k}-card hands"
    return None


def compressed_name(ruleset: Ruleset) -> str:
    """File name of the compressed discard table of ``ruleset``'s deck."""
    return f"gops-n{ruleset.cards}-discard-points-{'highace' if ruleset.high_ace else 'lowace'}.svd.npz"


class CompressedTable(SolvedTable):
    """A discard-ties points table read from its compressed file (module docstring).

    Values are within the file's per-layer errors of the exact table (``meta["layers"]``);
    :attr:`values` rebuilds the whole dense array (8 bytes a slot: 1.3 GiB at 13 cards)
    for the best-response kernel, everything else reads the factors.
    """

    def __init__(self, ruleset: Ruleset, meta: dict, arrays: dict[str, np.ndarray], path: Path | None):
        self.ruleset = ruleset
        self.objective = "points"
        self.meta = meta
        self.path = path
        self.stats = {"compressed": True, **meta.get("source", {})}
        self._layout = full_layout(ruleset, "points", _stored_patterns(meta, arrays, ruleset.cards))
        self.prize_cards = tuple(range(1, ruleset.cards + 1))
        self._values: np.ndarray | None = None
        self.source = self._build_source(arrays)

    def _build_source(self, arrays: dict[str, np.ndarray]) -> DiscardSource:
        L = self._layout
        top = L.top
        rk = np.zeros(top + 2, dtype=np.int64)
        doff = np.zeros(top + 2, dtype=np.int64)
        woff = np.zeros(top + 2, dtype=np.int64)
        poff = np.zeros(top + 2, dtype=np.int64)
        dd, lw, lp = [], [], []
        nd = nw = np_ = 0
        for k in range(1, top + 1):
            nsub = int(L.mask_off[k + 1] - L.mask_off[k])
            npat = L.npat(k)
            bound = layer_bounds(self.ruleset, npat)
            doff[k], woff[k], poff[k] = nd, nw, np_
            if f"d{k}" in arrays:
                d = arrays[f"d{k}"]
                check_layer_array(self.path, f"d{k}", d, (nsub, npat), bound["d"], rows=False)
                dd.append(d.ravel())
                nd += d.size
                continue
            if f"w{k}" not in arrays or f"p{k}" not in arrays:
                raise TableFileError(f"compressed table: layer {k} is missing")
            w, p = arrays[f"w{k}"], arrays[f"p{k}"]
            if w.ndim != 2 or w.shape[1] < 1:
                raise TableFileError(f"compressed table: w{k} has shape {w.shape}")
            n = w.shape[1]
            check_layer_array(self.path, f"w{k}", w, (nsub, n), bound["w"], rows=True)
            check_layer_array(self.path, f"p{k}", p, (npat, n), bound["p"], rows=True)
            rk[k] = n
            lw.append(w.ravel())
            lp.append(p.ravel())
            nw += w.size
            np_ += p.size
        cat = [np.concatenate(x).astype(np.float32) if x else _EMPTY_F for x in (dd, lw, lp)]
        return (cat[0], doff, cat[1], woff, cat[2], poff, rk)

    @property
    def layout(self) -> Layout:
        return self._layout

    @property
    def values(self) -> np.ndarray:
        """The dense float64 value array on :attr:`layout` (built on first use)."""
        if self._values is None:
            L = self._layout
            out = np.zeros(L.size)
            dd, doff, lw, woff, lp, poff, rk = self.source
            for k in range(1, L.top + 1):
                lo, hi = int(L.val_off[k]), int(L.val_off[k + 1])
                npat = L.npat(k)
                nsub = (hi - lo) // npat
                n = int(rk[k])
                if n == 0:
                    out[lo:hi] = dd[doff[k] : doff[k] + hi - lo]
                else:
                    W = lw[woff[k] : woff[k] + nsub * n].reshape(nsub, n).astype(np.float64)
                    P = lp[poff[k] : poff[k] + npat * n].reshape(npat, n).astype(np.float64)
                    out[lo:hi] = (W @ P.T).ravel()
            self._values = out
        return self._values

    @property
    def upto(self) -> int:
        return self._layout.top

    @property
    def dense_below(self) -> int:
        """The first layer stored as factors (the layers below it are stored densely,
        as float32: the exact values to about 1e-6)."""
        rk = self.source[6]
        for k in range(1, self._layout.top + 1):
            if rk[k]:
                return k
        return self._layout.top + 1

    def _locate(self, pos: Position) -> tuple[int, int, int, int]:
        pos.validate(self.ruleset)
        self._check_size(pos)
        L = self._layout
        k = pos.k
        mask = self._prize_mask(pos.prizes)
        r = int(L.rank_of_mask[mask])
        if pos.pot:
            raise ImpossiblePosition("a discard-ties position has no pot")
        i, sign, _ = self._pattern(L, k, pos)
        return k, r, i, sign

    def value(self, pos: Position) -> float:
        """Discard value for player A, points still to come (within the layer's error).

        Raises:
            ImpossiblePosition: a position outside the game (or with a pot)."""
        if pos.k == 0:
            return 0.0
        k, r, i, sign = self._locate(pos)
        return sign * float(discard_value(k, r, i, self._layout.npat(k), self.source))

    def round_strategy(self, pos: Position, prize: int) -> RoundStrategy:
        """The equilibrium of the round's matrix game built from the compressed values.

        Raises:
            ImpossiblePosition: bad position, or ``prize`` is not face down there."""
        k, r, i, sign = self._locate(pos)
        self._check_prize(pos, prize)
        L = self._layout
        code = self.hand_code(pos)
        cidx, csign, outc = children(code, k, L)
        p = self.prize_cards.index(prize)
        stake = int(L.pval[p])
        M = (outc * stake).astype(np.float64)
        if k > 1:
            cm = self._prize_mask(pos.prizes) & ~(1 << p)
            rc = int(L.rank_of_mask[cm])
            npat = L.npat(k - 1)
            cv = np.array(
                [[discard_value(k - 1, rc, int(c), npat, self.source) for c in row] for row in cidx]
            )
            M += csign * cv
        return strategy_of(M, pos, self.ruleset)

    def close(self) -> None:
        self._values = None


def open_compressed(path: Path) -> CompressedTable:
    """Read a compressed table file (module docstring; :func:`read_arrays`, :func:`read_meta`).

    Raises:
        TableFileError: not a regular file, not a compressed table, or damaged (a malformed
            header, a missing layer, an array of the wrong dtype or shape, a value that is
            not finite or past :func:`layer_bounds`, pattern codes not the game's).
    """
    arrays = read_arrays(path)
    meta, ruleset = read_meta(path, arrays, "discard", COMPRESSED_VERSION)
    check_meta_layers(path, meta, 1)
    return CompressedTable(ruleset, meta, arrays, path)


def shipped_tables(folder: Path | None = None) -> list[dict[str, Any]]:
    """The compressed tables shipped with the package (discard ties, :mod:`.compressed`;
    carry-over, :mod:`.compressed_carry`), without opening them:
    ``[{"cards", "tie_rule", "high_ace", "file", "bytes"}]`` by cards, tie rule, low ace first.
    Only regular files (or symlinks to one) named for a deck of 1..13 cards are listed: a
    folder, FIFO or dangling symlink under a table's name is left out (opening it raises
    :class:`~.tables.TableFileError`)."""
    out = []
    for path in (DATA_DIR if folder is None else folder).glob("*.svd.npz"):
        m = re.fullmatch(r"gops-n([1-9]\d?)-(discard|carry)-points-(low|high)ace\.svd\.npz", path.name)
        try:
            st = path.stat()
        except OSError:  # a dangling symlink
            continue
        if m and 1 <= int(m[1]) <= 13 and stat.S_ISREG(st.st_mode):
            out.append(
                {
                    "cards": int(m[1]),
                    "tie_rule": m[2],
                    "high_ace": m[3] == "high",
                    "file": path.name,
                    "bytes": st.st_size,
                }
            )
    return sorted(out, key=lambda t: (t["cards"], t["tie_rule"], t["high_ace"]))


#: The exploitability measured for each shipped file (``scripts/record_exploitability.py``):
#: ``{"files": {name: {"sha256", "exploitability", "how"}}}``, in ``DATA_DIR``.
MEASURED_NAME = "measured.json"


#: SHA-256 of the files read by :func:`measured_exploitability`, by path: ((size, mtime), digest).
_SHA256: dict[Path, tuple[tuple[int, int], str]] = {}


def _file_sha256(path: Path) -> str:
    st = path.stat()
    stamp = (st.st_size, st.st_mtime_ns)
    known = _SHA256.get(path)
    if known is None or known[0] != stamp:
        digest = hashlib.sha256(read_regular_bytes(path, limit=MAX_FILE_BYTES)).hexdigest()
        known = _SHA256[path] = (stamp, digest)
    return known[1]


def measured_exploitability(path: Path | None) -> float | None:
    """The exploitability of ``nash`` playing the shipped compressed file ``path`` (points per
    game, exact best response; how it was measured: ``measured.json`` beside it), or None when
    none is recorded for these bytes (a file changed since its measurement has none), or the
    record or the file is unreadable or malformed: ``measured.json`` not a regular file, over
    :data:`MAX_META_BYTES` or not JSON, or an exploitability that is not a finite number of at
    least 0 (a string, a list, NaN, a negative number)."""
    if path is None:
        return None
    try:
        records = json.loads(read_regular_bytes(path.parent / MEASURED_NAME, limit=MAX_META_BYTES).decode())
        entry = records["files"][path.name]
        value = entry["exploitability"]
        if not _is_number(value) or value < 0 or entry["sha256"] != _file_sha256(path):
            return None
        return float(value)
    except (OSError, KeyError, TypeError, ValueError, RecursionError):
        return None


def record_exploitability(path: Path, exploitability: float, how: str) -> None:
    """Record the exploitability measured for the compressed file ``path`` (with its SHA-256 and
    how it was measured) in ``measured.json`` beside it."""
    book = path.parent / MEASURED_NAME
    try:
        data = json.loads(book.read_text())
    except (OSError, ValueError):
        data = {}
    files = data.setdefault("files", {})
    files[path.name] = {
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "exploitability": exploitability,
        "how": how,
    }
    data["files"] = dict(sorted(files.items()))
    book.write_text(json.dumps(data, indent=1) + "\n")


@lru_cache(maxsize=8)
def _bundled(folder: Path, name: str, opener: Callable[[Path], Any]) -> Any:
    """The shipped file ``folder / name`` read by ``opener`` (kept for the process), or None
    when the package ships none of that name; both tie rules' tables come through here."""
    path = folder / name
    if not path.exists() and not path.is_symlink():  # a dangling symlink is damage, not absence
        return None
    return opener(path)


def bundled_table(ruleset: Ruleset, folder: Path | None = None) -> CompressedTable | None:
    """The compressed discard table shipped for ``ruleset``'s deck (cards, ace; any tie
    rule), or None when the package ships none for it.

    Raises:
        TableFileError: the shipped file is damaged."""
    table: CompressedTable | None = _bundled(
        DATA_DIR if folder is None else folder, compressed_name(ruleset), open_compressed
    )
    return table


__all__ = [
    "CompressedTable",
    "DiscardSource",
    "bundled_table",
    "compressed_name",
    "layer_bounds",
    "measured_exploitability",
    "pattern_count",
    "read_arrays",
    "read_meta",
    "record_exploitability",
    "check_discard_points",
    "check_layer_array",
    "check_meta_layers",
    "dense_source",
    "discard_layout",
    "discard_value",
    "discard_values",
    "layered_source",
    "open_compressed",
    "shipped_tables",
    "table_layer_matrix",
    "table_source",
    "write_compressed",
]
