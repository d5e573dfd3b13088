"""The carry-over approximation: near-equilibrium play of carry-over games
without their table (docs/solver.md, The carry-over approximation).

A carry-over table needs one value per pot (13 cards: about 45 GiB), the
discard table of the same deck does not (1.3 GiB). Carry-over positions are
valued from the discard table:

- ``pot_model=4`` (the default): a least-squares fit to exact carry-over tables
  (:data:`POT_MODEL_FILES`, by rounds played; the 13-card deck fitted on its own
  table) on ``D(pos)``, the discard value of the same position, features of the hands
  and ``X2``, the next round's carry-over matrix games on discard values
  (:func:`next_round_value`), at every pot (:func:`fitted_value4`);
- ``pot_model=3`` (the default before): the same kind of fit, at pot 0 on ``D`` and
  features of the hands (:func:`fitted_value`); with a pot on ``D``, ``X2`` and
  ``pot tanh(8 D / R)`` (R = prize points face down);
- ``pot_model=1`` (the earlier default): ``a_k D(pos)`` at pot 0 and
  ``a_k D(pos) (1 + pot / R)`` with a pot (the pot shared like the prizes left);
  0 and 2 value the pot's next round exactly (see :class:`CarryApproximation`).

The bot plays, in a round with ``k`` cards per hand and ``k > exact_layers``,
the row player's equilibrium of the round's carry-over matrix game whose
entries are ``outcome x stake + V~(child, pot after the round)`` (a tie carries
the stake into the child's pot, docs/rules.md, Ties); with ``k <=
exact_layers`` it plays the exact equilibrium (exact subgame solving). Both
are functions of the position only (the exploitability is computed exactly by
:mod:`.exploit_kernel` from :func:`approx_value_array`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy as np

from cardtable._numba import njit
from cardtable.goofspiel import Ruleset

from . import kernel
from .compressed import discard_layout, discard_value, table_source
from .layout import Layout, SolverError, fewest_tied_prizes, games_per_layer, top_strengths
from .low_layers import solve_low_layers
from .position import ImpossiblePosition, Position
from .tables import RoundStrategy, SolvedTable, full_layout, strategy_of, subgame_layout

#: Slope of the saturating pot feature ``pot x tanh(TANH_SLOPE x D / R)`` of ``pot_model`` 3.
TANH_SLOPE = 8.0

#: The pot model the bot plays (:class:`CarryApproximation`; docs/solver.md compares them).
DEFAULT_POT_MODEL = 4

#: The fitted models' data files (in this package; docs/solver.md, The carry-over
#: approximation), by ``pot_model``: coefficients by rounds played and how they were fitted.
POT_MODEL_FILES = {3: "carry_pot_model.json", 4: "carry_value_model.json"}


@njit(cache=True)
def pattern_features(code):
    """``(shared, top, rank difference)`` of a hand pattern: cards both hands hold; +1 if
    only A holds the strongest card left, -1 if only B, 0 if both; A's sum of strength
    ranks (0 = the weakest card left) minus B's."""
    shared = 0
    top = 0
    diff = 0
    i = 0
    while code:
        lab = code & 3
        if lab == 3:
            shared += 1
        if lab & 1:
            diff += i
        if lab & 2:
            diff -= i
        top = 1 if lab == 1 else (-1 if lab == 2 else 0)
        code >>= 2
        i += 1
    return shared, top, diff


@njit(cache=True)
def fitted_value(k, code, d, R, coef):
    """``pot_model`` 3 at pot 0: the fitted combination of the features of the
    position (``d`` = discard value, ``R`` = prize points face down; docs/solver.md)."""
    shared, top, diff = pattern_features(code)
    return (
        coef[k, 0] * d
        + coef[k, 1] * d * shared / k
        + coef[k, 2] * top * R / k
        + coef[k, 3] * diff * R / (k * k)
        + coef[k, 4] * d * abs(d) / R
    )


