"""Issue 22, item 1: protocol programs get each game's id and seed (the ``game`` line), so a
tournament with a randomised program plays the same games serially, in worker processes and
on Ray; the results database is shared by backends, and the CLI says when it reused games."""

import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardtable.goofspiel import Ruleset
from cardtable.goofspiel.botcheck import check_bot
from cardtable.goofspiel.protocol import GoofspielProtocolBot
from cardtable.goofspiel.tournament import play_one
from cardtable.platform.bot import BotSpec, load_bot
from cardtable.platform.tournament import (
    TournamentConfig,
    bot_seed,
    game_id,
    parse_bot_spec,
    run,
    runs,
    schedule,
)

ROOT = Path(__file__).resolve().parents[2]
PY = f"{sys.executable} {ROOT / 'examples' / 'protocol_bot.py'}"
JS = f"node {ROOT / 'examples' / 'protocol_bot.js'}"
needs_node = pytest.mark.skipif(
    shutil.which("node") is None, reason="needs Node (Debian package nodejs) for the JS example"
)


def sent(bot):
    return [line for d, line in bot.process.transcript if d == "> "]


def bids_of(bot):
    return [line for d, line in bot.process.transcript if d == "< " and line.startswith("bid ")]


def test_the_game_line_follows_newgame_with_the_given_id_and_seed():
    bot = GoofspielProtocolBot(PY, seed=5)
    try:
        bot.set_game("0-1-2-1", 123)
        play_one(Ruleset(cards=4), [bot, load_bot("goofspiel", "random", seed=1)], seed="d")
        play_one(Ruleset(cards=4), [bot, load_bot("goofspiel", "random", seed=1)], seed="d")
        lines = sent(bot)
        first = lines.index(next(ln for ln in lines if ln.startswith("newgame ")))
        assert lines[first + 1] == "game id 0-1-2-1 seed 123"
        games = [ln for ln in lines if ln.startswith("game ")]
        # the second game had no set_game: the bot's own count and a seed from its generator
        import random

        rng = random.Random(5)
        assert games == ["game id 0-1-2-1 seed 123", f"game id 2 seed {rng.getrandbits(32)}"]
    finally:
        bot.close()


@pytest.mark.parametrize(
    "game_id_, seed",
    [
        ("", 1),
        ("a b", 1),
        ("x\nquit", 1),
        ("é", 1),
        ("a" * 65, 1),
        ("ok", -1),
        ("ok", 2**32),
        ("ok", True),
        ("ok", 1.0),
        ("ok", "7"),
    ],
)
def test_a_malformed_game_id_or_seed_is_refused_and_changes_nothing(game_id_, seed):
    bot = GoofspielProtocolBot(PY, seed=0)
    bot.set_game("kept", 9)
    with pytest.raises(ValueError, match="game (id|seed)"):
        bot.set_game(game_id_, seed)
    assert bot.game_line() == "game id kept seed 9"


@pytest.mark.parametrize("command", [PY, pytest.param(JS, marks=needs_node)])
def test_a_game_plays_the_same_whatever_the_program_played_before(command):
    """The property behind reproducible tournaments: the same game (id, seed, deal) gives the
    same bids from a fresh program and from one that has played other games first."""
    rs = Ruleset(cards=6)
    options = {"noise": 1.0} if command == PY else {}  # the Python example: every bid random

    def play(bot, seed):
        bot.set_game("g", seed)
        start = len(bids_of(bot))
        play_one(rs, [bot, load_bot("goofspiel", "matcher")], seed="deal")
        return bids_of(bot)[start:]

    fresh, used = (
        GoofspielProtocolBot(command, options=options),
        GoofspielProtocolBot(command, options=options),
    )
    try:
        for s in (11, 12, 13):
            play(used, s)
        assert play(used, 7) == play(fresh, 7)
        # and the seed matters: these seeds give other bids (so the bot is really random)
        assert len({tuple(play(fresh, s)) for s in (1, 2, 3, 4)}) > 1
    finally:
        fresh.close()
        used.close()


