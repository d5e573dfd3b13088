"""The Goofspiel ruleset: an immutable, validated description of one variant.

Every variant of docs/rules.md is a field here; a game, a record, a bot and the
solver all take a :class:`Ruleset`. Presets: ``standard`` (docs/rules.md, A round
and Ties: 13 cards, carry-over ties, low ace, 2 players, shuffled prizes) and
``discard`` (the same with discard ties, as in the game-theory literature and
OpenSpiel).

>>> Ruleset.preset("standard").total_prize_value
91
>>> Ruleset(high_ace=True).total_prize_value
104
>>> Ruleset(cards=5, tie_rule="discard").describe()
'cards=5 players=2 ties=discard ace=low bid=1 display=1 order=shuffled'
>>> Ruleset(players=2, open_prizes=3, tie_rule="discard")
Traceback (most recent call last):
...
cardtable.goofspiel.errors.RulesetError: open_prizes, tie_rule: open prizes stay in the display when bids tie (carry-over by nature); use tie_rule='carry' with open_prizes > 1

Decisions where the rule texts are silent (docs/rules.md, Decisions where the texts are silent):

- *High ace with fewer cards*: the ace bids above the highest card and is worth
  ``cards + 1`` as a prize (14 with 13 cards: docs/rules.md, High ace).
- *Highest unique bid* (``unique_bids=True``) composes with the tie rule: equal
  bid strengths drop out first; if no bid remains, the round is a tie and
  ``tie_rule`` says what happens to the pot. With 2 players it changes nothing.
- *Open prizes* need ``tie_rule='carry'``: prizes not taken stay face up.
"""

from __future__ import annotations

import json
import operator
import tomllib
from dataclasses import asdict, dataclass, fields
from difflib import get_close_matches
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, Mapping, NoReturn

from cardtable.errors import quoted
from cardtable.platform.files import FileTooLargeError, read_regular_bytes
from cardtable.platform.integers import is_whole
from cardtable.platform.records import whole_number

from .errors import RulesetError

TieRule = Literal["carry", "discard"]
PrizeOrder = Literal["shuffled", "ascending", "descending"]

PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "discard": {"tie_rule": "discard"},
    "high-ace": {"high_ace": True},
    "three-player": {"players": 3, "unique_bids": True},
    "two-card-bids": {"cards_per_bid": 2},
    "open-prizes": {"open_prizes": 3},
    "ascending": {"prize_order": "ascending"},
}


def is_rules_file(text: str) -> bool:
    """Whether a ruleset argument names a rules file: it ends in ``.toml`` or ``.json``, or
    it has no ``=``, is no preset name and names an existing file (so a long notation is
    never tried as a path; docs/rules.md, "Rules notation and files"). Never raises."""
    text = text.strip()
    if text.lower().endswith((".toml", ".json")):
        return True
    if "=" in text or text in PRESETS or len(text) > 4096:
        return False
    try:  # a FIFO, device or socket too, so that Ruleset.from_file refuses it by name
        return Path(text).exists() and not Path(text).is_dir()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        return False


