"""Golf game records: a plain-text notation and JSON, with a verifying replay.

A game is a block of tag lines ``[Name "value"]`` followed by one line per
action; a file may hold several games (a match), separated by blank lines::

    [Game "golf"]
    [Rules "players=2 decks=1 rows=3 cols=3 ..."]
    [Players "You; heuristic"]
    [Seed "42/0"]
    [First "P1"]
    [Extra "0 0"]
    [Deck "7H QS 2D ..."]
    [Scores "17 23"]
    [Result "win loss"]
    [End "pile"]

    1. P1 draw = 8H
    2. P1 swap 4 = 10C
    3. P2 snap P2:9 = wrong 5C penalty 7D
    4. P1 snap P2:3 = right 10D
    5. P1 pass 7 = 2S

An action line is ``N. SEAT ACTION [= OUTCOME]`` with ``ACTION`` in the text
form of :mod:`cardtable.golf.actions` (positions 1-based) and ``OUTCOME`` what
it showed or moved (every card, also secret ones: a record is written after
the game): the drawn card (draw, discard), the card sent to the discard pile
(swap), the card looked at (peek), ``right CARD`` / ``wrong CARD`` plus
``penalty CARD...`` (snap), the passed card (pass); steal and end have none.

Tags: ``Game`` (``golf``), ``Rules`` (:meth:`GolfRuleset.describe`),
``Players`` (names joined by ``"; "``), ``Deck`` (the deal order, first dealt
first: with two decks a name occurs twice), ``First`` (the starting seat),
``Extra`` (extra bottom-row cards per seat), optional ``Seed`` (checked: it
must reproduce ``Deck``), ``Scores``,
``Result`` (``win``/``draw``/``loss`` per seat) and ``End`` (``grid``,
``pile``, ``early``); others are kept as they are.

:func:`replay` re-plays a record on a fresh :class:`GolfGame` and raises
:class:`RecordError` with the line number of the first inconsistency (an
illegal action, a different card, a wrong score, an extra-card count that
does not follow from the previous game of the file).

>>> from cardtable.golf.state import GolfGame
>>> from cardtable.golf.actions import Draw, Discard
>>> g = GolfGame(seed=5); _ = g.apply(Draw(0)); _ = g.apply(Discard(0))
>>> text = write_text(record_from_game(g, ["Ann", "Ben"]))
>>> text.splitlines()[-1]
'2. P1 discard = 7H'
>>> replay_text(text)
'1 game(s) verified: game 1 unfinished after 2 actions'
>>> replay_text(text.replace("= 7H", "= 9H"))
Traceback (most recent call last):
...
cardtable.golf.record.RecordError: line 9: action 1: the record says 9H, the game shows 7H
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import product
from typing import Annotated, Any, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

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

from .actions import (
    Action,
    action_from_dict,
    action_to_dict,
    format_action,
    format_seat,
    parse_action,
    parse_seat,
)
from .cards import card_name, cards_from_names
from .errors import GolfError
from .ruleset import GolfRuleset
from .state import Event, GolfGame, shuffled_deck

GAME_TAG = "golf"


class RecordError(GolfError):
    """A malformed or inconsistent record; ``line`` is the 1-based line number (or ``None``)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.reason = message


@dataclass
class GolfRecord:
    """One recorded game.

    Attributes:
        ruleset: the rules played.
        players: names per seat.
        deck: the deal order (card ids, first dealt first).
        first_player: the seat that started.
        extra_cards: extra bottom-row cards per seat.
        actions: ``(action, outcome text)`` per action, in order.
        seed: the shuffle seed, if known; :func:`replay` checks that it reproduces ``deck``.
        scores, outcomes, end: the stated result (``None`` if unfinished).
        tags: other tags, in order.
        lines: line number of each action (for error messages; ``None`` if built in memory).
        tag_lines: line number of each tag.
    """

    ruleset: GolfRuleset
    players: list[str]
    deck: tuple[int, ...]
    first_player: int = 0
    extra_cards: tuple[int, ...] = ()
    actions: list[tuple[Action, str]] = field(default_factory=list)
    seed: str | None = None
    scores: tuple[int, ...] | None = None
    outcomes: tuple[str, ...] | None = None
    end: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    lines: list[int] | None = None
    tag_lines: dict[str, int] = field(default_factory=dict)


