"""Card names, suits and the forms people type.

Cards are represented by their *face rank*: 1 = ace, 2..10, 11 = jack,
12 = queen, 13 = king. With fewer cards (docs/rules.md, Fewer cards)
a game uses ranks 1..n. How strong a card bids and what a prize is worth
depend on the ruleset (high ace), not on the card: see
:meth:`cardtable.goofspiel.Ruleset.strength`.

Suits: prizes are diamonds; player 1 bids spades, player 2 clubs, player 3
hearts; players 4 and 5 take spades and clubs of a second deck, written with
the white suit symbols.

>>> format_card(12, "♦")
'Q♦'
>>> [parse_card(t, 13) for t in ["K", "13", "K♠", "ks", "10", "T", "a", "1"]]
[13, 13, 13, 13, 10, 10, 1, 1]
>>> parse_card("Z", 13)
Traceback (most recent call last):
...
cardtable.goofspiel.errors.CardError: 'Z' is not a card: type a rank from A to K (10 or T)
"""

from __future__ import annotations

from cardtable.platform.records import short, whole_number

from .errors import CardError

PRIZE_SUIT = "♦"
#: The bidding suit of each seat (0-based), docs/rules.md, Cards and values.
PLAYER_SUITS = ("♠", "♣", "♥", "♤", "♧")
SUIT_LETTERS = {"s": "♠", "c": "♣", "h": "♥", "d": "♦"}
_RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
_NAME_RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13, "T": 10}
# text forms of the symbols (outlined or emoji variants people paste)
_SUIT_ALIASES = {"♤": "♤", "♧": "♧", "♡": "♥", "♢": "♦", "♠️": "♠", "♣️": "♣", "♥️": "♥", "♦️": "♦"}


def rank_name(rank: int) -> str:
    """``1 -> 'A'``, ``10 -> '10'``, ``13 -> 'K'``."""
    return _RANK_NAMES.get(rank, str(rank))


def format_card(rank: int, suit: str = "") -> str:
    """The card as people write it, e.g. ``format_card(1, '♠') == 'A♠'``."""
    return rank_name(rank) + suit


def split_suit(text: str) -> tuple[str, str | None]:
    """Split ``'K♠'``/``'ks'``/``'K'`` into ``('K', '♠' | None)``."""
    t = text.strip()
    for alias, suit in _SUIT_ALIASES.items():
        if t.endswith(alias):
            return t[: -len(alias)].strip(), suit
    if t and t[-1] in "♠♣♥♦♤♧":
        return t[:-1].strip(), t[-1]
    if len(t) >= 2 and t[-1].lower() in SUIT_LETTERS and not t[-1].isdigit():
        head = t[:-1].strip()
        # 'ks' is king of spades, but a lone 's' is not a card
        if head and (whole_number(head) is not None or head.upper() in _NAME_RANKS):
            return head, SUIT_LETTERS[t[-1].lower()]
    return t, None


def parse_rank(text: str, cards: int) -> int:
    """The face rank named by ``text`` (no suit), checked against ranks 1..``cards``.

    Raises:
        CardError: not a rank name, or a rank above ``cards``.
    """
    t = text.strip().upper()
    number = whole_number(t, max_digits=3)
    if t in _NAME_RANKS:
        rank = _NAME_RANKS[t]
    elif number is not None:
        rank = number
    else:
        top = rank_name(cards)
        raise CardError(
            f"{short(text)} is not a card: type a rank from A to {top}"
            + (" (10 or T)" if cards >= 10 else "")
        )
    if not 1 <= rank <= cards:
        raise CardError(f"{short(text)} is not a card of this game: ranks run from A to {rank_name(cards)}")
    return rank


def parse_card(text: str, cards: int, suit: str | None = None) -> int:
    """Parse a card typed as ``K``, ``13``, ``K♠``, ``ks``, ``10`` or ``T``.

    Args:
        text: the typed card.
        cards: the number of ranks in the game (1..13).
        suit: if given, a suit written in ``text`` must be this one.

    Returns:
        The face rank, 1..``cards``.

    Raises:
        CardError: not a card, a rank outside the game, or the wrong suit.
    """
    head, written_suit = split_suit(text)
    rank = parse_rank(head, cards) if head else parse_rank(text, cards)
    if suit is not None and written_suit is not None and written_suit != suit:
        raise CardError(f"{short(text.strip())} is not your suit: you bid with {suit}")
    return rank
