"""Goofspiel game records: a plain-text notation and JSON, both round-trip exact.

The text notation is line based and diff friendly. A game is a block of tag
lines ``[Name "value"]`` followed by one line per round; a file may hold
several games (a match), separated by blank lines::

    [Game "goofspiel"]
    [Rules "cards=3 players=2 ties=carry ace=low bid=1 display=1 order=ascending"]
    [Players "Anna; Ben"]
    [Scores "5 0"]
    [Result "win loss"]

    1. A♦ | 2♠ 2♣ | tie carried
    2. A♦ 2♦ | 3♠ 1♣ | 1 +3
    3. 3♦ | A♠ 3♣ | 2 +3

A round line is ``N. PRIZES | BIDS | OUTCOME``:

- ``PRIZES``: the face-up prizes played for (the pot, or the open display);
- ``BIDS``: one bid per seat in seat order, a multi-card bid joined by ``+``
  (``7♠+9♠``); seat suits are ♠ ♣ ♥ ♤ ♧ (cards.py);
- ``OUTCOME``: ``S +V`` (seat S, 1-based, took the pot worth V points),
  ``tie carried`` (carry-over), ``tie discarded`` (discard ties), ``tie unowned``
  (a tie in the last round: docs/rules.md, Ties); with open prizes the takes in order,
  ``S:PRIZE`` (``2:K♦ 1:9♦``), or ``none``.

Tags: ``Game`` (always ``goofspiel``), ``Rules`` (:meth:`Ruleset.describe`),
``Players`` (names joined by ``"; "``), optional ``Seed`` (orders the prizes:
:func:`~cardtable.goofspiel.state.prize_order_for`), ``SeedCommit`` (SHA-256
of the seed, published before play), ``Scores``, ``Result`` (``win``/``draw``/
``loss`` per seat), for matches ``Match`` (:class:`MatchFormat` text),
``MatchGame`` and, on the last game, ``MatchResult``; any other tag (``Event``,
``Date``, ...) is kept as is.

>>> from cardtable.goofspiel import Game, Ruleset
>>> g = Game(Ruleset(cards=3, prize_order="ascending"))
>>> _ = g.play([2, 2]); _ = g.play([3, 1]); _ = g.play([1, 3])
>>> text = write_text(record_from_game(g, ["Anna", "Ben"]))
>>> print(text.splitlines()[-1])
3. 3♦ | A♠ 3♣ | 2 +3
>>> write_text(parse_text(text)) == text
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Annotated, Any, Iterable, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cardtable.platform.fairness import seed_commitment  # re-exported: records check it
from cardtable.platform.match import Match, MatchError, MatchFormat
from cardtable.platform.names import PlayerNameError, check_player_names, split_player_names
from cardtable.platform.records import (
    MAX_GAMES,
    MAX_LINE,
    MAX_TAGS,
    check_repeated_keys,
    check_size,
    free_tags_problem,
    json_error_line,
    json_line,
    json_line_index,
    parse_tag,
    quote_tag,
    record_lines,
    schema_error_text,
    short,
    strip_bom,
    tag_value_problem,
    whole_number,
)

from .cards import PLAYER_SUITS, PRIZE_SUIT, format_card, parse_card, split_suit
from .errors import CardError, GoofspielError, RulesetError
from .ruleset import Ruleset
from .state import Game, RoundResult, prize_order_for

GAME_TAG = "goofspiel"


class RecordError(GoofspielError):
    """A malformed or inconsistent record; ``line`` is the 1-based line number (or ``None``)."""

    def __init__(self, message: str, line: int | None = None, round: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.round = round
        self.reason = message


@dataclass(frozen=True)
class RoundLine:
    """One round as written in a record.

    Attributes:
        prizes: the face-up prizes played for, in the order turned up.
        bids: each seat's bid (a tuple of face ranks).
        winner: seat (0-based) that took the pot; ``None`` on a tie or with open prizes.
        taken: open prizes: ``(seat, prize)`` in the order taken.
        tie: ``"carried"``, ``"discarded"``, ``"unowned"`` or ``None`` (no tie).
        points: the stated value of the pot won (single-prize games), else ``None``.
    """

    prizes: tuple[int, ...]
    bids: tuple[tuple[int, ...], ...]
    winner: int | None = None
    taken: tuple[tuple[int, int], ...] = ()
    tie: str | None = None
    points: int | None = None


@dataclass(frozen=True)
class GameRecord:
    """A whole game as recorded (one entry of a record file).

    Attributes:
        ruleset: the variant.
        players: display names in seat order.
        rounds: the rounds, in order.
        seed: the text seed of a shuffled prize order, if known.
        scores: the stated final points per seat (``None`` for an unfinished game).
        result: the stated outcome per seat (``"win"``, ``"draw"``, ``"loss"``).
        tags: every other tag, in file order (``Event``, ``Date``, ``Match``, ...).
        line_numbers: source line of each round (parsed records only; not compared).
        tag_lines: ``(tag, source line)`` pairs (parsed records only; not compared).
        source: where a JSON record came from, to find lines only when an error needs
            one (not compared).
    """

    ruleset: Ruleset
    players: tuple[str, ...]
    rounds: tuple[RoundLine, ...]
    seed: str | None = None
    scores: tuple[int, ...] | None = None
    result: tuple[str, ...] | None = None
    tags: tuple[tuple[str, str], ...] = ()
    line_numbers: tuple[int, ...] = field(default=(), compare=False, repr=False)
    tag_lines: tuple[tuple[str, int], ...] = field(default=(), compare=False, repr=False)
    source: "JsonSource | None" = field(default=None, compare=False, repr=False)

    def tag(self, name: str) -> str | None:
        """The value of an extra tag, or ``None``."""
        return dict(self.tags).get(name)

    def line_of(self, tag: str) -> int | None:
        """The source line of a tag (``None`` when unknown)."""
        found = dict(self.tag_lines).get(tag)
        if found or self.source is None:
            return found or None
        fields = {"Scores": ("scores",), "Result": ("result",), "Seed": ("seed",), "Rules": ("rules",)}
        names = [name for name, _ in self.tags]
        path = fields.get(tag) or (("tags", names.index(tag)) if tag in names else ())
        return self.source.line(path)

    def round_line(self, number: int) -> int | None:
        """The source line of round ``number`` (1-based; ``None`` when unknown)."""
        if self.line_numbers:
            return self.line_numbers[number - 1] or None
        return self.source.line(("rounds", number - 1)) if self.source is not None else None

    def first_line(self) -> int | None:
        """The source line where the game starts (``None`` when unknown)."""
        if self.source is not None:
            return self.source.line(())
        return min((n for _, n in self.tag_lines if n), default=None)


class JsonSource:
    """One game of a JSON record file: finds the line of a field on demand (the file is
    indexed once, at the first question, so reading a valid file costs nothing extra)."""

    def __init__(self, shared: dict, text: str, game: int) -> None:
        self._shared, self._text, self._game = shared, text, game

    def line(self, path: tuple) -> int | None:
        """The line of ``games[game]`` + ``path``, or of its nearest enclosing value."""
        if "index" not in self._shared:
            self._shared["index"] = json_line_index(self._text, 4)
        index = self._shared["index"]
        full = ("games", self._game) + tuple(path)
        for size in range(len(full), -1, -1):
            if full[:size] in index:
                return index[full[:size]]
        return None


def record_from_game(game: Game, players: Sequence[str], tags: Iterable[tuple[str, str]] = ()) -> GameRecord:
    """The record of a game (finished or not; unfinished games have no scores/result).

    Raises:
        GoofspielError: not one name per seat, or a name the name policy refuses
            (:mod:`cardtable.platform.names`): every recorded name must read back.
    """
    rs = game.ruleset
    tags = tuple(tags)
    total_rounds = len(game.history)
    rounds = []
    for r in game.history:
        rounds.append(_round_line(r, rs, last=game.is_over and r.number == total_rounds))
    scores = result = None
    if game.is_over:
        res = game.result()
        scores, result = res.points, res.outcomes
    if len(players) != rs.players:
        raise GoofspielError(f"{rs.players} player names needed, got {len(players)}")
    record = GameRecord(
        ruleset=rs,
        players=tuple(players),
        rounds=tuple(rounds),
        seed=game.seed if not rs.fixed_order else None,
        scores=scores,
        result=result,
        tags=tuple(tags),
    )
    check_record(record)
    return record


def check_record(record: GameRecord) -> None:
    """Refuse a record that a notation cannot hold or read back as it is: the one check of
    names, seed and free tags that :func:`record_from_game`, both writers (:func:`write_text`,
    :func:`to_json`) and both readers apply, so the text and JSON notations hold the same
    records (docs/rules.md, "Reading records").

    Raises:
        RecordError: (a ``GoofspielError``) ``cannot be recorded: ...``: not one name per
            seat, a name the name policy refuses (:mod:`cardtable.platform.names`), a seed
            that is no one-line text (:func:`~cardtable.platform.records.tag_value_problem`),
            a free tag that is not a ``(name, text)`` pair, is repeated or reserved, more
            than 100 free tags, or a ``Hints`` value other than ``on``/``off``.
    """
    problem = _record_problem(record)
    if problem:
        raise RecordError(f"cannot be recorded: {problem}")


def _record_problem(record: GameRecord) -> str | None:
    players = record.players
    if not isinstance(players, (tuple, list)) or len(players) != record.ruleset.players:
        return f"{record.ruleset.players} player names needed, got {short(repr(players))}"
    try:
        check_player_names(players)
    except PlayerNameError as exc:
        return str(exc)
    if record.seed is not None:
        problem = tag_value_problem("Seed", record.seed)
        if problem:
            return problem
    found = _free_tags_problem(record.tags)
    return f"tags[{found[0]}]: {found[1]}" if found else None


def _round_line(r: RoundResult, rs: Ruleset, last: bool) -> RoundLine:
    if rs.open_prizes > 1:
        return RoundLine(r.prizes, r.bids, None, r.taken, None, None)
    if r.winner is not None:
        return RoundLine(r.prizes, r.bids, r.winner, (), None, sum(rs.prize_value(p) for p in r.prizes))
    tie = "carried" if r.carried else ("unowned" if last else "discarded")
    return RoundLine(r.prizes, r.bids, None, (), tie, None)


# -- writing -----------------------------------------------------------------------------


def _bid_text(bid: tuple[int, ...], seat: int) -> str:
    return "+".join(format_card(c, PLAYER_SUITS[seat]) for c in bid)


def format_round(number: int, line: RoundLine) -> str:
    """One round line, e.g. ``'3. 5♦ 9♦ | 8♠ 10♣ | 2 +14'``."""
    prizes = " ".join(format_card(p, PRIZE_SUIT) for p in line.prizes)
    bids = " ".join(_bid_text(b, s) for s, b in enumerate(line.bids))
    if line.taken:
        outcome = " ".join(f"{s + 1}:{format_card(p, PRIZE_SUIT)}" for s, p in line.taken)
    elif line.winner is not None:
        outcome = f"{line.winner + 1} +{line.points}"
    elif line.tie is not None:
        outcome = f"tie {line.tie}"
    else:
        outcome = "none"
    return f"{number}. {prizes} | {bids} | {outcome}"


def write_game(record: GameRecord) -> str:
    """The text notation of one game (no trailing blank line).

    Raises:
        RecordError: a record the notations cannot hold (:func:`check_record`), e.g. a
            hand-built one with a name the name policy refuses.
    """
    check_record(record)
    tags = [("Game", GAME_TAG), ("Rules", record.ruleset.describe()), ("Players", "; ".join(record.players))]
    if record.seed is not None:
        tags.append(("Seed", record.seed))
    tags.extend(record.tags)
    if record.scores is not None:
        tags.append(("Scores", " ".join(map(str, record.scores))))
    if record.result is not None:
        tags.append(("Result", " ".join(record.result)))
    lines = [quote_tag(name, value) for name, value in tags]
    lines.append("")
    lines.extend(format_round(i, r) for i, r in enumerate(record.rounds, 1))
    return "\n".join(lines) + "\n"


def write_text(records: GameRecord | Sequence[GameRecord]) -> str:
    """The text notation of one game or several (a match), games separated by a blank line.

    Raises:
        RecordError: a game the notations cannot hold (:func:`check_record`).
    """
    if isinstance(records, GameRecord):
        records = [records]
    return "\n".join(write_game(r) for r in records)


# -- parsing -----------------------------------------------------------------------------

_SPECIAL_TAGS = {"Game", "Rules", "Players", "Seed", "Scores", "Result"}

#: Free tags this program writes and whose values it checks: ``Hints`` says whether the
#: coach showed a player hints in the game (docs/rules.md, Reading records).
_TAG_VALUES = {"Hints": ("on", "off")}


def _tag_value_problem(name: str, value: str) -> str | None:
    """Why a known free tag's value is refused (``None`` if it is fine or the tag is free)."""
    allowed = _TAG_VALUES.get(name)
    if allowed is None or value in allowed:
        return None
    return f"bad {name} tag {short(value)}: {' or '.join(allowed)}"


