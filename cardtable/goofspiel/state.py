"""The Goofspiel game state: bids, resolution, scores, history and results.

A :class:`Game` is a mutable state machine in three phases:

- ``"bid"``: every player bids at once; :meth:`Game.play` takes one bid per
  player (all of a round together) and resolves the round.
- ``"choose"`` (open prizes only): after the reveal, the players who take a
  prize choose it one at a time in order of bid strength (:meth:`Game.choose`).
- ``"over"``: hands can no longer make a full bid, or no prize is left.

Every method that changes the state validates its whole input first: an
illegal bid raises an :class:`~cardtable.goofspiel.errors.IllegalBid` and
leaves the state exactly as it was (docs/rules.md, Illegal bids).

Worked example 2 of docs/rules.md, Worked examples (ties carry over):

>>> g = Game(Ruleset(), prize_deck=[5, 9] + [c for c in range(1, 14) if c not in (5, 9)])
>>> g.play([6, 6]).tie, g.pot
(True, (5, 9))
>>> r = g.play([8, 10]); r.winner, g.points
(1, (0, 14))
"""

from __future__ import annotations

import operator
import secrets
from dataclasses import dataclass
from functools import partial
from hashlib import sha256
from itertools import combinations
from struct import unpack_from
from typing import Iterable, Literal, NamedTuple, Sequence

from cardtable.errors import quoted
from cardtable.platform.integers import is_whole, whole

from .cards import PLAYER_SUITS, PRIZE_SUIT, format_card
from .errors import (
    CardAlreadySpent,
    CardNotInHand,
    GoofspielError,
    IllegalChoice,
    MissingBid,
    WrongBidSize,
    WrongPhase,
)
from .ruleset import Ruleset

Phase = Literal["bid", "choose", "over"]
Bid = tuple[int, ...]


class RoundResult(NamedTuple):
    """One resolved round, as it appears in the history and in records.

    Attributes:
        number: 1-based round number.
        prizes: the face-up prizes played for (the pot, or the open display).
        bids: each player's bid (a tuple of face ranks), in seat order.
        strengths: each bid's strength (sum of the cards' strengths).
        winner: the seat that took the pot (single-prize games); ``None`` on a tie
            and in open-prize games.
        taken: ``(seat, prize)`` for every prize taken this round, in order.
        carried: prizes still face up for the next round (carry-over).
        discarded: prizes put aside unowned this round (discard ties, a tie in the
            last round).
    """

    number: int
    prizes: tuple[int, ...]
    bids: tuple[Bid, ...]
    strengths: tuple[int, ...]
    winner: int | None
    taken: tuple[tuple[int, int], ...]
    carried: tuple[int, ...]
    discarded: tuple[int, ...]

    @property
    def tie(self) -> bool:
        """True when nobody took a prize this round."""
        return not self.taken


@dataclass(frozen=True)
class GameResult:
    """The outcome of a finished game.

    Attributes:
        points: prize points per seat.
        outcomes: per seat ``"win"`` (unique top score), ``"draw"`` (shared top
            score) or ``"loss"``.
        point_difference: per seat, own points minus the best opponent's points.
        unowned: prize points nobody won (ties, prizes never turned up).
    """

    points: tuple[int, ...]
    outcomes: tuple[str, ...]
    point_difference: tuple[int, ...]
    unowned: int

    @property
    def winner(self) -> int | None:
        """The winning seat, or ``None`` for a draw."""
        return self.outcomes.index("win") if "win" in self.outcomes else None


