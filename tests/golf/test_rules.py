"""One test per rule of docs/golf.md, Rules (and its decisions where the text is silent)."""

from __future__ import annotations

import pytest

from cardtable.golf.actions import Discard, Draw, EndEarly, Pass, Peek, Snap, Steal, Swap
from cardtable.golf.cards import card_rank
from cardtable.golf.errors import EndTooSoon, GameOver, NoPenaltyCard, SameCard, WrongPhase
from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.state import GolfGame
from cardtable.golf.views import build_view

# ranks: A=1 .. 10, J=11 (Detective), Q=12 (Thief), K=13
P1 = [2, 3, 4, 5, 6, 7, 8, 9, 10]
P2 = [1, 1, 1, 2, 3, 4, 13, 13, 5]


def ranks(game, seat):
    return [None if c is None else card_rank(c) for c in game.grids[seat]]


def test_deal_grid_and_bottom_row_look(make_game):
    g = make_game([P1, P2], [7, 7, 7])
    assert ranks(g, 0) == P1 and ranks(g, 1) == P2
    assert len(g.draw_pile) == 52 - 18 and g.discard == []
    v = build_view(g, 0)
    assert v.grids[0] == (0, 0, 0, 0, 0, 0, 8, 9, 10)  # the bottom row, looked at once
    assert v.grids[1] == (0,) * 9
    assert build_view(g, 1).grids[1][6:] == (13, 13, 5)
    assert v.seen_by[1][6] == (1,)  # public: P2 looked at its own bottom row


def test_three_players_use_two_decks():
    g = GolfGame(GolfRuleset(players=3), seed=5)
    assert g.ruleset.decks == 2 and len(g.all_cards()) == 104
    assert len(g.draw_pile) == 104 - 27


def test_draw_then_swap_sends_old_card_face_up(make_game):
    g = make_game([P1, P2], [13, 7])
    g.apply(Draw(0))
    assert build_view(g, 0).drawn == 13 and build_view(g, 1).drawn is None  # only the drawer sees it
    ev = g.apply(Swap(0, 0))
    assert card_rank(ev.card) == 2 and build_view(g, 1).top == 2
    assert build_view(g, 0).grids[0][0] == 13  # the drawer knows what they put down
    assert build_view(g, 1).grids[0][0] == 0  # the opponent does not
    assert g.current == 1 and g.phase == "draw"


def test_draw_then_discard(make_game):
    g = make_game([P1, P2], [7, 7])
    g.apply(Draw(0))
    g.apply(Discard(0))
    assert [card_rank(c) for c in g.discard] == [7] and ranks(g, 0) == P1


def test_detective_look_then_discard_or_swap(make_game):
    g = make_game([P1, P2], [11, 11])
    g.apply(Draw(0))
    assert build_view(g, 1).drawn == 11  # the Detective is shown to everyone
    assert build_view(g, 0).grids[0][4] == 0
    g.apply(Peek(0, 4))
    assert build_view(g, 0).grids[0][4] == 6 and build_view(g, 1).grids[0][4] == 0
    assert build_view(g, 1).events[-1]["card"] is None and build_view(g, 0).events[-1]["card"] == 6
    assert build_view(g, 1).seen_by[0][4] == (0,)  # P2 saw P1 look there
    with pytest.raises(WrongPhase, match="already been used"):
        g.apply(Peek(0, 3))  # only one look
    before = g.snapshot()
    with pytest.raises(SameCard, match="further card.*not position 5"):
        g.apply(Swap(0, 4))  # "eine weitere Karte": not the card just looked at
    assert g.snapshot() == before
    assert Swap(0, 4) not in g.legal_actions() and Swap(0, 4) not in build_view(g, 0).legal_actions()
    assert build_view(g, 1).power_pos == 4
    g.apply(Swap(0, 3))  # the Detective itself may be swapped into a further card
    assert build_view(g, 1).grids[0][3] == 11  # everyone saw it, so everyone knows it
    assert build_view(g, 1).top == 5


