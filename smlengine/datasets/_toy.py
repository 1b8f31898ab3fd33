"""Seeded 2-D toy problems with labels in {-1, +1}, and a small CSV format for points.

Every generator has the signature ``(n_samples=200, noise=..., random_state=None, *,
balance=0.5)`` and returns ``(X, y)`` with ``X`` of shape ``(n_samples, 2)`` (float64)
and ``y`` of shape ``(n_samples,)`` with values -1.0 and +1.0. ``balance`` is the
fraction of points in class +1 (0 < balance < 1), so imbalanced problems are one
argument away.
"""

from __future__ import annotations

import csv
import io
import math
import numbers
from pathlib import Path
from typing import Callable

import numpy as np

from .._base import LineErrors, check_random_state, check_scalar, display_path, quote_text
from ._lines import iter_text_lines, line_budget

__all__ = [
    "make_blobs",
    "make_moons",
    "make_circles",
    "make_xor",
    "make_spirals",
    "make_dataset",
    "GENERATORS",
    "save_points",
    "load_points",
    "load_two_class_points",
    "holdout_mask",
]


def _class_sizes(n_samples, balance) -> tuple[int, int]:
    check_scalar("n_samples", n_samples, numbers.Integral, min_value=2, max_value=10_000_000)
    check_scalar("balance", balance, numbers.Real, min_value=0.0, max_value=1.0, include_min=False, include_max=False)
    n_pos = int(round(n_samples * balance))
    n_pos = min(max(n_pos, 1), n_samples - 1)
    return n_samples - n_pos, n_pos


def _finish(X_neg: np.ndarray, X_pos: np.ndarray, rng: np.random.Generator):
    X = np.vstack([X_neg, X_pos]).astype(np.float64)
    y = np.concatenate([-np.ones(len(X_neg)), np.ones(len(X_pos))])
    order = rng.permutation(len(y))
    return np.ascontiguousarray(X[order]), y[order]


def _check_noise(noise):
    return check_scalar("noise", noise, numbers.Real, min_value=0.0, max_value=100.0)


def make_blobs(n_samples=200, noise=1.0, random_state=None, *, balance=0.5, distance=4.0, center=(2.0, 1.0)):
    """Two isotropic Gaussian blobs whose centres are ``distance`` apart around ``center``.

    ``noise`` is the standard deviation of each blob. The default centre is off the
    origin on purpose: a separating hyperplane then needs its offset c.

    Examples
    --------
    >>> from smlengine.datasets import make_blobs
    >>> X, y = make_blobs(n_samples=6, random_state=0)
    >>> X.shape, y
    ((6, 2), array([ 1.,  1., -1., -1.,  1., -1.]))
    """
    noise = _check_noise(noise)
    check_scalar("distance", distance, numbers.Real, min_value=0.0)
    rng = check_random_state(random_state)
    n_neg, n_pos = _class_sizes(n_samples, balance)
    middle = np.asarray(center, dtype=np.float64)
    if middle.shape != (2,) or not np.all(np.isfinite(middle)):
        raise ValueError(f"center must be two finite numbers, got {center!r}")
    c = np.array([distance / 2.0, distance / 2.0]) / np.sqrt(2.0)
    X_neg = middle - c + noise * rng.standard_normal((n_neg, 2))
    X_pos = middle + c + noise * rng.standard_normal((n_pos, 2))
    return _finish(X_neg, X_pos, rng)


def make_moons(n_samples=200, noise=0.1, random_state=None, *, balance=0.5):
    """Two interleaving half circles (class -1 on top, class +1 below), plus Gaussian noise.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.datasets import make_moons
    >>> X, y = make_moons(n_samples=8, noise=0.0, random_state=0)
    >>> print(np.round(X[:2], 3), y)
    [[-1.   0. ]
     [ 2.   0.5]] [-1.  1.  1.  1. -1. -1. -1.  1.]
    """
    noise = _check_noise(noise)
    rng = check_random_state(random_state)
    n_neg, n_pos = _class_sizes(n_samples, balance)
    t_neg = np.linspace(0.0, np.pi, n_neg)
    t_pos = np.linspace(0.0, np.pi, n_pos)
    X_neg = np.column_stack([np.cos(t_neg), np.sin(t_neg)])
    X_pos = np.column_stack([1.0 - np.cos(t_pos), 0.5 - np.sin(t_pos)])
    X_neg += noise * rng.standard_normal(X_neg.shape)
    X_pos += noise * rng.standard_normal(X_pos.shape)
    return _finish(X_neg, X_pos, rng)


