"""A format-2 table folder tampered with as a hostile user would (docs/solver.md, "Table
format 2"): every query refuses it with a clear ``TableFileError`` (no traceback),
``cardtable solve`` solves again only the bad layers (the good ones are kept, byte for
byte), and what it cannot repair is refused with one line."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.goofspiel import Ruleset
from cardtable.solver import TableFileError
from cardtable.solver.layers import _manifest_digest, folder_name, open_layered, solve_layered

RS = Ruleset(cards=4, tie_rule="carry")
NAME = folder_name(RS, "points")


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    cache = tmp_path_factory.mktemp("good")
    solve_layered(RS, "points", cache / NAME)
    return cache


@pytest.fixture
def cache(good, tmp_path) -> Path:
    shutil.copytree(good, tmp_path / "c")
    return tmp_path / "c"


def _forge(folder: Path, change) -> None:
    """Edit table.json and recompute its digest (the digest is no secret)."""
    m = json.loads((folder / "table.json").read_text())
    change(m)
    m["digest"] = _manifest_digest(m)
    (folder / "table.json").write_text(json.dumps(m))


def _dir(p: Path) -> None:
    p.unlink()
    p.mkdir()


TAMPER = {
    "truncated layer": lambda f: os.truncate(f / "layer-03.f32", 10),
    "garbled layer": lambda f: (f / "layer-02.f32").write_bytes(
        b"\xff" * (f / "layer-02.f32").stat().st_size
    ),
    "layer is a folder": lambda f: _dir(f / "layer-03.f32"),
    "layer is a link to another file": lambda f: (
        (f / "layer-03.f32").unlink(),
        (f / "layer-03.f32").symlink_to(f / "layer-02.f32"),
    ),
    "table.json not JSON": lambda f: (f / "table.json").write_text("{bad"),
    "table.json a list": lambda f: (f / "table.json").write_text("[1, 2]"),
    "table.json is a folder": lambda f: _dir(f / "table.json"),
    "layout.npz deleted": lambda f: (f / "layout.npz").unlink(),
    "layout.npz garbled": lambda f: (f / "layout.npz").write_bytes(b"garbage"),
    "forged: layer file outside the folder": lambda f: _forge(
        f, lambda m: m["layers"][0].update(file="../../../etc/passwd")
    ),
    "forged: negative count": lambda f: _forge(f, lambda m: m["layers"][1].update(count=-5)),
    "forged: huge count": lambda f: _forge(f, lambda m: m["layers"][1].update(count=10**30)),
    "forged: count a string": lambda f: _forge(f, lambda m: m["layers"][1].update(count="12")),
    "forged: a layer missing": lambda f: _forge(f, lambda m: m["layers"].pop()),
    "forged: no layers key": lambda f: _forge(f, lambda m: m.pop("layers")),
    "forged: cards 99": lambda f: _forge(f, lambda m: m.update(cards=99)),
    "table.json of 2 MiB": lambda f: _forge(f, lambda m: m["stats"].update(padding="x" * (2 << 20))),
}


@pytest.mark.parametrize("case", list(TAMPER))
def test_tampered_folder_is_refused_with_a_table_file_error(cache, case):
    folder = cache / NAME
    TAMPER[case](folder)
    with pytest.raises(TableFileError) as e:
        open_layered(folder)
    assert str(folder) in str(e.value)


def _files(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.glob("layer-*.f32"))
        if p.is_file()
    }


def _solve(cache: Path):
    r = CliRunner().invoke(
        app, ["solve", "-n", "4", "--ties", "carry", "--threads", "1", "--cache", str(cache)]
    )
    return r.exit_code, " ".join(r.output.split()), r.exception


@pytest.mark.parametrize(
    "case",
    [
        "truncated layer",
        "garbled layer",
        "layer is a link to another file",
        "table.json not JSON",
        "layout.npz garbled",
        "forged: layer file outside the folder",
        "forged: huge count",
    ],
)
def test_solve_repairs_only_what_is_damaged(good, cache, case):
    folder = cache / NAME
    before = _files(good / NAME)
    TAMPER[case](folder)
    code, out, exc = _solve(cache)
    assert code == 0 and not isinstance(exc, Exception) or isinstance(exc, SystemExit), out
    assert "solving again what is damaged" in out and "value of the game" in out, out
    assert _files(folder) == before  # the same bytes: the bad layer solved again, the rest kept
    if case.startswith(("truncated", "garbled")):
        assert "resumed layers [1" in out  # the good layers were not solved again
    open_layered(folder)


@pytest.mark.parametrize("case", ["layer is a folder", "table.json is a folder"])
def test_solve_refuses_what_it_cannot_repair_in_one_line(cache, case):
    TAMPER[case](cache / NAME)
    code, out, exc = _solve(cache)
    assert code == 1, out
    assert "error: cannot write the table in" in out and "Traceback" not in out
    assert isinstance(exc, SystemExit)


def test_unwritable_table_folder_is_a_clear_error(cache, monkeypatch):
    """A read-only folder (simulated: tests may run as root, who ignores the mode)."""
    os.truncate(cache / NAME / "layer-03.f32", 10)

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", str(dst))

    monkeypatch.setattr(os, "replace", refuse)
    code, out, exc = _solve(cache)
    assert code == 1 and "cannot write the table in" in out and "Permission denied" in out, out
    assert isinstance(exc, SystemExit)


@pytest.mark.parametrize("case", ["truncated layer", "table.json is a folder"])
def test_play_hints_with_a_damaged_table_is_refused_before_the_game(cache, case, tmp_path):
    TAMPER[case](cache / NAME)
    r = CliRunner().invoke(
        app,
        ["play", "-n", "4", "--vs", "random", "--hints", "--no-save", "--seed", "1"],
        input="1\n",
        env={"CARDTABLE_CACHE": str(cache), "CARDTABLE_HOME": str(tmp_path)},
    )
    out = " ".join(r.output.split())
    assert r.exit_code == 1 and "error: --hints:" in out and "re-run `cardtable solve`" in out, out
    assert isinstance(r.exception, SystemExit)  # no traceback


@pytest.mark.parametrize("case", ["truncated layer", "table.json is a folder"])
def test_typing_hint_with_a_damaged_table_says_so_and_the_game_goes_on(cache, case, tmp_path):
    TAMPER[case](cache / NAME)
    r = CliRunner().invoke(
        app,
        ["play", "-n", "4", "--vs", "random", "--no-save", "--seed", "1"],
        input="hint\n4\n3\n2\n1\nn\n",
        env={"CARDTABLE_CACHE": str(cache), "CARDTABLE_HOME": str(tmp_path), "COLUMNS": "200"},
    )
    out = " ".join(r.output.split())
    assert r.exit_code == 0 and "no hint:" in out, out  # was a traceback that lost the game
    assert r.exception is None or isinstance(r.exception, SystemExit)


# -- format 1 (one file): a header forged with a recomputed checksum ---------------------------


@pytest.fixture(scope="module")
def file1(tmp_path_factory) -> Path:
    from cardtable.solver import solve, write_table
    from cardtable.solver.table import default_path

    rs = Ruleset(cards=4, tie_rule="discard")
    return write_table(solve(rs), default_path(rs, "points", tmp_path_factory.mktemp("f1")))


def _forge_header(src: Path, dst: Path, change=None, raw: bytes | None = None) -> None:
    import struct

    b = src.read_bytes()
    version, hlen = struct.unpack("<II", b[8:16])
    data = b[(16 + hlen + 32 + 63) // 64 * 64 :]
    if raw is None:
        meta = json.loads(b[16 : 16 + hlen])
        change(meta)
        raw = json.dumps(meta, sort_keys=True).encode()
    out = b[:8] + struct.pack("<II", version, len(raw)) + raw + hashlib.sha256(raw).digest()
    dst.write_bytes(out + b"\0" * ((16 + len(raw) + 32 + 63) // 64 * 64 - len(out)) + data)


HEADERS = {
    "not JSON": dict(raw=b"{bad"),
    "a list": dict(raw=b"[1]"),
    "no array directory": dict(change=lambda m: m.pop("arrays")),
    "no data_bytes": dict(change=lambda m: m.pop("data_bytes")),
    "data_bytes a string": dict(change=lambda m: m.update(data_bytes="x")),
    "array beyond the data": dict(change=lambda m: m["arrays"].update(values=[10**12, 5, "<f8"])),
    "negative offset": dict(change=lambda m: m["arrays"].update(values=[-64, 5, "<f8"])),
    "object dtype": dict(change=lambda m: m["arrays"]["values"].__setitem__(2, "O")),
    "cards 99": dict(change=lambda m: m.update(cards=99)),
    "tie rule bogus": dict(change=lambda m: m.update(tie_rule="bogus")),
    "codes missing": dict(change=lambda m: m["arrays"].pop("codes")),
    "values count wrong": dict(change=lambda m: m["arrays"]["values"].__setitem__(1, 3)),
}


@pytest.mark.parametrize("case", list(HEADERS))
def test_forged_format1_header_is_refused(file1, tmp_path, case):
    from cardtable.solver import open_table

    bad = tmp_path / file1.name
    _forge_header(file1, bad, **HEADERS[case])
    with pytest.raises(TableFileError, match="the header is damaged"):
        open_table(bad)
    r = CliRunner().invoke(app, ["solve", "-n", "4", "--ties", "discard", "--cache", str(tmp_path)])
    out = " ".join(r.output.split())
    assert r.exit_code == 0 and "solving again what is damaged" in out, out
    open_table(bad)  # solved again in its own format (format 1), although format 2 is the default: valid now
    assert not (tmp_path / "gops-n4-discard-points-lowace.v2").exists()


# -- other readers of a damaged table -----------------------------------------------------------


def test_tournament_with_nash_and_a_damaged_table_is_refused_before_any_game(cache, tmp_path):
    TAMPER["truncated layer"](cache / NAME)
    db = tmp_path / "t.sqlite"
    r = CliRunner().invoke(
        app,
        [
            "tournament",
            "nash",
            "random",
            "--games",
            "2",
            "-r",
            "cards=4",
            "--db",
            str(db),
            "--backend",
            "serial",
        ],
        env={"CARDTABLE_CACHE": str(cache)},
    )
    out = " ".join(r.output.split())
    assert r.exit_code == 1 and "error: bot 'nash':" in out and "layer-03.f32" in out, out
    assert not db.exists()  # no game stored as a forfeit


def _carry_record(tmp_path: Path) -> Path:
    """A finished 4-card carry-over game's record (bids 1-4 against 4-1), for analyze."""
    from cardtable.goofspiel import Game
    from cardtable.goofspiel.record import record_from_game, write_text

    g = Game(Ruleset(cards=4, tie_rule="carry"), seed=3)
    for c in (1, 2, 3, 4):
        g.play([c, 5 - c])
    rec = tmp_path / "game.txt"
    rec.write_text(write_text(record_from_game(g, ["a", "b"])))
    return rec