def test_thief_blind_swap_moves_knowledge_for_both(make_game):
    g = make_game([P1, P2], [12, 12])
    g.apply(Draw(0))
    assert build_view(g, 1).drawn == 12
    # P1 gives its known 10 (position 9) for P2's known K (position 7)
    g.apply(Steal(0, 8, 1, 6))
    assert ranks(g, 0)[8] == 13 and ranks(g, 1)[6] == 10
    v0, v1 = build_view(g, 0), build_view(g, 1)
    assert v0.grids[1][6] == 10  # P1 knows where its 10 went
    assert v0.grids[0][8] == 0  # ... but not the card it got (blind)
    assert v1.grids[0][8] == 13  # P2 knows where its K went
    assert v1.grids[1][6] == 0  # ... and not the card it received
    g.apply(Discard(0))
    assert build_view(g, 1).top == 12


def test_snap_own_card_correct(make_game):
    # P2 discards a 4; P1 peeked nothing but knows bottom row 8,9,10: use a 8 instead
    g = make_game([P1, P2], [8, 7])
    g.apply(Draw(0))
    g.apply(Discard(0))  # an 8 on the discard pile
    ev = g.apply(Snap(0, 0, 6))  # P1's known 8 (bottom left), not in its turn
    assert ev.correct and g.grids[0][6] is None and card_rank(g.discard[-1]) == 8
    assert g.snaps_made[0] == 1 and g.phase == "draw" and g.current == 1


def test_snap_own_card_wrong_penalty(make_game):
    g = make_game([P1, P2], [8, 7, 5])
    g.apply(Draw(0))
    g.apply(Discard(0))  # 8 on top
    ev = g.apply(Snap(1, 1, 8))  # P2's 5 is not an 8
    assert ev.correct is False and card_rank(ev.card) == 5
    assert ranks(g, 1)[8] == 5  # turned back, stays
    assert build_view(g, 0).grids[1][8] == 5  # shown to everyone
    assert len(g.grids[1]) == 10 and card_rank(g.grids[1][9]) == 7  # penalty card, new position 10
    assert g.grids[1][9] not in g.known[1] and build_view(g, 1).grids[1][9] == 0  # not looked at
    assert g.slot_rows[1][9] == 0 and len(g.draw_pile) == 52 - 18 - 2


def test_snap_opponent_card_then_pass(make_game):
    g = make_game([P1, P2], [13, 5])
    # P1 learns P2's K? P1 knows P2 nothing; use the Thief scenario instead: know via own bottom row
    g.apply(Draw(0))
    g.apply(Swap(0, 0))  # P1's 2 goes on the pile; P2's... nothing to match yet
    g.apply(Draw(1))
    g.apply(Discard(1))  # a 5 on top: P2's own 5 at position 9 is known to P2 only
    # P1 does not know P2's 5, but may try (a guess): it is right here
    ev = g.apply(Snap(0, 1, 8))
    assert ev.correct and g.grids[1][8] is None and g.phase == "pass" and g.actor == 0
    with pytest.raises(WrongPhase):
        g.apply(Draw(0))  # the pass comes first
    passed = g.grids[0][8]  # P1's known 10
    ev = g.apply(Pass(0, 8))
    assert g.grids[1][8] == passed and g.grids[0][8] is None and ev.to_pos == 8
    assert build_view(g, 1).grids[1][8] == 0  # the receiver may not look at it
    assert build_view(g, 0).grids[1][8] == 10  # the giver knew it and still does
    assert g.phase == "draw" and g.current == 0


def test_snap_known_opponent_card_wrong(make_game):
    g = make_game([P1, P2], [8, 9])
    g.apply(Draw(0))
    g.apply(Discard(0))  # 8 on top
    ev = g.apply(Snap(0, 1, 0))  # P2's A is not an 8
    assert not ev.correct and ranks(g, 1)[0] == 1 and g.grids[1][0] in g.known[1]
    assert len(g.grids[0]) == 10 and len(g.grids[1]) == 9  # the snapper takes the penalty


def burn_turns(g, keep):
    """Draw and discard until ``keep`` cards remain in the draw pile."""
    while len(g.draw_pile) > keep:
        g.apply(Draw(g.current))
        g.apply(Discard(g.current))


