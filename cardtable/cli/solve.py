"""Solver commands: ``solve``, ``strategy``, ``analyze``, ``exploit`` (docs/solver.md).

``cardtable solve --cards 8 --ties discard`` writes the table (format 2: a folder of
layers, resumable) to the cache folder; ``cardtable strategy`` prints the equilibrium of one round;
``cardtable analyze RECORD`` walks a finished game; ``cardtable exploit BOT``
computes a best response to a bot (small games).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import math
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.console import Console
from rich.table import Table as RichTable

from cardtable.platform.bot import BotSpecError, UnknownBotError, load_bot_spec, parse_bot_spec
from cardtable.platform.storage import FolderError, cache_dir, cache_location

from .common import (
    err_console,
    fail,
    path_value,
    read_record_file,
    record_game,
    reject_record,
    shown,
    usable_folder,
    writable_folder,
)
from .progress import progress_bar

if TYPE_CHECKING:  # the solver (Numba) is imported by the commands that use it, not at start-up
    from cardtable.goofspiel import Ruleset
    from cardtable.goofspiel.ruleset import TieRule
    from cardtable.solver import Position
    from cardtable.solver.tables import SolvedTable

_TIES = ("carry", "discard")
_OBJECTIVES = ("points", "win")


def _ruleset(cards: int, ties: str, high_ace: bool):
    # lazy: the rules load hashlib, json and tomllib (~50 ms); `cardtable --help` needs none of them
    from cardtable.goofspiel import Ruleset, RulesetError

    if ties not in _TIES:
        fail(f"unknown tie rule {ties!r}: choose carry or discard")
    try:
        return Ruleset(cards=cards, tie_rule="carry" if ties == "carry" else "discard", high_ace=high_ace)
    except RulesetError as exc:
        fail(f"bad rules: {exc}")


def _objective(objective: str) -> str:
    if objective not in _OBJECTIVES:
        fail(f"unknown objective {objective!r}: choose points or win")
    return objective


def _table_or_none(rs, objective: str, cache: Optional[Path], damaged_ok: bool = False) -> SolvedTable | None:
    """The solved table, None if there is none; a damaged one is a clear error (exit 1),
    or raised (``damaged_ok``: ``cardtable solve`` repairs it)."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver import TableFileError, load_table

    try:
        return load_table(rs, objective, cache)
    except TableFileError as exc:
        if damaged_ok:
            raise
        fail(str(exc), 1)
    except OSError as exc:  # a table path that is a folder, unreadable, ...
        fail(f"cannot read the table: {exc}", 1)
    except FolderError as exc:
        fail(str(exc))


def _clean(v: float) -> float:
    """Round off float noise below 1e-12 so that an exact 0 prints as +0.000..."""
    return round(v, 12) + 0.0


#: Most act() calls per decision (and searches) `exploit` makes: a bound, so that a typo cannot
#: run for ever.
MAX_SAMPLES = 1_000_000


