"""The text table the research envs render (``render_mode="ansi"`` returns it,
``"human"`` prints it).

>>> from cardtable.goofspiel import Game, Ruleset
>>> g = Game(Ruleset(cards=4, prize_order="ascending"))
>>> _ = g.play([2, 1])
>>> print(table_text(g, ["player_0", "player_1"]))
Goofspiel  cards=4 players=2 ties=carry ace=low bid=1 display=1 order=ascending
round 2 of 4, bid phase
pot: 2 (2 points)   face down: 3 4   next: 3
last round: prize A  player_0 bid 2, player_1 bid A -> player_0 took A
seat      points  hand
player_0       1  A 3 4
player_1       0  2 3 4
"""

from __future__ import annotations

from typing import Sequence

from cardtable.goofspiel import Game
from cardtable.goofspiel.cards import rank_name


def _cards(cards) -> str:
    return " ".join(rank_name(c) for c in cards) or "-"


def table_text(game: Game, agents: Sequence[str]) -> str:
    """A readable multi-line table of ``game``: ruleset, round and phase, pot and
    face-down prizes, the last round's bids and winner, then one line per seat
    (points, hand). Hidden information (the face-down order of a shuffled deck)
    is not shown."""
    rs = game.ruleset
    lines = [f"Goofspiel  {rs.describe()}"]
    if game.is_over:
        lines.append(f"game over after {len(game.history)} rounds")
    else:
        chooser = game.chooser  # a seat in the choose phase, else None
        turn = f", {agents[chooser]} chooses a prize" if chooser is not None else ""
        lines.append(f"round {game.round} of {rs.rounds}, {game.phase} phase{turn}")
    pot_value = sum(rs.prize_value(p) for p in game.pot)
    label = "display" if rs.open_prizes > 1 else "pot"
    line = f"{label}: {_cards(game.pot)} ({pot_value} points)   face down: {_cards(game.remaining_prizes)}"
    if rs.fixed_order and game.deck:
        line += f"   next: {rank_name(game.deck[0])}"
    lines.append(line)
    if game.history:
        r = game.history[-1]
        bids = ", ".join(f"{agents[s]} bid {'+'.join(rank_name(c) for c in b)}" for s, b in enumerate(r.bids))
        taken = ", ".join(f"{agents[s]} took {rank_name(p)}" for s, p in r.taken) or "nobody took a prize"
        lines.append(f"last round: prize {_cards(r.prizes)}  {bids} -> {taken}")
    width = max(len(a) for a in agents)
    lines.append(f"{'seat':<{width}}  points  hand")
    for s, a in enumerate(agents):
        lines.append(f"{a:<{width}}  {game.points[s]:>6}  {_cards(sorted(game.hands[s]))}")
    return "\n".join(lines)
