"""The Numba kernel of the batched simulator for cheap policies (random, matcher).

Semantics are those of :func:`cardtable.research.simulate.simulate` (docs/rules.md:
single-card bids, one prize at a time); the NumPy path and the engine are the
reference (tests compare them).
"""

from __future__ import annotations

import numpy as np

from cardtable._numba import njit


@njit(cache=True)
def play_cheap(decks, codes, strength, value, carry, unique, seed, points, bids_log, record, shuffle):
    """Play ``decks.shape[0]`` games in place.

    Args:
        decks: int64[G, n] prize orders; codes: int64[P] (0 random, 1 matcher);
        strength, value: int64[n] per card index; carry, unique: the tie rules;
        seed: seeds Numba's generator; points: int64[G, P] output (zeros);
        bids_log: int64[G, n, P] output when ``record``;
        shuffle: fill ``decks`` with uniform random orders first (Fisher-Yates).

    Complexity: radon counts 27 branches here, above the package's limit of 15 on purpose.
    The whole game loop (shuffle, deal, bids, tie rules, scoring) sits in one compiled
    function so that Numba keeps every array in registers and never returns to Python
    between rounds; helper functions would be inlined by Numba anyway, and splitting the
    loop would only move the same branches apart. tests/research/test_simulate.py compares
    its games with the rules engine's bots.
    """
    np.random.seed(seed)
    G, n = decks.shape
    P = codes.shape[0]
    hand = np.empty((P, n), dtype=np.int64)  # remaining card indices, first `left` valid
    bid = np.empty(P, dtype=np.int64)
    bs = np.empty(P, dtype=np.int64)
    for g in range(G):
        if shuffle:
            for c in range(n):
                decks[g, c] = c + 1
            for c in range(n - 1, 0, -1):
                k = np.random.randint(0, c + 1)
                decks[g, c], decks[g, k] = decks[g, k], decks[g, c]
        for p in range(P):
            for c in range(n):
                hand[p, c] = c
        pot = 0
        for r in range(n):
            left = n - r
            prize = decks[g, r] - 1
            pot += value[prize]
            target = value[prize]
            for p in range(P):
                if codes[p] == 0:
                    j = np.random.randint(0, left)
                else:  # matcher: closest strength to the prize value, lower strength on ties
                    j = 0
                    best_d = abs(strength[hand[p, 0]] - target)
                    best_s = strength[hand[p, 0]]
                    for k in range(1, left):
                        s = strength[hand[p, k]]
                        d = abs(s - target)
                        if d < best_d or (d == best_d and s < best_s):
                            j, best_d, best_s = k, d, s
                c = hand[p, j]
                hand[p, j] = hand[p, left - 1]
                bid[p] = c
                bs[p] = strength[c]
                if record:
                    bids_log[g, r, p] = c + 1
            # winner (top_bidder): optional unique-bid filter, then a unique maximum
            best = -1
            count = 0
            winner = -1
            for p in range(P):
                if unique:
                    dup = False
                    for q in range(P):
                        if q != p and bs[q] == bs[p]:
                            dup = True
                    if dup:
                        continue
                if bs[p] > best:
                    best, count, winner = bs[p], 1, p
                elif bs[p] == best:
                    count += 1
            if best >= 0 and count == 1:
                points[g, winner] += pot
                pot = 0
            elif (not carry) or r == n - 1:
                pot = 0
