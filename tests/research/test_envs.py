"""PettingZoo and Gymnasium interfaces: masks, rewards, bad actions, Gymnasium's checker.

(PettingZoo's own test suite runs in test_pettingzoo_suite.py.)
"""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from cardtable.goofspiel import Ruleset
from cardtable.research.encoding import (
    bid_combinations,
    bid_to_action,
    decode_action,
    num_actions,
    observation_layout,
)
from cardtable.research.gym_env import ENV_ID, GoofspielGymEnv
from cardtable.research.pettingzoo_env import parallel_env

from .rulesets import ALL_RULESETS

RULESETS = ALL_RULESETS


def test_action_numbering_matches_openspiel_for_single_card_bids():
    rs = Ruleset()
    assert [bid_to_action(rs, c) for c in range(1, 14)] == list(range(13))
    rs2 = Ruleset(cards=5, cards_per_bid=2)
    assert num_actions(rs2) == 10 and decode_action(rs2, 0) == ("bid", (1, 2))
    assert bid_combinations(5, 2)[-1] == (4, 5)


def test_parallel_game_runs_to_the_engine_result_and_rewards_sum_to_difference():
    e = parallel_env(ruleset=Ruleset(cards=5, prize_order="ascending"))
    obs, _ = e.reset(seed=0)
    lay = observation_layout(e.ruleset)
    # block 0 of the hands is the viewer's own hand; pot shows prize 1
    assert obs["player_0"]["observation"][lay["hands"]][:5].tolist() == [1] * 5
    assert obs["player_1"]["observation"][lay["pot"]].tolist() == [1, 0, 0, 0, 0]
    total = {"player_0": 0.0, "player_1": 0.0}
    for c in range(5):  # player_0 always bids one above player_1 where possible
        a0, a1 = bid_to_action(e.ruleset, (c + 2) if c < 4 else 1), bid_to_action(e.ruleset, c + 1)
        obs, rew, term, trunc, info = e.step({"player_0": a0, "player_1": a1})
        for k, v in rew.items():
            total[k] += v
    assert all(term.values()) and e.agents == []
    assert e.game.points == (1 + 2 + 3 + 4, 5)
    assert total == {"player_0": 5.0, "player_1": -5.0}
    assert info["player_0"]["result"] == "win"


def test_illegal_action_raises_under_the_raise_rule_and_changes_nothing():
    e = parallel_env(ruleset=Ruleset(cards=4), illegal_action="raise")
    e.reset(seed=1)
    e.step({"player_0": 0, "player_1": 1})
    before = e.game.snapshot()
    with pytest.raises(ValueError, match="not legal"):
        e.step({"player_0": 0, "player_1": 2})  # card 1 already spent by player_0
    with pytest.raises(ValueError, match="missing"):
        e.step({"player_0": 1})
    assert e.game.snapshot() == before


def test_open_prizes_choose_phase_is_its_own_action_type():
    rs = Ruleset(cards=5, open_prizes=3, prize_order="ascending")
    e = parallel_env(ruleset=rs)
    e.reset(seed=0)
    obs, *_ = e.step({"player_0": bid_to_action(rs, 5), "player_1": bid_to_action(rs, 1)})
    assert e.game.phase == "choose" and e.game.chooser == 0
    m0, m1 = obs["player_0"]["action_mask"], obs["player_1"]["action_mask"]
    c = 5
    assert m0[c : c + 5].tolist() == [1, 1, 1, 0, 0] and m0[-1] == 0 and m0[:c].sum() == 0
    assert m1.tolist() == [0] * (c + 5) + [1]  # only "wait"
    e.step({"player_0": c + 2, "player_1": c + 5})  # take prize 3
    assert e.game.won[0] == (3,)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.describe())