@dataclass(frozen=True)
class PlayerView:
    """What one player may know (docs/rules.md, What each player knows).

    Attributes:
        seat: the viewing player (0-based).
        ruleset: the game's ruleset.
        phase: ``"bid"``, ``"choose"`` or ``"over"``.
        round: the current 1-based round number (last round's when over).
        hand: the viewer's own remaining cards.
        hands: every seat's remaining cards (public: spent bids are revealed).
        pot: face-up prizes being played for (the display with open prizes).
        remaining_prizes: face-down prizes, sorted: which remain is public.
        upcoming: the face-down prizes in order, only when the order is public
            (fixed prize order); ``None`` otherwise.
        points: prize points per seat so far.
        won: the prizes each seat has won.
        history: the resolved rounds.
        chooser: in the choose phase, the seat choosing a prize.
        pending: in the choose phase, the round being resolved (bids revealed).
    """

    seat: int
    ruleset: Ruleset
    phase: Phase
    round: int
    hand: frozenset[int]
    hands: tuple[frozenset[int], ...]
    pot: tuple[int, ...]
    remaining_prizes: tuple[int, ...]
    upcoming: tuple[int, ...] | None
    points: tuple[int, ...]
    won: tuple[tuple[int, ...], ...]
    history: tuple[RoundResult, ...]
    chooser: int | None = None
    pending: RoundResult | None = None

    @property
    def pot_value(self) -> int:
        """Points of the face-up prizes."""
        return sum(self.ruleset.prize_value(p) for p in self.pot)

    @property
    def opponents(self) -> tuple[int, ...]:
        """The other seats."""
        return tuple(s for s in range(self.ruleset.players) if s != self.seat)

    def legal_bids(self) -> list[Bid]:
        """The viewer's legal bids (see :meth:`Game.legal_bids`)."""
        return legal_bids_from_hand(self.hand, self.ruleset.cards_per_bid)


_new_round_result = partial(tuple.__new__, RoundResult)  # skips NamedTuple's Python-level __new__
_SINGLE_BIDS = tuple((c,) for c in range(15))  # shared one-card bid tuples (no allocation)
_CARDS_OF: dict[int, tuple[int, ...]] = {}
_SINGLE_BIDS_OF: dict[int, tuple[Bid, ...]] = {}


def _cards_of(mask: int) -> tuple[int, ...]:
    """The face ranks whose bits are set in a hand mask, ascending (memoised)."""
    cards = _CARDS_OF.get(mask)
    if cards is None:
        cards = _CARDS_OF[mask] = tuple(c for c in range(1, mask.bit_length()) if (mask >> c) & 1)
    return cards


def _single_bids_of(mask: int) -> tuple[Bid, ...]:
    """All one-card bids of a hand mask (memoised)."""
    bids = _SINGLE_BIDS_OF.get(mask)
    if bids is None:
        bids = _SINGLE_BIDS_OF[mask] = tuple(_SINGLE_BIDS[c] for c in _cards_of(mask))
    return bids


def legal_bids_from_hand(hand: Iterable[int], cards_per_bid: int) -> list[Bid]:
    """All bids of ``cards_per_bid`` distinct cards from ``hand``, as sorted tuples."""
    if cards_per_bid == 1:
        return [_SINGLE_BIDS[c] for c in sorted(hand)]
    return list(combinations(sorted(hand), cards_per_bid))


def _normalise_bid(bid: int | Sequence[int]) -> Bid:
    """A bid as a sorted tuple of ``int`` ranks (docs/rules.md, "Whole numbers")."""
    if is_whole(bid):
        return (whole(bid, "a bid", WrongBidSize),)
    if isinstance(bid, (tuple, list)) and len(bid) <= 13 and all(is_whole(c) for c in bid):
        return tuple(sorted(whole(c, "a card", WrongBidSize) for c in bid))
    raise WrongBidSize(f"a bid is a card rank (a whole number) or a sequence of ranks, not {quoted(bid)}")


