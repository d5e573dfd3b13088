"""Helpers shared by CLI commands: building a ruleset from --rules and flags, errors."""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from cardtable.platform.files import FileTooLargeError, NotRegularFileError, read_regular_bytes
from cardtable.platform.names import PlayerNameError, check_player_names
from cardtable.platform.records import MAX_RECORD_CHARS
from cardtable.platform.storage import FolderError, check_folder, ensure_folder

err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def shown(text: object) -> str:
    """``text`` safe for the terminal: Rich markup escaped (``[/x]`` prints as written) and
    control and format characters written as escapes (``\\x1b``), so input quoted in a
    message can neither break the output nor move the cursor."""
    out = "".join(
        ch
        if unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp", "Cs") or ch == "\n"
        else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        for ch in str(text)
    )
    return escape(out)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr and exit with ``code`` (the message is shown as
    plain text: :func:`shown`)."""
    err_console.print(f"[red]error:[/red] {shown(message)}")
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

    ``--rules`` is a file when it ends in ``.toml``/``.json``, or has no ``=``, is no
    preset name and names an existing file; anything else is notation (so a long
    notation is never tried as a path). A flag replaces the same field of ``--rules``;
    ``--cards`` that changes the number of cards of a ``--rules`` with a given prize order
    is refused unless ``--order`` is given too (docs/rules.md, "Rules notation and files").

    Raises:
        typer.Exit: with a clear message for a bad rules file or an impossible combination.
    """
    # lazy: the rules load hashlib, json and tomllib (~50 ms); `cardtable --help` needs none of them
    from cardtable.goofspiel import Ruleset, RulesetError
    from cardtable.goofspiel.ruleset import _parse_field

    try:
        if rules is None:
            base = Ruleset()
        else:
            base = Ruleset.from_spec(rules)
        changes: dict[str, Any] = {}
        for key, value in (
            ("cards", cards),
            ("players", players),
            ("tie_rule", ties),
            ("unique_bids", unique),
            ("high_ace", high_ace),
            ("cards_per_bid", bid_cards),
            ("open_prizes", display),
        ):
            if value is not None:
                changes[key] = value
        if order is not None:
            changes["prize_order"] = _parse_field("order", order.strip())[1]
        if (
            changes.get("cards", base.cards) != base.cards
            and "prize_order" not in changes
            and isinstance(base.prize_order, tuple)
        ):
            fail(
                f"--cards {changes['cards']} conflicts with the prize order of --rules "
                f"({','.join(map(str, base.prize_order))}); give --order too"
            )
        return replace(base, **changes) if changes else base
    except RulesetError as exc:
        fail(f"bad rules: {exc}")
    except ValueError as exc:
        fail(f"bad rules: {exc}")


def check_names(names: list[str]) -> None:
    """Player names follow the one name policy (:mod:`cardtable.platform.names`): no
    control or format characters, no ``;``, ``"`` or ``\\``, different ignoring case.

    Raises:
        typer.Exit: with a one-line error.
    """
    try:
        check_player_names(names)
    except PlayerNameError as exc:
        fail(str(exc))


def path_value(text: str) -> Path:
    """The parser of every path option and argument: ``text`` as a ``Path``.

    Raises:
        typer.BadParameter: (exit 2) ``text`` is empty or only spaces: a shell's ``""`` or
            an unset variable would otherwise name the current folder; or the path cannot
            even be looked at (a folder on the way without permission, a name too long).
    """
    if not text.strip():
        raise typer.BadParameter("is empty; give a path")
    path = Path(text)
    try:  # a folder on the way that cannot be entered, a name over the system's limit
        path.exists()
    except OSError as exc:
        raise typer.BadParameter(f"{text[:80]!r} cannot be reached: {exc.strerror}") from None
    return path


