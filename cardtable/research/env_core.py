"""What the PettingZoo and Gymnasium envs share: action checks, the illegal-action
rule, truncation, and an action space whose ``sample()`` draws a legal action.

Two kinds of bad action, handled differently (docs/research.md, "Bad actions"):

- **outside the action space** (``-0.5``, ``2.9``, ``"2"``, ``True``, ``13`` in a
  ``Discrete(13)``): always :class:`ActionSpaceError` (a ``ValueError``), and
  nothing changes -- that is a bug in the calling code, not a move;
- **inside the space but illegal now** (a spent card, a prize not on display,
  *wait* when the agent must choose): with ``illegal_action="penalty"`` (the
  default, as PettingZoo's classic games do) the episode ends at once, the
  offender's reward is ``illegal_reward`` (default: minus the total prize value,
  the worst possible point difference), everybody else's is 0, and
  ``infos[agent]["illegal_action"]`` names the offender(s); with
  ``illegal_action="raise"`` an :class:`IllegalActionError` (a ``ValueError``)
  is raised and nothing changes.

The terminal mask (docs/research.md, "Masks at the end of an episode"): once an
episode has ended -- the game is over, an illegal action ended it, or it was
truncated -- every observation's ``action_mask`` is all zeros, in every env
type: no action is accepted any more. :func:`sample_legal` draws from a mask or
a batch of masks (a Gymnasium vector env's) and gives the placeholder action 0
for an all-zero mask, which a vector env's autoreset step ignores.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

import numpy as np

from cardtable.errors import CardtableError
from cardtable.goofspiel import Ruleset

from .extra import require

# the optional package is checked first, so that its absence names the extra to install
require("the research envs", "gymnasium")

from gymnasium import spaces  # noqa: E402

ILLEGAL_ACTION_RULES = ("penalty", "raise")


class ActionSpaceError(CardtableError, ValueError):
    """An action outside the agent's ``Discrete`` action space."""


class IllegalActionError(CardtableError, ValueError):
    """An action inside the space that the rules do not allow now (``illegal_action="raise"``)."""


def check_in_space(space: spaces.Discrete, action: Any, who: str) -> int:
    """The action as an ``int``.

    Raises:
        ActionSpaceError: ``action`` is not a member of ``space`` (``bool`` is refused too).
    """
    if isinstance(action, (bool, np.bool_)) or not space.contains(action):
        raise ActionSpaceError(
            f"{who}: action {action!r} is outside the action space {space} (an integer 0..{space.n - 1})"
        )
    return int(action)


def check_options(
    ruleset: Ruleset, illegal_action: str, illegal_reward: float | None, max_cycles: int | None
) -> float:
    """Validate the common env options; returns the illegal-action reward.

    Raises:
        ValueError: an unknown rule, a non-number reward, or ``max_cycles`` not an integer >= 1.
    """
    if illegal_action not in ILLEGAL_ACTION_RULES:
        raise ValueError(f"illegal_action must be 'penalty' or 'raise', not {illegal_action!r}")
    if max_cycles is not None and (
        isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1
    ):
        raise ValueError(f"max_cycles must be None or an integer >= 1, not {max_cycles!r}")
    if illegal_reward is None:
        return -float(ruleset.total_prize_value)
    if (
        isinstance(illegal_reward, bool)
        or not isinstance(illegal_reward, (int, float))
        or not np.isfinite(illegal_reward)
    ):
        raise ValueError(f"illegal_reward must be a finite number, not {illegal_reward!r}")
    return float(illegal_reward)


def max_steps(ruleset: Ruleset) -> int:
    """An upper bound on the steps of one game: a bid step per round, a choose step per prize."""
    return ruleset.rounds + (ruleset.cards if ruleset.open_prizes > 1 else 0)


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws a *legal* action now.

    ``legal_mask()`` of the env it belongs to (held weakly) gives the mask;
    with an explicit ``mask``/``probability``, outside an episode, or after a
    pickle it samples as a plain ``Discrete``. ``contains`` is ``Discrete``'s.
    """

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray | None], seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        owner = getattr(legal_mask, "__self__", None)
        if owner is not None:
            ref, name = weakref.ref(owner), legal_mask.__name__
            self._legal_mask = lambda: (lambda o: getattr(o, name)() if o is not None else None)(ref())
        else:
            self._legal_mask = legal_mask

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        if mask is None and probability is None and self._legal_mask is not None:
            legal = self._legal_mask()
            if legal is not None and legal.any():
                mask = legal
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_legal_mask"] = None
        return state

    def __repr__(self) -> str:
        return f"Discrete({int(self.n)})"


def sample_legal(
    action_space: spaces.Discrete | spaces.MultiDiscrete, action_mask: Any
) -> np.int64 | np.ndarray:
    """A random legal action for each mask, drawn by Gymnasium's masked sampling
    (``Discrete.sample(mask=...)``, ``MultiDiscrete.sample(mask=...)``) with the
    space's own random generator (seed it with ``action_space.seed``).

    Args:
        action_space: one env's ``Discrete(A)``, or a vector env's
            ``action_space`` (``MultiDiscrete`` of ``N`` times ``A``).
        action_mask: ``obs["action_mask"]``: shape ``(A,)`` for a ``Discrete``,
            ``(N, A)`` for a vector env; entries 0/1 (ints or bools).

    Returns:
        One action (``np.int64``) for a ``Discrete``; an ``int64`` array of shape
        ``(N,)`` for a ``MultiDiscrete``. An all-zero mask (an ended episode,
        docs/research.md, "Masks at the end of an episode") gives action 0, a
        placeholder: a vector env resets that env on the next step and ignores it.

    Raises:
        ValueError: another kind of space, a ``MultiDiscrete`` whose sizes differ,
            or a mask of the wrong shape or with entries other than 0 and 1.
    """
    mask = np.asarray(action_mask)
    if mask.dtype != np.bool_ and not np.issubdtype(mask.dtype, np.integer):
        raise ValueError(f"action_mask must hold 0/1 integers or bools, not {mask.dtype}")
    if not np.isin(mask, (0, 1)).all():
        raise ValueError("action_mask entries must be 0 or 1")
    mask = mask.astype(np.int8)
    if isinstance(action_space, spaces.Discrete):
        if mask.shape != (int(action_space.n),):
            raise ValueError(
                f"action_mask of {action_space} must have shape ({int(action_space.n)},), not {mask.shape}"
            )
        return action_space.sample(mask=mask)
    if isinstance(action_space, spaces.MultiDiscrete):
        nvec = np.asarray(action_space.nvec)
        if nvec.ndim != 1 or len(set(nvec.tolist())) != 1:
            raise ValueError(
                f"sample_legal needs a vector env's MultiDiscrete (N equal sizes), not {action_space}"
            )
        if mask.shape != (len(nvec), int(nvec[0])):
            raise ValueError(
                f"action_mask of {action_space} must have shape ({len(nvec)}, {int(nvec[0])}), "
                f"not {mask.shape}"
            )
        return action_space.sample(mask=tuple(mask)).astype(np.int64)
    raise ValueError(
        f"sample_legal needs a Discrete or a vector env's MultiDiscrete space, not {action_space!r}"
    )
