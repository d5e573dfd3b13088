"""What a cache folder holds: every solved table and low-layer set, how far each got, and
whether its files check (``cardtable tables``; docs/solver.md, Listing the cache).

:func:`list_tables` looks at the entries named like tables (``gops-...v1.ctt`` files of
format 1, ``gops-...v2`` folders of format 2) and reports each as a :class:`CachedTable`:
its game, format, size on disk, state (``complete``, ``low`` layers ``1..K``, or
``partial``: the layers present of those the whole game needs) and checksum state.
Without ``verify`` only what is cheap is checked (format 1: the header and the file's
size; format 2: the manifest, every layer record and every file's size); ``verify``
reads every byte through SHA-256 as opening a table for play does (the 13-card tables:
1.3 and 16 GiB). Nothing is written or repaired.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from cardtable.errors import CardtableError
from cardtable.goofspiel import Ruleset, RulesetError

from .layers import LOW_MANIFEST, _layer_ok, game_layout, open_layered
from .table import TableFileError, check_table_matches, open_table

_FORMAT1_NAME = re.compile(r"gops-n(\d+)-(carry|discard)-(points|win)-(lowace|highace)\.v1\.ctt")
_FORMAT2_NAME = re.compile(r"gops-n(\d+)-(carry|discard)-(points|win)-(lowace|highace)\.v2")

#: Checksum states of :attr:`CachedTable.checksum`.
VERIFIED, NOT_VERIFIED, DAMAGED, UNREADABLE = "verified", "not verified", "damaged", "unreadable"


class CacheFolderError(CardtableError, ValueError):
    """The cache folder itself cannot be listed: missing, not a folder, or unreadable."""


@dataclass(frozen=True)
class CachedTable:
    """One table (or low-layer set, or unfinished solve) in a cache folder.

    Attributes:
        path: the format-1 file or format-2 folder.
        ruleset, objective: the game its name stands for.
        table_format: 1 or 2.
        size_bytes: bytes of its file, or of the regular files of its folder.
        state: ``complete``, ``low`` (low layers ``1..upto``) or ``partial`` (an
            interrupted or running solve: no manifest yet).
        layers_present: layers whose file and record are both there (format 2; a
            complete format-1 file counts all ``cards`` layers).
        layers_needed: layers of the whole game (``cards``).
        upto: the highest low layer declared (state ``low``), else None.
        checksum: ``verified``, ``not verified`` (only the cheap checks passed),
            ``damaged`` or ``unreadable``.
        problem: what is damaged or unreadable, else None.
    """

    path: Path
    ruleset: Ruleset
    objective: str
    table_format: int
    size_bytes: int
    state: str
    layers_present: int
    layers_needed: int
    upto: int | None
    checksum: str
    problem: str | None = None

    @property
    def percent_done(self) -> float:
        """Layers present over layers needed, in percent (100 for a complete table). A share
        of the layers, not of the work: the top layers hold most of the matrix games."""
        if self.state == "complete" and self.checksum != DAMAGED:
            return 100.0
        return 100.0 * min(self.layers_present, self.layers_needed) / max(1, self.layers_needed)

    def state_text(self) -> str:
        """``complete``, ``low layers 1..K`` or ``partial: 3 of 5 layers (60%)``."""
        if self.state == "complete":
            return "complete"
        if self.state == "low":
            return f"low layers 1..{self.upto}"
        return f"partial: {self.layers_present} of {self.layers_needed} layers ({self.percent_done:.0f}%)"

    def to_json(self) -> dict:
        """A JSON-ready dict of every attribute (the ruleset as its fields; ``rules``: its
        one-line description)."""
        rs = self.ruleset
        return {
            "path": str(self.path),
            "rules": rs.describe(),
            "cards": rs.cards,
            "ties": rs.tie_rule,
            "high_ace": rs.high_ace,
            "objective": self.objective,
            "format": self.table_format,
            "size_bytes": self.size_bytes,
            "state": self.state,
            "state_text": self.state_text(),
            "upto": self.upto,
            "layers_present": self.layers_present,
            "layers_needed": self.layers_needed,
            "percent_done": round(self.percent_done, 1),
            "checksum": self.checksum,
            "problem": self.problem,
        }


def _game(m: re.Match) -> tuple[Ruleset, str] | None:
    try:
        return Ruleset(cards=int(m[1]), tie_rule=m[2], high_ace=m[4] == "highace"), m[3]
    except RulesetError:  # gops-n99-...
        return None


def list_tables(cache: Path, verify: bool = False) -> list[CachedTable]:
    """Every table, low-layer set and unfinished format-2 solve in ``cache``, by name.

    Args:
        cache: the cache folder (``cardtable solve --cache``, ``$CARDTABLE_CACHE``).
        verify: also check every file's SHA-256 and value range (slow for large tables).

    Returns:
        one :class:`CachedTable` per entry whose name is a table's name (others, lock
        files and temporary files are not listed), sorted by name. A damaged entry has
        checksum ``damaged``, one that cannot be read ``unreadable``; neither raises.

    Raises:
        CacheFolderError: ``cache`` is missing, not a folder, or cannot be listed.
    """
    cache = Path(cache)
    try:
        st = cache.stat()
    except OSError as exc:
        raise CacheFolderError(f"{cache}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise CacheFolderError(f"{cache} is a file, not a folder")
    try:
        names = sorted(os.listdir(cache))
    except OSError as exc:
        raise CacheFolderError(f"{cache} cannot be listed: {exc.strerror or exc}") from None
    out = []
    for name in names:
        for fmt, pattern in ((1, _FORMAT1_NAME), (2, _FORMAT2_NAME)):
            m = pattern.fullmatch(name)
            game = _game(m) if m else None
            if game is not None:
                entry = (_format1 if fmt == 1 else _format2)(cache / name, *game, verify)
                out.append(entry)
    return out


def _unreadable(path: Path, rs: Ruleset, objective: str, fmt: int, exc: OSError) -> CachedTable:
    return CachedTable(
        path,
        rs,
        objective,
        fmt,
        0,
        "partial",
        0,
        rs.cards,
        None,
        UNREADABLE,
        f"cannot be read: {exc.strerror or exc}",
    )


def _format1(path: Path, rs: Ruleset, objective: str, verify: bool) -> CachedTable:
    try:
        st = path.stat()  # a link to nothing: unreadable
    except OSError as exc:
        return _unreadable(path, rs, objective, 1, exc)
    n = rs.cards
    if not stat.S_ISREG(st.st_mode):
        return CachedTable(path, rs, objective, 1, 0, "complete", 0, n, None, DAMAGED, "not a regular file")
    if not os.access(path, os.R_OK):
        return _unreadable(path, rs, objective, 1, PermissionError(13, "Permission denied"))
    try:
        table = open_table(path, verify=verify)
        check_table_matches(table, rs, objective)
    except TableFileError as exc:
        return CachedTable(path, rs, objective, 1, st.st_size, "complete", 0, n, None, DAMAGED, str(exc))
    except OSError as exc:
        return _unreadable(path, rs, objective, 1, exc)
    del table  # its memory map goes with it
    return CachedTable(
        path, rs, objective, 1, st.st_size, "complete", n, n, None, VERIFIED if verify else NOT_VERIFIED
    )


def _regular_files(folder: Path) -> dict[str, int]:
    """``{name: size}`` of the regular files (no links) in ``folder``. Raises OSError."""
    files = {}
    with os.scandir(folder) as it:
        for e in it:
            if e.is_file(follow_symlinks=False):
                files[e.name] = e.stat(follow_symlinks=False).st_size
    return files


def _manifest_name(folder: Path) -> str | None:
    """The manifest a format-2 folder has (``table.json`` first, then the low layers'; a
    dangling link counts as there), or None."""
    for name in ("table.json", LOW_MANIFEST):
        if (folder / name).exists() or (folder / name).is_symlink():
            return name
    return None


def _opened_upto(folder: Path, verify: bool, low: bool) -> int | None:
    """Open (and so check) the format-2 table in ``folder`` (``low``: its low layers) and
    close it again; returns the highest low layer (``low``), else None.

    Raises:
        TableFileError, OSError: as :func:`cardtable.solver.layers.open_layered`.
    """
    table = open_layered(folder, verify=verify, low=low)
    upto = table.upto if low else None
    table.close()
    return upto


def _format2(folder: Path, rs: Ruleset, objective: str, verify: bool) -> CachedTable:
    n = rs.cards
    try:
        st = folder.stat()
        if not stat.S_ISDIR(st.st_mode):
            return CachedTable(
                folder,
                rs,
                objective,
                2,
                st.st_size,
                "partial",
                0,
                n,
                None,
                DAMAGED,
                "not a folder (a table of format 2 is a folder of layers)",
            )
        files = _regular_files(folder)
    except OSError as exc:
        return _unreadable(folder, rs, objective, 2, exc)
    size = sum(files.values())
    present = [k for k in range(1, n + 1) if f"layer-{k:02d}.f32" in files and f"layer-{k:02d}.json" in files]
    manifest = _manifest_name(folder)

    def entry(state, upto, checksum, problem=None):
        return CachedTable(folder, rs, objective, 2, size, state, len(present), n, upto, checksum, problem)

    if manifest is not None:
        low = manifest == LOW_MANIFEST
        state = "low" if low else "complete"
        try:
            upto = _opened_upto(folder, verify, low)
        except TableFileError as exc:
            return entry(state, None, DAMAGED, str(exc))
        except OSError as exc:
            return _unreadable(folder, rs, objective, 2, exc)
        return entry(state, upto, VERIFIED if verify else NOT_VERIFIED)
    if not verify:
        return entry("partial", None, NOT_VERIFIED)
    lay = game_layout(rs, objective)
    digest = lay.digest()
    bad = [k for k in present if _layer_ok(folder, k, lay, digest) is None]
    if bad:
        return entry(
            "partial",
            None,
            DAMAGED,
            f"layers that do not verify against their records: {', '.join(map(str, bad))} "
            "(the next solve computes them again)",
        )
    return entry("partial", None, VERIFIED)


__all__ = [
    "CacheFolderError",
    "CachedTable",
    "list_tables",
    "VERIFIED",
    "NOT_VERIFIED",
    "DAMAGED",
    "UNREADABLE",
]
