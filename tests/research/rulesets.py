"""Rulesets the research tests run on: every preset plus random mixed rulesets."""

import random

from cardtable.goofspiel import PRESETS, Ruleset
from cardtable.goofspiel.ruleset import RulesetError


def random_rulesets(count: int, seed: int, min_rounds: int = 5, max_cards: int = 9) -> list[Ruleset]:
    """``count`` valid rulesets mixing every option at random (reproducible by ``seed``),
    each with at least ``min_rounds`` rounds."""
    rng = random.Random(seed)
    out: list[Ruleset] = []
    while len(out) < count:
        players = rng.randint(2, 5)
        try:
            rs = Ruleset(
                cards=rng.randint(min_rounds, max_cards),
                players=players,
                tie_rule=rng.choice(["carry", "discard"]),
                unique_bids=players > 2 and rng.random() < 0.5,
                high_ace=rng.random() < 0.5,
                cards_per_bid=rng.choice([1, 1, 2]),
                open_prizes=rng.choice([1, 1, 2, 3]),
                prize_order=rng.choice(["shuffled", "shuffled", "ascending", "descending"]),
            )
        except RulesetError:
            continue
        if rs.rounds >= min_rounds:
            out.append(rs)
    return out


PRESET_RULESETS = [Ruleset.preset(name) for name in PRESETS]
MIXED_RULESETS = random_rulesets(6, seed=2026)
ALL_RULESETS = PRESET_RULESETS + MIXED_RULESETS
