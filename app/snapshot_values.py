"""The numbers a snapshot exposes, by name: what a lesson's reveal condition may test
(``{"metric": "engine.n_mistakes", "op": "<=", "value": 0}``) and what
:meth:`app.lab.Lab.lesson_values` returns by default (Qt-free)."""

from __future__ import annotations

import dataclasses
from typing import Any


def numeric_values(snapshot, depth: int = 2) -> dict[str, float]:
    """The numbers a snapshot exposes: its public numeric fields (bools as 0/1), and those of
    the snapshots it holds, named ``outer.inner`` (``engine.n_mistakes``)."""
    out: dict[str, float] = {}
    _collect(snapshot, "", depth, out)
    return out


def _fields(obj) -> list[tuple[str, Any]]:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [(f.name, getattr(obj, f.name, None)) for f in dataclasses.fields(obj)]
    return []


def _collect(obj, prefix: str, depth: int, out: dict[str, float]) -> None:
    for name, value in _fields(obj):
        if name.startswith("_"):
            continue
        key = prefix + name
        number = _number(value)
        if number is not None:
            out[key] = number
        elif depth > 1 and dataclasses.is_dataclass(value) and not isinstance(value, type):
            _collect(value, key + ".", depth - 1, out)


def _number(value) -> float | None:
    import numpy as np  # deferred: the window paints before numpy is loaded (the labs load it)

    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, np.generic) and np.issubdtype(type(value), np.number) or isinstance(value, np.bool_):
        return float(value)
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biuf":
        return float(value)
    return None
