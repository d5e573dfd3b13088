"""Goofspiel play that reads the solver: the ``nash`` and ``exploiter`` bots, the ``bait``
adversary and the coach.

Named for what these modules add on top of the game's rules and the solver's numbers: a
strategy to play (a bot's mixed bid) or to measure a person's play against (the coach's
analysis and hints). The package sits one layer above :mod:`cardtable.solver` and two above
:mod:`cardtable.goofspiel` (ARCHITECTURE.md, Layers): it may import both, and neither of
them imports it. The bot registry of the game still lists ``nash`` and ``exploiter`` by
name; its entries are ``"module:Class"`` strings that point here and are imported only when
such a bot is made (:func:`cardtable.platform.bot.load_bot`).

Modules: :mod:`.nash` (the equilibrium bot), :mod:`.exploiter` (the safe exploiting bot),
:mod:`.bait` (an adversary of the exploiter, for tests and benchmarks), :mod:`.coach`
(analysis of a finished game, hints before a bid).
"""
