"""Determinisation: a full game state consistent with one player's view.

Information-set search (:mod:`cardtable.golf.bots.search`) samples the cards a
player has not seen: every face-down card the viewer does not know and the
whole draw pile are filled with a random arrangement of the cards the viewer
has not seen (the deck minus every rank the view shows). Suits do not matter
to the rules, so a known rank gets any card id of that rank. What the other
players know is kept per position (``view.seen_by``): in the sample they know
the card that was put there.

>>> from cardtable.golf.state import GolfGame
>>> import random
>>> g = GolfGame(seed=3)
>>> d = determinize(build_view(g, 0), random.Random(1))
>>> sorted(d.all_cards()) == list(range(52)), build_view(d, 0).grids == build_view(g, 0).grids
(True, True)
"""

from __future__ import annotations

import random

from .errors import GolfError
from .state import GolfGame
from .views import GolfView, build_view  # noqa: F401  (build_view: the module doctest's)


def determinize(view: GolfView, rng: random.Random) -> GolfGame:
    """A :class:`GolfGame` drawn uniformly among deals consistent with ``view``.

    The sample has no history (``history == []``); everything else (phase,
    turn, snaps made, early end) is copied from the view.

    Raises:
        GolfError: the view shows more cards of a rank than the deck holds.
    """
    rs = view.ruleset
    n = rs.players
    pools = _Pools(rs.deck_size, rng)
    known: list[set[int]] = [set() for _ in range(n)]
    discard = [pools.take(r) for r in view.discard]
    for k in known:
        k.update(discard)
    drawn = _shown_drawn(view, pools, known)
    grids, unknown_slots = _shown_grids(view, pools, known)
    rest = pools.rest()
    rng.shuffle(rest)
    need = len(unknown_slots) + view.draw_pile + (1 if view.holding and drawn is None else 0)
    if need != len(rest):
        raise GolfError(f"the view does not add up: {need} hidden places for {len(rest)} unseen cards")
    it = iter(rest)
    for s, pos in unknown_slots:
        c = next(it)
        grids[s][pos] = c
        for p in view.seen_by[s][pos]:
            known[p].add(c)
    if view.holding and drawn is None:
        drawn = next(it)
        known[view.current].add(drawn)
    return _sampled_game(view, grids, list(it), discard, known, drawn)


class _Pools:
    """The deck's card ids by rank, each rank's ids in a random order (``rng`` shuffles once)."""

    def __init__(self, deck_size: int, rng: random.Random) -> None:
        self.pools: list[list[int]] = [[] for _ in range(13)]
        ids = list(range(deck_size))
        rng.shuffle(ids)
        for c in ids:
            self.pools[c % 13].append(c)

    def take(self, rank: int) -> int:
        """A card id of ``rank`` (1..13) not taken before.

        Raises:
            GolfError: every card of ``rank`` is taken.
        """
        if not self.pools[rank - 1]:
            raise GolfError(f"the view shows more cards of rank {rank} than the deck holds")
        return self.pools[rank - 1].pop()

    def rest(self) -> list[int]:
        """The ids not taken, rank by rank."""
        return [c for pool in self.pools for c in pool]


def _shown_drawn(view: GolfView, pools: _Pools, known: list[set[int]]) -> int | None:
    """A card for the held card the view shows (``None`` if none is held or it is hidden)."""
    if not view.holding or view.drawn is None:
        return None
    drawn = pools.take(view.drawn)
    # the drawer knows it; a shown Detective/Thief is known to all
    whom = range(view.ruleset.players) if view.ruleset.power(view.drawn) else (view.current,)
    for p in whom:
        known[p].add(drawn)
    return drawn


def _shown_grids(
    view: GolfView, pools: _Pools, known: list[set[int]]
) -> tuple[list[list[int | None]], list[tuple[int, int]]]:
    """The grids with a card for every shown rank (``-1`` where hidden, ``None`` for a hole)
    and the hidden ``(seat, position)`` slots in order."""
    grids: list[list[int | None]] = []
    unknown_slots: list[tuple[int, int]] = []
    for s, g in enumerate(view.grids):
        row: list[int | None] = []
        for pos, r in enumerate(g):
            if r is None:
                row.append(None)
            elif r:
                c = pools.take(r)
                row.append(c)
                for p in view.seen_by[s][pos]:
                    known[p].add(c)
            else:
                row.append(-1)
                unknown_slots.append((s, pos))
        grids.append(row)
    return grids, unknown_slots


def _sampled_game(
    view: GolfView,
    grids: list[list[int | None]],
    draw_pile: list[int],
    discard: list[int],
    known: list[set[int]],
    drawn: int | None,
) -> GolfGame:
    """A :class:`GolfGame` with the sampled cards and the rest of its state copied from ``view``."""
    rs = view.ruleset
    n = rs.players
    game = GolfGame.__new__(GolfGame)
    game.ruleset = rs
    game.seed = None
    game.initial_deck = ()
    game.first_player = view.current
    game.extra_cards = (0,) * n
    game.grids = grids
    game.slot_rows = [list(r) for r in view.slot_rows]
    game.draw_pile = draw_pile
    game.discard = discard
    game.known = known
    game.phase = view.phase
    game.current = view.current
    game.turn = view.turn
    game.drawn = drawn
    game.power_used = view.power_used
    game.power_card = grids[view.current][view.power_pos] if view.power_pos is not None else None
    game.passer = view.actor if view.phase == "pass" else None
    game.pass_target = view.pass_target
    game.resume_phase = "drawn" if view.holding else "draw"
    game.snaps_made = list(view.snaps_made)
    game.own_snaps = list(view.own_snaps)
    game.ended_by = view.ended_by
    game.last_turns = list(view.last_turns)
    game.end_reason = None
    game.history = []
    return game