def register(app: typer.Typer) -> None:
    @app.command()
    def solve(
        cards: int = typer.Option(..., "--cards", "-n", metavar="N", help="Cards per suit, 1..13."),
        ties: str = typer.Option("carry", "--ties", metavar="RULE", help="Tie rule: carry or discard."),
        objective: str = typer.Option(
            "points",
            "--objective",
            metavar="OBJECTIVE",
            help="What to maximise: points (expected point difference) or win (win=1, draw=0, loss=-1).",
        ),
        high_ace: bool = typer.Option(False, "--high-ace", help="The ace bids highest and is worth cards+1."),
        cache: Optional[Path] = typer.Option(
            None,
            "--cache",
            metavar="FOLDER",
            show_default="$CARDTABLE_CACHE, else the user cache folder",
            help="Table folder.",
            parser=path_value,
        ),
        force: bool = typer.Option(False, "--force", help="Solve again even if the table exists."),
        max_memory: float = typer.Option(
            8.0, "--max-memory", metavar="GIB", help="Refuse solves needing more memory than this, GiB."
        ),
        max_hours: float = typer.Option(
            12.0,
            "--max-hours",
            metavar="HOURS",
            help="Refuse solves estimated to take longer than this on the cores asked for, hours.",
        ),
        threads: int = typer.Option(
            1, "--threads", metavar="N", help="CPU threads for the backward induction."
        ),
        backend: str = typer.Option(
            "threads",
            "--backend",
            metavar="BACKEND",
            help="Who computes each layer: threads (this machine), ray (Ray workers), cuda (an NVIDIA GPU).",
        ),
        workers: int = typer.Option(
            2, "--workers", metavar="N", help="Ray workers, started here unless RAY_ADDRESS names a cluster."
        ),
        table_format: Optional[int] = typer.Option(
            None,
            "--format",
            metavar="N",
            show_default="2",
            help="Table format: 2 (float32 layers, reachable pots only, resumable) or 1 (one float64 file, "
            "not resumable).",
        ),
        calibrate: Optional[bool] = typer.Option(
            None,
            "--calibrate/--no-calibrate",
            show_default="when the estimate is 10 min or more",
            help="First solve a small reference game of the same kind (seconds) and scale the time "
            "estimate and the --max-hours check by this machine's measured speed (format 2, threads).",
        ),
        layers: Optional[int] = typer.Option(
            None,
            "--layers",
            metavar="K",
            help="Solve only the low layers 1..K (positions with at most K cards per hand; "
            "carry-over, points): the nash bot reads them in its exact subgames. "
            "A later full solve resumes from them.",
        ),
    ) -> None:
        """Solve 2-player Goofspiel exactly and write the table (versioned, checksummed)."""
        rs = _ruleset(cards, ties, high_ace)
        objective = _objective(objective)
        _measured_factor.cache_clear()  # this machine's speed is measured anew by each command
        asked_format = table_format
        table_format = _check_solve_options(
            cards, ties, objective, max_memory, max_hours, threads, backend, workers, table_format, layers
        )
        # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
        from cardtable.solver.table import FORMAT_LAYERED, default_path

        if backend == "threads":
            _check_threads(threads)
        if backend == "cuda":  # no GPU: refused before the cache folder or the lock exists
            _layer_backend(backend, threads, workers)
        asked = SolveAsked(
            rs, objective, table_format, layers, backend, threads, workers, max_memory, max_hours, calibrate
        )
        _refuse_before_writing(asked, cache)
        cache = writable_folder(cache, "--cache", cache_dir)
        folder = default_path(rs, objective, cache, FORMAT_LAYERED)
        path = default_path(rs, objective, cache)
        with _table_lock(folder, path):  # one solve per table at a time (--force deletes first)
            if layers is not None:
                _check_before_low_layers(rs, objective, folder, path, force, layers)
                if not force:  # never shrink the stored low layers (docs/solver.md, Low layers)
                    layers = _kept_low_layers(rs, objective, folder, layers)
            if _table_present(folder, path, asked_format) and not force:
                if _already_solved(rs, objective, cache, layers):
                    return
                table_format = _repair_format(folder, path, asked_format, backend, table_format)
            _plan_and_solve(
                dataclasses.replace(asked, table_format=table_format, layers=layers), folder, path, force
            )

    @app.command()
    def strategy(
        ctx: typer.Context,
        cards: int = typer.Option(13, "--cards", "-n", metavar="N", help="Cards per suit, 1..13."),
        ties: str = typer.Option("carry", "--ties", metavar="RULE", help="Tie rule: carry or discard."),
        objective: str = typer.Option(
            "points",
            "--objective",
            metavar="OBJECTIVE",
            help="What to maximise: points (expected point difference) or win (win=1, draw=0, loss=-1).",
        ),
        high_ace: bool = typer.Option(False, "--high-ace", help="The ace bids highest and is worth cards+1."),
        prizes: str = typer.Option(
            "all",
            "--prizes",
            metavar="CARDS",
            help="Prizes still to play for, the one turned up included (e.g. '2,5,9-K').",
        ),
        hand_a: str = typer.Option("all", "--hand-a", metavar="CARDS", help="Player 1's cards."),
        hand_b: str = typer.Option("all", "--hand-b", metavar="CARDS", help="Player 2's cards."),
        prize: Optional[str] = typer.Option(
            None, "--prize", metavar="CARD", show_default="each prize", help="The prize turned up."
        ),
        pot: int = typer.Option(0, "--pot", metavar="POINTS", help="Points carried from ties (carry-over)."),
        diff: int = typer.Option(
            0, "--diff", metavar="POINTS", help="Player 1's points minus player 2's (win objective)."
        ),
        record: Optional[Path] = typer.Option(
            None,
            "--record",
            metavar="FILE",
            help="Take the position from this record (with --game and --round).",
            parser=path_value,
        ),
        game_no: int = typer.Option(1, "--game", metavar="N", help="Game number in the record file."),
        round_no: int = typer.Option(
            1, "--round", metavar="N", help="Round of the record (the position before its bids)."
        ),
        cache: Optional[Path] = typer.Option(
            None,
            "--cache",
            metavar="FOLDER",
            show_default="$CARDTABLE_CACHE, else the user cache folder",
            help="Table folder.",
            parser=path_value,
        ),
        limit: int = typer.Option(
            2_000_000, "--limit", metavar="N", help="Most matrix games to solve without a table."
        ),
    ) -> None:
        """Print the equilibrium mixed strategy (probability per card) and value of a position."""
        objective = _objective(objective)
        _check_limit(limit)
        _check_cache(cache)
        _check_position_source(ctx, record is not None)
        if record is not None:
            rs, pos, prize_card = _position_from_record(record, game_no, round_no)
            prize_list = [prize_card]
        else:
            rs = _ruleset(cards, ties, high_ace)
            pos, prize_list = _position_from_options(rs, prizes, hand_a, hand_b, prize, pot, diff)
        if objective == "points":
            # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
            from cardtable.solver import Position

            pos = Position(pos.prizes, pos.hands, pos.pot, 0)
        table, source, value = _strategy_table(rs, pos, objective, cache, limit)
        _print_strategy(rs, pos, objective, source, value, table, prize_list)

    @app.command()
    def analyze(
        record: Path = typer.Argument(
            ..., help="A Goofspiel record file (text or JSON notation).", parser=path_value
        ),
        cache: Optional[Path] = typer.Option(
            None,
            "--cache",
            metavar="FOLDER",
            show_default="$CARDTABLE_CACHE, else the user cache folder",
            help="Table folder.",
            parser=path_value,
        ),
        limit: int = typer.Option(
            2_000_000, "--limit", metavar="N", help="Most matrix games to solve without a table."
        ),
        table_only: bool = typer.Option(
            False,
            "--table",
            help="Only the table and the chart; without --table or --words, both the table and the words.",
        ),
        words_only: bool = typer.Option(
            False, "--words", help="Only the coach in words: one sentence per round and player."
        ),
    ) -> None:
        """Walk finished games: bids, equilibrium per round, expected points given up, a chart, and each bid in words."""
        _check_limit(limit)
        _check_cache(cache)
        records, games = _read_records(record)  # before the solver is imported: a bad file is refused at once

        # lazy: the solver and the coach load NumPy and Numba; `cardtable --help` must not
        from cardtable.solver import TableFileError, UnsupportedRuleset
        from cardtable.strategy.coach import analysis, render_analysis

        console = Console(highlight=False)  # the terminal's width (COLUMNS when not a terminal)
        for gi, (rec, game) in enumerate(zip(records, games, strict=True), 1):
            table = _table_or_none(rec.ruleset, "points", cache)
            try:
                with progress_bar(f"analysing game {gi}"):  # elapsed time; gone when done
                    data = analysis(game, rec.players, table, limit, cache)
            except TableFileError as exc:  # a damaged table read on the way (the discard-ties one)
                fail(str(exc), 1)
            except UnsupportedRuleset as exc:
                fail(str(exc))
            render_analysis(
                console,
                data,
                f"game {gi}",
                table=table_only or not words_only,
                words=words_only or not table_only,
            )

    @app.command()
    def exploit(
        bot: str = typer.Argument(
            ...,
            help="The bot: NAME or NAME:key=value,... as in tournaments (random, heuristic, mcts:iterations=50, ...).",
        ),
        cards: int = typer.Option(
            4, "--cards", "-n", metavar="N", help="Cards per suit (history-dependent bots: at most 5)."
        ),
        ties: str = typer.Option("carry", "--ties", metavar="RULE", help="Tie rule: carry or discard."),
        high_ace: bool = typer.Option(False, "--high-ace", help="The ace bids highest and is worth cards+1."),
        samples: int = typer.Option(
            200,
            "--samples",
            metavar="N",
            help="Calls of the bot's act() per decision, for bots without policy().",
        ),
        repeats: int = typer.Option(
            5,
            "--repeats",
            metavar="N",
            help="Searches averaged when the bot's mixes are noisy (sampled act(), or a random policy() "
            "such as MCTS); at least 2 there, for the standard error.",
        ),
        seed: int = typer.Option(0, "--seed", metavar="N", help="The bot's seed."),
    ) -> None:
        """Exact best response to a bot and its exploitability (points per game).

        Bots whose policy depends on the position only (random, matcher, heuristic,
        nash) get the exact backward induction over positions at any size; others
        a sampled search over histories (at most 5 cards) with its standard error.
        """
        # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
        from cardtable.solver import TableFileError, UnsupportedRuleset
        from cardtable.solver.exploit import MAX_CARDS, ImpossibleResult, best_response, is_positional

        rs = _ruleset(cards, ties, high_ace)
        for flag, value in (("--samples", samples), ("--repeats", repeats)):
            if value < 1:
                fail(f"{flag} must be at least 1")
            if value > MAX_SAMPLES:
                fail(f"{flag} must be at most {MAX_SAMPLES:,}, not {value:,}")
        try:
            entry = parse_bot_spec(bot)
            b = load_bot_spec("goofspiel", entry, seed=seed)
        except (UnknownBotError, BotSpecError) as exc:
            fail(str(exc))
        if is_positional(b):
            how = "exact, backward induction over positions"
        else:
            if cards > MAX_CARDS:
                fail(
                    f"--cards {cards}: {entry.label} may use the history, so its best response is a "
                    f"search over histories, at most {MAX_CARDS} cards"
                )
            how = (
                "exact policy(), search over histories"
                if callable(getattr(b, "policy", None))
                else f"sampled: {samples} act() calls per decision, {repeats} searches"
            )
        t0 = time.perf_counter()
        try:
            with progress_bar(f"best response to {entry.label}"):  # elapsed time while it searches
                br = best_response(rs, b, samples, repeats)
        except TableFileError as exc:  # the bot's table (nash) is damaged
            fail(str(exc), 1)
        except ImpossibleResult as exc:  # a policy that is no distribution, a figure out of range
            fail(f"{entry.label}: {exc}", 1)
        except (UnsupportedRuleset, ValueError) as exc:
            fail(str(exc))
        secs = time.perf_counter() - t0
        if br.method == "kernel":
            how = "exact, backward induction over positions, Numba kernel"
        elif br.method == "random kernel":
            how = "exact, backward induction over the lean layout's positions (uniform bids), Numba kernel"
        elif br.method == "heuristic kernel":
            how = "exact, backward induction over the lean layout's patterns and the pot's prize sets, Numba kernel"
        elif br.method == "matcher kernel":
            how = "exact, backward induction over (hand, face-down prizes, pot): matcher bids the prize card"
        elif br.method == "histories":
            how = (
                "search over histories, exact mixes"
                if br.stderr is None
                else f"search over histories, noisy mixes ({samples} act() calls per decision where the bot "
                f"has no policy()), {br.repeats} searches"
            )
        typer.echo(
            f"{rs.describe()}: best response to {entry.label} ({how}), {br.nodes:,} decisions, {secs:.1f} s"
        )
        typer.echo(f"  responder as player 1: {br.values[0]:+.6f} points per game")
        typer.echo(f"  responder as player 2: {br.values[1]:+.6f} points per game")
        se = "" if br.stderr is None else f" +- {br.stderr:.6f} (standard error over {br.repeats} searches)"
        typer.echo(
            f"exploitability of {entry.label}: {_clean(br.exploitability):.6f}{se} points per game "
            "(0 = equilibrium)"
        )


