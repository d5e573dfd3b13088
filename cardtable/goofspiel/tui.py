"""Goofspiel in the terminal: you against bots, hot-seat for 2-5 people, or bots only.

Screens show the prize(s) and pot, your hand, each opponent's remaining and spent
cards, scores and the round history, with suit symbols. Bids are typed in the
forms people use (``K``, ``13``, ``K♠``, ``ks``, ``10``, ``T``; two cards as
``7 9`` for multi-card bids). A bad entry gets a one-line reason and a new prompt.
In hot-seat play bids are typed without echo and the screen is cleared between
players.

Words: the one person at the terminal is addressed in the second person ("You
win 12", "Match over: you lose"), everyone else by name; in hot-seat play
everyone is named (:mod:`cardtable.tui.words`). Quitting (``quit``, Ctrl-D,
Ctrl-C) saves what was played and returns :data:`cardtable.tui.ABANDONED`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Protocol, Sequence

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cardtable.platform.bot import Bot
from cardtable.platform.match import Match, MatchFormat
from cardtable.platform.storage import new_record_file
from cardtable.tui import ABANDONED, QuitGame, Terminal, outcome_phrase, subject, verb

from .cards import PLAYER_SUITS, PRIZE_SUIT, format_card, parse_card
from .errors import CardError, GoofspielError
from .record import GameRecord, record_from_game, to_json, write_text
from .ruleset import Ruleset
from .state import Bid, Game, PlayerView, RoundResult

#: What a person types at the bid prompt of ``cardtable play`` to see the hint.
HINT_WORDS = ("hint", "?")

SUIT_STYLE = {
    "♠": "bold",
    "♣": "bold green",
    "♥": "bold red",
    "♦": "bold red",
    "♤": "bold cyan",
    "♧": "bold magenta",
}


class Coach(Protocol):
    """The hints and the end-of-game analysis at a table (:func:`run`).

    The coach reads the solver, a layer above this package (ARCHITECTURE.md, Layers), so the
    table is handed one: ``cardtable play`` passes
    :class:`cardtable.strategy.coach.TerminalCoach`. Without one there are no hints and no
    analysis.
    """

    def problem(self, ruleset: Ruleset) -> str:
        """Why no hint can be given in ``ruleset``, or ``""`` when one can."""

    def new_game(self, ruleset: Ruleset, seat: int) -> None:
        """A new game starts, the person in ``seat``."""

    def hint_line(self, console: Console, view: PlayerView) -> str:
        """The hint for ``view``, one line. Raises ValueError when there is none."""

    def offer_analysis(self, terminal: Terminal, games: Sequence[Game], names: Sequence[str]) -> None:
        """Offer (and show) the analysis of the games played."""


#: Why hints cannot be given at a table that has no coach.
NO_COACH = "hints need the coach, which this table was not given"


@dataclass
class Seat:
    """A seat at the table: a person (``bot is None``) or a bot."""

    name: str
    bot: Bot | None = None


def card_text(rank: int, suit: str) -> Text:
    """A card with its suit, styled by suit colour."""
    return Text(format_card(rank, suit), style=SUIT_STYLE.get(suit, ""))


def cards_text(ranks, suit: str, ruleset: Ruleset) -> Text:
    """Cards in bid-strength order, separated by spaces (``—`` for none)."""
    ordered = sorted(ranks, key=ruleset.strength)
    if not ordered:
        return Text("—", style="dim")
    out = Text()
    for i, r in enumerate(ordered):
        if i:
            out.append(" ")
        out.append_text(card_text(r, suit))
    return out


def parse_bid(text: str, view: PlayerView) -> Bid:
    """Parse a typed bid for ``view.seat``; the error says exactly what is wrong.

    Raises:
        ValueError (CardError/GoofspielError): not cards, wrong number, not in hand.
    """
    rs = view.ruleset
    suit = PLAYER_SUITS[view.seat]
    tokens = text.replace(",", " ").replace("+", " ").split()
    if not tokens:
        raise CardError(
            "type a card from your hand, e.g. " + format_card(max(view.hand, key=rs.strength), suit)
        )
    if len(tokens) != rs.cards_per_bid:
        raise GoofspielError(f"bid exactly {rs.cards_per_bid} card(s), you typed {len(tokens)}")
    cards = []
    for t in tokens:
        rank = parse_card(t, rs.cards, suit)
        if rank not in view.hand:
            raise CardError(f"{format_card(rank, suit)} is not in your hand (already spent)")
        if rank in cards:
            raise CardError("the same card twice")
        cards.append(rank)
    return tuple(sorted(cards))


def render(view: PlayerView, seats: Sequence[Seat], history_rows: int = 6, you: int | None = None) -> Panel:
    """The table as ``view.seat`` sees it."""
    rs = view.ruleset
    grid = Table.grid(padding=(0, 2))
    grid.add_column(justify="right", style="bold")
    grid.add_column()
    if view.phase != "over":
        grid.add_row(*_pot_row(view))
    remaining = cards_text(view.remaining_prizes, PRIZE_SUIT, rs)
    if view.upcoming is not None:
        remaining = Text(" ".join(format_card(p, PRIZE_SUIT) for p in view.upcoming) or "—") + Text(
            "  (in this order)", style="dim"
        )
    grid.add_row("Prizes left", remaining)
    grid.add_row("", Text(""))
    for s, seat in enumerate(seats):
        grid.add_row(*_seat_row(view, s, seat))
    if view.history:
        grid.add_row("", Text(""))
        for r in view.history[-history_rows:]:
            grid.add_row(f"Round {r.number}", round_text(r, seats, rs, you))
    title = f"Goofspiel — round {view.round}/{rs.rounds}" if view.phase != "over" else "Goofspiel — final"
    grid.add_row("Rules", Text(rs.describe(), style="dim"))
    return Panel(grid, title=title, expand=False)


def _pot_row(view: PlayerView) -> tuple[str, Text]:
    """The row of the prizes face up: the display (open prizes) or the prize and its pot."""
    pot = Text()
    for i, p in enumerate(view.pot):
        if i:
            pot.append(" ")
        pot.append_text(card_text(p, PRIZE_SUIT))
    if view.ruleset.open_prizes > 1:
        return "Display", pot + Text("   (the winners take one each)", style="dim")
    return "Prize", pot + Text(f"   (pot {_points(view.pot_value)})", style="dim")


def _seat_row(view: PlayerView, s: int, seat: Seat) -> tuple[Text, Text]:
    """Seat ``s``'s row: its name, hand, points and spent cards."""
    rs = view.ruleset
    suit = PLAYER_SUITS[s]
    viewer = s == view.seat and seat.bot is None  # a person looking at their own line
    who = f"{seat.name} (you)" if viewer and seat.name != "You" else seat.name
    spent = set(rs.deck) - view.hands[s]
    line = cards_text(view.hands[s], suit, rs)
    line.append(f"   {_points(view.points[s])}", style="bold yellow")
    if spent:
        line.append("   spent: ", style="dim")
        line.append_text(cards_text(spent, suit, rs))
    return Text(who), line


