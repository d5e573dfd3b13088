"""Tournaments: duplicate seating, resume after an interrupt, reports, bad bots, bad configs."""

import sqlite3
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cardtable.platform.tournament import (
    TournamentConfig,
    TournamentError,
    parse_bot_spec,
    run,
    schedule,
    standings,
    validate,
    write_report,
)

ROOT = Path(__file__).resolve().parents[2]
PY = f"{sys.executable} {ROOT / 'examples' / 'protocol_bot.py'}"
BAD = f"{sys.executable} {Path(__file__).with_name('badbot.py')}"


def config(*specs, games=4, ruleset="cards=6", **kw):
    return TournamentConfig(bots=tuple(parse_bot_spec(s) for s in specs), ruleset=ruleset, games=games, **kw)


def rows(db):
    con = sqlite3.connect(db)
    try:
        return con.execute(
            "SELECT a, b, deal, swapped, seat0, seat1, points0, points1, prize_deck, forfeit_kind FROM games"
        ).fetchall()
    finally:
        con.close()


def test_duplicate_format_both_seatings_share_the_prize_order(tmp_path):
    cfg = config("random", "matcher", "heuristic", games=6)
    db = tmp_path / "t.sqlite"
    assert run(cfg, db, backend="serial") == 3 * 6
    games = rows(db)
    assert len(games) == 18
    by_deal = {}
    for a, b, d, s, s0, s1, *_, deck, _f in games:
        by_deal.setdefault((a, b, d), []).append((s, s0, s1, deck))
    for seatings in by_deal.values():
        assert sorted(x[0] for x in seatings) == [0, 1]
        (s_a, x0, x1, deck_a), (s_b, y0, y1, deck_b) = sorted(seatings)
        assert (x0, x1) == (y1, y0)  # seats swapped
        assert deck_a == deck_b  # same prizes in both seatings
    # deal d has the same prize order in every pairing
    decks = {(d, deck) for (_, _, d, _, _, _, _, _, deck, _) in games}
    assert len(decks) == 3


def test_resume_after_interrupt_replays_nothing(tmp_path):
    cfg = config("random", "matcher", "heuristic", games=8)
    db = tmp_path / "t.sqlite"
    seen = []

    def interrupt(done, total):
        seen.append(done)
        if done >= 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(cfg, db, backend="serial", progress=interrupt)
    stored = len(rows(db))
    assert 6 <= stored < 24
    played = run(cfg, db, backend="serial")
    assert played == 24 - stored
    assert len(rows(db)) == 24
    assert run(cfg, db, backend="serial") == 0
    # the resumed tournament equals an uninterrupted one (same seeds)
    fresh = tmp_path / "fresh.sqlite"
    run(cfg, fresh, backend="serial")
    assert sorted(rows(db)) == sorted(rows(fresh))
    st1, st2 = standings(cfg, db), standings(cfg, fresh)
    assert [(ln.label, ln.rating_mu) for ln in st1.bots] == [(ln.label, ln.rating_mu) for ln in st2.bots]


def test_process_backend_matches_serial_and_report_is_written(tmp_path):
    cfg = config("random", "heuristic", "py=cmd:" + PY, games=4)
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    run(cfg, a, backend="serial")
    run(cfg, b, backend="process", workers=2)
    assert sorted(rows(a)) == sorted(rows(b))
    st = standings(cfg, b)
    assert st.games == st.total == 12
    for line in st.bots:
        assert line.games == 8 and line.wins + line.draws + line.losses == 8
    md, png = write_report(st, tmp_path / "report")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = md.read_text()
    assert "| heuristic |" in text and "95% CI" in text and "random vs heuristic" in text


def test_statistics_are_computed_from_the_games(tmp_path):
    cfg = config("matcher", "m2=matcher", games=4)
    db = tmp_path / "t.sqlite"
    run(cfg, db, backend="serial")
    st = standings(cfg, db)
    for line in st.bots:  # two matchers tie every round: all draws, difference 0
        assert (line.wins, line.draws, line.losses) == (0, 4, 0)
        assert line.mean_diff == 0 and line.ci95 == 0
    assert st.bots[0].rating_mu == pytest.approx(st.bots[1].rating_mu)