def test_gymnasium_env_checker_on_the_registered_env(ruleset, capsys):
    for mode in ("ansi", "human"):
        env = gymnasium.make(ENV_ID, ruleset=ruleset, opponents="heuristic", render_mode=mode)
        assert env.spec.id == "cardtable/Goofspiel-v0" and env.metadata["render_fps"] == 1
        check_env(env.unwrapped)  # render check included
    assert f"Goofspiel  {ruleset.describe()}" in capsys.readouterr().out  # human mode printed the table


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.describe())
def test_gym_masked_random_episode_ends_with_engine_result(ruleset):
    env = GoofspielGymEnv(ruleset, opponents="heuristic", seat=ruleset.players - 1)
    obs, _ = env.reset(seed=7)
    rng = np.random.default_rng(0)
    done, reward = False, 0.0
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size > 0
        obs, reward, done, _, info = env.step(int(rng.choice(legal)))
    assert reward == env.game.result().point_difference[env.seat]
    assert info["result"] == env.game.result().outcomes[env.seat]


def test_gym_bad_arguments_and_actions():
    with pytest.raises(ValueError, match="opponents"):
        GoofspielGymEnv(Ruleset(players=3), opponents=["random"])
    with pytest.raises(ValueError, match="seat"):
        GoofspielGymEnv(Ruleset(), seat=2)
    from cardtable.platform.bot import load_bot

    with pytest.raises(ValueError, match="several seats"):
        GoofspielGymEnv(Ruleset(players=3), opponents=load_bot("goofspiel", "random"))
    env = GoofspielGymEnv(Ruleset(cards=3), illegal_action="raise")
    env.reset(seed=0)
    env.step(0)
    with pytest.raises(ValueError, match="not legal"):
        env.step(0)


def test_gym_is_reproducible_with_a_seed():
    def episode():
        env = GoofspielGymEnv(Ruleset(cards=6), opponents="random")
        obs, _ = env.reset(seed=11)
        done = False
        while not done:
            obs, r, done, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        return env.game.history

    assert episode() == episode()


# -- bad actions (issue 9, section 5), the penalty rule, truncation, state, rendering --------

OUT_OF_SPACE = [-1, -0.5, 2.9, 1.0, "2", True, np.float32(1.0), 13, None, [1]]


@pytest.mark.parametrize("bad", OUT_OF_SPACE, ids=repr)
def test_actions_outside_the_space_are_refused_everywhere(bad):
    from cardtable.research.env_core import ActionSpaceError
    from cardtable.research.pettingzoo_env import env as aec_env

    for rule in ("penalty", "raise"):
        p = parallel_env(ruleset=Ruleset(cards=13), illegal_action=rule)
        p.reset(seed=0)
        before = p.game.snapshot()
        with pytest.raises(ActionSpaceError, match="outside the action space"):
            p.step({"player_0": bad, "player_1": 0})
        assert p.game.snapshot() == before and p.agents == ["player_0", "player_1"]
        a = aec_env(ruleset=Ruleset(cards=13), illegal_action=rule)
        a.reset(seed=0)
        with pytest.raises(ActionSpaceError):
            a.step(bad)
        assert a.agent_selection == "player_0"
        a.step(0)  # still usable
        assert a.agent_selection == "player_1"
        g = GoofspielGymEnv(Ruleset(cards=13), illegal_action=rule)
        g.reset(seed=0)
        with pytest.raises(ActionSpaceError):
            g.step(bad)
        assert g.game.round == 1
        g.step(np.int64(3))  # NumPy integers are in the space


def test_illegal_action_ends_the_parallel_episode_with_the_documented_penalty():
    e = parallel_env(ruleset=Ruleset(cards=4, players=3))
    e.reset(seed=1)
    e.step({"player_0": 0, "player_1": 1, "player_2": 2})
    before = e.game.snapshot()
    obs, rew, term, trunc, info = e.step({"player_0": 0, "player_1": 0, "player_2": 3})  # card 1 spent
    assert rew == {"player_0": -10.0, "player_1": 0.0, "player_2": 0.0}  # minus the total prize value
    assert all(term.values()) and not any(trunc.values()) and e.agents == []
    assert info["player_2"]["illegal_action"] == ["player_0"]
    assert e.game.snapshot() == before  # the illegal round is not played
    with pytest.raises(RuntimeError):
        e.step({"player_0": 1})
    e.reset(seed=2)  # and the env is usable again
    assert e.agents == ["player_0", "player_1", "player_2"]
    p = parallel_env(ruleset=Ruleset(cards=4), illegal_reward=-1)
    p.reset(seed=0)
    p.step({"player_0": 0, "player_1": 0})
    assert p.step({"player_0": 0, "player_1": 0})[1] == {"player_0": -1.0, "player_1": -1.0}