def _free_tags_problem(tags) -> tuple[int, str] | None:
    """``(index, why)`` of the first free tag a record cannot hold, else ``None``
    (:func:`~cardtable.platform.records.free_tags_problem`, and a ``Hints`` value is
    ``on`` or ``off``): the text and JSON notations and :func:`record_from_game` hold the
    same tags (docs/rules.md, Reading records)."""
    found = free_tags_problem(tags, _SPECIAL_TAGS)
    if found:
        return found
    for k, (name, value) in enumerate(tags):
        problem = _tag_value_problem(name, value)
        if problem:
            return k, problem
    return None


def _error(message: str, line: int | None) -> RecordError:
    return RecordError(message, line)


def parse_text(text: str) -> list[GameRecord]:
    """Parse a record file (one or more games), in time linear in its length.

    A leading byte-order mark is skipped; lines and the file are bounded
    (:mod:`cardtable.platform.records`).

    Raises:
        RecordError: with the line number of the first malformed line; an empty record.
    """
    games: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    seen_rounds = False
    free_tags = 0  # of the current game: a file of many tag lines is refused at the first too many
    for number, line in record_lines(text, _error):
        if line.startswith("[") and seen_rounds:
            games.append(current)
            current, seen_rounds, free_tags = [], False, 0
            if len(games) == MAX_GAMES:
                raise RecordError(f"more than {MAX_GAMES:,} games in one record", number)
        if not line.startswith("["):
            seen_rounds = True
        elif line[1:].partition(" ")[0] not in _SPECIAL_TAGS:
            free_tags += 1
            if free_tags > MAX_TAGS:
                raise RecordError(f"more than {MAX_TAGS} free tags in one game", number)
        current.append((number, line))
    if current:
        games.append(current)
    if not games:
        raise RecordError("the record is empty: no game found")
    return [_parse_game(lines) for lines in games]


