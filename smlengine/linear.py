"""Linear classifiers: the perceptron (and, from :mod:`smlengine.logistic`, logistic regression).

Notation of the course: a hyperplane is H = {x : <v, x> - c = 0}. With the augmented
vectors z = (-c, v) and x~ = (1, x) the decision function is f(x) = <z, x~> = <v, x> - c
and the classifier predicts sign(f(x)). Labels are -1/+1 internally; any two distinct
labels are accepted and mapped through ``classes_``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._base import (
    MAX_ABS_VALUE,
    BaseEstimator,
    ClassifierMixin,
    IterativeMixin,
    LinearClassifierMixin,
    Snapshot,
    check_binary_labels,
    check_random_state,
    check_X_y,
    frozen_array,
)
from ._params import Integral, Interval, Options, RandomState, Real

__all__ = ["Perceptron", "PerceptronSnapshot", "LogisticRegression", "LogisticSnapshot"]


@dataclass(frozen=True, kw_only=True, eq=False)
class PerceptronSnapshot(Snapshot):
    """State of the perceptron after one update.

    Attributes
    ----------
    epoch : int
        Pass over the data the update belongs to (1-based; 0 for the initial state).
    v : ndarray of shape (n_features,)
        Normal vector of the hyperplane.
    c : float
        Offset: the hyperplane is <v, x> = c.
    index : int or None
        Index of the training point just used (single-sample mode), else None.
    n_mistakes : int
        Number of training points with y_i <z, x~_i> <= 0 after the update.
    cost : float
        Perceptron cost C_P(z) = sum over misclassified i of |<z, x~_i>|.
    converged : bool
        True once no training point is misclassified.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.linear import Perceptron
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [2.0, 3.0], [3.0, 2.0]])
    >>> y = np.array([-1, -1, -1, 1, 1, 1])
    >>> snaps = list(Perceptron(mode="batch").fit_steps(X, y))
    >>> [(s.step, s.n_mistakes, s.cost) for s in snaps]
    [(0, 6, 0.0), (1, 3, 12.0), (2, 2, 4.0), (3, 0, 0.0)]
    >>> last = snaps[-1]
    >>> print(last.v, last.c, last.converged)
    [4. 4.] 5.0 True
    >>> last.decision_function([[0.0, 0.0], [3.0, 3.0]])
    array([-5., 19.])
    """

    epoch: int
    v: np.ndarray
    c: float
    index: int | None
    n_mistakes: int
    cost: float
    converged: bool

    @property
    def intercept(self) -> float:
        """b in f(x) = <v, x> + b, i.e. -c."""
        return -self.c

    def decision_function(self, X) -> np.ndarray:
        """f(x) = <v, x> - c of the hyperplane in this snapshot."""
        return np.asarray(X, dtype=np.float64) @ self.v - self.c


class Perceptron(ClassifierMixin, LinearClassifierMixin, IterativeMixin, BaseEstimator):
    """The course's perceptron, trained by gradient descent on the perceptron cost.

    With z = (-c, v) and x~ = (1, x), the perceptron cost is

        C_P(z) = sum_{i misclassified} |<z, x~_i>|,

    whose gradient is -sum_{i misclassified} y_i x~_i. A point counts as misclassified
    when y_i <z, x~_i> <= 0, so points on the hyperplane (including every point at the
    start, z = 0) are mistakes.

    * ``mode='batch'``: one step per epoch, z <- z + alpha(k) sum_{misclassified} y_i x~_i.
    * ``mode='single'``: points are visited in a random order each epoch; every
      misclassified x_i updates z <- z + alpha y_i x~_i immediately (one step).

    Training stops when no point is misclassified (C_P = 0 on separable data) or after
    ``max_epochs`` passes.

    Parameters
    ----------
    max_epochs : int, default=100
        Maximum number of passes over the training data.
    learning_rate : float, default=1.0
        Step size alpha (0 < alpha <= 1e6). In batch mode alpha(k) = learning_rate for every k.
        Since z starts at 0, alpha only scales z; the predictions do not depend on it.
    mode : {'single', 'batch'}, default='single'
        One update per misclassified point ('single') or one per epoch ('batch').
    random_state : int, Generator or None
        Seeds the visiting order in single-sample mode.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        v, the normal vector of the hyperplane.
    intercept_ : float
        -c, so decision_function(x) = <coef_, x> + intercept_.
    classes_ : ndarray of shape (2,)
        The two labels; classes_[1] is the +1 class.
    n_iter_ : int
        Epochs run.
    n_updates_ : int
        Number of z updates.
    converged_ : bool
        True when training ended with no misclassified point.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.linear import Perceptron
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [2.0, 3.0], [3.0, 2.0]])
    >>> y = np.array([-1, -1, -1, 1, 1, 1])
    >>> clf = Perceptron(random_state=0).fit(X, y)
    >>> clf.converged_, clf.n_iter_, clf.n_updates_
    (True, 1, 4)
    >>> print(clf.coef_, clf.intercept_)
    [1. 1.] -2.0
    >>> clf.predict([[0.5, 0.5], [2.5, 2.5]])
    array([-1,  1])
    """

    _multi_class = False  # two classes exactly

    # The perceptron only looks at signs and starts at z = 0, so every z is alpha times an
    # integer combination of the x~_i: alpha changes the scale of z, never a decision. The
    # upper bound keeps alpha * (number of updates) * |x|^2 far from overflow.
    _parameter_constraints = {
        "max_epochs": [Interval(Integral, 1, 1_000_000)],
        "learning_rate": [Interval(Real, 0, 1e6, closed="right")],
        "mode": [Options(("single", "batch"))],
        "random_state": [RandomState(), None],
    }

    def __init__(self, max_epochs=100, learning_rate=1.0, mode="single", random_state=None):
        self.max_epochs = max_epochs
        self.learning_rate = learning_rate
        self.mode = mode
        self.random_state = random_state

    def fit_steps(self, X, y):
        """Train step by step.

        Yields
        ------
        PerceptronSnapshot
            The initial state (step 0), then one snapshot per update of z. The last
            snapshot equals the fitted state.
        """
        self.validate_params()
        X, y = check_X_y(X, y, max_abs=MAX_ABS_VALUE)
        self.classes_, y_pm = check_binary_labels(y)
        rng = check_random_state(self.random_state)
        n, d = X.shape
        Xt = np.hstack([np.ones((n, 1)), X])  # x~ = (1, x)
        z = np.zeros(d + 1)  # z = (-c, v)
        alpha = float(self.learning_rate)
        step = 0
        updates = 0

        def snapshot(epoch, index):
            scores = Xt @ z
            wrong = y_pm * scores <= 0
            n_wrong = int(np.count_nonzero(wrong))
            self._set_state(z, epoch, updates, n_wrong == 0)
            return PerceptronSnapshot(
                step=step,
                epoch=epoch,
                v=frozen_array(z[1:]),
                c=float(-z[0]),
                index=index,
                n_mistakes=n_wrong,
                cost=float(np.abs(scores[wrong]).sum()),
                converged=n_wrong == 0,
                progress=min(1.0, epoch / self.max_epochs),
            )

        snap = snapshot(0, None)
        yield snap
        if snap.converged:
            return
        for epoch in range(1, self.max_epochs + 1):
            if self.mode == "batch":
                wrong = y_pm * (Xt @ z) <= 0
                z = z + alpha * (y_pm[wrong, None] * Xt[wrong]).sum(axis=0)
                updates += 1
                step += 1
                snap = snapshot(epoch, None)
                yield snap
                if snap.converged:
                    return
                continue
            order = rng.permutation(n)
            pos = 0
            while pos < n:
                # z only changes at an update, so the next mistake in the visiting
                # order can be found for all remaining points at once.
                rest = order[pos:]
                wrong = np.flatnonzero(y_pm[rest] * (Xt[rest] @ z) <= 0)
                if wrong.size == 0:
                    break
                i = int(rest[wrong[0]])
                z = z + alpha * y_pm[i] * Xt[i]
                updates += 1
                step += 1
                pos += int(wrong[0]) + 1
                snap = snapshot(epoch, i)
                yield snap
                if snap.converged:
                    return

    def _set_state(self, z, epoch, updates, converged):
        self.coef_ = z[1:].copy()
        self.intercept_ = float(z[0])
        self.n_iter_ = epoch
        self.n_updates_ = updates
        self.converged_ = bool(converged)


from .logistic import LogisticRegression, LogisticSnapshot  # noqa: E402  (re-export)
