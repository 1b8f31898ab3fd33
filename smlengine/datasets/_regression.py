"""1-D regression data: stated truths f(x) with Gaussian noise, and x,y point files."""

from __future__ import annotations

import csv
import io
import numbers
from pathlib import Path

import numpy as np

from .._base import MAX_ABS_VALUE, check_random_state, check_scalar, display_path, quote_text
from ._points_file import read_points

__all__ = ["TRUTHS", "truth_function", "make_regression_1d", "save_xy_points", "load_xy_points"]


def _sine(x):
    return np.sin(2 * np.pi * x)


def _step(x):
    return np.where(x < 0.5, -0.5, 0.5)


def _polynomial(x):
    return 4.0 * (x - 0.2) * (x - 0.55) * (x - 0.9) * 4.0


#: name -> (f on [0, 1], formula shown to students)
TRUTHS = {
    "sine": (_sine, "f(x) = sin(2πx)"),
    "step": (_step, "f(x) = −0.5 for x < 0.5, else 0.5"),
    "polynomial": (_polynomial, "f(x) = 16 (x − 0.2)(x − 0.55)(x − 0.9)"),
}


def truth_function(name: str):
    """The truth ``name`` ('sine', 'step', 'polynomial') as a vectorised function of x.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.datasets._regression import truth_function
    >>> print(np.round(truth_function("sine")(np.array([0.0, 0.25])), 3))
    [0. 1.]
    """
    if name not in TRUTHS:
        raise ValueError(f"truth must be one of {', '.join(map(repr, TRUTHS))}, got {quote_text(name)}")
    return TRUTHS[name][0]


def make_regression_1d(truth="sine", n_samples=30, noise=0.2, random_state=None):
    """x ~ U(0, 1) sorted, y = f(x) + σ ε with ε ~ N(0, 1); returns (x of shape (n, 1), y).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.datasets._regression import make_regression_1d
    >>> x, y = make_regression_1d(n_samples=5, random_state=0)
    >>> x.shape, y.shape, bool(np.all(np.diff(x[:, 0]) >= 0))
    ((5, 1), (5,), True)
    """
    f = truth_function(truth)
    check_scalar("n_samples", n_samples, numbers.Integral, min_value=1, max_value=1_000_000)
    check_scalar("noise", noise, numbers.Real, min_value=0, max_value=1e6)
    rng = check_random_state(random_state)
    x = np.sort(rng.random(n_samples))
    y = f(x) + float(noise) * rng.standard_normal(n_samples)
    return x[:, None], y


def save_xy_points(path, x, y) -> None:
    """Write points as CSV with the header ``x,y``."""
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length, got {x.size} and {y.size}")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["x", "y"])
    for a, b in zip(x, y):
        writer.writerow([repr(float(a)), repr(float(b))])
    Path(path).write_text(buf.getvalue(), encoding="utf-8")


def load_xy_points(path, max_points: int = 10_000):
    """Read (x of shape (n, 1), y) from a file of 1-D points: the columns ``x`` (or ``x1``) and ``y`` (or ``x2``).

    The file is read by :func:`~smlengine.datasets.read_points` (its dialect rule, limits and
    messages; ``max_points`` is its ``max_rows``): other columns are read only when the
    header names ``x`` and ``y`` (a table the lab exported loads again).

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        As :func:`~smlengine.datasets.read_points`; also for values beyond ±1e100.
    """
    table = read_points(path, max_points, columns=(("x", "x1"), ("y", "x2")))
    big = float(np.max(np.abs(table.data)))
    if big > MAX_ABS_VALUE:
        raise ValueError(f"{display_path(Path(path).name)}: values up to {big:.3g}; x and y must be within "
                         f"±{MAX_ABS_VALUE:g}")
    return table.data[:, :1].copy(), table.data[:, 1].copy()
