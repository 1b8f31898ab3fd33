"""Qt-free pieces of the points labs (classifiers, trees, mixtures, regression) that their
``run.py`` modules share: the run context of labelled 2-D points with its train/test split,
the held-out mask, whether the reference library is installed, and what a points lab reads
from a file and accepts as its points (:func:`read_points_file`, :func:`check_points`).

:mod:`app.points_lab` is the Qt side (the canvas, loading, sessions); this module never
imports Qt, so a lab's ``run.py`` stays importable from a script or a notebook.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field

import numpy as np

from smlengine.datasets import holdout_mask, read_points

#: the columns each kind of points lab reads from a file (``read_points``' ``columns``): x and
#: x1 name the first coordinate, y and x2 the second, so a file written for one lab opens in another
FILE_COLUMNS = {
    "labelled": (("x1", "x"), ("x2", "y"), "label"),
    "unlabelled": (("x1", "x"), ("x2", "y")),
    "xy": (("x", "x1"), ("y", "x2")),
}
#: the coordinates' names in messages, by kind of points
COORDINATES = {"labelled": ("x1", "x2"), "unlabelled": ("x1", "x2"), "xy": ("x", "y")}

# The points every points lab accepts, from a file or a session, before they replace the
# user's: the range the labs draw and compute with (a view, a decision map, a density on a
# grid, basis functions on [min x, max x]). Beyond it a plot cannot be drawn or the numbers
# lose their meaning (a spread of 1e-300 squares to 0), so the points are refused with a word
# on rescaling them, not shown as a blank plot.

#: the largest |coordinate|
MAX_ABS = 1e6
#: the smallest spread (max − min) of a coordinate that is not constant
MIN_SPREAD = 1e-6
#: the fewest points
MIN_POINTS = 2
#: the classes a labelled lab needs
N_CLASSES = 2

#: the held-out mask of the drawn points: point i is a test point when u_i < fraction, u from the seed
split_mask = holdout_mask


def sklearn_available() -> bool:
    """Whether scikit-learn (a reference only, not a runtime dependency) can be imported."""
    return importlib.util.find_spec("sklearn") is not None


@dataclass(eq=False)
class LabelledRun:
    """Everything one run on labelled 2-D points needs, captured on the GUI thread (plain
    arrays, no widgets).

    ``method`` is the lab's choice of learner, ``X`` all points in canvas order, ``y`` their
    labels (made ±1: label > 0 is class +1), ``test_mask`` the held-out points. After
    construction ``train_idx``/``test_idx`` index the two parts and ``X_train``, ``y_train``,
    ``X_test``, ``y_test`` hold them.
    """

    method: str
    params: dict
    X: np.ndarray
    y: np.ndarray
    test_mask: np.ndarray
    extent: tuple
    seed: int
    train_idx: np.ndarray = field(default=None)
    test_idx: np.ndarray = field(default=None)

    def __post_init__(self):
        self.y = np.where(self.y > 0, 1.0, -1.0)
        self.train_idx = np.flatnonzero(~self.test_mask)
        self.test_idx = np.flatnonzero(self.test_mask)
        self.X_train, self.y_train = self.X[self.train_idx], self.y[self.train_idx]
        self.X_test, self.y_test = self.X[self.test_idx], self.y[self.test_idx]

    @property
    def n_test(self) -> int:
        return int(self.test_idx.size)


def check_points(X: np.ndarray, labels: np.ndarray | None, kind: str, class_names=None) -> None:
    """Refuse points the lab cannot use (``ValueError`` in the lab's words), before they
    replace anything: fewer than :data:`MIN_POINTS`, a labelled lab's labels not of
    :data:`N_CLASSES` classes, coordinates beyond ±:data:`MAX_ABS` or spread over less than
    :data:`MIN_SPREAD` (a constant coordinate is fine). ``class_names`` name the labels
    (numbered 0, 1, ...) in messages when the file wrote names."""
    n = len(X)
    if n < MIN_POINTS:
        raise ValueError(f"this lab needs at least {MIN_POINTS} points, there {'is' if n == 1 else 'are'} {n}")
    if not np.all(np.isfinite(X)):
        raise ValueError("some coordinates are not finite numbers")
    if kind == "labelled":
        classes = np.unique(labels)
        if classes.size != N_CLASSES:
            shown = ", ".join(f"{c:g}" if class_names is None else str(class_names[int(c)])
                              for c in classes[:5]) + (", ..." if classes.size > 5 else "")
            raise ValueError(f"this lab needs {N_CLASSES} classes (labels), there "
                             f"{'is 1' if classes.size == 1 else f'are {classes.size}'}: {shown}")
    check_range(X, kind)


def check_range(X: np.ndarray, kind: str) -> None:
    """Refuse coordinates beyond ±:data:`MAX_ABS`, or spread over less than :data:`MIN_SPREAD`
    (a constant coordinate is fine), naming the coordinate (files and sessions)."""
    for j, name in enumerate(COORDINATES[kind]):
        if not len(X):
            return
        column = X[:, j]
        big = float(np.max(np.abs(column)))
        if big > MAX_ABS:
            raise ValueError(f"{name} reaches {big:.3g}; this lab draws coordinates within ±{MAX_ABS:g}: "
                             f"rescale the points")
        spread = float(np.max(column) - np.min(column))
        if 0 < spread < MIN_SPREAD:
            raise ValueError(f"{name} spreads over only {spread:.3g}; this lab draws spreads of at least "
                             f"{MIN_SPREAD:g}: rescale the points")


def undrawable(values: np.ndarray, name: str) -> str:
    """Why a plot cannot draw a curve over ``values`` ("" when it can): values not finite, beyond
    ±:data:`MAX_ABS`, or spread over less than :data:`MIN_SPREAD` (pyqtgraph then fails to
    sample the curve, "Maximum allowed dimension exceeded")."""
    values = np.asarray(values, dtype=float)
    if not values.size:
        return ""
    if not np.all(np.isfinite(values)):
        return f"{name} is not finite everywhere"
    big, spread = float(np.max(np.abs(values))), float(np.ptp(values))
    if big > MAX_ABS:
        return f"{name} reaches {big:.3g} (the plots draw ±{MAX_ABS:g})"
    if 0 < spread < MIN_SPREAD:
        return f"{name} spreads over only {spread:.3g} (the plots draw spreads of at least {MIN_SPREAD:g})"
    return ""


def read_points_file(path, max_points: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(X of shape (n, 2), labels) of a points file for a lab of ``kind`` (worker thread).

    The file is read by :func:`smlengine.datasets.read_points` with the lab's
    :data:`FILE_COLUMNS` and checked by :func:`check_points`: a point the lab could not use
    refuses the whole file, so the lab keeps its points; so does a header naming coordinates
    beyond x2 (``x3``, ...): the labs draw 2-D points. Labelled points come back as ±1
    (the larger label, or the later class name, is +1); other kinds have labels 1.
    """
    table = read_points(path, max_points, columns=FILE_COLUMNS[kind])
    if kind != "xy" and table.header is not None:
        more = [n for n in table.header if re.fullmatch(r"x[3-9]|x[1-9][0-9]+", n.strip().lower())]
        if more:
            raise ValueError(f"the file has more coordinates than x1 and x2 ({', '.join(more[:3])}); "
                             f"this lab draws 2-D points")
    X = np.ascontiguousarray(table.data[:, :2])
    labels = table.data[:, 2] if kind == "labelled" else np.ones(len(X))
    check_points(X, labels, kind, table.classes)
    if kind == "labelled":
        labels = np.where(labels == labels.max(), 1.0, -1.0)
    return X, labels


def read_labelled_points(path, max_points: int) -> tuple[np.ndarray, np.ndarray]:
    """(X, y ±1) of a file of labelled 2-D points (classifiers, trees): :func:`read_points_file`."""
    return read_points_file(path, max_points, "labelled")


def read_plane_points(path, max_points: int) -> np.ndarray:
    """X of a file of unlabelled 2-D points (mixtures): :func:`read_points_file`."""
    return read_points_file(path, max_points, "unlabelled")[0]


def read_xy_points(path, max_points: int) -> tuple[np.ndarray, np.ndarray]:
    """(x of shape (n, 1), y) of a file of 1-D x → y points (regression): :func:`read_points_file`."""
    X, _ = read_points_file(path, max_points, "xy")
    return X[:, :1].copy(), X[:, 1].copy()