def _parse_players(value: str, line: int) -> tuple[str, ...]:
    try:
        return tuple(split_player_names(value))
    except PlayerNameError as exc:
        raise RecordError(f"Players tag: {exc}", line) from None


def _read_tag(
    line: str, number: int, tags: dict[str, str], tag_lines: dict[str, int], extra: list[tuple[str, str]]
) -> Ruleset | None:
    """Record one tag line in ``tags`` (the special tags) or ``extra`` (the free ones).

    Returns:
        the ruleset when the tag is ``Rules``, else ``None``.

    Raises:
        RecordError: a malformed or repeated tag, a bad value, too many free tags, bad rules.
    """
    name, value = parse_tag(line, number, _error)
    if name in tag_lines:
        raise RecordError(f"tag {name} appears twice", number)
    tag_lines[name] = number
    if name in _SPECIAL_TAGS:
        tags[name] = value
        if name == "Seed" and tag_value_problem(name, value):
            raise RecordError(str(tag_value_problem(name, value)), number)
    else:
        if len(extra) == MAX_TAGS:
            raise RecordError(f"more than {MAX_TAGS} free tags in one game", number)
        problem = tag_value_problem(name, value) or _tag_value_problem(name, value)
        if problem:
            raise RecordError(problem, number)
        extra.append((name, value))
    if name != "Rules":
        return None
    try:
        return Ruleset.parse(value)
    except RulesetError as exc:
        raise RecordError(f"bad Rules tag: {exc}", number) from None


