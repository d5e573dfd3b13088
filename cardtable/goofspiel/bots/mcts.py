"""``mcts``: simultaneous-move Monte Carlo tree search for every Goofspiel variant.

After Lanctot, Lisý and Winands, "Monte Carlo Tree Search in Simultaneous Move
Games with Applications to Goofspiel" (2013), and Lisý, Kovařík, Lanctot and
Bošanský, "Convergence of Monte Carlo Tree Search in Simultaneous Move Games"
(NeurIPS 2013):

- **Determinisation**: the hidden prize order is sampled uniformly for every
  iteration (a set of up to 64 sampled orders per move, reused round-robin;
  with at most 4 face-down prizes, every order once);
  the tree is keyed by the public events (bids, prizes turned up, choices), so
  all sampled orders share one tree.
- **Decoupled selection** at a bid node: each player selects its own action
  from its own statistics, ignoring the others' -- UCB1 (*decoupled UCT*,
  ``selection="duct"``, exploration ``c``), *Exp3* (``"exp3"``, exploration
  ``gamma``) or *regret matching* (``"rm"``, exploration ``gamma``). Our RM
  estimates each action's counterfactual reward by its mean reward so far (a
  low-variance variant of the paper's importance-sampled ``u / sigma(a)``). A
  prize-choice node (open prizes) has one acting player. DUCT tries every
  action of a node once before it uses UCB1; ``try_order=`` sets the order:
  ``"hand"`` (the legal-move order, lowest card first), ``"informed"`` (the card
  the informed playout would bid first, then by distance in rank from it), or
  ``"auto"`` (default: ``"hand"`` with 2 players, ``"informed"`` with 3 to 5,
  where most nodes below the root are visited only a few times, so in the hand's
  order the search valued its root bids as if its next bids were its lowest cards).
- **Opponent model** (``model=True``, one-card bids and one prize at a time):
  a Bayesian posterior over bidding types per opponent, from the bids they
  have revealed (:mod:`~cardtable.goofspiel.bots.opponent_model`; its prior
  puts most weight on the adaptive ``search`` type with 2 players and on the
  modelled types with 3 to 5, 0.6 on ``uniform``, so that random bidders are
  recognised within a game); at every
  bid node an opponent plays as the model predicts with probability equal to
  the posterior mass of the modelled types, otherwise by its own decoupled
  selection (the ``search`` type: an opponent the model cannot predict).
- **Playouts** (``playout=``): ``"informed"`` (default) -- every seat bids the
  card at the pot's quantile among the prizes to come, +-1, and a uniformly
  random bid with probability ``epsilon``; the searching seat bids that card
  exactly when ``own_playout`` resolves to ``"exact"`` (``"auto"``, default:
  when the final move is the most visited card, i.e. with 3 to 5 players);
  multi-card bids and open prizes use ``"random"`` playouts (uniformly random
  legal moves).
- **Reward** per player: its point difference (own points minus the best
  opponent's, docs/rules.md, End of the game) scaled to ``[0, 1]`` by the total prize value.
- **Final move** (``final=``): ``"mix"`` plays a mixed strategy, since
  equilibria of 2-player Goofspiel are mixed -- DUCT in proportion to the visit counts of
  the actions visited at least half as often as the most visited one, RM and
  Exp3 their average strategy with the exploration removed; ``"max"`` plays the
  most visited action; ``"auto"`` (default) is ``"mix"`` with 2 players and
  ``"max"`` with 3 to 5, where the game is not zero-sum between two sides, there
  is no equilibrium the mix would approximate, and spreading the bid over
  near-equal actions only adds noise (docs/research.md, MCTS bot).
  ``search_policy(view)`` returns that mixed move (not
  named ``policy``: it is one search's estimate, not the bot's exact mixed bid).

Works for every ruleset: 2-5 players, multi-card bids, open prizes, any tie rule.

Options: ``iterations`` (the search's budget per decision, default
``DEFAULT_ITERATIONS`` = 1,000: reproducible with a seed) or ``time_limit``
(seconds per decision; alone, the search runs for that time; with
``iterations``, whichever ends first). A small decision stops early (under
either budget): at most
``ITERATIONS_PER_JOINT_MOVE`` (50) iterations per joint move at the root (the
product of the seats' numbers of legal moves there), so a last bid between two
cards takes 200 iterations (DUCT has met every joint move 50 times by then), a
first bid of the 8-card game the full 1,000. A search of 1,000 iterations took
about 0.3 s at 8 cards and 0.5 s at 13 (one core, 2 players; docs/research.md);
``selection``, ``c`` (default 0.2: rewards lie in ``[0, 1]`` but a game's
point differences spread over about a tenth of that, so the former 0.7 left
DUCT's visits nearly uniform and its mixed final move close to a random bid;
3 players against two ``random`` bots: +0.27 +- 2.19 with a perfect opponent
model at c = 0.7, +5.18 +- 2.35 at c = 0.2, 60 games each), ``gamma`` (default 0.1), ``playout``,
``epsilon`` (default 0.3), ``final``, ``model`` (default true), ``try_order``,
``own_playout``. Measurements:
docs/research.md, "MCTS bot".
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any

from cardtable.platform.bot import Option

from ..state import Bid, Game, PlayerView
from . import opponent_model
from .base import GoofspielBot

MAX_DETERMINISATIONS = 64
DEFAULT_ITERATIONS = 1000
ITERATIONS_PER_JOINT_MOVE = 50
#: a node's opponent model, computed when the node is first selected from (a sentinel,
#: compared by identity and never filled)
_LAZY: dict = {}
SELECTIONS = ("duct", "rm", "exp3")
PLAYOUTS = ("informed", "random")
FINALS = ("auto", "mix", "max")
TRY_ORDERS = ("auto", "hand", "informed")
OWN_PLAYOUTS = ("auto", "noisy", "exact")
MIX_THRESHOLD = 0.5


class _Node:
    __slots__ = ("stats", "children", "actions", "model", "untried")

    def __init__(
        self, actions: dict[int, list], model: dict | None = None, untried: dict | None = None
    ) -> None:
        self.actions = actions  # seat -> legal actions here
        self.model = model  # seat -> (weight, [probability per action])
        # seat -> action indices in the order DUCT tries them (None: the legal-move order)
        self.untried = untried
        # seat -> per action [visits, reward sum, regret, cumulative strategy]
        self.stats = {s: [[0, 0.0, 0.0, 0.0] for _ in acts] for s, acts in actions.items()}
        self.children: dict[Any, _Node] = {}


def determinise(view: PlayerView, order: list[int]) -> Game:
    """A full game consistent with ``view``: the prizes turned up so far in their
    order, then the face-down prizes in ``order`` (a permutation of
    ``view.remaining_prizes``), with the history replayed.

    Raises:
        GoofspielError: ``order`` is not a permutation of the face-down prizes.
    """
    rs = view.ruleset
    seen: list[int] = []
    for r in view.history:
        for p in r.prizes:
            if p not in seen:
                seen.append(p)
    if view.pending is not None:
        for p in view.pending.prizes:
            if p not in seen:
                seen.append(p)
    for p in view.pot:
        if p not in seen:
            seen.append(p)
    game = Game(rs, prize_deck=seen + list(order))
    for r in view.history:
        _replay_round(game, r)
    if view.pending is not None:
        game.play([tuple(b) for b in view.pending.bids])
        for seat, prize in view.pending.taken:
            if game.phase == "choose" and game.chooser == seat and prize in game.pot:
                game.choose(seat, prize)
    return game


def pot_quantile(game: Game) -> float:
    """The pot's value as a quantile in ``[0, 1]`` among the face-down prizes' values
    (those below it count 1, equal ones 1/2; 1.0 when none is left): the rank at which the
    informed playout bids from its hand."""
    value = game.ruleset.prize_value
    pot = sum(value(p) for p in game.pot)
    later = [value(p) for p in game.remaining_prizes]
    if not later:
        return 1.0
    return (sum(1.0 for v in later if v < pot) + 0.5 * sum(1.0 for v in later if v == pot)) / len(later)


def _replay_round(game: Game, r) -> None:
    game.play([tuple(b) for b in r.bids])
    for seat, prize in r.taken:
        if game.phase == "choose" and game.chooser == seat and prize in game.pot:
            game.choose(seat, prize)


class MCTSBot(GoofspielBot):
    """Simultaneous-move MCTS (see the module docstring).

    Raises:
        BotSpecError: an option value outside ``option_schema``.
    """

    name = "mcts"
    description = "simultaneous-move Monte Carlo tree search (decoupled UCT, EXP3 or regret matching)"
    option_schema = {
        "iterations": Option(
            int,
            None,
            1,
            10_000_000,
            none=True,
            unit="per decision",
            help=f"search iterations per decision (unset, no time_limit: {DEFAULT_ITERATIONS:,})",
        ),
        "time_limit": Option(
            float, None, 0.0, 3600.0, above_minimum=True, none=True, unit="s", help="seconds per decision"
        ),
        "selection": Option(str, "duct", choices=SELECTIONS, help="decoupled UCT, regret matching or Exp3"),
        "c": Option(float, 0.2, 0.0, 100.0, help="UCT exploration constant"),
        "gamma": Option(
            float,
            0.1,
            0.0,
            1.0,
            above_minimum=True,
            unit="probability",
            help="Exp3 and regret matching exploration",
        ),
        "playout": Option(str, "informed", choices=PLAYOUTS, help="playout policy"),
        "final": Option(
            str,
            "auto",
            choices=FINALS,
            help="final move: the visit mix, the most visited, or auto (mix with 2 players, else max)",
        ),
        "epsilon": Option(
            float, 0.3, 0.0, 1.0, unit="probability", help="share of uniform play in informed playouts"
        ),
        "model": Option(bool, True, help="the Bayesian opponent model"),
        "try_order": Option(
            str,
            "auto",
            choices=TRY_ORDERS,
            help="order in which DUCT tries a node's untried bids: the hand's, nearest the pot's "
            "quantile first, or auto (hand with 2 players, else informed)",
        ),
        "own_playout": Option(
            str,
            "auto",
            choices=OWN_PLAYOUTS,
            help="the searching seat's bids in informed playouts: noisy like every seat's, the "
            "informed card exactly, or auto (exact when the final move is the most visited card)",
        ),
    }

    def __init__(
        self,
        seed: int | str | None = None,
        iterations: int | None = None,
        time_limit: float | None = None,
        selection: str = "duct",
        c: float = 0.2,
        gamma: float = 0.1,
        playout: str = "informed",
        final: str = "auto",
        epsilon: float = 0.3,
        model: bool = True,
        try_order: str = "auto",
        own_playout: str = "auto",
    ) -> None:
        super().__init__(seed)
        if iterations is None and time_limit is None:
            iterations = DEFAULT_ITERATIONS
        self.iterations = iterations
        self.time_limit = None if time_limit is None else float(time_limit)
        self.selection = selection
        self.c = float(c)
        self.gamma = float(gamma)
        self.playout = playout
        self.final = final
        self.epsilon = float(epsilon)
        self.model = model
        self.try_order = try_order
        self.own_playout = own_playout
        self.last_iterations = 0
        self._posterior: dict[int, dict[str, float]] | None = None
        self._policy_cache: dict = {}  # (seat, position) -> opponent_model.type_policies
        self._me = 0

    # -- the bot interface ---------------------------------------------------------------

    def bid(self, view: PlayerView) -> Bid:
        options = view.legal_bids()
        if len(options) == 1:
            return options[0]
        return self._sample(self._search(view))

    def choose_prize(self, view: PlayerView) -> int:
        if len(view.pot) == 1:
            return view.pot[0]
        return self._sample(self._search(view))

    def search_policy(self, view: PlayerView) -> dict:
        """The mixed move of one search at ``view``: ``{card: probability}`` for
        one-card bids (``{bid tuple: probability}`` for multi-card bids, ``{prize:
        probability}`` in the choose phase). ``act`` samples such a distribution.
        """
        if view.phase == "choose":
            if len(view.pot) == 1:
                return {view.pot[0]: 1.0}
            return dict(self._search(view))
        options = view.legal_bids()
        dist = [(options[0], 1.0)] if len(options) == 1 else self._search(view)
        if view.ruleset.cards_per_bid == 1:
            return {b[0]: p for b, p in dist}
        return dict(dist)

    def _sample(self, dist: list[tuple[Any, float]]):
        r, acc = self.rng.random(), 0.0
        for move, p in dist:
            acc += p
            if r < acc:
                return move
        return dist[-1][0]

    # -- search --------------------------------------------------------------------------

    def _actions(self, game: Game) -> dict[int, list]:
        if game.phase == "bid":
            return {s: game.legal_bids(s) for s in range(game.ruleset.players)}
        chooser = game.chooser
        assert chooser is not None  # the choose phase: nodes are made only before the end
        return {chooser: list(game.legal_choices())}

    def _search(self, view: PlayerView) -> list[tuple[Any, float]]:
        """Run the search; the root player's final mixed move as ``[(move, probability)]``."""
        rs = view.ruleset
        remaining = list(view.remaining_prizes)
        dets: list[Game] = []
        root_game = determinise(view, remaining)
        self._me = view.seat
        use_model = self.model and view.phase == "bid" and opponent_model.supported(view)
        self._posterior = opponent_model.posteriors(view) if use_model else None
        if len(view.history) == 0 or len(self._policy_cache) > 200_000:
            self._policy_cache.clear()
        root = self._new_node(root_game)
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        joint = math.prod(len(a) for a in root.actions.values())
        budget = ITERATIONS_PER_JOINT_MOVE * joint
        if self.iterations is not None:
            budget = min(budget, self.iterations)
        total = rs.total_prize_value
        exhaustive = math.factorial(len(remaining)) <= MAX_DETERMINISATIONS
        orders = list(itertools.permutations(remaining)) if exhaustive else []
        n_dets = len(orders) if exhaustive else MAX_DETERMINISATIONS
        i = 0
        while True:
            if i >= budget:
                break
            if deadline is not None and i > 0 and time.perf_counter() >= deadline:
                break
            if len(dets) < n_dets:
                if exhaustive:  # every prize order once (few face-down prizes): no sampling error
                    order = list(orders[len(dets)])
                else:
                    order = list(remaining)
                    self.rng.shuffle(order)
                dets.append(determinise(view, order))
            game = dets[i % len(dets)].copy()
            self._iterate(root, game, total)
            i += 1
        self.last_iterations = i
        return self._final(root, view.seat, rs.players)

    def _new_node(self, game: Game) -> _Node:
        actions = self._actions(game)
        untried = self._untried_order(game, actions)
        if self._posterior is None or game.phase != "bid":
            return _Node(actions, None, untried)
        return _Node(actions, _LAZY, untried)

    def _untried_order(self, game: Game, actions: dict[int, list]) -> dict[int, list[int]] | None:
        """Per seat, the order in which DUCT tries the node's untried bids, or None for the
        legal-move order (lowest card first).

        ``try_order="informed"`` (``"auto"`` with 3 to 5 players; one-card bids, one prize at
        a time, DUCT): the card the informed playout would bid first (the pot's quantile,
        :func:`pot_quantile`), then the others by their distance in rank from it. A node
        below the root is often visited only a few times (with 3 or more players each joint
        move of the opponents makes its own child), and in the legal-move order those visits
        all bid the lowest cards, so the search valued its root bids as if its next bids
        were its lowest cards (docs/research.md, MCTS bot)."""
        rs = game.ruleset
        order = self.try_order if self.try_order != "auto" else ("hand" if rs.players == 2 else "informed")
        if (
            order == "hand"
            or self.selection != "duct"
            or game.phase != "bid"
            or rs.cards_per_bid != 1
            or rs.open_prizes != 1
        ):
            return None
        q = pot_quantile(game)
        out = {}
        for seat, acts in actions.items():
            ranked = sorted(range(len(acts)), key=lambda j: rs.strength(acts[j][0]))
            target = q * (len(ranked) - 1)
            out[seat] = [ranked[i] for i in sorted(range(len(ranked)), key=lambda i: (abs(i - target), i))]
        return out

    def _node_model(self, node: _Node, game: Game) -> dict:
        """Per opponent seat ``(weight, [probability per action])`` at ``node`` (``game`` is there)."""
        model = {}
        key = (game.hands, game.pot, game.remaining_prizes)
        assert self._posterior is not None  # only nodes made with a posterior are lazy
        for seat, post in self._posterior.items():
            if len(node.actions[seat]) > 1:
                policies = self._policy_cache.get((seat, key))
                if policies is None:
                    policies = opponent_model.type_policies(game.view(seat))
                    self._policy_cache[seat, key] = policies
                weight, dist = opponent_model.mix(policies, post)
                model[seat] = (weight, [dist[b[0]] for b in node.actions[seat]])
        return model

    def _select(self, node: _Node, seat: int) -> tuple[int, float]:
        if len(node.actions[seat]) == 1:
            return 0, 1.0
        if node.model is not None and seat in node.model:
            weight, dist = node.model[seat]
            if self.rng.random() < weight:  # the opponent plays as the model predicts
                r, acc = self.rng.random(), 0.0
                for j, p in enumerate(dist):
                    acc += p
                    if r < acc:
                        return j, p
                return len(dist) - 1, dist[-1]
        stats = node.stats[seat]
        k = len(stats)
        if self.selection == "duct":
            return self._duct_select(node, seat), 1.0
        sigma = self._rm_strategy(stats) if self.selection == "rm" else self._exp3_strategy(stats)
        r, acc = self.rng.random(), 0.0
        for j, p in enumerate(sigma):
            acc += p
            if r < acc:
                return j, p
        return k - 1, sigma[-1]

    def _duct_select(self, node: _Node, seat: int) -> int:
        """Decoupled UCT: the first untried action (in ``node.untried``'s order), else the
        action with the highest UCB1 value."""
        stats = node.stats[seat]
        for j in node.untried[seat] if node.untried is not None else range(len(stats)):
            if stats[j][0] == 0:
                return j
        log_n = math.log(sum(st[0] for st in stats))
        best, best_j = -1.0, 0
        for j, st in enumerate(stats):
            v = st[1] / st[0] + self.c * math.sqrt(log_n / st[0])
            if v > best:
                best, best_j = v, j
        return best_j

    def _rm_strategy(self, stats: list) -> list[float]:
        k = len(stats)
        pos = [max(st[2], 0.0) for st in stats]
        s = sum(pos)
        base = [p / s for p in pos] if s > 0 else [1.0 / k] * k
        return [(1 - self.gamma) * b + self.gamma / k for b in base]

    def _exp3_strategy(self, stats: list) -> list[float]:
        # Exp3 (Auer et al. 2002) as in Lanctot et al. 2013: sigma(a) proportional to
        # exp(eta * X_a) mixed with gamma / k, eta = gamma / k; X_a sums u / sigma(a).
        k = len(stats)
        eta = self.gamma / k
        top = max(st[2] for st in stats)
        w = [math.exp(eta * (st[2] - top)) for st in stats]
        s = sum(w)
        return [(1 - self.gamma) * x / s + self.gamma / k for x in w]

    def _iterate(self, root: _Node, game: Game, total: int) -> None:
        path: list[tuple[_Node, dict[int, tuple[int, float]]]] = []
        node = root
        while not game.is_over:
            if node.model is _LAZY:
                node.model = self._node_model(node, game)
            chosen = {seat: self._select(node, seat) for seat in node.actions}
            path.append((node, chosen))
            if game.phase == "bid":
                bids = [node.actions[s][chosen[s][0]] for s in range(game.ruleset.players)]
                game.play(bids)
                key: tuple = (tuple(chosen[s][0] for s in range(game.ruleset.players)), game.pot, game.phase)
            else:
                seat = game.chooser
                assert seat is not None  # the choose phase
                game.choose(seat, node.actions[seat][chosen[seat][0]])
                key = ((chosen[seat][0],), game.pot, game.phase)
            if game.is_over:
                break
            child = node.children.get(key)
            if child is None:  # expand one node per iteration, then play out
                node.children[key] = self._new_node(game)
                break
            node = child
        if self.playout == "informed":
            self._informed_playout(game)
        else:
            self._random_playout(game)
        pts = game.points  # point difference: own points minus the best opponent's
        rewards = [
            ((p - max(q for o, q in enumerate(pts) if o != s)) / total + 1.0) / 2.0 for s, p in enumerate(pts)
        ]
        for node, chosen in path:
            for seat, (j, prob) in chosen.items():
                st = node.stats[seat]
                if len(st) == 1:  # a forced move: nothing to learn
                    continue
                u = rewards[seat]
                if self.selection == "duct":
                    st[j][0] += 1
                    st[j][1] += u
                elif self.selection == "exp3":
                    sigma = self._exp3_strategy(st)
                    st[j][0] += 1
                    st[j][1] += u
                    st[j][2] += u / prob
                    for a, row in enumerate(st):
                        row[3] += sigma[a]
                else:
                    sigma = self._rm_strategy(st)
                    st[j][0] += 1
                    st[j][1] += u
                    for a, row in enumerate(st):
                        # counterfactual reward of action a: its mean reward so far (the sampled
                        # reward for the action played; u itself for actions never tried)
                        x = row[1] / row[0] if row[0] else u
                        row[2] += x - u
                        row[3] += sigma[a]

    def _random_playout(self, game: Game) -> None:
        rng = self.rng
        players = game.ruleset.players
        while not game.is_over:
            if game.phase == "bid":
                game.play([rng.choice(game.legal_bids(s)) for s in range(players)])
            else:
                chooser = game.chooser
                assert chooser is not None  # the choose phase
                game.choose(chooser, rng.choice(game.legal_choices()))

    def _final_kind(self, players: int) -> str:
        """``final`` resolved: ``"mix"`` or ``"max"`` (``"auto"``: mix with 2 players)."""
        return self.final if self.final != "auto" else ("mix" if players == 2 else "max")

    def _exact_own_playout(self, players: int) -> bool:
        """Whether the searching seat bids the informed card exactly (no shift, no
        ``epsilon``) in playouts: ``own_playout="exact"``, or ``"auto"`` when the final move
        is the most visited card (3 to 5 players by default), since the bot's own later bids
        are then a deterministic function of its searches, not noisy ones."""
        if self.own_playout != "auto":
            return self.own_playout == "exact"
        return self._final_kind(players) == "max"

    def _informed_playout(self, game: Game) -> None:
        """Playout where each seat bids the card whose rank in its hand matches the rank
        of the pot's value among the prizes still to come, shifted by -1, 0 or +1 at
        random; with probability ``epsilon`` a uniformly random legal bid instead.
        The searching seat bids that card exactly when :meth:`_exact_own_playout`
        (docs/research.md, MCTS bot: 4 players against three ``random`` bots the noisy
        rule scores -2.6 points a game, the exact one +0.7, ``matcher`` -0.2).
        An opponent plays the whole playout at random with probability equal to the
        opponent model's posterior weight on ``uniform`` (a random bidder).
        Multi-card bids and open prizes play uniformly random bids."""
        rs = game.ruleset
        if rs.cards_per_bid != 1 or rs.open_prizes != 1:
            self._random_playout(game)
            return
        rng = self.rng
        players = rs.players
        strength = rs.strength
        eps = self.epsilon
        # an opponent the model takes for a random bidder bids at random in this playout
        # with probability its posterior weight on ``uniform``
        post = self._posterior or {}
        random_seats = {s for s, p in post.items() if rng.random() < p["uniform"]}
        exact = self._me if self._exact_own_playout(players) else -1
        while not game.is_over:
            q = pot_quantile(game)
            bids = []
            for s in range(players):
                options = game.legal_bids(s)
                if len(options) == 1 or s in random_seats or (s != exact and rng.random() < eps):
                    bids.append(rng.choice(options))
                    continue
                ranked = sorted(options, key=lambda b: strength(b[0]))
                j = round(q * (len(ranked) - 1)) + (0 if s == exact else rng.randint(-1, 1))
                bids.append(ranked[min(max(j, 0), len(ranked) - 1)])
            game.play(bids)

    def _final(self, root: _Node, seat: int, players: int = 2) -> list[tuple[Any, float]]:
        """The root player's move as a distribution ``[(move, probability)]``.

        ``final="max"``: the most visited action (ties: the higher mean reward).
        ``final="mix"``: DUCT plays in proportion to the visit counts of the actions
        visited at least ``MIX_THRESHOLD`` times the most visited one; RM and EXP3 play
        their average strategy with the exploration ``gamma / k`` removed (Lanctot et
        al. 2013). ``final="auto"``: ``"mix"`` with 2 players, else ``"max"``.
        """
        stats = root.stats[seat]
        actions = root.actions[seat]
        k = len(stats)
        if self._final_kind(players) == "max":
            best = max(range(k), key=lambda j: (stats[j][0], stats[j][1] / max(stats[j][0], 1)))
            return [(actions[best], 1.0)]
        if self.selection == "duct":
            top = max(st[0] for st in stats)
            weights = [st[0] if st[0] >= MIX_THRESHOLD * top else 0.0 for st in stats]
        else:
            n = sum(st[0] for st in stats)
            weights = [max(st[3] - self.gamma * n / k, 0.0) for st in stats]
        s = sum(weights)
        if s <= 0:
            best = max(range(k), key=lambda j: stats[j][0])
            return [(actions[best], 1.0)]
        return [(a, w / s) for a, w in zip(actions, weights, strict=True) if w > 0]
