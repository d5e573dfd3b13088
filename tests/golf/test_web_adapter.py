"""The Golf web adapter follows docs/golf.md: the optional pass over JSON, snaps refused (not
queued) while a pass is pending, the timer declines a pending pass, event words data."""

from __future__ import annotations

import pytest

from cardtable.golf.actions import Discard, Draw, Snap
from cardtable.golf.ruleset import GolfRuleset
from cardtable.web.games.base import ActionError
from cardtable.web.games.golf import GolfAdapter, GolfState

P1 = [2, 3, 4, 5, 6, 7, 8, 9, 10]
P2 = [1, 1, 1, 2, 3, 4, 13, 13, 5]


@pytest.fixture
def pending_pass(make_game):
    g = make_game([P1, P2], [13, 5], ruleset=GolfRuleset())
    for a in (Draw(0), Discard(0), Draw(1), Discard(1), Snap(0, 1, 8)):
        g.apply(a)
    assert g.phase == "pass"
    return GolfState(g)


def test_nopass_is_a_legal_json_action_and_the_timer_picks_it(pending_pass):
    adapter = GolfAdapter()
    view = adapter.view(pending_pass, 0)
    assert {"type": "nopass", "player": 0} in view["legal_actions"]
    assert adapter.timeout_action(pending_pass, 0) == {"type": "nopass", "player": 0}
    checked = adapter.check(pending_pass, 0, {"type": "nopass"})
    adapter.apply(pending_pass, 0, checked)
    ev = adapter.view(pending_pass, 1)["events"][-1]
    assert ev["type"] == "nopass" and ev["to_seat"] == 1 and pending_pass.game.phase == "draw"


def test_a_snap_while_a_pass_is_pending_is_refused_not_queued(pending_pass):
    adapter = GolfAdapter()
    before = pending_pass.game.snapshot()
    with pytest.raises(ActionError) as err:
        adapter.check(pending_pass, 1, {"type": "snap", "owner": 1, "pos": 0})
    assert err.value.code == "wrong_phase" and "pass" in str(err.value)
    assert pending_pass.game.snapshot() == before


def test_pass_event_names_the_receiving_seat_and_position(pending_pass):
    adapter = GolfAdapter()
    adapter.apply(pending_pass, 0, adapter.check(pending_pass, 0, {"type": "pass", "pos": 8}))
    ev = adapter.view(pending_pass, 1)["events"][-1]
    assert (ev["type"], ev["to_seat"], ev["to_pos"], ev["card"]) == ("pass", 1, 8, None)


def test_the_web_schema_knows_every_engine_action():
    """The server's message schema and the engine's actions stay one set (a new action such as
    ``nopass`` must be accepted by both)."""
    from dataclasses import fields

    from cardtable.golf.actions import ACTION_TYPES, action_to_dict
    from cardtable.web.games.golf import _ACTION

    for kind, cls in ACTION_TYPES.items():
        sample = cls(**{f.name: 0 if f.name != "target" else 1 for f in fields(cls)})
        parsed = _ACTION.validate_python(action_to_dict(sample))
        assert parsed.type == kind