def outcome_text(ev: Event) -> str:
    """The ``OUTCOME`` part of an action line for event ``ev`` (``""`` if none)."""
    kind = ev.action.kind
    if kind == "snap":
        assert ev.card is not None  # a snap's event names the card snapped
        text = ("right " if ev.correct else "wrong ") + card_name(ev.card)
        if ev.penalty:
            text += " penalty " + " ".join(card_name(c) for c in ev.penalty)
        return text
    return "" if ev.card is None else card_name(ev.card)


def record_from_game(
    game: GolfGame, players: Sequence[str], tags: dict[str, str] | None = None
) -> GolfRecord:
    """The record of ``game`` (finished or not) with player names ``players``.

    Raises:
        RecordError: wrong number of names, or a name the name policy refuses
            (:mod:`cardtable.platform.names`): every recorded name must read back.
    """
    if len(players) != game.players:
        raise RecordError(f"{len(players)} player name(s) for {game.players} seats")
    res = game.result() if game.over else None
    record = GolfRecord(
        ruleset=game.ruleset,
        players=list(players),
        deck=game.initial_deck,
        first_player=game.first_player,
        extra_cards=tuple(game.extra_cards),
        actions=[(e.action, outcome_text(e)) for e in game.history],
        seed=game.seed,
        scores=res.scores if res else None,
        outcomes=res.outcomes if res else None,
        end=res.reason if res else None,
        tags=dict(tags or {}),
    )
    check_record(record)
    return record


def check_record(record: GolfRecord) -> None:
    """Refuse a record that a notation cannot hold or read back as it is: the one check of
    names, seed and free tags that :func:`record_from_game`, both writers (:func:`write_text`,
    :func:`to_json`) and both readers apply, so the text and JSON notations hold the same
    records (docs/rules.md, "Reading records").

    Raises:
        RecordError: ``cannot be recorded: ...``: not one name per seat, a name the name
            policy refuses (:mod:`cardtable.platform.names`), a seed that is no one-line text
            (:func:`~cardtable.platform.records.tag_value_problem`), a free tag whose name is
            not letters, digits and ``_`` or is a tag the record writes itself, more than 100
            free tags, or a value that is no one-line text.
    """
    problem = _record_problem(record)
    if problem:
        raise RecordError(f"cannot be recorded: {problem}")


def _record_problem(record: GolfRecord) -> str | None:
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
    if not isinstance(record.tags, dict):
        return "tags are a mapping of name to text"
    found = free_tags_problem(list(record.tags.items()), _KNOWN_TAGS)
    return f"tags: {found[1]}" if found else None


def write_text(records: GolfRecord | Sequence[GolfRecord]) -> str:
    """The text notation of one record or several (a match), ending in a newline.

    Raises:
        RecordError: a game the notations cannot hold (:func:`check_record`), e.g. a
            hand-built record with a name the name policy refuses.
    """
    recs = [records] if isinstance(records, GolfRecord) else list(records)
    blocks = []
    for r in recs:
        check_record(r)
        tags = [("Game", GAME_TAG), ("Rules", r.ruleset.describe()), ("Players", "; ".join(r.players))]
        if r.seed is not None:
            tags.append(("Seed", r.seed))
        tags += [
            ("First", format_seat(r.first_player)),
            ("Extra", " ".join(str(x) for x in (r.extra_cards or (0,) * r.ruleset.players))),
            ("Deck", " ".join(card_name(c) for c in r.deck)),
        ]
        tags += list(r.tags.items())
        if r.scores is not None:
            tags.append(("Scores", " ".join(map(str, r.scores))))
        if r.outcomes is not None:
            tags.append(("Result", " ".join(r.outcomes)))
        if r.end is not None:
            tags.append(("End", r.end))
        lines = [quote_tag(k, v) for k, v in tags] + [""]
        for i, (a, out) in enumerate(r.actions, 1):
            line = f"{i}. {format_seat(a.player)} {format_action(a)}"
            lines.append(line + (f" = {out}" if out else ""))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


_KNOWN_TAGS = {"Game", "Rules", "Players", "Seed", "First", "Extra", "Deck", "Scores", "Result", "End"}
#: How a game ends (the ``End`` tag; ``end`` in JSON).
_ENDS = ("grid", "pile", "early")


_Tags = dict[str, tuple[str, int]]


