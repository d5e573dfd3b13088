"""warm_kernels (cardtable/solver/warm.py): after it, a real game of the nash bot compiles
no kernel for new argument types (docs/play.md, Speed).

Numba's on-disk cache cannot be emptied per test, so what is checked is the cause of a cold
first move: a kernel called with argument types it was not yet compiled for in the process.
Each game runs in a fresh Python process (earlier tests of this process have compiled kernels
already), with an empty table folder, so the nash bot plays from the compressed tables shipped
in the package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from cardtable.goofspiel import Ruleset
from cardtable.solver import UnsupportedRuleset
from cardtable.solver.warm import kernel_signatures, small_position, warm_kernels

#: Plays one game of the nash bot against the heuristic bot; prints the kernel signatures that
#: appeared during the game (not before it) and the sources of the bot's bids.
GAME = """
import json, sys
from cardtable.goofspiel import Game, Ruleset
from cardtable.platform.bot import load_bot
from cardtable.solver.warm import kernel_signatures, warm_kernels

cards, ties, warm = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "warm"
rs = Ruleset(cards=cards, tie_rule=ties)
if warm:
    warm_kernels(rs)
before = kernel_signatures()
nash, other = load_bot("goofspiel", "nash", seed=1), load_bot("goofspiel", "heuristic", seed=2)
nash.new_game(rs, 0)
other.new_game(rs, 1)
game = Game(rs, seed=5)
sources = set()
while not game.is_over:
    bid = nash.act(game.view(0))
    sources.add(nash.last_source)
    game.play([bid, other.act(game.view(1))])
after = kernel_signatures()
new = {k: sorted(v - before.get(k, frozenset())) for k, v in after.items() if v - before.get(k, frozenset())}
print(json.dumps({"new": new, "sources": sorted(sources)}))
"""


def _game(tmp_path, cards: int, ties: str, warm: bool) -> dict:
    env = {**os.environ, "CARDTABLE_CACHE": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", GAME, str(cards), ties, "warm" if warm else "cold"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("ties", "sources"),
    [("carry", ["compressed", "subgame"]), ("discard", ["compressed", "subgame"])],
)
def test_an_11_card_game_after_warm_kernels_compiles_nothing_new(tmp_path, ties, sources):
    got = _game(tmp_path, 11, ties, warm=True)
    assert got["sources"] == sources  # the paths of a fresh install: shipped tables, then exact subgames
    assert got["new"] == {}


def test_without_warm_kernels_the_game_compiles_its_kernels(tmp_path):
    """The check above can fail: the same game without warm_kernels meets kernels not yet
    compiled for its types (the matrix-game solver among them)."""
    got = _game(tmp_path, 11, "discard", warm=False)
    assert "cardtable.solver.kernel.solve_matrix_game" in got["new"]
    assert "cardtable.solver.compressed.discard_value" in got["new"]


def test_warm_kernels_compiles_the_round_and_subgame_kernels():
    seconds = warm_kernels(Ruleset(cards=5, tie_rule="carry"), "win")
    assert seconds > 0
    compiled = kernel_signatures()
    for name in ("kernel.solve_matrix_game", "kernel.solve_layer", "kernel.pattern_children"):
        assert f"cardtable.solver.{name}" in compiled


def test_warm_kernels_refuses_an_unknown_objective_before_any_work():
    with pytest.raises(ValueError, match="objective must be one of points, win, not 'draw'"):
        warm_kernels(Ruleset(cards=5), "draw")


@pytest.mark.parametrize("ruleset", [Ruleset(cards=5, players=3), Ruleset(cards=6, cards_per_bid=2)])
def test_warm_kernels_refuses_a_ruleset_outside_the_solver(ruleset):
    with pytest.raises(UnsupportedRuleset):
        warm_kernels(ruleset)


@pytest.mark.parametrize("ties", ["carry", "discard"])
@pytest.mark.parametrize("order", ["shuffled", "descending"])
def test_small_position_has_the_cards_asked_for(ties, order):
    rs = Ruleset(cards=6, tie_rule=ties, prize_order=order)
    pos, prize = small_position(rs, 3, "win")
    assert pos.k == 3 and len(pos.prizes) == 3 and prize in pos.prizes
    assert pos.hands[0] == pos.hands[1] == frozenset({4, 5, 6})  # the lowest cards were bid
    if ties == "carry":
        assert pos.pot == sum(range(1, 7)) - sum(pos.prizes)  # every round tied: all carried
    assert small_position(rs, 9)[0].k == 6  # at most the whole game
