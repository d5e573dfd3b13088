"""The coach in the browser: the analysis of a finished Goofspiel game, and hints.

Routes (:mod:`cardtable.web.analysis`):

- ``GET /analysis/{room}?game=N`` -- the analysis page (``static/analysis.html``):
  per round the equilibrium strategy of each player, both bids, the expected
  points each gave up, and a drawn chart of the expected point difference
  (:mod:`cardtable.strategy.coach`; the numbers ``cardtable analyze`` prints for
  the downloaded record).
- ``GET /api/rooms/{room}/analysis?game=N`` -- the same as JSON
  (:func:`cardtable.strategy.coach.analysis` plus ``"game"``, ``"hints"``).
  Only finished games are analysed (a game in progress would tell a player the
  equilibrium mid-game); without ``game``, the latest finished game.

Errors (JSON ``{"error": text}``): 404 no such room or game, 409 the game is
not finished, 400 a ruleset the solver does not cover (3+ players, multi-card
bids, open prizes) or a game that is not Goofspiel, 429 the address's analysis
quota, 503 too many games being analysed (both with ``Retry-After``).

Analyses are solved by :class:`Analyses` (docs/web.md, "Analyses"): in their
own pool of :attr:`~cardtable.web.limits.Limits.analysis_workers` worker
processes (so a solve never holds the server's interpreter lock), one solve
per game however many requests ask for it, the most recent :data:`CACHE_SIZE`
results kept; a request whose client closes the connection stops waiting
(answered 499, which nobody reads). A solve is a table lookup per round, one
exact subgame solve of about a second, and in carry-over games without their
table the carry-over approximation of the ``nash`` bot for the early rounds,
labelled ``"approximation"`` (:mod:`cardtable.solver.analysis`).

Hints (settings key ``"hints": true``, a room with one person and bots only;
:mod:`cardtable.web.games.goofspiel`) use :func:`hint_job` (off the event loop) and
:func:`cached_hint`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
from collections import OrderedDict
from typing import Any, Callable, NamedTuple

from fastapi import Request

from cardtable.strategy.coach import analysis, hint, points_table
from cardtable.strategy.nash import NashBot

from .errors import QuotaError
from .limits import AddressQuota, Limits

CACHE_SIZE = 64

log = logging.getLogger("cardtable.web")


def process_pool(workers: int) -> concurrent.futures.Executor:
    """The default analysis pool: ``workers`` processes, started by ``spawn`` (the server has threads,
    which ``fork`` would copy half-way), each importing the solver on its first analysis."""
    return concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


class Finished(NamedTuple):
    """What a solve needs of a finished game's state, sent to a worker process (pickled)."""

    game: Any
    hints: bool


class AnalysisBusy(QuotaError):
    """Too many distinct games are being analysed or wait for a worker (HTTP 503);
    ``retry_after`` in seconds."""


