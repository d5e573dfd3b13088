"""Golf in words: events and results as sentences for one reader.

The person reading is addressed in the second person ("You drew 7", "Ben
snapped your position 7"); everybody else goes by name, and an actor's own
cards are "their" cards. ``viewer=None`` (a spectator, a hot-seat screen that
several people read) names everybody. Positions are 1-based as on screen.

Input events are the dicts of :func:`cardtable.golf.views.event_dict` (a card
rank only where the reader saw it); the caller decides which cards to name
(memory mode leaves out private ones, docs/golf.md "Memory mode").

>>> names = ["You", "heuristic"]
>>> ev = {"player": 1, "type": "pass", "action": {"type": "pass", "player": 1, "pos": 2},
...       "card": None, "correct": None, "penalty": 0, "to_pos": 6, "to_seat": 0}
>>> describe_event(ev, names, viewer=0)
'heuristic passed their position 3 face down into your position 7'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from cardtable.tui.words import subject, verb

from .cards import rank_name


def plural(count: int, word: str, many: str | None = None) -> str:
    """``plural(1, "card") -> '1 card'``, ``plural(3, "pt") -> '3 pts'``."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def who(seat: int, names: Sequence[str], viewer: int | None) -> str:
    """``'You'`` for the reader, else the seat's name."""
    return "You" if seat == viewer else names[seat]


def whose(owner: int, actor: int, names: Sequence[str], viewer: int | None) -> str:
    """The possessive for ``owner``'s cards in a sentence about ``actor``: ``your``, ``their``, ``Ben's``."""
    if owner == viewer:
        return "your"
    if owner == actor:
        return "their"
    return f"{names[owner]}'s"


def _positions(first: int, count: int) -> str:
    return f"position {first + 1}" if count == 1 else f"positions {first + 1}-{first + count}"


def describe_event(ev: dict, names: Sequence[str], viewer: int | None) -> str:
    """One sentence for an event dict (:func:`cardtable.golf.views.event_dict`).

    ``ev["to_seat"]`` (optional) is the receiving seat of a pass or a declined pass.
    """
    p = ev["player"]
    w = _Words(
        ev,
        ev["action"],
        p,
        names,
        viewer,
        who(p, names, viewer),
        rank_name(ev["card"]) if ev.get("card") else None,
        whose(p, p, names, viewer),
    )
    kind = ev["type"]
    tell = _TELL.get(kind)
    return tell(w) if tell is not None else f"{w.subject}: {ev.get('text', kind)}"


@dataclass(frozen=True)
class _Words:
    """What :func:`describe_event`'s sentences are made of: the event and its action
    (dicts), the actor, the names, the viewer, and the words for the actor (``subject``),
    the card shown (``card``, ``None`` if hidden) and the actor's own grid (``own``)."""

    ev: dict
    a: dict
    p: int
    names: Sequence[str]
    viewer: int | None
    subject: str
    card: str | None
    own: str

    def whose(self, owner: int) -> str:
        return whose(owner, self.p, self.names, self.viewer)


def _tell_snap(w: _Words) -> str:
    place = f"{w.whose(w.a['owner'])} position {w.a['pos'] + 1}"
    if w.ev["correct"]:
        return f"{w.subject} snapped {place}: {w.card} — right"
    line = f"{w.subject} snapped {place}: {w.card} — wrong, turned back"
    if w.ev["penalty"]:
        return line + (
            f"; penalty: {plural(w.ev['penalty'], 'card')} face down at {w.own} "
            f"{_positions(w.ev['to_pos'], w.ev['penalty'])}"
        )
    return line + "; no penalty card (the draw pile is empty)"


def _tell_pass(w: _Words) -> str:
    target = w.ev.get("to_seat")
    into = "" if target is None else f" into {w.whose(target)} position {w.ev['to_pos'] + 1}"
    return f"{w.subject} passed {w.own} position {w.a['pos'] + 1} face down{into}" + (
        f" ({w.card})" if w.card else ""
    )


def _tell_nopass(w: _Words) -> str:
    target = w.ev.get("to_seat")
    to = "" if target is None else (" to you" if target == w.viewer else f" to {w.names[target]}")
    return f"{w.subject} passed nothing{to}"


#: One sentence per action kind.
_TELL: dict[str, Callable[[_Words], str]] = {
    "draw": lambda w: f"{w.subject} drew " + (w.card or "a card"),
    "end": lambda w: f"{w.subject} ended the game early: everyone else has one last turn",
    "discard": lambda w: f"{w.subject} discarded {w.card}",
    "swap": lambda w: (
        f"{w.subject} put the drawn card at {w.own} position {w.a['pos'] + 1}; "
        f"{w.card} goes to the discard pile"
    ),
    "peek": lambda w: (
        f"{w.subject} looked at {w.own} position {w.a['pos'] + 1}" + (f": {w.card}" if w.card else "")
    ),
    "steal": lambda w: (
        f"{w.subject} swapped {w.own} position {w.a['pos'] + 1} with "
        f"{w.whose(w.a['target'])} position {w.a['target_pos'] + 1} (nobody looks)"
    ),
    "snap": _tell_snap,
    "pass": _tell_pass,
    "nopass": _tell_nopass,
}


def end_text(result, names: Sequence[str], viewer: int | None = None) -> str:
    """How the game ended: ``'ended early by Ann'``, ``'ended: the draw pile ran out'``."""
    if result.reason == "early" and result.ended_by is not None:
        return "ended early by " + ("you" if result.ended_by == viewer else names[result.ended_by])
    return {"pile": "ended: the draw pile ran out", "grid": "ended: a grid is empty"}.get(
        result.reason, f"ended ({result.reason})"
    )


def verdict(result, names: Sequence[str], viewer: int | None = None) -> str:
    """``'You win'``, ``'Ann wins'``, ``'Draw between you and Ann'`` (fewest points wins)."""
    winners = list(result.winners)
    if len(winners) == 1:
        w = winners[0]
        return f"{subject(names[w], w == viewer)} {verb(w == viewer, 'win')}"
    words = ["you" if s == viewer else names[s] for s in winners]
    return "Draw between " + ", ".join(words[:-1]) + " and " + words[-1]


def ender_note(result, names: Sequence[str], viewer: int | None, next_game: bool) -> str | None:
    """What the early end means for the ender (docs/golf.md, "Ending early"), or ``None``.

    A loss costs extra bottom-row cards in the next game (only said when a next
    game follows); a shared lowest score is not a loss, and the note says so.
    """
    e = result.ended_by
    if e is None:
        return None
    subject = who(e, names, viewer)
    outcome = result.outcomes[e]
    if outcome == "draw":
        return f"{subject} ended early and shared the lowest score: a tie is not a loss, so no extra card" + (
            " next game" if next_game else ""
        )
    if outcome == "loss":
        k = result.extra_cards[e]
        if next_game and k:
            return f"{subject} ended early and lost: {plural(k, 'extra card')} in the bottom row next game"
        return f"{subject} ended early and lost"
    return None


__all__ = ["describe_event", "end_text", "ender_note", "plural", "verdict", "who", "whose"]
