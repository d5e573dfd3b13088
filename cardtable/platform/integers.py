"""The one integer policy of the public API (docs/rules.md, "Whole numbers"), and the one
way a typed text becomes a number (:func:`number_text`).

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
import re
from typing import SupportsIndex, TypeGuard

from cardtable.errors import quoted


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
        raise error(f"{what} must be a whole number, not {quoted(value)}")
    return operator.index(value)


_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def number_text(text: str, *, signed: bool = True, max_length: int = 100) -> int | float | None:
    """The number ``text`` spells in ASCII digits, or ``None``.

    An ``int`` for digits (``"12"``, ``"-3"``), a ``float`` for a decimal with an optional
    exponent (``"0.5"``, ``".5"``, ``"1e3"``; ``"1e999"`` is infinite, for the caller's range
    check); ``None`` for anything else: ``"1_000"``, ``"٣"``, ``"0x10"``, ``"nan"``,
    ``"inf"``, blanks, a sign when ``signed`` is false, or more than ``max_length``
    characters. Used by the bot options (:mod:`cardtable.platform.bot`) and the server's
    ``--limit`` values (:mod:`cardtable.web.limits`).

    >>> number_text("12"), number_text("-0.5"), number_text("1_000"), number_text("+3", signed=False)
    (12, -0.5, None, None)
    """
    if len(text) > max_length or not text.isascii() or (not signed and text.startswith(("+", "-"))):
        return None
    if _INT_TEXT.fullmatch(text):
        return int(text)
    if _FLOAT_TEXT.fullmatch(text):
        return float(text)
    return None
