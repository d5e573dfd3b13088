"""Property-based tests (Hypothesis) over random rulesets and random legal play."""

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from cardtable.goofspiel import Game, Ruleset
from cardtable.goofspiel.record import from_json, parse_text, record_from_game, replay, to_json, write_text


@st.composite
def rulesets(draw):
    cards = draw(st.integers(1, 13))
    players = draw(st.integers(2, 5))
    per_bid = draw(st.integers(1, min(3, cards)))
    display = draw(st.sampled_from([1, 1, 2, 3]))
    display = min(display, cards)
    ties = "carry" if display > 1 else draw(st.sampled_from(["carry", "discard"]))
    order = draw(st.sampled_from(["shuffled", "ascending", "descending", "given"]))
    if order == "given":
        order = tuple(draw(st.permutations(range(1, cards + 1))))
    return Ruleset(
        cards=cards,
        players=players,
        tie_rule=ties,
        unique_bids=draw(st.booleans()),
        high_ace=draw(st.booleans()),
        cards_per_bid=per_bid,
        open_prizes=display,
        prize_order=order,
    )


def random_play(ruleset, seed, rng_seed):
    rng = random.Random(rng_seed)
    game = Game(ruleset, seed=seed)
    bids_log = []
    while not game.is_over:
        if game.phase == "bid":
            bids = [rng.choice(game.legal_bids(s)) for s in range(ruleset.players)]
            bids_log.append(("bid", bids))
            game.play(bids)
        else:
            prize = rng.choice(game.legal_choices())
            bids_log.append(("choose", game.chooser, prize))
            game.choose(game.chooser, prize)
    return game, bids_log


@given(rulesets(), st.integers(0, 10**6), st.integers(0, 10**6))
def test_conservation_and_length(ruleset, seed, rng_seed):
    game, _ = random_play(ruleset, seed, rng_seed)
    rs = ruleset
    # every card is spent exactly once (and nothing else)
    for s in range(rs.players):
        spent = Counter(c for r in game.history for c in r.bids[s])
        assert all(v == 1 for v in spent.values())
        assert set(spent) | set(game.hands[s]) == set(rs.deck)
        assert len(game.hands[s]) == rs.cards - len(game.history) * rs.cards_per_bid
    # won points + unowned points = total prize value; each prize ends in one place
    res = game.result()
    assert sum(res.points) + res.unowned == rs.total_prize_value
    places = [p for w in game.won for p in w] + list(game.discarded)
    assert sorted(places) == list(rs.deck)
    # a game of n cards lasts the right number of rounds
    if rs.open_prizes == 1:
        assert len(game.history) == rs.rounds
    else:
        assert len(game.history) <= rs.rounds
    assert res.outcomes.count("win") <= 1


@given(rulesets(), st.integers(0, 10**6), st.integers(0, 10**6), st.data())
def test_permuting_seats_permutes_the_result(ruleset, seed, rng_seed, data):
    game, log = random_play(ruleset, seed, rng_seed)
    perm = data.draw(st.permutations(range(ruleset.players)))  # new seat i <- old seat perm[i]
    inverse = {old: new for new, old in enumerate(perm)}
    other = Game(ruleset, seed=seed)
    for entry in log:
        if entry[0] == "bid":
            other.play([entry[1][perm[i]] for i in range(ruleset.players)])
        else:
            other.choose(inverse[entry[1]], entry[2])
    assert other.is_over
    a, b = game.result(), other.result()
    assert b.points == tuple(a.points[perm[i]] for i in range(ruleset.players))
    assert b.outcomes == tuple(a.outcomes[perm[i]] for i in range(ruleset.players))


@given(rulesets(), st.integers(0, 10**6), st.integers(0, 10**6))
def test_record_write_parse_is_the_identity(ruleset, seed, rng_seed):
    game, _ = random_play(ruleset, seed, rng_seed)
    names = [f"P{i} name" for i in range(ruleset.players)]
    record = record_from_game(game, names, tags=[("Event", 'quote " and \\ slash')])
    text = write_text(record)
    parsed = parse_text(text)
    assert parsed == [record]
    assert write_text(parsed) == text
    assert from_json(to_json(record)) == [record]
    assert replay(parsed[0]).points == game.points