def test_analyze_with_a_damaged_discard_table_is_one_error_line(file1, tmp_path):
    """The carry-over approximation reads the discard-ties table (here with --limit 0)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / file1.name).write_bytes(file1.read_bytes()[:1000])  # truncated
    rec = _carry_record(tmp_path)
    r = CliRunner().invoke(app, ["analyze", str(rec), "--limit", "0"], env={"CARDTABLE_CACHE": str(cache)})
    out = " ".join(r.output.split())
    assert r.exit_code == 1 and "truncated or damaged" in out, out
    assert isinstance(r.exception, SystemExit)


def test_analyze_reads_the_discard_table_from_its_cache_option(file1, tmp_path):
    """``analyze --cache FOLDER`` is the folder the carry-over approximation reads its
    discard-ties table from (it read only $CARDTABLE_CACHE before): a damaged table there
    is reported, while $CARDTABLE_CACHE points at an empty folder."""
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / file1.name).write_bytes(file1.read_bytes()[:1000])  # truncated
    empty = tmp_path / "empty"
    empty.mkdir()
    rec = _carry_record(tmp_path)
    r = CliRunner().invoke(
        app, ["analyze", str(rec), "--limit", "0", "--cache", str(cache)], env={"CARDTABLE_CACHE": str(empty)}
    )
    out = " ".join(r.output.split())
    assert r.exit_code == 1 and "truncated or damaged" in out, out
    (cache / file1.name).write_bytes(file1.read_bytes())  # the good table: the approximation plays
    r = CliRunner().invoke(
        app,
        ["analyze", str(rec), "--limit", "0", "--cache", str(cache)],
        env={"CARDTABLE_CACHE": str(empty), "COLUMNS": "250"},
    )
    assert r.exit_code == 0 and "approximation" in r.output, r.output


@pytest.mark.parametrize(
    "args", [["exploit", "nash", "-n", "4"], ["play", "-n", "4", "--vs", "nash", "--no-save", "--seed", "1"]]
)
def test_nash_with_a_damaged_table_exits_1(cache, tmp_path, args):
    """README.md, Exit codes: a damaged solver table is a failed check (1), the same in every command."""
    TAMPER["garbled layer"](cache / NAME)
    r = CliRunner().invoke(
        app, args, input="1\n", env={"CARDTABLE_CACHE": str(cache), "CARDTABLE_HOME": str(tmp_path)}
    )
    out = " ".join(r.output.split())
    assert r.exit_code == 1 and "checksum mismatch" in out, out
    assert isinstance(r.exception, SystemExit)


# -- an interrupted solve (no table.json) whose layer-KK.json was edited ------------------------


def _edit_meta(folder: Path, change) -> None:
    p = folder / "layer-03.json"
    if change is None:
        p.write_text("{bad")
        return
    meta = json.loads(p.read_text())
    change(meta)
    p.write_text(json.dumps(meta))


@pytest.mark.parametrize(
    "change",
    [
        None,  # not JSON
        lambda m: m.update(sha256="0" * 64),
        lambda m: m.update(count=-1),
        lambda m: m.update(count=10**40),
        lambda m: m.update(games=-5),
        lambda m: m.update(games=1e300),
        lambda m: m.update(seconds="soon"),
        lambda m: m.update(layout_sha256="x"),
        lambda m: m.clear(),
        lambda m: m.update(padding="x" * (2 << 20)),
    ],
    ids=[
        "not-json",
        "sha256",
        "count-negative",
        "count-huge",
        "games-negative",
        "games-huge",
        "seconds-text",
        "layout",
        "empty",
        "2-MiB",
    ],
)
def test_resume_solves_again_only_a_layer_whose_record_was_edited(good, cache, change):
    folder = cache / NAME
    (folder / "table.json").unlink()  # an interrupted solve
    _edit_meta(folder, change)
    manifest = solve_layered(RS, "points", folder)
    assert manifest["stats"]["resumed_layers"] == [1, 2, 4]
    assert _files(folder) == _files(good / NAME)
    assert (
        manifest["stats"]["games"] == json.loads((good / NAME / "table.json").read_text())["stats"]["games"]
    )


def test_force_with_an_unavailable_backend_keeps_the_table(cache, monkeypatch):
    """`solve --force --backend cuda` on a machine without a GPU deleted table.json and every
    layer-KK.json before it found out: the backend is made first now."""
    from cardtable.solver import cuda_backend

    def no_gpu(self, *a, **k):
        raise cuda_backend.CudaUnavailable("no CUDA GPU is available (simulated)")

    monkeypatch.setattr(cuda_backend.CudaBackend, "__init__", no_gpu)
    folder = cache / NAME
    before = sorted(p.name for p in folder.iterdir())
    r = CliRunner().invoke(
        app, ["solve", "-n", "4", "--ties", "carry", "--backend", "cuda", "--force", "--cache", str(cache)]
    )
    assert r.exit_code == 2 and "no CUDA GPU" in r.output, r.output
    assert sorted(p.name for p in folder.iterdir()) == before
    open_layered(folder)


def test_solve_refuses_to_overwrite_another_games_table_under_this_name(tmp_path):
    folder = tmp_path / NAME  # the carry-over name, holding a discard-ties table
    solve_layered(Ruleset(cards=4, tie_rule="discard"), "points", folder)
    before = _files(folder)
    code, out, exc = _solve(tmp_path)
    assert code == 1 and "it was copied or renamed" in out, out
    assert _files(folder) == before and (folder / "table.json").exists()


def test_an_oversized_layout_archive_is_refused_before_it_is_read(cache, monkeypatch):
    """layout.npz is checked by the sizes its zip directory declares before numpy unpacks it
    (a zip bomb would otherwise fill the memory); here the limit is lowered to below the
    real 4-card layout. Reading a table never unpacks it (the index arrays are rebuilt from
    the game the manifest names; the file is only checksummed); solve writes a fresh layout
    instead of loading that one."""
    from cardtable.solver import layers

    folder = cache / NAME
    monkeypatch.setattr(layers, "LAYOUT_MAX_BYTES", 1000)
    with pytest.raises(ValueError, match="unpacks to more than"):
        layers._load_layout(folder / "layout.npz")
    assert open_layered(folder, verify=False).upto == 4  # not unpacked
    assert layers._stored_layout_digest(folder / "layout.npz") is None  # a resume rewrites it


def test_analyze_reads_a_format2_discard_table_for_the_approximation(tmp_path):
    """The carry-over approximation takes the discard-ties table in either format (a format-2
    one crashed it with an AttributeError)."""
    cache = tmp_path / "cache"
    assert (
        CliRunner()
        .invoke(app, ["solve", "-n", "4", "--ties", "discard", "--format", "2", "--cache", str(cache)])
        .exit_code
        == 0
    )
    rec = _carry_record(tmp_path)
    r = CliRunner().invoke(
        app, ["analyze", str(rec), "--limit", "0", "--cache", str(cache)], env={"COLUMNS": "250"}
    )
    assert r.exit_code == 0 and "approximation" in r.output, r.output


@pytest.mark.parametrize("case", ["folder is a file", "table.json is a folder", "layer-02.json is a folder"])
def test_solve_force_refuses_records_of_the_wrong_kind_before_deleting(cache, case):
    folder = cache / NAME
    if case == "folder is a file":
        shutil.rmtree(folder)
        folder.write_text("x")
    else:
        _dir(folder / case.split()[0])
    before = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else None
    r = CliRunner().invoke(app, ["solve", "-n", "4", "--ties", "carry", "--cache", str(cache), "--force"])
    out = " ".join(r.output.split())
    assert r.exit_code == 1 and "cannot write the table in" in out and "Traceback" not in out, out
    assert isinstance(r.exception, SystemExit)
    if before is not None:
        assert sorted(p.name for p in folder.iterdir()) == before  # nothing deleted


# -- issue 24, section 5: every file of a table is checked, a failed solve leaves no temp files --


def _edit_record(folder: Path, k: int, change) -> None:
    p = folder / f"layer-{k:02d}.json"
    meta = json.loads(p.read_text())
    change(meta)
    p.write_text(json.dumps(meta, sort_keys=True, indent=1))


RECORDS = {
    "deleted": lambda f: (f / "layer-03.json").unlink(),
    "garbage": lambda f: (f / "layer-03.json").write_bytes(b"\x00\xffgarbage"),
    "a JSON list": lambda f: (f / "layer-03.json").write_text("[3]"),
    "a folder": lambda f: _dir(f / "layer-03.json"),
    "2 MiB": lambda f: _edit_record(f, 3, lambda m: m.update(padding="x" * (2 << 20))),
    "sha256 edited": lambda f: _edit_record(f, 3, lambda m: m.update(sha256="0" * 64)),
    "games edited": lambda f: _edit_record(f, 3, lambda m: m.update(games=m["games"] + 1)),
    "seconds edited": lambda f: _edit_record(f, 3, lambda m: m.update(seconds=123.0)),
    "count edited": lambda f: _edit_record(f, 3, lambda m: m.update(count=m["count"] - 1)),
    "k edited": lambda f: _edit_record(f, 3, lambda m: m.update(k=2)),
    "layout edited": lambda f: _edit_record(f, 3, lambda m: m.update(layout_sha256="0" * 64)),
    # a field no content check reads: caught by the SHA-256 that table.json records of the file
    "backend edited": lambda f: _edit_record(f, 3, lambda m: m.update(backend="ray")),
}


@pytest.mark.parametrize("case", list(RECORDS))
def test_a_tampered_layer_record_of_a_complete_table_is_refused_with_the_repair_command(cache, case):
    from cardtable.solver.table import load_table

    folder = cache / NAME
    RECORDS[case](folder)
    for read in (
        lambda: open_layered(folder),
        lambda: open_layered(folder, verify=False),
        lambda: load_table(RS, "points", cache),
    ):
        with pytest.raises(TableFileError) as e:
            read()
        msg = str(e.value)
        assert str(folder / "layer-03.json") in msg and "re-run `cardtable solve -n 4 --ties carry`" in msg, (
            msg
        )


@pytest.mark.parametrize("case", ["deleted", "garbage", "games edited", "backend edited"])
def test_solve_repairs_a_tampered_layer_record(good, cache, case):
    folder = cache / NAME
    RECORDS[case](folder)
    code, out, exc = _solve(cache)
    assert code == 0 and "layer-03.json" in out and "solving again what is damaged" in out, out
    assert _files(folder) == _files(good / NAME)
    if case in ("deleted", "garbage"):
        assert "resumed layers [1, 2, 4]" in out  # only layer 3 solved again
    open_layered(folder)


def test_a_layer_record_edited_after_a_verified_load_is_verified_again(cache):
    from cardtable.solver.table import load_table

    assert load_table(RS, "points", cache) is load_table(RS, "points", cache)
    RECORDS["seconds edited"](cache / NAME)
    with pytest.raises(TableFileError, match="layer-03.json"):
        load_table(RS, "points", cache)


@pytest.mark.parametrize("case", ["deleted", "garbage", "seconds edited"])
def test_a_tampered_layer_record_of_low_layers_is_refused_and_repaired(tmp_path, case):
    rs6 = Ruleset(cards=6, tie_rule="carry")
    folder = tmp_path / folder_name(rs6, "points")
    solve_layered(rs6, "points", folder, upto=3)
    RECORDS[case](folder)
    with pytest.raises(TableFileError) as e:
        open_layered(folder, low=True)
    assert "layer-03.json" in str(e.value) and "`cardtable solve -n 6 --ties carry --layers 3`" in str(
        e.value
    )
    r = CliRunner().invoke(app, ["solve", "-n", "6", "--layers", "3", "--cache", str(tmp_path)])
    assert r.exit_code == 0 and "solving again what is damaged" in " ".join(r.output.split()), r.output
    assert open_layered(folder, low=True).upto == 3


def test_another_games_manifest_is_reported_as_such_naming_both_games(tmp_path):
    """table.json of the 5-card game copied into the 4-card folder was reported as "layout.npz
    is missing or damaged"; now a TableMismatchError naming both games, and solve changes nothing."""
    from cardtable.solver.table import TableMismatchError, load_table

    rs5 = Ruleset(cards=5, tie_rule="carry")
    solve_layered(RS, "points", tmp_path / NAME)
    solve_layered(rs5, "points", tmp_path / "five")
    shutil.copy(tmp_path / "five" / "table.json", tmp_path / NAME / "table.json")
    before = {p.name: p.read_bytes() for p in (tmp_path / NAME).iterdir()}
    for read in (lambda: open_layered(tmp_path / NAME), lambda: load_table(RS, "points", tmp_path)):
        with pytest.raises(TableMismatchError) as e:
            read()
        assert f"holds the table of {rs5.describe()}" in str(e.value)
        assert f"not of {RS.describe()}" in str(e.value)
        assert "layout.npz" not in str(e.value)
    code, out, _ = _solve(tmp_path)
    assert code == 1 and "copied or renamed" in out, out
    assert {p.name: p.read_bytes() for p in (tmp_path / NAME).iterdir()} == before
    # the same for low layers: 7 cards' low-layers.json in the 6-card folder
    rs6, rs7 = Ruleset(cards=6, tie_rule="carry"), Ruleset(cards=7, tie_rule="carry")
    six, seven = tmp_path / folder_name(rs6, "points"), tmp_path / "seven"
    solve_layered(rs6, "points", six, upto=3)
    solve_layered(rs7, "points", seven, upto=3)
    shutil.copy(seven / "low-layers.json", six / "low-layers.json")
    with pytest.raises(TableMismatchError, match="cards=7.*not of cards=6"):
        open_layered(six, low=True)


