"""Background table builds: ``cardtable play --build-table`` and ``cardtable serve
--build-table`` (docs/solver.md, Background builds).

:func:`plan_build` decides what to build for a game's ruleset (points objective, what the
``nash`` bot, the hints and the coach read), each step the ``cardtable solve`` command a
person would type:

- **carry-over ties**: when the whole table is estimated at more than
  :data:`LOW_FIRST_SECONDS` of one core (13 cards; 12 cards: 9 min), first its low layers
  ``--layers 6`` (13 cards: about 7 min; the bot is then exact from 9 cards left); then
  the whole table (format 2, compact layout, resumable by layer; 13 cards: about 1.0 h of one
  core, 1.8 GiB of memory, 3.8 GiB of disk by the estimate) when it fits this machine now: its
  memory at most
  :data:`MEMORY_SHARE` of the memory available, its disk at most what is free;
- **discard ties**: the whole table (format 2, resumable by layer, what the carry-over
  approximation reads; 13 cards: about 16 min, 592 MiB of memory, 644 MiB of disk; a
  format-1 file already in the cache counts as complete).

A table already complete is not built again; one whose lock file another process holds
(a ``cardtable solve`` writing it, or another session's build) is reported and left to
it. :class:`BackgroundBuild` runs the steps one after the other in one child process at
the lowest priority (nice 19), their output appended to a log file in the cache folder
(:func:`cardtable.solver.catalog.build_log`), and ends it when the command ends: on
Linux under the keeper (:mod:`cardtable.platform.keeper`), which kills the build's
whole process tree when it is told to or when the command dies (SIGKILL included); a
format-2 table keeps its finished layers and the next build resumes from them.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from cardtable.errors import CardtableError
from cardtable.goofspiel import Ruleset
from cardtable.platform.protocol import KEEPER, keeps_descendants, read_keeper_status
from cardtable.solver.catalog import build_log, game_lock, lock_held
from cardtable.solver.estimate import SolveNeeds, estimate_solve, size_text
from cardtable.solver.layers import LOW_MANIFEST
from cardtable.solver.plan import GIB, SolveRefused, plan_solve
from cardtable.solver.position import UnsupportedRuleset, check_supported
from cardtable.solver.table import FORMAT_LAYERED, default_path

#: One core-seconds of the whole carry-over table above which its low layers are built first.
LOW_FIRST_SECONDS = 600.0
#: The low layers built first (13 cards: exact from 9 cards left; docs/solver.md, Low layers).
LOW_LAYERS = 6
#: Share of the memory available now that a whole-table build may need.
MEMORY_SHARE = 0.8
#: ``cardtable solve``'s own default limits (``--max-memory``, ``--max-hours``).
SOLVE_MAX_MEMORY_GIB = 8.0
SOLVE_MAX_HOURS = 12.0
#: Seconds a stopped build has to end before its processes are killed outright.
STOP_WAIT_S = 5.0
#: The standard game's tables that ``cardtable serve --build-table`` builds.
STANDARD = (Ruleset(cards=13, tie_rule="carry"), Ruleset(cards=13, tie_rule="discard"))


class BuildRefused(CardtableError, ValueError):
    """A ruleset that has no table to build (outside the solver, or a fixed prize order);
    nothing was started or written."""


@dataclass(frozen=True)
class BuildStep:
    """One ``cardtable solve`` run of a build.

    Attributes:
        ruleset: the game; the objective is always ``points``.
        args: the command's words after ``cardtable`` (no ``--cache``).
        needs: its estimate (:func:`cardtable.solver.estimate.estimate_solve`).
        log: the log file its output is appended to.
    """

    ruleset: Ruleset
    args: tuple[str, ...]
    needs: SolveNeeds
    log: Path

    @property
    def command(self) -> str:
        """The command as a person types it: ``cardtable solve -n 13 --ties carry --layers 6``."""
        return "cardtable " + shlex.join(self.args)

    def describe(self) -> str:
        """The command and its estimate: ``cardtable solve ... (1.46e+09 matrix games; 534.0
        MiB of memory, 968.0 MiB of disk; about 7 min on 1 core; resumable)``."""
        again = "resumable" if self.needs.table_format == 2 else "not resumable: a stopped build starts over"
        return f"`{self.command}` ({self.needs.describe()}; {again})"


@dataclass(frozen=True)
class BuildPlan:
    """What a ``--build-table`` builds: ``steps`` in order, and ``skipped``: one sentence per
    table (or step) not built and why (complete, another process builds it, does not fit)."""

    steps: tuple[BuildStep, ...]
    skipped: tuple[str, ...]

    def describe(self) -> str:
        """The one line the command prints: what is built, its estimate, where the logs go
        (or why nothing is built)."""
        skipped = "; ".join(self.skipped)
        if not self.steps:
            return f"--build-table: nothing to build: {skipped}"
        logs = ", ".join(dict.fromkeys(str(s.log) for s in self.steps))
        return (
            "building in the background at the lowest priority: "
            + ", then ".join(s.describe() for s in self.steps)
            + (f" ({skipped})" if skipped else "")
            + f"; log: {logs}"
        )


def _game_text(rs: Ruleset) -> str:
    return f"{rs.cards} cards, {rs.tie_rule} ties" + (", high ace" if rs.high_ace else "")


def _solve_args(rs: Ruleset, *extra: str) -> tuple[str, ...]:
    return (
        ("solve", "-n", str(rs.cards), "--ties", rs.tie_rule)
        + (("--high-ace",) if rs.high_ace else ())
        + extra
    )


def memory_available() -> int | None:
    """Bytes of memory available now (Linux ``MemAvailable`` of ``/proc/meminfo``; else the
    physical memory, ``os.sysconf``), or None where neither can be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_buildable(ruleset: Ruleset) -> None:
    """Refuse a ruleset that has no table to build.

    Raises:
        BuildRefused: a ruleset outside the solver (3+ players, multi-card bids, open
            prizes) or a fixed prize order (solved in memory at the first move).
    """
    try:
        check_supported(ruleset)
    except UnsupportedRuleset as exc:
        raise BuildRefused(f"--build-table: there is no table to build for these rules: {exc}") from None
    if ruleset.fixed_order:
        raise BuildRefused(
            "--build-table: there is no table to build for a fixed prize order: the nash bot solves "
            "that game exactly at the first move"
        )