def test_bad_protocol_bots_lose_by_rule_and_the_tournament_goes_on(tmp_path):
    cfg = config(
        "random",
        f"hang=cmd:{BAD} hang",
        f"crash=cmd:{BAD} crash",
        f"garbage=cmd:{BAD} garbage",
        games=2,
        time_ms=100,
    )
    db = tmp_path / "t.sqlite"
    run(cfg, db, backend="serial")
    st = standings(cfg, db)
    assert st.games == st.total == 12
    by = {ln.label: ln for ln in st.bots}
    assert by["random"].wins == 6 and by["random"].forfeits == 0
    for name in ("hang", "crash", "garbage"):
        assert by[name].forfeits >= 2 and by[name].mean_diff < 0
    kinds = {(who, kind) for who, kind, _ in st.forfeits}
    assert {("hang", "timeout"), ("crash", "crash"), ("garbage", "garbage")} <= kinds


@pytest.mark.parametrize(
    "specs, kw, message",
    [
        (["random"], {}, "at least 2 bots"),
        (["random", "random"], {}, "unique"),
        (["random", "nosuchbot"], {}, "unknown goofspiel bot"),
        (["random", "heuristic:nosuch=1"], {}, "nosuch"),
        (["random", "x=cmd:no-such-program-xyz"], {}, "not found"),
        (["random", "matcher"], {"games": 3}, "even"),
        (["random", "matcher"], {"games": 0}, "even"),
        (["random", "matcher"], {"ruleset": "three-player"}, "2-player"),
        (["random", "matcher"], {"ruleset": "cards=99"}, "cards"),
        (["random", "matcher"], {"time_ms": 0}, "time_ms"),
    ],
)
def test_malformed_configuration_fails_before_any_game(tmp_path, specs, kw, message):
    cfg = config(*specs, **kw)
    db = tmp_path / "t.sqlite"
    with pytest.raises(TournamentError, match=message):
        run(cfg, db, backend="serial")
    assert not db.exists()


def test_bad_bot_spec_and_foreign_database(tmp_path):
    with pytest.raises(TournamentError, match="key=value"):
        parse_bot_spec("heuristic:noise")
    with pytest.raises(TournamentError, match="command"):
        parse_bot_spec("cmd:")
    db = tmp_path / "t.sqlite"
    run(config("random", "matcher", games=2), db, backend="serial")
    with pytest.raises(TournamentError, match="different tournament"):
        run(config("random", "heuristic", games=2), db, backend="serial")
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(TournamentError, match="not a tournament database"):
        run(config("random", "matcher", games=2), junk, backend="serial")
    with pytest.raises(TournamentError, match="backend"):
        run(config("random", "matcher", games=2), db, backend="threads")


def _app():
    from cardtable.cli import tournament

    app = typer.Typer()
    tournament.register(app)
    app.command("noop")(lambda: None)
    return app


def test_cli_tournament_runs_resumes_and_reports(tmp_path):
    runner = CliRunner()
    args = [
        "tournament",
        "random",
        "heuristic",
        "--games",
        "2",
        "-r",
        "cards=5",
        "--backend",
        "serial",
        "--db",
        str(tmp_path / "t.sqlite"),
        "--report",
        str(tmp_path / "rep"),
    ]
    first = runner.invoke(_app(), args)
    assert first.exit_code == 0, first.output
    assert "played 2 new game(s)" in first.output and "heuristic" in first.output
    assert (tmp_path / "rep" / "standings.png").exists() and (tmp_path / "rep" / "standings.md").exists()
    again = runner.invoke(_app(), args)
    assert "played 0 new game(s)" in again.output
    bad = runner.invoke(_app(), ["tournament", "random", "nosuchbot"])
    assert bad.exit_code == 2 and "unknown goofspiel bot" in bad.output
    cfg_file = tmp_path / "t.toml"
    cfg_file.write_text('bots = ["random", "matcher"]\ngames = 2\nruleset = "cards=4"\ncolour = "red"\n')
    bad_cfg = runner.invoke(_app(), ["tournament", "--config", str(cfg_file)])
    assert bad_cfg.exit_code == 2 and "colour" in bad_cfg.output
    cfg_file.write_text('bots = ["random", "matcher"]\ngames = 2\nruleset = "cards=4"\n')
    ok = runner.invoke(_app(), ["tournament", "--config", str(cfg_file), "--backend", "serial"])
    assert ok.exit_code == 0 and "played 2 new game(s)" in ok.output


def test_validate_accepts_a_good_configuration():
    validate(config("random", "heuristic:noise=0", "py=cmd:" + PY))
    assert len(schedule(config("random", "matcher", "heuristic", games=4))) == 12