def _temp_files(folder: Path) -> list[str]:
    return sorted(
        p.name
        for p in folder.iterdir()
        if p.name.endswith((".partial", ".tmp", ".tmp.npz")) or ".tmp" in p.name
    )


@pytest.mark.parametrize("how", ["replace refused", "solver check fails", "interrupted"])
@pytest.mark.parametrize("damage", ["truncated layer", "layout.npz garbled", "table.json not JSON"])
def test_a_failed_repair_leaves_no_temporary_files(cache, monkeypatch, how, damage):
    from cardtable.solver import SolverError, lean

    folder = cache / NAME
    TAMPER[damage](folder)
    os.truncate(folder / "layer-04.f32", 3)  # at least one layer is solved again
    if how == "replace refused":

        def refuse(src, dst):
            raise PermissionError(13, "Permission denied", str(dst))

        monkeypatch.setattr(os, "replace", refuse)
    elif how == "solver check fails":

        def failing(k, st):
            raise SolverError(f"layer {k}: simulated failure")

        monkeypatch.setattr(lean, "check_stats", failing)
    else:

        def interrupt(k, st):
            raise KeyboardInterrupt

        monkeypatch.setattr(lean, "check_stats", interrupt)
    code, out, _ = _solve(cache)
    assert code in (1, 130), out
    assert _temp_files(folder) == [], out


