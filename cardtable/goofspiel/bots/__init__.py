"""Goofspiel bots. Each is one class; ``BOTS`` maps registry names to classes.

``cardtable.platform.bot.load_bot("goofspiel", name)`` creates one. Every bot
plays every ruleset (2-5 players, multi-card bids, open prizes) unless its
description says otherwise.

The solver-backed bots (``nash``, ``exploiter``) live a layer up, in
:mod:`cardtable.strategy`: their entries here are strings, imported only when such a bot
is made, so this package never imports the solver (ARCHITECTURE.md, Layers).

>>> from cardtable.platform.bot import load_bot
>>> load_bot("goofspiel", "matcher").description
'bids the card equal to the prize (predictable: the Portuguese text warns against it)'
"""

BOTS: dict[str, str] = {
    "random": "cardtable.goofspiel.bots.basic:RandomBot",
    "matcher": "cardtable.goofspiel.bots.basic:MatcherBot",
    "heuristic": "cardtable.goofspiel.bots.heuristic:HeuristicBot",
    "nash": "cardtable.strategy.nash:NashBot",
    "mcts": "cardtable.goofspiel.bots.mcts:MCTSBot",
    "exploiter": "cardtable.strategy.exploiter:ExploiterBot",
}
