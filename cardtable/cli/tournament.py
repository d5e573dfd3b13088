"""``cardtable tournament``: round-robin between built-in and protocol bots (duplicate format)."""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from cardtable.platform.files import NotRegularFileError, check_regular_or_missing, read_regular_bytes
from cardtable.platform.storage import home

from .common import fail, path_value, shown, usable_folder, writable_folder
from .progress import progress_bar

if TYPE_CHECKING:  # the tournament module (SQLite) is imported by the command, not at start-up
    from cardtable.platform.tournament import TournamentConfig

#: The largest tournament configuration file read, in bytes (a real one is a few hundred).
CONFIG_MAX_BYTES = 1 << 20


def _load_config_file(path: Path) -> dict:
    try:
        data = tomllib.loads(
            read_regular_bytes(path, CONFIG_MAX_BYTES).decode("utf-8").removeprefix("\ufeff")
        )
    except OSError as exc:  # also a FIFO, device or socket (refused at once) and an oversized file
        fail(f"config {path}: cannot be read: {exc.strerror}")
    except UnicodeDecodeError:
        fail(f"config {path}: not UTF-8 text")
    except tomllib.TOMLDecodeError as exc:
        fail(f"config {path}: not valid TOML: {exc}")
    except RecursionError:
        fail(f"config {path}: not valid TOML: nested too deeply")
    except ValueError as exc:  # tomllib's int(): a number of more than 4,300 digits
        fail(f"config {path}: not a usable TOML value: {str(exc)[:80]}")
    known = {"bots", "ruleset", "games", "seed", "time_ms", "game"}
    unknown = sorted(set(data) - known)
    if unknown:
        fail(f"config {path}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    if "bots" in data and not (
        isinstance(data["bots"], list) and all(isinstance(b, str) for b in data["bots"])
    ):
        fail(f"config {path}: bots must be a list of bot specifications (strings)")
    return data


def register(app: typer.Typer) -> None:
    @app.command()
    def tournament(
        bots: Optional[List[str]] = typer.Argument(
            None,
            help="The bots: NAME or NAME:key=value,... (built-in), LABEL=SPEC to name one, 'LABEL=cmd:COMMAND' for a protocol program.",
        ),
        config: Optional[Path] = typer.Option(
            None,
            "--config",
            metavar="FILE",
            help="A TOML file: bots = [...], ruleset, games, seed, time_ms (options given here win).",
            parser=path_value,
        ),
        ruleset: Optional[str] = typer.Option(
            None,
            "--rules",
            "--ruleset",
            "-r",
            metavar="RULES",
            show_default="standard",
            help="A 2-player ruleset: a preset or 'cards=9 ties=discard'.",
        ),
        games: Optional[int] = typer.Option(
            None,
            "--games",
            metavar="N",
            show_default="10",
            help="Games per pairing, even: each deal is played in both seatings.",
        ),
        seed: Optional[int] = typer.Option(
            None, "--seed", metavar="N", show_default="0", help="Seed of the deals and the bots."
        ),
        time_ms: Optional[int] = typer.Option(
            None,
            "--time-ms",
            metavar="MS",
            show_default="1000",
            help="Time per decision for protocol bots, milliseconds.",
        ),
        workers: int = typer.Option(2, "--workers", "-j", metavar="N", help="Parallel worker processes."),
        backend: str = typer.Option(
            "process",
            "--backend",
            metavar="BACKEND",
            help="Where games run: process (worker processes), serial (this process) or ray (needs the research extra).",
        ),
        ray_address: Optional[str] = typer.Option(
            None,
            "--ray-address",
            metavar="ADDRESS",
            show_default="a local Ray instance",
            help="Ray cluster address.",
        ),
        db: Optional[Path] = typer.Option(
            None,
            "--db",
            metavar="FILE",
            show_default="one per configuration under $CARDTABLE_HOME/tournaments",
            help="SQLite results file; run again to resume.",
            parser=path_value,
        ),
        report: Optional[Path] = typer.Option(
            None,
            "--report",
            metavar="FOLDER",
            help="Write standings.md and standings.png into this folder.",
            parser=path_value,
        ),
    ) -> None:
        """Play a round-robin tournament and print the standings; interrupted runs resume.

        The standings give each bot's mean point difference with its 95% CI, wins, draws and
        losses, and OpenSkill ratings.
        """
        # lazy: the tournament module loads SQLite (~40 ms); `cardtable --help` needs none of it
        from cardtable.platform import tournament as T

        cfg = _tournament_config(bots, config, ruleset, games, seed, time_ms, workers, backend)
        if report is not None:  # checked first: a refused --report writes nothing
            _check_report_folder(report)
        db = _results_file(cfg, db)
        console = Console()
        console.print(f"results: {shown(db)}")
        try:
            with progress_bar("games", total=len(T.schedule(cfg))) as advance:  # count and ETA shown

                def progress(done: int, total: int) -> None:
                    advance(total=total, completed=done)

                played = T.run(
                    cfg,
                    db,
                    workers=workers,
                    backend=backend,
                    ray_address=ray_address,
                    progress=progress,
                    check=False,
                )
        except T.TournamentError as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            console.print(
                "[yellow]interrupted[/]: finished games are saved; run the same command again to resume"
            )
            raise typer.Exit(130) from None
        st = T.standings(cfg, db)
        console.print(f"played {played} new game(s)")
        if st.games > played:
            console.print(_reuse_note(st.games - played, T.runs(cfg, db)[:-1] if played else T.runs(cfg, db)))
        _print_standings(console, st)
        if report is not None:
            paths = T.write_report(st, report, title=f"Tournament ({cfg.ruleset})")
            console.print("report: " + ", ".join(str(p) for p in paths))


