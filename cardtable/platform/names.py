"""The one policy for player names, everywhere: web, ``--names``, records and the library.

A name is shown on screens and in browsers and written into records, so it must survive a
record's write -> parse round trip and must not be able to move a terminal's cursor, reverse
text direction or hide characters. The policy (docs/rules.md, Players and names):

- 1 to :data:`MAX_NAME` characters, no leading or trailing space;
- no ``;`` (the ``Players`` tag separator), ``"`` or ``\\`` (the tag quoting);
- no control or format characters and no line or paragraph separators: Unicode general
  categories ``Cc`` (NUL, ESC, TAB, ...), ``Cf`` (U+202E, zero-width characters, ...),
  ``Cs`` (lone surrogates), ``Co`` (private use), ``Cn`` (unassigned), ``Zl``, ``Zp``;
- the only space is U+0020 (a no-break or other odd space looks like a space but is not one);
- the names of one game differ, ignoring case and Unicode's compatibility forms
  (:func:`name_key`: ``"A\u0300"`` and ``"\u00c0"``, or ``"Ａnn"`` and ``"ann"``, are the same name).

>>> check_player_name("Ann")
'Ann'
>>> check_player_name("Ann\\u202eX")
Traceback (most recent call last):
...
cardtable.platform.names.PlayerNameError: player name 'Ann\\u202eX' must not contain U+202E (a format character)
>>> check_player_names(["Ann", "ann"])
Traceback (most recent call last):
...
cardtable.platform.names.PlayerNameError: two players are named 'ann': every name must be different
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from cardtable.errors import CardtableError

#: The longest name, in characters.
MAX_NAME = 40

_REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "a format character",
    "Cs": "a lone surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned character",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Zs": "a space other than U+0020",
}
_REFUSED_CHARACTERS = {";": "';' (it separates names in records)", '"': "'\"'", "\\": "'\\\\'"}


class PlayerNameError(CardtableError, ValueError):
    """A player name the policy refuses; the message names the offending character."""


def check_player_name(name: object) -> str:
    """Return ``name`` unchanged if the name policy (module docstring) accepts it.

    Raises:
        PlayerNameError: not a string, empty, too long, surrounded by spaces, or holding a
            refused character (the message names it as ``U+XXXX``).
    """
    if not isinstance(name, str):
        raise PlayerNameError(f"a player name must be text, not {type(name).__name__}")
    if not name.strip():
        raise PlayerNameError("a player name must not be empty")
    shown = name[:MAX_NAME].encode("unicode_escape").decode("ascii")
    if len(name) > MAX_NAME:
        raise PlayerNameError(f"player name '{shown}...' is longer than {MAX_NAME} characters")
    if name != name.strip():
        raise PlayerNameError(f"player name '{shown}' must not start or end with a space")
    for ch in name:
        if ch in _REFUSED_CHARACTERS:
            raise PlayerNameError(f"player name '{shown}' must not contain {_REFUSED_CHARACTERS[ch]}")
        category = unicodedata.category(ch)
        if ch != " " and category in _REFUSED_CATEGORIES:
            raise PlayerNameError(
                f"player name '{shown}' must not contain U+{ord(ch):04X} ({_REFUSED_CATEGORIES[category]})"
            )
    return name


def name_key(name: str) -> str:
    """What two names must not share to be different: the name in Unicode's NFKC form
    (composed, compatibility characters replaced), case-folded.

    >>> name_key("A\u0300nn") == name_key("\u00e0NN"), name_key("\uff21nn") == name_key("ann")
    (True, True)
    """
    return unicodedata.normalize("NFKC", name).casefold()


def check_player_names(names: Iterable[object]) -> list[str]:
    """Check every name (:func:`check_player_name`) and that they differ (:func:`name_key`).

    Returns:
        the names, as a list, unchanged.

    Raises:
        PlayerNameError: the first refused name, or two names equal ignoring case.
    """
    checked = [check_player_name(n) for n in names]
    seen: set[str] = set()
    for n in checked:
        key = name_key(n)
        if key in seen:
            raise PlayerNameError(f"two players are named '{n}': every name must be different")
        seen.add(key)
    return checked


def split_player_names(value: str) -> list[str]:
    """The names of a record's ``Players`` tag (names joined by ``"; "``), checked
    (:func:`check_player_names`). Only the one space the writer puts after each ``;`` is
    dropped, so a name read from text is exactly the name, as in the JSON notation:
    ``" Ann; Ben"`` is refused like ``[" Ann", "Ben"]``.

    >>> split_player_names("Ann; Ben")
    ['Ann', 'Ben']
    >>> split_player_names("Ann;  Ben")
    Traceback (most recent call last):
    ...
    cardtable.platform.names.PlayerNameError: player name ' Ben' must not start or end with a space
    """
    parts = value.split(";")
    return check_player_names([parts[0]] + [p[1:] if p.startswith(" ") else p for p in parts[1:]])