def _points(n: int) -> str:
    return f"{n} pt" if n == 1 else f"{n} pts"


def round_text(r: RoundResult, seats: Sequence[Seat], rs: Ruleset, you: int | None = None) -> Text:
    """One history line: prizes, each bid, and the outcome (seat ``you`` is "You")."""
    out = Text()
    out.append(" ".join(format_card(p, PRIZE_SUIT) for p in r.prizes))
    out.append("  ")
    for s, bid in enumerate(r.bids):
        if s:
            out.append(" ")
        out.append_text(
            Text("+".join(format_card(c, PLAYER_SUITS[s]) for c in bid), style=SUIT_STYLE[PLAYER_SUITS[s]])
        )
    out.append("  → ")
    if r.taken and rs.open_prizes > 1:
        out.append(
            ", ".join(
                f"{subject(seats[s].name, s == you, start=i == 0)} {verb(s == you, 'take')} "
                f"{format_card(p, PRIZE_SUIT)}"
                for i, (s, p) in enumerate(r.taken)
            )
        )
    elif r.winner is not None:
        w = r.winner
        out.append(
            f"{subject(seats[w].name, w == you)} {verb(w == you, 'win')} "
            f"{sum(rs.prize_value(p) for p in r.prizes)}",
            style="bold",
        )
    elif r.carried:
        out.append("tie — the pot carries over", style="yellow")
    else:
        out.append("tie — prize set aside", style="yellow")
    return out


def _bid_example(hand: list[int], rs: Ruleset) -> str:
    """The example in the bid prompt, from the ``hand`` sorted by strength."""
    if rs.cards_per_bid == 1:
        return "e.g. " + ", ".join(format_card(c) for c in dict.fromkeys([hand[-1], hand[0]]))
    return f"{rs.cards_per_bid} cards, e.g. " + " ".join(format_card(c) for c in hand[: rs.cards_per_bid])


