"""Bayesian opponent model over a few bidding *types*, for the ``mcts`` bot.

Spent bids are public (docs/rules.md, What each player knows), so after each round every opponent's bid
is evidence about how that opponent plays. The model keeps, per opponent, a
posterior over these types (one-card bids, one prize at a time only):

- ``search``: an adaptive player the model cannot predict; the search itself
  plays this seat (decoupled selection). Its likelihood is half uniform, half
  ``quantile``: an adaptive bidder still tends to bid high for big pots, so a
  bidder whose bids ignore the pot (a random one) moves weight from ``search``
  to ``uniform`` round by round (with a uniform likelihood, as before, the two
  could never be told apart, and the search kept playing random bidders as
  adversaries: 3 players against two ``random`` bots, +1.08 +- 3.25).
- ``uniform``: a uniformly random legal bid.
- ``match``: the card whose strength is closest to the newest prize's value.
- ``quantile``: the card at the same quantile of the hand as the pot's value
  among the prizes in play: 0.4 there, 0.15 on each neighbour, and with 2
  players 0.3 spread over the hand (the ``heuristic`` bot's model of an
  opponent); with 3 to 5 players no spread (renormalised), since a spread type
  overlaps ``uniform`` and kept about 0.22 of a random bidder's weight through
  an 8-card game (0.10 without; tests/research/test_mcts.py).
- ``tips``: the rule texts' tips (the ``heuristic`` bot, no noise).

Each type's predicted bid is mixed with ``NOISE`` of a uniform bid, so one
surprising bid lowers a type's weight without ruling it out. Priors: ``PRIOR``
with 2 players, ``PRIOR_MULTI`` with 3 to 5 (:func:`prior`).

Why two priors: a random bidder's bids are only weak evidence against
``search`` (an expected likelihood ratio of about 1.1 per round with 8 cards
in hand, since ``search`` is half uniform), so with ``search`` at 0.6 a random
bidder keeps most of its weight on ``search`` through a whole 8-card game
(tests/research/test_mcts.py), and the tree played such opponents as
adversaries. With 3 or more players that cost the most: MCTS against two
``random`` bots scored no more than ``matcher`` in the same seat
(docs/research.md, MCTS bot). ``PRIOR_MULTI`` starts with 0.6 on ``uniform`` and
0.1 on each other type (``search`` included): the evidence is lopsided, so the
prior leans towards the type that is slow to confirm. A bid on a deterministic
type's prediction multiplies that type's weight against ``uniform`` by about 7 (8
cards in hand) and one off it divides it by about 10, so a deterministic bot is
still recognised within two or three rounds (4 players, 20 games: ``match`` 0.82
after two rounds and 0.96 after three for a ``matcher``, ``tips`` 0.81 and 0.93
for a ``heuristic``), while a random bidder's bids only slowly rule out the
predictable types by chance agreements (``uniform`` 0.68 after one round, 0.77
after four, 0.81 after seven; with the former prior, 0.3 on ``uniform`` and 0.2 on
each predictable type, 0.48, 0.64 and 0.71). An adaptive bidder that fits no type
moves weight back to ``search``.
"""

from __future__ import annotations

from functools import lru_cache

from ..state import Game, PlayerView
from .heuristic import HeuristicBot

PRIOR = {"search": 0.6, "uniform": 0.1, "match": 0.1, "quantile": 0.1, "tips": 0.1}
NOISE = 0.1
SEARCH_UNIFORM = 0.5  # the uniform share of the ``search`` type's likelihood (the rest: ``quantile``)
PRIOR_MULTI = {"search": 0.1, "uniform": 0.6, "match": 0.1, "quantile": 0.1, "tips": 0.1}
#: the ``quantile`` type's uniform spread with 3 to 5 players (the ``heuristic`` bot's model, used
#: with 2 players, spreads 0.3): see :func:`_quantile_policy`
QUANTILE_SPREAD_MULTI = 0.0
MODEL_TYPES = tuple(t for t in PRIOR if t != "search")


def prior(players: int) -> dict[str, float]:
    """The prior over the types for a game of ``players`` players (a fresh dict):
    ``PRIOR`` for 2, ``PRIOR_MULTI`` for more."""
    return dict(PRIOR if players == 2 else PRIOR_MULTI)


def supported(view: PlayerView) -> bool:
    """The model covers one-card bids with one prize at a time."""
    return view.ruleset.cards_per_bid == 1 and view.ruleset.open_prizes == 1


