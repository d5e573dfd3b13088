"""Online play in the browser: a FastAPI/Starlette app with WebSockets and SQLite.

The package is split by concern; only :mod:`cardtable.web.games` knows any
game's rules:

- :mod:`~cardtable.web.app` -- HTTP routes, the WebSocket endpoint, static files.
- :mod:`~cardtable.web.rooms` -- rooms (a table of seats playing a match), seat
  tokens, the event log, per-viewer view dispatch, bots, round timers.
- :mod:`~cardtable.web.storage` -- the SQLite database (rooms, seats, games,
  the append-only event log of accepted actions).
- :mod:`~cardtable.web.protocol` -- message parsing, error codes, rate limits.
- :mod:`~cardtable.web.games` -- game adapters (``goofspiel``; the plug-in
  point for Golf), each mapping one engine to settings, actions, views, bots
  and records.

Start it with ``cardtable serve`` (see docs/web.md).
"""