class GoofspielTable:
    """Runs games or a match at one terminal."""

    def __init__(
        self,
        terminal: Terminal,
        ruleset: Ruleset,
        seats: Sequence[Seat],
        delay: float = 0.0,
        hints: bool = False,
        coach: Coach | None = None,
    ) -> None:
        if len(seats) != ruleset.players:
            raise GoofspielError(f"{ruleset.players} players need {ruleset.players} seats")
        self.term = terminal
        self.console = terminal.console
        self.ruleset = ruleset
        self.seats = list(seats)
        self.delay = delay
        self.humans = [i for i, s in enumerate(seats) if s.bot is None]
        #: the seat addressed as "you": the one person at a table with bots (else None)
        self.you = self.humans[0] if len(self.humans) == 1 and not terminal.hotseat else None
        #: show the coach's hint before every bid of the person (``cardtable play --hints``)
        self.hints = hints
        #: a hint was shown in the game being played (recorded as ``[Hints "on"]``)
        self.hinted = False
        self.coach = coach  # the hints and the analysis (None: neither)
        self._hint_problem: str | None = None  # why hints cannot be given here ("" if they can)
        if hints and self.hint_problem():
            raise GoofspielError(self.hint_problem())

    def hint_problem(self) -> str:
        """Why the coach cannot give hints at this table, or ``""`` if it can: hints are for
        one person against bots in a ruleset the solver covers (2 players, single-card bids,
        one prize at a time)."""
        if self._hint_problem is None:
            if self.you is None:
                self._hint_problem = "hints are for a game of one person against bots"
            elif self.coach is None:
                self._hint_problem = NO_COACH
            else:
                self._hint_problem = self.coach.problem(self.ruleset)
        return self._hint_problem

    def _show_hint(self, game: Game, seat: int) -> None:
        if self.coach is None:  # only asked for after hint_problem() found a coach
            raise GoofspielError(NO_COACH)
        try:
            line = self.coach.hint_line(self.console, game.view(seat))
        except ValueError as exc:  # e.g. a damaged table (TableFileError): no hint, the game goes on
            self.console.print(f"no hint: {exc}", style="yellow", markup=False, highlight=False)
            return
        self.hinted = True
        self.console.print(line, style="cyan", markup=False, highlight=False)

    def _human_bid(self, game: Game, seat: int, before_prompt: Callable[[], None] | None = None) -> Bid:
        view = game.view(seat)
        name = self.seats[seat].name
        if self.term.hotseat and len(self.humans) > 1:
            self.term.hand_over(name)
        self.console.print(render(view, self.seats, you=self.you))
        rs = self.ruleset
        example = _bid_example(sorted(view.hand, key=rs.strength), rs)
        who = "Your bid" if seat == self.you else f"{escape(name)}, your bid"
        offer = (
            seat == self.you and rs.players == 2
        )  # hints possible (multi-card bids are refused when asked)
        if self.hints:
            self._show_hint(game, seat)
        if before_prompt is not None:
            before_prompt()

        def parse(text: str) -> Bid | None:
            if text.strip().lower() in HINT_WORDS:
                if self.hint_problem():
                    raise GoofspielError(self.hint_problem())
                return None  # show the hint, then ask again
            return parse_bid(text, view)

        while True:
            bid = self.term.ask(
                f"{who} ({example}; {'hint to see the equilibrium; ' if offer and not self.hints else ''}quit to stop): ",
                parse,
                hidden=self.term.hotseat and len(self.humans) > 1,
            )
            if bid is not None:
                break
            self._show_hint(game, seat)
        if self.term.hotseat and len(self.humans) > 1:
            self.term.clear()
        return bid

    def _human_choice(self, game: Game, seat: int) -> int:
        view = game.view(seat)
        self.console.print(render(view, self.seats, you=self.you))
        choices = game.legal_choices()

        def parse(text: str) -> int:
            rank = parse_card(text, self.ruleset.cards, PRIZE_SUIT)
            if rank not in choices:
                raise GoofspielError(f"{format_card(rank, PRIZE_SUIT)} is not in the display")
            return rank

        shown = " ".join(format_card(p, PRIZE_SUIT) for p in choices)
        who = "Take a prize" if seat == self.you else f"{escape(self.seats[seat].name)}, take a prize"
        return self.term.ask(f"{who} ({shown}): ", parse)

    def play_game(self, seed: str | int | None = None) -> Game:
        """Play one game to the end and return it.

        Raises:
            QuitGame: a person quit (or pressed Ctrl-C while a bot was thinking);
                the partial game is in ``exc.game``.
        """
        game = Game(self.ruleset, seed=seed)
        self.hinted = False
        if self.coach is not None and self.you is not None:
            self.coach.new_game(self.ruleset, self.you)
        self._start_bots()
        try:
            while not game.is_over:
                if game.phase == "bid":
                    result = game.play(self._round_bids(game))
                    self._show_reveal(game, result)
                else:
                    chooser = game.chooser
                    assert chooser is not None  # the choose phase
                    seat = self.seats[chooser]
                    prize = (
                        seat.bot.act(game.view(chooser)) if seat.bot else self._human_choice(game, chooser)
                    )
                    done = game.choose(chooser, prize)
                    if done is not None:
                        self._show_reveal(game, done)
        except QuitGame as exc:
            exc.game = game
            raise
        except KeyboardInterrupt:
            stop = QuitGame("interrupted")
            stop.game = game
            raise stop from None
        return game

    def _round_bids(self, game: Game) -> list[Bid]:
        """Every seat's bid of the round, in seat order. Bids are hidden and revealed together
        (docs/rules.md, A round), so with people at the table the bots think while the people
        decide (:class:`_BotBids`: a worker thread started once the first person's screen is
        shown, before the prompt, and joined after the last bid), each from its own view taken
        before anyone bids; without people,
        one after the other. Either way each bot is asked once, in seat order, with the same
        view: a seeded game replays the same.

        Raises:
            QuitGame: a person quit (after the bots finished their bids: no thread is left
                using them, unless Ctrl-C is pressed again while they finish).
            Exception: what a bot raised, re-raised here once the people have bid.
        """
        jobs = [(i, seat.bot, game.view(i)) for i, seat in enumerate(self.seats) if seat.bot is not None]
        if not self.humans or not jobs:
            return [bot.act(view) for _, bot, view in jobs] if jobs else self._people_bids(game)
        started: list[_BotBids] = []

        def start() -> None:  # once the first person's screen (and hint) is shown, before the prompt
            if not started:
                started.append(_BotBids(jobs))

        try:
            people = dict(zip(self.humans, self._people_bids(game, start), strict=True))
        except (QuitGame, KeyboardInterrupt):
            for thinking in started:
                thinking.finish()
            raise
        start()
        bots = started[0].result()
        return [bots[i] if i in bots else people[i] for i in range(len(self.seats))]

    def _people_bids(self, game: Game, before_prompt: Callable[[], None] | None = None) -> list[Bid]:
        """The bids of the people at the table, in seat order (``before_prompt``: called after
        each person's screen and hint are shown, before the prompt)."""
        return [self._human_bid(game, i, before_prompt) for i in self.humans]

    def _start_bots(self) -> None:
        """Tell every bot that a game starts, and show what a bot says has changed since the
        last game (``take_news``: the nash bot found a table completed meanwhile)."""
        for i, seat in enumerate(self.seats):
            if seat.bot is None:
                continue
            seat.bot.new_game(self.ruleset, i)
            take_news = getattr(seat.bot, "take_news", None)
            if news := take_news() if take_news is not None else "":
                self.console.print(f"{seat.name}: {news}", style="cyan", markup=False, highlight=False)

    def _show_reveal(self, game: Game, result: RoundResult) -> None:
        if game.phase == "choose":
            line = Text(f"Round {result.number} bids: ")
            for s, bid in enumerate(result.bids):
                line.append(
                    f"{subject(self.seats[s].name, s == self.you)} "
                    + "+".join(format_card(c, PLAYER_SUITS[s]) for c in bid)
                    + "  "
                )
            self.console.print(line)
            return
        line = Text(f"Round {result.number}: ", style="bold") + round_text(
            result, self.seats, self.ruleset, self.you
        )
        sources = [
            f"{seat.name} bid from its {text}"  # e.g. the nash bot's source
            for seat in self.seats
            if (text := getattr(seat.bot, "last_source_text", ""))
        ]
        if sources:
            line.append(f"   ({'; '.join(sources)})", style="dim")
        self.console.print(line)
        if self.delay:
            time.sleep(self.delay)

    def show_final(self, game: Game) -> None:
        viewer = self.humans[0] if len(self.humans) == 1 else 0
        self.console.print(
            render(game.view(viewer), self.seats, history_rows=self.ruleset.rounds, you=self.you)
        )
        res = game.result()
        you = self.you
        scores = ", ".join(
            f"{subject(s.name, i == you, start=False)} {p}"
            for i, (s, p) in enumerate(zip(self.seats, res.points, strict=True))
        )
        if res.winner is None:
            leaders = [
                subject(self.seats[i].name, i == you, start=False)
                for i, o in enumerate(res.outcomes)
                if o == "draw"
            ]
            verdict = f"Draw between {' and '.join(leaders)}"
        elif you is not None and res.winner != you and len(self.seats) == 2:
            verdict = "You lose"
        else:
            verdict = (
                f"{subject(self.seats[res.winner].name, res.winner == you)} {verb(res.winner == you, 'win')}"
            )
        unowned = f" ({res.unowned} points unowned)" if res.unowned else ""
        self.console.print(f"[bold]{escape(verdict)}[/bold] — {escape(scores)}{unowned}")


