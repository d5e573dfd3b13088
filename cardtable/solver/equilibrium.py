"""Where equilibrium play comes from, position by position (the ``nash`` bot's source).

:class:`EquilibriumSource` answers "the equilibrium mix of the player to move
at this position" for a ruleset, from the best source available, in order:

1. ``"table"``: the solved table of the ruleset in the cache folder
   (``cardtable solve``), memory-mapped; exact.
2. carry-over ties without a table, points objective, shuffled prizes: where the
   package ships the deck's compressed carry-over table (:mod:`.compressed_carry`: its
   layers from the first exact subgame up), ``"compressed"`` while more than
   :func:`.approx.exact_layers` cards are in each hand, then ``"subgame"``; else, when
   the discard table of the same deck is available (in the cache folder; or
   solved in memory at the first move for at most 10 cards, 5 s at 10):
   ``"approximation"`` (:mod:`.approx`) while more than
   :func:`.approx.exact_layers` cards are in each hand, then ``"subgame"``.
3. otherwise ``"subgame"`` (exact subgame solving once the rest of the game
   needs at most ``subgame_limit`` matrix games) and before that
   ``"lookahead"`` (:func:`lookahead_strategy`: not an equilibrium).

A subgame is solved once per game, at its first exact move, for the positions
after that round's prize only (:func:`.round_subgame.solve_round_subgame`);
later moves read it. With carry-over ties and no table, the full game's **low
layers** (:func:`low_layers`: the positions with at most ``K`` cards per hand,
from ``cardtable solve --layers K``, or for 9 and 10 cards solved in memory at the
first move) are read instead of searched, so the exact part
starts a round earlier (13 cards with ``K = 5``: from 9 cards left instead of 8;
docs/solver.md, Low layers).

Every source is a function of the position only (points objective), so
:mod:`.exploit` and :mod:`.exploit_kernel` compute its exact best response.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cardtable.goofspiel import Ruleset

from . import kernel
from .approx import CarryApproximation, approx_value_array, exact_layers, subgame_cost
from .compressed import (
    CompressedTable,
    bundled_table,
    discard_layout,
    discard_values,
    measured_exploitability,
)
from .compressed_carry import CompressedCarryTable, bundled_carry_table
from .estimate import estimate_solve
from .layers import LOW_MANIFEST, LayeredTable, open_layered, solve_low_in_memory
from .layout import Layout
from .low_layers import solve_low_layers
from .position import ImpossiblePosition, Position, check_supported
from .round_subgame import solve_round_subgame
from .table import FORMAT_LAYERED, Table, count_games, default_path, load_table, solve, unchanged_key
from .tables import SolvedTable, check_table_matches, full_layout, subgame_layout

#: Words for each source, for front ends.
SOURCE_TEXT = {
    "table": "solved table",
    "subgame": "exact subgame solution",
    "approximation": "carry-over approximation",
    "compressed": "compressed table",
    "lookahead": "lookahead fallback",
}

#: Discard tables solved in memory in this process, by (cards, high ace).
_DISCARD: dict[tuple[int, bool], Table] = {}

#: Most cards for which a missing discard table is solved in memory (10 cards: about 5 s).
SOLVE_DISCARD_MAX = 10


#: Low layers solved in memory in this process, by (cards, high ace).
_LOW: dict[tuple[int, bool], LayeredTable] = {}
#: The stored low layers verified last, by :func:`.table.unchanged_key` (the manifest's and
#: every layer file's modification time and size).
_LOW_OPENED: dict[tuple | None, LayeredTable] = {}  # None: a manifest that could not be keyed

#: Decks whose missing low layers are solved in memory, fewest and most cards (10 cards:
#: 23.9 million matrix games, 10-20 s; below 9 cards the whole game is one exact
#: subgame anyway), and how many layers: ``LOW_LAYERS``.
LOW_SOLVE_MIN = 9
LOW_SOLVE_MAX = 10
LOW_LAYERS = 6

#: Most work (matrix games of ``j x j`` weighted by ``j**2``, :func:`.approx.subgame_cost`)
#: of the first exact subgame after a compressed table's rounds: about half a second, like
#: the carry-over approximation's first exact move (13 cards: 13.1 million units, 0.5 s).
FIRST_SUBGAME_WORK = 15_000_000


def low_layers(ruleset: Ruleset, cache: Path | None = None) -> LayeredTable | None:
    """The low layers of ``ruleset``'s carry-over points table (shuffled prizes): from
    the cache folder when ``cardtable solve --cards N --ties carry --layers K`` wrote
    them (``low-layers.json`` in the table's folder; memory-mapped, verified once per
    process while no file of it changes), else solved in memory when
    ``LOW_SOLVE_MIN <= cards <= LOW_SOLVE_MAX`` (layers ``1..LOW_LAYERS``, kept for the
    process; also when fewer layers are stored), else None.

    Raises:
        TableFileError: the low layers in the cache folder are damaged, or another
            game's (``TableMismatchError``)."""
    rs = Ruleset(cards=ruleset.cards, tie_rule="carry", high_ace=ruleset.high_ace)
    folder = default_path(rs, "points", cache, FORMAT_LAYERED)
    manifest = folder / LOW_MANIFEST
    in_memory = LOW_SOLVE_MIN <= rs.cards <= LOW_SOLVE_MAX
    if manifest.exists() or manifest.is_symlink():  # a dangling link is refused, not ignored
        opened = unchanged_key(manifest, rs, "points") if manifest.exists() else None
        if opened is None or opened not in _LOW_OPENED:  # verified once per process while unchanged
            low = open_layered(folder, low=True)
            check_table_matches(low, rs, "points")
            _LOW_OPENED.clear()
            _LOW_OPENED[opened] = low
        stored = _LOW_OPENED[opened]
        if (
            not in_memory or stored.upto >= LOW_LAYERS
        ):  # fewer stored layers than the ones solved here: not used
            return stored
    key = (rs.cards, rs.high_ace)
    if key not in _LOW and in_memory:
        _LOW[key] = solve_low_in_memory(rs, LOW_LAYERS)
    return _LOW.get(key)


