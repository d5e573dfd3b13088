"""The bot protocol: example bots pass bot-check; bad bots are reported and lose by rule."""

import shutil
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cardtable.goofspiel import Ruleset
from cardtable.goofspiel.botcheck import check_bot
from cardtable.goofspiel.protocol import GoofspielProtocolBot
from cardtable.goofspiel.tournament import play_one
from cardtable.platform.bot import load_bot
from cardtable.platform.protocol import BotFailure, BotProcess, split_command

ROOT = Path(__file__).resolve().parents[2]
PY = f"{sys.executable} {ROOT / 'examples' / 'protocol_bot.py'}"
JS = f"node {ROOT / 'examples' / 'protocol_bot.js'}"
BAD = f"{sys.executable} {Path(__file__).with_name('badbot.py')}"


def test_python_example_passes_bot_check_on_every_variant():
    report = check_bot(PY)
    assert report.ok, report.violations
    assert report.identity.name == "Example Python bot"
    assert "margin" in report.identity.options
    assert report.games == 14


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_node_example_passes_bot_check_on_every_variant():
    report = check_bot(JS)
    assert report.ok, report.violations
    assert report.identity.name == "Example Node bot"


@pytest.mark.parametrize(
    "mode, kind",
    [
        ("garbage", "garbage"),
        ("hang", "timeout"),
        ("crash", "crash"),
        ("flood", "flood"),
        ("longline", "flood"),
        ("illegal", "illegal"),
    ],
)
def test_bad_bots_are_reported_with_the_right_kind(mode, kind):
    # A short limit only where the limit is what is tested: on a loaded machine a
    # flooding bot may not send 101 info lines within 150 ms (+ grace) and would
    # be reported as a timeout instead.
    time_ms = 150 if mode == "hang" else 3000
    report = check_bot(f"{BAD} {mode}", rulesets=["standard", "open-prizes"], games=1, time_ms=time_ms)
    assert report.games == 2
    assert [v.kind for v in report.violations] == [kind, kind]
    assert [v.where for v in report.violations] == ["standard game 1", "open-prizes game 1"]


def test_crash_report_quotes_stderr():
    report = check_bot(f"{BAD} crash", rulesets=["standard"], games=1, time_ms=150)
    assert "code 3" in report.violations[0].detail and "something broke" in report.violations[0].detail


def test_garbage_instead_of_identity_is_a_handshake_violation():
    report = check_bot(f"{BAD} badhello", rulesets=["standard"], games=1)
    assert report.games == 0
    assert [(v.where, v.kind) for v in report.violations] == [("handshake", "garbage")]
    assert "hello, who are you?" in report.violations[0].detail


@pytest.mark.parametrize(
    "mode, says", [("manyoptions", "more than 64 options"), ("twiceoption", "declared twice")]
)
def test_options_beyond_the_limit_or_declared_twice_fail_the_handshake(mode, says):
    """A program's declared options are held in memory and listed: at most 64, each once."""
    report = check_bot(f"{BAD} {mode}", rulesets=["standard"], games=1)
    assert report.games == 0
    assert [v.where for v in report.violations] == ["handshake"]
    assert says in report.violations[0].detail


def test_bot_that_never_shakes_hands_is_reported():
    report = check_bot(f"{BAD} silent", rulesets=["standard"], games=1, handshake_ms=300)
    assert report.games == 0
    assert [(v.where, v.kind) for v in report.violations] == [("handshake", "timeout")]


@pytest.mark.parametrize("mode", ["hang", "crash", "garbage", "illegal"])
def test_bad_bot_loses_the_game_by_rule_and_the_next_game_still_runs(mode):
    rs = Ruleset(cards=5)
    bad = GoofspielProtocolBot(f"{BAD} {mode}", time_ms=100)
    try:
        for seat in (0, 1):
            bots = [load_bot("goofspiel", "random", seed=1), load_bot("goofspiel", "random", seed=2)]
            bots[seat] = bad
            out = play_one(rs, bots, seed="s")
            assert out.forfeit[0] == seat and out.forfeit[1] in ("timeout", "crash", "garbage", "illegal")
            assert out.outcomes[seat] == "loss" and out.outcomes[1 - seat] == "win"
            assert out.point_difference[seat] == -rs.total_prize_value
    finally:
        bad.close()


