"""Fuzz: the rules notation, rules mappings and rules files give a Ruleset or a
RulesetError with a message, never another exception."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from cardtable.goofspiel import Ruleset, RulesetError
from cardtable.goofspiel.ruleset import _KEY_ALIASES

from .mutations import hostile_text, json_value

KEYS = sorted(_KEY_ALIASES) + ["x", "", "cards ", "Cards"]
VALUES = [
    "5",
    "13",
    "0",
    "-1",
    "²",
    "9" * 5000,
    "1,2,3,4,5",
    "5,4,3,2,1",
    "1,,2",
    "yes",
    "no",
    "high",
    "low",
    "carry",
    "discard",
    "shuffled",
    "ascending",
    "discard",
    "standard",
    "",
    "=",
    "3.0",
    "True",
    "٣",
]


def parse_or_refuse(call) -> None:
    try:
        rs = call()
    except RulesetError as exc:
        assert str(exc)
        return
    assert isinstance(rs, Ruleset)
    assert Ruleset.parse(rs.describe()) == rs  # whatever is accepted round-trips


notation = st.lists(
    st.tuples(st.sampled_from(KEYS), st.one_of(st.sampled_from(VALUES), hostile_text)), max_size=6
).map(lambda items: " ".join(f"{k}={v}" for k, v in items))


@given(st.one_of(notation, hostile_text))
def test_rules_notation(text):
    parse_or_refuse(lambda: Ruleset.parse(text))


mapping = st.dictionaries(
    st.sampled_from(
        [
            "cards",
            "players",
            "tie_rule",
            "unique_bids",
            "high_ace",
            "cards_per_bid",
            "open_prizes",
            "prize_order",
            "preset",
            "x",
        ]
    ),
    st.one_of(
        json_value,
        st.integers(1, 13),
        st.sampled_from(["discard", "carry", "ascending"]),
        st.permutations([1, 2, 3, 4, 5]),
    ),
    max_size=5,
)


@given(st.one_of(mapping, json_value))
def test_rules_mappings(data):
    parse_or_refuse(lambda: Ruleset.from_mapping(data))


@given(
    st.one_of(mapping.map(json.dumps), hostile_text, st.binary(max_size=100)),
    st.sampled_from([".json", ".toml"]),
)
def test_rules_files(tmp_path_factory, content, suffix):
    path = tmp_path_factory.mktemp("rules") / f"r{suffix}"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", errors="surrogatepass")
    parse_or_refuse(lambda: Ruleset.from_file(path))