def usable_folder(path: "str | Path", what: str) -> Path:
    """``path`` as a folder that exists and is writable, or could be created, checked without
    creating anything (``storage.check_folder``: a command that may still be refused makes
    its folders only when it writes).

    Raises:
        typer.Exit: (code 2) with a one-line error when it cannot be such a folder.
    """
    try:
        return check_folder(path, what)
    except FolderError as exc:
        fail(str(exc))


def writable_folder(path: "Path | None", what: str, default=None) -> Path:
    """``path`` (or ``default()`` when ``path`` is ``None``) as a writable folder, created if
    missing; checked before a command starts its work.

    Raises:
        typer.Exit: (code 2) with a one-line error when it cannot be a folder.
    """
    try:
        return ensure_folder(path, what) if path is not None else default()
    except FolderError as exc:
        fail(str(exc))
    raise AssertionError  # unreachable: fail() exits


def check_record_path(path: Path) -> None:
    """A ``--record`` path must be a new file in an existing folder (records are
    never overwritten), checked before any game starts.

    Raises:
        typer.Exit: with a one-line error.
    """
    if path.is_dir():
        fail(f"--record {path} is a folder; give a file name")
    if os.path.lexists(path):  # a link too, even one to nothing or a loop
        fail(f"--record {path} already exists; records are never overwritten")
    if not path.parent.is_dir():
        fail(f"--record {path}: the folder {path.parent} does not exist")


def reject_record(path: Path, error: Exception) -> None:
    """Report an inconsistent record (``✗ PATH: reason``) and exit with code 1."""
    err_console.print(f"[red]✗ {shown(path)}:[/red] {shown(error)}")
    raise typer.Exit(1)


def read_record_file(path: Path) -> str:
    """The text of a record file (UTF-8, read up to a bound).

    Raises:
        typer.Exit: (code 2) a folder, a FIFO, device or socket (never waited on), an
            unreadable, oversized (over 32 MiB) or non-UTF-8 file (NUL bytes, as in UTF-16
            text, count as not UTF-8); (code 1, ``✗ PATH: not a game record``) a text that
            does not start like a record (a tag line ``[Name "value"]`` or JSON).
    """
    if path.is_dir():
        fail(f"{path} is a folder, not a record file")
    try:
        data = read_regular_bytes(path, 4 * MAX_RECORD_CHARS)
    except FileTooLargeError:
        fail(f"{path} is over {4 * MAX_RECORD_CHARS // 2**20} MiB: not a record file")
    except NotRegularFileError as exc:
        fail(f"{path} is {exc.strerror}: not a record file")
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror}")
    if b"\0" in data:  # valid UTF-8, yet never a record: UTF-16 text or a binary file
        fail(f"{path} is not UTF-8 text (it holds NUL bytes: UTF-16 or a binary file)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        fail(f"{path} is not UTF-8 text")
    if text.lstrip("\ufeff \t\r\n\x0b\x0c")[:1] not in ("[", "{"):
        reject_record(
            path,
            ValueError(
                'not a game record (a record starts with tags such as [Game "goofspiel"], or is JSON)'
            ),
        )
    return text


def record_game(text: str) -> str:
    """Which game a record holds: ``"golf"`` or ``"goofspiel"`` (text or JSON notation).

    Decided from the start of the text only (a Golf JSON record names its game first,
    a text record has its ``Game`` tag first), so a huge or deeply nested file costs nothing
    here; the game's own reader then checks the whole file.

    >>> record_game('[Game "golf"]'), record_game('[{"game": "golf"}]'), record_game('[Game "goofspiel"]')
    ('golf', 'golf', 'goofspiel')
    >>> record_game(chr(0xFEFF) + '[{ "game": "golf"}]')
    'golf'
    """
    head = text[:4096].lstrip("\ufeff \t\r\n")
    if head[:1] == "{" or (head[:1] == "[" and not head[1:2].isalpha()):
        return "golf" if re.match(r'[\[\s]*\{\s*"game"\s*:\s*"golf"', head) else "goofspiel"
    if re.search(r'^\s*\[Game "golf"\]', head, re.MULTILINE):
        return "golf"
    return "goofspiel"
