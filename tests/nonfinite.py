"""Where a value holds NaN or infinity: one walker for the engine fuzz test and the labs' snapshots.

``non_finite(value, explained)`` returns the paths of the non-finite numbers inside ``value``
(numbers, numpy arrays, dataclasses such as snapshots, lists, tuples, dicts, and the learned
attributes, ending in ``_``, of fitted estimators). Fields and attributes whose name is in
``explained`` are NaN on purpose (documented markers) and are not looked into.
"""

from __future__ import annotations

import dataclasses
import math
import numbers

import numpy as np

#: fields that are NaN on purpose, documented where they are produced (field name -> where)
EXPLAINED = {
    "oob_error_curve": "Bagging: OOB error while no point has been out of bag yet (ForestSnapshot docstring)",
    "oob_error_curve_": "Bagging: as oob_error_curve",
    "errors": "model_selection: grid cells not computed yet",
    "threshold": "trees: TreeArrays.threshold is NaN at leaves (they have no split)",
    "lower": "trees: a region's box is unbounded (-inf) on the sides no split has cut",
    "upper": "trees: a region's box is unbounded (+inf) on the sides no split has cut",
}

#: at most this many items of one list or dict are walked (a run's timeline is walked item by item)
MAX_ITEMS = 1000


def non_finite(value, explained=frozenset(), path: str = "", seen: set | None = None) -> list[str]:
    """Paths of the NaN/inf numbers inside value."""
    seen = set() if seen is None else seen
    if value is None or isinstance(value, (bool, str, bytes, np.bool_)):
        return []
    if isinstance(value, numbers.Number):
        try:
            return [] if math.isfinite(value) else [f"{path} = {value}"]
        except (TypeError, OverflowError):
            return []
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc" and not np.all(np.isfinite(value)):
            return [f"{path} has {int(np.count_nonzero(~np.isfinite(value)))} non-finite value(s)"]
        if value.dtype.kind == "O":
            return [p for i, v in enumerate(value.ravel()[:MAX_ITEMS])
                    for p in non_finite(v, explained, f"{path}[{i}]", seen)]
        return []
    if id(value) in seen:
        return []
    seen.add(id(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = []
        for f in dataclasses.fields(value):
            if f.name not in explained:
                out += non_finite(getattr(value, f.name), explained, f"{path}.{f.name}", seen)
        return out
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value[:MAX_ITEMS]) for p in non_finite(v, explained, f"{path}[{i}]", seen)]
    if isinstance(value, dict):
        return [p for k, v in list(value.items())[:MAX_ITEMS]
                if k not in explained for p in non_finite(v, explained, f"{path}[{k!r}]", seen)]
    if hasattr(value, "get_params"):  # a fitted estimator: its learned attributes
        out = []
        for name, attr in vars(value).items():
            if name.endswith("_") and not name.startswith("_") and name not in explained:
                out += non_finite(attr, explained, f"{path}.{name}", seen)
        return out
    return []
