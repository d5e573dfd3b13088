"""The one integer policy of the public API (docs/rules.md, "Whole numbers").

A whole number is anything :func:`operator.index` accepts (``int``, NumPy integers, ...)
except ``bool``: ``3.0``, ``"3"``, ``True`` and ``Fraction(3)`` are refused, with the
caller's documented exception, so a value that is not exactly a whole number never
reaches a game or a record.

>>> import numpy as np
>>> whole(np.int64(3), "a bid", ValueError)
3
>>> whole(3.0, "a bid", ValueError)
Traceback (most recent call last):
...
ValueError: a bid must be a whole number, not 3.0
>>> whole(True, "a seat", ValueError)
Traceback (most recent call last):
...
ValueError: a seat must be a whole number, not True
"""

from __future__ import annotations

import operator
from typing import SupportsIndex, TypeGuard


def is_whole(value: object) -> TypeGuard[SupportsIndex]:
    """True when ``value`` is a whole number under the policy (``operator.index``, not ``bool``)."""
    if isinstance(value, bool) or not isinstance(value, SupportsIndex):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def whole(value: object, what: str, error: type[Exception]) -> int:
    """``value`` as an ``int`` if it is a whole number, else ``error("WHAT must be a whole number, not VALUE")``."""
    if value.__class__ is int:
        return value
    if not is_whole(value):
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise error(f"{what} must be a whole number, not {shown}")
    return operator.index(value)