def discard_table(ruleset: Ruleset, cache: Path | None = None) -> SolvedTable | None:
    """The discard-ties table of ``ruleset``'s deck: from the cache folder (``cache``,
    default ``$CARDTABLE_CACHE`` or the user cache folder; format 2 where its ``table.json``
    is there, else the format-1 file, :func:`.table.load_table`), else solved in memory when
    ``cards <= SOLVE_DISCARD_MAX`` (kept for the process), else the compressed table shipped
    with the package (:func:`.compressed.bundled_table`), else None.

    Raises:
        TableFileError: the table in the cache folder (or the shipped one) is damaged."""
    rs = Ruleset(cards=ruleset.cards, tie_rule="discard", high_ace=ruleset.high_ace)
    table = load_table(rs, "points", cache)
    if table is not None:
        return table
    key = (rs.cards, rs.high_ace)
    if key not in _DISCARD and rs.cards <= SOLVE_DISCARD_MAX:
        _DISCARD[key] = solve(rs)
    return _DISCARD.get(key) or bundled_table(rs)


def compressed_exact_layers(ruleset: Ruleset, limit: int = 2_000_000) -> int:
    """Where a discard-ties game played from its compressed table turns to exact subgame
    solving: the most cards per hand whose symmetric subgame needs at most ``limit`` matrix
    games and at most :data:`FIRST_SUBGAME_WORK` units of work (13 cards: 8, 5.1 million
    units, where 9 cards would need 37.3 million, over a second)."""
    k = exact_layers(ruleset, limit)
    while k > 1 and subgame_cost(ruleset, k)[1] > FIRST_SUBGAME_WORK:
        k -= 1
    return k