def test_aec_illegal_action_fails_on_its_own_step_and_the_env_stays_usable():
    from cardtable.research.env_core import IllegalActionError
    from cardtable.research.pettingzoo_env import env as aec_env

    a = aec_env(ruleset=Ruleset(cards=4), illegal_action="raise")
    a.reset(seed=3)
    a.step(0)
    a.step(1)  # round 1 played
    assert a.game.round == 2
    with pytest.raises(IllegalActionError, match="player_0"):
        a.step(0)  # player_0's own card 1 is spent: fails now, not at player_1's step
    assert a.agent_selection == "player_0" and a.game.round == 2
    a.step(2)
    a.step(2)
    assert a.game.round == 3

    a = aec_env(ruleset=Ruleset(cards=4))  # default: the penalty rule, on the same step
    a.reset(seed=3)
    a.step(0)
    a.step(1)
    a.step(0)
    assert all(a.terminations.values())
    assert a._cumulative_rewards == {"player_0": -10.0, "player_1": 0.0}
    for _agent in a.agent_iter():
        assert a.last()[2]  # terminated
        a.step(None)
    assert a.agents == []
    a.reset(seed=4)
    assert a.agent_selection == "player_0" and not any(a.terminations.values())


def test_gym_illegal_action_ends_the_episode_with_the_penalty():
    g = GoofspielGymEnv(Ruleset(cards=4))
    g.reset(seed=0)
    g.step(0)
    obs, reward, term, trunc, info = g.step(0)
    assert (reward, term, trunc, info["illegal_action"]) == (-10.0, True, False, True)
    with pytest.raises(RuntimeError):
        g.step(1)


def test_unmasked_sample_draws_a_legal_action():
    e = parallel_env(ruleset=Ruleset(cards=6, open_prizes=3))
    e.reset(seed=5)
    while e.agents:
        actions = {a: e.action_space(a).sample() for a in e.agents}
        for seat, a in enumerate(e.possible_agents):
            assert e.legal_mask(seat)[actions[a]]
        e.step(actions)
    assert e.game.is_over


def test_max_cycles_truncates_and_state_is_the_global_state():
    from cardtable.research.encoding import state_layout

    rs = Ruleset(cards=6)
    e = parallel_env(ruleset=rs, max_cycles=2)
    e.reset(seed=9, options={"prize_deck": [3, 1, 4, 6, 5, 2]})
    s = e.state()
    lay = state_layout(rs)
    assert e.state_space.contains(s)
    assert s[lay["next_prize"]].tolist() == [1, 0, 0, 0, 0, 0]  # the hidden next prize: 1
    assert s[lay["pot"]].tolist() == [0, 0, 1, 0, 0, 0]
    e.step({"player_0": 5, "player_1": 0})
    _, rew, term, trunc, _ = e.step({"player_0": 0, "player_1": 1})
    assert all(trunc.values()) and not any(term.values()) and e.agents == []
    assert rew == {"player_0": 0.0, "player_1": 0.0}
    assert e.state()[lay["points"]].tolist() == pytest.approx([3 / 21, 1 / 21])
    with pytest.raises(ValueError, match="max_cycles"):
        parallel_env(max_cycles=0)
    with pytest.raises(ValueError, match="illegal_action"):
        parallel_env(illegal_action="ignore")


