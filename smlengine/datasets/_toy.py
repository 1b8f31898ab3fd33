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
import numbers
from pathlib import Path
from typing import Callable

import numpy as np

from .._base import check_random_state, check_scalar, display_path, quote_text
from ._points_file import read_points

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


def load_points(path, max_points: int | None = None, n_coordinates: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Read labelled points of any dimension from a file such as the ones :func:`save_points` writes.

    The file is read by :func:`~smlengine.datasets.read_points` (its dialect rule, limits and
    messages; ``max_points`` is its ``max_rows``). Its header names the columns: the one
    named ``label`` holds the class, the columns before it are the coordinates (``x1, x2,
    ...``), columns after it are read and dropped, so a table exported by the app
    (``x1,x2,label,f(x),predicted[,test]``) loads too. Numeric labels come back as float64,
    class names as strings.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        As :func:`~smlengine.datasets.read_points`; also without a header naming ``label``
        after at least one coordinate, or with other than ``n_coordinates`` coordinates.
    """
    table = read_points(path, max_points)
    lowered = [n.lower() for n in table.names or ()]
    if "label" not in lowered or lowered.index("label") == 0:
        shown = quote_text(", ".join(table.names)) if table.names else "no header"
        raise ValueError(f"{display_path(Path(path).name)}: expected a header such as 'x1,x2,label' "
                         f"(coordinates, then 'label'), got {shown}")
    n_features = lowered.index("label")
    if n_coordinates is not None and n_features != n_coordinates:
        raise ValueError(f"this lab needs {n_coordinates}-D points, the file has {n_features} coordinates")
    X = np.ascontiguousarray(table.data[:, :n_features])
    codes = table.data[:, n_features]
    y = codes.copy() if table.classes is None else np.array(table.classes)[codes.astype(int)]
    return X, y


def load_two_class_points(path, max_points: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
    """(X, y ±1) of a file of 2-D points of two classes; ``ValueError`` says what is wrong.

    :func:`~smlengine.datasets.read_points` reads the columns ``x1`` (or ``x``), ``x2`` (or
    ``y``) and ``label`` and stops after ``max_points`` points; this adds at most two
    classes (the larger label, or the later class name, is class +1; a single class keeps
    its sign, so a learner can say it needs two).
    """
    table = read_points(path, max_points, columns=(("x1", "x"), ("x2", "y"), "label"))
    X, labels = np.ascontiguousarray(table.data[:, :2]), table.data[:, 2]
    classes = np.unique(labels)
    if classes.size > 2:
        raise ValueError(f"this lab needs two classes, the file has {classes.size}")
    if classes.size == 2:
        return X, np.where(labels == classes[-1], 1.0, -1.0)
    positive = table.classes is None and classes[0] > 0
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
