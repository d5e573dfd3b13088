"""Compressed carry-over tables (cardtable.solver.compressed_carry, lowrank): errors within the
target over the reachable slots, NaN where no game reaches, the streamed randomized fit equal to
the exact one, the nash bot playing the shipped table with nothing built, its best response equal
to the position-by-position one, and damaged files refused."""

from __future__ import annotations

import os

import numpy as np
import pytest
from npz_files import meta_of, rewrite, set_meta

from cardtable.goofspiel import Ruleset
from cardtable.solver import Position, lowrank
from cardtable.solver import compressed as comp
from cardtable.solver import compressed_carry as cc
from cardtable.solver.approx import exact_layers
from cardtable.solver.equilibrium import EquilibriumSource
from cardtable.solver.exploit import best_response, positional_best_response
from cardtable.solver.layers import open_layered, solve_layered
from cardtable.solver.lean import expand_layer
from cardtable.solver.position import ImpossiblePosition
from cardtable.solver.tables import TableFileError
from cardtable.strategy.nash import NashBot

TARGET = 0.005
LO = 4


@pytest.fixture(scope="module")
def eight(tmp_path_factory):
    """(exact 8-card carry-over table, its compressed file (layers 4..8), the meta)."""
    rs = Ruleset(cards=8, tie_rule="carry")
    folder = tmp_path_factory.mktemp("carry-compressed")
    solve_layered(rs, "points", folder / "table")
    exact = open_layered(folder / "table")
    path = folder / cc.carry_compressed_name(rs)
    meta = cc.write_compressed_carry(exact, path, LO, TARGET)
    return exact, path, meta


def _positions(table, count: int, seed: int, lowest: int):
    """Random positions of the game with at least ``lowest`` cards per hand and a pot the
    table holds a value for."""
    rng = np.random.default_rng(seed)
    deck = np.arange(1, table.ruleset.cards + 1)
    out = []
    while len(out) < count:
        k = int(rng.integers(lowest, table.ruleset.cards + 1))
        prizes, a, b = (frozenset(int(c) for c in rng.choice(deck, k, replace=False)) for _ in range(3))
        gone = sorted(set(range(1, table.ruleset.cards + 1)) - prizes)
        pot = int(sum(rng.choice(gone, int(rng.integers(0, len(gone) + 1)), replace=False))) if gone else 0
        pos = Position(prizes, (a, b), pot)
        try:
            table.value(pos)
        except ImpossiblePosition:
            continue
        out.append(pos)
    return out


def test_every_layer_meets_the_target_on_the_reachable_slots(eight):
    exact, path, meta = eight
    assert [layer["k"] for layer in meta["layers"]] == list(range(LO, 9))
    assert any(layer["rank"] for layer in meta["layers"]), "no layer was factored"
    table = cc.open_compressed_carry(path)
    for layer in meta["layers"]:
        k = layer["k"]
        assert layer["rms"] <= TARGET
        want = expand_layer(exact.lay, k, exact.layers[k]).ravel()  # the full layout's slots
        got = table.layers[k].matrix().ravel().astype(np.float64)
        assert np.array_equal(np.isnan(got), np.isnan(want)), f"layer {k}: NaN where no game reaches"
        err = (got - want)[~np.isnan(want)]
        assert np.sqrt(np.mean(err**2)) == pytest.approx(layer["rms"], rel=1e-3, abs=1e-6)
        assert np.abs(err).max() <= layer["max"] + 1e-6
    assert meta["bytes"] < sum(4 * exact.lay.layer_size(k) for k in range(LO, 9))


def test_queries_match_the_exact_table(eight):
    exact, path, meta = eight
    table = cc.open_compressed_carry(path)
    worst = max(layer["max"] for layer in meta["layers"])
    for pos in _positions(exact, 200, seed=1, lowest=LO):
        assert table.value(pos) == pytest.approx(exact.value(pos), abs=worst + 1e-6)
        if pos.k > LO:
            prize = min(pos.prizes)
            got, want = table.round_strategy(pos, prize), exact.round_strategy(pos, prize)
            assert got.value == pytest.approx(want.value, abs=worst + 1e-6)
            assert sum(got.a.values()) == pytest.approx(1.0)


