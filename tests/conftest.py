"""Test-wide settings: every test writes its files (records, tables, databases)
under a temporary CARDTABLE_HOME, never into the user's folders."""

import os
import signal

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# A suite started in the background by a non-interactive shell (`cmd &`, nohup) inherits
# SIGINT ignored, and so would every program the tests start: the Ctrl-C tests would then
# test nothing. Python's own handler here makes the children start with the default action.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _cardtable_home(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDTABLE_HOME", str(tmp_path / "cardtable-home"))
    monkeypatch.delenv("CARDTABLE_RECORDS", raising=False)
    monkeypatch.delenv("CARDTABLE_CACHE", raising=False)
    yield