@dataclass(frozen=True)
class Ruleset:
    """One Goofspiel variant (docs/rules.md, Variants and Rulesets in the program).

    Attributes:
        cards: ranks per suit, 1..13 (cards A..n in every hand and the prize deck).
        players: 2..5; each holds one whole suit.
        tie_rule: ``"carry"`` (tied prizes stay in the pot and are played for
            with the next prize; the default) or ``"discard"`` (tied prizes are
            put aside, unowned).
        unique_bids: the 3-5 player "highest unique bid" tie rule: bid strengths
            bid by more than one player drop out before the highest is found.
        high_ace: the ace bids highest and is worth ``cards + 1`` as a prize.
        cards_per_bid: cards each player bids per round (1; 2 for
            "multi-card bids"); the bid strength is the sum.
        open_prizes: size of the face-up display (1 = one prize at a time).
        prize_order: ``"shuffled"`` (seeded), ``"ascending"``, ``"descending"``
            or a tuple of face ranks (a permutation of 1..cards).

    Raises:
        RulesetError: for any out-of-range value or impossible combination;
            the message starts with the offending field names.
    """

    cards: int = 13
    players: int = 2
    tie_rule: TieRule = "carry"
    unique_bids: bool = False
    high_ace: bool = False
    cards_per_bid: int = 1
    open_prizes: int = 1
    prize_order: PrizeOrder | tuple[int, ...] = "shuffled"

    def __post_init__(self) -> None:
        self._check_types()
        self._check_ranges()
        self._check_prize_order()

    def _check_types(self) -> None:
        """Whole numbers (stored as ``int``) and booleans where the fields need them."""
        for name in ("cards", "players", "cards_per_bid", "open_prizes"):
            value = getattr(self, name)
            if not is_whole(value):
                _fail((name,), f"must be a whole number, not {quoted(value)}")
            object.__setattr__(self, name, operator.index(value))
        for name in ("unique_bids", "high_ace"):
            if not isinstance(getattr(self, name), bool):
                _fail((name,), f"must be true or false, not {quoted(getattr(self, name))}")

    def _check_ranges(self) -> None:
        """The numbers in range, the tie rule known, open prizes only with carry-over."""
        if not 1 <= self.cards <= 13:
            _fail(("cards",), f"must be 1..13, not {quoted(self.cards)}")
        if not 2 <= self.players <= 5:
            _fail(("players",), f"must be 2..5, not {quoted(self.players)}")
        if not isinstance(self.tie_rule, str) or self.tie_rule not in ("carry", "discard"):
            _fail(("tie_rule",), f"must be 'carry' or 'discard', not {quoted(self.tie_rule)}")
        if not 1 <= self.cards_per_bid <= self.cards:
            _fail(
                ("cards_per_bid", "cards"),
                f"a bid of {quoted(self.cards_per_bid)} cards needs 1..{self.cards} cards per bid",
            )
        if not 1 <= self.open_prizes <= self.cards:
            _fail(("open_prizes", "cards"), f"the display must hold 1..{self.cards} prizes")
        if self.open_prizes > 1 and self.tie_rule != "carry":
            _fail(
                ("open_prizes", "tie_rule"),
                "open prizes stay in the display when bids tie (carry-over by nature); "
                "use tie_rule='carry' with open_prizes > 1",
            )

    def _check_prize_order(self) -> None:
        """A named order, or a given one (stored as a tuple) listing each rank once."""
        order = self.prize_order
        if isinstance(order, (list, tuple)):
            if len(order) > 13 or not all(is_whole(x) for x in order):
                _fail(
                    ("prize_order",),
                    f"a given prize order is a sequence of whole numbers, not {quoted(order)}",
                )
            order = tuple(operator.index(x) for x in order)
            object.__setattr__(self, "prize_order", order)
            if sorted(order) != list(range(1, self.cards + 1)):
                _fail(
                    ("prize_order", "cards"),
                    f"a given prize order must list each rank 1..{self.cards} once, not {order}",
                )
        elif not isinstance(order, str) or order not in ("shuffled", "ascending", "descending"):
            _fail(
                ("prize_order",),
                f"must be 'shuffled', 'ascending', 'descending' or a sequence of ranks, not {quoted(order)}",
            )

    # -- card values -------------------------------------------------------------------

    def strength(self, card: int) -> int:
        """Bid strength of a card: its rank, or ``cards + 1`` for the high ace."""
        return self.cards + 1 if (card == 1 and self.high_ace) else card

    def prize_value(self, card: int) -> int:
        """Points a prize card is worth (docs/rules.md, Cards and values; High ace)."""
        return self.cards + 1 if (card == 1 and self.high_ace) else card

    @cached_property
    def deck(self) -> tuple[int, ...]:
        """All face ranks of one suit, ``(1, ..., cards)``."""
        return tuple(range(1, self.cards + 1))

    @cached_property
    def strength_table(self) -> tuple[int, ...]:
        """``strength_table[card]`` is :meth:`strength` of ``card`` (index 0 unused)."""
        return (0,) + tuple(self.strength(c) for c in self.deck)

    @cached_property
    def full_hand_mask(self) -> int:
        """A whole suit as a bit mask (bit ``c`` set for each card ``c``)."""
        return sum(1 << c for c in self.deck)

    @property
    def total_prize_value(self) -> int:
        """The sum of all prize values (91 for the standard game)."""
        return sum(self.prize_value(c) for c in self.deck)

    @property
    def rounds(self) -> int:
        """Rounds in a game: hands can make ``cards // cards_per_bid`` full bids."""
        return self.cards // self.cards_per_bid

    @property
    def fixed_order(self) -> bool:
        """True when the prize order is public (ascending, descending or given)."""
        return self.prize_order != "shuffled"

    # -- conversions -------------------------------------------------------------------

    def to_mapping(self) -> dict[str, Any]:
        """Plain dict (JSON/TOML-ready); ``Ruleset.from_mapping`` inverts it."""
        data = asdict(self)
        if isinstance(self.prize_order, tuple):
            data["prize_order"] = list(self.prize_order)
        return data

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> "Ruleset":
        """Build from a mapping; ``preset`` may name a base preset to override.

        Raises:
            RulesetError: unknown keys or invalid values.
        """
        if not isinstance(data, Mapping):
            raise RulesetError(f"a ruleset is a table of fields, not {quoted(data)}")
        data = dict(data)
        base: dict[str, Any] = {}
        if "preset" in data:
            name = data.pop("preset")
            base = dict(_preset_fields(name))
        known = {f.name for f in fields(cls)}
        unknown = sorted(map(str, set(data) - known))
        if unknown:
            raise RulesetError(
                f"{', '.join(unknown)}: unknown ruleset field(s); known: {', '.join(sorted(known))}",
                tuple(unknown),
            )
        base.update(data)
        if isinstance(base.get("prize_order"), list):
            base["prize_order"] = tuple(base["prize_order"])
        return cls(**base)

    @classmethod
    def preset(cls, name: str) -> "Ruleset":
        """A named preset: ``standard``, ``discard``, ``high-ace``, ``three-player``,
        ``two-card-bids``, ``open-prizes``, ``ascending``.

        Raises:
            RulesetError: unknown preset name.
        """
        return cls(**_preset_fields(name))

    @classmethod
    def from_spec(cls, text: str) -> "Ruleset":
        """A ruleset as every command reads one (``play --rules``, ``tournament -r``,
        ``bot-check -r``): a rules file when :func:`is_rules_file` says so
        (:meth:`from_file`), else a preset name or notation (:meth:`parse`).

        Raises:
            RulesetError: as :meth:`from_file` or :meth:`parse`; an empty (or blank) text, which
                names no rules (leave the option out for the standard game).
        """
        if not text.strip():
            raise RulesetError("the rules text is empty: give a preset name, notation or a rules file")
        return cls.from_file(text) if is_rules_file(text) else cls.parse(text)

    @classmethod
    def from_file(cls, path: str | Path) -> "Ruleset":
        """Load a ``.toml`` or ``.json`` rules file (keys as in :meth:`to_mapping`,
        optionally ``preset = "discard"`` as the base; UTF-8, a leading byte-order mark
        skipped; at most :data:`MAX_FILE` bytes; docs/rules.md, "Rules notation and files").

        Raises:
            RulesetError: unreadable file (also a FIFO, device or socket: refused at once,
                never waited on), too large, not UTF-8, bad syntax, unknown keys or invalid values.
        """
        p = Path(path)
        try:
            text = read_regular_bytes(p, MAX_FILE).decode("utf-8")
        except FileTooLargeError:
            raise RulesetError(f"rules file {str(p)!r} is over {MAX_FILE} bytes: not a rules file") from None
        except OSError as exc:
            raise RulesetError(f"rules file {str(p)!r} cannot be read: {exc.strerror}") from exc
        except UnicodeDecodeError:
            raise RulesetError(f"rules file {str(p)!r} is not a text file (UTF-8 TOML or JSON)") from None
        text = text.removeprefix("\ufeff")  # a UTF-8 byte-order mark is skipped, as in records
        try:
            if p.suffix.lower() == ".json":
                data = json.loads(text, object_pairs_hook=_refuse_repeated_keys)
            else:
                data = tomllib.loads(text)
        except (json.JSONDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
            raise RulesetError(
                f"rules file {str(p)!r} is not valid {p.suffix[1:] or 'TOML'}: {str(exc)[:200]}"
            ) from None
        if not isinstance(data, dict):
            raise RulesetError(f"rules file {str(p)!r} must hold a table of fields")
        if isinstance(data.get("ruleset"), dict):  # allow a [ruleset] table
            data = data["ruleset"]
        return cls.from_mapping(data)

    # -- the compact notation used in records and on the command line -------------------

    def describe(self) -> str:
        """Compact ``key=value`` notation, parsed back by :meth:`parse`."""
        order = self.prize_order
        order_text = ",".join(map(str, order)) if isinstance(order, tuple) else order
        parts = [
            f"cards={self.cards}",
            f"players={self.players}",
            f"ties={self.tie_rule}",
        ]
        if self.unique_bids:
            parts.append("unique=yes")
        parts += [
            f"ace={'high' if self.high_ace else 'low'}",
            f"bid={self.cards_per_bid}",
            f"display={self.open_prizes}",
            f"order={order_text}",
        ]
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> "Ruleset":
        """Parse :meth:`describe`'s notation, or a preset name.

        This is the one reader of ruleset text: every command and the
        tournament and protocol code go through it, so a mistyped preset gets
        the same answer everywhere.

        >>> Ruleset.parse("cards=4 ties=discard") == Ruleset(cards=4, tie_rule="discard")
        True
        >>> Ruleset.parse("discrad")
        Traceback (most recent call last):
        ...
        cardtable.goofspiel.errors.RulesetError: preset: unknown preset 'discrad' (did you mean 'discard'?); presets: standard, discard, high-ace, three-player, two-card-bids, open-prizes, ascending

        Raises:
            RulesetError: an unknown preset (the message lists the presets),
                unknown keys or values.
        """
        if not isinstance(text, str):
            raise RulesetError(f"ruleset notation is text, not {quoted(text)}")
        text = text.strip()
        if text in PRESETS:
            return cls.preset(text)
        if len(text) > MAX_NOTATION:
            raise RulesetError(
                f"ruleset notation of {len(text)} characters; at most {MAX_NOTATION}: {quoted(text)}"
            )
        if text and "=" not in text and len(text.split()) == 1:
            _preset_fields(text)  # a single word: a preset name, perhaps mistyped
        data: dict[str, Any] = {}
        for item in text.split():
            key, sep, value = item.partition("=")
            if not sep:
                raise RulesetError(f"{quoted(item)}: expected key=value in ruleset {quoted(text)}")
            field_name, converted = _parse_field(key, value)
            if field_name in data:
                raise RulesetError(f"{key}: given twice in ruleset {quoted(text)}", (field_name,))
            data[field_name] = converted
        return cls.from_mapping(data)

    def __str__(self) -> str:
        return self.describe()


#: The longest ruleset notation accepted, in characters (a full one is under 120).
MAX_NOTATION = 500
#: The largest rules file read, in bytes.
MAX_FILE = 65536


def _refuse_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads`` hook: a key given twice is an error, not "the last one wins"."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RulesetError(f"{quoted(key)}: given twice in the rules file", (key,))
        out[key] = value
    return out


def _fail(names: tuple[str, ...], message: str) -> NoReturn:
    """Raise the :class:`RulesetError` of the fields ``names``: ``"cards, open_prizes: ..."``."""
    raise RulesetError(f"{', '.join(names)}: {message}", names)


_KEY_ALIASES = {
    "cards": "cards",
    "players": "players",
    "ties": "tie_rule",
    "tie_rule": "tie_rule",
    "unique": "unique_bids",
    "unique_bids": "unique_bids",
    "ace": "high_ace",
    "high_ace": "high_ace",
    "bid": "cards_per_bid",
    "cards_per_bid": "cards_per_bid",
    "display": "open_prizes",
    "open_prizes": "open_prizes",
    "order": "prize_order",
    "prize_order": "prize_order",
    "preset": "preset",
}


def _parse_bool(key: str, value: str) -> bool:
    v = value.lower()
    if v in ("yes", "true", "1", "on", "high"):
        return True
    if v in ("no", "false", "0", "off", "low"):
        return False
    raise RulesetError(f"{key}: expected yes/no, not {quoted(value)}", (key,))


def _parse_field(key: str, value: str) -> tuple[str, Any]:
    name = _KEY_ALIASES.get(key)
    if name is None:
        raise RulesetError(
            f"{quoted(key)}: unknown ruleset key; known: {', '.join(sorted(set(_KEY_ALIASES)))}", (key,)
        )
    if name in ("cards", "players", "cards_per_bid", "open_prizes"):
        number = whole_number(value, max_digits=3)
        if number is None:
            raise RulesetError(f"{name}: must be a whole number, not {quoted(value)}", (name,))
        return name, number
    if name in ("unique_bids", "high_ace"):
        return name, _parse_bool(name, value)
    if name == "prize_order" and ("," in value or whole_number(value) is not None):
        ranks = [whole_number(x, max_digits=3) for x in value.split(",")]
        if None in ranks:
            raise RulesetError(f"prize_order: bad sequence {quoted(value)}", (name,))
        return name, tuple(ranks)
    return name, value


def _preset_fields(name: str) -> dict[str, Any]:
    if not isinstance(name, str) or name not in PRESETS:
        close = (
            get_close_matches(name.lower(), PRESETS, n=1) if isinstance(name, str) and len(name) < 40 else []
        )
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise RulesetError(
            f"preset: unknown preset {quoted(name)}{hint}; presets: {', '.join(PRESETS)}", ("preset",)
        )
    return PRESETS[name]
