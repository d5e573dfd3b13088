"""Hostile compressed tables (cardtable.solver.compressed, compressed_carry): every damaged,
forged or odd file gets a TableFileError (measured_exploitability: None), never another
exception, a hang or a silently wrong value, and nothing is written; a CompressedCarryTable
query at any position a caller can pass answers or raises ImpossiblePosition."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from cardtable.goofspiel import Ruleset
from cardtable.solver import Position
from cardtable.solver import compressed as comp
from cardtable.solver import compressed_carry as cc
from cardtable.solver.layers import open_layered, solve_layered
from cardtable.solver.position import ImpossiblePosition
from cardtable.solver.tables import TableFileError

N = 6
LO = 3
SHIPPED_CARRY = comp.DATA_DIR / "gops-n11-carry-points-lowace.svd.npz"


@pytest.fixture(scope="module")
def six(tmp_path_factory):
    """{"carry": arrays of a 6-card compressed carry file (layers 3..6), "discard": arrays
    of a 6-card compressed discard file, "exact": the exact carry table}."""
    base = tmp_path_factory.mktemp("hostile")
    solve_layered(Ruleset(cards=N, tie_rule="carry"), "points", base / "carry")
    exact = open_layered(base / "carry")
    cc.write_compressed_carry(exact, base / "c.npz", LO, 0.05)
    solve_layered(Ruleset(cards=N, tie_rule="discard"), "points", base / "discard")
    comp.write_compressed(open_layered(base / "discard"), base / "d.npz", 0.01)
    return {"carry": _load(base / "c.npz"), "discard": _load(base / "d.npz"), "exact": exact}


def _load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as z:
        return {name: z[name] for name in z.files}


def _save(path: Path, arrays: dict[str, np.ndarray]) -> Path:
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)  # type: ignore[arg-type]  # numpy's stub types the kwargs as bool
    path.write_bytes(buf.getvalue())
    return path


def _meta(arrays: dict[str, np.ndarray]) -> dict:
    return json.loads(arrays["meta"].tobytes())


def _with_meta(arrays: dict[str, np.ndarray], meta) -> dict[str, np.ndarray]:
    out = dict(arrays)
    out["meta"] = np.frombuffer(json.dumps(meta).encode() if not isinstance(meta, bytes) else meta, np.uint8)
    return out


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and not p.is_symlink()}


def _refused(opener, path: Path, words: str) -> None:
    before = _snapshot(path.parent)
    with pytest.raises(TableFileError, match=words or None):
        opener(path)
    assert _snapshot(path.parent) == before  # nothing written


_OPENERS = {"carry": cc.open_compressed_carry, "discard": comp.open_compressed}

# (tie rule, meta field, value, words of the error): every malformed header field.
HEADER_CASES = [
    ("carry", "lo", 3.7, "lo must be a whole number"),
    ("carry", "lo", "3", "lo must be a whole number"),
    ("carry", "lo", True, "lo must be a whole number"),
    ("carry", "lo", -1, "lo -?[0-9]+ is not a layer"),
    ("carry", "lo", 0, "lo -?[0-9]+ is not a layer"),
    ("carry", "lo", N + 1, "lo -?[0-9]+ is not a layer"),
    ("carry", "lo", None, "lo must be a whole number"),
    ("carry", "lo", float("nan"), "lo must be a whole number"),
    ("carry", "lo", 10**40, "is not a layer"),
    ("carry", "cards", "6", "cards must be"),
    ("carry", "cards", 6.0, "cards must be"),
    ("carry", "cards", 0, "cards must be"),
    ("carry", "cards", 14, "cards must be"),
    ("carry", "cards", 10**40, "cards must be"),
    ("carry", "cards", [6], "cards must be"),
    ("carry", "high_ace", "no", "high_ace must be"),
    ("carry", "high_ace", 1, "high_ace must be"),
    ("carry", "high_ace", None, "high_ace must be"),
    ("carry", "version", True, "version 1"),
    ("carry", "version", 2, "version 1"),
    ("carry", "tie_rule", "discard", "version 1"),
    ("carry", "objective", "win", "objective must be points"),
    ("carry", "source", [1], "source must be an object"),
    ("carry", "layers", "x", "one record per layer"),
    ("carry", "layers", [], "one record per layer"),
    ("carry", "layers", [{"k": 3}], "one record per layer"),
    ("carry", "layout_sha256", 5, "layout is not the one"),
    ("carry", "layout_sha256", None, "layout is not the one"),
    ("discard", "cards", "6", "cards must be"),
    ("discard", "high_ace", "no", "high_ace must be"),
    ("discard", "version", True, "version 1"),
    ("discard", "source", [1], "source must be an object"),
    ("discard", "layers", "x", "one record per layer"),
    ("discard", "objective", "win", "objective must be points"),
]


@pytest.mark.parametrize(("rule", "field", "value", "words"), HEADER_CASES)
def test_malformed_header_field_is_refused(six, tmp_path, rule, field, value, words):
    meta = {**_meta(six[rule]), field: value}
    _refused(_OPENERS[rule], _save(tmp_path / "t.svd.npz", _with_meta(six[rule], meta)), words)


@pytest.mark.parametrize("rule", ["carry", "discard"])
def test_layer_record_of_wrong_types_is_refused(six, tmp_path, rule):
    meta = _meta(six[rule])
    meta["layers"][0]["rms"] = "0.01"
    _refused(_OPENERS[rule], _save(tmp_path / "t.svd.npz", _with_meta(six[rule], meta)), "rank, rms or max")


@pytest.mark.parametrize(
    ("meta", "words"),
    [
        (b"[1, 2]", "a JSON list"),
        (b"5", "a JSON int"),
        (b"[" * 100_000 + b"]" * 100_000, "recursion"),
        (b"\xff\xfe", "codec"),
        (b"{" + b" " * (comp.MAX_META_BYTES + 1) + b"}", "bad compressed-table header"),
    ],
    ids=["list", "number", "deeply-nested", "not-utf8", "huge"],
)
@pytest.mark.parametrize("rule", ["carry", "discard"])
def test_meta_that_is_no_object_is_refused(six, tmp_path, rule, meta, words):
    _refused(_OPENERS[rule], _save(tmp_path / "t.svd.npz", _with_meta(six[rule], meta)), words)


@pytest.mark.parametrize("rule", ["carry", "discard"])
@pytest.mark.parametrize("form", ["float32", "2-d", "missing"])
def test_meta_array_of_another_form_is_refused(six, tmp_path, rule, form):
    arrays = dict(six[rule])
    if form == "missing":
        del arrays["meta"]
    else:
        arrays["meta"] = arrays["meta"].astype(np.float32) if form == "float32" else arrays["meta"][None]
    _refused(_OPENERS[rule], _save(tmp_path / "t.svd.npz", arrays), "bad compressed-table header")


def _damage(a: np.ndarray, how: str) -> np.ndarray:
    x = np.asarray(a, dtype=np.float64)
    return {
        "complex": lambda: a.astype(np.complex128),
        "bool": lambda: a > 0,
        "int": lambda: a.astype(np.int64),
        "str": lambda: a.astype(str),
        "record": lambda: np.zeros(a.shape[0], dtype=[("v", "<f4")]),
        "0-d": lambda: np.float32(1.0),
        "3-d": lambda: a[None],
        "nan": lambda: np.where(np.arange(a.size).reshape(a.shape) == 0, np.nan, x),
        "inf": lambda: np.where(np.arange(a.size).reshape(a.shape) == 0, np.inf, x),
        "huge": lambda: x * 1e300,
        "large": lambda: x * 1e6 + 1e6,
    }[how]()


DAMAGES = [
    ("complex", "not plain numbers"),
    ("bool", r"\(bool\)"),
    ("int", r"\(int64\)"),
    ("str", "not plain numbers"),
    ("record", "not plain numbers"),
    ("0-d", "missing|shape"),
    ("3-d", "missing|shape"),
    ("nan", "not finite"),
    ("inf", "not finite"),
    ("huge", "not finite|past"),
    ("large", "past"),
]


@pytest.mark.parametrize(("how", "words"), DAMAGES, ids=[d[0] for d in DAMAGES])
@pytest.mark.parametrize(
    ("rule", "name"),
    [
        ("carry", "p3"),
        ("carry", "w4"),
        ("carry", "d6"),
        ("discard", "w2"),
        ("discard", "p3"),
        ("discard", "d1"),
    ],
)
def test_layer_array_of_wrong_dtype_shape_or_size_is_refused(six, tmp_path, rule, name, how, words):
    arrays = dict(six[rule])
    assert name in arrays
    arrays[name] = _damage(arrays[name], how)
    _refused(_OPENERS[rule], _save(tmp_path / "t.svd.npz", arrays), words)


@pytest.mark.parametrize("rule", ["carry", "discard"])
def test_float_widths_of_a_layer_are_read(six, tmp_path, rule):
    """float16/float32/float64 mixes within the bounds are a valid file, with the same values."""
    arrays = dict(six[rule])
    name = "w4" if rule == "carry" else "w2"
    arrays[name] = arrays[name].astype(np.float64)
    table = _OPENERS[rule](_save(tmp_path / "t.svd.npz", arrays))
    same = _OPENERS[rule](_save(tmp_path / "u.svd.npz", six[rule]))
    full = frozenset(range(1, N + 1))
    pos = Position(full, (full, full))
    assert table.value(pos) == pytest.approx(same.value(pos), abs=1e-9)


def _forged_codes(d: dict[str, np.ndarray], how: str) -> dict[str, np.ndarray]:
    """A discard file whose pattern codes are damaged, with their digest rewritten to match."""
    codes, off = d["codes"].copy(), d["code_off"].copy()
    a, b = int(off[3]), int(off[4])
    if how == "reversed":
        codes[a:b] = codes[a:b][::-1]
    elif how == "huge":
        codes[b - 1] = 2**40
    elif how == "swapped":  # a non-canonical code in place of its canonical twin
        codes[b - 1] = ((codes[b - 1] & 0x5555) << 1) | ((codes[b - 1] >> 1) & 0x5555)
        assert codes[b - 1] != d["codes"][b - 1]
    elif how == "dropped":
        codes = np.delete(codes, a)
        off[4:] -= 1
    elif how == "offset":
        off[-1] = 10**12
    arrays = {**d, "codes": codes, "code_off": off}
    return _with_meta(arrays, {**_meta(d), "patterns_sha256": comp.patterns_digest(codes, off)})


@pytest.mark.parametrize("how", ["reversed", "huge", "swapped", "dropped", "offset"])
def test_forged_pattern_codes_are_refused(six, tmp_path, how):
    _refused(
        comp.open_compressed,
        _save(tmp_path / "t.svd.npz", _forged_codes(six["discard"], how)),
        "damaged|offsets",
    )


def test_pattern_count_is_the_game_layout():
    from cardtable.solver.tables import full_layout  # lazy: the layout enumeration is only for this check

    for n in (1, 2, 6, 9):
        L = full_layout(Ruleset(cards=n, tie_rule="discard"), "points")
        assert [L.npat(k) for k in range(1, n + 1)] == [comp.pattern_count(n, k) for k in range(1, n + 1)]


def test_layout_digest_of_another_deck_is_refused(six, tmp_path):
    """A 6-card file that claims 11 cards, or carries the 11-card layout digest, is refused."""
    eleven = _meta(_load(SHIPPED_CARRY))
    meta = _meta(six["carry"])
    _refused(
        cc.open_compressed_carry,
        _save(
            tmp_path / "a.svd.npz",
            _with_meta(six["carry"], {**meta, "layout_sha256": eleven["layout_sha256"]}),
        ),
        "layout is not the one",
    )
    forged = {
        **meta,
        "cards": 11,
        "lo": 8,
        "layers": eleven["layers"],
        "layout_sha256": eleven["layout_sha256"],
    }
    _refused(
        cc.open_compressed_carry,
        _save(tmp_path / "b.svd.npz", _with_meta(six["carry"], forged)),
        "layer 8 is missing|shape",
    )


def _zip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def _huge_header(shape: tuple[int, ...]) -> bytes:
    """The .npy bytes of a float32 array of ``shape`` holding no data (a lying header)."""
    head = _npy(np.zeros(0, np.float32))
    return (
        head.replace(b"(0,)", repr(shape).encode().ljust(4))
        if len(repr(shape)) <= 4
        else _npy_header_only(shape)
    )


def _npy_header_only(shape: tuple[int, ...]) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f4", "fortran_order": False, "shape": shape})
    return b"\x93NUMPY\x01\x00" + buf.getvalue()[8:] if buf.getvalue()[:6] == b"\x93NUMPY" else buf.getvalue()


@pytest.mark.parametrize("opener", [cc.open_compressed_carry, comp.open_compressed], ids=["carry", "discard"])
@pytest.mark.parametrize(
    "kind",
    ["empty", "garbage", "truncated", "zip-bomb", "lying-header", "not-npy", "pickled-object", "crc"],
)
def test_damaged_or_hostile_zip_is_refused(opener, tmp_path, kind):
    raw = SHIPPED_CARRY.read_bytes()
    path = tmp_path / "t.svd.npz"
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "garbage":
        path.write_bytes(np.random.default_rng(1).bytes(5000))
    elif kind == "truncated":
        path.write_bytes(raw[: len(raw) // 2])
    elif kind == "zip-bomb":  # 2 GiB of zeros in a few MiB: refused from the zip directory
        with (
            zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf,
            zf.open("d8.npy", "w", force_zip64=True) as f,
        ):
            f.write(_npy_header_only((1 << 29,)))
            block = bytes(1 << 24)
            for _ in range(128):
                f.write(block)
    elif kind == "lying-header":  # a header claiming 4 TiB in a few bytes
        _zip(path, {"meta.npy": _npy(np.zeros(3, np.uint8)), "d8.npy": _npy_header_only((1 << 40,))})
    elif kind == "not-npy":
        _zip(path, {"meta.txt": b"{}"})
    elif kind == "pickled-object":
        _zip(path, {"meta.npy": _npy(np.array([{"a": 1}], dtype=object))})
    elif kind == "crc":
        buf = bytearray(raw)
        at = len(buf) // 3
        buf[at : at + 64] = bytes(64)
        path.write_bytes(bytes(buf))
    _refused(opener, path, "")


@pytest.mark.parametrize("opener", [cc.open_compressed_carry, comp.open_compressed], ids=["carry", "discard"])
@pytest.mark.parametrize("kind", ["folder", "fifo", "dangling-symlink", "symlink-to-folder", "missing"])
def test_non_file_where_a_table_is_expected_is_refused(opener, tmp_path, kind):
    path = tmp_path / "t.svd.npz"
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dangling-symlink":
        path.symlink_to(tmp_path / "nowhere")
    elif kind == "symlink-to-folder":
        (tmp_path / "dir").mkdir()
        path.symlink_to(tmp_path / "dir")
    with pytest.raises(TableFileError):
        opener(path)


@pytest.mark.parametrize("kind", ["folder", "fifo", "dangling-symlink"])
def test_bundled_table_under_a_non_file_is_an_error_not_absence(tmp_path, kind):
    rs = Ruleset(cards=11, tie_rule="carry")
    for name in (cc.carry_compressed_name(rs), comp.compressed_name(rs)):
        path = tmp_path / name
        if kind == "folder":
            path.mkdir()
        elif kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to(tmp_path / "nowhere")
    with pytest.raises(TableFileError):
        cc.bundled_carry_table(rs, tmp_path)
    with pytest.raises(TableFileError):
        comp.bundled_table(rs, tmp_path)
    assert comp.shipped_tables(tmp_path) == []  # listed only when a regular file


def test_shipped_tables_lists_only_regular_files_of_a_real_deck(tmp_path):
    (tmp_path / "gops-n11-carry-points-lowace.svd.npz").write_bytes(SHIPPED_CARRY.read_bytes())
    (tmp_path / "gops-n99-carry-points-lowace.svd.npz").write_bytes(b"x")
    (tmp_path / "gops-n0-carry-points-lowace.svd.npz").write_bytes(b"x")
    (tmp_path / "gops-n011-discard-points-lowace.svd.npz").write_bytes(b"x")
    (tmp_path / "gops-n12-discard-points-lowace.svd.npz").symlink_to(SHIPPED_CARRY)
    listed = comp.shipped_tables(tmp_path)
    assert [(t["cards"], t["tie_rule"]) for t in listed] == [(11, "carry"), (12, "discard")]


@pytest.fixture()
def measured_folder(tmp_path):
    """A folder with a copy of the shipped 11-card carry file; measured.json written per test."""
    path = tmp_path / SHIPPED_CARRY.name
    path.write_bytes(SHIPPED_CARRY.read_bytes())
    return path


def _entry(path: Path, value) -> dict:
    import hashlib  # lazy: only these measured.json tests hash a file

    return {
        "files": {
            path.name: {
                "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                "exploitability": value,
                "how": "test",
            }
        }
    }


@pytest.mark.parametrize(
    "book",
    [
        "string",
        "nan",
        "inf",
        "negative",
        "list",
        "bool",
        "null",
        "files-list",
        "top-list",
        "deep",
        "huge",
        "garbage",
        "sha-number",
    ],
)
def test_malformed_measured_json_gives_none(measured_folder, book):
    path = measured_folder
    values = {
        "string": "0.1",
        "nan": float("nan"),
        "inf": float("inf"),
        "negative": -0.5,
        "list": [0.1],
        "bool": True,
        "null": None,
    }
    if book in values:
        text = json.dumps(_entry(path, values[book]))
    elif book == "files-list":
        text = json.dumps({"files": [1, 2]})
    elif book == "top-list":
        text = "[]"
    elif book == "deep":
        text = "[" * 100_000 + "]" * 100_000
    elif book == "huge":
        text = json.dumps(_entry(path, 0.01)) + " " * (comp.MAX_META_BYTES + 1)
    elif book == "garbage":
        text = "\x00\xff{"
    else:
        entry = _entry(path, 0.01)
        entry["files"][path.name]["sha256"] = 5
        text = json.dumps(entry)
    (path.parent / comp.MEASURED_NAME).write_text(text)
    assert comp.measured_exploitability(path) is None


def test_valid_measured_json_is_read(measured_folder):
    path = measured_folder
    (path.parent / comp.MEASURED_NAME).write_text(json.dumps(_entry(path, 0.0125)))
    assert comp.measured_exploitability(path) == 0.0125
    assert comp.measured_exploitability(path.parent / "other.svd.npz") is None


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_measured_json_or_table_that_is_no_file_gives_none(measured_folder, kind):
    path = measured_folder
    book = path.parent / comp.MEASURED_NAME
    (book.mkdir() if kind == "folder" else os.mkfifo(book))
    assert comp.measured_exploitability(path) is None
    other = path.parent / "gops-n12-carry-points-lowace.svd.npz"
    (other.mkdir() if kind == "folder" else os.mkfifo(other))
    assert comp.measured_exploitability(other) is None


def _odd_positions():
    full = frozenset(range(1, N + 1))
    four = frozenset({1, 2, 3, 4})
    yield Position(full, (full, full), pot=1)  # a pot before any prize
    yield Position(four, (four, frozenset({3, 4, 5, 6})), pot=5)  # one tie, no strength played by both
    yield Position(four, (four, frozenset({3, 4, 5, 6})), pot=11)  # 11 = 5 + 6: two ties
    yield Position(four, (four, frozenset({1, 2, 3})))  # hands of the wrong size
    yield Position(four, (frozenset({1, 2, 3, 4, 5}), four))
    yield Position(frozenset({1, 2, 3, 9}), (four, four))  # a prize not in the deck
    yield Position(four, (frozenset({0, 1, 2, 3}), four))  # a card not in the deck
    yield Position(four, (four, four), pot=-5)
    yield Position(four, (four, four), pot=10**9)
    yield Position(four, (four, four), pot=5, diff=10**9)
    yield Position(frozenset(range(1, 8)), (frozenset(range(1, 8)),) * 2)  # 7 cards in a 6-card deck
    yield Position(frozenset({1, 2}), (frozenset({1, 2}),) * 2)  # below lo


@pytest.mark.parametrize("pos", list(_odd_positions()), ids=lambda p: f"k{p.k}-pot{p.pot}")
def test_compressed_carry_query_of_an_odd_position_is_impossible(six, tmp_path, pos):
    table = cc.open_compressed_carry(_save(tmp_path / "t.svd.npz", six["carry"]))
    with pytest.raises(ImpossiblePosition):
        table.value(pos)
    for prize in (*sorted(pos.prizes), 0, N + 1, -1):
        with pytest.raises(ImpossiblePosition):
            table.round_strategy(pos, prize)


def test_compressed_carry_query_reads_within_the_layers(six, tmp_path):
    """Random positions (any cards, pots, sizes): the compressed table answers exactly where
    the exact table does (within the fit's error) and raises ImpossiblePosition elsewhere;
    FactorLayer reads within its arrays for every slot."""
    table = cc.open_compressed_carry(_save(tmp_path / "t.svd.npz", six["carry"]))
    exact = six["exact"]
    rng = np.random.default_rng(7)
    answered = 0
    for _ in range(400):
        k = int(rng.integers(LO, N + 1))
        prizes, a, b = (
            frozenset(int(c) for c in rng.choice(np.arange(1, N + 1), k, replace=False)) for _ in range(3)
        )
        pos = Position(prizes, (a, b), int(rng.integers(0, 22)))
        try:
            want = exact.value(pos)
        except ImpossiblePosition:
            with pytest.raises(ImpossiblePosition):
                table.value(pos)
            continue
        assert table.value(pos) == pytest.approx(want, abs=0.5)
        answered += 1
    assert answered > 20
    for k in range(LO, N + 1):
        layer = table.layers[k]
        assert np.isfinite(layer.matrix()).sum() > 0
        assert len(layer) == layer.npat * layer.S
