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

:func:`load_bot_spec` turns a built-in specification into a bot. Every bot class
declares its options in ``option_schema`` (name -> :class:`Option`: type, range,
unit); :func:`check_bot_options` checks values against it, and it is the one
check: it runs whenever a bot class is constructed (:func:`load_bot`,
:func:`load_bot_spec`, tournaments, the web, or ``HeuristicBot(noise=...)``
directly), so a wrong value is refused with :class:`BotSpecError` and never
reaches a game. ``cardtable bots`` lists every bot's options (docs/bots.md).

>>> {"random", "matcher", "heuristic"} <= set(bot_names("goofspiel"))
True
>>> parse_bot_spec("fast=mcts:iterations=20")
BotSpec(label='fast', kind='builtin', target='mcts', options={'iterations': 20})
"""

from __future__ import annotations

import abc
import functools
import importlib
import inspect
import math
import random
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping

from cardtable.errors import CardtableError, quoted
from cardtable.platform.integers import number_text


class UnknownBotError(CardtableError, ValueError):
    """Raised by :func:`load_bot` for a bot name the game does not have."""


class BotSpecError(CardtableError, ValueError):
    """A malformed bot specification, an option its bot does not take, or an option
    value outside the option's declared type or range (:class:`Option`)."""


@dataclass(frozen=True)
class Option:
    """One declared constructor option of a bot class (its ``option_schema``).

    Attributes:
        type: ``bool``, ``int``, ``float`` (an int is accepted and turned into a
            float; never NaN or infinite), ``str`` or ``dict``.
        default: the constructor's default.
        minimum, maximum: inclusive bounds of a number (``None``: unbounded).
        above_minimum: the minimum itself is excluded (``time_limit`` > 0).
        below_maximum: the maximum itself is excluded (``smoothing`` < 1).
        choices: the words a ``str`` option accepts.
        bot_of: a ``str`` option naming a built-in bot of this game (``bait``'s ``weak``).
        none: ``None`` is accepted (the option left unset).
        unit: what one unit of a number is (``"s"``, ``"points"``, ``"matrix games"``).
        help: one line for listings.
    """

    type: type
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    above_minimum: bool = False
    below_maximum: bool = False
    choices: tuple[str, ...] = ()
    bot_of: str | None = None
    none: bool = False
    unit: str = ""
    help: str = ""

    def describe(self) -> str:
        """What a value must be, in words (``"a number from 0 to 1"``)."""
        if self.type is bool:
            text = "true or false"
        elif self.type is dict:
            text = "a mapping of options"
        elif self.type is str:
            if self.bot_of:
                text = f"a {self.bot_of} bot ({', '.join(bot_names(self.bot_of))})"
            else:
                text = "one of " + ", ".join(self.choices) if self.choices else "a word"
        else:
            text = ("a whole number" if self.type is int else "a number") + self._range_words()
            if self.unit:
                text += f" ({self.unit})"
        return text + (", or left out" if self.none else "")

    def range_text(self) -> str:
        """The accepted values, short (``"0..1"``, ``"> 0, <= 3600 s"``, ``"duct|rm|exp3"``)."""
        if self.type is bool:
            return "true|false"
        if self.type is dict:
            return "options"
        if self.type is str:
            return "|".join(bot_names(self.bot_of)) if self.bot_of else "|".join(self.choices) or "word"
        lo, hi = self.minimum, self.maximum
        if lo is not None and hi is not None and not (self.above_minimum or self.below_maximum):
            text = f"{_number(lo)}..{_number(hi)}"
        else:
            parts = []
            if lo is not None:
                parts.append(f"{'>' if self.above_minimum else '>='} {_number(lo)}")
            if hi is not None:
                parts.append(f"{'<' if self.below_maximum else '<='} {_number(hi)}")
            text = ", ".join(parts) or "any"
        return f"{text} {self.unit}".strip()

    def _range_words(self) -> str:
        lo, hi = self.minimum, self.maximum
        if lo is not None and hi is not None and not (self.above_minimum or self.below_maximum):
            return f" from {_number(lo)} to {_number(hi)}"
        words = []
        if lo is not None:
            words.append(f"{'above' if self.above_minimum else 'at least'} {_number(lo)}")
        if hi is not None:
            words.append(f"{'below' if self.below_maximum else 'at most'} {_number(hi)}")
        return " " + " and ".join(words) if words else ""

    def check(self, value: Any) -> Any:
        """``value`` as the bot receives it (an int made a float for a float option).

        Raises:
            ValueError: the value is not of the option's type, or outside its range
                or choices (the message is :meth:`describe`).
        """
        if value is None and self.none:
            return None
        ok, value = self._accepts(value)
        if not ok:
            raise ValueError(f"must be {self.describe()}")
        return value

    def _accepts(self, value: Any) -> tuple[bool, Any]:
        """Whether ``value`` is of the option's type and within its range or choices, and the
        value as the bot receives it."""
        if self.type is bool:
            return isinstance(value, bool), value
        if self.type is dict:
            ok = isinstance(value, Mapping)
            return ok, (dict(value) if ok else value)
        if self.type is str:
            return isinstance(value, str) and self._word_ok(value), value
        if self.type in (int, float) and isinstance(value, (int, float)) and not isinstance(value, bool):
            return self._number_accepts(value)
        return False, value

    def _word_ok(self, value: str) -> bool:
        if self.bot_of:
            return value in bot_names(self.bot_of)
        return value in self.choices if self.choices else value.isprintable()

    def _number_accepts(self, value: int | float) -> tuple[bool, Any]:
        if self.type is int:
            ok = isinstance(value, int)
        else:
            try:
                ok = math.isfinite(value)
            except OverflowError:  # an int too large for a float (10**400)
                ok = False
            value = float(value) if ok else value
        return ok and self._in_range(value), value

    def _in_range(self, value: int | float) -> bool:
        lo, hi = self.minimum, self.maximum
        return (lo is None or (value > lo if self.above_minimum else value >= lo)) and (
            hi is None or (value < hi if self.below_maximum else value <= hi)
        )


