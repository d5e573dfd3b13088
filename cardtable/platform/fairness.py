"""The provably fair shuffle's commitment, shared by every game.

Before play the server publishes ``seed_commitment(seed)``; when the game ends
it reveals the seed, and anyone can check the commitment and re-deal the game
from the seed (each game defines how a seed deals: for Goofspiel
:func:`cardtable.goofspiel.state.prize_order_for`).

>>> seed_commitment("42")[:16]
'73475cb40a568e8d'
"""

from __future__ import annotations

import hashlib


def seed_commitment(seed: str) -> str:
    """SHA-256 hex digest of the seed text (UTF-8)."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()
