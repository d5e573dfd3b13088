"""The bot interface shared by every game, and the bot registry.

A bot is one class: subclass :class:`Bot`, give it a ``name`` and a
``description``, and implement :meth:`Bot.act`, which receives the bot's own
per-player view (never the full state) and returns an action of the game.
What a *view* and an *action* are is defined by each game package
(for Goofspiel: :class:`cardtable.goofspiel.PlayerView` and a bid tuple).

Bots are found by name through :func:`load_bot`. Each game package
``cardtable.<game>.bots`` exposes a mapping ``BOTS`` from bot name to a
``"module:Class"`` string, so that heavy bots (the solver-backed ``nash``)
are imported only when asked for.

Everywhere a person names a bot (``play --vs``, ``exploit``, ``tournament``,
``bot-check``) the text is a *bot specification*, read by :func:`parse_bot_spec`:

- ``NAME`` -- a built-in bot (``heuristic``);
- ``NAME:key=value,...`` -- with constructor options (``mcts:iterations=50``);
- ``LABEL=SPEC`` -- the same under another name (``fast=mcts:iterations=20``);
- ``cmd:COMMAND`` or ``LABEL=cmd:COMMAND`` -- a program speaking the bot protocol
  (docs/protocol.md).

:func:`load_bot_spec` turns a built-in specification into a bot, checking each
option against the bot class's constructor.

>>> {"random", "matcher", "heuristic"} <= set(bot_names("goofspiel"))
True
>>> parse_bot_spec("fast=mcts:iterations=20")
BotSpec(label='fast', kind='builtin', target='mcts', options={'iterations': 20})
"""

from __future__ import annotations

import abc
import importlib
import inspect
import random
from dataclasses import dataclass, field
from typing import Any, ClassVar


class UnknownBotError(ValueError):
    """Raised by :func:`load_bot` for a bot name the game does not have."""


class BotSpecError(ValueError):
    """A malformed bot specification, or an option its bot does not take."""


