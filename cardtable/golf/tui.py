"""Golf in the terminal (Rich): you against bots, hot-seat, or bots only.

Entry point for ``cardtable play golf``: :func:`run_cli` (the CLI's flags) or
:func:`run` (tests and scripts). Screens show every grid (positions numbered
1 2 3 / 4 5 6 / 7 8 9, extra cards 10, 11, ...), the discard pile, the draw
pile and what just happened.

Memory mode (default; docs/golf.md, "Memory mode"): a card you learn (the
bottom row at the deal, your drawn card, a Detective look, a wrong snap that
turns a card) is shown on the next screen only, then hidden again; each
screen replaces the last one, scrollback included, and the move log names
only face-up cards. ``open_memory=True`` keeps every card you know visible.
This is an option of the interface only; the view always holds what you know.

Commands at your turn: ``draw`` (or Enter), ``end``; with a drawn card
``swap N``, ``discard``, ``peek N`` (Detective), ``steal N P2:M`` (Thief);
after snapping an opponent's card ``pass N`` or ``nopass`` (or Enter: the
pass is optional). In a snap window (after every discard): ``snap N`` (your
card), ``snap P2:N`` (an opponent's card) or Enter to let it go (``P1``/
``P2``/``P3`` are seats, as on the screen). ``help`` lists them; ``quit``,
Ctrl-D or Ctrl-C leave the game (``Game abandoned.``; what was played is
saved). A bad entry gets a one-line reason and the prompt again. Words are
in the second person for the person at the keyboard (:mod:`.narrate`).

The first look (docs/golf.md, "Setup"): before anybody acts, every person
who does not start gets a screen with their bottom row, in every mode; the
starting person sees it on their first turn's screen.

Hot-seat: the screen (and the terminal's scrollback, through
:meth:`cardtable.tui.Terminal.clear`) is cleared and the keyboard handed over
before each player's look and turn. Snap windows are answered on a public
screen (no card of anyone's memory shown), so nobody needs to hand over the
keyboard for them.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Callable, Sequence, cast

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cardtable.errors import quoted
from cardtable.platform.bot import BotSpecError, UnknownBotError, load_bot_spec
from cardtable.platform.names import PlayerNameError, check_player_names
from cardtable.platform.storage import new_record_file
from cardtable.tui import ABANDONED, QuitGame, Terminal

from .actions import Action, Snap, format_seat, parse_action
from .cards import card_rank, rank_name
from .driver import Agent, play_game
from .errors import ActionFormatError, GolfError
from .narrate import describe_event, end_text, ender_note, plural, verdict
from .record import GolfRecord, record_from_game, to_json, write_text
from .ruleset import GolfRuleset
from .state import Event, GolfGame
from .views import GolfView, build_view, event_dict

_SHORT = {"d": "draw", "x": "discard", "s": "swap", "p": "peek", "t": "steal"}
_HELP_WORDS = ("help", "?", "h")
_TURN_WORDS = {"draw", "end", "swap", "discard", "peek", "steal", "pass", "nopass", *_SHORT}
_HELP = object()  # what a prompt's parser returns for "help": the text is printed, then the prompt again


def opponent_label(seat: int, players: int) -> str:
    """The seat label of ``seat``'s next opponent, for examples in prompts: ``P2`` for P1, ``P1`` for P2."""
    return format_seat((seat + 1) % players)


def help_text(seat: int, players: int) -> str:
    """The command list for ``seat`` (opponent labels relative to that seat)."""
    opp = opponent_label(seat, players)
    return (
        f"draw | end | swap N | discard | peek N (Detective) | steal N {opp}:M (Thief) | "
        f"pass N | nopass | snap N / snap {opp}:N (in a snap window) | quit"
    )


def rank_label(rank: int) -> str:
    """``1 -> 'A'``, ``11 -> 'J'`` (the Detective), ``12 -> 'Q'`` (the Thief)."""
    return rank_name(rank)


