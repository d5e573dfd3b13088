"""Our Goofspiel in OpenSpiel: equivalence with OpenSpiel's goofspiel, CFR against a reference."""

import random

import pyspiel
import pytest
from open_spiel.python.algorithms import exploitability

from cardtable.goofspiel import Game, Ruleset
from cardtable.research import openspiel_game as og
from cardtable.research.encoding import choice_to_action  # noqa: F401  (og.choice_to_action)


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
    theirs = pyspiel.load_game(
        "goofspiel",
        {
            "num_cards": num_cards,
            "points_order": "random",
            "returns_type": "point_difference",
            "imp_info": True,
            "players": 2,
        },
    )
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
                    a for a, _ in theirs_state_outcomes(theirs, log, entry)
                )
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


@pytest.mark.parametrize(
    "params",
    [
        dict(num_cards=4),
        dict(num_cards=5, open_prizes=2),
        dict(num_cards=5, players=3, unique_bids=True),
        dict(num_cards=6, cards_per_bid=2),
        dict(num_cards=4, points_order="descending", high_ace=True),
        dict(num_cards=5, players=4, tie_rule="discard"),
    ],
)
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
    with pytest.raises(ValueError, match="cards"):
        og.load(num_cards=20)


# -- OpenSpiel's own parameters, metadata and values (issue 22, item 2) ----------------------

NATIVE_PARAMS = [
    dict(num_cards=n, players=p, points_order=o, returns_type=r)
    for n in (3, 4, 5)
    for p in (2, 3)
    for o in ("random", "ascending", "descending")
    for r in ("point_difference", "win_loss", "total_points")
]


def _native(**params):
    return pyspiel.load_game("goofspiel", {"imp_info": False, **params})


def test_native_parameter_names_and_defaults_are_known():
    native = pyspiel.load_game("goofspiel").get_parameters()
    assert native == og.NATIVE_DEFAULTS
    ours = og.load().get_parameters()
    assert set(native) <= set(ours)  # every native name is accepted
    differ = {k for k in native if native[k] != ours[k]}
    assert differ == {"returns_type"}  # win_loss there, point_difference here (documented)


