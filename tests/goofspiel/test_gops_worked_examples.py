"""The four worked examples of docs/rules.md (Worked examples), each as its own test."""

from cardtable.goofspiel import Game, Ruleset


def deck_starting(*top):
    return list(top) + [c for c in range(1, 14) if c not in top]


def test_example_1_king_beats_jack_and_is_spent():
    # Q♦ (12) is up. Anna bids K♠, Ben J♣: Anna wins 12; her K is spent.
    game = Game(Ruleset(), prize_deck=deck_starting(12))
    result = game.play([13, 11])
    assert result.winner == 0
    assert game.points == (12, 0)
    assert 13 not in game.hands[0] and 11 not in game.hands[1]
    assert (13,) not in game.legal_bids(0)


def test_example_2_tie_carries_over_to_a_pot_of_14():
    # 5♦ up, both bid 6: tie, 5♦ stays; 9♦ turned up; pot 14. Ben 10♣, Anna 8♠: Ben takes 14.
    game = Game(Ruleset(), prize_deck=deck_starting(5, 9))
    tie = game.play([6, 6])
    assert tie.tie and tie.carried == (5,)
    assert game.pot == (5, 9)
    assert game.view(0).pot_value == 14
    result = game.play([8, 10])
    assert result.winner == 1
    assert game.points == (0, 14)
    assert game.won[1] == (5, 9)


def test_example_3_jack_wins_8_plus_5_and_scores_nothing_itself():
    # 8♦ up; A bids 9♣, B bids 9♠: tie. 5♦ up. A bids 7♣, B J♠: B wins 8 + 5 = 13.
    game = Game(Ruleset(), prize_deck=deck_starting(8, 5))
    game.play([9, 9])
    result = game.play([7, 11])
    assert result.winner == 1 and result.prizes == (8, 5)
    assert game.points == (0, 13)  # the J itself is worth nothing
    assert 11 not in game.hands[1]


def test_example_4_final_tie_leaves_5_unowned_and_43_43_is_a_draw():
    # Seat 1 wins K Q J 7 (43), seat 2 wins 10 9 8 6 4 3 2 A (43), the last prize 5♦ is tied.
    order = (13, 12, 11, 7, 10, 9, 8, 6, 4, 3, 2, 1, 5)
    game = Game(Ruleset(prize_order=order))
    p0 = {13: 13, 12: 12, 11: 11, 7: 10, 10: 5, 9: 6, 8: 7, 6: 8, 4: 1, 3: 2, 2: 3, 1: 4}
    p1 = {13: 1, 12: 2, 11: 3, 7: 4, 10: 13, 9: 12, 8: 11, 6: 10, 4: 5, 3: 6, 2: 7, 1: 8}
    for prize in order[:-1]:
        assert game.pot == (prize,)
        game.play([p0[prize], p1[prize]])
    assert game.hands[0] == game.hands[1] == {9}
    last = game.play([9, 9])
    assert last.tie and last.discarded == (5,) and not last.carried  # to nobody
    result = game.result()
    assert result.points == (43, 43)
    assert result.unowned == 5
    assert result.outcomes == ("draw", "draw")
    assert result.winner is None
    assert result.point_difference == (0, 0)
