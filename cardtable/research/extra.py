"""One clear error when the ``research`` extra (OpenSpiel, PettingZoo, Gymnasium,
Ray) is not installed: ``pip install 'cardtable[research]'`` (README, Research).

>>> require("the standard library", "json")
"""

from __future__ import annotations

import importlib.util

from cardtable.errors import CardtableError

INSTALL = "pip install 'cardtable[research]'"


class MissingExtraError(CardtableError, ModuleNotFoundError):
    """A module of the ``research`` extra is missing; the message is one line naming the extra."""


def missing(*modules: str) -> list[str]:
    """The top-level modules among ``modules`` that cannot be imported."""
    out = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(name)
    return out


def require(feature: str, *modules: str) -> None:
    """Raise :class:`MissingExtraError` unless every module can be imported.

    Raises:
        MissingExtraError: e.g. ``the PettingZoo env needs the 'research' extra (missing:
            pettingzoo); install it with: pip install 'cardtable[research]'``.
    """
    gone = missing(*modules)
    if gone:
        raise MissingExtraError(
            f"{feature} needs the 'research' extra (missing: {', '.join(gone)}); install it with: {INSTALL}",
            name=gone[0],
        )
