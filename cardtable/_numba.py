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

>>> from cardtable._numba import njit
>>> @njit(cache=False)
... def add(a: int, b: int) -> int:
...     return a + b
>>> add(2, 3)
5
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar

import numba

__all__ = ["Kernel", "njit", "prange", "use_threads"]

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
