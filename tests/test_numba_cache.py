"""Numba's cache and kernels that call kernels of other modules (cardtable/_numba.py,
``stamp_sources``): an edit of the called module alone must recompile the caller."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

CALLER = """
from numba import njit
from . import callee

@njit(cache=True)
def outer():
    return callee.inner() + 1000
"""

RUN = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
if sys.argv[3] == "stamped":
    from cardtable._numba import stamp_sources
    stamp_sources(Path(sys.argv[1]) / sys.argv[2], (".",))
import importlib
print(importlib.import_module(sys.argv[2] + ".caller").outer())
"""


def _package(tmp_path: Path, name: str) -> Path:
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "caller.py").write_text(textwrap.dedent(CALLER))
    _callee(pkg, 1)
    return pkg


def _callee(pkg: Path, value: int) -> None:
    (pkg / "callee.py").write_text(
        f"from numba import njit\n\n@njit(cache=True)\ndef inner():\n    return {value}\n"
    )


def _outer(tmp_path: Path, name: str, mode: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", RUN, str(tmp_path), name, mode], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split()[-1])


def test_an_edit_of_a_called_kernel_alone_recompiles_the_caller(tmp_path):
    pkg = _package(tmp_path, "stamped_pkg")
    assert _outer(tmp_path, pkg.name, "stamped") == 1001
    assert list(pkg.glob("__pycache__/caller.outer-*.nbi"))  # it was cached
    _callee(pkg, 2)
    assert _outer(tmp_path, pkg.name, "stamped") == 1002
    assert _outer(tmp_path, pkg.name, "stamped") == 1002  # and cached again


def test_numbas_own_cache_keeps_the_stale_caller(tmp_path):
    """Why the stamp exists: with Numba's own locators the same edit leaves the caller's
    cached code (the callee's old value) in use."""
    pkg = _package(tmp_path, "plain_pkg")
    assert _outer(tmp_path, pkg.name, "plain") == 1001
    _callee(pkg, 2)
    assert _outer(tmp_path, pkg.name, "plain") == 1001


def test_the_package_kernels_carry_the_shared_stamp():
    import cardtable._numba as cn
    from cardtable.solver import kernel, lean

    stamps = {fn._cache._cache_file._source_stamp for fn in (kernel.simplex, lean.solve_patterns)}
    root = Path(cn.__file__).parent
    covered = [root / "_numba.py", *(root / "solver").rglob("*.py"), *(root / "research").rglob("*.py")]
    assert stamps == {cn.sources_digest(covered, root)}
