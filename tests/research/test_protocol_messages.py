"""Issue 22, item 6: what docs/protocol.md says about messages is what the controller does:
whitespace and case of replies, the multi-card bid notation, the last (forced) bid, the high
ace, ``taken`` versus ``result take``, script paths and the crash report of a program that
cannot start."""

import shutil
import sys
from pathlib import Path

import pytest

from cardtable.goofspiel import Ruleset
from cardtable.goofspiel.botcheck import check_bot
from cardtable.goofspiel.protocol import GoofspielProtocolBot, parse_bid_words
from cardtable.goofspiel.tournament import play_one
from cardtable.platform.bot import BotSpec, load_bot
from cardtable.platform.protocol import BotFailure, BotProcess, split_command, split_words
from cardtable.platform.tournament import TournamentConfig, TournamentError, parse_bot_spec, validate

ROOT = Path(__file__).resolve().parents[2]
PY = f"{sys.executable} {ROOT / 'examples' / 'protocol_bot.py'}"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node (Debian package nodejs)")

# A program that answers each line starting with "go" with the next reply from its arguments (hex).
REPLIER = """
import sys
replies = [bytes.fromhex(h) for h in sys.argv[1:]]
for line in sys.stdin.buffer:
    if line.startswith(b"go") and replies:
        sys.stdout.buffer.write(replies.pop(0))
        sys.stdout.buffer.flush()
"""


def reply_to_go(tmp_path, raw: bytes):
    script = tmp_path / "replier.py"
    script.write_text(REPLIER)
    proc = BotProcess([sys.executable, str(script), raw.hex()])
    proc.start()
    try:
        proc.send("go bid time 1000")
        return proc.read_reply(("bid",), 5000, unsolicited=("choose",))
    finally:
        proc.close(wait_s=0.2)


@pytest.mark.parametrize("raw", [b"bid 12\n", b"bid  12\n", b"bid 12\r\n", b"\tbid\t12  \n", b"  bid 12\r\n"])
def test_spaces_tabs_and_a_final_cr_are_tolerated(tmp_path, raw):
    assert reply_to_go(tmp_path, raw) == ("bid", ["12"])


@pytest.mark.parametrize("raw", [b"BID 12\n", b"Bid 12\n", "bid\u00a012\n".encode(), b"bid\x0b12\n"])
def test_other_case_and_other_separators_are_garbage(tmp_path, raw):
    with pytest.raises(BotFailure) as info:
        reply_to_go(tmp_path, raw)
    assert info.value.kind == "garbage" and "expected bid" in info.value.detail


def test_a_cr_inside_a_line_stays_in_its_word():
    assert split_words("bid 12\r\r\n") == ["bid", "12\r"]
    with pytest.raises(BotFailure) as info:
        parse_bid_words(["12\r"])
    assert info.value.kind == "garbage"


@pytest.mark.parametrize(
    "words, bid",
    [
        (["3", "9"], (3, 9)),
        (["3+9"], (3, 9)),
        (["9", "3"], (3, 9)),
        (["3", "+", "9"], (3, 9)),
        (["012"], (12,)),
        (["+12"], (12,)),
    ],
)
def test_bid_notations_accepted(words, bid):
    assert parse_bid_words(words) == bid


@pytest.mark.parametrize("words", [["-3"], ["3.0"], ["²"], ["+"], ["1000"], ["3\u00a09"], ["12\x0b"]])
def test_bid_notations_refused(words):
    with pytest.raises(BotFailure) as info:
        parse_bid_words(words)
    assert info.value.kind == "garbage"


def _transcript_game(rs, opponent="random", seat=0):
    bot = GoofspielProtocolBot(PY, time_ms=3000, seed=1)
    try:
        bots = [load_bot("goofspiel", opponent, seed=2 + s) for s in range(rs.players)]
        bots[seat] = bot
        out = play_one(rs, bots, seed="msg")
        assert out.forfeit is None, out.forfeit
        return [line for d, line in bot.process.transcript if d == "> "], [
            line for d, line in bot.process.transcript if d == "< "
        ]
    finally:
        bot.close()


def test_a_multi_card_bid_is_sent_with_spaces_and_revealed_with_plus():
    sent, got = _transcript_game(Ruleset.preset("two-card-bids"))
    bids = [line for line in got if line.startswith("bid ")]
    assert bids and all(len(b.split()) == 3 for b in bids)  # the example answers "bid 3 9"
    reveals = [line for line in sent if line.startswith("reveal ")]
    assert reveals and all(len(r.split()) == 3 and all("+" in w for w in r.split()[1:]) for r in reveals)
    a, b = bids[0].split()[1:]
    assert f"{a}+{b}" == reveals[0].split()[1]  # seat 0's bid, same cards, ascending


def test_the_last_forced_card_is_requested_too():
    rs = Ruleset(cards=5)
    sent, got = _transcript_game(rs)
    assert sum(line.startswith("go bid ") for line in sent) == 5
    last_round = max(i for i, line in enumerate(sent) if line.startswith("round 5 "))
    assert any(line.startswith("go bid ") for line in sent[last_round:])


