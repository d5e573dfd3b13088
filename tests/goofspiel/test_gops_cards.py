import pytest

from cardtable.goofspiel import CardError, parse_card
from cardtable.goofspiel.cards import format_card


@pytest.mark.parametrize(
    "text, rank",
    [
        ("K", 13),
        ("13", 13),
        ("K♠", 13),
        ("ks", 13),
        ("kS", 13),
        ("10", 10),
        ("T", 10),
        ("t", 10),
        ("A", 1),
        ("a", 1),
        ("1", 1),
        ("J", 11),
        ("q", 12),
        ("10♣", 10),
        ("10c", 10),
        (" 7 ", 7),
        ("A♤", 1),
    ],
)
def test_forms_people_type(text, rank):
    assert parse_card(text, 13) == rank


@pytest.mark.parametrize(
    "text, words",
    [
        ("Z", "not a card"),
        ("14", "not a card of this game"),
        ("0", "not a card of this game"),
        ("", "not a card"),
        ("s", "not a card"),
        ("K♥♥", "not a card"),
    ],
)
def test_not_cards(text, words):
    with pytest.raises(CardError, match=words):
        parse_card(text, 13)


def test_rank_beyond_a_short_deck():
    with pytest.raises(CardError, match="ranks run from A to 5"):
        parse_card("K", 5)


def test_wrong_suit():
    with pytest.raises(CardError, match="not your suit"):
        parse_card("Kc", 13, suit="♠")


def test_format():
    assert [format_card(r, "♦") for r in (1, 10, 11, 12, 13)] == ["A♦", "10♦", "J♦", "Q♦", "K♦"]