@njit(cache=True)
def fitted_value4(k, code, d, x2, R, pot, coef):
    """``pot_model`` 4 (docs/solver.md, The carry-over approximation): ``d`` = discard
    value ``D``, ``x2`` = :func:`next_round_value`, ``R`` = prize points face down,
    ``s`` = shared cards / k; at pot 0 the features of :func:`fitted_value` and ``x2``
    (``coef[k, 0:6]``); with a pot ``D, x2, pot tanh(8 D / R), pot D / R, x2 s, top R / k,
    rank difference R / k^2, x2 |x2| / R, pot tanh(8 x2 / R), pot x2 / R``
    (``coef[k, 6:16]``)."""
    shared, top, diff = pattern_features(code)
    if pot == 0:
        return (
            coef[k, 0] * d
            + coef[k, 1] * d * shared / k
            + coef[k, 2] * top * R / k
            + coef[k, 3] * diff * R / (k * k)
            + coef[k, 4] * d * abs(d) / R
            + coef[k, 5] * x2
        )
    return (
        coef[k, 6] * d
        + coef[k, 7] * x2
        + coef[k, 8] * pot * np.tanh(TANH_SLOPE * d / R)
        + coef[k, 9] * pot * d / R
        + coef[k, 10] * x2 * shared / k
        + coef[k, 11] * top * R / k
        + coef[k, 12] * diff * R / (k * k)
        + coef[k, 13] * x2 * abs(x2) / R
        + coef[k, 14] * pot * np.tanh(TANH_SLOPE * x2 / R)
        + coef[k, 15] * pot * x2 / R
    )


@njit(cache=True)
def next_round_value(
    k,
    code,
    mask,
    pot,
    pval,
    codes,
    code_off,
    rank_of_mask,
    psum,
    dsrc,
    scale,
    tie_pot,
    M,
    tab,
    basis,
    x,
    y,
    cidx,
    csign,
    outc,
):
    """``X2``: the mean over the next prize ``q`` of the value of the matrix game
    ``outcome x (pot + q) + a_(k-1) D(child)`` (``a = scale``, ``D`` the discard values
    of the :data:`~.compressed.DiscardSource` ``dsrc``), a tied cell's child valued ``a D (1 + stake / R_child)`` when
    ``tie_pot`` (the carried stake shared like the prizes left). Exact in the last
    round. Returns NaN if a child pattern is missing. Workspaces as :func:`approx_value`."""
    if not kernel.pattern_children(code, k, codes, code_off, cidx, csign, outc):
        return np.nan
    npat_c = code_off[k] - code_off[k - 1] if k > 1 else 0
    total = 0.0
    count = 0
    for p in range(len(pval)):
        if not (mask >> p) & 1:
            continue
        cm = mask & ~(1 << p)
        stake = pot + pval[p]
        rc = rank_of_mask[cm]
        for a in range(k):
            for b in range(k):
                v = outc[a, b] * stake
                if k > 1:
                    f = 1.0
                    if tie_pot and outc[a, b] == 0:
                        f = 1.0 + stake / psum[cm]
                    v += csign[a, b] * scale[k - 1] * discard_value(k - 1, rc, cidx[a, b], npat_c, dsrc) * f
                M[a, b] = v
        v, gap = kernel.solve_matrix_game(M, k, k, tab, basis, x, y)
        total += v
        count += 1
    return total / count


@njit(cache=True)
def approx_value(
    k,
    code,
    mask,
    pot,
    pval,
    codes,
    code_off,
    masks,
    mask_off,
    rank_of_mask,
    psum,
    dsrc,
    scale,
    coef,
    M,
    tab,
    basis,
    x,
    y,
    cidx,
    csign,
    outc,
    pot_model=0,
):
    """``V~`` (module docstring) of the canonical pattern ``code`` with ``k`` cards,
    prize subset ``mask`` and ``pot``, from the discard layout arrays and the
    :data:`~.compressed.DiscardSource` ``dsrc``; ``scale[k]`` multiplies the discard values of layer ``k``; ``coef[k]``:
    the fitted model's :data:`NCOEF` coefficients of layer ``k`` (``pot_model`` 3 or 4).
    Workspaces: ``M``, ``tab``, ``basis``, ``x``, ``y``, ``cidx``, ``csign``,
    ``outc`` at least ``k x k`` (``tab``: (k+1) x (2k+1)).
    Returns NaN if the pattern is missing from the layout."""
    lo = code_off[k]
    i = kernel._find(codes, lo, code_off[k + 1], code)
    if i < 0:
        return np.nan
    r = rank_of_mask[mask]
    npat = code_off[k + 1] - lo
    d = discard_value(k, r, i, npat, dsrc)
    R = psum[mask]
    if pot == 0 and pot_model == 3 and k > 1:
        return fitted_value(k, code, d, R, coef)
    if pot_model == 1 or (pot == 0 and (pot_model != 4 or k == 1)):
        return scale[k] * d * (1.0 + pot / R)
    x2 = next_round_value(
        k,
        code,
        mask,
        pot,
        pval,
        codes,
        code_off,
        rank_of_mask,
        psum,
        dsrc,
        scale,
        pot_model >= 2,
        M,
        tab,
        basis,
        x,
        y,
        cidx,
        csign,
        outc,
    )
    if k == 1:  # the last round's value is exact
        return x2
    if pot_model == 3:
        return coef[k, 5] * d + coef[k, 6] * x2 + coef[k, 7] * pot * np.tanh(TANH_SLOPE * d / R)
    if pot_model == 4:
        return fitted_value4(k, code, d, x2, R, pot, coef)
    return x2


