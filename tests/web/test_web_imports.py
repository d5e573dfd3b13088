"""What importing the web package loads: the reasons its '# lazy:' imports give hold.

The server (``cardtable serve``) starts without the solver, NumPy or Numba: the
analyses import the solver in their worker processes, and the routes that need it
in the server import it on their first request. ``cardtable verify`` reads the
record checks of the game adapters without FastAPI. Each check runs a fresh
interpreter, since this test session has long since loaded all of them.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("numba", "numpy", "scipy", "cardtable.solver")


def loaded(module: str, names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` (modules or packages) a fresh interpreter has loaded after
    ``import module``."""
    code = (
        f"import sys, {module}\n"
        f"names = {names!r}\n"
        "print(' '.join(n for n in names if any(m == n or m.startswith(n + '.') for m in sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout.split()


def test_the_server_starts_without_the_solver():
    assert loaded("cardtable.web.app", HEAVY) == []


@pytest.mark.parametrize("module", ["cardtable.web.games.goofspiel", "cardtable.web.games.golf"])
def test_the_record_checks_load_neither_fastapi_nor_the_solver(module):
    assert loaded(module, ("fastapi", "starlette", *HEAVY)) == []


def test_the_probe_sees_a_loaded_module():
    # a probe that never found anything would pass the tests above
    assert loaded("cardtable.web.app", ("fastapi", "cardtable.strategy")) == ["fastapi", "cardtable.strategy"]
