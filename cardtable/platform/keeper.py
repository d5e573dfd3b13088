"""The keeper: a small process between cardtable and one bot program, so that nothing the
program starts outlives it, also a grandchild that double-forks and calls ``setsid()``
(Linux; docs/protocol.md, "Processes").

:class:`cardtable.platform.protocol.BotProcess` runs it as a script, with the standard
library only (``python -I -S keeper.py STATUS_FD HOST_PID PROGRAM ARGS...``). The keeper

1. makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): a process of the
   program's that loses its parent (a double fork, with or without ``setsid()``) is
   reparented to the keeper instead of to init, so the keeper's descendants are exactly
   the program's processes, whatever sessions or groups they made;
2. asks for SIGTERM when the host dies (``PR_SET_PDEATHSIG``; it exits at once when the
   host ``HOST_PID`` is already gone);
3. forks and executes the program with the keeper's stdin, stdout and stderr, and writes
   to ``STATUS_FD`` nothing (end of file: the program runs) or why it could not be started
   (the ``OSError`` text), then lets go of its own standard streams;
4. reaps every child; when the program exits, or on SIGTERM, SIGHUP or SIGINT, it kills
   and reaps every descendant (:func:`end_tree`), and exits with the program's exit code
   (killed by a signal: the same signal), or with 128 + the signal that stopped it.

:func:`descendants` and :func:`kill_tree` are also used by tests. Limits: a process that
the program has started through another service (``systemd-run``, ``at``, a D-Bus call)
is not its descendant and is not reached.
"""

from __future__ import annotations

import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
#: The signals that make the keeper kill the program's tree and exit.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def _prctl():
    try:
        # lazy: inside the try: ctypes (and prctl) may be missing off Linux
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):  # not Linux
        return None


def parents() -> dict[int, int]:
    """``{pid: parent pid}`` of every process (Linux ``/proc``; ``{}`` without it)."""
    out: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    data = f.read()
                # "pid (comm) state ppid ...": comm may hold spaces and parentheses
                out[int(entry)] = int(data.rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass  # gone meanwhile
    return out


def descendants(root: int, table: dict[int, int] | None = None) -> list[int]:
    """Every process below ``root`` (children, their children, ...), parents before their
    children; ``table`` is a :func:`parents` snapshot (read now when ``None``)."""
    table = parents() if table is None else table
    children: dict[int, list[int]] = {}
    for pid, ppid in table.items():
        children.setdefault(ppid, []).append(pid)
    out, seen, frontier = [], {root}, [root]
    while frontier:
        below = []
        for pid in frontier:
            for child in children.get(pid, ()):
                if child not in seen:
                    seen.add(child)
                    below.append(child)
        out.extend(below)
        frontier = below
    return out


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def kill_tree(root: int) -> list[int]:
    """SIGKILL every process below ``root``; returns their pids.

    The tree is frozen first: each process found is sent SIGSTOP (parents before their
    children), and the search is repeated until it finds nothing new, so nothing in it can
    fork any more. It is then read once more and only the processes still in it are killed:
    a pid that has left the tree meanwhile (it exited and was reaped, and the number may
    already name an unrelated process) is sent SIGCONT instead. The caller reaps its own
    children; below a subreaper every orphan of the tree becomes one.
    """
    stopped: list[int] = []
    seen: set[int] = set()
    for _ in range(100):  # bounded: a process that cannot be stopped may still fork
        new = [pid for pid in descendants(root) if pid not in seen]
        if not new:
            break
        for pid in new:
            seen.add(pid)
            _signal(pid, signal.SIGSTOP)
            stopped.append(pid)
    tree = set(descendants(root))
    for pid in stopped:
        _signal(pid, signal.SIGKILL if pid in tree else signal.SIGCONT)
    return [pid for pid in stopped if pid in tree]


class _Stop(Exception):
    pass


def _on_signal(signum, frame):
    raise _Stop(signum)


def end_tree(wait_s: float = 4.0) -> None:
    """Kill and reap every descendant of this process, which must be a child subreaper.

    Below a subreaper every living descendant has an ancestor that is a child of it, so
    "no child left" (``waitpid`` fails with ``ECHILD``) means the tree is empty: until
    then :func:`kill_tree` is repeated (one read of ``/proc`` can miss a process that
    forks and exits while it is read) and whatever has died is reaped. Gives up after
    ``wait_s`` seconds (a process that cannot be killed)."""
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        kill_tree(os.getpid())
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return
        time.sleep(0.002)


def _exit_like(status: int | None, stop_signal: int | None) -> None:
    if status is None:
        os._exit(128 + (stop_signal or signal.SIGTERM))
    if os.WIFSIGNALED(status):  # end the way the program ended, without a core file
        signum = os.WTERMSIG(status)
        try:
            # lazy: inside the try: resource exists on POSIX only
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ImportError, OSError, ValueError):
            pass
        signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
        os.kill(os.getpid(), signum)
        os._exit(128 + signum)
    os._exit(os.waitstatus_to_exitcode(status))


def _exec_program(
    program: list[str], handled: list[signal.Signals], prctl, mask: set, status_fd: int
) -> None:
    """In the forked child: restore the host's signals, die with the keeper, and run ``program``;
    never returns (a failure to start is written to ``status_fd``, exit code 127)."""
    try:
        for signum in handled + [signal.SIGPIPE, signal.SIGXFSZ]:
            signal.signal(signum, signal.SIG_DFL)
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.execvp(program[0], program)
    except BaseException as exc:
        why = str(exc) + (f": {program[0]!r}" if isinstance(exc, OSError) and exc.filename is None else "")
        try:
            os.write(status_fd, why.encode("utf-8", "replace")[:1000])
        finally:
            os._exit(127)


def _wait_program(pid: int, mask: set) -> tuple[int | None, int | None]:
    """Reap children until the program ``pid`` ends or a stop signal comes.

    Returns:
        the program's wait status (``None`` if it was not seen to end) and the stop signal
        (``None`` without one).
    """
    status = stop_signal = None
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        while status is None:
            try:
                done, code = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            if done == pid:
                status = code
    except _Stop as stop:
        stop_signal = stop.args[0]
    return status, stop_signal


def main(argv: list[str]) -> None:
    """The keeper's life (see the module docstring); never returns."""
    status_fd, host, program = int(argv[1]), int(argv[2]), argv[3:]
    os.set_inheritable(status_fd, False)
    prctl = _prctl()
    if prctl is not None:
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != host:  # the host died before the parent-death signal was asked for
        os._exit(1)
    handled = [s for s in STOP_SIGNALS if signal.getsignal(s) is not signal.SIG_IGN]
    for signum in handled:
        signal.signal(signum, _on_signal)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set(handled))
    pid = os.fork()
    if pid == 0:  # the program: signals as the host left them, and dies with the keeper
        _exec_program(program, handled, prctl, mask, status_fd)
    os.close(status_fd)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    status, stop_signal = _wait_program(pid, mask)
    signal.pthread_sigmask(signal.SIG_BLOCK, set(handled))  # clean up without interruption
    end_tree()
    _exit_like(status, stop_signal)


if __name__ == "__main__":
    main(sys.argv)
