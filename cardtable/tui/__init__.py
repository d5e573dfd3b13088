"""Game-agnostic terminal helpers (Rich): prompts, hidden entry, hot-seat hand-offs.

Game packages draw their own screens (``cardtable.goofspiel.tui``,
``cardtable.golf.tui``) with these helpers; nothing here knows a game's rules.
"""

from .terminal import ABANDONED, QuitGame, Terminal
from .words import outcome_phrase, subject, verb

__all__ = ["ABANDONED", "Terminal", "QuitGame", "outcome_phrase", "subject", "verb"]