_BACKENDS = ("threads", "ray", "cuda")


def _check_solve_options(
    cards: int,
    ties: str,
    objective: str,
    max_memory: float,
    max_hours: float,
    threads: int,
    backend: str,
    workers: int,
    table_format: Optional[int],
    layers: Optional[int],
) -> int:
    """``cardtable solve``'s option checks, in the order the command makes them (each a
    one-line error, exit 2). Returns the table format (2 unless given)."""
    if threads < 1:
        fail(f"--threads must be at least 1, not {threads}")
    if workers < 1:
        fail(f"--workers must be at least 1, not {workers}")
    for flag, value in (("--max-memory", max_memory), ("--max-hours", max_hours)):
        if not (math.isfinite(value) and value > 0):
            fail(f"{flag} must be a positive finite number, not {value:g}")
    if backend not in _BACKENDS:
        fail(f"unknown backend {backend!r}: choose {', '.join(_BACKENDS)}")
    if backend == "ray" and importlib.util.find_spec("ray") is None:
        fail(
            "--backend ray needs the 'research' extra (missing: ray); "
            "install it with: pip install 'cardtable[research]'"
        )
    if table_format is None:  # every consumer reads either format (docs/solver.md, Table files)
        table_format = 2
    if table_format not in (1, 2):
        fail(f"--format must be 1 or 2, not {table_format}")
    if layers is not None:
        _check_layers_option(cards, ties, objective, table_format, layers)
    if table_format == 1 and backend != "threads":
        fail("--format 1 is solved with --threads only; use --format 2 for --backend ray or cuda")
    return table_format


