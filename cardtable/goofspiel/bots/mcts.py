"""``mcts``: simultaneous-move Monte Carlo tree search for every Goofspiel variant.

After Lanctot, Lisý and Winands, "Monte Carlo Tree Search in Simultaneous Move
Games with Applications to Goofspiel" (2013), and Lisý, Kovařík, Lanctot and
Bošanský, "Convergence of Monte Carlo Tree Search in Simultaneous Move Games"
(NeurIPS 2013):

- **Determinisation**: the hidden prize order is sampled uniformly for every
  iteration (a set of up to 64 sampled orders per move, reused round-robin);
  the tree is keyed by the public events (bids, prizes turned up, choices), so
  all sampled orders share one tree.
- **Decoupled selection** at a bid node: each player selects its own action
  from its own statistics, ignoring the others' -- either UCB1 (*decoupled UCT*,
  ``selection="duct"``, exploration ``c``) or *regret matching* (``"rm"``,
  exploration ``gamma``). Our RM estimates each action's counterfactual reward
  by its mean reward so far (a low-variance variant; the paper's importance-
  sampled estimate ``u / sigma(a)`` lost to ``random`` at 1000 iterations in our
  trials). A prize-choice node (open prizes) has one acting player.
- **Playouts**: uniformly random legal bids and choices to the end of the game.
- **Reward** per player: its point difference (own points minus the best
  opponent's, docs/rules.md, End of the game) scaled to ``[0, 1]`` by the total prize value.
- **Final move**: DUCT plays the root action visited most; RM samples the
  root's average strategy with the exploration removed (a mixed strategy, as
  equilibria of Goofspiel are mixed).

Works for every ruleset: 2-5 players, multi-card bids, open prizes, any tie rule.

Options: ``iterations`` (fixed count: reproducible with a seed) or ``time_limit``
(seconds per decision, default 1.0, used when ``iterations`` is None);
``selection``, ``c`` (default 0.7), ``gamma`` (default 0.1).
"""

from __future__ import annotations

import math
import time
from typing import Any

from ..state import Bid, Game, PlayerView
from .base import GoofspielBot

MAX_DETERMINISATIONS = 64


class _Node:
    __slots__ = ("stats", "children", "actions")

    def __init__(self, actions: dict[int, list]) -> None:
        self.actions = actions                     # seat -> legal actions here
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


def _replay_round(game: Game, r) -> None:
    game.play([tuple(b) for b in r.bids])
    for seat, prize in r.taken:
        if game.phase == "choose" and game.chooser == seat and prize in game.pot:
            game.choose(seat, prize)


