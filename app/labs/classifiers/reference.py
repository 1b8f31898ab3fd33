"""Reference check against scikit-learn (optional dependency, imported lazily on a worker)."""

from __future__ import annotations

import importlib.util

import numpy as np

from ...widgets.decision_map import grid_points
from .run import COEF0, SVM_KERNEL, is_svm, make_estimator


def sklearn_available() -> bool:
    return importlib.util.find_spec("sklearn") is not None


def supported(kind: str) -> bool:
    return kind == "logistic" or is_svm(kind)


def reference_check(kind: str, params: dict, X, y, extent, resolution: int = 150) -> dict:
    """Fit ours and scikit-learn's model on the same training data and parameters.

    Returns the fraction of equal predictions on a ``resolution``² grid over ``extent``,
    the largest difference of the decision values there, and the support-vector counts.
    For logistic regression our loss sum log(1 + exp(-y<w, x~>)) + ||v||²/(2C) is
    scikit-learn's C * sum log(...) + ||v||²/2 divided by C, so C is the same.
    """
    X = np.asarray(X, float)
    y = np.where(np.asarray(y) > 0, 1, -1)
    if np.unique(y).size < 2:
        raise ValueError("the reference check needs training points of both classes")
    if is_svm(kind):
        from sklearn.svm import SVC

        kernel = SVM_KERNEL[kind]
        ours = make_estimator(kind, params).fit(X, y)
        theirs = SVC(C=params["C"], kernel=kernel, gamma=params["gamma"] if kernel == "rbf" else 1.0,
                     degree=int(params["degree"]), coef0=COEF0, tol=1e-3).fit(X, y)
        counts = (int(ours.support_.size), int(theirs.support_.size))
        name = f"SVC(kernel='{kernel}')"
    elif kind == "logistic":
        from sklearn.linear_model import LogisticRegression as SkLR

        ours = make_estimator(kind, {**params, "max_iter": max(int(params["max_iter"]), 1000)}).fit(X, y)
        theirs = SkLR(C=params["C"], tol=1e-10, max_iter=10000).fit(X, y)
        counts = None
        name = "LogisticRegression"
    else:
        raise ValueError("the reference check covers logistic regression and the SVMs")
    _, _, pts = grid_points(extent, resolution)
    f_ours = ours.decision_function(pts)
    f_theirs = theirs.decision_function(pts)
    agree = float(np.mean((f_ours > 0) == (f_theirs > 0)))
    return {
        "name": name,
        "agreement": agree,
        "max_diff": float(np.max(np.abs(f_ours - f_theirs))),
        "scale": float(np.max(np.abs(f_theirs))),
        "train_agreement": float(np.mean(ours.predict(X) == theirs.predict(X))),
        "n_support": counts if counts is not None else (-1, -1),
        "n_points": int(len(y)),
        "grid": int(resolution),
    }