class Analyses:
    """The analyses of finished games: a bounded pool, single flight, a cache and a quota.

    - solves run in a pool of ``limits.analysis_workers`` workers owned by this object
      (:meth:`close` shuts it down; processes by default, so a solve never holds the
      server's interpreter lock), so they never delay the room bots (their own pool);
      a pool whose worker died is replaced;
    - identical requests share one solve: a game (``key``) being solved is solved once,
      and every request for it waits for that solve;
    - the latest ``cache_size`` results are kept (least recently used dropped first);
    - each address may ask for ``limits.analysis_burst`` analyses the cache does not
      answer, refilled at ``limits.analyses_per_minute``;
    - at most ``limits.analysis_queue`` distinct games are being solved or waiting.

    Args:
        limits: the server's limits.
        cache_size: results kept (default :data:`CACHE_SIZE`).
        executor: makes the pool from the number of workers (default :func:`process_pool`;
            tests pass ``concurrent.futures.ThreadPoolExecutor``).
    """

    def __init__(
        self,
        limits: Limits,
        cache_size: int = CACHE_SIZE,
        executor: Callable[[int], concurrent.futures.Executor] | None = None,
    ) -> None:
        self.limits = limits
        self.cache_size = cache_size
        self._make_pool = executor or process_pool
        self.pool = self._make_pool(limits.analysis_workers)
        self.cache: OrderedDict[Any, dict[str, Any]] = OrderedDict()
        #: game key -> its solve being computed or waiting for a worker
        self.inflight: dict[Any, asyncio.Future] = {}
        self._jobs: dict[Any, concurrent.futures.Future] = {}
        self._waiters: dict[Any, int] = {}
        self._quota = AddressQuota(limits.analyses_per_minute / 60.0, limits.analysis_burst)

    async def get(
        self,
        key: Any,
        state: Any,
        names: list[str],
        address: str,
        solve: Callable[[Any], dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """The analysis of a finished game (``key``: ``(room id, game number)``; ``state``
        (a :class:`Finished`, picklable for a worker process), ``names``: see
        :func:`analyse_state`), from the cache, a solve in flight, or a new solve.
        ``solve``: another job for the same pool, cache, single flight and quota, called as
        ``solve(state)`` in a worker (a module-level function, picklable; the replay board and
        the equilibrium explorer pass theirs); ``key`` must then name that job's input.

        Returns:
            :func:`analyse_state`'s JSON dict plus ``"game"`` (``key[1]``); shared, do not change it.

        Raises:
            QuotaError: ``address`` used up its analysis quota (nothing started).
            AnalysisBusy: ``limits.analysis_queue`` games are already in the pool (nothing started).
            concurrent.futures.BrokenExecutor: the worker died during this solve (the pool is replaced).
            UnsupportedRuleset, TableFileError (``ValueError``): from the solve, to every waiter.
        """
        data = self.cache.get(key)
        if data is not None:
            self.cache.move_to_end(key)
            return data
        lim = self.limits
        future = self.inflight.get(key)
        if future is None and len(self.inflight) >= lim.analysis_queue:
            raise AnalysisBusy(
                f"the server is busy: {len(self.inflight)} games are being analysed; try again "
                "in a few seconds",
                5.0,
            )
        self._quota.take_or_refuse(address, "analyses asked for", "minute")
        if future is None:
            work = (_solve, state, names, key[1]) if solve is None else (solve, state)
            try:
                job = self.pool.submit(*work)
            except concurrent.futures.BrokenExecutor:
                self._renew()
                job = self.pool.submit(*work)
            future = self.inflight[key] = asyncio.wrap_future(job)
            self._jobs[key], self._waiters[key] = job, 0
            future.add_done_callback(lambda f: self._finished(key, f))
        job = self._jobs[key]
        self._waiters[key] += 1
        try:
            # shielded: a waiter that goes away does not cancel the solve the others wait for
            return await asyncio.shield(future)
        finally:
            if self._jobs.get(key) is job:  # still in flight
                self._waiters[key] -= 1
                if self._waiters[key] == 0:
                    # the last waiter went away (the client closed the connection): a solve that
                    # has not started is dropped; a running one finishes and is cached
                    job.cancel()

    def _finished(self, key: Any, future: asyncio.Future) -> None:
        self.inflight.pop(key, None)
        self._jobs.pop(key, None)
        self._waiters.pop(key, None)
        if future.cancelled():
            return
        if isinstance(future.exception(), concurrent.futures.BrokenExecutor):
            self._renew()
        if future.exception() is not None:
            return  # an error is not kept: the next request tries again (and pays its quota)
        self.cache[key] = future.result()
        while len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)

    def _renew(self) -> None:
        """A worker died (killed, out of memory): the pool is broken for good, so make another."""
        log.warning("an analysis worker stopped; starting a new analysis pool")
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = self._make_pool(self.limits.analysis_workers)

    def sweep(self) -> None:
        """Forget the quota buckets that are full again (they hold nothing an address owes)."""
        self._quota.sweep()

    def close(self) -> None:
        """Shut the pool down: waiting solves are dropped, a running one finishes in its thread."""
        self.pool.shutdown(wait=False, cancel_futures=True)


async def disconnected(request: Request) -> None:
    """Returns once the client has closed the connection (its request body is already read)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _solve(state: Any, names: list[str], game_no: int) -> dict[str, Any]:
    data = analyse_state(state, names)  # looked up at call time (tests count the solves)
    data["game"] = game_no
    return data


def analyse_state(state: Any, names: list[str]) -> dict[str, Any]:
    """The coach's analysis of a finished game: ``state`` has ``game`` and ``hints``
    (a :class:`Finished`, or a :class:`~cardtable.web.games.goofspiel.GoofspielState`).

    Raises:
        UnsupportedRuleset: a ruleset outside the solver; TableFileError: a damaged table.
    """
    game = state.game
    data = analysis(game, names, points_table(game.ruleset))
    data["hints"] = bool(getattr(state, "hints", False))
    return data


def cached_hint(state: Any, seat: int) -> dict[str, Any] | None:
    """``seat``'s hint for the current round if :func:`hint_job` has computed it, else ``None``."""
    return state.hint_cache.get((state.game.round, seat)) or None


def hint_job(state: Any, seat: int) -> Callable[[], None] | None:
    """The work of ``seat``'s hint for the current round, or ``None`` when it is cached.

    The view is taken now (on the caller's thread); the returned function starts the hint's
    ``nash`` bot if needed (its ``new_game`` may solve for seconds) and caches the hint. The
    web room runs it in the bots' thread pool, off the event loop
    (:meth:`~cardtable.web.games.GameAdapter.background_work`). It never raises: a failure is
    logged and cached as ``{}`` (no hint this round, and no retry).
    """
    game = state.game
    key = (game.round, seat)
    if key in state.hint_cache:
        return None
    view = game.view(seat)
    ruleset = game.ruleset

    def job() -> None:
        try:
            bot = state.hint_bots.get(seat)
            if bot is None:
                bot = NashBot(seed=0)
                bot.new_game(ruleset, seat)
                state.hint_bots[seat] = bot
            state.hint_cache[key] = hint(bot, view)
        except Exception:
            log.exception("the hint for seat %s failed", seat)
            state.hint_cache[key] = {}

    return job
