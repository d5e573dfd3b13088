"""Goofspiel (GOPS, the Game of Pure Strategy): the rules engine.

The core model, after docs/rules.md:

- :class:`Ruleset` -- an immutable, validated variant (cards, players, tie rule,
  high ace, multi-card bids, open prizes, prize order).
- :class:`Game` -- the state: :meth:`Game.play` one round of simultaneous bids,
  :meth:`Game.view` a player's view, :meth:`Game.result` the outcome.
- :mod:`cardtable.goofspiel.record` -- the text and JSON game-record notations.
- :mod:`cardtable.goofspiel.bots` -- bots (``random``, ``matcher``, ``heuristic``, ...).

A whole game, worked example 1 of docs/rules.md (Worked examples) first:

>>> game = Game(Ruleset(), prize_deck=[12] + [c for c in range(1, 14) if c != 12])
>>> game.play([13, 11]).winner, game.points
(0, (12, 0))
>>> game.play([13, 1])
Traceback (most recent call last):
...
cardtable.goofspiel.errors.CardAlreadySpent: player 1 has already spent K♠
"""

from .cards import PLAYER_SUITS, PRIZE_SUIT, format_card, parse_card, rank_name
from .errors import (
    CardAlreadySpent,
    CardError,
    CardNotInHand,
    GoofspielError,
    IllegalBid,
    IllegalChoice,
    MissingBid,
    RulesetError,
    WrongBidSize,
    WrongPhase,
)
from .ruleset import PRESETS, Ruleset
from .state import (
    Game,
    GameResult,
    PlayerView,
    RoundResult,
    legal_bids_from_hand,
    prize_order_for,
    result_from_points,
    takers_in_order,
    top_bidder,
)

__all__ = [
    "PLAYER_SUITS",
    "PRIZE_SUIT",
    "PRESETS",
    "CardAlreadySpent",
    "CardError",
    "CardNotInHand",
    "Game",
    "GameResult",
    "GoofspielError",
    "IllegalBid",
    "IllegalChoice",
    "MissingBid",
    "PlayerView",
    "RoundResult",
    "Ruleset",
    "RulesetError",
    "WrongBidSize",
    "WrongPhase",
    "format_card",
    "legal_bids_from_hand",
    "parse_card",
    "prize_order_for",
    "rank_name",
    "result_from_points",
    "takers_in_order",
    "top_bidder",
]
