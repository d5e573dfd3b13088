"""``cardtable bots [GAME]``: the built-in bots and the options each one takes."""

from __future__ import annotations

from typing import Optional

import typer

from cardtable.platform.bot import bot_class, bot_names

from .common import fail

GAMES = ("goofspiel", "golf")


def _default(value) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:,}" if isinstance(value, int) else str(value)


def bots_text(game: str) -> str:
    """The listing of ``game``'s built-in bots: name and description, then one line per
    option (name, accepted values with unit, default, what it does)."""
    lines = [f"{game} bots (options: NAME:key=value,...; docs/bots.md)"]
    for name in bot_names(game):
        cls = bot_class(game, name)
        lines.append(f"  {name}: {cls.description}")
        schema = cls.option_schema or {}
        if not schema:
            lines.append("      no options")
        width = max((len(k) for k in schema), default=0)
        for key, opt in schema.items():
            lines.append(
                f"      {key:<{width}}  {opt.range_text()}, default {_default(opt.default)}: {opt.help}"
            )
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    @app.command()
    def bots(
        game: Optional[str] = typer.Argument(None, show_default="both", help="The game: goofspiel or golf."),
    ) -> None:
        """List the built-in bots and every option they take, with its accepted values.

        A value outside an option's range is refused everywhere a bot is named
        (play --vs, exploit, tournament, the library's load_bot) with exit code 2.
        """
        if game is not None and game.strip().lower() not in GAMES:
            fail(f"unknown game {game!r}; choose one of: {', '.join(GAMES)}")
        chosen = [game.strip().lower()] if game is not None else list(GAMES)
        typer.echo("\n\n".join(bots_text(g) for g in chosen))