def _round_ruleset(ruleset: Ruleset | None, tags: dict[str, str], number: int) -> Ruleset:
    """The ruleset a round line on line ``number`` is read under; the tags it needs must come first."""
    if ruleset is None:
        raise RecordError("round line before the Rules tag", number)
    if not tags.get("Players"):
        raise RecordError("round line before the Players tag", number)
    return ruleset


def _game_ruleset(
    ruleset: Ruleset | None, tags: dict[str, str], tag_lines: dict[str, int], first_line: int
) -> Ruleset:
    """The game's ruleset once every line is read: the Game, Rules and Players tags checked."""
    if tags.get("Game", GAME_TAG) != GAME_TAG:
        raise RecordError(f"not a Goofspiel record (Game tag {short(tags['Game'])})", tag_lines["Game"])
    if ruleset is None:
        raise RecordError("missing Rules tag", first_line)
    if "Players" not in tags:
        raise RecordError("missing Players tag", first_line)
    return ruleset


def _parse_scores(text: str, line: int, rs: Ruleset) -> tuple[int, ...]:
    """The Scores tag's value: one whole number per player."""
    parsed = [whole_number(x) for x in text.split()]
    if None in parsed:
        raise RecordError(f"bad Scores tag {short(text)}: whole numbers expected", line)
    scores = tuple(x for x in parsed if x is not None)  # None is not in parsed
    if len(scores) != rs.players:
        raise RecordError("Scores tag needs one score per player", line)
    return scores


def _parse_result(text: str, line: int, rs: Ruleset) -> tuple[str, ...]:
    """The Result tag's value: one of win/draw/loss per player."""
    result = tuple(text.split())
    if len(result) != rs.players or not set(result) <= {"win", "draw", "loss"}:
        raise RecordError(f"bad Result tag {short(text)}: one of win/draw/loss per player", line)
    return result


def _parse_game(lines: list[tuple[int, str]]) -> GameRecord:
    tags: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    extra: list[tuple[str, str]] = []
    rounds: list[RoundLine] = []
    numbers: list[int] = []
    ruleset: Ruleset | None = None
    for number, line in lines:
        if line.startswith("["):
            if rounds:
                raise RecordError("tag line after the round lines", number)
            parsed = _read_tag(line, number, tags, tag_lines, extra)
            ruleset = ruleset if parsed is None else parsed
            continue
        rounds.append(_parse_round(line, number, len(rounds) + 1, _round_ruleset(ruleset, tags, number)))
        numbers.append(number)
    ruleset = _game_ruleset(ruleset, tags, tag_lines, lines[0][0])
    players = _parse_players(tags["Players"], tag_lines["Players"])
    if len(players) != ruleset.players:
        raise RecordError(
            f"Players tag names {len(players)} player(s); the rules have {ruleset.players}",
            tag_lines["Players"],
        )
    scores = _parse_scores(tags["Scores"], tag_lines["Scores"], ruleset) if "Scores" in tags else None
    result = _parse_result(tags["Result"], tag_lines["Result"], ruleset) if "Result" in tags else None
    return GameRecord(
        ruleset=ruleset,
        players=players,
        rounds=tuple(rounds),
        seed=tags.get("Seed"),
        scores=scores,
        result=result,
        tags=tuple(extra),
        line_numbers=tuple(numbers),
        tag_lines=tuple(tag_lines.items()),
    )


