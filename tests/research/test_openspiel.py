"""Our Goofspiel in OpenSpiel: equivalence with OpenSpiel's goofspiel, CFR against a reference."""

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability

from cardtable.goofspiel import Game, Ruleset
from cardtable.research import openspiel_game as og
from cardtable.research.encoding import choice_to_action  # noqa: F401  (og.choice_to_action)
from cardtable.research.reference import best_response_value, solve, solve_matrix_game


def _random_play(state, rng, log=None):
    while not state.is_terminal():
        if state.is_chance_node():
            a = rng.choice([o for o, _ in state.chance_outcomes()])
            entry = ("chance", a)
            state.apply_action(a)
        elif state.is_simultaneous_node():
            acts = [rng.choice(state.legal_actions(p)) for p in range(state.num_players())]
            entry = ("joint", tuple(acts))
            state.apply_actions(acts)
        else:
            a = rng.choice(state.legal_actions())
            entry = ("player", state.current_player(), a)
            state.apply_action(a)
        if log is not None:
            log.append(entry)
    return state


@pytest.mark.parametrize("num_cards", [3, 5, 8, 13])
def test_discard_ties_match_openspiel_goofspiel_on_identical_action_sequences(num_cards):
    theirs = pyspiel.load_game("goofspiel", {"num_cards": num_cards, "points_order": "random",
                                             "returns_type": "point_difference", "imp_info": True, "players": 2})
    ours = og.load(num_cards=num_cards, tie_rule="discard")
    rng = random.Random(num_cards)
    for _ in range(30):
        log = []
        t = _random_play(theirs.new_initial_state(), rng, log)
        s = ours.new_initial_state()
        for entry in log:
            if entry[0] == "chance":
                assert s.is_chance_node()
                assert sorted(a for a, _ in s.chance_outcomes()) == sorted(
                    a for a, _ in theirs_state_outcomes(theirs, log, entry))
                s.apply_action(entry[1])
            else:
                assert s.is_simultaneous_node()
                s.apply_actions(list(entry[1]))
        assert s.is_terminal()
        assert s.returns() == t.returns()
        # and the engine on the same prize order and bids gives the same points
        prizes = [a + 1 for kind, a in ((e[0], e[1]) for e in log) if kind == "chance"]
        prizes += sorted(set(range(1, num_cards + 1)) - set(prizes))
        g = Game(Ruleset(cards=num_cards, tie_rule="discard"), prize_deck=prizes)
        for e in log:
            if e[0] == "joint":
                g.play([e[1][0] + 1, e[1][1] + 1])
        if not g.is_over:  # OpenSpiel plays the forced last round itself
            g.play([g.legal_bids(0)[0], g.legal_bids(1)[0]])
        assert (g.points[0] - g.points[1]) / 2 == t.returns()[0]  # OpenSpiel: points minus the mean


def theirs_state_outcomes(game, log, upto):
    """Chance outcomes of OpenSpiel's state just before ``upto`` in ``log``."""
    s = game.new_initial_state()
    for entry in log:
        if entry is upto:
            return s.chance_outcomes()
        if entry[0] == "chance":
            s.apply_action(entry[1])
        else:
            s.apply_actions(list(entry[1]))
    raise AssertionError("entry not in log")


@pytest.mark.parametrize("params", [
    dict(num_cards=4), dict(num_cards=5, open_prizes=2), dict(num_cards=5, players=3, unique_bids=True),
    dict(num_cards=6, cards_per_bid=2), dict(num_cards=4, points_order="descending", high_ace=True),
    dict(num_cards=5, players=4, tie_rule="discard"),
])
def test_every_variant_passes_openspiels_random_simulation_test(params):
    game = og.load(**params)
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)
    rng = random.Random(1)
    for _ in range(10):
        s = _random_play(game.new_initial_state(), rng)
        assert sum(s.returns()) == pytest.approx(0.0)
        g = s.engine_game
        pts = g.points
        n = len(pts)
        assert s.returns()[0] == pytest.approx(pts[0] - sum(pts) / n)


def test_bad_parameters_are_rejected():
    with pytest.raises(ValueError, match="points_order"):
        og.load(points_order="sideways")
    with pytest.raises(ValueError, match="win_loss"):
        og.load(players=3, returns_type="win_loss")
    with pytest.raises(ValueError, match="cards"):
        og.load(num_cards=20)


def test_matrix_game_solver_on_matching_pennies():
    v, x, y = solve_matrix_game(np.array([[1.0, -1.0], [-1.0, 1.0]]))
    assert v == pytest.approx(0.0, abs=1e-9)
    assert x == pytest.approx([0.5, 0.5]) and y == pytest.approx([0.5, 0.5])
    v, x, _ = solve_matrix_game(np.array([[3.0, 1.0], [2.0, 0.0]]))
    assert v == pytest.approx(1.0) and x == pytest.approx([1.0, 0.0])


