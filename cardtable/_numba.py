"""Numba as mypy sees it: the one place the package states the types of ``njit`` and ``prange``.

Numba ships partial annotations of its own: ``njit`` returns a ``Dispatcher`` whose ``__call__``
takes and returns anything, and the private ``_nrt=False`` option the kernels use is not in its
option list. Every kernel module imports ``njit`` and ``prange`` from here instead of from
``numba``. At run time ``njit`` is Numba's own, with one default changed: ``nogil=True``, so
that every kernel releases Python's interpreter lock while it runs. A solve started in a thread
(the web server's bot pool, hints, creation checks) then leaves the server's event loop free to
answer everyone else (docs/web.md, Limits); a kernel may still be given ``nogil=False``. For the
type checker ``njit(...)`` returns a :class:`Kernel` with the decorated function's own
signature, so every call of a kernel is checked against the kernel's annotations, and
``.py_func`` (the Python function, which the CUDA backend compiles again for the GPU) is typed.

Numba's on-disk cache keys a kernel's machine code on the source of the kernel's own file only.
A kernel compiled in ``lean.py`` holds the code of the ``kernel.py`` functions it calls, so after
an edit of ``kernel.py`` alone it kept running the old code until ``lean.py`` changed too (it
happened: a fix of the simplex was judged not to work because the 12-card solve that tried it
ran the cached kernel from before the fix; an editable install updated by ``git pull`` meets the
same). :func:`stamp_sources` gives every kernel of the package's kernel folders the digest of
all their sources as its cache stamp, whichever cache folder Numba picks (``NUMBA_CACHE_DIR``,
the package's ``__pycache__``, the user-wide cache): an edit of any of them recompiles every
kernel on first use, and nothing stale is loaded. This module installs it at import for
``solver/``, ``research/`` and itself, before any kernel is decorated.

>>> from cardtable._numba import njit
>>> @njit(cache=False)
... def add(a: int, b: int) -> int:
...     return a + b
>>> add(2, 3)
5
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar

import numba
from numba.core import caching

__all__ = ["Kernel", "njit", "prange", "sources_digest", "stamp_sources", "use_threads"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


class Kernel(Generic[_P, _R]):
    """What mypy knows of a compiled kernel: called like its function, and its ``py_func``.

    Never made at run time (``njit`` returns Numba's dispatcher); only for annotations.
    """

    py_func: Callable[_P, _R]

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        raise NotImplementedError


if TYPE_CHECKING:

    def njit(**options: Any) -> Callable[[Callable[_P, _R]], Kernel[_P, _R]]:
        """Compile the decorated function with Numba in nopython mode; ``options`` go to ``numba.njit``."""
        ...

    def prange(*args: int) -> range:
        """A ``range`` that Numba runs in parallel inside ``parallel=True`` kernels."""
        ...

else:

    def njit(*args: Any, **options: Any) -> Any:
        """``numba.njit`` with ``nogil=True`` unless the options say otherwise (module docstring)."""
        options.setdefault("nogil", True)
        return numba.njit(*args, **options)

    prange = numba.prange


def use_threads(threads: int) -> None:
    """Let ``parallel=True`` kernels use ``threads`` threads, at most Numba's pool size
    (``NUMBA_NUM_THREADS``, by default the machine's CPU count)."""
    # numba.config sets its NUMBA_* names at import from the environment, out of mypy's sight
    pool: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    numba.set_num_threads(min(threads, pool))


def sources_digest(files: list[Path], root: Path) -> bytes:
    """SHA-256 over the covered ``files`` (sorted; each its path relative to ``root`` and its
    bytes). A file that cannot be read counts as its name alone."""
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        try:
            h.update(f.read_bytes())
        except OSError:
            pass
        h.update(b"\0")
    return h.digest()


def _stamped(base: Any, root: Path, covers: Callable[[Path], bool], stamp: Callable[[], bytes]) -> Any:
    """Numba's locator class ``base``, for the covered files under ``root`` only, with the
    shared stamp."""

    class Stamped(base):  # a subclass of one of numba's locator classes
        _cardtable_root = root

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if not covers(Path(py_file)):
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self) -> bytes:
            return stamp()

    Stamped.__name__ = Stamped.__qualname__ = "Stamped" + base.__name__
    return Stamped


def stamp_sources(root: Path, folders: tuple[str, ...], files: tuple[str, ...] = ()) -> None:
    """Give every kernel defined under ``root / folder`` (each of ``folders``, recursively)
    or in ``root / file`` (each of ``files``) the digest of all those ``.py`` files as its
    cache stamp (the module docstring). Call it before the first covered kernel is decorated;
    calling it again for the same ``root`` changes nothing.

    The digest is computed once per process, when the first covered kernel is decorated
    (reading the covered sources: about 0.6 MB for cardtable's).
    """
    root = root.resolve()
    tops = tuple(root / f for f in folders)
    singles = {root / f for f in files}
    classes = caching.CacheImpl._locator_classes
    if any(getattr(c, "_cardtable_root", None) == root for c in classes):
        return
    digest: list[bytes] = []

    def covers(path: Path) -> bool:
        p = path.resolve()
        return p in singles or any(p.is_relative_to(t) for t in tops)

    def stamp() -> bytes:
        if not digest:
            covered = [*singles, *(f for t in tops for f in t.rglob("*.py"))]
            digest.append(sources_digest([f for f in covered if f.is_file()], root))
        return digest[0]

    bases = (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator, caching.UserWideCacheLocator)
    caching.CacheImpl._locator_classes = [*(_stamped(b, root, covers, stamp) for b in bases), *classes]


stamp_sources(Path(__file__).parent, ("solver", "research"), ("_numba.py",))