def test_the_high_ace_keeps_rank_1_and_is_worth_cards_plus_1():
    rs = Ruleset(cards=5, high_ace=True, prize_order="descending", tie_rule="discard")
    sent, _ = _transcript_game(rs, opponent="matcher")
    assert "round 5 pot 1 remaining upcoming" in sent  # the ace is rank 1 in every line
    assert (
        "newgame seat 0 ruleset cards=5 players=2 ties=discard ace=high bid=1 display=1 order=descending"
        in sent
    )
    assert "result win 1 1" in sent  # the matcher took the ace: worth 6 points, not 1
    points = [0, 0]
    for line in sent:
        w = line.split()
        if w[:2] == ["result", "win"]:
            points[int(w[2])] += sum(6 if p == "1" else int(p) for p in w[3:])
    final = next(line for line in sent if line.startswith("gameover "))
    assert final.startswith(f"gameover points {points[0]} {points[1]} ") and points[1] == 6


def test_taken_comes_before_a_choice_and_result_take_after_the_round():
    # 3 players: the strongest bid takes first, then the second; the weakest takes nothing
    rs = Ruleset(cards=8, players=3, open_prizes=3)
    sent, _ = _transcript_game(rs, seat=1)
    takens = [i for i, line in enumerate(sent) if line.startswith("taken ")]
    results = [i for i, line in enumerate(sent) if line.startswith("result take ")]
    assert takens and results
    for i in takens:
        nxt = next(line for line in sent[i + 1 :] if line != "isready")
        assert nxt.startswith("go choose ")
        result = next(sent[j] for j in results if j > i)
        assert result.split()[2:][: len(sent[i].split()) - 1] == sent[i].split()[1:]  # earlier takes first


# -- programs that are not there, and what a crash report quotes ---------------------------


@pytest.mark.parametrize("interpreter", [sys.executable, pytest.param("node", marks=needs_node)])
def test_a_missing_script_is_reported_before_anything_runs(tmp_path, monkeypatch, interpreter):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        ValueError,
        match=r"script 'bots/nothere\.x' not found \(a relative path is resolved "
        r"against the current folder, .*\)",
    ) as info:
        split_command(f"{interpreter} bots/nothere.x")
    assert str(tmp_path) in str(info.value)
    with pytest.raises(ValueError, match=r"script '/nowhere/bot\.js' not found$"):
        split_command(f"{interpreter} /nowhere/bot.js")
    (tmp_path / "bots").mkdir()
    with pytest.raises(ValueError, match="is a folder, not a file"):
        split_command(f"{interpreter} bots")


def test_interpreter_commands_with_options_are_not_looked_into():
    assert split_command([sys.executable, "-m", "no_such_module_xyz"])[1] == "-m"
    assert split_command([sys.executable, "-c", "pass"])[1] == "-c"


def test_a_tournament_names_the_missing_script(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = TournamentConfig(
        bots=(parse_bot_spec("mine=cmd:node nothere.js"), parse_bot_spec("random")), games=2
    )
    if shutil.which("node") is None:
        pytest.skip("needs Node (Debian package nodejs)")
    with pytest.raises(TournamentError, match=r"bot 'mine': .*script 'nothere\.js' not found"):
        validate(cfg)


@needs_node
def test_nodes_real_reason_is_quoted_not_only_its_stack_trace(tmp_path):
    bot = tmp_path / "bot.js"
    bot.write_text('require("./no-such-helper");\n')
    report = check_bot(f"node {bot}", rulesets=["standard"], games=1)
    assert [v.kind for v in report.violations] == ["crash"]
    detail = report.violations[0].detail
    assert "Cannot find module './no-such-helper'" in detail and "Node.js v" in detail


def test_a_long_stderr_is_quoted_by_its_first_and_last_lines(tmp_path):
    script = tmp_path / "noisy.py"
    script.write_text(
        "import sys\nsys.stderr.write('Error: the real reason\\n' + ''.join(f'  at frame {i}\\n' for i in range(300)) + 'the end\\n')\nsys.exit(4)\n"
    )
    proc = BotProcess([sys.executable, str(script)])
    proc.start()
    try:
        with pytest.raises(BotFailure) as info:
            proc.read_reply(("id",), 5000)
    finally:
        proc.close(wait_s=0.2)
    detail = info.value.detail
    assert detail.startswith(
        "the program exited (code 4); stderr: Error: the real reason | at frame 0 | at frame 1 | at frame 2 | ... |"
    )
    assert detail.endswith("at frame 298 | at frame 299 | the end")


def test_a_short_stderr_is_quoted_whole(tmp_path):
    script = tmp_path / "short.py"
    script.write_text("import sys\nsys.stderr.write('one\\n\\ntwo\\n')\nsys.exit(5)\n")
    proc = BotProcess([sys.executable, str(script)])
    proc.start()
    try:
        with pytest.raises(BotFailure) as info:
            proc.read_reply(("id",), 5000)
    finally:
        proc.close(wait_s=0.2)
    assert info.value.detail == "the program exited (code 5); stderr: one | two"


def test_program_options_in_a_spec_reach_the_program_in_a_tournament(tmp_path):
    # the reproducibility tests give the Python example noise through BotSpec options
    cfg = TournamentConfig(
        bots=(BotSpec("noisy", "program", PY, {"noise": 0.25}), parse_bot_spec("random")),
        ruleset="cards=4",
        games=2,
    )
    validate(cfg)
