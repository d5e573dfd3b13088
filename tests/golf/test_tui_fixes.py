"""Fixes from the new-user test of terminal Golf: hot-seat prompts and privacy, quitting,
the documented example, record checks, wording, record paths, seat counts and names."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from cardtable.golf import tui
from cardtable.golf.actions import Discard, Draw, Peek, Steal
from cardtable.golf.errors import GolfError
from cardtable.golf.record import RecordError, parse_text, record_from_game, replay_text, write_text
from cardtable.golf.ruleset import GolfRuleset
from cardtable.golf.state import GolfGame
from cardtable.golf.tui import plural, render, run, run_cli, save_records
from cardtable.golf.views import build_view
from cardtable.platform.storage import records_dir
from cardtable.tui import Terminal

DOC = Path(__file__).resolve().parents[2] / "docs" / "golf.md"


def hotseat_player(buf: io.StringIO, stop_after: str | None = None, limit: int = 60):
    """Answers hot-seat prompts (draw, discard, no snaps) and writes each prompt into ``buf``
    so that prompts and screens keep their order; ends input after ``stop_after`` or ``limit`` prompts."""
    prompts: list[str] = []

    def answer(prompt: str, hidden: bool) -> str:
        buf.write(f"\n<<PROMPT {prompt}>>\n")
        prompts.append(prompt)
        if len(prompts) > limit or (stop_after and stop_after in prompt):
            raise EOFError
        if "You hold" in prompt:
            return "discard"
        if "draw" in prompt and "[Enter = draw]" in prompt:
            return "draw"
        return ""

    return answer, prompts


# 1 ------------------------------------------------------------------------ hot-seat prompts
def test_hotseat_snap_prompt_names_the_opponent_of_the_prompted_player():
    buf = io.StringIO()
    answer, prompts = hotseat_player(buf, stop_after="Ann: snap onto")
    run(
        hotseat=True,
        names="Ann, Ben",
        seed=3,
        console=Console(file=buf, width=120),
        input_fn=answer,
        save=False,
    )
    ben = next(p for p in prompts if p.startswith("Ben: snap onto"))
    ann = next(p for p in prompts if p.startswith("Ann: snap onto"))
    assert "snap P1:N" in ben and "P2:" not in ben  # Ben's opponent is P1
    assert "snap P2:N" in ann and "P1:" not in ann
    assert tui.opponent_label(2, 3) == "P1" and "steal N P1:M" in tui.help_text(1, 2)


def test_every_hotseat_player_sees_the_bottom_row_before_being_asked_to_act():
    buf = io.StringIO()
    answer, prompts = hotseat_player(buf, stop_after="Ben: snap onto")
    run(
        hotseat=True,
        names="Ann, Ben",
        seed=3,
        console=Console(file=buf, width=120),
        input_fn=answer,
        save=False,
    )
    out = buf.getvalue()
    acts = [(i, p) for i, p in enumerate(prompts) if "snap onto" in p or "[Enter = draw]" in p]
    first_act = {who: min(i for i, p in acts if p.startswith(who)) for who in ("Ann", "Ben")}
    game = GolfGame(GolfRuleset(), seed="3/0")
    for seat, who in enumerate(("Ann", "Ben")):
        bottom = [tui.rank_label(c % 13 + 1) for c in game.grids[seat][6:9]]
        # the screen shown to this player before their first prompt to act holds their bottom row
        before = out[: out.index(f"<<PROMPT {prompts[first_act[who]]}")]
        screens = before.split(f"Pass the keyboard to {who}")
        assert len(screens) >= 2, f"{who} never got the keyboard before acting"
        own = screens[-1]
        assert f"{tui.format_seat(seat)} {who} (you)" in own
        row = next(line for line in own.splitlines() if " 7:" in line)
        shown = re.findall(r"\b[789]:(\S+)", row)
        assert shown[3 * seat : 3 * seat + 3] == bottom
    assert first_act["Ben"] > prompts.index(next(p for p in prompts if "your look at your bottom row" in p))


# 2 ------------------------------------------------------------------------ hot-seat privacy
def test_hotseat_clears_through_terminal_including_scrollback(monkeypatch):
    def no_direct_clear(self, *a, **k):
        raise AssertionError("golf/tui.py must clear through Terminal.clear")

    clears = []
    real_clear = Terminal.clear

    def counting_clear(self):
        clears.append(1)
        monkeypatch.setattr(Console, "clear", lambda self, home=True: None)
        try:
            real_clear(self)
        finally:
            monkeypatch.setattr(Console, "clear", no_direct_clear)
        self.console.file.write("\n<<CLEARED>>\n")

    monkeypatch.setattr(Console, "clear", no_direct_clear)
    monkeypatch.setattr(Terminal, "clear", counting_clear)
    buf = io.StringIO()
    answer, prompts = hotseat_player(buf, limit=30)
    code = run(
        hotseat=True,
        names="Ann, Ben",
        seed=3,
        input_fn=answer,
        save=False,
        console=Console(file=buf, width=120, force_terminal=True),
    )
    out = buf.getvalue()
    assert code in (0, 3) and clears  # 3: the scripted players stop before the end (abandoned)
    assert "\x1b[3J" in out  # Terminal.clear erases the scrollback too
    # between two clears, at most one player's private screen
    for part in out.split("<<CLEARED>>"):
        assert not ("P1 Ann (you)" in part and "P2 Ben (you)" in part)
    # every hand-over comes right after a clear
    pieces = out.split("<<PROMPT ")
    handovers = [
        (b, a) for b, a in zip(pieces, pieces[1:], strict=False) if "Pass the keyboard" in a.split(">>")[0]
    ]
    assert len(handovers) >= 3
    for before, _ in handovers:
        assert before.rstrip().endswith("<<CLEARED>>")


# 3 ------------------------------------------------------------------------ quitting
@pytest.mark.parametrize("how", ["quit", "eof", "ctrl-c"])
def test_quitting_exits_0_and_saves_what_was_played(how):
    answers = iter(["draw", "discard"])

    def inp(prompt: str, hidden: bool) -> str:
        for a in answers:
            return a
        if how == "quit":
            return "quit"
        raise EOFError if how == "eof" else KeyboardInterrupt

    buf = io.StringIO()
    code = run(vs=["random"], seed=2, console=Console(file=buf, width=200), input_fn=inp)
    out = buf.getvalue()
    assert code == 3  # abandoned (README.md, Exit codes)
    assert "Game abandoned." in out
    files = list(records_dir().glob("golf-*.txt"))
    assert len(files) == 1 and f"Record saved to {files[0]}" in out
    assert "unfinished" in replay_text(files[0].read_text())


def test_quitting_before_any_action_saves_nothing():
    buf = io.StringIO()
    code = run(vs=["random"], seed=2, console=Console(file=buf, width=120), input_fn=lambda p, h: "quit")
    assert code == 3 and "Game abandoned." in buf.getvalue()
    assert not list(records_dir().glob("golf-*"))


def test_ctrl_c_while_a_bot_thinks_is_a_quit(monkeypatch):
    from cardtable.golf.bots.heuristic import HeuristicBot

    calls = []
    real_act = HeuristicBot.act

    def act(self, view):
        calls.append(1)
        if len(calls) > 5:
            raise KeyboardInterrupt
        return real_act(self, view)

    monkeypatch.setattr(HeuristicBot, "act", act)
    buf = io.StringIO()
    code = run(auto=True, vs=["heuristic"], seed=4, console=Console(file=buf, width=120))
    assert code == 3 and "Game abandoned." in buf.getvalue()
    files = list(records_dir().glob("golf-*.txt"))
    assert len(files) == 1 and re.search(
        r"unfinished after [1-9]\d* actions", replay_text(files[0].read_text())
    )


# 4 ------------------------------------------------------------------------ the documented example
def _doc_example() -> tuple[list[list[str]], str]:
    text = DOC.read_text(encoding="utf-8")
    cmd = "$ cardtable play golf --auto --seed 7 --record /tmp/golf-demo.txt\n"
    block = text[text.index(cmd) + len(cmd) : text.index("$ cardtable replay /tmp/golf-demo.txt\n")]
    chunks: list[list[str]] = [[]]
    for line in block.splitlines():
        if line == "...":
            chunks.append([])
        else:
            chunks[-1].append(line)
    after = text[text.index("$ cardtable replay /tmp/golf-demo.txt\n") :].splitlines()[1]
    return [c for c in chunks if c], after


def test_docs_console_example_is_what_the_command_prints(tmp_path):
    path = tmp_path / "golf-demo.txt"
    buf = io.StringIO()
    code = run(auto=True, seed=7, record=path, console=Console(file=buf, width=80))
    assert code == 0
    lines = buf.getvalue().replace(str(path), "/tmp/golf-demo.txt").splitlines()
    chunks, replay_line = _doc_example()
    assert sum(len(c) for c in chunks) >= 10
    at = 0
    for chunk in chunks:  # each chunk appears contiguously, in order; "..." only skips lines
        starts = [i for i in range(at, len(lines) - len(chunk) + 1) if lines[i : i + len(chunk)] == chunk]
        assert starts, f"not printed: {chunk}"
        at = starts[0] + len(chunk)
    assert at == len(lines)  # the example shows the end of the output
    assert chunks[0][0] == lines[0]
    assert replay_line == "✓ /tmp/golf-demo.txt: " + replay_text(path.read_text())


# 5 ------------------------------------------------------------------------ replay checks
def _finished_record(seed: int = 3) -> str:
    from cardtable.golf.bots.heuristic import HeuristicBot
    from cardtable.golf.driver import play_game

    g = play_game(GolfGame(seed=seed), [HeuristicBot(seed=1), HeuristicBot(seed=2)])
    return write_text(record_from_game(g, ["Ann", "Bot"]))


def _line_of(text: str, prefix: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(prefix))


def test_a_changed_seed_is_reported_at_the_seed_tag():
    text = _finished_record()
    assert replay_text(text).startswith("1 game(s) verified")
    bad = text.replace('[Seed "3"]', '[Seed "4"]')
    assert bad != text
    with pytest.raises(RecordError, match="Seed 4 does not reproduce the Deck") as err:
        replay_text(bad)
    assert err.value.line == _line_of(text, "[Seed")


def test_a_changed_extra_tag_is_reported_at_the_extra_tag():
    text = _finished_record()
    bad = text.replace('[Extra "0 0"]', '[Extra "1 0"]')
    assert bad != text
    with pytest.raises(RecordError, match=r"Extra 1 0 does not match the play.*Extra 0 0") as err:
        replay_text(bad)
    assert err.value.line == _line_of(text, "[Extra")
    with pytest.raises(RecordError) as err:  # out of range: still the Extra tag's line
        replay_text(text.replace('[Extra "0 0"]', '[Extra "7 0"]'))
    assert err.value.line == _line_of(text, "[Extra")
    # a changed card is still a card mismatch at its own line
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if re.match(r"\d+\. P\d draw = ", line))
    card = lines[k].split("= ")[1]
    lines[k] = lines[k].replace(f"= {card}", "= KS" if card != "KS" else "= KH")
    with pytest.raises(RecordError, match="the record says") as err:
        replay_text("\n".join(lines))
    assert err.value.line == k + 1


# 6 ------------------------------------------------------------------------ wording
def test_counts_and_scores_are_singular_for_one():
    assert plural(1, "pt") == "1 pt" and plural(31, "pt") == "31 pts" and plural(1, "card") == "1 card"
    g = GolfGame(seed=5)
    g.apply(Draw(0))
    g.apply(Discard(0))
    buf = io.StringIO()
    view = build_view(g, 0)
    Console(file=buf, width=120).print(render(view, ["A", "B"], tui.Display(0, True).visible(view)))
    assert "(1 card)" in buf.getvalue() and "(1 cards)" not in buf.getvalue()


def test_final_line_says_who_ended_early_and_points(tmp_path):
    buf = io.StringIO()
    run(auto=True, seed=7, save=False, console=Console(file=buf, width=200))
    out = buf.getvalue()
    assert "heuristic 21 pts, random 47 pts; ended early by heuristic" in out
    assert "ended by early" not in out


def test_help_is_not_an_error_and_turn_words_in_a_snap_window_are_explained():
    buf = io.StringIO()
    answers = iter(["help", "draw", "discard"])
    snap_answers = iter(["draw", "help"])

    def inp(prompt: str, hidden: bool) -> str:
        buf.write(f"<<{prompt}>>\n")
        if "snap onto" in prompt:
            for a in snap_answers:
                return a
            raise EOFError
        for a in answers:
            return a
        raise EOFError

    run(vs=["random"], seed=2, console=Console(file=buf, width=200), input_fn=inp, save=False)
    out = buf.getvalue().splitlines()
    help_lines = [line for line in out if "draw | end | swap N" in line]
    assert help_lines and all("✗" not in line for line in help_lines)
    assert "steal N P2:M" in help_lines[0]
    snap_help = [line for line in out if "this is a snap window" in line]
    assert snap_help and "snap N" in snap_help[0] and "Enter" in snap_help[0]
    assert any("Enter to let it go" in line and "✗" not in line for line in out)


def test_engine_messages_name_the_rank_like_the_screen():
    g = GolfGame(seed=5)
    g.apply(Draw(0))
    shown = tui.rank_label(g.drawn % 13 + 1)  # type: ignore[operator]
    with pytest.raises(GolfError, match=rf"you hold {shown}$"):
        g.apply(Peek(0, 0) if shown != "J" else Steal(0, 0, 1, 0))


def test_saved_record_message_is_two_unbroken_lines(tmp_path):
    deep = tmp_path / ("a-rather-long-folder-name-" * 3)
    deep.mkdir()
    path = deep / "game.txt"
    buf = io.StringIO()
    run(auto=True, seed=7, record=path, console=Console(file=buf, width=40))
    lines = buf.getvalue().splitlines()
    assert f"Record saved to {path}" in lines
    assert f"Check it with: cardtable replay {path}" in lines


# 7 ------------------------------------------------------------------------ record paths
def test_json_record_path_gets_json_and_text_otherwise(tmp_path):
    for name in ("g.json", "g.txt"):
        path = tmp_path / name
        assert run(auto=True, seed=7, record=path, console=Console(file=io.StringIO())) == 0
        text = path.read_text()
        if name.endswith(".json"):
            assert json.loads(text)[0]["game"] == "golf"
        else:
            assert text.startswith('[Game "golf"]')
        assert replay_text(text).startswith("1 game(s) verified")


def test_record_path_is_never_overwritten_nor_its_folder_created(tmp_path):
    existing = tmp_path / "old.txt"
    existing.write_text("keep me")
    buf = io.StringIO()
    assert run(auto=True, seed=7, record=existing, console=Console(file=buf, width=200)) == 2
    assert existing.read_text() == "keep me" and "already exists" in buf.getvalue()
    missing = tmp_path / "no-such-folder" / "g.txt"
    buf = io.StringIO()
    assert run(auto=True, seed=7, record=missing, console=Console(file=buf, width=200)) == 2
    assert not missing.parent.exists() and "does not exist" in buf.getvalue()
    assert "wins" not in buf.getvalue()  # refused before play
    rec = parse_text(_finished_record())
    with pytest.raises(FileExistsError):
        save_records(rec, existing)
    with pytest.raises(FileNotFoundError):
        save_records(rec, missing)
    assert existing.read_text() == "keep me" and not missing.parent.exists()


def test_default_record_paths_are_unique(monkeypatch):
    from datetime import datetime, timezone

    class Frozen(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)

    import cardtable.platform.storage as storage  # names the file (new_record_file), as for Goofspiel

    monkeypatch.setattr(storage, "datetime", Frozen)
    rec = parse_text(_finished_record())
    paths = [save_records(rec) for _ in range(3)]
    assert len(set(paths)) == 3 and all(p.exists() for p in paths)
    assert paths[1].name.endswith("-2.txt") and paths[2].name.endswith("-3.txt")
    assert paths[0].read_text() == paths[2].read_text()


# 8 ------------------------------------------------------------------------ seats
def test_more_bots_than_free_seats_is_an_error():
    buf = io.StringIO()
    assert run(players=2, vs=["random", "heuristic"], console=Console(file=buf, width=200)) == 2
    err = buf.getvalue().strip()
    assert err.startswith("error:") and "\n" not in err and "2 --vs bots" in err
    buf = io.StringIO()
    assert run(vs=["random"] * 3, console=Console(file=buf, width=200)) == 2
    assert "2 or 3 players" in buf.getvalue()
    buf = io.StringIO()
    assert (
        run(
            auto=True, ruleset=GolfRuleset(players=2), vs=["random"] * 3, console=Console(file=buf, width=200)
        )
        == 2
    )


def test_inferred_player_count_is_printed():
    buf = io.StringIO()
    code = run(
        vs=["search", "random"],
        seed=1,
        console=Console(file=buf, width=200),
        input_fn=lambda p, h: "quit",
        save=False,
    )
    assert code == 3  # quit: abandoned
    assert "3 players: You, search, random" in buf.getvalue()


def test_ruleset_keyword_and_explicit_players_override():
    buf = io.StringIO()
    rs = GolfRuleset.parse("players=3 early_end_min=2")
    assert run_cli(auto=True, seed=1, save=False, ruleset=rs, vs=["random"]) == 0
    assert run_cli(auto=True, seed=1, save=True, ruleset=rs, vs=["random"], players=2) == 0
    text = next(records_dir().glob("golf-*.txt")).read_text()
    rules = GolfRuleset.parse(re.search(r'\[Rules "([^"]*)"\]', text).group(1))
    assert rules.players == 2 and rules.decks == 1 and rules.early_end_min == 2
    assert (
        run(auto=True, seed=1, save=False, ruleset=rs, vs=["random"], console=Console(file=buf, width=200))
        == 0
    )
    assert "3 players: random-1, random-2, random-3" in buf.getvalue()


# 9 ------------------------------------------------------------------------ names
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"name": "A;B"}, "must not contain ';'"),
        ({"name": 'Al "X"'}, "must not contain '\"'"),
        ({"name": ""}, "must not be empty"),
        ({"name": "heuristic"}, "two players are named"),
        ({"hotseat": True, "names": "Ann, ann"}, "two players are named"),
        ({"hotseat": True, "names": "Ann,,Ben"}, "must not be empty"),
        ({"hotseat": True, "names": ["Ann", "B;n"]}, "must not contain ';'"),
    ],
)
def test_bad_player_names_are_refused_before_play(kwargs, message):
    buf = io.StringIO()
    code = run(seed=1, console=Console(file=buf, width=200), input_fn=lambda p, h: "draw", **kwargs)
    out = buf.getvalue().strip()
    assert code == 2 and message in out and out.startswith("error:") and "\n" not in out
    assert not list(records_dir().glob("golf-*"))


def test_quitting_between_match_games_keeps_the_games_played():
    def inp(prompt: str, hidden: bool) -> str:
        if "next game" in prompt:
            return "quit"
        if "You hold" in prompt:
            return "discard"
        if "pass them one" in prompt:
            return "pass 1"
        return "pass" if "snap onto" in prompt else "draw"

    buf = io.StringIO()
    code = run(vs=["heuristic"], seed=3, games=3, console=Console(file=buf, width=200), input_fn=inp)
    out = buf.getvalue()
    assert code == 3 and "Match abandoned after 1 game." in out
    files = list(records_dir().glob("golf-*.txt"))
    assert len(files) == 1 and replay_text(files[0].read_text()).startswith("1 game(s) verified: game 1: You")