class _BotBids:
    """The bots' bids of one round, made in a worker thread while the people decide.

    Each bot gets only its own view, taken before anyone bid (as when it was asked after the
    people), and the bots are asked in seat order: their random number generators are drawn
    in the same order as before, so a seeded game replays the same. The thread is a daemon:
    every path through :meth:`GoofspielTable._round_bids` joins it (:meth:`result`, or
    :meth:`finish` when a person quits), and only a Ctrl-C pressed while it is being joined
    leaves it running, so that the command ends at once; it then ends with the process.
    """

    def __init__(self, jobs: list[tuple[int, Bot, PlayerView]]) -> None:
        self._jobs = jobs
        self._bids: dict[int, Bid] = {}
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="bot-bids", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for seat, bot, view in self._jobs:
                self._bids[seat] = bot.act(view)
        except BaseException as exc:  # whatever a bot raises is re-raised by result() in the main thread
            self._error = exc

    def result(self) -> dict[int, Bid]:
        """Wait for the bots; their bids by seat.

        Raises:
            Exception: what a bot raised.
            KeyboardInterrupt: Ctrl-C while waiting (the thread is left to end on its own).
        """
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._bids

    def finish(self) -> None:
        """The round is abandoned: wait for the bots to finish (their bids are dropped); a
        Ctrl-C while waiting stops the wait."""
        try:
            self._thread.join()
        except KeyboardInterrupt:
            pass


