"""A fast playout policy that reads the game state directly (for search).

It plays like :class:`~.heuristic.HeuristicBot` but looks only at
``game.known[seat]`` for the seat to act, values unknown cards at the deck's
mean value, and offers snaps in one round after each discard. It never looks
at a card the acting player does not know, so playouts from a determinised
state stay fair to the hidden information of that sample.
"""

from __future__ import annotations

from ..actions import Discard, Draw, EndEarly, NoPass, Pass, Peek, Snap, Steal, Swap
from ..state import GolfGame


def deck_mean(game: GolfGame) -> float:
    """Mean card value of the ruleset's deck."""
    v = game.ruleset.values
    return sum(v) / 13


def _est(game: GolfGame, seat: int, owner: int, mean: float) -> dict[int, float]:
    known = game.known[seat]
    vals = game.ruleset.values
    return {p: (vals[c % 13] if c in known else mean)
            for p, c in enumerate(game.grids[owner]) if c is not None}


def fast_act(game: GolfGame, mean: float, end_margin: float = 4.0) -> None:
    """Apply one action for ``game.actor`` chosen by the playout policy (then snaps after a discard)."""
    p = game.actor
    assert p is not None
    rs = game.ruleset
    vals = rs.values
    if game.phase == "pass":
        est = _est(game, p, p, mean)
        worst = max(est, key=est.__getitem__)
        game.apply(Pass(p, worst) if est[worst] > 0 else NoPass(p))
        return
    if game.phase == "draw":
        if game.can_end_early(p):
            own_total = sum(_est(game, p, p, mean).values())
            if all(own_total + end_margin <= sum(_est(game, p, o, mean).values())
                   for o in range(game.players) if o != p):
                game.apply(EndEarly(p))
                return
        game.apply(Draw(p))
        return
    card = game.drawn
    assert card is not None
    rank = card % 13 + 1
    known = game.known[p]
    est = _est(game, p, p, mean)
    if not game.power_used:
        power = rs.power(rank)
        if power == "detective":
            for pos in sorted(est, key=lambda q: -q):
                if game.grids[p][pos] not in known:
                    game.apply(Peek(p, pos))
                    return
        elif power == "thief":
            mine = [q for q in est if game.grids[p][q] in known]
            if mine:
                give = max(mine, key=est.__getitem__)
                best = None
                for o in range(game.players):
                    if o == p or o == game.ended_by:  # an early ender's grid is frozen
                        continue
                    for q, c in enumerate(game.grids[o]):
                        if c is None:
                            continue
                        val = vals[c % 13] if c in known else mean + 0.5
                        if best is None or val < best[0]:
                            best = (val, o, q)
                if best is not None and est[give] - best[0] >= 3:
                    game.apply(Steal(p, give, best[1], best[2]))
                    return
    value = vals[rank - 1]
    best_gain, best_pos = 0.0, None
    used = game.power_pos()  # the power card goes into a further card
    for pos, e in est.items():
        if e - value > best_gain and pos != used:
            best_gain, best_pos = e - value, pos
    match = any(c is not None and c in known and c % 13 + 1 == rank for c in (game.grids[p][q] for q in est))
    if match and value >= best_gain:
        game.apply(Discard(p))
    elif best_pos is not None and best_gain > 0.5:
        game.apply(Swap(p, best_pos))
    else:
        game.apply(Discard(p))
    fast_snaps(game, p, mean)


def fast_snaps(game: GolfGame, discarder: int, mean: float) -> None:
    """One round of sure snaps (known matching cards), next player first."""
    n = game.players
    for k in range(1, n + 1):
        if not game.snaps_open():  # over, nothing to snap onto, or no penalty card left
            return
        q = (discarder + k) % n
        if q == game.ended_by:  # an early ender's grid is frozen: no snaps by or against them
            continue
        top = game.discard[-1] % 13
        known = game.known[q]
        choice = None
        for pos, c in enumerate(game.grids[q]):
            if c is not None and c in known and c % 13 == top:
                choice = Snap(q, q, pos)
                break
        if choice is None and game.ruleset.snap_opponents and any(c is not None for c in game.grids[q]):
            for o in range(n):
                if o == q or o == game.ended_by:
                    continue
                for pos, c in enumerate(game.grids[o]):
                    if c is not None and c in known and c % 13 == top:
                        choice = Snap(q, o, pos)
                        break
                if choice:
                    break
        if choice is not None:
            game.apply(choice)
            if game.phase == "pass":
                fast_act(game, mean)


def rollout(game: GolfGame, seat: int, max_actions: int = 2000) -> int:
    """Play ``game`` (mutated) to the end with the playout policy.

    Returns:
        ``seat``'s score minus the best opponent score (negative is good).
    """
    mean = deck_mean(game)
    for _ in range(max_actions):
        if game.over:
            break
        fast_act(game, mean)
    scores = game.scores()
    return scores[seat] - min(s for o, s in enumerate(scores) if o != seat)