def _parse_prize(token: str, rs: Ruleset, number: int) -> int:
    head, suit = split_suit(token)
    if suit not in (None, PRIZE_SUIT):
        raise RecordError(f"{short(token)} is not a prize: prizes are {PRIZE_SUIT}", number)
    try:
        return parse_card(head, rs.cards)
    except CardError as exc:
        raise RecordError(str(exc), number) from None


def _parse_bid(token: str, seat: int, rs: Ruleset, number: int) -> tuple[int, ...]:
    """One seat's bid token (cards joined by ``+``), sorted."""
    cards = []
    for part in token.split("+"):
        try:
            cards.append(parse_card(part, rs.cards, PLAYER_SUITS[seat]))
        except CardError as exc:
            raise RecordError(f"player {seat + 1}'s bid: {exc}", number) from None
    return tuple(sorted(cards))


def _parse_takes(outcome: list[str], rs: Ruleset, number: int) -> tuple[tuple[int, int], ...]:
    """An open-prize round's takes, ``SEAT:PRIZE`` tokens, as (seat from 0, prize) pairs."""
    taken = []
    for token in outcome:
        seat_text, sep, prize_text = token.partition(":")
        taker = whole_number(seat_text, max_digits=1)
        if not sep or taker is None or not 1 <= taker <= rs.players:
            raise RecordError(f"bad take {short(token)}; expected SEAT:PRIZE such as 2:K♦", number)
        taken.append((taker - 1, _parse_prize(prize_text, rs, number)))
    return tuple(taken)


def _parse_one_prize_outcome(
    outcome_text: str, prizes: tuple[int, ...], bids: tuple[tuple[int, ...], ...], rs: Ruleset, number: int
) -> RoundLine:
    """The round of a one-prize game: ``tie FATE`` or ``SEAT +POINTS``."""
    outcome = outcome_text.split()
    if outcome[0] == "tie":
        if len(outcome) != 2 or outcome[1] not in ("carried", "discarded", "unowned"):
            raise RecordError(
                f"bad tie outcome {short(outcome_text.strip())}; expected 'tie carried|discarded|unowned'",
                number,
            )
        return RoundLine(prizes, bids, tie=outcome[1])
    if len(outcome) == 2 and outcome[1].startswith("+"):
        winner, points = whole_number(outcome[0], max_digits=1), whole_number(outcome[1][1:])
        if winner is not None and points is not None:
            if not 1 <= winner <= rs.players:
                raise RecordError(f"no player {winner}", number)
            return RoundLine(prizes, bids, winner=winner - 1, points=points)
    raise RecordError(
        f"bad outcome {short(outcome_text.strip())}; expected 'SEAT +POINTS' or 'tie ...'", number
    )


def _parse_round(line: str, number: int, expected: int, rs: Ruleset) -> RoundLine:
    head, dot, rest = line.partition(".")
    parts = rest.split("|")
    if not dot or whole_number(head) is None or len(parts) != 3:
        raise RecordError(
            f"malformed round line {short(line)}; expected 'N. PRIZES | BIDS | OUTCOME'", number
        )
    prize_text, bid_text, outcome_text = parts
    if whole_number(head) != expected:
        raise RecordError(f"round number {head} where round {expected} was expected", number)
    prizes = tuple(_parse_prize(t, rs, number) for t in prize_text.split())
    if not prizes:
        raise RecordError("a round needs at least one prize", number)
    bid_tokens = bid_text.split()
    if len(bid_tokens) != rs.players:
        raise RecordError(f"{len(bid_tokens)} bid(s) where {rs.players} players bid", number)
    bids = tuple(_parse_bid(token, seat, rs, number) for seat, token in enumerate(bid_tokens))
    outcome = outcome_text.split()
    if not outcome:
        raise RecordError("missing outcome", number)
    if rs.open_prizes <= 1:
        return _parse_one_prize_outcome(outcome_text, prizes, bids, rs, number)
    if outcome == ["none"]:
        return RoundLine(prizes, bids)
    return RoundLine(prizes, bids, taken=_parse_takes(outcome, rs, number))


# -- JSON --------------------------------------------------------------------------------

FORMAT = "cardtable-goofspiel-record"
_STRICT = ConfigDict(strict=True, extra="forbid")
_Rank = Annotated[int, Field(ge=1, le=13)]
_Seat = Annotated[int, Field(ge=0, le=4)]


class _RoundModel(BaseModel):
    model_config = _STRICT
    prizes: Annotated[list[_Rank], Field(min_length=1, max_length=13)]
    bids: Annotated[
        list[Annotated[list[_Rank], Field(min_length=1, max_length=13)]], Field(min_length=2, max_length=5)
    ]
    winner: _Seat | None
    taken: Annotated[list[tuple[_Seat, _Rank]], Field(max_length=13)]
    tie: Literal["carried", "discarded", "unowned"] | None
    points: Annotated[int, Field(ge=0, le=10_000)] | None


