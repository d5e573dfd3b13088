"""The heuristic bot: remembers what it saw, keeps low cards, snaps only when sure.

Its memory is the view itself (a view holds every card the seat has seen).
Unknown cards are valued at the mean of the unseen cards
(:func:`~.base.expected_unknown`). Rules of thumb:

- Draw: swap the drawn card for the own card with the highest estimated value
  when that gains more than ``swap_margin`` points; but if it knows an own
  card of the drawn rank, discard the drawn card and snap that card instead
  when that gains more. Otherwise discard.
- Detective: look at an unknown own card (bottom rows last). Thief: give away
  the own card with the highest known value for the lowest-valued opponent
  card it knows, or for an unknown one if its own card is clearly worse than
  average.
- Snap: only cards it knows match the top card; snap an opponent's card when
  passing its worst card is worth more than snapping its own.
- Pass: its highest-valued card (known, or unknown if the known ones are low); nothing when
  that card is worth 0 points (passing is optional, docs/golf.md "Snapping").
- End early: when allowed and its estimated score is below every opponent's
  by at least ``end_margin``.
"""

from __future__ import annotations

from ...platform.bot import Option
from ..actions import Action, Discard, Draw, EndEarly, NoPass, Pass, Peek, Snap, Steal, Swap
from ..views import GolfView
from .base import GolfBot, estimated_score, expected_unknown, slot_estimates


class HeuristicBot(GolfBot):
    """Rule-of-thumb Golf player (see the module doc).

    Args:
        seed: random seed (breaks ties).
        swap_margin: minimum estimated gain in points to swap a drawn card in (0.5).
        end_margin: lead in estimated points needed to end early (4).
    """

    name = "heuristic"
    description = "remembers its cards, swaps high for low, snaps when sure, ends early when ahead"
    option_schema = {
        "swap_margin": Option(
            float, 0.5, 0.0, 100.0, unit="points", help="least estimated gain to swap a drawn card in"
        ),
        "end_margin": Option(
            float, 4.0, 0.0, 100.0, unit="points", help="lead in estimated points needed to end early"
        ),
    }

    def __init__(self, seed=None, swap_margin: float = 0.5, end_margin: float = 4.0) -> None:
        super().__init__(seed)
        self.swap_margin = swap_margin
        self.end_margin = end_margin

    # ---------------------------------------------------------------- turns
    def act(self, view: GolfView) -> Action:
        me = view.seat
        unknown = expected_unknown(view)
        if view.phase == "pass":
            est = slot_estimates(view, me, unknown)
            worst = max(est, key=lambda p: (est[p], view.grids[me][p] == 0))
            return Pass(me, worst) if est[worst] > 0 else NoPass(me)  # passing a 0-point card gains nothing
        if view.phase == "draw":
            if view.can_end_early():
                mine = estimated_score(view, me, unknown)
                if all(mine + self.end_margin <= estimated_score(view, o, unknown) for o in view.opponents):
                    return EndEarly(me)
            return Draw(me)
        return self._placement(view, unknown)

    def _placement(self, view: GolfView, unknown: float) -> Action:
        """With a drawn card: use its power if that pays, else swap it in or discard it."""
        me, rs = view.seat, view.ruleset
        rank = view.drawn
        assert rank is not None
        power = rs.power(rank) if not view.power_used else None
        est = slot_estimates(view, me, unknown)
        move = self._power_move(view, power, unknown, est)
        if move is not None:
            return move
        value = rs.rank_value(rank)
        best_swap_gain, best_pos = _best_swap(view, est, value)
        # discarding the drawn card lets us snap our own known card of that rank
        match = [p for p in est if view.grids[me][p] == rank]
        if match and value >= best_swap_gain:
            return Discard(me)
        if best_pos is not None and best_swap_gain > self.swap_margin:
            return Swap(me, best_pos)
        return Discard(me)

    def _power_move(
        self, view: GolfView, power: str | None, unknown: float, est: dict[int, float]
    ) -> Action | None:
        """The Detective's look at the highest unseen own card, or a Thief steal that pays, or ``None``."""
        me = view.seat
        if power == "detective":
            unseen = [p for p in est if view.grids[me][p] == 0]
            if unseen:
                return Peek(me, min(unseen, key=lambda p: (view.slot_rows[me][p], p)))
        if power == "thief":
            return self._steal(view, unknown, est)
        return None

    def _steal(self, view: GolfView, unknown: float, est: dict[int, float]) -> Action | None:
        me, rs = view.seat, view.ruleset
        known_mine = [p for p in est if view.grids[me][p]]
        if not known_mine:
            return None
        give = max(known_mine, key=lambda p: est[p])
        give_value = est[give]
        best = None
        for o in view.opponents:
            if o == view.ended_by:  # an early ender's grid is frozen
                continue
            for q, r in enumerate(view.grids[o]):
                if r is None:
                    continue
                val = rs.rank_value(r) if r else unknown + 0.5  # unknown: a little worse than average
                # prefer cards the owner has seen and kept (likely low)
                if not r and o in view.seen_by[o][q]:
                    val -= 1.0
                if best is None or val < best[0]:
                    best = (val, o, q)
        if best is not None and give_value - best[0] >= 3:
            return Steal(me, give, best[1], best[2])
        return None

    # ---------------------------------------------------------------- snaps
    def snap(self, view: GolfView) -> Snap | None:
        sure = view.sure_snaps()
        if not sure:
            return None
        me = view.seat
        unknown = expected_unknown(view)
        est = slot_estimates(view, me, unknown)
        top = view.top
        assert top is not None, "a sure snap matches the discard pile's top card"
        top_value = view.ruleset.rank_value(top)

        def gain(s: Snap) -> float:
            if s.owner == me:
                return top_value
            worst = max((e for p, e in est.items()), default=0.0)
            return worst + 0.1  # our worst card leaves us; the opponent also gains it

        return max(sure, key=gain)


def _best_swap(view: GolfView, est: dict[int, float], value: int) -> tuple[float, int | None]:
    """``(gain, position)`` of the swap that saves the most estimated points over a card of
    ``value`` (the power card's position excluded; ``(0.0, None)`` if none saves any)."""
    best_swap_gain, best_pos = 0.0, None
    for p, e in est.items():
        if p == view.power_pos:  # the power card goes into a further card (docs/golf.md, "The Detective")
            continue
        if e - value > best_swap_gain + 1e-9 or (best_pos is None and e - value > 0):
            best_swap_gain, best_pos = e - value, p
    return best_swap_gain, best_pos
