"""Variants of docs/rules.md: discard ties, high ace, 3-5 players, multi-card bids,
open prizes, fixed prize order, fewer cards; and what a player's view may hold."""

import pytest

from cardtable.goofspiel import Game, Ruleset, takers_in_order, top_bidder


def test_discard_ties_put_the_prize_aside():
    g = Game(Ruleset(tie_rule="discard", prize_order="ascending"))
    r = g.play([5, 5])
    assert r.tie and r.discarded == (1,) and g.pot == (2,)
    g.play([6, 2])
    assert g.points == (2, 0)  # only the next prize, not 1 + 2


def test_carry_over_accumulates_through_repeated_ties():
    g = Game(Ruleset(prize_order="ascending"))
    g.play([5, 5])
    g.play([6, 6])
    assert g.pot == (1, 2, 3)
    g.play([1, 2])
    assert g.points == (0, 6)


def test_high_ace_bids_highest_and_is_worth_14():
    g = Game(Ruleset(high_ace=True, prize_order=(1,) + tuple(range(2, 14))))
    r = g.play([1, 13])
    assert r.winner == 0 and g.points == (14, 0)


def test_three_players_highest_unique_bid():
    rs = Ruleset(players=3, unique_bids=True, prize_order="descending")
    g = Game(rs)
    r = g.play([13, 13, 2])  # both kings drop out, the 2 wins
    assert r.winner == 2 and g.points == (0, 0, 13)
    r = g.play([5, 5, 5])  # nothing remains: a tie, the pot carries
    assert r.tie and g.pot == (12, 11)


def test_three_players_carry_over_when_highest_is_tied():
    g = Game(Ruleset(players=3, prize_order="descending"))
    r = g.play([13, 13, 2])
    assert r.tie and g.pot == (13, 12)
    assert top_bidder([9, 9, 4]) is None and top_bidder([9, 9, 4], unique_bids=True) == 2


def test_five_players_use_five_suits():
    g = Game(Ruleset(players=5), seed=3)
    assert len(g.hands) == 5 and all(h == set(range(1, 14)) for h in g.hands)
    r = g.play([1, 2, 3, 4, 5])
    assert r.winner == 4


def test_multi_card_bids_sum_and_end_when_hands_cannot_bid():
    g = Game(Ruleset(cards_per_bid=2, prize_order="ascending"))
    r = g.play([(13, 1), (7, 6)])
    assert r.strengths == (14, 13) and r.winner == 0
    while not g.is_over:
        low0 = tuple(sorted(g.hands[0])[:2])
        low1 = tuple(sorted(g.hands[1])[:2])
        g.play([low0, low1])
    assert len(g.history) == 6 and all(len(h) == 1 for h in g.hands)
    # prizes 7..13 were never turned up: unowned
    assert set(g.discarded) >= {8, 9, 10, 11, 12, 13}
    res = g.result()
    assert sum(res.points) + res.unowned == 91


def test_open_prizes_two_players_only_the_winner_takes_one():
    g = Game(Ruleset(open_prizes=3, prize_order="ascending"))
    assert g.pot == (1, 2, 3)
    r = g.play([10, 4])
    assert g.phase == "choose" and g.chooser == 0 and r.taken == ()
    done = g.choose(0, 3)
    assert done is not None and done.taken == ((0, 3),)
    assert g.pot == (1, 2, 4)  # refilled from the deck
    tie = g.play([5, 5])
    assert tie.tie and g.pot == (1, 2, 4)  # nothing taken: the display stays


def test_open_prizes_takers_in_order_of_bid_strength():
    assert takers_in_order([3, 12, 8]) == [1, 2]
    assert takers_in_order([8, 8, 2]) == []  # tied top pair cannot be ordered
    assert takers_in_order([9, 8, 8, 2]) == [0]
    assert takers_in_order([9, 9, 5, 2], unique_bids=True) == [2]


def test_fixed_order_is_public_in_the_view_shuffled_is_not():
    fixed = Game(Ruleset(prize_order="descending"))
    assert fixed.view(0).upcoming == tuple(range(12, 0, -1))
    shuffled = Game(Ruleset(), seed="secret")
    v = shuffled.view(1)
    assert v.upcoming is None
    assert v.remaining_prizes == tuple(sorted(shuffled.deck))  # which remain, not the order


@pytest.mark.parametrize("n", range(1, 14))
def test_fewer_cards(n):
    g = Game(Ruleset(cards=n), seed=n)
    rounds = 0
    while not g.is_over:
        g.play([max(g.hands[0]), min(g.hands[1])])
        rounds += 1
    assert rounds == n
    assert sum(g.points) + g.result().unowned == n * (n + 1) // 2


def test_view_holds_own_hand_and_public_information_only():
    g = Game(Ruleset(), seed=11)
    g.play([13, 12])
    v = g.view(0)
    assert v.hand == g.hands[0] and v.hands == g.hands
    assert v.points == g.points and v.pot == g.pot and len(v.history) == 1
    assert not hasattr(v, "deck")
    assert v.legal_bids() == g.legal_bids(0)


def test_same_seed_same_prize_order_int_or_text():
    assert Game(Ruleset(), seed=5).deck == Game(Ruleset(), seed="5").deck
    assert Game(Ruleset(), seed=5).deck != Game(Ruleset(), seed=6).deck


def test_seeded_shuffle_is_a_uniform_permutation():
    from collections import Counter

    from cardtable.goofspiel.state import seeded_shuffle

    counts = Counter(tuple(seeded_shuffle([1, 2, 3], str(i))) for i in range(6000))
    assert len(counts) == 6
    assert all(850 < v < 1150 for v in counts.values())  # 1000 expected each; ~5 sigma bounds
    assert seeded_shuffle(list(range(1, 14)), "x") == seeded_shuffle(list(range(1, 14)), "x")
    assert sorted(seeded_shuffle(list(range(1, 14)), "y")) == list(range(1, 14))
