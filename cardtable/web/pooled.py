"""Solves that anonymous requests start, answered through the server's :class:`~cardtable.web.coach.Analyses`.

The replay board (:mod:`cardtable.web.replay`) and the equilibrium explorer
(:mod:`cardtable.web.explorer`) hand their solves to the same object as the
analysis route (``app.state.analyses``): the same bounded pool of worker
processes, one solve per key however many requests ask for it, the same cache
and the same per-address quota (docs/web.md, "Analyses").
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any, Callable

from fastapi import Request
from fastapi.responses import JSONResponse, Response

from .coach import AnalysisBusy, disconnected
from .errors import QuotaError, error


async def pooled(
    request: Request,
    key: Any,
    state: Any,
    names: list[str],
    solve: Callable[[Any], dict[str, Any]] | None = None,
    extra: dict[str, Any] | None = None,
    what: str = "answer",
) -> Response:
    """Answer ``request`` with a solve of :meth:`Analyses.get <cardtable.web.coach.Analyses.get>`
    (its arguments), mapping its refusals to the documented statuses: 429 (the address's
    quota) and 503 (the pool's queue is full, a worker stopped), both with ``Retry-After``;
    400 for a ``ValueError`` of the solve (an unsupported ruleset, a position too big);
    499 when the client left before the answer. ``extra``: fields added to the answer (not to
    the cached result); ``what``: the answer's name in the 499 text."""
    analyses = request.app.state.analyses
    address = request.client.host if request.client is not None else ""
    job = asyncio.ensure_future(analyses.get(key, state, names, address, solve))
    gone = asyncio.ensure_future(disconnected(request))
    try:
        await asyncio.wait({job, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not job.done():  # the client left (or the server is stopping): stop waiting
            job.cancel()
    if not job.done() or job.cancelled():
        return error(f"the request was closed before its {what} was ready", 499)
    try:
        return JSONResponse({**job.result(), **(extra or {})})
    except QuotaError as exc:
        return error(
            str(exc),
            503 if isinstance(exc, AnalysisBusy) else 429,
            **{"retry-after": str(max(1, round(exc.retry_after)))},
        )
    except ValueError as exc:  # UnsupportedRuleset, ImpossiblePosition, TooBig, TableFileError
        return error(str(exc), 400)
    except concurrent.futures.BrokenExecutor:
        return error("the analysis worker stopped; try again", 503, **{"retry-after": "1"})