def _need(tags: _Tags, name: str, start: int) -> tuple[str, int]:
    if name not in tags:
        raise RecordError(f'the game starting here has no [{name} "..."] tag', start)
    return tags[name]


def _rules_tag(tags: _Tags, start: int) -> GolfRuleset:
    game, line = _need(tags, "Game", start)
    if game != GAME_TAG:
        raise RecordError(f'this is not a Golf record ([Game "{game}"])', line)
    text, line = _need(tags, "Rules", start)
    try:
        return GolfRuleset.parse(text)
    except GolfError as exc:
        raise RecordError(str(exc), line) from None


def _players_tag(tags: _Tags, start: int, rs: GolfRuleset) -> list[str]:
    text, line = _need(tags, "Players", start)
    try:
        players = split_player_names(text)
    except PlayerNameError as exc:
        raise RecordError(f"Players: {exc}", line) from None
    if len(players) != rs.players:
        raise RecordError(f"{len(players)} player name(s) for {rs.players} seats", line)
    return players


def _deck_tag(tags: _Tags, start: int, rs: GolfRuleset) -> tuple[int, ...]:
    text, line = _need(tags, "Deck", start)
    try:
        deck = tuple(cards_from_names(text.split(), rs.deck_count))
    except GolfError as exc:
        raise RecordError(f"Deck: {exc}", line) from None
    if len(deck) != rs.deck_size:
        raise RecordError(f"Deck lists {len(deck)} cards, the rules need {rs.deck_size}", line)
    return deck


def _first_tag(tags: _Tags) -> int:
    if "First" not in tags:
        return 0
    try:
        return parse_seat(tags["First"][0])
    except GolfError as exc:
        raise RecordError(str(exc), tags["First"][1]) from None


def _extra_tag(tags: _Tags, rs: GolfRuleset) -> tuple[int, ...]:
    if "Extra" not in tags:
        return (0,) * rs.players
    parsed = [whole_number(x, max_digits=2) for x in tags["Extra"][0].split()]
    if None in parsed:
        raise RecordError("Extra: whole numbers per seat expected", tags["Extra"][1])
    return tuple(x for x in parsed if x is not None)  # None is not in parsed


def _scores_tag(tags: _Tags, rs: GolfRuleset) -> tuple[int, ...] | None:
    if "Scores" not in tags:
        return None
    parsed = [whole_number(x, signed=True, max_digits=6) for x in tags["Scores"][0].split()]
    if None in parsed or len(parsed) != rs.players:
        raise RecordError("Scores: one whole number per seat expected", tags["Scores"][1])
    return tuple(x for x in parsed if x is not None)  # None is not in parsed


def _result_tag(tags: _Tags, rs: GolfRuleset) -> tuple[str, ...] | None:
    if "Result" not in tags:
        return None
    outcomes = tuple(tags["Result"][0].split())
    if len(outcomes) != rs.players or not set(outcomes) <= {"win", "draw", "loss"}:
        raise RecordError("Result: one of win/draw/loss per seat expected", tags["Result"][1])
    return outcomes


def _end_tag(tags: _Tags) -> str | None:
    if "End" not in tags:
        return None
    if tags["End"][0] not in _ENDS:
        raise RecordError(
            f"End: one of {', '.join(_ENDS)} expected, not {short(tags['End'][0])}", tags["End"][1]
        )
    return tags["End"][0]


def _finish(tags: _Tags, actions, lines, start: int) -> GolfRecord:
    """The record of one game's tags and actions; each tag is checked in the order
    Game, Rules, Players, Deck, First, Extra, Scores, Result, End."""
    rs = _rules_tag(tags, start)
    players = _players_tag(tags, start, rs)
    deck = _deck_tag(tags, start, rs)
    first = _first_tag(tags)
    extra = _extra_tag(tags, rs)
    scores = _scores_tag(tags, rs)
    outcomes = _result_tag(tags, rs)
    end = _end_tag(tags)
    return GolfRecord(
        ruleset=rs,
        players=players,
        deck=deck,
        first_player=first,
        extra_cards=extra,
        actions=actions,
        seed=tags["Seed"][0] if "Seed" in tags else None,
        scores=scores,
        outcomes=outcomes,
        end=end,
        tags={k: v for k, (v, _) in tags.items() if k not in _KNOWN_TAGS},
        lines=lines,
        tag_lines={k: ln for k, (_, ln) in tags.items()},
    )


