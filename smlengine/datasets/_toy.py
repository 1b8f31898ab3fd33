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

from .._base import check_random_state, check_scalar

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
    """Two interleaving half circles (class -1 on top, class +1 below), plus Gaussian noise."""
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
    """A small circle (class +1) inside a large one (class -1); ``factor`` is the radius ratio."""
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
    """Four Gaussian clusters at (±1, ±1): class +1 where the signs of x1 and x2 agree."""
    noise = _check_noise(noise)
    rng = check_random_state(random_state)
    n_neg, n_pos = _class_sizes(n_samples, balance)
    corners_neg = np.array([[1.0, -1.0], [-1.0, 1.0]])
    corners_pos = np.array([[1.0, 1.0], [-1.0, -1.0]])
    X_neg = corners_neg[rng.integers(0, 2, n_neg)] + noise * rng.standard_normal((n_neg, 2))
    X_pos = corners_pos[rng.integers(0, 2, n_pos)] + noise * rng.standard_normal((n_pos, 2))
    return _finish(X_neg, X_pos, rng)


def make_spirals(n_samples=200, noise=0.05, random_state=None, *, balance=0.5, turns=1.5):
    """Two interleaved Archimedean spirals, one per class, radius growing to 1."""
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
    """Generate a toy problem by name (one of :data:`GENERATORS`); ``noise=None`` uses its default."""
    try:
        gen = GENERATORS[name]
    except KeyError:
        raise ValueError(f"unknown dataset {name!r}; choose one of {', '.join(GENERATORS)}") from None
    kwargs = {"n_samples": n_samples, "random_state": random_state, "balance": balance}
    if noise is not None:
        kwargs["noise"] = noise
    return gen(**kwargs)


def save_points(path, X, y) -> None:
    """Write points as CSV with the header ``x1,x2,...,label``."""
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


def load_points(path) -> tuple[np.ndarray, np.ndarray]:
    """Read a CSV written by :func:`save_points`.

    Returns ``(X, y)``; numeric labels come back as float64. Raises ``ValueError``
    naming the first malformed line.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path.name}: not a UTF-8 text file") from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise ValueError(f"{path.name}: the file is empty; expected a header such as 'x1,x2,label'")
    header = [h.strip() for h in lines[0].split(",")]
    if len(header) < 2 or header[-1].lower() != "label":
        raise ValueError(f"{path.name}, line 1: expected a header ending in 'label', got {lines[0]!r}")
    n_features = len(header) - 1
    rows, labels = [], []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != n_features + 1:
            raise ValueError(f"{path.name}, line {number}: expected {n_features + 1} fields, got {len(fields)}: {line!r}")
        try:
            values = [float(f) for f in fields[:-1]]
        except ValueError:
            raise ValueError(f"{path.name}, line {number}: coordinates must be numbers: {line!r}") from None
        if not all(np.isfinite(values)):
            raise ValueError(f"{path.name}, line {number}: coordinates must be finite: {line!r}")
        if not fields[-1]:
            raise ValueError(f"{path.name}, line {number}: missing label: {line!r}")
        rows.append(values)
        labels.append(fields[-1])
    if not rows:
        raise ValueError(f"{path.name}: no points after the header")
    X = np.array(rows, dtype=np.float64)
    try:
        y = np.array([float(v) for v in labels])
    except ValueError:
        y = np.array(labels)
    return X, y