def _check_layers_option(cards: int, ties: str, objective: str, table_format: int, layers: int) -> None:
    """``--layers K``: carry-over ties, the points objective, a layer below the top one, format 2."""
    if ties != "carry" or objective != "points":
        fail(
            "--layers is for carry-over ties and the points objective (what the nash bot's "
            "exact subgames read)"
        )
    if cards < 2:
        fail("--layers needs at least 2 cards (the low layers lie below the top one)")
    if not 1 <= layers < cards:
        fail(
            f"--layers must be a layer 1..{cards - 1} (positions with at most that many cards "
            f"per hand), not {layers}"
        )
    if table_format != 2:
        fail("--layers writes format 2 (a folder of layers); drop --format 1")


def _table_present(folder: Path, path: Path, asked_format: Optional[int]) -> bool:
    """Whether the table's files are in the cache folder: the format-2 ``folder``'s
    ``table.json`` or the format-1 file ``path``; with ``--format N`` only those of format
    N (so ``--format 2`` builds a format-2 table beside an old format-1 file, which the
    players then stop reading: format 2 wins, docs/solver.md, Table files)."""
    layered = (folder / "table.json").exists()
    if asked_format == 2:
        return layered
    if asked_format == 1:
        return path.exists()
    return layered or path.exists()


def _repair_format(
    folder: Path, path: Path, asked_format: Optional[int], backend: str, table_format: int
) -> int:
    """The format a damaged table is solved again in: the one asked for with ``--format``,
    else the damaged table's own (a format-1 file with no format-2 ``table.json`` beside it
    is repaired in place, in format 1, unless another backend than threads is asked for)."""
    if (
        asked_format is None
        and backend == "threads"
        and path.exists()
        and not (folder / "table.json").exists()
    ):
        return 1
    return table_format


def _kept_low_layers(rs, objective: str, folder: Path, layers: int) -> int:
    """``--layers K`` without ``--force``: K, or the more low layers already stored (said in one line)."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver.layers import stored_low_upto

    kept = stored_low_upto(folder, rs, objective)
    if kept > layers:
        typer.echo(
            f"layers 1..{kept} are already stored: they are kept and verified "
            f"(--layers {layers} asks for fewer)"
        )
        return kept
    return layers


def _already_solved(rs, objective: str, cache: Path, layers: Optional[int]) -> bool:
    """With a table's files present and no ``--force``: True (said, with its value) when the
    table is whole; False, with a warning, when it is damaged and is solved again; a table of
    other rules, or ``--layers`` over a damaged complete table, is refused (exit 1)."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver.table import TableFileError, TableMismatchError

    try:
        table = _table_or_none(rs, objective, cache, damaged_ok=True)
    except TableMismatchError as exc:
        fail(str(exc), 1)
    except TableFileError as exc:  # solve again what is missing or damaged (format 2: those layers)
        if layers is not None:
            fail(
                f"{shown(exc)}: --layers does not repair a complete table; run the same command "
                "without --layers",
                1,
            )
        err_console.print(f"[yellow]warning:[/yellow] {shown(exc)}: solving again what is damaged")
        return False
    assert table is not None  # its files exist
    typer.echo(f"already solved: {table.path} (use --force to solve again)")
    _print_value(table, rs)
    return True


@dataclasses.dataclass(frozen=True)
class SolveAsked:
    """What ``cardtable solve`` was asked for, its options checked: the game (``rs``,
    ``objective``), the table (``table_format``, ``layers``), who solves (``backend``,
    ``threads``, ``workers``), the limits (``max_memory`` GiB, ``max_hours``) and
    ``calibrate`` (None: by the estimate, :data:`CALIBRATE_FROM_HOURS`)."""

    rs: Ruleset
    objective: str
    table_format: int
    layers: Optional[int]
    backend: str
    threads: int
    workers: int
    max_memory: float
    max_hours: float
    calibrate: Optional[bool] = None