def _check_tag(tags: _Tags, name: str, value: str, n: int) -> None:
    """Refuse tag ``name`` at line ``n``: a repeated tag, one free tag too many, a bad value."""
    if name in tags:
        raise RecordError(f"tag {name} appears twice", n)
    if name not in _KNOWN_TAGS and len(tags) - len(_KNOWN_TAGS.intersection(tags)) == MAX_TAGS:
        raise RecordError(f"more than {MAX_TAGS} free tags in one game", n)
    if name == "Seed" or name not in _KNOWN_TAGS:
        problem = tag_value_problem(name, value)
        if problem:
            raise RecordError(problem, n)


def _action_line(line: str, n: int, tags: _Tags, done: int) -> tuple[Action, str]:
    """The action and outcome text of action line ``line`` (line ``n``), the game's
    action number ``done + 1``."""
    head, dot, rest = line.partition(".")
    words = rest.split(None, 1)
    if not dot or whole_number(head) is None or len(words) != 2 or not words[0].upper().startswith("P"):
        raise RecordError(
            f"expected a tag [Name \"value\"] or an action line 'N. P1 draw = 7H', got {short(line)}", n
        )
    if not tags:
        raise RecordError("an action line before the game's tags", n)
    if whole_number(head) != done + 1:
        raise RecordError(f"action number {head} out of order (expected {done + 1})", n)
    action_text, _, outcome = words[1].partition("=")
    try:
        seat = parse_seat(words[0])
        action = parse_action(action_text.strip(), seat)
    except GolfError as exc:
        raise RecordError(str(exc), n) from None
    return action, outcome.strip()


def parse_text(text: str) -> list[GolfRecord]:
    """Read every game of a text record (syntax only; :func:`replay` checks the play).

    Lines and the file are bounded and a leading byte-order mark is skipped
    (:mod:`cardtable.platform.records`); parsing is linear in the text.

    Raises:
        RecordError: a malformed line (with its line number) or a missing tag.
    """
    records: list[GolfRecord] = []
    tags: _Tags = {}
    actions: list[tuple[Action, str]] = []
    lines: list[int] = []
    start = 1
    for n, line in record_lines(text, RecordError):
        if not line.startswith("["):
            actions.append(_action_line(line, n, tags, len(actions)))
            lines.append(n)
            continue
        name, value = parse_tag(line, n, RecordError)
        if actions or (name == "Game" and "Game" in tags):
            records.append(_finish(tags, actions, lines, start))
            tags, actions, lines = {}, [], []
            if len(records) == MAX_GAMES:
                raise RecordError(f"more than {MAX_GAMES:,} games in one record", n)
        if not tags:
            start = n
        _check_tag(tags, name, value, n)
        tags[name] = (value, n)
    if tags:
        records.append(_finish(tags, actions, lines, start))
    if not records:
        raise RecordError('no game found (a record starts with [Game "golf"])')
    return records


def _play_through(record: GolfRecord, extra: Sequence[int]) -> GolfGame:
    """Re-play ``record`` dealt with ``extra`` extra cards; raise :class:`RecordError` at the first
    illegal action or different outcome (with its line number when known)."""
    tl = record.tag_lines
    try:
        game = GolfGame(
            record.ruleset,
            deck=record.deck,
            first_player=record.first_player,
            extra_cards=extra,
            seed=record.seed,
        )
    except GolfError as exc:
        raise RecordError(str(exc), tl.get("Extra" if str(exc).startswith("extra") else "Deck")) from None
    for i, (action, outcome) in enumerate(record.actions):
        line = record.lines[i] if record.lines else None
        try:
            ev = game.apply(action)
        except GolfError as exc:
            raise RecordError(
                f"action {i + 1}: illegal action {format_seat(action.player)} {format_action(action)}: {exc}",
                line,
            ) from None
        actual = outcome_text(ev)
        if " ".join(outcome.upper().split()) != " ".join(actual.upper().split()):
            said = (outcome if len(outcome) <= 60 else outcome[:60] + "...") if outcome else "nothing"
            raise RecordError(
                f"action {i + 1}: the record says {said}, the game shows {actual or 'nothing'}", line
            )
    return game