class EquilibriumSource:
    """Equilibrium (or best available) mixes for one ruleset (module docstring).

    Args:
        ruleset: a ruleset the solver covers.
        objective: ``"points"`` or ``"win"``.
        subgame_limit: most matrix games for exact subgame solving.
        use_table: look for a solved table in the cache folder.
        approximation: use the carry-over approximation where it applies.
        low: read the low layers (:func:`low_layers`) in exact subgames, where there
            is no table (default: as ``use_table``).
        cache: the folder of solved tables (default ``$CARDTABLE_CACHE``, else the
            user cache folder), for this ruleset's table and the discard table.

    Raises:
        UnsupportedRuleset: a ruleset outside the solver.
        TableFileError: a damaged table in the cache folder.
    """

    def __init__(
        self,
        ruleset: Ruleset,
        objective: str = "points",
        subgame_limit: int = 2_000_000,
        use_table: bool = True,
        approximation: bool = True,
        cache: Path | None = None,
        low: bool | None = None,
    ) -> None:
        check_supported(ruleset)
        self.ruleset = ruleset
        self.objective = objective
        self.subgame_limit = subgame_limit
        use = use_table and not ruleset.fixed_order  # table files hold shuffled-prize games
        self.table: SolvedTable | None = load_table(ruleset, objective, cache) if use else None
        self.sub: Table | None = None
        self.approx: CarryApproximation | None = None
        #: the full game's low layers, read by every subgame solve (carry-over, points)
        self.low: LayeredTable | None = None
        #: no table: the compressed table shipped with the package (discard ties, or the
        #: upper layers of the carry-over one), played while more than
        #: :attr:`compressed_exact` cards are in each hand
        self.compressed: CompressedTable | CompressedCarryTable | None = None
        self.compressed_exact = 0
        carry_points = (
            self.table is None
            and objective == "points"
            and ruleset.tie_rule == "carry"
            and not ruleset.fixed_order
        )
        if carry_points:
            self._without_table(use_table if low is None else low, approximation, cache)
        discard_points = (
            self.table is None
            and objective == "points"
            and ruleset.tie_rule == "discard"
            and not ruleset.fixed_order
            and approximation
        )
        if discard_points and not self.whole_game_fits():
            self.compressed = bundled_table(ruleset)
            self.compressed_exact = compressed_exact_layers(ruleset, subgame_limit)

    def _without_table(self, low: bool, approximation: bool, cache: Path | None) -> None:
        """Set :attr:`low` (``low``: read the low layers) and :attr:`approx`
        (``approximation``) of a carry-over points game that has no table, where the
        whole game does not fit one exact subgame.

        Raises:
            TableFileError: damaged low layers or discard table in the cache folder.
        """
        fits = self.whole_game_fits()
        if low and not fits:
            self.low = low_layers(self.ruleset, cache)
            fits = self.low is not None and self.whole_game_fits()  # they may make the whole game fit
        if approximation and not fits:
            exact = exact_layers(self.ruleset, self.subgame_limit, self.low_upto)
            shipped = bundled_carry_table(self.ruleset)
            if shipped is not None and shipped.lo <= exact:
                self.compressed, self.compressed_exact = shipped, exact
                return
            discard = discard_table(self.ruleset, cache)
            if discard is not None:
                self.approx = CarryApproximation(
                    self.ruleset, discard, exact_layers(self.ruleset, self.subgame_limit, self.low_upto)
                )

    @property
    def low_upto(self) -> int:
        """How many low layers subgame solves read (0: none)."""
        return 0 if self.low is None else self.low.upto

    def counted_above(self, k: int) -> int:
        """The low layers a subgame with ``k`` cards per hand reads without counting them
        against ``subgame_limit``: all of them where they may move the exact start
        (:func:`.approx.exact_layers`: not where they would make the first exact move
        slower than it is without them), else 0."""
        if not self.low_upto or k > exact_layers(self.ruleset, self.subgame_limit, self.low_upto):
            return 0
        return self.low_upto

    def whole_game_fits(self) -> bool:
        """True when exact subgame solving covers the game from its first move."""
        if self.ruleset.cards > 10 and not self.ruleset.fixed_order:
            return False
        if self.low_upto:
            return exact_layers(self.ruleset, self.subgame_limit, self.low_upto) >= self.ruleset.cards
        full = frozenset(self.ruleset.deck)
        layout = subgame_layout(self.ruleset, Position(full, (full, full)), self.objective)
        return count_games(layout) <= self.subgame_limit

    def strategy(self, pos: Position, prize: int) -> tuple[dict[int, float], str]:
        """(player A's mix ``{card: probability}``, source) at ``pos`` with ``prize`` up.

        Raises:
            ImpossiblePosition: an impossible position or prize.
        """
        if self.objective == "points":
            pos = Position(pos.prizes, pos.hands, pos.pot, 0)
        if self.table is not None:
            return self.table.round_strategy(pos, prize).a, "table"
        if self.approx is not None and pos.k > self.approx.exact:
            return self.approx.round_strategy(pos, prize).a, "approximation"
        if self.compressed is not None and pos.k > self.compressed_exact:
            return self.compressed.round_strategy(pos, prize).a, "compressed"
        if self.sub is not None:
            try:
                return self.sub.round_strategy(pos, prize).a, "subgame"
            except ImpossiblePosition:
                self.sub = None
        forced = self.approx is not None or self.compressed is not None  # exact from here, whatever it costs
        if forced or pos.k <= 10 or self.ruleset.fixed_order:
            layout = subgame_layout(self.ruleset, pos, self.objective)
            if forced or count_games(layout, above=self.counted_above(pos.k)) <= self.subgame_limit:
                self.sub = solve_round_subgame(self.ruleset, pos, prize, self.objective, layout, self.low)
                return self.sub.round_strategy(pos, prize).a, "subgame"
        return lookahead_strategy(self.ruleset, pos, prize), "lookahead"

    def note(self, estimate: bool = True) -> str:
        """What the source plays from in this ruleset, in words (for front ends); without
        a table it ends with what the whole solve would need (:mod:`.estimate`, about 2 s
        the first time at 13 cards: ``estimate=False`` leaves it out)."""
        rs = self.ruleset
        if estimate and self.table is None and not rs.fixed_order and not self.whole_game_fits():
            return self._note() + "; " + self._solve_needs()
        return self._note()

    def _solve_needs(self) -> str:
        try:
            needs = estimate_solve(self.ruleset, self.objective)
        except ValueError as exc:  # outside the estimate's reach: say so, do not fail the game
            return f"no estimate of a full solve ({exc})"
        return f"a full solve of this game needs {needs.describe()}"

    def _note(self) -> str:
        rs = self.ruleset
        if self.table is not None:
            return "plays the exact equilibrium from the solved table"
        if rs.fixed_order:
            return "plays the exact equilibrium (the fixed-order game is solved at the first move)"
        if self.whole_game_fits():
            return "plays the exact equilibrium (the whole game is solved at the first move)"
        if self.approx is not None:
            shipped = isinstance(self.approx.discard, CompressedTable)
            return (
                "no carry-over table solved for these rules: plays the "
                "CARRY-OVER APPROXIMATION (each round's matrix game solved exactly, later positions valued "
                + (
                    "from the compressed discard-ties table shipped with cardtable "
                    if shipped
                    else "from the discard-ties table "
                )
                + "by a model fitted to exact carry-over tables; measured "
                f"exploitability in docs/approximation.md) until {self.approx.exact} cards are left, then the exact "
                "subgame equilibrium" + self._low_note()
            )
        if isinstance(self.compressed, CompressedCarryTable):
            rms = max(layer["rms"] for layer in self.compressed.meta["layers"])
            return (
                "no carry-over table solved for these rules: plays from the COMPRESSED CARRY-OVER TABLE shipped "
                f"with cardtable (its values within {rms:.3f} points RMS of the exact ones; "
                f"{self._measured_words()}) until {self.compressed_exact} cards are left, then the exact "
                f"subgame equilibrium{self._low_note()}; `cardtable solve --cards {rs.cards} --ties carry` (a "
                "one-time build) makes every move exact"
            )
        if self.compressed is not None:
            rms = max(layer["rms"] for layer in self.compressed.meta["layers"])
            return (
                "no discard-ties table solved for these rules: plays from the COMPRESSED TABLE shipped with "
                f"cardtable (values within {rms:.3f} points RMS of the exact ones; {self._measured_words()}) "
                f"until {self.compressed_exact} cards are left, then the exact "
                f"subgame equilibrium; `cardtable solve --cards {rs.cards} --ties discard` (a one-time build) "
                "makes every move exact"
            )
        return (
            "no solved table for these rules: plays a one-round lookahead FALLBACK (not an equilibrium) "
            f"until the rest of the game needs at most {self.subgame_limit:,} matrix games, then the exact "
            + (
                f"subgame equilibrium; run `cardtable solve --cards {rs.cards} --ties discard` (a one-time "
                "build) for the carry-over approximation from the first move"
                if rs.tie_rule == "carry" and not rs.fixed_order and self.objective == "points"
                else f"subgame equilibrium; run `cardtable solve --cards {rs.cards} --ties {rs.tie_rule}` for the "
                "exact equilibrium from the first move"
            )
        )

    def compressed_exploitability(self) -> float | None:
        """The measured exploitability (points per game) of this source's play with the
        shipped compressed table (:func:`.compressed.measured_exploitability`), or None."""
        return None if self.compressed is None else measured_exploitability(self.compressed.path)

    def _measured_words(self) -> str:
        x = self.compressed_exploitability()
        if x is None:
            return "exploitability not measured for this file (docs/solver.md, Compressed tables)"
        return f"measured exploitability {x:.3f} points per game, docs/solver.md, Compressed tables"

    def _low_note(self) -> str:
        if self.low is not None:
            where = "stored" if self.low.path is not None else "solved at the first move"
            return f" (with the low layers 1..{self.low.upto}, {where})"
        upto = min(LOW_LAYERS, self.ruleset.cards - 1)
        start = exact_layers(self.ruleset, self.subgame_limit, upto)
        now = (
            self.approx.exact
            if self.approx is not None
            else self.compressed_exact
            if self.compressed
            else None
        )
        if now is None or start <= now:
            return ""
        return (
            f"; `cardtable solve --cards {self.ruleset.cards} --ties carry --layers {upto}` "
            f"(a one-time build of the low layers) makes it exact from {start} cards left"
        )

    def best_response_values(self):
        """``(layout, values)`` of the full game that this source's mixes are the
        row player's equilibria of (see :mod:`.exploit_kernel`), or ``None`` when
        it plays the lookahead fallback somewhere (then only the position-by-position
        best response of :mod:`.exploit` applies). The carry-over approximation adds
        a third item, its first approximate layer: the layers below hold exact values
        (``exact_below`` of :func:`.exploit_kernel.layout_best_response`)."""
        if self.objective != "points":
            return None
        if self.table is not None:
            if isinstance(self.table, LayeredTable) and self.ruleset.tie_rule == "discard":
                # format 2: the layers transposed, not the general format-1 view (DENSE_MAX)
                return discard_layout(self.table), discard_values(self.table)
            return self.table.layout, self.table.values
        if self.approx is not None:
            lay, vals = approx_value_array(self.ruleset, self.approx.discard, self.approx.exact)
            return lay, vals, max(self.approx.exact, 1)
        if isinstance(self.compressed, CompressedCarryTable):
            return carry_compressed_values(self.compressed, self.compressed_exact)
        if self.compressed is not None:  # compressed values above the exact layers
            lay = self.compressed.layout
            vals = np.array(self.compressed.values)
            exact = max(self.compressed_exact, 1)
            if exact > 1:
                solve_low_layers(lay, exact - 1, vals)
            return lay, vals, exact
        if self.whole_game_fits():
            t = solve(self.ruleset)
            return t.layout, t.values
        return None


