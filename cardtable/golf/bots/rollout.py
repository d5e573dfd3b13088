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
    return {
        p: (vals[c % 13] if c in known else mean) for p, c in enumerate(game.grids[owner]) if c is not None
    }


def fast_act(game: GolfGame, mean: float, end_margin: float = 4.0) -> None:
    """Apply one action for ``game.actor`` chosen by the playout policy (then snaps after a discard)."""
    p = game.actor
    assert p is not None
    if game.phase == "pass":
        _act_pass(game, p, mean)
    elif game.phase == "draw":
        _act_draw(game, p, mean, end_margin)
    else:
        _act_drawn(game, p, mean)


def _act_pass(game: GolfGame, p: int, mean: float) -> None:
    """Pass the card with the highest estimate, if it is worth more than 0."""
    est = _est(game, p, p, mean)
    worst = max(est, key=est.__getitem__)
    game.apply(Pass(p, worst) if est[worst] > 0 else NoPass(p))


def _act_draw(game: GolfGame, p: int, mean: float, end_margin: float) -> None:
    """End early when every opponent's estimate is ``end_margin`` above ours, else draw."""
    if game.can_end_early(p):
        own_total = sum(_est(game, p, p, mean).values())
        if all(
            own_total + end_margin <= sum(_est(game, p, o, mean).values())
            for o in range(game.players)
            if o != p
        ):
            game.apply(EndEarly(p))
            return
    game.apply(Draw(p))


def _act_drawn(game: GolfGame, p: int, mean: float) -> None:
    """Use the drawn card: its power if that pays, else swap or discard it, then offer snaps."""
    card = game.drawn
    assert card is not None
    rank = card % 13 + 1
    known = game.known[p]
    est = _est(game, p, p, mean)
    if not game.power_used:
        power = game.ruleset.power(rank)
        action = (
            _peek_choice(game, p, est, known)
            if power == "detective"
            else _steal_choice(game, p, est, known, mean)
            if power == "thief"
            else None
        )
        if action is not None:
            game.apply(action)
            return
    game.apply(_placement(game, p, est, known, rank))
    fast_snaps(game, p, mean)


def _peek_choice(game: GolfGame, p: int, est: dict[int, float], known: set[int]) -> Peek | None:
    """Peek at the unknown own card at the highest position, if any."""
    for pos in sorted(est, key=lambda q: -q):
        if game.grids[p][pos] not in known:
            return Peek(p, pos)
    return None


def _steal_choice(
    game: GolfGame, p: int, est: dict[int, float], known: set[int], mean: float
) -> Steal | None:
    """Give the worst known own card for the lowest-valued opponent card, when that gains 3 or more."""
    mine = [q for q in est if game.grids[p][q] in known]
    if not mine:
        return None
    give = max(mine, key=est.__getitem__)
    best = _cheapest_opponent_card(game, p, known, mean)
    if best is not None and est[give] - best[0] >= 3:
        return Steal(p, give, best[1], best[2])
    return None


def _cheapest_opponent_card(
    game: GolfGame, p: int, known: set[int], mean: float
) -> tuple[float, int, int] | None:
    """``(value, owner, position)`` of the lowest-valued card ``p`` may steal (unknown cards at
    ``mean + 0.5``; the first of equal values), or ``None``."""
    vals = game.ruleset.values
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
    return best


def _placement(game: GolfGame, p: int, est: dict[int, float], known: set[int], rank: int) -> Discard | Swap:
    """Swap the drawn card of ``rank`` into the position it improves most (by more than 0.5),
    or discard it (also when it matches a known own card at least as well)."""
    value = game.ruleset.values[rank - 1]
    best_gain, best_pos = 0.0, None
    used = game.power_pos()  # the power card goes into a further card
    for pos, e in est.items():
        if e - value > best_gain and pos != used:
            best_gain, best_pos = e - value, pos
    match = any(c is not None and c in known and c % 13 + 1 == rank for c in (game.grids[p][q] for q in est))
    if match and value >= best_gain:
        return Discard(p)
    if best_pos is not None and best_gain > 0.5:
        return Swap(p, best_pos)
    return Discard(p)


def fast_snaps(game: GolfGame, discarder: int, mean: float) -> None:
    """One round of sure snaps (known matching cards), next player first."""
    n = game.players
    for k in range(1, n + 1):
        if not game.snaps_open():  # over, nothing to snap onto, or no penalty card left
            return
        q = (discarder + k) % n
        if q == game.ended_by:  # an early ender's grid is frozen: no snaps by or against them
            continue
        choice = _snap_choice(game, q)
        if choice is not None:
            game.apply(choice)
            if game.phase == "pass":
                fast_act(game, mean)


def _known_match(game: GolfGame, owner: int, known: set[int], top: int) -> int | None:
    """The first position of ``owner``'s grid holding a known card of rank index ``top``, or ``None``."""
    for pos, c in enumerate(game.grids[owner]):
        if c is not None and c in known and c % 13 == top:
            return pos
    return None


def _snap_choice(game: GolfGame, q: int) -> Snap | None:
    """A sure snap for seat ``q``: on its own grid first, then (if the rules allow and ``q`` still
    has a card) on the opponents' grids in seat order, skipping an early ender."""
    top = game.discard[-1] % 13
    known = game.known[q]
    pos = _known_match(game, q, known, top)
    if pos is not None:
        return Snap(q, q, pos)
    if not (game.ruleset.snap_opponents and any(c is not None for c in game.grids[q])):
        return None
    for o in range(game.players):
        if o == q or o == game.ended_by:
            continue
        pos = _known_match(game, o, known, top)
        if pos is not None:
            return Snap(q, o, pos)
    return None


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
