"""Where the web server's files are: :data:`STATIC`, the folder of the pages, scripts and
styles that ship inside the package (``cardtable/web/static``).

A module of its own so that the routers (:mod:`.replay`, :mod:`.explorer`) and the app
(:mod:`.app`) read it without importing each other.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: The package's static folder, as a path on disk (the package is installed as files).
STATIC = Path(str(resources.files("cardtable.web") / "static"))