def _refuse_before_writing(asked: SolveAsked, cache: Optional[Path]) -> None:
    """A new table's plan checked before the cache folder or the lock file is made, so that
    a refused solve (exit 2) writes nothing. A table already there (to resume, repair or
    report) is planned under the lock, where its state is known."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver.table import FORMAT_LAYERED, default_path

    root = usable_folder(cache, "--cache") if cache is not None else usable_folder(*cache_location())
    folder = default_path(asked.rs, asked.objective, root, FORMAT_LAYERED)
    path = default_path(asked.rs, asked.objective, root)
    if not (folder.exists() or path.exists()):
        _checked_plan(asked, folder, path)


def _checked_plan(asked: SolveAsked, folder: Path, path: Path):
    """The solve's :class:`cardtable.solver.plan.SolvePlan`, or a one-line refusal (exit 2)
    when it is over a limit or the solver does not cover the rules; its time measured on this
    machine where :func:`_machine_factor` says so."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver import UnsupportedRuleset
    from cardtable.solver.plan import SolveRefused, plan_solve

    a = asked
    try:
        return plan_solve(
            a.rs,
            a.objective,
            path if a.table_format == 1 else folder,
            table_format=a.table_format,
            upto=a.layers,
            backend=a.backend,
            cores=a.workers if a.backend == "ray" else a.threads,
            max_memory_gib=a.max_memory,
            max_hours=a.max_hours,
            machine_factor=_machine_factor(a),
        )
    except (SolveRefused, UnsupportedRuleset) as exc:  # nothing started, nothing written
        fail(str(exc))


#: ``cardtable solve`` measures this machine's speed first (``--calibrate``, by default) when
#: the solve is estimated at this many hours or more on the threads asked for.
CALIBRATE_FROM_HOURS = 10 / 60


def _machine_factor(asked: SolveAsked) -> Optional[float]:
    """This machine's speed for the solve (:func:`cardtable.solver.estimate.machine_factor`), or
    None: not asked (``--no-calibrate``), not format 2 on this machine's threads (said on
    standard error when ``--calibrate`` asked for it), a solve over ``--max-memory`` (refused
    whatever its time), (by default) a solve estimated under
    :data:`CALIBRATE_FROM_HOURS`, or a reference solve that could not write its temporary
    folder (said on standard error)."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver import UnsupportedRuleset
    from cardtable.solver.estimate import estimate_solve

    a = asked  # the reference solve is once per command: see _measured_factor
    if a.calibrate is False:
        return None
    if a.table_format != 2 or a.backend != "threads":
        if a.calibrate:
            typer.echo(
                "--calibrate measures this machine's threads for a format-2 solve: not done for "
                f"{'format 1' if a.table_format != 2 else '--backend ' + a.backend}",
                err=True,
            )
        return None
    try:
        needs = estimate_solve(a.rs, a.objective, a.layers)
    except (UnsupportedRuleset, ValueError):  # refused by plan_solve with its own message
        return None
    if needs.memory_bytes > a.max_memory * 2**30:  # refused for its memory: the time is moot
        return None
    if a.calibrate is None and needs.hours(a.threads) < CALIBRATE_FROM_HOURS:
        return None
    return _measured_factor(a.rs.tie_rule, a.objective)


@functools.lru_cache(maxsize=None)
def _measured_factor(ties: TieRule, objective: str) -> Optional[float]:
    """Solve the reference game once per command (``solve`` clears this cache when it starts),
    on one thread: ``hours(threads)`` models the threads (docs/solver.md, Estimates and refusals)."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver.estimate import REFERENCE_CARDS, machine_factor, measure_reference

    typer.echo(
        f"measuring this machine's speed: the {REFERENCE_CARDS[(ties, objective)]}-card reference "
        f"solve ({ties} ties, {objective})",
        err=True,
    )
    try:
        cpu = measure_reference(ties, objective)
    except OSError as exc:  # its temporary folder: the estimate stays the reference machine's
        typer.echo(f"could not measure it ({exc.strerror or exc}); the estimate is not calibrated", err=True)
        return None
    except KeyboardInterrupt:
        fail("interrupted while measuring this machine's speed; nothing was written", 130)
    return machine_factor(ties, objective, cpu)


def _plan_and_solve(asked: SolveAsked, folder: Path, path: Path, force: bool) -> None:
    """Plan the solve (refused in one line when over the limits), then run it and report."""
    a = asked
    plan = _checked_plan(a, folder, path)
    if a.table_format == 1:
        typer.echo(plan.describe())
        _solve_format1(a.rs, a.objective, path, plan.layout, a.threads)
        return
    be = _layer_backend(a.backend, a.threads, a.workers)
    if force:
        _remove_old_records(folder)
    typer.echo(plan.describe())
    _solve_format2(a.rs, a.objective, folder, be, plan.needs.games, a.layers)


#: ``cardtable strategy``'s options that state the position (parameter name, option), and the
#: options that pick it from a record instead.
_POSITION_OPTIONS = (
    ("cards", "-n/--cards"),
    ("ties", "--ties"),
    ("high_ace", "--high-ace"),
    ("prizes", "--prizes"),
    ("hand_a", "--hand-a"),
    ("hand_b", "--hand-b"),
    ("prize", "--prize"),
    ("pot", "--pot"),
    ("diff", "--diff"),
)
_RECORD_OPTIONS = (("game_no", "--game"), ("round_no", "--round"))


def _check_position_source(ctx: typer.Context, from_record: bool) -> None:
    """``cardtable strategy`` takes its position either from the options or from ``--record``:
    an option of the other source given on the command line would be ignored, so it is
    refused in one line (exit 2) rather than silently."""

    # the options of the source not taken; compared by name: Typer has its own copy of
    # Click's ParameterSource
    unused = _POSITION_OPTIONS if from_record else _RECORD_OPTIONS
    given = [f for name, f in unused if getattr(ctx.get_parameter_source(name), "name", "") == "COMMANDLINE"]
    if given and from_record:
        fail(f"--record takes the rules and the position from the record; leave out {', '.join(given)}")
    if given:
        fail(f"{', '.join(given)}: only with --record FILE (the game and round of a record)")


