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
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from cardtable.platform.fairness import seed_commitment  # re-exported: records check it
from cardtable.platform.match import Match, MatchError, MatchFormat

from .cards import PLAYER_SUITS, PRIZE_SUIT, format_card, parse_card, split_suit
from .errors import CardError, GoofspielError, RulesetError
from .ruleset import Ruleset
from .state import Game, RoundResult, prize_order_for

GAME_TAG = "goofspiel"
_TAG = re.compile(r'^\[(?P<name>[A-Za-z][A-Za-z0-9_]*) "(?P<value>(?:[^"\\]|\\.)*)"\]$')
_ROUND = re.compile(r"^(?P<num>\d+)\.\s+(?P<prizes>[^|]*)\|(?P<bids>[^|]*)\|(?P<outcome>.*)$")


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
    """

    ruleset: Ruleset
    players: tuple[str, ...]
    rounds: tuple[RoundLine, ...]
    seed: str | None = None
    scores: tuple[int, ...] | None = None
    result: tuple[str, ...] | None = None
    tags: tuple[tuple[str, str], ...] = ()
    line_numbers: tuple[int, ...] = field(default=(), compare=False, repr=False)

    def tag(self, name: str) -> str | None:
        """The value of an extra tag, or ``None``."""
        return dict(self.tags).get(name)


def record_from_game(
    game: Game, players: Sequence[str], tags: Iterable[tuple[str, str]] = ()
) -> GameRecord:
    """The record of a game (finished or not; unfinished games have no scores/result)."""
    rs = game.ruleset
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
    for name in players:
        if not name.strip() or ";" in name or "\n" in name:
            raise GoofspielError(f"player name {name!r} cannot be recorded: names are non-empty, without ';' or line breaks")
    return GameRecord(
        ruleset=rs,
        players=tuple(players),
        rounds=tuple(rounds),
        seed=game.seed if not rs.fixed_order else None,
        scores=scores,
        result=result,
        tags=tuple(tags),
    )


def _round_line(r: RoundResult, rs: Ruleset, last: bool) -> RoundLine:
    if rs.open_prizes > 1:
        return RoundLine(r.prizes, r.bids, None, r.taken, None, None)
    if r.winner is not None:
        return RoundLine(r.prizes, r.bids, r.winner, (), None, sum(rs.prize_value(p) for p in r.prizes))
    tie = "carried" if r.carried else ("unowned" if last else "discarded")
    return RoundLine(r.prizes, r.bids, None, (), tie, None)


# -- writing -----------------------------------------------------------------------------


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


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
    """The text notation of one game (no trailing blank line)."""
    tags = [("Game", GAME_TAG), ("Rules", record.ruleset.describe()), ("Players", "; ".join(record.players))]
    if record.seed is not None:
        tags.append(("Seed", record.seed))
    tags.extend(record.tags)
    if record.scores is not None:
        tags.append(("Scores", " ".join(map(str, record.scores))))
    if record.result is not None:
        tags.append(("Result", " ".join(record.result)))
    lines = [f'[{name} "{_quote(value)}"]' for name, value in tags]
    lines.append("")
    lines.extend(format_round(i, r) for i, r in enumerate(record.rounds, 1))
    return "\n".join(lines) + "\n"


def write_text(records: GameRecord | Sequence[GameRecord]) -> str:
    """The text notation of one game or several (a match), games separated by a blank line."""
    if isinstance(records, GameRecord):
        records = [records]
    return "\n".join(write_game(r) for r in records)


# -- parsing -----------------------------------------------------------------------------

_SPECIAL_TAGS = {"Game", "Rules", "Players", "Seed", "Scores", "Result"}


def parse_text(text: str) -> list[GameRecord]:
    """Parse a record file (one or more games).

    Raises:
        RecordError: with the line number of the first malformed line.
    """
    games: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    seen_rounds = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and seen_rounds:
            games.append(current)
            current, seen_rounds = [], False
        if not line.startswith("["):
            seen_rounds = True
        current.append((number, line))
    if current:
        games.append(current)
    if not games:
        raise RecordError("the record is empty: no game found")
    return [_parse_game(lines) for lines in games]


def _short(text: str, limit: int = 60) -> str:
    """``text`` quoted, cut to ``limit`` characters for error messages."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _parse_game(lines: list[tuple[int, str]]) -> GameRecord:
    tags: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    extra: list[tuple[str, str]] = []
    rounds: list[RoundLine] = []
    numbers: list[int] = []
    ruleset: Ruleset | None = None
    first_line = lines[0][0]
    for number, line in lines:
        if line.startswith("["):
            if rounds:
                raise RecordError("tag line after the round lines", number)
            m = _TAG.match(line)
            if not m:
                raise RecordError(f'malformed tag line {_short(line)}; expected [Name "value"]', number)
            name, value = m["name"], re.sub(r"\\(.)", r"\1", m["value"])
            if name in tags or (name not in _SPECIAL_TAGS and name in dict(extra)):
                raise RecordError(f"tag {name} appears twice", number)
            tag_lines[name] = number
            if name in _SPECIAL_TAGS:
                tags[name] = value
            else:
                extra.append((name, value))
            if name == "Rules":
                try:
                    ruleset = Ruleset.parse(value)
                except RulesetError as exc:
                    raise RecordError(f"bad Rules tag: {exc}", number) from None
            continue
        if ruleset is None:
            raise RecordError("round line before the Rules tag", number)
        if not tags.get("Players"):
            raise RecordError("round line before the Players tag", number)
        rounds.append(_parse_round(line, number, len(rounds) + 1, ruleset))
        numbers.append(number)
    if tags.get("Game", GAME_TAG) != GAME_TAG:
        raise RecordError(f"not a Goofspiel record (Game tag {tags['Game']!r})", first_line)
    if ruleset is None:
        raise RecordError("missing Rules tag", first_line)
    if "Players" not in tags:
        raise RecordError("missing Players tag", first_line)
    players = tuple(p.strip() for p in tags["Players"].split(";"))
    if not all(players):
        raise RecordError("Players tag has an empty name", tag_lines["Players"])
    if len(players) != ruleset.players:
        raise RecordError(
            f"Players tag names {len(players)} player(s); the rules have {ruleset.players}", tag_lines["Players"]
        )
    scores = result = None
    if "Scores" in tags:
        try:
            scores = tuple(int(x) for x in tags["Scores"].split())
        except ValueError:
            raise RecordError(f"bad Scores tag {_short(tags['Scores'])}", tag_lines["Scores"]) from None
        if len(scores) != ruleset.players:
            raise RecordError("Scores tag needs one score per player", tag_lines["Scores"])
    if "Result" in tags:
        result = tuple(tags["Result"].split())
        if len(result) != ruleset.players or not set(result) <= {"win", "draw", "loss"}:
            raise RecordError(f"bad Result tag {_short(tags['Result'])}: one of win/draw/loss per player", tag_lines["Result"])
    return GameRecord(
        ruleset=ruleset,
        players=players,
        rounds=tuple(rounds),
        seed=tags.get("Seed"),
        scores=scores,
        result=result,
        tags=tuple(extra),
        line_numbers=tuple(numbers),
    )


