"""``cardtable play``: play in the terminal (Goofspiel by default, or Golf)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .common import build_ruleset, fail


def register(app: typer.Typer) -> None:
    @app.command(context_settings={"help_option_names": ["-h", "--help"]})
    def play(
        game: str = typer.Argument("goofspiel", help="goofspiel (default) or golf"),
        vs: Optional[List[str]] = typer.Option(None, "--vs", help="opponent bot(s); repeat for several seats [default: heuristic]"),
        hotseat: bool = typer.Option(False, "--hotseat", help="people only, at one keyboard: hidden entry, screen cleared between players"),
        auto: bool = typer.Option(False, "--auto", help="bots in every seat; watch them play"),
        rules: Optional[str] = typer.Option(None, "--rules", help="preset name, rules file (.toml/.json) or 'cards=9 ties=discard'"),
        cards: Optional[int] = typer.Option(None, "--cards", help="cards per suit, 1..13"),
        players: Optional[int] = typer.Option(None, "--players", help="number of players (Goofspiel 2-5, Golf 2-3)"),
        ties: Optional[str] = typer.Option(None, "--ties", help="tie rule: carry or discard"),
        unique: Optional[bool] = typer.Option(None, "--unique/--no-unique", help="3-5 players: highest unique bid wins"),
        high_ace: Optional[bool] = typer.Option(None, "--high-ace/--low-ace", help="the ace bids highest, worth cards+1"),
        bid_cards: Optional[int] = typer.Option(None, "--bid-cards", help="cards per bid (2 = multi-card bids)"),
        display: Optional[int] = typer.Option(None, "--display", help="open prizes: prizes face up at once"),
        order: Optional[str] = typer.Option(None, "--order", help="prize order: shuffled, ascending, descending or 13,12,...,1"),
        match: Optional[str] = typer.Option(None, "--match", help="a match: 'total 3', 'best-of 5', 'best-of 3 total-points'"),
        seed: Optional[str] = typer.Option(None, "--seed", help="seed of the prize shuffle (and the bots)"),
        name: str = typer.Option("You", "--name", help="your name in the record"),
        names: Optional[str] = typer.Option(None, "--names", help="hot-seat: names separated by commas"),
        delay: float = typer.Option(-1.0, "--delay", help="seconds to pause after each round (default 0.6 with --auto, else 0)"),
        open_memory: bool = typer.Option(False, "--open-memory", help="Golf: cards you know stay visible"),
        games: int = typer.Option(1, "--games", min=1, help="Golf: games in a row (a losing early ender gets an extra card)"),
        save: bool = typer.Option(True, "--save/--no-save", help="save the game record"),
        record: Optional[Path] = typer.Option(None, "--record", help="where to save the record"),
    ) -> None:
        """Play a game in the terminal: you against a bot by default."""
        kind = game.strip().lower()
        if kind in ("gops", "goofspiel"):
            _play_goofspiel(vs, hotseat, auto, rules, cards, players, ties, unique, high_ace,
                            bid_cards, display, order, match, seed, name, names, delay, save, record)
        elif kind == "golf":
            from cardtable.golf import tui as golf_tui

            raise typer.Exit(golf_tui.run_cli(
                vs=vs or [], players=players, hotseat=hotseat, auto=auto, seed=seed,
                open_memory=open_memory, name=name, names=names, save=save, record=record, games=games,
            ))
        else:
            fail(f"unknown game {game!r}: choose goofspiel or golf")


def _play_goofspiel(vs, hotseat, auto, rules, cards, players, ties, unique, high_ace,
                    bid_cards, display, order, match, seed, name, names, delay, save, record) -> None:
    from cardtable.goofspiel.tui import Seat, run
    from cardtable.platform.bot import UnknownBotError, load_bot
    from cardtable.platform.match import MatchError, MatchFormat
    from cardtable.tui import Terminal

    ruleset = build_ruleset(rules, cards, players, ties, unique, high_ace, bid_cards, display, order)
    if hotseat and auto:
        fail("--hotseat and --auto exclude each other")
    try:
        fmt = MatchFormat.parse(match) if match else None
    except MatchError as exc:
        fail(str(exc))
    n = ruleset.players
    bot_names = list(vs) if vs else (["heuristic", "random"] if auto else ["heuristic"])
    seats: list[Seat] = []
    try:
        if hotseat:
            given = [x.strip() for x in names.split(",")] if names else []
            if names and len(given) != n:
                fail(f"--names lists {len(given)} name(s) for {n} players")
            seats = [Seat(given[i] if given else f"Player {i + 1}") for i in range(n)]
        else:
            humans = 0 if auto else 1
            for i in range(n - humans):
                bot_name = bot_names[min(i, len(bot_names) - 1)]
                bot_seed = None if seed is None else f"{seed}-bot{i}"
                bot = load_bot("goofspiel", bot_name, seed=bot_seed)
                label = bot.name if bot_names.count(bot_name) == 1 and n - humans <= len(bot_names) else f"{bot.name}-{i + 1}"
                seats.append(Seat(label, bot))
            if not auto:
                seats.insert(0, Seat(name))
            if len(bot_names) > n - humans:
                fail(f"--vs names {len(bot_names)} bots but only {n - humans} seat(s) are free")
    except UnknownBotError as exc:
        fail(str(exc))
    except ValueError as exc:  # a bot that cannot play this ruleset
        fail(str(exc))
    for seat in seats:
        if seat.bot is not None and getattr(seat.bot, "fallback_note", None):
            typer.echo(f"{seat.name}: {seat.bot.fallback_note}")
    terminal = Terminal(hotseat=hotseat)
    wait = delay if delay >= 0 else (0.6 if auto else 0.0)
    raise typer.Exit(run(terminal, ruleset, seats, seed=seed, match=fmt, delay=wait, save=save, record_path=record))
