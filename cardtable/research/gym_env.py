"""A Gymnasium single-agent Goofspiel env: one learner against built-in bots.

The learner sits in seat ``seat`` (default 0); the other seats are played by
bots (any :class:`~cardtable.platform.bot.Bot`, or the registry names of
``cardtable.goofspiel.bots``: ``"random"``, ``"matcher"``, ``"heuristic"``,
``"mcts"``, ...). Actions and observations follow
:mod:`cardtable.research.encoding`; the learner is only asked to act when it
has a decision (a bid, or its own prize choice with open prizes), so the
*wait* action never needs to be sent. The reward is 0 until the end, then the
learner's point difference (own points minus the best opponent's).

Illegal actions raise ``ValueError`` and change nothing (mask them with
``obs["action_mask"]``).

>>> env = GoofspielGymEnv(Ruleset(cards=4), opponents="matcher")
>>> obs, info = env.reset(seed=3)
>>> obs["action_mask"].tolist()
[1, 1, 1, 1]
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from cardtable.goofspiel import Game, Ruleset
from cardtable.platform.bot import Bot, load_bot

from .encoding import action_mask, decode_action, encode_observation, num_actions, observation_size


class GoofspielGymEnv(gym.Env):
    """Goofspiel against fixed bots (see the module docstring).

    Args:
        ruleset: the variant (a :class:`Ruleset`, a preset name or ``describe()`` text).
        opponents: one bot (name or instance) for every other seat, or a list of
            ``players - 1`` of them in seat order (skipping the learner's seat).
        seat: the learner's seat, ``0 .. players-1``.

    Raises:
        ValueError: wrong number of opponents or a bad seat; ``UnknownBotError``: unknown bot name.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, ruleset: Ruleset | str | None = None,
                 opponents: str | Bot | Sequence[str | Bot] = "random", seat: int = 0,
                 render_mode: str | None = None) -> None:
        if isinstance(ruleset, str):
            ruleset = Ruleset.parse(ruleset)
        self.ruleset = rs = ruleset if ruleset is not None else Ruleset()
        if not isinstance(seat, int) or not 0 <= seat < rs.players:
            raise ValueError(f"seat must be 0..{rs.players - 1}, not {seat!r}")
        if isinstance(opponents, Bot) and rs.players > 2:
            raise ValueError("one Bot instance cannot play several seats; pass a list of bots or a bot name")
        if isinstance(opponents, (str, Bot)):
            opponents = [opponents] * (rs.players - 1)
        if len(set(map(id, (o for o in opponents if isinstance(o, Bot))))) < sum(isinstance(o, Bot) for o in opponents):
            raise ValueError("one Bot instance cannot play several seats")
        if len(opponents) != rs.players - 1:
            raise ValueError(f"{rs.players} players need {rs.players - 1} opponents, got {len(opponents)}")
        self._opponent_specs = list(opponents)
        self.seat = seat
        self.render_mode = render_mode
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, shape=(observation_size(rs),), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(num_actions(rs),), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(num_actions(rs))
        self.game: Game | None = None
        self.bots: dict[int, Bot] = {}
        self._make_bots(None)

    def _make_bots(self, seed: int | None) -> None:
        others = [s for s in range(self.ruleset.players) if s != self.seat]
        for i, (s, spec) in enumerate(zip(others, self._opponent_specs)):
            if isinstance(spec, Bot):
                if seed is not None:
                    spec.rng.seed(seed * 31 + i)
                self.bots[s] = spec
            else:
                self.bots[s] = load_bot("goofspiel", spec, seed=None if seed is None else seed * 31 + i)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a game; ``seed`` fixes the prize order and the bots' random choices."""
        super().reset(seed=seed)
        if seed is not None:
            self._make_bots(seed)
        game_seed = int(self.np_random.integers(0, 2**63 - 1))
        self.game = Game(self.ruleset, seed=game_seed, prize_deck=(options or {}).get("prize_deck"))
        for s, bot in self.bots.items():
            bot.new_game(self.ruleset, s)
        self._pending: list | None = None
        self._advance()
        return self._obs(), {"phase": self.game.phase}

    def _needs_learner(self) -> bool:
        g = self.game
        return (g.phase == "bid") or (g.phase == "choose" and g.chooser == self.seat)

    def _advance(self) -> None:
        """Let the bots play until the learner must act or the game is over."""
        g = self.game
        while g.phase == "choose" and g.chooser != self.seat:
            s = g.chooser
            g.choose(s, self.bots[s].act(g.view(s)))

    def step(self, action: int):
        """Play the learner's action (and the bots' simultaneous bids).

        Raises:
            ValueError: an illegal action (nothing changes).
            RuntimeError: ``step`` before ``reset`` or after the end.
        """
        g = self.game
        if g is None or g.is_over:
            raise RuntimeError("call reset() first: the episode is over")
        view = g.view(self.seat)
        if not 0 <= int(action) < self.action_space.n or not action_mask(view)[int(action)]:
            raise ValueError(f"action {action} is not legal now (phase {g.phase})")
        _, value = decode_action(self.ruleset, action)
        if g.phase == "bid":
            bids = [value if s == self.seat else self.bots[s].act(g.view(s)) for s in range(self.ruleset.players)]
            g.play(bids)
        else:
            g.choose(self.seat, value)
        self._advance()
        over = g.is_over
        reward = float(g.result().point_difference[self.seat]) if over else 0.0
        info: dict[str, Any] = {"phase": g.phase}
        if over:
            info["result"] = g.result().outcomes[self.seat]
            info["points"] = g.points
        return self._obs(), reward, over, False, info

    def _obs(self) -> dict[str, np.ndarray]:
        view = self.game.view(self.seat)
        return {"observation": encode_observation(view), "action_mask": action_mask(view)}

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game is None:
            return None
        g = self.game
        return f"round {g.round} phase {g.phase} pot {list(g.pot)} points {list(g.points)}"