@njit(cache=True)
def approx_matrix(
    Mout,
    k,
    code,
    mask,
    p,
    pot,
    pval,
    codes,
    code_off,
    masks,
    mask_off,
    rank_of_mask,
    psum,
    dsrc,
    scale,
    coef,
    pot_model=0,
):
    """The round's carry-over matrix with continuation ``V~`` (module docstring):
    rows = the cards of the player whose hand is A in ``code`` (any orientation),
    low to high; prize index ``p`` turned up in subset ``mask``; ``pot`` carried.
    Returns False if a child pattern is missing."""
    cidx, csign, outc = kernel.children_workspace(k)
    if not kernel.pattern_children(code, k, codes, code_off, cidx, csign, outc):
        return False
    kc = k - 1
    W = np.empty((max(kc, 1), max(kc, 1)))
    tab = np.empty((kc + 2, 2 * kc + 3))
    basis = np.empty(kc + 1, dtype=np.int64)
    x = np.empty(kc + 1)
    y = np.empty(kc + 1)
    ci = np.zeros((kc + 1, kc + 1), dtype=np.int64)
    cs = np.ones((kc + 1, kc + 1), dtype=np.int64)
    oc = np.zeros((kc + 1, kc + 1), dtype=np.int64)
    stake = pot + pval[p]
    cm = mask & ~(1 << p)
    for a in range(k):
        for b in range(k):
            o = outc[a, b]
            if k == 1:
                Mout[a, b] = o * stake
                continue
            cpot = 0 if o != 0 else stake
            ccode = codes[code_off[kc] + cidx[a, b]]
            v = approx_value(
                kc,
                ccode,
                cm,
                cpot,
                pval,
                codes,
                code_off,
                masks,
                mask_off,
                rank_of_mask,
                psum,
                dsrc,
                scale,
                coef,
                W,
                tab,
                basis,
                x,
                y,
                ci,
                cs,
                oc,
                pot_model,
            )
            Mout[a, b] = o * stake + csign[a, b] * v
    return True


@njit(cache=True)
def fill_approx_layer(
    k,
    cT,
    cbase,
    cbase_off,
    cval_off,
    pval,
    codes,
    code_off,
    masks,
    mask_off,
    rank_of_mask,
    psum,
    dsrc,
    scale,
    coef,
    out,
    fewest,
    mtop,
    pot_model=0,
):
    """Write ``V~`` of every slot of layer ``k`` of a carry-over layout (``c*`` arrays;
    the same codes and prize subsets as the discard values ``dsrc``) into ``out``, except the
    slots no game reaches (``fewest[mask, pot]`` more than :func:`kernel.most_ties
    <cardtable.solver.kernel.most_ties>`: a pot of j prizes needs j strengths both players
    have played; :func:`cardtable.solver.layout.fewest_tied_prizes`)."""
    npat = code_off[k + 1] - code_off[k]
    nsub = mask_off[k + 1] - mask_off[k]
    M, tab, basis, x, y, _ = kernel.game_workspace(k)
    cidx, csign, outc = kernel.children_workspace(k)
    for pi in range(npat):
        code = codes[code_off[k] + pi]
        jmax = kernel.most_ties(code, mtop, mtop)  # a whole game: both start with every strength
        for r in range(nsub):
            mask = masks[mask_off[k] + r]
            R = cT - psum[mask]
            for pot in range(R + 1):
                if fewest[mask, pot] > jmax:
                    continue
                s = kernel.slot(k, r, pot, 0, R, npat, cbase, cbase_off, cval_off, True, False)
                out[s + pi] = approx_value(
                    k,
                    code,
                    mask,
                    pot,
                    pval,
                    codes,
                    code_off,
                    masks,
                    mask_off,
                    rank_of_mask,
                    psum,
                    dsrc,
                    scale,
                    coef,
                    M,
                    tab,
                    basis,
                    x,
                    y,
                    cidx,
                    csign,
                    outc,
                    pot_model,
                )


