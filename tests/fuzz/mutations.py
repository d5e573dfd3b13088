"""Hypothesis strategies shared by the fuzz tests: edits of real inputs and hostile text."""

from __future__ import annotations

import json

from hypothesis import strategies as st

#: Characters that break parsers: digits other than ASCII, separators, quotes, controls,
#: line breaks of every kind, a byte-order mark, lone surrogates, suits and brackets.
NASTY = list(
    '0123456789²³¹٣߂ +-=.:;,|[]{}"\\\t\r\n\x00\x1b\x0b\x0c\x1c\x85\u2028\u2029\ufeff\u202e\u200b♠♣♥♦♤♧KQJATPp#'
) + ["\ud800", "9" * 5000, " " * 3000, "[" * 300, "\u00a0"]

hostile_text = st.lists(st.one_of(st.sampled_from(NASTY), st.text(max_size=8)), max_size=40).map("".join)


@st.composite
def edited(draw, text: str) -> str:
    """``text`` after 1-4 random edits: a line deleted, duplicated, swapped or replaced, or
    hostile text inserted, or a character range deleted."""
    for _ in range(draw(st.integers(1, 4))):
        lines = text.split("\n")
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "replace", "insert", "cut"]))
        i = draw(st.integers(0, len(lines) - 1))
        j = draw(st.integers(0, len(lines) - 1))
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[j])
        elif kind == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "replace":
            lines[i] = draw(hostile_text)
        elif kind == "insert":
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + draw(hostile_text) + lines[i][at:]
        else:
            at = draw(st.integers(0, len(text)))
            size = draw(st.integers(1, 20))
            lines = (text[:at] + text[at + size :]).split("\n")
        text = "\n".join(lines)
    return text


json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False),
    st.text(max_size=10),
    st.sampled_from(["win", "draw", "loss", "carried", "²", "\u2028"]),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def edited_json(draw, data) -> str:
    """The JSON text of ``data`` with 1-3 values somewhere in it replaced by random JSON values
    (or a key deleted)."""
    data = json.loads(json.dumps(data))
    for _ in range(draw(st.integers(1, 3))):
        node = data
        while True:
            children = (
                list(node.items())
                if isinstance(node, dict)
                else list(enumerate(node))
                if isinstance(node, list)
                else []
            )
            if not children:
                break
            key, child = draw(st.sampled_from(children))
            if not isinstance(child, (dict, list)) or not child or draw(st.booleans()):
                if isinstance(node, dict) and draw(st.integers(0, 5)) == 0:
                    del node[key]
                else:
                    node[key] = draw(json_value)
                break
            node = child
    return json.dumps(data, indent=1, ensure_ascii=draw(st.booleans()))