class Display:
    """What one person's screen shows of the cards they know (memory mode or open memory)."""

    def __init__(self, seat: int | None, open_memory: bool) -> None:
        self.seat = seat
        self.open_memory = open_memory
        self._shown: set[tuple[int, int, int]] = set()

    def visible(self, view: GolfView) -> tuple[tuple[str, ...], ...]:
        """Per seat, per slot: the text to show (``'·'`` hole, ``'▒▒'`` face down, or a rank)."""
        known_now = {(o, p, r) for o, g in enumerate(view.grids) for p, r in enumerate(g) if r}
        fresh = known_now - self._shown
        self._shown = known_now
        out = []
        for o, g in enumerate(view.grids):
            row = []
            for p, r in enumerate(g):
                if r is None:
                    row.append("·")
                elif r and (self.open_memory or view.phase == "over" or (o, p, r) in fresh):
                    row.append(rank_label(r))
                else:
                    row.append("▒▒")
            out.append(tuple(row))
        return tuple(out)


def render(
    view: GolfView,
    names: Sequence[str],
    cells: Sequence[Sequence[str]],
    notes: Sequence[str] = (),
    mark_you: bool = True,
) -> Panel:
    """The table as a Rich panel: each grid, the piles and recent notes.

    Args:
        cells: per seat, per slot, the text :meth:`Display.visible` gives.
        notes: recent lines of the move log; the last 8 are shown.
        mark_you: write ``(you)`` after the viewer's name.
    """
    grids = Table.grid(padding=(0, 3))
    for _ in names:
        grids.add_column()
    grids.add_row(*(_grid_column(view, o, name, cells[o], mark_you) for o, name in enumerate(names)))
    parts: list = [grids, _piles_line(view, names)]
    if view.holding and view.phase != "over":
        held = rank_label(view.drawn) if view.drawn is not None else "a card"
        who = "You hold" if view.current == view.seat else f"{names[view.current]} holds"
        parts.append(Text(f"{who} {held}", style="bold"))
    for n in notes[-8:]:
        parts.append(Text(n, style="dim"))
    return Panel(Group(*parts), title="Golf with Detective and Thief", expand=False)


def _grid_column(view: GolfView, o: int, name: str, cells: Sequence[str], mark_you: bool) -> Group:
    """Seat ``o``'s name, its grid row by row (``cells`` per slot) and its snap count."""
    you = " (you)" if o == view.seat and mark_you else ""
    lines = [Text(f"{format_seat(o)} {name}{you}", style="bold")]
    for r in sorted(set(view.slot_rows[o])):
        line = Text()
        for p, cell in enumerate(cells):
            if view.slot_rows[o][p] != r:
                continue
            line.append(f"{p + 1:>2}:", style="dim")
            style = "bold yellow" if cell not in ("▒▒", "·") else ("dim" if cell == "·" else "")
            line.append(f"{cell:<3}", style=style)
        lines.append(line)
    snaps, own = view.snaps_made[o], view.own_snaps[o]  # only own cards count for ending early
    lines.append(Text(f"snapped {snaps}" + (f" ({own} own)" if own != snaps else ""), style="dim"))
    return Group(*lines)


def _piles_line(view: GolfView, names: Sequence[str]) -> Text:
    """The discard pile's top, the pile sizes, the turn and an early end."""
    top = rank_label(view.top) if view.top is not None else "—"
    piles = Text("Discard pile: ", style="bold")
    piles.append(top, style="bold yellow")
    piles.append(
        f"   ({plural(len(view.discard), 'card')})   Draw pile: {plural(view.draw_pile, 'card')}"
        f"   Turn {view.turn}"
    )
    if view.ended_by is not None:
        piles.append(f"   {names[view.ended_by]} ended the game: last turns", style="bold red")
    return piles


