"""The ``cardtable`` command line (Typer).

Each module of :data:`COMMAND_MODULES` exposes ``register(app)`` and registers its
command or commands (``solve.py``: ``solve``, ``strategy``, ``analyze`` and ``exploit``);
``build.py``, ``common.py``, ``conventions.py`` and ``progress.py`` are shared helpers. Modules import heavy libraries (NumPy, Numba, FastAPI)
inside the command functions, so ``cardtable --help`` and ``cardtable play``
start quickly.
"""

from __future__ import annotations

import importlib

import typer

from cardtable import __version__

from .conventions import CardtableGroup, apply

#: Command modules, in the order their commands appear in ``--help``.
COMMAND_MODULES = [
    "play",
    "replay",
    "serve",
    "verify",
    "tournament",
    "bot_check",
    "bots",
    "solve",
    "tables",
]

app = typer.Typer(
    name="cardtable",
    help="Goofspiel (GOPS) and Golf with Detective and Thief: play, solve, analyse.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    cls=CardtableGroup,
    epilog="Exit codes: 0 done; 1 a check failed (record, bot, table); 2 bad command line or "
    "input; 3 game abandoned (quit, Ctrl-D, Ctrl-C); 130 interrupted (Ctrl-C). README.md, Exit codes.",
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"cardtable {__version__}")
        raise typer.Exit()


@app.callback()
def _cardtable(
    version: bool = typer.Option(
        False,
        "--version",
        "-V",
        callback=_show_version,
        is_eager=True,
        help="Print the version of cardtable and exit.",
    ),
) -> None:
    """Goofspiel (GOPS) and Golf with Detective and Thief: play, solve, analyse."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"{__name__}.{_name}").register(app)
apply(app)


def main() -> None:
    """Entry point of the ``cardtable`` console script."""
    app()
