"""Compressed carry-over tables: the upper layers of an exact carry-over points table in a
few MiB, shipped in the package, so that ``nash`` plays from near-exact values from the
first move with nothing built.

A carry-over table (format 2, :mod:`.layers`) stores layer ``k`` as a ``patterns x states``
matrix (a state: a prize subset with one of the pots it can hold). A bot that solves exact
subgames from ``lo`` cards per hand (:func:`.approx.exact_layers`: 8 at 11 and 13 cards)
reads only layers ``lo..n`` of it: a round with ``k > lo`` cards values its children from
layer ``k - 1``. Each of those layers is stored as ``P W^T`` (``P``: ``patterns x r``
float16 with unit-norm columns; ``W``: ``states x r`` float32) at the smallest rank whose RMS
error over the slots a game reaches is at most a target (:func:`.lowrank.fit_layer`), or
densely where that is smaller. docs/solver.md, Compressed tables, gives each layer's rank
and error.

File (``.npz``, read with ``allow_pickle=False``): ``meta`` (UTF-8 JSON as uint8: ruleset
fields, ``lo``, per-layer rank and errors, the lean layout's digest, the exact table's
checksum), then per layer ``k >= lo`` either ``d{k}`` (``patterns x states`` float32) or
``p{k}`` and ``w{k}``. The layout is rebuilt from the ruleset (:func:`.layers.game_layout`)
and must have the recorded digest: no index array is read from the file.
:func:`write_compressed_carry` writes one (``scripts/compress_tables.py``);
:func:`bundled_carry_table` opens the shipped one of a ruleset.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from cardtable.goofspiel import Ruleset

from . import compressed
from .layers import LayeredTable, game_layout
from .lean import LeanLayout, expand_layer, min_ties, pot_prizes_allowed
from .lowrank import fit_layer
from .position import ImpossiblePosition, Position
from .tables import RoundStrategy, TableFileError

#: Version of the file's layout (``meta["version"]``).
CARRY_COMPRESSED_VERSION = 1


def carry_compressed_name(ruleset: Ruleset) -> str:
    """File name of the compressed carry-over table of ``ruleset``'s deck."""
    return f"gops-n{ruleset.cards}-carry-points-{'highace' if ruleset.high_ace else 'lowace'}.svd.npz"