def _fitting_extra(record: GolfRecord) -> tuple[int, ...] | None:
    """Another ``Extra`` value (0..3 cards per seat) under which every action of ``record``
    replays as recorded, or ``None``: used to blame a changed ``Extra`` tag, not a later card."""
    top = min(3, max(max(record.extra_cards, default=0), record.ruleset.ender_extra_cards))
    for extra in product(range(top + 1), repeat=record.ruleset.players):
        if extra == tuple(record.extra_cards):
            continue
        try:
            _play_through(record, extra)
        except GolfError:
            continue
        return extra
    return None


def replay(record: GolfRecord, expected_extra: Sequence[int] | None = None) -> GolfGame:
    """Re-play ``record`` and check every action, outcome and the stated result.

    Checks, in order: ``Extra`` against ``expected_extra``; that ``Seed`` (when
    present) reproduces ``Deck`` (the deal is ``random.Random(seed)``'s shuffle,
    :func:`cardtable.golf.state.shuffled_deck`); every action and outcome; the
    result tags. When an outcome differs but every action fits another ``Extra``
    value, the ``Extra`` tag is blamed (its line), not the later card.

    Args:
        expected_extra: the extra cards the previous game of a match earned;
            checked against the record's ``Extra`` tag.

    Returns:
        the replayed game (over if the record is complete).

    Raises:
        RecordError: the first inconsistency, with its line number when known.
    """
    _check_deal(record, expected_extra)
    try:
        game = _play_through(record, record.extra_cards)
    except RecordError as exc:
        if "the record says" in exc.reason and expected_extra is None:
            fits = _fitting_extra(record)
            if fits is not None:
                raise RecordError(
                    f"Extra {' '.join(map(str, record.extra_cards))} does not match the play: the recorded "
                    f"cards were dealt with Extra {' '.join(map(str, fits))}",
                    record.tag_lines.get("Extra"),
                ) from None
        raise
    _check_result(record, game)
    return game


def _check_deal(record: GolfRecord, expected_extra: Sequence[int] | None) -> None:
    """:func:`replay`'s checks before play: ``Extra`` against ``expected_extra``, ``Seed`` against ``Deck``."""
    tl = record.tag_lines
    if expected_extra is not None and tuple(expected_extra) != tuple(record.extra_cards):
        raise RecordError(
            f"Extra {' '.join(map(str, record.extra_cards))} does not follow from the previous game "
            f"({' '.join(map(str, expected_extra))})",
            tl.get("Extra"),
        )
    if record.seed is not None and [card_name(c) for c in shuffled_deck(record.ruleset, record.seed)] != [
        card_name(c) for c in record.deck
    ]:  # names: with two decks a name stands for either copy
        raise RecordError(
            f"Seed {record.seed} does not reproduce the Deck of this game (a changed Seed or Deck tag)",
            tl.get("Seed", tl.get("Deck")),
        )


def _check_result(record: GolfRecord, game: GolfGame) -> None:
    """:func:`replay`'s checks after play: the stated ``Scores``, ``Result`` and ``End``."""
    tl = record.tag_lines
    if not game.over:
        if record.scores is not None or record.outcomes is not None:
            last = record.lines[-1] if record.lines else None
            raise RecordError(
                "the record states a result but the game is not over after its last action", last
            )
        return
    res = game.result()
    if record.scores is not None and tuple(record.scores) != res.scores:
        raise RecordError(
            f"Scores {' '.join(map(str, record.scores))} but the cards count "
            f"{' '.join(map(str, res.scores))}",
            tl.get("Scores"),
        )
    if record.outcomes is not None and tuple(record.outcomes) != res.outcomes:
        raise RecordError(
            f"Result {' '.join(record.outcomes)} but the game gives {' '.join(res.outcomes)}",
            tl.get("Result"),
        )
    if record.end is not None and record.end != res.reason:
        raise RecordError(f"End {record.end} but the game ended by {res.reason}", tl.get("End"))


def replay_records(records: Sequence[GolfRecord]) -> list[GolfGame]:
    """Replay the games of a file in order, checking the extra cards between games and
    the numbering of a match.

    A file whose games carry ``MatchGame`` tags (``K`` or ``K/N``) holds one match: every
    game has the tag (and the same ``Match`` tag, if any), numbered 1, 2, ... in file order
    with the same ``N`` and ``K <= N`` (a file of a single game may be an excerpt with any
    number), so a deleted or swapped game is reported at its tag's line.

    Raises:
        RecordError: the first inconsistency, with its line number when known.
    """
    if not records:
        raise RecordError('no game found (a record starts with [Game "golf"])')
    _check_numbering(records)
    games = []
    extra = None
    for r in records:
        g = replay(r, extra)
        games.append(g)
        extra = g.result().extra_cards if g.over else None
    return games