def test_positions_below_the_stored_layers_are_refused(eight):
    exact, path, _ = eight
    table = cc.open_compressed_carry(path)
    low = _positions(exact, 1, seed=2, lowest=1)[0]
    while low.k >= LO:
        low = _positions(exact, 1, seed=low.k + 3, lowest=1)[0]
    with pytest.raises(ImpossiblePosition, match="4 or more cards"):
        table.value(low)
    at_lo = next(p for p in _positions(exact, 50, seed=3, lowest=LO) if p.k == LO)
    with pytest.raises(ImpossiblePosition, match="more than 4 cards"):
        table.round_strategy(at_lo, min(at_lo.prizes))
    with pytest.raises(TableFileError, match="no format-1 view"):
        table.values  # noqa: B018  (the property raises)


def test_the_streamed_randomized_fit_equals_the_exact_one(eight, monkeypatch):
    exact, _, _ = eight
    lay = exact.lay
    k = 5
    M = expand_layer(lay, k, exact.layers[k], np.float32)
    fewest, allowed = cc._layer_reach(lay, k)
    whole = lowrank.fit_layer(M, fewest, allowed, TARGET)
    monkeypatch.setattr(lowrank, "EXACT_MAX", 10)  # the randomized path ...
    monkeypatch.setattr(lowrank, "BLOCK_VALUES", 4 * M.shape[1])  # ... in blocks of 4 rows
    streamed = lowrank.fit_layer(M, fewest, allowed, TARGET, sketch=min(M.shape))
    assert whole.rank > 0
    assert streamed.rank == whole.rank
    assert streamed.rms == pytest.approx(whole.rms, rel=1e-3)
    assert streamed.rms <= TARGET


def test_a_sketch_too_small_for_the_target_is_an_error(eight, monkeypatch):
    exact, _, _ = eight
    lay = exact.lay
    M = expand_layer(lay, 5, exact.layers[5], np.float32)
    fewest, allowed = cc._layer_reach(lay, 5)
    monkeypatch.setattr(lowrank, "EXACT_MAX", 10)
    with pytest.raises(ValueError, match="raise the sketch"):
        lowrank.fit_layer(M, fewest, allowed, 1e-6, sketch=2)


def _use_folder(monkeypatch, folder):
    monkeypatch.setattr(comp, "DATA_DIR", folder)
    comp._bundled.cache_clear()


def test_nash_plays_the_compressed_carry_table_then_exact_subgames(
    eight, tmp_path, monkeypatch, nash_sources
):
    _, path, _ = eight
    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path))  # nothing built
    _use_folder(monkeypatch, path.parent)
    rs = Ruleset(cards=8, tie_rule="carry")
    limit = 1_000  # small: exact subgames from 4 cards per hand, the table above
    assert exact_layers(rs, limit) == LO
    bot = NashBot(seed=1, subgame_limit=limit, use_table=False)
    bot.new_game(rs, 0)
    assert "COMPRESSED CARRY-OVER TABLE" in bot.fallback_note
    sources = nash_sources(bot, rs, 5, "heuristic")
    comp._bundled.cache_clear()
    assert sources[: 8 - LO] == ["compressed"] * (8 - LO)
    assert set(sources[8 - LO :]) == {"subgame"}


def test_a_table_starting_above_the_exact_rounds_is_not_played(eight, tmp_path, monkeypatch):
    # the table's lowest layer must be read by the first exact round's parent: with a larger
    # subgame limit the exact rounds start lower, and the table (layers 4..8) still covers them;
    # with a smaller one they start below 4 and the table cannot be played
    _, path, _ = eight
    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path))
    _use_folder(monkeypatch, path.parent)
    rs = Ruleset(cards=8, tie_rule="carry")
    assert exact_layers(rs, 50) < LO
    src = EquilibriumSource(rs, subgame_limit=50, use_table=False)
    comp._bundled.cache_clear()
    assert src.compressed is None