def save_record(records: Sequence[GameRecord], path: Path | None = None) -> Path:
    """Write records to a new file and return its path; never overwrites a file.

    ``path`` ending in ``.json`` gets the JSON notation, any other the text notation.
    Without ``path``: ``goofspiel-<UTC time>-<seed>.gops`` in the records folder,
    with ``-2``, ``-3``, ... added if that name is taken.

    Raises:
        FileExistsError: ``path`` exists.
        OSError: the file cannot be written.
    """
    text = to_json(records) if path is not None and path.suffix.lower() == ".json" else write_text(records)
    if path is not None:
        with path.open("x", encoding="utf-8") as fh:  # "x": fail rather than overwrite
            fh.write(text)
        return path
    return new_record_file("goofspiel", records[0].seed, ".gops", text)


def run(
    terminal: Terminal,
    ruleset: Ruleset,
    seats: Sequence[Seat],
    seed: str | int | None = None,
    match: MatchFormat | None = None,
    delay: float = 0.0,
    save: bool = True,
    record_path: Path | None = None,
    hints: bool = False,
    coach: Coach | None = None,
) -> int:
    """Play a game (or a match) at the terminal; save the record.

    ``hints``: show the coach's hint before every bid of the person (else only
    when typed ``hint``); games with a hint shown get the tag ``[Hints "on"]``.
    ``coach``: gives the hints and offers the analysis at the end (:class:`Coach`;
    ``None``: no hints, no analysis).

    Raises:
        GoofspielError: the seats do not fit the ruleset, or ``hints`` where the coach
            cannot give them.

    Returns:
        the exit code: 0 when the game (or match) was played to the end,
        :data:`~cardtable.tui.ABANDONED` when a person quit (what was played is
        saved all the same), 1 when the record could not be written.
    """
    table = GoofspielTable(terminal, ruleset, seats, delay, hints, coach)
    names = [s.name for s in seats]
    records, played, quit_early = _play_games(table, terminal, names, seed, match)
    if not _save_records(terminal.console, records, save, record_path):
        return 1
    if table.humans and not quit_early and coach is not None:
        coach.offer_analysis(terminal, played, names)
    return ABANDONED if quit_early else 0


