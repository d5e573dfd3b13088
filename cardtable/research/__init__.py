"""Research interfaces to the Goofspiel engine.

- :mod:`~cardtable.research.encoding` -- the fixed action and observation encodings
  shared by every interface (documented in docs/research.md).
- :mod:`~cardtable.research.pettingzoo_env` -- a PettingZoo ``ParallelEnv`` (and its AEC form).
- :mod:`~cardtable.research.gym_env` -- a Gymnasium single-agent env against built-in bots.
- :mod:`~cardtable.research.openspiel_game` -- our Goofspiel registered as a ``pyspiel`` game.
- :mod:`~cardtable.research.simulate` -- a batched NumPy simulator for fixed-policy bots.
- :mod:`~cardtable.research.reference` -- a tiny exact solver (backward induction + LP)
  used to check OpenSpiel's CFR on small games.

The heavy libraries (PettingZoo, Gymnasium, OpenSpiel) are imported only by the
module that needs them.
"""
