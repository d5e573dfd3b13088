"""Prepare the solver's Numba kernels before a game, so that no bid waits for a compiler.

The kernels are ``@njit(cache=True)``: the first call after a fresh install compiles
each one (12-21 s in all for the ``nash`` bot at 12-13 cards on a shared 2-core machine,
docs/play.md, Speed; ``kernel.solve_matrix_game`` alone about 5 s), later processes load the compiled code from Numba's on-disk cache (well
under a second). Numba compiles a kernel once per combination of argument *types*
(array dtypes, dimensions, read-only or not), so a kernel run on an input of other
types is compiled again. :func:`warm_kernels` therefore makes the same
:class:`~.equilibrium.EquilibriumSource` the ``nash`` bot makes for the ruleset (its
solved table, compressed table, carry-over approximation and low layers, read from the
same files) and asks each part for a round with two or three cards per hand: every
kernel the bot calls runs on a tiny input of exactly the types of the real calls.
``cardtable play`` calls it before the first game, ``cardtable serve`` in a background
thread at start-up (docs/play.md, Speed).

>>> from cardtable.goofspiel import Ruleset
>>> seconds = warm_kernels(Ruleset(cards=4, tie_rule="discard"))
>>> seconds >= 0.0
True
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from numba.core.dispatcher import Dispatcher

from cardtable.goofspiel import Game, Ruleset

from .equilibrium import EquilibriumSource, lookahead_strategy
from .position import Position, check_supported, position_from_view
from .round_subgame import solve_round_subgame
from .table import count_games
from .tables import subgame_layout

#: The objectives of the solver (docs/solver.md): expected point difference, or win/draw/loss.
OBJECTIVES = ("points", "win")

#: Cards per hand of the rounds the kernels are run on: the smallest that call each kernel
#: (a round of one card solves no matrix game; a subgame of three cards solves a layer).
ROUND_CARDS = 2
SUBGAME_CARDS = 3


def warm_kernels(ruleset: Ruleset, objective: str = "points", cache: Path | None = None) -> float:
    """Compile (or load from Numba's on-disk cache) every kernel the ``nash`` bot (and the
    ``exploiter``, ``bait`` and the coach's hints, which play from it) calls in ``ruleset``,
    with the argument types of the real calls (module docstring).

    Args:
        ruleset: a ruleset the solver covers (2 players, single-card bids, one prize at a
            time; docs/rules.md).
        objective: ``"points"`` or ``"win"``, as the bot's option.
        cache: the folder of solved tables (default ``$CARDTABLE_CACHE``, else the user
            cache folder), as :class:`~.equilibrium.EquilibriumSource`.

    Returns:
        the seconds it took (wall clock): 12-21 s the first time after an install, about
        1.4-1.8 s (12 and 13 cards) once Numba's cache holds the kernels. Includes what the bot's
        first ``new_game`` would do anyway and keeps for the process (opening and
        verifying a table file; for 9 or 10 cards solving the discard table or the low
        layers in memory).

    Raises:
        ValueError: an objective other than ``"points"`` or ``"win"``.
        UnsupportedRuleset: a ruleset outside the solver.
        TableFileError: a damaged table in the cache folder (as the bot's ``new_game``).
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    check_supported(ruleset)
    start = time.perf_counter()
    source = EquilibriumSource(ruleset, objective, cache=cache)
    source.note()  # the bot's new_game says what it plays from, with a solve's estimate (lean kernels)
    pos, prize = small_position(ruleset, ROUND_CARDS, objective)
    for part in (source.table, source.approx, source.compressed):
        if part is not None:
            # a compressed carry-over table plays only the rounds above its lowest layer
            lowest = getattr(part, "lo", 0)
            part.round_strategy(*(small_position(ruleset, lowest + 1, objective) if lowest else (pos, prize)))
    lookahead_strategy(ruleset, pos, prize)
    sub_pos, sub_prize = small_position(ruleset, SUBGAME_CARDS, objective)
    # the bot's own routing: a subgame (its size counted first, with carry-over ties by
    # kernel.most_ties_each) reading the low layers where there are some, or the table
    source.strategy(sub_pos, sub_prize)
    count_games(subgame_layout(ruleset, sub_pos, objective))
    # a subgame that solves its layers (kernel.solve_layer): a 3-card subgame reading the
    # low layers reads every layer it needs and solves none
    solve_round_subgame(ruleset, sub_pos, sub_prize, objective).round_strategy(sub_pos, sub_prize)
    return time.perf_counter() - start


def small_position(ruleset: Ruleset, cards: int, objective: str = "points") -> tuple[Position, int]:
    """A position of ``ruleset`` with ``min(cards, ruleset.cards)`` cards in each hand and
    its prize turned up: a game (seed ``"warm"``) in which both players bid their lowest
    card every round (ties, and with carry-over ties a pot), stopped there; with the
    ``"points"`` objective without the score (as the ``nash`` bot asks).

    Raises:
        UnsupportedRuleset: a ruleset outside the solver.
    """
    check_supported(ruleset)
    game = Game(ruleset, seed="warm")
    for _ in range(ruleset.cards - min(cards, ruleset.cards)):
        game.play([(min(game.view(s).hand, key=ruleset.strength),) for s in range(ruleset.players)])
    pos, prize = position_from_view(game.view(0))
    if objective == "points":
        pos = Position(pos.prizes, pos.hands, pos.pot, 0)
    return pos, prize


def kernel_signatures() -> dict[str, frozenset[str]]:
    """The argument types each solver kernel is compiled for in this process so far:
    ``{"module.function": {signature, ...}}`` over the Numba kernels of the loaded
    ``cardtable.solver`` modules (kernels never called are left out). A kernel called
    with a new combination of types is compiled again: comparing this before and after
    a game shows whether :func:`warm_kernels` prepared every kernel the game used."""
    out: dict[str, frozenset[str]] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith("cardtable.solver."):
            continue
        for attr, obj in vars(module).items():
            if isinstance(obj, Dispatcher) and obj.py_func.__module__ == name and obj.signatures:
                out[f"{name}.{attr}"] = frozenset(str(s) for s in obj.signatures)
    return out


__all__ = ["OBJECTIVES", "kernel_signatures", "small_position", "warm_kernels"]
