"""Soft-margin support vector machine trained through its dual by SMO.

Dual problem (course notation, labels y_i in {-1, +1}):

    max_alpha  sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j k(x_i, x_j)
    s.t.       0 <= alpha_i <= C,   sum_i y_i alpha_i = 0.

Decision function f(x) = sum_i alpha_i y_i k(x_i, x) + b.

SMO (Platt 1998; working-set selection of Fan, Chen & Lin 2005) changes two multipliers
at a time along the direction that keeps sum_i y_i alpha_i fixed, where the dual is a
1-D concave parabola maximised in closed form and clipped to the box.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ._base import (
    MAX_ABS_VALUE,
    BaseEstimator,
    ClassifierMixin,
    IterativeMixin,
    NotFittedError,
    Snapshot,
    check_array,
    check_binary_labels,
    check_scalar,
    check_X_y,
    frozen_array,
)
from ._params import Boolean, Integral, Interval, Options, RandomState, Real
from ._smo import SMOSolver
from ._smo_cache import KernelCache
from .kernels import KERNEL_PARAM_CONSTRAINTS, make_kernel

__all__ = ["SVM", "SVMSnapshot"]

@dataclass(frozen=True, kw_only=True, eq=False)
class SVMSnapshot(Snapshot):
    """State of SMO after a pair update.

    Attributes
    ----------
    pair : tuple of int or None
        (i, j), the two training indices just updated (None for the initial state).
    alpha : ndarray of shape (n_samples,)
        Dual variables (copy).
    b : float
        Intercept from the free support vectors (averaged).
    dual_objective : float
        sum alpha - 1/2 alpha^T Q alpha.
    kkt_gap : float
        m(alpha) - M(alpha), the maximal KKT violation; SMO stops when it is <= tol.
    n_support : int
        Number of alpha_i > 0.
    n_bounded : int
        Number of alpha_i == C (support vectors at the bound).
    train_error : float
        Fraction of training points misclassified by sign(f).
    class_index : int
        Index in ``classes_`` of the one-vs-rest problem being solved (0 for two classes).
    converged : bool
        True once the KKT gap is within ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.svm import SVM
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [2.0, 3.0], [3.0, 2.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> snaps = list(SVM(C=10.0, kernel="linear").fit_steps(X, y))
    >>> snaps[0].pair, snaps[1].pair, snaps[1].n_support
    (None, (3, 1), 2)
    >>> last = snaps[-1]
    >>> last.step, last.n_support, last.converged, bool(last.kkt_gap <= 1e-3)
    (7, 3, True, True)
    """

    pair: tuple[int, int] | None
    alpha: np.ndarray
    b: float
    dual_objective: float
    kkt_gap: float
    n_support: int
    n_bounded: int
    train_error: float
    class_index: int = 0
    converged: bool = False


# Largest kernel value k(x, x) accepted. SMO adds up C * K_ij over many pairs and squares
# gradient differences; kernel values up to 1e200 leave room for that in float64.
_MAX_KERNEL = 1e200


def _check_kernel_scale(X, kernel: str, degree, coef0) -> None:
    """Refuse data on which the kernel overflows (SMO would then produce NaN silently).

    |k(x_i, x_j)| <= max_i k(x_i, x_i) = max |x|^2 for the linear kernel (Cauchy-Schwarz),
    and <= (max |x|^2 + |coef0|)^degree for the polynomial one; RBF values lie in (0, 1].
    """
    if kernel == "rbf":
        return
    sq = float(np.einsum("ij,ij->i", X, X).max())  # finite: |x| <= MAX_ABS_VALUE
    with np.errstate(over="ignore"):
        bound = float(np.float64(sq + abs(float(coef0))) ** int(degree)) if kernel == "poly" else sq
    if not bound <= _MAX_KERNEL:
        hint = " or lower degree / coef0" if kernel == "poly" else ""
        raise ValueError(
            f"the {kernel} kernel takes values up to {bound:.3g} on this data, too large to "
            f"train reliably (limit {_MAX_KERNEL:.0e}); rescale the data{hint}"
        )


class SVM(ClassifierMixin, IterativeMixin, BaseEstimator):
    """Soft-margin kernel SVM solved in the dual by SMO.

    Writing G = Q alpha - 1 for the gradient of the (minimised) negative dual, with
    Q_ij = y_i y_j k(x_i, x_j), and F_t = -y_t G_t, the KKT conditions read

        m(alpha) = max_{t in I_up} F_t  <=  M(alpha) = min_{t in I_low} F_t,

    with I_up = {t : alpha_t < C, y_t = +1 or alpha_t > 0, y_t = -1} and I_low the mirror set.
    Each SMO step picks i = argmax_{I_up} F_t and (second-order rule) j in I_low with
    F_j < F_i minimising -(F_i - F_j)^2 / a_ij, a_ij = K_ii + K_jj - 2 K_ij, then moves

        alpha_i += y_i t,   alpha_j -= y_j t,   t = min((F_i - F_j) / a_ij, box limits),

    and updates F <- F - t (K[:, i] - K[:, j]) with two kernel columns. It stops when
    m - M <= tol. The intercept is b = mean of F_t over free support vectors (0 < alpha_t < C),
    or (m + M) / 2 when there are none.

    Parameters
    ----------
    C : float, default=1.0
        Box constraint (> 0); large C approaches the hard margin.
    kernel : {'rbf', 'linear', 'poly'}, default='rbf'
        The kernel k (see :mod:`smlengine.kernels`).
    gamma : float, default=1.0
        RBF width, k(x, y) = exp(-gamma ||x - y||^2) (> 0).
    degree : int, default=3
        Polynomial degree, k(x, y) = (<x, y> + coef0)^degree.
    coef0 : float, default=1.0
        Constant of the polynomial kernel.
    tol : float, default=1e-3
        Stopping tolerance on the KKT gap m - M.
    max_iter : int or None, default=None
        Maximal number of pair updates (None: max(100000, 100 n)).
    random_state : None, int or Generator
        Accepted for API symmetry; SMO with this selection rule is deterministic.
    cache_size : float, default=200
        Kernel column cache in MB (least recently used columns are dropped beyond it).
    shrinking : bool, default=True
        Drop bounded multipliers that are unlikely to move from the working set for a while
        (libsvm's heuristic); the gradient is reconstructed and optimality re-checked on all
        points before stopping, so the result meets the same tolerance.

    Attributes
    ----------
    classes_ : ndarray
        The labels; for two classes classes_[1] is the +1 class.
    alpha_ : ndarray of shape (n_samples,) or (K, n_samples)
        The dual variables alpha_i (one row per class for one-vs-rest).
    support_ : ndarray of int
        Indices of the training points with alpha_i > 0.
    support_vectors_ : ndarray of shape (n_support, n_features)
        The training points ``X[support_]``.
    dual_coef_ : ndarray
        alpha_i y_i of the support vectors.
    intercept_ : float or ndarray of shape (K,)
        The intercept b (one per class for one-vs-rest).
    dual_objective_ : float or ndarray of shape (K,)
        Value of the dual objective at the solution.
    n_iter_ : int or ndarray of shape (K,)
        Number of pair updates.
    kkt_gap_ : float
        Final m - M of the binary machine.
    estimators_ : list of SVM
        The binary one-vs-rest machines (more than two classes only).
    last_snapshot_ : SVMSnapshot
        The final state, as ``fit`` leaves it.

    Notes
    -----
    Data with |x| > 1e100 (:data:`smlengine._base.MAX_ABS_VALUE`), or on which the linear /
    polynomial kernel exceeds 1e200, is refused with a request to rescale: SMO would
    otherwise overflow to NaN without a word.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.svm import SVM
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [2.0, 3.0], [3.0, 2.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> svm = SVM(C=10.0, kernel="linear").fit(X, y)
    >>> svm.support_
    array([1, 2, 3])
    >>> print(np.round(svm.dual_coef_, 3), round(svm.intercept_, 3))
    [-0.222 -0.222  0.444] -1.667
    >>> svm.predict([[0.5, 0.5], [2.5, 2.5]])
    array([0, 1])
    """

    # C: |C k(x, x')| stays finite with kernel values up to 1e200; tol: F moves on the labels'
    # scale (m - M = 2 at alpha = 0), so a tol above 1 stops before the first step;
    # cache_size: 1e6 MB, far beyond any machine's memory (the cache takes what it needs)
    _parameter_constraints = {
        "C": [Interval(Real, 0, 1e100, closed="right")],
        "kernel": [Options(("rbf", "linear", "poly"))],
        **KERNEL_PARAM_CONSTRAINTS,
        "tol": [Interval(Real, 0, 1, closed="right")],
        "max_iter": [Interval(Integral, 1, 10**9), None],
        "random_state": [RandomState(), None],
        "cache_size": [Interval(Real, 0, 1e6, closed="right")],
        "shrinking": [Boolean()],
    }

    def __init__(
        self,
        C=1.0,
        kernel="rbf",
        gamma=1.0,
        degree=3,
        coef0=1.0,
        tol=1e-3,
        max_iter=None,
        random_state=None,
        cache_size=200.0,
        shrinking=True,
    ):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.cache_size = cache_size
        self.shrinking = shrinking

    # ------------------------------------------------------------------ validation
    def _validate(self):
        self.validate_params()  # the ranges in _parameter_constraints, before any work

    def _kernel_func(self):
        return make_kernel(self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0)

    # ------------------------------------------------------------------ training
    def fit(self, X, y):
        """Train to convergence; equivalent to exhausting ``fit_steps(X, y, snapshot_every=0)``."""
        last = None
        for last in self.fit_steps(X, y, snapshot_every=0):
            pass
        self.last_snapshot_ = last
        return self

    def fit_steps(self, X, y, snapshot_every=1):
        """Run SMO and yield snapshots.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), at least two distinct labels
        snapshot_every : int, default=1
            Yield after every ``snapshot_every`` pair updates (1: every update, for a live
            view). 0 yields only the initial and the final state (what ``fit`` uses).

        Yields
        ------
        SVMSnapshot
            Step 0 (alpha = 0), the requested intermediate states and always the final
            state, which equals the fitted model. With more than two classes the binary
            one-vs-rest problems are solved in turn (``class_index``), steps numbered
            continuously.
        """
        self._validate()
        check_scalar("snapshot_every", snapshot_every, numbers.Integral, min_value=0)
        X, y = check_X_y(X, y, max_abs=MAX_ABS_VALUE)
        classes = np.unique(y)
        if classes.size < 2:
            raise ValueError(f"an SVM needs at least two classes, got {classes.size} ({classes.tolist()})")
        for name in ("estimators_", "last_snapshot_"):
            self.__dict__.pop(name, None)
        _check_kernel_scale(X, self.kernel, self.degree, self.coef0)
        self._kernel_func()  # validates the kernel parameters
        # one-vs-rest keeps the multipliers of every binary machine (about 4 n-vectors each)
        extra = 4 * classes.size if classes.size > 2 else 0
        cols = KernelCache(X, self.kernel, self.gamma, self.degree, self.coef0, float(self.cache_size) * 2**20, extra)
        self._cache = cols
        self._fit_X = X
        self._y_pm = {}  # class_index -> labels +-1 of that binary problem (for snapshots)
        if classes.size == 2:
            self.classes_, y_pm = check_binary_labels(y)
            self._y_pm[0] = y_pm
            yield from self._smo(cols, y_pm, snapshot_every, 0, 0, self)
            cols.release()
            return
        self.classes_ = classes
        estimators = []
        step0 = 0
        for k, cls in enumerate(classes):
            est = SVM(**self.get_params())
            est.classes_ = np.array([-1, 1])
            est._fit_X = X
            y_pm = np.where(y == cls, 1.0, -1.0)
            self._y_pm[k] = y_pm
            # The kernel cache is shared: one-vs-rest problems use the same Gram matrix.
            last = None
            for last in self._smo(cols, y_pm, snapshot_every, k, step0, est):
                yield last
            step0 = last.step + 1
            estimators.append(est)
        self.estimators_ = estimators
        self.alpha_ = np.stack([e.alpha_ for e in estimators])
        self.support_ = np.flatnonzero(np.any(self.alpha_ > 0, axis=0))
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = np.stack([e._alpha_y[self.support_] for e in estimators])
        self.intercept_ = np.array([e.intercept_ for e in estimators])
        self.dual_objective_ = np.array([e.dual_objective_ for e in estimators])
        self.n_iter_ = np.array([e.n_iter_ for e in estimators])
        cols.release()

    def _smo(self, cache, y0, every, class_index, step0, target):
        """One binary SMO problem (see :class:`smlengine._smo.SMOSolver`), as snapshots."""
        n = y0.shape[0]
        C = float(self.C)
        max_iter = self.max_iter if self.max_iter is not None else max(100_000, 100 * n)
        solver = SMOSolver(cache, y0, C=C, tol=self.tol, max_iter=max_iter, shrinking=self.shrinking, every=every)
        target._shrink_stats = solver.stats  # tests, profiling
        step = step0
        for pair, converged in solver.run():
            alpha, b, dual, gap, err = solver.summary()
            target._set_state(cache.X, y0, alpha, b, dual, solver.it, C)
            target.kkt_gap_ = gap
            yield SVMSnapshot(
                step=step,
                pair=pair,
                alpha=frozen_array(alpha),
                b=b,
                dual_objective=dual,
                kkt_gap=gap,
                n_support=int(np.count_nonzero(alpha > 0)),
                n_bounded=int(np.count_nonzero(alpha >= C)),
                train_error=err,
                class_index=class_index,
                converged=converged,
                phase="SMO",
                progress=1.0 if converged else None,
            )
            step += 1

    def _set_state(self, X, y, alpha, b, dual, it, C):
        self.alpha_ = alpha.copy()
        self._alpha_y = self.alpha_ * y
        self.support_ = np.flatnonzero(alpha > 0)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = self._alpha_y[self.support_]
        self.intercept_ = float(b)
        self.dual_objective_ = float(dual)
        self.n_iter_ = int(it)

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X) -> np.ndarray:
        """f(x) = sum_i alpha_i y_i k(x_i, x) + b; shape (n,) or (n, K) for one-vs-rest."""
        self._check_fitted("alpha_")
        X = check_array(X, n_features=self._fit_X.shape[1], max_abs=MAX_ABS_VALUE)
        if hasattr(self, "estimators_"):
            return np.column_stack([e.decision_function(X) for e in self.estimators_])
        if self.support_.size == 0:
            return np.full(X.shape[0], self.intercept_)
        K = self._kernel_func()(X, self.support_vectors_)
        return K @ self.dual_coef_ + self.intercept_

    def snapshot_decision_function(self, snapshot: SVMSnapshot, X) -> np.ndarray:
        """f(x) of the machine in ``snapshot`` (e.g. a heat map during a live run).

        Uses the training data of the current/last ``fit_steps`` call; for one-vs-rest it is
        the binary problem ``snapshot.class_index``.
        """
        if not hasattr(self, "_y_pm"):
            raise NotFittedError("call fit_steps or fit before evaluating a snapshot")
        X = check_array(X, max_abs=MAX_ABS_VALUE)
        sv = np.flatnonzero(snapshot.alpha > 0)
        if sv.size == 0:
            return np.full(X.shape[0], snapshot.b)
        coef = snapshot.alpha[sv] * self._y_pm[snapshot.class_index][sv]
        return self._kernel_func()(X, self._fit_X[sv]) @ coef + snapshot.b

    def predict(self, X) -> np.ndarray:
        """sign(f(x)) mapped back to ``classes_`` (argmax of f for one-vs-rest)."""
        f = self.decision_function(X)
        if f.ndim == 2:
            return self.classes_[np.argmax(f, axis=1)]
        return np.where(f > 0, self.classes_[1], self.classes_[0])

    def kkt_violation(self) -> float:
        """The KKT gap m - M at the end of training (<= tol when SMO converged)."""
        self._check_fitted("alpha_")
        if hasattr(self, "estimators_"):
            return max(e.kkt_violation() for e in self.estimators_)
        return self.kkt_gap_
