"""``cardtable verify RECORD``: check the provably fair shuffle of recorded games."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import path_value, read_record_file, record_game, reject_record


def register(app: typer.Typer) -> None:
    @app.command()
    def verify(
        file: Path = typer.Argument(
            ...,
            help="A Goofspiel (text or JSON) or Golf record with Seed and SeedCommit tags.",
            parser=path_value,
        ),
    ) -> None:
        """Verify the provably fair shuffle: seed, commitment, prize order.

        For each game: SHA-256 of the revealed Seed equals the SeedCommit
        published before play, the seed reproduces the prize order, and the game
        replays legally (as ``cardtable replay``).

        Exit code 0 when every game checks out; 1 at the first failure.
        """
        text = read_record_file(file)
        if record_game(text) == "golf":
            # lazy: Golf's records load Pydantic (~0.3 s) and its checks the web package; `cardtable --help` needs neither
            from cardtable.golf.record import RecordError as GolfRecordError
            from cardtable.web.games.golf import verify_golf_text

            try:
                lines = verify_golf_text(text)
            except GolfRecordError as exc:
                reject_record(file, exc)
            for line in lines:
                typer.echo(line)
            typer.echo(f"✓ {file}: seeds match their commitments and the deals")
            return
        # lazy: records load Pydantic (~0.3 s) and the checks the web package; `cardtable --help` needs neither
        from cardtable.goofspiel.record import RecordError, load_records
        from cardtable.web.games.goofspiel import verify_records

        try:
            records = load_records(text)
            lines = verify_records(records)
        except RecordError as exc:
            reject_record(file, exc)
        for line in lines:
            typer.echo(line)
        typer.echo(f"✓ {file}: {len(records)} game(s): seeds match their commitments and the prize orders")