def _position_from_options(
    rs, prizes: str, hand_a: str, hand_b: str, prize: Optional[str], pot: int, diff: int
) -> tuple[Position, list[int]]:
    """``cardtable strategy``'s position from ``--prizes``, ``--hand-a``, ``--hand-b``, ``--pot``,
    ``--diff``, and the prizes to show (``--prize``, else each one left); an impossible one is
    refused in one line (exit 2)."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver import Position
    from cardtable.solver.position import parse_cards

    try:
        pos = Position(
            parse_cards(prizes, rs.cards),
            (parse_cards(hand_a, rs.cards), parse_cards(hand_b, rs.cards)),
            pot,
            diff,
        )
        if not pos.prizes:
            fail(f"impossible position: --prizes {prizes!r} leaves no prize to play for")
        pos.validate(rs)
        prize_list = sorted(pos.prizes) if prize is None else sorted(parse_cards(prize, rs.cards))
    except ValueError as exc:
        fail(f"impossible position: {exc}")
    bad = [p for p in prize_list if p not in pos.prizes]
    if bad or len(prize_list) != (1 if prize is not None else len(pos.prizes)):
        fail(f"impossible position: --prize must be one of the prizes {sorted(pos.prizes)}")
    return pos, prize_list


def _strategy_table(rs, pos: Position, objective: str, cache: Optional[Path], limit: int):
    """``(table, source, value)``: the stored table, else the position's subgame solved now
    (refused past ``--limit`` matrix games), its source in words and the position's value."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver import ImpossiblePosition
    from cardtable.solver.table import count_games, solve_subgame, subgame_layout

    table = _table_or_none(rs, objective, cache)
    source = "table"
    try:
        if table is None:
            layout = subgame_layout(rs, pos, objective)
            if count_games(layout) > limit:
                fail(
                    f"no table for {rs.describe()} ({objective}) and the position needs more than "
                    f"--limit {limit:,} matrix games; run: cardtable solve --cards {rs.cards} --ties {rs.tie_rule}"
                    + (" --objective win" if objective == "win" else "")
                    + (" --high-ace" if rs.high_ace else "")
                    + _needs_text(rs, objective)
                )
            with progress_bar("solving the subgame"):  # elapsed time; gone when done
                table = solve_subgame(rs, pos, objective, layout)
            source = "subgame solved now"
        value = table.value(pos)
    except ImpossiblePosition as exc:
        fail(f"impossible position: {exc}")
    return table, source, value


def _print_strategy(
    rs, pos: Position, objective: str, source: str, value: float, table, prize_list: list[int]
) -> None:
    """The position, its value and one table of both players' mixes per prize turned up."""
    # lazy: the rules load hashlib, json and tomllib (~50 ms); `cardtable --help` needs none of them
    from cardtable.goofspiel import rank_name

    console = Console()
    unit = "points" if objective == "points" else "P(win)-P(loss)"
    console.print(f"{rs.describe()}  objective={objective}  source={source}")
    console.print(
        f"position: prizes {' '.join(map(rank_name, sorted(pos.prizes)))} | "
        f"player 1: {' '.join(map(rank_name, sorted(pos.hands[0])))} | "
        f"player 2: {' '.join(map(rank_name, sorted(pos.hands[1])))} | pot {pos.pot}"
        + (f" | diff {pos.diff:+d}" if objective == "win" else "")
    )
    console.print(f"value before the reveal (player 1): {_clean(value):+.6f} {unit}")
    for p in prize_list:
        st = table.round_strategy(pos, p)
        out = RichTable(title=f"prize {rank_name(p)} turned up: value {_clean(st.value):+.6f} {unit}")
        out.add_column("card")
        out.add_column("player 1", justify="right")
        out.add_column("player 2", justify="right")
        for c in sorted(set(st.a) | set(st.b), key=rs.strength):
            fa = f"{st.a[c]:.4f}" if c in st.a else ""
            fb = f"{st.b[c]:.4f}" if c in st.b else ""
            out.add_row(rank_name(c), fa, fb)
        console.print(out)


def _check_threads(threads: int) -> None:
    """Refuse more threads than this machine has CPUs, before any work (the estimate
    and its refusals may name more: "how long on 64 cores")."""
    if threads > (os.cpu_count() or 1):
        fail(f"--threads {threads}: this machine has {os.cpu_count() or 1} CPUs")


def _check_cache(cache: Optional[Path]) -> None:
    """A ``--cache`` to read tables from must not be a file (a missing folder holds no table)."""
    if cache is not None and cache.exists() and not cache.is_dir():
        fail(f"--cache {cache} is a file, not a folder")


def _check_limit(limit: int) -> None:
    if limit < 0:
        fail(f"--limit must be 0 or more matrix games, not {limit}")


def _print_value(table, rs) -> None:
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver import Position

    full = frozenset(rs.deck)
    typer.echo(f"value of the game for player 1: {_clean(table.value(Position(full, (full, full)))):+.12f}")


def _needs_text(rs, objective: str) -> str:
    """`` (needs ...)`` with the estimate of a whole-game solve, or "" where there is none."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver.estimate import estimate_solve

    try:
        return f" (needs {estimate_solve(rs, objective).describe(1)})"
    except ValueError:  # fixed prize order: solved in memory, no table
        return ""


def _layer_backend(backend: str, threads: int, workers: int):
    """The ``LayerBackend`` of ``--backend``, made before anything is written or deleted
    (no GPU: one error line, and ``--force`` has not removed the old table yet)."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver.layers import LayerBackend

    if backend == "ray":
        # lazy: Ray is an optional extra (research)
        from cardtable.solver.ray_backend import RayBackend

        be: LayerBackend = RayBackend(workers=workers, threads=threads)
    elif backend == "cuda":
        # lazy: the CUDA backend needs a GPU driver only when asked for
        from cardtable.solver.cuda_backend import CudaBackend, CudaUnavailable

        try:
            be = CudaBackend()
        except CudaUnavailable as exc:
            fail(str(exc))
    else:
        be = LayerBackend(threads=threads)
    return be


