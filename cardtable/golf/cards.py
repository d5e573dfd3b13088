"""Golf cards: identities, names, ranks.

Each physical card has an *id* ``0 .. 52*decks-1``: ``rank = id % 13 + 1``
(1 = ace .. 13 = king), ``suit = "SHDC"[(id // 13) % 4]``, ``deck = id // 52``.
Two decks (3 players, docs/golf.md "Players and cards") hold every name twice; the id tells the
copies apart. The rules only ever look at the rank; values come from the
ruleset (:meth:`cardtable.golf.GolfRuleset.value`).

>>> card_name(0), card_name(22), card_name(51), card_name(52)
('AS', '10H', 'KC', 'AS')
>>> card_rank(11), rank_name(12), rank_name(1)
(12, 'Q', 'A')
>>> parse_rank("q"), parse_rank("10"), parse_rank("t")
(12, 10, 10)
"""

from __future__ import annotations

from cardtable.errors import quoted
from cardtable.platform.records import whole_number

from .errors import ActionFormatError

SUITS = "SHDC"
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
_NAME_RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13, "T": 10}


def card_rank(card: int) -> int:
    """Face rank 1..13 of card id ``card``."""
    return card % 13 + 1


def card_suit(card: int) -> str:
    """Suit letter (``S``, ``H``, ``D``, ``C``) of card id ``card``."""
    return SUITS[(card // 13) % 4]


def rank_name(rank: int) -> str:
    """``1 -> 'A'``, ``10 -> '10'``, ``12 -> 'Q'``."""
    return _RANK_NAMES.get(rank, str(rank))


def card_name(card: int) -> str:
    """ASCII name of card id ``card``: rank then suit letter, e.g. ``'QS'``."""
    return rank_name(card_rank(card)) + card_suit(card)


def parse_rank(text: str) -> int:
    """Rank 1..13 from ``A``, ``2``..``10`` (or ``T``), ``J``, ``Q``, ``K`` (any case).

    Raises:
        ActionFormatError: not a rank.
    """
    t = text.strip().upper()
    if t in _NAME_RANKS:
        return _NAME_RANKS[t]
    rank = whole_number(t, max_digits=2)
    if rank is not None and 1 <= rank <= 13:
        return rank
    raise ActionFormatError(f"{text[:20]!r} is not a rank: use A, 2-10, J, Q or K")


def parse_card_name(text: str) -> tuple[int, str]:
    """``'10H' -> (10, 'H')``.

    Raises:
        ActionFormatError: not a card name.
    """
    t = text.strip().upper()
    if len(t) < 2 or t[-1] not in SUITS:
        raise ActionFormatError(f"{quoted(text)} is not a card name such as 7H, QS, 10D, AC")
    return parse_rank(t[:-1]), t[-1]


def cards_from_names(names: list[str], decks: int) -> list[int]:
    """Card ids for card names, the n-th copy of a name taking the n-th deck's card.

    Raises:
        ActionFormatError: a bad name, or a name used more than ``decks`` times.
    """
    used: dict[tuple[int, str], int] = {}
    out = []
    for name in names:
        rank, suit = parse_card_name(name)
        copy = used.get((rank, suit), 0)
        if copy >= decks:
            raise ActionFormatError(f"{name} appears more than {decks} time(s)")
        used[(rank, suit)] = copy + 1
        out.append(copy * 52 + SUITS.index(suit) * 13 + rank - 1)
    return out
