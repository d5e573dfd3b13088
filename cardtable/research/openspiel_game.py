"""Our Goofspiel as an OpenSpiel game (``pyspiel``), for every ruleset the engine supports.

Importing this module registers ``python_cardtable_goofspiel``::

    import pyspiel
    import cardtable.research.openspiel_game  # registers the game
    game = pyspiel.load_game("python_cardtable_goofspiel", {"num_cards": 4, "tie_rule": "carry"})

so OpenSpiel's algorithms (CFR, exploitability, MCTS, ...) run on variants that
OpenSpiel's own ``goofspiel`` lacks: carry-over ties, high ace, 3-5 players with
highest-unique-bid, multi-card bids, open prizes. The state wraps the engine's
:class:`~cardtable.goofspiel.Game`; the rules are the engine's.

Structure (the same as OpenSpiel's ``goofspiel`` where both exist):

- simultaneous moves for bids; actions as in :mod:`cardtable.research.encoding`
  (with one card per bid action ``i`` bids card ``i + 1``, as in OpenSpiel);
- explicit chance: each face-up prize is a chance node over the face-down prizes
  (action ``p - 1`` turns up prize ``p``, uniform); none with a fixed prize order;
- open prizes: a prize choice is a turn-based node of the chooser (choose actions);
- forced moves are played automatically, as OpenSpiel's ``goofspiel`` does: a chance
  node with one outcome (the last prize) and a round where every player has a
  single legal bid (the last cards) are not nodes.

Parameters (defaults in brackets): ``num_cards`` [13], ``players`` [2],
``tie_rule`` ["carry"] or "discard", ``unique_bids`` [False], ``high_ace``
[False], ``cards_per_bid`` [1], ``open_prizes`` [1], ``points_order``
["random"], "ascending" or "descending", ``returns_type``
["point_difference"]: own points minus the mean of *all* players' points,
exactly as OpenSpiel's ``goofspiel`` defines it (zero-sum; with 2 players it is
half the engine's point difference ``p0 - p1``), or "win_loss" (+1/0/-1, 2
players only).

Information states: bids are revealed after each round (docs/rules.md, What each
player knows), so a player's information state is the public history (prizes turned
up, bids, choices) plus the player's id; only the face-down prize order is hidden.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from cardtable.goofspiel import Game, Ruleset

from .encoding import (
    bid_combinations, choice_to_action, decode_action, encode_observation, num_actions,
    observation_size,
)

SHORT_NAME = "python_cardtable_goofspiel"

_DEFAULTS = {
    "num_cards": 13,
    "players": 2,
    "tie_rule": "carry",
    "unique_bids": False,
    "high_ace": False,
    "cards_per_bid": 1,
    "open_prizes": 1,
    "points_order": "random",
    "returns_type": "point_difference",
}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="cardtable Goofspiel (every variant)",
    dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=5,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification=_DEFAULTS,
)


def ruleset_from_params(params: dict[str, Any]) -> Ruleset:
    """The engine ruleset for OpenSpiel parameters (see the module docstring).

    Raises:
        RulesetError: invalid values; ``ValueError``: unknown ``points_order``.
    """
    order = {"random": "shuffled", "ascending": "ascending", "descending": "descending"}.get(params["points_order"])
    if order is None:
        raise ValueError(f"points_order must be random, ascending or descending, not {params['points_order']!r}")
    return Ruleset(cards=params["num_cards"], players=params["players"], tie_rule=params["tie_rule"],
                   unique_bids=params["unique_bids"], high_ace=params["high_ace"],
                   cards_per_bid=params["cards_per_bid"], open_prizes=params["open_prizes"], prize_order=order)


class CardtableGoofspielGame(pyspiel.Game):
    """The OpenSpiel game object (see the module docstring).

    Raises:
        RulesetError, ValueError: invalid parameters.
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = dict(_DEFAULTS)
        p.update(params or {})
        self.ruleset = rs = ruleset_from_params(p)
        if p["returns_type"] not in ("point_difference", "win_loss"):
            raise ValueError(f"returns_type must be point_difference or win_loss, not {p['returns_type']!r}")
        if p["returns_type"] == "win_loss" and rs.players != 2:
            raise ValueError("returns_type win_loss needs 2 players")
        self.returns_type = p["returns_type"]
        total = rs.total_prize_value
        bound = 1.0 if self.returns_type == "win_loss" else float(total)
        super().__init__(
            _GAME_TYPE,
            pyspiel.GameInfo(
                num_distinct_actions=num_actions(rs),
                max_chance_outcomes=rs.cards,
                num_players=rs.players,
                min_utility=-bound,
                max_utility=bound,
                utility_sum=0.0,
                max_game_length=rs.cards * (2 + rs.players),
            ),
            p,
        )

    def new_initial_state(self) -> "CardtableGoofspielState":
        return CardtableGoofspielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return GoofspielObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.ruleset)


