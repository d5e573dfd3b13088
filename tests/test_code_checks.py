"""The code checks of CONTRIBUTING.md (Code checks) run as tests, so CI fails on a finding.

Each runs a check the project configures on the whole tree: ``ruff format --check``, mypy
(``check_untyped_defs``, [tool.mypy] in pyproject.toml) and the project's own complexity and
lazy-import checks (``scripts/code_checks.py``). Lint and dead code are tests/test_lint.py, the
layer contract (import-linter) tests/test_layers.py.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TREE = ["cardtable", "tests", "bench", "scripts", "examples"]


def run(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def tool(name: str) -> str:
    """The console script of a tool of the test extra, beside this interpreter."""
    path = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    assert path, f"{name} is not installed: scripts/test.sh installs the test extra"
    return path


def test_ruff_format_would_change_nothing():
    r = run(tool("ruff"), "format", "--check", *TREE)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]


@pytest.mark.slow
def test_mypy_finds_nothing():
    r = run(sys.executable, "-m", "mypy")
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert "Success: no issues found" in r.stdout


@pytest.mark.parametrize("check", ["complexity", "lazy-imports"])
def test_project_checks_pass(check):
    r = run(sys.executable, "scripts/code_checks.py", check)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]


def test_the_complexity_check_can_fail(tmp_path, monkeypatch):
    """The project's checks are not vacuous: a function of complexity 31 is reported."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import code_checks
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    package = tmp_path / "pkg"
    package.mkdir()
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(30))
    (package / "m.py").write_text(
        f"def f(x):\n{branches}\n    return -1\n\n\ndef g():\n    import os\n    return os\n"
    )
    monkeypatch.setattr(code_checks, "PACKAGE", package)
    monkeypatch.setattr(code_checks, "ROOT", tmp_path)
    assert any(p.startswith("above 30:") and p.endswith(" f (31)") for p in code_checks.check_complexity())
    assert any("m.py:66:" in p for p in code_checks.check_lazy_imports())
