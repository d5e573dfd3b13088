"""Golf holds against a player who probes its rules (issue 24, section 7; docs/golf.md).

- Ending early counts only the cards of the ender's own grid the ender snapped, never snaps of
  opponents' cards (docs/golf.md, "Ending early"); a record that ends too soon is refused.
- No snap is accepted while the draw pile cannot pay a wrong snap's penalty card
  (docs/golf.md, "Snapping"), through the library or the web adapter.
- A drawn Detective or Thief goes into a further card, not the one its power just used
  (docs/golf.md, "The Detective", "The Thief").
- A wrong snap of an opponent's card leaves that card with its owner (a decision,
  docs/golf.md, "Decisions where the text is silent").
- Over seeded bot games: every early end had enough of the ender's own cards snapped, no snap
  happened without a penalty card in the draw pile, no power card went into its own card.
"""

from __future__ import annotations

import random

import pytest

from cardtable.golf.actions import Discard, Draw, EndEarly, NoPass, Pass, Peek, Snap, Steal, Swap
from cardtable.golf.bots.heuristic import HeuristicBot
from cardtable.golf.bots.random_bot import RandomBot
from cardtable.golf.bots.search import SearchBot
from cardtable.golf.cards import card_rank
from cardtable.golf.driver import play_game
from cardtable.golf.errors import EndTooSoon, NoPenaltyCard, SameCard
from cardtable.golf.record import RecordError, record_from_game, replay_text, write_text
from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.state import GolfGame
from cardtable.golf.views import build_view
from cardtable.web.games.base import ActionError
from cardtable.web.games.golf import GolfAdapter, GolfState

# ranks: A=1 .. 10, J=11 (Detective), Q=12 (Thief), K=13
P1 = [2, 3, 4, 5, 6, 7, 8, 9, 10]
P2 = [1, 1, 1, 2, 3, 4, 13, 13, 5]


def ranks(game, seat):
    return [None if c is None else card_rank(c) for c in game.grids[seat]]


def rejected(game, action, error, match):
    before = game.snapshot()
    with pytest.raises(error, match=match):
        game.apply(action)
    assert game.snapshot() == before


# ------------------------------------------------------------------------------ ending early
def _three_opponent_snaps(make_game):
    """P1 snaps P2's 2, 3 and 4 (positions 4-6) onto the 2, 3 and 4 P2 discards, passing
    nothing: P1 keeps all nine own cards. Returns the game at the start of P1's fourth turn."""
    g = make_game([P1, P2], [13, 2, 13, 3, 7, 4])
    for pos in (3, 4, 5):
        g.apply(Draw(0))
        g.apply(Discard(0))
        g.apply(Draw(1))
        g.apply(Discard(1))
        assert g.apply(Snap(0, 1, pos)).correct
        g.apply(NoPass(0))
    assert g.phase == "draw" and g.current == 0
    assert ranks(g, 0) == P1 and g.snaps_made == [3, 0] and g.own_snaps == [0, 0]
    return g


def test_snaps_of_opponents_cards_do_not_count_for_ending_early(make_game):
    """Issue 24 section 7: a player with all nine own cards could end early after three snaps of
    an opponent's cards. "mindestens drei Karten seines Boards" counts cards of one's own grid."""
    g = _three_opponent_snaps(make_game)
    assert not g.can_end_early(0) and EndEarly(0) not in g.legal_actions()
    v = build_view(g, 0)
    assert not v.can_end_early() and EndEarly(0) not in v.legal_actions()
    assert v.own_snaps == (0, 0) and v.to_dict()["own_snaps"] == [0, 0]
    rejected(
        g, EndEarly(0), EndTooSoon, r"needs 3 discarded grid cards .*opponents' cards do not count.*have 0$"
    )


def test_own_snaps_count_and_opponents_snaps_of_your_cards_do_not(make_game):
    """P2 snaps P1's 2 (a right guess): the card left P1's grid, but P1 did not discard it, so it
    does not count for P1; P2's snap of its own 2 counts for P2."""
    g = make_game([P1, P2], [2, 13], ruleset=GolfRuleset(early_end_min=1))
    g.apply(Draw(0))
    g.apply(Discard(0))  # a 2 on top
    assert g.apply(Snap(1, 0, 0)).correct  # P2 snaps P1's 2
    g.apply(NoPass(1))
    assert g.own_snaps == [0, 0] and g.snaps_made == [0, 1]
    assert g.apply(Snap(1, 1, 3)).correct  # P2's own 2 onto it
    assert g.own_snaps == [0, 1]
    g.apply(Draw(1))
    g.apply(Discard(1))
    assert not g.can_end_early(0)
    g.apply(Draw(0))
    g.apply(Discard(0))
    assert g.can_end_early(1)