def test_compressed_carry_best_response_matches_the_positional_one(tmp_path, monkeypatch):
    # the kernel's best response reads the values the bot plays from; it must equal the
    # position-by-position best response to the bot's actual mixes (5 cards: rounds 1-3 from the
    # compressed values, 4-5 exact; a coarse target so that the bot is measurably exploitable)
    rs = Ruleset(cards=5, tie_rule="carry")
    solve_layered(rs, "points", tmp_path / "table")
    meta = cc.write_compressed_carry(
        open_layered(tmp_path / "table"), tmp_path / cc.carry_compressed_name(rs), 2, 0.3
    )
    assert sum(1 for layer in meta["layers"] if layer["rank"]) >= 2
    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path / "empty"))
    _use_folder(monkeypatch, tmp_path)
    limit = 10
    assert exact_layers(rs, limit) == 2
    src = EquilibriumSource(rs, subgame_limit=limit, use_table=False)
    assert isinstance(src.compressed, cc.CompressedCarryTable)
    kernel = best_response(rs, NashBot(subgame_limit=limit, use_table=False))
    positions = positional_best_response(rs, NashBot(subgame_limit=limit, use_table=False))
    comp._bundled.cache_clear()
    assert kernel.method == "kernel"
    assert kernel.values == pytest.approx(positions.values, abs=1e-9)
    assert kernel.exploitability > 1e-3  # measurably inexact at this coarse target


def test_shipped_carry_tables_open_and_state_their_errors():
    shipped = sorted(comp.DATA_DIR.glob("gops-n*-carry-*.svd.npz"))
    assert shipped, "the package ships no compressed carry-over table"
    for path in shipped:
        table = cc.open_compressed_carry(path)
        assert path.name == cc.carry_compressed_name(table.ruleset)
        assert cc.bundled_carry_table(table.ruleset) is not None
        assert table.lo == exact_layers(table.ruleset)  # the layers the default bot reads
        for layer in table.meta["layers"]:
            assert layer["rms"] <= table.meta["target_rms"]
        full = frozenset(table.ruleset.deck)
        assert table.value(Position(full, (full, full))) == pytest.approx(0.0, abs=1e-6)


# -- damaged files ---------------------------------------------------------------------------


def _set_meta(arrays, **fields):
    set_meta(arrays, {**meta_of(arrays), **fields})


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda a: a.pop("meta"), "bad compressed-table header"),
        (lambda a: _set_meta(a, version=99), "not a compressed carry-over table of version"),
        (lambda a: _set_meta(a, tie_rule="discard"), "not a compressed carry-over table of version"),
        (lambda a: _set_meta(a, cards="eight"), "bad compressed-table header"),
        (lambda a: _set_meta(a, cards=7), "its layout is not the one"),
        (lambda a: _set_meta(a, layout_sha256="0" * 64), "its layout is not the one"),
        (lambda a: _set_meta(a, lo=0), "its layout is not the one"),
        (lambda a: a.update(meta=np.frombuffer(b"\xff\xfe", dtype=np.uint8)), "bad compressed-table header"),
        (lambda a: a.pop(next(n for n in a if n.startswith("w"))), "is missing"),
        (lambda a: a.update({n: a[n][:-1] for n in a if n.startswith("p")}), "has shape"),
        (lambda a: a.update({n: a[n].astype(np.int64) for n in a if n.startswith("w")}), "has shape"),
        (lambda a: a.update({n: a[n] * np.nan for n in a if n.startswith("w")}), "not finite"),
        (lambda a: a.update({n: a[n][:, :0] for n in a if n[0] in "pw"}), "no factor"),
    ],
)
def test_damaged_files_are_refused(eight, tmp_path, change, message):
    _, path, _ = eight
    bad = rewrite(path, tmp_path / "bad.svd.npz", change)
    with pytest.raises(TableFileError, match=message):
        cc.open_compressed_carry(bad)


