"""Golf as the original text says (docs/golf.md): the optional pass, the early ender's frozen
grid, the end of the game at an emptied grid in any phase, and snap windows that last as long as
somebody snaps."""

from __future__ import annotations

import pytest

from cardtable.golf.actions import Discard, Draw, EndEarly, NoPass, Pass, Snap, Steal, parse_action
from cardtable.golf.driver import play_turn
from cardtable.golf.errors import FrozenGrid, GameOver, WrongPhase
from cardtable.golf.record import parse_text, record_from_game, replay_text, write_text
from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.views import build_view

P1 = [2, 3, 4, 5, 6, 7, 8, 9, 10]
P2 = [1, 1, 1, 2, 3, 4, 13, 13, 5]


def _snapped_opponent(make_game):
    """P1 snaps P2's 5 (position 9) onto P2's discarded 5: P1 must now decide about a pass."""
    g = make_game([P1, P2], [13, 5])
    g.apply(Draw(0))
    g.apply(Discard(0))
    g.apply(Draw(1))
    g.apply(Discard(1))
    assert g.apply(Snap(0, 1, 8)).correct
    return g


def test_passing_after_snapping_an_opponent_is_optional(make_game):
    g = _snapped_opponent(make_game)
    assert g.phase == "pass" and NoPass(0) in g.legal_actions()
    assert NoPass(0) in build_view(g, 0).legal_actions()
    mine = list(g.grids[0])
    ev = g.apply(NoPass(0))
    assert ev.card is None and ev.to_pos is None
    assert g.grids[0] == mine and g.grids[1][8] is None  # nothing moved: the hole stays
    assert g.phase == "draw" and g.current == 0 and g.passer is None
    # the record keeps the choice and replays it
    text = write_text(record_from_game(g, ["Ann", "Ben"]))
    assert "P1 nopass" in text
    assert parse_text(text)[0].actions[-1][0] == NoPass(0)
    assert replay_text(text) == "1 game(s) verified: game 1 unfinished after 6 actions"


def test_nopass_is_only_legal_when_a_pass_is_due(make_game):
    g = make_game([P1, P2], [13, 5])
    before = g.snapshot()
    with pytest.raises(WrongPhase):
        g.apply(NoPass(0))
    assert g.snapshot() == before
    assert parse_action("nopass", 1) == NoPass(1)


def test_pass_still_possible_and_a_snap_waits_for_the_decision(make_game):
    g = _snapped_opponent(make_game)
    before = g.snapshot()
    with pytest.raises(WrongPhase, match="first pass"):
        g.apply(Snap(1, 1, 6))  # refused, not queued: nothing changes
    assert g.snapshot() == before
    g.apply(Pass(0, 8))
    # the same snap sent again is judged against the top card, still P2's snapped 5
    ev = g.apply(Snap(1, 1, 6))
    assert ev.correct is False and g.discard[-1] % 13 + 1 == 5


def _ended_early(make_game, players=2):
    grids = [P1, P2, [6, 6, 6, 7, 7, 7, 8, 8, 8]][:players]
    rs = GolfRuleset(players=players, early_end_min=0)
    g = make_game(grids, [12, 12, 2], ruleset=rs)
    g.apply(EndEarly(0))
    return g


def test_early_ender_snaps_no_more_and_nothing_reaches_their_grid(make_game):
    g = _ended_early(make_game)
    frozen = list(g.grids[0])
    ev = g.apply(Draw(1))
    assert ev.card % 13 + 1 == 12  # a Thief
    assert not any(isinstance(a, Steal) and a.target == 0 for a in g.legal_actions(1))
    before = g.snapshot()
    with pytest.raises(FrozenGrid, match="frozen"):
        g.apply(Steal(1, 0, 0, 0))
    assert g.snapshot() == before
    g.apply(Discard(1))  # the last turn: the game is over
    assert g.over and g.grids[0] == frozen