class Game:
    """A Goofspiel game in progress (docs/rules.md, A round, Ties and Variants).

    Args:
        ruleset: the variant (default: the standard game).
        seed: orders a shuffled prize deck (see :func:`prize_order_for`); kept as
            text in ``self.seed``; ``None`` draws a fresh random seed so that
            every game can be recorded and verified.
        prize_deck: an explicit prize order, top first (overrides ``seed``);
            used by replays, analysis and research interfaces.

    Raises:
        GoofspielError: ``prize_deck`` is not a permutation of the prize ranks.
    """

    def __init__(
        self,
        ruleset: Ruleset | None = None,
        *,
        seed: int | str | None = None,
        prize_deck: Sequence[int] | None = None,
    ) -> None:
        self.ruleset = rs = ruleset if ruleset is not None else Ruleset()
        if prize_deck is not None:
            try:
                deck = [whole(p, "a prize in prize_deck", GoofspielError) for p in prize_deck]
            except TypeError:
                raise GoofspielError(
                    f"prize_deck must be a sequence of ranks, not {type(prize_deck).__name__}"
                ) from None
            if sorted(deck) != list(rs.deck):
                raise GoofspielError(f"prize_deck must list each rank 1..{rs.cards} once, not {deck[:20]}")
            self.seed = None if seed is None else str(seed)
        else:
            if seed is None and not rs.fixed_order:
                seed = secrets.token_hex(8)
            self.seed = None if seed is None else str(seed)
            deck = prize_order_for(rs, seed)
        self.initial_deck: tuple[int, ...] = tuple(deck)
        self._strength = rs.strength_table
        self._two_single = rs.players == 2 and rs.cards_per_bid == 1 and rs.open_prizes == 1
        self._deck: list[int] = deck
        # each hand is a bit mask: bit c is set while card c is in the hand
        self._masks: list[int] = [rs.full_hand_mask] * rs.players
        self._hand_size = rs.cards
        self._won: list[list[int]] = [[] for _ in range(rs.players)]
        self._pot: list[int] = []
        self._discarded: list[int] = []
        self.history: list[RoundResult] = []
        self._choosers: list[int] = []
        self._pending: RoundResult | None = None
        self.phase: Phase = "bid"
        #: True once the game has ended (kept beside ``phase`` for cheap checks in loops).
        self.is_over = False
        self._turn_up()
        if not self._can_continue():
            self._finish()

    # -- public read-only state --------------------------------------------------------

    @property
    def hands(self) -> tuple[frozenset[int], ...]:
        """Each seat's remaining cards."""
        return tuple(frozenset(_cards_of(m)) for m in self._masks)

    @property
    def pot(self) -> tuple[int, ...]:
        """Face-up prizes being played for (with open prizes: the display)."""
        return tuple(self._pot)

    @property
    def deck(self) -> tuple[int, ...]:
        """Face-down prizes in order, top first (secret in a shuffled game)."""
        return tuple(self._deck)

    @property
    def remaining_prizes(self) -> tuple[int, ...]:
        """Face-down prizes, sorted (public knowledge)."""
        return tuple(sorted(self._deck))

    @property
    def won(self) -> tuple[tuple[int, ...], ...]:
        """The prizes each seat has taken, in the order taken."""
        return tuple(tuple(w) for w in self._won)

    @property
    def discarded(self) -> tuple[int, ...]:
        """Prizes put aside unowned so far."""
        return tuple(self._discarded)

    @property
    def points(self) -> tuple[int, ...]:
        """Prize points per seat."""
        value = self.ruleset.prize_value
        return tuple(sum(value(p) for p in w) for w in self._won)

    @property
    def round(self) -> int:
        """The current 1-based round (the last one once the game is over)."""
        return len(self.history) + (0 if self.phase == "over" else 1)

    @property
    def chooser(self) -> int | None:
        """In the choose phase, the seat that chooses a prize now."""
        return self._choosers[0] if self.phase == "choose" else None

    def legal_bids(self, seat: int) -> list[Bid]:
        """The seat's legal bids as sorted tuples of face ranks (empty unless bidding).

        Raises:
            GoofspielError: no such seat.
        """
        if seat.__class__ is not int or not 0 <= seat < len(self._masks):
            seat = self._check_seat(seat)
        if self.phase != "bid":
            return []
        if self.ruleset.cards_per_bid == 1:
            mask = self._masks[seat]
            return list(_SINGLE_BIDS_OF.get(mask) or _single_bids_of(mask))
        return legal_bids_from_hand(_cards_of(self._masks[seat]), self.ruleset.cards_per_bid)

    def legal_choices(self) -> tuple[int, ...]:
        """In the choose phase, the prizes the chooser may take."""
        return tuple(sorted(self._pot)) if self.phase == "choose" else ()

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know now (see :class:`PlayerView`).

        Raises:
            GoofspielError: no such seat.
        """
        seat = self._check_seat(seat)
        return PlayerView(
            seat=seat,
            ruleset=self.ruleset,
            phase=self.phase,
            round=self.round,
            hand=frozenset(_cards_of(self._masks[seat])),
            hands=self.hands,
            pot=self.pot,
            remaining_prizes=self.remaining_prizes,
            upcoming=self.deck if self.ruleset.fixed_order else None,
            points=self.points,
            won=self.won,
            history=tuple(self.history),
            chooser=self.chooser,
            pending=self._pending,
        )

    def result(self) -> GameResult:
        """The result of the finished game.

        Raises:
            WrongPhase: the game is not over.
        """
        if self.phase != "over":
            raise WrongPhase("the game is not over yet")
        return result_from_points(self.points, self.ruleset.total_prize_value)

    # -- actions -------------------------------------------------------------------------

    def play(self, bids: Sequence[int | Sequence[int]]) -> RoundResult:
        """Submit one round of simultaneous bids, one per seat in seat order, and resolve it.

        A bid is a face rank (``13``) or, with multi-card bids, a sequence of ranks.

        Returns:
            The resolved round; with open prizes, the round is only complete after
            the choices (see :meth:`choose`), and the returned round has no ``taken``.

        Raises:
            WrongPhase: the game is over or waiting for a prize choice.
            MissingBid: not exactly one bid per seat.
            WrongBidSize: a bid with the wrong number of cards or a card twice, or a card
                that is not a whole number (``3.0``, ``"3"``, ``True``: docs/rules.md, "Whole numbers").
            CardNotInHand: a card that is not a card of this game.
            CardAlreadySpent: a card bid in an earlier round.
        """
        if self._two_single and self.phase == "bid" and bids.__class__ in (list, tuple) and len(bids) == 2:
            # fast path for the classic game (2 players, one card, one prize at a time)
            a, b = bids
            if a.__class__ is tuple and len(a) == 1:
                a = a[0]
            if b.__class__ is tuple and len(b) == 1:
                b = b[0]
            ma, mb = self._masks
            # both ints, both positive, both still in hand (chained comparisons keep this one test)
            if a.__class__ is b.__class__ is int and a > 0 < b and (ma >> a) & (mb >> b) & 1:
                self._masks = [ma & ~(1 << a), mb & ~(1 << b)]
                self._hand_size -= 1
                sa, sb = self._strength[a], self._strength[b]
                winner = 0 if sa > sb else 1 if sb > sa else None
                return self._resolve_single(
                    tuple(self._pot), (_SINGLE_BIDS[a], _SINGLE_BIDS[b]), (sa, sb), winner
                )
        return self._play_general(bids)

    def _play_general(self, bids: Sequence[int | Sequence[int]], *, fast_single: bool = True) -> RoundResult:
        """:meth:`play` without its inlined two-player fast path (same arguments, result and errors).

        ``fast_single=False`` also skips the quick scan of one-card bids, so every bid goes
        through :meth:`_check_bid`; the differential test in
        tests/goofspiel/test_gops_play_paths.py plays games both ways and compares them.
        """
        rs = self.ruleset
        if self.phase != "bid":
            raise WrongPhase("the game is over" if self.phase == "over" else "waiting for a prize choice")
        if not isinstance(bids, (list, tuple)) or len(bids) != rs.players:
            got = len(bids) if isinstance(bids, (list, tuple)) else "no"
            raise MissingBid(f"a round needs one bid from each of the {rs.players} players, got {got}")
        cards = self._fast_single_bids(bids) if fast_single and rs.cards_per_bid == 1 else None
        normalised: tuple[Bid, ...]
        if cards is not None:  # the common case: one valid card per seat
            strength = self._strength
            normalised = tuple([_SINGLE_BIDS[c] for c in cards])
            strengths = tuple([strength[c] for c in cards])
            self._masks = [m & ~(1 << c) for m, c in zip(self._masks, cards, strict=True)]
        else:  # the general path, which names any error precisely
            normalised, strengths = self._spend_checked(bids)
        self._hand_size -= rs.cards_per_bid
        prizes = tuple(self._pot)
        if rs.open_prizes > 1:
            return self._resolve_open(prizes, normalised, strengths)
        return self._resolve_single(prizes, normalised, strengths, top_bidder(strengths, rs.unique_bids))

    def _spend_checked(self, bids: Sequence[int | Sequence[int]]) -> tuple[tuple[Bid, ...], tuple[int, ...]]:
        """Check every seat's bid (the first bad one raises), then take the cards from the hands.

        Returns:
            The bids as sorted tuples and their strengths, in seat order.
        """
        strength = self._strength
        normalised = tuple([self._check_bid(seat, bid) for seat, bid in enumerate(bids)])
        # -- everything below only runs on valid input --
        strengths = tuple([sum([strength[c] for c in bid]) for bid in normalised])
        self._masks = [m & ~sum(1 << c for c in bid) for m, bid in zip(self._masks, normalised, strict=True)]
        return normalised, strengths

    def choose(self, seat: int, prize: int) -> RoundResult | None:
        """Take one prize from the display (open prizes, after the reveal).

        Returns:
            The completed round once the last chooser has chosen, else ``None``.

        Raises:
            WrongPhase: no choice is pending.
            IllegalChoice: not this seat's turn to choose, the prize is not displayed, or
                it is not a whole number (docs/rules.md, "Whole numbers").
            GoofspielError: no such seat.
        """
        if self.phase != "choose":
            raise WrongPhase("no prize choice is pending")
        seat = self._check_seat(seat)
        prize = whole(prize, "a prize", IllegalChoice)
        if seat != self._choosers[0]:
            raise IllegalChoice(
                f"player {seat + 1} cannot choose now: player {self._choosers[0] + 1} chooses"
            )
        if prize not in self._pot:
            shown = " ".join(format_card(p, PRIZE_SUIT) for p in sorted(self._pot))
            raise IllegalChoice(f"{format_card(prize, PRIZE_SUIT)} is not in the display ({shown})")
        self._take(seat, prize)
        return self._advance_choices()

    def copy(self) -> "Game":
        """An independent copy (for search and what-if analysis)."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._deck = list(self._deck)
        other._masks = list(self._masks)
        other._won = [list(w) for w in self._won]
        other._pot = list(self._pot)
        other._discarded = list(self._discarded)
        other.history = list(self.history)
        other._choosers = list(self._choosers)
        return other

    def snapshot(self) -> tuple:
        """Every piece of state, as a comparable tuple (for tests and change checks)."""
        return (
            self.ruleset,
            self.seed,
            self.initial_deck,
            tuple(self._deck),
            tuple(self._masks),
            self.won,
            tuple(self._pot),
            tuple(self._discarded),
            tuple(self.history),
            tuple(self._choosers),
            self._pending,
            self.phase,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"<Game {self.ruleset.describe()} round={self.round} phase={self.phase} points={self.points}>"

    # -- internals -----------------------------------------------------------------------

    def _fast_single_bids(self, bids: Sequence) -> list[int] | None:
        """The cards of valid single-card bids, or ``None`` when anything needs the general check."""
        out = []
        for mask, bid in zip(self._masks, bids, strict=True):
            if bid.__class__ is tuple:
                if len(bid) != 1:
                    return None
                card = bid[0]
            else:
                card = bid
            if card.__class__ is not int or card <= 0 or not (mask >> card) & 1:
                return None
            out.append(card)
        return out

    def _check_seat(self, seat: int) -> int:
        """``seat`` as an ``int`` (a whole number, not a bool) in ``0..players-1``."""
        if not is_whole(seat) or not 0 <= operator.index(seat) < self.ruleset.players:
            raise GoofspielError(
                f"no seat {quoted(seat)}: seats are whole numbers 0..{self.ruleset.players - 1}"
            )
        return operator.index(seat)

    def _check_bid(self, seat: int, bid: int | Sequence[int]) -> Bid:
        rs = self.ruleset
        who = f"player {seat + 1}"
        if bid is None:
            raise MissingBid(f"{who} has not bid", seat)
        try:
            cards = _normalise_bid(bid)
        except WrongBidSize as exc:
            raise WrongBidSize(f"{who}: {exc}", seat) from None
        if len(cards) != rs.cards_per_bid:
            raise WrongBidSize(
                f"{who} bid {len(cards)} card(s); each bid is exactly {rs.cards_per_bid}", seat
            )
        if len(set(cards)) != len(cards):
            raise WrongBidSize(f"{who} bid the same card twice", seat)
        suit = PLAYER_SUITS[seat]
        for c in cards:
            if not 1 <= c <= rs.cards:
                raise CardNotInHand(f"{who} does not hold a {c}: hands hold A..{format_card(rs.cards)}", seat)
            if not (self._masks[seat] >> c) & 1:
                raise CardAlreadySpent(f"{who} has already spent {format_card(c, suit)}", seat)
        return cards

    def _hands_can_bid(self) -> bool:
        # every seat bids the same number of cards each round: hands are always equal in size
        return self._hand_size >= self.ruleset.cards_per_bid

    def _can_continue(self) -> bool:
        return self._hands_can_bid() and bool(self._pot)

    def _turn_up(self) -> None:
        """Turn up prizes: one into the pot, or refill the open display."""
        if self.ruleset.open_prizes > 1:
            while len(self._pot) < self.ruleset.open_prizes and self._deck:
                self._pot.append(self._deck.pop(0))
        elif self._deck and self._hands_can_bid():
            self._pot.append(self._deck.pop(0))

    def _last_round(self) -> bool:
        """True when no further round can follow the one being resolved."""
        return not self._hands_can_bid() or (not self._deck and self.ruleset.open_prizes == 1)

    def _finish(self) -> None:
        # prizes still face up after the last round, or never turned up, are unowned
        self._discarded.extend(self._pot)
        self._discarded.extend(self._deck)
        self._pot.clear()
        self._deck.clear()
        self.phase = "over"
        self.is_over = True

    def _resolve_single(
        self, prizes: tuple[int, ...], bids: tuple[Bid, ...], strengths: tuple[int, ...], winner: int | None
    ) -> RoundResult:
        rs = self.ruleset
        number = len(self.history) + 1
        last = not self._deck or self._hand_size < rs.cards_per_bid
        taken: tuple[tuple[int, int], ...] = ()
        carried: tuple[int, ...] = ()
        discarded: tuple[int, ...] = ()
        if winner is not None:
            taken = ((winner, prizes[0]),) if len(prizes) == 1 else tuple([(winner, p) for p in prizes])
            self._won[winner].extend(prizes)
            self._pot.clear()
        elif last or rs.tie_rule == "discard":
            discarded = prizes
            self._discarded.extend(prizes)
            self._pot.clear()
        else:
            carried = prizes
        result = _new_round_result((number, prizes, bids, strengths, winner, taken, carried, discarded))
        self.history.append(result)
        if last:
            self._finish()
        else:
            self._pot.append(self._deck.pop(0))
        return result

    def _resolve_open(
        self, prizes: tuple[int, ...], bids: tuple[Bid, ...], strengths: tuple[int, ...]
    ) -> RoundResult:
        number = len(self.history) + 1
        self._choosers = takers_in_order(strengths, self.ruleset.unique_bids)
        self._pending = RoundResult(number, prizes, bids, strengths, None, (), (), ())
        self.phase = "choose"
        pending = self._pending
        done = self._advance_choices()
        return done if done is not None else pending

    def _take(self, seat: int, prize: int) -> None:
        assert self._pending is not None
        self._pot.remove(prize)
        self._won[seat].append(prize)
        self._choosers.pop(0)
        pending = self._pending
        self._pending = RoundResult(
            pending.number,
            pending.prizes,
            pending.bids,
            pending.strengths,
            None,
            pending.taken + ((seat, prize),),
            (),
            (),
        )

    def _advance_choices(self) -> RoundResult | None:
        """Auto-take a prize when only one choice is possible; close the round when done."""
        while self._choosers and len(self._pot) == 1:
            self._take(self._choosers[0], self._pot[0])
        if self._choosers and self._pot:
            return None
        assert self._pending is not None
        pending = self._pending
        last = self._last_round()
        result = RoundResult(
            pending.number,
            pending.prizes,
            pending.bids,
            pending.strengths,
            None,
            pending.taken,
            () if last else tuple(self._pot),
            tuple(self._pot) if last else (),
        )
        self.history.append(result)
        self._pending = None
        self._choosers = []
        self.phase = "bid"
        if last:
            self._finish()
        else:
            self._turn_up()
            if not self._can_continue():
                self._finish()
        return result


def top_bidder(strengths: Sequence[int], unique_bids: bool = False) -> int | None:
    """The seat with the highest bid strength, or ``None`` on a tie (docs/rules.md, Ties).

    With ``unique_bids`` (docs/rules.md, Highest unique bid), strengths bid by more
    than one player drop out first; if none remains it is a tie.

    >>> top_bidder([13, 11]), top_bidder([6, 6]), top_bidder([9, 9, 4], unique_bids=True)
    (0, None, 2)
    """
    if len(strengths) == 2:  # two players: highest unique and highest are the same
        a, b = strengths
        return 0 if a > b else 1 if b > a else None
    candidates: Sequence[int] = range(len(strengths))
    if unique_bids:
        candidates = [i for i in candidates if strengths.count(strengths[i]) == 1]
    if not candidates:
        return None
    best = max(strengths[i] for i in candidates)
    top = [i for i in candidates if strengths[i] == best]
    return top[0] if len(top) == 1 else None


def takers_in_order(strengths: Sequence[int], unique_bids: bool = False) -> list[int]:
    """Open prizes: the seats that take a prize, highest bid first (docs/rules.md, Open prizes).

    The lowest bid strength takes nothing; seats whose strength is shared take
    nothing (their order cannot be decided); with ``unique_bids`` shared
    strengths drop out first and the lowest remaining bid takes nothing.

    >>> takers_in_order([5, 9]), takers_in_order([7, 7]), takers_in_order([3, 12, 8])
    ([1], [], [1, 2])
    """
    seats: Sequence[int] = range(len(strengths))
    if unique_bids:
        seats = [i for i in seats if strengths.count(strengths[i]) == 1]
    if not seats:
        return []
    lowest = min(strengths[i] for i in seats)
    eligible = [i for i in seats if strengths[i] != lowest]
    unique = [i for i in eligible if strengths.count(strengths[i]) == 1]
    return sorted(unique, key=lambda i: -strengths[i])


def seeded_shuffle(items: Sequence[int], seed: str) -> list[int]:
    """Shuffle ``items`` by Fisher-Yates driven by SHA-256 of the seed text.

    For ``i = n-1 .. 1`` (draw ``k = 0, 1, ...``), ``j`` is the ``k``-th big-endian
    64-bit word of the stream ``SHA-256(seed + "/0") || SHA-256(seed + "/1") || ...``
    taken modulo ``i + 1``, and items ``i`` and ``j`` are swapped. Any language with
    SHA-256 can recompute it (the bias of the modulo is below 2**-59).

    >>> seeded_shuffle([1, 2, 3, 4, 5], "42")
    [5, 1, 3, 2, 4]
    """
    out = list(items)
    n = len(out)
    if n < 2:
        return out
    blocks = ((n - 1) * 8 + 31) // 32
    stream = b"".join([sha256(f"{seed}/{b}".encode()).digest() for b in range(blocks)])
    words = unpack_from(f">{n - 1}Q", stream)
    for k, i in enumerate(range(n - 1, 0, -1)):
        j = words[k] % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def prize_order_for(ruleset: Ruleset, seed: int | str | None) -> list[int]:
    """The prize deck, top first, for a ruleset and seed.

    Shuffled decks are ``seeded_shuffle([1, ..., cards], str(seed))`` (the seed is
    always taken as text, so ``5`` and ``"5"`` give the same order). This is the
    function that the provably fair shuffle commits to.

    >>> prize_order_for(Ruleset(cards=5, prize_order="descending"), None)
    [5, 4, 3, 2, 1]
    """
    order = ruleset.prize_order
    if order == "ascending":
        return list(ruleset.deck)
    if order == "descending":
        return list(ruleset.deck[::-1])
    if isinstance(order, tuple):
        return list(order)
    return seeded_shuffle(ruleset.deck, str(seed))


def result_from_points(points: Sequence[int], total: int) -> GameResult:
    """Outcomes and point differences from final points (docs/rules.md, End of the game)."""
    top = max(points)
    leaders = [i for i, p in enumerate(points) if p == top]
    outcomes = tuple(("win" if len(leaders) == 1 else "draw") if p == top else "loss" for p in points)
    diffs = tuple(p - max(q for j, q in enumerate(points) if j != i) for i, p in enumerate(points))
    return GameResult(tuple(points), outcomes, diffs, total - sum(points))
