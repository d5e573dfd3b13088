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

from .extra import require

require("the OpenSpiel game", "pyspiel")

import pyspiel  # noqa: E402

from cardtable.goofspiel import Game, Ruleset

from .encoding import (
    _bid_index, choice_to_action, decode_action, encode_observation, num_actions, observation_size,
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
    provides_information_state_tensor=True,
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

        self._shared = _Shared(rs, self.returns_type)

    def new_initial_state(self) -> "CardtableGoofspielState":
        return CardtableGoofspielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return GoofspielObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.ruleset)


#: Most history nodes one game object memoises (children, strings, tensors); past it
#: states are still correct, only no longer cached (bounds memory in long simulations).
MAX_CACHED_NODES = 100_000


class _History:
    """One node of the game tree: the engine game there (never modified once
    built), the chance outcomes and moves that led to it, and memoised children,
    information-state strings and tensors. Immutable, so OpenSpiel's clone
    (``deepcopy``) shares it; every move moves a state to a child node."""

    __slots__ = ("game", "revealed", "moves", "needs_chance", "children", "strings", "tensors")

    def __init__(self, game: Game, revealed: tuple[int, ...], moves: tuple, ruleset: Ruleset) -> None:
        self.game = game
        self.revealed = revealed                 # chance outcomes, in turn-up order
        self.moves = moves                       # ("bid", bids) / ("choose", seat, prize), in order
        self.needs_chance = (not ruleset.fixed_order and not game.is_over
                             and ruleset.cards - len(game.deck) > len(revealed))
        self.children: dict = {}
        self.strings: dict = {}                  # player -> information-state string (and legal actions)
        self.tensors: dict = {}                  # player -> information-state tensor

    def __deepcopy__(self, memo):
        return self


class _Shared:
    """Per game object: the ruleset, the root node and the cache budget; ``deepcopy`` shares it."""

    def __init__(self, ruleset: Ruleset, returns_type: str) -> None:
        self.ruleset = ruleset
        self.returns_type = returns_type
        self.cached = 0
        start = Game(ruleset, seed=0, prize_deck=list(ruleset.deck)) if not ruleset.fixed_order else Game(ruleset)
        self.root = _auto(_History(start, (), (), ruleset), ruleset)

    def __deepcopy__(self, memo):
        return self


def _rebuild(revealed: tuple[int, ...], moves: tuple, ruleset: Ruleset) -> _History:
    """The node after ``revealed`` chance outcomes and ``moves`` (the engine game replayed)."""
    rest = sorted(set(ruleset.deck) - set(revealed))
    g = Game(ruleset, seed=0, prize_deck=list(revealed) + rest)
    for move in moves:
        if move[0] == "bid":
            g.play(list(move[1]))
        else:
            g.choose(move[1], move[2])
    return _History(g, revealed, moves, ruleset)


def _auto(h: _History, ruleset: Ruleset) -> _History:
    """Play forced moves: a single chance outcome; a round where every bid is forced."""
    while not h.game.is_over:
        if h.needs_chance:
            outcomes = sorted(set(ruleset.deck) - set(h.revealed))
            if len(outcomes) != 1:
                return h
            h = _rebuild(h.revealed + (outcomes[0],), h.moves, ruleset)
        elif h.game.phase == "bid":
            legal = [h.game.legal_bids(s) for s in range(ruleset.players)]
            if any(len(b) != 1 for b in legal):
                return h
            bids = tuple(b[0] for b in legal)
            g = h.game.copy()
            g.play(list(bids))
            h = _History(g, h.revealed, h.moves + (("bid", bids),), ruleset)
        else:
            return h
    return h


