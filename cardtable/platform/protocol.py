"""The bot protocol's game-independent part: a line-based text protocol over a
program's stdin/stdout, in the spirit of UCI (docs/protocol.md is the spec).

This module knows no game's rules. It runs a bot program as a subprocess,
performs the handshake (identity and options), sends lines, and reads replies
with a time limit, turning every misbehaviour into a :class:`BotFailure` with a
``kind``:

- ``"crash"``: the program exited, or could not be started;
- ``"timeout"``: no reply within the time limit (plus :data:`GRACE_MS`);
- ``"garbage"``: a line that is not a valid message here (or not UTF-8);
- ``"flood"``: a line longer than ``max_line`` bytes or more than ``max_info``
  ``info`` lines in one reply;
- ``"illegal"``: a well-formed reply that the game does not allow (raised by
  the game's protocol module);
- ``"unsolicited"``: a line other than ``info`` that the controller did not ask for
  (a second reply, a reply to an information line, a stale line); before every
  request the controller synchronises with ``isready``/``readyok`` and every
  such line found on the way is this violation;
- ``"handshake"``: a bad or missing identity during the handshake.

The game packages build on :class:`ProtocolBot` (``cardtable.goofspiel.protocol``).

Generic messages (``>`` controller to bot, ``<`` bot to controller)::

    > cardtable 1 goofspiel                   # protocol version, game
    < id name Example Bot
    < id author Someone                       # optional
    < option name depth type int default 3    # optional, repeated
    < ready
    > setoption name depth value 4            # zero or more
    > isready
    < readyok
    > newgame ...                             # the game's first line (game package)
    > game id 0-1-3-0 seed 2840720121         # ProtocolBot.game_line: a random bot reseeds here
    ... game messages (round, go, ...) ...
    > quit

At any time the bot may send ``info <text>`` (logged, otherwise ignored). A bot ignores
controller lines it does not know (new information lines may come within a version).
"""

from __future__ import annotations

import ctypes
import math
import os
import queue
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Sequence

from cardtable.errors import CardtableError

from .bot import Bot

#: Protocol version sent in the greeting.
PROTOCOL_VERSION = 1
#: Extra milliseconds allowed beyond a request's time limit (pipe and start-up latency).
GRACE_MS = 250
#: The longest time per decision a protocol bot may be given, milliseconds (10 minutes): a
#: silent bot would otherwise hold a check or a tournament for ever.
MAX_TIME_MS = 600_000
#: Milliseconds a program has to finish the handshake.
HANDSHAKE_MS = 5000
#: The most options a program may declare in its handshake (each held in memory and listed).
MAX_OPTIONS = 64
#: Bytes of a program's stderr kept from its start and from its end (quoted in crash reports).
STDERR_KEPT = 2000
#: Seeds in the ``game`` line are whole numbers ``0 <= seed < GAME_SEED_LIMIT``.
GAME_SEED_LIMIT = 2**32
#: A game id in the ``game`` line: one word.
GAME_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_EOF = object()


class BotFailure(CardtableError, Exception):
    """A protocol violation or failure of a bot program; the bot loses the game.

    Attributes:
        kind: ``"crash"``, ``"timeout"``, ``"garbage"``, ``"flood"``, ``"illegal"``,
            ``"unsolicited"`` or ``"handshake"``.
        detail: a human-readable explanation (quotes the offending line).
        seat: the offending seat, when known (set by the game runner).
    """

    def __init__(self, kind: str, detail: str, seat: int | None = None) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.seat = seat


@dataclass
class BotOption:
    """One option a bot declares: ``option name N type T default D``."""

    name: str
    type: str
    default: str


@dataclass
class BotIdentity:
    """What a bot told the controller in the handshake."""

    name: str
    author: str = ""
    options: dict[str, BotOption] = field(default_factory=dict)


def split_command(command: str | Sequence[str]) -> list[str]:
    """A command line as an argument list (``shlex`` rules for a string).

    Raises:
        ValueError: an empty command, bad quoting, or a program that is not found.
    """
    try:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    except ValueError as exc:
        raise ValueError(f"bad bot command {command!r}: {exc}") from None
    if not argv:
        raise ValueError("empty bot command")
    try:
        return _checked_files(command, argv)
    except OSError as exc:  # a folder on the way without permission, a name too long
        raise ValueError(f"bot command {command!r}: {exc.strerror}: {exc.filename}") from None


