"""A batched Goofspiel simulator: many games at once in NumPy arrays, for
fixed-policy bots and Monte Carlo evaluation at scale.

Scope: every ruleset with single-card bids and one prize at a time
(``cards_per_bid == 1``, ``open_prizes == 1``): 2-5 players, carry-over or
discard ties, highest-unique-bid, high ace, shuffled or fixed prize order.
Other rulesets raise ``ValueError`` (use the engine, :func:`cardtable.goofspiel.autoplay.play_game`).

Policies (one per seat, by name):

- ``"random"``: a uniformly random card of the hand. It draws from NumPy's
  generator, not from Python's ``random`` like the engine's ``RandomBot``, so the
  two agree *in distribution*, not game by game. Agreement with the engine is
  checked by replaying the simulator's recorded bids in the engine (same prize
  decks, same bids: same points, tested).
- ``"matcher"``: the card whose strength equals the newest prize's value, else the
  closest (lower on a tie) -- exactly the engine's ``MatcherBot``.
- ``"heuristic"``: the engine's ``HeuristicBot`` with ``noise=0`` and ``lam=0.5``,
  vectorised with the same floating-point operations in the same order, so its
  bids agree exactly, game by game (tested).

Two implementations share these semantics: when every seat plays ``random`` or
``matcher``, a Numba-compiled loop plays the games one after another over the
arrays (the fast path, used by ``bench/simulate.py``); with a ``heuristic``
seat, NumPy plays all games a round at a time. Both draw from seeded
generators, so a seed reproduces a batch.

>>> r = simulate(Ruleset(cards=5), ["matcher", "matcher"], games=4, seed=0)
>>> r.points.tolist()   # two matchers tie every round
[[0, 0], [0, 0], [0, 0], [0, 0]]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from cardtable.goofspiel import Ruleset, prize_order_for

POLICIES = ("random", "matcher", "heuristic")


@dataclass
class SimResult:
    """The outcome of a batch.

    Attributes:
        points: ``int64[G, P]`` prize points per game and seat.
        prize_decks: ``int64[G, n]`` the prize order of each game (face ranks, top first).
        bids: ``int64[G, R, P]`` every bid (face ranks) when ``record=True``, else ``None``.
    """

    points: np.ndarray
    prize_decks: np.ndarray
    bids: np.ndarray | None = None

    @property
    def point_difference(self) -> np.ndarray:
        """``int64[G, P]``: own points minus the best opponent's (docs/rules.md, End of the game)."""
        p = self.points
        out = np.empty_like(p)
        for s in range(p.shape[1]):
            others = np.delete(p, s, axis=1)
            out[:, s] = p[:, s] - others.max(axis=1)
        return out


@dataclass
class _State:
    rs: Ruleset
    hands: np.ndarray  # bool[G, P, n]
    pot: np.ndarray  # bool[G, n]   face-up prizes
    facedown: np.ndarray  # bool[G, n]
    pot_value: np.ndarray  # int64[G]
    newest: np.ndarray  # int64[G]     rank of the prize turned up this round
    round: int  # 0-based
    strength: np.ndarray  # int64[n]     bid strength of card c+1
    value: np.ndarray  # int64[n]     prize value of card c+1


def _check(ruleset: Ruleset, policies: Sequence[str]) -> None:
    if ruleset.cards_per_bid != 1 or ruleset.open_prizes != 1:
        raise ValueError(
            "the batched simulator handles single-card bids and one prize at a time; "
            "use the engine for multi-card bids and open prizes"
        )
    if len(policies) != ruleset.players:
        raise ValueError(f"{ruleset.players} players need {ruleset.players} policies, got {len(policies)}")
    for p in policies:
        if p not in POLICIES:
            raise ValueError(f"unknown policy {p!r}; choose from {', '.join(POLICIES)}")


def engine_prize_decks(ruleset: Ruleset, seeds: Sequence[int | str]) -> np.ndarray:
    """``int64[len(seeds), n]``: the engine's prize order for each seed (``prize_order_for``)."""
    return np.array([prize_order_for(ruleset, s) for s in seeds], dtype=np.int64)