def _number(x: float) -> str:
    """``10000000`` -> ``10,000,000``; ``0.5`` -> ``0.5``."""
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


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
    #: The constructor options besides ``seed``: name -> :class:`Option`. It must name
    #: exactly the constructor's keyword parameters (checked when the class is made);
    #: every construction checks the values given (:func:`check_bot_options`).
    #: ``None``: not a built-in bot (a protocol program declares its own options).
    option_schema: ClassVar[dict[str, Option] | None] = {}

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.option_schema is None:
            return
        names = _init_option_names(cls.__init__)
        if names is None or set(names) != set(cls.option_schema):
            raise TypeError(
                f"{cls.__name__}: option_schema names {sorted(cls.option_schema)}, but __init__ takes {names}"
            )
        if "__init__" in cls.__dict__:
            # wrapping the class's own __init__ in place is the point here
            cls.__init__ = _checking_init(cls, cls.__dict__["__init__"])  # type: ignore[method-assign]

    def new_game(self, ruleset: Any, seat: int) -> None:  # noqa: B027  (an optional hook, empty by default)
        """Called once before each game with the game's ruleset and the bot's seat (0-based)."""

    @abc.abstractmethod
    def act(self, view: Any) -> Any:
        """Return the bot's action for the decision its ``view`` shows as pending."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def _init_option_names(init: Any) -> list[str] | None:
    """The keyword parameters of a bot ``__init__`` besides ``self`` and ``seed``
    (``None`` when it takes ``**kwargs``)."""
    names = []
    for p in list(inspect.signature(init).parameters.values())[1:]:
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            return None
        if (
            p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
            and p.name != "seed"
        ):
            names.append(p.name)
    return names


def _checking_init(owner: type[Bot], init: Any) -> Any:
    """``owner.__init__`` that first passes the options given through :func:`check_bot_options`."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def checked_init(self: Bot, *args: Any, **kwargs: Any) -> None:
        # the schema of the class being made when it inherits this __init__, else (a
        # subclass's own __init__ calling super().__init__) the schema of ``owner``
        cls = type(self) if type(self).__init__ is checked_init else owner
        check_bot_options(
            cls, {k: v for k, v in kwargs.items() if k != "seed"}, seed_hint="the seed argument"
        )
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as exc:
            raise BotSpecError(f"{cls.name}: {exc}") from None
        options = {k: v for k, v in bound.arguments.items() if k not in ("self", "seed")}
        bound.arguments.update(check_bot_options(cls, options))
        init(*bound.args, **bound.kwargs)

    return checked_init