class MCTSBot(GoofspielBot):
    """Simultaneous-move MCTS (see the module docstring).

    Raises:
        ValueError: a bad option value.
    """

    name = "mcts"
    description = "simultaneous-move Monte Carlo tree search (decoupled UCT or regret matching)"

    def __init__(self, seed: int | str | None = None, iterations: int | None = None,
                 time_limit: float = 1.0, selection: str = "duct", c: float = 0.7,
                 gamma: float = 0.1) -> None:
        super().__init__(seed)
        if iterations is not None and (not isinstance(iterations, int) or iterations < 1):
            raise ValueError(f"iterations must be a whole number >= 1, not {iterations!r}")
        if not isinstance(time_limit, (int, float)) or time_limit <= 0:
            raise ValueError(f"time_limit must be a positive number of seconds, not {time_limit!r}")
        if selection not in ("duct", "rm"):
            raise ValueError(f"selection must be 'duct' or 'rm', not {selection!r}")
        if not 0 < gamma <= 1:
            raise ValueError(f"gamma must be in (0, 1], not {gamma!r}")
        self.iterations = iterations
        self.time_limit = float(time_limit)
        self.selection = selection
        self.c = float(c)
        self.gamma = float(gamma)
        self.last_iterations = 0

    # -- the bot interface ---------------------------------------------------------------

    def bid(self, view: PlayerView) -> Bid:
        options = view.legal_bids()
        if len(options) == 1:
            return options[0]
        return self._search(view)

    def choose_prize(self, view: PlayerView) -> int:
        if len(view.pot) == 1:
            return view.pot[0]
        return self._search(view)

    # -- search --------------------------------------------------------------------------

    def _actions(self, game: Game) -> dict[int, list]:
        if game.phase == "bid":
            return {s: game.legal_bids(s) for s in range(game.ruleset.players)}
        return {game.chooser: list(game.legal_choices())}

    def _search(self, view: PlayerView):
        rs = view.ruleset
        remaining = list(view.remaining_prizes)
        dets: list[Game] = []
        root_game = determinise(view, remaining)
        root = _Node(self._actions(root_game))
        deadline = None if self.iterations is not None else time.perf_counter() + self.time_limit
        total = rs.total_prize_value
        i = 0
        while True:
            if self.iterations is not None:
                if i >= self.iterations:
                    break
            elif i > 0 and time.perf_counter() >= deadline:
                break
            if len(dets) < MAX_DETERMINISATIONS:
                order = list(remaining)
                self.rng.shuffle(order)
                dets.append(determinise(view, order))
            game = dets[i % len(dets)].copy()
            self._iterate(root, game, total)
            i += 1
        self.last_iterations = i
        return self._final(root, view.seat)

    def _select(self, node: _Node, seat: int) -> tuple[int, float]:
        stats = node.stats[seat]
        k = len(stats)
        if self.selection == "duct":
            for j, st in enumerate(stats):
                if st[0] == 0:
                    return j, 1.0
            n = sum(st[0] for st in stats)
            log_n = math.log(n)
            best, best_j = -1.0, 0
            for j, st in enumerate(stats):
                v = st[1] / st[0] + self.c * math.sqrt(log_n / st[0])
                if v > best:
                    best, best_j = v, j
            return best_j, 1.0
        sigma = self._rm_strategy(stats)
        r, acc = self.rng.random(), 0.0
        for j, p in enumerate(sigma):
            acc += p
            if r < acc:
                return j, p
        return k - 1, sigma[-1]

    def _rm_strategy(self, stats: list) -> list[float]:
        k = len(stats)
        pos = [max(st[2], 0.0) for st in stats]
        s = sum(pos)
        base = [p / s for p in pos] if s > 0 else [1.0 / k] * k
        return [(1 - self.gamma) * b + self.gamma / k for b in base]

    def _iterate(self, root: _Node, game: Game, total: int) -> None:
        path: list[tuple[_Node, dict[int, tuple[int, float]]]] = []
        node = root
        expanded = False
        while not game.is_over:
            chosen = {seat: self._select(node, seat) for seat in node.actions}
            path.append((node, chosen))
            if game.phase == "bid":
                bids = [node.actions[s][chosen[s][0]] for s in range(game.ruleset.players)]
                game.play(bids)
                key = (tuple(chosen[s][0] for s in range(game.ruleset.players)), game.pot, game.phase)
            else:
                seat = game.chooser
                game.choose(seat, node.actions[seat][chosen[seat][0]])
                key = ((chosen[seat][0],), game.pot, game.phase)
            if game.is_over:
                break
            child = node.children.get(key)
            if child is None:
                if expanded:
                    break
                child = _Node(self._actions(game))
                node.children[key] = child
                expanded = True
                node = child
                break
            node = child
        self._playout(game)
        result = game.result()
        rewards = [(d / total + 1.0) / 2.0 for d in result.point_difference]
        for node, chosen in path:
            for seat, (j, prob) in chosen.items():
                st = node.stats[seat]
                u = rewards[seat]
                if self.selection == "duct":
                    st[j][0] += 1
                    st[j][1] += u
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

    def _playout(self, game: Game) -> None:
        rng = self.rng
        players = game.ruleset.players
        while not game.is_over:
            if game.phase == "bid":
                game.play([rng.choice(game.legal_bids(s)) for s in range(players)])
            else:
                game.choose(game.chooser, rng.choice(game.legal_choices()))

    def _final(self, root: _Node, seat: int):
        stats = root.stats[seat]
        actions = root.actions[seat]
        if self.selection == "duct":
            best = max(range(len(stats)), key=lambda j: (stats[j][0], stats[j][1]))
            return actions[best]
        # the average strategy without the exploration term gamma/k (Lanctot et al. 2013)
        k = len(stats)
        n = sum(st[0] for st in stats)
        weights = [max(st[3] - self.gamma * n / k, 0.0) for st in stats]
        s = sum(weights)
        if s <= 0:
            return actions[max(range(len(stats)), key=lambda j: stats[j][0])]
        r, acc = self.rng.random() * s, 0.0
        for j, w in enumerate(weights):
            acc += w
            if r < acc:
                return actions[j]
        return actions[-1]