class HumanAgent:
    """A person at the terminal, playing seat ``seat`` through prompts."""

    def __init__(self, table: "GolfTable", seat: int) -> None:
        self.table = table
        self.seat = seat
        self.display = Display(seat, table.open_memory)

    def _check(self, action: Action) -> Action:
        game = self.table.game
        assert game is not None
        trial = game.copy()
        try:
            trial.apply(action)
        except GolfError as exc:  # the engine's message, with names for seat labels
            raise ActionFormatError(self.table.with_names(str(exc), self.seat)) from None
        return action

    def act(self, view: GolfView) -> Action:
        t = self.table
        t.show(self.seat, view, self.display)
        opp = opponent_label(self.seat, view.ruleset.players)
        if view.phase == "pass":
            assert view.pass_target is not None, "the pass phase names the snapped card's slot"
            owner, pos = view.pass_target
            prompt = (
                f"You snapped {t.names[owner]}'s card: pass them one of yours face down "
                f"(pass N), or keep your cards (nopass) [Enter = nopass]: "
            )
        elif view.phase == "draw":
            extra = " or end" if view.can_end_early() else ""
            who = f"{t.names[self.seat]}, your turn" if t.hotseat else "Your turn"
            prompt = f"{who}: draw{extra} [Enter = draw]: "
        else:
            drawn = view.drawn
            assert drawn is not None  # the "drawn" phase: the actor sees the card they hold
            power = view.ruleset.power(drawn) if not view.power_used else None
            hint = {"detective": "peek N, ", "thief": f"steal N {opp}:M, "}.get(power or "", "")
            prompt = f"You hold {rank_label(drawn)}: {hint}swap N or discard: "

        def parse(text: str) -> Action:
            words = text.strip().lower().split()
            if view.phase == "pass" and (not words or words in (["no"], ["keep"])):
                words = ["nopass"]
            if not words:
                if view.phase == "draw":
                    words = ["draw"]
                else:
                    raise ActionFormatError("type a command; 'help' lists them")
            words[0] = _SHORT.get(words[0], words[0])
            if words[0] == "snap":
                raise ActionFormatError("snaps are offered after each discard, not at your turn")
            return self._check(parse_action(" ".join(words), self.seat))

        return t.ask(prompt, parse, help_text(self.seat, view.ruleset.players))

    def snap(self, view: GolfView) -> Snap | None:
        t = self.table
        if t.hotseat:
            t.show_public(view, f"Snap window for {t.names[self.seat]}")
        else:
            t.show(self.seat, view, self.display)
        others = [o for o in view.opponents if o != view.ended_by] if view.ruleset.snap_opponents else []
        forms = ["snap N"] + [f"snap {format_seat(o)}:N" for o in others]
        usage = ", ".join(
            ["snap N (your card N)"] + [f"snap {format_seat(o)}:N ({t.names[o]}'s card N)" for o in others]
        )
        who = t.names[self.seat] if t.hotseat else "You"
        top = view.top
        assert top is not None, "a snap window opens on the discard pile's top card"
        prompt = f"{who}: snap onto the {rank_label(top)}? ({', '.join(forms)}; Enter = no): "

        def parse(text: str) -> Snap | None:
            words = text.strip().lower().split()
            if not words or words in (["n"], ["no"], ["pass"]):
                return None
            if words[0] in _TURN_WORDS:
                raise ActionFormatError(f"this is a snap window: type {usage}, or Enter to let the card go")
            if words[0] != "snap":
                words = ["snap"] + words
            action = parse_action(" ".join(words), self.seat)
            assert isinstance(action, Snap), "the words start with 'snap'"
            self._check(action)
            return action

        return t.ask(prompt, parse, f"{usage}, or Enter to let it go")


