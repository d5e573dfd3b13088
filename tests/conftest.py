"""Test-wide settings: every test writes its files (records, tables, databases)
under a temporary CARDTABLE_HOME, never into the user's folders."""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(autouse=True)
def _cardtable_home(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path / "cardtable-home"))
    monkeypatch.delenv("CARDTABLE_RECORDS", raising=False)
    monkeypatch.delenv("CARDTABLE_CACHE", raising=False)
    yield