#: Most format-1 slots of a whole-game best response to the compressed carry-over table
#: (11 cards: 160 million, 4.5 GiB at its peak; 12 cards: 992 million).
WHOLE_GAME_SLOTS = 1 << 28


def carry_compressed_values(table: CompressedCarryTable, exact: int) -> tuple[Layout, np.ndarray, int]:
    """``(layout, values, exact)`` of the full carry-over game as a bot reading ``table``
    above ``exact`` cards per hand plays it (:meth:`EquilibriumSource.best_response_values`):
    the stored layers ``exact..n`` from the compressed file, exact values below (backward
    induction). Memory: one float64 per slot of the format-1 layout (11 cards: about 1 GiB).

    Raises:
        ValueError: ``exact`` is below the file's lowest layer, or the format-1 arrays would
            exceed :data:`WHOLE_GAME_SLOTS` (12 and 13 cards: the layered best response of
            :mod:`.exploit_lean` measures them)."""
    if exact < table.lo:
        raise ValueError(f"the compressed table starts at layer {table.lo}, not {exact}")
    slots = int(full_layout(table.ruleset, "points").size)
    if slots > WHOLE_GAME_SLOTS:
        n = table.ruleset.cards
        raise ValueError(
            f"a whole-game best response at {n} cards, carry-over ties, needs {3 * 8 * slots / 2**30:.0f} GiB; "
            f"`python bench/exploit_carry.py --cards {n}` measures it layer by layer from the complete table "
            f"(`cardtable solve -n {n} --ties carry`)"
        )
    stored = table.dense_layers()
    below = [np.full(table.lay.layer_size(k), np.nan, np.float32) for k in range(1, table.lo)]
    view = LayeredTable(
        table.ruleset,
        "points",
        table.lay,
        [np.zeros(0, np.float32), *below, *(stored[k] for k in sorted(stored))],
        table.prize_cards,
    )
    view.DENSE_MAX = 1 << 34  # the caller asked for the whole array (instance attribute)
    lay, vals = view.layout, np.array(view.values)
    if exact > 1:
        solve_low_layers(lay, exact - 1, vals)
    return lay, vals, max(exact, 1)


