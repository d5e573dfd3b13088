"""Reading record files safely, for every game: bounded lines, tag lines, numbers, JSON.

Goofspiel and Golf records share the tag-line notation ``[Name "value"]`` and the
JSON envelope; this module holds the parts that must resist hostile input the same
way in both (docs/rules.md, "Reading records"):

- a record is at most :data:`MAX_RECORD_CHARS` characters and a line at most
  :data:`MAX_LINE` characters; every parse is linear in the input (no backtracking
  regular expressions);
- a UTF-8 byte-order mark at the very start is skipped (as PGN readers do); a NUL character
  (UTF-16 text read as UTF-8) makes the text "not UTF-8";
- a game has at most :data:`MAX_TAGS` free tags and a file at most :data:`MAX_GAMES` games;
  a tag's value follows :func:`tag_value_problem` in both notations;
- lines end at ``\\n`` only (``\\r\\n`` accepted), so no other Unicode line break splits a tag;
- numbers are ASCII digits (``²`` or ``٣`` are not numbers), at most :data:`MAX_DIGITS` long;
- error messages quote at most :data:`QUOTE` characters of the input.

Functions take an ``error(message, line)`` factory so each game raises its own
``RecordError``.

>>> def error(message, line): return ValueError(f"line {line}: {message}")
>>> parse_tag('[Players "Ann; Ben \\\\"B\\\\""]', 3, error)
('Players', 'Ann; Ben "B"')
>>> whole_number("²")
>>> json_line('{\\n "games": [\\n  {"x": 1},\\n  {"x": 2}\\n ]\\n}', ("games", 1, "x"))
4
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Container, Iterable, Iterator, Mapping, Sequence

#: The longest record file, in characters (a 13-round game is about 1,000).
MAX_RECORD_CHARS = 8 * 2**20
#: The longest line of a text record, in characters.
MAX_LINE = 4096
#: The most digits of a number in a record.
MAX_DIGITS = 9
#: The most characters of the input that an error message quotes.
QUOTE = 60
#: The most free tags of one game (``Event``, ``Date``, ...), in either notation.
MAX_TAGS = 100
#: The most games of one record file, in either notation.
MAX_GAMES = 10_000

ErrorFactory = Callable[[str, "int | None"], Exception]


def short(text: str, limit: int = QUOTE) -> str:
    """``text`` quoted with ``repr``, cut to ``limit`` characters (``...`` marks the cut)."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def strip_bom(text: str) -> str:
    """``text`` without a leading U+FEFF (a UTF-8 byte-order mark)."""
    return text[1:] if text.startswith("\ufeff") else text


def check_size(text: str, error: ErrorFactory) -> str:
    """``text`` without a byte-order mark, refused when longer than :data:`MAX_RECORD_CHARS`
    or when it holds a NUL character (valid UTF-8 but never a record: UTF-16 text read as
    UTF-8, or a binary file)."""
    if len(text) > MAX_RECORD_CHARS:
        raise error(
            f"the record is {len(text):,} characters long; at most {MAX_RECORD_CHARS:,} are read", None
        )
    nul = text.find("\0")
    if nul >= 0:
        raise error(
            "not UTF-8 text: it holds NUL characters (UTF-16 text or a binary file)",
            text.count("\n", 0, nul) + 1,
        )
    return strip_bom(text)


#: Whitespace other than a space (a tab, vertical tab, no-break space, line separator, ...)
_ODD_SPACE = re.compile(r"[^\S ]")


def record_lines(text: str, error: ErrorFactory) -> Iterator[tuple[int, str]]:
    """``(line number, stripped line)`` for every line that is not blank or a ``#`` comment.

    Raises (through ``error``): a record over :data:`MAX_RECORD_CHARS` or a line over
    :data:`MAX_LINE`; a line other than a tag whose words are separated by anything but
    spaces (a tab, ``\v``, a no-break space: docs/rules.md, Reading records).
    """
    text = check_size(text, error)
    for number, raw in enumerate(text.split("\n"), 1):
        if len(raw) > MAX_LINE:
            raise error(
                f"line of {len(raw):,} characters; a record line has at most {MAX_LINE}: {short(raw)}", number
            )
        line = raw.strip()
        if line and not line.startswith("#"):
            if not line.startswith("[") and (odd := _ODD_SPACE.search(line)):  # a move line: spaces only
                raise error(
                    f"U+{ord(odd.group()):04X} between words: words are separated by spaces only: {short(line)}",
                    number,
                )
            yield number, line


