"""The Golf bot base class and helpers shared by the bots.

A Golf bot answers two questions: :meth:`GolfBot.act` (the pending turn
action or, after snapping an opponent's card, which card to pass) and
:meth:`GolfBot.snap` (offered in every snap window: a
:class:`~cardtable.golf.actions.Snap` or ``None`` to pass).
"""

from __future__ import annotations

from ...platform.bot import Bot
from ..actions import Action, Snap
from ..views import GolfView


class GolfBot(Bot):
    """A Golf player that sees only its own :class:`~cardtable.golf.views.GolfView`."""

    ruleset = None
    seat = 0

    def new_game(self, ruleset, seat: int) -> None:
        self.ruleset = ruleset
        self.seat = seat

    def act(self, view: GolfView) -> Action:  # pragma: no cover - abstract
        raise NotImplementedError

    def snap(self, view: GolfView) -> Snap | None:
        """A snap to try now, or ``None``; the default never snaps."""
        return None


def unseen_values(view: GolfView) -> list[int]:
    """Values of the cards the viewer has not seen (face-down unknowns and the draw pile).

    Computed from the deck's composition minus every rank the view shows.
    """
    rs = view.ruleset
    assert rs.decks is not None  # GolfRuleset resolves decks=None when it is made
    counts = [4 * rs.decks] * 13
    shown = list(view.discard) + [r for g in view.grids for r in g if r]
    if view.drawn is not None:
        shown.append(view.drawn)
    for r in shown:
        counts[r - 1] -= 1
    return [rs.values[r] for r in range(13) for _ in range(max(counts[r], 0))]


def expected_unknown(view: GolfView) -> float:
    """Mean value of a card the viewer has not seen."""
    vals = unseen_values(view)
    return sum(vals) / len(vals) if vals else 5.0


def slot_estimates(view: GolfView, seat: int, unknown: float) -> dict[int, float]:
    """Estimated value per occupied position of ``seat``'s grid: known value, else ``unknown``."""
    v = view.ruleset.values
    return {p: (v[r - 1] if r else unknown) for p, r in enumerate(view.grids[seat]) if r is not None}


def estimated_score(view: GolfView, seat: int, unknown: float) -> float:
    """Estimated points of ``seat``'s grid from the viewer's knowledge."""
    return sum(slot_estimates(view, seat, unknown).values())
