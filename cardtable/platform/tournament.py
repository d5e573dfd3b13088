"""Round-robin tournaments between bots, for any game with a tournament adapter.

Generic: this module knows no game's rules. A game package provides
``cardtable.<game>.tournament`` with ``parse_ruleset(text)``, ``players(ruleset)``,
``make_bot(kind, target, options, seed)``, ``play_one(ruleset, bots, seed)`` (never
raises for a bot's fault; returns an object with ``points``, ``outcomes``,
``point_difference``, ``forfeit`` and ``prize_deck``), ``close_bot(bot)`` and
optionally ``start_bot(bot, handshake_ms)`` (start a program bot and finish its
handshake, raising ``ValueError``; :func:`validate` tries every program with it).

Format (docs/research.md, "Tournaments"):

- every pair of bots plays ``games`` games (an even number): ``games / 2``
  *deals*, each played twice with the seats swapped and the same deal seed, so
  both seatings see the same prize order (duplicate format). Deal ``d`` has the
  same seed in every pairing.
- games run in parallel: ``backend="process"`` (a ``ProcessPoolExecutor`` with
  ``workers`` processes), ``"serial"`` (in this process) or ``"ray"``
  (``ray.init(address=ray_address)``; a local instance by default).
- every finished game is stored at once in SQLite (stdlib ``sqlite3``); running the
  same configuration on the same database resumes and never replays a stored game,
  whatever the backend: the database is keyed by the configuration, not the backend,
  because the games do not depend on it (each run's backend is recorded: :func:`runs`).
- every bot is seeded per game by :func:`bot_seed` (tournament seed, pairing, deal,
  seating, seat): a built-in bot through its constructor, a protocol program (which lives
  across games) through its ``game`` line (``set_game(game_id, seed)``, docs/protocol.md).

Statistics (:func:`standings`):

- mean point difference per bot and per pairing with a 95% confidence interval:
  Student's t interval over *deals* (the mean of the two seatings of a deal is one
  observation, so the duplicate pairing's correlation is respected);
- win/draw/loss counts;
- OpenSkill ratings (Plackett-Luce model; Weng and Lin 2011; the ``openskill``
  package), the games fed in schedule order so a resumed tournament rates the same.
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import json
import math
import multiprocessing
import multiprocessing.util
import os
import signal
import sqlite3
import threading
import zlib
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from cardtable.errors import CardtableError, quoted

from .bot import BotSpec, BotSpecError, bot_class, bot_option_names  # noqa: F401  (bot_option_names: public here too)
from .bot import check_bot_options as check_options
from .bot import parse_bot_spec as _parse_spec
from .files import NotRegularFileError, check_regular_or_missing, write_regular_bytes
from .protocol import MAX_TIME_MS, die_with_parent


class TournamentError(CardtableError, ValueError):
    """A malformed tournament configuration, or a database holding another tournament."""


# -- configuration -------------------------------------------------------------------------

#: One participant: a bot specification (:class:`cardtable.platform.bot.BotSpec`;
#: label, kind ``"builtin"``/``"program"``, target, options).
BotEntry = BotSpec


def parse_bot_spec(text: str) -> BotEntry:
    """Parse a bot specification with the one parser, :func:`cardtable.platform.bot.parse_bot_spec`
    (``[LABEL=]NAME[:key=value,...]`` or ``[LABEL=]cmd:COMMAND``).

    >>> parse_bot_spec("mine=cmd:python bot.py").kind
    'program'

    Raises:
        TournamentError: an empty spec or a malformed option.
    """
    try:
        return _parse_spec(text)
    except BotSpecError as exc:
        raise TournamentError(str(exc)) from None


@dataclass(frozen=True)
class TournamentConfig:
    """A tournament: who plays, what, how often.

    Attributes:
        bots: the participants (at least 2, unique labels).
        ruleset: the game's ruleset text (a preset name or ``describe()`` text).
        games: games per pairing, even (``games / 2`` deals, both seatings).
        seed: base of every deal seed and bot seed.
        game: the game package (``"goofspiel"``).
        time_ms: default time limit per decision for program bots.
    """

    bots: tuple[BotEntry, ...]
    ruleset: str = "standard"
    games: int = 10
    seed: int = 0
    game: str = "goofspiel"
    time_ms: int = 1000

    def key(self) -> str:
        """The identity of the tournament in its database (JSON)."""
        data = asdict(self)
        data["bots"] = [asdict(b) for b in self.bots]
        return json.dumps(data, sort_keys=True)

    def adapter(self):
        try:
            return importlib.import_module(f"cardtable.{self.game}.tournament")
        except ModuleNotFoundError:
            raise TournamentError(f"game {self.game!r} has no tournament support") from None


#: Milliseconds a program bot has to finish its handshake when :func:`validate` tries it
#: (the same limit as at the start of a game, so a bot accepted here can play).
CHECK_HANDSHAKE_MS = 5000


def check_bot_options(game: str, entry: BotEntry) -> None:
    """Check a built-in bot's name and that every option is a keyword its class accepts.

    Raises:
        TournamentError: an unknown bot (listing the bots) or an unknown option
            (``mcts: unknown option 'foo'; options: iterations, time_limit, ...``).
    """
    prefix = "" if entry.label.lower().startswith(entry.target) else f"bot {entry.label!r}: "
    try:
        cls = bot_class(game, entry.target)
    except ValueError as exc:
        raise TournamentError(f"bot {entry.label!r}: {exc}") from None
    try:
        check_options(cls, entry.options, seed_hint="the tournament's --seed")
    except BotSpecError as exc:
        raise TournamentError(f"{prefix}{exc}") from None


def validate(config: TournamentConfig, *, handshake_ms: int = CHECK_HANDSHAKE_MS) -> None:
    """Check everything that can be checked before a game starts.

    Every program bot is started once and must complete the handshake (identity,
    ``ready``, declared options, ``readyok``) within ``handshake_ms`` milliseconds;
    it is then stopped again.

    Raises:
        TournamentError: fewer than 2 bots, duplicate labels, an odd or non-positive
            ``games``, more than ``MAX_GAMES`` games per pairing or in all, a ruleset that is not 2-player or is invalid, an unknown bot or
            option, a program that is not found or fails the handshake (crash, missing
            script, garbage, silence), a built-in bot whose ``new_game`` refuses the
            ruleset (e.g. ``nash`` with a damaged table: ``TableFileError``), a bad ``time_ms``,
            a ruleset that is not text.
    """
    adapter = config.adapter()
    _check_entries(config)
    _check_numbers(config)
    if not isinstance(config.ruleset, str):  # a config file's table, list or number
        raise TournamentError(
            f"ruleset must be a string, not {type(config.ruleset).__name__} {repr(config.ruleset)[:60]} "
            "(a preset name, notation or a rules file)"
        )
    try:
        ruleset = adapter.parse_ruleset(config.ruleset)
    except ValueError as exc:
        raise TournamentError(f"ruleset: {exc}") from None
    if adapter.players(ruleset) != 2:
        raise TournamentError(
            f"round-robin pairings need a 2-player ruleset, not {adapter.players(ruleset)} players"
        )
    for b in config.bots:
        _check_bot(adapter, config, b, ruleset, handshake_ms)


def _check_entries(config: TournamentConfig) -> None:
    """At least 2 bots, each label once."""
    if len(config.bots) < 2:
        raise TournamentError(f"a tournament needs at least 2 bots, got {len(config.bots)}")
    labels = [b.label for b in config.bots]
    dup = sorted({lab for lab in labels if labels.count(lab) > 1})
    if dup:
        raise TournamentError(f"bot labels must be unique; repeated: {', '.join(dup)} (name them LABEL=SPEC)")


#: The most games a tournament takes, per pairing and in all (its schedule is held as a list;
#: a run that long is days of play even for the fastest bots).
MAX_GAMES = 1_000_000


def _whole(value: object) -> bool:
    """Whether ``value`` is a whole number (an ``int``, not a ``bool``)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _check_numbers(config: TournamentConfig) -> None:
    """``games`` even, at least 2 and at most ``MAX_GAMES`` per pairing and in all pairings
    together, ``time_ms`` positive, ``seed`` a whole number of at most 18 digits."""
    if not _whole(config.games) or config.games < 2 or config.games % 2:
        raise TournamentError(
            f"games per pairing must be an even number >= 2 (both seatings of each deal), not {quoted(config.games)}"
        )
    if config.games > MAX_GAMES:  # the schedule is a list: 10**20 games would fill the memory
        raise TournamentError(f"games per pairing must be at most {MAX_GAMES:,}, not {config.games:,}")
    pairings = len(config.bots) * (len(config.bots) - 1) // 2
    if pairings * config.games > MAX_GAMES:  # and so would 20 bots x 10**6 games per pairing
        raise TournamentError(
            f"a tournament plays at most {MAX_GAMES:,} games in all, not {pairings:,} pairings x "
            f"{config.games:,} games ({pairings * config.games:,})"
        )
    if not _whole(config.time_ms) or config.time_ms < 1:
        raise TournamentError(f"time_ms must be a positive whole number, not {quoted(config.time_ms)}")
    if config.time_ms > MAX_TIME_MS:  # a silent bot would otherwise hold the tournament for ever
        raise TournamentError(f"time_ms must be at most {MAX_TIME_MS:,} (10 minutes), not {config.time_ms:,}")
    if not _whole(config.seed):  # a config file's 1.5, "x" or true
        raise TournamentError(f"seed must be a whole number, not {quoted(config.seed)}")
    if abs(config.seed) >= 10**18:  # a config file's 0xfff...: too long to write as a deal seed
        digits = int(config.seed.bit_length() * 0.30103) + 1  # str() refuses over 4,300 digits
        raise TournamentError(f"seed must have at most 18 digits, not about {digits:,}")


