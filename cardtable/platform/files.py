"""Opening the files a user names: regular files only, never a FIFO, device or socket.

Every reader of a user-given path (records, rules files, tournament configurations, table
files and the files of a table folder) opens it through :func:`open_regular`, so a path
that names a FIFO (named pipe), a character or block device (``/dev/zero``), a UNIX socket
or a folder is refused at once with :class:`NotRegularFileError` instead of blocking on the
open or reading without end (docs/rules.md, "Reading records"; docs/solver.md, "Table files").

The file is opened with ``O_NONBLOCK`` (opening a FIFO for reading would otherwise wait for
a writer), the opened descriptor is checked with ``fstat`` (no race between a check and the
open), and ``O_NONBLOCK`` is cleared again before any read.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> fifo = os.path.join(folder, "pipe")
>>> os.mkfifo(fifo)
>>> read_regular_bytes(fifo)
Traceback (most recent call last):
...
cardtable.platform.files.NotRegularFileError: .../pipe is a FIFO (named pipe), not a regular file
>>> path = os.path.join(folder, "small.txt")
>>> with open(path, "w") as f:
...     _ = f.write("hello")
>>> read_regular_bytes(path)
b'hello'
>>> read_regular_bytes(path, limit=3)
Traceback (most recent call last):
...
cardtable.platform.files.FileTooLargeError: .../small.txt is over 3 bytes
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tempfile
from pathlib import Path
from typing import IO

from cardtable.errors import CardtableError

__all__ = [
    "NotRegularFileError",
    "FileTooLargeError",
    "open_regular",
    "read_regular_bytes",
    "file_kind",
    "check_regular_or_missing",
    "write_regular_bytes",
]

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


class NotRegularFileError(CardtableError, OSError):
    """The path names something other than a regular file (a FIFO, a device, a socket, a
    folder). An ``OSError``, so a reader's ``except OSError`` reports it; ``strerror`` says
    what the path is, e.g. ``"a FIFO (named pipe), not a regular file"``."""

    def __init__(self, path: str | os.PathLike, what: str) -> None:
        super().__init__(errno.EINVAL, f"{what}, not a regular file", os.fspath(path))

    def __str__(self) -> str:
        return f"{self.filename} is {self.strerror}"


class FileTooLargeError(CardtableError, OSError):
    """A regular file larger than the reader's limit (``strerror``: ``"over N bytes"``)."""

    def __init__(self, path: str | os.PathLike, limit: int) -> None:
        super().__init__(errno.EFBIG, f"over {limit:,} bytes", os.fspath(path))
        self.limit = limit

    def __str__(self) -> str:
        return f"{self.filename} is {self.strerror}"


def file_kind(mode: int) -> str:
    """What a ``st_mode`` names, in words: ``"a regular file"``, ``"a FIFO (named pipe)"``,
    ``"a character device"``, ``"a block device"``, ``"a socket"``, ``"a folder"``."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a special file"


def _open_fd(path: str | os.PathLike) -> int:
    """A read-only descriptor of the regular file ``path``, in blocking mode."""
    try:
        fd = os.open(path, _FLAGS | _NONBLOCK)
    except OSError:
        # A UNIX socket cannot be opened at all (ENXIO): name what it is instead.
        try:
            mode = os.stat(path).st_mode
        except (OSError, ValueError):
            mode = None
        if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            raise NotRegularFileError(path, file_kind(mode)) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(path, file_kind(mode))
        if _NONBLOCK:
            # lazy: fcntl exists on POSIX only, where _NONBLOCK is set
            import fcntl

            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_regular(path: str | os.PathLike, mode: str = "rb", encoding: str | None = None) -> IO:
    """Open the regular file ``path`` for reading (``mode`` ``"rb"`` or ``"r"``).

    Raises:
        NotRegularFileError: ``path`` is a FIFO, a device, a socket or a folder (never blocks).
        OSError: it cannot be opened (missing, no permission, ...).
        ValueError: a mode other than ``"rb"`` or ``"r"``.
    """
    if mode not in ("rb", "r"):
        raise ValueError(f"open_regular reads only ('rb' or 'r'), not {mode!r}")
    fd = _open_fd(path)
    try:
        return io.open(fd, mode, encoding=encoding if mode == "r" else None, closefd=True)
    except BaseException:
        os.close(fd)
        raise


def read_regular_bytes(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path``; at most ``limit`` bytes (``None``: no limit).

    Raises:
        NotRegularFileError: ``path`` is a FIFO, a device, a socket or a folder.
        FileTooLargeError: the file holds more than ``limit`` bytes (checked before reading
            and while reading, so a growing file is refused too).
        OSError: it cannot be read.
    """
    with open_regular(path) as f:
        if limit is None:
            return f.read()
        if os.fstat(f.fileno()).st_size > limit:
            raise FileTooLargeError(path, limit)
        data = f.read(limit + 1)
    if len(data) > limit:
        raise FileTooLargeError(path, limit)
    return data


def check_regular_or_missing(path: str | os.PathLike) -> None:
    """Refuse ``path`` unless it is missing or a regular file (a link to one included):
    the check before a file is written or replaced, so that a FIFO, a device, a socket or
    a folder standing where an output goes is named at once, before any work is done.

    Raises:
        NotRegularFileError: ``path`` is a FIFO, a device, a socket or a folder.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError:  # a dangling link, no permission: the write says so itself
        return
    if not stat.S_ISREG(mode):
        raise NotRegularFileError(path, file_kind(mode))


def write_regular_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` as a new regular file: into a temporary file of the same
    folder, then renamed over ``path``, so that writing never opens a FIFO or a device
    (which could block or write without end) and a failure leaves no partial file.

    Raises:
        NotRegularFileError: ``path`` is a FIFO, a device, a socket or a folder.
        OSError: the folder cannot be written.
    """
    check_regular_or_missing(path)
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would make it, not mkstemp's 0600
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
