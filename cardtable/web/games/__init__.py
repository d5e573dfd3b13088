"""Game adapters: the only part of the web server that knows a game's rules.

``ADAPTERS`` maps a game name to ``"module:Class"`` of a
:class:`~cardtable.web.games.base.GameAdapter` subclass; adapters are imported
only when first used. To add a game (e.g. Golf), write
``cardtable/web/games/<game>.py`` with an adapter, a play page
``cardtable/web/static/<game>.html`` and add one line here (docs/web.md,
"Adding a game").

>>> sorted(ADAPTERS)
['golf', 'goofspiel']
>>> get_adapter("goofspiel").name
'goofspiel'
"""

from __future__ import annotations

import importlib
from functools import lru_cache

from .base import ActionError, GameAdapter, SettingsError

ADAPTERS: dict[str, str] = {
    "goofspiel": "cardtable.web.games.goofspiel:GoofspielAdapter",
    "golf": "cardtable.web.games.golf:GolfAdapter",
}


class UnknownGameError(SettingsError):
    """A game name with no adapter."""


@lru_cache(maxsize=None)
def get_adapter(name: str) -> GameAdapter:
    """The (shared, stateless) adapter of game ``name``.

    Raises:
        UnknownGameError: no adapter for that game; the message lists the known games.
    """
    if not isinstance(name, str) or name not in ADAPTERS:
        raise UnknownGameError(f"unknown game {name!r}; choose one of: {', '.join(sorted(ADAPTERS))}")
    module_name, _, class_name = ADAPTERS[name].partition(":")
    return getattr(importlib.import_module(module_name), class_name)()


__all__ = ["ADAPTERS", "ActionError", "GameAdapter", "SettingsError", "UnknownGameError", "get_adapter"]
