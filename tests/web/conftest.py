"""Fixtures of the web tests (helpers live in web_helpers.py)."""

from web_helpers import browser, live_server, make_client  # noqa: F401  (fixtures)
