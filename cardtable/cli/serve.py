"""``cardtable serve``: the web app (lobby, games, bots) on one port, with SQLite."""

from __future__ import annotations

import errno
import signal
import socket
import threading
import time
from pathlib import Path

import typer

from cardtable.platform.storage import FolderError, cache_dir, home

from .common import fail, path_value, writable_folder


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        host: str = typer.Option(
            "127.0.0.1", "--host", metavar="ADDRESS", help="Address to listen on (0.0.0.0: every interface)."
        ),
        port: int = typer.Option(
            8000, "--port", min=0, max=65535, metavar="PORT", help="TCP port (0: any free port)."
        ),
        db: Path = typer.Option(
            None,
            "--db",
            metavar="FILE",
            show_default="$CARDTABLE_HOME/web.sqlite3",
            help="SQLite database file.",
            parser=path_value,
        ),
        durable: bool = typer.Option(
            False,
            "--durable",
            help="Fsync every action (survives a power loss, slower); "
            "without it every action still survives a killed server process.",
        ),
        log_level: str = typer.Option(
            "warning",
            "--log-level",
            metavar="LEVEL",
            help="Uvicorn log level: critical, error, warning, info (shows each request), debug or trace.",
        ),
        limit: list[str] = typer.Option(
            None,
            "--limit",
            metavar="NAME=VALUE",
            help="Change one server limit (repeatable; docs/web.md, Limits), e.g. --limit claim_ttl=60.",
        ),
        build_table: bool = typer.Option(
            False,
            "--build-table",
            help="Build the standard game's solved tables (13 cards, carry-over and discard ties) in the "
            "background at the lowest priority while the server runs (stopped with it; the next "
            "--build-table resumes; docs/solver.md, Background builds).",
        ),
    ) -> None:
        """Play in the browser: create games, invite players by link, play against bots.

        One process serves the lobby, the play pages and the WebSocket protocol;
        games live in an embedded SQLite database and resume after a restart
        (docs/web.md).
        """
        # lazy: the web server loads FastAPI and Uvicorn; `cardtable --help` must not
        import uvicorn

        from cardtable.web.app import create_app, server_options
        from cardtable.web.limits import Limits
        from cardtable.web.storage import StorageError

        levels = ("critical", "error", "warning", "info", "debug", "trace")
        if log_level not in levels:
            fail(f"--log-level must be one of {', '.join(levels)}, not {log_level!r}")
        try:
            limits = Limits().with_overrides(limit or [])
        except ValueError as exc:
            fail(str(exc))

        if db is not None:
            writable_folder(db.parent, f"--db {db}: the folder")
            path = db
        else:
            path = writable_folder(None, "", home) / "web.sqlite3"
        listener = _listen(host, port)  # before the database is created and the banner printed
        port = listener.getsockname()[1]
        try:
            web_app = create_app(path, synchronous="FULL" if durable else "NORMAL", limits=limits)
        except StorageError as exc:
            listener.close()
            fail(str(exc))
        typer.echo(f"cardtable: http://{host}:{port}/  (database {path})", err=True)
        config = uvicorn.Config(
            web_app,
            log_level=log_level,
            access_log=log_level in ("info", "debug", "trace"),
            **server_options(limits),
        )
        _prepare_solver()
        build = _start_build(listener) if build_table else None
        if build is not None:  # uvicorn re-raises SIGTERM after its shutdown: end through `finally`
            signal.signal(signal.SIGTERM, _exit_on_signal)
        try:
            uvicorn.Server(config).run(sockets=[listener])
        finally:  # the build never outlives the server (SIGTERM and Ctrl-C included)
            if build is not None:
                typer.echo(build.stop(), err=True)


def _prepare_solver() -> threading.Thread:
    """Compile (or load from Numba's cache) the solver's kernels for the standard game, both
    tie rules (:func:`cardtable.solver.warm.warm_kernels`), in a background thread started
    with the server, and say on standard error (as the banner) when they are ready: a room
    bot has a deadline with a random fallback (docs/web.md, Bots), so after a fresh install
    its first moves must not wait for the one-time compilation (docs/play.md, Speed).

    The thread is a daemon: Numba's compilation cannot be interrupted, and a server stopped
    meanwhile must not wait for it; it touches no room and no bot."""

    def work() -> None:
        # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
        from cardtable.solver.warm import warm_kernels

        from .build import STANDARD

        start = time.perf_counter()
        try:
            for ruleset in reversed(STANDARD):  # carry-over last: its table stays the one kept verified
                warm_kernels(ruleset)
        except (ValueError, OSError) as exc:  # a damaged table: the server runs on, its bots say so
            typer.echo(f"cardtable: preparing the solver failed: {exc}", err=True)
            return
        typer.echo(f"cardtable: solver prepared in {time.perf_counter() - start:.1f} s", err=True)

    worker = threading.Thread(target=work, name="prepare-solver", daemon=True)
    worker.start()
    return worker


def _exit_on_signal(signum: int, frame: object) -> None:
    """SIGTERM with a background build: exit (code 128 + the signal) through the ``finally``
    that stops the build and says so, instead of dying at once."""
    raise SystemExit(128 + signum)


def _start_build(listener: socket.socket):
    """``--build-table``: plan the standard game's tables, say so in one line (standard
    error, as the banner) and start the build; None when nothing is to be built."""
    # lazy: the build plans load the solver (NumPy, Numba); `cardtable --help` must not
    from .build import STANDARD, BackgroundBuild, plan_build

    try:
        cache = cache_dir()
    except FolderError as exc:
        listener.close()
        fail(f"--build-table: {exc}")
    plan = plan_build(STANDARD, cache)
    typer.echo(plan.describe(), err=True)
    if not plan.steps:
        return None
    build = BackgroundBuild(plan, cache, "cardtable serve")
    try:
        build.start()
    except OSError as exc:
        listener.close()
        fail(f"--build-table: {exc}", 1)
    return build


def _listen(host: str, port: int):
    """A listening socket on ``host:port`` (port 0: any free port).

    Raises:
        typer.Exit: (code 2) the address is in use or cannot be used, with one line saying so.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        fail(f"--host {host}: not an address of this machine ({exc.strerror})")
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            fail(f"port {port} on {host} is in use (another server?); choose another with --port")
        fail(f"cannot listen on {host}:{port}: {exc.strerror}")
    sock.set_inheritable(True)
    return sock
