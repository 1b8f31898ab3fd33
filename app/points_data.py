"""Qt-free pieces of the points labs (classifiers, trees, mixtures, regression) that their
``run.py`` modules share: the run context of labelled 2-D points with its train/test split,
the held-out mask and whether the reference library is installed.

:mod:`app.points_lab` is the Qt side (the canvas, loading, sessions); this module never
imports Qt, so a lab's ``run.py`` stays importable from a script or a notebook.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field

import numpy as np

from smlengine.datasets import holdout_mask

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