def _check_bot(adapter, config: TournamentConfig, b: BotEntry, ruleset, handshake_ms: int) -> None:
    """Make bot ``b`` once: a program must complete the handshake, a built-in bot accept the ruleset."""
    if b.kind not in ("builtin", "program"):
        raise TournamentError(f"bot {b.label!r}: kind must be builtin or program, not {quoted(b.kind)}")
    if b.kind == "builtin":
        check_bot_options(config.game, b)
    try:
        bot = _make(adapter, config, b, 0)
    except (ValueError, TypeError) as exc:
        raise TournamentError(f"bot {b.label!r}: {exc}") from None
    try:
        if b.kind == "program" and hasattr(adapter, "start_bot"):
            adapter.start_bot(bot, handshake_ms)
        elif b.kind == "builtin" and hasattr(bot, "new_game"):
            # a bot that cannot play this ruleset, or whose table is damaged, says so
            # now: not as a forfeit of every game it plays, stored in the results
            bot.new_game(ruleset, 0)
    except ValueError as exc:  # the cause tells a damaged table (exit code 1) from a refusal
        raise TournamentError(f"bot {b.label!r}: {exc}") from exc
    finally:
        adapter.close_bot(bot)


def _make(adapter, config: TournamentConfig, entry: BotEntry, seed: int):
    options = dict(entry.options)
    if entry.kind == "program":
        options.setdefault("time_ms", config.time_ms)
    return adapter.make_bot(entry.kind, entry.target, options, seed)