def test_a_record_that_ends_early_on_opponents_cards_is_refused(make_game):
    g = _three_opponent_snaps(make_game)
    text = write_text(record_from_game(g, ["Ann", "Ben"]))
    assert replay_text(text).endswith("unfinished after 18 actions")
    lines = text.rstrip("\n").splitlines()
    forged = text.rstrip("\n") + "\n19. P1 end\n"
    with pytest.raises(
        RecordError,
        match=r"action 19: illegal action P1 end: ending early needs 3 "
        r"discarded grid cards",
    ) as err:
        replay_text(forged)
    assert err.value.line == len(lines) + 1


# ------------------------------------------------------------------ snaps need a penalty card
def _last_card_drawn(make_game, ruleset=None):
    g = make_game([P1, P2], [], ruleset=ruleset or GolfRuleset())
    while len(g.draw_pile) > 1:
        g.apply(Draw(g.current))
        g.apply(Discard(g.current))
    g.apply(Draw(g.current))
    assert g.draw_pile == [] and g.phase == "drawn" and not g.over
    return g


def test_eighteen_guesses_after_the_last_draw_are_all_refused(make_game):
    """Issue 24 section 7: once the draw pile was empty, every snap of the rest of the turn was
    free. Now each one is refused, right or wrong, own or opponent's card, and nothing changes."""
    g = _last_card_drawn(make_game)
    for seat in (0, 1):
        for owner in (0, 1):
            for pos in g.cards_in(owner):
                rejected(g, Snap(seat, owner, pos), NoPenaltyCard, "draw pile is empty")
        assert g.legal_snaps(seat) == [] and not build_view(g, seat).snaps_open()
    assert not g.snaps_open()


def test_the_web_adapter_refuses_a_snap_without_a_penalty_card(make_game):
    state = GolfState(_last_card_drawn(make_game))
    adapter = GolfAdapter()
    before = state.game.snapshot()
    with pytest.raises(ActionError) as err:
        adapter.check(state, 1, {"type": "snap", "owner": 0, "pos": 0})
    assert err.value.code == "illegal" and "penalty card" in str(err.value)
    assert state.game.snapshot() == before
    assert adapter.view(state, 1)["legal_snaps"] == []


def test_a_record_with_a_snap_after_the_last_draw_is_refused(make_game):
    g = _last_card_drawn(make_game)
    text = write_text(record_from_game(g, ["Ann", "Ben"]))
    n = len(g.history) + 1
    seat = 1 - g.current
    forged = text.rstrip("\n") + f"\n{n}. P{seat + 1} snap P{seat + 1}:1 = wrong 2C\n"
    with pytest.raises(
        RecordError,
        match=rf"action {n}: illegal action P{seat + 1} snap P{seat + 1}:1: "
        r"no more snaps: the draw pile is empty",
    ):
        replay_text(forged)


def test_a_wrong_snap_that_takes_the_last_penalty_card_closes_the_snap_window(make_game):
    """The draw pile can also run out through a penalty card in the middle of a turn."""
    g = make_game([P1, P2], [])
    while len(g.draw_pile) > 2:
        g.apply(Draw(g.current))
        g.apply(Discard(g.current))
    g.apply(Draw(g.current))  # one card left
    top = card_rank(g.discard[-1])
    seat = 1 - g.current
    wrong = next(i for i, r in enumerate(ranks(g, seat)) if r != top)
    ev = g.apply(Snap(seat, seat, wrong))
    assert ev.correct is False and len(ev.penalty) == 1 and g.draw_pile == []
    rejected(g, Snap(seat, seat, wrong), NoPenaltyCard, "draw pile is empty")


# ------------------------------------------------------------ Detective and Thief: a further card
def test_the_detective_cannot_go_into_the_card_it_looked_at(make_game):
    """Issue 24 section 7: "eine weitere Karte" -- the Detective is swapped into a further card."""
    g = make_game([P1, P2], [11])
    g.apply(Draw(0))
    g.apply(Peek(0, 2))
    rejected(
        g,
        Swap(0, 2),
        SameCard,
        r"Detective can only go into a further card.*not position 3, "
        r"the card you just looked at",
    )
    assert Swap(0, 2) not in g.legal_actions() and Swap(0, 1) in g.legal_actions()
    assert build_view(g, 1).to_dict()["power_pos"] == 2
    g.apply(Swap(0, 1))
    assert card_rank(g.grids[0][1]) == 11 and card_rank(g.discard[-1]) == 3


def test_the_thief_cannot_go_into_the_card_it_received(make_game):
    g = make_game([P1, P2], [12])
    g.apply(Draw(0))
    g.apply(Steal(0, 8, 1, 6))  # P1's 10 for P2's K, unseen
    rejected(g, Swap(0, 8), SameCard, r"Thief can only go into a further card.*not position 9")
    assert Swap(0, 8) not in build_view(g, 0).legal_actions()
    g.apply(Discard(0))
    assert g.power_card is None


def test_without_using_the_power_every_card_may_take_the_detective(make_game):
    g = make_game([P1, P2], [11])
    g.apply(Draw(0))
    assert build_view(g, 0).power_pos is None
    g.apply(Swap(0, 2))
    assert card_rank(g.grids[0][2]) == 11


