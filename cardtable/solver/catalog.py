"""What a cache folder holds: every solved table and low-layer set, how far each got, and
whether its files check (``cardtable tables``; docs/solver.md, Listing the cache).

:func:`list_tables` looks at the entries named like tables (``gops-...v1.ctt`` files of
format 1, ``gops-...v2`` folders of format 2) and reports each as a :class:`CachedTable`:
its game, format, size on disk, state (``complete``, ``low`` layers ``1..K``, or
``partial``: the layers present of those the whole game needs), how much of the whole
table's work is done (the finished layers weighted by their matrix games,
:func:`cardtable.solver.lean.reachable_games`), whether a solve is writing it now (it
holds the table's lock file, :func:`table_lock`; a lock held with nothing written yet,
such as a format-1 solve, is listed as ``building``) and checksum state. Where both formats
of one game are there, both are listed, and the format-1 file is marked as not read while
the format-2 folder has its ``table.json`` (:func:`cardtable.solver.table.load_table`
reads format 2 first).
Without ``verify`` only what is cheap is checked (format 1: the header and the file's
size; format 2: the manifest, every layer record and every file's size); ``verify``
reads every byte through SHA-256 as opening a table for play does (the 13-card tables:
1.3 and 16 GiB). Nothing is written or repaired.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from cardtable.errors import CardtableError
from cardtable.goofspiel import Ruleset, RulesetError

from .layers import LOW_MANIFEST, _layer_ok, folder_layout, folder_name, game_layout, open_layered
from .lean import reachable_games
from .position import UnsupportedRuleset
from .table import FORMAT_LAYERED, TableFileError, check_table_matches, default_path, open_table, table_name

try:  # the lock probe: POSIX advisory locks, as filelock takes them there
    import fcntl
except ImportError:  # Windows: a running solve is not seen
    fcntl = None  # type: ignore[assignment]  # no advisory locks to probe

_FORMAT1_NAME = re.compile(r"gops-n(\d+)-(carry|discard)-(points|win)-(lowace|highace)\.v1\.ctt")
_FORMAT2_NAME = re.compile(r"gops-n(\d+)-(carry|discard)-(points|win)-(lowace|highace)\.v2")
_LOCK_NAME = re.compile(r"\.gops-n(\d+)-(carry|discard)-(points|win)-(lowace|highace)\.v2\.lock")

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
        games_done, games_needed: matrix games of the layers present and of the whole
            table (format 2, states ``low`` and ``partial``), else None.
        work_done: the share (0..1) of the whole solve's work in the layers present,
            each ``k x k`` matrix game weighing ``k**2`` as the solve's estimate prices
            it (:func:`cardtable.solver.estimate.estimate_solve`), else None.
        building: a solve holds the table's lock file now (:func:`lock_held`).
        log: the log of a background build of this table (:func:`build_log`), when
            there is one, else None.
        shadowed_by: a format-1 file whose game also has a format-2 folder with its
            ``table.json``: that folder (the one players read), else None.
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
    games_done: int | None = None
    games_needed: int | None = None
    work_done: float | None = None
    building: bool = False
    log: Path | None = None
    shadowed_by: Path | None = None

    @property
    def percent_done(self) -> float:
        """How much of the whole table is done, in percent: 100 for a complete table; else
        :attr:`work_done` (the layers present weighted by their matrix games, each
        ``k x k`` game by ``k**2``: the top layers hold most of the work), or the share
        of the layers where the games are not known (0 for a ``building`` entry with
        nothing written yet)."""
        if self.state == "complete" and self.checksum != DAMAGED:
            return 100.0
        if self.work_done is not None:
            return 100.0 * self.work_done
        return 100.0 * min(self.layers_present, self.layers_needed) / max(1, self.layers_needed)

    def state_text(self) -> str:
        """``complete``; ``low layers 1..K (12% of the full table)``; ``interrupted: 3 of 5
        layers, 4% done`` (a partial table no solve is writing: the same command resumes
        it); ``building: 3 of 5 layers, 4% done`` (a solve is writing it now); ``building
        (nothing written yet; format 1 writes its file at the end)``; ``complete, not read:
        the format-2 table NAME is`` (a format-1 file beside the complete format-2 table of
        the same game)."""
        if self.state == "building":
            return "building (nothing written yet; format 1 writes its file at the end)"
        if self.shadowed_by is not None:
            return f"complete, not read: the format-2 table {self.shadowed_by.name} is"
        layers = f"{self.layers_present} of {self.layers_needed} layers, {_percent(self.percent_done)} done"
        if self.building:
            return "complete, being solved again" if self.state == "complete" else f"building: {layers}"
        if self.state == "complete":
            return "complete"
        if self.state == "low":
            return f"low layers 1..{self.upto} ({_percent(self.percent_done)} of the full table)"
        return f"interrupted: {layers}"

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
            "games_done": self.games_done,
            "games_needed": self.games_needed,
            "work_done": None if self.work_done is None else round(self.work_done, 6),
            "building": self.building,
            "log": None if self.log is None else str(self.log),
            "shadowed_by": None if self.shadowed_by is None else str(self.shadowed_by),
            "checksum": self.checksum,
            "problem": self.problem,
        }


def _percent(x: float) -> str:
    """``42%``; below 1% one decimal (``0.3%``), so that a started table never reads 0%."""
    return f"{x:.1f}%" if 0 < x < 1 else f"{x:.0f}%"


def table_lock(folder: Path, path: Path) -> Path:
    """The lock file that ``cardtable solve`` holds while it writes a table (either format):
    ``.NAME.lock`` beside the table, ``NAME`` the format-2 folder's name (``folder``), in the
    folder where the existing one of ``folder`` and the format-1 file ``path`` really is
    (symbolic links resolved: two cache folders that link to one table share its lock)."""
    real = (path if path.exists() and not folder.exists() else folder).resolve()
    return real.parent / f".{folder.name}.lock"


def game_lock(ruleset: Ruleset, objective: str, cache: Path | None = None) -> Path:
    """:func:`table_lock` of the table of ``ruleset`` and ``objective`` in ``cache`` (default:
    ``$CARDTABLE_CACHE``, else the user cache folder)."""
    return table_lock(
        default_path(ruleset, objective, cache, FORMAT_LAYERED), default_path(ruleset, objective, cache)
    )


def lock_held(lock: Path) -> bool:
    """True when a process holds the lock file ``lock`` now (a solve is writing its table).
    Probed with a shared, non-blocking POSIX advisory lock on the file opened read-only,
    released at once: nothing is written; False when the file is missing or cannot be
    opened, and off POSIX."""
    if fcntl is None:
        return False
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:  # a file system without advisory locks
        return False
    finally:
        os.close(fd)  # also releases the probe's lock
    return False


def table_files_key(ruleset: Ruleset, objective: str, cache: Path | None = None) -> tuple:
    """What changes when a table a player of ``ruleset`` reads is completed in ``cache``
    (default: ``$CARDTABLE_CACHE``, else the user cache folder): the modification time and
    size (None when missing) of the format-1 file and of the format-2 ``table.json`` and
    ``low-layers.json`` of this game, and of the discard-ties table of the same deck (the
    carry-over approximation reads it). A few ``stat`` calls, no file read: the ``nash``
    bot compares it at every new game to notice a table built meanwhile."""
    games = [(ruleset, objective)]
    if ruleset.tie_rule == "carry" and objective == "points":
        games.append((Ruleset(cards=ruleset.cards, tie_rule="discard", high_ace=ruleset.high_ace), "points"))
    paths = []
    for rs, obj in games:
        folder = default_path(rs, obj, cache, FORMAT_LAYERED)
        paths += [default_path(rs, obj, cache), folder / "table.json", folder / LOW_MANIFEST]

    def seen(p: Path) -> tuple:
        try:
            st = p.stat()
        except OSError:
            return (p.name, None, None)
        return (p.name, st.st_mtime_ns, st.st_size)

    return tuple(seen(p) for p in paths)


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
        one :class:`CachedTable` per entry whose name is a table's name (others and
        temporary files are not listed), and one of state ``building`` per held lock
        file whose table has no entry yet (a format-1 solve under way), sorted by name.
        A damaged entry has checksum ``damaged``, one that cannot be read
        ``unreadable``; neither raises.

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
                out.append(_with_lock(cache, entry))
    out += _nothing_written_yet(cache, names, {(e.ruleset, e.objective) for e in out})
    out = [_with_shadow(cache, e) for e in out]
    return sorted(out, key=lambda e: e.path.name)


def _with_shadow(cache: Path, entry: CachedTable) -> CachedTable:
    """``entry`` with :attr:`CachedTable.shadowed_by` set when it is a complete format-1
    file and the format-2 folder of its game holds a ``table.json`` (read first)."""
    if entry.table_format != 1 or entry.state != "complete":
        return entry
    folder = cache / folder_name(entry.ruleset, entry.objective)
    if not (folder / "table.json").exists():
        return entry
    return replace(entry, shadowed_by=folder)


def _nothing_written_yet(cache: Path, names: list[str], listed: set) -> list[CachedTable]:
    """One ``building`` entry per lock file in ``names`` that a solve holds while its table
    (a game not in ``listed``) has no file or folder yet (a format-1 solve under way)."""
    out = []
    for name in names:  # a solve that holds its lock and has written nothing yet (format 1)
        m = _LOCK_NAME.fullmatch(name)
        game = _game(m) if m else None
        if game is not None and game not in listed and lock_held(cache / name):
            rs, objective = game
            entry = CachedTable(
                cache / table_name(rs, objective),
                rs,
                objective,
                1,
                0,
                "building",
                0,
                rs.cards,
                None,
                NOT_VERIFIED,
            )
            out.append(_with_lock(cache, entry))
    return out


def _with_lock(cache: Path, entry: CachedTable) -> CachedTable:
    """``entry`` with :attr:`CachedTable.building` (a solve holds its table's lock) and
    :attr:`CachedTable.log` (a background build's log is there) set."""
    rs, objective = entry.ruleset, entry.objective
    lock = table_lock(cache / folder_name(rs, objective), cache / table_name(rs, objective))
    log = build_log(rs, objective, cache)
    return replace(entry, building=lock_held(lock), log=log if log.is_file() else None)


def build_log(ruleset: Ruleset, objective: str, cache: Path | None = None) -> Path:
    """The log file of background builds of the table of ``ruleset`` and ``objective``
    (``cardtable play --build-table``): ``gops-n13-carry-points-lowace.build.log`` in
    ``cache`` (default: ``$CARDTABLE_CACHE``, else the user cache folder)."""
    folder = default_path(ruleset, objective, cache, FORMAT_LAYERED)
    return folder.with_name(folder.name.rsplit(".v", 1)[0] + ".build.log")


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


def _games_of(rs: Ruleset, objective: str, layers: list[int]) -> tuple[int | None, int | None, float | None]:
    """``(matrix games of the layers ``layers``, of the whole table, share of the work
    done)`` of a format-2 table: games as the solve's estimate counts them
    (:func:`cardtable.solver.lean.reachable_games`; 13 cards: about 2 s), work as it
    prices them (``k**2`` per game of layer ``k``); ``(None, None, None)`` for a game the
    layout does not cover."""
    try:
        lay = game_layout(rs, objective)
    except (UnsupportedRuleset, ValueError):
        return None, None, None
    per = {k: reachable_games(lay, k)[1] for k in range(1, lay.top + 1)}
    work = sum(g * k * k for k, g in per.items())
    done = [k for k in layers if k in per]
    share = sum(per[k] * k * k for k in done) / work if work else 1.0
    return sum(per[k] for k in done), sum(per.values()), share


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
        games = _games_of(rs, objective, present) if state != "complete" else (None, None, None)
        return CachedTable(
            folder, rs, objective, 2, size, state, len(present), n, upto, checksum, problem, *games
        )

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
    lay = folder_layout(folder, rs, objective)
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
    "build_log",
    "game_lock",
    "list_tables",
    "lock_held",
    "table_files_key",
    "table_lock",
    "VERIFIED",
    "NOT_VERIFIED",
    "DAMAGED",
    "UNREADABLE",
]