def table_complete(ruleset: Ruleset, cache: Path | None = None) -> bool:
    """True when the points table of ``ruleset`` is in ``cache`` (either format; not read)."""
    folder = default_path(ruleset, "points", cache, FORMAT_LAYERED)
    return (folder / "table.json").exists() or default_path(ruleset, "points", cache).exists()


def plan_build(rulesets: tuple[Ruleset, ...], cache: Path, memory: int | None = None) -> BuildPlan:
    """What ``--build-table`` builds for ``rulesets`` in the cache folder ``cache`` (module
    docstring); ``memory``: bytes available (default :func:`memory_available`). Reads the
    folder's entries and the estimates; writes nothing.

    Raises:
        BuildRefused: a ruleset with no table to build (:func:`check_buildable`).
    """
    for rs in rulesets:
        check_buildable(rs)
    memory = memory_available() if memory is None else memory
    limit_gib = SOLVE_MAX_MEMORY_GIB if memory is None else MEMORY_SHARE * memory / GIB
    steps: list[BuildStep] = []
    skipped: list[str] = []
    for rs in rulesets:
        if table_complete(rs, cache):
            skipped.append(f"the {_game_text(rs)} table is complete")
        elif lock_held(game_lock(rs, "points", cache)):
            skipped.append(
                f"the {_game_text(rs)} table is being built by another process (it holds "
                f"{game_lock(rs, 'points', cache)}); the nash bot picks it up when it is complete"
            )
        else:
            _plan_game(rs, cache, limit_gib, steps, skipped)
    steps.sort(key=lambda s: s.needs.cpu_seconds)  # the quickest first (a game's low layers before it)
    return BuildPlan(tuple(steps), tuple(skipped))


def _plan_game(
    rs: Ruleset, cache: Path, limit_gib: float, steps: list[BuildStep], skipped: list[str]
) -> None:
    """Append the steps of one game's table (not complete, not being built) to ``steps``."""
    log = build_log(rs, "points", cache)
    folder = default_path(rs, "points", cache, FORMAT_LAYERED)
    carry = rs.tie_rule == "carry"
    whole = estimate_solve(rs, "points") if carry else None
    low_first = (
        whole is not None
        and whole.cpu_seconds > LOW_FIRST_SECONDS
        and rs.cards > LOW_LAYERS
        and not (folder / LOW_MANIFEST).exists()
    )
    if low_first:
        needs = estimate_solve(rs, "points", LOW_LAYERS)
        steps.append(BuildStep(rs, _solve_args(rs, "--layers", str(LOW_LAYERS)), needs, log))
    try:
        plan = plan_solve(rs, "points", folder, max_memory_gib=limit_gib, max_hours=SOLVE_MAX_HOURS)
    except SolveRefused:
        needs = estimate_solve(rs, "points")
        skipped.append(f"not the whole {_game_text(rs)} table: {_why_not(needs, limit_gib, cache)}")
        return
    extra: tuple[str, ...] = ()
    if plan.needs.memory_bytes > SOLVE_MAX_MEMORY_GIB * GIB:  # fits here, over the solve's default
        extra = ("--max-memory", str(int(plan.needs.memory_bytes / GIB) + 1))
    steps.append(BuildStep(rs, _solve_args(rs, *extra), plan.needs, log))


def _why_not(needs: SolveNeeds, limit_gib: float, cache: Path) -> str:
    """Why a whole-table build does not fit this machine now (as :func:`plan_solve` checks:
    memory, hours, then disk)."""
    if needs.memory_bytes > limit_gib * GIB:
        return (
            f"it needs {size_text(needs.memory_bytes)} of memory, more than {MEMORY_SHARE:.0%} of the "
            f"{size_text(limit_gib * GIB / MEMORY_SHARE)} available now"
        )
    if needs.hours() > SOLVE_MAX_HOURS:
        return f"it needs {needs.describe()}, over {SOLVE_MAX_HOURS:g} hours"
    return f"it needs {size_text(needs.disk_bytes)} of disk, more than is free in {cache}"