def _play_games(
    table: GoofspielTable,
    terminal: Terminal,
    names: list[str],
    seed: str | int | None,
    match: MatchFormat | None,
) -> tuple[list[GameRecord], list[Game], bool]:
    """Play the game, or the games of the match, at ``table``.

    Returns:
        the records of the games played, the games, and whether a person quit.
    """
    console = terminal.console
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    records: list[GameRecord] = []
    tracker = Match(match, players=table.ruleset.players) if match else None
    quit_early = False
    game_no = 0
    played: list[Game] = []  # for the coach's offer at the end
    while True:
        game_no += 1
        if tracker:
            extra = " (extra game)" if tracker.next_game_is_extra else ""
            console.rule(f"Game {game_no} of match {match}{extra}")
        game, quit_early = _play_or_quit(table, _game_seed(seed, game_no))
        played.append(game)
        tags = _game_tags(date, match if tracker else None, game_no, table.hinted)
        if quit_early:
            console.print("[yellow]Game abandoned.[/yellow]")
            if game.history:
                records.append(record_from_game(game, names, tags))
            break
        table.show_final(game)
        result = None if tracker is None else _add_to_match(tracker, game, tags)
        records.append(record_from_game(game, names, tags))
        if tracker is None:
            break
        if result is not None:
            console.print(_match_over_text(names, table.you, result, tracker))
            break
        if table.humans and not _next_game(terminal):
            quit_early = True
            break
    return records, played, quit_early


def _game_seed(seed: str | int | None, game_no: int) -> str | None:
    """The seed of game ``game_no`` (from 1) of a match: ``seed``, then ``seed-2``, ``seed-3``, ..."""
    return None if seed is None else f"{seed}" if game_no == 1 else f"{seed}-{game_no}"


def _match_over_text(names: list[str], you: int | None, result: tuple[str, ...], tracker: Match) -> str:
    """The line (Rich markup) that ends a match: each player's outcome and the totals."""
    return (
        "[bold]Match over:[/bold] "
        + ", ".join(
            outcome_phrase(n, i == you, o) for i, (n, o) in enumerate(zip(names, result, strict=True))
        )
        + f"  (totals {' / '.join(map(str, tracker.totals()))})"
    )


def _play_or_quit(table: GoofspielTable, game_seed: str | None) -> tuple[Game, bool]:
    """Play one game at ``table``: the game, and whether a person quit it."""
    try:
        return table.play_game(game_seed), False
    except QuitGame as exc:
        return exc.game, True


def _game_tags(date: str, match: MatchFormat | None, game_no: int, hinted: bool) -> list[tuple[str, str]]:
    """The free tags of a game played at the terminal (``match``: ``None`` outside a match)."""
    tags = [("Date", date)]
    if match is not None:
        tags += [("Match", str(match)), ("MatchGame", str(game_no))]
    if hinted:
        tags.append(("Hints", "on"))  # as the browser records a room with hints on
    return tags


def _add_to_match(tracker: Match, game: Game, tags: list[tuple[str, str]]) -> tuple[str, ...] | None:
    """Count a finished game in the match: its result when the match is over (tagged on the
    game as ``MatchResult``), else ``None``."""
    tracker.add_game(game.points)
    if not tracker.is_over:
        return None
    result = tracker.result()
    tags.append(("MatchResult", " ".join(result)))
    return result


def _next_game(terminal: Terminal) -> bool:
    """Wait for Enter before the next game of a match; ``False`` when the person quits."""
    try:
        terminal.pause("Press Enter for the next game... ")
    except (QuitGame, KeyboardInterrupt):
        terminal.console.print("[yellow]Match abandoned.[/yellow]")
        return False
    return True


def _save_records(console, records: list[GameRecord], save: bool, record_path: Path | None) -> bool:
    """Save the games played (when ``save``) and say where; ``False`` when the record could not be written."""
    if save and records:
        try:
            path = save_record(records, record_path)
        except OSError as exc:
            console.print(f"[red]✗ the record could not be saved: {escape(str(exc))}[/red]", soft_wrap=True)
            return False
        console.print(f"Record saved to {path}", soft_wrap=True, markup=False)
        console.print(f"Check it with: cardtable replay {path}", soft_wrap=True, markup=False)
    elif save:
        console.print("Nothing was played; no record saved.")
    return True
