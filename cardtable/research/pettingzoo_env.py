"""Goofspiel as a PettingZoo ``ParallelEnv`` and ``AECEnv``, for every ruleset the
engine supports, following the conventions of PettingZoo's classic games.

Agents are ``"player_0" .. "player_{P-1}"`` (seat order). One *cycle* is one
parallel step: every live agent sends one action. Actions and observations are
those of :mod:`cardtable.research.encoding`:

- bid phase: every agent bids (an index into the full hand's bid combinations);
- choose phase (open prizes): the agent whose turn it is chooses a prize, every
  other agent sends the *wait* action. Each choice is one cycle.

Observations are dicts ``{"observation": float32[obs_size], "action_mask":
int8[A]}``; ``state()`` is the global state (:func:`~cardtable.research.encoding.encode_state`,
``state_space`` a ``Box``). Rewards (``reward=``):

- ``"difference"`` (default): 0 until the end; then each seat's point
  difference (own points minus the best opponent's, docs/rules.md, End of the game; the engine's
  :class:`~cardtable.goofspiel.GameResult`). Zero-sum for 2 players.
- ``"points"``: the prize points each seat took in that step.

Episodes end when the game is over (``terminations`` all true) or after
``max_cycles`` cycles (``truncations`` all true, rewards 0 in that step under
``"difference"``). ``infos[agent]`` holds ``phase`` and, at the end, ``result``
(``"win"``/``"draw"``/``"loss"``). Bad actions: see :mod:`cardtable.research.env_core`
(out of the space: ``ActionSpaceError``; illegal: the episode ends with the
offender's ``illegal_reward``, or ``IllegalActionError`` with
``illegal_action="raise"``). ``action_space(agent).sample()`` draws a legal
action of that agent now. Once the episode has ended (game over, an illegal
action, truncation) every agent's ``action_mask`` is all zeros
(:mod:`cardtable.research.env_core`). Render modes: ``"ansi"`` (``render()`` returns the
table of :mod:`cardtable.research.render`) and ``"human"`` (printed after every
reset and step).

>>> env = parallel_env(ruleset=Ruleset(cards=3))
>>> obs, infos = env.reset(seed=1)
>>> sorted(obs), obs["player_0"]["action_mask"].tolist()
(['player_0', 'player_1'], [1, 1, 1])
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel.state import Bid

from .encoding import (
    action_mask,
    decode_action,
    encode_observation,
    encode_state,
    num_actions,
    observation_size,
    state_size,
)
from .extra import require
from .render import table_text

# the optional packages are checked first, so that their absence names the extra to install
# (env_core needs gymnasium too)
require("the PettingZoo env", "pettingzoo", "gymnasium")

from gymnasium import spaces  # noqa: E402
from gymnasium.utils import seeding  # noqa: E402
from pettingzoo import AECEnv, ParallelEnv  # noqa: E402
from pettingzoo.utils.agent_selector import AgentSelector  # noqa: E402

from .env_core import IllegalActionError, LegalDiscrete, check_in_space, check_options  # noqa: E402

RENDER_MODES = ("human", "ansi")
METADATA = {
    "name": "cardtable_goofspiel_v0",
    "render_modes": list(RENDER_MODES),
    "is_parallelizable": True,
    "render_fps": 1,
}


def _ruleset(ruleset: Ruleset | str | None) -> Ruleset:
    if isinstance(ruleset, str):
        return Ruleset.parse(ruleset)
    return ruleset if ruleset is not None else Ruleset()


class GoofspielParallelEnv(ParallelEnv):
    """Goofspiel for PettingZoo (see the module docstring).

    Args:
        ruleset: the variant (a :class:`Ruleset`, a preset name or ``describe()`` text).
        reward: ``"difference"`` or ``"points"``.
        render_mode: ``None``, ``"ansi"`` or ``"human"``.
        max_cycles: truncate after this many cycles (``None``: play to the end).
        illegal_action: ``"penalty"`` (default) or ``"raise"``.
        illegal_reward: the offender's reward under ``"penalty"`` (default: minus
            the total prize value).

    Raises:
        RulesetError: a bad ruleset text; ``ValueError``: a bad option value.
    """

    metadata = METADATA

    def __init__(
        self,
        ruleset: Ruleset | str | None = None,
        reward: str = "difference",
        render_mode: str | None = None,
        max_cycles: int | None = None,
        illegal_action: str = "penalty",
        illegal_reward: float | None = None,
    ) -> None:
        self.ruleset = _ruleset(ruleset)
        if reward not in ("difference", "points"):
            raise ValueError(f"reward must be 'difference' or 'points', not {reward!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        self.illegal_reward = check_options(self.ruleset, illegal_action, illegal_reward, max_cycles)
        self.illegal_action = illegal_action
        self.max_cycles = max_cycles
        self.reward_kind = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.ruleset.players)]
        self.agents: list[str] = []
        self.game: Game | None = None
        self.cycles = 0
        self._np_random, _ = seeding.np_random(None)
        n_obs, n_act = observation_size(self.ruleset), num_actions(self.ruleset)
        self._obs_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, shape=(n_obs,), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(n_act,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._act_spaces = {
            a: LegalDiscrete(n_act, self._mask_getter(i)) for i, a in enumerate(self.possible_agents)
        }
        self.state_space = spaces.Box(0.0, 1.0, shape=(state_size(self.ruleset),), dtype=np.float32)

    def _mask_getter(self, seat: int):
        ref = weakref.ref(self)

        def mask() -> np.ndarray | None:
            env = ref()
            return None if env is None or env.game is None or not env.agents else env.legal_mask(seat)

        return mask

    # spaces: the same object every call (PettingZoo's API test checks identity)
    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    def _live(self) -> Game:
        """The game of the current episode."""
        assert self.game is not None  # reset() made it
        return self.game

    def legal_mask(self, seat: int) -> np.ndarray:
        """``int8[A]``: the legal actions of ``seat`` now."""
        return action_mask(self._live().view(seat))

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
        self.game = game = Game(self.ruleset, seed=game_seed, prize_deck=deck)
        self.agents = list(self.possible_agents)
        self.cycles = 0
        if self.render_mode == "human":
            self.render()
        return self._observations(), {a: {"phase": game.phase} for a in self.agents}

    def step(self, actions: dict[str, Any]):
        """Apply one action per live agent (see the module docstring for bad actions).

        Raises:
            ValueError: a missing or unknown agent; ``ActionSpaceError``: an action outside
                its space; ``IllegalActionError``: an illegal action under ``"raise"``
                (nothing changes in these cases).
            RuntimeError: ``step`` before ``reset`` or after the end.
        """
        game = self.game
        if game is None or not self.agents:
            raise RuntimeError("call reset() before step(); the episode is over")
        chosen = self._checked_actions(actions)
        offenders = self._offenders(chosen)
        if offenders:
            return self._penalise(offenders)
        points_before = game.points
        self._advance(game, chosen)
        self.cycles += 1
        over = game.is_over
        truncated = not over and self.max_cycles is not None and self.cycles >= self.max_cycles
        rewards = self._rewards(game, points_before, over)
        agents = self.agents
        if over or truncated:
            self.agents = []
        obs = self._observations()
        rew = {a: rewards[i] for i, a in enumerate(self.possible_agents)}
        term = {a: over for a in agents}
        trunc = {a: truncated for a in agents}
        infos = self._step_infos(game, agents, over)
        if self.render_mode == "human":
            self.render()
        return obs, rew, term, trunc, infos

    def _checked_actions(self, actions: dict[str, Any]) -> dict[int, int]:
        """Each seat's action, checked for one per live agent and inside its space.

        Raises:
            ValueError: a missing or unknown agent; ``ActionSpaceError``: an action outside its space.
        """
        missing = [a for a in self.agents if a not in actions]
        unknown = [str(a) for a in actions if a not in self.agents]
        if missing or unknown:
            raise ValueError(f"one action per live agent: missing {missing}, unknown {unknown}")
        return {
            seat: check_in_space(self._act_spaces[a], actions[a], a)
            for seat, a in enumerate(self.possible_agents)
        }

    def _offenders(self, chosen: dict[int, int]) -> list[str]:
        """The agents whose action is illegal now.

        Raises:
            IllegalActionError: any, under ``illegal_action="raise"``.
        """
        offenders = [
            a for seat, a in enumerate(self.possible_agents) if not self.legal_mask(seat)[chosen[seat]]
        ]
        if offenders and self.illegal_action == "raise":
            raise IllegalActionError(
                "; ".join(self._illegal_text(a, chosen[self.possible_agents.index(a)]) for a in offenders)
            )
        return offenders

    def _advance(self, game: Game, chosen: dict[int, int]) -> None:
        """Play one cycle: every seat's bid, or the chooser's prize."""
        if game.phase == "bid":
            game.play([self._decode_bid(chosen[s]) for s in range(self.ruleset.players)])
            return
        chooser = game.chooser
        assert chooser is not None  # the choose phase
        game.choose(chooser, self._decode_choice(chosen[chooser]))

    def _rewards(self, game: Game, points_before: tuple[int, ...], over: bool) -> list[float]:
        """Each seat's reward for the cycle just played (see ``reward=`` in the module docstring)."""
        if self.reward_kind == "points":
            return [float(a - b) for a, b in zip(game.points, points_before, strict=True)]
        if over:
            return [float(d) for d in game.result().point_difference]
        return [0.0] * self.ruleset.players

    def _step_infos(self, game: Game, agents: list[str], over: bool) -> dict[str, dict[str, Any]]:
        """The ``infos`` of a step: each agent's phase, and its result once the game is over."""
        infos: dict[str, dict[str, Any]] = {a: {"phase": game.phase} for a in agents}
        if over:
            for i, a in enumerate(self.possible_agents):
                infos[a]["result"] = game.result().outcomes[i]
        return infos

    def _illegal_text(self, agent: str, action: int) -> str:
        kind, value = decode_action(self.ruleset, action)
        what = kind if value is None else f"{kind} {value}"
        return f"{agent}: action {action} ({what}) is not legal in the {self._live().phase} phase"

    def _decode_bid(self, action: int) -> Bid:
        bid = decode_action(self.ruleset, action)[1]
        assert isinstance(bid, tuple)  # the mask allowed only bids
        return bid

    def _decode_choice(self, action: int) -> int:
        prize = decode_action(self.ruleset, action)[1]
        assert isinstance(prize, int)  # the mask allowed only prizes
        return prize

    def _penalise(self, offenders: list[str]):
        """End the episode: the offenders get ``illegal_reward``, everybody else 0."""
        agents = self.agents
        rew = {a: (self.illegal_reward if a in offenders else 0.0) for a in agents}
        infos = {a: {"phase": self._live().phase, "illegal_action": list(offenders)} for a in agents}
        self.agents = []
        obs = self._observations()
        if self.render_mode == "human":
            self.render()
        return obs, rew, {a: True for a in agents}, {a: False for a in agents}, infos

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The observation dict of ``agent`` now; once the episode has ended
        (``agents`` empty after a reset) its ``action_mask`` is all zeros."""
        seat = self.possible_agents.index(agent)
        view = self._live().view(seat)
        mask = action_mask(view)
        if not self.agents:
            mask[:] = 0
        return {"observation": encode_observation(view), "action_mask": mask}

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {a: self.observe(a) for a in self.possible_agents}

    def state(self) -> np.ndarray:
        """The global state (``state_space``), for centralised critics.

        Raises:
            RuntimeError: before ``reset``.
        """
        if self.game is None:
            raise RuntimeError("call reset() before state()")
        return encode_state(self.game)

    def render(self) -> str | None:
        """``"ansi"``: the table text; ``"human"``: print it and return ``None``."""
        if self.render_mode is None or self.game is None:
            return None
        text = table_text(self.game, self.possible_agents)
        if self.render_mode == "ansi":
            return text
        print(text + "\n", flush=True)
        return None

    def close(self) -> None:
        pass


class GoofspielAECEnv(AECEnv):
    """The AEC form: within a cycle the agents act one after another in seat order,
    each action checked on its own step; the cycle is played when the last agent
    has acted. Same options, spaces, rewards and bad-action rules as
    :class:`GoofspielParallelEnv` (an illegal action ends the episode at that step,
    or raises there and leaves the env as it was)."""

    metadata = METADATA

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        self._par = GoofspielParallelEnv(**kwargs)
        self.ruleset = self._par.ruleset
        self.render_mode = self._par.render_mode
        self.possible_agents = list(self._par.possible_agents)
        self.state_space = self._par.state_space
        self.agents: list[str] = []
        self._sent: dict[str, int] = {}

    @property
    def game(self) -> Game | None:
        return self._par.game

    def observation_space(self, agent: str) -> spaces.Space:
        return self._par.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space:
        return self._par.action_space(agent)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        _, infos = self._par.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = infos
        self._sent = {}
        self._agent_selector = AgentSelector(self.agents)
        self.agent_selection = self._agent_selector.reset()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._par.observe(agent)

    def state(self) -> np.ndarray:
        return self._par.state()

    def step(self, action: Any) -> None:
        """Act for ``agent_selection`` (see the class docstring).

        Raises:
            ActionSpaceError, IllegalActionError: as in :meth:`GoofspielParallelEnv.step`;
                the env is unchanged and the same agent is still to act.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        a = check_in_space(self._par._act_spaces[agent], action, agent)
        legal = bool(self._par.legal_mask(seat)[a])
        if not legal and self._par.illegal_action == "raise":
            raise IllegalActionError(self._par._illegal_text(agent, a))
        self._cumulative_rewards[agent] = 0.0
        if legal:
            self._send(agent, a)
        else:
            self._end_illegal(agent)
        self.agent_selection = self._agent_selector.next()
        self._accumulate_rewards()

    def _end_illegal(self, agent: str) -> None:
        """End the episode at ``agent``'s illegal action: ``illegal_reward`` to it, 0 to the rest."""
        self.rewards = {x: (self._par.illegal_reward if x == agent else 0.0) for x in self.agents}
        self.terminations = {x: True for x in self.agents}
        for x in self.agents:
            self.infos[x] = {"phase": self._par._live().phase, "illegal_action": [agent]}
        self._par.agents = []
        self._sent = {}
        if self.render_mode == "human":
            self._par.render()

    def _send(self, agent: str, action: int) -> None:
        """Keep ``agent``'s legal action; play the cycle once every live agent has acted."""
        self._sent[agent] = action
        if len(self._sent) < len(self.agents):
            self._clear_rewards()
            return
        _, rew, term, trunc, infos = self._par.step(self._sent)
        self._sent = {}
        self.rewards = {x: rew[x] for x in self.agents}
        self.terminations = {x: term[x] for x in self.agents}
        self.truncations = {x: trunc[x] for x in self.agents}
        self.infos = {x: infos[x] for x in self.agents}

    def render(self) -> str | None:
        return self._par.render()

    def close(self) -> None:
        pass


def parallel_env(**kwargs: Any) -> GoofspielParallelEnv:
    """A :class:`GoofspielParallelEnv` (PettingZoo's naming convention)."""
    return GoofspielParallelEnv(**kwargs)


def env(**kwargs: Any) -> GoofspielAECEnv:
    """A :class:`GoofspielAECEnv` (PettingZoo's naming convention)."""
    return GoofspielAECEnv(**kwargs)


raw_env = env
