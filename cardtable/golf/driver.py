"""Driving a game with agents: turns, and the snap window after every discard.

Snapping is a real-time race (docs/golf.md, "Snapping": "whenever the top of the discard
pile matches..."). The engine accepts a :class:`~.actions.Snap` at any time
while a card lies on the discard pile and resolves snaps in the order they
are applied; an online server applies them in order of arrival.

In the terminal and between bots there is no race, so this driver opens a
*snap window* after every turn that put a card on the discard pile: each
player, in turn order starting with the next player and ending with the one
who discarded, is offered one snap (or lets the card go). If anyone snapped,
the window goes round again, since the top card has the same rank and may
still match (with two decks up to seven more cards of a rank), until a whole
round passes without a snap. A player who snapped an opponent's card decides
at once whether to pass them a card (``agent.act`` in the ``"pass"`` phase:
:class:`~.actions.Pass` or :class:`~.actions.NoPass`). docs/golf.md, "Snapping".

An *agent* is anything with ``act(view) -> action`` (the pending turn action
or pass) and ``snap(view) -> Snap | None``: the bots of
:mod:`cardtable.golf.bots` and the terminal player of :mod:`cardtable.golf.tui`.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence

from .actions import Action, Snap
from .ruleset import GolfRuleset
from .state import Event, GolfGame
from .views import build_view


class Agent(Protocol):
    """A player the driver can ask for actions."""

    def act(self, view: Any) -> Action: ...

    def snap(self, view: Any) -> Snap | None: ...


OnEvent = Callable[[GolfGame, Event], None]


def _apply(game: GolfGame, action: Action, on_event: OnEvent | None) -> Event:
    ev = game.apply(action)
    if on_event is not None:
        on_event(game, ev)
    return ev


def _settle_pass(game: GolfGame, agents: Sequence[Agent], on_event: OnEvent | None) -> None:
    while game.phase == "pass":
        p = game.actor
        assert p is not None  # the passer acts in the pass phase
        _apply(game, agents[p].act(build_view(game, p)), on_event)


def snap_window(
    game: GolfGame, agents: Sequence[Agent], discarder: int, on_event: OnEvent | None = None
) -> list[Event]:
    """Offer every player a snap, in turn order after ``discarder`` (who comes last),
    round after round until a round passes without a snap. A player whose
    grid is frozen (the early ender) is not asked. The window ends: a correct
    snap removes a grid card, a wrong one takes a penalty card from the draw
    pile, and the game ends when a grid or the draw pile is empty.

    Returns:
        the snap (and pass) events applied, in order.

    Raises:
        IllegalAction: an agent returned an illegal snap or pass.
    """
    n = game.players
    order = [(discarder + k) % n for k in range(1, n + 1)]
    events: list[Event] = []

    def record(g: GolfGame, ev: Event) -> None:
        events.append(ev)
        if on_event is not None:
            on_event(g, ev)

    while True:
        snapped = False
        for p in order:
            if game.over or not game.discard:
                return events
            if not game.legal_snaps(p):
                continue
            snap = agents[p].snap(build_view(game, p))
            if snap is None:
                continue
            if not isinstance(snap, Snap) or snap.player != p:
                raise TypeError(f"agent for seat {p} returned {snap!r} as a snap")
            _apply(game, snap, record)
            snapped = True
            _settle_pass(game, agents, record)
        if not snapped:
            break
    return events


def play_turn(game: GolfGame, agents: Sequence[Agent], on_event: OnEvent | None = None) -> None:
    """Play one whole turn of the current player, then its snap window."""
    p = game.current
    while not game.over and game.current == p and game.phase in ("draw", "drawn", "pass"):
        actor = game.actor
        assert actor is not None  # the game is not over
        ev = _apply(game, agents[actor].act(build_view(game, actor)), on_event)
        if ev.action.kind in ("discard", "swap"):
            if not game.over:
                snap_window(game, agents, p, on_event)
            return
        if ev.action.kind == "end":
            return


def play_game(
    game: GolfGame, agents: Sequence[Agent], on_event: OnEvent | None = None, max_turns: int = 10_000
) -> GolfGame:
    """Play ``game`` to the end with one agent per seat; returns the finished game.

    Raises:
        IllegalAction: an agent chose an illegal action.
        RuntimeError: more than ``max_turns`` turns (a bug guard).
    """
    for agent, seat in zip(agents, range(game.players), strict=True):
        if hasattr(agent, "new_game"):
            agent.new_game(game.ruleset, seat)
    while not game.over:
        if game.turn > max_turns:
            raise RuntimeError("game did not end")
        play_turn(game, agents, on_event)
    return game


def play_match(
    ruleset: GolfRuleset,
    agents: Sequence[Agent],
    games: int,
    seed: int | str | None = None,
    on_event: OnEvent | None = None,
    on_game_start: Callable[[GolfGame], None] | None = None,
) -> list[GolfGame]:
    """Play ``games`` games in a row (docs/golf.md, "Matches": a losing early ender gets an extra card).

    Game ``k`` (0-based) is started by seat ``k % players`` and dealt with
    seed ``f"{seed}/{k}"``; each game's ``result().extra_cards`` are dealt in
    the next game.
    """
    done: list[GolfGame] = []
    extra = (0,) * ruleset.players
    for k in range(games):
        game = GolfGame(
            ruleset,
            seed=None if seed is None else f"{seed}/{k}",
            first_player=k % ruleset.players,
            extra_cards=extra,
        )
        if on_game_start is not None:
            on_game_start(game)
        play_game(game, agents, on_event)
        extra = game.result().extra_cards
        done.append(game)
    return done