def _layer_reach(lay: LeanLayout, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(fewest tied prizes of each state, most each pattern allows) of layer ``k``."""
    a, b = int(lay.skoff[k]), int(lay.skoff[k + 1])
    return min_ties(lay)[a:b], pot_prizes_allowed(lay, k)


class FactorLayer:
    """One compressed layer, read like the float32 array of a format-2 layer: item ``s``
    (slot ``i * S + j``) is the value of pattern ``i``, state ``j``, or NaN where no game
    reaches."""

    def __init__(self, lay: LeanLayout, k: int, arrays: dict[str, np.ndarray]):
        self.npat, self.S = lay.npat(k), int(lay.nstates[k])
        self.fewest, self.allowed = _layer_reach(lay, k)
        self.dense: np.ndarray | None = arrays.get(f"d{k}")
        self.P: np.ndarray | None = None
        self.W: np.ndarray | None = None
        if self.dense is None:
            self.P = np.asarray(arrays[f"p{k}"], dtype=np.float32)
            self.W = np.asarray(arrays[f"w{k}"], dtype=np.float32)

    @property
    def rank(self) -> int:
        return 0 if self.W is None else self.W.shape[1]

    def __len__(self) -> int:
        return self.npat * self.S

    def __getitem__(self, s: int) -> float:
        i, j = divmod(int(s), self.S)
        if self.fewest[j] > self.allowed[i]:
            return float("nan")
        if self.dense is not None:
            return float(self.dense[i, j])
        assert self.P is not None and self.W is not None
        return float(np.dot(self.P[i].astype(np.float64), self.W[j].astype(np.float64)))

    def matrix(self, dtype=np.float64) -> np.ndarray:
        """The whole layer, ``patterns x states`` (the values :meth:`__getitem__` gives,
        rounded to ``dtype``), NaN where no game reaches; built in row blocks (13 cards,
        layer 8 as float32: 7.5 GB)."""
        M = np.empty((self.npat, self.S), dtype=dtype)
        rows = max(1, (1 << 24) // max(self.S, 1))
        Wt = None if self.W is None else self.W.T.astype(np.float64)
        for lo in range(0, self.npat, rows):
            hi = min(self.npat, lo + rows)
            if self.dense is not None:
                block = np.asarray(self.dense[lo:hi], dtype=np.float64)
            else:
                assert self.P is not None and Wt is not None
                block = self.P[lo:hi].astype(np.float64) @ Wt
            block[self.fewest[None, :] > self.allowed[lo:hi, None]] = np.nan
            M[lo:hi] = block
        return M


class CompressedCarryTable(LayeredTable):
    """The upper layers ``lo..n`` of a carry-over points table, from their compressed file.

    Answers :meth:`value` for positions with at least ``lo`` cards per hand and
    :meth:`round_strategy` for rounds with more than ``lo`` (their children lie in layer
    ``lo`` or above), within the file's per-layer errors (``meta["layers"]``); lower
    positions raise :class:`ImpossiblePosition`. :attr:`values` is not available (the
    layers below ``lo`` are not stored): :func:`dense_layers` gives the stored ones.
    """

    def __init__(
        self, ruleset: Ruleset, meta: dict, lay: LeanLayout, arrays: dict[str, np.ndarray], path: Path | None
    ):
        lo = int(meta["lo"])
        layers: list = [None] * lo + [FactorLayer(lay, k, arrays) for k in range(lo, lay.top + 1)]
        super().__init__(
            ruleset,
            "points",
            lay,
            layers,
            tuple(range(1, ruleset.cards + 1)),
            {"compressed": True, **meta.get("source", {})},
            path,
        )
        self.meta = meta
        self.lo = lo

    def _lookup(self, k: int, r: int, i: int, pot: int, d: int) -> float:
        if k < self.lo:
            raise ImpossiblePosition(
                f"the compressed table holds positions with {self.lo} or more cards per hand"
            )
        return super()._lookup(k, r, i, pot, d)

    def round_strategy(self, pos: Position, prize: int) -> RoundStrategy:
        """The round's matrix game built from the compressed layer ``k - 1``.

        Raises:
            ImpossiblePosition: bad position, a prize not face down, or ``k <= lo``."""
        if pos.k <= self.lo:
            raise ImpossiblePosition(
                f"the compressed table plays rounds with more than {self.lo} cards per hand"
            )
        return super().round_strategy(pos, prize)

    def _dense(self):
        raise TableFileError(
            "a compressed carry-over table has no format-1 view (its low layers are not stored)"
        )

    def dense_layers(self) -> dict[int, np.ndarray]:
        """The stored layers ``lo..n`` as format-2 layer arrays (float64, NaN where no game
        reaches), by ``k``."""
        return {k: self.layers[k].matrix().ravel() for k in range(self.lo, self.lay.top + 1)}


def write_compressed_carry(
    table: LayeredTable, path: Path, lo: int, target_rms: float = 0.01
) -> dict[str, Any]:
    """Compress layers ``lo..n`` of the complete carry-over points ``table`` into ``path``
    (:func:`.lowrank.fit_layer` at ``target_rms`` points over the reachable slots). Returns
    the file's ``meta`` (per-layer rank, errors, seconds; bytes).

    Raises:
        ValueError: not a complete carry-over points table, or ``lo`` outside ``1..n``.
    """

    lay = table.lay
    if not lay.carry or lay.win or table.objective != "points" or table.upto != lay.top:
        raise ValueError("only complete carry-over tables of the points objective are compressed")
    if not 1 <= lo <= lay.top:
        raise ValueError(f"lo must be a layer 1..{lay.top}, not {lo}")
    arrays: dict[str, np.ndarray] = {}
    layers = []
    for k in range(lo, lay.top + 1):
        t0 = time.perf_counter()
        M = expand_layer(lay, k, table.layers[k], np.float32)  # patterns x states, NaN: no slot
        fewest, allowed = _layer_reach(lay, k)
        fit = fit_layer(M, fewest, allowed, target_rms)
        if fit.dense is not None:
            arrays[f"d{k}"] = fit.dense
        else:
            assert fit.pattern is not None and fit.state is not None
            arrays[f"p{k}"], arrays[f"w{k}"] = fit.pattern, fit.state
        layers.append(
            {
                "k": k,
                "rank": fit.rank,
                "rms": fit.rms,
                "max": fit.max,
                "reachable": fit.reachable,
                "slots": M.size,
                "seconds": round(time.perf_counter() - t0, 1),
            }
        )
    rs = table.ruleset
    meta = {
        "version": CARRY_COMPRESSED_VERSION,
        "cards": rs.cards,
        "tie_rule": "carry",
        "high_ace": rs.high_ace,
        "objective": "points",
        "lo": lo,
        "target_rms": target_rms,
        "layers": layers,
        "layout_sha256": game_layout(rs, "points").digest(),  # the full layout's, compact table or not
        "source": {k: table.stats.get(k) for k in ("data_sha256", "games", "seconds") if k in table.stats},
    }
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)  # type: ignore[arg-type]  # numpy's stub types the kwargs as bool
    path.write_bytes(buf.getvalue())
    meta["bytes"] = path.stat().st_size
    return meta


def open_compressed_carry(path: Path) -> CompressedCarryTable:
    """Read a compressed carry-over table file (module docstring; the arrays and header are
    read and checked by :func:`.compressed.read_arrays` and :func:`.compressed.read_meta`).

    Raises:
        TableFileError: not a regular file, not a compressed carry-over table, of a layout
            other than its ruleset's, or damaged (a malformed header: ``cards``, ``lo``,
            ``high_ace`` of the wrong type or range, ``layers`` records not one per stored
            layer; a missing layer; an array of the wrong
            dtype or shape; a value that is not finite or past
            :func:`.compressed.layer_bounds`).
    """
    arrays = compressed.read_arrays(path)
    meta, rs = compressed.read_meta(path, arrays, "carry", CARRY_COMPRESSED_VERSION)
    lay, lo = game_layout(rs, "points"), meta["lo"]
    if lay.digest() != meta.get("layout_sha256") or not 1 <= lo <= lay.top:
        raise TableFileError(
            f"{path}: its layout is not the one of {rs.describe()}, or lo {lo} is not a layer 1..{lay.top} (damaged)"
        )
    compressed.check_meta_layers(path, meta, lo)
    for k in range(lo, lay.top + 1):
        _check_layer_arrays(path, rs, arrays, k, lay.npat(k), int(lay.nstates[k]))
    return CompressedCarryTable(rs, meta, lay, arrays, path)


def _check_layer_arrays(
    path: Path, rs: Ruleset, arrays: dict[str, np.ndarray], k: int, npat: int, S: int
) -> None:
    bound = compressed.layer_bounds(rs, npat)
    if f"d{k}" in arrays:
        compressed.check_layer_array(path, f"d{k}", arrays[f"d{k}"], (npat, S), bound["d"], rows=False)
        return
    p, w = arrays.get(f"p{k}"), arrays.get(f"w{k}")
    if p is None or w is None or p.ndim != 2:
        raise TableFileError(f"{path}: layer {k} is missing")
    r = p.shape[1]
    if r < 1:
        raise TableFileError(f"{path}: layer {k} has no factor")
    compressed.check_layer_array(path, f"p{k}", p, (npat, r), bound["p"], rows=True)
    compressed.check_layer_array(path, f"w{k}", w, (S, r), bound["w"], rows=True)


def bundled_carry_table(ruleset: Ruleset, folder: Path | None = None) -> CompressedCarryTable | None:
    """The compressed carry-over table shipped for ``ruleset``'s deck (cards, ace), or None.

    Raises:
        TableFileError: the shipped file is damaged."""
    folder = compressed.DATA_DIR if folder is None else folder
    table: CompressedCarryTable | None = compressed._bundled(
        folder, carry_compressed_name(ruleset), open_compressed_carry
    )
    return table


__all__ = [
    "CompressedCarryTable",
    "FactorLayer",
    "bundled_carry_table",
    "carry_compressed_name",
    "open_compressed_carry",
    "write_compressed_carry",
]
