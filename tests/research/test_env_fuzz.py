"""Fuzz (Hypothesis, bounded): any action sequence through the RL envs' ``step``
gives a result or a documented ``ValueError`` (``ActionSpaceError``,
``IllegalActionError``), never another exception; after a refused action the env
is unchanged and usable; the penalty rule ends the episode."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardtable.goofspiel import Ruleset
from cardtable.research.env_core import ActionSpaceError, IllegalActionError
from cardtable.research.gym_env import GoofspielGymEnv
from cardtable.research.pettingzoo_env import env as aec_env
from cardtable.research.pettingzoo_env import parallel_env

RULESETS = [
    Ruleset(cards=4),
    Ruleset(cards=5, players=3, unique_bids=True),
    Ruleset(cards=6, open_prizes=2),
    Ruleset(cards=6, cards_per_bid=2, tie_rule="discard"),
]

actions = st.one_of(
    st.integers(-3, 25),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.booleans(),
    st.none(),
    st.integers(0, 20).map(np.int64),
    st.integers(0, 20).map(np.float32),
    st.lists(st.integers(0, 5), max_size=2),
)
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(
    rs=st.sampled_from(RULESETS),
    rule=st.sampled_from(["penalty", "raise"]),
    seq=st.lists(st.lists(actions, min_size=5, max_size=5), max_size=25),
)
def test_parallel_step_fuzz(rs, rule, seq):
    e = parallel_env(ruleset=rs, illegal_action=rule)
    e.reset(seed=0)
    for row in seq:
        if not e.agents:
            e.reset(seed=1)
        acts = {a: row[i] for i, a in enumerate(e.agents)}
        before = e.game.snapshot()
        try:
            _, rew, term, trunc, info = e.step(acts)
        except (ActionSpaceError, IllegalActionError):
            assert e.game.snapshot() == before and e.agents
            continue
        if "illegal_action" in info[e.possible_agents[0]]:
            assert rule == "penalty" and all(term.values()) and e.game.snapshot() == before


@FUZZ
@given(
    rs=st.sampled_from(RULESETS),
    rule=st.sampled_from(["penalty", "raise"]),
    seq=st.lists(actions, max_size=60),
)
def test_aec_step_fuzz(rs, rule, seq):
    e = aec_env(ruleset=rs, illegal_action=rule)
    e.reset(seed=0)
    for action in seq:
        if not e.agents:
            e.reset(seed=1)
        agent = e.agent_selection
        if e.terminations[agent] or e.truncations[agent]:
            e.step(None)
            continue
        before = e.game.snapshot()
        try:
            e.step(action)
        except (ActionSpaceError, IllegalActionError):
            assert e.agent_selection == agent and e.game.snapshot() == before


@FUZZ
@given(
    rs=st.sampled_from(RULESETS),
    rule=st.sampled_from(["penalty", "raise"]),
    seq=st.lists(actions, max_size=30),
)
def test_gym_step_fuzz(rs, rule, seq):
    e = GoofspielGymEnv(rs, opponents="random", illegal_action=rule)
    e.reset(seed=0)
    done = False
    for action in seq:
        if done:
            e.reset(seed=1)
        before = e.game.snapshot()
        try:
            _, _, term, trunc, _ = e.step(action)
        except (ActionSpaceError, IllegalActionError):
            assert e.game.snapshot() == before
            done = False
            continue
        done = term or trunc
