"""What a whole-game solve needs: matrix games, memory, disk and time, before it starts.

:func:`estimate_solve` counts the exact sizes from the lean layout (a few
seconds at n = 13) and prices the games with a per-game cost measured on the
project's 2-core machine (docs/solver.md, Benchmark). The ``solve`` command
uses it to refuse a solve with concrete needs, and the ``nash`` bot to say how
long the solve of a game without a table would take.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cardtable.goofspiel import Ruleset
from cardtable.goofspiel.ruleset import TieRule

from .layers import game_layout, lean_layout, solve_layered
from .layout import games_per_layer
from .lean import reachable_games, slot_map
from .tables import full_layout

#: Measured CPU nanoseconds of the format-2 kernels (warm start, one thread), per (tie rule,
#: objective): ``(a, b, c)`` with a layer's time ``games x (a + b k^2) + chains x c``, where
#: ``chains`` are its (pattern, prize subset, prize) triples (each starts a warm-start chain
#: with a cold solve: :func:`price_terms`). Fitted by non-negative least squares over every
#: layer of the solves of n = 10, 11, 12 (win: 10, 11; `python bench/solver.py --estimates
#: 10,11,12`, then `--fit bench/results/estimates.jsonl`; docs/solver.md, Estimates and
#: refusals).
GAME_PRICE_NS: dict[tuple[str, str], tuple[float, float, float]] = {
    ("carry", "points"): (0.0, 7.56, 575.0),
    ("carry", "win"): (22.5, 17.61, 589.7),
    ("discard", "points"): (0.0, 10.61, 0.0),
    ("discard", "win"): (0.0, 10.57, 2225.1),
}
#: The reference solve of each (tie rule, objective): the whole game of this many cards (low
#: ace, shuffled prizes), format 2 as ``cardtable solve`` writes it, a few seconds of CPU. Its CPU
#: seconds on a machine, over :data:`REFERENCE_CPU_S`, is that machine's speed relative to
#: the one :data:`GAME_PRICE_NS` describes (:func:`machine_factor`): a timed solve measures its
#: reference in the same process, so solves measured on different machines, or beside other
#: work, are compared on one scale (docs/solver.md, Estimates and refusals).
REFERENCE_CARDS: dict[tuple[str, str], int] = {
    ("carry", "points"): 10,
    ("carry", "win"): 9,
    ("discard", "points"): 10,
    ("discard", "win"): 9,
}
#: CPU seconds of each reference solve on the machine :data:`GAME_PRICE_NS` describes, as the
#: recorded solves infer it: the median over the runs of their reference CPU x estimate /
#: measured CPU (``python bench/solver.py --fit bench/results/estimates.jsonl`` prints it).
REFERENCE_CPU_S: dict[tuple[str, str], float] = {
    ("carry", "points"): 10.16,
    ("carry", "win"): 18.00,
    ("discard", "points"): 3.15,
    ("discard", "win"): 13.07,
}
#: Format 1's in-memory kernel (no warm start), nanoseconds per game x k^2: the 13-card
#: discard solve, 8.82e10 games x k^2 in 32 min of one core.
NS_PER_GAME_K2 = 21.8
#: Resident memory of Python, NumPy, Numba and the layout, bytes.
BASE_MEMORY = 300 << 20
#: Matrix games per second of one H200 for the CUDA backend: not measured yet
#: (no GPU run so far; docs/solver.md, GPU run). None = unknown.
GPU_GAMES_PER_S: float | None = None


@dataclass(frozen=True)
class SolveNeeds:
    """Needs of one whole-game solve: table format 2 (float32 layers on disk) unless
    ``table_format`` is 1 (one float64 file, every value in memory while it is solved).

    Attributes:
        cards, tie_rule, objective: the game.
        games: matrix games solved (the states :func:`cardtable.solver.lean.min_ties`
            rules out are skipped; upper bound for ``win``: decided positions need none).
        positions: positions solved (after the player-swap symmetry).
        memory_bytes: peak resident memory: the largest layer that is read
            (memory-mapped) while the next one is written, the layout and the
            kernels' slot map (:class:`cardtable.solver.lean.SlotMap`), plus ``BASE_MEMORY``
            (format 1: every float64 value and the layout arrays, plus ``BASE_MEMORY``).
        disk_bytes: size of the finished table folder (format 1: of the table file).
        cpu_seconds: estimated CPU seconds on one core: of the machine
            :data:`GAME_PRICE_NS` describes, or, with ``machine_factor``, of this one.
        table_format: 2 (layers, resumable) or 1 (one file, not resumable).
        machine_factor: None, or the measured speed of this machine (:func:`machine_factor`)
            that ``cpu_seconds`` includes (:meth:`calibrated`).
    """

    cards: int
    tie_rule: str
    objective: str
    games: int
    positions: int
    memory_bytes: int
    disk_bytes: int
    cpu_seconds: float
    table_format: int = 2
    machine_factor: float | None = None

    def calibrated(self, factor: float) -> "SolveNeeds":
        """These needs with the time scaled by a measured machine factor (:func:`machine_factor`)."""
        base = self.cpu_seconds / (self.machine_factor or 1.0)
        return dataclasses.replace(self, cpu_seconds=base * factor, machine_factor=factor)

    def hours(self, cores: int = 1) -> float:
        """Estimated wall-clock hours on ``cores`` cores (threads or Ray workers; linear)."""
        return self.cpu_seconds / max(1, cores) / 3600.0

    def describe(self, cores: int = 1) -> str:
        """One line: memory, disk, games and hours on ``cores`` cores."""
        return (
            f"{self.games:.3g} matrix games; {size_text(self.memory_bytes)} of memory, "
            f"{size_text(self.disk_bytes)} of disk; {_about(self.hours(cores))} on "
            f"{cores} core{'s' if cores != 1 else ''}"
            + (
                f" of this machine (measured: {self.machine_factor:.2f} x the reference time)"
                if self.machine_factor
                else ""
            )
        )

    def backend_advice(self, cores: int, max_memory_gib: float) -> str:
        """Which backend does it: threads here, Ray on a cluster, CUDA on a GPU."""
        gib = 2**30
        parts = []
        if self.table_format == 1:  # in memory, one thread pool: only format 2 has other backends
            return (
                "`--format 2` (float32 layers on disk, less memory, resumable after an "
                "interruption; also solved by `--backend ray` or `--backend cuda`)"
            )
        here = max(cores, os.cpu_count() or 1)  # every core of this machine
        if self.memory_bytes <= max_memory_gib * gib and self.hours(here) <= 12:
            parts.append(f"`--threads {here}` here ({_dur(self.hours(here))})")
        for c in (64, 256):
            parts.append(
                f"`--backend ray` on {c} cores: {_about(self.hours(c))} "
                f"(layers on a folder all workers share, {size_text(self.disk_bytes)})"
            )
        if GPU_GAMES_PER_S:
            parts.append(f"`--backend cuda` on one H200: {_about(self.games / GPU_GAMES_PER_S / 3600)}")
        else:
            parts.append("`--backend cuda` on a GPU (rate not measured yet)")
        return "; ".join(parts)


def size_text(nbytes: float) -> str:
    """A size in bytes as people read it, never rounded to zero: ``"16.1 GiB"`` from 1 GiB,
    ``"53.7 MiB"`` from 1 MiB, ``"3.2 KiB"`` from 1 KiB, else ``"512 bytes"``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:.1f} {unit}"
    return f"{max(0, int(nbytes))} bytes"


