"""Where cardtable keeps files: saved records, solver tables, the web database.

Every location can be moved with an environment variable, which tests and
CI use to keep their files in a temporary folder:

- ``CARDTABLE_HOME``: the base folder (default: the platform's user data
  folder from ``platformdirs``, e.g. ``~/.local/share/cardtable`` on Linux).
- ``CARDTABLE_RECORDS``: saved game records (default ``$CARDTABLE_HOME/records``).
- ``CARDTABLE_CACHE``: solver tables (default: the user cache folder).

Each ``*_dir`` function creates its folder on first use and raises :class:`FolderError`
(a ``ValueError`` with a one-line message) when it cannot: a path through a file, a file
where the folder should be, no permission. Commands that write files check the folder
before the work starts (:func:`check_folder` on a ``*_location``, which creates nothing,
so a command refused later leaves nothing behind), so a bad location never costs a played
game or a solve.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from pathlib import Path

import platformdirs

from cardtable.errors import CardtableError


class FolderError(CardtableError, ValueError):
    """A folder that cannot be created or written to; the message names it and why."""


def ensure_folder(path: str | os.PathLike, what: str) -> Path:
    """``path`` as an existing, writable folder, created (with its parents) if missing.

    Args:
        what: how the user named it, for the message (``"--cache"``, ``"CARDTABLE_HOME"``).

    Raises:
        FolderError: a file is in the way, or the folder cannot be created or written.
    """
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise FolderError(f"{what} {folder} is a file, not a folder") from None
    except NotADirectoryError:
        raise FolderError(f"{what} {folder} cannot be a folder: a part of the path is a file") from None
    except OSError as exc:
        raise FolderError(f"{what} {folder} cannot be created: {exc.strerror}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise FolderError(f"{what} {folder} is not writable")
    return folder


def check_folder(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a folder :func:`ensure_folder` could use or create, checked without
    creating anything (a command that may still be refused checks its folders this way and
    creates them when it writes).

    Raises:
        FolderError: a file is in the way, the path cannot be looked at, or the folder
            (or, when it is missing, its nearest existing parent) is not writable.
    """
    folder = Path(path)
    probe = folder
    try:
        while not probe.exists() and probe.parent != probe:
            probe = probe.parent
    except OSError as exc:  # a folder on the way without permission, a name too long
        raise FolderError(f"{what} {folder} cannot be reached: {exc.strerror}") from None
    if probe == folder:
        if not folder.is_dir():
            raise FolderError(f"{what} {folder} is a file, not a folder")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise FolderError(f"{what} {folder} is not writable")
        return folder
    if not probe.is_dir():
        raise FolderError(f"{what} {folder} cannot be a folder: a part of the path is a file")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise FolderError(f"{what} {folder} cannot be created: {probe} is not writable")
    return folder


def records_location() -> tuple[Path, str]:
    """Where :func:`records_dir` is and how the user names it, without creating it."""
    base = os.environ.get("CARDTABLE_RECORDS")
    if base:
        return Path(base), "CARDTABLE_RECORDS"
    return _home_location()[0] / "records", "the records folder"


def cache_location() -> tuple[Path, str]:
    """Where :func:`cache_dir` is and how the user names it, without creating it."""
    base = os.environ.get("CARDTABLE_CACHE")
    if base:
        return Path(base), "CARDTABLE_CACHE"
    if os.environ.get("CARDTABLE_HOME"):
        return _home_location()[0] / "cache", "the cache folder"
    return Path(platformdirs.user_cache_dir("cardtable")), "the cache folder"


def _home_location() -> tuple[Path, str]:
    base = os.environ.get("CARDTABLE_HOME")
    if base:
        return Path(base), "CARDTABLE_HOME"
    return Path(platformdirs.user_data_dir("cardtable")), "the data folder"


def home() -> Path:
    """The base data folder (created on first use).

    Raises:
        FolderError: it cannot be created or written (see :func:`ensure_folder`).
    """
    return ensure_folder(*_home_location())


def records_dir() -> Path:
    """Folder for saved game records (created on first use).

    Raises:
        FolderError: it cannot be created or written.
    """
    base = os.environ.get("CARDTABLE_RECORDS")
    if base:
        return ensure_folder(base, "CARDTABLE_RECORDS")
    return ensure_folder(home() / "records", "the records folder")


def seed_tag(seed: object) -> str:
    """A game's seed as part of a file name: ASCII letters, digits, ``_`` and ``-`` kept, every
    other run of characters (``/``, ``..``, blanks, non-ASCII) one ``_``, at most 40 characters;
    ``fixed`` for no seed.

    >>> seed_tag("2024/05/01"), seed_tag("../../x"), seed_tag(None)
    ('2024_05_01', '_x', 'fixed')
    """
    tag = re.sub(r"[^A-Za-z0-9_-]+", "_", str(seed) if seed not in (None, "") else "fixed")
    return tag[:40]


def new_record_file(game: str, seed: object, suffix: str, text: str) -> Path:
    """Write ``text`` to a new file ``GAME-<UTC time>-<seed tag>SUFFIX`` in the records folder
    (:func:`records_dir`, :func:`seed_tag`), with ``-2``, ``-3``, ... added while that name is
    taken; nothing is overwritten, whatever the seed.

    Raises:
        FolderError: the records folder cannot be created or written.
        OSError: the file cannot be written.
    """
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    base = f"{game}-{stamp}-{seed_tag(seed)}"
    folder = records_dir()
    for n in range(1, 10_000):
        candidate = folder / (f"{base}{suffix}" if n == 1 else f"{base}-{n}{suffix}")
        try:
            with candidate.open("x", encoding="utf-8") as fh:
                fh.write(text)
            return candidate
        except FileExistsError:
            continue
    raise FileExistsError(f"no free record name for {base} in {folder}")


def cache_dir() -> Path:
    """Folder for solver tables (created on first use).

    Raises:
        FolderError: it cannot be created or written.
    """
    base = os.environ.get("CARDTABLE_CACHE")
    if base:
        return ensure_folder(base, "CARDTABLE_CACHE")
    if os.environ.get("CARDTABLE_HOME"):
        return ensure_folder(home() / "cache", "the cache folder")
    return ensure_folder(platformdirs.user_cache_dir("cardtable"), "the cache folder")