@pytest.mark.parametrize("params", NATIVE_PARAMS, ids=lambda p: "-".join(map(str, p.values())))
def test_metadata_matches_native(params):
    native, ours = _native(**params), og.load(tie_rule="discard", **params)
    assert ours.get_type().information == native.get_type().information == og._PERFECT
    assert ours.get_type().utility == native.get_type().utility
    assert ours.max_game_length() == native.max_game_length() == params["num_cards"]
    assert ours.max_chance_outcomes() == native.max_chance_outcomes()
    assert ours.num_distinct_actions() == native.num_distinct_actions()
    assert ours.max_utility() == pytest.approx(native.max_utility())
    total = params["num_cards"] * (params["num_cards"] + 1) // 2
    if params["returns_type"] == "point_difference":  # native's minimum divides integers: -10 // 3
        assert ours.min_utility() == pytest.approx(-total / params["players"])
        assert native.min_utility() == -(total // params["players"])
    else:
        assert ours.min_utility() == native.min_utility()
    if params["returns_type"] == "total_points":
        assert ours.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    else:
        assert ours.utility_sum() == native.utility_sum() == 0.0
    # the turn-based forms: OpenSpiel's conversion and ours
    converted, turn = (
        pyspiel.convert_to_turn_based(native),
        og.load(tie_rule="discard", turn_based=True, **params),
    )
    assert turn.get_type().information == converted.get_type().information == og._IMPERFECT
    assert turn.max_game_length() == converted.max_game_length() == params["num_cards"] * params["players"]


def test_issue_example_4_cards_metadata():
    game = og.load(num_cards=4, returns_type="point_difference")
    assert (game.min_utility(), game.max_utility(), game.max_game_length()) == (
        -5.0,
        5.0,
        4,
    )  # was -10, 10, 16
    assert og.load(num_cards=4, turn_based=True).max_game_length() == 8
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION


def _lockstep(native, ours, rng):
    """Play the same random moves in both games; return the two states at the end."""
    t, s = native.new_initial_state(), ours.new_initial_state()
    while not t.is_terminal():
        assert not s.is_terminal()
        if t.is_chance_node():
            assert s.is_chance_node()
            assert s.chance_outcomes() == t.chance_outcomes()
            a = rng.choice([o for o, _ in t.chance_outcomes()])
            t.apply_action(a)
            s.apply_action(a)
        else:
            assert s.is_simultaneous_node()
            acts = [rng.choice(t.legal_actions(p)) for p in range(t.num_players())]
            assert [s.legal_actions(p) for p in range(s.num_players())] == [
                t.legal_actions(p) for p in range(t.num_players())
            ]
            t.apply_actions(acts)
            s.apply_actions(acts)
    assert s.is_terminal()
    return t, s


@pytest.mark.parametrize("params", NATIVE_PARAMS, ids=lambda p: "-".join(map(str, p.values())))
def test_returns_match_native_on_identical_action_sequences(params):
    rng = random.Random(str(params))
    extra = [dict(), dict(egocentric=True), dict(num_turns=params["num_cards"])]  # accepted, same game
    for i in range(24):
        more = extra[i % 3]
        t, s = _lockstep(_native(**params, **more), og.load(tie_rule="discard", **params, **more), rng)
        assert s.returns() == pytest.approx(t.returns(), abs=1e-12)


def test_win_loss_with_three_players_shares_the_win_as_native_does():
    game = og.load(num_cards=3, players=3, tie_rule="discard", returns_type="win_loss")
    s = game.new_initial_state()
    s.apply_action(2)  # prize 3
    s.apply_actions([2, 2, 0])  # seats 0 and 1 tie on 3: discarded
    s.apply_action(1)  # prize 2
    s.apply_actions([1, 0, 1])  # seats 0 and 2 tie on 2: discarded; last round forced
    assert s.is_terminal() and s.engine_game.points == (0, 0, 1)
    assert s.returns() == [-0.5, -0.5, 1.0]


@pytest.mark.parametrize(
    "bad, reason",
    [
        (dict(imp_info=True), "hides the bids"),
        (dict(num_cards=4, num_turns=3), "cut short"),
        (dict(num_cards=4, cards_per_bid=2, num_turns=4), "num_turns must be -1 or 2"),
        (dict(returns_type="points"), "returns_type must be one of point_difference, win_loss, total_points"),
        (dict(points_order="sideways"), "points_order"),
    ],
)
def test_native_parameters_with_another_meaning_are_refused_with_the_reason(bad, reason):
    with pytest.raises(ValueError, match=reason):
        og.load(**bad)
    with pytest.raises(ValueError, match=reason):
        og.load(turn_based=True, **bad)


@pytest.mark.parametrize("points_order", ["random", "ascending", "descending"])
@pytest.mark.parametrize("returns_type", ["point_difference", "win_loss"])
def test_value_iteration_gives_native_values(points_order, returns_type):
    """OpenSpiel's simultaneous-move value_iteration (refused before: IMPERFECT_INFORMATION)
    gives the same value at every state both games reach by the same moves (3 cards)."""
    pytest.importorskip("cvxpy")
    from open_spiel.python.algorithms import value_iteration

    params = dict(num_cards=3, points_order=points_order, returns_type=returns_type)
    native, ours = _native(**params), og.load(tie_rule="discard", **params)
    theirs_v = value_iteration.value_iteration(native, -1, 1e-6)
    ours_v = value_iteration.value_iteration(ours, -1, 1e-6)
    compared = set()

    def walk(t, s):
        assert t.is_terminal() == s.is_terminal()
        if t.is_chance_node():
            for a, _ in t.chance_outcomes():
                walk(t.child(a), s.child(a))
            return
        assert ours_v[str(s)] == pytest.approx(theirs_v[str(t)], abs=1e-4)
        compared.add(round(theirs_v[str(t)], 4))
        if t.is_terminal():
            return
        for a0 in t.legal_actions(0):
            for a1 in t.legal_actions(1):
                tc, sc = t.clone(), s.clone()
                tc.apply_actions([a0, a1])
                sc.apply_actions([a0, a1])
                walk(tc, sc)

    walk(native.new_initial_state(), ours.new_initial_state())
    assert len(compared) > 3  # not only the symmetric value 0


@pytest.mark.parametrize("num_cards, players", [(3, 2), (4, 2), (3, 3)])
@pytest.mark.parametrize("returns_type", ["point_difference", "win_loss", "total_points"])
def test_nash_conv_of_uniform_play_matches_native(num_cards, players, returns_type):
    """OpenSpiel's NashConv of uniform random play in the turn-based forms (our
    Python one and ``convert_to_turn_based`` of native)."""
    from open_spiel.python import policy

    params = dict(num_cards=num_cards, players=players, returns_type=returns_type)
    converted = pyspiel.convert_to_turn_based(_native(**params))
    turn = og.load(tie_rule="discard", turn_based=True, **params)
    theirs = exploitability.nash_conv(converted, policy.UniformRandomPolicy(converted))
    ours = exploitability.nash_conv(turn, policy.UniformRandomPolicy(turn))
    assert theirs > 0.1 and ours == pytest.approx(theirs, abs=1e-9)


def test_sequence_form_lp_solves_the_turn_based_form_as_native():
    """OpenSpiel's sequence-form LP: the same game value as native (0 by symmetry), and
    its equilibrium of our game has NashConv 0 in our game."""
    pytest.importorskip("cvxpy")
    from open_spiel.python import policy
    from open_spiel.python.algorithms import sequence_form_lp

    params = dict(num_cards=3, points_order="descending", returns_type="point_difference")
    converted = pyspiel.convert_to_turn_based(_native(**params))
    turn = og.load(tie_rule="discard", turn_based=True, **params)
    theirs, ours = sequence_form_lp.solve_zero_sum_game(converted), sequence_form_lp.solve_zero_sum_game(turn)
    assert ours[0] == pytest.approx(theirs[0], abs=1e-6)
    merged = policy.merge_tabular_policies([ours[2], ours[3]], turn)
    assert exploitability.nash_conv(turn, merged) < 1e-5
    assert exploitability.nash_conv(turn, policy.UniformRandomPolicy(turn)) > 0.1


@pytest.mark.parametrize(
    "params",
    [
        dict(num_cards=5, open_prizes=2),
        dict(num_cards=5, players=3, open_prizes=3),
        dict(num_cards=6, cards_per_bid=2),
        dict(num_cards=4, points_order="ascending"),
    ],
)
def test_max_game_length_bounds_every_played_game(params):
    sim, turn = og.load(**params), og.load(turn_based=True, **params)
    rng = random.Random(7)
    for _ in range(20):
        s = _random_play(sim.new_initial_state(), rng)
        assert len(s._h.moves) <= sim.max_game_length()  # a joint bid or a prize choice per move
        t = turn.new_initial_state()
        moves = 0
        while not t.is_terminal():
            if not t.is_chance_node():
                moves += 1
            t.apply_action(rng.choice(t.legal_actions()))
        assert moves <= turn.max_game_length()
    assert sim.max_game_length() == og.max_moves(sim.ruleset)
