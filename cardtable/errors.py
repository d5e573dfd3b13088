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

__all__ = ["CardtableError", "QUOTE", "quoted"]

#: The most characters of a value that an error message quotes.
QUOTE = 60


class CardtableError(Exception):
    """Base class of every error that cardtable raises on purpose."""


def quoted(value: object, limit: int = QUOTE) -> str:
    """``repr(value)`` for an error message, cut to ``limit`` characters (``...`` marks the
    cut), so that a message never carries megabytes of hostile input.

    >>> quoted("x" * 100)[-5:], quoted([1, 2]), quoted(10**5000)
    ('xx...', '[1, 2]', 'a number of 16610 bits')
    """
    try:
        text = repr(value)
    except ValueError:  # an int too long to print (Python's 4,300-digit limit), alone or inside
        return f"a number of {value.bit_length()} bits" if isinstance(value, int) else "a value"
    return text if len(text) <= limit else text[: limit - 3] + "..."