def _parse_prize(token: str, rs: Ruleset, number: int) -> int:
    head, suit = split_suit(token)
    if suit not in (None, PRIZE_SUIT):
        raise RecordError(f"{token!r} is not a prize: prizes are {PRIZE_SUIT}", number)
    try:
        return parse_card(head, rs.cards)
    except CardError as exc:
        raise RecordError(str(exc), number) from None


def _parse_round(line: str, number: int, expected: int, rs: Ruleset) -> RoundLine:
    m = _ROUND.match(line)
    if not m:
        raise RecordError(f"malformed round line {_short(line)}; expected 'N. PRIZES | BIDS | OUTCOME'", number)
    if int(m["num"]) != expected:
        raise RecordError(f"round number {m['num']} where round {expected} was expected", number)
    prizes = tuple(_parse_prize(t, rs, number) for t in m["prizes"].split())
    if not prizes:
        raise RecordError("a round needs at least one prize", number)
    bid_tokens = m["bids"].split()
    if len(bid_tokens) != rs.players:
        raise RecordError(f"{len(bid_tokens)} bid(s) where {rs.players} players bid", number)
    bids = []
    for seat, token in enumerate(bid_tokens):
        cards = []
        for part in token.split("+"):
            try:
                cards.append(parse_card(part, rs.cards, PLAYER_SUITS[seat]))
            except CardError as exc:
                raise RecordError(f"player {seat + 1}'s bid: {exc}", number) from None
        bids.append(tuple(sorted(cards)))
    outcome = m["outcome"].split()
    if not outcome:
        raise RecordError("missing outcome", number)
    if rs.open_prizes > 1:
        if outcome == ["none"]:
            return RoundLine(prizes, tuple(bids))
        taken = []
        for token in outcome:
            seat_text, sep, prize_text = token.partition(":")
            if not sep or not seat_text.isdigit() or not 1 <= int(seat_text) <= rs.players:
                raise RecordError(f"bad take {token!r}; expected SEAT:PRIZE such as 2:K♦", number)
            taken.append((int(seat_text) - 1, _parse_prize(prize_text, rs, number)))
        return RoundLine(prizes, tuple(bids), taken=tuple(taken))
    if outcome[0] == "tie":
        if len(outcome) != 2 or outcome[1] not in ("carried", "discarded", "unowned"):
            raise RecordError(f"bad tie outcome {m['outcome'].strip()!r}; expected 'tie carried|discarded|unowned'", number)
        return RoundLine(prizes, tuple(bids), tie=outcome[1])
    if len(outcome) == 2 and outcome[0].isdigit() and re.fullmatch(r"\+\d+", outcome[1]):
        seat = int(outcome[0]) - 1
        if not 0 <= seat < rs.players:
            raise RecordError(f"no player {outcome[0]}", number)
        return RoundLine(prizes, tuple(bids), winner=seat, points=int(outcome[1][1:]))
    raise RecordError(f"bad outcome {m['outcome'].strip()!r}; expected 'SEAT +POINTS' or 'tie ...'", number)