def test_ansi_render_is_a_readable_table():
    e = parallel_env(ruleset=Ruleset(cards=5, players=3), render_mode="ansi")
    e.reset(seed=0, options={"prize_deck": [5, 1, 2, 3, 4]})
    e.step({"player_0": 4, "player_1": 0, "player_2": 1})
    lines = e.render().splitlines()
    assert lines[0] == "Goofspiel  cards=5 players=3 ties=carry ace=low bid=1 display=1 order=shuffled"
    assert lines[1] == "round 2 of 5, bid phase"
    assert (
        lines[3] == "last round: prize 5  player_0 bid 5, player_1 bid A, player_2 bid 2 -> player_0 took 5"
    )
    assert lines[-3:] == [
        "player_0       5  A 2 3 4",
        "player_1       0  2 3 4 5",
        "player_2       0  A 3 4 5",
    ]


# -- vector envs, the masked sampler and the terminal mask (issue 22, item 3) ---------------

from cardtable.research.gym_env import sample_legal  # noqa: E402
from cardtable.research.pettingzoo_env import env as aec_env  # noqa: E402

GYM_ID = "cardtable.research.gym_env:" + ENV_ID


def _vec_episode_checks(envs, steps, seed):
    """Step ``envs`` with :func:`sample_legal`; check every action against the mask it was
    drawn from, and the terminal-mask rule on every ended env. Returns (illegal, ended)."""
    envs.action_space.seed(seed)
    obs, _ = envs.reset(seed=seed)
    illegal = ended = 0
    done = np.zeros(envs.num_envs, dtype=bool)  # NEXT_STEP autoreset: this step resets those envs
    for _ in range(steps):
        mask = obs["action_mask"]
        actions = sample_legal(envs.action_space, mask)
        assert actions.shape == (envs.num_envs,)
        for i in range(envs.num_envs):
            if done[i]:
                assert not mask[i].any() and actions[i] == 0  # the placeholder, ignored by the reset
            else:
                assert mask[i][actions[i]] == 1
        obs, _, term, trunc, info = envs.step(actions)
        if "illegal_action" in info:
            illegal += int(np.sum(info["illegal_action"][info["_illegal_action"]]))
        done = term | trunc
        ended += int(done.sum())
        for i in range(envs.num_envs):
            # the terminal mask rule: all zeros once the episode ended, a legal action otherwise
            assert obs["action_mask"][i].any() != done[i]
    return illegal, ended


def test_sync_vector_env_with_the_masked_sampler_plays_no_illegal_action():
    """The issue's example: 4 envs x 100 steps (plain ``action_space.sample()`` ended 84 of them illegally)."""
    envs = gymnasium.make_vec(
        GYM_ID, num_envs=4, vectorization_mode="sync", ruleset="cards=4", opponents="random"
    )
    try:
        illegal, ended = _vec_episode_checks(envs, 100, seed=0)
    finally:
        envs.close()
    assert illegal == 0
    assert ended >= 4 * 100 // 5  # 4-card games of 4 learner steps, then a reset step each


def test_sync_vector_env_terminal_mask_with_truncation_and_open_prizes():
    envs = gymnasium.make_vec(
        GYM_ID,
        num_envs=3,
        vectorization_mode="sync",
        ruleset="cards=5 display=2",
        opponents="random",
        max_cycles=3,
    )
    try:
        illegal, ended = _vec_episode_checks(envs, 40, seed=1)
    finally:
        envs.close()
    assert illegal == 0 and ended > 0


def test_async_vector_env_terminal_mask_and_workers_exit():
    envs = gymnasium.make_vec(
        GYM_ID, num_envs=2, vectorization_mode="async", ruleset="cards=3", opponents="random"
    )
    processes = list(envs.processes)
    try:
        illegal, ended = _vec_episode_checks(envs, 12, seed=2)
    finally:
        envs.close()
    for p in processes:
        p.join(timeout=10)
    assert [p.is_alive() for p in processes] == [False, False]
    assert [p.exitcode for p in processes] == [0, 0]
    assert illegal == 0 and ended >= 2


