"""The bot protocol's Goofspiel messages (docs/protocol.md, "Goofspiel").

Controller to bot (cards are face ranks ``1..cards``; seats are 0-based)::

    newgame seat 0 ruleset cards=13 players=2 ties=carry ace=low bid=1 display=1 order=shuffled
    game id 0-1-3-0 seed 2840720121   # the game's id and seed: a randomised bot reseeds from it
    round 1 pot 12 remaining 1 2 3 4 5 6 7 8 9 10 11 13
    points 0 0
    go bid time 1000                  # reply within 1000 ms: "bid 13" (or "bid 3 9" / "bid 3+9" for 2-card bids)
    reveal 13 11                      # every seat's bid in seat order; a multi-card bid as one word, 3+9
    result win 0 12                   # seat 0 took prizes 12; or: result tie carried / tie discarded / tie unowned
    taken 1:11                        # open prizes, before a choose request: the takes so far this round
    go choose time 1000 display 3 7 11  # open prizes: reply "choose 11"
    result take 1:11 0:7              # open prizes: the takes of the round, in order
    gameover points 47 44 result win  # the bot's own outcome; "forfeit S KIND" when a seat forfeited

``round`` adds ``upcoming P1 P2 ...`` (the face-down prizes in order) when the
prize order is public. Every round's bid is requested, the last (forced) one too.
"""

from __future__ import annotations

from typing import Any, Sequence

from cardtable.platform.protocol import BotFailure, ProtocolBot
from cardtable.platform.records import whole_number

from .ruleset import Ruleset
from .state import Game, PlayerView, RoundResult

GAME = "goofspiel"


def format_bid(bid: Sequence[int]) -> str:
    """``(3, 9)`` -> ``"3+9"``."""
    return "+".join(str(c) for c in bid)


def format_result(r: RoundResult) -> str:
    """The ``result`` line of a resolved round."""
    if r.taken and r.winner is not None:
        return f"result win {r.winner} " + " ".join(str(p) for p in r.prizes)
    if r.taken:
        return "result take " + " ".join(f"{s}:{p}" for s, p in r.taken)
    if r.carried:
        return "result tie carried"
    return "result tie discarded" if r.discarded else "result tie unowned"


def parse_bid_words(words: list[str]) -> tuple[int, ...]:
    """The ranks of a ``bid`` reply, sorted: ``bid 3 9``, ``bid 3+9`` and ``bid 9 3`` are all ``(3, 9)``.

    ``words`` are the reply's words after ``bid`` (split on spaces and tabs only:
    :func:`~cardtable.platform.protocol.split_words`); each ``+`` in them separates ranks
    too, and empty parts are skipped (``3++9``, ``+12``). Each rank is ASCII digits, at most
    3 after leading zeros (``012`` is 12); anything else in a word (``-3``, ``3.0``, ``²``,
    a no-break space) makes the reply garbage. The number of cards is checked by the caller
    (an ``"illegal"`` bid).

    Raises:
        BotFailure: ``"garbage"`` when a word is not a whole number.
    """
    cards = []
    for w in (part for word in words for part in word.split("+") if part):
        rank = whole_number(w, max_digits=3)
        if rank is None:
            raise BotFailure("garbage", f"'bid {' '.join(words)[:40]}': {w[:20]!r} is not a card rank")
        cards.append(rank)
    if not cards:
        raise BotFailure("garbage", "'bid' without a card")
    return tuple(sorted(cards))


