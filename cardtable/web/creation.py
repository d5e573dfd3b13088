"""Checking a room creation form before anything is stored.

:func:`plan_room` turns a validated :class:`~cardtable.web.schema.CreateRoom` into a
:class:`RoomPlan` (the game's canonical settings, the match format, each seat's bot
and name), or refuses it with a :class:`~cardtable.web.games.SettingsError` that
names the seat and the field. Every bot is started once on a throwaway instance,
so that a bot which cannot play the ruleset is refused here rather than stored in
a room that could never load. The hub stores the plan (:meth:`Hub.create_room
<cardtable.web.hub.Hub.create_room>`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from cardtable.platform.bot import UnknownBotError, bot_class
from cardtable.platform.match import MatchError, MatchFormat
from cardtable.platform.names import (
    PlayerNameError,
    check_player_name,
    check_player_names,
    name_key,
)

from .games import GameAdapter, SettingsError, get_adapter
from .protocol import seat_label
from .schema import MAX_MATCH_GAMES, CreateRoom, MatchSpec

log = logging.getLogger("cardtable.web")


@dataclass(frozen=True)
class RoomPlan:
    """A checked creation form: ``bots[i]`` is seat ``i``'s bot (``None``: a person), ``names[i]`` its name."""

    adapter: GameAdapter
    settings: dict[str, Any]
    format: MatchFormat
    bots: list[str | None]
    names: list[str]


def plan_room(request: CreateRoom) -> RoomPlan:
    """Check a creation form (already validated by :class:`CreateRoom`).

    Raises:
        SettingsError: any bad field, or a bot that cannot play the ruleset
            (its ``new_game`` raises ``ValueError``).
    """
    adapter = get_adapter(request.game)
    settings = adapter.normalise_settings(request.settings)
    n = adapter.seat_count(settings)
    if request.seats is not None and len(request.seats) != n:
        raise SettingsError(f"the ruleset has {n} seats; 'seats' must list {n} entries")
    fmt = match_format(request.match)
    bots: list[str | None] = []
    names: list[str] = []
    for i in range(n):
        entry = request.seats[i] if request.seats else None
        bot = _seat_bot(adapter, i, entry.bot if entry is not None else None)
        names.append(_seat_name(i, bot, entry.name if entry is not None else None, names))
        bots.append(bot)
    try:
        check_player_names(names)
    except PlayerNameError as exc:
        raise SettingsError(str(exc)) from None
    adapter.check_seats(settings, bots)
    for i, bot in enumerate(bots):
        if bot is not None:
            check_bot(adapter, bot, i, settings)
    return RoomPlan(adapter, settings, fmt, bots, names)


def _seat_bot(adapter: GameAdapter, seat: int, bot: str | None) -> str | None:
    """The seat's bot name, checked against the game's registry (``None``: a person)."""
    if not bot:
        return None
    try:
        bot_class(adapter.name, bot)
    except UnknownBotError as exc:
        raise SettingsError(f"{seat_label(seat)}: {exc}") from None
    return bot.strip().lower()


def _seat_name(seat: int, bot: str | None, name: str | None, taken: list[str]) -> str:
    """The seat's name: the one given (checked), else ``"<bot> bot"`` or ``"Player N"``,
    numbered when an earlier seat already has it."""
    if name:  # only a missing or empty name means "none given": "\n" or "  " is refused, not replaced
        try:
            check_player_name(name)
        except PlayerNameError as exc:
            raise SettingsError(f"{seat_label(seat)}: {exc}") from None
        return name
    name = f"{bot} bot" if bot else f"Player {seat + 1}"
    if name_key(name) in {name_key(x) for x in taken}:
        name = f"{name} {seat + 1}"
    return name


def match_format(spec: MatchSpec | str) -> MatchFormat:
    """The match format of a creation form.

    Raises:
        SettingsError: a format :class:`MatchFormat` refuses, or over ``MAX_MATCH_GAMES`` games.
    """
    try:
        fmt = (
            MatchFormat(spec.kind, spec.games, spec.tiebreak)
            if isinstance(spec, MatchSpec)
            else MatchFormat.parse(spec)
        )
    except MatchError as exc:
        raise SettingsError(f"bad match format: {exc}") from None
    if not 1 <= fmt.games <= MAX_MATCH_GAMES:
        raise SettingsError(f"bad match format: a match has 1..{MAX_MATCH_GAMES} games, not {fmt.games}")
    return fmt


def playable_bots(game: Any, raw_settings: Any) -> list[dict[str, Any]]:
    """Which of ``game``'s bots can play these creation settings (for the form).

    Returns:
        ``[{"name", "ok", "reason"}]`` per offered bot; ``reason`` is ``None`` when ``ok``.

    Raises:
        SettingsError: unknown game or bad settings.
    """
    adapter = get_adapter(game)
    settings = adapter.normalise_settings(raw_settings)
    out = []
    for entry in adapter.options().get("bots", []):
        try:
            check_bot(adapter, entry["name"], 0, settings)
            out.append({"name": entry["name"], "ok": True, "reason": None})
        except SettingsError as exc:
            out.append({"name": entry["name"], "ok": False, "reason": str(exc).split(": ", 1)[-1]})
    return out


def check_bot(adapter: GameAdapter, bot: str, seat: int, settings: dict[str, Any]) -> None:
    """Start ``bot`` on a throwaway instance (its ``new_game``) before anything is stored.

    Raises:
        SettingsError: ``"nash cannot play this ruleset: ..."`` when the bot raises
            ``ValueError`` (e.g. ``UnsupportedRuleset``), or a note that it failed to start.
    """
    try:
        adapter.new_bot(bot, seat, settings)
    except ValueError as exc:
        raise SettingsError(f"{seat_label(seat)}: {bot} cannot play this ruleset: {exc}") from None
    except Exception as exc:  # a broken bot must not become a room that cannot load
        log.exception("bot %s failed to start", bot)
        raise SettingsError(
            f"{seat_label(seat)}: the {bot} bot failed to start ({type(exc).__name__}: {exc})"
        ) from None
