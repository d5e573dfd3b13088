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

Parameters (defaults in brackets; docs/research.md, OpenSpiel, lists them beside
OpenSpiel's ``goofspiel`` and its defaults): ``num_cards`` [13], ``players`` [2],
``tie_rule`` ["carry"] or "discard", ``unique_bids`` [False], ``high_ace``
[False], ``cards_per_bid`` [1], ``open_prizes`` [1], and OpenSpiel's own names
with OpenSpiel's meaning: ``points_order`` ["random"], "ascending" or
"descending"; ``returns_type`` ["point_difference"]: own points minus the mean
of all players' points (zero-sum, from ``-T/P`` to ``T*(P-1)/P`` with ``T`` the
total prize value; with 2 players half the engine's ``p0 - p1``), "win_loss"
(the players with the most points share +1, the others share -1, all level: 0)
or "total_points" (own points, general-sum, ``0..T``); ``imp_info`` [False]:
only False, since cardtable reveals every bid (True, OpenSpiel's hidden-bid
variant, is refused with the reason); ``egocentric`` [False]: accepted, changes
nothing (as in OpenSpiel when bids are public; our observation tensor is always
relative to the viewer); ``num_turns`` [-1]: -1 or the number of rounds (a game
cut short is refused). Bad values raise ``ValueError`` (``RulesetError`` for the
ruleset's own) naming the parameter and the reason.

Game type: the simultaneous form is ``PERFECT_INFORMATION`` (as OpenSpiel's
``goofspiel`` with ``imp_info=False``: every bid is public once the round's bids
are in, and the only hidden thing, the face-down prize order, is a chance node
resolved in public), so OpenSpiel's simultaneous-move ``value_iteration``
accepts it; the turn-based form is ``IMPERFECT_INFORMATION`` (a seat bids before
seeing the earlier seats' bids of the round). ``ZERO_SUM`` except
``total_points`` (``GENERAL_SUM``). ``max_game_length`` counts decisions as
OpenSpiel does (a joint bid is one move, chance nodes are not counted): the
rounds, plus at most one choice per prize with open prizes; times the players'
bids per round in the turn-based form (4 and 8 at 4 cards, as OpenSpiel).

Information states: bids are revealed after each round (docs/rules.md, What each
player knows), so a player's information state is the public history (prizes turned
up, bids, choices) plus the player's id; only the face-down prize order is hidden.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from cardtable.goofspiel import Game, Ruleset, WrongPhase

from .encoding import (
    _bid_index,
    choice_to_action,
    decode_action,
    encode_observation,
    num_actions,
    observation_size,
)
from .extra import require

# the optional package is checked first, so that its absence names the extra to install
require("the OpenSpiel game", "pyspiel")

import pyspiel  # noqa: E402

SHORT_NAME = "python_cardtable_goofspiel"

# OpenSpiel's player ids as plain ints: reading ``pyspiel.PlayerId.X`` goes through
# pybind11 on every access, and ``current_player`` is called several times per node
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_SIMULTANEOUS = int(pyspiel.PlayerId.SIMULTANEOUS)

_DEFAULTS: dict[str, Any] = {
    "num_cards": 13,
    "players": 2,
    "tie_rule": "carry",
    "unique_bids": False,
    "high_ace": False,
    "cards_per_bid": 1,
    "open_prizes": 1,
    "points_order": "random",
    "returns_type": "point_difference",
    "imp_info": False,
    "egocentric": False,
    "num_turns": -1,
}

#: OpenSpiel's ``goofspiel`` parameters and its defaults (for the docs and the tests;
#: every one of them is accepted here with the same meaning, see the module docstring).
NATIVE_DEFAULTS = {
    "num_cards": 13,
    "players": 2,
    "points_order": "random",
    "returns_type": "win_loss",
    "imp_info": False,
    "egocentric": False,
    "num_turns": -1,
}

RETURNS_TYPES = ("point_difference", "win_loss", "total_points")

_PERFECT = pyspiel.GameType.Information.PERFECT_INFORMATION
_IMPERFECT = pyspiel.GameType.Information.IMPERFECT_INFORMATION


def _game_type(
    short_name: str,
    long_name: str,
    dynamics,
    tensors: bool,
    information,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
) -> "pyspiel.GameType":
    """The OpenSpiel game type of one form of the game (both forms share all but these)."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=dynamics,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=information,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=5,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=tensors,
        provides_observation_string=True,
        provides_observation_tensor=tensors,
        provides_factored_observation_string=False,
        parameter_specification=_DEFAULTS,
    )


#: (short name, long name, dynamics, tensors, information) of the simultaneous form
_SIM_FORM = (
    SHORT_NAME,
    "cardtable Goofspiel (every variant)",
    pyspiel.GameType.Dynamics.SIMULTANEOUS,
    True,
    _PERFECT,
)
_GAME_TYPE = _game_type(*_SIM_FORM)


def ruleset_from_params(params: dict[str, Any]) -> Ruleset:
    """The engine ruleset for OpenSpiel parameters (see the module docstring);
    parameters missing from ``params`` take their defaults.

    Raises:
        RulesetError: invalid ruleset values; ``ValueError``: an unknown
            ``points_order`` or ``returns_type``, ``imp_info=True``, or a
            ``num_turns`` other than -1 and the number of rounds (each with the reason).
    """
    params = {**_DEFAULTS, **params}
    orders: dict[str, Literal["shuffled", "ascending", "descending"]] = {
        "random": "shuffled",
        "ascending": "ascending",
        "descending": "descending",
    }
    order = orders.get(params["points_order"])
    if order is None:
        raise ValueError(
            f"points_order must be random, ascending or descending, not {params['points_order']!r}"
        )
    if params["returns_type"] not in RETURNS_TYPES:
        raise ValueError(
            f"returns_type must be one of {', '.join(RETURNS_TYPES)} (OpenSpiel's goofspiel "
            f"names and meanings), not {params['returns_type']!r}"
        )
    if params["imp_info"]:
        raise ValueError(
            "imp_info=True is refused: in OpenSpiel's goofspiel it hides the bids (only the "
            "round's winner is shown), a variant cardtable does not have; cardtable reveals every "
            "bid after the round (docs/rules.md, What each player knows), which is imp_info=False"
        )
    rs = Ruleset(
        cards=params["num_cards"],
        players=params["players"],
        tie_rule=params["tie_rule"],
        unique_bids=params["unique_bids"],
        high_ace=params["high_ace"],
        cards_per_bid=params["cards_per_bid"],
        open_prizes=params["open_prizes"],
        prize_order=order,
    )
    if params["num_turns"] not in (-1, rs.rounds):
        raise ValueError(
            f"num_turns must be -1 or {rs.rounds} (every round of {rs.describe()}), not "
            f"{params['num_turns']!r}: a game cut short after some rounds is not a cardtable ruleset"
        )
    return rs


def utility_range(ruleset: Ruleset, returns_type: str) -> tuple[float, float, float | None]:
    """``(min_utility, max_utility, utility_sum)`` of a ruleset under ``returns_type``
    (``utility_sum`` is ``None`` for the general-sum ``total_points``). The point
    difference range is exact, ``-T/P .. T*(P-1)/P``; OpenSpiel's goofspiel computes
    its minimum with integer division (-3 instead of -10/3 at 4 cards, 3 players).

    Raises:
        ValueError: an unknown ``returns_type``.
    """
    total, n = float(ruleset.total_prize_value), ruleset.players
    if returns_type == "win_loss":
        return -1.0, 1.0, 0.0
    if returns_type == "point_difference":
        return -total / n, total * (n - 1) / n, 0.0
    if returns_type == "total_points":
        return 0.0, total, None
    raise ValueError(f"returns_type must be one of {', '.join(RETURNS_TYPES)}, not {returns_type!r}")


def max_moves(ruleset: Ruleset, turn_based: bool = False) -> int:
    """OpenSpiel's ``max_game_length``: the most decisions in one game (a joint bid
    is one move, chance nodes do not count): a bid per round (one per seat in the
    turn-based form), plus at most one prize choice per prize with open prizes."""
    bids = ruleset.rounds * (ruleset.players if turn_based else 1)
    return bids + (ruleset.cards if ruleset.open_prizes > 1 else 0)


class CardtableGoofspielGame(pyspiel.Game):
    """The OpenSpiel game object (see the module docstring).

    Raises:
        RulesetError, ValueError: invalid parameters.
    """

    _FORM = _SIM_FORM
    _TURN_BASED = False

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = dict(_DEFAULTS)
        p.update(params or {})
        self.ruleset = rs = ruleset_from_params(p)
        self.returns_type = p["returns_type"]
        low, high, total = utility_range(rs, self.returns_type)
        utility = pyspiel.GameType.Utility.GENERAL_SUM if total is None else pyspiel.GameType.Utility.ZERO_SUM
        super().__init__(
            _game_type(*self._FORM, utility=utility),
            pyspiel.GameInfo(
                num_distinct_actions=num_actions(rs),
                max_chance_outcomes=0 if rs.fixed_order else rs.cards,
                num_players=rs.players,
                min_utility=low,
                max_utility=high,
                utility_sum=total,
                max_game_length=max_moves(rs, self._TURN_BASED),
            ),
            p,
        )

        self._shared = _Shared(rs, self.returns_type)

    def new_initial_state(self) -> "CardtableGoofspielState":
        return CardtableGoofspielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return GoofspielObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.ruleset
        )


#: Most history nodes one game object memoises (children, strings, tensors); past it
#: states are still correct, only no longer cached (bounds memory in long simulations).
MAX_CACHED_NODES = 100_000


class _History:
    """One node of the game tree: the engine game there (never modified once
    built), the chance outcomes and moves that led to it, and memoised children,
    information-state strings and tensors. Immutable, so OpenSpiel's clone
    (``deepcopy``) shares it; every move moves a state to a child node.

    ``player`` (OpenSpiel's current player as an int) and ``terminal`` are
    computed once here: OpenSpiel asks for them several times per node."""

    __slots__ = (
        "game",
        "revealed",
        "moves",
        "needs_chance",
        "children",
        "strings",
        "tensors",
        "player",
        "terminal",
    )

    def __init__(self, game: Game, revealed: tuple[int, ...], moves: tuple, ruleset: Ruleset) -> None:
        self.game = game
        self.revealed = revealed  # chance outcomes, in turn-up order
        self.moves = moves  # ("bid", bids) / ("choose", seat, prize), in order
        self.terminal = over = game.is_over
        self.needs_chance = (
            not ruleset.fixed_order and not over and ruleset.cards - len(game.deck) > len(revealed)
        )
        chooser = game.chooser  # a seat in the choose phase, else None
        self.player: int = (
            _TERMINAL
            if over
            else _CHANCE
            if self.needs_chance
            else chooser
            if chooser is not None
            else _SIMULTANEOUS
        )
        self.children: dict = {}
        self.strings: dict = {}  # player -> information-state string (and legal actions)
        self.tensors: dict = {}  # player -> information-state tensor

    def __deepcopy__(self, memo):
        return self


class _Shared:
    """Per game object: the ruleset, the root node and the cache budget; ``deepcopy`` shares it."""

    def __init__(self, ruleset: Ruleset, returns_type: str) -> None:
        self.ruleset = ruleset
        self.returns_type = returns_type
        self.cached = 0
        start = (
            Game(ruleset, seed=0, prize_deck=list(ruleset.deck)) if not ruleset.fixed_order else Game(ruleset)
        )
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


def _child(shared: "_Shared", h: _History, key, make) -> _History:
    """The memoised child of ``h`` under ``key`` (built by ``make``, forced moves played)."""
    child = h.children.get(key)
    if child is None:
        child = _auto(make(), shared.ruleset)
        if shared.cached < MAX_CACHED_NODES:
            h.children[key] = child
            shared.cached += 1
    return child


def _chance_child(shared: "_Shared", h: _History, action: int) -> _History:
    """``h`` after the chance outcome ``action`` (prize ``action + 1`` turned up).

    Raises:
        ValueError: that prize is not face down.
    """
    rs = shared.ruleset
    prize = int(action) + 1
    if prize in h.revealed or prize not in rs.deck:
        raise ValueError(f"chance action {action}: prize {prize} is not face down")
    return _child(shared, h, ("chance", prize), lambda: _rebuild(h.revealed + (prize,), h.moves, rs))


def _choice_child(shared: "_Shared", h: _History, action: int) -> _History:
    """``h`` after the chooser takes the prize of choose action ``action``.

    Raises:
        ValueError: ``action`` is not a prize choice; GoofspielError: an illegal one.
    """
    rs = shared.ruleset
    kind, prize = decode_action(rs, action)
    if kind != "choose":
        raise ValueError(f"action {action} is not a prize choice")
    assert isinstance(prize, int)  # a choose action decodes to a prize
    seat = h.game.chooser

    def make() -> _History:
        g = h.game.copy()
        if seat is None:  # what Game.choose raises outside the choose phase
            raise WrongPhase("no prize choice is pending")
        g.choose(seat, prize)
        return _History(g, h.revealed, h.moves + (("choose", seat, prize),), rs)

    return _child(shared, h, ("choose", prize), make)


def _bids_child(shared: "_Shared", h: _History, actions) -> _History:
    """``h`` after the round's bids (one bid action per seat).

    Raises:
        GoofspielError: an illegal bid.
    """
    key = tuple(actions)
    child = h.children.get(key)
    if child is not None:
        return child
    rs = shared.ruleset
    # the decoded bids; a non-bid action decodes to something Game.play refuses
    bids: tuple[Any, ...] = tuple(decode_action(rs, a)[1] for a in actions)

    def make() -> _History:
        g = h.game.copy()
        g.play(list(bids))
        return _History(g, h.revealed, h.moves + (("bid", bids),), rs)

    return _child(shared, h, key, make)


def _legal(shared: "_Shared", h: _History, player: int) -> list[int]:
    """``player``'s legal actions at ``h`` (memoised; do not modify the list)."""
    key = ("legal", player)
    cached = h.strings.get(key)
    if cached is not None:
        return cached
    g = h.game
    rs = shared.ruleset
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
    return out


def _chance_outcomes(shared: "_Shared", h: _History) -> list[tuple[int, float]]:
    cached = h.strings.get("chance")
    if cached is None:
        outcomes = sorted(set(shared.ruleset.deck) - set(h.revealed))
        cached = h.strings["chance"] = [(p - 1, 1.0 / len(outcomes)) for p in outcomes]
    return cached


def _returns(shared: "_Shared", h: _History) -> list[float]:
    cached = h.strings.get("returns")
    if cached is not None:
        return cached
    n = shared.ruleset.players
    g = h.game
    if not g.is_over:
        out = [0.0] * n
    else:
        pts = g.points
        if shared.returns_type == "win_loss":  # OpenSpiel's goofspiel: winners share +1, losers -1
            best = max(pts)
            winners = sum(x == best for x in pts)
            out = (
                [0.0] * n
                if winners == n
                else [1.0 / winners if x == best else -1.0 / (n - winners) for x in pts]
            )
        elif shared.returns_type == "total_points":
            out = [float(x) for x in pts]
        else:
            mean = sum(pts) / n
            out = [pts[i] - mean for i in range(n)]
    h.strings["returns"] = out
    return out


def _public_history(h: _History) -> str:
    """Everything public at ``h``: prizes turned up, bids and choices, in order."""
    return f"prizes {list(h.revealed)} moves {list(h.moves)} pot {list(h.game.pot)}"


def _info_string(h: _History, player: int) -> str:
    text = h.strings.get(player)
    if text is None:
        text = h.strings[player] = f"p{player} {_public_history(h)}"
    return text


def _observation_string(h: _History, player: int) -> str:
    v = h.game.view(player)
    return (
        f"p{player} hand {sorted(v.hand)} pot {list(v.pot)} remaining {list(v.remaining_prizes)} "
        f"points {list(v.points)} phase {v.phase}"
    )


def _state_string(h: _History) -> str:
    """The whole state, one string per node (OpenSpiel's algorithms for perfect-information
    games, ``value_iteration`` among them, key states by ``str(state)``)."""
    g = h.game
    return (
        f"round {g.round} phase {g.phase} pot {list(g.pot)} points {list(g.points)} "
        f"hands {[sorted(x) for x in g.hands]} prizes {list(h.revealed)} moves {list(h.moves)}"
    )


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

    # -- OpenSpiel API -------------------------------------------------------------------

    def current_player(self) -> int:
        return self._h.player

    def _legal_actions(self, player: int) -> list[int]:
        return _legal(self._shared, self._h, player)  # pybind11 copies it into a std::vector

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(_chance_outcomes(self._shared, self._h))

    def _apply_action(self, action: int) -> None:
        h = self._h
        if h.needs_chance:
            self._h = _chance_child(self._shared, h, action)
        else:
            self._h = _choice_child(self._shared, h, action)

    def _apply_actions(self, actions: list[int]) -> None:
        self._h = _bids_child(self._shared, self._h, actions)

    def _action_to_string(self, player: int, action: int) -> str:
        return _action_string(self.ruleset, player, action)

    def is_terminal(self) -> bool:
        return self._h.terminal

    def returns(self) -> list[float]:
        return list(_returns(self._shared, self._h))

    def public_history(self) -> str:
        """Everything public: prizes turned up, bids and choices, in order."""
        return _public_history(self._h)

    def __str__(self) -> str:
        return _state_string(self._h)


def _action_string(rs: Ruleset, player: int, action: int) -> str:
    if player == _CHANCE:
        return f"prize {action + 1}"
    kind, value = decode_action(rs, action)
    if kind == "bid":
        assert isinstance(value, tuple)  # a bid action decodes to a bid
        return "bid " + "+".join(map(str, value))
    return f"{kind} {value}" if value is not None else kind


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
    lay = info_state_layout(rs)
    out = np.zeros(info_state_size(rs), np.float32)
    pieces, start = {}, 0
    for name, shape in lay.items():
        size = int(np.prod(shape))
        pieces[name] = out[start : start + size].reshape(shape)
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
                self.dict[name] = self.tensor[start : start + size].reshape(shape)
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
        if self.perfect_recall:
            return _info_string(state._h, player)
        return _observation_string(state._h, player)


# -- the turn-based form ------------------------------------------------------------------

TURN_BASED_SHORT_NAME = "python_cardtable_goofspiel_turn_based"

_TURN_FORM = (
    TURN_BASED_SHORT_NAME,
    "cardtable Goofspiel (every variant), bids made in turn",
    pyspiel.GameType.Dynamics.SEQUENTIAL,
    False,
    _IMPERFECT,
)
_TURN_GAME_TYPE = _game_type(*_TURN_FORM)


class _Turn:
    """A node of the turn-based form: a node of the simultaneous tree and the bid
    actions made so far in this round (``pending``, seats 0, 1, ... in order).
    Immutable and memoised like :class:`_History`."""

    __slots__ = ("shared", "h", "pending", "player", "terminal", "children")

    def __init__(self, shared: "_Shared", h: _History, pending: tuple[int, ...]) -> None:
        self.shared = shared
        self.h = h
        self.pending = pending
        self.terminal = h.terminal
        self.player = len(pending) if h.player == _SIMULTANEOUS else h.player
        self.children: dict = {}

    def __deepcopy__(self, memo):
        return self

    def child(self, action: int) -> "_Turn":
        """The node after ``action`` (a chance outcome, a prize choice, or the bid of
        seat ``len(pending)``).

        Raises:
            ValueError: an illegal action.
        """
        c = self.children.get(action)
        if c is not None:
            return c
        shared, h = self.shared, self.h
        if self.terminal:
            raise ValueError("the game is over")
        if h.needs_chance:
            c = _Turn(shared, _chance_child(shared, h, action), ())
        elif h.player != _SIMULTANEOUS:
            c = _Turn(shared, _choice_child(shared, h, action), ())
        else:
            if action not in _legal(shared, h, self.player):
                raise ValueError(f"action {action} is not a legal bid of player {self.player}")
            pending = self.pending + (int(action),)
            if len(pending) == shared.ruleset.players:
                c = _Turn(shared, _bids_child(shared, h, pending), ())
            else:
                c = _Turn(shared, h, pending)
        if shared.cached < MAX_CACHED_NODES:
            self.children[action] = c
            shared.cached += 1
        return c

    def info_string(self, player: int) -> str:
        text = _info_string(self.h, player)
        if self.h.player != _SIMULTANEOUS:
            return text
        mine = f" my bid {self.pending[player]}" if player < len(self.pending) else ""
        return f"{text} bidder {len(self.pending)}{mine}"


class CardtableGoofspielTurnBasedGame(CardtableGoofspielGame):
    """The turn-based form of :class:`CardtableGoofspielGame` (OpenSpiel's
    ``python_cardtable_goofspiel_turn_based``, same parameters): the seats of a
    round bid one after another (seat 0 first) and nobody sees a bid before the
    round is complete, which is how ``pyspiel.convert_to_turn_based`` turns the
    simultaneous game into one CFR can solve. Written in Python, so OpenSpiel's
    Python algorithms call it without crossing into C++ and back for every query
    (docs/research.md, OpenSpiel: CFR+ seconds per iteration).

    Information state of a seat: its information state in the simultaneous game,
    plus, during a round of bids, which seat bids now and its own bid if made.
    Strings only (no tensors). ``IMPERFECT_INFORMATION``: a seat bids without
    seeing the bids made before it in the round.
    """

    _FORM = _TURN_FORM
    _TURN_BASED = True

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(params)
        self._turn_root = _Turn(self._shared, self._shared.root, ())

    def new_initial_state(self) -> "CardtableGoofspielTurnState":
        return CardtableGoofspielTurnState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _TurnObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class CardtableGoofspielTurnState(pyspiel.State):
    """A state of the turn-based form. The queries OpenSpiel's Python algorithms
    make (``current_player``, ``legal_actions``, ``information_state_string``, ...)
    are answered in Python; C++ callers reach the same answers through the
    overridden hooks."""

    def __init__(self, game: CardtableGoofspielTurnBasedGame) -> None:
        super().__init__(game)
        self._t = game._turn_root

    @property
    def ruleset(self) -> Ruleset:
        return self._t.shared.ruleset

    @property
    def engine_game(self) -> Game:
        """The wrapped engine game at the start of the current round of bids (do not modify)."""
        return self._t.h.game

    def current_player(self) -> int:
        return self._t.player

    def is_terminal(self) -> bool:
        return self._t.terminal

    def is_chance_node(self) -> bool:
        return self._t.player == _CHANCE

    def is_simultaneous_node(self) -> bool:
        return False

    def is_player_node(self) -> bool:
        return self._t.player >= 0

    def legal_actions(self, player: int | None = None) -> list[int]:
        t = self._t
        if player is None:
            player = t.player
        if t.terminal:
            return []
        if t.player == _CHANCE:
            return [a for a, _ in _chance_outcomes(t.shared, t.h)] if player == _CHANCE else []
        return list(self._legal_actions(player)) if player == t.player else []

    def _legal_actions(self, player: int) -> list[int]:
        t = self._t
        if player != t.player or t.player < 0:
            return []
        return _legal(t.shared, t.h, player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        t = self._t
        return list(_chance_outcomes(t.shared, t.h)) if t.player == _CHANCE else []

    def _apply_action(self, action: int) -> None:
        self._t = self._t.child(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return _action_string(self.ruleset, player, action)

    def returns(self) -> list[float]:
        return list(_returns(self._t.shared, self._t.h))

    def information_state_string(self, player: int | None = None) -> str:
        return self._t.info_string(self._t.player if player is None else player)

    def observation_string(self, player: int | None = None) -> str:
        t = self._t
        p = t.player if player is None else player
        text = _observation_string(t.h, p)
        if t.h.player != _SIMULTANEOUS:
            return text
        mine = f" my bid {t.pending[p]}" if p < len(t.pending) else ""
        return f"{text} bidder {len(t.pending)}{mine}"

    def __str__(self) -> str:
        t = self._t
        return _state_string(t.h) + (f" bids so far {list(t.pending)}" if t.pending else "")


class _TurnObserver:
    """Strings of the turn-based form (PyObserver interface, no tensor)."""

    def __init__(self, iig_obs_type) -> None:
        self.iig_obs_type = iig_obs_type
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = None
        self.dict: dict[str, Any] = {}

    def set_from(self, state: CardtableGoofspielTurnState, player: int) -> None:
        pass

    def string_from(self, state: CardtableGoofspielTurnState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_string(player)
        return state.observation_string(player)


pyspiel.register_game(_GAME_TYPE, CardtableGoofspielGame)
pyspiel.register_game(_TURN_GAME_TYPE, CardtableGoofspielTurnBasedGame)


def load(*, turn_based: bool = False, **params: Any) -> CardtableGoofspielGame:
    """``pyspiel.load_game(SHORT_NAME, params)``; with ``turn_based=True`` the
    turn-based form (:class:`CardtableGoofspielTurnBasedGame`)."""
    return pyspiel.load_game(TURN_BASED_SHORT_NAME if turn_based else SHORT_NAME, params)
