"""A format-2 table of the 13-card carry-over game, opened and read through the real
lookup code without solving anything.

The complete 13-card table is about 16 GiB (layer 8 alone is 7 GiB), too large for a test.
What a person's machine holds after ``cardtable solve -n 13 --ties carry --layers 3`` is
the *low layers* 1..3 (about 2.6 MiB of values plus the layout): this test writes exactly
that folder, with the library's own writer (:func:`solve_layered` with ``upto=3``:
``layout.npz``, ``layer-KK.f32`` + ``.json``, ``low-layers.json`` with its checksums and
digest), but with a backend that writes synthetic values instead of solving. Each value
is a known function of its layer and pot, so a read that lands in the wrong layer, pot
column or sign shows.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from cardtable.goofspiel import Ruleset
from cardtable.solver.layers import (
    LOW_MANIFEST,
    LayerBackend,
    folder_name,
    lean_layout,
    open_layered,
    solve_layered,
    stored_low_upto,
)
from cardtable.solver.lean import NSTATS
from cardtable.solver.position import ImpossiblePosition, Position

RS13 = Ruleset(cards=13, tie_rule="carry")
UPTO = 3


def synthetic(k: int, pot: int) -> float:
    """The value stored for every hand pair of layer ``k`` with ``pot`` in the pot (exact
    in float32, and far inside the game's bound of 91 points)."""
    return k + pot / 128


class SyntheticBackend(LayerBackend):
    """Writes layer ``k`` as :func:`synthetic` of each state column's pot, for every pattern
    row, in the layout's order (patterns x states); solves nothing."""

    name = "synthetic"

    def solve_layer(self, lay, k, prev, prev_path, out_path, progress):
        npat, states = lay.npat(k), int(lay.nstates[k])
        pots = np.array([int(lay.skeys[int(lay.skoff[k]) + j]) // lay.W for j in range(states)])
        grid = np.tile(np.array([synthetic(k, p) for p in pots], dtype="<f4"), (npat, 1))
        data = grid.tobytes()
        out_path.write_bytes(data)
        progress(npat, npat)
        return np.zeros(NSTATS), hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def low13(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tables") / folder_name(RS13, "points")
    # the full layout, whose layers the synthetic backend writes (patterns x every state)
    full = lean_layout(RS13, "points")
    manifest = solve_layered(RS13, "points", folder, backend=SyntheticBackend(), lay=full, upto=UPTO)
    assert manifest["upto"] == UPTO and [rec["k"] for rec in manifest["layers"]] == [1, 2, 3]
    assert not (folder / "layer-04.f32").exists() and not (folder / "table.json").exists()
    table = open_layered(folder, low=True)  # verifies every checksum and the value range
    yield folder, table
    table.close()


def _deck(*ranks):
    return frozenset(ranks)


def test_the_folder_is_what_a_low_layer_solve_leaves(low13):
    folder, table = low13
    assert (folder / LOW_MANIFEST).is_file()
    assert stored_low_upto(folder, RS13, "points") == UPTO
    assert table.ruleset == RS13 and table.upto == UPTO
    assert table.prize_cards == tuple(range(1, 14))


def test_the_first_round_is_beyond_the_low_layers(low13):
    _, table = low13
    everything = _deck(*range(1, 14))
    with pytest.raises(ImpossiblePosition, match="at most 3 cards per hand"):
        table.value(Position(everything, (everything, everything)))


@pytest.mark.parametrize(
    ("prizes", "a", "b", "pot"),
    [
        ({13}, {1}, {12}, 0),  # the last round, nothing carried
        ({13}, {1}, {12}, 45),  # the last round for a pot of 45 (ties on prizes 1..9)
        ({2, 7}, {4, 9}, {3, 11}, 0),  # two rounds left
        ({2, 7, 13}, {1, 5, 12}, {3, 9, 11}, 10),  # three rounds left, 4 + 6 carried
        ({2, 7, 13}, {1, 5, 12}, {3, 9, 11}, 0),
    ],
)
def test_a_late_position_reads_its_synthetic_value(low13, prizes, a, b, pot):
    _, table = low13
    pos = Position(frozenset(prizes), (frozenset(a), frozenset(b)), pot)
    expected = synthetic(len(prizes), pot)
    v, mirrored = table.value(pos), table.value(pos.swapped())
    # one order of the hands is stored, the other is read negated (the game is zero-sum)
    assert sorted([v, mirrored]) == [-expected, expected]


def test_equal_hands_read_the_stored_value_unnegated(low13):
    # hands of the same cards are stored once, as they are (a solved table holds 0 there)
    _, table = low13
    hand = frozenset({4, 8, 12})
    assert table.value(Position(frozenset({1, 6, 13}), (hand, hand), 5)) == synthetic(3, 5)


def test_a_pot_these_hands_cannot_have_carried_is_refused(low13):
    _, table = low13
    # the prizes turned up so far (1..12) add up to 78: no pot of 79 can have been carried
    with pytest.raises(ImpossiblePosition, match="a pot of 79 is no sum of prizes already revealed"):
        table.value(Position(frozenset({13}), (frozenset({1}), frozenset({12})), 79))
