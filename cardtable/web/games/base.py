"""The game adapter interface: what the generic server core asks of a game.

The server core (rooms, seats, tokens, storage, view dispatch, event log,
reconnects, rate limits) treats a game's state as an opaque object and its
actions as JSON values. An adapter supplies everything rule-specific:

- settings: validate the creation form, say how many seats it needs;
- state: create it from settings and a secret seed; say which seats must act;
- actions: check one seat's action against the state (the engine validates),
  then apply the checked action (never fails);
- views: the JSON one viewer may see (a seat, or ``None`` for spectators);
- bots: the view a bot acts on, and the action it returns, as JSON;
- records: the finished games as record text.

Every method that takes a ``state`` must not keep references to it between
calls; the core may rebuild a state at any time by replaying the event log
through :meth:`GameAdapter.apply` (after a restart).
"""

from __future__ import annotations

import abc
from typing import Any, Callable, ClassVar, Hashable, Sequence

from cardtable.errors import CardtableError
from cardtable.platform.bot import load_bot


class SettingsError(CardtableError, ValueError):
    """Bad creation settings (unknown game, invalid ruleset, bad seat list)."""


class ActionError(CardtableError, ValueError):
    """An action the game rejects; the state is unchanged.

    Attributes:
        code: a short machine-readable reason (``"illegal"``, ``"not_your_turn"``,
            ``"already_acted"``, ``"game_over"``, ``"bad_action"``).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class GameAdapter(abc.ABC):
    """Maps one game engine to the server core (see the module docstring).

    Class attributes:
        name: the game's registry name (``"goofspiel"``), also the bot registry
            key of :func:`cardtable.platform.bot.bot_names`.
        title: display name.
        page: the static HTML file (in ``cardtable/web/static``) of the play screen.
        record_suffix: file name suffix of downloaded records.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    page: ClassVar[str] = ""
    record_suffix: ClassVar[str] = ".txt"

    # -- creation ---------------------------------------------------------------------

    @abc.abstractmethod
    def options(self) -> dict[str, Any]:
        """JSON the creation form is built from (variants, presets, bots, seat range)."""

    @abc.abstractmethod
    def normalise_settings(self, raw: Any) -> dict[str, Any]:
        """Validate creation settings and return them in canonical JSON form.

        Raises:
            SettingsError: with a message that names the bad field.
        """

    @abc.abstractmethod
    def seat_count(self, settings: dict[str, Any]) -> int:
        """Number of seats the (normalised) settings need."""

    def check_seats(  # noqa: B027  (an optional check, none by default)
        self, settings: dict[str, Any], bots: Sequence[str | None]
    ) -> None:
        """Check the seats against the settings (``bots``: a bot name or ``None`` per seat).

        Raises:
            SettingsError: seats these settings cannot have (default: none).
        """

    @abc.abstractmethod
    def new_state(self, settings: dict[str, Any], seed: str, previous: Any = None) -> Any:
        """A fresh game; ``seed`` (secret until the game ends) orders every shuffle.

        ``previous`` is the state of the room's previous game of the same match
        (``None`` for a match's first game), for games whose next deal depends on
        the last one (Golf: who starts, the early ender's extra card).
        """

    def commitment(self, state: Any) -> str | None:
        """Public commitment to the secret seed, published at game start (or ``None``)."""
        return None

    # -- play ---------------------------------------------------------------------------

    @abc.abstractmethod
    def to_act(self, state: Any) -> frozenset[int]:
        """Seats whose action the game is waiting for (empty once over)."""

    @abc.abstractmethod
    def turn_key(self, state: Any) -> Hashable:
        """Identifies the current decision point; a round timer restarts when it changes."""

    @abc.abstractmethod
    def check(self, state: Any, seat: int, action: Any) -> Any:
        """Validate ``seat``'s JSON ``action`` against ``state`` without changing it.

        Returns:
            The action in canonical JSON form (what is stored in the event log).

        Raises:
            ActionError: the action is malformed or illegal now.
        """

    @abc.abstractmethod
    def apply(self, state: Any, seat: int, action: Any) -> None:
        """Apply an action returned by :meth:`check` (must not fail)."""

    @abc.abstractmethod
    def is_over(self, state: Any) -> bool:
        """True once the game has ended."""

    @abc.abstractmethod
    def scores(self, state: Any) -> tuple[float, ...]:
        """Final score per seat, higher is better (for matches)."""

    @abc.abstractmethod
    def timeout_action(self, state: Any, seat: int) -> Any:
        """The action taken for ``seat`` when its round timer runs out."""

    # -- views --------------------------------------------------------------------------

    @abc.abstractmethod
    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) may see, as JSON."""

    def background_work(self, state: Any, seat: int) -> Callable[[], None] | None:  # noqa: ARG002
        """Work that ``seat``'s view waits for and that may take seconds (a hint's solve):
        a function the room runs in the bots' thread pool, off the event loop, before it
        sends the views again; ``None`` when there is nothing to do (the default).
        The function must not raise: it records its own failure."""
        return None

    # -- bots ---------------------------------------------------------------------------

    def new_bot(self, name: str, seat: int, settings: dict[str, Any]) -> Any:
        """A bot from :func:`cardtable.platform.bot.load_bot` for this game."""
        return load_bot(self.name, name)

    @abc.abstractmethod
    def bot_view(self, state: Any, seat: int) -> Any:
        """The immutable view a bot acts on (safe to use from another thread)."""

    @abc.abstractmethod
    def bot_action(self, bot: Any, view: Any, seat: int) -> Any:
        """Ask ``bot`` for its action on ``view``; returns the JSON action."""

    # -- records ------------------------------------------------------------------------

    @abc.abstractmethod
    def record_text(
        self, states: Sequence[Any], players: Sequence[str], tags: Sequence[Sequence[tuple[str, str]]]
    ) -> str:
        """The record of finished games (one match or one game), with extra tags per game."""