def _checked_files(command: str | Sequence[str], argv: list[str]) -> list[str]:
    """:func:`split_command`'s check of the program and its script (``OSError`` passes)."""
    prog = argv[0]
    if shutil.which(prog) is None and not (os.sep in prog and Path(prog).is_file()):
        raise ValueError(f"bot command {command!r}: program {prog!r} not found")
    script = script_argument(argv)
    if script is not None and not Path(script).is_file():
        where = (
            ""
            if Path(script).is_absolute()
            else f" (a relative path is resolved against the current folder, {os.getcwd()})"
        )
        what = "is a folder, not a file" if Path(script).is_dir() else "not found"
        raise ValueError(f"bot command {command!r}: script {script!r} {what}{where}")
    return argv


#: Interpreters whose first argument, when it is not an option, is the script they run
#: (``python bot.py``, ``node bot.js``): :func:`split_command` checks that the file exists.
SCRIPT_INTERPRETERS = re.compile(r"(python|pypy)[0-9.]*|node|nodejs|ruby|perl|php|bash|sh|lua[0-9.]*|Rscript")


def script_argument(argv: Sequence[str]) -> str | None:
    """The script of an interpreter command (``["node", "bot.js"]`` -> ``"bot.js"``), or ``None``.

    Only the plain form counts: an interpreter of :data:`SCRIPT_INTERPRETERS` (its file name,
    any folder) directly followed by an argument that is not an option (``python -m pkg``,
    ``node -r x bot.js`` and other commands are not looked into).
    """
    if len(argv) < 2 or not SCRIPT_INTERPRETERS.fullmatch(os.path.basename(argv[0])):
        return None
    first = argv[1]
    return None if first.startswith("-") or first == "inspect" else first


def split_words(line: str) -> list[str]:
    r"""The words of a line from a bot (docs/protocol.md, "Conventions").

    Words are separated by runs of spaces and tabs; spaces and tabs at either end, the
    ending ``\n`` and one ``\r`` before it are ignored. Nothing else separates words: a
    vertical tab, a no-break space or an ``\r`` inside the line stays part of its word (so
    ``bid\u00a012`` is one word, not ``bid 12``). Case is kept: keywords are lower case
    and ``BID 12`` is not a bid.

    >>> split_words("bid  12\t\r\n")
    ['bid', '12']
    """
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return [w for w in re.split(r"[ \t]+", line) if w]


def _unexpected(words: list[str], expected: Sequence[str], unsolicited: Sequence[str] | None) -> BotFailure:
    """The failure for a reply line whose first word is not one of ``expected``."""
    line = " ".join(words)
    shown = line if len(line) <= 80 else line[:77] + "..."
    if unsolicited is not None and words[0] in unsolicited:
        return BotFailure("unsolicited", f"{shown!r} before {'/'.join(expected)}: a line nobody asked for")
    return BotFailure("garbage", f"expected {'/'.join(expected)}, got {shown!r}")


