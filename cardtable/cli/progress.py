"""One progress display for long work: a Rich bar with done/total, elapsed time and
an ETA, on standard error (so standard output stays clean for the results).

Commands and bench scripts that run for more than a few seconds use it:
``cardtable tournament``, ``cardtable exploit``, ``bench/golf_bots.py``::

    with progress_bar("search vs random", total=500) as advance:
        for job in jobs:
            run(job)
            advance(1)

``advance(n)`` adds ``n`` finished units; ``advance(0, total=k)`` changes the total
x On a terminal that is not interactive (a pipe, CI)
Rich prints nothing until the end, so logs stay readable.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

#: The console of every progress display: standard error.
stderr_console = Console(stderr=True)


@contextmanager
def progress_bar(
    description: str, total: int | None = None, console: Console | None = None
) -> Iterator[Callable[..., None]]:
    """A Rich progress bar; yields ``advance(n=1, total=None, completed=None)``.

    Args:
        description: what is being done (left of the bar).
        total: units of work, or ``None`` when unknown (elapsed time only).
        console: where to draw (default: standard error).
    """
    if total is None:  # unknown amount of work: a spinner and the elapsed time, gone when done
        columns = [
            TextColumn("[progress.description]{task.description}"),
            SpinnerColumn(),
            TimeElapsedColumn(),
        ]
    else:
        columns = [
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        ]
    with Progress(*columns, console=console or stderr_console, transient=total is None) as bar:
        task = bar.add_task(description, total=total)

        def advance(n: int = 1, total: int | None = None, completed: int | None = None) -> None:
            if total is not None:
                bar.update(task, total=total)
            if completed is not None:
                bar.update(task, completed=completed)
            else:
                bar.advance(task, n)

        try:
            yield advance
        except BaseException:  # a failed run: its error is the last word, not a half-drawn bar
            bar.live.transient = True
            bar.update(task, visible=False)
            raise