class GolfTable:
    """Runs Golf games at one terminal.

    Args:
        terminal: prompts and screens (every screen clear goes through
            :meth:`cardtable.tui.Terminal.clear`, which also clears the scrollback).
        ruleset: the rules.
        names: a name per seat.
        bots: per seat, a bot (``None`` for a person).
        open_memory: keep known cards visible (else memory mode).
        hotseat: several people at one keyboard.
    """

    def __init__(
        self,
        terminal: Terminal,
        ruleset: GolfRuleset,
        names: Sequence[str],
        bots: Sequence[Agent | None],
        open_memory: bool = False,
        hotseat: bool = False,
    ) -> None:
        self.terminal = terminal
        self.console = terminal.console
        self.ruleset = ruleset
        self.names = list(names)
        self.open_memory = open_memory
        self.hotseat = hotseat
        self.game: GolfGame | None = None
        self.agents: list[Agent] = [b if b is not None else HumanAgent(self, i) for i, b in enumerate(bots)]
        self.humans = [i for i, b in enumerate(bots) if b is None]
        self.notes: list[str] = []
        self._at_keyboard: int | None = None
        self._spectator = Display(None, True)

    def ask(self, prompt: str, parse: Callable[[str], object], help_lines: str):
        """Prompt until ``parse`` accepts; ``help`` prints ``help_lines`` (not as an error) and asks again."""

        def parse_or_help(text: str):
            return _HELP if text.strip().lower() in _HELP_WORDS else parse(text)

        while True:
            answer = self.terminal.ask(escape(prompt), parse_or_help)  # names are not markup
            if answer is not _HELP:
                return answer
            self.console.print(help_lines, markup=False, highlight=False)

    def with_names(self, message: str, reader: int) -> str:
        """An engine message with names for seat labels (``P2's`` -> ``Ben's``); the reader's own
        seat becomes ``your``/``you`` unless several people share the screen (hot-seat)."""

        def name(m: re.Match) -> str:
            seat = int(m.group(1)) - 1
            if not 0 <= seat < len(self.names):
                return m.group(0)
            if seat == reader and not self.hotseat:
                return "your" if m.group(2) else "you"
            return self.names[seat] + (m.group(2) or "")

        return re.sub(r"\bP(\d)\b('s)?(?!:)", name, message)

    def show(self, seat: int, view: GolfView, display: Display) -> None:
        """Draw ``seat``'s screen. In memory mode each screen replaces the last one, scrollback
        included (:meth:`cardtable.tui.Terminal.clear`), so a card shown once cannot be scrolled back to."""
        if self.hotseat and self._at_keyboard != seat:
            self.terminal.hand_over(self.names[seat])
            self._at_keyboard = seat
        elif not self.open_memory:
            self.terminal.clear()
        self.console.print(render(view, self.names, display.visible(view), self.notes))

    def show_public(self, view: GolfView, title: str) -> None:
        public = Display(None, False)
        public._shown = {(o, p, r) for o, g in enumerate(view.grids) for p, r in enumerate(g) if r}
        if self._at_keyboard is not None:
            self.terminal.clear()
            self._at_keyboard = None
        self.console.print(Text(title, style="bold"))
        self.console.print(render(view, self.names, public.visible(view), self.notes, mark_you=False))

    def first_looks(self, game: GolfGame) -> None:
        """Before anybody acts, every person but the first player gets their one look at
        the bottom row (docs/golf.md, "Setup"), in every mode: against bots (a bot may
        start a match's later games) and hot-seat (the keyboard is handed over for it).
        The first player, if a person, looks on their first turn's screen, before acting.
        In memory mode or hot-seat each look is cleared away afterwards."""
        n = game.players
        for seat in [(game.first_player + k) % n for k in range(1, n)]:
            agent = self.agents[seat]
            if not isinstance(agent, HumanAgent):
                continue
            view = build_view(game, seat)
            self.show(seat, view, agent.display)
            after = "it stays visible (open memory)" if self.open_memory else "it is hidden from now on"
            who = f"{self.names[seat]}, this" if self.hotseat else "This"
            self.terminal.pause(
                escape(f"{who} is your look at your bottom row: {after}. Press Enter when done... ")
            )
            if self.hotseat or not self.open_memory:
                self.terminal.clear()
            self._at_keyboard = None

    def on_event(self, game: GolfGame, ev: Event) -> None:
        viewer = self.humans[0] if len(self.humans) == 1 and not self.hotseat else None
        d = event_dict(ev, viewer if viewer is not None else -1)
        public = len(ev.seen_by) == game.players
        if ev.card is not None and (not self.humans or public):
            d["card"] = card_rank(ev.card)  # a spectator sees all; shared notes show face-up cards
        elif not public and not self.open_memory:
            d["card"] = None  # memory mode: the log does not repeat what you must remember
        line = describe_event(d, self.names, viewer)
        if ev.ended:
            line += " — the game is over"
        self.notes.append(line)
        if not self.humans or (len(self.humans) == 1 and ev.action.player != self.humans[0]):
            self.console.print(Text("· " + line, style="cyan"))

    def play(self, seed: str | int | None, first_player: int, extra: Sequence[int]) -> GolfGame:
        """Play one game.

        Raises:
            QuitGame: a person quit (or Ctrl-C); the partial game is in ``exc.game``.
        """
        self.game = GolfGame(self.ruleset, seed=seed, first_player=first_player, extra_cards=extra)
        self.notes = []
        self._at_keyboard = None
        for a in self.agents:
            if isinstance(a, HumanAgent):
                a.display = Display(a.seat, self.open_memory)
        try:
            self.first_looks(self.game)
            play_game(self.game, self.agents, self.on_event)
        except KeyboardInterrupt:  # Ctrl-C outside a prompt (a bot thinking)
            exc = QuitGame("interrupted")
            exc.game = self.game
            raise exc from None
        except QuitGame as exc:
            exc.game = self.game
            raise
        return self.game

    def show_final(self, game: GolfGame, next_game: bool = False) -> None:
        """The last screen, the winner, the scores and what an early end costs (``next_game``:
        another game of the match follows, where a losing early ender gets extra cards)."""
        viewer = self.humans[0] if len(self.humans) == 1 and not self.hotseat else None
        view = build_view(game, self.humans[0] if self.humans else 0)
        notes = self.notes if self.humans else ()  # bots only: every move is printed already
        self.console.print(
            render(view, self.names, self._spectator.visible(view), notes, mark_you=viewer is not None)
        )
        res = game.result()
        scores = ", ".join(f"{n} {plural(s, 'pt')}" for n, s in zip(self.names, res.scores, strict=True))
        self.console.print(
            f"[bold]{escape(verdict(res, self.names, viewer))}[/bold] (fewest points) — "
            f"{escape(scores)}; {escape(end_text(res, self.names, viewer))}",
            markup=True,
            highlight=False,
        )
        note = ender_note(res, self.names, viewer, next_game)
        if note:
            self.console.print(note, markup=False, highlight=False)


