"""Inputs a read-through of every reader found (issue 23's stop, 3 Dec), kept as regression
tests of their kinds: one clear line and exit code 2 (or the reader's own error), nothing
written, nothing else read.

- a number of more than 4,300 digits in a tournament configuration (TOML) raised Python's
  ``ValueError`` from ``int()`` as a traceback; a hexadecimal one (``int()`` reads it) passed
  as the seed and failed later; a seed now has at most 18 digits;
- a tournament's schedule was bounded per pairing only: 20 bots x 1,000,000 games per pairing
  was a list of 190 million games; now at most 1,000,000 games in all;
- the record name: see ``test_record_names.py``.
"""

from __future__ import annotations

import pytest

from .refusals import refused


@pytest.mark.parametrize(
    "value, words",
    [
        ("1" * 5000, "big.toml"),
        ("[" + "9" * 4400 + "]", "big.toml"),
        ("0x" + "f" * 5000, "at most 18 digits"),
    ],
    ids=["decimal", "in-a-list", "hex"],  # hex: int() reads it, the seed's bound refuses it
)
def test_a_huge_integer_in_a_tournament_config_is_refused(fresh, value, words):
    (fresh / "big.toml").write_text(f'bots = ["random", "matcher"]\nseed = {value}\n')
    refused(["tournament", "--games", "2", "--backend", "serial", "--config", "big.toml"], words)
    assert not (fresh / "home").exists()


def test_a_tournament_of_too_many_games_in_all_is_refused(fresh):
    bots = [f"b{i}=random" for i in range(20)]
    text = refused(
        ["tournament", *bots, "--games", "1000000", "--backend", "serial"], "at most 1,000,000 games in all"
    )
    assert "190 pairings" in text
    assert not (fresh / "home").exists()
