"""Input checks shared by the regression modules: a design X with responses y, and one input x.

:func:`check_xy` accepts a finite 2-D design and a finite 1-D response of the same length
(each bounded by ``MAX_ABS_VALUE``, so squares and sums cannot overflow); :func:`check_x`
accepts the single input variable of the basis functions as a column. Used by
:mod:`smlengine.regression`, :mod:`smlengine.basis` and the bias–variance tools.
"""

from __future__ import annotations

import numpy as np

from ._base import MAX_ABS_VALUE, check_array


def check_xy(X, y, *, min_samples: int = 1):
    X = check_array(X, name="X", min_samples=min_samples, max_abs=MAX_ABS_VALUE)
    try:
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("y must contain numbers only") from None
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y have different numbers of samples: {X.shape[0]} and {y.shape[0]}")
    if not np.all(np.isfinite(y)):
        bad = int(np.count_nonzero(~np.isfinite(y)))
        raise ValueError(f"y contains {bad} NaN or infinite value(s); remove or impute them first")
    if y.size and float(np.max(np.abs(y))) > MAX_ABS_VALUE:
        largest = float(np.max(np.abs(y)))
        raise ValueError(f"y has values up to {largest:.3g}; rescale the data (|y| <= {MAX_ABS_VALUE:.0e})")
    return X, y


def check_x(x, name="x", min_samples=1) -> np.ndarray:
    """x of shape (n, 1) (or (n,)) as a finite float column."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must contain numbers only") from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] != 1:
        raise ValueError(f"{name} must have shape (n, 1) (one input variable), got {np.shape(x)}")
    return check_array(arr, name=name, min_samples=min_samples, max_abs=MAX_ABS_VALUE)
