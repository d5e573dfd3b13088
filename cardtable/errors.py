"""The root of cardtable's exceptions.

Every error that cardtable raises on purpose derives from :class:`CardtableError`, so a
program that embeds cardtable can catch all of them with one ``except`` clause. Each
package keeps its own base class (``GoofspielError``, ``GolfError``, ``SolverError``,
``TableFileError``, ``BotSpecError``, the web server's errors, ...) and each of those also
keeps the built-in class it had before (``ValueError``, ``OSError``, ``RuntimeError``, ...),
so ``except ValueError`` goes on working where it did.

The one exception that is not an error, :class:`cardtable.tui.terminal.QuitGame` (a
person asked to stop a terminal game), does not derive from it.

>>> from cardtable import CardtableError
>>> from cardtable.goofspiel.errors import IllegalBid
>>> issubclass(IllegalBid, CardtableError) and issubclass(IllegalBid, ValueError)
True
"""

from __future__ import annotations

__all__ = ["CardtableError"]


class CardtableError(Exception):
    """Base class of every error that cardtable raises on purpose."""