#: Factor on the discard value of a position with ``k`` cards in each hand
#: after ``p = cards - k`` rounds (docs/solver.md, The carry-over approximation):
#: ``1 + 1.3 (g - 1)`` where ``g`` is the least-squares factor of exact
#: carry-over values at pot 0 on discard values (8 and 9 cards: it depends on
#: ``p`` while ``k >= 5``), 1.3 chosen by the exact exploitability at 8 cards.
#: Index ``p`` (1..7+); the last entry serves larger ``p``.
SCALE_BY_ROUNDS = (1.0, 1.28, 1.21, 1.15, 1.10, 1.06, 1.04, 1.03)
#: For ``k <= 4`` the least-squares factor depends on ``k`` (index k = 0..4).
SCALE_BY_CARDS = (1.0, 1.0, 1.093, 1.081, 1.068)


#: Coefficients per layer: ``pot_model`` 3 uses the first 8 (five at pot 0,
#: :func:`fitted_value`; three with a pot: ``D``, the value of ``pot_model`` 2,
#: ``pot tanh(TANH_SLOPE D / R)``), ``pot_model`` 4 all 16 (:func:`fitted_value4`).
NCOEF = 16


@lru_cache(maxsize=2)
def pot_model_data(model: int = DEFAULT_POT_MODEL) -> dict:
    """The data file of fitted ``pot_model`` 3 or 4 (:data:`POT_MODEL_FILES`) as a dict:
    ``by_rounds`` maps rounds played ``p`` (a string) to ``{"pot0": [...], "pot": [...]}``
    (3: 5 and 3 coefficients, 4: 6 and 10), ``by_cards`` (model 4) maps a deck fitted on
    its own table to its own ``by_rounds``; the other keys say how it was fitted and how
    well. Raises KeyError for another model."""
    text = resources.files("cardtable.solver").joinpath("data", POT_MODEL_FILES[model]).read_text()
    return json.loads(text)


def default_coef(cards: int, data: dict | None = None, model: int = DEFAULT_POT_MODEL) -> np.ndarray:
    """The fitted model's coefficients of layers ``k = 0..cards``, shape ``(cards + 1,
    NCOEF)``: row ``k`` holds the ``pot0`` then the ``pot`` coefficients of ``p = cards -
    k`` rounds played (the largest fitted ``p`` serves larger ones, the smallest smaller
    ones), zeros after them. ``data``: a model in the data file's form (default:
    :func:`pot_model_data` of ``model``; models 0-2 read none: zeros); where its
    ``by_cards`` holds this deck (coefficients fitted on that deck's table alone), those."""
    if data is None:
        if model not in POT_MODEL_FILES:
            return np.zeros((cards + 1, NCOEF))
        data = pot_model_data(model)
    data = data.get("by_cards", {}).get(str(cards), data)  # a deck fitted on its own table
    by = {int(p): c["pot0"] + c["pot"] for p, c in data["by_rounds"].items()}
    out = np.zeros((cards + 1, NCOEF))
    for k in range(cards + 1):
        p = min(max(cards - k, min(by)), max(by))
        out[k, : len(by[p])] = by[p]
    return out


def default_scale(cards: int) -> np.ndarray:
    """The factors of layers ``k = 0..cards`` (index ``k``); see :data:`SCALE_BY_ROUNDS`."""
    out = np.ones(cards + 1)
    for k in range(cards + 1):
        p = cards - k
        if k <= 4:
            out[k] = SCALE_BY_CARDS[k]
        elif p > 0:
            out[k] = SCALE_BY_ROUNDS[min(p, len(SCALE_BY_ROUNDS) - 1)]
    return out


def _symmetric_subgame(ruleset: Ruleset, k: int) -> Layout:
    """The ``k``-card subgame of ``ruleset``'s deck with the ``k`` most valuable prizes
    face down, both hands the ``k`` strongest cards, no pot."""
    n = ruleset.cards
    cards = sorted(range(1, n + 1), key=ruleset.prize_value)[n - k :]
    hand = frozenset(sorted(range(1, n + 1), key=ruleset.strength)[n - k :])
    return subgame_layout(ruleset, Position(frozenset(cards), (hand, hand), 0))