def _remove_old_records(folder: Path) -> None:
    """``--force``: delete the records of a finished table (``table.json``,
    ``low-layers.json``, ``layer-*.json``) so that every layer is solved again; refused in
    one line, before anything is deleted, when one of them (or the folder) is of the
    wrong kind."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        fail(f"cannot write the table in {folder}: it is not a folder; remove it", 1)
    if not folder.exists():
        return
    old = sorted(folder.glob("layer-*.json")) + [folder / "table.json", folder / "low-layers.json"]
    bad = [p for p in old if p.is_dir() and not p.is_symlink()]
    if bad:
        fail(f"cannot write the table in {folder}: {bad[0]} is a folder, not a table record; remove it", 1)
    try:
        for p in old:
            p.unlink(missing_ok=True)
    except OSError as exc:
        fail(f"cannot write the table in {folder}: {exc.strerror or exc}", 1)


def _table_lock(folder: Path, path: Path):
    """Hold the lock file ``.NAME.lock`` beside a table (held, not waited for: a second
    ``cardtable solve`` of the same rules and objective into the same table stops with one
    line instead of writing the same layers, or deleting them with ``--force``, while the
    first runs). ``folder``, ``path``: the table's format-2 folder and format-1 file in the
    cache folder; both formats share the lock, which sits where the existing one of them
    really is (symbolic links resolved, so two cache folders that link to one table share
    it). The OS releases it if the process dies. Returns a context manager that releases it."""
    # lazy: filelock loads logging and hashlib (~30 ms); only `cardtable solve` locks
    from filelock import FileLock, Timeout

    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver.catalog import table_lock

    lock_path = table_lock(folder, path)
    where = lock_path.parent
    lock = FileLock(str(lock_path))
    try:
        return lock.acquire(timeout=0)
    except Timeout:
        fail(
            f"another `cardtable solve` is writing this table in {where} (it holds {lock.lock_file}); "
            "wait for it to finish, or stop it (it resumes from its finished layers)",
            1,
        )
    except OSError as exc:
        fail(f"cannot lock the table in {where}: {exc.strerror or exc}", 1)


def _check_before_low_layers(rs, objective: str, folder: Path, path: Path, force: bool, upto: int) -> None:
    """``--layers``: refuse, in one line and before anything is written, to replace a
    complete table by its low layers (``--force``; a damaged complete table is refused by
    the caller) or to overwrite another game's low layers found under this game's name;
    damaged low layers are solved again (with a warning)."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver.layers import LOW_MANIFEST, open_layered
    from cardtable.solver.table import TableFileError, TableMismatchError, check_table_matches

    if (folder / "table.json").exists() or path.exists():
        if force:
            fail(
                f"a complete table is in the cache folder ({folder if (folder / 'table.json').exists() else path}); "
                f"--force --layers {upto} would replace it by its layers 1..{upto}: drop --layers to solve "
                "the whole table again, or delete it first",
                1,
            )
        return  # the caller reports it as already solved, or refuses it if damaged
    manifest = folder / LOW_MANIFEST
    if force or not (manifest.exists() or manifest.is_symlink()):
        return
    try:
        check_table_matches(open_layered(folder, low=True), rs, objective)
    except TableMismatchError as exc:
        fail(str(exc), 1)
    except TableFileError as exc:
        err_console.print(f"[yellow]warning:[/yellow] {shown(exc)}: solving again what is damaged")


