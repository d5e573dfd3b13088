"""Table format 2: a folder of per-layer float32 files (the lean layout), written
layer by layer, resumable, and read memory-mapped.

Folder ``gops-n{N}-{ties}-{objective}-{ace}.v2/``::

    layout.npz        the index arrays of :class:`~cardtable.solver.lean.LeanLayout`
    layer-KK.f32      layer K's values, float32 little-endian, patterns x states
    layer-KK.json     written once layer K is complete: count, SHA-256 of the
                      file, SHA-256 of the layout it belongs to, solve stats
    table.json        written last (the table is complete): ruleset, objective,
                      every file's SHA-256, stats, and ``digest`` = SHA-256 of
                      the rest of this JSON
    low-layers.json   the same for layers ``1..upto`` only, written by a solve
                      stopped on purpose after layer ``upto`` (``cardtable solve
                      --layers K``): the *low layers* that exact subgame solving
                      reads instead of searching them
                      (:mod:`cardtable.solver.round_subgame`); a later full
                      solve resumes from them

Backward induction only reads layer ``k - 1`` while layer ``k`` is computed,
chunk by chunk, and written sequentially to ``layer-KK.f32.partial``; so
memory holds one layer (memory-mapped) plus one chunk. A finished layer is
renamed into place and its ``.json`` written; on a restart (after a crash,
SIGKILL, or Ctrl-C) every layer whose file verifies against its ``.json`` is
skipped and the solve resumes with the first missing one, giving a
byte-identical table (tested).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

from cardtable._numba import use_threads
from cardtable.goofspiel import Ruleset, RulesetError
from cardtable.platform.files import open_regular, read_regular_bytes

from . import kernel
from .layout import Layout
from .lean import (
    NSTATS,
    LeanLayout,
    build_lean,
    check_stats,
    expand_layer,
    float32_bound,
    kernel_args,
    lean_slot,
    solve_chunk,
)
from .position import OBJECTIVES, ImpossiblePosition, Position, check_supported
from .tables import (
    RoundStrategy,
    SolvedTable,
    TableFileError,
    children,
    full_layout,
    game_fields_problem,
    mismatch_error,
    strategy_of,
)

FORMAT_VERSION = 2
#: The manifest of a folder that holds only the low layers (``solve_layered(..., upto=K)``).
LOW_MANIFEST = "low-layers.json"
_CHUNK = 16 << 20
#: Largest ``table.json`` or ``layer-KK.json`` read (they are a few KiB; a larger one is damaged).
_JSON_MAX = 1 << 20
#: Most bytes the arrays of ``layout.npz`` may unpack to (the 13-card layout: about 30 MiB):
#: a larger (or zip-bomb) archive is refused before numpy reads it.
LAYOUT_MAX_BYTES = 512 << 20


def lean_layout(ruleset: Ruleset, objective: str, compact: bool = False) -> LeanLayout:
    """The lean layout of the whole game of ``ruleset`` (shuffled prizes); ``compact``:
    each pattern holds only the states its hands allow (:class:`.lean.SlotMap`).

    Raises:
        UnsupportedRuleset: outside the solver (see :func:`check_supported`).
        ValueError: unknown objective, or a fixed prize order (those games are
            small and solved in memory; docs/rules.md, Fixed prize order).
    """
    check_supported(ruleset)
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    if ruleset.fixed_order:
        raise ValueError("fixed-order games are solved in memory, not as layered tables")
    n = ruleset.cards
    full = 0
    for c in range(1, n + 1):
        full |= 1 << (ruleset.strength(c) - 1)
    return build_lean(
        [ruleset.prize_value(c) for c in range(1, n + 1)],
        full,
        full,
        15,
        ruleset.tie_rule == "carry",
        objective == "win",
        compact,
    )


def folder_name(ruleset: Ruleset, objective: str) -> str:
    """E.g. ``gops-n12-carry-points-lowace.v2``."""
    ace = "highace" if ruleset.high_ace else "lowace"
    return f"gops-n{ruleset.cards}-{ruleset.tie_rule}-{objective}-{ace}.v{FORMAT_VERSION}"


def sha256_file(path: Path, each: Callable[[bytes], None] | None = None) -> str:
    """SHA-256 of a file, streamed in 16 MiB chunks (each also passed to ``each``)."""
    h = hashlib.sha256()
    with open_regular(path) as f:  # a FIFO, device or socket is refused, never waited on
        while True:
            b = f.read(_CHUNK)
            if not b:
                break
            h.update(b)
            if each is not None:
                each(b)
    return h.hexdigest()


def _write_json(path: Path, obj: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(obj, sort_keys=True, indent=1))
        os.replace(tmp, path)
    finally:
        _discard(tmp)


def _layer_file(folder: Path, k: int) -> Path:
    return folder / f"layer-{k:02d}.f32"


def _read_layer_record(folder: Path, k: int, lay: LeanLayout, digest: str) -> tuple[dict | None, str]:
    """Layer ``k``'s ``layer-KK.json``, checked by content: ``(record, "")`` when it is a
    regular file of at most :data:`_JSON_MAX` bytes holding a JSON object for layer ``k`` of
    the layout whose digest is ``digest``, with the layer's count, a SHA-256 text and the
    numbers ``games``, ``positions``, ``seconds``, ``max_gap`` in 0..1e30; else
    ``(None, what is wrong)``. The layer file itself is not read."""
    meta_path = _layer_file(folder, k).with_suffix(".json")
    if not meta_path.is_file():  # no FIFO or folder is ever read
        return None, "missing or not a regular file"
    try:
        if meta_path.stat().st_size > _JSON_MAX:
            return None, f"{meta_path.stat().st_size:,} bytes (a layer's record is a few hundred)"
        meta = json.loads(read_regular_bytes(meta_path, _JSON_MAX))
    except (OSError, ValueError, RecursionError):  # RecursionError: JSON nested too deeply
        return None, "unreadable or not JSON"
    if not isinstance(meta, dict):
        return None, "not a JSON object"
    if meta.get("layout_sha256") != digest:
        return None, "written for another layout"
    if (
        not _is_int(meta.get("k"))
        or meta["k"] != k
        or not _is_int(meta.get("count"))
        or meta["count"] != lay.layer_size(k)
    ):
        return None, f"not the record of layer {k} of this layout (k or count)"
    if not isinstance(meta.get("sha256"), str):
        return None, "no sha256"
    for key in ("games", "positions", "seconds", "max_gap"):
        if (
            isinstance(meta.get(key), bool)
            or not isinstance(meta.get(key), (int, float))
            or not 0 <= meta[key] < 1e30
        ):
            return None, f"{key} is not a number in 0..1e30"  # a record edited by hand
    return meta, ""


def _layer_ok(folder: Path, k: int, lay: LeanLayout, digest: str) -> dict | None:
    """The layer's record if it checks (:func:`_read_layer_record`) and its file is complete
    and verifies against it, else None (a missing, unreadable or malformed ``.json``, or a
    layer that is no regular file, counts as not done: the layer is solved again; nothing
    else in the folder is touched)."""
    meta, _ = _read_layer_record(folder, k, lay, digest)
    path = _layer_file(folder, k)
    if meta is None or not path.is_file():
        return None
    try:
        if path.stat().st_size != 4 * lay.layer_size(k) or sha256_file(path) != meta["sha256"]:
            return None
    except OSError:
        return None
    return meta


def _discard(path: Path) -> None:
    """Remove the temporary file ``path`` if it is there (a file or a link; never a folder)."""
    try:
        if path.is_symlink() or path.is_file():
            path.unlink()
    except OSError:
        pass


#: The temporary files a solve writes into a table folder (removed when it fails, and at the
#: start of the next solve if a killed one left them).
_TEMP_GLOBS = ("layer-*.f32.partial", "*.json.tmp", "layout.tmp.npz")


@dataclass
class LayerBackend:
    """How one layer is computed. ``threads`` (this class): Numba threads on this
    machine. Subclasses: :class:`cardtable.solver.ray_backend.RayBackend`,
    :class:`cardtable.solver.cuda_backend.CudaBackend`."""

    threads: int = 1
    chunk_games: int = 4_000_000
    name: str = "threads"
    #: Warm-start each game from its neighbour's optimal support (False: every game
    #: cold, the kernel as before; equal values within the float32 bound).
    warm: bool = True

    def start(self, lay: LeanLayout) -> None:
        if self.threads > 1:
            use_threads(self.threads)

    def stop(self) -> None:
        pass

    def chunks(self, lay: LeanLayout, k: int, scale: int = 1) -> list[tuple[int, int]]:
        npat = lay.npat(k)
        per = max(1, k * (lay.layer_size(k) // max(1, npat)))  # games of a pattern, on average
        step = max(1, self.chunk_games * scale // per)
        return [(lo, min(npat, lo + step)) for lo in range(0, npat, step)]

    def solve_layer(
        self,
        lay: LeanLayout,
        k: int,
        prev: np.ndarray | None,
        prev_path: Path | None,
        out_path: Path,
        progress: Callable[[int, int], None],
    ) -> tuple[np.ndarray, str]:
        """Write layer ``k`` to ``out_path``; return (stats, SHA-256 of the file).

        ``progress(patterns_done, patterns)`` after each chunk."""
        st = np.zeros(NSTATS)
        h = hashlib.sha256()
        npat = lay.npat(k)
        with open(out_path, "wb") as f:
            for lo, hi in self.chunks(lay, k, self.threads):
                out, s = solve_chunk(lay, k, lo, hi, prev, self.threads, warm=self.warm)
                buf = out.astype("<f4", copy=False).tobytes()
                f.write(buf)
                h.update(buf)
                _merge(st, s)
                progress(hi, npat)
            f.flush()
            os.fsync(f.fileno())
        return st, h.hexdigest()


def _merge(st: np.ndarray, s: np.ndarray) -> None:
    """Add the stats ``s`` of a chunk to ``st`` (index 2, the largest gap: maximum)."""
    for i in range(min(len(st), len(s))):
        st[i] = max(st[i], s[i]) if i == 2 else st[i] + s[i]


def solve_layered(
    ruleset: Ruleset,
    objective: str,
    folder: Path,
    backend: LayerBackend | None = None,
    progress: Callable[[int, int, int, int], None] | None = None,
    lay: LeanLayout | None = None,
    upto: int | None = None,
) -> dict:
    """Solve the whole game into ``folder`` (format 2), resuming finished layers.

    Args:
        progress: ``progress(k, patterns_done, patterns_of_layer, games_so_far)``
            after each chunk (and once per skipped layer).
        upto: stop after layer ``upto`` (``1 <= upto < cards``): the low layers,
            recorded in ``low-layers.json`` instead of ``table.json``. ``None``
            (or ``cards``): the whole game. Low layers of this game already declared
            above ``upto`` stay declared: the solve then runs (verifies) up to the
            stored ``upto`` instead (docs/solver.md, Low layers).

    Returns:
        the manifest (also written to ``folder / "table.json"``, or
        ``folder / "low-layers.json"`` with ``upto``).

    Raises:
        SolverError: a game failed its optimality check or a child was missing
            (nothing of the failed layer is kept).
        OSError: the folder cannot be written.

    A failed or interrupted solve leaves no temporary file (``layer-KK.f32.partial``,
    ``*.json.tmp``, ``layout.tmp.npz``); those a killed one left are removed first.
    """
    backend = backend or LayerBackend()
    if lay is None:  # the folder's, else compact (carry-over; the CUDA kernel writes the full one)
        lay = folder_layout(Path(folder), ruleset, objective, False if backend.name == "cuda" else None)
    if upto is not None and not 1 <= upto <= lay.top:
        raise ValueError(f"upto must be a layer 1..{lay.top}, not {upto}")
    last = lay.top if upto is None else upto
    digest = lay.digest()
    folder = Path(folder)
    last, manifest_path = _prepare_folder(folder, ruleset, objective, lay, digest, last)
    lpath = folder / "layout.npz"
    t0 = time.perf_counter()
    total = np.zeros(5)
    layers = []
    prev = None
    resumed = []
    backend.start(lay)
    try:
        for k in range(1, last + 1):
            path = _layer_file(folder, k)
            meta = _layer_ok(folder, k, lay, digest)
            if meta is None:

                def layer_progress(done: int, npat: int, k: int = k) -> None:
                    if progress:
                        progress(k, done, npat, int(total[0]))

                meta = _solve_layer_into(backend, lay, folder, k, prev, digest, layer_progress)
            else:
                resumed.append(k)
                if progress:
                    progress(k, lay.npat(k), lay.npat(k), int(total[0]))
            total[0] += meta["games"]
            total[1] += meta["positions"]
            total[2] = max(total[2], meta["max_gap"])
            layers.append(
                {
                    "k": k,
                    "file": path.name,
                    "count": meta["count"],
                    "sha256": meta["sha256"],
                    "seconds": meta["seconds"],
                    "games": meta["games"],
                    "record_sha256": sha256_file(path.with_suffix(".json")),
                }
            )
            prev = np.memmap(path, dtype="<f4", mode="r") if lay.layer_size(k) else np.zeros(1, np.float32)
    finally:
        backend.stop()
    manifest = {
        "format": "cardtable GOPS table",
        "version": FORMAT_VERSION,
        "cards": ruleset.cards,
        "tie_rule": ruleset.tie_rule,
        "high_ace": ruleset.high_ace,
        "objective": objective,
        "prize_cards": list(range(1, ruleset.cards + 1)),
        "layout_file_sha256": sha256_file(lpath),
        "layout_sha256": digest,
        **({"layout": "compact"} if lay.compact else {}),
        "layers": layers,
        "float32_bound": float32_bound(lay, last),
        "stats": {
            "games": int(total[0]),
            "positions": int(total[1]),
            "max_gap": float(total[2]),
            "seconds": time.perf_counter() - t0,
            "resumed_layers": resumed,
            "backend": backend.name,
        },
    }
    if last < lay.top:
        manifest["upto"] = last
    manifest["digest"] = _manifest_digest(manifest)
    _write_json(manifest_path, manifest)
    return manifest


def _prepare_folder(
    folder: Path, ruleset: Ruleset, objective: str, lay: LeanLayout, digest: str, last: int
) -> tuple[int, Path]:
    """Ready ``folder`` for :func:`solve_layered` up to layer ``last``: remove the temporary
    files a killed solve left, keep the low layers already declared above ``last``, remove
    a complete table's manifest (rewritten at the end), write ``layout.npz`` unless the
    stored one is this layout's (``digest``). Returns ``(last, the manifest's path)``.

    Raises:
        IsADirectoryError: the manifest's name is a folder.
        OSError: the folder cannot be written.
    """
    folder.mkdir(parents=True, exist_ok=True)
    for pattern in _TEMP_GLOBS:
        for p in folder.glob(pattern):
            _discard(p)
    if last < lay.top:  # never shrink the low layers already declared (verified again below)
        last = max(last, stored_low_upto(folder, ruleset, objective))
    manifest_path = folder / (LOW_MANIFEST if last < lay.top else "table.json")
    if manifest_path.exists() or manifest_path.is_symlink():
        if manifest_path.is_dir() and not manifest_path.is_symlink():
            raise IsADirectoryError(f"{manifest_path} is a folder, not the table's manifest: remove it")
        if last == lay.top:  # rewritten at the end; its absence marks an unfinished table
            manifest_path.unlink()
        # (low layers keep their manifest until the new one replaces it: the layers it lists
        # are only verified on the way, so a failed or interrupted run loses nothing)
    lpath = folder / "layout.npz"
    if not lpath.is_file() or _stored_layout_digest(lpath) != digest:  # keep it on a resume
        tmp = folder / "layout.tmp.npz"
        try:
            # numpy's stub cannot say that no array here is named allow_pickle
            np.savez(tmp, **lay.arrays())  # type: ignore[arg-type]
            os.replace(tmp, lpath)
        finally:
            _discard(tmp)
    return last, manifest_path


def _solve_layer_into(
    backend: LayerBackend,
    lay: LeanLayout,
    folder: Path,
    k: int,
    prev: np.ndarray | None,
    digest: str,
    progress: Callable[[int, int], None],
) -> dict:
    """Solve layer ``k`` with ``backend`` into ``layer-KK.f32`` (through a ``.partial``
    file, renamed once its stats check) and write its record ``layer-KK.json``;
    returns the record. A failed check, write or Ctrl-C keeps nothing of the layer.

    Raises:
        SolverError: a game failed its optimality check.
        OSError: the folder cannot be written.
    """
    path = _layer_file(folder, k)
    part = path.with_name(path.name + ".partial")
    t1, c1 = time.perf_counter(), time.process_time()
    try:
        st, sha = backend.solve_layer(
            lay, k, prev, _layer_file(folder, k - 1) if k > 1 else None, part, progress
        )
        check_stats(k, st)
        os.replace(part, path)
    finally:  # a failed check, write or Ctrl-C: nothing of the layer is kept
        _discard(part)
    meta = {
        "k": k,
        "count": lay.layer_size(k),
        "sha256": sha,
        "layout_sha256": digest,
        "games": int(st[0]),
        "positions": int(st[1]),
        "max_gap": float(st[2]),
        "seconds": time.perf_counter() - t1,
        # this process's CPU seconds (all its threads; not Ray's worker processes)
        "cpu_seconds": time.process_time() - c1,
        "backend": backend.name,
    }
    if len(st) > 6:  # warm-start hits and misses (the CUDA backend solves cold)
        meta.update(warm_hits=int(st[5]), warm_misses=int(st[6]))
    if len(st) > 7 and st[7]:  # games the simplex left unverified, solved by the support search
        meta.update(support_searches=int(st[7]))
    _write_json(path.with_suffix(".json"), meta)
    return meta


def stored_low_upto(folder: Path, ruleset: Ruleset, objective: str) -> int:
    """The ``upto`` of the low layers of this game already declared in ``folder`` (their
    ``low-layers.json`` checks; the layer files and records are verified by the solve, a
    damaged one solved again), else 0."""
    if not (folder / LOW_MANIFEST).is_file():
        return 0
    try:
        manifest, rs = _read_manifest(folder, low=True)
    except TableFileError:
        return 0  # damaged or another game's: not kept
    same = (rs.cards, rs.tie_rule, rs.high_ace, manifest["objective"]) == (
        ruleset.cards,
        ruleset.tie_rule,
        ruleset.high_ace,
        objective,
    )
    return manifest["upto"] if same else 0


def repair_command(ruleset: Ruleset, objective: str, upto: int | None = None) -> str:
    """The ``cardtable solve`` command that solves (or repairs) the format-2 table of
    ``ruleset`` and ``objective`` (``upto``: its low layers ``1..upto``), e.g.
    ``cardtable solve -n 6 --ties carry --layers 3``."""
    cmd = f"cardtable solve -n {ruleset.cards} --ties {ruleset.tie_rule}"
    if objective != "points":
        cmd += f" --objective {objective}"
    if ruleset.high_ace:
        cmd += " --high-ace"
    return cmd + (f" --layers {upto}" if upto is not None else "")


_FOLDER_NAME = re.compile(r"gops-n(\d+)-(carry|discard)-(points|win)-(lowace|highace)\.v2")


def game_of_folder(name: str) -> tuple[Ruleset, str] | None:
    """(ruleset, objective) that the table folder name ``name`` stands for (the inverse of
    :func:`folder_name`), or None for any other name."""
    m = _FOLDER_NAME.fullmatch(name)
    if m is None:
        return None
    try:
        # the pattern allows only these two tie rules
        return Ruleset(
            cards=int(m[1]), tie_rule="carry" if m[2] == "carry" else "discard", high_ace=m[4] == "highace"
        ), m[3]
    except RulesetError:  # e.g. gops-n99-...
        return None


def _load_layout(lpath: Path) -> LeanLayout:
    """The lean layout stored in ``layout.npz``, its size checked first: the members
    may unpack to at most :data:`LAYOUT_MAX_BYTES` (pickled objects are refused by
    ``np.load``). Raises ValueError (or what a damaged archive raises) otherwise."""
    with open_regular(lpath) as f:  # a FIFO, device or socket is refused, never waited on
        with zipfile.ZipFile(f) as zf:
            if sum(i.file_size for i in zf.infolist()) > LAYOUT_MAX_BYTES:
                raise ValueError(f"{lpath.name} unpacks to more than {LAYOUT_MAX_BYTES >> 20} MiB")
        f.seek(0)
        with np.load(f) as z:
            return LeanLayout.from_arrays({k: z[k] for k in z.files})


def _stored_layout_digest(lpath: Path) -> str | None:
    try:
        return _load_layout(lpath).digest()
    except Exception:  # a damaged archive fails in many ways (zipfile, numpy, keys, shapes)
        return None


def _manifest_digest(manifest: dict) -> str:
    rest = {k: v for k, v in manifest.items() if k != "digest"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True).encode()).hexdigest()


@dataclass
class LayeredTable(SolvedTable):
    """A format-2 table, memory-mapped: the same queries as
    :class:`cardtable.solver.table.Table` (``value``, ``round_strategy``).

    Attributes:
        ruleset, objective, stats, path: as in ``Table``; ``path`` is the folder.
        lay: the lean layout; ``layers[k]``: layer k's float32 values.
    """

    ruleset: Ruleset
    objective: str
    lay: LeanLayout
    layers: list
    prize_cards: tuple[int, ...]
    stats: dict = field(default_factory=dict)
    path: Path | None = None

    #: Largest format-1 view :attr:`values` builds (slots; 2**27 = 1 GiB of float64).
    DENSE_MAX = 1 << 27

    @property
    def upto(self) -> int:
        """The highest layer held: ``cards`` for a complete table, ``K`` for low layers."""
        return len(self.layers) - 1

    @property
    def layout(self):
        """The format-1 :class:`~cardtable.solver.layout.Layout` of the same game (with
        :attr:`values`, for code that walks format-1 arrays, e.g. ``exploit_kernel``)."""
        return self._dense()[0]

    @property
    def values(self) -> np.ndarray:
        """The table as a format-1 float64 value array (NaN where no position is),
        built on first use from the layers.

        Raises:
            TableFileError: the format-1 view would exceed :attr:`DENSE_MAX` slots.
        """
        return self._dense()[1]

    def _dense(self) -> tuple[Layout, np.ndarray]:
        cached: tuple[Layout, np.ndarray] | None = getattr(self, "_dense_cache", None)
        if cached is None:
            L = full_layout(self.ruleset, self.objective)
            if self.upto < L.top:
                raise TableFileError(f"{self.path}: holds layers 1..{self.upto} only; no format-1 view")
            if L.size > self.DENSE_MAX:
                raise TableFileError(
                    f"{self.path}: a format-1 view of this table needs {L.size:,} slots "
                    f"(more than {self.DENSE_MAX:,}); use value() and round_strategy()"
                )
            vals = np.full(L.size, np.nan)
            lay = self.lay
            for k in range(1, L.top + 1):
                npat = L.npat(k)
                grid = expand_layer(lay, k, self.layers[k])
                sk = int(lay.so_off[k])
                for r in range(int(L.mask_off[k + 1] - L.mask_off[k])):
                    R = L.T - int(L.psum[L.masks[L.mask_off[k] + r]])
                    for j in range(int(lay.soff[sk + r]), int(lay.soff[sk + r + 1])):
                        key = int(lay.skeys[lay.skoff[k] + j])
                        pot = key // lay.W
                        at = kernel.slot(
                            k,
                            r,
                            pot,
                            key - pot * lay.W - L.T,
                            R,
                            npat,
                            L.base,
                            L.base_off,
                            L.val_off,
                            L.carry,
                            L.win,
                        )
                        vals[at : at + npat] = grid[:, j]
            cached = (L, vals)
            self._dense_cache: tuple[Layout, np.ndarray] | None = cached
        return cached

    def joined_layers(self) -> tuple[np.ndarray, np.ndarray]:
        """``(values, offsets)``: layers ``1..upto`` copied into one float32 array, layer ``k``
        at ``values[offsets[k]:offsets[k + 1]]`` in its own order (patterns outermost, module
        :mod:`.lean`), ``offsets`` int64 of shape ``(upto + 2,)``. Made on first use and kept
        until :meth:`close` (one copy of the layers in memory: 13 cards, discard ties, points:
        168 million values, 0.63 GiB), for the Numba kernels, which take one array
        (:func:`cardtable.solver.compressed.layered_source`)."""
        cached: tuple[np.ndarray, np.ndarray] | None = getattr(self, "_joined", None)
        if cached is None:
            parts = [np.asarray(self.layers[k], dtype=np.float32) for k in range(1, self.upto + 1)]
            offsets = np.zeros(self.upto + 2, dtype=np.int64)
            offsets[2:] = np.cumsum([len(p) for p in parts])
            joined = np.concatenate(parts) if parts else np.zeros(0, np.float32)
            cached = (joined, offsets)
            self._joined: tuple[np.ndarray, np.ndarray] | None = cached
        return cached

    def _locate(self, pos: Position) -> tuple[int, int, int, int, int]:
        """(k, subset rank, pattern index, sign, code) of a position; sign -1: stored swapped."""
        L = self.lay.dense
        k = pos.k
        self._check_size(pos)
        r = int(L.rank_of_mask[self._prize_mask(pos.prizes)])
        i, sign, code = self._pattern(L, k, pos)
        return k, r, i, sign, code

    def _lookup(self, k: int, r: int, i: int, pot: int, d: int) -> float:
        s = lean_slot(self.lay, k, r, i, pot, d)
        v = float(self.layers[k][s]) if s >= 0 else float("nan")
        if v != v:  # no slot, or a state the solve skipped (lean.min_ties): NaN
            what = f"a pot of {pot}" + (f" with a point difference of {d:+d}" if self.lay.win else "")
            why = (
                (
                    " cannot arise with these hands (a pot of j prizes needs j strengths that both "
                    "players have played)"
                )
                if s >= 0
                else " cannot arise here"
            )
            raise ImpossiblePosition(what + why)
        return v

    def value(self, pos: Position) -> float:
        """Equilibrium value for player A before the next prize is revealed
        (points, or P(win) - P(loss) for ``win``; see ``Table.value``).

        Raises:
            ImpossiblePosition: the position cannot arise in this game.
        """
        pos.validate(self.ruleset)
        if pos.k == 0:
            return float(np.sign(pos.diff)) if self.lay.win else 0.0
        k, r, i, sign, _ = self._locate(pos)
        return sign * self._lookup(k, r, i, pos.pot, sign * pos.diff if self.lay.win else 0)

    def round_strategy(self, pos: Position, prize: int) -> RoundStrategy:
        """Equilibrium of the round played for ``prize`` at ``pos`` (one k x k game
        built from the stored child values).

        Raises:
            ImpossiblePosition: bad position, or ``prize`` is not face down.
        """
        pos.validate(self.ruleset)
        self._check_prize(pos, prize)
        k, r, i, sign, code = self._locate(pos)
        self._lookup(k, r, i, pos.pot, sign * pos.diff if self.lay.win else 0)  # position exists
        L = self.lay.dense
        cidx, csign, outc = children(code, k, L)
        p = self.prize_cards.index(prize)
        cmask = self._prize_mask(pos.prizes - {prize})
        rc = int(L.rank_of_mask[cmask])
        stake = pos.pot + int(L.pval[p])
        win, carry = self.lay.win, self.lay.carry
        M = np.empty((k, k))
        for a in range(k):
            for b in range(k):
                o = int(outc[a, b])
                if o:
                    cpot, cd = 0, pos.diff + o * stake
                else:
                    cpot, cd = (stake if carry and k > 1 else 0), pos.diff
                if k == 1:
                    M[a, b] = float(np.sign(cd)) if win else o * stake
                    continue
                sg = int(csign[a, b])
                child = sg * self._lookup(k - 1, rc, int(cidx[a, b]), cpot, sg * cd if win else 0)
                M[a, b] = child if win else o * stake + child
        return strategy_of(M, pos, self.ruleset)

    def close(self) -> None:
        """Drop the memory maps (queries fail afterwards)."""
        self.layers = []
        self._dense_cache = None
        self._joined = None


def solve_low_in_memory(ruleset: Ruleset, upto: int) -> LayeredTable:
    """Layers ``1..upto`` of ``ruleset``'s points table solved in memory (no files): what
    ``open_layered(folder, low=True)`` reads from disk, for decks small enough to build
    at the first move (10 cards carry-over, 6 layers: 23.9 million matrix games, 10-20 s).

    Raises:
        ValueError: ``upto`` is not a layer below the top.
        SolverError: a game failing its optimality check.
    """
    lay = lean_layout(ruleset, "points", ruleset.tie_rule == "carry")  # the layout a new folder gets
    if not 1 <= upto < lay.top:
        raise ValueError(f"upto must be a layer 1..{lay.top - 1}, not {upto}")
    args = kernel_args(lay)
    layers: list = [np.zeros(0, np.float32)]
    games = 0
    for k in range(1, upto + 1):
        vals, st = solve_chunk(lay, k, 0, lay.npat(k), layers[-1], args=args)
        layers.append(vals)
        games += int(st[0])
    return LayeredTable(ruleset, "points", lay, layers, tuple(range(1, ruleset.cards + 1)), {"games": games})


def open_layered(folder: Path, verify: bool = True, low: bool = False) -> LayeredTable:
    """Open a complete format-2 table folder, memory-mapped.

    Args:
        verify: check every file's SHA-256 against ``table.json`` (reads each
            file once, in 16 MiB chunks).
        low: open the low layers instead (``low-layers.json``, written by
            ``solve_layered(..., upto=K)``): the result holds layers ``1..K``
            (:attr:`LayeredTable.upto`), and queries of higher layers raise
            :class:`ImpossiblePosition`.

    Every file the manifest covers is checked: its digest and fields; ``layout.npz``
    and every ``layer-KK.f32`` by size and (``verify``) SHA-256 and value range; every
    ``layer-KK.json`` by content (the layer, count, checksum and numbers the manifest
    records) and by the SHA-256 the manifest records of it (tables written since issue
    24; always, being small). docs/solver.md, Table format 2.

    Raises:
        TableMismatchError: (a ``TableFileError``) the manifest is of another game than
            the one the folder's name stands for (:func:`folder_name`; a copied or
            renamed table): both games are named.
        TableFileError: missing or unfinished table (no ``table.json``; run
            ``cardtable solve`` again to resume it), damaged manifest, a missing,
            edited or garbage ``layer-KK.json``, wrong file size or checksum; the
            message names the file and the command that repairs it.
    """
    folder = Path(folder)
    manifest, rs = _read_manifest(folder, low)
    name = LOW_MANIFEST if low else "table.json"
    damaged = f"{folder}: {name} is damaged"
    repair = f"re-run `{repair_command(rs, manifest['objective'], manifest['upto'] if low else None)}` to repair it"
    lay = _checked_layout(folder, manifest, rs, verify)
    bound = 1.0 if lay.win else float(lay.dense.T)  # no value of this game is larger
    recs = manifest["layers"]
    want = manifest["upto"] if low else lay.top
    if lay.top != manifest["cards"] or len(recs) != want or want > lay.top:
        raise TableFileError(
            f"{damaged} (it lists {len(recs)} layers, the layout has {lay.top}"
            + (f", low layers 1..{want}" if low else "")
            + "); re-run `cardtable solve`"
        )
    layers: list = [np.zeros(0, np.float32)]
    for k, rec in enumerate(recs, 1):
        if rec["k"] != k or rec["file"] != _layer_file(folder, k).name or rec["count"] != lay.layer_size(k):
            raise TableFileError(
                f"{damaged} (layer {k}'s record does not match the layout); re-run `cardtable solve`"
            )
        path = _layer_file(folder, k)  # never a name taken from the manifest
        _check_layer_data(path, rec, bound, verify)
        _check_layer_record(folder, k, rec, lay, manifest["layout_sha256"], repair)
        layers.append(np.memmap(path, dtype="<f4", mode="r") if rec["count"] else np.zeros(0, np.float32))
    return LayeredTable(
        rs,
        manifest["objective"],
        lay,
        layers,
        tuple(manifest["prize_cards"]),
        dict(manifest["stats"]),
        folder,
    )


def _checked_layout(folder: Path, manifest: dict, rs: Ruleset, verify: bool) -> LeanLayout:
    """The lean layout of the game the manifest names, once ``layout.npz`` is there and
    (``verify``) has the SHA-256 the manifest records, and the layout's digest is the
    manifest's. The index arrays are rebuilt from the game, never taken from the file:
    a layout of another game, or one crafted with matching checksums, cannot steer a
    kernel.

    Raises:
        TableFileError: ``layout.npz`` missing or damaged, or another game's layout.
    """
    lpath = folder / "layout.npz"
    if not lpath.is_file() or (verify and sha256_file(lpath) != manifest["layout_file_sha256"]):
        raise TableFileError(f"{folder}: layout.npz is missing or damaged; re-run `cardtable solve`")
    lay = game_layout(rs, manifest["objective"], manifest.get("layout") == "compact")
    if lay.digest() != manifest["layout_sha256"]:
        raise TableFileError(
            f"{folder}: its layout is not the one of {rs.describe()} (objective "
            f"{manifest['objective']}): damaged or another table's; re-run `cardtable solve`"
        )
    return lay


def _check_layer_data(path: Path, rec: dict, bound: float, verify: bool) -> None:
    """Check the layer file ``path`` against its manifest record ``rec``: its size and
    (``verify``) its SHA-256 and that no value exceeds ``bound`` in size.

    Raises:
        TableFileError: a missing, truncated, damaged or forged layer file.
    """
    size = path.stat().st_size if path.is_file() else -1
    if size != 4 * rec["count"]:
        raise TableFileError(
            f"{path}: "
            + (f"{size} bytes" if size >= 0 else "missing or not a regular file")
            + f", the table promises {4 * rec['count']} bytes "
            "(missing, truncated or damaged); re-run `cardtable solve`"
        )
    if not verify:
        return
    sha, in_range = _check_layer_file(path, bound)
    if sha != rec["sha256"]:
        raise TableFileError(
            f"{path}: data checksum mismatch (the file is damaged); re-run `cardtable solve`"
        )
    if not in_range:
        raise TableFileError(
            f"{path}: values outside -{bound:g}..{bound:g} (the file is damaged or "
            "forged); re-run `cardtable solve`"
        )


def _check_layer_record(folder: Path, k: int, rec: dict, lay: LeanLayout, digest: str, repair: str) -> None:
    """Check layer ``k``'s ``layer-KK.json`` by content (:func:`_read_layer_record`) and
    against its manifest record ``rec`` (checksum, games, seconds, and the record's own
    SHA-256 where the manifest has it); ``repair``: the advice that ends the message.

    Raises:
        TableFileError: a missing, edited or garbage record.
    """
    path = _layer_file(folder, k)
    meta, problem = _read_layer_record(folder, k, lay, digest)
    if meta is not None and any(meta.get(key) != rec.get(key) for key in ("sha256", "games", "seconds")):
        problem = "its checksum, games or seconds differ from the manifest's"
    elif (
        meta is not None
        and "record_sha256" in rec
        and sha256_file(path.with_suffix(".json")) != rec["record_sha256"]
    ):
        problem = "edited (its SHA-256 is not the one the manifest records)"
    if problem:
        raise TableFileError(
            f"{path.with_suffix('.json')}: {problem} (the record of layer {k} is damaged); {repair}"
        )


def _read_manifest(folder: Path, low: bool = False) -> tuple[dict, Ruleset]:
    """(manifest, its ruleset) of the table folder ``folder`` (``low``: of its low layers):
    ``table.json`` (``low-layers.json``) read and checked (regular file, size, digest,
    version, fields) and of the game the folder's name stands for, if it is such a name.
    The other files are not read.

    Raises:
        TableFileError, TableMismatchError: as :func:`open_layered`.
    """
    name = LOW_MANIFEST if low else "table.json"
    mpath = folder / name
    if not mpath.exists():
        what = (
            "unfinished (resume it with the same `cardtable solve` command)" if folder.is_dir() else "missing"
        )
        raise TableFileError(
            f"table {str(folder)!r} is {what}" if not low else f"{folder}: no low layers ({name} is missing)"
        )
    damaged = f"{folder}: {name} is damaged"
    if not mpath.is_file():
        raise TableFileError(f"{damaged} (not a regular file); remove it and re-run `cardtable solve`")
    if mpath.stat().st_size > _JSON_MAX:
        raise TableFileError(
            f"{damaged} ({mpath.stat().st_size:,} bytes; a manifest is a few KiB); re-run `cardtable solve`"
        )
    try:
        manifest = json.loads(read_regular_bytes(mpath, _JSON_MAX))
    except (OSError, ValueError, RecursionError):  # RecursionError: JSON nested too deeply
        raise TableFileError(f"{damaged}; re-run `cardtable solve`") from None
    if not isinstance(manifest, dict) or manifest.get("digest") != _manifest_digest(manifest):
        raise TableFileError(f"{damaged} (digest mismatch); re-run `cardtable solve`")
    if manifest.get("version") != FORMAT_VERSION:
        raise TableFileError(
            f"{folder}: table format version {manifest.get('version')}, "
            f"this program reads {FORMAT_VERSION}; re-run `cardtable solve`"
        )
    problem = _manifest_problem(manifest, low)
    if problem:
        raise TableFileError(f"{damaged} ({problem}); re-run `cardtable solve`")
    rs = Ruleset(cards=manifest["cards"], tie_rule=manifest["tie_rule"], high_ace=manifest["high_ace"])
    named = game_of_folder(folder.name)
    if named is not None and (named[0], named[1]) != (rs, manifest["objective"]):
        raise mismatch_error(mpath, rs, manifest["objective"], *named)
    return manifest, rs


@lru_cache(maxsize=4)
def game_layout(ruleset: Ruleset, objective: str, compact: bool = False) -> LeanLayout:
    """:func:`lean_layout`, kept for the next caller (13 cards: 2.7 s to build): the
    estimate, the solve and the tables opened next read the same one."""
    return lean_layout(ruleset, objective, compact)


def folder_layout(folder: Path, ruleset: Ruleset, objective: str, compact: bool | None = None) -> LeanLayout:
    """The layout the table folder ``folder`` holds, or will hold once solved: the one its
    ``layout.npz`` names when that is this game's (full or compact: a table started before
    the compact layout resumes as it began); else the compact one with carry-over ties
    (``compact=False``: the full one; with discard ties the two place every value alike, and
    the full one is used)."""
    lpath = Path(folder) / "layout.npz"
    stored = _stored_layout_digest(lpath) if lpath.is_file() else None
    carry = ruleset.tie_rule == "carry"
    if stored is not None:
        for c in (False, True) if carry else (False,):
            lay = game_layout(ruleset, objective, c)
            if lay.digest() == stored:
                return lay
    return game_layout(ruleset, objective, carry and compact is not False)


def _check_layer_file(path: Path, bound: float) -> tuple[str, bool]:
    """(SHA-256 of a layer file, whether no value is infinite or larger than ``bound`` in
    size; NaN marks a state no game reaches), in one pass of 16 MiB chunks."""
    ok = [True]

    def in_range(b: bytes) -> None:
        if ok[0] and len(b) >= 4:
            v = np.abs(np.nan_to_num(np.frombuffer(b, dtype="<f4", count=len(b) // 4), nan=0.0))
            ok[0] = bool(v.max() <= bound * (1 + 1e-6) + 1e-6)

    return sha256_file(path, in_range), ok[0]


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _manifest_problem(m: dict, low: bool = False) -> str | None:
    """What is malformed in a ``table.json`` (``low``: ``low-layers.json``) whose digest
    checks (its fields and their types; a hand-made manifest with a recomputed digest),
    or None."""
    bad = game_fields_problem(m)
    if bad:
        return bad
    if low and not (_is_int(m.get("upto")) and 1 <= m["upto"] < m["cards"]):
        return "upto"
    if not isinstance(m.get("stats"), dict):
        return "stats"
    for key in ("layout_file_sha256", "layout_sha256"):
        if not isinstance(m.get(key), str):
            return key
    if m.get("layout", "compact") != "compact":
        return "layout"
    layers = m.get("layers")
    if not isinstance(layers, list):
        return "layers"
    if not all(_layer_entry_ok(rec) for rec in layers):
        return "a layer record"
    return None


def _layer_entry_ok(rec) -> bool:
    """Whether one entry of a manifest's ``layers`` has the fields and types of a layer
    record (``k``, ``count``: int; ``file``, ``sha256``, ``record_sha256`` if there: str)."""
    return (
        isinstance(rec, dict)
        and _is_int(rec.get("k"))
        and _is_int(rec.get("count"))
        and isinstance(rec.get("file"), str)
        and isinstance(rec.get("sha256"), str)
        and isinstance(rec.get("record_sha256", ""), str)
    )
