"""Golf with Detective and Thief (docs/golf.md, Rules): rules engine, knowledge, bots, records, terminal play.

- :class:`GolfRuleset` (ruleset.py): every default of docs/golf.md, configurable.
- :class:`GolfGame` (state.py): the pure state machine; ``apply(action) -> Event``.
- actions.py: the actions as dataclasses, text and JSON.
- views.py: :func:`build_view` -> :class:`GolfView`, what one seat may know, as plain data.
- narrate.py: events and results in words (second person for the reader).
- driver.py: turns and snap windows for bots and the terminal.
- record.py: text/JSON records and :func:`replay_text`.
- bots/: ``random``, ``heuristic``, ``search``; tui.py: terminal play.

The decisions the rule text leaves open: docs/golf.md, "Decisions where the text is silent".

>>> from cardtable.golf import GolfGame, Draw, Discard
>>> g = GolfGame(seed=2); _ = g.apply(Draw(0)); _ = g.apply(Discard(0))
>>> g.current, build_view(g, 1).top is not None
(1, True)
"""

from .actions import (
    Action,
    Discard,
    Draw,
    EndEarly,
    NoPass,
    Pass,
    Peek,
    Snap,
    Steal,
    Swap,
    action_from_dict,
    parse_action,
)
from .errors import GolfError, IllegalAction
from .ruleset import GolfRuleset
from .state import Event, GolfGame, GolfResult
from .views import GolfView, build_view

__all__ = [
    "Action",
    "Discard",
    "Draw",
    "EndEarly",
    "Pass",
    "Peek",
    "Snap",
    "Steal",
    "Swap",
    "action_from_dict",
    "parse_action",
    "GolfError",
    "IllegalAction",
    "GolfRuleset",
    "Event",
    "GolfGame",
    "GolfResult",
    "GolfView",
    "build_view",
    "NoPass",
]
