"""Issue 24, section 4, through the commands: `analyze` refuses a record exactly as `replay`
does, a UTF-16 record is "not UTF-8", and a rules file may start with a UTF-8 byte-order
mark (as records may)."""

import json

import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel.record import record_from_game, write_text

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, list(args), env={"COLUMNS": "400"})


def best_of_3() -> str:
    rs = Ruleset(cards=3, prize_order="descending")
    blocks = []
    for k in (1, 2):
        g = Game(rs)
        for bids in ([3, 2], [2, 1], [1, 3]):  # Ann wins 5-1
            g.play(bids)
        tags = [("Match", "best-of 3"), ("MatchGame", str(k))] + (
            [("MatchResult", "win loss")] if k == 2 else []
        )
        blocks.append(write_text(record_from_game(g, ["Ann", "Ben"], tags)))
    return "\n".join(blocks)


def test_analyze_refuses_a_tampered_match_exactly_as_replay(tmp_path):
    path = tmp_path / "match.gops"
    path.write_text(best_of_3().replace('[MatchGame "2"]', '[MatchGame "3"]'), encoding="utf-8")
    replayed, analysed = invoke("replay", str(path)), invoke("analyze", str(path))
    assert replayed.exit_code == analysed.exit_code == 1
    assert "game 2 of the file has MatchGame '3', expected 2" in replayed.output
    assert analysed.output.strip() == replayed.output.strip().splitlines()[-1]
    strategy = invoke("strategy", "--record", str(path), "--game", "1", "--round", "1")
    assert strategy.exit_code == 1 and strategy.output.strip() == analysed.output.strip()


def test_analyze_reads_the_untampered_match(tmp_path):
    path = tmp_path / "match.gops"
    path.write_text(best_of_3(), encoding="utf-8")
    assert invoke("replay", str(path)).exit_code == 0
    res = invoke("analyze", str(path))
    assert res.exit_code == 0 and "game 2" in res.output


@pytest.mark.parametrize("command", ["replay", "verify", "analyze"])
def test_a_utf16_record_without_byte_order_mark_is_not_utf8(command, tmp_path):
    path = tmp_path / "utf16.gops"
    path.write_bytes(best_of_3().encode("utf-16-le"))
    res = invoke(command, str(path))
    assert res.exit_code == 2, res.output
    assert "is not UTF-8 text (it holds NUL bytes: UTF-16 or a binary file)" in " ".join(res.output.split())


@pytest.mark.parametrize(
    "name, text",
    [
        ("rules.json", json.dumps({"cards": 5, "tie_rule": "discard"})),
        ("rules.toml", 'cards = 5\ntie_rule = "discard"\n'),
    ],
)
def test_a_rules_file_with_a_byte_order_mark_is_read(tmp_path, name, text):
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    rs = Ruleset.from_file(path)
    assert (rs.cards, rs.tie_rule) == (5, "discard")
    res = invoke("play", "--auto", "--no-save", "--seed", "1", "--rules", str(path))
    assert res.exit_code == 0, res.output