# abstract Bot is fine as the owner: only its name and option schema are read
Bot.__init__ = _checking_init(Bot, Bot.__init__)  # type: ignore[method-assign,type-abstract]


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
        raise UnknownBotError(f"unknown {game} bot {name!r}; choose one of: {', '.join(sorted(table))}")
    module_name, _, class_name = table[key].partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def load_bot(game: str, name: str, seed: int | str | None = None, **options: Any) -> Bot:
    """Create the bot registered as ``name`` for ``game`` with constructor ``options``.

    >>> load_bot("goofspiel", "heuristic", noise=0.2).noise
    0.2
    >>> load_bot("goofspiel", "heuristic", noise=5)
    Traceback (most recent call last):
    ...
    cardtable.platform.bot.BotSpecError: heuristic: option noise must be a number from 0 to 1 (probability), not 5

    Raises:
        UnknownBotError: no such game or bot.
        BotSpecError: an unknown option, or a value outside its declared type and
            range (the bot's ``option_schema``; ``cardtable bots`` lists them).
    """
    return bot_class(game, name)(seed=seed, **options)


#: How far the probabilities of a mixed move may sum from 1 (float rounding only).
DISTRIBUTION_TOLERANCE = 1e-9


def check_distribution(
    dist: Mapping[Any, float], moves: Any = None, what: str = "policy"
) -> dict[Any, float]:
    """Check that ``dist`` (``{move: probability}``, a bot's mixed move) is a probability
    distribution: every probability a finite number >= 0, their sum 1 within
    ``DISTRIBUTION_TOLERANCE``, and (``moves`` given) every move with probability above 0
    among ``moves`` (e.g. the cards of the hand).

    >>> check_distribution({1: 0.25, 2: 0.75}, moves=(1, 2, 3))
    {1: 0.25, 2: 0.75}
    >>> check_distribution({1: -1.5, 2: 2.5})
    Traceback (most recent call last):
    ...
    ValueError: policy {1: -1.5, 2: 2.5} is not a probability distribution: probability -1.5 of 1 is negative

    Returns:
        ``dist`` as a dict.

    Raises:
        ValueError: empty, a negative, NaN or non-number probability, a sum other than 1,
            or a move outside ``moves``.
    """
    out = dict(dist)
    problem = None
    if not out:
        problem = "it is empty"
    for move, p in out.items():
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p):
            problem = f"probability {p!r} of {move!r} is not a finite number"
        elif p < 0:
            problem = f"probability {p!r} of {move!r} is negative"
        elif p > 0 and moves is not None and move not in moves:
            problem = f"{move!r} is not one of the legal moves {sorted(moves)}"
        if problem:
            break
    if problem is None and abs(math.fsum(out.values()) - 1.0) > DISTRIBUTION_TOLERANCE:
        problem = f"the probabilities sum to {math.fsum(out.values())!r}, not 1"
    if problem:
        raise ValueError(f"{what} {quoted(out)} is not a probability distribution: {problem}")
    return out


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


#: The blanks a specification may have around its parts (ASCII only: a no-break space or
#: a line separator stays in the value, and a number option refuses it).
_SPACE = " \t\r\n"


def _option_value(value: str) -> Any:
    # a number only in ASCII digits (number_text); anything else stays text and its option refuses it
    number = number_text(value)
    if number is not None:
        return number
    return {"true": True, "false": False}.get(value, value)  # only these spellings (docs/bots.md)


