"""Every relative link in the top-level documents and docs/*.md points to something that exists.

A link ``[text](path)`` must name an existing file or folder (relative to the document), and
a ``path#anchor`` (or ``#anchor``) into a markdown file must name one of its headings, made
into an anchor by GitHub's rules: lower case, punctuation other than ``-`` and ``_`` dropped,
spaces to ``-``, and ``-1``, ``-2``, ... for repeated headings. Links with a scheme
(``https:``, ``mailto:``) and links inside code are not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted(
    p
    for p in [
        ROOT / "README.md",
        ROOT / "ARCHITECTURE.md",
        ROOT / "CONTRIBUTING.md",
        *(ROOT / "docs").glob("*.md"),
    ]
    if p.is_file()
)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def prose_lines(text: str) -> list[str]:
    """The lines of ``text`` outside fenced code blocks, with inline code spans removed."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            out.append(re.sub(r"`[^`]*`", "", line))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (markdown emphasis, code marks and links unwrapped)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor GitHub makes for the headings of the markdown file ``path``."""
    seen: dict[str, int] = {}
    result = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        m = None if fenced else HEADING.match(line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            result.add(base if n == 0 else f"{base}-{n}")
    return result


def links(path: Path) -> list[str]:
    """The link targets in the prose of ``path``."""
    return [m.group(1) for line in prose_lines(path.read_text(encoding="utf-8")) for m in LINK.finditer(line)]


def broken_links(path: Path) -> list[str]:
    """Each relative link of ``path`` whose file or heading does not exist, with the reason."""
    bad = []
    for target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            bad.append(f"{target}: no such file")
            continue
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            shown = dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest
            bad.append(f"{target}: no heading #{anchor} in {shown}")
    return bad


def test_slug_follows_github_rules():
    assert slug("The exact solver (the GOPS tablebase)") == "the-exact-solver-the-gops-tablebase"
    assert slug("Safe exploitation: the `exploiter` bot") == "safe-exploitation-the-exploiter-bot"
    assert slug("Backends (`--backend`)") == "backends---backend"
    assert slug("Exploitability of `nash`") == "exploitability-of-nash"


def test_checker_finds_a_broken_file_and_a_broken_anchor(tmp_path):
    (tmp_path / "a.md").write_text(
        "# Top\n\n## Part one\n\n[ok](#part-one) [gone](missing.md) "
        "[bad](#part-two) `[code](nowhere.md)`\n\n```\n[x](nowhere.md)\n```\n"
    )
    bad = broken_links(tmp_path / "a.md")
    assert len(bad) == 2
    assert bad[0] == "missing.md: no such file"
    assert bad[1].startswith("#part-two: no heading #part-two")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc):
    assert broken_links(doc) == []