def _check_numbering(records: Sequence[GolfRecord]) -> None:
    tagged = [r.tags.get("MatchGame") is not None for r in records]
    _check_match_tags(records, tagged)
    if not any(tagged):
        return
    parsed = [_match_number(r) for r in records]
    start = parsed[0][0] if len(records) == 1 else 1
    for k, (r, (got_number, got_total)) in enumerate(zip(records, parsed, strict=True)):
        if got_number != start + k or got_total != parsed[0][1]:
            expected = f"{start + k}" + (f"/{parsed[0][1]}" if parsed[0][1] is not None else "")
            raise RecordError(
                f"game {k + 1} of the file has MatchGame {short(r.tags['MatchGame'])}, expected {expected}: "
                "games of a match are numbered 1, 2, ... in order, none missing",
                r.tag_lines.get("MatchGame"),
            )


def _check_match_tags(records: Sequence[GolfRecord], tagged: list[bool]) -> None:
    """Every game has game 1's ``Match`` tag, and a ``MatchGame`` tag if any game has one."""
    first_match = records[0].tags.get("Match")
    for k, r in enumerate(records, 1):
        line = r.tag_lines.get("MatchGame") or r.tag_lines.get("Match") or r.tag_lines.get("Game")
        if r.tags.get("Match") != first_match:
            raise RecordError(
                f"game {k} has another Match tag than game 1: a file holds one match",
                r.tag_lines.get("Match") or line,
            )
        if any(tagged) and not tagged[k - 1]:
            raise RecordError(f"game {k} has no MatchGame tag but other games of the file have one", line)


def _match_number(r: GolfRecord) -> tuple[int, int | None]:
    """``(K, N)`` of the game's ``MatchGame`` tag ``K/N`` (``N`` ``None`` for a bare ``K``)."""
    number_text, slash, total_text = r.tags["MatchGame"].partition("/")
    number = whole_number(number_text.strip(), max_digits=4)
    total = whole_number(total_text.strip(), max_digits=4) if slash else None
    if number is None or (slash and total is None) or (total is not None and not 1 <= number <= total):
        raise RecordError(
            f"MatchGame {short(r.tags['MatchGame'])}: expected K or K/N (game K of N)",
            r.tag_lines.get("MatchGame"),
        )
    return number, total


def summarize(records: Sequence[GolfRecord], games: Sequence[GolfGame]) -> str:
    """One line: how many games, and each game's scores or state."""
    parts = []
    for i, (r, g) in enumerate(zip(records, games, strict=True), 1):
        if g.over:
            res = g.result()
            scores = ", ".join(f"{n} {s}" for n, s in zip(r.players, res.scores, strict=True))
            parts.append(f"game {i}: {scores} ({res.reason})")
        else:
            parts.append(f"game {i} unfinished after {len(g.history)} actions")
    return f"{len(games)} game(s) verified: " + "; ".join(parts)


def load_records(text: str) -> list[GolfRecord]:
    """The records of a file in either notation: JSON (:func:`from_json`) or text
    (:func:`parse_text`), told apart by :func:`is_json`.

    Raises:
        RecordError: as the notation's reader.
    """
    return from_json(text) if is_json(text) else parse_text(text)


def replay_text(text: str) -> str:
    """Verify a record in the text notation or JSON; return a one-line summary.

    Raises:
        RecordError: (a ``ValueError``) the first inconsistency, ``.line`` its line number.
    """
    records = load_records(text)
    games = replay_records(records)
    return summarize(records, games)


# ---------------------------------------------------------------------- JSON
def to_json(records: GolfRecord | Sequence[GolfRecord]) -> str:
    """JSON text: a list of game objects (see :func:`from_json`).

    Raises:
        RecordError: a game the notations cannot hold (:func:`check_record`).
    """
    recs = [records] if isinstance(records, GolfRecord) else list(records)
    out = []
    for r in recs:
        check_record(r)
        out.append(
            {
                "game": GAME_TAG,
                "rules": r.ruleset.to_dict(),
                "players": r.players,
                "seed": r.seed,
                "first": r.first_player,
                "extra": list(r.extra_cards or (0,) * r.ruleset.players),
                "deck": [card_name(c) for c in r.deck],
                "actions": [{**action_to_dict(a), "outcome": o} for a, o in r.actions],
                "scores": list(r.scores) if r.scores is not None else None,
                "result": list(r.outcomes) if r.outcomes is not None else None,
                "end": r.end,
                "tags": r.tags,
            }
        )
    return json.dumps(out, indent=1, ensure_ascii=False)