def is_tag_name(name: str) -> bool:
    return 0 < len(name) <= 40 and name.isascii() and name[0].isalpha() and name.replace("_", "a").isalnum()


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # Unicode category Cc


def tag_value_problem(name: str, value: object) -> str | None:
    """Why ``value`` cannot be the value of the tag ``name`` (a free tag or ``Seed``) in a
    record, or ``None``. The one rule of both notations, of both readers and of every writer
    (docs/rules.md, "Reading records"): text without control characters (Unicode ``Cc``:
    ``\\n``, ``\\r``, TAB, NUL, ESC, ...), whose tag line ``[Name "value"]``, quoted, has at
    most :data:`MAX_LINE` characters.

    >>> tag_value_problem("Event", "Club night")
    >>> tag_value_problem("Seed", "a\\rb")
    "Seed: a tag's value is one line of text without control characters (it holds U+000D)"
    """
    if not isinstance(value, str):
        return f"{name}: a tag's value is text, not {type(value).__name__}"
    bad = _CONTROL.search(value)
    if bad:
        return f"{name}: a tag's value is one line of text without control characters (it holds U+{ord(bad.group()):04X})"
    size = len(quote_tag(name, value))
    if size > MAX_LINE:
        return f"{name}: a tag's value must fit one line: its tag line is {size:,} characters, at most {MAX_LINE} are read"
    return None


def free_tags_problem(tags: Iterable[object], reserved: Container[str]) -> tuple[int, str] | None:
    """``(index, why)`` of the first free tag a record cannot hold, else ``None``: at most
    :data:`MAX_TAGS` tags, each a ``(name, text)`` pair whose name is letters, digits and
    ``_`` (:func:`is_tag_name`), not one of ``reserved`` and given once, and whose value
    passes :func:`tag_value_problem`. Both notations of both games and every writer use it."""
    seen: set[str] = set()
    for k, tag in enumerate(tags):
        if k >= MAX_TAGS:
            return k, f"more than {MAX_TAGS} free tags in one game"
        if not (isinstance(tag, (tuple, list)) and len(tag) == 2 and all(isinstance(t, str) for t in tag)):
            return k, "a tag is a (name, text) pair"
        name, value = tag
        if name in reserved or not is_tag_name(name):
            return k, f"{short(name)} is not a free tag name"
        if name in seen:
            return k, f"tag {name} appears twice"
        seen.add(name)
        problem = tag_value_problem(name, value)
        if problem:
            return k, problem
    return None


def parse_tag(line: str, number: int, error: ErrorFactory) -> tuple[str, str]:
    """Split a tag line ``[Name "value"]`` (``\\\\`` and ``\\"`` escaped in the value), in linear time.

    Raises (through ``error``): anything else, quoting the line.
    """
    name, sep, rest = line[1:].partition(" ")
    bad = error(f'malformed tag line {short(line)}; expected [Name "value"]', number)
    if (
        not line.startswith("[")
        or not sep
        or not is_tag_name(name)
        or not rest.startswith('"')
        or not rest.endswith('"]')
    ):
        raise bad
    body = rest[1:-2]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            if i + 1 == len(body):
                raise bad
            out.append(body[i + 1])
            i += 2
            continue
        if ch == '"':
            raise bad
        out.append(ch)
        i += 1
    return name, "".join(out)


def quote_tag(name: str, value: str) -> str:
    """The tag line of ``name`` and ``value`` (``\\`` and ``"`` escaped)."""
    return f'[{name} "' + value.replace("\\", "\\\\").replace('"', '\\"') + '"]'


def whole_number(text: str, *, signed: bool = False, max_digits: int = MAX_DIGITS) -> int | None:
    """The value of ASCII decimal ``text`` (a leading ``-`` when ``signed``), or ``None``.

    ``None`` for anything else: other Unicode digits (``²``), signs, spaces, or more than
    ``max_digits`` digits after any leading zeros.
    """
    negative = signed and text.startswith("-")
    digits = text[1:] if negative else text
    if not (digits and digits.isascii() and digits.isdigit()):
        return None
    significant = digits.lstrip("0")
    if len(significant) > max_digits:
        return None
    value = int(significant or "0")
    return -value if negative else value