# -- schedule ------------------------------------------------------------------------------

GameKey = tuple[int, int, int, int]  # (bot index a, bot index b, deal, swapped)


def schedule(config: TournamentConfig) -> list[GameKey]:
    """Every game, in order: pairings ``a < b``, deals, then the two seatings."""
    return [
        (a, b, d, s)
        for a, b in combinations(range(len(config.bots)), 2)
        for d in range(config.games // 2)
        for s in (0, 1)
    ]


def deal_seed(config: TournamentConfig, deal: int) -> str:
    """The seed of deal ``deal``: the same prize order in every pairing and seating."""
    return f"{config.seed}:{deal}"


def bot_seed(config: TournamentConfig, key: GameKey, seat: int) -> int:
    """The seed of the bot in ``seat`` of game ``key``, ``0 <= seed < 2**32``: a built-in bot's
    generator seed, and the seed a protocol program gets in its ``game`` line. It depends only
    on the tournament seed, the game (pairing, deal, seating) and the seat, so every backend
    plays every game alike."""
    return zlib.crc32(f"{config.seed}/{key}/{seat}".encode())


def game_id(key: GameKey) -> str:
    """The id a protocol program gets in its ``game`` line: ``A-B-D-S`` (the pairing's bot
    indices ``A < B`` in the configuration's order, the deal ``D`` from 0, and the seating
    ``S``: 0 when bot ``A`` sits in seat 0, 1 when swapped); unique within a tournament."""
    return "-".join(str(int(k)) for k in key)


# -- workers -------------------------------------------------------------------------------

_PROGRAMS: dict[str, Any] = {}  # per worker process: program bots stay running between games


def _close_programs() -> None:
    for bot in list(_PROGRAMS.values()):
        try:
            bot.close()
        except Exception:  # at worker exit, one program failing to close must not keep the others alive
            pass
    _PROGRAMS.clear()


def play_chunk(config_json: str, keys: Sequence[GameKey]) -> list[tuple[GameKey, dict]]:
    """Play some games of one configuration (runs in a worker); returns ``(key, outcome)`` pairs."""
    config = config_from_json(config_json)
    adapter = config.adapter()
    ruleset = adapter.parse_ruleset(config.ruleset)
    out: list[tuple[GameKey, dict]] = []
    for key in keys:
        a, b, d, s = key
        seats = (a, b) if s == 0 else (b, a)
        bots = []
        for seat, idx in enumerate(seats):
            entry = config.bots[idx]
            if entry.kind == "program":
                pkey = f"{config.time_ms}|{entry.label}|{entry.target}|{sorted(entry.options.items())}"
                if pkey not in _PROGRAMS:
                    _PROGRAMS[pkey] = _make(adapter, config, entry, 0)
                program = _PROGRAMS[pkey]
                # the program lives across games and workers: its game line says which game
                # this is and how to seed it, so it plays alike on every backend
                if hasattr(program, "set_game"):
                    program.set_game(game_id(key), bot_seed(config, key, seat))
                bots.append(program)
            else:
                bots.append(_make(adapter, config, entry, bot_seed(config, key, seat)))
        o = adapter.play_one(ruleset, bots, deal_seed(config, d))
        out.append(
            (
                (a, b, d, s),
                {
                    "points": list(o.points),
                    "outcomes": list(o.outcomes),
                    "point_difference": list(o.point_difference),
                    "forfeit": list(o.forfeit) if o.forfeit else None,
                    "prize_deck": list(o.prize_deck),
                },
            )
        )
    return out


def _worker_init(parent: int | None = None) -> None:
    """Start of a worker process: tied to its parent's life (killed with it, SIGKILL
    included), deaf to Ctrl-C (the parent handles it and stops the workers), and
    closing its program bots when it exits normally."""
    die_with_parent()
    if parent is not None and os.getppid() != parent:  # the parent died before we asked
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _kill_programs_and_exit)
    multiprocessing.util.Finalize(None, _close_programs, exitpriority=10)


