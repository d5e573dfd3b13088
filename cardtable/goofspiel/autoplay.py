"""Play whole games between bots (or any callables from a view to an action).

>>> from cardtable.goofspiel import Ruleset
>>> from cardtable.platform.bot import load_bot
>>> game = play_game(Ruleset(cards=5), [load_bot("goofspiel", "matcher"), load_bot("goofspiel", "matcher")], seed=1)
>>> game.result().outcomes   # two matchers tie every round
('draw', 'draw')
"""

from __future__ import annotations

from typing import Sequence

from cardtable.platform.bot import Bot

from .ruleset import Ruleset
from .state import Game


def play_game(
    ruleset: Ruleset,
    bots: Sequence[Bot],
    seed: int | str | None = None,
    prize_deck: Sequence[int] | None = None,
) -> Game:
    """Play one game to the end; returns the finished :class:`Game` (history, result).

    Raises:
        GoofspielError: a bot returned an illegal action (the exception names it).
        ValueError: the number of bots differs from ``ruleset.players``.
    """
    if len(bots) != ruleset.players:
        raise ValueError(f"{ruleset.players} players need {ruleset.players} bots, got {len(bots)}")
    game = Game(ruleset, seed=seed, prize_deck=prize_deck)
    for seat, bot in enumerate(bots):
        bot.new_game(ruleset, seat)
    while not game.is_over:
        if game.phase == "bid":
            game.play([bot.act(game.view(seat)) for seat, bot in enumerate(bots)])
        else:
            chooser = game.chooser
            assert chooser is not None  # the choose phase
            game.choose(chooser, bots[chooser].act(game.view(chooser)))
    return game