def simulate(
    ruleset: Ruleset,
    policies: Sequence[str],
    games: int,
    seed: int | None = None,
    prize_decks: np.ndarray | None = None,
    record: bool = False,
) -> SimResult:
    """Play ``games`` games at once.

    Args:
        ruleset: the variant (see the module docstring for the supported ones).
        policies: one policy name per seat.
        games: the batch size ``G``.
        seed: seeds NumPy's generator (prize shuffles and random policies).
        prize_decks: ``int[G, n]`` explicit prize orders (e.g. :func:`engine_prize_decks`).
        record: keep every bid in ``SimResult.bids``.

    Raises:
        ValueError: an unsupported ruleset, unknown policy, or malformed ``prize_decks``.
    """
    _check(ruleset, policies)
    rs = ruleset
    G = int(games)
    rng = np.random.default_rng(seed)
    cheap = all(p in ("random", "matcher") for p in policies)
    decks, shuffle = _decks(rs, G, prize_decks, cheap, rng)
    strength = np.array([rs.strength(c) for c in range(1, rs.cards + 1)], dtype=np.int64)
    value = np.array([rs.prize_value(c) for c in range(1, rs.cards + 1)], dtype=np.int64)
    if cheap:
        return _simulate_cheap(rs, policies, decks, strength, value, rng, record, shuffle)
    return _simulate_numpy(rs, policies, decks, strength, value, rng, record)


def _decks(
    rs: Ruleset, G: int, prize_decks: np.ndarray | None, cheap: bool, rng: np.random.Generator
) -> tuple[np.ndarray, bool]:
    """``int64[G, n]`` prize orders, and whether the Numba kernel still has to shuffle them.

    The given ``prize_decks`` (checked), the fixed order, or shuffled: here with NumPy, or left
    empty for the kernel when every policy is cheap.

    Raises:
        ValueError: ``prize_decks`` not ``G`` permutations of ``1..n``.
    """
    n = rs.cards
    if prize_decks is not None:
        decks = np.asarray(prize_decks, dtype=np.int64)
        if decks.shape != (G, n) or not (np.sort(decks, axis=1) == np.arange(1, n + 1)).all():
            raise ValueError(f"prize_decks must be {G} permutations of 1..{n}")
        return decks, False
    if rs.fixed_order:
        return np.tile(np.array(prize_order_for(rs, None), dtype=np.int64), (G, 1)), False
    if cheap:  # shuffled in the Numba kernel
        return np.empty((G, n), dtype=np.int64), True
    return np.argsort(rng.random((G, n)), axis=1).astype(np.int64) + 1, True


def _simulate_cheap(
    rs: Ruleset,
    policies: Sequence[str],
    decks: np.ndarray,
    strength: np.ndarray,
    value: np.ndarray,
    rng: np.random.Generator,
    record: bool,
    shuffle: bool,
) -> SimResult:
    """The fast path: every seat ``random`` or ``matcher``, the games played by the Numba kernel."""
    # lazy: the Numba kernel loads Numba (~0.5 s, compiled on first use); only cheap policies need it
    from ._simulate_numba import play_cheap

    G, n, P = decks.shape[0], rs.cards, rs.players
    points = np.zeros((G, P), dtype=np.int64)
    cheap_log = np.zeros((G, n, P), dtype=np.int64)
    codes = np.array([0 if p == "random" else 1 for p in policies], dtype=np.int64)
    play_cheap(
        decks,
        codes,
        strength,
        value,
        rs.tie_rule == "carry",
        rs.unique_bids,
        int(rng.integers(0, 2**62)),
        points,
        cheap_log,
        record,
        shuffle,
    )
    return SimResult(points, decks, cheap_log if record else None)


def _simulate_numpy(
    rs: Ruleset,
    policies: Sequence[str],
    decks: np.ndarray,
    strength: np.ndarray,
    value: np.ndarray,
    rng: np.random.Generator,
    record: bool,
) -> SimResult:
    """The general path (a ``heuristic`` seat): NumPy plays all games a round at a time."""
    G, n, P = decks.shape[0], rs.cards, rs.players
    st = _State(
        rs,
        np.ones((G, P, n), dtype=bool),
        np.zeros((G, n), dtype=bool),
        np.ones((G, n), dtype=bool),
        np.zeros(G, dtype=np.int64),
        np.zeros(G, dtype=np.int64),
        0,
        strength,
        value,
    )
    points = np.zeros((G, P), dtype=np.int64)
    bids_log = np.zeros((G, n, P), dtype=np.int64) if record else None
    rows = np.arange(G)
    fns: list[Callable] = [_POLICY_FNS[p] for p in policies]
    for r in range(n):
        st.round = r
        prize = decks[:, r]
        st.newest = prize
        st.pot[rows, prize - 1] = True
        st.facedown[rows, prize - 1] = False
        st.pot_value = st.pot_value + st.value[prize - 1]
        bids = np.stack([fns[s](st, s, rng) for s in range(P)], axis=1)  # (G, P) ranks
        if bids_log is not None:  # record
            bids_log[:, r, :] = bids
        st.hands[rows[:, None], np.arange(P)[None, :], bids - 1] = False
        winner = _winners(st.strength[bids - 1], rs.unique_bids)
        won = winner >= 0
        points[rows[won], winner[won]] += st.pot_value[won]
        last = r == n - 1
        clear = won | (rs.tie_rule == "discard") | last
        st.pot[clear] = False
        st.pot_value = np.where(clear, 0, st.pot_value)
    return SimResult(points, decks, bids_log)


