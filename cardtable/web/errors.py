"""The web server's own refusals and the quoting of ids in error texts.

:class:`QuotaError` and :class:`CredentialError` are raised by the hub's parts
(:mod:`cardtable.web.lobby`, :mod:`cardtable.web.seats`, the analyses of
:mod:`cardtable.web.coach`) and turned into HTTP answers or protocol ``error``
messages by the routes (:func:`error` is the one HTTP error answer). Settings and action errors belong to the game adapters
(:mod:`cardtable.web.games.base`).
"""

from __future__ import annotations

from starlette.responses import JSONResponse

from cardtable.errors import CardtableError


class QuotaError(CardtableError, RuntimeError):
    """An address used up one of its quotas (HTTP 429); ``retry_after`` in seconds."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class CredentialError(CardtableError, RuntimeError):
    """A claim code, token or owner key that does not (or no longer) work.

    Attributes:
        code: ``bad_claim``, ``bad_token``, ``forbidden`` or ``taken``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def cut_id(text: str, limit: int = 64) -> str:
    """An id (or path) from a request, quoted for an error text and cut to ``limit`` characters,
    so that an answer never echoes a huge input:

    >>> cut_id("abc")
    "'abc'"
    >>> cut_id("x" * 5000)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (5000 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def error(text: str | Exception, status: int = 400, **headers: str) -> JSONResponse:
    """The project's HTTP error answer, ``{"error": text}`` with ``status`` (docs/web.md,
    Errors); ``headers`` such as ``retry-after``."""
    return JSONResponse({"error": str(text)}, status_code=status, headers=headers or None)
