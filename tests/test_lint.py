"""The lint and dead-code checks of CONTRIBUTING.md hold on the whole tree: ``ruff check``
([tool.ruff] in pyproject.toml) finds nothing in the code, tests, benches, scripts and examples,
and ``vulture`` ([tool.vulture], with vulture_whitelist.py) finds no unused code in cardtable/.

Each check is also run once on a planted finding, so that a check that read nothing (a wrong
path, a missing configuration) cannot pass.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINTED = ["cardtable", "tests", "bench", "scripts", "examples"]


def _tool(name: str) -> str:
    found = shutil.which(name) or str(Path(sys.executable).with_name(name))
    if not Path(found).exists():
        pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
    return found


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=300)


def test_ruff_finds_nothing():
    done = _run(_tool("ruff"), "check", "--no-cache", *LINTED)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_reads_the_project_rules(tmp_path):
    # the same configuration on a file with one finding of each added rule family
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (tmp_path / "probe.py").write_text(
        "import sys\nimport os\n\n\ndef f(xs, ys):\n    return list(zip(xs, ys))\n"
    )
    done = _run(_tool("ruff"), "check", "--no-cache", "--output-format", "concise", "probe.py", cwd=tmp_path)
    assert done.returncode == 1
    for code in ("I001", "F401", "B905"):
        assert code in done.stdout, done.stdout


def test_vulture_finds_no_unused_code():
    done = _run(_tool("vulture"))  # paths and confidence from [tool.vulture]
    assert done.returncode == 0, done.stdout + done.stderr


def test_vulture_reports_unused_code(tmp_path):
    (tmp_path / "probe.py").write_text("import os\n\n\ndef f(a, b):\n    return a\n")
    done = _run(_tool("vulture"), "probe.py", "--min-confidence", "80", cwd=tmp_path)
    assert done.returncode != 0, done.stdout
    assert "unused import 'os'" in done.stdout and "unused variable 'b'" in done.stdout, done.stdout
