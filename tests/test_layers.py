"""cardtable's layers (ARCHITECTURE.md, Layers) hold: the import-linter contract in
pyproject.toml is kept, and no package has an import cycle among its own modules.

Both count every import, those inside functions too (grimp reads the source); imports
under ``if TYPE_CHECKING:`` are left out of the cycle check, since they never run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))


def _lint_imports(cwd: Path, *args: str, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_layers_contract_is_kept():
    done = _lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cardtable layers (ARCHITECTURE.md, Layers) KEPT" in done.stdout
    assert "0 broken" in done.stdout


def test_lint_imports_sees_an_import_inside_a_function(tmp_path):
    # a contract that passed because nothing was read would pass the test above
    package = tmp_path / "probe"
    (package / "low").mkdir(parents=True)
    (package / "high").mkdir()
    (package / "__init__.py").write_text("")
    (package / "high" / "__init__.py").write_text("")
    (package / "low" / "__init__.py").write_text("")
    (package / "low" / "bad.py").write_text("def f():\n    from probe.high import x\n")
    (package / "high" / "x.py").write_text("")
    (tmp_path / ".importlinter").write_text(
        textwrap.dedent("""\
        [importlinter]
        root_package = probe

        [importlinter:contract:1]
        name = probe layers
        type = layers
        layers =
            probe.high
            probe.low
        """)
    )
    done = _lint_imports(tmp_path, "--config", str(tmp_path / ".importlinter"), pythonpath=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "probe layers BROKEN" in done.stdout
    assert "probe.low.bad -> probe.high.x" in done.stdout


def cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """The import cycles among ``modules``: each strongly connected part of more than one
    module, as a list of module names that import each other in that order."""
    edges = {m: sorted(graph.find_modules_directly_imported_by(m) & modules) for m in sorted(modules)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(_loop(edges, set(part)))

    for v in edges:
        if v not in index:
            visit(v)
    return found


def _loop(edges: dict[str, list[str]], part: set[str]) -> list[str]:
    """One closed path through ``part`` (a strongly connected set), from its first module."""
    start = min(part)
    path = [start]
    while True:
        nxt = next(w for w in edges[path[-1]] if w in part)
        if nxt in path:
            return path[path.index(nxt) :] + [nxt]
        path.append(nxt)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("cardtable", exclude_type_checking_imports=True, cache_dir=None)


def test_no_package_has_an_import_cycle(graph):
    found = {}
    for package in sorted(graph.find_children("cardtable")):
        modules = {package} | graph.find_descendants(package)
        loops = cycles(graph, modules)
        if loops:
            found[package] = [" -> ".join(loop) for loop in loops]
    assert not found, f"import cycles inside packages: {found}"


def test_the_cycle_search_finds_a_cycle():
    # three modules that import each other in a ring, one that only imports them
    class Ring:
        imports = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p.d": {"p.a"}}

        def find_modules_directly_imported_by(self, m):
            return set(self.imports[m])

    assert cycles(Ring(), set(Ring.imports)) == [["p.a", "p.b", "p.c", "p.a"]]
    assert cycles(Ring(), {"p.a", "p.b", "p.d"}) == []