def check_record_path(path: Path) -> None:
    """Refuse a record path that exists or whose folder is missing (nothing is overwritten or created).

    Raises:
        FileExistsError: ``path`` exists.
        FileNotFoundError: its folder does not exist.
    """
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path} already exists: choose a new file for the record")
    if not path.parent.is_dir():
        raise FileNotFoundError(
            f"folder {path.parent} does not exist: create it or choose another --record path"
        )


def save_records(records: Sequence[GolfRecord], path: Path | None = None) -> Path:
    """Write records to ``path``, or to a new ``golf-*.txt`` file in the records folder.

    A path ending in ``.json`` gets the JSON notation (:func:`cardtable.golf.record.to_json`),
    any other the text notation (:func:`cardtable.golf.record.write_text`). The default
    name is unique (a ``-2``, ``-3``, ... suffix when the name is taken); nothing is overwritten.

    Raises:
        FileExistsError: ``path`` exists (it is not overwritten).
        FileNotFoundError: the folder of ``path`` does not exist (it is not created).
    """
    if path is None:
        return new_record_file("golf", records[0].seed, ".txt", write_text(records))
    path = Path(path)
    check_record_path(path)
    text = to_json(records) + "\n" if path.suffix.lower() == ".json" else write_text(records)
    with open(path, "x", encoding="utf-8") as fh:
        fh.write(text)
    return path