def test_truncated_special_and_foreign_files_are_refused(eight, tmp_path):
    _, path, _ = eight
    cut = tmp_path / "cut.svd.npz"
    cut.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(TableFileError, match="not a compressed table"):
        cc.open_compressed_carry(cut)
    fifo = tmp_path / "fifo.svd.npz"
    os.mkfifo(fifo)
    with pytest.raises(TableFileError):
        cc.open_compressed_carry(fifo)
    with pytest.raises(TableFileError):
        cc.open_compressed_carry(tmp_path)
    discard = sorted(comp.DATA_DIR.glob("*-discard-*.svd.npz"))[0]
    with pytest.raises(TableFileError, match="not a compressed carry-over table"):
        cc.open_compressed_carry(discard)


def test_only_complete_carry_points_tables_are_compressed(eight, tmp_path):
    exact, _, _ = eight
    with pytest.raises(ValueError, match="lo must be a layer"):
        cc.write_compressed_carry(exact, tmp_path / "x.npz", 0)
    rs = Ruleset(cards=5, tie_rule="carry")
    solve_layered(rs, "points", tmp_path / "low", upto=3)
    with pytest.raises(ValueError, match="complete carry-over tables"):
        cc.write_compressed_carry(open_layered(tmp_path / "low", low=True), tmp_path / "x.npz", 2)


@pytest.mark.parametrize("cards, lo", [(6, 3), (8, 4)])
def test_the_layered_best_response_equals_the_whole_game_one(tmp_path, cards, lo):
    # the lean, two-layers-at-a-time best response (the one 12 and 13 cards need) against the
    # format-1 kernel over the whole game, on a coarse file so that the bot is exploitable
    from cardtable.solver.equilibrium import carry_compressed_values
    from cardtable.solver.exploit_kernel import layout_best_response
    from cardtable.solver.exploit_lean import compressed_carry_best_response

    rs = Ruleset(cards=cards, tie_rule="carry")
    solve_layered(rs, "points", tmp_path / "table")
    exact = open_layered(tmp_path / "table")
    path = tmp_path / cc.carry_compressed_name(rs)
    cc.write_compressed_carry(exact, path, lo, 0.2)
    table = cc.open_compressed_carry(path)
    v0, v1, stats = compressed_carry_best_response(table, exact, lo)
    lay, vals, below = carry_compressed_values(table, lo)
    w0, w1, _ = layout_best_response(lay, vals, exact_below=below)
    assert v0 == pytest.approx(w0, abs=1e-5) and v1 == pytest.approx(w1, abs=1e-5)
    assert (v0 + v1) / 2 > 1e-3  # measurably exploitable at this coarse target
    with pytest.raises(ValueError, match="exact must be a layer"):
        compressed_carry_best_response(table, exact, lo - 1)


def test_a_recorded_exploitability_is_read_only_for_the_same_bytes(eight, tmp_path):
    _, path, _ = eight
    copy = tmp_path / path.name
    copy.write_bytes(path.read_bytes())
    assert comp.measured_exploitability(copy) is None  # nothing recorded
    comp.record_exploitability(copy, 0.125, "a test")
    assert comp.measured_exploitability(copy) == 0.125
    copy.write_bytes(path.read_bytes()[:-1] + b"x")  # other bytes: the figure no longer applies
    assert comp.measured_exploitability(copy) is None
    (tmp_path / comp.MEASURED_NAME).write_text("{not json")
    assert comp.measured_exploitability(copy) is None
    assert comp.measured_exploitability(None) is None


def test_the_bot_and_its_hints_state_the_measured_exploitability(tmp_path, monkeypatch):
    from cardtable.goofspiel import Game
    from cardtable.strategy.coach import hint

    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path))  # a fresh install
    rs = Ruleset(cards=11, tie_rule="carry")
    shipped = cc.bundled_carry_table(rs)
    measured = comp.measured_exploitability(shipped.path)
    assert measured is not None and 0 < measured < 0.25  # recorded for the shipped bytes
    bot = NashBot(seed=1)
    bot.new_game(rs, 0)
    assert f"measured exploitability {measured:.3f} points per game" in bot.fallback_note
    got = hint(bot, Game(rs, seed=2).view(0))
    assert got["source"].startswith("compressed table") and f"{measured:.3f}" in got["source"]
