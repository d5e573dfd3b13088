"""Fixed-size action and observation encodings of Goofspiel, for learning code.

Actions (one ``Discrete(A)`` space per ruleset, the same for every seat):

- ``0 .. C-1``: a **bid**, the index into :func:`bid_combinations` -- every
  ``cards_per_bid``-card combination of the *full* hand ``1..cards`` in
  lexicographic order (``C = comb(cards, cards_per_bid)``). With one card per
  bid, action ``i`` bids card ``i + 1`` (the same numbering as OpenSpiel's
  ``goofspiel``).
- open prizes only (``open_prizes > 1``): ``C .. C+cards-1``: **choose** the prize
  ``action - C + 1`` from the display, and ``C + cards``: **wait** (the only
  legal action of a player who is not choosing, and of every player in the
  choose phase who does not choose now).

So ``A = C`` without open prizes and ``A = C + cards + 1`` with them. The
action mask marks the legal actions of the current phase.

Observation vector (``float32``, all entries in ``[0, 1]``), from the viewer's
seat; seats are *relative*: block ``j`` describes seat ``(seat + j) % players``,
so block 0 is always the viewer. Layout (``n = cards``, ``P = players``), in order:

============================  =========  =========================================
name                          length     meaning
============================  =========  =========================================
``hands``                     ``P*n``    1 where relative seat ``j`` still holds card ``c``
``pot``                       ``n``      1 for each face-up prize (pot or display)
``remaining``                 ``n``      1 for each face-down prize (which remain is public)
``next_prize``                ``n``      one-hot next face-down prize when the order is
                                         public (fixed prize order), else zeros
``points``                    ``P``      prize points per relative seat / total prize value
``phase``                     ``2``      one-hot: bid, choose
``my_choice``                 ``1``      1 when the viewer chooses a prize now
``round``                     ``1``      rounds played / rounds in the game
============================  =========  =========================================

:func:`observation_layout` returns these slices for a ruleset.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np

from cardtable.goofspiel import PlayerView, Ruleset

Bid = tuple[int, ...]


@lru_cache(maxsize=None)
def bid_combinations(cards: int, cards_per_bid: int) -> tuple[Bid, ...]:
    """Every bid of ``cards_per_bid`` cards from the full hand ``1..cards``, lexicographic."""
    return tuple(combinations(range(1, cards + 1), cards_per_bid))


@lru_cache(maxsize=None)
def _bid_index(cards: int, cards_per_bid: int) -> dict[Bid, int]:
    return {b: i for i, b in enumerate(bid_combinations(cards, cards_per_bid))}


def num_bid_actions(ruleset: Ruleset) -> int:
    """``C``: the number of bid actions, ``comb(cards, cards_per_bid)``."""
    return comb(ruleset.cards, ruleset.cards_per_bid)


def num_actions(ruleset: Ruleset) -> int:
    """``A``: size of the action space (see the module docstring)."""
    c = num_bid_actions(ruleset)
    return c + ruleset.cards + 1 if ruleset.open_prizes > 1 else c


def wait_action(ruleset: Ruleset) -> int | None:
    """The wait action (open prizes), or ``None`` when the ruleset has none."""
    return num_bid_actions(ruleset) + ruleset.cards if ruleset.open_prizes > 1 else None


def bid_to_action(ruleset: Ruleset, bid: Bid | int) -> int:
    """Action index of a bid (a rank or a tuple of ranks).

    Raises:
        ValueError: not a bid of ``cards_per_bid`` distinct ranks of this ruleset.
    """
    key = (bid,) if isinstance(bid, int) else tuple(sorted(bid))
    try:
        return _bid_index(ruleset.cards, ruleset.cards_per_bid)[key]
    except KeyError:
        raise ValueError(
            f"{bid!r} is not a bid of {ruleset.cards_per_bid} card(s) from 1..{ruleset.cards}"
        ) from None


def choice_to_action(ruleset: Ruleset, prize: int) -> int:
    """Action index of taking ``prize`` from the display (open prizes only).

    Raises:
        ValueError: the ruleset has no open prizes or the rank is out of range.
    """
    if ruleset.open_prizes <= 1 or not 1 <= prize <= ruleset.cards:
        raise ValueError(f"no choose action for prize {prize!r} in {ruleset.describe()}")
    return num_bid_actions(ruleset) + prize - 1


def decode_action(ruleset: Ruleset, action: int) -> tuple[str, Bid | int | None]:
    """``("bid", bid)``, ``("choose", prize)`` or ``("wait", None)``.

    Raises:
        ValueError: ``action`` is outside ``0 .. A-1``.
    """
    a = int(action)
    c = num_bid_actions(ruleset)
    if 0 <= a < c:
        return "bid", bid_combinations(ruleset.cards, ruleset.cards_per_bid)[a]
    if ruleset.open_prizes > 1 and c <= a < c + ruleset.cards:
        return "choose", a - c + 1
    if a == wait_action(ruleset):
        return "wait", None
    raise ValueError(f"action {action!r} is outside 0..{num_actions(ruleset) - 1}")


def action_mask(view: PlayerView) -> np.ndarray:
    """``int8`` vector of length ``A``: 1 for each legal action of ``view.seat`` now."""
    rs = view.ruleset
    mask = np.zeros(num_actions(rs), dtype=np.int8)
    if view.phase == "bid":
        index = _bid_index(rs.cards, rs.cards_per_bid)
        for b in view.legal_bids():
            mask[index[b]] = 1
    elif view.phase == "choose":
        if view.chooser == view.seat:
            for p in view.pot:
                mask[choice_to_action(rs, p)] = 1
        else:
            mask[wait_action(rs)] = 1
    return mask


def observation_layout(ruleset: Ruleset) -> dict[str, slice]:
    """Name -> slice of the observation vector (see the module docstring)."""
    n, p = ruleset.cards, ruleset.players
    return _slices(
        [
            ("hands", p * n),
            ("pot", n),
            ("remaining", n),
            ("next_prize", n),
            ("points", p),
            ("phase", 2),
            ("my_choice", 1),
            ("round", 1),
        ]
    )


def _slices(sizes: list[tuple[str, int]]) -> dict[str, slice]:
    """Consecutive named slices of the given lengths."""
    out, start = {}, 0
    for name, size in sizes:
        out[name] = slice(start, start + size)
        start += size
    return out


def observation_size(ruleset: Ruleset) -> int:
    """Length of the observation vector."""
    return observation_layout(ruleset)["round"].stop


def encode_observation(view: PlayerView) -> np.ndarray:
    """The ``float32`` observation vector of ``view`` (layout: :func:`observation_layout`)."""
    rs = view.ruleset
    n, p = rs.cards, rs.players
    lay = observation_layout(rs)
    obs = np.zeros(observation_size(rs), dtype=np.float32)
    hands = obs[lay["hands"]].reshape(p, n)
    for j in range(p):
        for c in view.hands[(view.seat + j) % p]:
            hands[j, c - 1] = 1.0
    for c in view.pot:
        obs[lay["pot"].start + c - 1] = 1.0
    for c in view.remaining_prizes:
        obs[lay["remaining"].start + c - 1] = 1.0
    if view.upcoming:
        obs[lay["next_prize"].start + view.upcoming[0] - 1] = 1.0
    total = rs.total_prize_value
    for j in range(p):
        obs[lay["points"].start + j] = view.points[(view.seat + j) % p] / total
    if view.phase == "bid":
        obs[lay["phase"].start] = 1.0
    elif view.phase == "choose":
        obs[lay["phase"].start + 1] = 1.0
        obs[lay["my_choice"].start] = float(view.chooser == view.seat)
    played = len(view.history)
    obs[lay["round"].start] = min(1.0, played / max(1, rs.rounds))
    return obs


def state_layout(ruleset: Ruleset) -> dict[str, slice]:
    """Name -> slice of the global state vector (see :func:`encode_state`)."""
    n, p = ruleset.cards, ruleset.players
    return _slices(
        [
            ("hands", p * n),
            ("pot", n),
            ("remaining", n),
            ("next_prize", n),
            ("points", p),
            ("phase", 2),
            ("chooser", p),
            ("round", 1),
        ]
    )


def state_size(ruleset: Ruleset) -> int:
    """Length of the global state vector."""
    return state_layout(ruleset)["round"].stop


def encode_state(game) -> np.ndarray:
    """The ``float32`` global state of a :class:`~cardtable.goofspiel.Game` (for
    centralised critics), all entries in ``[0, 1]``, seats *absolute* (block ``j`` is
    seat ``j``). Like the observation, plus what no player sees: ``next_prize`` is
    the true next face-down prize even in a shuffled deck; ``chooser`` is one-hot
    the seat choosing a prize now (open prizes). Layout: :func:`state_layout`."""
    rs = game.ruleset
    n, p = rs.cards, rs.players
    lay = state_layout(rs)
    out = np.zeros(state_size(rs), dtype=np.float32)
    hands = out[lay["hands"]].reshape(p, n)
    for s, hand in enumerate(game.hands):
        for c in hand:
            hands[s, c - 1] = 1.0
    for c in game.pot:
        out[lay["pot"].start + c - 1] = 1.0
    deck = game.deck
    for c in deck:
        out[lay["remaining"].start + c - 1] = 1.0
    if deck:
        out[lay["next_prize"].start + deck[0] - 1] = 1.0
    total = rs.total_prize_value
    for s, pts in enumerate(game.points):
        out[lay["points"].start + s] = pts / total
    if game.phase == "bid":
        out[lay["phase"].start] = 1.0
    elif game.phase == "choose":
        out[lay["phase"].start + 1] = 1.0
        out[lay["chooser"].start + game.chooser] = 1.0
    out[lay["round"].start] = min(1.0, len(game.history) / max(1, rs.rounds))
    return out
