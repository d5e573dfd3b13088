"""Solved tables: values of every position, queries, and the table file.

A :class:`Table` couples a :class:`~cardtable.solver.layout.Layout` with its
value array, either in memory (just solved, or a subgame) or memory-mapped
from a table file. Queries (:meth:`Table.value`, :meth:`Table.round_strategy`)
touch only the slots they need: a strategy is re-derived from the stored
values of the ``k x k`` child positions by solving one matrix game, so the
file stores values only.

Table file format, version 1 (all integers little-endian)::

    offset 0   8 bytes   magic b"CTGOPSTB"
    offset 8   u32       format version (1)
    offset 12  u32       header length H
    offset 16  H bytes   header, UTF-8 JSON (ruleset fields, objective, T,
                         array directory {name: [offset, count, dtype]},
                         data_bytes, data_sha256, solve statistics)
    16 + H     32 bytes  SHA-256 of the header bytes
    ...        zero padding to a multiple of 64
    D          data      the arrays of the directory (offsets relative to D,
                         each 64-byte aligned): int64 layout arrays, then
                         ``values`` (float64, one per slot)

Checks on open: magic, version, header digest, file size (a truncated file
is caught here), then the SHA-256 of the data section, streamed in 16 MiB
chunks (``verify=True``, the default). Any mismatch raises
:class:`TableFileError`; a damaged table is never used.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from cardtable.goofspiel import Ruleset
from cardtable.platform.files import open_regular
from cardtable.platform.storage import cache_location

from . import kernel
from .layers import LayeredTable, folder_name, open_layered
from .layout import Layout, SolverError, count_games, pot_reach, run_backward_induction
from .low_layers import solve_reading_low_layers
from .position import ImpossiblePosition, Position
from .tables import (
    RoundStrategy,
    SolvedTable,
    TableFileError,
    TableMismatchError,
    _whole,
    check_table_matches,
    children,
    full_layout,
    game_fields_problem,
    mismatch_error,
    strategy_of,
    subgame_layout,
)

MAGIC = b"CTGOPSTB"
FORMAT_VERSION = 1
_ALIGN = 64
_CHUNK = 16 << 20


@dataclass
class Table(SolvedTable):
    """Values of all positions of a (sub)game. See the module docstring.

    Attributes:
        ruleset: the 2-player ruleset (cards, tie rule, high ace).
        objective: ``"points"`` (expected point difference) or ``"win"``
            (P(win) - P(loss)).
        layout: the slot layout.
        values: float64 array, one value per slot (NaN for unreachable slots).
        prize_cards: face rank of each prize index of the layout.
        stats: solve statistics (games, positions, seconds, max_gap).
    """

    ruleset: Ruleset
    objective: str
    layout: Layout
    values: np.ndarray
    prize_cards: tuple[int, ...]
    stats: dict = field(default_factory=dict)
    path: Path | None = None
    _reach: tuple | None = field(default=None, init=False, repr=False, compare=False)

    # -- position mapping ------------------------------------------------------------

    def _pot_unreachable(self, mask: int, canon: int, pot: int) -> bool:
        """True when no game reaches ``pot`` with the hands ``canon`` and the prizes
        ``mask`` face down (the states the solve skips: :func:`.layout.pot_reach`)."""
        if self._reach is None:
            self._reach = pot_reach(self.layout)
        fewest, mtop, shtop = self._reach
        return int(fewest[mask, pot]) > int(kernel.most_ties(canon, mtop, shtop))

    @property
    def upto(self) -> int:
        """The most cards per hand the table covers (the layout's top layer)."""
        return self.layout.top

    def _index(self, pos: Position) -> tuple[int, int, int, int, int, int]:
        """(k, subset rank, pattern index, sign, R, code) of a position; sign -1 if swapped."""
        L = self.layout
        k = pos.k
        mask = self._prize_mask(pos.prizes)
        r = int(L.rank_of_mask[mask])
        if r < 0 or int(L.masks[L.mask_off[k] + r]) != mask:
            raise ImpossiblePosition(
                f"prizes {sorted(pos.prizes)} cannot be the face-down prizes here "
                "(with a fixed prize order they must be the last ones of the order)"
            )
        i, sign, code = self._pattern(L, k, pos)
        canon = int(L.codes[L.code_off[k] + i])  # the code as stored (swapped when sign is -1)
        R = L.T - int(L.psum[mask])
        if pos.pot > (R if L.carry else 0):
            raise ImpossiblePosition(f"a pot of {pos.pot} cannot arise here")
        if pos.pot and self._pot_unreachable(mask, canon, pos.pot):
            raise ImpossiblePosition(
                f"a pot of {pos.pot} cannot arise with these hands (a pot of j "
                "prizes needs j strengths that both players have played)"
            )
        if L.win and abs(pos.diff) + pos.pot > R:
            raise ImpossiblePosition(f"a point difference of {pos.diff} cannot arise here")
        return k, r, i, sign, R, code

    def _check(self, pos: Position) -> None:
        pos.validate(self.ruleset)
        self._check_size(pos)

    # -- queries ----------------------------------------------------------------------

    def value(self, pos: Position) -> float:
        """Equilibrium value for player A before the next prize is revealed.

        Units: points of A minus points of B still to come (objective ``points``),
        or P(A wins) - P(A loses) of the whole game (``win``; uses ``pos.diff``).

        Raises:
            ImpossiblePosition: the position cannot arise in this table's game.
        """
        self._check(pos)
        L = self.layout
        if pos.k == 0:
            if L.win:
                return float(np.sign(pos.diff))
            return 0.0
        k, r, i, sign, R, _ = self._index(pos)
        d = pos.diff * sign if L.win else 0
        s = kernel.slot(k, r, pos.pot, d, R, L.npat(k), L.base, L.base_off, L.val_off, L.carry, L.win)
        v = float(self.values[s + i])
        if np.isnan(v):
            raise ImpossiblePosition("this table holds no value for that position")
        return sign * v

    def round_strategy(self, pos: Position, prize: int) -> RoundStrategy:
        """Equilibrium of the round played for ``prize`` (just turned up) at ``pos``.

        Raises:
            ImpossiblePosition: bad position, or ``prize`` is not face down there.
        """
        self._check(pos)
        self._check_prize(pos, prize)
        L = self.layout
        k, r, i, sign, R, code = self._index(pos)
        mask = self._prize_mask(pos.prizes)
        assert L.next_prize is not None  # Layout fills it when it is made
        nxt = int(L.next_prize[mask])
        if nxt >= 0 and self.prize_cards[nxt] != prize:
            raise ImpossiblePosition(
                f"with the fixed prize order, prize {self.prize_cards[nxt]} comes next, not {prize}"
            )
        cidx, csign, outc = children(code, k, L)
        p = self.prize_cards.index(prize)
        cm = mask & ~(1 << p)
        if int(L.rank_of_mask[cm]) < 0:  # e.g. a subgame solved for another prize's round
            raise ImpossiblePosition(f"this table holds no positions after prize {prize} at this position")
        M = np.empty((k, k), dtype=np.float64)
        stake = pos.pot + int(L.pval[p])
        values = np.asarray(self.values)
        kernel.fill_matrix(
            M,
            k,
            int(L.rank_of_mask[cm]),
            L.T - int(L.psum[cm]),
            pos.pot,
            pos.diff if L.win else 0,
            stake,
            L.carry,
            L.win,
            cidx,
            csign,
            outc,
            values,
            L.codes,
            L.code_off,
            L.base,
            L.base_off,
            L.val_off,
        )
        if np.isnan(M).any():
            raise SolverError("the table lacks a child value (damaged or foreign table)")
        return strategy_of(M, pos, self.ruleset)

    def close(self) -> None:
        """Release a memory-mapped file (queries fail afterwards)."""
        mm = getattr(self, "_mmap", None)
        if mm is not None:
            self.values = np.zeros(0)
            self._mmap: mmap.mmap | None = None
            try:
                mm.close()
            except BufferError:
                pass


# -- solving ------------------------------------------------------------------------------


def solve(
    ruleset: Ruleset, objective: str = "points", progress: Callable[[int, int, int], None] | None = None
) -> Table:
    """Solve the whole game of ``ruleset`` in memory (backward induction).

    Raises:
        UnsupportedRuleset, ValueError, SolverError (see :func:`full_layout`,
        :func:`cardtable.solver.layout.run_backward_induction`).
    """
    layout = full_layout(ruleset, objective)
    values, stats = run_backward_induction(layout, progress)
    return Table(ruleset, objective, layout, values, tuple(range(1, ruleset.cards + 1)), stats)


def solve_subgame(
    ruleset: Ruleset,
    pos: Position,
    objective: str = "points",
    layout: Layout | None = None,
    low: LayeredTable | None = None,
) -> Table:
    """Solve only the positions reachable from ``pos`` (the ``nash`` bot without a table).

    ``low``: the full game's stored low layers (carry-over, points): the positions with
    at most ``low.upto`` cards per hand are read from them, not solved
    (:func:`cardtable.solver.round_subgame.read_low_layers`; docs/solver.md, Low layers).

    Raises:
        UnsupportedRuleset, ImpossiblePosition.
        SolverError: ``low`` does not fit this subgame.
    """
    if layout is None:
        layout = subgame_layout(ruleset, pos, objective)
    if low is not None and objective == "points" and layout.carry and layout.top > 1:
        t0 = time.perf_counter()
        values, st, read = solve_reading_low_layers(layout, layout.top, low)
        stats = {
            "games": int(st[0]),
            "positions": int(st[1]),
            "max_gap": float(st[2]),
            "seconds": time.perf_counter() - t0,
            "low_layers": read,
        }
        return Table(ruleset, objective, layout, values, layout.extra["prize_cards"], stats)
    values, stats = run_backward_induction(layout)
    return Table(ruleset, objective, layout, values, layout.extra["prize_cards"], stats)


# -- table files --------------------------------------------------------------------------


def table_name(ruleset: Ruleset, objective: str) -> str:
    """File name of the table of a ruleset, e.g. ``gops-n8-discard-points-lowace.v1.ctt``."""
    ace = "highace" if ruleset.high_ace else "lowace"
    return f"gops-n{ruleset.cards}-{ruleset.tie_rule}-{objective}-{ace}.v{FORMAT_VERSION}.ctt"


#: Table formats: 1 = one file, float64, dense pots (:func:`write_table`); 2 = a folder of
#: float32 layers, reachable pots only (:mod:`cardtable.solver.layers`).
FORMAT_LAYERED = 2


def default_path(
    ruleset: Ruleset, objective: str, cache: Path | None = None, version: int = FORMAT_VERSION
) -> Path:
    """Where a table of format ``version`` lives by default (in ``cache_dir()``, which this
    does not create: readers of a missing cache find no table, writers make their folders):
    the file of :func:`write_table` (1) or the folder of ``layers.solve_layered`` (2)."""
    name = folder_name(ruleset, objective) if version == FORMAT_LAYERED else table_name(ruleset, objective)
    return (cache if cache is not None else cache_location()[0]) / name


def write_table(table: Table, path: Path) -> Path:
    """Write ``table`` to ``path`` (atomically: a temporary file is renamed).

    Returns the path. Raises OSError on write errors.
    """
    L = table.layout
    if table.ruleset.fixed_order:
        raise ValueError("tables of fixed-order rulesets are solved in memory, not written to files")
    arrays = dict(L.arrays())
    arrays["values"] = np.ascontiguousarray(table.values, dtype="<f8")
    directory: dict[str, list[Any]] = {}  # name -> [offset, count, dtype], as the header stores it
    off = 0
    for name, arr in arrays.items():
        arr = np.ascontiguousarray(arr)
        dtype = "<f8" if name == "values" else "<i8"
        directory[name] = [off, int(arr.size), dtype]
        off += int(arr.size) * 8
        off = (off + _ALIGN - 1) // _ALIGN * _ALIGN
    data_bytes = off
    digest = hashlib.sha256()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    rs = table.ruleset
    header_obj = {
        "format": "cardtable GOPS table",
        "version": FORMAT_VERSION,
        "cards": rs.cards,
        "tie_rule": rs.tie_rule,
        "high_ace": rs.high_ace,
        "objective": table.objective,
        "T": int(L.T),
        "prize_cards": list(table.prize_cards),
        "arrays": directory,
        "data_bytes": data_bytes,
        "data_sha256": None,
        "stats": {k: v for k, v in table.stats.items() if isinstance(v, (int, float, str))},
    }
    try:
        with open(tmp, "wb") as f:
            # digest of the data section first (it goes into the header), then write
            for name, arr in arrays.items():
                buf = np.ascontiguousarray(arr, dtype=directory[name][2]).data.cast("B")
                for i in range(0, len(buf), _CHUNK):  # no copy of a large table
                    digest.update(buf[i : i + _CHUNK])
                digest.update(b"\0" * ((-len(buf)) % _ALIGN))
            header_obj["data_sha256"] = digest.hexdigest()
            header = json.dumps(header_obj, sort_keys=True).encode()
            start = 16 + len(header) + 32
            start = (start + _ALIGN - 1) // _ALIGN * _ALIGN
            f.write(MAGIC + struct.pack("<II", FORMAT_VERSION, len(header)))
            f.write(header)
            f.write(hashlib.sha256(header).digest())
            f.write(b"\0" * (start - (16 + len(header) + 32)))
            for name, arr in arrays.items():
                arr = np.ascontiguousarray(arr, dtype=directory[name][2])
                f.write(arr.data.cast("B"))
                f.write(b"\0" * ((-arr.nbytes) % _ALIGN))
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def open_table(path: Path, verify: bool = True) -> Table:
    """Open a table file memory-mapped; nothing but the small layout arrays is read.

    Args:
        verify: stream the data through SHA-256 and compare with the header
            (reads the file once, in 16 MiB chunks, without keeping it).

    Raises:
        TableFileError: missing file, wrong magic/version, damaged header,
            truncated file or checksum mismatch.
    """
    path = Path(path)
    try:
        f = open_regular(path)  # a FIFO, device or socket is refused, never waited on
    except OSError as exc:
        raise TableFileError(f"table file {str(path)!r} cannot be opened: {exc.strerror}") from None
    with f:
        meta, start = _read_header(f, path)
        if verify:
            _verify_data(f, path, meta, start)
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    arrs = {}
    for name, (off, count, dtype) in meta["arrays"].items():
        arr = np.frombuffer(mm, dtype=dtype, count=count, offset=start + off)
        arrs[name] = arr if name == "values" else np.array(arr, dtype=np.int64)
    layout = Layout(
        arrs["pval"],
        int(meta["T"]),
        meta["tie_rule"] == "carry",
        meta["objective"] == "win",
        arrs["codes"],
        arrs["code_off"],
        arrs["masks"],
        arrs["mask_off"],
        arrs["rank_of_mask"],
        arrs["psum"],
        arrs["base"],
        arrs["base_off"],
        arrs["val_off"],
        arrs.get("next_prize"),
    )
    if layout.size != meta["arrays"]["values"][1] or len(layout.pval) != meta["cards"]:
        raise TableFileError(
            f"{path}: the header is damaged (the arrays do not fit together); re-run `cardtable solve`"
        )
    assert layout.next_prize is not None  # Layout fills it when it is made
    if (layout.next_prize >= 0).any():
        raise TableFileError(f"{path}: fixed-order tables are not supported in files")
    rs = Ruleset(cards=meta["cards"], tie_rule=meta["tie_rule"], high_ace=meta["high_ace"])
    table = Table(
        rs,
        meta["objective"],
        layout,
        arrs["values"],
        tuple(meta["prize_cards"]),
        dict(meta.get("stats", {})),
        path,
    )
    table._mmap = mm
    return table


def _read_header(f, path: Path) -> tuple[dict, int]:
    """``(header, offset of the data section)`` of the open table file ``f``: magic,
    version, header digest and fields checked, and the file's size the header's.

    Raises:
        TableFileError: bad magic, another version, a damaged header or a file of
            another size (truncated or damaged).
    """
    head = f.read(16)
    if len(head) < 16 or head[:8] != MAGIC:
        raise TableFileError(f"{path}: not a cardtable table file (bad magic)")
    version, hlen = struct.unpack("<II", head[8:])
    if version != FORMAT_VERSION:
        raise TableFileError(
            f"{path}: table format version {version}, this program reads {FORMAT_VERSION}; re-run `cardtable solve`"
        )
    header = f.read(hlen)
    hdig = f.read(32)
    if len(header) != hlen or len(hdig) != 32 or hashlib.sha256(header).digest() != hdig:
        raise TableFileError(
            f"{path}: the header is damaged (checksum mismatch or truncated); re-run `cardtable solve`"
        )
    try:
        meta = json.loads(header)
    except (ValueError, RecursionError):  # RecursionError: JSON nested too deeply
        meta = None
    problem = _header_problem(meta)
    if problem:
        raise TableFileError(f"{path}: the header is damaged ({problem}); re-run `cardtable solve`")
    start = (16 + hlen + 32 + _ALIGN - 1) // _ALIGN * _ALIGN
    size = os.fstat(f.fileno()).st_size
    if size != start + meta["data_bytes"]:
        raise TableFileError(
            f"{path}: file is {size} bytes, the header promises {start + meta['data_bytes']} "
            "(truncated or damaged); re-run `cardtable solve`"
        )
    return meta, start


def _verify_data(f, path: Path, meta: dict, start: int) -> None:
    """Stream the data section of the open table file ``f`` (from ``start``, in 16 MiB
    chunks) through SHA-256 and compare with the header's ``data_sha256``.

    Raises:
        TableFileError: checksum mismatch.
    """
    f.seek(start)
    digest = hashlib.sha256()
    left = meta["data_bytes"]
    while left:
        chunk = f.read(min(_CHUNK, left))
        if not chunk:
            break
        digest.update(chunk)
        left -= len(chunk)
    if digest.hexdigest() != meta["data_sha256"]:
        raise TableFileError(
            f"{path}: data checksum mismatch (the file is damaged); re-run `cardtable solve`"
        )


#: The arrays of a format-1 file (``next_prize`` may be missing in older files).
_ARRAYS = (
    "pval",
    "codes",
    "code_off",
    "masks",
    "mask_off",
    "rank_of_mask",
    "psum",
    "base",
    "base_off",
    "val_off",
    "values",
)


def _header_problem(meta) -> str | None:
    """What is malformed in a format-1 header whose checksum matches (a hand-made header
    with a recomputed SHA-256), or None: its fields, their types and array bounds."""
    whole = _whole
    if not isinstance(meta, dict):
        return "not a JSON object"
    bad = game_fields_problem(meta)
    if bad:
        return bad
    if (
        not whole(meta.get("T"))
        or not whole(meta.get("data_bytes"))
        or not isinstance(meta.get("data_sha256"), str)
    ):
        return "T, data_bytes or data_sha256"
    if not isinstance(meta.get("stats", {}), dict):
        return "stats"
    arrays = meta.get("arrays")
    if not isinstance(arrays, dict) or not set(_ARRAYS) <= set(arrays) <= set(_ARRAYS) | {"next_prize"}:
        return "array directory"
    for name, entry in arrays.items():
        if not _array_entry_ok(name, entry, meta["data_bytes"]):
            return f"array {name}"
    return None


def _array_entry_ok(name: str, entry, data_bytes: int) -> bool:
    """Whether a header's directory entry ``[offset, count, dtype]`` of the array ``name``
    is well formed: whole numbers, the array's dtype, 64-byte aligned, inside the
    ``data_bytes`` of the data section."""
    return (
        isinstance(entry, list)
        and len(entry) == 3
        and _whole(entry[0])
        and _whole(entry[1])
        and entry[2] == ("<f8" if name == "values" else "<i8")
        and entry[0] % _ALIGN == 0
        and entry[0] + 8 * entry[1] <= data_bytes
    )


def load_table(
    ruleset: Ruleset, objective: str = "points", cache: Path | None = None, verify: bool = True
) -> SolvedTable | None:
    """The table of ``ruleset`` from the cache folder, or ``None`` if not solved yet.

    A table verified once in this process is reused while the file's
    modification time and size are unchanged (opening a 13-card table
    verifies 1.3 GiB of data; bots are created per game).

    Raises:
        TableFileError: the file exists but is damaged.
    """
    if ruleset.fixed_order:  # table files hold shuffled-prize games only
        return None
    folder = default_path(ruleset, objective, cache, FORMAT_LAYERED)
    path = default_path(ruleset, objective, cache)
    try:
        layered = (folder / "table.json").exists()
        if layered:
            path = folder / "table.json"
        elif not path.exists():
            return None  # not solved (or a layered solve still under way / interrupted)
    except OSError as exc:  # the cache folder cannot be entered
        raise TableFileError(f"cannot look for a table in {folder.parent}: {exc.strerror}") from None
    key = unchanged_key(path, ruleset, objective)
    if key in _OPENED:  # verified before, unchanged since: share the mapping
        return _OPENED[key]
    table: SolvedTable = open_layered(folder, verify=verify) if layered else open_table(path, verify=verify)
    check_table_matches(table, ruleset, objective)
    if verify:
        _OPENED.clear()  # keep at most one large mapping per process
        _OPENED[key] = table
    return table


def unchanged_key(path: Path, ruleset: Ruleset, objective: str) -> tuple:
    """What must stay the same for a verified table to be reused: the table file's (or
    ``table.json``'s, ``low-layers.json``'s) path, modification time and size, and those of
    every other file of a format-2 folder that opening checks (``layer-KK.f32``,
    ``layer-KK.json``, ``layout.npz``: one edited, truncated or removed in place is verified
    again at the next load)."""
    layered = path.name in ("table.json", "low-layers.json")
    files = [path] + (
        sorted(path.parent.glob("layer-*.f32"))
        + sorted(path.parent.glob("layer-*.json"))
        + [path.parent / "layout.npz"]
        if layered
        else []
    )

    def seen(p: Path) -> tuple:
        try:
            st = p.stat()
        except OSError:  # removed, or a dangling link: the next load refuses it
            return (p.name, None, None)
        return (p.name, st.st_mtime_ns, st.st_size)

    return (str(path.resolve()), ruleset, objective, tuple(seen(p) for p in files))


#: The last verified table of this process, keyed by (path, mtime, size).
_OPENED: dict[tuple, SolvedTable] = {}


__all__ = [
    "Table",
    "RoundStrategy",
    "SolvedTable",
    "TableFileError",
    "TableMismatchError",
    "solve",
    "solve_subgame",
    "write_table",
    "open_table",
    "load_table",
    "default_path",
    "table_name",
    "full_layout",
    "subgame_layout",
    "count_games",
    "children",
    "strategy_of",
    "check_table_matches",
    "mismatch_error",
    "game_fields_problem",
    "unchanged_key",
]