class BotProcess:
    """A bot program under the protocol: start, send lines, read replies with time limits.

    Args:
        command: the command line (string, split with ``shlex``, or a list).
        max_line: longest accepted line in bytes (longer: ``"flood"``).
        max_info: most ``info`` lines accepted while waiting for one reply.
        log: keep a transcript (``self.transcript``: ``("> " | "< ", line)`` pairs, bounded).

    Raises:
        ValueError: a bad command (see :func:`split_command`).
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        max_line: int = 4096,
        max_info: int = 100,
        cwd: str | None = None,
    ) -> None:
        self.argv = split_command(command)
        self.command = command if isinstance(command, str) else shlex.join(self.argv)
        self.max_line = max_line
        self.max_info = max_info
        self.cwd = cwd
        self.proc: subprocess.Popen | None = None
        self.transcript: list[tuple[str, str]] = []
        self._lines: queue.Queue = queue.Queue(maxsize=max_info + 50)
        self._stderr_tail = b""
        self._stderr_head = b""
        self._flooded: str | None = None

    # -- process -------------------------------------------------------------------------

    def start(self) -> None:
        """Start the program (on Linux under a keeper process, so that nothing it starts
        outlives it: :func:`keeps_descendants`, docs/protocol.md "Processes").

        Raises:
            BotFailure: ``"crash"`` when it cannot be started.
        """
        self._lines = queue.Queue(maxsize=self.max_info + 50)
        self._flooded = None
        self._stderr_tail = b""
        self._stderr_head = b""
        self.proc, self._kept = _spawn(self.argv, self.cwd, self.command)
        threading.Thread(target=self._read_stdout, args=(self.proc, self._lines), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(self.proc,), daemon=True).start()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _read_stdout(self, proc: subprocess.Popen, lines: queue.Queue) -> None:
        stream = _pipe(proc.stdout)
        try:
            while True:
                raw = stream.readline(self.max_line + 1)
                if not raw:
                    break
                if len(raw) > self.max_line and not raw.endswith(b"\n"):
                    self._flooded = f"a line longer than {self.max_line} bytes"
                    break
                try:
                    lines.put(raw, timeout=5)
                except queue.Full:
                    self._flooded = f"more than {lines.maxsize} unread lines"
                    break
        except (OSError, ValueError):
            pass
        finally:
            try:
                lines.put_nowait(_EOF)
            except queue.Full:
                pass
            # The reader closes its own stream: closing it from another thread while
            # this one is inside read() would free the file descriptor for the next
            # program's pipe, and this thread would then steal that program's bytes.
            stream.close()

    def _read_stderr(self, proc: subprocess.Popen) -> None:
        stream = _pipe(proc.stderr)
        try:
            while True:
                chunk = stream.read(4096)
                if not chunk:
                    break
                if len(self._stderr_head) < STDERR_KEPT:
                    self._stderr_head = (self._stderr_head + chunk)[:STDERR_KEPT]
                self._stderr_tail = (self._stderr_tail + chunk)[-STDERR_KEPT:]
        except (OSError, ValueError):
            pass
        finally:
            stream.close()

    def stderr_tail(self) -> str:
        """The last :data:`STDERR_KEPT` bytes the program wrote to stderr."""
        return self._stderr_tail.decode("utf-8", "replace")

    def stderr_summary(self) -> str:
        """What a crash report quotes of stderr: its first and last lines.

        The non-empty lines of the first and last :data:`STDERR_KEPT` bytes, joined by
        ``" | "``: all of them when there are at most 7, else the first 4, ``...`` and the
        last 3 (an interpreter's real reason, such as Node's ``Error: Cannot find module``,
        is often near the top, under a stack trace that fills the end). ``""``: no stderr.
        """
        head = self._stderr_head.decode("utf-8", "replace")
        tail = self._stderr_tail.decode("utf-8", "replace")
        if len(self._stderr_head) < STDERR_KEPT or self._stderr_head == self._stderr_tail:
            lines = [
                line.strip() for line in tail.splitlines() if line.strip()
            ]  # all of stderr is in the tail
            if len(lines) <= 7:
                return " | ".join(lines)
            first, last = lines[:4], lines[-3:]
        else:
            first = [line.strip() for line in head.splitlines() if line.strip()][:4]
            last = [line.strip() for line in tail.splitlines() if line.strip()][-3:]
        return " | ".join(first + ["..."] + last)

    def close(self, wait_s: float = 1.0) -> int | None:
        """Send ``quit``, wait up to ``wait_s`` seconds, then kill; returns the exit code (``None``: killed).

        Everything the program started is killed in any case (:meth:`kill`), so nothing
        it started outlives it."""
        proc = self.proc
        if proc is None:
            return None
        code = None
        if proc.poll() is None:
            try:
                self.send("quit")
            except BotFailure:
                pass
            try:
                code = proc.wait(timeout=wait_s)
            except subprocess.TimeoutExpired:
                pass
        else:
            code = proc.returncode
        self.kill()
        try:
            _pipe(proc.stdin).close()  # stdout and stderr are closed by their reader threads
        except OSError:
            pass
        self.proc = None
        return code

    def kill(self) -> None:
        """Kill the program and everything it started, also when the program itself has
        already exited (a child it forked may still hold its pipes).

        On Linux (:func:`keeps_descendants`) the keeper is sent SIGTERM: it kills every
        descendant of the program, a grandchild in a session of its own included, and
        exits. Then, everywhere, the program's process group is killed at once."""
        proc = self.proc
        if proc is None:
            return
        if self._kept:
            _stop_keeper(proc)
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the program leads its own session and group
        except (ProcessLookupError, PermissionError):
            pass  # the group is empty
        except OSError:
            if proc.poll() is None:
                proc.kill()
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass

    # -- lines ---------------------------------------------------------------------------

    def _log(self, prefix: str, line: str) -> None:
        self.transcript.append((prefix, line))
        if len(self.transcript) > 400:
            del self.transcript[:100]

    def send(self, line: str) -> None:
        """Send one line.

        Raises:
            BotFailure: ``"crash"`` when the program is gone.
        """
        if self.proc is None:
            raise BotFailure("crash", "the program is not running")
        self._log("> ", line)
        try:
            stdin = _pipe(self.proc.stdin)
            stdin.write((line + "\n").encode("utf-8"))
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._crash() from None

    def _crash(self) -> BotFailure:
        proc = self.proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
        quoted = self.stderr_summary()
        more = f"; stderr: {quoted}" if quoted else ""
        return BotFailure("crash", f"the program exited (code {code}){more}")

    def read_reply(
        self, expected: Sequence[str], timeout_ms: float, unsolicited: Sequence[str] | None = None
    ) -> tuple[str, list[str]]:
        """Wait for a line whose first word is one of ``expected``; skip ``info`` lines.

        Args:
            unsolicited: first words that are replies to some other request: met here,
                they are ``"unsolicited"`` rather than ``"garbage"``.

        Returns:
            ``(keyword, remaining words)``.

        Raises:
            BotFailure: ``"timeout"``, ``"crash"``, ``"garbage"``, ``"unsolicited"`` or ``"flood"``.
        """
        deadline = time.monotonic() + timeout_ms / 1000.0
        infos = 0
        exited_at: list[float] = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotFailure("timeout", f"no {'/'.join(expected)} within {timeout_ms:.0f} ms")
            raw = self._next_raw(left, exited_at)
            if raw is None:
                continue
            words = self._words(raw)
            if not words:
                continue
            if words[0] == "info":
                infos += 1
                if infos > self.max_info:
                    raise BotFailure("flood", f"more than {self.max_info} info lines in one reply")
                continue
            if words[0] in expected:
                return words[0], words[1:]
            raise _unexpected(words, expected, unsolicited)

    def _next_raw(self, left: float, exited_at: list[float]) -> Any:
        """The next raw line (bytes or ``_EOF``) within ``min(left, 0.05)`` seconds, or ``None``.

        ``exited_at`` holds when the program was first seen exited (filled here).

        Raises:
            BotFailure: ``"flood"``, or ``"crash"`` 0.2 s after the program exited.
        """
        try:
            return self._lines.get(timeout=min(left, 0.05))
        except queue.Empty:
            if self._flooded:
                raise BotFailure("flood", f"the program sent {self._flooded}") from None
            if self.proc is not None and self.proc.poll() is not None:
                # the program exited; a child it left may hold its output open, so no
                # end of file comes: after a moment for the last lines, it crashed
                if not exited_at:
                    exited_at.append(time.monotonic())
                if time.monotonic() - exited_at[0] > 0.2:
                    raise self._crash() from None
            return None

    def _words(self, raw: Any) -> list[str]:
        """The words of a raw line (logged).

        Raises:
            BotFailure: ``"flood"`` or ``"crash"`` at the end of output, ``"garbage"`` for a
                line that is not UTF-8.
        """
        if raw is _EOF:
            if self._flooded:
                raise BotFailure("flood", f"the program sent {self._flooded}")
            raise self._crash()
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BotFailure("garbage", f"a line that is not UTF-8: {raw[:60]!r}") from None
        words = split_words(line)
        self._log("< ", " ".join(words))
        return words

    # -- handshake -----------------------------------------------------------------------

    def handshake(self, game: str, timeout_ms: float = HANDSHAKE_MS) -> BotIdentity:
        """Greet the program and read its identity and options up to ``ready``.

        Raises:
            BotFailure: ``"handshake"`` (no name, a malformed option, an option declared twice,
                more than :data:`MAX_OPTIONS` options) or any read failure.
        """
        self.send(f"cardtable {PROTOCOL_VERSION} {game}")
        name, author = None, ""
        options: dict[str, BotOption] = {}
        deadline = time.monotonic() + timeout_ms / 1000.0
        while True:
            left_ms = max(1.0, (deadline - time.monotonic()) * 1000)
            word, rest = self.read_reply(("id", "option", "ready"), left_ms)
            if word == "ready":
                break
            if word == "id":
                if len(rest) >= 2 and rest[0] == "name":
                    name = " ".join(rest[1:])
                elif len(rest) >= 2 and rest[0] == "author":
                    author = " ".join(rest[1:])
                else:
                    raise BotFailure("handshake", f"malformed id line: id {' '.join(rest)!r}")
            else:
                opt = _parse_option(rest)
                if opt.name in options:  # as everywhere: a repeated key is an error, not "the last wins"
                    raise BotFailure("handshake", f"option {opt.name[:60]!r} is declared twice")
                if len(options) >= MAX_OPTIONS:
                    raise BotFailure("handshake", f"more than {MAX_OPTIONS} options declared")
                options[opt.name] = opt
        if not name:
            raise BotFailure("handshake", "the program sent ready without 'id name ...'")
        return BotIdentity(name=name, author=author, options=options)

    def sync(self, timeout_ms: float = HANDSHAKE_MS, replies: Sequence[str] = ()) -> None:
        """``isready`` / ``readyok``: wait until the program has processed everything sent.

        Args:
            replies: the game's reply words (``bid``, ``choose``): one of them before
                ``readyok`` is an ``"unsolicited"`` violation (a stale or early reply).

        Raises:
            BotFailure: ``"unsolicited"``, ``"garbage"`` (any other line) or a read failure.
        """
        self.send("isready")
        self.read_reply(("readyok",), timeout_ms, unsolicited=tuple(replies) + ("id", "option", "ready"))