def _tournament_config(
    bots,
    config: Optional[Path],
    ruleset: Optional[str],
    games: Optional[int],
    seed: Optional[int],
    time_ms: Optional[int],
    workers: int,
    backend: str,
) -> TournamentConfig:
    """The tournament of the command line over ``--config``'s file, checked before anything is
    started or written (one line; exit 1 for a bot's damaged table, else 2)."""
    # lazy: the tournament module loads SQLite (~40 ms); `cardtable --help` needs none of it
    from cardtable.platform import tournament as T

    backends = ("process", "serial", "ray")
    if backend not in backends:  # before anything is started or written
        fail(f"--backend must be one of {', '.join(backends)}, not {backend!r}")
    if workers < 1:
        fail(f"--workers must be at least 1, not {workers}")
    data = _load_config_file(config) if config else {}
    specs = list(bots or []) or data.get("bots", [])
    for key, value in (("ruleset", ruleset), ("games", games), ("seed", seed), ("time_ms", time_ms)):
        if value is not None:
            data[key] = value
    try:
        cfg = T.TournamentConfig(
            bots=tuple(T.parse_bot_spec(s) for s in specs),
            ruleset=data.get("ruleset", "standard"),
            games=data.get("games", 10),
            seed=data.get("seed", 0),
            game=data.get("game", "goofspiel"),
            time_ms=data.get("time_ms", 1000),
        )
        T.validate(cfg)
        T.check_backend(backend)
    except T.TournamentError as exc:  # a bot's damaged table is a failed check (exit 1)
        # lazy: the solver loads NumPy and Numba; only this error needs its table error class
        from cardtable.solver.table import TableFileError

        fail(str(exc), 1 if isinstance(exc.__cause__, TableFileError) else 2)
    return cfg


def _results_file(cfg: TournamentConfig, db: Optional[Path]) -> Path:
    """``--db``, its folder checked, or the configuration's own file under the tournaments folder."""
    if db is None:
        digest = hashlib.sha256(cfg.key().encode()).hexdigest()[:12]
        return (
            writable_folder(writable_folder(None, "", home) / "tournaments", "the tournaments folder")
            / f"{digest}.sqlite"
        )
    writable_folder(db.parent, f"--db {db}: the folder")
    return db


def _check_report_folder(report: Path) -> None:
    """``--report``: a usable folder where both report files can be written, before any game is
    played; checked without creating it (the report makes it)."""
    usable_folder(report, "--report")
    for name in ("standings.md", "standings.png"):  # before any game is played
        try:
            check_regular_or_missing(report / name)
        except NotRegularFileError as exc:
            fail(f"--report: {exc}; the report cannot be written there")


def _reuse_note(reused: int, earlier) -> str:
    """The line saying that ``reused`` stored games were not replayed, and which backends
    played them (``earlier``: the database's earlier runs, ``RunRecord``s)."""
    ways = list(dict.fromkeys(r.describe() for r in earlier))
    unrecorded = reused - sum(r.played for r in earlier)
    if unrecorded > 0:
        ways.append("an unrecorded backend")
    return (
        f"reused {reused} game(s) stored in this file by an earlier run ({', '.join(ways)}), not "
        "replayed: a game does not depend on the backend. To play them again (say, to compare "
        "backends), use another --db."
    )


def _print_standings(console, st) -> None:
    # lazy: the tournament module loads SQLite (~40 ms); `cardtable --help` needs none of it
    from cardtable.platform.tournament import MIN_CI_DEALS, _fmt, ci_text

    def label_column(table, title: str, labels) -> None:  # whole labels: folded, never cut
        table.add_column(
            title, justify="left", overflow="fold", min_width=min(40, max(map(len, labels), default=4))
        )

    table = Table(
        title=f"Standings ({st.games} of {st.total} games)",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
        collapse_padding=True,
    )
    label_column(table, "bot", [line.label for line in st.bots])
    for col in ("games", "W", "D", "L", "forfeits", "mean diff", "95% CI", "rating"):
        table.add_column(col, justify="right")
    for line in st.bots:
        table.add_row(
            shown(line.label),
            str(line.games),
            str(line.wins),
            str(line.draws),
            str(line.losses),
            str(line.forfeits),
            _fmt(line.mean_diff),
            ci_text(line),
            _fmt(line.rating),
        )
    console.print(table)
    pairs = Table(
        title="Pairings (first bot's view)",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
        collapse_padding=True,
    )
    label_column(pairs, "pairing", [line.label for line in st.pairings])
    for col in ("games", "W", "D", "L", "mean diff", "95% CI"):
        pairs.add_column(col, justify="right")
    for line in st.pairings:
        pairs.add_row(
            shown(line.label),
            str(line.games),
            str(line.wins),
            str(line.draws),
            str(line.losses),
            _fmt(line.mean_diff),
            ci_text(line),
        )
    console.print(pairs)
    if any(ci_text(line).startswith("too few") for line in [*st.bots, *st.pairings]):
        console.print(
            f"95% intervals need at least {MIN_CI_DEALS} deals ({2 * MIN_CI_DEALS} games) behind a "
            "mean; play more games (--games) for them."
        )
    for who, kind, detail in st.forfeits[:10]:
        console.print(f"[red]forfeit[/] {shown(who)}: {shown(kind)}: {shown(detail)}")
