"""``cardtable bot-check`` for Goofspiel: run a program through the bot protocol and collect
every violation (docs/protocol.md, "bot-check").

It plays real games through :func:`cardtable.goofspiel.tournament.play_one`, so it sits above
both the protocol messages (:mod:`cardtable.goofspiel.protocol`) and the tournament driver;
neither of those imports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from cardtable.platform.bot import load_bot
from cardtable.platform.protocol import GRACE_MS, BotFailure, BotIdentity

from .protocol import GoofspielProtocolBot
from .tournament import parse_ruleset, play_one

#: Rulesets ``bot-check`` plays by default: one of every kind of variant.
CHECK_RULESETS = (
    "standard",
    "discard",
    "high-ace",
    "three-player",
    "two-card-bids",
    "open-prizes",
    "ascending",
)


@dataclass
class Violation:
    """One protocol violation found by :func:`check_bot`."""

    where: str
    kind: str
    detail: str


@dataclass
class CheckReport:
    """The result of :func:`check_bot`: identity, games played, every violation."""

    command: str
    identity: BotIdentity | None = None
    games: int = 0
    violations: list[Violation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


def check_bot(
    command: str,
    rulesets: Sequence[str] = CHECK_RULESETS,
    games: int = 2,
    time_ms: int = 1000,
    seed: int = 0,
    progress=None,
    handshake_ms: int | None = None,
) -> CheckReport:
    """Run a program through the protocol and collect every violation.

    Shakes hands, then plays ``games`` games of each ruleset against the
    ``random`` bot (alternating seats); each violation forfeits that game and
    the program is restarted for the next one. Finally sends ``quit`` and
    checks that the program exits within one second. The games' ``game`` lines carry
    ids ``1``, ``2``, ... and seeds drawn from ``seed``, so a check is reproducible.

    Raises:
        ValueError: a bad command (program not found) or ruleset text.
    """
    parsed = [(text, parse_ruleset(text)) for text in rulesets]
    report = CheckReport(command)
    bot = GoofspielProtocolBot(command, time_ms=time_ms, seed=seed)  # seeds its game lines
    if handshake_ms is not None:
        bot.handshake_ms = handshake_ms
    try:
        try:
            report.identity = bot.ensure_started()
        except BotFailure as exc:
            report.violations.append(Violation("handshake", exc.kind, exc.detail))
            return report
        for text, rs in parsed:
            for g in range(games):
                seat = g % rs.players
                others = [load_bot("goofspiel", "random", seed=seed + 7 * g + s) for s in range(rs.players)]
                others[seat] = bot
                out = play_one(rs, others, seed=f"{seed}-{text}-{g}")
                report.games += 1
                if out.forfeit is not None and out.forfeit[0] == seat:
                    report.violations.append(
                        Violation(f"{text} game {g + 1}", out.forfeit[1], out.forfeit[2])
                    )
                    if out.forfeit[1] == "handshake":
                        return report
                if progress is not None:
                    progress(report)
        if bot.process.alive:
            try:  # a stray line after the last request of the last game
                bot.process.sync(time_ms + GRACE_MS, bot.replies)
            except BotFailure as exc:
                report.violations.append(Violation("after the last game", exc.kind, exc.detail))
        if bot.process.alive:
            code = bot.process.close(wait_s=1.0)
            if code is None:
                report.violations.append(
                    Violation("quit", "timeout", "the program did not exit within 1 s of 'quit'")
                )
    finally:
        bot.process.kill()
    return report
