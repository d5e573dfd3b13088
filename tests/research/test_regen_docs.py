"""scripts/regen_docs_figures.py: the docs' bench tables are rewritten in place between markers."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def regen():
    spec = importlib.util.spec_from_file_location(
        "regen_docs_figures", ROOT / "scripts" / "regen_docs_figures.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_replace_block_rewrites_only_between_its_markers(regen):
    text = (
        "intro\n<!-- bench:a:begin -->\nold | 1.00\n<!-- bench:a:end -->\nmiddle\n"
        "<!-- bench:b:begin -->\nkeep\n<!-- bench:b:end -->\n"
    )
    out = regen.replace_block(text, "a", "| new | 2.00 |\n")
    assert out == (
        "intro\n<!-- bench:a:begin -->\n| new | 2.00 |\n<!-- bench:a:end -->\nmiddle\n"
        "<!-- bench:b:begin -->\nkeep\n<!-- bench:b:end -->\n"
    )
    assert regen.replace_block(out, "a", "| new | 2.00 |") == out  # idempotent
    with pytest.raises(SystemExit, match="'c'"):
        regen.replace_block(text, "c", "x")


def test_every_section_has_its_markers_in_its_docs_file(regen):
    for name, (path, _) in regen.SECTIONS.items():
        text = (ROOT / path).read_text()
        begin, end = f"<!-- bench:{name}:begin -->", f"<!-- bench:{name}:end -->"
        assert text.count(begin) == 1 and text.count(end) == 1 and text.index(begin) < text.index(end), name


def test_mcts_games_is_one_count_or_one_per_player_count(regen):
    assert regen.mcts_games("60") == {3: 60, 4: 60}
    assert regen.mcts_games("300,400") == {3: 300, 4: 400}
    for bad in ("", "x", "3,x", "0", "1,2,3", "-4"):
        with pytest.raises(SystemExit, match="--mcts-games"):
            regen.mcts_games(bad)