def _about(hours: float) -> str:
    """``"about 17 min"``, or ``"under 1 s"`` (never "about under 1 s")."""
    text = _dur(hours)
    return text if text.startswith("under") else f"about {text}"


def _dur(hours: float) -> str:
    if hours * 3600 < 1:
        return "under 1 s"
    if hours < 1 / 60:
        return f"{hours * 3600:.0f} s"
    if hours < 1:
        return f"{hours * 60:.0f} min"
    return f"{hours:.1f} h"


@lru_cache(maxsize=16)
def estimate_solve(
    ruleset: Ruleset,
    objective: str = "points",
    upto: int | None = None,
    table_format: int = 2,
    compact: bool | None = None,
) -> SolveNeeds:
    """Sizes and cost of solving the whole game of ``ruleset`` (format 2), or with
    ``upto`` only its layers ``1..upto`` (the low layers, ``cardtable solve --layers``);
    ``table_format=1``: of the single float64 file (:func:`estimate_format1`). ``compact``:
    the layout of format 2 (:func:`cardtable.solver.layers.folder_layout`; None: compact
    with carry-over ties, as a new table folder gets).

    Raises:
        UnsupportedRuleset, ValueError: as :func:`cardtable.solver.layers.lean_layout`;
            ValueError also for ``upto`` with format 1 or a format other than 1 and 2.
    """
    if table_format == 1:
        if upto is not None:
            raise ValueError("format 1 holds the whole game: low layers (upto) are format 2")
        return estimate_format1(ruleset, objective, full_layout(ruleset, objective))
    if table_format != 2:
        raise ValueError(f"table format must be 1 or 2, not {table_format!r}")
    carry = ruleset.tie_rule == "carry"
    lay = game_layout(ruleset, objective, carry and compact is not False)
    top = lay.top if upto is None else min(upto, lay.top)
    sizes = [lay.layer_size(k) for k in range(top + 1)]  # slots on disk, skipped states too
    solved = [reachable_games(lay, k) for k in range(top + 1)]  # (positions, games)
    games = sum(g for _, g in solved)
    price = GAME_PRICE_NS[(ruleset.tie_rule, objective)]
    cpu = sum(layer_cpu_ns(lay, k, g, price) for k, (_, g) in enumerate(solved)) * 1e-9
    read = max(sizes[:-1]) if len(sizes) > 1 else 0  # layer k - 1 is read while k is written
    layout_bytes = sum(a.nbytes for a in lay.arrays().values())
    # the kernels' slot map is held beside the layout while they run, never written
    return SolveNeeds(
        ruleset.cards,
        ruleset.tie_rule,
        objective,
        games,
        sum(p for p, _ in solved),
        4 * read + BASE_MEMORY + layout_bytes + slot_map(lay).nbytes,
        4 * sum(sizes) + layout_bytes,
        cpu,
    )


