import pytest

from cardtable.platform.match import Match, MatchError, MatchFormat


def test_total_points_match_adds_totals_and_shares_equal_sums():
    m = Match(MatchFormat("total", 3), players=2)
    for scores in [(50, 41), (40, 51), (45, 43)]:
        assert not m.is_over
        m.add_game(scores)
    assert m.is_over and m.totals() == (135, 135)
    assert m.result() == ("draw", "draw")
    with pytest.raises(MatchError, match="over"):
        m.add_game((1, 0))


def test_best_of_three_ends_early_and_ignores_points():
    m = Match(MatchFormat("best-of", 3), players=2)
    m.add_game((46, 45))
    m.add_game((46, 45))
    assert m.is_over and m.result() == ("win", "loss")


def test_best_of_level_after_n_games_needs_the_extra_game():
    m = Match(MatchFormat("best-of", 3, "extra-game"), players=2)
    m.add_game((50, 40))
    m.add_game((40, 50))
    m.add_game((43, 43))
    assert not m.is_over and m.next_game_is_extra
    with pytest.raises(MatchError, match="not over"):
        m.result()
    m.add_game((30, 60))
    assert m.is_over and m.result() == ("loss", "win")


def test_drawn_extra_game_shares_the_match():
    m = Match(MatchFormat("best-of", 1), players=2)
    m.add_game((45, 45))
    assert m.next_game_is_extra
    m.add_game((45, 45))
    assert m.result() == ("draw", "draw")


def test_best_of_level_decided_by_total_points():
    m = Match(MatchFormat("best-of", 3, "total-points"), players=2)
    m.add_game((60, 30))
    m.add_game((40, 50))
    m.add_game((43, 43))
    assert m.is_over and m.result() == ("win", "loss")  # 143 vs 123


def test_three_player_best_of():
    m = Match(MatchFormat("best-of", 5), players=3)
    for s in [(10, 5, 1), (10, 5, 1), (10, 5, 1)]:
        m.add_game(s)
    assert m.is_over and m.result() == ("win", "loss", "loss")


@pytest.mark.parametrize("text", ["total", "best-of x", "league 3", "total 0", "best-of 3 coin-flip"])
def test_bad_formats(text):
    with pytest.raises(MatchError):
        MatchFormat.parse(text)


def test_format_round_trip():
    for text in ["total 3", "best-of 5 extra-game", "best-of 3 total-points"]:
        assert str(MatchFormat.parse(text)) == text
