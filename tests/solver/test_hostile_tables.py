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
    "garbled layer": lambda f: (f / "layer-02.f32").write_bytes(b"\xff" * (f / "layer-02.f32").stat().st_size),
    "layer is a folder": lambda f: _dir(f / "layer-03.f32"),
    "layer is a link to another file": lambda f: ((f / "layer-03.f32").unlink(),
                                                  (f / "layer-03.f32").symlink_to(f / "layer-02.f32")),
    "table.json not JSON": lambda f: (f / "table.json").write_text("{bad"),
    "table.json a list": lambda f: (f / "table.json").write_text("[1, 2]"),
    "table.json is a folder": lambda f: _dir(f / "table.json"),
    "layout.npz deleted": lambda f: (f / "layout.npz").unlink(),
    "layout.npz garbled": lambda f: (f / "layout.npz").write_bytes(b"garbage"),
    "forged: layer file outside the folder": lambda f: _forge(
        f, lambda m: m["layers"][0].update(file="../../../etc/passwd")),
    "forged: negative count": lambda f: _forge(f, lambda m: m["layers"][1].update(count=-5)),
    "forged: huge count": lambda f: _forge(f, lambda m: m["layers"][1].update(count=10 ** 30)),
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
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("layer-*.f32"))
            if p.is_file()}


def _solve(cache: Path):
    r = CliRunner().invoke(app, ["solve", "-n", "4", "--ties", "carry", "--threads", "1", "--cache", str(cache)])
    return r.exit_code, " ".join(r.output.split()), r.exception


@pytest.mark.parametrize("case", ["truncated layer", "garbled layer", "layer is a link to another file",
                                  "table.json not JSON", "layout.npz garbled",
                                  "forged: layer file outside the folder", "forged: huge count"])
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
    r = CliRunner().invoke(app, ["play", "-n", "4", "--vs", "random", "--hints", "--no-save", "--seed", "1"],
                           input="1\n", env={"CARDTABLE_CACHE": str(cache), "CARDTABLE_HOME": str(tmp_path)})
    out = " ".join(r.output.split())
    assert r.exit_code == 1 and "error: --hints:" in out and "re-run `cardtable solve`" in out, out
    assert isinstance(r.exception, SystemExit)  # no traceback


@pytest.mark.parametrize("case", ["truncated layer", "table.json is a folder"])
def test_typing_hint_with_a_damaged_table_says_so_and_the_game_goes_on(cache, case, tmp_path):
    TAMPER[case](cache / NAME)
    r = CliRunner().invoke(app, ["play", "-n", "4", "--vs", "random", "--no-save", "--seed", "1"],
                           input="hint\n4\n3\n2\n1\nn\n",
                           env={"CARDTABLE_CACHE": str(cache), "CARDTABLE_HOME": str(tmp_path),
                                "COLUMNS": "200"})
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
    data = b[(16 + hlen + 32 + 63) // 64 * 64:]
    if raw is None:
        meta = json.loads(b[16:16 + hlen])
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
    "array beyond the data": dict(change=lambda m: m["arrays"].update(values=[10 ** 12, 5, "<f8"])),
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
    open_table(bad)  # solved again: valid now


# -- other readers of a damaged table -----------------------------------------------------------


def test_tournament_with_nash_and_a_damaged_table_is_refused_before_any_game(cache, tmp_path):
    TAMPER["truncated layer"](cache / NAME)
    db = tmp_path / "t.sqlite"
    r = CliRunner().invoke(app, ["tournament", "nash", "random", "--games", "2", "-r", "cards=4", "--db", str(db),
                                 "--backend", "serial"], env={"CARDTABLE_CACHE": str(cache)})
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
    r = CliRunner().invoke(app, ["analyze", str(rec), "--limit", "0", "--cache", str(cache)],
                           env={"CARDTABLE_CACHE": str(empty)})
    out = " ".join(r.output.split())
    assert r.exit_code == 1 and "truncated or damaged" in out, out
    (cache / file1.name).write_bytes(file1.read_bytes())  # the good table: the approximation plays
    r = CliRunner().invoke(app, ["analyze", str(rec), "--limit", "0", "--cache", str(cache)],
                           env={"CARDTABLE_CACHE": str(empty), "COLUMNS": "250"})
    assert r.exit_code == 0 and "approximation" in r.output, r.output


@pytest.mark.parametrize("args", [["exploit", "nash", "-n", "4"],
                                  ["play", "-n", "4", "--vs", "nash", "--no-save", "--seed", "1"]])
def test_nash_with_a_damaged_table_exits_1(cache, tmp_path, args):
    """README.md, Exit codes: a damaged solver table is a failed check (1), the same in every command."""
    TAMPER["garbled layer"](cache / NAME)
    r = CliRunner().invoke(app, args, input="1\n", env={"CARDTABLE_CACHE": str(cache), "CARDTABLE_HOME": str(tmp_path)})
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


@pytest.mark.parametrize("change", [
    None,  # not JSON
    lambda m: m.update(sha256="0" * 64),
    lambda m: m.update(count=-1),
    lambda m: m.update(count=10 ** 40),
    lambda m: m.update(games=-5),
    lambda m: m.update(games=1e300),
    lambda m: m.update(seconds="soon"),
    lambda m: m.update(layout_sha256="x"),
    lambda m: m.clear(),
    lambda m: m.update(padding="x" * (2 << 20)),
], ids=["not-json", "sha256", "count-negative", "count-huge", "games-negative", "games-huge",
        "seconds-text", "layout", "empty", "2-MiB"])
def test_resume_solves_again_only_a_layer_whose_record_was_edited(good, cache, change):
    folder = cache / NAME
    (folder / "table.json").unlink()  # an interrupted solve
    _edit_meta(folder, change)
    manifest = solve_layered(RS, "points", folder)
    assert manifest["stats"]["resumed_layers"] == [1, 2, 4]
    assert _files(folder) == _files(good / NAME)
    assert manifest["stats"]["games"] == json.loads((good / NAME / "table.json").read_text())["stats"]["games"]


def test_force_with_an_unavailable_backend_keeps_the_table(cache, monkeypatch):
    """`solve --force --backend cuda` on a machine without a GPU deleted table.json and every
    layer-KK.json before it found out: the backend is made first now."""
    from cardtable.solver import cuda_backend

    def no_gpu(self, *a, **k):
        raise cuda_backend.CudaUnavailable("no CUDA GPU is available (simulated)")

    monkeypatch.setattr(cuda_backend.CudaBackend, "__init__", no_gpu)
    folder = cache / NAME
    before = sorted(p.name for p in folder.iterdir())
    r = CliRunner().invoke(app, ["solve", "-n", "4", "--ties", "carry", "--backend", "cuda", "--force",
                                 "--cache", str(cache)])
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
    assert CliRunner().invoke(app, ["solve", "-n", "4", "--ties", "discard", "--format", "2",
                                    "--cache", str(cache)]).exit_code == 0
    rec = _carry_record(tmp_path)
    r = CliRunner().invoke(app, ["analyze", str(rec), "--limit", "0", "--cache", str(cache)],
                           env={"COLUMNS": "250"})
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