class Bot(abc.ABC):
    """A computer player for one game.

    Subclasses set the class attributes ``name`` (registry name, lower case),
    ``description`` (one line for menus) and implement :meth:`act`.

    Args:
        seed: seed for the bot's own random number generator (``self.rng``);
            ``None`` seeds from the operating system.
    """

    name: ClassVar[str] = "bot"
    description: ClassVar[str] = ""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def new_game(self, ruleset: Any, seat: int) -> None:
        """Called once before each game with the game's ruleset and the bot's seat (0-based)."""

    @abc.abstractmethod
    def act(self, view: Any) -> Any:
        """Return the bot's action for the decision its ``view`` shows as pending."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def _bots_table(game: str) -> dict[str, str]:
    try:
        module = importlib.import_module(f"cardtable.{game}.bots")
    except ModuleNotFoundError as exc:
        raise UnknownBotError(f"unknown game {game!r}") from exc
    return dict(module.BOTS)


def bot_names(game: str) -> list[str]:
    """Names of the bots available for ``game`` (e.g. ``"goofspiel"``, ``"golf"``)."""
    return list(_bots_table(game))


def bot_class(game: str, name: str) -> type[Bot]:
    """The class registered as ``name`` for ``game``.

    Raises:
        UnknownBotError: no such game or bot; the message lists the known bots.
    """
    table = _bots_table(game)
    key = name.strip().lower()
    if key not in table:
        raise UnknownBotError(
            f"unknown {game} bot {name!r}; choose one of: {', '.join(sorted(table))}"
        )
    module_name, _, class_name = table[key].partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def load_bot(game: str, name: str, seed: int | str | None = None, **options: Any) -> Bot:
    """Create the bot registered as ``name`` for ``game``.

    Raises:
        UnknownBotError: no such game or bot.
    """
    return bot_class(game, name)(seed=seed, **options)


# -- bot specifications ----------------------------------------------------------------------

@dataclass(frozen=True)
class BotSpec:
    """A parsed bot specification (see the module docstring).

    Attributes:
        label: the name in tables and on screen (the text itself unless ``LABEL=`` gave one).
        kind: ``"builtin"`` (a registry bot) or ``"program"`` (a protocol bot).
        target: the registry name (lower case), or the program's command line.
        options: constructor options of a built-in bot, values converted to
            int, float or bool where they read as one.
    """

    label: str
    kind: str
    target: str
    options: dict[str, Any] = field(default_factory=dict)


def _option_value(value: str) -> Any:
    for convert in (int, float):
        try:
            return convert(value)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(value.lower(), value)


def parse_bot_spec(text: str) -> BotSpec:
    """Read one bot specification.

    >>> parse_bot_spec("heuristic")
    BotSpec(label='heuristic', kind='builtin', target='heuristic', options={})
    >>> parse_bot_spec("mcts:iterations=50,time_limit=0.5").options
    {'iterations': 50, 'time_limit': 0.5}
    >>> parse_bot_spec("mine=cmd:python bot.py")
    BotSpec(label='mine', kind='program', target='python bot.py', options={})

    Raises:
        BotSpecError: an empty specification, ``cmd:`` without a command, an
            option that is not ``key=value``, or an option given twice.
    """
    text = str(text).strip()
    label = None
    head, eq, rest = text.partition("=")
    if eq and ":" not in head and " " not in head and not head.startswith("cmd"):
        label, text = head.strip(), rest.strip()
        if not label:
            raise BotSpecError(f"bot {text!r}: the label before '=' is empty")
    if not text:
        raise BotSpecError("empty bot specification")
    if text.startswith("cmd:"):
        command = text[4:].strip()
        if not command:
            raise BotSpecError(f"bot {text!r}: 'cmd:' needs a command line")
        return BotSpec(label or command, "program", command, {})
    name, _, opts = text.partition(":")
    if not name.strip():
        raise BotSpecError(f"bot {text!r}: no bot name before ':'")
    options: dict[str, Any] = {}
    for item in filter(None, (o.strip() for o in opts.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise BotSpecError(f"bot {text!r}: option {item!r} is not key=value")
        if key in options:
            raise BotSpecError(f"bot {text!r}: option {key!r} is given twice")
        options[key] = _option_value(value.strip())
    return BotSpec(label or text, "builtin", name.strip().lower(), options)


def bot_option_names(cls: type) -> list[str] | None:
    """The constructor keyword options of bot class ``cls``, in declaration order
    (``seed`` excluded: the caller sets it); ``None`` when it takes ``**kwargs``."""
    names = []
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            return None
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY) and p.name != "seed":
            names.append(p.name)
    return names


def check_bot_options(cls: type, options: dict[str, Any], seed_hint: str = "--seed") -> None:
    """Check that every option is a constructor keyword of bot class ``cls``.

    Raises:
        BotSpecError: ``seed`` (set by the caller; ``seed_hint`` says how) or an
            unknown option (``mcts: unknown option 'foo'; options: iterations, ...``).
    """
    accepted = bot_option_names(cls)
    if accepted is None:
        return
    for key in options:
        if key == "seed":
            raise BotSpecError(f"{cls.name}: option 'seed' is set by {seed_hint}")
        if key not in accepted:
            listed = ", ".join(accepted) if accepted else "none"
            raise BotSpecError(f"{cls.name}: unknown option {key!r}; options: {listed}")
    defaults = {p.name: p.default for p in inspect.signature(cls.__init__).parameters.values()}
    for key, value in options.items():
        problem = _option_type_problem(defaults.get(key, inspect.Parameter.empty), value)
        if problem:
            raise BotSpecError(f"{cls.name}: option {key} must be {problem}, not {value!r}")


def _option_type_problem(default: Any, value: Any) -> str | None:
    """What an option's value must be, judged by the kind of its constructor default
    (true/false, a whole number, a finite number, a word), or None when it fits (or the
    option has no typed default: the bot checks it)."""
    import math

    if isinstance(default, bool):
        return None if isinstance(value, bool) else "true or false"
    if isinstance(default, int):
        return None if isinstance(value, int) and not isinstance(value, bool) else "a whole number"
    if isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        return None if ok else "a finite number"
    if isinstance(default, str):
        return None if isinstance(value, str) else "a word"
    return None


def load_bot_spec(game: str, spec: str | BotSpec, seed: int | str | None = None) -> Bot:
    """Create the built-in bot a specification names, with its options.

    Raises:
        UnknownBotError: no such game or bot (the message lists the bots).
        BotSpecError: a malformed specification, an unknown option, a program
            specification (``cmd:``; those run in ``tournament`` and ``bot-check``),
            or options the bot's constructor refuses.
    """
    if not isinstance(spec, BotSpec):
        spec = parse_bot_spec(spec)
    if spec.kind != "builtin":
        raise BotSpecError(
            f"bot {spec.label!r}: protocol programs (cmd:) play in 'cardtable tournament' and "
            "'cardtable bot-check', not here; name a built-in bot"
        )
    cls = bot_class(game, spec.target)
    check_bot_options(cls, spec.options)
    try:
        return cls(seed=seed, **spec.options)
    except (TypeError, ValueError) as exc:
        raise BotSpecError(f"bot {spec.label!r}: {exc}") from None
