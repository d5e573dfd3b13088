"""A Gymnasium single-agent Goofspiel env: one learner against built-in bots.

The learner sits in seat ``seat`` (default 0); the other seats are played by
bots (any :class:`~cardtable.platform.bot.Bot`, or the registry names of
``cardtable.goofspiel.bots``: ``"random"``, ``"matcher"``, ``"heuristic"``,
``"mcts"``, ...). Actions and observations follow
:mod:`cardtable.research.encoding`; the learner is only asked to act when it
has a decision (a bid, or its own prize choice with open prizes), so the
*wait* action never needs to be sent. The reward is 0 until the end, then the
learner's point difference (own points minus the best opponent's, docs/rules.md, End of the game).

Bad actions (:mod:`cardtable.research.env_core`): an action outside the space
raises ``ActionSpaceError``; an illegal one ends the episode with reward
``illegal_reward`` (default: minus the total prize value) and
``info["illegal_action"]``, or raises ``IllegalActionError`` with
``illegal_action="raise"``; both errors leave the env unchanged. Mask actions
with ``obs["action_mask"]``; ``action_space.sample()`` draws a legal action.
Once the episode has ended (game over, an illegal action, truncation) the mask
is all zeros (:mod:`cardtable.research.env_core`).

Vector envs: ``gymnasium.make_vec(..., vectorization_mode="sync" or "async")``
works; their batched ``action_space.sample()`` cannot read the masks, so draw
with :func:`sample_legal` ``(envs.action_space, obs["action_mask"])``
(docs/research.md, Gymnasium, Vector envs).
``max_cycles`` truncates after that many learner steps. Render modes:
``"ansi"`` (``render()`` returns the table) and ``"human"`` (printed after every
reset and step); ``metadata["render_fps"]`` is 1.

Registered with Gymnasium as ``cardtable/Goofspiel-v0`` when this module is
imported; ``gymnasium.make("cardtable.research.gym_env:cardtable/Goofspiel-v0",
ruleset="discard", opponents="heuristic")`` imports it itself.

>>> env = GoofspielGymEnv(Ruleset(cards=4), opponents="matcher")
>>> obs, info = env.reset(seed=3)
>>> obs["action_mask"].tolist()
[1, 1, 1, 1]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from cardtable.goofspiel import Game, Ruleset
from cardtable.platform.bot import Bot, load_bot

from .encoding import action_mask, decode_action, encode_observation, num_actions, observation_size
from .extra import require
from .render import table_text

# the optional package is checked first, so that its absence names the extra to install
# (env_core needs it too)
require("the Gymnasium env", "gymnasium")

import gymnasium as gym  # noqa: E402
from gymnasium import spaces  # noqa: E402

from .env_core import (  # noqa: E402
    IllegalActionError,
    LegalDiscrete,
    check_in_space,
    check_options,
    sample_legal,
)

__all__ = ["ENV_ID", "GoofspielGymEnv", "sample_legal"]

ENV_ID = "cardtable/Goofspiel-v0"


def _opponent_specs(rs: Ruleset, opponents: str | Bot | Sequence[str | Bot]) -> list[str | Bot]:
    """One bot name or :class:`Bot` per other seat (one name or a lone bot stands for all of them).

    Raises:
        ValueError: the wrong number of opponents, or one Bot instance for several seats.
    """
    if isinstance(opponents, Bot) and rs.players > 2:
        raise ValueError("one Bot instance cannot play several seats; pass a list of bots or a bot name")
    if isinstance(opponents, (str, Bot)):
        opponents = [opponents] * (rs.players - 1)
    if len(set(map(id, (o for o in opponents if isinstance(o, Bot))))) < sum(
        isinstance(o, Bot) for o in opponents
    ):
        raise ValueError("one Bot instance cannot play several seats")
    if len(opponents) != rs.players - 1:
        raise ValueError(f"{rs.players} players need {rs.players - 1} opponents, got {len(opponents)}")
    return list(opponents)


class GoofspielGymEnv(gym.Env):
    """Goofspiel against fixed bots (see the module docstring).

    Args:
        ruleset: the variant (a :class:`Ruleset`, a preset name or ``describe()`` text).
        opponents: one bot (name or instance) for every other seat, or a list of
            ``players - 1`` of them in seat order (skipping the learner's seat).
        seat: the learner's seat, ``0 .. players-1``.
        render_mode: ``None``, ``"ansi"`` or ``"human"``.
        max_cycles: truncate after this many learner steps (``None``: play to the end).
        illegal_action: ``"penalty"`` (default) or ``"raise"``.
        illegal_reward: the learner's reward for an illegal action under ``"penalty"``.

    Raises:
        ValueError: wrong number of opponents, a bad seat or option; ``UnknownBotError``:
            unknown bot name; ``RulesetError``: a bad ruleset text.
    """

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        ruleset: Ruleset | str | None = None,
        opponents: str | Bot | Sequence[str | Bot] = "random",
        seat: int = 0,
        render_mode: str | None = None,
        max_cycles: int | None = None,
        illegal_action: str = "penalty",
        illegal_reward: float | None = None,
    ) -> None:
        if isinstance(ruleset, str):
            ruleset = Ruleset.parse(ruleset)
        self.ruleset = rs = ruleset if ruleset is not None else Ruleset()
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < rs.players:
            raise ValueError(f"seat must be 0..{rs.players - 1}, not {seat!r}")
        self._opponent_specs = _opponent_specs(rs, opponents)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        self.illegal_reward = check_options(rs, illegal_action, illegal_reward, max_cycles)
        self.illegal_action = illegal_action
        self.max_cycles = max_cycles
        self.cycles = 0
        self.seat = seat
        self.render_mode = render_mode
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, shape=(observation_size(rs),), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(num_actions(rs),), dtype=np.int8),
            }
        )
        self._actions = LegalDiscrete(num_actions(rs), self._legal_mask_now)
        self.action_space = self._actions
        self.game: Game | None = None
        self._ended = False
        self.bots: dict[int, Bot] = {}
        self._make_bots(None)

    def _make_bots(self, seed: int | None) -> None:
        others = [s for s in range(self.ruleset.players) if s != self.seat]
        for i, (s, spec) in enumerate(zip(others, self._opponent_specs, strict=True)):
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
        self.cycles = 0
        self._ended = False
        self._advance()
        if self.render_mode == "human":
            self.render()
        return self._obs(), {"phase": self.game.phase}

    def _legal_mask_now(self) -> np.ndarray | None:
        g = self.game
        return None if g is None or g.is_over or self._ended else action_mask(g.view(self.seat))

    def _advance(self) -> None:
        """Let the bots play until the learner must act or the game is over."""
        g = self.game
        assert g is not None  # reset() made it
        while (s := g.chooser) is not None and s != self.seat:  # the choose phase, a bot's turn
            g.choose(s, self.bots[s].act(g.view(s)))

    def step(self, action: int):
        """Play the learner's action (and the bots' simultaneous bids).

        Raises:
            ActionSpaceError: an action outside the space; IllegalActionError: an
                illegal action under ``illegal_action="raise"`` (nothing changes).
            RuntimeError: ``step`` before ``reset`` or after the end.
        """
        g = self.game
        if g is None or g.is_over or self._ended:
            raise RuntimeError("call reset() first: the episode is over")
        action = check_in_space(self._actions, action, "the learner")
        view = g.view(self.seat)
        if not action_mask(view)[action]:
            return self._illegal(g, action)
        self._play(g, action)
        self._advance()
        self.cycles += 1
        over = g.is_over
        truncated = not over and self.max_cycles is not None and self.cycles >= self.max_cycles
        self._ended = over or truncated
        reward = float(g.result().point_difference[self.seat]) if over else 0.0
        info: dict[str, Any] = {"phase": g.phase}
        if over:
            info["result"] = g.result().outcomes[self.seat]
            info["points"] = g.points
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, over, truncated, info

    def _illegal(self, g: Game, action: int):
        """End the episode at the learner's illegal ``action`` with ``illegal_reward``.

        Raises:
            IllegalActionError: under ``illegal_action="raise"`` (nothing changes).
        """
        if self.illegal_action == "raise":
            raise IllegalActionError(f"action {action} is not legal now (phase {g.phase})")
        self._ended = True
        if self.render_mode == "human":
            self.render()
        return self._obs(), self.illegal_reward, True, False, {"phase": g.phase, "illegal_action": True}

    def _play(self, g: Game, action: int) -> None:
        """Play the learner's legal ``action``: its bid beside the bots' bids, or its prize choice."""
        _, value = decode_action(self.ruleset, action)
        if g.phase == "bid":
            assert isinstance(value, tuple)  # the mask allowed only bids
            bids = [
                value if s == self.seat else self.bots[s].act(g.view(s)) for s in range(self.ruleset.players)
            ]
            g.play(bids)
        else:
            assert isinstance(value, int)  # the mask allowed only prizes
            g.choose(self.seat, value)

    def _obs(self) -> dict[str, np.ndarray]:
        """The observation; once the episode has ended the mask is all zeros (no action is accepted)."""
        assert self.game is not None  # reset() made it
        view = self.game.view(self.seat)
        mask = action_mask(view)
        if self._ended:
            mask[:] = 0
        return {"observation": encode_observation(view), "action_mask": mask}

    def render(self) -> str | None:
        """``"ansi"``: the table text (:mod:`cardtable.research.render`); ``"human"``: print it."""
        if self.render_mode is None or self.game is None:
            return None
        names = [("learner" if s == self.seat else f"bot {s}") for s in range(self.ruleset.players)]
        text = table_text(self.game, names)
        if self.render_mode == "ansi":
            return text
        print(text + "\n", flush=True)
        return None


if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="cardtable.research.gym_env:GoofspielGymEnv")
