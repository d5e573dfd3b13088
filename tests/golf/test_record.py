"""Golf records: text and JSON round trips, replay verification with line numbers, the CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cardtable.golf.bots.heuristic import HeuristicBot
from cardtable.golf.bots.random_bot import RandomBot
from cardtable.golf.driver import play_game, play_match
from cardtable.golf.record import (
    RecordError,
    from_json,
    parse_text,
    record_from_game,
    replay,
    replay_text,
    to_json,
    write_text,
)
from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.state import GolfGame
from cardtable.golf.views import build_view


def finished(seed=3, players=2):
    rs = GolfRuleset(players=players)
    bots = [HeuristicBot(seed=seed), RandomBot(seed=seed, snap_rate=0.3), HeuristicBot(seed=seed + 1)][
        :players
    ]
    return play_game(GolfGame(rs, seed=seed), bots)


def test_text_round_trip_and_replay():
    g = finished()
    rec = record_from_game(g, ["Ann", "Bot"])
    text = write_text(rec)
    assert '[Game "golf"]' in text and "[Scores" in text
    again = parse_text(text)
    assert write_text(again) == text
    h = replay(again[0])
    assert h.over and h.result() == g.result() and h.snapshot()[5:9] == g.snapshot()[5:9]
    assert replay_text(text).startswith("1 game(s) verified: game 1: Ann ")


def test_three_player_two_deck_record():
    g = finished(seed=8, players=3)
    text = write_text(record_from_game(g, ["A", "B", "C"]))
    assert replay(parse_text(text)[0]).result() == g.result()


def test_json_round_trip():
    g = finished(seed=4)
    rec = record_from_game(g, ["Ann", "Bot"])
    data = to_json(rec)
    json.loads(data)
    back = from_json(data)
    assert write_text(back) == write_text(rec)
    assert replay_text(data).startswith("1 game(s) verified")


def action_line(text: str, n: int) -> int:
    lines = text.splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(f"{n}. "))


def test_tampered_card_reports_its_line():
    text = write_text(record_from_game(finished(), ["Ann", "Bot"]))
    lines = text.splitlines()
    k = action_line(text, 3)
    head, _, card = lines[k - 1].rpartition("= ")
    lines[k - 1] = head + "= " + ("KS" if card != "KS" else "QS")
    with pytest.raises(RecordError) as info:
        replay_text("\n".join(lines))
    assert info.value.line == k and "the record says" in str(info.value)


def test_illegal_action_reports_its_line():
    text = write_text(record_from_game(finished(), ["Ann", "Bot"]))
    lines = text.splitlines()
    k = action_line(text, 1)
    lines[k - 1] = "1. P2 draw = 7H"  # out of turn
    with pytest.raises(RecordError, match="illegal action P2 draw: it is P1's turn") as info:
        replay_text("\n".join(lines))
    assert info.value.line == k


def test_wrong_score_tag_and_garbage_line():
    text = write_text(record_from_game(finished(), ["Ann", "Bot"]))
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines, 1) if line.startswith("[Scores"))
    bad = lines[:]
    bad[k - 1] = '[Scores "0 0"]'
    with pytest.raises(RecordError, match="Scores 0 0 but the cards count") as info:
        replay_text("\n".join(bad))
    assert info.value.line == k
    bad = lines + ["this is not a move"]
    with pytest.raises(RecordError, match="expected a tag") as info:
        replay_text("\n".join(bad))
    assert info.value.line == len(bad)
    with pytest.raises(RecordError, match="not valid JSON"):
        replay_text("{ nope")


def test_match_record_checks_extra_cards():
    games = play_match(GolfRuleset(), [HeuristicBot(seed=5), HeuristicBot(seed=6)], games=4, seed="x")
    recs = [record_from_game(g, ["A", "B"]) for g in games]
    text = write_text(recs)
    assert replay_text(text).startswith("4 game(s) verified")
    # claim an extra card the previous game did not earn
    parts = text.split("\n\n[Game")
    parts[1] = parts[1].replace(f'[Extra "{" ".join(map(str, recs[1].extra_cards))}"]', '[Extra "2 0"]', 1)
    with pytest.raises(RecordError, match="does not follow from the previous game"):
        replay_text("\n\n[Game".join(parts))


def test_cli_replay_dispatches_to_golf(tmp_path):
    from cardtable.cli import app

    path = tmp_path / "game.golf"
    path.write_text(write_text(record_from_game(finished(), ["Ann", "Bot"])), encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "verified" in result.output
    path.write_text(path.read_text().replace("1. P1 draw", "1. P2 draw"), encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 1


def test_unfinished_game_is_restored_exactly_from_its_record():
    g = GolfGame(seed=2)
    bots = [HeuristicBot(seed=1), HeuristicBot(seed=2)]
    for _ in range(25):  # stop in the middle of a turn
        g.apply(bots[g.actor].act(build_view(g, g.actor)))
    rec = record_from_game(g, ["A", "B"])
    assert rec.scores is None and "[Scores" not in write_text(rec)
    h = replay(from_json(to_json(rec))[0])
    assert h.snapshot() == g.snapshot()  # deal, grids, piles, knowledge, phase, history
    assert build_view(h, 0).to_dict() == build_view(g, 0).to_dict()
