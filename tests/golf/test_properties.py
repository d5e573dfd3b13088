"""Property-based tests (Hypothesis) over random legal play, snaps included.

- No card is ever created, lost or duplicated: grids, draw pile, discard pile
  and the drawn card always hold exactly the deck.
- A player's view never shows the rank of a card that player has not seen,
  where "seen" is tracked here independently from the actions' meaning
  (docs/golf.md, "Knowledge"): the bottom row at the deal, one's own draws, a shown
  Detective or Thief, a Detective look, and every face-up card.
- A random (mostly illegal) action either applies or raises and changes nothing.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from cardtable.golf.actions import Discard, Draw, EndEarly, Pass, Peek, Snap, Steal, Swap
from cardtable.golf.cards import card_rank
from cardtable.golf.errors import IllegalAction
from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.state import GolfGame
from cardtable.golf.views import build_view


def initial_seen(g: GolfGame) -> list[set[int]]:
    rs = g.ruleset
    return [
        {c for c, r in zip(g.grids[p], g.slot_rows[p], strict=True) if r >= rs.rows - rs.peek_rows}
        for p in range(g.players)
    ]


def update_seen(g: GolfGame, seen: list[set[int]], action, ev) -> None:
    everyone = range(g.players)
    if isinstance(action, Draw):
        if g.ruleset.power(card_rank(ev.card)):
            for p in everyone:
                seen[p].add(ev.card)
        else:
            seen[action.player].add(ev.card)
    elif isinstance(action, Peek):
        seen[action.player].add(ev.card)
    elif isinstance(action, (Discard, Swap, Snap)):
        for p in everyone:
            seen[p].add(ev.card)


def check_views(g: GolfGame, seen: list[set[int]]) -> None:
    for p in range(g.players):
        v = build_view(g, p)
        for o, grid in enumerate(g.grids):
            for pos, c in enumerate(grid):
                r = v.grids[o][pos]
                if c is None:
                    assert r is None
                elif r:
                    assert r == card_rank(c)
                    assert g.over or c in seen[p], f"P{p + 1} sees a card it never saw"
                else:
                    assert c not in seen[p], "a seen card was forgotten"
        if v.drawn is not None:
            assert g.drawn in seen[p]
        for e, ev in zip(v.events, g.history, strict=True):
            if e["card"] is not None:
                assert ev.card in seen[p]
        json.dumps(v.to_dict())


@st.composite
def random_action(draw, players: int):
    kind = draw(st.sampled_from(["draw", "end", "discard", "swap", "peek", "steal", "snap", "pass"]))
    p = draw(st.integers(-1, players))
    pos = draw(st.integers(-1, 11))
    other = draw(st.integers(-1, players))
    return {
        "draw": lambda: Draw(p),
        "end": lambda: EndEarly(p),
        "discard": lambda: Discard(p),
        "swap": lambda: Swap(p, pos),
        "peek": lambda: Peek(p, pos),
        "steal": lambda: Steal(p, pos, other, pos % 9),
        "snap": lambda: Snap(p, other, pos),
        "pass": lambda: Pass(p, pos),
    }[kind]()


@given(st.data(), st.integers(0, 10**6), st.sampled_from([2, 3]), st.integers(0, 3))
def test_random_play_keeps_cards_and_secrets(data, seed, players, early_min):
    rs = GolfRuleset(players=players, early_end_min=early_min)
    g = GolfGame(rs, seed=seed, first_player=seed % players)
    seen = initial_seen(g)
    deck = list(range(rs.deck_size))
    for step in range(250):
        if g.over:
            break
        options = g.legal_actions() + [s for p in range(players) for s in g.legal_snaps(p)][::7]
        action = options[data.draw(st.integers(0, len(options) - 1), label="choice")]
        if step % 5 == 0:
            bad = data.draw(random_action(players), label="probe")
            before = g.snapshot()
            try:
                ev = g.apply(bad)
            except IllegalAction:
                assert g.snapshot() == before
            else:
                update_seen(g, seen, bad, ev)
                continue
        ev = g.apply(action)
        update_seen(g, seen, action, ev)
        assert sorted(g.all_cards()) == deck
        assert [set(k) for k in g.known] == seen
        check_views(g, seen)
        if not g.over:
            assert set(g.legal_actions()) == set(build_view(g, g.actor).legal_actions())
            for p in range(players):
                assert set(g.legal_snaps(p)) == set(build_view(g, p).legal_snaps())
    if g.over:
        res = g.result()
        assert res.scores == g.scores() and min(res.scores) in res.scores