def _find_prctl():
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        return None


_PRCTL = _find_prctl()
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Ask the kernel to SIGKILL this process when the thread that started it dies
    (Linux ``prctl(PR_SET_PDEATHSIG)``; a no-op elsewhere). Run in a child before
    ``exec`` (bot programs) or at the start of a worker, so nothing outlives a
    controller that is itself killed (SIGKILL included)."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


#: The keeper script, run by path with the standard library only (:mod:`cardtable.platform.keeper`).
KEEPER = Path(__file__).with_name("keeper.py")
#: Seconds the keeper has to report that the program started, and to stop it.
KEEPER_WAIT_S = 5.0


def keeps_descendants() -> bool:
    """True where a bot program runs under a keeper process (:mod:`cardtable.platform.keeper`)
    that kills every process the program started when the program ends, a grandchild that
    double-forked and called ``setsid()`` included: Linux, with ``prctl`` and ``/proc``.
    Elsewhere (macOS, other systems) only the program's process group is killed
    (docs/protocol.md, "Processes")."""
    return (
        _PRCTL is not None
        and sys.platform.startswith("linux")
        and bool(sys.executable)
        and os.path.isdir("/proc/self")
    )


def _pipe(stream: IO[bytes] | None) -> IO[bytes]:
    """One pipe of a process :func:`_spawn` started: all three are pipes, never ``None``."""
    assert stream is not None
    return stream


