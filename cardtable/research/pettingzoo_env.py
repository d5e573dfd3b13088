"""Goofspiel as a PettingZoo ``ParallelEnv`` (and, through PettingZoo's own
conversion, an ``AECEnv``), for every ruleset the engine supports.

Agents are ``"player_0" .. "player_{P-1}"`` (seat order). Every step takes one
action per live agent. Actions and observations are those of
:mod:`cardtable.research.encoding`:

- bid phase: every agent bids (an index into the full hand's bid combinations);
- choose phase (open prizes): the agent whose turn it is chooses a prize, every
  other agent sends the *wait* action. Each choice is one step.

Observations are dicts ``{"observation": float32[obs_size], "action_mask":
int8[A]}``. Rewards (``reward=``):

- ``"difference"`` (default): 0 until the end; then each seat's point
  difference (own points minus the best opponent's, docs/rules.md, End of the game; the engine's
  :class:`~cardtable.goofspiel.GameResult`). Zero-sum for 2 players.
- ``"points"``: the prize points each seat took in that step.

Episodes end when the game is over (all agents terminate together); there is
no truncation. ``infos[agent]`` holds ``phase`` and, at the end, ``result``
(``"win"``/``"draw"``/``"loss"``).

>>> env = parallel_env(ruleset=Ruleset(cards=3))
>>> obs, infos = env.reset(seed=1)
>>> sorted(obs), obs["player_0"]["action_mask"].tolist()
(['player_0', 'player_1'], [1, 1, 1])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec

from cardtable.goofspiel import Game, Ruleset

from .encoding import action_mask, decode_action, encode_observation, num_actions, observation_size


class GoofspielParallelEnv(ParallelEnv):
    """Goofspiel for PettingZoo (see the module docstring).

    Args:
        ruleset: the variant (a :class:`Ruleset`, a preset name or ``describe()`` text).
        reward: ``"difference"`` or ``"points"``.
        render_mode: ``None`` or ``"ansi"`` (``render()`` returns the text).

    Raises:
        RulesetError: a bad ruleset text; ``ValueError``: unknown reward or render mode.
    """

    metadata = {"name": "cardtable_goofspiel_v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(self, ruleset: Ruleset | str | None = None, reward: str = "difference",
                 render_mode: str | None = None) -> None:
        if isinstance(ruleset, str):
            ruleset = Ruleset.parse(ruleset)
        self.ruleset = ruleset if ruleset is not None else Ruleset()
        if reward not in ("difference", "points"):
            raise ValueError(f"reward must be 'difference' or 'points', not {reward!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.reward_kind = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.ruleset.players)]
        self.agents: list[str] = []
        self.game: Game | None = None
        self._np_random, _ = seeding.np_random(None)
        n_obs, n_act = observation_size(self.ruleset), num_actions(self.ruleset)
        self._obs_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, shape=(n_obs,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(n_act,), dtype=np.int8),
            })
            for a in self.possible_agents
        }
        self._act_spaces = {a: spaces.Discrete(n_act) for a in self.possible_agents}

    # spaces: the same object every call (PettingZoo's API test checks identity)
    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Start a new game; ``seed`` fixes the prize order of this and later episodes.

        Options: ``{"prize_deck": [...]}`` plays an explicit prize order.
        """
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
            for i, a in enumerate(self.possible_agents):
                self._act_spaces[a].seed(seed + i)
        deck = (options or {}).get("prize_deck")
        game_seed = int(self._np_random.integers(0, 2**63 - 1))
        self.game = Game(self.ruleset, seed=game_seed, prize_deck=deck)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {"phase": self.game.phase} for a in self.agents}

    def step(self, actions: dict[str, int]):
        """Apply one action per live agent.

        Raises:
            ValueError: a missing agent or an illegal action (the game is unchanged).
            RuntimeError: ``step`` before ``reset`` or after the end.
        """
        game = self.game
        if game is None or not self.agents:
            raise RuntimeError("call reset() before step(); the episode is over")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"no action for {', '.join(missing)}")
        points_before = game.points
        decoded = {}
        for seat, agent in enumerate(self.possible_agents):
            kind, value = decode_action(self.ruleset, actions[agent])
            mask = action_mask(game.view(seat))
            if not mask[int(actions[agent])]:
                raise ValueError(f"{agent}: action {actions[agent]} ({kind} {value}) is not legal in the {game.phase} phase")
            decoded[seat] = value
        if game.phase == "bid":
            game.play([decoded[s] for s in range(self.ruleset.players)])
        else:
            seat = game.chooser
            game.choose(seat, decoded[seat])
        over = game.is_over
        if self.reward_kind == "points":
            rewards = [float(a - b) for a, b in zip(game.points, points_before)]
        elif over:
            rewards = [float(d) for d in game.result().point_difference]
        else:
            rewards = [0.0] * self.ruleset.players
        agents = self.agents
        obs = self._observations()
        rew = {a: rewards[i] for i, a in enumerate(self.possible_agents) if a in agents}
        term = {a: over for a in agents}
        trunc = {a: False for a in agents}
        infos: dict[str, dict[str, Any]] = {a: {"phase": game.phase} for a in agents}
        if over:
            for i, a in enumerate(self.possible_agents):
                infos[a]["result"] = game.result().outcomes[i]
            self.agents = []
        return obs, rew, term, trunc, infos

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        game = self.game
        out = {}
        for seat, agent in enumerate(self.possible_agents):
            view = game.view(seat)
            out[agent] = {"observation": encode_observation(view), "action_mask": action_mask(view)}
        return out

    def render(self) -> str | None:
        """Text of the current state (``render_mode="ansi"``), else ``None``."""
        if self.render_mode != "ansi" or self.game is None:
            return None
        g = self.game
        return f"round {g.round} phase {g.phase} pot {list(g.pot)} points {list(g.points)}"

    def close(self) -> None:
        pass


def parallel_env(**kwargs: Any) -> GoofspielParallelEnv:
    """A :class:`GoofspielParallelEnv` (PettingZoo's naming convention)."""
    return GoofspielParallelEnv(**kwargs)


def env(**kwargs: Any):
    """The AEC form: PettingZoo's ``parallel_to_aec`` of :func:`parallel_env`."""
    return parallel_to_aec(parallel_env(**kwargs))