def json_line(text: str, path: Sequence[str | int]) -> int | None:
    """The 1-based line where the JSON value at ``path`` (keys and list indexes) starts,
    or where its nearest enclosing value starts when the path itself is missing.

    ``None`` when no part of the path is found. Used to give a line number with a
    schema error; for many look-ups in one text use :func:`json_line_index`.
    """
    index = json_line_index(text, len(path))
    for size in range(len(path), -1, -1):
        found = index.get(tuple(path[:size]))
        if found is not None:
            return found
    return None


def json_line_index(text: str, max_depth: int) -> dict[tuple, int]:
    """The start line of every JSON value down to ``max_depth`` levels, by path.

    Walks the containers of the top ``max_depth`` levels and skips every deeper value
    with the standard library's C scanner, so the cost is linear and small. The text is
    assumed to be valid JSON (it is used after a parser accepted it); on anything else
    the index holds what was found before the problem.
    """
    index: dict[tuple, int] = {}
    scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # typeshed omits it (set in __init__)
    n = len(text)
    counted = [0, 1]  # position up to which newlines are counted, line number there

    def line_at(pos: int) -> int:
        counted[1] += text.count("\n", counted[0], pos)
        counted[0] = pos
        return counted[1]

    def skip(i: int) -> int:
        while i < n and text[i] in " \t\r\n":
            i += 1
        return i

    def walk(i: int, path: tuple) -> int:
        index.setdefault(path, line_at(i))
        if len(path) >= max_depth or text[i] not in "[{":
            return scan(text, i)[1]
        close = "]" if text[i] == "[" else "}"
        i = skip(i + 1)
        if text[i] == close:
            return i + 1
        k = 0
        while True:
            if close == "}":
                key, i = scan(text, i)
                i = skip(i)
                if text[i] != ":":
                    raise ValueError("':' expected")
                i = walk(skip(i + 1), path + (key,))
            else:
                i = walk(i, path + (k,))
            i = skip(i)
            if text[i] == ",":
                i, k = skip(i + 1), k + 1
            elif text[i] == close:
                return i + 1
            else:
                raise ValueError("',' expected")

    try:
        walk(skip(0), ())
    except (ValueError, IndexError, StopIteration, RecursionError):
        pass
    return index


class _RepeatedKey(Exception):
    pass


def _no_repeats(pairs: list) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKey(key)
        out[key] = value
    return out


def check_repeated_keys(text: str, error: ErrorFactory) -> None:
    """Refuse JSON in which one object gives a key twice (JSON parsers keep the last one
    silently: a second ``"tags"`` or ``"seed"`` would replace the first unseen). Call it
    after a schema parse has accepted ``text``. Raises (through ``error``) with the line
    of the key's second appearance."""
    try:
        json.loads(text, object_pairs_hook=_no_repeats)
    except _RepeatedKey as exc:
        key = str(exc.args[0])
        quoted = json.dumps(key)
        first = text.find(quoted)
        second = text.find(quoted, first + 1) if first >= 0 else -1
        line = text.count("\n", 0, second) + 1 if second >= 0 else None
        raise error(f"key {quoted[:60]} appears twice in one object", line) from None
    except (ValueError, RecursionError):  # the schema parse has reported what it refuses
        return


def json_error_line(message: str) -> int | None:
    """The line number in a JSON syntax message (``... at line 3 column 5``), or ``None``."""
    _, sep, tail = message.rpartition(" at line ")
    return whole_number(tail.split()[0]) if sep and tail.split() else None


def schema_error_text(errors: Sequence[Mapping[str, Any]]) -> tuple[str, tuple]:
    """A short message and the location of the first Pydantic error (``e.errors()``)."""
    first = errors[0]
    loc = tuple(first.get("loc", ()))
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".") or "the record"
    message = "missing field" if first.get("type") == "missing" else first.get("msg", "invalid")
    if first.get("type") == "json_invalid":
        return message, ()
    got = first.get("input")
    shown = "" if isinstance(got, (dict, list)) or got is None else f" (got {short(str(got))})"
    more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
    return f"{where}: {message}{shown}{more}", loc