def _spawn(argv: list[str], cwd: str | None, command: str) -> tuple[subprocess.Popen, bool]:
    """Start ``argv`` with pipes, in a new session, dying with this thread; under the keeper
    where :func:`keeps_descendants`. Returns ``(process, kept)``; the process is the keeper
    when ``kept``.

    Raises:
        BotFailure: ``"crash"`` when the program cannot be started (the ``OSError`` text).
    """

    def popen(args: list[str], pass_fds: tuple[int, ...] = ()) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            bufsize=0,
            start_new_session=True,
            preexec_fn=die_with_parent,
            pass_fds=pass_fds,
        )

    if not keeps_descendants():
        try:
            return popen(argv), False
        except OSError as exc:
            raise BotFailure("crash", f"cannot start {command!r}: {exc}") from None
    status_r, status_w = os.pipe()
    try:
        proc = popen(
            [sys.executable, "-I", "-S", str(KEEPER), str(status_w), str(os.getpid()), *argv],
            pass_fds=(status_w,),
        )
    except OSError as exc:
        os.close(status_r)
        raise BotFailure("crash", f"cannot start {command!r}: {exc}") from None
    finally:
        os.close(status_w)
    try:
        why = read_keeper_status(status_r, KEEPER_WAIT_S)
    finally:
        os.close(status_r)
    if why:
        _stop_keeper(proc)
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            _pipe(stream).close()
        raise BotFailure("crash", f"cannot start {command!r}: {why}")
    return proc, True


def read_keeper_status(fd: int, wait_s: float) -> str:
    """The keeper's report on ``fd`` within ``wait_s`` seconds: ``""`` (end of file: the program
    runs) or why it could not be started (:mod:`cardtable.platform.keeper`)."""
    data, end = b"", time.monotonic() + wait_s
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return f"the keeper process did not report within {wait_s:.0f} s"
        if not select.select([fd], [], [], left)[0]:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            return data.decode("utf-8", "replace")
        data += chunk


