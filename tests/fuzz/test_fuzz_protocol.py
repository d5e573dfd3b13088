"""Fuzz: the bot protocol's line reader and reply parsers turn any bytes a program sends
into a reply or a BotFailure with a known kind, never another exception."""

from __future__ import annotations

import queue

from hypothesis import given
from hypothesis import strategies as st

from cardtable.goofspiel.protocol import parse_bid_words
from cardtable.platform.protocol import _EOF, BotFailure, BotProcess

from .mutations import hostile_text

KINDS = {"crash", "timeout", "garbage", "flood", "illegal", "unsolicited", "handshake"}


class FedProcess(BotProcess):
    """A BotProcess whose output is a given list of raw lines (no program runs)."""

    def __init__(self, raw_lines: list[bytes]) -> None:
        super().__init__(["true"])
        self._lines = queue.Queue()
        for raw in raw_lines:
            self._lines.put(raw)
        self._lines.put(_EOF)
        self.sent: list[str] = []

    def send(self, line: str) -> None:
        self.sent.append(line)

    def _crash(self) -> BotFailure:
        return BotFailure("crash", "the program exited")


words = st.one_of(
    st.sampled_from(
        [
            "bid",
            "choose",
            "info",
            "id",
            "name",
            "option",
            "type",
            "default",
            "ready",
            "readyok",
            "13",
            "3+9",
            "²",
            "0",
            "-1",
            "9" * 5000,
            "",
        ]
    ),
    hostile_text,
)
line = st.one_of(st.lists(words, max_size=6).map(" ".join), hostile_text)
raw_line = st.one_of(line.map(lambda s: (s + "\n").encode("utf-8", "surrogatepass")), st.binary(max_size=80))


@given(st.lists(raw_line, max_size=8), st.sampled_from([("bid",), ("choose",), ("readyok",)]))
def test_read_reply(raw_lines, expected):
    proc = FedProcess(raw_lines)
    try:
        word, rest = proc.read_reply(expected, 200, unsolicited=("bid", "choose"))
    except BotFailure as exc:
        assert exc.kind in KINDS and exc.detail
        return
    assert word in expected and isinstance(rest, list)


@given(st.lists(raw_line, max_size=8))
def test_handshake(raw_lines):
    proc = FedProcess(raw_lines)
    try:
        identity = proc.handshake("goofspiel", 200)
    except BotFailure as exc:
        assert exc.kind in KINDS and exc.detail
        return
    assert identity.name


@given(st.lists(words, max_size=5))
def test_bid_words(bid_words):
    try:
        cards = parse_bid_words(bid_words)
    except BotFailure as exc:
        assert exc.kind == "garbage"
        return
    assert cards and all(type(c) is int and 0 <= c < 1000 for c in cards)