def make_circles(n_samples=200, noise=0.05, random_state=None, *, balance=0.5, factor=0.5):
    """A small circle (class +1) inside a large one (class -1); ``factor`` is the radius ratio.

    Examples
    --------
    >>> from smlengine.datasets import make_circles
    >>> X, y = make_circles(n_samples=8, random_state=0)
    >>> X.shape, y
    ((8, 2), array([ 1.,  1.,  1., -1., -1.,  1., -1., -1.]))
    """
    noise = _check_noise(noise)
    check_scalar("factor", factor, numbers.Real, min_value=0.0, max_value=1.0, include_min=False, include_max=False)
    rng = check_random_state(random_state)
    n_neg, n_pos = _class_sizes(n_samples, balance)
    t_neg = rng.uniform(0.0, 2 * np.pi, n_neg)
    t_pos = rng.uniform(0.0, 2 * np.pi, n_pos)
    X_neg = np.column_stack([np.cos(t_neg), np.sin(t_neg)])
    X_pos = factor * np.column_stack([np.cos(t_pos), np.sin(t_pos)])
    X_neg += noise * rng.standard_normal(X_neg.shape)
    X_pos += noise * rng.standard_normal(X_pos.shape)
    return _finish(X_neg, X_pos, rng)


def make_xor(n_samples=200, noise=0.2, random_state=None, *, balance=0.5):
    """Four Gaussian clusters at (±1, ±1): class +1 where the signs of x1 and x2 agree.

    Examples
    --------
    >>> from smlengine.datasets import make_xor
    >>> X, y = make_xor(n_samples=8, random_state=0)
    >>> X.shape, y
    ((8, 2), array([-1., -1., -1.,  1.,  1., -1.,  1.,  1.]))
    """
    noise = _check_noise(noise)
    rng = check_random_state(random_state)
    n_neg, n_pos = _class_sizes(n_samples, balance)
    corners_neg = np.array([[1.0, -1.0], [-1.0, 1.0]])
    corners_pos = np.array([[1.0, 1.0], [-1.0, -1.0]])
    X_neg = corners_neg[rng.integers(0, 2, n_neg)] + noise * rng.standard_normal((n_neg, 2))
    X_pos = corners_pos[rng.integers(0, 2, n_pos)] + noise * rng.standard_normal((n_pos, 2))
    return _finish(X_neg, X_pos, rng)


def make_spirals(n_samples=200, noise=0.05, random_state=None, *, balance=0.5, turns=1.5):
    """Two interleaved Archimedean spirals, one per class, radius growing to 1.

    Examples
    --------
    >>> from smlengine.datasets import make_spirals
    >>> X, y = make_spirals(n_samples=8, random_state=0)
    >>> X.shape, y
    ((8, 2), array([ 1.,  1.,  1., -1., -1.,  1., -1., -1.]))
    """
    noise = _check_noise(noise)
    check_scalar("turns", turns, numbers.Real, min_value=0.1, max_value=10.0)
    rng = check_random_state(random_state)
    n_neg, n_pos = _class_sizes(n_samples, balance)

    def arm(n, phase):
        r = np.sqrt(rng.uniform(0.02, 1.0, n))  # uniform density along the area
        theta = 2 * np.pi * turns * r + phase
        pts = np.column_stack([r * np.cos(theta), r * np.sin(theta)])
        return pts + noise * rng.standard_normal((n, 2))

    return _finish(arm(n_neg, 0.0), arm(n_pos, np.pi), rng)


GENERATORS: dict[str, Callable] = {
    "blobs": make_blobs,
    "moons": make_moons,
    "circles": make_circles,
    "xor": make_xor,
    "spirals": make_spirals,
}


