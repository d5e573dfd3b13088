"""Online play in the browser: a FastAPI/Starlette app with WebSockets and SQLite.

The package is split by concern; of the core, only :mod:`cardtable.web.games`
knows any game's rules:

- :mod:`~cardtable.web.app` -- the application (:func:`~cardtable.web.app.create_app`),
  its lifespan and request limits; the routers :mod:`~cardtable.web.pages`,
  :mod:`~cardtable.web.api` and :mod:`~cardtable.web.ws` (the WebSocket endpoint).
- :mod:`~cardtable.web.hub` -- every live room, creation, resume, sweeps;
  :mod:`~cardtable.web.rooms` -- one room (a table of seats playing a match): checks,
  commits and applies actions, per-viewer view dispatch; :mod:`~cardtable.web.driver`
  -- its bots and round timer.
- :mod:`~cardtable.web.seats` (tokens, invites, lobby claims), :mod:`~cardtable.web.lobby`
  (the listing, per-address quotas), :mod:`~cardtable.web.creation` (the creation form's
  checks).
- :mod:`~cardtable.web.database` (every SQLite call on one thread) and
  :mod:`~cardtable.web.storage` (the SQLite database: rooms, seats, games, the
  append-only event log of accepted actions).
- :mod:`~cardtable.web.protocol` (message parsing, error codes, rate limits),
  :mod:`~cardtable.web.schema` (every body and message), :mod:`~cardtable.web.limits`.
- :mod:`~cardtable.web.games` -- game adapters (``goofspiel``, ``golf``), each
  mapping one engine to settings, actions, views, bots and records.
- Goofspiel's pages on :mod:`cardtable.strategy`: :mod:`~cardtable.web.coach` with
  :mod:`~cardtable.web.analysis` (analyses in worker processes, hints),
  :mod:`~cardtable.web.replay` (the replay board), :mod:`~cardtable.web.explorer`
  (the equilibrium explorer), :mod:`~cardtable.web.pooled` (their solves).

Start it with ``cardtable serve`` (see docs/web.md).
"""