_STRICT = ConfigDict(strict=True, extra="forbid")


class _GameModel(BaseModel):
    model_config = _STRICT
    game: Literal["golf"]
    rules: dict[str, Any]
    players: Annotated[list[str], Field(min_length=2, max_length=6)]
    seed: Annotated[str, Field(max_length=MAX_LINE)] | None = None
    first: Annotated[int, Field(ge=0, le=5)] = 0
    extra: Annotated[list[Annotated[int, Field(ge=0, le=10)]], Field(max_length=6)] | None = None
    deck: Annotated[list[Annotated[str, Field(max_length=4)]], Field(max_length=520)]
    actions: Annotated[list[dict[str, Any]], Field(max_length=20_000)]
    scores: Annotated[list[Annotated[int, Field(ge=-100_000, le=100_000)]], Field(max_length=6)] | None = None
    result: Annotated[list[Literal["win", "draw", "loss"]], Field(max_length=6)] | None = None
    end: Literal["grid", "pile", "early"] | None = None
    tags: (
        Annotated[dict[str, Annotated[str, Field(max_length=MAX_LINE)]], Field(max_length=MAX_TAGS)] | None
    ) = None


class _FileModel(BaseModel):
    model_config = _STRICT
    games: Annotated[list[_GameModel], Field(min_length=1, max_length=MAX_GAMES)]


def is_json(text: str) -> bool:
    """Whether a Golf record is in the JSON notation (a ``{`` or a ``[`` that does not open a tag line)."""
    head = strip_bom(text).lstrip()
    return head.startswith("{") or (head.startswith("[") and not head[1:2].isalpha())


def from_json(text: str) -> list[GolfRecord]:
    """Read :func:`to_json` output (one object or a list), validated by a schema (Pydantic:
    strict types and bounds).

    Raises:
        RecordError: bad JSON or missing/invalid fields; the message names the game and
            the action number (``game 1, action 7``) and ``line`` is the JSON line.
    """
    text = check_size(text, RecordError)
    body = text.lstrip()
    wrapped = body.startswith("{")
    # the schema reads the body inside {"games": ...} (the same lines): the body must be one
    # JSON value on its own, or "{G1}, {G2}" and '{G1}], "games": [{G2}' would pass the wrap
    whole = '{"games": [' + body + "]}" if wrapped else '{"games": ' + body + "}"
    try:
        data = _FileModel.model_validate_json(whole)
    except ValidationError as exc:
        raise _schema_error(exc, body, wrapped) from None
    try:
        json.loads(body)
    except RecursionError:
        raise RecordError("not valid JSON: nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise RecordError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", exc.lineno
        ) from None
    except ValueError as exc:  # a number of more than 4,300 digits
        raise RecordError(f"not valid JSON: {str(exc)[:200]}") from None
    check_repeated_keys(whole, RecordError)
    index = json_line_index(body, 3)
    return [
        _json_game(d, k, _LineOf(index, () if wrapped else (k - 1,))) for k, d in enumerate(data.games, 1)
    ]


def _schema_error(exc: ValidationError, body: str, wrapped: bool) -> RecordError:
    """The :class:`RecordError` for the schema's first complaint about JSON text ``body``."""
    message, loc = schema_error_text(exc.errors())
    if not loc:
        return RecordError(f"not valid JSON: {message}", json_error_line(message))
    rel = loc[2:]  # the path inside the game object
    game = loc[1] + 1 if len(loc) > 1 and isinstance(loc[1], int) else 1
    where = (
        f"game {game}, action {rel[1] + 1}: " if len(rel) > 1 and rel[0] == "actions" else f"game {game}: "
    )
    if loc == ("games",):
        where, message = "", "the record is empty: no game found" if "at least 1" in message else message
    return RecordError(
        where + message.removeprefix("games").lstrip(".[]0123456789"),
        json_line(body, rel if wrapped else loc[1:]),
    )


