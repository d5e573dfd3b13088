"""Table files: round trip, memory mapping, and damage detection (checksums)."""

from __future__ import annotations

import numpy as np
import pytest

from cardtable.goofspiel import Ruleset
from cardtable.solver import (
    Position,
    TableFileError,
    load_table,
    open_table,
    solve,
    write_table,
)
from cardtable.solver.table import default_path


@pytest.fixture
def written(tmp_path):
    rs = Ruleset(cards=5, tie_rule="carry")
    table = solve(rs)
    path = write_table(table, tmp_path / "t.ctt")
    return table, path


def test_round_trip_is_exact_and_memory_mapped(written):
    table, path = written
    back = open_table(path)
    assert not back.values.flags.owndata  # a view into the mapped file, not a loaded copy
    assert np.array_equal(np.nan_to_num(back.values, nan=7.5), np.nan_to_num(table.values, nan=7.5))
    f = frozenset(range(1, 6))
    pos = Position(f - {2, 4}, (f - {3, 5}, f - {1, 3}), 2)  # A's 5 took the 4; both bid 3 for the 2
    assert back.value(pos) == table.value(pos)
    assert back.round_strategy(pos, 5).a == table.round_strategy(pos, 5).a
    back.close()


def _flip(path, offset_from_end):
    data = bytearray(path.read_bytes())
    data[-offset_from_end] ^= 0x40
    path.write_bytes(bytes(data))


def test_corrupted_data_is_detected(written):
    _, path = written
    _flip(path, 100)  # inside the values
    with pytest.raises(TableFileError, match="checksum"):
        open_table(path)


def test_truncated_file_is_detected(written):
    _, path = written
    data = path.read_bytes()
    path.write_bytes(data[:-64])
    with pytest.raises(TableFileError, match="truncated"):
        open_table(path)


def test_damaged_header_and_foreign_files_are_detected(written, tmp_path):
    _, path = written
    data = bytearray(path.read_bytes())
    i = data.index(b'"cards": 5')
    data[i + 9] = ord("6")
    path.write_bytes(bytes(data))
    with pytest.raises(TableFileError, match="header"):
        open_table(path)
    other = tmp_path / "x.ctt"
    other.write_bytes(b"hello world, not a table")
    with pytest.raises(TableFileError, match="magic"):
        open_table(other)
    with pytest.raises(TableFileError, match="cannot be opened"):
        open_table(tmp_path / "missing.ctt")


def test_cache_lookup_and_damaged_cache_never_used(tmp_path):
    rs = Ruleset(cards=4, tie_rule="discard")
    assert load_table(rs) is None
    path = write_table(solve(rs), default_path(rs, "points"))
    assert load_table(rs).value(Position(frozenset({1, 2}), (frozenset({1, 2}), frozenset({3, 4})))) < 0
    _flip(path, 10)
    with pytest.raises(TableFileError):
        load_table(rs)
    from cardtable.strategy.nash import NashBot

    with pytest.raises(TableFileError):
        NashBot(seed=1).new_game(rs, 0)
