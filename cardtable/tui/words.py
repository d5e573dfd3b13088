"""Words for the person at the terminal: the second person for them, names for others.

A game screen speaks to the one person playing (``You win 12``, ``Match over:
you lose``) and names everyone else (``heuristic wins 12``). In hot-seat play
several people share the screen, so everyone is named; a game drawn for
bots only names every bot.

>>> verb(True, "win"), verb(False, "win"), verb(False, "take"), verb(True, "lose")
('win', 'wins', 'takes', 'lose')
>>> subject("Ann", True), subject("Ann", True, start=False), subject("heuristic", False)
('You', 'you', 'heuristic')
>>> outcome_phrase("Ann", True, "loss"), outcome_phrase("heuristic", False, "win")
('you lose', 'heuristic wins')
>>> outcome_phrase("Ann", True, "draw"), outcome_phrase("random", False, "draw")
('you draw', 'random draws')
"""

from __future__ import annotations

#: Outcome words of records and results (``win``, ``draw``, ``loss``) as verbs.
OUTCOME_VERBS = {"win": "win", "draw": "draw", "loss": "lose"}


def verb(you: bool, base: str) -> str:
    """``base`` conjugated for "you" (``win``) or for a third person (``wins``)."""
    if you:
        return base
    return base + "es" if base.endswith(("s", "sh", "ch", "x")) else base + "s"


def subject(name: str, you: bool, start: bool = True) -> str:
    """``You``/``you`` for the person at the terminal, else their name."""
    if you:
        return "You" if start else "you"
    return name


def outcome_phrase(name: str, you: bool, outcome: str) -> str:
    """``you lose``, ``heuristic wins``, ``you draw`` from an outcome word."""
    return f"{subject(name, you, start=False)} {verb(you, OUTCOME_VERBS.get(outcome, outcome))}"
