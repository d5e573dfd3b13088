"""``cardtable tables`` and :func:`cardtable.solver.catalog.list_tables`: every table,
low-layer set and unfinished solve of a cache folder, its state and checksum state; bad
input is one error line with exit code 2."""

from __future__ import annotations

import json
import os

import pytest
from filelock import FileLock
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.goofspiel import Ruleset
from cardtable.solver import solve, write_table
from cardtable.solver.catalog import build_log, game_lock, list_tables
from cardtable.solver.layers import folder_name, solve_layered
from cardtable.solver.table import table_name

D4 = Ruleset(cards=4, tie_rule="discard")
C5 = Ruleset(cards=5, tie_rule="carry")
C6 = Ruleset(cards=6, tie_rule="carry")
W5 = Ruleset(cards=5, tie_rule="discard")


def run(*args):
    r = CliRunner().invoke(app, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception  # no traceback
    return r.exit_code, r.stdout, " ".join(r.stderr.split())


def by_name(out: str) -> dict:
    return {os.path.basename(t["path"]): t for t in json.loads(out)["tables"]}


@pytest.fixture
def cache(tmp_path):
    """A cache with a format-1 table, a format-2 table, low layers and an interrupted solve."""
    write_table(solve(D4), tmp_path / table_name(D4, "points"))
    solve_layered(C5, "points", tmp_path / folder_name(C5, "points"))
    solve_layered(C6, "points", tmp_path / folder_name(C6, "points"), upto=3)

    def stop(k, done, npat, games):  # Ctrl-C in layer 4
        if k == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solve_layered(W5, "win", tmp_path / folder_name(W5, "win"), progress=stop)
    (tmp_path / "notes.txt").write_text("not a table")  # not listed
    return tmp_path


def test_listing_states(cache):
    code, out, err = run("tables", "--cache", str(cache), "--json")
    assert code == 0, err
    t = by_name(out)
    assert set(t) == {
        table_name(D4, "points"),
        folder_name(C5, "points"),
        folder_name(C6, "points"),
        folder_name(W5, "win"),
    }
    f1 = t[table_name(D4, "points")]
    assert (f1["format"], f1["state"], f1["checksum"], f1["percent_done"]) == (
        1,
        "complete",
        "not verified",
        100.0,
    )
    assert f1["size_bytes"] == (cache / table_name(D4, "points")).stat().st_size
    assert f1["ties"] == "discard" and f1["objective"] == "points"
    f2 = t[folder_name(C5, "points")]
    assert (f2["format"], f2["state"], f2["layers_present"], f2["layers_needed"]) == (2, "complete", 5, 5)
    low = t[folder_name(C6, "points")]
    # layers 1..3 of 6: 208 + 2,318 x 4 + 7,074 x 9 of the whole solve's work
    # (the k x k games of layer k weighted by k**2, as the estimate prices them)
    assert (low["state"], low["upto"], low["state_text"]) == (
        "low",
        3,
        "low layers 1..3 (45% of the full table)",
    )
    assert (low["games_done"], low["games_needed"], low["building"]) == (9600, 14856, False)
    part = t[folder_name(W5, "win")]
    # 246 + 2,464 x 4 + 5,676 x 9 of 71,871 units of work: 85.1%, where the layers alone say 60%
    assert (part["state"], part["layers_present"], part["percent_done"]) == ("partial", 3, 85.1)
    assert part["state_text"] == "interrupted: 3 of 5 layers, 85% done" and part["objective"] == "win"
    code, out, _ = run("tables", "--cache", str(cache))  # the Rich table
    assert code == 0
    for text in (
        "interrupted: 3 of 5 layers, 85% done",
        "low layers 1..3 (45% of the full table)",
        "not verified",
        "4 cards, discard ties, low ace",
        table_name(D4, "points"),
    ):
        assert text in out, text


def test_verify_finds_what_the_cheap_checks_do_not(cache):
    code, out, _ = run("tables", "--cache", str(cache), "--json", "--verify")
    assert code == 0 and {t["checksum"] for t in by_name(out).values()} == {"verified"}
    for path in (
        cache / folder_name(C5, "points") / "layer-03.f32",
        cache / table_name(D4, "points"),
        cache / folder_name(W5, "win") / "layer-02.f32",
    ):
        data = bytearray(path.read_bytes())
        data[-3] ^= 0xFF  # same size: only the checksum can tell
        path.write_bytes(bytes(data))
    code, out, _ = run("tables", "--cache", str(cache), "--json")
    assert code == 0 and {t["checksum"] for t in by_name(out).values()} == {"not verified"}
    code, out, err = run("tables", "--cache", str(cache), "--json", "--verify")
    assert code == 1
    t = by_name(out)
    damaged = {n for n, e in t.items() if e["checksum"] == "damaged"}
    assert damaged == {folder_name(C5, "points"), table_name(D4, "points"), folder_name(W5, "win")}
    assert "layer-03.f32: data checksum mismatch" in t[folder_name(C5, "points")]["problem"]
    assert "do not verify against their records: 2" in t[folder_name(W5, "win")]["problem"]
    assert "damaged:" in err and "data checksum mismatch" in err
    assert t[folder_name(C6, "points")]["checksum"] == "verified"


def test_a_deleted_layer_file_and_a_deleted_record(cache):
    folder = cache / folder_name(C5, "points")
    (folder / "layer-02.f32").unlink()
    code, out, err = run("tables", "--cache", str(cache), "--json")
    e = by_name(out)[folder_name(C5, "points")]
    assert code == 1 and e["checksum"] == "damaged" and e["layers_present"] == 4
    assert "layer-02.f32: missing" in e["problem"] and "layer-02.f32: missing" in err
    (cache / folder_name(W5, "win") / "layer-03.json").unlink()  # a layer not finished after all
    e = by_name(run("tables", "--cache", str(cache), "--json")[1])[folder_name(W5, "win")]
    assert (e["layers_present"], e["percent_done"]) == (2, 14.1)


def test_an_empty_cache_and_the_default_cache(tmp_path, monkeypatch):
    code, out, _ = run("tables", "--cache", str(tmp_path))
    assert code == 0 and f"no tables in {tmp_path}" in out
    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path))
    write_table(solve(D4), tmp_path / table_name(D4, "points"))
    code, out, _ = run("tables", "--json")
    assert code == 0 and list(by_name(out)) == [table_name(D4, "points")]


