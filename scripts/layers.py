"""List the imports that go against cardtable's layers (ARCHITECTURE.md, Layers).

Reads every module under cardtable/ with ``ast`` (nothing is imported or run) and prints
each import of a higher layer, or of a sibling package of the same layer, as
``importer -> imported (line N, module level | nested)``; nested: inside a function
or block, so it runs only when that code does. Exit code 0 always:
the list is a measurement; tests/test_layers.py keeps it from growing.

    python scripts/layers.py
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

#: Each top-level package of cardtable and its layer: a package may import its own layer's
#: shared packages (rank only) and every lower layer, never a higher one.
LAYERS = {
    "errors": 0,
    "platform": 1,
    "tui": 1,
    "goofspiel": 2,
    "golf": 2,
    "solver": 3,
    "web": 4,
    "research": 4,
    "cli": 5,
}
#: Sibling packages of one layer that must not import each other (two games; two front ends).
SIBLINGS = [{"goofspiel", "golf"}, {"web", "research"}]

ROOT = Path(__file__).resolve().parent.parent / "cardtable"


def _package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "cardtable" else None


def _imports(path: Path, module: str):
    """(imported module, line, at module level?) for every cardtable import in one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    top_level = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                names = [".".join(base + ([node.module] if node.module else []))]
            elif node.module:
                names = [node.module]
        for name in names:
            if name.startswith("cardtable."):
                yield name, node.lineno, id(node) in top_level


def violations() -> list[tuple[str, str, int, bool]]:
    """(importer, imported, line, at module level) for every import against the layers."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        module = ".".join(("cardtable",) + path.relative_to(ROOT).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        mine = _package(module)
        if mine not in LAYERS:
            continue
        for name, line, eager in _imports(path, module):
            theirs = _package(name)
            if theirs not in LAYERS or theirs == mine:
                continue
            upward = LAYERS[theirs] > LAYERS[mine]
            sideways = any({mine, theirs} <= pair for pair in SIBLINGS)
            if upward or sideways:
                found.append((module, name, line, eager))
    return found


def main() -> int:
    found = violations()
    for importer, imported, line, eager in found:
        when = "module level" if eager else "nested"
        print(f"{importer} -> {imported} (line {line}, {when})")
    print(f"{len(found)} imports against the layers in "
          f"{len({importer for importer, *_ in found})} modules", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