@dataclass(frozen=True)
class _LineOf:
    """The JSON line of a path inside one game object: ``index`` maps paths to lines,
    ``prefix`` is the game's path in the file; the nearest indexed ancestor counts."""

    index: dict
    prefix: tuple

    def __call__(self, *path: Any) -> int | None:
        full = self.prefix + path
        for size in range(len(full), -1, -1):
            if full[:size] in self.index:
                return self.index[full[:size]]
        return None


def _json_game(d: _GameModel, k: int, line_of: _LineOf) -> GolfRecord:
    """The record of game ``k`` (1-based) of a validated JSON file."""
    rs, players, deck = _json_deal(d, k, line_of)
    actions = []
    for i, a in enumerate(d.actions):
        try:
            actions.append(_json_action(dict(a)))
        except GolfError as exc:
            raise RecordError(f"game {k}, action {i + 1}: {exc}", line_of("actions", i)) from None
    found = free_tags_problem(list((d.tags or {}).items()), _KNOWN_TAGS)
    if found:
        raise RecordError(f"game {k}: tags: {found[1]}", line_of("tags"))
    tag_lines = {name: line_of(key) for name, key in _JSON_TAG_KEYS}
    tag_lines.update({name: line_of("tags") for name in (d.tags or {})})
    return GolfRecord(
        ruleset=rs,
        players=players,
        deck=deck,
        first_player=d.first,
        extra_cards=tuple(d.extra or (0,) * rs.players),
        actions=actions,
        seed=d.seed,
        scores=_tuple_or_none(d.scores),
        outcomes=_tuple_or_none(d.result),
        end=d.end,
        tags=dict(d.tags or {}),
        lines=[line_of("actions", i) or 0 for i in range(len(actions))],
        tag_lines={n: v for n, v in tag_lines.items() if v},
    )


def _json_deal(d: _GameModel, k: int, line_of: _LineOf) -> tuple[GolfRuleset, list[str], tuple[int, ...]]:
    """The rules, player names and deck of game ``k``, checked in that order (the seed before the deck)."""
    try:
        rs = GolfRuleset.from_dict(d.rules)
    except GolfError as exc:
        raise RecordError(f"game {k}: rules: {exc}", line_of("rules")) from None
    try:
        players = check_player_names(d.players)
    except PlayerNameError as exc:
        raise RecordError(f"game {k}: {exc}", line_of("players")) from None
    if len(players) != rs.players:
        raise RecordError(
            f"game {k}: {len(players)} player name(s) for {rs.players} seats", line_of("players")
        )
    if d.seed is not None and tag_value_problem("Seed", d.seed):
        raise RecordError(f"game {k}: {tag_value_problem('Seed', d.seed)}", line_of("seed"))
    try:
        deck = tuple(cards_from_names(list(d.deck), rs.deck_count))
    except GolfError as exc:
        raise RecordError(f"game {k}: deck: {exc}", line_of("deck")) from None
    return rs, players, deck


def _tuple_or_none(values: Sequence[Any] | None) -> tuple | None:
    return None if values is None else tuple(values)


#: The text notation's tag names and the JSON keys that hold the same values.
_JSON_TAG_KEYS = (
    ("Seed", "seed"),
    ("Extra", "extra"),
    ("Deck", "deck"),
    ("Scores", "scores"),
    ("Result", "result"),
    ("End", "end"),
    ("First", "first"),
    ("Rules", "rules"),
    ("Game", "game"),
)


def _json_action(a: dict[str, Any]) -> tuple[Action, str]:
    """One JSON action object (its ``outcome`` key removed from ``a``) as ``(action, outcome)``.

    Raises:
        GolfError: an outcome that is no text of at most 200 characters, a type that is no
            text, a number outside 0..9999, or what :func:`action_from_dict` refuses.
    """
    outcome = a.pop("outcome", "")
    if not isinstance(outcome, str) or len(outcome) > 200:
        raise GolfError(f"the outcome is text, not {short(repr(outcome))}")
    if not isinstance(a.get("type"), str):
        raise GolfError(f"an action's type is text, not {short(repr(a.get('type')))}")
    if any(
        not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < 10_000
        for k, v in a.items()
        if k != "type"
    ):
        raise GolfError("an action's numbers are whole numbers 0..9999")
    return action_from_dict(a), outcome
