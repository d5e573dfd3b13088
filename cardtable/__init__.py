"""cardtable: Goofspiel (GOPS) and Golf with Detective and Thief.

The packages, one concern each:

- :mod:`cardtable.goofspiel` -- the Goofspiel rules engine (rulesets, game state,
  per-player views, records, bots, terminal play).
- :mod:`cardtable.golf` -- Golf with Detective and Thief.
- :mod:`cardtable.solver` -- the exact equilibrium solver for 2-player Goofspiel.
- :mod:`cardtable.platform` -- game-agnostic parts: bot interface and registry,
  matches, storage paths.
- :mod:`cardtable.tui`, :mod:`cardtable.web`, :mod:`cardtable.cli` -- terminal,
  browser and command-line front ends.
- :mod:`cardtable.research` -- PettingZoo/OpenSpiel adapters, bot protocol,
  tournaments, batched simulation.

Every error that cardtable raises on purpose derives from :class:`CardtableError`
(:mod:`cardtable.errors`). The package ships ``py.typed``: its type hints are part of
its interface.
"""

from cardtable.errors import CardtableError

__all__ = ["CardtableError", "__version__"]

__version__ = "0.1.0"