class _Shared:
    """Holds immutable data; ``deepcopy`` (OpenSpiel's clone) shares it."""

    def __init__(self, ruleset: Ruleset, returns_type: str) -> None:
        self.ruleset = ruleset
        self.returns_type = returns_type

    def __deepcopy__(self, memo):
        return self


class _GameBox:
    """Holds the engine game; ``deepcopy`` uses the engine's fast :meth:`Game.copy`."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def __deepcopy__(self, memo):
        return _GameBox(self.game.copy())


class CardtableGoofspielState(pyspiel.State):
    """A state: the engine game plus the chance outcomes and moves so far."""

    def __init__(self, game: CardtableGoofspielGame) -> None:
        super().__init__(game)
        self._shared = _Shared(game.ruleset, game.returns_type)
        rs = game.ruleset
        self._revealed: list[int] = []           # chance outcomes, in turn-up order
        self._moves: list[tuple] = []            # ("bid", bids) / ("choose", seat, prize)
        self._box = _GameBox(Game(rs, seed=0, prize_deck=list(rs.deck)) if not rs.fixed_order else Game(rs))
        self._auto()

    @property
    def ruleset(self) -> Ruleset:
        return self._shared.ruleset

    @property
    def returns_type(self) -> str:
        return self._shared.returns_type

    @property
    def _game(self) -> Game:
        return self._box.game

    @_game.setter
    def _game(self, value: Game) -> None:
        self._box = _GameBox(value)

    # -- engine bookkeeping --------------------------------------------------------------

    @property
    def engine_game(self) -> Game:
        """The wrapped engine game (do not modify)."""
        return self._game

    def _needs_chance(self) -> bool:
        g = self._game
        if self.ruleset.fixed_order or g.is_over:
            return False
        return self.ruleset.cards - len(g.deck) > len(self._revealed)

    def _rebuild(self) -> None:
        rest = sorted(set(self.ruleset.deck) - set(self._revealed))
        g = Game(self.ruleset, seed=0, prize_deck=self._revealed + rest)
        for move in self._moves:
            if move[0] == "bid":
                g.play(list(move[1]))
            else:
                g.choose(move[1], move[2])
        self._game = g

    def _auto(self) -> None:
        """Play forced moves: a single chance outcome; a round where all bids are forced."""
        while not self._game.is_over:
            if self._needs_chance():
                outcomes = self._remaining_chance()
                if len(outcomes) != 1:
                    return
                self._revealed.append(outcomes[0])
                self._rebuild()
            elif self._game.phase == "bid":
                legal = [self._game.legal_bids(s) for s in range(self.ruleset.players)]
                if any(len(b) != 1 for b in legal):
                    return
                bids = tuple(b[0] for b in legal)
                self._game.play(list(bids))
                self._moves.append(("bid", bids))
            else:
                return

    def _remaining_chance(self) -> list[int]:
        return sorted(set(self.ruleset.deck) - set(self._revealed))

    # -- OpenSpiel API -------------------------------------------------------------------

    def current_player(self) -> int:
        g = self._game
        if g.is_over:
            return pyspiel.PlayerId.TERMINAL
        if self._needs_chance():
            return pyspiel.PlayerId.CHANCE
        if g.phase == "bid":
            return pyspiel.PlayerId.SIMULTANEOUS
        return g.chooser

    def _legal_actions(self, player: int) -> list[int]:
        g = self._game
        if g.is_over or self._needs_chance():
            return []
        rs = self.ruleset
        if g.phase == "bid":
            index = {b: i for i, b in enumerate(bid_combinations(rs.cards, rs.cards_per_bid))}
            return sorted(index[b] for b in g.legal_bids(player))
        if player != g.chooser:
            return []
        return sorted(choice_to_action(rs, p) for p in g.legal_choices())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        outcomes = self._remaining_chance()
        return [(p - 1, 1.0 / len(outcomes)) for p in outcomes]

    def _apply_action(self, action: int) -> None:
        if self._needs_chance():
            prize = int(action) + 1
            if prize not in self._remaining_chance():
                raise ValueError(f"chance action {action}: prize {prize} is not face down")
            self._revealed.append(prize)
            self._rebuild()
        else:
            kind, prize = decode_action(self.ruleset, action)
            seat = self._game.chooser
            if kind != "choose":
                raise ValueError(f"action {action} is not a prize choice")
            self._game.choose(seat, prize)
            self._moves.append(("choose", seat, prize))
        self._auto()

    def _apply_actions(self, actions: list[int]) -> None:
        bids = tuple(decode_action(self.ruleset, a)[1] for a in actions)
        self._game.play(list(bids))
        self._moves.append(("bid", bids))
        self._auto()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"prize {action + 1}"
        kind, value = decode_action(self.ruleset, action)
        if kind == "bid":
            return "bid " + "+".join(map(str, value))
        return f"{kind} {value}" if value is not None else kind

    def is_terminal(self) -> bool:
        return self._game.is_over

    def returns(self) -> list[float]:
        n = self.ruleset.players
        if not self._game.is_over:
            return [0.0] * n
        pts = self._game.points
        if self.returns_type == "win_loss":
            return [1.0 if pts[i] > pts[1 - i] else -1.0 if pts[i] < pts[1 - i] else 0.0 for i in range(2)]
        mean = sum(pts) / n
        return [pts[i] - mean for i in range(n)]

    def public_history(self) -> str:
        """Everything public: prizes turned up, bids and choices, in order."""
        return f"prizes {self._revealed} moves {self._moves} pot {list(self._game.pot)}"

    def __str__(self) -> str:
        g = self._game
        return (f"round {g.round} phase {g.phase} pot {list(g.pot)} points {list(g.points)} "
                f"hands {[sorted(h) for h in g.hands]}")


class GoofspielObserver:
    """Observations (PyObserver interface): the encoding's vector, and strings.

    With ``perfect_recall`` (information states) the string is the player id and
    the public history; otherwise the player's current view.
    """

    def __init__(self, iig_obs_type, ruleset: Ruleset) -> None:
        self.iig_obs_type = iig_obs_type
        self.ruleset = ruleset
        self.tensor = np.zeros(observation_size(ruleset), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CardtableGoofspielState, player: int) -> None:
        self.tensor[:] = encode_observation(state.engine_game.view(player))

    def string_from(self, state: CardtableGoofspielState, player: int) -> str:
        g = state.engine_game
        if self.iig_obs_type.perfect_recall:
            return f"p{player} {state.public_history()}"
        v = g.view(player)
        return (f"p{player} hand {sorted(v.hand)} pot {list(v.pot)} remaining {list(v.remaining_prizes)} "
                f"points {list(v.points)} phase {v.phase}")


pyspiel.register_game(_GAME_TYPE, CardtableGoofspielGame)


def load(**params: Any) -> CardtableGoofspielGame:
    """``pyspiel.load_game(SHORT_NAME, params)``."""
    return pyspiel.load_game(SHORT_NAME, params)
