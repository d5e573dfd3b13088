"""Helpers for Golf tests: build games with chosen cards."""

from __future__ import annotations

import pytest

from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.state import GolfGame


def deck_for(
    ruleset: GolfRuleset, grids: list[list[int]], pile: list[int], extra: tuple[int, ...] | None = None
) -> list[int]:
    """A deal order giving each seat ``grids[seat]`` (ranks, positions 1..9 + extras)
    and a draw pile starting (top first) with ``pile``; the rest follows in id order."""
    pools: dict[int, list[int]] = {r: [] for r in range(1, 14)}
    for c in range(ruleset.deck_size):
        pools[c % 13 + 1].append(c)
    order = []
    size = ruleset.grid_size
    for i in range(size):
        for g in grids:
            order.append(pools[g[i]].pop(0))
    for g in grids:
        for r in g[size:]:
            order.append(pools[r].pop(0))
    for r in pile:
        order.append(pools[r].pop(0))
    order += sorted(c for pool in pools.values() for c in pool)
    return order


@pytest.fixture
def make_game():
    """``make_game(grids, pile, **kw)`` -> a GolfGame with those ranks."""

    def make(grids, pile=(), ruleset=None, **kw):
        rs = ruleset or GolfRuleset(players=len(grids))
        return GolfGame(rs, deck=deck_for(rs, grids, list(pile)), **kw)

    return make
