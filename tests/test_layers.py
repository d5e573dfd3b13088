"""The imports against cardtable's layers (ARCHITECTURE.md, Layers) are the known ones:
a new import of a higher layer, or between the two games or the two front ends, fails
here; one that goes away is taken off the list below (and off ARCHITECTURE.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "layers.py"
_spec = importlib.util.spec_from_file_location("cardtable_layers_script", _SCRIPT)
layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(layers)

#: (importer, imported package) of each known violation; all are imports inside functions.
KNOWN = {
    ("cardtable.goofspiel.bots.basic", "cardtable.solver"),
    ("cardtable.goofspiel.bots.exploiter", "cardtable.solver"),
    ("cardtable.goofspiel.bots.nash", "cardtable.solver"),
    ("cardtable.goofspiel.coach", "cardtable.solver"),
}


def _package(name: str) -> str:
    return ".".join(name.split(".")[:2])


def test_no_new_import_goes_against_the_layers():
    found = layers.violations()
    assert {(importer, _package(imported)) for importer, imported, _, _ in found} == KNOWN
    # none of them runs when its module is imported: each waits for the code that needs it
    assert not [v for v in found if v[3]]


def test_the_script_sees_an_upward_import(tmp_path, monkeypatch):
    # a measurement that found nothing because it read nothing would pass the test above
    package = tmp_path / "cardtable"
    (package / "platform").mkdir(parents=True)
    (package / "platform" / "__init__.py").write_text("")
    (package / "platform" / "bad.py").write_text("from cardtable.web import app\nfrom . import good\n")
    (package / "golf").mkdir()
    (package / "golf" / "x.py").write_text("def f():\n    from ..goofspiel import Game\n")
    monkeypatch.setattr(layers, "ROOT", package)
    assert layers.violations() == [
        ("cardtable.golf.x", "cardtable.goofspiel", 2, False),
        ("cardtable.platform.bad", "cardtable.web", 1, True),
    ]