@lru_cache(maxsize=1)
def _tips_bot() -> HeuristicBot:
    return HeuristicBot(seed=0)


def type_policies(view: PlayerView) -> dict[str, dict[int, float]]:
    """Each model type's bid distribution ``{card: probability}`` for ``view.seat``
    (before the ``NOISE`` mixing). ``view`` must be in the bid phase."""
    rs = view.ruleset
    hand = sorted(view.hand, key=rs.strength)
    n = len(hand)
    out = {"uniform": {c: 1.0 / n for c in hand}}
    target = rs.prize_value(view.pot[-1])
    out["match"] = {min(hand, key=lambda c: (abs(rs.strength(c) - target), rs.strength(c))): 1.0}
    pot = view.pot_value
    prizes = sorted(rs.prize_value(p) for p in (*view.remaining_prizes, *view.pot))
    q = sum(1 for v in prizes if v <= pot) / len(prizes)
    out["quantile"] = _quantile_policy(view, hand, q)
    out["tips"] = {_tips_bot().bid(view)[0]: 1.0}
    return out


def _quantile_policy(view: PlayerView, hand: list[int], q: float) -> dict[int, float]:
    """The ``quantile`` type's bid distribution over ``hand`` (sorted by strength) for the
    pot's quantile ``q``: with 2 players the ``heuristic`` bot's model of a bidder (0.4 on the
    card at rank ``q``, 0.15 on each neighbour, 0.3 spread over the hand); with 3 to 5 the same
    without the spread (``QUANTILE_SPREAD_MULTI``), renormalised."""
    rs = view.ruleset
    if rs.players == 2:
        by_strength = {rs.strength(c): c for c in hand}
        return {by_strength[st]: w for st, w in _tips_bot()._opponent_model(view, view.seat, q)}
    n = len(hand)
    weights = [QUANTILE_SPREAD_MULTI / n] * n
    i = min(n - 1, max(0, round(q * (n - 1))))
    for j, w in ((i, 0.4), (i - 1, 0.15), (i + 1, 0.15)):
        if 0 <= j < n:
            weights[j] += w
    total = sum(weights)
    return {c: w / total for c, w in zip(hand, weights, strict=True)}


def predictive(view: PlayerView, posterior: dict[str, float]) -> tuple[float, dict[int, float]]:
    """``(weight, distribution)``: the posterior mass of the model types (not
    ``search``) and their mixed, noise-smoothed bid distribution for ``view.seat``."""
    return mix(type_policies(view), posterior)


def mix(policies: dict[str, dict[int, float]], posterior: dict[str, float]) -> tuple[float, dict[int, float]]:
    """:func:`predictive` from already computed :func:`type_policies`."""
    hand = policies["uniform"]
    mass = sum(posterior[t] for t in MODEL_TYPES)
    dist = dict.fromkeys(hand, 0.0)
    if mass <= 0:
        return 0.0, {c: 1.0 / len(hand) for c in hand}
    for t in MODEL_TYPES:
        w = posterior[t] / mass
        for c in hand:
            dist[c] += w * ((1 - NOISE) * policies[t].get(c, 0.0) + NOISE * hand[c])
    return mass, dist


def posteriors(view: PlayerView) -> dict[int, dict[str, float]]:
    """Per opponent seat, the posterior over the types (starting from :func:`prior`)
    given the rounds in ``view.history``."""
    rs = view.ruleset
    post = {s: prior(rs.players) for s in view.opponents}
    if not view.history:
        return post
    prizes: list[int] = []
    for r in view.history:
        for p in r.prizes:
            if p not in prizes:
                prizes.append(p)
    rest = [p for p in rs.deck if p not in prizes]
    game = Game(rs, prize_deck=prizes + rest)
    for r in view.history:
        for s in view.opponents:
            v = game.view(s)
            if len(v.hand) > 1:
                card = r.bids[s][0]
                policies = type_policies(v)
                uniform = 1.0 / len(v.hand)
                for t in PRIOR:
                    if t == "search":
                        like = SEARCH_UNIFORM * uniform + (1 - SEARCH_UNIFORM) * policies["quantile"].get(
                            card, 0.0
                        )
                    else:
                        like = (1 - NOISE) * policies[t].get(card, 0.0) + NOISE * uniform
                    post[s][t] *= like
                total = sum(post[s].values())
                post[s] = {t: x / total for t, x in post[s].items()}
        game.play([tuple(b) for b in r.bids])
    return post