def test_a_solve_removes_the_temporary_files_a_killed_one_left(cache):
    folder = cache / NAME
    (folder / "table.json").unlink()  # a solve killed (SIGKILL) in the middle
    for name in ("layer-04.f32.partial", "layer-03.json.tmp", "table.json.tmp", "layout.tmp.npz"):
        (folder / name).write_bytes(b"half")
    (folder / "keep.partial").mkdir()  # not a name the solve writes: left alone
    solve_layered(RS, "points", folder)
    assert _temp_files(folder) == ["keep.partial"]
    open_layered(folder)


def test_a_smaller_layers_run_keeps_the_higher_low_layers_declared(tmp_path):
    """`solve --layers 4` then `--layers 2` shrank low-layers.json to layers 1..2 (3 and 4
    were left on disk undeclared); now the stored 1..4 are verified and kept."""
    from cardtable.solver.layers import LOW_MANIFEST

    rs6 = Ruleset(cards=6, tie_rule="carry")
    folder = tmp_path / folder_name(rs6, "points")

    def run(k):
        r = CliRunner().invoke(app, ["solve", "-n", "6", "--layers", str(k), "--cache", str(tmp_path)])
        return r.exit_code, " ".join(r.output.split())

    assert run(4)[0] == 0
    code, out = run(2)
    assert code == 0 and "layers 1..4 are already stored: they are kept and verified" in out, out
    assert "solved layers 1..4" in out and "resumed layers [1, 2, 3, 4]" in out, out
    assert "14,340 matrix games" in out and "1.43e+04 matrix games" in out  # the estimate covers 1..4
    assert json.loads((folder / LOW_MANIFEST).read_text())["upto"] == 4
    assert open_layered(folder, low=True).upto == 4
    # the same through the library; a damaged higher layer is solved again, not dropped
    os.truncate(folder / "layer-04.f32", 8)
    manifest = solve_layered(rs6, "points", folder, upto=1)
    assert manifest["upto"] == 4 and manifest["stats"]["resumed_layers"] == [1, 2, 3]
    assert open_layered(folder, low=True).upto == 4
    # more layers than stored: extended as before
    assert run(5)[0] == 0 and open_layered(folder, low=True).upto == 5