def test_the_limit_follows_the_card_not_the_position(make_game):
    """The card looked at may leave the grid while the Detective is held (an opponent snaps it
    and passes a card into the hole): the new card there may take the Detective."""
    g = make_game([P1, P2], [1, 11])
    g.apply(Draw(0))
    g.apply(Discard(0))  # an A on top
    g.apply(Draw(1))  # the Detective
    g.apply(Peek(1, 0))  # P2 looks at its A (position 1)
    assert build_view(g, 0).power_pos == 0
    rejected(g, Swap(1, 0), SameCard, "not position 1, the card you just looked at")
    assert g.apply(Snap(0, 1, 0)).correct  # P1 snaps that A
    g.apply(Pass(0, 0))  # and passes its 2 into the hole
    assert ranks(g, 1)[0] == 2 and g.power_pos() is None and Swap(1, 0) in g.legal_actions()
    g.apply(Swap(1, 0))
    assert ranks(g, 1)[0] == 11


def test_a_record_with_the_detective_in_its_own_card_is_refused(make_game):
    g = make_game([P1, P2], [11])
    g.apply(Draw(0))
    g.apply(Peek(0, 4))
    text = write_text(record_from_game(g, ["Ann", "Ben"]))
    forged = text.rstrip("\n") + "\n3. P1 swap 5 = 6C\n"
    with pytest.raises(
        RecordError,
        match=r"action 3: illegal action P1 swap 5: the Detective can only go "
        r"into a further card",
    ):
        replay_text(forged)


# ------------------------------------------------------------ a wrong snap of an opponent's card
def test_a_wrong_snap_of_an_opponents_card_leaves_it_with_its_owner(make_game):
    """A decision (docs/golf.md, "Decisions where the text is silent"): the text's "behalten"
    (keep it) is about one's own card; an opponent's card goes back face down to its owner, and
    only the snapper takes the penalty card."""
    g = make_game([P1, P2], [8, 7])
    g.apply(Draw(0))
    g.apply(Discard(0))  # an 8 on top
    card = g.grids[1][6]  # P2's K
    ev = g.apply(Snap(0, 1, 6))
    assert ev.correct is False and ev.card == card and ev.seen_by == {0, 1}
    assert g.grids[1][6] == card and len(g.grids[1]) == 9  # back with its owner, nothing added
    assert card not in g.grids[0] and len(g.grids[0]) == 10  # the snapper got the penalty card
    assert card_rank(g.grids[0][9]) == 7 and g.grids[0][9] not in g.known[0]
    assert build_view(g, 0).grids[1][6] == 13  # everyone saw it
    assert g.snaps_made == [0, 0] and g.phase == "draw" and g.current == 1


# ---------------------------------------------------------------------- over seeded bot games
def _audit(game: GolfGame) -> list[int]:
    """Check one finished game from its history alone; return the ender's own snaps (or [])."""
    rs = game.ruleset
    replay = GolfGame(
        rs,
        seed=game.seed,
        deck=game.initial_deck,
        first_player=game.first_player,
        extra_cards=game.extra_cards,
    )
    own = [0] * rs.players
    power_card = None
    found = []
    for ev in game.history:
        a = ev.action
        if isinstance(a, Snap):
            assert len(replay.draw_pile) >= rs.penalty_cards, "a snap without a penalty card"
            if ev.correct and a.owner == a.player:
                own[a.player] += 1
        elif isinstance(a, Draw):
            power_card = None
        elif isinstance(a, Peek):
            power_card = ev.card
        elif isinstance(a, Steal):
            power_card = replay.grids[a.target][a.target_pos]
        elif isinstance(a, Swap):
            assert replay.grids[a.player][a.pos] != power_card, "a power card into its own card"
        elif isinstance(a, EndEarly):
            assert own[a.player] >= rs.early_end_min, f"ended early with {own[a.player]} own cards snapped"
            found.append(own[a.player])
        replay.apply(a)
    assert replay.snapshot() == game.snapshot()
    return found


def test_bot_games_end_early_only_after_enough_own_cards_snapped():
    """Seeded bot games (the heuristic ends early often; the random bot guesses snaps; the search
    bot with few samples): every early end had >= early_end_min own cards snapped."""
    early = []
    rng = random.Random(24)
    for k in range(40):
        players = 2 + k % 2
        rs = GolfRuleset(players=players, early_end_min=(3, 3, 2, 1)[k % 4])
        kinds = [
            HeuristicBot(seed=rng.randrange(10**6)),
            RandomBot(seed=rng.randrange(10**6), snap_rate=0.3),
            HeuristicBot(seed=rng.randrange(10**6)),
        ][:players]
        if k % 10 == 0:
            kinds[1] = SearchBot(seed=k, determinizations=2)
        game = play_game(GolfGame(rs, seed=f"probe/{k}", first_player=k % players), kinds)
        early += _audit(game)
    assert len(early) >= 10  # the property was exercised
