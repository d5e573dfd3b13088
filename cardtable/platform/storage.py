"""Where cardtable keeps files: saved records, solver tables, the web database.

Every location can be moved with an environment variable, which tests and
CI use to keep their files in a temporary folder:

- ``CARDTABLE_HOME``: the base folder (default: the platform's user data
  folder from ``platformdirs``, e.g. ``~/.local/share/cardtable`` on Linux).
- ``CARDTABLE_RECORDS``: saved game records (default ``$CARDTABLE_HOME/records``).
- ``CARDTABLE_CACHE``: solver tables (default: the user cache folder).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def home() -> Path:
    """The base data folder (created on first use)."""
    base = os.environ.get("CARDTABLE_HOME")
    path = Path(base) if base else Path(platformdirs.user_data_dir("cardtable"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def records_dir() -> Path:
    """Folder for saved game records (created on first use)."""
    base = os.environ.get("CARDTABLE_RECORDS")
    path = Path(base) if base else home() / "records"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """Folder for solver tables (created on first use)."""
    base = os.environ.get("CARDTABLE_CACHE")
    if base:
        path = Path(base)
    elif os.environ.get("CARDTABLE_HOME"):
        path = Path(os.environ["CARDTABLE_HOME"]) / "cache"
    else:
        path = Path(platformdirs.user_cache_dir("cardtable"))
    path.mkdir(parents=True, exist_ok=True)
    return path
