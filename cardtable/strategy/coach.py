"""The coach: the analysis of a finished game and the hint before a bid.

The analysis is the one ``cardtable analyze`` prints
(:func:`cardtable.solver.analysis.analyze_game`): per round the prize, the
pot, both bids, the equilibrium mixed strategy of each player at that
position, the expected points each bid gave up against the equilibrium, and
the *expected point difference* (player 1 minus player 2) before and after
the round: the points so far plus the equilibrium value of the position,
i.e. the final point difference to expect if both play the equilibrium from
there. Front ends draw that running difference as a chart
(:func:`render_analysis` in the terminal, ``/analysis/ROOM`` in the browser).

Where a round's equilibrium comes from, per row (:mod:`cardtable.solver.analysis`):
``table`` (a solved table in the cache folder, ``cardtable solve``), ``subgame``
(exact subgame solving once the rest of the game needs at most ``limit``
matrix games), ``approximation`` (carry-over ties without their table, the
standard game: the carry-over approximation that the ``nash`` bot plays, from
the discard-ties table; labelled as not the exact equilibrium), or ``not
solved`` (no source: e.g. 13 cards carry-over before the one-time
``cardtable solve -n 13 --ties discard``, until the rest is small).

The hint (:func:`hint`, :func:`hint_text`) is the ``nash`` bot's mixed bid for
the person's seat, with where it came from: exact (table, subgame) or the
carry-over approximation or the bot's fallback, labelled as not the
equilibrium. The browser shows it in rooms with hints on, ``cardtable play``
with ``--hints`` (every round) or when the person types ``hint`` (that round);
either way the game's record gets the tag ``[Hints "on"]``.

Only 2-player games with single-card bids and one prize at a time are
analysed (docs/rules.md, "A round", "Ties" and "Variants"); others raise
:class:`cardtable.solver.UnsupportedRuleset`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from rich import box
from rich.table import Table as RichTable
from rich.text import Text

from cardtable.goofspiel.cards import PLAYER_SUITS, PRIZE_SUIT, format_card, rank_name
from cardtable.goofspiel.errors import GoofspielError
from cardtable.goofspiel.state import Game, PlayerView
from cardtable.platform.bot import check_distribution
from cardtable.tui import QuitGame

from .nash import NashBot

if TYPE_CHECKING:  # the solver (Numba) loads when a hint or an analysis is asked for
    from cardtable.solver.tables import SolvedTable

#: Most matrix games solved for an analysis without a table (as ``cardtable analyze --limit``).
DEFAULT_LIMIT = 2_000_000

SOURCE_WORDS = {
    "table": "solved table",
    "subgame": "exact subgame solution",
    "approximation": (
        "carry-over approximation, not the exact equilibrium (no carry-over table: each round's "
        "matrix game solved exactly, later positions valued from the discard-ties table; "
        "docs/solver.md, The carry-over approximation)"
    ),
    "compressed": (
        "compressed table shipped with cardtable (the exact table's values to within about "
        "0.01 points RMS; docs/solver.md, Compressed tables)"
    ),
    "not solved": "not solved (no table; exact solving starts once the rest of the game is small)",
}


def source_words(source: str, ruleset) -> str:
    """What ``source`` (a round's ``"source"``) means, in words; for an unsolved carry-over
    round, the one-time build that would give the carry-over approximation."""
    words = SOURCE_WORDS[source]
    if source == "not solved" and ruleset.tie_rule == "carry" and not ruleset.fixed_order:
        words = (
            words[:-1] + f"; `cardtable solve -n {ruleset.cards} --ties discard`, a one-time build, "
            "gives these rounds the carry-over approximation)"
        )
    return words


def analysable(ruleset) -> bool:
    """True when the solver covers ``ruleset`` (2 players, single-card bids, one prize at a time)."""
    # lazy: `cardtable play` reads the coach without loading Numba until a hint or an analysis is asked for
    from cardtable.solver import UnsupportedRuleset, check_supported

    try:
        check_supported(ruleset)
    except UnsupportedRuleset:
        return False
    return True


def points_table(ruleset, cache=None) -> SolvedTable | None:
    """The solved points table of ``ruleset`` in the cache folder, or ``None``.

    Raises:
        TableFileError: the table file exists but is damaged.
    """
    # lazy: `cardtable play` reads the coach without loading Numba until a hint or an analysis is asked for
    from cardtable.solver import load_table

    return load_table(ruleset, "points", cache)


def analysis(
    game: Game,
    players: Sequence[str],
    table: SolvedTable | None = None,
    limit: int = DEFAULT_LIMIT,
    cache: Any = None,
) -> dict[str, Any]:
    """The analysis of ``game`` as JSON-ready data (see the module docstring).

    Args:
        game: a finished (or partly played) 2-player game.
        players: the two names, player 1 first.
        table: a solved table of the ruleset, or ``None`` (subgame solving).
        limit: most matrix games to solve without a table.
        cache: the folder of solved tables (a ``Path``) that the carry-over
            approximation reads its discard table from (default ``$CARDTABLE_CACHE``,
            else the user cache folder).

    Returns:
        ``{"players", "rules", "final": [p1, p2], "rounds": [...], "given_up": [t1, t2],
        "start": expected difference before round 1 or None}``; each round:
        ``{"number", "prize", "pot", "bids": [c1, c2], "strategy": [{card: p}, {card: p}]
        or None, "probability": [p1, p2] or None, "given_up": [g1, g2] or None,
        "expected_before", "expected_after" (floats or None), "source"}``. Cards are
        face ranks (1 = ace), dictionary keys strings (JSON).

    Raises:
        UnsupportedRuleset: the ruleset is outside the solver's reach.
    """
    # lazy: `cardtable play` reads the coach without loading Numba until a hint or an analysis is asked for
    from cardtable.solver.analysis import analyze_game

    rounds = analyze_game(game, table, limit, cache=cache)
    out_rounds = []
    totals = [0.0, 0.0]
    for r in rounds:
        if r.given_up is not None:
            totals[0] += r.given_up[0]
            totals[1] += r.given_up[1]
        out_rounds.append(
            {
                "number": r.number,
                "prize": r.prize,
                "pot": r.pot,
                "bids": list(r.bids),
                "strategy": None
                if r.strategy is None
                else [
                    {str(c): p for c, p in r.strategy.a.items()},
                    {str(c): p for c, p in r.strategy.b.items()},
                ],
                "probability": None if r.probability is None else list(r.probability),
                "given_up": None if r.given_up is None else list(r.given_up),
                "expected_before": _clean(r.expected_before),
                "expected_after": _clean(r.expected_after),
                "source": r.source,
            }
        )
        out_rounds[-1]["words"] = [round_words(out_rounds[-1], seat, game.ruleset) for seat in (0, 1)]
    pts = game.result().points if game.is_over else game.points
    first = next((r for r in rounds if r.expected_before is not None), None)
    return {
        "players": list(players),
        "rules": game.ruleset.describe(),
        "final": list(pts),
        "rounds": out_rounds,
        "given_up": totals,
        "start": _clean(first.expected_before) if first is not None and first.number == 1 else None,
        "sources": {r.source: source_words(r.source, game.ruleset) for r in rounds},
    }


#: Below this probability a card is not in the equilibrium's support, below this many points
#: a bid gave up nothing: the thresholds of the table (:func:`format_dist`, the lost columns).
SUPPORT_EPS = 5e-4


def round_words(row: dict[str, Any], seat: int, ruleset) -> str:
    """The coach in words: one sentence for ``seat``'s bid in one analysed round.

    ``row`` is a round of :func:`analysis` (``"number"``, ``"prize"``, ``"pot"``, ``"bids"``,
    ``"strategy"``, ``"probability"``, ``"given_up"``, ``"source"``), ``ruleset`` the game's.
    The numbers are the table's: the points given up (the ``lost`` column), the support of the
    equilibrium mix (cards played with probability above 0.05%, as ranges of consecutive
    cards) and its most likely bid. Cards carry their suits as the terminal prints them (the
    prize ♦, player 1 ♠, player 2 ♣), e.g.::

        Your K♠ on the 4♦ gave up about 3.1 points; at equilibrium you bid 5-9 here, most often 7.
        Your 7♣ on the 4♦ was an equilibrium bid (played 42% of the time): no loss.
        Your 2♠ on the 5♦ was forced: your last card.
        The coach cannot rate your K♠ on the 4♦: this round is not solved (no equilibrium is known for its position).

    A carried pot is named (``on the 4♦ with 3 carried``); in a round solved by the carry-over
    approximation the sentence says the mix is the approximation's, not the exact equilibrium.
    """
    bid = format_card(row["bids"][seat], PLAYER_SUITS[seat])
    stake = f"the {format_card(row['prize'], PRIZE_SUIT)}" + (
        f" with {row['pot']} carried" if row["pot"] else ""
    )
    if ruleset.cards - row["number"] + 1 <= 1:  # one card left in each hand: nothing to choose
        return f"Your {bid} on {stake} was forced: your last card."
    if row["strategy"] is None or row["given_up"] is None:
        return (
            f"The coach cannot rate your {bid} on {stake}: this round is not solved "
            "(no equilibrium is known for its position)."
        )
    approx = row["source"] == "approximation"
    mix = {int(c): p for c, p in row["strategy"][seat].items() if p > SUPPORT_EPS}
    support = sorted(mix, key=ruleset.strength)
    top = max(mix.values())
    modes = [rank_name(c) for c in support if mix[c] >= top - 1e-9]
    where = "by the carry-over approximation" if approx else "at equilibrium"
    advice = f"{where} you bid {_support_text(support, ruleset)} here" + (
        "" if len(support) == 1 else f", most often {' or '.join(modes)}"
    )
    lost, p = row["given_up"][seat], row["probability"][seat] if row["probability"] else 0.0
    if lost > SUPPORT_EPS:
        return f"Your {bid} on {stake} gave up about {_points_text(lost)} points; {advice}."
    if p > SUPPORT_EPS:
        return f"Your {bid} on {stake} was {_no_loss_kind(p, approx, len(support))}: no loss."
    return f"Your {bid} on {stake} gave up nothing (no loss), though {advice}."


def _support_text(support: list[int], ruleset) -> str:
    """The cards of an equilibrium's support (sorted by strength) as ranges of consecutive
    strengths: ``"5-9"``, ``"2, 7-9, K"``."""
    runs: list[list[int]] = []
    for c in support:
        if runs and ruleset.strength(c) == ruleset.strength(runs[-1][-1]) + 1:
            runs[-1].append(c)
        else:
            runs.append([c])
    return ", ".join(
        rank_name(r[0]) if len(r) == 1 else f"{rank_name(r[0])}-{rank_name(r[-1])}" for r in runs
    )


def _points_text(lost: float) -> str:
    """Points given up, to 1, 2 or 3 decimals as they get smaller."""
    return f"{lost:.1f}" if lost >= 0.95 else f"{lost:.2f}" if lost >= 0.005 else f"{lost:.3f}"


def _no_loss_kind(p: float, approx: bool, support_size: int) -> str:
    """What a bid played with probability ``p`` > 0 by the mix is, in words."""
    often = f"played {p:.0%} of the time" if p >= 0.005 else "played under 1% of the time"
    if approx:
        return f"a bid of the carry-over approximation ({often}; not the exact equilibrium)"
    return "the equilibrium bid" if support_size == 1 else f"an equilibrium bid ({often})"


def _clean(v: float | None) -> float | None:
    """Float noise below 1e-9 points reads as 0 (an exact 0 prints as +0.00, not -0.00)."""
    return None if v is None else (0.0 if abs(v) < 1e-9 else float(v))


def offer_analysis(terminal, games: Sequence[Game], names: Sequence[str]) -> None:
    """After ``cardtable play``: ask whether to show the analysis of the games played, and show it.

    Asks only for analysable 2-player games; end of input or ``n`` (the default) skips it.
    """
    games = [g for g in games if g.history]
    if not games or len(names) != 2 or not analysable(games[0].ruleset):
        return
    what = "this game" if len(games) == 1 else f"these {len(games)} games"

    def parse(text: str) -> bool:
        answer = text.strip().lower()
        if answer not in ("", "y", "yes", "n", "no"):
            raise GoofspielError("answer y or n")
        return answer in ("y", "yes")

    try:
        wanted = terminal.ask(
            f"Show the analysis of {what} (equilibrium per round, points given up)? \\[y/N] ", parse
        )
    except QuitGame:
        return
    if not wanted:
        return
    table = points_table(games[0].ruleset)
    for g in games:
        with terminal.console.status("solving the equilibrium of each round..."):
            data = analysis(g, names, table)
        render_analysis(terminal.console, data)


def format_dist(dist: dict, top: int = 4) -> str:
    """``"K:0.52 Q:0.31 ..."``: the ``top`` most likely cards of a mixed bid (keys: ranks or their strings)."""
    items = sorted(((p, int(c)) for c, p in dist.items() if p > 5e-4), reverse=True)[:top]
    return " ".join(f"{rank_name(c)}:{p:.2f}" for p, c in items)


def chart_lines(data: dict[str, Any], width: int = 40) -> list[str]:
    """The running expected point difference as text bars, one line per round.

    ``+`` bars grow right of the axis (player 1 ahead), ``-`` bars left; a ``~`` after
    the number marks a value from the carry-over approximation (that of the position
    the next round is played from).
    """
    points = [(r["number"], r["expected_after"]) for r in data["rounds"]]
    rounds = data["rounds"]
    approx = {
        r["number"]
        for r, nxt in zip(rounds, rounds[1:], strict=False)
        if nxt.get("source") == "approximation"
    }
    if rounds and rounds[0].get("source") == "approximation":
        approx.add("start")
    known = [abs(v) for _, v in points if v is not None]
    scale = max(known + ([abs(data["start"])] if data["start"] is not None else []) + [1.0])
    half = width // 2
    lines = []
    rows = ([("start", data["start"])] if data["start"] is not None else []) + points
    for label, v in rows:
        if v is None:
            lines.append(f"{str(label):>5} {'':>8}  {'not solved':^{width + 1}}")
            continue
        n = round(abs(v) / scale * half)
        left = (" " * (half - n) + "█" * n) if v < 0 else " " * half
        right = ("█" * n).ljust(half) if v > 0 else " " * half
        lines.append(f"{str(label):>5} {v:+8.2f}{'~' if label in approx else ' '} {left}│{right}")
    return lines


def render_analysis(
    console, data: dict[str, Any], title: str = "analysis", table: bool = True, words: bool = True
) -> None:
    """Print the analysis on a Rich console (``cardtable analyze``, ``cardtable play``): the table
    and the chart (``table``), then each round in words (``words``: per round and player
    its sentence, :func:`round_words`).

    The table fits the console: four equilibrium entries per cell from 130 columns, else two;
    the ``source`` column only when rounds come from more than one source (else it is in the caption);
    approximated and unsolved rounds get a line saying what that means (``data["sources"]``).
    """
    if table:
        _render_table(console, data, title)
    if words:
        if not table:
            names = data["players"]
            console.print(
                f"{title}: {names[0]} (♠) against {names[1]} (♣); {data['rules']}",
                markup=False,
                highlight=False,
            )
        console.print(
            "in words: each bid against the equilibrium"
            + (
                " (or the carry-over approximation where there is no table)"
                if any(r["source"] == "approximation" for r in data["rounds"])
                else ""
            )
            + ":",
            markup=False,
            highlight=False,
        )
        grid = RichTable.grid(padding=(0, 2))  # the sentences wrap within the terminal's width
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True)
        grid.add_column()
        for r in data["rounds"]:
            for seat, sentence in enumerate(r["words"]):
                grid.add_row(
                    f"round {r['number']}" if seat == 0 else "", Text(data["players"][seat]), Text(sentence)
                )
        console.print(grid)


def _render_table(console, data: dict[str, Any], title: str) -> None:
    """The table, the totals and the chart of :func:`render_analysis`."""
    names = data["players"]
    top = 4 if console.width >= 130 else 2
    sources = sorted({r["source"] for r in data["rounds"]})
    one_source = len(sources) == 1
    wide = console.width >= 100
    out = RichTable(
        title=f"{title}: 1 = {names[0]}, 2 = {names[1]}",
        box=box.SIMPLE_HEAD,
        padding=(0, 1 if wide else 0),
        pad_edge=False,
    )
    for col in _table_columns(wide, one_source):
        numeric = col.startswith(("lost", "rnd", "pot", "exp"))
        out.add_column(
            col,
            justify="right" if numeric else "left",
            no_wrap=numeric or col == "prize",
            overflow="fold",
            min_width=6 if col.startswith(("eq", "bid", "exp", "lost")) else None,
        )
    for r in data["rounds"]:
        out.add_row(*_row_cells(r, top), *([] if one_source else [r["source"]]))
    console.print(out)
    console.print(
        data["rules"] + (f"; source: {sources[0]}" if one_source else ""), markup=False, highlight=False
    )
    _print_notes(console, data, sources)
    for line in chart_lines(data):
        console.print(line, markup=False, highlight=False)


def _table_columns(wide: bool, one_source: bool) -> list[str]:
    """The table's column titles (short on a narrow console; ``source`` only for several sources)."""
    eq = "equilibrium" if wide else "eq."
    columns = [
        "rnd",
        "prize",
        "pot",
        "bid 1",
        "bid 2",
        f"{eq} 1",
        f"{eq} 2",
        "lost 1",
        "lost 2",
        "exp. diff" if wide else "exp.",
    ]
    return columns if one_source else columns + ["source"]


def _row_cells(r: dict[str, Any], top: int) -> list[str]:
    """One analysed round's cells, ``source`` left out (``top``: equilibrium entries per cell)."""
    prob = r["probability"]
    return [
        str(r["number"]),
        rank_name(r["prize"]),
        str(r["pot"]),
        rank_name(r["bids"][0]) + (f" ({prob[0]:.2f})" if prob else ""),
        rank_name(r["bids"][1]) + (f" ({prob[1]:.2f})" if prob else ""),
        format_dist(r["strategy"][0], top) if r["strategy"] else "-",
        format_dist(r["strategy"][1], top) if r["strategy"] else "-",
        f"{r['given_up'][0]:.3f}" if r["given_up"] else "-",
        f"{r['given_up'][1]:.3f}" if r["given_up"] else "-",
        f"{r['expected_after']:+.2f}" if r["expected_after"] is not None else "-",
    ]


def _print_notes(console, data: dict[str, Any], sources: list[str]) -> None:
    """The lines under the table: what inexact sources mean, the totals, the chart's title."""
    names = data["players"]
    for (
        source
    ) in sources:  # what an approximated or unsolved round means (exact sources speak for themselves)
        if source not in ("table", "subgame"):
            console.print(f"{source}: {data['sources'][source]}", markup=False, highlight=False)
    approx = "approximation" in sources
    pts, tot = data["final"], data["given_up"]
    console.print(
        f"final points {pts[0]}-{pts[1]}; expected points given up versus equilibrium: "
        f"{names[0]} {tot[0]:.3f}, {names[1]} {tot[1]:.3f} (solved rounds only"
        + ("; approximated rounds: against the carry-over approximation" if approx else "")
        + "; bids the equilibrium plays with probability > 0 give up nothing)",
        markup=False,
        highlight=False,
    )
    console.print(
        f"exp. diff: expected point difference ({names[0]} minus {names[1]}) after each round, "
        "if both played the equilibrium from there"
        + (" (~: carry-over approximation)" if approx else "")
        + ":",
        markup=False,
        highlight=False,
    )


def hint(bot: Any, view: PlayerView) -> dict[str, Any]:
    """The equilibrium mixed bid for the viewer's seat, before it bids.

    Args:
        bot: a ``nash`` bot (:class:`cardtable.strategy.nash.NashBot`) kept for
            the whole game (it solves a subgame once and reuses it).
        view: the person's view in the bid phase.

    Returns:
        ``{"round", "strategy": {rank string: probability}, "source", "exact"}``;
        ``exact`` is false for the bot's fallback, which is not an equilibrium.

    Raises:
        UnsupportedRuleset, ValueError (no bid pending, or a mix that is not a probability
            distribution over the hand: :func:`cardtable.platform.bot.check_distribution`).
    """
    dist = check_distribution(bot.policy(view), view.hand, "hint")
    exact = bot.last_source in ("table", "subgame")
    if bot.last_source == "compressed":
        measured = getattr(bot, "source_exploitability", None)
        figure = (
            "exploitability not measured"
            if measured is None
            else f"measured exploitability {measured:.3f} points per game"
        )
        source = (
            bot.last_source_text
            + f" (near-exact: values within about 0.01 points RMS of the exact table; {figure})"
        )
    else:
        source = bot.last_source_text + ("" if exact else " (an approximation, not the equilibrium)")
    return {
        "round": view.round,
        "strategy": {str(c): float(p) for c, p in sorted(dist.items())},
        "source": source,
        "exact": exact,
    }


def hint_text(data: dict[str, Any]) -> str:
    """One line for a hint (:func:`hint`): ``"Hint — equilibrium mix for this round
    (solved table): K 52% · Q 31% · J 17%"`` (cards above 0.5%, most likely first;
    ``approximate`` instead of ``equilibrium`` for a source that is not exact)."""
    items = sorted(((p, int(c)) for c, p in data["strategy"].items() if p > 5e-3), reverse=True)
    mix = " · ".join(f"{rank_name(c)} {round(p * 100)}%" for p, c in items)
    kind = "equilibrium" if data["exact"] else "approximate"
    return f"Hint — {kind} mix for this round ({data['source']}): {mix}"


#: Why :class:`TerminalCoach` gives no hints in a ruleset the solver does not cover.
NOT_ANALYSABLE = (
    "hints need a 2-player game with single-card bids and one prize at a time "
    "(the equilibrium is solved for those only)"
)


class TerminalCoach:
    """The coach at a Goofspiel table in the terminal (:func:`cardtable.goofspiel.tui.run`).

    ``cardtable play`` hands one to the table, so that the game package never imports
    this one (it sits a layer above: ARCHITECTURE.md, Layers). It keeps one ``nash`` bot
    for the hints of a table, made at the first hint.
    """

    def __init__(self) -> None:
        self._bot: NashBot | None = None

    def problem(self, ruleset: Any) -> str:
        """Why no hint can be given in ``ruleset``, or ``""`` when one can (:func:`analysable`)."""
        return "" if analysable(ruleset) else NOT_ANALYSABLE

    def new_game(self, ruleset: Any, seat: int) -> None:
        """A new game starts, the person in ``seat``: the hints' bot (once made) starts it too.

        Raises:
            UnsupportedRuleset: ``ruleset`` is outside the solver's reach.
        """
        if self._bot is not None:
            self._bot.new_game(ruleset, seat)

    def hint_line(self, console: Any, view: PlayerView) -> str:
        """The hint for ``view`` as one line (:func:`hint_text`), solved under a status line
        on ``console`` (a ``rich`` console).

        Raises:
            ValueError: no hint (e.g. a damaged table, ``TableFileError``); the next call
                starts again with a fresh bot.
        """
        try:
            if self._bot is None:
                self._bot = NashBot(seed=0)
                self._bot.new_game(view.ruleset, view.seat)
            with console.status("the coach is solving this round..."):
                return hint_text(hint(self._bot, view))
        except ValueError:
            self._bot = None
            raise

    def offer_analysis(self, terminal: Any, games: Sequence[Game], names: Sequence[str]) -> None:
        """At the end of the games: :func:`offer_analysis`."""
        offer_analysis(terminal, games, names)
