"""cardtable: Goofspiel (GOPS) and Golf with Detective and Thief.

The packages, one concern each, from the lowest layer up (ARCHITECTURE.md, Layers):

- :mod:`cardtable.platform` -- game-agnostic parts: bot interface and registry,
  matches, tournaments, the bot protocol, storage paths; :mod:`cardtable.tui` --
  terminal prompts.
- :mod:`cardtable.goofspiel` -- the Goofspiel rules engine (rulesets, game state,
  per-player views, records, bots, terminal play).
- :mod:`cardtable.golf` -- Golf with Detective and Thief.
- :mod:`cardtable.solver` -- the exact equilibrium solver for 2-player Goofspiel.
- :mod:`cardtable.strategy` -- Goofspiel play that reads the solver: the ``nash``
  and ``exploiter`` bots, the ``bait`` adversary, the coach (analysis and hints).
- :mod:`cardtable.web` -- the browser server; :mod:`cardtable.research` --
  PettingZoo, Gymnasium and OpenSpiel adapters, batched simulation.
- :mod:`cardtable.cli` -- the ``cardtable`` command.

Every error that cardtable raises on purpose derives from :class:`CardtableError`
(:mod:`cardtable.errors`). The package ships ``py.typed``: its type hints are part of
its interface.
"""

from cardtable.errors import CardtableError

__all__ = ["CardtableError", "__version__"]

__version__ = "0.1.0"