class _GameModel(BaseModel):
    model_config = _STRICT
    rules: dict[str, Any]
    players: Annotated[list[str], Field(min_length=2, max_length=5)]
    seed: Annotated[str, Field(max_length=MAX_LINE)] | None
    tags: Annotated[list[tuple[str, Annotated[str, Field(max_length=MAX_LINE)]]], Field(max_length=MAX_TAGS)]
    scores: Annotated[list[Annotated[int, Field(ge=0, le=10_000)]], Field(min_length=2, max_length=5)] | None
    result: Annotated[list[Literal["win", "draw", "loss"]], Field(min_length=2, max_length=5)] | None
    rounds: Annotated[list[_RoundModel], Field(max_length=13)]


class _FileModel(BaseModel):
    model_config = _STRICT
    format: Literal["cardtable-goofspiel-record"]
    # a strict whole number equal to 1: a bare Literal[1] takes true and 1.0 (Python's 1 == True)
    version: Annotated[int, Field(ge=1, le=1)]
    games: Annotated[list[_GameModel], Field(min_length=1, max_length=MAX_GAMES)]


def to_json(records: GameRecord | Sequence[GameRecord]) -> str:
    """The JSON notation: ``{"format": "cardtable-goofspiel-record", "version": 1, "games": [...]}``.

    Raises:
        RecordError: a game the notations cannot hold (:func:`check_record`).
    """
    if isinstance(records, GameRecord):
        records = [records]
    games = []
    for r in records:
        check_record(r)
        games.append(
            {
                "rules": r.ruleset.to_mapping(),
                "players": list(r.players),
                "seed": r.seed,
                "tags": [list(t) for t in r.tags],
                "scores": list(r.scores) if r.scores is not None else None,
                "result": list(r.result) if r.result is not None else None,
                "rounds": [
                    {
                        "prizes": list(x.prizes),
                        "bids": [list(b) for b in x.bids],
                        "winner": x.winner,
                        "taken": [list(t) for t in x.taken],
                        "tie": x.tie,
                        "points": x.points,
                    }
                    for x in r.rounds
                ],
            }
        )
    return json.dumps({"format": FORMAT, "version": 1, "games": games}, ensure_ascii=False, indent=1)


def from_json(text: str) -> list[GameRecord]:
    """Parse :func:`to_json`'s output, validated by a schema (Pydantic, strict types and bounds).

    Raises:
        RecordError: invalid JSON or a wrong structure; the message names the field
            (``games[0].rounds[2].taken[0]``) and ``line`` is its line in the file.
    """
    text = check_size(text, _error)
    try:
        data = _FileModel.model_validate_json(text)
        check_repeated_keys(text, _error)
    except ValidationError as exc:
        raise _schema_failure(exc, text) from None
    shared: dict = {}
    return [_game_from_json(g, i, JsonSource(shared, text, i)) for i, g in enumerate(data.games)]


def _schema_failure(exc: ValidationError, text: str) -> RecordError:
    """The error for a JSON record the schema refused: the first problem and its line."""
    message, loc = schema_error_text(exc.errors())
    if not loc:
        return RecordError(f"not valid JSON: {message}", json_error_line(message))
    if loc == ("games",) and exc.errors()[0]["type"] == "too_short":
        message = "the record is empty: no game found"
    if loc[0] in ("format", "version"):
        message = f"not a cardtable Goofspiel JSON record version 1 ({message})"
    return RecordError(message, json_line(text, loc))


def _game_from_json(g: _GameModel, i: int, source: JsonSource) -> GameRecord:
    """Game ``i`` (from 0) of a JSON record, its rules, players, seed and tags checked."""

    def fail(message: str, path: tuple = ()) -> RecordError:
        return RecordError(f"game {i + 1}: {message}", source.line(path))

    try:
        rs = Ruleset.from_mapping(g.rules)
    except RulesetError as exc:
        raise fail(f"bad rules: {exc}", ("rules",)) from None
    try:
        players = tuple(check_player_names(g.players))
    except PlayerNameError as exc:
        raise fail(str(exc), ("players",)) from None
    if len(players) != rs.players:
        raise fail(f"players names {len(players)} player(s); the rules have {rs.players}", ("players",))
    if g.seed is not None and tag_value_problem("Seed", g.seed):
        raise fail(str(tag_value_problem("Seed", g.seed)), ("seed",))
    problem = _free_tags_problem(g.tags)
    if problem:
        raise fail(f"tags[{problem[0]}]: {problem[1]}", ("tags", problem[0]))
    rounds = tuple(
        RoundLine(
            tuple(x.prizes),
            tuple(tuple(sorted(b)) for b in x.bids),
            x.winner,
            tuple(x.taken),
            x.tie,
            x.points,  # pydantic made each pair a tuple
        )
        for x in g.rounds
    )
    return GameRecord(
        ruleset=rs,
        players=players,
        rounds=rounds,
        seed=g.seed,
        scores=tuple(g.scores) if g.scores is not None else None,
        result=tuple(g.result) if g.result is not None else None,
        tags=tuple(g.tags),  # pydantic made each pair a tuple
        source=source,
    )


