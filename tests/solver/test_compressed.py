"""Compressed discard tables (cardtable.solver.compressed): errors within the target, the same
queries as the exact table, the carry-over approximation on either, the nash bot playing them on
a fresh install, and damaged files refused."""

from __future__ import annotations

import os
import zipfile

import numpy as np
import pytest
from npz_files import meta_of, rewrite, set_meta

from cardtable.goofspiel import Ruleset
from cardtable.solver import Position, solve
from cardtable.solver import compressed as comp
from cardtable.solver.approx import CarryApproximation
from cardtable.solver.compressed import (
    CompressedTable,
    bundled_table,
    compressed_name,
    open_compressed,
    write_compressed,
)
from cardtable.solver.equilibrium import EquilibriumSource, compressed_exact_layers
from cardtable.solver.exploit import best_response, positional_best_response
from cardtable.solver.tables import TableFileError
from cardtable.strategy.nash import NashBot

TARGET = 0.005


@pytest.fixture(scope="module")
def seven(tmp_path_factory):
    """(exact 7-card discard table, its compressed file's path, the meta)."""
    rs = Ruleset(cards=7, tie_rule="discard")
    exact = solve(rs)
    folder = tmp_path_factory.mktemp("compressed")
    path = folder / compressed_name(rs)
    meta = write_compressed(exact, path, TARGET)
    return exact, path, meta


def _positions(n: int, count: int, seed: int):
    rng = np.random.default_rng(seed)
    deck = np.arange(1, n + 1)
    for _ in range(count):
        k = int(rng.integers(1, n + 1))
        pick = [frozenset(int(c) for c in rng.choice(deck, k, replace=False)) for _ in range(3)]
        yield Position(pick[0], (pick[1], pick[2]))


def test_every_layer_is_within_the_target_and_smaller_than_dense(seven):
    exact, path, meta = seven
    ranks = [layer["rank"] for layer in meta["layers"]]
    assert any(ranks), "no layer was factored"
    for layer in meta["layers"]:
        # the truncation meets the target; half-precision factors add at most a fifth
        assert layer["rms"] <= 1.2 * TARGET
    assert meta["bytes"] < exact.layout.size * 4  # smaller than the values as float32


def test_queries_match_the_exact_table(seven):
    exact, path, meta = seven
    table = open_compressed(path)
    worst = max(layer["max"] for layer in meta["layers"])
    for pos in _positions(7, 300, seed=1):
        assert table.value(pos) == pytest.approx(exact.value(pos), abs=worst + 1e-6)
        assert table.value(pos.swapped()) == pytest.approx(-table.value(pos), abs=1e-9)
        prize = min(pos.prizes)
        got, want = table.round_strategy(pos, prize), exact.round_strategy(pos, prize)
        assert got.value == pytest.approx(want.value, abs=worst + 1e-6)
        assert sum(got.a.values()) == pytest.approx(1.0)
    dense = table.values
    assert np.abs(dense - np.asarray(exact.values)).max() <= worst + 1e-6


def test_the_approximation_reads_either_table(seven):
    exact, path, meta = seven
    rs = Ruleset(cards=7, tie_rule="carry")
    a = CarryApproximation(rs, exact, 3)
    b = CarryApproximation(rs, open_compressed(path), 3)
    for pos in _positions(7, 60, seed=2):
        if pos.k <= 3:
            continue
        prize = max(pos.prizes)
        x, y = a.round_strategy(pos, prize), b.round_strategy(pos, prize)
        assert y.value == pytest.approx(x.value, abs=0.05)


def test_nash_plays_the_shipped_table_where_nothing_is_built(tmp_path, monkeypatch, nash_sources):
    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path))  # an empty cache: a fresh install
    for ties in ("discard", "carry"):
        rs = Ruleset(cards=11, tie_rule=ties)
        bot = NashBot(seed=3)
        bot.new_game(rs, 0)
        word = "COMPRESSED TABLE" if ties == "discard" else "COMPRESSED CARRY-OVER TABLE"
        assert word in bot.fallback_note
        sources = nash_sources(bot, rs, 4, "heuristic")
        assert "lookahead" not in sources
        assert sources[0] == "compressed"
        assert sources[-1] == "subgame"


def test_compressed_bot_best_response_matches_the_positional_one(tmp_path, monkeypatch):
    # the kernel's best response reads the values the bot plays from: it must equal the
    # position-by-position best response to the bot's actual mixes (6 cards, a coarse target
    # so that the layers are factored and the bot measurably exploitable)
    rs = Ruleset(cards=6, tie_rule="discard")
    meta = write_compressed(solve(rs), tmp_path / compressed_name(rs), 0.2)
    assert any(layer["rank"] for layer in meta["layers"])
    monkeypatch.setattr(comp, "DATA_DIR", tmp_path)
    comp._bundled.cache_clear()
    limit = 100  # small: the compressed table plays the rounds with 4 to 6 cards
    assert compressed_exact_layers(rs, limit) == 3
    src = EquilibriumSource(rs, subgame_limit=limit, use_table=False)
    assert isinstance(src.compressed, CompressedTable)
    kernel = best_response(rs, NashBot(subgame_limit=limit, use_table=False))
    positions = positional_best_response(rs, NashBot(subgame_limit=limit, use_table=False))
    comp._bundled.cache_clear()
    assert kernel.method == "kernel"
    assert kernel.values == pytest.approx(positions.values, abs=1e-9)
    assert kernel.exploitability > 1e-3  # measurably inexact at this coarse target


