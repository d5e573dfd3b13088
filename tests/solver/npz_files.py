"""Helpers for tests that damage compressed-table files (``.npz``): rewrite one with a change
to its arrays, read or replace its ``meta`` JSON."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np


def rewrite(path: Path, out: Path, change: Callable[[dict[str, np.ndarray]], object]) -> Path:
    """Write ``out``: the arrays of ``path`` after ``change(arrays)`` (which edits them in place)."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {name: z[name] for name in z.files}
    change(arrays)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    out.write_bytes(buf.getvalue())
    return out


def meta_of(arrays: dict[str, np.ndarray]) -> dict:
    """The ``meta`` JSON of a file's arrays."""
    return json.loads(arrays["meta"].tobytes().decode())


def set_meta(arrays: dict[str, np.ndarray], meta: dict) -> None:
    """Replace the ``meta`` JSON of a file's arrays."""
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
