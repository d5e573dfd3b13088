"""``cardtable play``: play in the terminal (Goofspiel by default, or Golf)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import List, Optional

import typer

from cardtable.platform.bot import BotSpecError, UnknownBotError, load_bot_spec, parse_bot_spec
from cardtable.platform.match import MatchError, MatchFormat
from cardtable.platform.records import MAX_GAMES as MAX_RECORD_GAMES
from cardtable.platform.records import tag_value_problem
from cardtable.platform.storage import FolderError, cache_dir, records_location
from cardtable.tui import ABANDONED

from .common import build_ruleset, check_names, check_record_path, fail, path_value, usable_folder

#: Flags that only Goofspiel understands, and those only Golf understands.
GOOFSPIEL_ONLY = (
    "--cards",
    "--ties",
    "--unique",
    "--high-ace",
    "--bid-cards",
    "--display",
    "--order",
    "--match",
    "--hints",
    "--build-table",
)
GOLF_ONLY = ("--open-memory", "--games")

#: Seconds that preparing the solver may take before a status line says so.
PREPARE_QUIET = 0.5
#: The longest pause ``--delay`` takes, seconds (a demo pace; more would only look hung).
MAX_DELAY = 60.0


def register(app: typer.Typer) -> None:
    @app.command()
    def play(
        game: str = typer.Argument("goofspiel", help="The game: goofspiel or golf."),
        vs: Optional[List[str]] = typer.Option(
            None,
            "--vs",
            metavar="BOT",
            show_default="heuristic",
            help="An opponent bot: NAME or NAME:key=value,... (mcts:iterations=50); repeat for several seats.",
        ),
        hotseat: bool = typer.Option(
            False,
            "--hotseat",
            help="People only, at one keyboard: hidden entry, screen cleared between players.",
        ),
        auto: bool = typer.Option(False, "--auto", help="Bots in every seat; watch them play."),
        rules: Optional[str] = typer.Option(
            None,
            "--rules",
            metavar="RULES",
            show_default="standard",
            help="Goofspiel: a preset, a rules file (.toml/.json) or 'cards=9 ties=discard'; Golf: 'players=3 early_end_min=2 ...'.",
        ),
        cards: Optional[int] = typer.Option(
            None, "--cards", "-n", metavar="N", show_default="13", help="Goofspiel: cards per suit, 1..13."
        ),
        players: Optional[int] = typer.Option(
            None,
            "--players",
            metavar="N",
            show_default="2",
            help="Number of players (Goofspiel 2-5, Golf 2-3).",
        ),
        ties: Optional[str] = typer.Option(
            None,
            "--ties",
            metavar="RULE",
            show_default="carry",
            help="Goofspiel: tie rule, carry or discard.",
        ),
        unique: Optional[bool] = typer.Option(
            None,
            "--unique/--no-unique",
            show_default="no-unique",
            help="Goofspiel, 3-5 players: the highest unique bid wins (with 2 it changes nothing).",
        ),
        high_ace: Optional[bool] = typer.Option(
            None,
            "--high-ace/--low-ace",
            show_default="low-ace",
            help="Goofspiel: the ace bids highest and is worth cards+1.",
        ),
        bid_cards: Optional[int] = typer.Option(
            None,
            "--bid-cards",
            metavar="N",
            show_default="1",
            help="Goofspiel: cards per bid (2: multi-card bids).",
        ),
        display: Optional[int] = typer.Option(
            None,
            "--display",
            metavar="N",
            show_default="1",
            help="Goofspiel: open prizes, the number of prizes face up at once.",
        ),
        order: Optional[str] = typer.Option(
            None,
            "--order",
            metavar="ORDER",
            show_default="shuffled",
            help="Goofspiel: prize order, shuffled, ascending, descending or 13,12,...,1.",
        ),
        match: Optional[str] = typer.Option(
            None,
            "--match",
            metavar="FORMAT",
            show_default="one game",
            help="Goofspiel: a match, 'total 3', 'best-of 5' or 'best-of 3 total-points'.",
        ),
        hints: bool = typer.Option(
            False,
            "--hints",
            help="Goofspiel, you against a bot: the coach shows the equilibrium mix before every bid (else type 'hint' for one round); recorded as [Hints \"on\"].",
        ),
        seed: Optional[str] = typer.Option(
            None,
            "--seed",
            metavar="TEXT",
            show_default="random, recorded",
            help="Seed of the shuffle (and of the bots).",
        ),
        name: Optional[str] = typer.Option(
            None,
            "--name",
            metavar="NAME",
            show_default="You",
            help="Your name in the record (not with --auto or --hotseat).",
        ),
        names: Optional[str] = typer.Option(
            None,
            "--names",
            metavar="A,B,...",
            show_default="Player 1, Player 2, ...",
            help="Hot-seat: the players' names, separated by commas.",
        ),
        delay: Optional[float] = typer.Option(
            None,
            "--delay",
            min=0.0,
            max=MAX_DELAY,
            metavar="SECONDS",
            show_default="0.6 with --auto, else 0",
            help=f"Pause after each round (at most {MAX_DELAY:g} s).",
        ),
        open_memory: bool = typer.Option(False, "--open-memory", help="Golf: cards you know stay visible."),
        games: Optional[int] = typer.Option(
            None,
            "--games",
            min=1,
            max=MAX_RECORD_GAMES,
            metavar="N",
            show_default="1",
            help=f"Golf: games in a row (a losing early ender gets an extra card; at most {MAX_RECORD_GAMES:,}, what one record holds).",
        ),
        save: bool = typer.Option(
            True, "--save/--no-save", help="Save the game record under the records folder."
        ),
        record: Optional[Path] = typer.Option(
            None,
            "--record",
            metavar="FILE",
            help="Save the record to this new file instead (.json: JSON notation); never overwrites.",
            parser=path_value,
        ),
        build_table: bool = typer.Option(
            False,
            "--build-table",
            help="Goofspiel: build this game's solved table in the background at the lowest priority while "
            "you play (stopped when the command ends; the next --build-table resumes it; docs/solver.md, "
            "Background builds).",
        ),
    ) -> None:
        """Play a game in the terminal: you against a bot by default."""
        kind = game.strip().lower()
        given: dict[str, object] = {
            "--cards": cards,
            "--ties": ties,
            "--unique": unique,
            "--high-ace": high_ace,
            "--bid-cards": bid_cards,
            "--display": display,
            "--order": order,
            "--match": match,
            "--hints": hints or None,
            "--build-table": build_table or None,
            "--open-memory": open_memory or None,
            "--games": games,
        }
        _check_play_options(game, kind, given, vs, hotseat, auto, seed, names)
        if name is not None and (auto or hotseat):  # nobody plays as "you": never ignored silently
            fail(
                "--name names you against bots: "
                + ("--auto seats bots only (LABEL=BOT names one)" if auto else "with --hotseat use --names")
            )
        name = "You" if name is None else name
        check_names([name] + ([x.strip() for x in names.split(",")] if names else []))
        _check_saving(save, record)
        if kind == "golf":
            _play_golf(
                vs, players, hotseat, auto, rules, seed, open_memory, name, names, save, record, games or 1
            )
        else:
            _play_goofspiel(
                vs,
                hotseat,
                auto,
                rules,
                cards,
                players,
                ties,
                unique,
                high_ace,
                bid_cards,
                display,
                order,
                match,
                seed,
                name,
                names,
                delay,
                save,
                record,
                hints,
                build_table,
            )


def _check_play_options(
    game: str,
    kind: str,
    given: dict[str, object],
    vs: Optional[List[str]],
    hotseat: bool,
    auto: bool,
    seed: Optional[str],
    names: Optional[str] = None,
) -> None:
    """``cardtable play``'s checks of the seats, the seed, the game and the options that belong
    to the other game (one line each, exit 2)."""
    _check_hotseat(hotseat, auto, vs, names)
    if seed is not None and not seed.strip():
        fail("--seed must not be empty")
    if seed is not None and (problem := tag_value_problem("Seed", seed)):
        # the record keeps the seed: refused now, not after the game (which could not be saved)
        fail(f"--seed cannot be recorded: {problem.removeprefix('Seed: ')}")
    if kind not in ("gops", "goofspiel", "golf"):
        fail(f"unknown game {game!r}: choose goofspiel or golf")
    wrong = [flag for flag in (GOOFSPIEL_ONLY if kind == "golf" else GOLF_ONLY) if given[flag] is not None]
    if wrong:
        other = "Goofspiel" if kind == "golf" else "Golf"
        what = "is a" if len(wrong) == 1 else "are"
        fail(f"{', '.join(wrong)} {what} {other} option{'s' if len(wrong) > 1 else ''}, not for {kind}")


def _check_hotseat(hotseat: bool, auto: bool, vs: Optional[List[str]], names: Optional[str]) -> None:
    """``--hotseat`` seats people only, and ``--names`` names them (one line each, exit 2)."""
    if hotseat and auto:
        fail("--hotseat and --auto exclude each other")
    if hotseat and vs:
        fail("--hotseat seats people only; leave out --vs (or play without --hotseat)")
    if names is not None and not hotseat:
        fail(
            "--names names the hot-seat players: use it with --hotseat (--name is yours, LABEL=BOT names a bot)"
        )


def _check_saving(save: bool, record: Optional[Path]) -> None:
    """``--record`` and ``--no-save`` exclude each other; the record's file, or the records
    folder, must be usable before a game is played."""
    if record is not None and not save:
        fail("--record saves the record to a file and --no-save saves nothing: give one of them")
    if record is not None:
        check_record_path(record)
    elif save:  # the records folder must be usable before a game is played (made when saved)
        usable_folder(*records_location())


def _play_golf(
    vs, players, hotseat, auto, rules, seed, open_memory, name, names, save, record, games
) -> None:
    # lazy: Golf's screens and records load Pydantic (~0.3 s); `cardtable --help` needs none of it
    from cardtable.golf import tui as golf_tui
    from cardtable.golf.ruleset import GolfRuleset

    ruleset = None
    if rules is not None:
        if not rules.strip():  # as Goofspiel's --rules: empty is no rules, not the default
            fail("bad Golf rules: the rules text is empty (leave out --rules for the default game)")
        try:
            ruleset = GolfRuleset.parse(rules)
        except ValueError as exc:
            fail(f"bad Golf rules: {exc}")
    raise typer.Exit(
        golf_tui.run_cli(
            vs=vs or [],
            players=players,
            hotseat=hotseat,
            auto=auto,
            seed=seed,
            open_memory=open_memory,
            name=name,
            names=names,
            save=save,
            record=record,
            games=games,
            ruleset=ruleset,
        )
    )


def _play_goofspiel(
    vs,
    hotseat,
    auto,
    rules,
    cards,
    players,
    ties,
    unique,
    high_ace,
    bid_cards,
    display,
    order,
    match,
    seed,
    name,
    names,
    delay,
    save,
    record,
    hints=False,
    build_table=False,
) -> None:
    # lazy: `cardtable --help` and the other commands do not load the game, the coach's solver or rich's screens
    from cardtable.goofspiel.tui import run
    from cardtable.tui import Terminal

    ruleset = build_ruleset(rules, cards, players, ties, unique, high_ace, bid_cards, display, order)
    if build_table:
        _check_build_table(ruleset)
    coach = _goofspiel_coach(ruleset, hints, hotseat or auto)
    try:
        fmt = MatchFormat.parse(match) if match else None
    except MatchError as exc:
        fail(str(exc))
    if fmt is not None and fmt.games > MAX_RECORD_GAMES:  # the match's record must hold it
        fail(
            f"--match {match}: at most {MAX_RECORD_GAMES:,} games (what one record holds), not {fmt.games:,}"
        )
    seats = _goofspiel_seats(ruleset, vs, hotseat, auto, seed, name, names)
    check_names([s.name for s in seats])
    _print_notes(ruleset, seats, build_table)
    terminal = Terminal(hotseat=hotseat)
    _prepare_solver(terminal.console, ruleset, seats, hints)
    wait = delay if delay is not None else (0.6 if auto else 0.0)
    build = _start_build(ruleset) if build_table else None
    try:
        code = run(
            terminal,
            ruleset,
            seats,
            seed=seed,
            match=fmt,
            delay=wait,
            save=save,
            record_path=record,
            hints=hints,
            coach=coach,
        )
    finally:  # the build never outlives the command (Ctrl-C and errors included)
        if build is not None:
            typer.echo(build.stop())
    raise typer.Exit(code)


def _solver_objectives(seats, hints: bool) -> set[str]:
    """The objectives the solver plays in this game: each ``nash`` bot's, ``points`` for the
    ``exploiter`` bot (it plays from a ``nash`` bot) and for ``--hints``."""
    objectives = {"points"} if hints else set()
    if not any(type(s.bot).__module__.startswith("cardtable.strategy.") for s in seats if s.bot):
        return objectives  # no bot of the strategy layer: its modules are not loaded for nothing
    # lazy: the strategy bots load the solver (NumPy, Numba); `cardtable --help` must not
    from cardtable.strategy.exploiter import ExploiterBot
    from cardtable.strategy.nash import NashBot

    for seat in seats:
        if isinstance(seat.bot, NashBot):
            objectives.add(seat.bot.objective)
        elif isinstance(seat.bot, ExploiterBot):
            objectives.add("points")
    return objectives


def _prepare_solver(console, ruleset, seats, hints: bool) -> None:
    """Before the first game, compile (or load from Numba's cache) the solver's kernels that
    the solver-backed bots and ``--hints`` call (:func:`cardtable.solver.warm.warm_kernels`),
    so that no bid waits for the one-time compilation after an install; a status line says so
    when it takes over :data:`PREPARE_QUIET` seconds, and a line how long it took. Ctrl-C
    meanwhile ends the command (exit 3, nothing played); a damaged table, exit 1."""
    objectives = _solver_objectives(seats, hints)
    if not objectives:
        return
    # lazy: the solver loads NumPy and Numba; only games with a solver-backed player need it
    from cardtable.solver.table import TableFileError
    from cardtable.solver.warm import warm_kernels

    errors: list[BaseException] = []

    def work() -> None:
        try:
            for objective in sorted(objectives):
                warm_kernels(ruleset, objective)
        except BaseException as exc:  # re-raised in the main thread below
            errors.append(exc)

    # a daemon thread: Ctrl-C must end the command at once, and Numba's compilation cannot be
    # interrupted; the thread touches no game or bot, and the process exits right after
    worker = threading.Thread(target=work, name="prepare-solver", daemon=True)
    start = time.perf_counter()
    worker.start()
    try:
        worker.join(PREPARE_QUIET)
        if worker.is_alive():
            with console.status("preparing the solver (once per install) ..."):
                worker.join()
            console.print(f"solver prepared in {time.perf_counter() - start:.1f} s", style="dim")
    except KeyboardInterrupt:
        console.print("[yellow]Interrupted before the game started; nothing was played.[/yellow]")
        raise typer.Exit(ABANDONED) from None
    if errors:
        if isinstance(errors[0], TableFileError):
            fail(str(errors[0]), 1)
        raise errors[0]


def _check_build_table(ruleset) -> None:
    """``--build-table`` with rules that have no table to build: one line, exit 2, before anything starts."""
    # lazy: the build plans load the solver (NumPy, Numba); `cardtable --help` must not
    from .build import BuildRefused, check_buildable

    try:
        check_buildable(ruleset)
    except BuildRefused as exc:
        fail(str(exc))


def _print_notes(ruleset, seats, build_table: bool) -> None:
    """Each bot's note on what it plays from (the nash bot's source); where that is not yet
    the exact equilibrium and no table is built, how to build one (``--build-table``)."""
    # lazy: the build plans load the solver (NumPy, Numba); `cardtable --help` must not
    from .build import BuildRefused, check_buildable, table_complete

    for seat in seats:
        note = getattr(seat.bot, "fallback_note", None) if seat.bot is not None else None
        if not note:
            continue
        typer.echo(f"{seat.name}: {note}")
        try:
            check_buildable(ruleset)
        except BuildRefused:
            continue
        if not build_table and not note.startswith("plays the exact") and not table_complete(ruleset):
            typer.echo(
                "  (`cardtable play --build-table` builds this game's table in the background while you "
                "play, resuming where it stopped: docs/solver.md, Background builds)"
            )


def _start_build(ruleset):
    """Plan and start ``--build-table``'s background build (after the one line that says what
    it builds, its estimate and its log), or None when there is nothing to build."""
    # lazy: the build plans load the solver (NumPy, Numba); `cardtable --help` must not
    from .build import BackgroundBuild, plan_build

    try:
        cache = cache_dir()
    except FolderError as exc:
        fail(f"--build-table: {exc}")
    plan = plan_build((ruleset,), cache)
    typer.echo(plan.describe())
    if not plan.steps:
        return None
    build = BackgroundBuild(plan, cache, "cardtable play")
    try:
        build.start()
    except OSError as exc:
        fail(f"--build-table: {exc}", 1)
    return build


def _goofspiel_coach(ruleset, hints: bool, no_person_alone: bool):
    """The terminal coach; with ``--hints`` checked now: one person against bots (exit 2), a
    game it can coach (exit 2) and undamaged tables (exit 1), before any game starts."""
    # lazy: the coach and the nash bot load the solver (NumPy, Numba); `cardtable --help` must not
    from cardtable.strategy.coach import TerminalCoach
    from cardtable.strategy.nash import NashBot

    if hints and no_person_alone:
        fail("--hints are for a game of one person against bots: leave out --hotseat and --auto")
    coach = TerminalCoach()
    problem = coach.problem(ruleset) if hints else ""
    if problem:
        fail(f"--{problem}")  # "--hints need a 2-player game ..."
    if hints:
        try:  # the coach's tables (a damaged one is refused now, not at the first hint)
            NashBot(seed=0).new_game(ruleset, 0)
        except ValueError as exc:  # TableFileError
            fail(f"--hints: {exc}", 1)
    return coach


def _goofspiel_seats(ruleset, vs, hotseat: bool, auto: bool, seed, name: str, names):
    """The seats in order: people (``--hotseat``, or you first) and the ``--vs`` bots, each
    bot made and told the ruleset now (a bot that cannot play it is refused: exit 2, or 1 for
    a damaged table)."""
    # lazy: the game's screens load Pydantic records (~0.3 s); `cardtable --help` needs none of it
    from cardtable.goofspiel.tui import Seat

    n = ruleset.players
    try:
        if hotseat:
            given = [x.strip() for x in names.split(",")] if names else []
            if names and len(given) != n:
                fail(f"--names lists {len(given)} name(s) for {n} players")
            return [Seat(given[i] if given else f"Player {i + 1}") for i in range(n)]
        seats = _bot_seats(ruleset, vs, auto, seed)
        if not auto:
            seats.insert(0, Seat(name))
        return seats
    except (UnknownBotError, BotSpecError) as exc:
        fail(str(exc))
    except ValueError as exc:  # a bot that cannot play this ruleset, or whose table is damaged (exit 1)
        # lazy: the solver loads NumPy and Numba; only this error needs its table error class
        from cardtable.solver.table import TableFileError

        fail(str(exc), 1 if isinstance(exc, TableFileError) else 2)


def _bot_seats(ruleset, vs, auto: bool, seed) -> list:
    """The bots' seats (``heuristic`` by default; ``heuristic`` and ``random`` with ``--auto``),
    repeated names numbered (heuristic-1, heuristic-2)."""
    # lazy: the game's screens load Pydantic records (~0.3 s); `cardtable --help` needs none of it
    from cardtable.goofspiel.tui import Seat

    n = ruleset.players
    bot_names = list(vs) if vs else (["heuristic", "random"] if auto else ["heuristic"])
    humans = 0 if auto else 1
    if len(bot_names) > n - humans:
        fail(f"--vs names {len(bot_names)} bots but only {n - humans} seat(s) are free (use --players)")
    seats, labels = [], []
    for i in range(n - humans):
        bot_name = bot_names[min(i, len(bot_names) - 1)]
        bot_seed = None if seed is None else f"{seed}-bot{i}"
        spec = parse_bot_spec(bot_name)
        bot = load_bot_spec("goofspiel", spec, seed=bot_seed)
        bot.new_game(ruleset, i + humans)  # bots that cannot play this ruleset say so now
        label = bot.name if ":" in spec.label or "=" in spec.label else spec.label
        labels.append(label)
        seats.append(Seat(label, bot))
    for i, seat in enumerate(seats):  # number repeated bot names: heuristic-1, heuristic-2
        if labels.count(seat.name) > 1:
            seat.name = f"{seat.name}-{labels[: i + 1].count(seat.name)}"
    return seats