def _explicit_ruleset(ruleset: GolfRuleset, players: int) -> GolfRuleset:
    """``ruleset`` with ``players`` seats (an explicit player count overrides ``ruleset.players``);
    a deck count that was the default for the old count becomes the default for the new one."""
    if players == ruleset.players:
        return ruleset
    default_decks = GolfRuleset(players=ruleset.players).decks
    decks = None if ruleset.decks == default_decks else ruleset.decks
    return dataclasses.replace(ruleset, players=players, decks=decks)


def run(
    vs: Sequence[str] = (),
    players: int | None = None,
    hotseat: bool = False,
    seed: str | int | None = None,
    open_memory: bool = False,
    games: int = 1,
    console: Console | None = None,
    input_fn: Callable[[str, bool], str] | None = None,
    auto: bool = False,
    name: str = "You",
    names: str | Sequence[str] | None = None,
    save: bool = True,
    record: Path | None = None,
    ruleset: GolfRuleset | None = None,
) -> int:
    """Play Golf at the terminal; returns an exit code (0 played to the end, 2 bad
    options, :data:`cardtable.tui.ABANDONED` quit).

    Quitting (``quit``, Ctrl-D, Ctrl-C) prints ``Game abandoned.``, saves what was
    played (if anything) and returns :data:`~cardtable.tui.ABANDONED` (3). Bad options are
    refused in one line, ``error: ...``, on ``console`` if given, else on stderr.

    Args:
        vs: bot names for the other seats (default ``["heuristic"]``; the last
            name fills any remaining seats). More bots than free seats of an
            explicit ``players`` (or ruleset) is an error (2).
        players: 2 or 3; overrides ``ruleset.players``. Default: the ruleset's, else
            1 + number of bots (at least 2); the seats are printed before play.
        hotseat: people only, one keyboard, screens cleared between players.
        seed: seeds the deals (game k uses ``f"{seed}/{k}"``) and the bots.
        open_memory: keep known cards visible (default: memory mode).
        games: games in a row; a losing early ender gets an extra card next game.
        console, input_fn: for tests (see :class:`cardtable.tui.Terminal`).
        auto: bots in every seat.
        name: your name; names: hot-seat names (comma separated or a list). Names
            follow the one name policy (:func:`cardtable.platform.names.check_player_names`).
        save, record: save the record (default: a new, unique file under the records
            folder); ``record`` must not exist and its folder must (checked before play);
            a ``.json`` path gets the JSON notation.
        ruleset: the rules (default :class:`GolfRuleset` for ``players``).
    """
    terminal = Terminal(console=console, hotseat=hotseat, input_fn=input_fn)
    out = terminal.console
    try:
        ruleset, seat_names, bots = _seats(vs, players, hotseat, auto, seed, name, names, ruleset)
        _check_games(games, save, record)
    except (UnknownBotError, BotSpecError, GolfError, PlayerNameError, OSError) as exc:
        errors = out if console is not None else Console(stderr=True)  # the command line's stderr
        errors.print(f"error: {exc}", style="red", markup=False, highlight=False, soft_wrap=True)
        return 2
    table = GolfTable(terminal, ruleset, seat_names, bots, open_memory=open_memory, hotseat=hotseat)
    out.print(
        f"[bold]Golf with Detective and Thief[/bold] — {ruleset.players} players: "
        f"{escape(', '.join(seat_names))}. "
        f"{'Open memory' if open_memory else 'Memory mode: cards you learn are shown once'}. "
        f"Type 'help' for commands."
    )
    records: list[GolfRecord] = []
    abandoned = _play_match(table, terminal, seed, games, records)
    if save and records:
        _save(out, records, record)
    _print_totals(out, records, seat_names)
    return ABANDONED if abandoned else 0


