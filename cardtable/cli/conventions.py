"""One look for the help of every ``cardtable`` command.

Typer renders every parameter with a type tag (``<bool>``, ``<str>``) and shows a
required argument as ``{file}`` in the usage line. The conventions here, applied
to every command by :func:`apply` (called once in :mod:`cardtable.cli`), follow
git, pip and uv:

- a flag (an option that takes no value: ``--hotseat``, ``--help``) shows no
  type, so it does not look like it takes one;
- an argument is named in capitals everywhere (``Usage: cardtable replay
  [OPTIONS] FILE``), optional ones in brackets, repeatable ones with ``...``;
- every default is shown one way, ``[default: X]``: a default that is computed
  at run time is declared with ``show_default="text"`` and shown as is (Typer
  would wrap it in parentheses);
- ``-n`` always means the number of cards per suit (``--cards``); games are
  ``--games``.

``tests/cli/test_help.py`` checks these rules on every command, so a new option
that breaks them fails a test.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption


def _tidy(param: Any) -> Any:
    """Apply the conventions to one parameter (idempotent); returns it."""
    if isinstance(param, TyperOption):
        if param.is_flag and param.metavar is None:
            param.metavar = ""  # Typer shows the metavar instead of <bool>: nothing
        if isinstance(param.show_default, str) and not getattr(param, "_cardtable_default", False):
            text = param.show_default
            # Click's and Typer's display hooks are replaced on this one instance, which
            # their classes do not declare as assignable: hence the untyped view
            option: Any = param
            option._cardtable_default = True
            option._get_default_string = lambda *args, **kwargs: text
    elif isinstance(param, TyperArgument) and param.metavar is None:
        name = (param.name or "").upper()
        many = "..." if param.nargs != 1 else ""
        param.metavar = name + many
        argument: Any = param  # display hooks replaced on this instance, as above
        argument._rich_display_name = lambda: name + many
        argument._usage_display_name = lambda: (name if param.required else f"[{name}]") + many
        argument.display_type_rich = lambda ctx: None  # the name says it (FILE, BOT)
    return param


class CardtableCommand(TyperCommand):
    """A Typer command whose parameters follow the conventions of this module."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _tidy(param)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        return _tidy(option) if option is not None else None


class CardtableGroup(TyperGroup):
    """The ``cardtable`` command itself: its own options follow the same conventions."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _tidy(param)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        return _tidy(option) if option is not None else None


def apply(app: typer.Typer) -> None:
    """Make every command registered on ``app`` a :class:`CardtableCommand`."""
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = CardtableCommand
