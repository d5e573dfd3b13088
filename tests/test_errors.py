"""The package's exceptions: every public error class derives from :class:`CardtableError`,
keeps the built-in class it had (so ``except ValueError`` still works), and the package ships
``py.typed``."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import cardtable
from cardtable import CardtableError
from cardtable.errors import CardtableError as RootError

#: Public exceptions that are not errors, so they stay outside ``CardtableError``: a
#: person asking to stop a terminal game is a request, not a failure.
NOT_ERRORS = {"cardtable.tui.terminal.QuitGame"}

#: Modules that run something when imported (``python -m cardtable``).
NOT_IMPORTED = {"cardtable.__main__"}


def _modules() -> list[str]:
    names = [cardtable.__name__]
    for info in pkgutil.walk_packages(cardtable.__path__, prefix="cardtable."):
        if info.name not in NOT_IMPORTED:
            names.append(info.name)
    return sorted(names)


def _public_exceptions() -> dict[str, type[BaseException]]:
    """Every public exception class defined in a cardtable module, by qualified name."""
    found = {}
    for name in _modules():
        module = importlib.import_module(name)
        for attr, obj in vars(module).items():
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseException)
                and obj.__module__ == name
                and not attr.startswith("_")
            ):
                found[f"{name}.{obj.__qualname__}"] = obj
    return found


EXCEPTIONS = _public_exceptions()


def test_the_walk_finds_the_packages_errors():
    # A walk that found nothing would make the next test pass vacuously: the known base
    # classes of each package must be among what it found.
    for name in (
        "cardtable.goofspiel.errors.GoofspielError",
        "cardtable.golf.errors.GolfError",
        "cardtable.platform.bot.BotSpecError",
        "cardtable.platform.bot.UnknownBotError",
        "cardtable.solver.tables.TableFileError",
        "cardtable.solver.layout.SolverError",
        "cardtable.web.errors.QuotaError",
        "cardtable.web.games.base.SettingsError",
        "cardtable.research.extra.MissingExtraError",
        "cardtable.tui.terminal.QuitGame",
    ):
        assert name in EXCEPTIONS
    assert len(EXCEPTIONS) >= 40


@pytest.mark.parametrize("name", sorted(EXCEPTIONS))
def test_every_public_error_derives_from_cardtable_error(name):
    cls = EXCEPTIONS[name]
    if name in NOT_ERRORS:
        assert not issubclass(cls, CardtableError)
    else:
        assert issubclass(cls, CardtableError), f"{name} does not derive from CardtableError"


@pytest.mark.parametrize(
    ("name", "builtin"),
    [
        ("cardtable.goofspiel.errors.GoofspielError", ValueError),
        ("cardtable.golf.errors.GolfError", ValueError),
        ("cardtable.platform.bot.BotSpecError", ValueError),
        ("cardtable.platform.files.NotRegularFileError", OSError),
        ("cardtable.platform.files.FileTooLargeError", OSError),
        ("cardtable.research.extra.MissingExtraError", ModuleNotFoundError),
        ("cardtable.solver.tables.TableFileError", ValueError),
        ("cardtable.solver.exploit.ImpossibleResult", RuntimeError),
        ("cardtable.web.errors.QuotaError", RuntimeError),
        ("cardtable.web.storage.StorageError", RuntimeError),
    ],
)
def test_errors_keep_their_builtin_class(name, builtin):
    assert issubclass(EXCEPTIONS[name], builtin)


def test_one_except_clause_catches_an_engine_error():
    from cardtable.goofspiel import Game, Ruleset
    from cardtable.goofspiel.errors import IllegalBid

    game = Game(Ruleset(cards=3), seed=1)
    with pytest.raises(CardtableError) as caught:
        game.play([99, 1])
    assert isinstance(caught.value, IllegalBid)


def test_the_root_is_one_class_reexported():
    assert CardtableError is RootError
    assert "CardtableError" in cardtable.__all__


def test_py_typed_ships_with_the_package():
    package = Path(cardtable.__file__).parent
    assert (package / "py.typed").is_file()
    import tomllib

    pyproject = tomllib.loads((package.parent / "pyproject.toml").read_text())
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["cardtable"]
