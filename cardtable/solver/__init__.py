"""The exact equilibrium solver for 2-player Goofspiel (the "GOPS tablebase").

Method (docs/solver.md has the full account): backward induction over
positions taken *before* a prize is revealed. The value of a position with
``k`` cards in each hand is the mean, over the ``k`` equally likely next
prizes, of the value of a ``k x k`` zero-sum matrix game whose entries are the
round's outcome (the stake, signed; with the win objective nothing) plus the
value of the resulting position (docs/rules.md, A round; ties per the tie
rule, docs/rules.md, Ties; a last-round tie gives the pot to nobody). Each matrix game is solved
exactly by a dense simplex with Bland's anti-cycling rule
(:func:`cardtable.solver.kernel.solve_matrix_game`) and verified: the row
player's guarantee and the column player's guarantee must meet within 1e-9.

Indexing (how a position maps to a table slot)
----------------------------------------------
Only the relative order of the bid cards decides a comparison, so two hands
are reduced to their *pattern*: the distinct bid strengths held by either
player, low to high, each labelled 1 (only A holds it), 2 (only B) or 3
(both); label ``i`` occupies bits ``2i..2i+1`` of the pattern code. Swapping
the players swaps every label's two bits and negates the value (for the win
objective also the point difference), so only the *canonical* code
``min(code, swapped)`` is stored; a lookup of the other one returns the
negated value. Per layer ``k`` the canonical codes are sorted and a pattern's
index is its position in that list (binary search). Prize subsets are bit
masks over prize indices, ranked in colex order among the subsets of size
``k``. Per subset ``s`` with ``R = T - (prize points of s)`` (``T`` = all
prize points) there are ``npot = R + 1`` pot values (carry-over; else 1) and
``nd = 2R + 1`` point differences ``-R..R`` (win objective; else 1)::

    slot = val_off[k] + base[k][rank(s)] + (pot * nd + (d + R)) * npat[k] + pattern

Worked example (5 cards, discard ties, points objective). A holds A,4,5;
B holds 2,3,4; prizes 2,3,5 are face down. Strengths held: 1 (A), 2 (B),
3 (B), 4 (both), 5 (A) -> labels 1,2,2,3,1 -> code ``1 + 2*4 + 2*16 + 3*64 +
1*256 = 489``; swapped: labels 2,1,1,3,2 -> 726, so 489 is canonical (sign
+1). Layer 3 has 22 canonical patterns and 489 is the 19th (index 18).
The prizes 2,3,5 are prize indices 1,2,4: mask ``0b10110 = 22``, colex rank
6 among the 3-subsets of 5 (7, 11, 13, 14, 19, 21, 22, ...). With discard
ties and points there is one row of 22 slots per subset: ``base = 6 * 22 =
132``; layers 1 and 2 take 80 slots, so the slot is ``80 + 132 + 18 = 230``;
its value is 4.2095 points for A (and -4.2095 for the mirrored position).

>>> from cardtable.goofspiel import Ruleset
>>> t = solve(Ruleset(cards=5, tie_rule="discard"))
>>> pos = Position(frozenset({2, 3, 5}), (frozenset({1, 4, 5}), frozenset({2, 3, 4})))
>>> t.hand_code(pos), round(t.value(pos), 4), round(t.value(pos.swapped()), 4)
(489, 4.2095, -4.2095)

Modules: :mod:`.kernel` (Numba kernels), :mod:`.layout` (indexing, driver),
:mod:`.tables` (:class:`SolvedTable`, the one interface of both table formats, and
what they share), :mod:`.table` (format 1: queries, table files), :mod:`.lean` and
:mod:`.layers` (format 2: reachable pots only, float32 layers on disk, resumable),
:mod:`.low_layers` and :mod:`.round_subgame` (exact subgames),
:mod:`.ray_backend` and :mod:`.cuda_backend` (other ways to compute a layer),
:mod:`.estimate` (what a solve needs), :mod:`.position` (positions, supported
rulesets), :mod:`.exploit` (best responses), :mod:`.analysis` (records).
"""

from .estimate import SolveNeeds, estimate_solve
from .layout import SolverError
from .position import ImpossiblePosition, Position, UnsupportedRuleset, check_supported
from .table import (
    RoundStrategy,
    SolvedTable,
    Table,
    TableFileError,
    default_path,
    load_table,
    open_table,
    solve,
    solve_subgame,
    write_table,
)

__all__ = [
    "ImpossiblePosition",
    "Position",
    "RoundStrategy",
    "SolveNeeds",
    "SolvedTable",
    "SolverError",
    "Table",
    "TableFileError",
    "estimate_solve",
    "UnsupportedRuleset",
    "check_supported",
    "default_path",
    "load_table",
    "open_table",
    "solve",
    "solve_subgame",
    "write_table",
]