def load_records(text: str) -> list[GameRecord]:
    """Parse either notation (JSON when the text starts with ``{``, after any byte-order mark)."""
    return from_json(text) if strip_bom(text).lstrip().startswith("{") else parse_text(text)


# -- replay and verification -------------------------------------------------------------


def revealed_prizes(record: GameRecord) -> list[int]:
    """The prizes the record shows turned up, in the order they were turned up."""
    revealed: list[int] = []
    for r in record.rounds:
        for p in r.prizes:
            if p not in revealed:
                revealed.append(p)
    return revealed


def _deck_for(record: GameRecord) -> list[int]:
    """The prize deck implied by the record: revealed prizes in order, then the rest."""
    revealed = revealed_prizes(record)
    return revealed + [p for p in record.ruleset.deck if p not in revealed]


def replay(record: GameRecord) -> Game:
    """Re-play a record, checking every bid and every stated outcome.

    Checks: each bid is legal; each round's prizes are the ones the game had face
    up; each stated outcome (winner and points, tie fate, open-prize takes) is what
    the rules give; a ``Seed`` reproduces the prize order (docs/rules.md, Seeds and
    the shuffle); ``Scores`` and ``Result`` match the finished game.

    Returns:
        The re-played :class:`Game`.

    Raises:
        RecordError: the first inconsistency, with its line number.
    """
    try:
        return _replay(record)
    except RecordError as exc:
        if exc.round is not None:
            raise RecordError(f"round {exc.round}: {exc.reason}", exc.line) from None
        raise


def _replay_deck(record: GameRecord) -> list[int]:
    """The prize deck to replay ``record`` with: the fixed order, the Seed's shuffle (checked
    against the prizes shown) or the prizes in the order shown."""
    rs = record.ruleset
    if rs.fixed_order:
        return prize_order_for(rs, None)
    if record.seed is None:
        return _deck_for(record)
    expected = prize_order_for(rs, record.seed)
    if expected[: len(revealed_prizes(record))] != revealed_prizes(record):
        raise RecordError(
            f"the Seed tag {short(record.seed)} does not reproduce the prize order of this record",
            record.line_of("Seed"),
        )
    return expected


def _replay_round(game: Game, r: RoundLine, number: int, record: GameRecord) -> None:
    """Play round ``number`` of ``record`` on ``game``, checking its prizes, bids, takes and outcome."""
    line = record.round_line(number)
    if game.is_over:
        raise RecordError("round after the end of the game", line, number)
    if tuple(game.pot) != r.prizes:
        shown = " ".join(format_card(p, PRIZE_SUIT) for p in game.pot)
        raise RecordError(f"the prizes face up were {shown}, not as written", line, number)
    try:
        result = game.play(list(r.bids))
        for seat, prize in r.taken:
            if game.phase == "choose":  # a lone last prize is taken automatically
                result = game.choose(seat, prize) or result
    except RecordError:
        raise
    except GoofspielError as exc:
        raise RecordError(str(exc), line, number) from None
    chooser = game.chooser
    if chooser is not None:  # the choose phase
        raise RecordError(f"player {chooser + 1} must still take a prize", line, number)
    stated = _round_line(result, record.ruleset, last=game.is_over)
    if stated != r:
        raise RecordError(
            f"stated outcome is wrong: the rules give '{format_round(result.number, stated).split('| ')[-1]}'",
            line,
            number,
        )


def _check_final(game: Game, record: GameRecord) -> None:
    """The Scores and Result tags, when given, are what the finished game gives."""
    if record.scores is None and record.result is None:
        return
    if not game.is_over:
        tag = "Scores" if record.scores is not None else "Result"
        raise RecordError(f"the {tag} tag states a result but the game is not finished", record.line_of(tag))
    res = game.result()
    if record.scores is not None and record.scores != res.points:
        raise RecordError(
            f"Scores tag says {' '.join(map(str, record.scores))}; the rounds give {' '.join(map(str, res.points))}",
            record.line_of("Scores"),
        )
    if record.result is not None and record.result != res.outcomes:
        raise RecordError(
            f"Result tag says {' '.join(record.result)}; the rounds give {' '.join(res.outcomes)}",
            record.line_of("Result"),
        )


def _replay(record: GameRecord) -> Game:
    for number, r in enumerate(record.rounds, 1):
        if len(set(r.prizes)) != len(r.prizes):
            raise RecordError("a prize appears twice in one round", record.round_line(number), number)
    game = Game(record.ruleset, prize_deck=_replay_deck(record), seed=record.seed)
    for number, r in enumerate(record.rounds, 1):
        _replay_round(game, r, number, record)
    _check_final(game, record)
    commit = record.tag("SeedCommit")
    if commit is not None and (record.seed is None or seed_commitment(record.seed) != commit.lower()):
        raise RecordError(
            "SeedCommit does not match the SHA-256 of the Seed tag", record.line_of("SeedCommit")
        )
    return game


