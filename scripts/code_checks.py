"""The code checks that CI runs besides the tests (CONTRIBUTING.md, Code checks).

Each check prints its findings and the script exits 1 when any fails:

- ``complexity``: radon's cyclomatic complexity of every function in ``cardtable/``: at most
  ``MAX_ABOVE_15`` functions above 15, and none above 30 unless it is a Numba kernel whose
  docstring has a ``Complexity:`` paragraph saying why it stays one function;
- ``lazy-imports``: every import inside a function of ``cardtable/`` carries a comment starting
  with ``# lazy:`` (on its line, or just above it or its group of imports) saying why it is not
  at the top of the module.

Usage: ``python scripts/code_checks.py [complexity|lazy-imports ...]`` (all checks by default).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "cardtable"

#: The most functions allowed above complexity 15 (issue 21's target: at most 35).
MAX_ABOVE_15 = 35
#: No function above this, Numba kernels with a "Complexity:" paragraph excepted.
HARD_LIMIT = 30


def _functions(block):
    yield block
    for inner in getattr(block, "methods", []) + getattr(block, "closures", []):
        yield from _functions(inner)


def _is_documented_kernel(tree: ast.Module, name: str, lineno: int) -> bool:
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.lineno <= lineno <= (node.end_lineno or node.lineno)
            and node.name == name
        ):
            decorators = ast.unparse(node.decorator_list) if node.decorator_list else ""
            doc = ast.get_docstring(node) or ""
            jit = any(word in decorators for word in ("njit", "jit", "cuda"))
            return jit and "Complexity:" in doc
    return False


def check_complexity() -> list[str]:
    """Findings of the complexity check (empty when it passes)."""
    above15: set[tuple[int, str]] = set()
    problems: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        for block in cc_visit(source):
            for fn in _functions(block):
                if getattr(fn, "is_class", False) or not hasattr(fn, "complexity"):
                    continue
                where = f"{path.relative_to(ROOT)}:{fn.lineno} {fn.name} ({fn.complexity})"
                if fn.complexity > 15:
                    above15.add((fn.complexity, where))
                if fn.complexity > HARD_LIMIT and not _is_documented_kernel(tree, fn.name, fn.lineno):
                    problems.add(f"above {HARD_LIMIT}: {where}")
    findings = sorted(problems)
    if len(above15) > MAX_ABOVE_15:
        findings.append(f"{len(above15)} functions above complexity 15 (at most {MAX_ABOVE_15}):")
        findings += [f"  {w}" for _, w in sorted(above15, reverse=True)]
    print(
        f"complexity: {len(above15)} functions above 15 (at most {MAX_ABOVE_15}), "
        f"{sum(1 for c, _ in above15 if c > HARD_LIMIT)} above {HARD_LIMIT}"
    )
    return findings


def _has_reason(lines: list[str], lineno: int, import_lines: set[int]) -> bool:
    """Whether the import at ``lineno`` carries a ``# lazy:`` comment: on its line, or in the
    comment block just above it or above the group of imports it belongs to."""
    if "# lazy:" in lines[lineno - 1]:
        return True
    k = lineno - 1
    while k >= 1 and (k in import_lines or not lines[k - 1].strip()):
        k -= 1
    while k >= 1 and lines[k - 1].strip().startswith("#"):
        if lines[k - 1].strip().startswith("# lazy:"):
            return True
        k -= 1
    return False


def check_lazy_imports() -> list[str]:
    """Findings of the lazy-import check (empty when it passes)."""
    problems: set[str] = set()
    seen: set[tuple[Path, int]] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        import_lines = {k for n in imports for k in range(n.lineno, (n.end_lineno or n.lineno) + 1)}
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)) and (path, node.lineno) not in seen:
                    seen.add((path, node.lineno))
                    if not _has_reason(lines, node.lineno, import_lines):
                        problems.add(
                            f"{path.relative_to(ROOT)}:{node.lineno}: import inside a function "
                            "without a '# lazy:' comment"
                        )
    print(f"lazy-imports: {len(seen)} imports inside functions, {len(problems)} without a reason")
    return sorted(problems)


CHECKS = {"complexity": check_complexity, "lazy-imports": check_lazy_imports}


def main(argv: list[str]) -> int:
    names = argv or list(CHECKS)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        print(f"unknown check(s): {', '.join(unknown)}; choose from {', '.join(CHECKS)}", file=sys.stderr)
        return 2
    failed = False
    for name in names:
        problems = CHECKS[name]()
        for p in problems:
            print(f"  {p}")
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
