"""Fixtures of the CLI tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A data folder and a cache folder that do not exist yet, no records folder set, and
    ``tmp_path`` as the current folder (a relative path the command writes lands there)."""
    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CARDTABLE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CARDTABLE_RECORDS", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path