class GoofspielProtocolBot(ProtocolBot):
    """A Goofspiel bot played by an external program (docs/protocol.md).

    Usable wherever a :class:`~cardtable.platform.bot.Bot` is (``play_game``, tournaments).
    :meth:`act` raises :class:`BotFailure` for any violation; the program is then
    killed and restarted for the next game.
    """

    game = GAME
    replies = ("bid", "choose")

    def __init__(
        self,
        command,
        time_ms: int = 1000,
        options: dict[str, Any] | None = None,
        seed: int | str | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(command, time_ms=time_ms, options=options, seed=seed, **kw)
        self._sent_rounds = 0
        self._revealed_pending: int | None = None

    @property
    def display_name(self) -> str:
        return self.identity.name if self.identity else self.process.command

    def new_game(self, ruleset: Ruleset, seat: int) -> None:
        """Start the program if needed and send ``newgame`` and the ``game`` line (its id and
        seed: :meth:`set_game`, docs/protocol.md "A game"); failures surface at :meth:`act`."""
        self.seat = seat
        self._sent_rounds = 0
        self._revealed_pending = None
        self._pending_failure: BotFailure | None = None
        try:
            self.ensure_started()
            self.process.send(f"newgame seat {seat} ruleset {ruleset.describe()}")
            self.process.send(self.game_line())
        except BotFailure as exc:
            self._pending_failure = self.fail(exc)

    def _catch_up(self, view: PlayerView) -> None:
        for r in view.history[self._sent_rounds :]:
            if self._revealed_pending != r.number:
                self.process.send("reveal " + " ".join(format_bid(b) for b in r.bids))
            self.process.send(format_result(r))
        self._sent_rounds = len(view.history)
        if view.pending is not None and self._revealed_pending != view.pending.number:
            self.process.send("reveal " + " ".join(format_bid(b) for b in view.pending.bids))
            self._revealed_pending = view.pending.number

    def act(self, view: PlayerView) -> tuple[int, ...] | int:
        """Ask the program for a bid (bid phase) or a prize (choose phase).

        Raises:
            BotFailure: crash, timeout, garbage, flood, or an illegal bid/choice.
        """
        failure: BotFailure | None = getattr(self, "_pending_failure", None)
        if failure is not None:
            self._pending_failure = None
            raise failure
        try:
            self._catch_up(view)
            if view.phase == "choose":
                taken = " ".join(f"{s}:{p}" for s, p in view.pending.taken) if view.pending else ""
                display = " ".join(str(p) for p in view.pot)
                if taken:
                    self.process.send(f"taken {taken}")
                _, words = self.request(f"go choose time {self.time_ms} display {display}", ("choose",))
                prize = whole_number(words[0], max_digits=3) if len(words) == 1 else None
                if prize is None:
                    raise BotFailure("garbage", f"'choose {' '.join(words)[:40]}' is not one prize rank")
                if prize not in view.pot:
                    raise BotFailure("illegal", f"chose prize {prize}, not in the display ({display})")
                return prize
            rs = view.ruleset
            line = f"round {view.round} pot {' '.join(map(str, view.pot))} remaining {' '.join(map(str, view.remaining_prizes))}"
            if view.upcoming is not None:
                line += " upcoming " + " ".join(map(str, view.upcoming))
            self.process.send(line.replace("  ", " ").rstrip())
            self.process.send("points " + " ".join(map(str, view.points)))
            _, words = self.request(f"go bid time {self.time_ms}", ("bid",))
            bid = parse_bid_words(words)
            if bid not in view.legal_bids():
                raise BotFailure(
                    "illegal",
                    f"bid {format_bid(bid)} is not legal: the hand is {' '.join(map(str, sorted(view.hand)))}"
                    f" and a bid is {rs.cards_per_bid} card(s)",
                )
            return bid
        except BotFailure as exc:
            raise self.fail(exc) from None

    def end_game(self, game: Game, outcome: str, forfeit: tuple[int, str] | None = None) -> None:
        """Tell the program the game is over (``gameover``); never raises.

        ``points`` are the prize points when the game ended: after a forfeit, those of
        the rounds finished before it (docs/protocol.md, "Losing by rule")."""
        if not self.process.alive:
            return
        try:
            if forfeit is None:
                self._catch_up(game.view(self.seat))
            pts = " ".join(map(str, game.points))
            line = f"gameover points {pts} result {outcome}"
            if forfeit:
                line += f" forfeit {forfeit[0]} {forfeit[1]}"
            self.process.send(line)
        except BotFailure:
            self.process.kill()
            self.identity = None
