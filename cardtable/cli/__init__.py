"""The ``cardtable`` command line (Typer).

Each command lives in its own module of this package and exposes
``register(app)``. Modules import heavy libraries (NumPy, Numba, FastAPI)
inside the command functions, so ``cardtable --help`` and ``cardtable play``
start quickly.
"""

from __future__ import annotations

import importlib

import typer

#: Command modules, in the order their commands appear in ``--help``.
COMMAND_MODULES = [
    "play",
    "replay",
    "serve",
    "verify",
    "tournament",
    "bot_check",
    "solve",
]

app = typer.Typer(
    name="cardtable",
    help="Goofspiel (GOPS) and Golf with Detective and Thief: play, solve, analyse.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

for _name in COMMAND_MODULES:
    importlib.import_module(f"{__name__}.{_name}").register(app)


def main() -> None:
    """Entry point of the ``cardtable`` console script."""
    app()
