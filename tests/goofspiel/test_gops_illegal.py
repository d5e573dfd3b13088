"""Every kind of illegal bid raises its own exception and leaves the state unchanged."""

import pytest

from cardtable.goofspiel import (
    CardAlreadySpent,
    CardNotInHand,
    Game,
    IllegalBid,
    IllegalChoice,
    MissingBid,
    Ruleset,
    WrongBidSize,
    WrongPhase,
)


@pytest.fixture
def game():
    g = Game(Ruleset(), seed="illegal")
    g.play([13, 1])
    return g


@pytest.mark.parametrize(
    "bids, exc, words",
    [
        ([13, 2], CardAlreadySpent, "already spent K♠"),  # spent earlier
        ([2, 1], CardAlreadySpent, "already spent A♣"),
        ([14, 2], CardNotInHand, "does not hold a 14"),  # never held
        ([0, 2], CardNotInHand, "does not hold a 0"),
        ([(2, 3), 2], WrongBidSize, "bid 2 card(s)"),  # two cards when one is asked
        ([(), 2], WrongBidSize, "bid 0 card(s)"),
        ([2], MissingBid, "one bid from each of the 2 players"),  # a player missing
        ([2, 3, 4], MissingBid, "got 3"),
        ([None, 2], MissingBid, "player 1 has not bid"),  # refusing to bid
        (["K", 2], WrongBidSize, "not 'K'"),  # unknown card object
        ([2.0, 3], WrongBidSize, "not 2.0"),
    ],
)
def test_illegal_bid_raises_and_changes_nothing(game, bids, exc, words):
    before = game.snapshot()
    clone = game.copy()
    with pytest.raises(exc) as info:
        game.play(bids)
    assert words in str(info.value)
    assert isinstance(info.value, IllegalBid)
    assert game.snapshot() == before
    assert game == clone


def test_same_card_twice_in_a_two_card_bid():
    g = Game(Ruleset(cards_per_bid=2), seed=1)
    before = g.snapshot()
    with pytest.raises(WrongBidSize, match="same card twice"):
        g.play([(3, 3), (1, 2)])
    assert g.snapshot() == before


def test_bid_after_the_game_is_over():
    g = Game(Ruleset(cards=1))
    g.play([1, 1])
    before = g.snapshot()
    with pytest.raises(WrongPhase, match="over"):
        g.play([1, 1])
    assert g.snapshot() == before


def test_open_prize_choice_errors_change_nothing():
    g = Game(Ruleset(players=3, open_prizes=3, prize_order="ascending"))
    g.play([13, 12, 1])  # seats 1 and 2 choose from A♦ 2♦ 3♦
    assert g.phase == "choose" and g.chooser == 0
    before = g.snapshot()
    with pytest.raises(IllegalChoice, match="player 2 cannot choose now"):
        g.choose(1, 3)
    with pytest.raises(IllegalChoice, match="not in the display"):
        g.choose(0, 9)
    with pytest.raises(WrongPhase, match="waiting for a prize choice"):
        g.play([2, 2, 2])
    assert g.snapshot() == before
    g.choose(0, 3)
    g.choose(1, 1)
    assert g.won == ((3,), (1,), ())


def test_bad_seat_numbers():
    g = Game(Ruleset())
    with pytest.raises(ValueError, match="no seat 2"):
        g.view(2)
    with pytest.raises(ValueError, match="no seat -1"):
        g.legal_bids(-1)


def test_result_before_the_end_is_an_error():
    with pytest.raises(WrongPhase, match="not over"):
        Game(Ruleset()).result()
