"""1-D regression data: stated truths f(x) with Gaussian noise, and x,y point files."""

from __future__ import annotations

import csv
import io
import numbers
from pathlib import Path

import numpy as np

from .._base import LineErrors, check_random_state, check_scalar, display_path, quote_text
from ._lines import iter_text_lines, line_budget

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

MAX_POINTS_FILE_BYTES = 20 * 2**20


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
    """Read (x of shape (n, 1), y) from a CSV file whose header names columns ``x`` and ``y``.

    Other columns are ignored (a table the lab exported loads again). Blank lines and lines
    starting with ``#`` are skipped. The file is read in blocks and its points counted as
    they are read: the reading stops at point ``max_points`` + 1.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is a folder, too large, binary or not UTF-8, has no ``x`` and ``y``
        columns, no points, more than ``max_points`` points or malformed lines (counted, the
        first three quoted with their line numbers).
    """
    name = display_path(Path(path).name)
    lines = iter_text_lines(path, max_bytes=MAX_POINTS_FILE_BYTES, kind="x,y file", max_lines=line_budget(max_points),
                            lines_note=f"this lab draws at most {max_points:,} points",
                            binary_note="expected UTF-8 CSV with columns x,y")
    header_line = next(lines, (1, ""))[1]
    if not header_line.strip():
        raise ValueError(f"{name}: the file is empty; expected a header 'x,y'")
    header = [h.strip().lower() for h in header_line.split(",")]
    if "x" not in header or "y" not in header:
        raise ValueError(f"{name}, line 1: expected a header naming columns 'x' and 'y', got {quote_text(header_line)}")
    ix, iy, width = header.index("x"), header.index("y"), len(header)
    xs, ys = [], []
    errors = LineErrors()
    for number, line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != width:
            errors.add(f"line {number}: expected {width} fields, got {len(fields)}: {quote_text(line)}")
            continue
        try:
            a, b = float(fields[ix]), float(fields[iy])
        except ValueError:
            errors.add(f"line {number}: x and y must be numbers: {quote_text(line)}")
            continue
        if not (np.isfinite(a) and np.isfinite(b)) or max(abs(a), abs(b)) > 1e100:
            errors.add(f"line {number}: x and y must be finite numbers (|v| <= 1e100): {quote_text(line)}")
            continue
        if len(xs) == max_points:
            lines.close()
            raise ValueError(f"{name} has more than {max_points:,} points; this lab draws at most {max_points:,}")
        xs.append(a)
        ys.append(b)
    if errors:
        raise ValueError(errors.message(name))
    if not xs:
        raise ValueError(f"{name}: no points after the header")
    return np.array(xs)[:, None], np.array(ys)