def test_bad_cache_folders(tmp_path, monkeypatch):
    f = tmp_path / "file"
    f.write_text("x")
    code, out, err = run("tables", "--cache", str(f))
    assert code == 2 and f"{f} is a file, not a folder" in err and out == ""
    code, _, err = run("tables", "--cache", str(tmp_path / "missing"))
    assert code == 2 and "No such file or directory" in err
    monkeypatch.setenv("CARDTABLE_CACHE", str(f))
    code, _, err = run("tables")
    assert code == 2 and "error:" in err and "Traceback" not in err


def test_unreadable_entries_are_listed_and_exit_2(cache, monkeypatch):
    dangling = cache / table_name(Ruleset(cards=3, tie_rule="discard"), "points")
    dangling.symlink_to(cache / "nowhere")
    locked = cache / folder_name(C5, "points")
    real_scandir = os.scandir

    def scandir(path):
        if os.fspath(path) == os.fspath(locked):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, out, err = run("tables", "--cache", str(cache), "--json")
    assert code == 2
    t = by_name(out)
    assert t[dangling.name]["checksum"] == "unreadable" and t[locked.name]["checksum"] == "unreadable"
    assert "Permission denied" in t[locked.name]["problem"]
    assert t[table_name(D4, "points")]["checksum"] == "not verified"  # the others still listed
    assert f"unreadable: {locked}: cannot be read: Permission denied" in err


def test_a_file_where_a_table_folder_belongs(tmp_path):
    (tmp_path / folder_name(C5, "points")).write_text("not a folder")
    e = list_tables(tmp_path)[0]
    assert e.checksum == "damaged" and "not a folder" in e.problem
    code, _, err = run("tables", "--cache", str(tmp_path))
    assert code == 1 and "not a folder" in err


def test_a_solve_holding_the_lock_is_listed_as_building_and_its_log_shown(cache):
    log = build_log(W5, "win", cache)
    log.write_text("[2026-01-01 00:00:00] cardtable play (pid 1) runs: cardtable solve ...\n")
    with FileLock(str(game_lock(W5, "win", cache))).acquire(timeout=0):  # as `cardtable solve` holds it
        code, out, _ = run("tables", "--cache", str(cache), "--json")
        e = by_name(out)[folder_name(W5, "win")]
        assert (e["building"], e["state_text"], e["log"]) == (
            True,
            "building: 3 of 5 layers, 85% done",
            str(log),
        )
        assert not by_name(out)[folder_name(C5, "points")]["building"]  # its own lock only
        code, out, _ = run("tables", "--cache", str(cache))
        assert "building: 3 of 5 layers, 85% done" in out
        assert f"build log of the 5-card discard table: {log}" in " ".join(out.split())
    e = by_name(run("tables", "--cache", str(cache), "--json")[1])[folder_name(W5, "win")]
    assert (e["building"], e["state_text"]) == (False, "interrupted: 3 of 5 layers, 85% done")


def test_the_shipped_compressed_tables_are_listed(tmp_path):
    from cardtable.solver.compressed import DATA_DIR

    files = sorted(p.name for p in DATA_DIR.glob("*.svd.npz"))
    code, out, _ = run("tables", "--cache", str(tmp_path))
    assert code == 0 and "shipped with cardtable (compressed tables" in out
    assert "13 cards discard low ace" in out and "11 cards discard high ace" in out
    assert "11 cards carry low ace" in out
    code, out, _ = run("tables", "--cache", str(tmp_path), "--json")
    shipped = json.loads(out)["shipped"]
    assert sorted(t["file"] for t in shipped) == files
    assert {t["tie_rule"] for t in shipped} == {"carry", "discard"}
    assert all(t["bytes"] == (DATA_DIR / t["file"]).stat().st_size for t in shipped)