def _public_key(engine_game):
    return (frozenset(engine_game.hands[0]), frozenset(engine_game.hands[1]),
            tuple(engine_game.pot), frozenset(engine_game.deck))


def _info_keys(game):
    """Turn-based information-state strings of each public state, by a walk of our game."""
    keys = {}

    def walk(s):
        if s.is_terminal():
            return
        if s.is_chance_node():
            for a, _ in s.chance_outcomes():
                walk(s.child(a))
            return
        key = _public_key(s.engine_game)
        for p in range(2):
            keys[key, p] = f"Current player: {p}\n" + s.information_state_string(p)
        for a0 in s.legal_actions(0):
            for a1 in s.legal_actions(1):
                c = s.clone()
                c.apply_actions([a0, a1])
                walk(c)

    walk(game.new_initial_state())
    return keys


def test_cfr_on_carry_over_converges_to_the_reference_value():
    rs = Ruleset(cards=3, tie_rule="carry")
    ref = solve(rs)
    assert ref.value == pytest.approx(0.0, abs=1e-9)   # symmetric game
    assert any(abs(v) > 0.5 for v in ref.values.values())  # but not a trivial one

    game = og.load(num_cards=3, tie_rule="carry")
    tb = pyspiel.convert_to_turn_based(game)
    keys = _info_keys(game)

    # 1. the reference's LP equilibrium is an equilibrium of our OpenSpiel game
    ref_policy = cfr.CFRSolver(tb).average_policy()  # a TabularPolicy over tb's information states
    for (state, p), info in keys.items():
        probs = ref.strategies[state][p]
        row = ref_policy.policy_for_key(info)
        row[:] = 0.0
        for card, q in zip(sorted(state[p]), probs):
            row[card - 1] = q
    assert exploitability.nash_conv(tb, ref_policy) < 1e-6

    # 2. OpenSpiel's CFR+ converges to the reference value
    solver = cfr.CFRPlusSolver(tb)
    convs = []
    for i in range(40):
        solver.evaluate_and_update_policy()
        if i + 1 in (10, 40):
            convs.append(exploitability.nash_conv(tb, solver.average_policy()))
    avg = solver.average_policy()
    assert convs[1] < convs[0] and convs[1] < 0.03
    values = expected_game_score.policy_value(tb.new_initial_state(), [avg, avg])
    assert values[0] == pytest.approx(ref.value, abs=0.01)

    # 3. best responses to CFR's policy: the reference and OpenSpiel agree
    def policy_at(state, seat):
        row = avg.policy_for_key(keys[state, seat]) if (state, seat) in keys else None
        cards = sorted(state[seat])
        if row is None:  # forced last round: OpenSpiel never asks
            return np.ones(len(cards)) / len(cards)
        return np.array([row[c - 1] for c in cards])

    info = exploitability.nash_conv(tb, avg, return_only_nash_conv=False)
    for p in (0, 1):
        ours = best_response_value(rs, p, policy_at) / 2 - values[p]  # returns are half of p0 - p1
        assert ours == pytest.approx(info.player_improvements[p], abs=1e-9)


# -- the information-state tensor --------------------------------------------------------

@pytest.mark.parametrize("params", [
    dict(num_cards=3), dict(num_cards=3, tie_rule="discard"), dict(num_cards=4, open_prizes=2),
    dict(num_cards=3, players=3, unique_bids=True), dict(num_cards=4, cards_per_bid=2),
    dict(num_cards=3, points_order="descending"),
])
def test_distinct_information_states_have_distinct_tensors(params):
    from open_spiel.python.algorithms import get_all_states

    game = og.load(**params)
    assert game.get_type().provides_information_state_tensor
    assert game.information_state_tensor_shape() == [og.info_state_size(game.ruleset)]
    tb = pyspiel.convert_to_turn_based(game)
    states = get_all_states.get_all_states(tb, include_terminals=False, include_chance_states=False)
    tensors: dict[str, tuple] = {}
    for s in states.values():
        p = s.current_player()
        key, t = s.information_state_string(p), tuple(s.information_state_tensor(p))
        assert tensors.setdefault(key, t) == t      # one tensor per information state
    assert len(set(tensors.values())) == len(tensors)  # and distinct states, distinct tensors
    if params == dict(num_cards=3):
        assert len(tensors) == 114                  # the example: 114 states, now 114 tensors