def _solve_format2(rs, objective: str, folder: Path, be, games: int, upto: Optional[int] = None) -> None:
    """Solve into a layered table folder (resuming finished layers) with the layer
    backend ``be`` and report (``upto``: only the low layers ``1..upto``)."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver import SolverError
    from cardtable.solver.estimate import size_text
    from cardtable.solver.layers import folder_layout, open_layered, solve_layered
    from cardtable.solver.lean import reachable_games

    # the layout the folder holds, else compact (carry-over; the CUDA kernel writes the full one)
    lay = folder_layout(folder, rs, objective, False if be.name == "cuda" else None)
    per_layer: dict[int, int] = {}  # the games of each layer that the solve plays (as the total)
    with progress_bar("solving (matrix games)", total=games) as advance:

        def progress(k: int, done: int, npat: int, before: int) -> None:
            if k not in per_layer:
                per_layer[k] = reachable_games(lay, k)[1]
            advance(completed=before + per_layer[k] * done // max(1, npat))

        try:
            manifest = solve_layered(rs, objective, folder, be, progress, lay, upto)
        except SolverError as exc:
            fail(f"solver check failed: {exc}", 1)
        except ValueError as exc:  # a backend that cannot take this folder (CUDA: the compact layout)
            fail(str(exc))
        except OSError as exc:  # read-only folder, a folder where a layer file belongs, disk full
            fail(f"cannot write the table in {folder}: {exc}", 1)
        except KeyboardInterrupt:
            fail(
                f"interrupted: the finished layers are kept in {folder}; run the same command to resume", 130
            )
    st = manifest["stats"]
    table = open_layered(folder, low=upto is not None)
    size = sum(p.stat().st_size for p in folder.iterdir())
    if upto is not None:
        upto = manifest["upto"]  # more, if the stored ones changed meanwhile: never shrunk
        low = sum((folder / f"layer-{k:02d}.f32").stat().st_size for k in range(1, upto + 1))
        again = f", resumed layers {st['resumed_layers']}" if st["resumed_layers"] else ""
        typer.echo(
            f"solved layers 1..{upto}: {st['positions']:,} positions, {st['games']:,} matrix games in "
            f"{st['seconds']:.2f} s (largest guarantee gap {st['max_gap']:.1e}{again})"
        )
        typer.echo(
            f"low layers: {folder} ({size_text(low)}, float32); the nash bot's exact subgames "
            "read them (docs/solver.md, Low layers); the same command without --layers "
            "finishes the table"
        )
        table.close()
        return
    resumed = f", resumed layers {st['resumed_layers']}" if st["resumed_layers"] else ""
    typer.echo(
        f"solved {st['positions']:,} positions, {st['games']:,} matrix games in "
        f"{st['seconds']:.2f} s (largest guarantee gap {st['max_gap']:.1e}{resumed})"
    )
    typer.echo(
        f"table: {folder} ({size_text(size)}, float32; values within "
        f"{manifest['float32_bound']:.1e} of the exact ones)"
    )
    _print_value(table, rs)


def _solve_format1(rs, objective: str, path: Path, layout, threads: int) -> None:
    """The single-file float64 table (format 1, dense pots) of the full-game ``layout``
    (checked by ``plan_solve``). Its values live in memory until the file is written:
    Ctrl-C says what was lost and how to solve resumably instead (exit 130)."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver import SolverError, open_table, write_table
    from cardtable.solver.estimate import size_text
    from cardtable.solver.layout import count_games, run_backward_induction
    from cardtable.solver.table import Table

    games = count_games(layout)
    done = [0]
    t0 = time.perf_counter()
    with progress_bar("solving (matrix games)", total=games) as advance:

        def progress(k: int, solved: int, total: int) -> None:
            done[0] = solved
            advance(completed=solved)

        try:
            values, stats = run_backward_induction(layout, progress, threads=threads)
            table = Table(rs, objective, layout, values, tuple(rs.deck), stats)
            write_table(table, path)  # a temporary file renamed: removed if interrupted
        except SolverError as exc:
            fail(f"solver check failed: {exc}", 1)
        except OSError as exc:
            fail(f"cannot write the table {path}: {exc.strerror or exc}", 1)
        except KeyboardInterrupt:
            fail(_format1_interrupted(rs, objective, done[0], games, time.perf_counter() - t0), 130)
    table = open_table(path)
    typer.echo(
        f"solved {stats['positions']:,} positions, {stats['games']:,} matrix games in "
        f"{stats['seconds']:.2f} s (largest guarantee gap {stats['max_gap']:.1e})"
    )
    typer.echo(f"table: {path} ({size_text(path.stat().st_size)})")
    _print_value(table, rs)


def _format1_interrupted(rs, objective: str, done: int, games: int, seconds: float) -> str:
    """What a Ctrl-C during a format-1 solve lost, and the two ways to go on."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver.layers import repair_command

    cmd = repair_command(rs, objective)  # the format-2 command of this game
    if " --format 2" not in cmd:
        cmd += " --format 2"
    share = f" ({100 * done / games:.0f}%)" if games else ""
    return (
        f"interrupted after {done:,} of {games:,} matrix games{share}, {seconds:.0f} s of work: "
        "format 1 holds every value in memory until the table is written, so this work is lost "
        "and no file was written. The same command starts again from the beginning; "
        f"`{cmd}` solves in layers that are kept when it is interrupted, and the same command "
        "resumes it (docs/solver.md, Table files)"
    )


def _read_records(path: Path):
    """The games of a Goofspiel record file and their replays, checked exactly as
    ``cardtable replay`` checks them (one path: :func:`~cardtable.goofspiel.record.replay_match`,
    the match tags too); an inconsistent record is refused as ``replay`` refuses it
    (``✗ PATH: reason``, exit 1)."""
    # lazy: records load Pydantic (~0.3 s); `cardtable --help` needs none of it
    from cardtable.goofspiel.record import RecordError, load_records, replay_match

    text = read_record_file(path)
    if record_game(text) == "golf":
        fail(f"{path} is a Golf record: the equilibrium analysis is for Goofspiel records")
    try:
        records = load_records(text)
        games, _ = replay_match(records)
    except RecordError as exc:
        reject_record(path, exc)
    return records, games


def _position_from_record(path: Path, game_no: int, round_no: int):
    """(ruleset, position before round ``round_no``'s bids, prize turned up)."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.goofspiel import Game
    from cardtable.solver import UnsupportedRuleset, check_supported
    from cardtable.solver.position import position_from_view

    records, games = _read_records(path)
    if not 1 <= game_no <= len(records):
        fail(f"--game {game_no}: the file holds {len(records)} game(s)")
    rec, game = records[game_no - 1], games[game_no - 1]

    try:
        check_supported(rec.ruleset)
    except UnsupportedRuleset as exc:
        fail(str(exc))
    if not game.history:
        fail(f"{path}: game {game_no} has no rounds played")
    if not 1 <= round_no <= len(game.history):
        fail(f"--round {round_no}: the game has rounds 1..{len(game.history)}")
    g = Game(rec.ruleset, prize_deck=game.initial_deck)
    for r in game.history[: round_no - 1]:
        g.play(list(r.bids))
    pos, prize = position_from_view(g.view(0))
    return rec.ruleset, pos, prize