def test_no_snaps_once_the_draw_pile_is_empty(make_game):
    """Issue 24 section 7: wrong snaps were free after the last card was drawn. A snap, right
    or wrong, is refused while no penalty card could be drawn (docs/golf.md, "Snapping")."""
    g = make_game([P1, P2], [])
    burn_turns(g, 1)
    g.apply(Draw(g.current))  # the last card; the drawer still holds it
    assert g.draw_pile == [] and g.phase == "drawn"
    top = card_rank(g.discard[-1])
    for seat in (0, 1):
        assert g.legal_snaps(seat) == [] and build_view(g, seat).legal_snaps() == []
        wrong = next(i for i, r in enumerate(ranks(g, seat)) if r != top)
        for snap in (Snap(seat, seat, wrong), Snap(seat, 1 - seat, 0)):
            before = g.snapshot()
            with pytest.raises(NoPenaltyCard, match="draw pile is empty"):
                g.apply(snap)
            assert g.snapshot() == before
    g.apply(Discard(g.current))
    assert g.over and g.result().reason == "pile"


def test_a_right_snap_is_refused_too_when_no_penalty_card_is_left(make_game):
    """Refusing only wrong snaps would tell the snapper whether a card matches."""
    g = make_game([P1, P2], [])
    burn_turns(g, 2)
    swapper = g.current
    g.apply(Draw(swapper))
    g.apply(Swap(swapper, P1.index(2) if swapper == 0 else P2.index(2)))  # a 2 goes on top
    g.apply(Draw(g.current))  # the last card
    other = 1 - swapper
    pos = ranks(g, other).index(2)
    assert card_rank(g.discard[-1]) == 2 and g.draw_pile == []
    before = g.snapshot()
    with pytest.raises(NoPenaltyCard):
        g.apply(Snap(other, other, pos))  # it would be right
    assert g.snapshot() == before


def test_snaps_need_every_penalty_card_of_the_ruleset(make_game):
    """With ``penalty_cards=2`` a snap needs two cards in the draw pile: a wrong snap always
    pays its whole penalty."""
    g = make_game([P1, P2], [], ruleset=GolfRuleset(penalty_cards=2))
    burn_turns(g, 2)
    g.apply(Draw(g.current))
    assert len(g.draw_pile) == 1 and g.legal_snaps(0) == [] and g.legal_snaps(1) == []
    with pytest.raises(NoPenaltyCard, match="holds 1 card.*2 penalty"):
        g.apply(Snap(0, 0, 0))


def test_end_when_draw_pile_empty(make_game):
    g = make_game([P1, P2], [])
    turns = 0
    while not g.over:
        g.apply(Draw(g.current))
        g.apply(Discard(g.current))
        turns += 1
    assert turns == 34 and g.result().reason == "pile" and g.ended_by is None
    with pytest.raises(GameOver):
        g.apply(Draw(g.current))


def test_end_when_a_grid_is_empty(make_game):
    rs = GolfRuleset(rows=1, cols=1)
    g = make_game([[8], [3]], [8], ruleset=rs)
    assert build_view(g, 0).grids[0] == (8,)  # the single row is the bottom row
    g.apply(Draw(0))
    g.apply(Discard(0))
    g.apply(Snap(0, 0, 0))
    assert g.over and g.result().reason == "grid"
    res = g.result()
    assert res.scores == (0, 3) and res.outcomes == ("win", "loss") and res.score_difference == (-3, 3)


