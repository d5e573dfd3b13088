"""Helpers shared by CLI commands: building a ruleset from --rules and flags, errors."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2) -> None:
    """Print a one-line error to stderr and exit with ``code``."""
    err_console.print(f"[red]error:[/red] {message}")
    raise typer.Exit(code)


def build_ruleset(
    rules: str | None,
    cards: int | None = None,
    players: int | None = None,
    ties: str | None = None,
    unique: bool | None = None,
    high_ace: bool | None = None,
    bid_cards: int | None = None,
    display: int | None = None,
    order: str | None = None,
):
    """A Goofspiel ruleset from ``--rules`` (preset name, TOML/JSON file, or
    ``key=value`` notation) overridden by the individual flags.

    Raises:
        typer.Exit: with a clear message for a bad rules file or an impossible combination.
    """
    from cardtable.goofspiel import Ruleset, RulesetError

    try:
        if rules is None:
            base = Ruleset()
        elif Path(rules).suffix.lower() in (".toml", ".json") or Path(rules).is_file():
            base = Ruleset.from_file(rules)
        else:
            base = Ruleset.parse(rules)
        changes: dict[str, Any] = {}
        for key, value in (
            ("cards", cards), ("players", players), ("tie_rule", ties), ("unique_bids", unique),
            ("high_ace", high_ace), ("cards_per_bid", bid_cards), ("open_prizes", display),
        ):
            if value is not None:
                changes[key] = value
        if order is not None:
            changes["prize_order"] = tuple(int(x) for x in order.split(",")) if "," in order else order
        if changes.get("cards") and "prize_order" not in changes and isinstance(base.prize_order, tuple):
            changes["prize_order"] = "shuffled"
        return replace(base, **changes) if changes else base
    except RulesetError as exc:
        fail(f"bad rules: {exc}")
    except ValueError as exc:
        fail(f"bad rules: {exc}")


def check_names(names: list[str]) -> None:
    """Player names must be non-empty, distinct, and free of ``;`` and ``"`` (the
    record notation separates names with ``;``).

    Raises:
        typer.Exit: with a one-line error.
    """
    for n in names:
        if not n.strip():
            fail("a player name must not be empty")
        if ";" in n or '"' in n or "\n" in n:
            fail(f"player name {n!r} may not contain ';', '\"' or a line break")
    lowered = [n.strip().lower() for n in names]
    dupes = sorted({n for n in lowered if lowered.count(n) > 1})
    if dupes:
        fail(f"player names must differ: {', '.join(dupes)} appears twice")


def check_record_path(path: Path) -> None:
    """A ``--record`` path must be a new file in an existing folder (records are
    never overwritten), checked before any game starts.

    Raises:
        typer.Exit: with a one-line error.
    """
    if path.is_dir():
        fail(f"--record {path} is a folder; give a file name")
    if path.exists():
        fail(f"--record {path} already exists; records are never overwritten")
    if not path.parent.is_dir():
        fail(f"--record {path}: the folder {path.parent} does not exist")


def reject_record(path: Path, error: Exception) -> None:
    """Report an inconsistent record (``✗ PATH: reason``) and exit with code 1."""
    err_console.print(f"[red]✗ {path}:[/red] {error}")
    raise typer.Exit(1)


def read_record_file(path: Path) -> str:
    """The text of a record file.

    Raises:
        typer.Exit: (code 2) a folder, an unreadable or a non-UTF-8 file;
            (code 1, ``✗ PATH: not a game record``) a text that does not start
            like a record (a tag line ``[Name "value"]`` or JSON).
    """
    if path.is_dir():
        fail(f"{path} is a folder, not a record file")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror}")
    except UnicodeDecodeError:
        fail(f"{path} is not a text file (UTF-8)")
    first = next((line.strip() for line in text.lstrip("\ufeff").splitlines() if line.strip()), "")
    if not first.startswith(("[", "{")):
        reject_record(path, ValueError(
            "not a game record (a record starts with tags such as [Game \"goofspiel\"], or is JSON)"))
    return text


def record_game(text: str) -> str:
    """Which game a record holds: ``"golf"`` or ``"goofspiel"`` (text or JSON notation).

    >>> record_game('[Game "golf"]'), record_game('[{"game": "golf"}]'), record_game('[Game "goofspiel"]')
    ('golf', 'golf', 'goofspiel')
    """
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