def _stop_keeper(proc: subprocess.Popen, wait_s: float = KEEPER_WAIT_S) -> None:
    """SIGTERM to a running keeper, and wait up to ``wait_s`` seconds until it has killed the
    program's tree and exited; it is left unreaped, so its pid (the group's) cannot be reused
    before :meth:`BotProcess.kill` signals the group."""
    if proc.poll() is not None:
        return
    try:
        os.kill(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return
        except ChildProcessError:
            return
        time.sleep(0.005)


def check_option(key: str, value: Any) -> str:
    """The ``setoption`` text of an option value; refuses what could break the line protocol.

    Raises:
        ValueError: a key that is empty or holds a space or control character, or a value
            holding a line break or another control or format character (it would inject
            a command: ``{"margin": "2\nquit"}``).
    """
    text = str(value)
    if not isinstance(key, str) or not key or any(ch.isspace() or not ch.isprintable() for ch in key):
        raise ValueError(f"option name {key!r} must be one word of printable characters")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in text) or len(text) > 1000:
        raise ValueError(f"option {key}: the value {text[:60]!r} must be one line of printable text")
    return text


#: The option types of the handshake (docs/protocol.md, Handshake).
OPTION_TYPES = ("int", "float", "string", "bool")


def option_value_problem(type_: str, text: str) -> str | None:
    """Why ``text`` is not a value of the option type ``type_``, or ``None`` when it is.

    ``int``: a whole number (``-3``, ``12``); ``float``: a finite number; ``bool``: ``true`` or
    ``false`` (any case); ``string``: any line.

    >>> option_value_problem("int", "4"), option_value_problem("bool", "TRUE")
    (None, None)
    >>> option_value_problem("int", "2.5")
    'not a whole number'
    """
    if type_ == "int" and not re.fullmatch(r"[+-]?[0-9]{1,18}", text.strip()):
        return "over 18 digits" if re.fullmatch(r"[+-]?[0-9]+", text.strip()) else "not a whole number"
    if type_ == "float":
        try:
            ok = math.isfinite(float(text))
        except ValueError:
            ok = False
        if not ok or len(text) > 100:
            return "not a finite number"
    if type_ == "bool" and text.strip().lower() not in ("true", "false"):
        return "not true or false"
    return None


def _parse_option(words: list[str]) -> BotOption:
    # option name N type T default D  (D may hold spaces; N must not)
    try:
        if words[0] != "name" or words[2] != "type" or words[4] != "default":
            raise IndexError
        option = BotOption(name=words[1], type=words[3], default=" ".join(words[5:]))
    except IndexError:
        raise BotFailure("handshake", f"malformed option line: option {' '.join(words)!r}") from None
    if option.type not in OPTION_TYPES:
        raise BotFailure(
            "handshake", f"option {option.name}: type {option.type!r} is not one of {', '.join(OPTION_TYPES)}"
        )
    problem = option_value_problem(option.type, option.default)
    if problem:
        raise BotFailure(
            "handshake", f"option {option.name}: the default {option.default[:60]!r} is {problem}"
        )
    return option


