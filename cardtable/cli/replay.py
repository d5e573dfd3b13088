"""``cardtable replay FILE``: re-play a record and verify every action and result."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import path_value, read_record_file, record_game, reject_record


def register(app: typer.Typer) -> None:
    @app.command()
    def replay(
        file: Path = typer.Argument(..., help="A record file (text or JSON notation).", parser=path_value),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the verdict."),
    ) -> None:
        """Re-play a game record: check every bid is legal and the stated results match.

        Exit code 0 when the record is consistent; 1 with the first inconsistency
        and its line number, or when the file is not a game record; 2 when the
        file cannot be read.
        """
        text = read_record_file(file)
        if record_game(text) == "golf":
            # lazy: Golf's records load Pydantic (~0.3 s); `cardtable --help` needs none of it
            from cardtable.golf.record import replay_text

            try:
                summary = replay_text(text)
            except ValueError as exc:
                reject_record(file, exc)
            typer.echo(f"✓ {file}: {summary}")
            return
        # lazy: records load Pydantic (~0.3 s); `cardtable --help` needs none of it
        from cardtable.goofspiel.record import RecordError, load_records, replay_match

        try:
            records = load_records(text)
            games, match = replay_match(records)
        except RecordError as exc:
            reject_record(file, exc)
        if not quiet:
            for i, (rec, game) in enumerate(zip(records, games, strict=True), 1):
                if game.is_over:
                    res = game.result()
                    scores = " - ".join(f"{n} {p}" for n, p in zip(rec.players, res.points, strict=True))
                    typer.echo(f"game {i}: {len(game.history)} rounds, {scores}, {' '.join(res.outcomes)}")
                else:
                    typer.echo(f"game {i}: unfinished after {len(game.history)} rounds")
                if rec.seed is None and not rec.ruleset.fixed_order:
                    typer.echo(
                        f"game {i}: no Seed tag, so the prize order was taken from the record unchecked"
                    )
            if match is not None and match.is_over:
                typer.echo(f"match {match.format}: {' '.join(match.result())}")
        typer.echo(f"✓ {file}: {len(records)} game(s) verified")