# -- JSON --------------------------------------------------------------------------------


def to_json(records: GameRecord | Sequence[GameRecord]) -> str:
    """The JSON notation: ``{"format": "cardtable-goofspiel-record", "version": 1, "games": [...]}``."""
    if isinstance(records, GameRecord):
        records = [records]
    games = []
    for r in records:
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
    return json.dumps({"format": "cardtable-goofspiel-record", "version": 1, "games": games}, ensure_ascii=False, indent=1)


def from_json(text: str) -> list[GameRecord]:
    """Parse :func:`to_json`'s output.

    Raises:
        RecordError: invalid JSON or a wrong structure (the message says where).
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not valid JSON: {exc.msg}", exc.lineno) from None
    if not isinstance(data, dict) or data.get("format") != "cardtable-goofspiel-record":
        raise RecordError("not a cardtable Goofspiel JSON record (format field missing or wrong)")
    if data.get("version") != 1:
        raise RecordError(f"unsupported record version {data.get('version')!r}")
    out = []
    try:
        if not isinstance(data.get("games"), list):
            raise TypeError("games")
        for i, g in enumerate(data["games"]):
            rs = Ruleset.from_mapping(g["rules"])
            rounds = tuple(
                RoundLine(
                    tuple(x["prizes"]), tuple(tuple(b) for b in x["bids"]), x["winner"],
                    tuple(tuple(t) for t in x["taken"]), x["tie"], x["points"],
                )
                for x in g["rounds"]
            )
            out.append(
                GameRecord(
                    ruleset=rs,
                    players=tuple(g["players"]),
                    rounds=rounds,
                    seed=g["seed"],
                    scores=tuple(g["scores"]) if g["scores"] is not None else None,
                    result=tuple(g["result"]) if g["result"] is not None else None,
                    tags=tuple(tuple(t) for t in g["tags"]),
                )
            )
    except KeyError as exc:
        raise RecordError(f"game {len(out) + 1}: missing field {exc}") from None
    except RulesetError as exc:
        raise RecordError(f"game {len(out) + 1}: bad rules: {exc}") from None
    except (TypeError, ValueError, AttributeError):
        raise RecordError(
            f"game {len(out) + 1}: a field has the wrong type (rounds need prizes, bids as lists of ranks, "
            "winner, taken, tie, points; see cardtable.goofspiel.record.to_json)"
        ) from None
    return out


def load_records(text: str) -> list[GameRecord]:
    """Parse either notation (JSON when the text starts with ``{``)."""
    return from_json(text) if text.lstrip().startswith("{") else parse_text(text)


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
    lines = record.line_numbers or (None,) * len(record.rounds)
    try:
        return _replay(record, lines)
    except RecordError as exc:
        if exc.line is None and exc.round is not None:
            raise RecordError(f"round {exc.round}: {exc.reason}") from None
        raise


def _replay(record: GameRecord, lines: Sequence[int | None]) -> Game:
    rs = record.ruleset
    deck = _deck_for(record)
    if any(len(set(r.prizes)) != len(r.prizes) for r in record.rounds):
        raise RecordError("a prize appears twice in one round")
    if record.seed is not None and not rs.fixed_order:
        expected = prize_order_for(rs, record.seed)
        revealed = revealed_prizes(record)
        if expected[: len(revealed)] != revealed:
            raise RecordError(f"the Seed tag {record.seed!r} does not reproduce the prize order of this record")
        deck = expected
    elif rs.fixed_order:
        deck = prize_order_for(rs, None)
    game = Game(rs, prize_deck=deck, seed=record.seed)
    for number, (r, line) in enumerate(zip(record.rounds, lines), 1):
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
        except GoofspielError as exc:
            if isinstance(exc, RecordError):
                raise
            raise RecordError(str(exc), line, number) from None
        if game.phase == "choose":
            raise RecordError(f"player {game.chooser + 1} must still take a prize", line, number)
        stated = _round_line(result, rs, last=game.is_over)
        if stated != r:
            raise RecordError(f"stated outcome is wrong: the rules give '{format_round(result.number, stated).split('| ')[-1]}'", line, number)
    last_line = lines[-1] if lines and lines[-1] else None
    if record.scores is not None or record.result is not None:
        if not game.is_over:
            raise RecordError("the record states a result but the game is not finished", last_line)
        res = game.result()
        if record.scores is not None and record.scores != res.points:
            raise RecordError(f"Scores tag says {' '.join(map(str, record.scores))}; the rounds give {' '.join(map(str, res.points))}", last_line)
        if record.result is not None and record.result != res.outcomes:
            raise RecordError(f"Result tag says {' '.join(record.result)}; the rounds give {' '.join(res.outcomes)}", last_line)
    commit = record.tag("SeedCommit")
    if commit is not None and (record.seed is None or seed_commitment(record.seed) != commit.lower()):
        raise RecordError("SeedCommit does not match the SHA-256 of the Seed tag")
    return game


def replay_match(records: Sequence[GameRecord]) -> tuple[list[Game], Match | None]:
    """Replay every game of a record file; check a ``Match``/``MatchResult`` if present.

    Raises:
        RecordError: the first inconsistency (game number and line).
    """
    games = [replay(r) for r in records]
    fmt_text = records[0].tag("Match") if records else None
    if fmt_text is None:
        return games, None
    try:
        match = Match(MatchFormat.parse(fmt_text), players=records[0].ruleset.players)
        for g in games:
            if not g.is_over:
                raise RecordError("a match game is unfinished")
            match.add_game(g.points)
    except MatchError as exc:
        raise RecordError(f"match: {exc}") from None
    stated = records[-1].tag("MatchResult")
    if stated is not None:
        if not match.is_over:
            raise RecordError("MatchResult stated but the match is not over")
        if tuple(stated.split()) != match.result():
            raise RecordError(f"MatchResult says {stated}; the games give {' '.join(match.result())}")
    return games, match
