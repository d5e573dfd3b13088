"""The Golf ruleset: an immutable, validated description of one variant.

Defaults are those of docs/golf.md, "Players and cards": 2-3 players, one 52-card deck (two for
3 players), a 3x3 grid, the bottom row looked at once, A = 1, 2..10 face
value, J (Detective) = Q (Thief) = 10, K = 0; ending early needs three
discarded grid cards; a losing early ender gets one extra card next game.
Every decision the text leaves open is listed in docs/golf.md, "Decisions where the text is silent".

>>> GolfRuleset().describe()
'players=2 decks=1 rows=3 cols=3 peek_rows=1 early_end_min=3 penalty_cards=1 ender_extra_cards=1 snap_opponents=true detective=J thief=Q values=1,2,3,4,5,6,7,8,9,10,10,10,0'
>>> GolfRuleset(players=3).decks
2
>>> GolfRuleset.parse("players=3 decks=1").decks
1
>>> GolfRuleset(players=4)
Traceback (most recent call last):
...
cardtable.golf.errors.GolfRulesetError: players: must be 2 or 3, not 4
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping, NoReturn

from cardtable.errors import quoted
from cardtable.platform.records import whole_number

from .cards import card_rank, parse_rank, rank_name
from .errors import GolfRulesetError

#: A = 1, 2..10 face value, J = Q = 10, K = 0 (docs/golf.md, "Players and cards").
DEFAULT_VALUES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 0)
#: A card's value is at most this many points either way (docs/golf.md, Rules and variants)
MAX_CARD_VALUE = 99


@dataclass(frozen=True)
class GolfRuleset:
    """One Golf variant (docs/golf.md, Rules; open points in "Decisions where the text is silent").

    Attributes:
        players: 2 or 3.
        decks: number of 52-card decks; ``None`` (default) means 1 for 2 players
            and 2 for 3 players (docs/golf.md, "Players and cards"). Stored resolved (always an int).
        rows, cols: the grid each player is dealt (3x3).
        peek_rows: bottom rows each player looks at once after the deal (1).
        values: points of ranks A..K (13 numbers).
        detective_rank: rank whose drawn card lets the drawer look at one own
            card (11 = J); ``None`` disables the Detective.
        thief_rank: rank whose drawn card lets the drawer blind-swap one own
            card with an opponent's (12 = Q); ``None`` disables the Thief.
        early_end_min: cards of their own grid a player must have snapped
            before ending early (3; snaps of opponents' cards do not count).
        penalty_cards: cards drawn face down after a wrong snap (1); no snap is
            accepted while the draw pile holds fewer.
        ender_extra_cards: extra bottom-row cards for an early ender who does
            not win, in the next game (1).
        snap_opponents: whether known opponent cards may be snapped (True).

    Raises:
        GolfRulesetError: any value out of range or an impossible combination.
    """

    players: int = 2
    decks: int | None = None
    rows: int = 3
    cols: int = 3
    peek_rows: int = 1
    values: tuple[int, ...] = DEFAULT_VALUES
    detective_rank: int | None = 11
    thief_rank: int | None = 12
    early_end_min: int = 3
    penalty_cards: int = 1
    ender_extra_cards: int = 1
    snap_opponents: bool = True

    def __post_init__(self) -> None:
        """Check every setting, in this order (the first problem is raised), and fill in
        ``decks`` (1 for two players, 2 for three) when it is ``None``.

        Raises:
            GolfRulesetError: names the settings at fault.
        """
        self._check_whole_numbers()
        self._check_table()
        self._check_values()
        self._check_powers()
        self._check_limits()

    def _check_whole_numbers(self) -> None:
        for name in (
            "players",
            "rows",
            "cols",
            "peek_rows",
            "early_end_min",
            "penalty_cards",
            "ender_extra_cards",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                _fail((name,), f"must be a whole number, not {quoted(value)}")

    def _check_table(self) -> None:
        """Players, decks and the grid's shape."""
        if self.players not in (2, 3):
            _fail(("players",), f"must be 2 or 3, not {self.players}")
        if self.decks is None:
            object.__setattr__(self, "decks", 1 if self.players == 2 else 2)
        if not isinstance(self.decks, int) or isinstance(self.decks, bool) or not 1 <= self.decks <= 4:
            _fail(("decks",), f"must be 1..4, not {quoted(self.decks)}")
        if not (1 <= self.rows <= 5 and 1 <= self.cols <= 5):
            _fail(("rows", "cols"), f"the grid must be 1..5 by 1..5, not {self.rows}x{self.cols}")
        if not 0 <= self.peek_rows <= self.rows:
            _fail(("peek_rows",), f"must be 0..{self.rows}, not {self.peek_rows}")

    def _check_values(self) -> None:
        """13 whole numbers, stored as a tuple."""
        values = tuple(self.values) if isinstance(self.values, (list, tuple)) else None
        if (
            values is None
            or len(values) != 13
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)
        ):
            _fail(("values",), f"must be 13 whole numbers (A..K), not {quoted(self.values)}")
        if not all(-MAX_CARD_VALUE <= v <= MAX_CARD_VALUE for v in values):
            _fail(
                ("values",), f"each must be {-MAX_CARD_VALUE}..{MAX_CARD_VALUE} points, not {quoted(values)}"
            )
        object.__setattr__(self, "values", values)

    def _check_powers(self) -> None:
        """The Detective's and the Thief's ranks: 1..13 or ``None``, not the same."""
        for name in ("detective_rank", "thief_rank"):
            rank = getattr(self, name)
            if rank is not None and (not isinstance(rank, int) or not 1 <= rank <= 13):
                _fail((name,), f"must be a rank 1..13 or none, not {quoted(rank)}")
        if self.detective_rank is not None and self.detective_rank == self.thief_rank:
            _fail(("detective_rank", "thief_rank"), "the Detective and the Thief need different ranks")

    def _check_limits(self) -> None:
        """Counts not negative, ``snap_opponents`` a bool, and a deck that deals every grid."""
        if self.early_end_min < 0 or self.penalty_cards < 0 or not 0 <= self.ender_extra_cards <= 3:
            _fail(
                ("early_end_min", "penalty_cards", "ender_extra_cards"),
                "must not be negative (extra cards at most 3)",
            )
        if not isinstance(self.snap_opponents, bool):
            _fail(("snap_opponents",), f"must be true or false, not {quoted(self.snap_opponents)}")
        need = self.players * (self.grid_size + self.ender_extra_cards) + 1
        if need > self.deck_size:
            _fail(
                ("players", "decks", "rows", "cols"),
                f"{self.deck_size} cards cannot deal {self.players} grids of "
                f"{self.rows}x{self.cols} and leave a draw pile",
            )

    @property
    def grid_size(self) -> int:
        """Cards dealt to each grid (``rows * cols``)."""
        return self.rows * self.cols

    @property
    def deck_count(self) -> int:
        """``decks`` as a number: ``None`` is replaced when the ruleset is made, so it is one."""
        assert self.decks is not None, "decks is filled in by __post_init__"
        return self.decks

    @property
    def deck_size(self) -> int:
        """Cards in play: ``52 * decks``."""
        return 52 * self.deck_count

    def value(self, card: int) -> int:
        """Points of card id ``card`` at the end of a game."""
        return self.values[card_rank(card) - 1]

    def rank_value(self, rank: int) -> int:
        """Points of rank ``rank`` (1..13)."""
        return self.values[rank - 1]

    def power(self, rank: int) -> str | None:
        """``"detective"``, ``"thief"`` or ``None`` for a drawn card of ``rank``."""
        if rank == self.detective_rank:
            return "detective"
        if rank == self.thief_rank:
            return "thief"
        return None

    def describe(self) -> str:
        """One line ``key=value ...`` that :meth:`parse` reads back."""
        parts = []
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "values":
                text = ",".join(str(x) for x in v)
            elif f.name in ("detective_rank", "thief_rank"):
                text = "none" if v is None else rank_name(v)
                parts.append(f"{f.name.removesuffix('_rank')}={text}")
                continue
            elif isinstance(v, bool):
                text = "true" if v else "false"
            else:
                text = str(v)
            parts.append(f"{f.name}={text}")
        order = [
            "players",
            "decks",
            "rows",
            "cols",
            "peek_rows",
            "early_end_min",
            "penalty_cards",
            "ender_extra_cards",
            "snap_opponents",
            "detective",
            "thief",
            "values",
        ]
        parts.sort(key=lambda p: order.index(p.split("=")[0]))
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> "GolfRuleset":
        """Read ``key=value`` pairs (the form :meth:`describe` writes).

        Raises:
            GolfRulesetError: unknown key, bad value, or an invalid ruleset.
        """
        data: dict[str, Any] = {}
        for item in text.split():
            key, eq, value = item.partition("=")
            if not eq:
                raise GolfRulesetError(f"{quoted(item)}: expected key=value", (item,))
            key = key.strip().lower()
            if key in data:  # as Goofspiel's notation: a key given twice is an error, not "the last wins"
                raise GolfRulesetError(f"{key}: given twice", (key,))
            data[key] = value.strip()
        return cls.from_dict(data, notation=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], notation: bool = False) -> "GolfRuleset":
        """Build from a mapping: JSON values (numbers as numbers, ``snap_opponents`` a
        boolean, ``values`` a list; only the ranks of ``detective`` and ``thief`` are text),
        or with ``notation`` the text values of :meth:`parse`.

        Raises:
            GolfRulesetError: unknown key, bad value (in JSON also a number or boolean given
                as text, e.g. ``"rows": "3"``), or an invalid ruleset.
        """
        names = {f.name for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            name = {"detective": "detective_rank", "thief": "thief_rank"}.get(key, key)
            if name not in names:
                raise GolfRulesetError(f"{key}: unknown setting; known: {', '.join(sorted(names))}", (key,))
            if not notation and isinstance(value, str) and name not in ("detective_rank", "thief_rank"):
                raise GolfRulesetError(
                    f"{key}: bad value {quoted(value)} (text; give a JSON number or true/false)", (key,)
                )
            try:
                kwargs[name] = _convert(name, value)
            except (ValueError, TypeError) as exc:
                raise GolfRulesetError(f"{key}: bad value {quoted(value)} ({exc})", (key,)) from None
        return cls(**kwargs)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready mapping; :meth:`from_dict` reads it back."""
        d = asdict(self)
        d["values"] = list(self.values)
        return d


def _fail(names: tuple[str, ...], message: str) -> NoReturn:
    raise GolfRulesetError(f"{', '.join(names)}: {message}", names)


def _convert(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        return list(value) if name == "values" and isinstance(value, list) else value
    v = value.strip()
    if name == "values":
        return tuple(_whole_text(x.strip(), name) for x in v.split(","))
    if name in ("detective_rank", "thief_rank"):
        return None if v.lower() in ("none", "off", "") else parse_rank(v)
    if name == "snap_opponents":
        if v.lower() in ("true", "yes", "1", "on"):
            return True
        if v.lower() in ("false", "no", "0", "off"):
            return False
        raise ValueError("use true or false")
    if name == "decks" and v.lower() in ("none", "auto"):
        return None
    return _whole_text(v, name)


def _whole_text(text: str, name: str) -> int:
    """A number of the notation: ASCII digits, ``-`` allowed for card values (docs/rules.md,
    Numbers in text), at most 9 digits.

    Raises:
        ValueError: anything else (``²``, ``1_0``, ``+3``, ``1e3``).
    """
    value = whole_number(text, signed=name == "values")
    if value is None:
        raise ValueError("not a whole number of ASCII digits")
    return value
