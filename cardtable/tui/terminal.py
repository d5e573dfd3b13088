"""A thin layer over a Rich console for turn-based terminal games.

:class:`Terminal` prompts, re-prompts on bad input with a one-line reason,
hides input for secret moves (no echo), and clears the screen between hot-seat
players so nobody sees another player's hand or bid.
"""

from __future__ import annotations

import getpass
import sys
import warnings
from typing import Any, Callable, TypeVar

from rich.console import Console
from rich.markup import escape

T = TypeVar("T")


#: The exit code of a terminal game that a person abandoned (``quit``, Ctrl-D at a
#: prompt, Ctrl-C): not 0, so scripts can tell a finished game from an abandoned one;
#: what was played is still saved (README.md, Exit codes).
ABANDONED = 3


class QuitGame(Exception):
    """The player asked to quit (``quit``/``exit``), input ended (Ctrl-D / end of file)
    or was interrupted (Ctrl-C); a command that catches it exits with :data:`ABANDONED`.

    Attributes:
        game: the game being played when the player quit (set by the table that caught it, so
            that its caller can still save the record), or ``None``.
    """

    game: Any = None


class Terminal:
    """Prompts and screens for one terminal.

    Args:
        console: the Rich console to draw on (default: a new one on stdout).
        hotseat: when true, secret entries are typed without echo and the screen is
            cleared before and after each player's turn.
        input_fn: replaces the line reader (for tests); called as ``input_fn(prompt, hidden)``.
    """

    def __init__(
        self,
        console: Console | None = None,
        hotseat: bool = False,
        input_fn: Callable[[str, bool], str] | None = None,
    ) -> None:
        self.console = console or Console(highlight=False)
        self.hotseat = hotseat
        self._input_fn = input_fn

    def read(self, prompt: str, hidden: bool = False) -> str:
        """Read one line; ``hidden`` suppresses echo when stdin is a terminal.

        Raises:
            QuitGame: on end of input or Ctrl-C, or when the player types ``quit``/``exit``.
        """
        try:
            if self._input_fn is not None:
                line = self._input_fn(prompt, hidden)
            elif hidden and sys.stdin.isatty():
                self.console.print(prompt, end="")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    line = getpass.getpass("")
            else:
                line = self.console.input(prompt)
        except (EOFError, KeyboardInterrupt):
            raise QuitGame("input ended") from None
        if line.strip().lower() in ("quit", "exit"):  # not "q": Q is the queen
            raise QuitGame("quit")
        return line

    def ask(self, prompt: str, parse: Callable[[str], T], hidden: bool = False) -> T:
        """Prompt until ``parse`` accepts the line; a ``ValueError`` from ``parse``
        is shown as a one-line explanation and the prompt is repeated."""
        while True:
            line = self.read(prompt, hidden)
            try:
                return parse(line)
            except ValueError as exc:
                self.console.print(f"[red]✗ {escape(str(exc))}[/red]")

    def clear(self) -> None:
        """Clear the screen and the terminal's scrollback (hot-seat privacy: the next
        player must not be able to scroll up to the previous player's cards)."""
        self.console.clear()
        if self.console.is_terminal:
            self.console.file.write("\x1b[3J")  # erase the scrollback buffer (xterm, tmux, VTE)
            self.console.file.flush()

    def hand_over(self, name: str) -> None:
        """Hot-seat: clear the screen and wait until ``name`` is at the keyboard."""
        self.clear()
        self.read(
            f"[bold]Pass the keyboard to {escape(name)}[/bold] and press Enter when nobody else is looking... "
        )
        self.clear()

    def pause(self, message: str = "Press Enter to continue... ") -> None:
        """Wait for Enter."""
        self.read(message)