def _check_games(games: int, save: bool, record: Path | None) -> None:
    """Refuse a game count below 1 and (when saving) a ``record`` path that cannot be written.

    Raises:
        GolfError: a bad game count.
        OSError: see :func:`check_record_path`.
    """
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise GolfError(f"games must be 1 or more, not {quoted(games)}")
    if save and record is not None:
        check_record_path(Path(record))


def _print_totals(out: Console, records: list[GolfRecord], seat_names: list[str]) -> None:
    """Print each seat's points over a match of finished games (nothing for one game)."""
    all_scores = [r.scores for r in records if r.scores]
    if len(records) > 1 and len(all_scores) == len(records):
        totals = [sum(s[i] for s in all_scores) for i in range(len(seat_names))]
        out.print(
            "Totals: " + ", ".join(f"{n} {plural(t, 'pt')}" for n, t in zip(seat_names, totals, strict=True))
        )


def _seats(
    vs: Sequence[str],
    players: int | None,
    hotseat: bool,
    auto: bool,
    seed: str | int | None,
    name: str,
    names: str | Sequence[str] | None,
    ruleset: GolfRuleset | None,
) -> tuple[GolfRuleset, list[str], list[Agent | None]]:
    """:func:`run`'s table: the rules, a checked name per seat and the bots (``None`` for a person).

    Raises:
        GolfError: options that exclude each other, or seat counts that do not fit.
        UnknownBotError, BotSpecError: a bad ``--vs`` name.
        PlayerNameError: a name the name policy refuses.
    """
    bot_list = list(vs) if vs else (["heuristic", "random"] if auto else ["heuristic"])
    if hotseat and auto:
        raise GolfError("--hotseat and --auto exclude each other")
    if hotseat and vs:
        raise GolfError("--hotseat seats people only: leave out --vs")
    humans = 0 if auto else 1
    ruleset = _table_ruleset(players, ruleset, hotseat, auto, vs, names, bot_list, humans)
    n = ruleset.players
    if isinstance(names, str):
        names = [x.strip() for x in names.split(",")]
    if hotseat:
        seat_names = list(names) if names else [f"Player {i + 1}" for i in range(n)]
        if len(seat_names) != n:
            raise GolfError(f"{plural(len(seat_names), 'name')} for {n} players")
        bots: list[Agent | None] = [None] * n
    else:
        seat_names, bots = _bot_seats(vs, bot_list, n, humans, name, seed)
    check_player_names(seat_names)
    return ruleset, seat_names, bots


def _table_ruleset(
    players: int | None,
    ruleset: GolfRuleset | None,
    hotseat: bool,
    auto: bool,
    vs: Sequence[str],
    names: str | Sequence[str] | None,
    bot_list: list[str],
    humans: int,
) -> GolfRuleset:
    """The rules for :func:`run`: an explicit ``players`` wins, then ``ruleset``, then the
    count of hot-seat names or of bots (and you).

    Raises:
        GolfError: a count other than 2 or 3.
    """
    if players is not None:
        return (
            _explicit_ruleset(ruleset or GolfRuleset(), players) if ruleset else GolfRuleset(players=players)
        )
    if ruleset is not None:
        return ruleset
    if hotseat:
        names_given = [x for x in names.split(",")] if isinstance(names, str) else list(names or [])
        wanted = len(names_given) if names_given else 2
    else:
        wanted = max(2, humans + len(bot_list)) if vs or auto else 2
    if not 2 <= wanted <= 3:
        what = (
            f"{len(names_given)} names"
            if hotseat
            else f"{len(bot_list)} --vs bot(s)" + (" and you" if humans else "")
        )
        raise GolfError(f"Golf takes 2 or 3 players; {what} make {wanted}")
    return GolfRuleset(players=wanted)


