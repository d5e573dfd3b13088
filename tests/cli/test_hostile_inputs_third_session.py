"""Inputs a third hostile-input session found, kept as regression tests of their kinds (one
line, exit 2, nothing written, nothing silently ignored):

- a tournament config value of the wrong type (``ruleset = {cards = 3}``) gave a traceback
  (tests/platform/test_bot_options.py keeps that one);
- options that were silently ignored: ``--name`` with ``--auto`` or ``--hotseat``, an empty
  ``--rules``, an empty bot option (``heuristic:lam=0.5,``), a second ``--limit`` of the
  same name, ``true`` spelt ``True``;
- numbers without bounds or in other scripts: ``--limit bot_workers=100000``,
  ``claim_ttl=1e18``, ``rate=1_0``;
- a body sent to the lobby claim (``POST /api/rooms/R/join``) was ignored
  (tests/web/test_hostile_input.py keeps that one).
"""

from __future__ import annotations

import pytest

from cardtable.platform.bot import BotSpecError, parse_bot_spec
from cardtable.web.limits import Limits

from .refusals import refused


@pytest.mark.parametrize(
    "args, words",
    [
        (["play", "--auto", "-n", "3", "--name", "Me", "--no-save"], "--auto seats bots only"),
        (["play", "--hotseat", "--name", "Me"], "with --hotseat use --names"),
        (["play", "golf", "--auto", "--name", "Me"], "--auto seats bots only"),
        (["play", "--rules", ""], "the rules text is empty"),
        (["play", "--rules", "  "], "the rules text is empty"),
        (["play", "golf", "--rules", ""], "the rules text is empty"),
        (["tournament", "random", "matcher", "--rules", ""], "the rules text is empty"),
        (["play", "--auto", "--vs", "heuristic:lam=0.5,"], "an empty option"),
        (["play", "--auto", "--vs", "heuristic:,"], "an empty option"),
        (["play", "--auto", "--vs", "mcts:model=True"], "must be true or false"),
    ],
)
def test_an_option_is_never_silently_ignored(fresh, args, words):
    assert refused(args, words).startswith("error: ")
    assert not (fresh / "home").exists()


def test_the_bot_alone_and_exact_booleans_still_read():
    assert parse_bot_spec("heuristic:").options == {}
    assert parse_bot_spec("mcts:model=true").options == {"model": True}
    with pytest.raises(BotSpecError, match="empty option"):
        parse_bot_spec("heuristic:lam=1,,noise=0")


@pytest.mark.parametrize(
    "items, words",
    [
        (["rate=1", "rate=2"], "given twice"),
        (["bot_workers=100000"], "at most 64"),
        (["claim_ttl=1e18"], "at most 86,400"),
        (["presence_delay=1e18"], "at most 10"),
        (["rate=1e10"], "at most 1e+09"),
        (["rate=1_0"], "is not a number"),
        (["burst=\u0663"], "is not a whole number"),
        (["rate=inf"], "is not a number"),
        (["burst=2.5"], "is not a whole number"),
    ],
)
def test_a_limit_beyond_its_bounds_or_twice_is_refused(fresh, items, words):
    with pytest.raises(ValueError, match=words.replace("+", r"\+")):
        Limits().with_overrides(items)
    assert refused(
        ["serve", "--db", str(fresh / "s.sqlite3"), *(f"--limit={i}" for i in items)], words
    ).startswith("error: ")
    assert not (fresh / "s.sqlite3").exists()


def test_limits_within_their_bounds_are_taken():
    got = Limits().with_overrides(["claim_ttl=60", "rate=2.5", "bot_workers=64", "presence_delay=10"])
    assert (got.claim_ttl, got.rate, got.bot_workers, got.presence_delay) == (60.0, 2.5, 64, 10.0)