def reference_ruleset(tie_rule: TieRule, objective: str) -> Ruleset:
    """The reference game of a (tie rule, objective) (:data:`REFERENCE_CARDS`).

    Raises:
        KeyError: a tie rule other than ``carry`` and ``discard`` or an objective other than
            ``points`` and ``win``."""
    return Ruleset(cards=REFERENCE_CARDS[(tie_rule, objective)], tie_rule=tie_rule)


def measure_reference(tie_rule: TieRule, objective: str, backend=None) -> float:
    """CPU seconds of this process solving the reference game (:func:`reference_ruleset`) into
    a temporary folder that is removed, with ``backend`` (None: one thread); the kernels are
    loaded first by an untimed 4-card solve (their loading or compilation is not counted)."""
    rs = reference_ruleset(tie_rule, objective)
    lay = lean_layout(rs, objective, tie_rule == "carry")
    with tempfile.TemporaryDirectory(prefix="cardtable-reference-") as tmp:
        solve_layered(Ruleset(cards=4, tie_rule=tie_rule), objective, Path(tmp) / "warm", backend)
        c0 = time.process_time()
        solve_layered(rs, objective, Path(tmp) / "t", backend, lay=lay)
        return time.process_time() - c0


def machine_factor(tie_rule: str, objective: str, reference_cpu_s: float) -> float:
    """How much slower (above 1) or faster (below 1) a machine is than the one
    :data:`GAME_PRICE_NS` describes, for this kind of solve: its measured reference CPU seconds
    (:func:`measure_reference`) over :data:`REFERENCE_CPU_S`."""
    return reference_cpu_s / REFERENCE_CPU_S[(tie_rule, objective)]


def price_terms(lay, k: int, games: int) -> tuple[int, int, int]:
    """What layer ``k`` of the lean layout ``lay`` costs in :data:`GAME_PRICE_NS`'s units:
    ``(games, games x k^2, chains)``; ``games`` as :func:`cardtable.solver.lean.reachable_games`
    counts them, chains = patterns x prize subsets x k prizes (0 at k = 0)."""
    nsub = int(lay.so_off[k + 1] - lay.so_off[k]) - 1 if k > 0 else 0
    return games, games * k * k, lay.npat(k) * nsub * k


def layer_cpu_ns(lay, k: int, games: int, price: tuple[float, float, float]) -> float:
    """Estimated CPU nanoseconds of layer ``k`` of ``lay`` (one thread) at ``price``, a
    :data:`GAME_PRICE_NS` entry: the prices times :func:`price_terms`."""
    return sum(p * t for p, t in zip(price, price_terms(lay, k, games), strict=True))


#: Bytes of a format-1 file besides its arrays: magic, version, JSON header, its digest
#: and padding (the header is under 1 KiB; rounded up).
FORMAT1_HEADER_BYTES = 4 << 10


def estimate_format1(ruleset: Ruleset, objective: str, layout) -> SolveNeeds:
    """Needs of a format-1 solve (``cardtable solve --format 1``) of the full-game
    ``layout`` (:func:`cardtable.solver.table.full_layout`, built by the caller and reused
    by the solve): one float64 per slot held in memory with the
    layout arrays (plus ``BASE_MEMORY``); the file holds the same arrays, each padded to
    64 bytes, and a header. Games are those the in-memory kernel solves
    (:func:`cardtable.solver.layout.games_per_layer`), priced at ``NS_PER_GAME_K2`` x k^2
    each.

    Raises:
        ValueError: ``objective`` is neither ``points`` nor ``win``.
    """
    if objective not in ("points", "win"):
        raise ValueError(f"objective must be points or win, not {objective!r}")
    per = games_per_layer(layout)
    games = sum(per)
    positions = sum(g // k for k, g in enumerate(per, 1))
    cpu = sum(g * NS_PER_GAME_K2 * k * k for k, g in enumerate(per, 1)) * 1e-9
    arrays = [a.nbytes for a in layout.arrays().values()] + [8 * int(layout.size)]
    disk = sum((n + 63) // 64 * 64 for n in arrays) + FORMAT1_HEADER_BYTES
    return SolveNeeds(
        ruleset.cards,
        ruleset.tie_rule,
        objective,
        games,
        positions,
        sum(arrays) + BASE_MEMORY,
        disk,
        cpu,
        table_format=1,
    )
