"""The Ray backend of tournaments, on a small local Ray instance."""

import sqlite3

import pytest

ray = pytest.importorskip("ray")

from cardtable.platform.tournament import TournamentConfig, parse_bot_spec, run, standings  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _rows(db):
    con = sqlite3.connect(db)
    try:
        return sorted(con.execute("SELECT * FROM games").fetchall())
    finally:
        con.close()


def test_ray_backend_plays_the_same_games_as_serial(local_ray, tmp_path):
    cfg = TournamentConfig(
        bots=tuple(parse_bot_spec(s) for s in ("random", "matcher", "heuristic")), ruleset="cards=7", games=4
    )
    played = run(cfg, tmp_path / "ray.sqlite", backend="ray")
    assert played == 12
    run(cfg, tmp_path / "serial.sqlite", backend="serial")
    assert _rows(tmp_path / "ray.sqlite") == _rows(tmp_path / "serial.sqlite")
    assert run(cfg, tmp_path / "ray.sqlite", backend="ray") == 0  # resume: nothing left
    assert standings(cfg, tmp_path / "ray.sqlite").games == 12