class CardtableGoofspielState(pyspiel.State):
    """A state: a node of the memoised game tree (the engine game plus the chance
    outcomes and moves so far)."""

    def __init__(self, game: CardtableGoofspielGame) -> None:
        super().__init__(game)
        self._shared = game._shared
        self._h = self._shared.root

    @property
    def ruleset(self) -> Ruleset:
        return self._shared.ruleset

    @property
    def returns_type(self) -> str:
        return self._shared.returns_type

    @property
    def _game(self) -> Game:
        return self._h.game

    @property
    def engine_game(self) -> Game:
        """The wrapped engine game (do not modify)."""
        return self._h.game

    def _move_to(self, key, make) -> None:
        h = self._h
        child = h.children.get(key)
        if child is None:
            child = _auto(make(), self.ruleset)
            shared = self._shared
            if shared.cached < MAX_CACHED_NODES:
                h.children[key] = child
                shared.cached += 1
        self._h = child

    def _remaining_chance(self) -> list[int]:
        return sorted(set(self.ruleset.deck) - set(self._h.revealed))

    # -- OpenSpiel API -------------------------------------------------------------------

    def current_player(self) -> int:
        h = self._h
        g = h.game
        if g.is_over:
            return pyspiel.PlayerId.TERMINAL
        if h.needs_chance:
            return pyspiel.PlayerId.CHANCE
        if g.phase == "bid":
            return pyspiel.PlayerId.SIMULTANEOUS
        return g.chooser

    def _legal_actions(self, player: int) -> list[int]:
        h = self._h
        key = ("legal", player)
        cached = h.strings.get(key)
        if cached is not None:
            return cached
        g = h.game
        rs = self.ruleset
        if g.is_over or h.needs_chance:
            out = []
        elif g.phase == "bid":
            index = _bid_index(rs.cards, rs.cards_per_bid)
            out = sorted(index[b] for b in g.legal_bids(player))
        elif player != g.chooser:
            out = []
        else:
            out = sorted(choice_to_action(rs, p) for p in g.legal_choices())
        h.strings[key] = out
        return list(out)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        h = self._h
        cached = h.strings.get("chance")
        if cached is None:
            outcomes = self._remaining_chance()
            cached = h.strings["chance"] = [(p - 1, 1.0 / len(outcomes)) for p in outcomes]
        return list(cached)

    def _apply_action(self, action: int) -> None:
        h, rs = self._h, self.ruleset
        if h.needs_chance:
            prize = int(action) + 1
            if prize not in self._remaining_chance():
                raise ValueError(f"chance action {action}: prize {prize} is not face down")
            self._move_to(("chance", prize), lambda: _rebuild(h.revealed + (prize,), h.moves, rs))
            return
        kind, prize = decode_action(rs, action)
        if kind != "choose":
            raise ValueError(f"action {action} is not a prize choice")
        seat = h.game.chooser

        def make() -> _History:
            g = h.game.copy()
            g.choose(seat, prize)
            return _History(g, h.revealed, h.moves + (("choose", seat, prize),), rs)
        self._move_to(("choose", prize), make)

    def _apply_actions(self, actions: list[int]) -> None:
        h = self._h
        key = tuple(actions)
        child = h.children.get(key)
        if child is not None:
            self._h = child
            return
        rs = self.ruleset
        bids = tuple(decode_action(rs, a)[1] for a in actions)

        def make() -> _History:
            g = h.game.copy()
            g.play(list(bids))
            return _History(g, h.revealed, h.moves + (("bid", bids),), rs)
        self._move_to(key, make)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"prize {action + 1}"
        kind, value = decode_action(self.ruleset, action)
        if kind == "bid":
            return "bid " + "+".join(map(str, value))
        return f"{kind} {value}" if value is not None else kind

    def is_terminal(self) -> bool:
        return self._h.game.is_over

    def returns(self) -> list[float]:
        h = self._h
        cached = h.strings.get("returns")
        if cached is None:
            cached = h.strings["returns"] = self._returns()
        return list(cached)

    def _returns(self) -> list[float]:
        n = self.ruleset.players
        g = self._h.game
        if not g.is_over:
            return [0.0] * n
        pts = g.points
        if self.returns_type == "win_loss":
            return [1.0 if pts[i] > pts[1 - i] else -1.0 if pts[i] < pts[1 - i] else 0.0 for i in range(2)]
        mean = sum(pts) / n
        return [pts[i] - mean for i in range(n)]

    def public_history(self) -> str:
        """Everything public: prizes turned up, bids and choices, in order."""
        h = self._h
        return f"prizes {list(h.revealed)} moves {list(h.moves)} pot {list(h.game.pot)}"

    def __str__(self) -> str:
        g = self._h.game
        return (f"round {g.round} phase {g.phase} pot {list(g.pot)} points {list(g.points)} "
                f"hands {[sorted(h) for h in g.hands]}")