def test_protocol_bot_plays_a_full_game_like_any_bot():
    bot = GoofspielProtocolBot(PY, time_ms=2000)
    try:
        rs = Ruleset(cards=6, prize_order="ascending")
        out = play_one(rs, [bot, load_bot("goofspiel", "matcher")], seed=1)
        assert out.forfeit is None
        # the example bids one above the prize; the matcher bids the prize: the example wins 1..5,
        # then holds only the ace for the last prize (6), which the matcher wins with its 6
        assert out.points == (15, 6)
        sent = [line for d, line in bot.process.transcript if d == "> "]
        assert sent[0].startswith("cardtable 1 goofspiel")
        assert any(line.startswith("newgame seat 0 ruleset cards=6") for line in sent)
        assert any(line == "reveal 2 1" for line in sent) and any(line == "result win 0 1" for line in sent)
        assert any(line.startswith("gameover points 15 6 result win") for line in sent)
    finally:
        bot.close()
    assert not bot.process.alive


def test_bad_commands_are_rejected_before_anything_runs():
    with pytest.raises(ValueError, match="not found"):
        split_command("no-such-program-xyz --flag")
    with pytest.raises(ValueError, match="empty"):
        split_command("   ")
    with pytest.raises(ValueError, match="bad bot command"):
        split_command("python 'unclosed")
    with pytest.raises(ValueError, match="time_ms"):
        GoofspielProtocolBot(PY, time_ms=0)


def test_options_reach_the_program():
    bot = GoofspielProtocolBot(PY, options={"margin": 0})  # margin 0: bid the prize itself
    try:
        out = play_one(
            Ruleset(cards=5, prize_order="ascending", tie_rule="discard"),
            [bot, load_bot("goofspiel", "matcher")],
            seed=1,
        )
        assert out.points == (0, 0)  # like two matchers: every round ties
        assert ("> ", "setoption name margin value 0") in bot.process.transcript
    finally:
        bot.close()


def test_unknown_option_is_a_handshake_failure():
    bot = GoofspielProtocolBot(PY, options={"nosuch": 3})
    with pytest.raises(BotFailure, match="no option"):
        bot.ensure_started()
    assert not bot.process.alive


def test_process_reads_info_lines_and_quits_cleanly():
    p = BotProcess(PY)
    p.start()
    ident = p.handshake("goofspiel")
    p.sync()
    assert ident.author == "cardtable examples"
    assert p.close() == 0


def _app():
    from cardtable.cli import bot_check

    app = typer.Typer()
    bot_check.register(app)
    app.command("noop")(lambda: None)
    return app


def test_cli_bot_check_ok_and_violation_exit_codes():
    runner = CliRunner()
    ok = runner.invoke(_app(), ["bot-check", PY, "-r", "standard", "-r", "two-card-bids"])
    assert ok.exit_code == 0, ok.output
    assert "Example Python bot" in ok.output and "no protocol violations" in ok.output
    bad = runner.invoke(_app(), ["bot-check", f"{BAD} garbage", "-r", "standard", "--games", "1"])
    assert bad.exit_code == 1
    assert "garbage" in bad.output and "not a bid" in bad.output
    missing = runner.invoke(_app(), ["bot-check", "no-such-program-xyz"])
    assert missing.exit_code == 2 and "not found" in missing.output


def test_a_restarted_program_gets_every_byte_of_its_handshake():
    # Regression: closing a killed program's stdout from another thread freed its file
    # descriptor while the old reader thread was still reading; the next program's pipe
    # reused the number and the old thread stole its first bytes ("d name ..." instead
    # of "id name ..."), so a flood was misreported as garbage.
    report = check_bot(f"{BAD} flood", rulesets=["standard", "open-prizes", "discard"], games=3, time_ms=3000)
    assert report.games == 9
    assert [v.kind for v in report.violations] == ["flood"] * 9, [v.detail for v in report.violations]
