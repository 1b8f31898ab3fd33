"""Regularised logistic regression trained by Newton/IRLS or gradient descent.

Course notation: x~ = (1, x), w = (w_0, v) so that f(x) = <w, x~> = <v, x> + w_0, labels
y_i in {-1, +1}, sigma(t) = 1 / (1 + exp(-t)) and P(y | x) = sigma(y f(x)).
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
    check_X_y,
    frozen_array,
)
from ._params import Integral, Interval, Options, Real

__all__ = ["LogisticRegression", "LogisticSnapshot"]

# Largest trial step of gradient descent. Doubling the last accepted step must stay
# finite: an infinite t would make every trial w + t d non-finite and halving inf
# never gets back to a finite step.
_MAX_STEP = 1e100


def _sigmoid(t):
    # exp of a non-positive number only, so no overflow warning for large |t|
    e = np.exp(-np.abs(t))
    return np.where(t >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


@dataclass(frozen=True, kw_only=True, eq=False)
class LogisticSnapshot(Snapshot):
    """State of logistic regression after one iteration.

    Attributes
    ----------
    w : ndarray of shape (n_features + 1,)
        (w_0, v): intercept first, then the coefficients.
    loss : float
        L(w) = sum_i log(1 + exp(-y_i <w, x~_i>)) + ||v||^2 / (2C).
    grad_norm : float
        Euclidean norm of the gradient of L at w.
    step_size : float
        Line-search step accepted for this iteration (0 for the initial state).
    converged : bool
        True once grad_norm <= tol.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.linear import LogisticRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> y = np.array([0, 0, 1, 0, 1, 1])
    >>> for s in LogisticRegression(C=10.0).fit_steps(X, y):
    ...     print(s.step, round(s.loss, 3), s.converged)
    0 4.159 False
    1 2.65 False
    2 2.55 False
    3 2.546 False
    4 2.546 False
    5 2.546 True
    >>> print(np.round(s.coef, 3), round(s.intercept, 3))
    [1.126] -2.816
    """

    w: np.ndarray
    loss: float
    grad_norm: float
    step_size: float
    converged: bool

    @property
    def coef(self) -> np.ndarray:
        """v, the coefficients (a view of ``w[1:]``)."""
        return self.w[1:]

    @property
    def intercept(self) -> float:
        """w_0, the intercept."""
        return float(self.w[0])

    def decision_function(self, X) -> np.ndarray:
        """f(x) = <v, x> + w_0 of the model in this snapshot."""
        return np.asarray(X, dtype=np.float64) @ self.w[1:] + self.w[0]


class LogisticRegression(ClassifierMixin, LinearClassifierMixin, IterativeMixin, BaseEstimator):
    """L2-regularised logistic regression (the intercept w_0 is not penalised).

    Minimises

        L(w) = sum_i log(1 + exp(-y_i <w, x~_i>)) + ||v||^2 / (2C)

    whose gradient and Hessian are

        g = -sum_i sigma(-y_i <w, x~_i>) y_i x~_i + (0, v) / C,
        H = sum_i s_i (1 - s_i) x~_i x~_i^T + diag(0, 1/C, ..., 1/C),  s_i = sigma(<w, x~_i>).

    * ``solver='newton'`` (IRLS): d = -H^{-1} g, then w <- w + t d with t halved from 1 until
      the Armijo condition L(w + t d) <= L(w) + 1e-4 t <g, d> holds, so L never increases.
    * ``solver='gd'``: d = -g with the same backtracking, starting from twice the previous
      accepted step (initially ``learning_rate``).

    Stops when ||g|| <= tol or after ``max_iter`` iterations. The scale matches
    scikit-learn's ``LogisticRegression(C=C)``, which minimises C * sum log(...) + ||v||^2 / 2.

    Parameters
    ----------
    C : float, default=1.0
        Inverse regularisation strength (> 0, at least 1e-100).
    solver : {'newton', 'gd'}, default='newton'
        Newton's method (IRLS) or gradient descent, both with backtracking.
    max_iter : int, default=100
        Maximal number of iterations.
    tol : float, default=1e-6
        Tolerance on the gradient norm.
    learning_rate : float, default=1.0
        First trial step of gradient descent (0 < learning_rate <= 1e6). Later trial steps
        double the last accepted one, up to 1e100.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        v, the coefficients.
    intercept_ : float
        w_0, the intercept.
    classes_ : ndarray of shape (2,)
        The two labels; classes_[1] is the +1 class.
    n_iter_ : int
        Iterations run.
    loss_ : float
        L(w) at the solution.
    converged_ : bool
        True when the gradient norm reached ``tol``.

    Notes
    -----
    X may hold values up to 1e100 in absolute value (see :data:`smlengine._base.MAX_ABS_VALUE`);
    larger ones are refused with a request to rescale.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.linear import LogisticRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> y = np.array([0, 0, 1, 0, 1, 1])
    >>> clf = LogisticRegression(C=10.0).fit(X, y)
    >>> clf.converged_, clf.n_iter_
    (True, 5)
    >>> print(np.round(clf.coef_, 3), round(clf.intercept_, 3))
    [1.126] -2.816
    >>> print(np.round(clf.predict_proba([[0.0], [2.5], [5.0]]), 3))
    [[0.944 0.056]
     [0.5   0.5  ]
     [0.056 0.944]]
    >>> clf.predict([[0.0], [5.0]])
    array([0, 1])
    """

    _multi_class = False  # two classes exactly

    _parameter_constraints = {
        # 1/C multiplies ||v||^2: a C below 1e-100 overflows the penalty to inf; above 1e100
        # the penalty is below rounding and the model is the unpenalised one
        "C": [Interval(Real, 1e-100, 1e100)],
        "solver": [Options(("newton", "gd"))],
        "max_iter": [Interval(Integral, 1, 10_000_000)],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "learning_rate": [Interval(Real, 0, 1e6, closed="right")],
    }

    def __init__(self, C=1.0, solver="newton", max_iter=100, tol=1e-6, learning_rate=1.0):
        self.C = C
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.learning_rate = learning_rate

    def fit_steps(self, X, y):
        """Train iteration by iteration.

        Yields
        ------
        LogisticSnapshot
            The initial state w = 0 (step 0), then one snapshot per accepted iteration.
            The last snapshot equals the fitted state.
        """
        self.validate_params()
        X, y = check_X_y(X, y, max_abs=MAX_ABS_VALUE)
        self.classes_, y_pm = check_binary_labels(y)
        n, d = X.shape
        Xt = np.hstack([np.ones((n, 1)), X])
        inv_c = 1.0 / float(self.C)
        pen = np.full(d + 1, inv_c)
        pen[0] = 0.0  # intercept not penalised

        def loss_of(w):
            return float(np.logaddexp(0.0, -y_pm * (Xt @ w)).sum() + 0.5 * inv_c * (w[1:] @ w[1:]))

        def grad_of(w):
            s = _sigmoid(-y_pm * (Xt @ w))
            return -(Xt.T @ (s * y_pm)) + pen * w

        w = np.zeros(d + 1)
        loss = loss_of(w)
        g = grad_of(w)
        step = 0
        t_prev = float(self.learning_rate)

        def snapshot(t):
            gn = float(np.linalg.norm(g))
            self._set_state(w, loss, step, gn <= self.tol)
            return LogisticSnapshot(
                step=step, w=frozen_array(w), loss=loss, grad_norm=gn, step_size=float(t),
                converged=gn <= self.tol, progress=step / self.max_iter,
            )

        snap = snapshot(0.0)
        yield snap
        while not snap.converged and step < self.max_iter:
            if self.solver == "newton":
                s = _sigmoid(Xt @ w)
                H = (Xt * (s * (1.0 - s))[:, None]).T @ Xt + np.diag(pen)
                try:
                    direction = -np.linalg.solve(H, g)
                except np.linalg.LinAlgError:
                    direction = -np.linalg.lstsq(H, g, rcond=None)[0]
                if g @ direction >= 0:  # singular H on separable data without penalty
                    direction = -g
                t = 1.0
            else:
                direction = -g
                t = min(2.0 * t_prev, _MAX_STEP)
            slope = float(g @ direction)
            while True:
                with np.errstate(over="ignore", invalid="ignore"):
                    w_new = w + t * direction
                    # a step so long that w overflows counts as a failed trial (loss inf)
                    loss_new = loss_of(w_new) if np.all(np.isfinite(w_new)) else np.inf
                if loss_new <= loss + 1e-4 * t * slope or t < 1e-20:
                    break
                t *= 0.5
            if not loss_new <= loss:  # no descent possible in floating point (or NaN): stop here
                break
            w, loss, t_prev = w_new, loss_new, t
            g = grad_of(w)
            step += 1
            snap = snapshot(t)
            yield snap

    def _set_state(self, w, loss, it, converged):
        self.coef_ = w[1:].copy()
        self.intercept_ = float(w[0])
        self.loss_ = float(loss)
        self.n_iter_ = int(it)
        self.converged_ = bool(converged)

    def predict_proba(self, X) -> np.ndarray:
        """Columns P(classes_[0] | x), P(classes_[1] | x) = sigma(f(x))."""
        p = _sigmoid(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

