"""The random bot: a uniformly random legal action; now and then a random snap."""

from __future__ import annotations

from ...platform.bot import Option
from ..actions import Action, Snap
from ..views import GolfView
from .base import GolfBot


class RandomBot(GolfBot):
    """Uniformly random legal turn actions; tries a random snap with probability ``snap_rate``.

    Args:
        seed: random seed.
        snap_rate: chance of trying a (probably wrong) snap when offered (0.05).
    """

    name = "random"
    description = "random legal moves, an occasional blind snap"
    option_schema = {
        "snap_rate": Option(
            float,
            0.05,
            0.0,
            1.0,
            unit="probability",
            help="chance of trying a random snap when one is offered",
        ),
    }

    def __init__(self, seed=None, snap_rate: float = 0.05) -> None:
        super().__init__(seed)
        self.snap_rate = snap_rate

    def act(self, view: GolfView) -> Action:
        return self.rng.choice(view.legal_actions())

    def snap(self, view: GolfView) -> Snap | None:
        snaps = view.legal_snaps()
        if snaps and self.rng.random() < self.snap_rate:
            return self.rng.choice(snaps)
        return None