def test_early_ender_frozen_during_last_turns_with_three_players(make_game):
    g = _ended_early(make_game, players=3)
    g.apply(Draw(1))
    g.apply(Discard(1))  # a Q lies on the pile; P3's last turn is still to come
    assert not g.over and g.legal_snaps(0) == []
    assert all(s.owner != 0 for s in g.legal_snaps(2))
    assert all(s.owner != 0 for s in build_view(g, 2).legal_snaps())
    assert build_view(g, 0).legal_snaps() == []
    before = g.snapshot()
    for snap in (Snap(0, 0, 0), Snap(0, 1, 0), Snap(2, 0, 0)):  # by the ender, or against them
        with pytest.raises(FrozenGrid):
            g.apply(snap)
        assert g.snapshot() == before
    g.apply(Snap(2, 2, 0))  # P3's wrong snap of its own card: the penalty goes to P3, not P1
    assert len(g.grids[2]) == 10 and len(g.grids[0]) == 9


def test_an_emptied_grid_ends_the_game_in_the_middle_of_a_turn(make_game):
    rs = GolfRuleset(rows=1, cols=3)
    g = make_game([[5, 5, 5], [1, 2, 3]], [7, 5, 9], ruleset=rs)
    g.apply(Draw(0))
    g.apply(Discard(0))
    g.apply(Draw(1))
    g.apply(Discard(1))  # a 5 on the pile
    g.apply(Draw(0))  # P1 holds a card ...
    g.apply(Snap(0, 0, 0))
    g.apply(Snap(0, 0, 1))
    ev = g.apply(Snap(0, 0, 2))  # ... and empties the grid: the game ends at once
    assert ev.ended == "grid" and g.over and g.result().scores[0] == 0
    with pytest.raises(GameOver):
        g.apply(Snap(0, 1, 0))  # a wrong snap cannot refill the emptied grid


def test_passing_the_last_card_ends_the_game(make_game):
    rs = GolfRuleset(rows=1, cols=2, snap_opponents=True)
    g = make_game([[5, 9], [1, 5]], [7, 5], ruleset=rs)
    g.apply(Draw(0))
    g.apply(Discard(0))
    g.apply(Draw(1))
    g.apply(Discard(1))  # a 5 on the pile
    g.apply(Snap(0, 0, 0))  # P1's own 5
    g.apply(Snap(0, 1, 1))  # P2's 5 (a guess, right): P1 may pass its last card
    assert g.phase == "pass"
    ev = g.apply(Pass(0, 1))
    assert ev.ended == "grid" and g.over and g.grids[0] == [None, None]


class _SureSnapper:
    """Draws, discards, and snaps one own known matching card per offer."""

    def act(self, view):
        return Draw(view.seat) if view.phase == "draw" else Discard(view.seat)

    def snap(self, view):
        own = [s for s in view.sure_snaps() if s.owner == view.seat]
        return own[0] if own else None


def test_snap_window_lasts_while_somebody_snaps(make_game):
    """With two decks a rank has eight cards: seven snaps onto one discard, over four rounds."""
    rs = GolfRuleset(players=2, decks=2, peek_rows=3)
    g = make_game([[5, 5, 5, 5, 1, 1, 1, 1, 1], [5, 5, 5, 2, 2, 2, 2, 2, 2]], [5], ruleset=rs)
    events = []
    play_turn(g, [_SureSnapper(), _SureSnapper()], lambda game, ev: events.append(ev))
    snaps = [e for e in events if e.action.kind == "snap"]
    assert len(snaps) == 7 and all(e.correct for e in snaps)
    assert [e.action.player for e in snaps] == [1, 0, 1, 0, 1, 0, 0]
    assert 5 not in [c % 13 + 1 for grid in g.grids for c in grid if c is not None]


def test_a_declined_pass_survives_the_json_record(make_game):
    from cardtable.golf.record import from_json, replay, to_json

    g = _snapped_opponent(make_game)
    g.apply(NoPass(0))
    g.apply(Draw(0))
    text = to_json(record_from_game(g, ["Ann", "Ben"]))
    back = from_json(text)
    rec = back[0] if isinstance(back, list) else back
    assert rec.actions[5][0] == NoPass(0)
    assert replay(rec).snapshot()[5:] == g.snapshot()[5:]