def info_state_layout(ruleset: Ruleset) -> dict[str, tuple[int, ...]]:
    """Name -> shape of the pieces of the information-state tensor, in order
    (``n`` cards, ``P`` players, ``R`` rounds):

    - ``player`` ``(P,)``: one-hot, the player whose information state it is;
    - ``prizes`` ``(n, n)``: row ``k`` one-hot the ``k``-th prize turned up (chance
      outcomes in order; zeros with a fixed prize order, which is public);
    - ``bids`` ``(R, P, n)``: round ``r``, seat ``s``: the cards of its bid;
    - ``choices`` ``(R, P, n)`` (open prizes only): the prize seat ``s`` took in round ``r``.

    The full public history; with the rules it determines everything a player
    knows (docs/rules.md, What each player knows), so distinct information states
    give distinct tensors (tested).
    """
    n, p, r = ruleset.cards, ruleset.players, ruleset.rounds
    out = {"player": (p,), "prizes": (n, n), "bids": (r, p, n)}
    if ruleset.open_prizes > 1:
        out["choices"] = (r, p, n)
    return out


def info_state_size(ruleset: Ruleset) -> int:
    """Length of the information-state tensor."""
    return sum(int(np.prod(shape)) for shape in info_state_layout(ruleset).values())


def encode_info_state(state: CardtableGoofspielState, player: int) -> np.ndarray:
    """The ``float32`` information-state tensor of ``player`` (:func:`info_state_layout`)."""
    h = state._h
    cached = h.tensors.get(player)
    if cached is not None:
        return cached
    rs = state.ruleset
    n, p = rs.cards, rs.players
    lay = info_state_layout(rs)
    out = np.zeros(info_state_size(rs), np.float32)
    pieces, start = {}, 0
    for name, shape in lay.items():
        size = int(np.prod(shape))
        pieces[name] = out[start:start + size].reshape(shape)
        start += size
    pieces["player"][player] = 1.0
    for k, prize in enumerate(h.revealed):
        pieces["prizes"][k, prize - 1] = 1.0
    r = -1
    for move in h.moves:
        if move[0] == "bid":
            r += 1
            for s, bid in enumerate(move[1]):
                for c in bid:
                    pieces["bids"][r, s, c - 1] = 1.0
        else:
            pieces["choices"][r, move[1], move[2] - 1] = 1.0
    out.setflags(write=False)
    h.tensors[player] = out
    return out


class GoofspielObserver:
    """Observations (PyObserver interface).

    With ``perfect_recall`` (information states): the tensor of
    :func:`encode_info_state` and the string of the player id and the public
    history. Otherwise: the encoding's observation vector
    (:func:`~cardtable.research.encoding.encode_observation`) and the player's
    current view as a string.
    """

    def __init__(self, iig_obs_type, ruleset: Ruleset) -> None:
        self.iig_obs_type = iig_obs_type
        self.ruleset = ruleset
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        if self.perfect_recall:
            self.tensor = np.zeros(info_state_size(ruleset), np.float32)
            self.dict, start = {}, 0
            for name, shape in info_state_layout(ruleset).items():
                size = int(np.prod(shape))
                self.dict[name] = self.tensor[start:start + size].reshape(shape)
                start += size
        else:
            self.tensor = np.zeros(observation_size(ruleset), np.float32)
            self.dict = {"observation": self.tensor}

    def set_from(self, state: CardtableGoofspielState, player: int) -> None:
        if self.perfect_recall:
            self.tensor[:] = encode_info_state(state, player)
        else:
            self.tensor[:] = encode_observation(state.engine_game.view(player))

    def string_from(self, state: CardtableGoofspielState, player: int) -> str:
        h = state._h
        if self.perfect_recall:
            text = h.strings.get(player)
            if text is None:
                text = h.strings[player] = f"p{player} {state.public_history()}"
            return text
        v = h.game.view(player)
        return (f"p{player} hand {sorted(v.hand)} pot {list(v.pot)} remaining {list(v.remaining_prizes)} "
                f"points {list(v.points)} phase {v.phase}")


pyspiel.register_game(_GAME_TYPE, CardtableGoofspielGame)


def load(**params: Any) -> CardtableGoofspielGame:
    """``pyspiel.load_game(SHORT_NAME, params)``."""
    return pyspiel.load_game(SHORT_NAME, params)