class ProtocolBot(Bot):
    """A :class:`Bot` played by an external program through the protocol.

    Game packages subclass it and implement :meth:`act` (and game messages);
    this class owns the process: it is started (and the handshake done) lazily
    by :meth:`ensure_started`, restarted after a failure, and closed by :meth:`close`.

    Args:
        command: the program's command line.
        time_ms: the per-decision time limit sent with each request.
        options: ``setoption`` values sent after the handshake (names the bot declared).
        seed: seeds the generator of the ``game`` line's seeds for games whose caller gives
            none with :meth:`set_game` (``None``: from the operating system).

    Raises:
        ValueError: a bad command (checked at once, before any game).
    """

    name = "protocol"
    description = "an external program speaking the cardtable bot protocol"
    game = ""
    #: not a built-in bot: its options are the program's, declared in the handshake
    option_schema = None

    def __init__(
        self,
        command: str | Sequence[str],
        time_ms: int = 1000,
        options: dict[str, Any] | None = None,
        seed: int | str | None = None,
        **_: Any,
    ) -> None:
        super().__init__(seed)
        if not isinstance(time_ms, int) or isinstance(time_ms, bool) or time_ms < 1:
            raise ValueError(f"time_ms must be a positive whole number of milliseconds, not {time_ms!r}")
        if time_ms > MAX_TIME_MS:
            raise ValueError(f"time_ms must be at most {MAX_TIME_MS:,} (10 minutes), not {time_ms:,}")
        self.process = BotProcess(command)
        self.time_ms = time_ms
        self.options = {key: check_option(key, value) for key, value in (options or {}).items()}
        self.identity: BotIdentity | None = None
        self.handshake_ms = HANDSHAKE_MS
        self.games_started = 0
        self._next_game: tuple[str, int] | None = None

    def set_game(self, game_id: str, seed: int) -> None:
        """The id and seed that the next game's ``game`` line carries (docs/protocol.md, "A game").

        A tournament calls it before each game, so that a program reseeding from the line
        plays the same whichever worker and which earlier games it had.

        Args:
            game_id: one word of 1-64 characters from ``A-Z a-z 0-9 . _ : -``.
            seed: a whole number, ``0 <= seed < 2**32``.

        Raises:
            ValueError: a malformed id or seed (nothing is changed).
        """
        if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id):
            raise ValueError(f"game id {game_id!r} must be 1-64 characters from A-Z a-z 0-9 . _ : -")
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < GAME_SEED_LIMIT:
            raise ValueError(f"game seed {seed!r} must be a whole number from 0 to {GAME_SEED_LIMIT - 1}")
        self._next_game = (game_id, seed)

    def game_line(self) -> str:
        """The ``game id ID seed N`` line of the game starting now (sent right after ``newgame``).

        The values given to :meth:`set_game` (used once), else the number of games this bot
        has started (``1``, ``2``, ...) and a seed drawn from its own generator (``seed=``)."""
        self.games_started += 1
        if self._next_game is not None:
            (game_id, seed), self._next_game = self._next_game, None
        else:
            game_id, seed = str(self.games_started), self.rng.getrandbits(32)
        return f"game id {game_id} seed {seed}"

    def ensure_started(self) -> BotIdentity:
        """Start the program and do the handshake if it is not running.

        Raises:
            BotFailure: the program failed to start or to shake hands.
        """
        if self.process.alive and self.identity is not None:
            return self.identity
        self.process.close(wait_s=0.2)
        self.process.start()
        try:
            self.identity = self.process.handshake(self.game, self.handshake_ms)
            for key, value in self.options.items():
                declared = self.identity.options.get(key)
                if declared is None:
                    raise BotFailure("handshake", f"the bot has no option {key!r}")
                problem = option_value_problem(declared.type, value)
                if problem:
                    raise BotFailure(
                        "handshake",
                        f"option {key}: the value {value[:60]!r} is {problem} (the bot declares {declared.type})",
                    )
                self.process.send(f"setoption name {key} value {value}")
            self.process.sync(self.handshake_ms)
        except BotFailure:
            self.process.kill()
            self.identity = None
            raise
        return self.identity

    def fail(self, failure: BotFailure) -> BotFailure:
        """Kill the program after a violation (it restarts for the next game) and return ``failure``."""
        self.process.kill()
        self.identity = None
        return failure

    #: Every reply word of the game's requests (a game package sets it): met outside
    #: their request, they are ``"unsolicited"`` violations.
    replies: tuple[str, ...] = ()

    def request(self, line: str, expected: Sequence[str]) -> tuple[str, list[str]]:
        """Synchronise (``isready``: any reply still on its way is ``"unsolicited"``), send a
        request and read its reply within ``time_ms + GRACE_MS``; a failure kills the program."""
        try:
            self.process.sync(self.time_ms + GRACE_MS, self.replies)
            self.process.send(line)
            return self.process.read_reply(
                expected,
                self.time_ms + GRACE_MS,
                unsolicited=tuple(r for r in self.replies if r not in expected),
            )
        except BotFailure as exc:
            if exc.kind == "timeout":
                exc = BotFailure(
                    "timeout", f"no {'/'.join(expected)} within {self.time_ms} ms (+{GRACE_MS} ms grace)"
                )
            raise self.fail(exc) from None

    def close(self) -> None:
        """Send ``quit`` and stop the program."""
        self.process.close()
        self.identity = None

    def __del__(self) -> None:  # never leave a child process behind
        try:
            self.process.kill()
        except (OSError, AttributeError):  # already reaped, or __init__ failed before the process existed
            pass