def make_dataset(name: str, n_samples=200, noise=None, random_state=None, *, balance=0.5):
    """Generate a toy problem by name (one of :data:`GENERATORS`); ``noise=None`` uses its default.

    Examples
    --------
    >>> from smlengine.datasets import GENERATORS, make_dataset
    >>> sorted(GENERATORS)
    ['blobs', 'circles', 'moons', 'spirals', 'xor']
    >>> X, y = make_dataset("moons", n_samples=10, random_state=0)
    >>> X.shape, y.shape
    ((10, 2), (10,))
    """
    try:
        gen = GENERATORS[name]
    except KeyError:
        raise ValueError(f"unknown dataset {quote_text(name)}; choose one of {', '.join(GENERATORS)}") from None
    kwargs = {"n_samples": n_samples, "random_state": random_state, "balance": balance}
    if noise is not None:
        kwargs["noise"] = noise
    return gen(**kwargs)


def save_points(path, X, y) -> None:
    """Write points as CSV with the header ``x1,x2,...,label``.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from smlengine.datasets import load_points, load_two_class_points, save_points
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "points.csv")
    >>> save_points(path, np.array([[0.0, 1.0], [2.5, -1.0]]), np.array([0, 1]))
    >>> with open(path) as f:
    ...     print(f.read(), end="")
    x1,x2,label
    0.0,1.0,0
    2.5,-1.0,1
    >>> X, y = load_points(path)
    >>> print(X, y)
    [[ 0.   1. ]
     [ 2.5 -1. ]] [0. 1.]
    >>> print(load_two_class_points(path)[1])
    [-1.  1.]
    >>> folder.cleanup()
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or len(X) != len(y):
        raise ValueError(f"save_points needs X of shape (n, d) and y of shape (n,), got {X.shape} and {y.shape}")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([f"x{j + 1}" for j in range(X.shape[1])] + ["label"])
    for row, label in zip(X, y):
        writer.writerow([repr(float(v)) for v in row] + [_label_text(label)])
    Path(path).write_text(buf.getvalue(), encoding="utf-8")


def _label_text(label) -> str:
    if isinstance(label, (float, np.floating)) and float(label).is_integer():
        return str(int(label))
    return str(label)


# Most bytes a points file may have: the labs draw every point, so a file this large is
# a mistake (or a different kind of file) rather than a data set.
MAX_POINTS_FILE_BYTES = 50 * 2**20


#: most points :func:`load_points` reads when no smaller limit is given
MAX_POINTS_READ = 1_000_000
#: most coordinates (points × dimensions) :func:`load_points` reads
MAX_COORDINATES_READ = 2_000_000
#: malformed lines after which a points file is taken for something else and the reading stops
MAX_LINE_ERRORS = 10_000


def load_points(path, max_points: int | None = None, n_coordinates: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Read points from a CSV file such as the ones :func:`save_points` writes.

    The first line is a header naming the columns. The column named ``label`` holds the
    class; the columns before it are the coordinates (``x1, x2, ...``); columns after it are
    ignored, so a table exported by the app (``x1,x2,label,f(x),predicted[,test]``) loads
    too. Blank lines and lines starting with ``#`` are skipped. Numeric labels come back as
    float64 (NaN or infinite labels are refused, they would not form a class), other labels
    as strings.

    The file is read in blocks (:func:`~smlengine.datasets._lines.iter_text_lines`) and the
    points are counted as they are read: one more than ``max_points`` (default
    :data:`MAX_POINTS_READ`), or more than :data:`MAX_COORDINATES_READ` coordinates in all,
    stops the reading with a ``ValueError``. ``n_coordinates``, if given, is checked
    against the header before any point is read.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is a folder, larger than 50 MB, binary or not UTF-8, has no such header,
        no points, more than ``max_points`` points, a line longer than 65,536 characters or
        more than 2 ``max_points`` + 1,000 lines, or has malformed lines: they are counted
        (the reading stops after :data:`MAX_LINE_ERRORS`) and the first three are shown with
        their line numbers (each quoted to at most 80 characters).
    """
    name = display_path(Path(path).name)
    limit = MAX_POINTS_READ if max_points is None else int(max_points)
    lines = iter_text_lines(path, max_bytes=MAX_POINTS_FILE_BYTES, max_lines=line_budget(limit),
                            lines_note=f"this lab reads at most {limit:,} points")
    header_line = next(lines, (1, ""))[1]
    if not header_line.strip():
        raise ValueError(f"{name}: the file is empty; expected a header such as 'x1,x2,label'")
    header = [h.strip().lower() for h in header_line.split(",")]
    if "label" not in header or header.index("label") == 0:
        raise ValueError(
            f"{name}, line 1: expected a header such as 'x1,x2,label' "
            f"(coordinates, then 'label'), got {quote_text(header_line)}"
        )
    n_fields = len(header)
    n_features = header.index("label")
    if n_coordinates is not None and n_features != n_coordinates:
        raise ValueError(f"this lab needs {n_coordinates}-D points, the file has {n_features} coordinates")
    requested = limit
    limit = min(limit, max(1, MAX_COORDINATES_READ // n_features))
    rows, labels = [], []
    errors = LineErrors()
    isfinite = math.isfinite
    for number, line in lines:
        if errors.count >= MAX_LINE_ERRORS:
            lines.close()
            raise ValueError(errors.message(name) + f"\n  (reading stopped after {MAX_LINE_ERRORS:,} malformed lines)")
        bare = line.strip()
        if not bare or bare[0] == "#":
            continue
        fields = line.split(",")  # float() takes the spaces around a number; the label is stripped below
        if len(fields) != n_fields:
            errors.add(lambda number=number, line=line, n=len(fields):
                       f"line {number}: expected {n_fields} fields, got {n}: {quote_text(line)}")
            continue
        try:
            values = [float(f) for f in fields[:n_features]]
        except ValueError:
            errors.add(lambda number=number, line=line:
                       f"line {number}: coordinates must be numbers: {quote_text(line)}")
            continue
        if not all(map(isfinite, values)):
            errors.add(lambda number=number, line=line:
                       f"line {number}: coordinates must be finite: {quote_text(line)}")
            continue
        label = fields[n_features].strip()
        if not label:
            errors.add(lambda number=number, line=line: f"line {number}: missing label: {quote_text(line)}")
            continue
        if not _finite_or_name(label):
            errors.add(f"line {number}: the label must be a finite number or a name, got {quote_text(label)}")
            continue
        if len(rows) == limit:
            lines.close()
            if limit < requested:
                raise ValueError(f"{name} has more than {limit:,} points of {n_features} coordinates; "
                                 f"at most {MAX_COORDINATES_READ:,} coordinates are read")
            raise ValueError(f"{name} has more than {limit:,} points; this lab draws at most {limit:,}")
        rows.append(values)
        labels.append(label)
    if errors:
        raise ValueError(errors.message(name))
    if not rows:
        raise ValueError(f"{name}: no points after the header")
    X = np.array(rows, dtype=np.float64)
    try:
        y = np.array([float(v) for v in labels])
    except ValueError:
        y = np.array(labels)
    return X, y


def _finite_or_name(label: str) -> bool:
    """False for 'nan', 'inf', '-Infinity', ...: float() accepts them, but NaN != NaN, so
    such a label never forms a class (and an infinite one is no class name either)."""
    try:
        return math.isfinite(float(label))
    except ValueError:
        return True  # a name such as 'cat'


def load_two_class_points(path, max_points: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
    """(X, y ±1) of a points file for a 2-D two-class problem; ``ValueError`` says what is wrong.

    :func:`load_points` checks the file itself (numbers, finite values, labels, two
    coordinates in the header) and stops reading after ``max_points`` points; this adds at
    most two classes (the larger label is
    class +1; a single class keeps its sign, so a learner can say it needs two).
    """
    X, labels = load_points(path, max_points, n_coordinates=2)
    classes = np.unique(labels)
    if classes.size > 2:
        raise ValueError(f"this lab needs two classes, the file has {classes.size}")
    if classes.size == 2:
        return X, np.where(labels == classes[-1], 1.0, -1.0)
    positive = labels.dtype.kind == "f" and classes[0] > 0
    return X, np.full(len(labels), 1.0 if positive else -1.0)


def holdout_mask(n: int, fraction: float, seed: int) -> np.ndarray:
    """Test-point mask: point i is held out when u_i < fraction, u ~ U(0, 1) from the seed.

    The first n draws do not depend on n, so appending points keeps the others' roles.

    Examples
    --------
    >>> from smlengine.datasets import holdout_mask
    >>> print(holdout_mask(10, 0.3, 0))
    [False False  True False  True  True False False False False]
    >>> print(holdout_mask(12, 0.3, 0)[:10])
    [False False  True False  True  True False False False False]
    """
    if fraction <= 0 or n == 0:
        return np.zeros(n, dtype=bool)
    u = np.random.default_rng([int(seed), 7919]).random(n)
    return u < fraction
