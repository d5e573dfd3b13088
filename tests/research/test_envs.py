"""PettingZoo and Gymnasium interfaces: API conformance on every preset, masks, bad actions."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

from cardtable.goofspiel import PRESETS, Ruleset
from cardtable.research.encoding import (
    bid_combinations, bid_to_action, decode_action, num_actions, observation_layout,
)
from cardtable.research.gym_env import GoofspielGymEnv
from cardtable.research.pettingzoo_env import env as aec_env
from cardtable.research.pettingzoo_env import parallel_env

RULESETS = [Ruleset.preset(name) for name in PRESETS] + [
    Ruleset(cards=5, players=4, tie_rule="discard"),
    Ruleset(cards=6, players=3, cards_per_bid=2, open_prizes=2),
    Ruleset(cards=7, players=5, unique_bids=True, high_ace=True),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.describe())
def test_pettingzoo_api(ruleset):
    parallel_api_test(parallel_env(ruleset=ruleset), num_cycles=100)
    api_test(aec_env(ruleset=ruleset), num_cycles=100)


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


def test_illegal_action_raises_and_changes_nothing():
    e = parallel_env(ruleset=Ruleset(cards=4))
    e.reset(seed=1)
    e.step({"player_0": 0, "player_1": 1})
    before = e.game.snapshot()
    with pytest.raises(ValueError, match="not legal"):
        e.step({"player_0": 0, "player_1": 2})  # card 1 already spent by player_0
    with pytest.raises(ValueError, match="no action"):
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
    assert m0[c:c + 5].tolist() == [1, 1, 1, 0, 0] and m0[-1] == 0 and m0[:c].sum() == 0
    assert m1.tolist() == [0] * (c + 5) + [1]  # only "wait"
    e.step({"player_0": c + 2, "player_1": c + 5})  # take prize 3
    assert e.game.won[0] == (3,)


@pytest.mark.parametrize("name", ["standard", "discard", "high-ace", "three-player", "two-card-bids", "ascending"])
def test_gymnasium_env_checker(name):
    check_env(GoofspielGymEnv(Ruleset.preset(name), opponents="heuristic"), skip_render_check=True)


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
    env = GoofspielGymEnv(Ruleset(cards=3))
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