def test_early_end_rules_and_extra_card_for_losing_ender(make_game):
    g = make_game([P1, P2], [8, 7, 9, 6, 10, 7, 6, 7])
    for i, snap_pos in enumerate((6, 7, 8)):
        if i < 3:
            with pytest.raises(EndTooSoon):
                g.apply(EndEarly(0))  # fewer than three discarded grid cards
        g.apply(Draw(0))
        with pytest.raises(WrongPhase, match="cannot end now"):
            g.apply(EndEarly(0))  # only at the start of a turn
        g.apply(Discard(0))
        g.apply(Snap(0, 0, snap_pos))
        g.apply(Draw(1))
        g.apply(Discard(1))
    assert g.snaps_made == [3, 0]
    before = len(g.draw_pile)
    g.apply(EndEarly(0))
    assert len(g.draw_pile) == before and g.drawn is None  # the ender draws nothing
    assert g.current == 1 and not g.over
    with pytest.raises(EndTooSoon):
        g.apply(EndEarly(1))  # already ending
    g.apply(Draw(1))
    g.apply(Discard(1))  # P2's last turn
    assert g.over
    res = g.result()
    assert res.reason == "early" and res.ended_by == 0
    assert res.scores == (2 + 3 + 4 + 5 + 6 + 7, 1 + 1 + 1 + 2 + 3 + 4 + 0 + 0 + 5)
    assert res.outcomes == ("loss", "win") and res.extra_cards == (1, 0)
    nxt = GolfGame(g.ruleset, seed=9, extra_cards=res.extra_cards)
    assert len(nxt.grids[0]) == 10 and len(nxt.grids[1]) == 9
    assert nxt.slot_rows[0][9] == 2  # in the bottom row ...
    assert build_view(nxt, 0).grids[0][9] > 0  # ... and looked at with it
    assert build_view(nxt, 1).grids[0][9] == 0


def test_winning_early_ender_gets_no_extra_card(make_game):
    low = [13, 13, 13, 1, 1, 1, 8, 9, 10]
    g = make_game([low, P1], [8, 7, 9, 6, 10, 7, 6, 7])
    for pos in (6, 7, 8):
        g.apply(Draw(0))
        g.apply(Discard(0))
        g.apply(Snap(0, 0, pos))
        g.apply(Draw(1))
        g.apply(Discard(1))
    g.apply(EndEarly(0))
    g.apply(Draw(1))
    g.apply(Discard(1))
    res = g.result()
    assert res.scores[0] == 3 and res.outcomes == ("win", "loss") and res.extra_cards == (0, 0)


def test_three_players_last_turns_and_tie(make_game):
    same = [1, 1, 2, 2, 3, 3, 8, 9, 10]
    g = make_game([same, same, same], [8, 7, 7, 9, 6, 6, 10, 5, 5, 4, 4, 4])
    for pos in (6, 7, 8):
        g.apply(Draw(0))
        g.apply(Discard(0))
        g.apply(Snap(0, 0, pos))
        for p in (1, 2):
            g.apply(Draw(p))
            g.apply(Discard(p))
    g.apply(EndEarly(0))
    assert g.last_turns == [1, 2]
    for p in (1, 2):
        assert not g.over and g.current == p
        g.apply(Draw(p))
        g.apply(Discard(p))
    res = g.result()
    assert res.scores == (12, 39, 39) and res.outcomes == ("win", "loss", "loss")


def test_shared_lowest_score_is_a_draw_and_ender_keeps_no_extra(make_game):
    g = make_game(
        [[1, 1, 13, 13, 2, 2, 3, 3, 4], [1, 1, 13, 13, 2, 2, 3, 3, 4]],
        [],
        ruleset=GolfRuleset(early_end_min=0),
    )
    g.apply(EndEarly(0))
    g.apply(Draw(1))
    g.apply(Discard(1))
    res = g.result()
    assert res.outcomes == ("draw", "draw") and res.extra_cards == (0, 0) and res.winners == (0, 1)


def test_snaps_are_resolved_in_submission_order(make_game):
    # both hold a known 8 in the bottom row; an 8 is discarded; both snap
    g = make_game([P1, [1, 1, 1, 2, 3, 4, 8, 13, 5]], [8, 7])
    g.apply(Draw(0))
    g.apply(Discard(0))
    first = g.apply(Snap(1, 1, 6))
    second = g.apply(Snap(0, 0, 6))
    assert first.correct and second.correct  # the top is still an 8
    assert [card_rank(c) for c in g.discard] == [8, 8, 8] and g.snaps_made == [1, 1]