def _winners(strength: np.ndarray, unique: bool) -> np.ndarray:
    """``int64[G]``: the winning seat or -1 on a tie (docs/rules.md, Ties; ``top_bidder``)."""
    s = strength
    if unique:
        counts = (s[:, :, None] == s[:, None, :]).sum(axis=2)
        s = np.where(counts == 1, s, -1)
    best = s.max(axis=1)
    top = (s == best[:, None]) & (best[:, None] >= 0)
    return np.where(top.sum(axis=1) == 1, top.argmax(axis=1), -1)


# -- policies: (state, seat, rng) -> int64[G] card ranks ----------------------------------


def _random(st: _State, seat: int, rng: np.random.Generator) -> np.ndarray:
    keys = np.where(st.hands[:, seat, :], rng.random(st.hands.shape[::2]), -1.0)
    return keys.argmax(axis=1) + 1


def _matcher(st: _State, seat: int, rng) -> np.ndarray:
    target = st.value[st.newest - 1]  # (G,)
    dist = np.abs(st.strength[None, :] - target[:, None])  # (G, n)
    # lexicographic (distance, strength) among held cards
    key = dist * 1000 + st.strength[None, :]
    key = np.where(st.hands[:, seat, :], key, np.iinfo(np.int64).max)
    return key.argmin(axis=1) + 1


def _sorted_by_strength(st: _State, hand: np.ndarray, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Held cards of each game sorted by strength: (strengths int64[G, h], ranks int64[G, h])."""
    order = np.argsort(st.strength)  # card indices by strength
    held = hand[:, order]  # (G, n) in strength order
    idx = np.argsort(~held, axis=1, kind="stable")[:, :h]  # first h held, in order
    card_idx = order[idx]
    return st.strength[card_idx], card_idx + 1


def _heuristic(st: _State, seat: int, rng, lam: float = 0.5) -> np.ndarray:
    G, P, n = st.hands.shape
    h = n - st.round
    own_str, own_card = _sorted_by_strength(st, st.hands[:, seat, :], h)
    if h == 1:
        return own_card[:, 0]
    pot = st.pot_value.astype(np.float64)  # (G,)
    inplay = st.pot | st.facedown
    m = inplay.sum(axis=1)  # (G,)
    vals = np.sort(np.where(inplay, st.value[None, :], np.iinfo(np.int64).max), axis=1)
    q = (np.where(inplay, st.value[None, :] <= st.pot_value[:, None], False).sum(axis=1)) / m
    p_win = np.ones((G, h))
    p_nl = np.ones((G, h))
    for opp in range(P):
        if opp == seat:
            continue
        opp_str, _ = _sorted_by_strength(st, st.hands[:, opp, :], h)
        i = np.clip(np.rint(q * (h - 1)).astype(np.int64), 0, h - 1)
        w = np.full((G, h), 0.3 / h)
        cols = np.arange(h)[None, :]
        w = np.where(cols == i[:, None], w + 0.4, w)
        w = np.where((cols == i[:, None] - 1) | (cols == i[:, None] + 1), w + 0.15, w)
        total = np.cumsum(w, axis=1)[:, -1]
        p = w / total[:, None]
        cum = np.concatenate([np.zeros((G, 1)), np.cumsum(p, axis=1)], axis=1)  # cum[:, k] = sum of first k
        lt = (opp_str[:, None, :] < own_str[:, :, None]).sum(axis=2)  # (G, h)
        le = (opp_str[:, None, :] <= own_str[:, :, None]).sum(axis=2)
        p_win = p_win * np.take_along_axis(cum, lt, axis=1)
        p_nl = p_nl * np.take_along_axis(cum, le, axis=1)
    frac = np.arange(h) / (h - 1)  # option index quantile
    widx = np.clip(np.rint(frac[None, :] * (m - 1)[:, None]).astype(np.int64), 0, (m - 1)[:, None])
    worth = np.take_along_axis(vals, widx, axis=1).astype(np.float64)
    score = p_win * pot[:, None] + 0.4 * (p_nl - p_win) * pot[:, None] - lam * worth
    best = score.argmax(axis=1)
    return own_card[np.arange(G), best]


_POLICY_FNS = {"random": _random, "matcher": _matcher, "heuristic": _heuristic}