def _kill_programs_and_exit(signum, frame) -> None:
    for bot in list(_PROGRAMS.values()):
        try:
            bot.process.kill()
        except OSError:  # already gone
            pass
    os._exit(128 + signum)


def config_from_json(text: str) -> TournamentConfig:
    data = json.loads(text)
    data["bots"] = tuple(BotEntry(**b) for b in data["bots"])
    return TournamentConfig(**data)


# -- storage -------------------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    a INTEGER NOT NULL, b INTEGER NOT NULL, deal INTEGER NOT NULL, swapped INTEGER NOT NULL,
    seat0 TEXT NOT NULL, seat1 TEXT NOT NULL,
    points0 INTEGER NOT NULL, points1 INTEGER NOT NULL,
    diff0 INTEGER NOT NULL, diff1 INTEGER NOT NULL,
    outcome0 TEXT NOT NULL, outcome1 TEXT NOT NULL,
    forfeit_seat INTEGER, forfeit_kind TEXT, forfeit_detail TEXT,
    prize_deck TEXT NOT NULL,
    PRIMARY KEY (a, b, deal, swapped)
);
CREATE TABLE IF NOT EXISTS runs (
    number INTEGER PRIMARY KEY, backend TEXT NOT NULL, workers INTEGER NOT NULL, played INTEGER NOT NULL
);
"""


@dataclass(frozen=True)
class RunRecord:
    """One call of :func:`run` that stored games (calls that played none are not recorded):
    where its games ran and how many it played."""

    backend: str
    workers: int
    played: int

    def describe(self) -> str:
        """``"process -j 2"``, ``"serial"`` or ``"ray"``."""
        return f"process -j {self.workers}" if self.backend == "process" else self.backend


def runs(config: TournamentConfig, db: str | Path) -> list[RunRecord]:
    """Every recorded :func:`run` on ``db``, oldest first (games stored by a version that did
    not record runs have none). The results database is keyed by the configuration, not the
    backend: a game stored by one backend is reused, not replayed, by another (the results do
    not depend on the backend; docs/research.md, "Tournaments").

    Raises:
        TournamentError: the file holds a different tournament, or is not a database.
    """
    con = open_db(db, config)
    try:
        return [
            RunRecord(*row)
            for row in con.execute("SELECT backend, workers, played FROM runs ORDER BY number")
        ]
    finally:
        con.close()


def open_db(path: str | Path, config: TournamentConfig) -> sqlite3.Connection:
    """Open (or create) the tournament database for ``config``.

    Raises:
        TournamentError: the file holds a different tournament, or is not a database.
    """
    path = Path(path)
    try:
        check_regular_or_missing(path)
    except NotRegularFileError as exc:
        raise TournamentError(f"{exc}: not a tournament database") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        con = sqlite3.connect(path)
        con.executescript(_SCHEMA)
        row = con.execute("SELECT value FROM meta WHERE key='config'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise TournamentError(f"{path}: not a tournament database ({exc})") from None
    if row is None:
        with con:
            con.execute("INSERT INTO meta VALUES ('config', ?)", (config.key(),))
    elif row[0] != config.key():
        con.close()
        raise TournamentError(
            f"{path} holds a different tournament (other bots, ruleset, games or seed); "
            "use another --db file to start a new one"
        )
    return con


def finished_keys(con: sqlite3.Connection) -> set[GameKey]:
    return {tuple(r) for r in con.execute("SELECT a, b, deal, swapped FROM games")}


def _store(con: sqlite3.Connection, config: TournamentConfig, results: Iterable[tuple[GameKey, dict]]) -> int:
    rows = []
    for (a, b, d, s), o in results:
        seats = (a, b) if s == 0 else (b, a)
        f = o["forfeit"]
        rows.append(
            (
                a,
                b,
                d,
                s,
                config.bots[seats[0]].label,
                config.bots[seats[1]].label,
                o["points"][0],
                o["points"][1],
                o["point_difference"][0],
                o["point_difference"][1],
                o["outcomes"][0],
                o["outcomes"][1],
                f[0] if f else None,
                f[1] if f else None,
                f[2] if f else None,
                " ".join(map(str, o["prize_deck"])),
            )
        )
    with con:
        con.executemany("INSERT OR IGNORE INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    return len(rows)


# -- running -------------------------------------------------------------------------------


def _chunks(keys: list[GameKey], workers: int) -> list[list[GameKey]]:
    size = max(2, min(16, math.ceil(len(keys) / max(1, workers * 4))))
    out: list[list[GameKey]] = []
    for key in keys:  # a chunk never mixes pairings (bots are made once per chunk)
        if out and len(out[-1]) < size and out[-1][0][:2] == key[:2]:
            out[-1].append(key)
        else:
            out.append([key])
    return out


def run(
    config: TournamentConfig,
    db: str | Path,
    *,
    workers: int = 2,
    backend: str = "process",
    ray_address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    check: bool = True,
) -> int:
    """Play every game of ``config`` not yet stored in ``db``; returns how many were played now.

    ``check=False`` skips :func:`validate` (for a caller that has just run it, so
    program bots are not started twice).

    ``progress(done, total)`` is called after each stored batch; an exception it
    raises (``KeyboardInterrupt`` included) stops the tournament, keeping what is stored.

    Raises:
        TournamentError: a malformed configuration (before any game) or a foreign database.
    """
    check_backend(backend)
    if not isinstance(workers, int) or workers < 1:
        raise TournamentError(f"workers must be a whole number >= 1, not {quoted(workers)}")
    if check:
        validate(config)
    con = open_db(db, config)
    try:
        done = finished_keys(con)
        all_keys = schedule(config)
        todo = [k for k in all_keys if k not in done]
        total = len(all_keys)
        count = len(all_keys) - len(todo)
        if progress:
            progress(count, total)
        if not todo:
            return 0
        text = json.dumps(json.loads(config.key()))
        chunks = _chunks(todo, workers)
        played = 0

        def store(results):
            nonlocal count, played
            n = _store(con, config, results)
            count += n
            played += n
            if progress:
                progress(count, total)

        try:
            if backend == "serial":
                try:
                    for chunk in chunks:
                        store(play_chunk(text, chunk))
                finally:
                    _close_programs()
            elif backend == "process":
                _run_processes(text, chunks, workers, store)
            else:
                _run_ray(text, chunks, ray_address, store)
        finally:
            if played:
                with con:
                    con.execute(
                        "INSERT INTO runs (backend, workers, played) VALUES (?, ?, ?)",
                        (backend, workers, played),
                    )
        return played
    finally:
        con.close()


def _run_processes(text: str, chunks, workers: int, store) -> None:
    """Play the chunks in ``workers`` spawned processes, storing each result as it comes.

    Nothing outlives the run: on any exception (Ctrl-C's ``KeyboardInterrupt`` included)
    the workers are terminated at once, their program bots die with them (parent-death
    signal), and a second Ctrl-C during that clean-up is ignored; workers die with this
    process even when it is killed with SIGKILL."""
    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=_worker_init, initargs=(os.getpid(),)
    )
    try:
        pending = {pool.submit(play_chunk, text, c) for c in chunks}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                store(fut.result())
    except BaseException:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if _main_thread() else None
        try:
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                proc.terminate()  # SIGTERM: the worker kills its bots (each with all it started) and exits
            pool.shutdown(wait=True, cancel_futures=True)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        raise
    pool.shutdown(wait=True)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def check_backend(backend: str) -> None:
    """Raise :class:`TournamentError` for an unknown backend, or ``"ray"`` without Ray
    installed (it comes with the ``research`` extra)."""
    if backend not in ("process", "serial", "ray"):
        raise TournamentError(f"backend must be process, serial or ray, not {quoted(backend)}")
    if backend == "ray" and importlib.util.find_spec("ray") is None:
        raise TournamentError(
            "--backend ray needs the 'research' extra (missing: ray); "
            "install it with: pip install 'cardtable[research]'"
        )


def _run_ray(text: str, chunks, address: str | None, store) -> None:
    # lazy: Ray is an optional extra (research), loaded only for --backend ray
    import ray

    if not ray.is_initialized():
        if address:
            ray.init(address=address)
        else:
            ray.init(include_dashboard=False)
    remote = ray.remote(play_chunk)
    pending = [remote.remote(text, c) for c in chunks]
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                store([(tuple(k), o) for k, o in ray.get(ref)])
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise


# -- statistics ----------------------------------------------------------------------------


@dataclass
class Line:
    """A bot's (or a pairing's) statistics."""

    label: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    mean_diff: float = float("nan")
    ci95: float = float("nan")
    rating_mu: float = float("nan")
    rating_sigma: float = float("nan")

    @property
    def rating(self) -> float:
        """Conservative rating ``mu - 3 sigma`` (OpenSkill's ordinal)."""
        return self.rating_mu - 3 * self.rating_sigma


def mean_ci95(values: Sequence[float]) -> tuple[float, float]:
    """Mean and half-width of Student's t 95% interval (``nan`` width for fewer than 2 values)."""
    # lazy: SciPy takes ~0.3 s to load; only the standings need Student's t
    from scipy import stats

    n = len(values)
    if n == 0:
        return float("nan"), float("nan")
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan")
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, float(stats.t.ppf(0.975, n - 1) * math.sqrt(var / n))


@dataclass
class Standings:
    """Per-bot lines (best rating first) and per-pairing lines (``"A vs B"``: A's point difference)."""

    bots: list[Line]
    pairings: list[Line]
    games: int
    total: int
    forfeits: list[tuple[str, str, str]]


def standings(config: TournamentConfig, db: str | Path) -> Standings:
    """Statistics of the games stored so far (see the module docstring)."""
    # lazy: OpenSkill is only needed for the standings' ratings
    from openskill.models import PlackettLuce

    con = open_db(db, config)
    try:
        rows = con.execute(
            "SELECT a, b, deal, swapped, points0, points1, diff0, diff1, outcome0, outcome1, forfeit_seat, forfeit_kind, forfeit_detail "
            "FROM games ORDER BY a, b, deal, swapped"
        ).fetchall()
    finally:
        con.close()
    labels = [b.label for b in config.bots]
    lines = {label: Line(label) for label in labels}
    per_deal: dict[tuple[str, int, int, int], list[float]] = {}
    pair_deal: dict[tuple[int, int, int], list[float]] = {}
    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    forfeits = []
    for a, b, d, s, _p0, _p1, d0, d1, o0, o1, fseat, fkind, fdetail in rows:
        seats = (a, b) if s == 0 else (b, a)
        for seat, (idx, diff, outcome) in enumerate(zip(seats, (d0, d1), (o0, o1), strict=True)):
            line = lines[labels[idx]]
            _count(line, outcome)
            if fseat == seat:
                line.forfeits += 1
            per_deal.setdefault((labels[idx], a, b, d), []).append(diff)
        a_diff = d0 if s == 0 else d1
        pair_deal.setdefault((a, b, d), []).append(a_diff)
        if fseat is not None:
            forfeits.append((labels[seats[fseat]], fkind, fdetail))
        _rate(model, ratings, labels[seats[0]], labels[seats[1]], o0, o1)
    for label, line in lines.items():
        vals = [sum(v) / len(v) for (lab, *_), v in per_deal.items() if lab == label]
        line.mean_diff, line.ci95 = mean_ci95(vals)
        line.rating_mu, line.rating_sigma = ratings[label].mu, ratings[label].sigma
    pairs = [_pairing_line(labels, a, b, rows, pair_deal) for a, b in combinations(range(len(labels)), 2)]
    ordered = sorted(lines.values(), key=lambda line: -line.rating)
    return Standings(ordered, pairs, len(rows), len(schedule(config)), forfeits)


def _rate(model, ratings: dict, label0: str, label1: str, outcome0: str, outcome1: str) -> None:
    """Update the two seats' ratings in ``ratings`` after one game (a draw ranks both first)."""
    r0, r1 = ratings[label0], ratings[label1]
    rank: list[float] = [1 if outcome0 != "loss" else 2, 1 if outcome1 != "loss" else 2]
    [[r0], [r1]] = model.rate([[r0], [r1]], ranks=rank)
    ratings[label0], ratings[label1] = r0, r1


def _count(line: Line, outcome: str) -> None:
    """Count one game of ``line`` with its ``outcome`` (win, draw or loss)."""
    line.games += 1
    line.wins += outcome == "win"
    line.draws += outcome == "draw"
    line.losses += outcome == "loss"


def _pairing_line(
    labels: list[str], a: int, b: int, rows: list, pair_deal: dict[tuple[int, int, int], list[float]]
) -> Line:
    """The line of pairing ``a`` vs ``b``: bot ``a``'s outcomes and its mean point difference per deal."""
    pl = Line(f"{labels[a]} vs {labels[b]}")
    vals = []
    for (pa, pb, _d), v in sorted(pair_deal.items()):
        if (pa, pb) == (a, b):
            vals.append(sum(v) / len(v))
    for r in rows:
        if (r[0], r[1]) == (a, b):
            _count(pl, r[8] if r[3] == 0 else r[9])
    pl.mean_diff, pl.ci95 = mean_ci95(vals)
    return pl


def _fmt(x: float, digits: int = 2) -> str:
    return "-" if math.isnan(x) else f"{x:.{digits}f}"


#: Fewest deals (each played in both seatings) behind a mean before a 95% interval is
#: shown: with fewer, Student's t interval is too wide to say anything (with 2 deals of
#: a 91-point game it reached ± 451) and the tables say "too few" instead.
MIN_CI_DEALS = 10


def ci_text(line: Line) -> str:
    """The 95% interval of a standings line as shown in tables: ``± 1.23``, or
    ``too few`` (games) below :data:`MIN_CI_DEALS` deals (``games / 2``)."""
    if line.games // 2 < MIN_CI_DEALS or math.isnan(line.ci95):
        return "too few"
    return "± " + _fmt(line.ci95)


def markdown_table(st: Standings) -> str:
    """The standings as Markdown (bots, then pairings)."""
    out = [
        f"Games: {st.games} of {st.total}.",
        "",
        "| bot | games | win | draw | loss | forfeits | mean point diff | 95% CI | rating (mu - 3 sigma) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for line in st.bots:
        out.append(
            f"| {line.label} | {line.games} | {line.wins} | {line.draws} | {line.losses} | {line.forfeits} | "
            f"{_fmt(line.mean_diff)} | {ci_text(line)} | {_fmt(line.rating)} |"
        )
    out += [
        "",
        "| pairing | games | win | draw | loss | mean point diff (first bot) | 95% CI |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for line in st.pairings:
        out.append(
            f"| {line.label} | {line.games} | {line.wins} | {line.draws} | {line.losses} | {_fmt(line.mean_diff)} | {ci_text(line)} |"
        )
    if st.forfeits:
        out += ["", "Forfeits (lost by rule):", ""]
        out += [f"- {who}: {kind}: {detail}" for who, kind, detail in st.forfeits[:50]]
    return "\n".join(out) + "\n"


def write_report(st: Standings, directory: str | Path, title: str = "Tournament") -> list[Path]:
    """Write ``standings.md`` and ``standings.png`` (mean point difference with 95% CI
    per bot, Matplotlib) into ``directory``; returns the paths."""
    # lazy: Matplotlib takes ~0.5 s to load; only the report draws
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: after use("Agg"), so that no display is needed

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    md, png = d / "standings.md", d / "standings.png"
    for p in (md, png):  # a FIFO or folder there is refused before anything is written
        check_regular_or_missing(p)
    write_regular_bytes(md, (f"# {title}\n\n" + markdown_table(st)).encode("utf-8"))
    fig, ax = plt.subplots(figsize=(max(4, 1.2 * len(st.bots) + 2), 3.5))
    names = [line.label for line in st.bots]
    means = [0 if math.isnan(line.mean_diff) else line.mean_diff for line in st.bots]
    errs = [0 if ci_text(line).startswith("too few") else line.ci95 for line in st.bots]
    ax.bar(range(len(names)), means, yerr=errs, capsize=4, color="#4878a8")
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("mean point difference")
    ax.set_title(f"{title}: mean point difference, 95% CI")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_regular_bytes(png, buf.getvalue())
    return [md, png]