def parse_bot_spec(text: str) -> BotSpec:
    """Read one bot specification.

    >>> parse_bot_spec("heuristic")
    BotSpec(label='heuristic', kind='builtin', target='heuristic', options={})
    >>> parse_bot_spec("mcts:iterations=50,time_limit=0.5").options
    {'iterations': 50, 'time_limit': 0.5}
    >>> parse_bot_spec("random:").label  # no options after the colon: the bot alone
    'random'
    >>> parse_bot_spec("mine=cmd:python bot.py")
    BotSpec(label='mine', kind='program', target='python bot.py', options={})

    Raises:
        BotSpecError: an empty specification, ``cmd:`` without a command, an
            option that is not ``key=value``, or an option given twice.
    """
    label, text = _split_label(str(text).strip(_SPACE))
    if not text:
        raise BotSpecError("empty bot specification")
    if text.startswith("cmd:"):
        command = text[4:].strip(_SPACE)
        if not command:
            shown = f"{label}={text}" if label else text
            raise BotSpecError(f"bot {shown!r}: 'cmd:' needs a command line")
        return BotSpec(label or command, "program", command, {})
    name, colon, opts = text.partition(":")
    if not name.strip():
        raise BotSpecError(f"bot {text!r}: no bot name before ':'")
    if colon and not opts.strip(_SPACE):  # "random:" (no options) is the bot "random"
        text = name.strip(_SPACE)
    return BotSpec(label or text, "builtin", name.strip().lower(), _parse_spec_options(text, opts))


def _split_label(text: str) -> tuple[str | None, str]:
    """``LABEL=SPEC`` -> (label, spec); a specification without a label -> (``None``, text)."""
    head, eq, rest = text.partition("=")
    if not eq or ":" in head or " " in head or head.startswith("cmd"):
        return None, text
    label, text = head.strip(_SPACE), rest.strip(_SPACE)
    if not label:
        raise BotSpecError(f"bot {text!r}: the label before '=' is empty")
    return label, text


def _parse_spec_options(text: str, opts: str) -> dict[str, Any]:
    """The ``key=value,...`` options of specification ``text`` (values read by :func:`_option_value`)."""
    options: dict[str, Any] = {}
    if not opts.strip(_SPACE):  # "random:" or "random": no options
        return options
    for item in (o.strip(_SPACE) for o in opts.split(",")):
        if not item:
            raise BotSpecError(f"bot {text!r}: an empty option (a comma too many)")
        key, sep, value = item.partition("=")
        key = key.strip(_SPACE)
        if not sep or not key:
            raise BotSpecError(f"bot {text!r}: option {item!r} is not key=value")
        if key in options:
            raise BotSpecError(f"bot {text!r}: option {key!r} is given twice")
        options[key] = _option_value(value.strip(_SPACE))
    return options


def bot_option_names(cls: type) -> list[str] | None:
    """The options of bot class ``cls`` in declaration order (``seed`` excluded: the
    caller sets it); ``None`` for a class without a schema (a protocol bot)."""
    schema = getattr(cls, "option_schema", None)
    return None if schema is None else list(schema)


def check_bot_options(cls: type, options: Mapping[str, Any], seed_hint: str = "--seed") -> dict[str, Any]:
    """Check ``options`` against the declared ``option_schema`` of bot class ``cls``:
    the one check of bot options (every construction of a bot runs it).

    Returns:
        the options as the constructor receives them (ints of float options as floats).

    Raises:
        BotSpecError: ``seed`` (set by the caller; ``seed_hint`` says how), an unknown
            option (``mcts: unknown option 'foo'; options: iterations, ...``), or a value
            of the wrong type or out of range (``heuristic: option noise must be a number
            from 0 to 1 (probability), not 5``).
    """
    schema = getattr(cls, "option_schema", None)
    name = getattr(cls, "name", cls.__name__)
    if schema is None:
        return dict(options)
    out = {}
    for key, value in options.items():
        if key == "seed":
            raise BotSpecError(f"{name}: option 'seed' is set by {seed_hint}")
        if key not in schema:
            listed = ", ".join(schema) if schema else "none"
            raise BotSpecError(f"{name}: unknown option {key!r}; options: {listed}")
        try:
            out[key] = schema[key].check(value)
        except ValueError as exc:
            raise BotSpecError(f"{name}: option {key} {exc}, not {quoted(value)}") from None
    return out


def load_bot_spec(game: str, spec: str | BotSpec, seed: int | str | None = None) -> Bot:
    """Create the built-in bot a specification names, with its options.

    Raises:
        UnknownBotError: no such game or bot (the message lists the bots).
        BotSpecError: a malformed specification, an unknown option or a value
            outside its declared range (:func:`check_bot_options`), a program
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
    options = check_bot_options(cls, spec.options)
    try:
        return cls(seed=seed, **options)
    except (TypeError, ValueError) as exc:
        raise BotSpecError(f"bot {spec.label!r}: {exc}") from None