def test_without_set_game_the_lines_follow_the_bots_seed():
    # what bot-check relies on (it passes its seed): the same seed, the same game lines
    bots = [GoofspielProtocolBot(PY, seed=s) for s in (3, 3, 4)]  # no program starts for game_line
    seqs = [[bot.game_line() for _ in range(3)] for bot in bots]
    assert seqs[0] == seqs[1] != seqs[2]
    assert [line.split()[2] for line in seqs[0]] == ["1", "2", "3"]
    assert check_bot(PY, rulesets=["cards=5"], games=2, seed=3).ok


def _rows(db):
    con = sqlite3.connect(db)
    try:
        return sorted(con.execute("SELECT * FROM games").fetchall())
    finally:
        con.close()


def _config(with_node: bool) -> TournamentConfig:
    bots = [BotSpec("noisy", "program", PY, {"noise": 0.5}), parse_bot_spec("random")]
    if with_node:
        bots.append(BotSpec("js", "program", f"node {ROOT / 'examples' / 'protocol_bot.js'}", {}))
    return TournamentConfig(bots=tuple(bots), ruleset="cards=4", games=6, seed=7, time_ms=5000)


def test_seeds_and_ids_come_from_the_tournament_seed_and_the_game():
    cfg = _config(False)
    keys = schedule(cfg)
    assert game_id(keys[3]) == "0-1-1-1"
    assert len({game_id(k) for k in keys}) == len(keys)
    seeds = {bot_seed(cfg, k, seat) for k in keys for seat in (0, 1)}
    assert len(seeds) == 2 * len(keys) and all(0 <= s < 2**32 for s in seeds)
    assert bot_seed(cfg, keys[0], 0) == bot_seed(_config(False), keys[0], 0)


@pytest.mark.slow
def test_serial_and_processes_play_the_same_games_with_random_programs(tmp_path):
    cfg = _config(shutil.which("node") is not None)
    n = len(schedule(cfg))
    assert run(cfg, tmp_path / "serial.sqlite", backend="serial") == n
    assert run(cfg, tmp_path / "j2.sqlite", backend="process", workers=2) == n
    serial = _rows(tmp_path / "serial.sqlite")
    assert serial == _rows(tmp_path / "j2.sqlite")
    assert not any(row[12] is not None for row in serial)  # no forfeits: real games were compared
    assert runs(cfg, tmp_path / "j2.sqlite")[0].describe() == "process -j 2"


@pytest.fixture
def local_ray():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.slow
def test_ray_plays_the_same_games_as_serial_with_random_programs(local_ray, tmp_path):
    cfg = _config(shutil.which("node") is not None)
    assert run(cfg, tmp_path / "ray.sqlite", backend="ray") == len(schedule(cfg))
    run(cfg, tmp_path / "serial.sqlite", backend="serial")
    assert _rows(tmp_path / "ray.sqlite") == _rows(tmp_path / "serial.sqlite")
    assert [r.backend for r in runs(cfg, tmp_path / "ray.sqlite")] == ["ray"]


def test_a_second_backend_on_the_same_file_reuses_the_games_and_says_so(tmp_path):
    from cardtable.cli import app

    db = tmp_path / "t.sqlite"
    argv = ["tournament", "random", "matcher", "-r", "cards=4", "--games", "2", "--db", str(db)]
    first = CliRunner().invoke(app, argv + ["--backend", "serial"])
    assert first.exit_code == 0, first.output
    assert "played 2 new game(s)" in first.output and "reused" not in first.output
    again = CliRunner().invoke(app, argv + ["--backend", "process", "-j", "2"])
    assert again.exit_code == 0, again.output
    text = " ".join(again.output.split())
    assert "played 0 new game(s)" in text
    assert "reused 2 game(s) stored in this file by an earlier run (serial), not replayed" in text
    assert "use another --db" in text