def test_sample_legal_on_one_env_and_bad_masks():
    env = GoofspielGymEnv(Ruleset(cards=4))
    obs, _ = env.reset(seed=0)
    env.action_space.seed(0)
    draws = {int(sample_legal(env.action_space, obs["action_mask"])) for _ in range(50)}
    assert draws == {0, 1, 2, 3}
    env.step(2)  # card 3 spent
    obs, *_ = env.step(0)  # card 1 spent
    assert obs["action_mask"].tolist() == [0, 1, 0, 1]
    assert {int(sample_legal(env.action_space, obs["action_mask"])) for _ in range(30)} == {1, 3}
    assert sample_legal(env.action_space, np.zeros(4, np.int8)) == 0  # the ended episode's placeholder
    assert sample_legal(env.action_space, np.array([False, False, True, False])) == 2
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        sample_legal(env.action_space, np.ones(5, np.int8))
    with pytest.raises(ValueError, match="0 or 1"):
        sample_legal(env.action_space, np.array([0, 2, 0, 0]))
    with pytest.raises(ValueError, match="integers or bools"):
        sample_legal(env.action_space, np.array([0.0, 1.0, 0.0, 0.0]))
    with pytest.raises(ValueError, match=r"shape \(2, 4\)"):
        sample_legal(gymnasium.spaces.MultiDiscrete([4, 4]), np.ones(4, np.int8))
    with pytest.raises(ValueError, match="equal sizes"):
        sample_legal(gymnasium.spaces.MultiDiscrete([4, 3]), np.ones((2, 4), np.int8))
    with pytest.raises(ValueError, match="Discrete or"):
        sample_legal(gymnasium.spaces.Box(0, 1, (4,)), np.ones(4, np.int8))


def test_terminal_mask_is_all_zeros_however_a_gym_episode_ends():
    rs = Ruleset(cards=4)
    ends = []
    g = GoofspielGymEnv(rs)  # the game's end
    obs, _ = g.reset(seed=0)
    while True:
        obs, _, term, trunc, _ = g.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if term or trunc:
            break
        assert obs["action_mask"].any()
    ends.append(obs["action_mask"])
    g = GoofspielGymEnv(rs)  # an illegal action (before: the legal mask)
    g.reset(seed=0)
    g.step(0)
    ends.append(g.step(0)[0]["action_mask"])
    g = GoofspielGymEnv(rs, max_cycles=1)  # truncation (before: the legal mask)
    g.reset(seed=0)
    obs, _, term, trunc, _ = g.step(0)
    assert trunc and not term
    ends.append(obs["action_mask"])
    assert [m.tolist() for m in ends] == [[0, 0, 0, 0]] * 3
    assert obs["observation"].any()  # the observation itself is kept


def test_terminal_mask_is_all_zeros_however_a_pettingzoo_episode_ends():
    rs = Ruleset(cards=4)
    e = parallel_env(ruleset=rs, max_cycles=1)  # truncation
    e.reset(seed=0)
    obs, _, _, trunc, _ = e.step({"player_0": 0, "player_1": 1})
    assert all(trunc.values()) and [o["action_mask"].tolist() for o in obs.values()] == [[0, 0, 0, 0]] * 2
    e = parallel_env(ruleset=rs)  # an illegal action
    e.reset(seed=0)
    e.step({"player_0": 0, "player_1": 1})
    obs, _, term, _, _ = e.step({"player_0": 0, "player_1": 2})
    assert all(term.values()) and [o["action_mask"].tolist() for o in obs.values()] == [[0, 0, 0, 0]] * 2
    e.reset(seed=0)
    assert e.observe("player_0")["action_mask"].tolist() == [1, 1, 1, 1]  # a reset starts afresh
    a = aec_env(ruleset=rs)  # AEC: an illegal action, then the game's end
    a.reset(seed=0)
    a.step(0)
    a.step(0)
    a.step(0)  # player_0: card 1 again
    assert all(a.terminations.values()) and a.observe("player_1")["action_mask"].tolist() == [0, 0, 0, 0]
    a.reset(seed=0)
    for _agent in a.agent_iter():
        obs, _, term, trunc, _ = a.last()
        if term or trunc:
            assert obs["action_mask"].tolist() == [0, 0, 0, 0]
            a.step(None)
        else:
            a.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert a.game.is_over