@lru_cache(maxsize=64)
def subgame_cost(ruleset: Ruleset, k: int, above: int = 0) -> tuple[int, int]:
    """``(matrix games, work)`` of the symmetric ``k``-card subgame (:func:`_symmetric_subgame`)
    above layer ``above``: ``work`` weighs each ``j x j`` game of layer ``j`` by ``j**2``, what
    it costs the kernel (docs/solver.md, Speed: about 34 ns x j^2 per game)."""
    games = games_per_layer(_symmetric_subgame(ruleset, k), above=above)
    return sum(games), sum(g * j * j for j, g in enumerate(games, 1))


@lru_cache(maxsize=32)
def exact_layers(ruleset: Ruleset, limit: int = 2_000_000, above: int = 0) -> int:
    """Largest ``k`` whose exact subgame (the ``k`` most valuable prizes face down,
    no pot) needs at most ``limit`` matrix games: rounds with ``k`` or fewer cards
    per hand are solved exactly (13 cards carry-over, 2,000,000: 8, the 8-card subgame
    needing 690,228 games once the unreachable pot states are skipped).

    ``above``: the layers ``1..above`` are read from stored low layers and not counted
    (:func:`cardtable.solver.round_subgame.read_low_layers`). They move the start
    earlier only as far as the first exact move costs no more work
    (:func:`subgame_cost`) than it does without them: at 13 cards, layers 1..5 leave the
    9-card subgame 39.2 million units of work against the 8-card one's 13.1 million
    (measured 2.2 s against 0.5 s), so the start stays at 8; layers 1..6 leave 5.9 million
    and it moves to 9 (docs/solver.md, Low layers)."""
    n = ruleset.cards
    best = 1
    for k in range(1, n + 1):
        if subgame_cost(ruleset, k)[0] > limit:
            break
        best = k
    if not above:
        return best
    budget = subgame_cost(ruleset, best)[1]
    for k in range(best + 1, n + 1):
        games, work = subgame_cost(ruleset, k, above)
        if games > limit or work > budget:
            break
        best = k
    return best


class CarryApproximation:
    """Round strategies of the carry-over approximation (module docstring).

    Args:
        ruleset: a shuffled-prize carry-over ruleset.
        discard: the discard-ties points table of the same deck (cards, ace): solved
            (exact; format 1 or 2, docs/solver.md, Table files) or compressed
            (:mod:`.compressed`, shipped in the package).
        exact: rounds with at most this many cards per hand are played exactly.
        scale: per layer ``k`` (index k = 0..cards), the factor on the discard
            values (default :func:`default_scale`).
        pot_model: how a later position is valued (D = its discard value, R =
            prize points face down): 4 (the default) a least-squares fit to exact
            carry-over tables on ``D``, features of the hands and the next round's
            value :func:`next_round_value` at every pot (:func:`fitted_value4`); 3
            the earlier fit: at pot 0 on ``D`` and features of the hands
            (:func:`fitted_value`), with a pot on ``D``, the value of model 2 and
            ``pot tanh(8 D / R)`` (3 and 4: coefficients ``coef``, default
            :func:`default_coef`); 1 ``a_k D (1 + pot / R)``
            (the pot shared like the prizes left); 0 ``a_k D`` at pot 0 and the
            pot's next round valued exactly, a second tie dropping it; 2 as 0
            with tie cells valued as 1. docs/solver.md compares them.
        coef: per layer ``k``, the coefficients of ``pot_model`` 3 or 4, shape
            ``(cards + 1, NCOEF)``.

    Raises:
        ValueError: not a carry-over ruleset, or not the discard-ties points table of this
            deck (a format-2 one: of the whole game).
    """

    def __init__(
        self,
        ruleset: Ruleset,
        discard: SolvedTable,
        exact: int,
        scale: np.ndarray | None = None,
        pot_model: int = DEFAULT_POT_MODEL,
        coef: np.ndarray | None = None,
    ) -> None:
        if ruleset.tie_rule != "carry" or ruleset.fixed_order:
            raise ValueError("the carry-over approximation is for shuffled carry-over rulesets")
        d = discard.ruleset
        same_deck = d.cards == ruleset.cards and d.high_ace == ruleset.high_ace
        if d.tie_rule != "discard" or discard.objective != "points" or not same_deck:
            raise ValueError(
                f"needs the discard table of {ruleset.cards} cards "
                f"({'high' if ruleset.high_ace else 'low'} ace), got {d.describe()} (objective {discard.objective})"
            )
        if pot_model not in (0, 1, 2, 3, 4):
            raise ValueError(f"pot_model must be 0, 1, 2, 3 or 4, not {pot_model!r}")
        self.ruleset = ruleset
        self.discard = discard
        #: the discard table's format-1 layout (pattern codes, prize subsets; no value array)
        self.layout = discard_layout(discard)
        #: the discard values as the kernels read them (format 1 or 2, or compressed)
        self.source = table_source(discard)
        self.exact = exact
        self.pot_model = pot_model
        self.scale = default_scale(ruleset.cards) if scale is None else np.asarray(scale, dtype=float)
        if self.scale.shape != (ruleset.cards + 1,):
            raise ValueError(f"scale needs {ruleset.cards + 1} factors (layers 0..{ruleset.cards})")
        self.coef = (
            default_coef(ruleset.cards, model=pot_model) if coef is None else np.asarray(coef, dtype=float)
        )
        if self.coef.shape != (ruleset.cards + 1, NCOEF):
            raise ValueError(f"coef needs shape ({ruleset.cards + 1}, {NCOEF}) (layers 0..{ruleset.cards})")

    def round_strategy(self, pos: Position, prize: int) -> RoundStrategy:
        """The approximation's equilibrium of the round at ``pos`` (any ``k``) for ``prize``.

        Raises:
            ImpossiblePosition: an impossible position or prize.
        """
        pos.validate(self.ruleset)
        if prize not in pos.prizes:
            raise ImpossiblePosition(f"prize {prize} is not among the face-down prizes {sorted(pos.prizes)}")
        t = self.discard
        L = self.layout
        k = pos.k
        code = t.hand_code(pos)
        mask = 0
        for c in pos.prizes:
            mask |= 1 << t.prize_cards.index(c)
        M = np.empty((k, k))
        ok = approx_matrix(
            M,
            k,
            code,
            mask,
            t.prize_cards.index(prize),
            pos.pot,
            L.pval,
            L.codes,
            L.code_off,
            L.masks,
            L.mask_off,
            L.rank_of_mask,
            L.psum,
            self.source,
            self.scale,
            self.coef,
            self.pot_model,
        )
        if not ok or np.isnan(M).any():
            raise SolverError("the discard table lacks a position (damaged or foreign table)")
        return strategy_of(M, pos, self.ruleset)