def test_shipped_tables_open_and_state_their_errors():
    shipped = sorted(comp.DATA_DIR.glob("*-discard-*.svd.npz"))
    assert shipped, "the package ships no compressed table"
    for path in shipped:
        table = open_compressed(path)
        assert path.name == compressed_name(table.ruleset)
        assert bundled_table(table.ruleset) is not None
        for layer in table.meta["layers"]:
            assert layer["rms"] <= 1.2 * table.meta["target_rms"]
        full = frozenset(table.ruleset.deck)
        assert table.value(Position(full, (full, full))) == pytest.approx(0.0, abs=1e-9)


# -- damaged files ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda a: a.pop("meta"), "bad compressed-table header"),
        (lambda a: set_meta(a, {**meta_of(a), "version": 99}), "version 99 is not supported"),
        (lambda a: set_meta(a, {**meta_of(a), "cards": "seven"}), "bad compressed-table header"),
        (lambda a: a.update(meta=np.frombuffer(b"\xff\xfe", dtype=np.uint8)), "bad compressed-table header"),
        (lambda a: a.pop(next(n for n in a if n.startswith("w"))), "is missing"),
        (lambda a: a.update({n: a[n][:-1] for n in a if n.startswith("p")}), "has shape"),
        (lambda a: a.update({n: a[n] * np.nan for n in a if n.startswith("w")}), "not finite"),
        (lambda a: a.update(codes=a["codes"][::-1].copy()), "do not match their checksum"),
        (lambda a: a.pop("code_off"), "pattern codes are missing"),
        (lambda a: a.update(codes=a["codes"].astype(float)), "pattern codes are missing"),
    ],
)
def test_damaged_files_are_refused(seven, tmp_path, change, message):
    _, path, _ = seven
    bad = rewrite(path, tmp_path / "bad.svd.npz", change)
    with pytest.raises(TableFileError, match=message):
        open_compressed(bad)


def test_truncated_and_foreign_files_are_refused(seven, tmp_path):
    _, path, _ = seven
    cut = tmp_path / "cut.svd.npz"
    cut.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(TableFileError, match="not a compressed table"):
        open_compressed(cut)
    other = tmp_path / "other.svd.npz"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("meta.npy", b"not an array")
    with pytest.raises(TableFileError, match="not a compressed table"):
        open_compressed(other)


def test_special_files_are_refused_without_blocking(tmp_path):
    fifo = tmp_path / "fifo.svd.npz"
    os.mkfifo(fifo)
    with pytest.raises(TableFileError):
        open_compressed(fifo)
    with pytest.raises(TableFileError):
        open_compressed(tmp_path)


def test_only_whole_discard_points_tables_are_compressed(tmp_path):
    with pytest.raises(ValueError, match="discard-ties tables of the points objective"):
        write_compressed(solve(Ruleset(cards=4, tie_rule="carry")), tmp_path / "x.npz")
    with pytest.raises(ValueError, match="discard-ties tables of the points objective"):
        write_compressed(solve(Ruleset(cards=4, tie_rule="discard"), "win"), tmp_path / "x.npz")


@pytest.mark.slow
def test_the_shipped_11_card_tables_hold_the_solvers_values():
    # the shipped data against a fresh exact solve (about 50 s each on one core; the two cores'
    # threads, which give the serial solve's values, test_values.py): every value within the
    # largest error the file states
    from cardtable.solver.layout import run_backward_induction
    from cardtable.solver.tables import full_layout

    for high in (False, True):
        rs = Ruleset(cards=11, tie_rule="discard", high_ace=high)
        shipped = bundled_table(rs)
        assert shipped is not None
        exact, _ = run_backward_induction(full_layout(rs, "points"), None, threads=2)
        worst = max(layer["max"] for layer in shipped.meta["layers"])
        diff = np.abs(shipped.values - np.asarray(exact))
        assert diff.max() <= worst + 1e-6
        assert np.sqrt(np.mean(diff**2)) <= 1.2 * shipped.meta["target_rms"]


def test_a_layer_of_near_zero_values_keeps_one_factor(tmp_path):
    # rank 0 would meet the target but leave the file without factors for the layer
    stored, stats = comp.compress_layer(np.full((5, 40), 1e-4), 0.01)
    assert stats["rank"] == 1 and stored["w"].shape == (5, 1) and stored["p"].shape == (40, 1)
