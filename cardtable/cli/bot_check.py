"""``cardtable bot-check CMD``: run a program through the bot protocol and report every violation."""

from __future__ import annotations

import importlib
from typing import Any, List, Optional

import typer
from rich.console import Console
from rich.table import Table

from cardtable.platform.bot import BotSpecError, parse_bot_spec
from cardtable.platform.protocol import MAX_TIME_MS

from .common import fail, shown

#: Most games per ruleset a check plays (a bound, so that a typo cannot run for ever).
MAX_CHECK_GAMES = 10_000


def register(app: typer.Typer) -> None:
    @app.command("bot-check")
    def bot_check(
        command: str = typer.Argument(
            ...,
            help='The bot\'s command line, quoted: "python mybot.py" (or, as in tournaments, "cmd:python mybot.py").',
        ),
        game: str = typer.Option("goofspiel", "--game", metavar="GAME", help="The game the bot plays."),
        ruleset: Optional[List[str]] = typer.Option(
            None,
            "--rules",
            "--ruleset",
            "-r",
            metavar="RULES",
            show_default="one of each variant",
            help="A ruleset to test: a preset or 'cards=9 ties=discard'; repeat for several.",
        ),
        games: int = typer.Option(
            2, "--games", min=1, max=MAX_CHECK_GAMES, metavar="N", help="Games per ruleset."
        ),
        time_ms: int = typer.Option(
            1000,
            "--time-ms",
            min=1,
            max=MAX_TIME_MS,
            metavar="MS",
            help="Time limit per decision, milliseconds (at most 10 minutes).",
        ),
    ) -> None:
        """Check a protocol bot (docs/protocol.md): handshake, legal bids, time limits, clean exit.

        Plays games of every variant against the random bot and lists every violation;
        exit code 1 when anything is wrong, 2 for a bad command line."""
        console = Console()
        try:
            module = importlib.import_module(f"cardtable.{game}.botcheck")
        except ModuleNotFoundError:
            fail(f"no bot protocol for game {game!r}")

        if command.strip().startswith("cmd:") or "=cmd:" in command.split(" ", 1)[0]:
            try:  # the tournament's form, LABEL=cmd:COMMAND, names the same program
                command = parse_bot_spec(command).target
            except BotSpecError as exc:
                fail(str(exc))
        kwargs: dict[str, Any] = {"games": games, "time_ms": time_ms}
        if ruleset:
            kwargs["rulesets"] = ruleset
        try:
            with console.status("playing test games..."):
                report = module.check_bot(command, **kwargs)
        except ValueError as exc:
            fail(str(exc))
        ident = report.identity
        if ident:
            opts = (
                ", ".join(f"{o.name} ({o.type}, default {o.default})" for o in ident.options.values())
                or "none"
            )
            console.print(
                f"bot: [bold]{shown(ident.name)}[/]"
                + (f" by {shown(ident.author)}" if ident.author else "")
                + f"; options: {shown(opts)}"
            )
        console.print(f"games played: {report.games}")
        if report.ok:
            console.print("[green]OK[/]: no protocol violations")
            return
        table = Table(title=f"{len(report.violations)} violation(s)")
        for col in ("where", "kind", "detail"):
            table.add_column(col)
        for v in report.violations:
            table.add_row(shown(v.where), shown(v.kind), shown(v.detail))
        console.print(table)
        raise typer.Exit(1)