def _first_line(record: GameRecord) -> int | None:
    return record.first_line()


def _check_match_tags(records: Sequence[GameRecord], fmt_text: str | None) -> None:
    """Every game has game 1's ``Match`` tag; ``MatchGame`` and ``MatchResult`` only with one,
    ``MatchResult`` on the last game only."""
    for k, r in enumerate(records, 1):
        match_tag = r.tag("Match")
        if match_tag != fmt_text:
            said = "no Match tag" if match_tag is None else f"Match {short(match_tag)}"
            first_said = "no Match tag" if fmt_text is None else f"Match {short(fmt_text)}"
            raise RecordError(
                f"game {k} has {said} but game 1 has {first_said}: a file holds one match",
                r.line_of("Match") or _first_line(r),
            )
        if fmt_text is None:
            for tag in ("MatchGame", "MatchResult"):
                if r.tag(tag) is not None:
                    raise RecordError(f"game {k}: a {tag} tag without a Match tag", r.line_of(tag))
        elif r.tag("MatchResult") is not None and k < len(records):
            raise RecordError(
                f"game {k}: MatchResult before the last game of the file", r.line_of("MatchResult")
            )


def _match_start(records: Sequence[GameRecord]) -> int:
    """The ``MatchGame`` number of the file's first game: 1, or any number for a file of one game;
    the games after it count on by one."""
    numbers = [whole_number(r.tag("MatchGame") or "") for r in records]
    start = numbers[0] if len(records) == 1 and numbers[0] else 1
    for k, (r, n) in enumerate(zip(records, numbers, strict=True)):
        if n != start + k:
            raise RecordError(
                f"game {k + 1} of the file has MatchGame {short(r.tag('MatchGame') or 'missing')}, expected {start + k}: "
                "games of a match are numbered 1, 2, ... in order, none missing",
                r.line_of("MatchGame") or _first_line(r),
            )
    return start


def _play_match(records: Sequence[GameRecord], games: list[Game], match: Match) -> bool:
    """Add the finished games to ``match``; only the last may be unfinished.

    Returns:
        whether every game is finished.
    """
    first = records[0]
    for k, (r, g) in enumerate(zip(records, games, strict=True), 1):
        if r.ruleset != first.ruleset:
            raise RecordError(
                f"game {k} has other rules than game 1: a match is played under one ruleset",
                r.line_of("Rules"),
            )
        if not g.is_over:
            if k < len(records):
                raise RecordError(
                    f"game {k} of the match is unfinished but another game follows", _first_line(r)
                )
            return False
        try:
            match.add_game(g.points)
        except MatchError as exc:
            raise RecordError(f"game {k}: {exc}", r.line_of("MatchGame")) from None
    return True


def _check_match_result(last: GameRecord, match: Match) -> None:
    """The last game's ``MatchResult``, when given, is what the games give."""
    stated = last.tag("MatchResult")
    if stated is None:
        return
    if not match.is_over:
        raise RecordError("MatchResult stated but the match is not over", last.line_of("MatchResult"))
    if tuple(stated.split()) != match.result():
        raise RecordError(
            f"MatchResult says {stated[:60]}; the games give {' '.join(match.result())}",
            last.line_of("MatchResult"),
        )


def replay_match(records: Sequence[GameRecord]) -> tuple[list[Game], Match | None]:
    """Replay every game of a record file; check the match when the games carry ``Match`` tags.

    A match record holds one match: every game has the same ``Match`` tag and a
    ``MatchGame`` number, counting 1, 2, ... in file order (a file of one game may be an
    excerpt of a match: any number, no ``MatchResult``); no game follows the end of the
    match; ``MatchResult``, on the last game only, is what the games give.

    Returns:
        the replayed games, and the match (``None`` without ``Match`` tags or for an excerpt).

    Raises:
        RecordError: the first inconsistency, with its line number.
    """
    if not records:
        raise RecordError("the record is empty: no game found")
    games = [replay(r) for r in records]
    fmt_text = records[0].tag("Match")
    _check_match_tags(records, fmt_text)
    if fmt_text is None:
        return games, None
    start = _match_start(records)
    first = records[0]
    try:
        fmt = MatchFormat.parse(fmt_text)
    except MatchError as exc:
        raise RecordError(f"bad Match tag: {exc}", first.line_of("Match")) from None
    if start != 1:  # an excerpt: one game of a longer match
        if first.tag("MatchResult") is not None:
            raise RecordError(
                "MatchResult on a game that is not part of a whole match", first.line_of("MatchResult")
            )
        return games, None
    match = Match(fmt, players=first.ruleset.players)
    if _play_match(records, games, match):
        _check_match_result(records[-1], match)
    return games, match
