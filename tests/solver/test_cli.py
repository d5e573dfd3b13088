"""``cardtable solve / strategy / analyze / exploit`` from the command line,
including bad input (clear message, exit code != 0)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from cardtable.cli import app
from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel.autoplay import play_game
from cardtable.goofspiel.record import record_from_game, write_text
from cardtable.platform.bot import load_bot, load_bot_spec
from cardtable.platform.storage import cache_dir

sys.path.insert(0, str(Path(__file__).parent))
from solver_reference import game_value, make_reference  # noqa: E402

runner = CliRunner()


class Out:
    def __init__(self, result):
        self.exit_code = result.exit_code
        self.output = " ".join(result.output.split())  # Rich may wrap long lines


def run(*args):
    return Out(runner.invoke(app, list(args)))


def test_solve_writes_a_table_and_reports_value():
    r = run("solve", "--cards", "4", "--ties", "carry")
    assert r.exit_code == 0, r.output
    assert "value of the game for player 1: +0.000000000000" in r.output
    folder = cache_dir() / "gops-n4-carry-points-lowace.v2"
    assert (folder / "table.json").exists() and (folder / "layer-04.f32").exists()
    assert "float32; values within" in r.output
    r = run("solve", "--cards", "4", "--ties", "carry")
    assert "already solved" in r.output
    # discard tables are of format 2 too, unless format 1 is asked for
    assert run("solve", "--cards", "4", "--ties", "discard").exit_code == 0
    assert (cache_dir() / "gops-n4-discard-points-lowace.v2" / "table.json").exists()
    assert not (cache_dir() / "gops-n4-discard-points-lowace.v1.ctt").exists()
    assert run("solve", "-n", "4", "--ties", "discard", "--format", "1", "--force").exit_code == 0
    assert (cache_dir() / "gops-n4-discard-points-lowace.v1.ctt").exists()


def test_solve_format1_win_objective_and_custom_cache(tmp_path):
    r = run(
        "solve", "-n", "4", "--ties", "carry", "--objective", "win", "--cache", str(tmp_path), "--format", "1"
    )
    assert r.exit_code == 0, r.output
    assert (tmp_path / "gops-n4-carry-win-lowace.v1.ctt").exists()
    r = run("solve", "-n", "4", "--ties", "carry", "--objective", "win", "--cache", str(tmp_path))
    assert "already solved" in r.output and ".v1.ctt" in r.output


def test_solve_resumes_an_interrupted_table(tmp_path):
    assert run("solve", "-n", "5", "--cache", str(tmp_path)).exit_code == 0
    folder = tmp_path / "gops-n5-carry-points-lowace.v2"
    (folder / "table.json").unlink()
    (folder / "layer-05.json").unlink()
    (folder / "layer-04.json").unlink()
    r = run("solve", "-n", "5", "--cache", str(tmp_path))
    assert r.exit_code == 0, r.output
    assert "resumed layers [1, 2, 3]" in r.output


def test_out_of_reach_solve_says_what_it_needs():
    r = run("solve", "-n", "13", "--ties", "carry", "--max-memory", "1")
    assert r.exit_code != 0
    for part in (
        "GiB of memory",
        "GiB of disk",
        "on 1 core",
        "more memory than --max-memory 1 GiB",
        "--max-memory 2",  # the compact layout: 1.8 GiB
        "--backend ray` on 64 cores",
        "--backend cuda",
    ):
        assert part in r.output, part
    assert "this machine" not in r.output
    r = run("solve", "-n", "13", "--ties", "carry", "--threads", "2", "--max-hours", "0.1")
    assert r.exit_code != 0
    assert "longer than --max-hours 0.1." in r.output and "on 2 cores" in r.output


def test_strategy_from_table_and_without_table():
    assert run("solve", "-n", "5", "--ties", "discard").exit_code == 0
    r = run(
        "strategy",
        "-n",
        "5",
        "--ties",
        "discard",
        "--prizes",
        "2,3,5",
        "--hand-a",
        "A,4,5",
        "--hand-b",
        "2-4",
        "--prize",
        "5",
    )
    assert r.exit_code == 0, r.output
    assert "source=table" in r.output and "prize 5 turned up" in r.output
    # the values are the independent reference solver's: before the reveal, and the round
    # game once prize 5 is turned up
    before = float(re.search(r"value before the reveal \(player 1\): ([+-][0-9.]+) points", r.output)[1])
    after = float(re.search(r"prize 5 turned up: value ([+-][0-9.]+) points", r.output)[1])
    ref = make_reference(5, "discard")
    prizes, a, b = frozenset({2, 3, 5}), frozenset({1, 4, 5}), frozenset({2, 3, 4})
    assert before == pytest.approx(ref(prizes, a, b), abs=1e-5)
    round_game = [
        [(5 if x > y else -5 if x < y else 0) + ref(prizes - {5}, a - {x}, b - {y}) for y in sorted(b)]
        for x in sorted(a)
    ]
    assert after == pytest.approx(game_value(np.array(round_game)), abs=1e-5)
    r = run(
        "strategy",
        "-n",
        "9",
        "--ties",
        "carry",
        "--prizes",
        "2,3,5",
        "--hand-a",
        "1,4,9",
        "--hand-b",
        "2,3,8",
        "--pot",
        "4",
    )
    assert r.exit_code == 0, r.output
    assert "subgame solved now" in r.output and r.output.count("turned up") == 3


def _record_file(tmp_path, rules):
    rs = Ruleset(**rules)
    bots = [load_bot("goofspiel", "heuristic", seed=1)] + [
        load_bot("goofspiel", "random", seed=s) for s in range(2, rs.players + 1)
    ]
    game = play_game(rs, bots, seed=9)
    names = ["heur", "rand", "rand2"][: rs.players]
    path = tmp_path / "game.txt"
    path.write_text(write_text(record_from_game(game, names)), encoding="utf-8")
    return path


def test_analyze_and_strategy_from_record(tmp_path):
    path = _record_file(tmp_path, dict(cards=6, tie_rule="carry"))
    r = run("analyze", str(path))
    assert r.exit_code == 0, r.output
    assert "given up versus equilibrium" in r.output and "subgame" in r.output
    r = run("strategy", "--record", str(path), "--round", "2")
    assert r.exit_code == 0, r.output
    assert "turned up" in r.output


def _exploitability_by_histories(ruleset, spec):
    """The mean over both seats of a best response's expected point difference against
    the bot ``spec``, by a plain expectimax over every prize order and bid history (the
    bot asked through a real game's view at each node): independent of the solver's
    position-based search."""
    deck = sorted(ruleset.deck)
    results = []
    for me in (0, 1):
        bot = load_bot_spec("goofspiel", spec, seed=0)
        bot.new_game(ruleset, 1 - me)

        # this seat's bot and me bound as defaults (the recursion runs within this iteration)
        def before_reveal(prizes, bids, *, bot=bot, me=me):
            rest = [p for p in deck if p not in prizes]
            total = 0.0
            for prize in rest:
                game = Game(ruleset, prize_deck=list(prizes) + [prize] + [q for q in rest if q != prize])
                for pair in bids:
                    game.play(list(pair))
                mix = bot.policy(game.view(1 - me))
                assert sum(mix.values()) == pytest.approx(1.0)
                outcomes = []
                for mine in sorted(game.hands[me]):
                    expected = 0.0
                    for theirs, chance in mix.items():
                        pair = (mine, theirs) if me == 0 else (theirs, mine)
                        after = game.copy()
                        after.play(list(pair))
                        if after.is_over:
                            expected += chance * (after.points[me] - after.points[1 - me])
                        else:
                            expected += chance * before_reveal(prizes + (prize,), bids + (pair,))
                    outcomes.append(expected)
                total += max(outcomes)
            return total / len(rest)

        results.append(before_reveal((), ()))
    return sum(results) / 2


def _reported_exploitability(output, spec):
    return float(re.search(rf"exploitability of {re.escape(spec)}: ([0-9.]+) points", output)[1])


def test_exploit_reports_exploitability():
    r = run("exploit", "matcher", "--cards", "4", "--ties", "discard")
    assert r.exit_code == 0, r.output
    assert "backward induction over (hand, face-down prizes, pot)" in r.output
    expected = _exploitability_by_histories(Ruleset(cards=4, tie_rule="discard"), "matcher")
    assert _reported_exploitability(r.output, "matcher") == pytest.approx(expected, abs=1e-6)


def test_exploit_takes_bot_specs_with_options():
    r = run("exploit", "heuristic:noise=0.2", "--cards", "4", "--ties", "discard")
    assert r.exit_code == 0, r.output
    expected = _exploitability_by_histories(Ruleset(cards=4, tie_rule="discard"), "heuristic:noise=0.2")
    assert 0 < expected < 10  # a noisy heuristic loses something, never more than all 10 points
    assert _reported_exploitability(r.output, "heuristic:noise=0.2") == pytest.approx(expected, abs=1e-6)
    r = run("exploit", "mcts:iterations=5", "--cards", "3", "--samples", "4", "--repeats", "2")
    assert r.exit_code == 0, r.output
    assert "standard error over 2 searches" in r.output


@pytest.mark.parametrize(
    "args,message",
    [
        (["solve", "-n", "5", "--ties", "sometimes"], "unknown tie rule"),
        (["solve", "-n", "0"], "must be 1..13"),
        (["solve", "-n", "14", "--ties", "discard"], "must be 1..13"),
        (["solve", "-n", "4", "--objective", "fame"], "unknown objective"),
        (["solve", "-n", "4", "--threads", "0"], "--threads must be at least 1"),
        (["solve", "-n", "4", "--backend", "gpu"], "unknown backend"),
        (["solve", "-n", "4", "--format", "3"], "--format must be 1 or 2"),
        (["solve", "-n", "4", "--format", "1", "--backend", "ray"], "--format 1 is solved with --threads"),
        (["solve", "-n", "4", "--workers", "0"], "--workers must be at least 1"),
        # hostile flag values (issue 9's standard applied to the newer flags)
        (["solve", "-n", "4", "--threads", "-1"], "--threads must be at least 1"),
        (["solve", "-n", "4", "--threads", str(10**9)], "this machine has"),
        (["solve", "-n", "4", "--max-memory", "-1"], "--max-memory must be a positive finite number"),
        (["solve", "-n", "4", "--max-memory", "nan"], "--max-memory must be a positive finite number"),
        (["solve", "-n", "4", "--max-memory", "inf"], "--max-memory must be a positive finite number"),
        (["solve", "-n", "4", "--max-hours", "0"], "--max-hours must be a positive finite number"),
        (["solve", "-n", "4", "--max-hours", "nan"], "--max-hours must be a positive finite number"),
        (["strategy", "-n", "4", "--limit", "-1"], "--limit must be 0 or more"),
        (["analyze", "no-such-record", "--limit", "-1"], "--limit must be 0 or more"),
        (["exploit", "nash:subgame_limit=1e99", "-n", "3"], "option subgame_limit must be a whole number"),
        (["exploit", "nash:use_table=maybe", "-n", "3"], "option use_table must be true or false"),
        (
            ["exploit", "exploiter:smoothing=nan", "-n", "3"],
            "option smoothing must be a number above 0 and below 1",
        ),
        (["exploit", "nash:objective=foo", "-n", "3"], "option objective must be one of points, win"),
        (["exploit", "mcts:iterations=abc", "-n", "3"], "iterations must be a whole number"),
        (["exploit", "mcts:iterations=-5", "-n", "3"], "iterations must be a whole number"),
        (["exploit", "exploiter:budget=-1", "-n", "3"], "unknown option 'budget'"),
        (["exploit", ":", "-n", "3"], "no bot name"),
        (["exploit", "nosuchbot", "-n", "3"], "unknown goofspiel bot"),
        (["strategy", "-n", "4", "--cache", __file__], "is a file, not a folder"),
        (["analyze", __file__, "--cache", __file__], "is a file, not a folder"),
        (
            ["strategy", "-n", "5", "--prizes", "1,2", "--hand-a", "1,2,3", "--hand-b", "1,2"],
            "impossible position",
        ),
        (
            ["strategy", "-n", "5", "--prizes", "1,2", "--hand-a", "1,9", "--hand-b", "1,2"],
            "impossible position",
        ),
        (
            [
                "strategy",
                "-n",
                "5",
                "--ties",
                "discard",
                "--prizes",
                "1,2",
                "--hand-a",
                "1,2",
                "--hand-b",
                "1,2",
                "--pot",
                "3",
            ],
            "never a pot",
        ),
        (
            ["strategy", "-n", "5", "--prizes", "1,2", "--hand-a", "1,2", "--hand-b", "1,2", "--pot", "2"],
            "no sum of prizes",
        ),
        (
            ["strategy", "-n", "5", "--prizes", "1,2", "--hand-a", "1,2", "--hand-b", "1,2", "--prize", "4"],
            "must be one of the prizes",
        ),
        (["strategy", "-n", "13", "--ties", "carry"], "cardtable solve --cards 13"),
        (["exploit", "mcts", "--cards", "7"], "at most 5"),
        (["exploit", "nobody"], "unknown goofspiel bot"),
        (["exploit", "mcts:depth=3"], "unknown option 'depth'"),
        (["exploit", "heuristic:noise"], "not key=value"),
        (["exploit", "cmd:python bot.py"], "built-in bot"),
        (["exploit", "matcher", "--repeats", "0"], "--repeats must be at least 1"),
        (["analyze", "/nonexistent/file.txt"], "cannot read"),
    ],
)
def test_bad_input_fails_clearly(args, message):
    r = run(*args)
    assert r.exit_code != 0
    assert message in r.output


def test_unsupported_ruleset_in_record(tmp_path):
    path = _record_file(tmp_path, dict(cards=4, players=3))
    r = run("analyze", str(path))
    assert r.exit_code != 0 and "does not cover" in r.output


@pytest.mark.parametrize(
    "rules,message",
    [
        (
            "cards=4 players=2 ties=carry ace=low bid=2 display=1 order=ascending",
            "does not cover multi-card bids",
        ),
        ("cards=4 players=2 ties=carry ace=low bid=1 display=1 order=shuffled", "has no rounds played"),
    ],
)
def test_strategy_from_a_record_without_a_solvable_round(tmp_path, rules, message):
    path = tmp_path / "empty.gops"
    path.write_text(f'[Game "goofspiel"]\n[Rules "{rules}"]\n[Players "a; b"]\n')
    r = run("strategy", "--record", str(path))
    assert r.exit_code == 2 and message in r.output, r.output


def test_damaged_table_is_refused():
    assert run("solve", "-n", "4", "--ties", "carry").exit_code == 0
    path = cache_dir() / "gops-n4-carry-points-lowace.v2" / "layer-03.f32"
    data = bytearray(path.read_bytes())
    data[-20] ^= 1
    path.write_bytes(bytes(data))
    r = run("strategy", "-n", "4", "--ties", "carry")
    assert r.exit_code == 1 and "checksum" in r.output


@pytest.mark.parametrize("fmt", ["1", "2"])
def test_a_second_solve_of_the_same_table_stops_and_changes_nothing(tmp_path, fmt):
    """Two `cardtable solve` runs into one folder: the second (here with --force, which
    deletes before it solves) stops with one line while the first holds the table's lock,
    and the finished table is untouched; once the first is gone, it runs."""
    import subprocess
    import sys
    import time

    args = ["solve", "-n", "4", "--ties", "carry", "--format", fmt, "--cache", str(tmp_path)]
    assert CliRunner().invoke(app, args).exit_code == 0
    before = {p.name: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    lock = next(tmp_path.glob(".*.lock"))
    holder = subprocess.Popen(  # another process in the middle of a solve: it holds the lock
        [
            sys.executable,
            "-c",
            "import sys, time; from filelock import FileLock; "
            "l = FileLock(sys.argv[1]); l.acquire(); print('held', flush=True); time.sleep(60)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        r = CliRunner().invoke(app, args + ["--force"])
        out = " ".join(r.output.split())
        assert r.exit_code == 1 and "another `cardtable solve` is writing this table" in out, out
        assert {p.name: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    finally:
        holder.kill()
        holder.wait()
    deadline = time.monotonic() + 10
    r = CliRunner().invoke(app, args + ["--force"])
    while r.exit_code == 1 and time.monotonic() < deadline:  # the OS frees the lock of a dead process
        time.sleep(0.1)
        r = CliRunner().invoke(app, args + ["--force"])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("fmt", ["1", "2"])
def test_a_table_linked_from_a_second_cache_folder_shares_its_lock(tmp_path, fmt):
    """Cache folder b links to the table solved in cache folder a: a solve through b
    (with --force, which deletes first) stops while a solve through a holds the lock."""
    import subprocess
    import sys

    a, b = tmp_path / "a", tmp_path / "b"
    b.mkdir()
    args = ["solve", "-n", "4", "--ties", "carry", "--format", fmt]
    assert CliRunner().invoke(app, args + ["--cache", str(a)]).exit_code == 0
    for table in a.iterdir():
        if not table.name.startswith("."):
            (b / table.name).symlink_to(table)
    before = {p.name: p.read_bytes() for p in a.rglob("*") if p.is_file()}
    lock = next(a.glob(".*.lock"))
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from filelock import FileLock; "
            "l = FileLock(sys.argv[1]); l.acquire(); print('held', flush=True); time.sleep(60)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        r = CliRunner().invoke(app, args + ["--cache", str(b), "--force"])
        out = " ".join(r.output.split())
        assert r.exit_code == 1 and "another `cardtable solve` is writing this table" in out, out
        assert {p.name: p.read_bytes() for p in a.rglob("*") if p.is_file()} == before
        assert not list(b.glob(".*.lock"))
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("cache", [False, True])
def test_a_pot_these_hands_cannot_have_carried_is_refused_with_or_without_a_table(tmp_path, cache):
    """A carried pot of j prizes needs j ties, each of a strength both players have played:
    A has played 4 and 5, B 1 and 2, so no pot of 4 is possible (docs/solver.md, Table format
    2). Refused the same way whether a table or a subgame solve would answer."""
    from cardtable.solver import ImpossiblePosition, Position

    args = [
        "strategy",
        "-n",
        "5",
        "--ties",
        "carry",
        "--prizes",
        "1,2,3",
        "--hand-a",
        "1,2,3",
        "--hand-b",
        "3,4,5",
        "--pot",
        "4",
        "--cache",
        str(tmp_path),
    ]
    if cache:
        assert (
            run("solve", "-n", "5", "--ties", "carry", "--format", "1", "--cache", str(tmp_path)).exit_code
            == 0
        )
    r = run(*args)
    assert r.exit_code == 2 and "a pot of 4 cannot arise with these hands" in " ".join(r.output.split()), (
        r.output
    )
    f = frozenset(range(1, 6))
    with pytest.raises(ImpossiblePosition, match="0 have been"):
        Position(frozenset({1, 2, 3}), (frozenset({1, 2, 3}), frozenset({3, 4, 5})), 4).validate(
            Ruleset(cards=5)
        )
    # both played 4 and 5: a pot of 9 = 4 + 5 is possible, 12 = 3 + 4 + 5 (three ties) is not
    Position(frozenset({1, 2}), (f - {3, 4, 5}, f - {1, 4, 5}), 9).validate(Ruleset(cards=5))
    with pytest.raises(ImpossiblePosition, match="2 have been"):
        Position(frozenset({1, 2}), (f - {3, 4, 5}, f - {1, 4, 5}), 12).validate(Ruleset(cards=5))
