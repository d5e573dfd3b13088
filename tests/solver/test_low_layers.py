"""Low layers (docs/solver.md, Low layers): layers 1..K of a carry-over table, solved
on their own (``cardtable solve --layers K``) or in memory, read by the ``nash`` bot's
exact subgames instead of searched; same equilibrium, fewer matrix games, damaged
files refused."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.goofspiel import Ruleset
from cardtable.platform.storage import cache_dir
from cardtable.solver import Position, equilibrium, solve
from cardtable.solver.approx import exact_layers
from cardtable.solver.equilibrium import EquilibriumSource, low_layers
from cardtable.solver.layers import (
    LOW_MANIFEST,
    open_layered,
    solve_layered,
    solve_low_in_memory,
)
from cardtable.solver.layout import SolverError
from cardtable.solver.position import ImpossiblePosition
from cardtable.solver.round_subgame import (
    read_low_layers,
    restrict_to_prize,
    solve_round_subgame,
)
from cardtable.solver.table import (
    FORMAT_LAYERED,
    TableFileError,
    default_path,
    subgame_layout,
)

RS8 = Ruleset(cards=8, tie_rule="carry")
# 3 rounds played (A's 8 beat B's 5 for the 2, then both bid 3 for the 7 and 4 for the 6:
# 13 points in the pot)
POT_POS = Position(frozenset({1, 3, 4, 5, 8}), (frozenset({1, 2, 5, 6, 7}), frozenset({1, 2, 6, 7, 8})), 13)
# 1 round played (the 4, won by A's 6 over B's 2)
EARLY_POS = Position(
    frozenset({1, 2, 3, 5, 6, 7, 8}), (frozenset({1, 2, 3, 4, 5, 7, 8}), frozenset({1, 3, 4, 5, 6, 7, 8})), 0
)


@pytest.fixture(scope="module")
def low8():
    return solve_low_in_memory(RS8, 4)


@pytest.mark.parametrize("pos,prize", [(POT_POS, 8), (POT_POS, 1), (EARLY_POS, 5), (EARLY_POS, 8)])
def test_subgame_on_low_layers_has_the_searched_equilibrium(low8, pos, prize):
    searched = solve_round_subgame(RS8, pos, prize)
    read = solve_round_subgame(RS8, pos, prize, low=low8)
    assert read.stats["low_layers"] == min(4, pos.k - 1)
    assert read.stats["games"] < searched.stats["games"]
    a, b = searched.round_strategy(pos, prize), read.round_strategy(pos, prize)
    assert np.allclose(a.matrix, b.matrix, atol=1e-5)  # float32 storage of the low layers
    assert b.value == pytest.approx(a.value, abs=1e-5)
    # every slot the search filled holds the same value when read (none left out)
    both = ~np.isnan(searched.values)
    assert not np.isnan(read.values[both]).any()
    assert np.max(np.abs(read.values[both] - searched.values[both])) < 1e-5


def test_low_layers_of_another_deck_or_too_few_are_refused(low8):
    rs7 = Ruleset(cards=7, tie_rule="carry")
    low7 = solve_low_in_memory(rs7, 2)
    # the 8-card subgame's prize 8 does not exist in the 7-card table
    lay = restrict_to_prize(subgame_layout(RS8, POT_POS), 0)
    with pytest.raises(SolverError, match="another deck"):
        read_low_layers(lay, low7, 2, np.full(lay.size, np.nan))
    with pytest.raises(SolverError, match="do not fit"):
        read_low_layers(lay, low7, 3, np.full(lay.size, np.nan))
    with pytest.raises(ValueError, match="upto"):
        solve_low_in_memory(rs7, 7)


def test_stored_low_layers_equal_the_in_memory_ones_and_resume_into_the_table(tmp_path):
    rs = Ruleset(cards=6, tie_rule="carry")
    folder = tmp_path / "t6"
    manifest = solve_layered(rs, "points", folder, upto=3)
    assert manifest["upto"] == 3 and len(manifest["layers"]) == 3
    assert (folder / LOW_MANIFEST).is_file() and not (folder / "table.json").exists()
    assert not (folder / "layer-04.f32").exists()
    low = open_layered(folder, low=True)
    mem = solve_low_in_memory(rs, 3)
    assert low.upto == 3
    for k in (1, 2, 3):
        assert np.asarray(low.layers[k]).tobytes() == mem.layers[k].tobytes()
    with pytest.raises(TableFileError, match="unfinished"):
        open_layered(folder)
    with pytest.raises(ImpossiblePosition, match="at most 3 cards"):
        low.value(Position(frozenset({1, 2, 3, 4}), (frozenset({1, 2, 3, 4}),) * 2))
    low.close()
    full = solve_layered(rs, "points", folder)
    assert full["stats"]["resumed_layers"] == [1, 2, 3]
    table = open_layered(folder)
    assert table.upto == 6
    solve_layered(rs, "points", tmp_path / "fresh")  # the same table solved in one go
    fresh = open_layered(tmp_path / "fresh")
    for k in range(1, 7):
        assert np.asarray(table.layers[k]).tobytes() == np.asarray(fresh.layers[k]).tobytes()


def _forge(folder, change):
    path = folder / LOW_MANIFEST
    m = json.loads(path.read_text())
    change(m)
    from cardtable.solver.layers import _manifest_digest

    m["digest"] = _manifest_digest(m)
    path.write_text(json.dumps(m))


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "upto 9", "upto 4", "upto true", "not json"])
def test_damaged_low_layers_are_refused_and_the_source_says_so(tmp_path, damage):
    rs = Ruleset(cards=6, tie_rule="carry")
    folder = default_path(rs, "points", tmp_path, FORMAT_LAYERED)
    solve_layered(rs, "points", folder, upto=3)
    layer = folder / "layer-02.f32"
    if damage == "flip a byte":
        data = bytearray(layer.read_bytes())
        data[5] ^= 0x40
        layer.write_bytes(bytes(data))
    elif damage == "truncate":
        layer.write_bytes(layer.read_bytes()[:-4])
    elif damage == "not json":
        (folder / LOW_MANIFEST).write_text("{not json")
    else:
        value = {"upto 9": 9, "upto 4": 4, "upto true": True}[damage]
        _forge(folder, lambda m: m.update(upto=value))
    with pytest.raises(TableFileError):
        open_layered(folder, low=True)
    with pytest.raises(TableFileError):
        low_layers(rs, tmp_path)


def test_the_nash_source_reads_stored_low_layers_and_plays_exact_a_round_earlier(tmp_path, monkeypatch):
    # 8 cards with a small limit stand for 13 cards with the default one: the stored layers
    # 1..5 move the exact start from 6 to 7 cards left (the 7-card subgame above them costs
    # less work than the 6-card one without them; layers 1..4 would not: exact_layers)
    monkeypatch.setattr(equilibrium, "LOW_SOLVE_MAX", 0)  # no in-memory low layers: the stored ones only
    limit = 40_000  # small enough that the approximation plays the first rounds of 8 cards
    plain = EquilibriumSource(RS8, subgame_limit=limit, cache=tmp_path)
    assert plain.low is None and plain.approx is not None
    r = CliRunner().invoke(
        app, ["solve", "-n", "8", "--ties", "carry", "--layers", "5", "--cache", str(tmp_path)]
    )
    assert r.exit_code == 0, r.output
    src = EquilibriumSource(RS8, subgame_limit=limit, cache=tmp_path)
    assert src.low_upto == 5 and src.low.path is not None
    assert src.approx.exact == exact_layers(RS8, limit, 5) > plain.approx.exact == exact_layers(RS8, limit)
    k = src.approx.exact  # the first round played exactly with the low layers, approximately without
    pos = Position(frozenset(range(9 - k, 9)), (frozenset(range(9 - k, 9)),) * 2, 0)
    assert plain.strategy(pos, 8)[1] == "approximation"
    mix, source = src.strategy(pos, 8)
    assert source == "subgame" and src.sub.stats["low_layers"] == 5
    want = solve(RS8).round_strategy(pos, 8)
    assert mix == pytest.approx(want.a, abs=1e-5)


def test_nine_cards_carry_over_are_played_exactly_from_the_first_move():
    # layers 1..6 solved in memory leave 120,177 games above them (5.9 million units of work,
    # less than the 8-card subgame's 12.7 million without them): the whole 9-card game is an
    # exact subgame (exploitability 0)
    src = EquilibriumSource(Ruleset(cards=9, tie_rule="carry"))
    assert src.low_upto == 6 and src.approx is None and src.whole_game_fits()
    assert "whole game is solved at the first move" in src.note()


def test_cli_low_layers_and_bad_values(tmp_path):
    def run(*args):
        r = CliRunner().invoke(app, ["solve", "-n", "6", "--cache", str(tmp_path), *args])
        return r.exit_code, " ".join(r.output.split())

    folder = default_path(Ruleset(cards=6, tie_rule="carry"), "points", tmp_path, FORMAT_LAYERED)
    for bad, why in (
        (["--layers", "0"], "layer 1..5"),
        (["--layers", "6"], "layer 1..5"),
        (["--layers", "-2"], "layer 1..5"),
        (["--ties", "discard", "--layers", "2"], "carry-over ties"),
        (["--objective", "win", "--layers", "2"], "points objective"),
        (["--format", "1", "--layers", "2"], "format 2"),
    ):
        code, out = run(*bad)
        assert code == 2 and why in out, (bad, out)
        assert not folder.exists() and not list(tmp_path.iterdir())  # nothing written
    code, out = run("--layers", "3")
    assert code == 0, out
    assert "solved layers 1..3" in out and "low layers:" in out
    assert (folder / LOW_MANIFEST).is_file() and not (folder / "table.json").exists()
    code, out = run("--layers", "3")  # again: verified and kept
    assert code == 0 and "resumed layers [1, 2, 3]" in out, out
    code, out = run()
    assert code == 0 and "resumed layers [1, 2, 3]" in out and "value of the game" in out, out
    assert cache_dir() != tmp_path


def test_analysis_plays_exact_where_the_bot_does_and_matches_the_bot(tmp_path):
    from cardtable.goofspiel import Game
    from cardtable.platform.bot import load_bot
    from cardtable.solver.analysis import analyze_game
    from cardtable.strategy.nash import NashBot

    rs = Ruleset(cards=10, tie_rule="carry")
    game = Game(rs, seed=11)
    nash, other = NashBot(seed=3), load_bot("goofspiel", "heuristic", seed=4)
    nash.new_game(rs, 0)
    other.new_game(rs, 1)
    mixes = []
    while not game.is_over:
        view = game.view(0)
        mixes.append((nash.policy(view), nash.last_source))
        game.play([nash.act(view), other.act(game.view(1))])
    rounds = analyze_game(game, cache=tmp_path)
    # 10 cards: one round from the shipped compressed carry-over table, then exact from 9 cards
    # left (low layers 1..6 in memory); the analysis plays from the same sources as the bot
    want = ["compressed", "subgame", "subgame"]
    assert [r.source for r in rounds[:3]] == want
    assert [s for _, s in mixes[:3]] == want
    for r, (mix, _) in zip(rounds, mixes, strict=True):  # the coach shows the mixes the bot plays
        got = {c: p for c, p in r.strategy.a.items() if p > 1e-9}
        assert got == pytest.approx({c: p for c, p in mix.items() if p > 1e-9}, abs=1e-6)


def test_another_games_low_layers_under_this_name_are_refused_and_good_ones_verified_once(tmp_path):
    from cardtable.solver.table import TableMismatchError

    rs6, rs7 = Ruleset(cards=6, tie_rule="carry"), Ruleset(cards=7, tie_rule="carry")
    solve_layered(rs7, "points", default_path(rs7, "points", tmp_path, FORMAT_LAYERED), upto=3)
    default_path(rs7, "points", tmp_path, FORMAT_LAYERED).rename(
        default_path(rs6, "points", tmp_path, FORMAT_LAYERED)
    )
    with pytest.raises(TableMismatchError, match="copied or renamed"):
        low_layers(rs6, tmp_path)
    good = tmp_path / "good"
    solve_layered(rs7, "points", default_path(rs7, "points", good, FORMAT_LAYERED), upto=3)
    first = low_layers(rs7, good)
    assert first.upto == 3 and low_layers(rs7, good) is first  # verified once, then shared


def test_analysis_of_a_nine_card_game_is_exact_from_the_first_round(tmp_path):
    # the whole 9-card game fits the limit above the low layers: no approximate round, no
    # "not solved" round (the coach counts the subgame as the bot does)
    from cardtable.goofspiel.autoplay import play_game
    from cardtable.platform.bot import load_bot
    from cardtable.solver.analysis import analyze_game

    rs = Ruleset(cards=9, tie_rule="carry")
    game = play_game(
        rs, [load_bot("goofspiel", "heuristic", seed=1), load_bot("goofspiel", "random", seed=2)], seed=2
    )
    rounds = analyze_game(game, cache=tmp_path)
    assert [r.source for r in rounds] == ["subgame"] * 9
    assert rounds[0].expected_before == pytest.approx(0, abs=1e-5)  # the game's value


# -- hostile caches (a session that tried to break the low layers found these) ----------------


def _six(tmp_path, upto=3):
    rs = Ruleset(cards=6, tie_rule="carry")
    folder = default_path(rs, "points", tmp_path, FORMAT_LAYERED)
    solve_layered(rs, "points", folder, upto=upto)
    return rs, folder


def test_another_games_layers_with_a_forged_manifest_are_refused(tmp_path):
    # a high-ace folder whose manifest was edited to low ace (digest recomputed): the layout it
    # lists is not the low-ace game's, so it is refused on opening, not at the first exact move
    rs = Ruleset(cards=6, tie_rule="carry")
    high = Ruleset(cards=6, tie_rule="carry", high_ace=True)
    folder = default_path(rs, "points", tmp_path, FORMAT_LAYERED)
    solve_layered(high, "points", folder, upto=3)
    _forge(folder, lambda m: m.update(high_ace=False))
    with pytest.raises(TableFileError, match="not the one of"):
        low_layers(rs, tmp_path)
    # the same for a complete table's table.json
    full = tmp_path / "full"
    tfolder = default_path(rs, "points", full, FORMAT_LAYERED)
    solve_layered(high, "points", tfolder)
    m = json.loads((tfolder / "table.json").read_text())
    m["high_ace"] = False
    from cardtable.solver.layers import _manifest_digest
    from cardtable.solver.table import load_table

    m["digest"] = _manifest_digest(m)
    (tfolder / "table.json").write_text(json.dumps(m))
    with pytest.raises(TableFileError, match="not the one of"):
        load_table(rs, "points", full)


def test_a_crafted_layout_with_matching_checksums_is_never_used(tmp_path):
    # index arrays that would send the gather kernel outside its arrays (a crash, not an
    # error) are not read at all: the layout is rebuilt from the game, and this one differs
    import hashlib

    from cardtable.solver.layers import _load_layout, sha256_file

    rs, folder = _six(tmp_path)
    lay = _load_layout(folder / "layout.npz")
    arrs = lay.arrays()
    arrs["skoff"] = arrs["skoff"].copy()
    arrs["skoff"][3] = 10**12
    np.savez(folder / "layout.npz", **arrs)
    forged = type(lay).from_arrays(arrs)
    _forge(
        folder,
        lambda m: m.update(
            layout_sha256=forged.digest(), layout_file_sha256=sha256_file(folder / "layout.npz")
        ),
    )
    assert hashlib.sha256((folder / "layout.npz").read_bytes()).hexdigest() == sha256_file(
        folder / "layout.npz"
    )
    with pytest.raises(TableFileError, match="not the one of"):
        low_layers(rs, tmp_path)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, 1e30, 22.0])
def test_values_outside_the_game_are_refused_even_with_matching_checksums(tmp_path, bad):
    import hashlib

    rs, folder = _six(tmp_path)  # 6 cards: no value exceeds the 21 prize points
    layer = folder / "layer-03.f32"
    vals = np.fromfile(layer, dtype="<f4")
    vals[7] = bad
    vals.astype("<f4").tofile(layer)
    sha = hashlib.sha256(layer.read_bytes()).hexdigest()
    _forge(folder, lambda m: m["layers"][2].update(sha256=sha))
    with pytest.raises(TableFileError, match="values outside"):
        low_layers(rs, tmp_path)


def test_files_changed_after_opening_are_verified_again(tmp_path):
    # layers are memory-mapped (13 cards, layers 1..6: 1.6 GiB) and verified once per process
    # while unchanged; a layer edited in place afterwards is verified again at the next load
    # (before: reused through the old map, wrong mixes without an error)
    from cardtable.solver.table import load_table

    rs, folder = _six(tmp_path, upto=4)
    src = EquilibriumSource(rs, subgame_limit=200, cache=tmp_path)
    assert src.low_upto == 4 and src.low.path == folder
    assert low_layers(rs, tmp_path) is src.low  # unchanged: shared
    layer = folder / "layer-04.f32"
    data = bytearray(layer.read_bytes())
    data[9] ^= 0x10
    layer.write_bytes(bytes(data))
    with pytest.raises(TableFileError, match="checksum"):
        low_layers(rs, tmp_path)
    # the same for a complete table
    full = tmp_path / "full"
    tfolder = default_path(rs, "points", full, FORMAT_LAYERED)
    solve_layered(rs, "points", tfolder)
    assert load_table(rs, "points", full) is load_table(rs, "points", full)
    data = bytearray((tfolder / "layer-05.f32").read_bytes())
    data[9] ^= 0x10
    (tfolder / "layer-05.f32").write_bytes(bytes(data))
    with pytest.raises(TableFileError, match="checksum"):
        load_table(rs, "points", full)


def test_fewer_stored_layers_than_the_in_memory_ones_are_not_used(tmp_path):
    rs = Ruleset(cards=9, tie_rule="carry")
    solve_layered(rs, "points", default_path(rs, "points", tmp_path, FORMAT_LAYERED), upto=2)
    low = low_layers(rs, tmp_path)
    assert low.upto == 6 and low.path is None  # the 9-card game stays exact from its first move


def test_a_dangling_manifest_link_is_refused_not_ignored(tmp_path):
    rs = Ruleset(cards=6, tie_rule="carry")
    folder = default_path(rs, "points", tmp_path, FORMAT_LAYERED)
    folder.mkdir(parents=True)
    (folder / LOW_MANIFEST).symlink_to(tmp_path / "nowhere.json")
    with pytest.raises(TableFileError):
        low_layers(rs, tmp_path)


def test_cli_layers_never_loses_or_downgrades_a_table(tmp_path):
    def run(*args):
        r = CliRunner().invoke(app, ["solve", "-n", "6", "--cache", str(tmp_path), *args])
        return r.exit_code, " ".join(r.output.split())

    folder = default_path(Ruleset(cards=6, tie_rule="carry"), "points", tmp_path, FORMAT_LAYERED)
    assert run("--layers", "3")[0] == 0
    good = (folder / LOW_MANIFEST).read_bytes()
    # a run that fails (a folder where layer 4 belongs) keeps the low layers it had
    (folder / "layer-04.f32").mkdir()
    code, out = run("--layers", "4")
    assert code == 1 and "cannot write the table" in out
    assert (folder / LOW_MANIFEST).read_bytes() == good and open_layered(folder, low=True).upto == 3
    (folder / "layer-04.f32").rmdir()
    # a complete table is not replaced by its low layers, and a damaged one is not said repaired
    assert run()[0] == 0
    code, out = run("--layers", "3", "--force")
    assert code == 1 and "would replace it by its layers 1..3" in out
    assert (folder / "table.json").is_file() and open_layered(folder).upto == 6
    code, out = run("--layers", "3")
    assert code == 0 and "already solved" in out
    (folder / "table.json").write_text("junk")
    code, out = run("--layers", "3")
    assert code == 1 and "does not repair a complete table" in out
    assert (folder / "table.json").read_text() == "junk"  # nothing changed
    code, out = (
        CliRunner().invoke(app, ["solve", "-n", "1", "--layers", "1", "--cache", str(tmp_path)]).exit_code,
        "",
    )
    assert code == 2


def test_cli_refuses_to_overwrite_another_games_low_layers(tmp_path):
    rs6, rs7 = Ruleset(cards=6, tie_rule="carry"), Ruleset(cards=7, tie_rule="carry")
    other = default_path(rs7, "points", tmp_path, FORMAT_LAYERED)
    solve_layered(rs7, "points", other, upto=3)
    other.rename(default_path(rs6, "points", tmp_path, FORMAT_LAYERED))
    r = CliRunner().invoke(app, ["solve", "-n", "6", "--layers", "3", "--cache", str(tmp_path)])
    assert r.exit_code == 1 and "copied or renamed" in " ".join(r.output.split())


def test_low_layers_never_make_the_first_exact_move_slower():
    # exact_layers moves the start only as far as the subgame's work above the low layers stays
    # within the work of the first exact subgame without them
    from cardtable.solver.approx import subgame_cost

    for n in (9, 13):
        rs = Ruleset(cards=n, tie_rule="carry")
        base = exact_layers(rs)
        assert base == 8
        for above in (4, 5, 6):
            k = exact_layers(rs, above=above)
            assert subgame_cost(rs, k, above)[1] <= subgame_cost(rs, base)[1]
            if k < n:  # the next round would cost more
                nxt = subgame_cost(rs, k + 1, above)
                assert nxt[0] > 2_000_000 or nxt[1] > subgame_cost(rs, base)[1]
        assert exact_layers(rs, above=5) == 8 and exact_layers(rs, above=6) == 9
