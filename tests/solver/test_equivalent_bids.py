"""Equivalent bids (docs/solver.md, Method: equivalent bids): the layer kernels keep one
bid of each run of strengths that only one player holds, and the values do not change."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cardtable.goofspiel import Ruleset
from cardtable.solver import kernel
from cardtable.solver.layers import lean_layout


def _labels(code: int) -> list[int]:
    """The pattern's labels, low strength first (1: only A holds it, 2: only B, 3: both)."""
    out = []
    while code:
        out.append(code & 3)
        code >>= 2
    return out


def _merged(code: int, k: int, lay):
    cidx, csign, outc = kernel.children_workspace(k)
    assert kernel.pattern_children(code, k, lay.codes, lay.code_off, cidx, csign, outc)
    before = (cidx.copy(), csign.copy(), outc.copy())
    cgrp, cblk = cidx * 7 + 1, cidx * 11 + 2  # stand-ins that follow the child, as the real ones do
    ra, rb = np.zeros(k, np.int64), np.zeros(k, np.int64)
    ka, kb = kernel.merge_equivalent_bids(k, cidx, csign, outc, cgrp, cblk, ra, rb)
    return ka, kb, ra[:ka].copy(), rb[:kb].copy(), before, (cidx, csign, outc, cgrp, cblk)


def test_a_run_of_strengths_one_player_holds_alone_keeps_one_bid():
    lay = lean_layout(Ruleset(cards=7, tie_rule="discard"), "points").dense
    # low to high: B, B, B, A, A, both, A (A: 4 cards, B: 4 cards)
    code = 0b01_11_01_01_10_10_10
    assert _labels(code) == [2, 2, 2, 1, 1, 3, 1]
    ka, kb, ra, rb, before, after = _merged(code, 4, lay)
    # A's two lowest cards (the run "A, A") are one bid; B's three lowest (the run "B, B, B")
    assert (ka, kb) == (3, 2)
    assert list(ra) == [0, 2, 3] and list(rb) == [0, 3]
    cidx0, csign0, outc0 = before
    cidx, csign, outc, _, _ = after
    for i, a in enumerate(ra):
        for j, b in enumerate(rb):
            assert (cidx[i, j], csign[i, j], outc[i, j]) == (cidx0[a, b], csign0[a, b], outc0[a, b])


@pytest.mark.parametrize("n,k", [(9, 5), (10, 4), (8, 6)])
def test_every_pattern_keeps_one_bid_per_run_and_only_equal_twins_go(n, k):
    lay = lean_layout(Ruleset(cards=n, tie_rule="carry"), "points").dense
    merged = 0
    for i in range(int(lay.code_off[k]), int(lay.code_off[k + 1])):
        code = int(lay.codes[i])
        lab = _labels(code)
        runs_a = sum(1 for x, y in itertools.pairwise(lab) if x == 1 and y == 1)
        runs_b = sum(1 for x, y in itertools.pairwise(lab) if x == 2 and y == 2)
        ka, kb, ra, rb, (cidx0, csign0, outc0), (cidx, csign, outc, cgrp, cblk) = _merged(code, k, lay)
        assert (ka, kb) == (k - runs_a, k - runs_b), (bin(code), lab)
        merged += (ka < k) + (kb < k)
        rows = [tuple(np.concatenate([cidx0[a], csign0[a], outc0[a]])) for a in range(k)]
        cols = [tuple(np.concatenate([cidx0[:, b], csign0[:, b], outc0[:, b]])) for b in range(k)]
        assert len({rows[a] for a in ra}) == ka and {rows[a] for a in ra} == set(rows)
        assert len({cols[b] for b in rb}) == kb and {cols[b] for b in rb} == set(cols)
        assert np.array_equal(cgrp[:ka, :kb], cidx[:ka, :kb] * 7 + 1)
        assert np.array_equal(cblk[:ka, :kb], cidx[:ka, :kb] * 11 + 2)
    assert merged > 0


def test_a_game_with_equal_rows_keeps_its_value_when_they_are_merged():
    rng = np.random.default_rng(3)
    for _ in range(200):
        k = int(rng.integers(2, 7))
        M = rng.integers(-6, 7, (k, k)).astype(float)
        M[k - 1] = M[0]  # a twin row and a twin column, as equivalent bids give
        M[:, k - 1] = M[:, 0]
        full = _value(M, k, k)
        assert abs(_value(M[: k - 1, : k - 1].copy(), k - 1, k - 1, pad=k) - full) < 1e-9


def _value(M, k1, k2, pad=None):
    size = pad or max(k1, k2)
    P = np.zeros((size, size))
    P[:k1, :k2] = M[:k1, :k2]
    tab, basis, x, y = (
        np.empty((size + 1, 2 * size + 1)),
        np.empty(size, np.int64),
        np.empty(size),
        np.empty(size),
    )
    v, gap = kernel.solve_matrix_game(P, k1, k2, tab, basis, x, y)
    assert gap < 1e-9
    return v
