"""``cardtable tables``: every solved table and low-layer set in the cache folder, how far
each got and whether its files check (docs/solver.md, Listing the cache)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table as RichTable

from cardtable.platform.storage import cache_location

from .common import err_console, fail, path_value, shown, usable_folder


def register(app: typer.Typer) -> None:
    @app.command()
    def tables(
        cache: Optional[Path] = typer.Option(
            None,
            "--cache",
            metavar="FOLDER",
            show_default="$CARDTABLE_CACHE, else the user cache folder",
            help="Table folder (as cardtable solve --cache).",
            parser=path_value,
        ),
        verify: bool = typer.Option(
            False, "--verify", help="Check every file's SHA-256 (reads every byte: slow for large tables)."
        ),
        as_json: bool = typer.Option(
            False, "--json", help="One JSON object on standard output, for scripts."
        ),
    ) -> None:
        """List the tables and the builds under way or interrupted in the cache: rules, state, checksum.

        Per table: rules, objective, format, size, state (complete, low layers, x% done,
        building), checksum state and path (docs/solver.md, Listing the cache).

        Exit code 1 when a table is damaged, 2 when the folder or an entry cannot be read."""
        # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
        from cardtable.solver.catalog import DAMAGED, UNREADABLE, CacheFolderError, list_tables
        from cardtable.solver.compressed import shipped_tables

        try:
            if cache is None:  # the default cache is listed, not created: a missing one holds no table
                cache = usable_folder(*cache_location())
                found = list_tables(cache, verify=verify) if cache.exists() else []
            else:
                found = list_tables(cache, verify=verify)
        except CacheFolderError as exc:
            fail(str(exc))
        shipped = shipped_tables()
        if as_json:
            typer.echo(
                json.dumps(
                    {
                        "cache": str(cache),
                        "verified": verify,
                        "tables": [t.to_json() for t in found],
                        "shipped": shipped,
                    },
                    indent=1,
                )
            )
        else:
            if not found:
                typer.echo(f"no tables in {cache} (`cardtable solve` writes them there)")
            else:
                _print_tables(cache, found)
            _print_shipped(shipped)
        bad = [t for t in found if t.checksum in (DAMAGED, UNREADABLE)]
        for t in bad:
            what = t.problem if str(t.path) in (t.problem or "") else f"{t.path}: {t.problem}"
            err_console.print(f"[red]{t.checksum}:[/red] {shown(what)}")
        if any(t.checksum == UNREADABLE for t in bad):
            raise typer.Exit(2)
        if bad:
            raise typer.Exit(1)


def _print_shipped(shipped: list[dict]) -> None:
    """One line: the compressed tables shipped with cardtable (read where the cache folder has
    no table of the game; docs/solver.md, Compressed tables)."""
    if not shipped:
        return
    decks = ", ".join(
        f"{t['cards']} cards {t['tie_rule']} {'high' if t['high_ace'] else 'low'} ace" for t in shipped
    )
    total = sum(t["bytes"] for t in shipped) / 2**20
    typer.echo(
        f"shipped with cardtable (compressed tables, {total:.0f} MiB, read where the cache has no "
        f"table of the game): {decks}"
    )


def _print_tables(cache: Path, found: list) -> None:
    """The listing as a table, one row per table, rows unbroken (also in a pipe)."""
    # lazy: the solver loads NumPy and Numba; `cardtable --help` must not
    from cardtable.solver.catalog import DAMAGED, UNREADABLE
    from cardtable.solver.estimate import size_text

    typer.echo(f"tables in {cache}")
    view = RichTable()
    for col in ("rules", "objective", "format", "size", "state", "checksum", "path (in the cache)"):
        view.add_column(col, no_wrap=True, justify="right" if col == "size" else "left")
    for t in found:
        rs = t.ruleset
        colour = {DAMAGED: "red", UNREADABLE: "red", "verified": "green"}.get(t.checksum)
        check = f"[{colour}]{t.checksum}[/{colour}]" if colour else t.checksum
        view.add_row(
            f"{rs.cards} cards, {rs.tie_rule} ties, {'high' if rs.high_ace else 'low'} ace",
            t.objective,
            str(t.table_format),
            size_text(t.size_bytes),
            t.state_text(),
            check,
            shown(t.path.name),
        )
    Console(width=max(200, Console().width)).print(view)  # rows unbroken, also in a pipe
    for t in found:  # where an unfinished background build (--build-table) writes
        if t.log is not None and (t.building or t.state != "complete"):
            typer.echo(f"build log of the {t.ruleset.cards}-card {t.ruleset.tie_rule} table: {t.log}")