def lookahead_strategy(ruleset: Ruleset, pos: Position, prize: int) -> dict[int, float]:
    """The one-round lookahead fallback for player A at ``pos`` with ``prize`` up.

    The equilibrium of this round's matrix game with every later position valued
    by the heuristic ``(prize points still to come) x (S_A - S_B) / (S_A + S_B)``,
    ``S`` = the sum of a player's remaining bid strengths. Not an equilibrium.
    """
    st = ruleset.strength
    a_cards = sorted(pos.hands[0], key=st)
    b_cards = sorted(pos.hands[1], key=st)
    k = len(a_cards)
    rest = sum(ruleset.prize_value(c) for c in pos.prizes) - ruleset.prize_value(prize)
    stake = pos.pot + ruleset.prize_value(prize)
    sa = sum(st(c) for c in a_cards)
    sb = sum(st(c) for c in b_cards)
    last = k == 1
    M = np.empty((k, k))
    for i, a in enumerate(a_cards):
        for j, b in enumerate(b_cards):
            o = (st(a) > st(b)) - (st(a) < st(b))
            carried = stake if (o == 0 and ruleset.tie_rule == "carry" and not last) else 0
            ca, cb = sa - st(a), sb - st(b)
            h = (rest + carried) * (ca - cb) / (ca + cb) if ca + cb else 0.0
            M[i, j] = o * stake + h
    x = np.empty(k)
    y = np.empty(k)
    kernel.solve_matrix_game(M, k, k, np.empty((k + 1, 2 * k + 1)), np.empty(k, dtype=np.int64), x, y)
    return {c: float(x[i]) for i, c in enumerate(a_cards)}