@pytest.mark.parametrize(
    "free, done, want",
    [
        (1000, False, "1000 bytes are free"),
        (1536, True, "1.5 KiB are free"),
    ],
)
def test_solve_refuses_without_disk_space_and_says_how_much_in_readable_units(
    tmp_path, monkeypatch, free, done, want
):
    from collections import namedtuple

    from cardtable.solver.estimate import estimate_solve, size_text

    usage = namedtuple("usage", "total used free")
    rs5 = Ruleset(cards=5, tie_rule="carry")
    folder = tmp_path / folder_name(rs5, "points")
    if done:
        solve_layered(rs5, "points", folder, upto=1)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: usage(10**12, 10**12 - free, free))
    r = CliRunner().invoke(app, ["solve", "-n", "5", "--cache", str(tmp_path)])
    out = " ".join(r.output.split())
    need = size_text(estimate_solve(rs5, "points").disk_bytes)
    assert r.exit_code == 2 and f"this solve needs {need} of disk in {tmp_path}" in out, out
    assert want in out and "0.0 GiB" not in out and "choose another --cache folder" in out, out
    assert ("of it already written" in out) == done
    assert not (folder / "table.json").exists()


@pytest.mark.parametrize(
    "n, text",
    [
        (0, "0 bytes"),
        (1023, "1023 bytes"),
        (1024, "1.0 KiB"),
        (5 << 20, "5.0 MiB"),
        ((1 << 30) - 1, "1024.0 MiB"),
        (3 << 30, "3.0 GiB"),
    ],
)
def test_size_text_never_rounds_a_size_to_zero_gib(n, text):
    from cardtable.solver.estimate import size_text

    assert size_text(n) == text


def test_a_table_written_before_record_checksums_opens_and_its_records_are_still_checked(cache):
    """Tables solved before issue 24 have no record_sha256 in table.json: they open, and a
    record that contradicts the manifest is still refused by its content."""
    folder = cache / NAME
    _forge(folder, lambda m: [rec.pop("record_sha256") for rec in m["layers"]])
    assert open_layered(folder).upto == 4
    RECORDS["backend edited"](folder)  # no checksum to catch it, and nothing a table reads
    assert open_layered(folder).upto == 4
    RECORDS["games edited"](folder)
    with pytest.raises(TableFileError, match="layer-03.json: its checksum, games or seconds differ"):
        open_layered(folder)