def _stamp() -> str:
    return datetime.now().strftime("%Y-%m-%d %H:%M:%S")


class BackgroundBuild:
    """The child process that runs a :class:`BuildPlan`'s steps (module docstring).

    Args:
        plan: what to build (its steps must not be empty).
        cache: the cache folder (passed to every step as ``--cache``).
        who: the command that starts it, for the log (``"cardtable play"``).
    """

    def __init__(self, plan: BuildPlan, cache: Path, who: str) -> None:
        if not plan.steps:
            raise ValueError("a build needs at least one step")
        self.plan = plan
        self.cache = cache
        self.who = who
        self.proc: subprocess.Popen | None = None
        self.kept = False  # under the keeper

    def script(self) -> str:
        """The POSIX shell script the child runs: each step's command, its output appended
        to its log between two dated lines (the exit code on the second)."""
        lines = []
        for step in self.plan.steps:
            argv = [sys.executable, "-m", "cardtable", *step.args, "--cache", str(self.cache)]
            log = shlex.quote(str(step.log))
            lines += [
                f"echo \"[$(date '+%Y-%m-%d %H:%M:%S')] {self.who} (pid {os.getpid()}) runs: "
                f'{step.command}" >> {log}',
                f"{shlex.join(argv)} < /dev/null >> {log} 2>&1",
                f"echo \"[$(date '+%Y-%m-%d %H:%M:%S')] exit code $?\" >> {log}",
            ]
        return "\n".join(lines) + "\n"

    def start(self) -> None:
        """Start the child: the script under ``nice -n 19`` (the lowest CPU priority, for
        everything it starts; set by the ``nice`` program rather than in the forked child,
        which is not safe where the command already runs threads, as the server does), in a
        session of its own (a Ctrl-C in the terminal reaches the command, which then stops
        it), under the keeper where :func:`~cardtable.platform.protocol.keeps_descendants`.

        Raises:
            OSError: the child cannot be started, or its log file cannot be opened.
        """
        argv = ["nice", "-n", "19", "/bin/sh", "-c", self.script()]
        with open(self.plan.steps[0].log, "ab") as log:
            if not keeps_descendants():
                self.proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                return
            status_r, status_w = os.pipe()
            try:
                self.proc = subprocess.Popen(
                    [sys.executable, "-I", "-S", str(KEEPER), str(status_w), str(os.getpid()), *argv],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    pass_fds=(status_w,),
                )
            finally:
                os.close(status_w)
        self.kept = True
        try:
            why = read_keeper_status(status_r, STOP_WAIT_S)
        finally:
            os.close(status_r)
        if why:
            self.stop()
            raise OSError(f"the background build could not be started: {why}")

    def stop(self) -> str:
        """End the child and everything it started (SIGTERM to the keeper, which kills the
        tree; without the keeper SIGTERM to its process group; either way SIGKILL to the
        group after :data:`STOP_WAIT_S` seconds) and reap it. Returns one line on how the
        build ended, also appended to the log: ``finished`` or ``stopped``."""
        proc = self.proc
        if proc is None:
            return ""
        if proc.poll() is not None:
            if proc.returncode == 0:
                return f"the background build finished (`cardtable tables` lists what it built); log: {self._logs()}"
            return f"the background build ended with exit code {proc.returncode}: see its log {self._logs()}"
        self._signal(signal.SIGTERM)
        try:
            proc.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL, group=True)
            proc.wait()
        kept = (
            "its finished layers are kept and `--build-table` resumes from them"
            if any(s.needs.table_format == 2 for s in self.plan.steps)
            else "a format-1 table keeps nothing: `--build-table` starts it over"
        )
        line = f"the background build was stopped when {self.who} ended: {kept}; log: {self._logs()}"
        for log in dict.fromkeys(s.log for s in self.plan.steps):
            try:
                with open(log, "a", encoding="utf-8") as f:
                    f.write(f"[{_stamp()}] stopped: {self.who} (pid {os.getpid()}) ended\n")
            except OSError:  # the cache folder went away: the line printed is enough
                pass
        return line

    def _logs(self) -> str:
        return ", ".join(dict.fromkeys(str(s.log) for s in self.plan.steps))

    def _signal(self, signum: int, group: bool = False) -> None:
        assert self.proc is not None
        try:
            if self.kept and not group:
                os.kill(self.proc.pid, signum)
            else:
                os.killpg(self.proc.pid, signum)  # its own session: the group is the child's pid
        except ProcessLookupError:
            pass

    def __enter__(self) -> BackgroundBuild:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = [
    "BackgroundBuild",
    "BuildPlan",
    "BuildRefused",
    "BuildStep",
    "STANDARD",
    "check_buildable",
    "memory_available",
    "plan_build",
    "table_complete",
]