def _bot_seats(
    vs: Sequence[str], bot_list: list[str], n: int, humans: int, name: str, seed: str | int | None
) -> tuple[list[str], list[Agent | None]]:
    """Names and agents of ``humans`` people (named ``name``) and ``n - humans`` bots from
    ``bot_list`` (the last name fills the remaining seats; a repeated bot gets its seat number).

    Raises:
        GolfError: more ``--vs`` bots than free seats.
        UnknownBotError, BotSpecError: a bad bot name.
    """
    if vs and len(bot_list) > n - humans:
        raise GolfError(
            f"{n} players leave {plural(n - humans, 'seat')} for bots, "
            f"but {len(bot_list)} --vs bots were named"
        )
    bots: list[Agent | None] = [None] * humans
    seat_names = [name.strip() if isinstance(name, str) else name] * humans
    chosen = [bot_list[min(i, len(bot_list) - 1)] for i in range(n - humans)]
    for i, bot_name in enumerate(chosen):
        bot = load_bot_spec("golf", bot_name, seed=None if seed is None else f"{seed}-bot{i}")
        bots.append(cast(Agent, bot))  # every golf bot is a GolfBot: it acts and snaps
        seat_names.append(bot.name if chosen.count(bot_name) == 1 else f"{bot.name}-{humans + i + 1}")
    return seat_names, bots


def _play_match(
    table: "GolfTable", terminal: Terminal, seed: str | int | None, games: int, records: list[GolfRecord]
) -> bool:
    """Play ``games`` games at ``table``, appending each record (a quit game's too, if any
    action was played) to ``records``; returns whether the match was abandoned."""
    out = terminal.console
    players = table.ruleset.players
    seat_names = table.names
    extra = (0,) * players
    try:
        for k in range(games):
            game_seed = None if seed is None else f"{seed}/{k}"
            tags = {"MatchGame": f"{k + 1}/{games}"} if games > 1 else {}
            try:
                game = table.play(game_seed, k % players, extra)
            except QuitGame as exc:
                partial = getattr(exc, "game", None)
                if partial is not None and partial.history:
                    records.append(record_from_game(partial, seat_names, tags))
                out.print("Game abandoned.")
                return True
            records.append(record_from_game(game, seat_names, tags))
            table.show_final(game, next_game=k + 1 < games)
            extra = game.result().extra_cards
            if k + 1 < games and table.humans:
                terminal.pause("Press Enter for the next game... ")
    except (QuitGame, KeyboardInterrupt):  # at the pause between games: the games played are kept
        out.print(f"Match abandoned after {plural(len(records), 'game')}.")
        return True
    return False


def _save(out: Console, records: list[GolfRecord], record: Path | None) -> None:
    """Save ``records`` (to ``record``, else or if that fails to a new file) and print where."""
    try:
        path = save_records(records, record)
    except OSError as exc:  # the --record file appeared meanwhile: keep the games anyway
        out.print(f"error: {exc}", style="red", markup=False, highlight=False, soft_wrap=True)
        path = save_records(records)
    out.print(f"Record saved to {path}", soft_wrap=True, markup=False, highlight=False)
    out.print(f"Check it with: cardtable replay {path}", soft_wrap=True, markup=False, highlight=False)


def run_cli(
    vs: Sequence[str] = (),
    players: int | None = None,
    hotseat: bool = False,
    auto: bool = False,
    seed: str | None = None,
    open_memory: bool = False,
    name: str = "You",
    names: str | None = None,
    save: bool = True,
    record: Path | None = None,
    games: int = 1,
    ruleset: GolfRuleset | None = None,
) -> int:
    """``cardtable play golf`` (flags as in :mod:`cardtable.cli.play`); returns the exit code
    (0 played, 2 bad options, 3 quit: :data:`cardtable.tui.ABANDONED`).

    Args:
        ruleset: the rules (``--rules``, parsed with :meth:`GolfRuleset.parse`); an
            explicit ``players`` (``--players``) overrides ``ruleset.players``.
        Others: as :func:`run`.
    """
    return run(
        vs=vs,
        players=players,
        hotseat=hotseat,
        seed=seed,
        open_memory=open_memory,
        games=games,
        auto=auto,
        name=name,
        names=names,
        save=save,
        record=record,
        ruleset=ruleset,
    )