def test_information_state_tensor_is_the_public_history():
    game = og.load(num_cards=4, open_prizes=2, players=2)
    s = game.new_initial_state()
    s.apply_action(2)                    # prize 3 turned up
    s.apply_action(0)                    # prize 1 turned up: the display holds 3 and 1
    s.apply_actions([3, 0])              # bids 4 and 1: seat 0 chooses
    s.apply_action(og.choice_to_action(game.ruleset, 3))
    obs = og.GoofspielObserver(pyspiel.IIGObservationType(perfect_recall=True), game.ruleset)
    obs.set_from(s, 1)
    d = obs.dict
    assert d["player"].tolist() == [0, 1]
    assert d["prizes"][0].tolist() == [0, 0, 1, 0] and d["prizes"][1].tolist() == [1, 0, 0, 0]
    assert d["bids"][0].tolist() == [[0, 0, 0, 1], [1, 0, 0, 0]] and d["bids"][1].sum() == 0
    assert d["choices"][0, 0].tolist() == [0, 0, 1, 0]
    assert np.array_equal(np.array(s.information_state_tensor(1)), obs.tensor)


def test_memoised_tree_is_bounded_and_states_stay_correct(monkeypatch):
    monkeypatch.setattr(og, "MAX_CACHED_NODES", 5)
    game = og.load(num_cards=5)
    rng = random.Random(3)
    for _ in range(20):
        s = _random_play(game.new_initial_state(), rng)
        pts = s.engine_game.points
        assert s.returns() == [pts[0] - sum(pts) / 2, pts[1] - sum(pts) / 2]
    assert game._shared.cached == 5
    s = game.new_initial_state()
    c = s.clone()
    s.apply_action(s.chance_outcomes()[0][0])
    assert c.is_chance_node() and not s.is_chance_node()   # a clone is independent


# -- the turn-based form -----------------------------------------------------------------

@pytest.mark.parametrize("params", [
    dict(num_cards=4), dict(num_cards=4, open_prizes=2), dict(num_cards=4, players=3, unique_bids=True),
    dict(num_cards=5, cards_per_bid=2), dict(num_cards=4, points_order="descending", tie_rule="discard"),
])
def test_turn_based_form_passes_openspiels_random_simulation_test(params):
    game = og.load(turn_based=True, **params)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)


@pytest.mark.parametrize("params", [dict(num_cards=3), dict(num_cards=3, tie_rule="discard"),
                                    dict(num_cards=3, players=3, unique_bids=True)])
def test_turn_based_form_is_the_converted_game(params):
    from open_spiel.python.algorithms import get_all_states

    ours = og.load(turn_based=True, **params)
    converted = pyspiel.convert_to_turn_based(og.load(**params))

    def infosets(game):
        states = get_all_states.get_all_states(game, include_terminals=False, include_chance_states=False)
        return {(s.current_player(), tuple(s.legal_actions())) for s in states.values()}, \
            len({s.information_state_string() for s in states.values()})

    (acts_a, n_a), (acts_b, n_b) = infosets(ours), infosets(converted)
    assert n_a == n_b and acts_a == acts_b
    if params["num_cards"] == 3 and len(params) == 1:
        assert n_a == 114
    # CFR+ walks the same tree: the same NashConv, iteration for iteration
    a, b = cfr.CFRPlusSolver(ours), cfr.CFRPlusSolver(converted)
    for _ in range(5):
        a.evaluate_and_update_policy()
        b.evaluate_and_update_policy()
    assert exploitability.nash_conv(ours, a.average_policy()) == pytest.approx(
        exploitability.nash_conv(converted, b.average_policy()), abs=1e-9)


def test_turn_based_bids_stay_hidden_until_the_round_is_complete():
    game = og.load(turn_based=True, num_cards=4, tie_rule="discard")
    s = game.new_initial_state()
    s.apply_action(1)                                # prize 2 turned up
    before = s.information_state_string(1)
    s.apply_action(3)                                # seat 0 bids the 4
    assert s.current_player() == 1
    assert s.information_state_string(1) != before   # seat 1 sees that seat 0 has bid ...
    other = game.new_initial_state()
    other.apply_action(1)
    other.apply_action(0)                            # ... but not which card: a bid of 1 looks the same
    assert other.information_state_string(1) == s.information_state_string(1)
    assert s.information_state_string(0) != other.information_state_string(0)   # seat 0 knows its own
    with pytest.raises(ValueError, match="not a legal bid"):
        s.apply_action(7)                            # no card 8: refused, nothing changes
    assert s.current_player() == 1 and s.history() == [1, 3]
    s.apply_action(0)                                # seat 1 bids the ace: seat 0 takes prize 2
    assert s.engine_game.points == (2, 0) and s.is_chance_node()
