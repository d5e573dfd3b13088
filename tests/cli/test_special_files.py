"""Issue 24, section 3: a FIFO, a character device or a UNIX socket where a file is expected
is refused at once, never waited on: records (`replay`, `analyze`, `verify`,
`strategy --record`), rules files (`play --rules`), tournament configurations and solver
tables (format 1, also as the discard table the 12-card approximation reads).

Every command runs in a child process with a timeout, so a regression fails instead of
hanging the suite."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cardtable.goofspiel import Ruleset
from cardtable.solver.table import default_path

KINDS = {"fifo": "a FIFO (named pipe)", "device": "a character device", "socket": "a socket"}


@pytest.fixture
def special(tmp_path):
    """``make(kind, name)``: a FIFO, a link to /dev/zero or a bound UNIX socket at
    ``tmp_path/name`` (or at an absolute path given as ``name``)."""
    opened = []

    def make(kind: str, name: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "device":
            path.symlink_to("/dev/zero")
        else:
            s = socket.socket(socket.AF_UNIX)
            s.bind(str(path))
            opened.append(s)
        return path

    yield make
    for s in opened:
        s.close()


def cardtable(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cardtable", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "400", **(env or {})},
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "command",
    [
        ["replay"],
        ["analyze"],
        ["verify"],
        ["strategy", "--record"],
    ],
)
def test_a_special_record_path_is_refused_at_once(special, kind, command):
    path = special(kind, "g.gops")
    res = cardtable(*command, str(path))
    assert res.returncode == 2, res.stderr
    assert f"{path} is {KINDS[kind]}, not a regular file: not a record file" in res.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_rules_file_is_refused_at_once(special, kind):
    path = special(kind, "rules.toml")
    res = cardtable("play", "--auto", "--no-save", "--rules", str(path))
    assert res.returncode == 2, res.stderr
    assert f"cannot be read: {KINDS[kind]}, not a regular file" in res.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_rules_path_without_a_suffix_is_named_too(special, kind):
    path = special(kind, "myrules")  # no .toml/.json: it exists, so it is taken as a rules file
    res = cardtable("play", "--auto", "--no-save", "--rules", str(path))
    assert res.returncode == 2, res.stderr
    assert f"{KINDS[kind]}, not a regular file" in res.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_tournament_config_is_refused_at_once(special, kind, tmp_path):
    path = special(kind, "t.toml")
    res = cardtable(
        "tournament", "random", "heuristic", "--config", str(path), "--db", str(tmp_path / "t.sqlite3")
    )
    assert res.returncode == 2, res.stderr
    assert f"cannot be read: {KINDS[kind]}, not a regular file" in res.stderr


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "command",
    [
        ["strategy", "--cards", "4"],
        ["exploit", "nash", "--cards", "4"],
    ],
)
def test_a_special_format1_table_is_refused_at_once(special, kind, command, tmp_path):
    cache = tmp_path / "cache"
    path = special(kind, str(default_path(Ruleset(cards=4), "points", cache)))
    res = (
        cardtable(*command, "--cache", str(cache))
        if command[0] == "strategy"
        else cardtable(*command, env={"CARDTABLE_CACHE": str(cache)})
    )
    assert res.returncode == 1, res.stderr  # a damaged table in the cache (README, Exit codes)
    assert f"table file {str(path)!r} cannot be opened: {KINDS[kind]}, not a regular file" in res.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_the_approximation_refuses_a_special_discard_table(special, kind, tmp_path):
    cache = tmp_path / "cache"
    # 13 cards, high ace: no compressed carry-over table ships for it, so the approximation reads
    # the discard table
    deck = "cards=13, high_ace=True"
    path = special(
        kind, str(default_path(Ruleset(cards=13, tie_rule="discard", high_ace=True), "points", cache))
    )
    code = (
        "from pathlib import Path\n"
        "from cardtable.goofspiel import Ruleset\n"
        "from cardtable.solver import TableFileError\n"
        "from cardtable.solver.equilibrium import EquilibriumSource\n"
        "try:\n"
        f"    EquilibriumSource(Ruleset({deck}), cache=Path({str(cache)!r}), low=False)\n"
        "except TableFileError as exc:\n"
        "    print(exc)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert f"table file {str(path)!r} cannot be opened: {KINDS[kind]}, not a regular file" in res.stdout


# -- outputs: what is written must not be a FIFO, device, socket or folder (second pass) ----------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["standings.md", "standings.png"])
def test_a_special_file_in_the_report_folder_is_refused_before_any_game(special, kind, name, tmp_path):
    special(kind, f"report/{name}")
    db = tmp_path / "t.sqlite"
    res = cardtable(
        "tournament",
        "random",
        "matcher",
        "-r",
        "cards=3",
        "--games",
        "2",
        "--backend",
        "serial",
        "--db",
        str(db),
        "--report",
        str(tmp_path / "report"),
    )
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"{name} is {KINDS[kind]}, not a regular file" in res.stderr
    assert not db.exists()


def test_the_report_replaces_regular_files_and_leaves_no_temporary_file(tmp_path):
    report = tmp_path / "report"
    report.mkdir()
    (report / "standings.md").write_text("old")
    res = cardtable(
        "tournament",
        "random",
        "matcher",
        "-r",
        "cards=3",
        "--games",
        "2",
        "--backend",
        "serial",
        "--db",
        str(tmp_path / "t.sqlite"),
        "--report",
        str(report),
    )
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in report.iterdir()) == ["standings.md", "standings.png"]
    assert (report / "standings.md").read_text().startswith("# Tournament")


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_tournament_database_is_named(special, kind):
    path = special(kind, "t.sqlite")
    res = cardtable(
        "tournament",
        "random",
        "matcher",
        "-r",
        "cards=3",
        "--games",
        "2",
        "--backend",
        "serial",
        "--db",
        str(path),
    )
    assert res.returncode == 2, res.stderr
    assert f"is {KINDS[kind]}, not a regular file" in res.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_serve_refuses_a_special_database_and_never_changes_its_mode(special, kind):
    path = special(kind, "web.sqlite3")
    before = os.stat(path).st_mode
    res = cardtable("serve", "--port", "0", "--db", str(path))
    assert res.returncode == 2, res.stderr
    assert f"is {KINDS[kind]}, not a regular file" in res.stderr
    assert os.stat(path).st_mode == before  # _private once made a FIFO (or /dev/null) 0600


def test_the_web_storage_never_chmods_a_fifo(tmp_path):
    from cardtable.web.storage import StorageError, Store

    fifo = tmp_path / "db"
    os.mkfifo(fifo, 0o644)
    with pytest.raises(StorageError, match="FIFO"):
        Store(fifo)
    assert os.stat(fifo).st_mode & 0o777 == 0o644
