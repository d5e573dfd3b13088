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
from .views import GolfView, build_view


def determinize(view: GolfView, rng: random.Random) -> GolfGame:
    """A :class:`GolfGame` drawn uniformly among deals consistent with ``view``.

    The sample has no history (``history == []``); everything else (phase,
    turn, snaps made, early end) is copied from the view.

    Raises:
        GolfError: the view shows more cards of a rank than the deck holds.
    """
    rs = view.ruleset
    n = rs.players
    pools: list[list[int]] = [[] for _ in range(13)]
    ids = list(range(rs.deck_size))
    rng.shuffle(ids)
    for c in ids:
        pools[c % 13].append(c)

    def take(rank: int) -> int:
        if not pools[rank - 1]:
            raise GolfError(f"the view shows more cards of rank {rank} than the deck holds")
        return pools[rank - 1].pop()

    everyone = set(range(n))
    known: list[set[int]] = [set() for _ in range(n)]
    discard = [take(r) for r in view.discard]
    for k in known:
        k.update(discard)
    drawn = None
    if view.holding:
        if view.drawn is not None:
            drawn = take(view.drawn)
            # the drawer knows it; a shown Detective/Thief is known to all
            whom = everyone if rs.power(view.drawn) else {view.current}
            for p in whom:
                known[p].add(drawn)
    grids: list[list[int | None]] = []
    unknown_slots: list[tuple[int, int]] = []
    for s, g in enumerate(view.grids):
        row: list[int | None] = []
        for pos, r in enumerate(g):
            if r is None:
                row.append(None)
            elif r:
                c = take(r)
                row.append(c)
                for p in view.seen_by[s][pos]:
                    known[p].add(c)
            else:
                row.append(-1)
                unknown_slots.append((s, pos))
        grids.append(row)
    rest = [c for pool in pools for c in pool]
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
    draw_pile = list(it)

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
    game.phase = view.phase  # type: ignore[assignment]
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