def approx_value_array(
    ruleset: Ruleset,
    discard: SolvedTable,
    exact: int,
    scale: np.ndarray | None = None,
    pot_model: int = DEFAULT_POT_MODEL,
    coef: np.ndarray | None = None,
) -> tuple[Layout, np.ndarray]:
    """The values the approximation's bot plays from, on the full carry-over layout:
    exact carry-over values for layers ``k < exact`` (backward induction), ``V~``
    for layers ``k >= exact`` (the bot's round at ``k`` cards uses layer ``k - 1``);
    NaN at the layer-``k >= exact`` slots no game reaches (:func:`fill_approx_layer`).

    ``scale``, ``pot_model``, ``coef``: as :class:`CarryApproximation`. Memory: one float64
    per slot of the carry-over layout (10 cards: about 0.2 GiB).

    Raises:
        ValueError: ``discard`` is not the full discard table of the same deck.
    """
    approx = CarryApproximation(ruleset, discard, exact, scale, pot_model, coef)  # checks the inputs
    lay = full_layout(ruleset, "points")
    d = approx.layout
    if not (np.array_equal(lay.codes, d.codes) and np.array_equal(lay.masks, d.masks)):
        raise ValueError("the discard table is not the full game of this deck")
    vals = np.full(lay.size, np.nan)
    if exact > 1:
        solve_low_layers(lay, exact - 1, vals)
    fewest = fewest_tied_prizes(lay.pval, int(lay.T))
    mtop = top_strengths(lay)
    for k in range(max(exact, 1), lay.top + 1):
        fill_approx_layer(
            k,
            lay.T,
            lay.base,
            lay.base_off,
            lay.val_off,
            lay.pval,
            lay.codes,
            lay.code_off,
            lay.masks,
            lay.mask_off,
            lay.rank_of_mask,
            lay.psum,
            approx.source,
            approx.scale,
            approx.coef,
            vals,
            fewest,
            mtop,
            approx.pot_model,
        )
    return lay, vals


__all__ = ["CarryApproximation", "approx_value_array", "exact_layers"]
