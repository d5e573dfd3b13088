"""Planning a solve before it starts: what it needs, and whether it stays within limits.

:func:`plan_solve` estimates a solve of either table format (format 1: one float64
file; format 2: float32 layers, resumable; :mod:`cardtable.solver.estimate`) and
refuses it with :class:`SolveRefused`, naming the concrete needs, when it needs more
memory than ``max_memory_gib``, more hours than ``max_hours`` on the cores asked for,
or more disk than the table's folder has free. ``cardtable solve`` prints
:meth:`SolvePlan.describe` and then solves; it never starts a refused solve
(docs/solver.md, Estimates and refusals).
"""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass
from pathlib import Path

from cardtable.errors import CardtableError
from cardtable.goofspiel import Ruleset

from .estimate import SolveNeeds, estimate_format1, estimate_solve, size_text
from .layers import folder_layout
from .tables import full_layout

GIB = 2**30


class SolveRefused(CardtableError, ValueError):
    """A solve over one of its limits (memory, hours, disk); the message names the needs
    and what to do instead. Nothing was written."""


@dataclass(frozen=True)
class SolvePlan:
    """A checked solve.

    Attributes:
        ruleset, objective: the game.
        table_format: 1 (one float64 file) or 2 (a folder of float32 layers).
        needs: its :class:`~cardtable.solver.estimate.SolveNeeds`.
        target: the table file (format 1) or folder (format 2) it writes.
        backend: ``threads``, ``ray`` or ``cuda``; ``cores``: threads or Ray workers.
        done_bytes: bytes of layer files already in the folder (a resumed format-2 solve).
        layout: format 1: the full-game layout the estimate was built from (the solve
            reuses it); None for format 2.
    """

    ruleset: Ruleset
    objective: str
    table_format: int
    needs: SolveNeeds
    target: Path
    backend: str
    cores: int
    done_bytes: int = 0
    layout: object | None = None

    def describe(self) -> str:
        """The line ``cardtable solve`` prints before it starts: rules, the estimate, the
        format (whether an interruption keeps the work) and where the table goes."""
        head = f"{self.ruleset.describe()} objective={self.objective}: {self.needs.describe(self.cores)} (estimate)"
        if self.table_format == 1:
            return (
                f"{head}, format 1 (one float64 file, held in memory until it is written: "
                f"an interruption loses the work); table file {self.target}"
            )
        return f"{head}, backend {self.backend}; table folder {self.target}"


def layer_bytes_done(folder: Path) -> int:
    """Bytes of the layer files (``layer-*.f32``) already in a format-2 table folder (a
    resume reuses them; regular files only: a dangling link or a folder counts nothing;
    0 when ``folder`` is no folder)."""
    if not folder.is_dir():
        return 0
    total = 0
    for p in folder.glob("layer-*.f32"):
        try:
            if p.is_file():
                total += p.stat().st_size
        except OSError:  # removed meanwhile
            pass
    return total


def plan_solve(
    ruleset: Ruleset,
    objective: str,
    target: Path,
    *,
    table_format: int = 2,
    upto: int | None = None,
    backend: str = "threads",
    cores: int = 1,
    max_memory_gib: float = 8.0,
    max_hours: float = 12.0,
    machine_factor: float | None = None,
) -> SolvePlan:
    """Estimate the solve of ``ruleset`` and ``objective`` into ``target`` (the table file of
    format 1 or the folder of format 2; ``upto``: format 2's low layers ``1..upto``) and
    check it against the limits: memory over ``max_memory_gib`` GiB, more than
    ``max_hours`` hours on ``cores`` cores (not checked for ``backend="cuda"``, whose rate is
    not measured), more disk than is free in ``target``'s parent folder (format 2: the
    layer files already there count as written). ``machine_factor``: this machine's measured
    speed (:func:`cardtable.solver.estimate.machine_factor`), which scales format 2's time
    before the check (:meth:`~cardtable.solver.estimate.SolveNeeds.calibrated`). Reads nothing
    but the folder sizes; writes nothing.

    Returns:
        the :class:`SolvePlan`.

    Raises:
        SolveRefused: over a limit; the message names the needs and the alternatives.
        UnsupportedRuleset, ValueError: a ruleset the solver does not cover, a format other
            than 1 or 2, ``upto`` with format 1, limits that are not positive numbers.
    """
    for name, value in (("max_memory_gib", max_memory_gib), ("max_hours", max_hours)):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive finite number, not {value!r}")
    if cores < 1:
        raise ValueError(f"cores must be at least 1, not {cores}")
    layout = None
    if table_format == 1:
        if upto is not None:
            raise ValueError("format 1 holds the whole game: low layers are format 2")
        layout = full_layout(ruleset, objective)
        needs = estimate_format1(ruleset, objective, layout)
    elif table_format == 2:
        # the layout the folder holds, else compact (carry-over; the CUDA kernel writes the full one)
        lay = folder_layout(Path(target), ruleset, objective, False if backend == "cuda" else None)
        needs = estimate_solve(ruleset, objective, upto, compact=lay.compact)
        if machine_factor is not None:
            needs = needs.calibrated(machine_factor)
    else:
        raise ValueError(f"table format must be 1 or 2, not {table_format!r}")
    target = Path(target)
    done = layer_bytes_done(target) if table_format == 2 else 0
    plan = SolvePlan(ruleset, objective, table_format, needs, target, backend, cores, done, layout)
    check_plan(plan, max_memory_gib, max_hours)
    return plan


def check_plan(plan: SolvePlan, max_memory_gib: float, max_hours: float) -> None:
    """Refuse ``plan`` over a limit (as :func:`plan_solve`), else return None.

    Raises:
        SolveRefused: the first limit exceeded: memory, hours, then disk.
    """
    needs, cores = plan.needs, plan.cores
    advice = needs.backend_advice(cores, max_memory_gib)
    if needs.memory_bytes > max_memory_gib * GIB:
        why = " (format 1 holds every value in memory)" if plan.table_format == 1 else ""
        raise SolveRefused(
            f"this solve needs {needs.describe(cores)}: more memory than --max-memory "
            f"{max_memory_gib:g} GiB{why}. On a machine with {size_text(needs.memory_bytes)} to spare, run it "
            f"with --max-memory {math.ceil(needs.memory_bytes / GIB)}; or: {advice}"
        )
    if plan.backend != "cuda" and needs.hours(cores) > max_hours:
        resume = (
            "it resumes after an interruption"
            if plan.table_format == 2
            else "format 1 does not resume: an interruption loses the work"
        )
        raise SolveRefused(
            f"this solve needs {needs.describe(cores)}: longer than --max-hours {max_hours:g}. "
            f"Raise --max-hours to run it here ({resume}), or: {advice}"
        )
    parent = plan.target.parent
    probe = parent  # a folder not made yet: the disk of its nearest existing parent
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    if needs.disk_bytes > free + plan.done_bytes:
        raise SolveRefused(
            f"this solve needs {size_text(needs.disk_bytes)} of disk in {parent}"
            + (f" ({size_text(plan.done_bytes)} of it already written)" if plan.done_bytes else "")
            + f", {size_text(free)} are free; choose another --cache folder"
        )


__all__ = ["SolvePlan", "SolveRefused", "check_plan", "layer_bytes_done", "plan_solve"]
