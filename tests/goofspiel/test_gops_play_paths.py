"""Differential test: ``Game.play``'s fast paths against the general path.

``Game.play`` has a hand-inlined path for the classic two-player game and a quick scan of
one-card bids; ``Game._play_general(bids, fast_single=False)`` checks every bid with
``_check_bid`` instead. Two copies of a game are driven with the same bids, legal and
illegal, one through each route; after every call they must agree on the returned round,
the error raised (type, message, arguments) and the whole state.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel.errors import GoofspielError


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    """Rulesets of every kind, half of them the two-player one-card shape of the inlined path."""
    classic = draw(st.booleans())
    cards = draw(st.sampled_from([1, 2, 3, 5, 8, 13]) if classic else st.integers(1, 13))
    players = 2 if classic else draw(st.integers(2, 5))
    per_bid = 1 if classic else draw(st.integers(1, min(3, cards)))
    display = 1 if classic else min(cards, draw(st.sampled_from([1, 2, 3])))
    ties = "carry" if display > 1 else draw(st.sampled_from(["carry", "discard"]))
    order: str | tuple[int, ...] = draw(st.sampled_from(["shuffled", "ascending", "descending", "given"]))
    if order == "given":
        order = tuple(draw(st.permutations(range(1, cards + 1))))
    return Ruleset(
        cards=cards,
        players=players,
        tie_rule=ties,
        unique_bids=draw(st.booleans()),
        high_ace=draw(st.booleans()),
        cards_per_bid=per_bid,
        open_prizes=display,
        prize_order=order,
    )


def _shaped(bid: tuple[int, ...], rng: random.Random) -> object:
    """A legal bid in one of the forms ``play`` accepts: an int, a tuple, a list, unsorted."""
    if len(bid) == 1 and rng.random() < 0.5:
        return bid[0]
    cards = list(bid)
    rng.shuffle(cards)
    return tuple(cards) if rng.random() < 0.5 else cards


def _spoiled(game: Game, bids: list[object], rng: random.Random) -> object:
    """The round's bids with one thing wrong (or, rarely, not a list of bids at all)."""
    rs = game.ruleset
    seat = rng.randrange(rs.players)
    spent = sorted(set(rs.deck) - game.hands[seat])
    bad_cards: list[object] = [0, -1, rs.cards + 1, 14, True, 3.0, "3", None, 2**70]
    if spent:
        bad_cards.append(rng.choice(spent))
    kind = rng.randrange(6)
    if kind == 0:
        return bids[:-1] if rng.random() < 0.5 else [*bids, bids[0]]
    if kind == 1:
        return rng.choice([None, 7, "7 8", {0: 1}, iter(bids)])
    out = list(bids)
    card = rng.choice(bad_cards)
    if kind == 2 or rs.cards_per_bid == 1:
        out[seat] = card if rng.random() < 0.5 else (card,)
    elif kind == 3:  # the same card twice
        first = game.legal_bids(seat)[0][0]
        out[seat] = (first,) * rs.cards_per_bid
    elif kind == 4:  # one card too many or too few
        legal = game.legal_bids(seat)[0]
        out[seat] = legal[:-1] if rng.random() < 0.5 else (*legal, card)
    else:
        out[seat] = (*game.legal_bids(seat)[0][:-1], card)
    return out


def _outcome(call, *args: object) -> tuple[str, object]:
    """What a call did: its return value, or its error's type, message and arguments."""
    try:
        return "returned", call(*args)
    except (GoofspielError, ValueError, TypeError) as exc:
        return type(exc).__name__, (str(exc), exc.args)


def _state(game: Game) -> tuple[object, ...]:
    return (game.snapshot(), game.points, game.is_over, game._hand_size, game.round, game.chooser)


@given(
    ruleset=rulesets(), seed=st.integers(0, 2**32), rng_seed=st.integers(0, 2**32), spoil=st.floats(0, 0.6)
)
def test_fast_paths_match_the_general_path(ruleset: Ruleset, seed: int, rng_seed: int, spoil: float) -> None:
    rng = random.Random(rng_seed)
    fast, general = Game(ruleset, seed=seed), Game(ruleset, seed=seed)
    assert _state(fast) == _state(general)
    calls = 0
    while not fast.is_over:
        if fast.phase == "bid":
            bids: list[object] = [
                _shaped(rng.choice(fast.legal_bids(s)), rng) for s in range(ruleset.players)
            ]
            if rng.random() < spoil:
                wrong = _spoiled(fast, bids, rng)
                a = _outcome(fast.play, wrong)
                b = _outcome(lambda x: general._play_general(x, fast_single=False), wrong)
                assert a == b
                assert a[0] != "returned"
                assert _state(fast) == _state(general)
            a = _outcome(fast.play, bids)
            b = _outcome(lambda x: general._play_general(x, fast_single=False), bids)
        else:
            if rng.random() < spoil:  # bidding while a prize choice is pending
                a = _outcome(fast.play, [1] * ruleset.players)
                assert a == _outcome(
                    lambda x: general._play_general(x, fast_single=False), [1] * ruleset.players
                )
                assert a[0] == "WrongPhase"
            chooser, prize = fast.chooser, rng.choice(fast.legal_choices())
            a, b = _outcome(fast.choose, chooser, prize), _outcome(general.choose, chooser, prize)
        assert a == b
        assert a[0] == "returned"
        assert _state(fast) == _state(general)
        calls += 1
    assert calls >= 1 or ruleset.rounds == 0
    over = [1] * ruleset.players
    assert _outcome(fast.play, over) == _outcome(lambda x: general._play_general(x, fast_single=False), over)
    assert fast.result() == general.result()
    assert fast.history == general.history


def test_the_inlined_path_is_taken_for_the_classic_game() -> None:
    """The differential test above compares something: a classic round skips ``_play_general``."""
    game = Game(Ruleset(cards=5), seed=1)
    taken: list[object] = []
    game._play_general = lambda *a, **k: taken.append(a)  # type: ignore[method-assign]
    game.play([3, (4,)])
    assert taken == []
    game.play([3, 4])  # spent cards: the inlined path hands over to the general one
    assert taken == [([3, 4],)]
