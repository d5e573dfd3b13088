"""The search bot: determinised Monte Carlo search over the unseen cards.

An information-set search in its simplest sound form ("perfect-information
Monte Carlo", Long et al., *Understanding the Success of Perfect Information
Monte Carlo Sampling in Game Tree Search*, AAAI 2010): for each of its turn
decisions it

1. samples ``determinizations`` full deals consistent with its view
   (:func:`cardtable.golf.determinize.determinize`: the unseen cards are shuffled
   into every face-down card it does not know and the draw pile);
2. plays every candidate action in every sample and finishes the game with
   the fast playout policy (:mod:`.rollout`), where every player acts only on
   what *they* know in that sample;
3. picks the candidate with the lowest mean final score difference (own
   score minus the best opponent's). The same samples serve all candidates
   (common random numbers).

Candidates: draw or end early; discard; every swap; Detective looks at cards
it does not know; Thief swaps of its ``steal_width`` worst cards with each
opponent's ``steal_width`` most promising cards. Snaps and passes follow the
heuristic bot (snap only when sure).
"""

from __future__ import annotations

from ...platform.bot import Option
from ..actions import Action, Peek, Steal
from ..determinize import determinize
from ..views import GolfView
from .base import expected_unknown, slot_estimates
from .heuristic import HeuristicBot
from .rollout import rollout


class SearchBot(HeuristicBot):
    """Determinised Monte Carlo search (see the module doc).

    Args:
        seed: random seed (samples are drawn from ``self.rng``).
        determinizations: samples per decision (16).
        steal_width: own and opponent cards considered for a Thief swap (3).
    """

    name = "search"
    description = "determinised Monte Carlo search over the cards it has not seen"
    option_schema = {
        "determinizations": Option(
            int,
            16,
            1,
            1000,
            unit="deals per decision",
            help="sampled deals consistent with its view, per decision",
        ),
        "steal_width": Option(
            int, 3, 0, 30, unit="cards", help="own and opponent cards considered for a Thief swap (0: none)"
        ),
    }

    def __init__(self, seed=None, determinizations: int = 16, steal_width: int = 3) -> None:
        super().__init__(seed)
        self.determinizations = determinizations
        self.steal_width = steal_width

    def candidates(self, view: GolfView) -> list[Action]:
        """The pruned candidate actions for the pending decision."""
        legal = view.legal_actions()
        me = view.seat
        out: list[Action] = []
        unknown = expected_unknown(view)
        est = slot_estimates(view, me, unknown)
        worst_mine = sorted(est, key=lambda p: -est[p])[: self.steal_width]
        promising: dict[int, list[int]] = {}
        for o in view.opponents:
            o_est = {}
            for q, r in enumerate(view.grids[o]):
                if r is None:
                    continue
                val = view.ruleset.rank_value(r) if r else unknown - (1.0 if o in view.seen_by[o][q] else 0.0)
                o_est[q] = val
            promising[o] = sorted(o_est, key=o_est.__getitem__)[: self.steal_width]
        for a in legal:
            if isinstance(a, Peek) and view.grids[me][a.pos] != 0:
                continue
            if isinstance(a, Steal) and (a.pos not in worst_mine or a.target_pos not in promising[a.target]):
                continue
            out.append(a)
        return out or legal

    def act(self, view: GolfView) -> Action:
        if view.phase == "pass":
            return super().act(view)
        cands = self.candidates(view)
        if len(cands) == 1:
            return cands[0]
        totals = [0.0] * len(cands)
        for _ in range(self.determinizations):
            det = determinize(view, self.rng)
            for i, a in enumerate(cands):
                g = det.copy()
                g.apply(a)
                totals[i] += rollout(g, view.seat)
        best = min(range(len(cands)), key=lambda i: (totals[i], i))
        return cands[best]
