"""``cardtable replay FILE``: re-play a record and verify every action and result."""

from __future__ import annotations

import json
import re
from pathlib import Path

import typer

from .common import err_console, fail


def record_game(text: str) -> str:
    """Which game a record file holds: ``"golf"`` or ``"goofspiel"`` (text or JSON)."""
    if text.lstrip()[:1] in ("{", "["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None  # a text record starts with '[' too
        if data is not None:
            first = data[0] if isinstance(data, list) and data else data
            return "golf" if isinstance(first, dict) and first.get("game") == "golf" else "goofspiel"
    if re.search(r'^\s*\[Game "golf"\]', text, re.MULTILINE):
        return "golf"
    return "goofspiel"


def register(app: typer.Typer) -> None:
    @app.command()
    def replay(
        file: Path = typer.Argument(..., help="a record file (text or JSON notation)"),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="print only the verdict"),
    ) -> None:
        """Re-play a game record: check every bid is legal and the stated results match.

        Exit code 0 when the record is consistent; 1 with the first inconsistency
        and its line number otherwise; 2 when the file cannot be read.
        """
        if file.is_dir():
            fail(f"{file} is a folder, not a record file")
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            fail(f"cannot read {file}: {exc.strerror}")
        except UnicodeDecodeError:
            fail(f"{file} is not a text file (UTF-8)")
        if record_game(text) == "golf":
            from cardtable.golf.record import replay_text

            try:
                summary = replay_text(text)
            except ValueError as exc:
                err_console.print(f"[red]✗ {file}:[/red] {exc}", markup=True)
                raise typer.Exit(1)
            typer.echo(f"✓ {file}: {summary}")
            return
        from cardtable.goofspiel.record import RecordError, load_records, replay_match

        try:
            records = load_records(text)
            games, match = replay_match(records)
        except RecordError as exc:
            err_console.print(f"[red]✗ {file}:[/red] {exc}")
            raise typer.Exit(1)
        if not quiet:
            for i, (rec, game) in enumerate(zip(records, games), 1):
                if game.is_over:
                    res = game.result()
                    scores = " - ".join(f"{n} {p}" for n, p in zip(rec.players, res.points))
                    typer.echo(f"game {i}: {len(game.history)} rounds, {scores}, {' '.join(res.outcomes)}")
                else:
                    typer.echo(f"game {i}: unfinished after {len(game.history)} rounds")
                if rec.seed is None and not rec.ruleset.fixed_order:
                    typer.echo(f"game {i}: no Seed tag, so the prize order was taken from the record unchecked")
            if match is not None and match.is_over:
                typer.echo(f"match {match.format}: {' '.join(match.result())}")
        typer.echo(f"✓ {file}: {len(records)} game(s) verified")
