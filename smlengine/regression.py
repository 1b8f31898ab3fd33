"""Linear regression: least squares, ridge and lasso, basis functions and bias against variance.

Objectives (the course's, and scikit-learn's own, so the same α gives the same coefficients):

* least squares: minimise ‖y − Xw − b‖²; ŵ solves the normal equations XᵀX w = Xᵀy on centred
  data, computed by ``numpy.linalg.lstsq`` (SVD), never by inverting XᵀX; or by gradient
  descent on L(w) = (1/2n)‖y_c − X_c w‖², w ← w − η (1/n) X_cᵀ(X_c w − y_c);
* ridge: minimise ‖y − Xw − b‖² + α‖w‖² (scikit-learn's ``Ridge``); on centred data
  ŵ = (X_cᵀX_c + αI)⁻¹X_cᵀy_c, the intercept b = ȳ − x̄ᵀŵ is not penalised;
* lasso: minimise (1/2n)‖y − Xw − b‖² + α‖w‖₁ (scikit-learn's ``Lasso``) by coordinate
  descent with soft thresholding, one coordinate per step:
  w_j ← S(x_jᵀ(r + x_j w_j)/n, α) / (‖x_j‖²/n), S(z, α) = sign(z) max(|z| − α, 0).

``ridge_path`` and ``lasso_path`` fit no intercept (the caller centres), as scikit-learn's
``lasso_path``. Basis functions (:class:`PolynomialBasis`, :class:`GaussianBasis`) turn a
1-D input x into features, and :class:`BasisRegression` chains a basis with a regressor.
:func:`bias_variance` redraws training sets from a known truth and splits the expected error.

The bases are defined in :mod:`smlengine.basis`, the bias–variance tools in
:mod:`smlengine._bias_variance`; this module re-exports them beside the regressors, the
regularisation paths and :class:`BasisRegression`.
"""

from __future__ import annotations

import copy
import math
import numbers
from dataclasses import dataclass

import numpy as np

from ._base import (
    MAX_ABS_VALUE,
    BaseEstimator,
    IterativeMixin,
    RegressorMixin,
    Snapshot,
    check_array,
    check_choice,
    check_scalar,
    frozen_array,
)
from ._bias_variance import BiasVariance, bias_variance, cross_val_mse
from ._params import Boolean, Integral, Interval, Options, Real
from ._regression_checks import check_x, check_xy
from .basis import MAX_CENTRES, MAX_DEGREE, GaussianBasis, PolynomialBasis  # noqa: F401 (MAX_CENTRES re-exported)

__all__ = [
    "LinearRegression",
    "Ridge",
    "Lasso",
    "RegressionSnapshot",
    "ridge_path",
    "lasso_path",
    "lasso_alpha_max",
    "PolynomialBasis",
    "GaussianBasis",
    "BasisRegression",
    "BiasVariance",
    "bias_variance",
    "cross_val_mse",
    "clone",
    "soft_threshold",
    "MAX_DEGREE",
]

#: most iterations (gradient steps, coordinate sweeps) a fit may take
MAX_ITER = 1_000_000


# --------------------------------------------------------------------------- helpers
def soft_threshold(z, t):
    """S(z, t) = sign(z) max(|z| − t, 0), the proximal step of t|w|.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.regression import soft_threshold
    >>> print(soft_threshold(np.array([-2.0, 0.5, 3.0]), 1.0))
    [-1.  0.  2.]
    """
    return np.sign(z) * np.maximum(np.abs(z) - t, 0.0)


def clone(estimator):
    """A new unfitted estimator with the same hyper-parameters (nested ones cloned too).

    Examples
    --------
    >>> from smlengine.regression import Ridge, clone
    >>> r = clone(Ridge(alpha=2.0).fit([[0.0], [1.0]], [0.0, 1.0]))
    >>> r.alpha, hasattr(r, "coef_")
    (2.0, False)
    """
    params = estimator.get_params(deep=False)
    params = {k: clone(v) if _is_estimator(v) else copy.deepcopy(v) for k, v in params.items()}
    return type(estimator)(**params)


def _is_estimator(value) -> bool:
    return hasattr(value, "get_params") and not isinstance(value, type)


def _centre(X, y, fit_intercept: bool):
    if fit_intercept:
        x_mean, y_mean = X.mean(axis=0), float(y.mean())
        return X - x_mean, y - y_mean, x_mean, y_mean
    return X, y, np.zeros(X.shape[1]), 0.0


class _RegressorMixin(RegressorMixin):
    """R² score and scikit-learn's regressor tags; fitted once ``coef_`` exists."""

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "coef_")


class _LinearModel(_RegressorMixin, IterativeMixin, BaseEstimator):
    def predict(self, X) -> np.ndarray:
        """ŷ = Xŵ + b."""
        self._check_fitted("coef_")
        X = check_array(X, n_features=self.coef_.shape[0], max_abs=MAX_ABS_VALUE)
        return X @ self.coef_ + self.intercept_

    def _snapshot(self, step, w, x_mean, y_mean, objective, **extra):
        return RegressionSnapshot(step=step, coef=frozen_array(w), intercept=float(y_mean - x_mean @ w),
                                  objective=float(objective), **extra)

    def _finish(self, snap, n_iter, converged=True):
        self.coef_ = np.array(snap.coef)
        self.intercept_ = snap.intercept
        self.n_iter_ = n_iter
        self.converged_ = converged


@dataclass(frozen=True, kw_only=True, eq=False)
class RegressionSnapshot(Snapshot):
    """State of a linear regression after one update.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        Current weights w.
    intercept : float
        Current intercept b = ȳ − x̄ᵀw (0 without an intercept).
    objective : float
        The estimator's objective at w (its docstring states which).
    coordinate : int
        The coordinate just updated (lasso), else -1.
    sweep : int
        Pass over the coordinates (lasso) or iteration (gradient descent).
    gap : float
        Lasso: duality gap after the last complete sweep (an upper bound on the distance
        to the optimal objective); gradient descent: norm of the gradient; else 0.
    converged : bool
        True once the stopping rule holds.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.regression import Lasso, LinearRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([1.0, 3.0, 5.0, 7.0])
    >>> for s in LinearRegression(solver="gd", max_iter=3).fit_steps(X, y):
    ...     print(s.step, np.round(s.coef, 3), round(s.intercept, 3), round(s.objective, 3))
    0 [0.] 4.0 2.5
    1 [2.] 1.0 0.0
    >>> print(np.round(s.predict([[4.0]]), 3))
    [9.]
    >>> X2 = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> [(s.step, s.coordinate, s.sweep) for s in Lasso(alpha=0.1).fit_steps(X2, y)]
    [(0, -1, 0), (1, 0, 1), (2, 1, 1)]
    """

    coef: np.ndarray
    intercept: float
    objective: float
    coordinate: int = -1
    sweep: int = 0
    gap: float = 0.0
    converged: bool = False

    def predict(self, X) -> np.ndarray:
        """ŷ = Xw + b of the model in this snapshot."""
        return np.asarray(X, dtype=np.float64) @ self.coef + self.intercept


# --------------------------------------------------------------------------- least squares
class LinearRegression(_LinearModel):
    """Ordinary least squares: ŵ = argmin ‖y − Xw − b‖².

    On centred data the minimiser solves the normal equations X_cᵀX_c w = X_cᵀy_c and
    b = ȳ − x̄ᵀw. ``solver='lstsq'`` solves them by ``numpy.linalg.lstsq`` (an SVD of X_c,
    never the inverse of XᵀX). ``solver='gd'`` runs gradient descent on
    L(w) = (1/2n)‖y_c − X_c w‖²:

        w ← w − η ∇L(w),  ∇L(w) = (1/n) X_cᵀ(X_c w − y_c),

    with η = ``learning_rate`` or, when ``None``, 1/λ_max(X_cᵀX_c/n) (the largest step for
    which L never increases). It stops when ‖∇L‖ ≤ ``tol`` · max(1, ‖X_cᵀy_c‖/n) or after
    ``max_iter`` steps.

    A design of rank below its number of columns (fewer points than parameters, a constant
    input, repeated x values for a high degree) has infinitely many least-squares solutions:
    ``fit`` raises ``ValueError`` and suggests ridge, whose XᵀX + αI is invertible for any α > 0.

    Parameters
    ----------
    solver : {'lstsq', 'gd'}, default='lstsq'
        Least squares by SVD, or gradient descent.
    fit_intercept : bool, default=True
        Fit b (on centred data); False forces b = 0.
    learning_rate : float or None, default=None
        η of gradient descent; None for 1/λ_max(X_cᵀX_c/n).
    max_iter : int, default=5000
        Largest number of gradient steps.
    tol : float, default=1e-8
        Relative tolerance on ‖∇L‖.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        ŵ.
    intercept_ : float
        b.
    rank_ : int
        Rank of the centred design.
    n_iter_ : int
        Updates made (1 for 'lstsq').
    converged_ : bool
        Whether the stopping rule held.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.regression import LinearRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([1.0, 3.0, 5.0, 7.0])
    >>> ols = LinearRegression().fit(X, y)
    >>> print(np.round(ols.coef_, 3), round(ols.intercept_, 3), ols.rank_)
    [2.] 1.0 1
    >>> print(np.round(ols.predict([[4.0]]), 3))
    [9.]
    >>> gd = LinearRegression(solver="gd", tol=1e-6).fit(X, y)
    >>> print(np.round(gd.coef_, 3), gd.converged_)
    [2.] True
    """

    _parameter_constraints = {
        "solver": [Options(("lstsq", "gd"))],
        "fit_intercept": [Boolean()],
        "learning_rate": [Interval(Real, 0, None, closed="neither"), None],
        "max_iter": [Interval(Integral, 1, MAX_ITER)],
        "tol": [Interval(Real, 0, None)],
    }

    def __init__(self, solver="lstsq", fit_intercept=True, learning_rate=None, max_iter=5000, tol=1e-8):
        self.solver = solver
        self.fit_intercept = fit_intercept
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol

    def _validate(self):
        self.validate_params()

    def fit_steps(self, X, y):
        """Yield a :class:`RegressionSnapshot` per update (objective (1/2n)‖y − Xw − b‖²).

        Yields
        ------
        RegressionSnapshot
            Step 0 is w = 0; ``lstsq`` then yields the solution, ``gd`` one snapshot per
            gradient step (``gap`` holds ‖∇L‖).
        """
        self._validate()
        X, y = check_xy(X, y)
        Xc, yc, x_mean, y_mean = _centre(X, y, self.fit_intercept)
        n, p = Xc.shape
        s = np.linalg.svd(Xc, compute_uv=False)
        rank = int(np.sum(s > s[0] * max(n, p) * np.finfo(float).eps)) if s.size and s[0] > 0 else 0
        self.rank_ = rank
        if rank < p:
            raise ValueError(_rank_message(n, p, rank, self.fit_intercept))

        def objective(w):
            r = yc - Xc @ w
            return 0.5 * float(r @ r) / n

        w = np.zeros(p)
        yield self._snapshot(0, w, x_mean, y_mean, objective(w))
        if self.solver == "lstsq":
            w = np.linalg.lstsq(Xc, yc, rcond=None)[0]
            snap = self._snapshot(1, w, x_mean, y_mean, objective(w), converged=True)
            self._finish(snap, 1)
            yield snap
            return
        s0 = float(s[0])
        # λ_max = s0²/n under- or overflows for inputs near 1e-300 or 1e300: the default step then
        # runs on X_c/c with c = s0/√n (λ_max = 1, η = 1), the same iterates w = v/c in exact
        # arithmetic, and the stopping rule reads the gradient of that scaled problem
        c = s0 / math.sqrt(n) if self.learning_rate is None and not _SAFE_SPREAD[0] < s0 < _SAFE_SPREAD[1] else 1.0
        Xg = Xc if c == 1.0 else Xc / c
        with np.errstate(over="ignore", divide="ignore", under="ignore"):
            limit = float(2 * n / np.float64(s0 / c) ** 2)  # 2/λ_max, the largest stable step (∞ when λ_max is 0)
        eta = self.learning_rate if self.learning_rate is not None else limit / 2
        Xty = Xg.T @ yc / n
        scale = max(1.0, float(np.linalg.norm(Xty)))
        grad = -Xty
        v = w * c
        snap = None
        start = objective(w)
        for it in range(1, self.max_iter + 1):
            with np.errstate(over="ignore", invalid="ignore"):
                v = v - eta * grad
                grad = Xg.T @ (Xg @ v - yc) / n
                g = float(np.linalg.norm(grad))
                w = v / c
                loss = objective(w)
            if not (math.isfinite(g) and math.isfinite(loss)) or loss > 1e6 * start + 1e-300:
                raise ValueError(f"gradient descent diverged at step {it}: learning_rate = {eta:.3g} is too large "
                                 f"for this data (it must be below 2/λ_max = {limit:.3g})")
            done = g <= self.tol * scale
            snap = self._snapshot(it, w, x_mean, y_mean, loss, sweep=it, gap=g, converged=done)
            if done or it == self.max_iter:
                self._finish(snap, it, done)
            yield snap
            if done:
                return


#: the largest singular value of the centred design for which gradient descent's default step
#: n/s0² is computed as it is (outside, the problem is scaled first: see LinearRegression.fit_steps)
_SAFE_SPREAD = (1e-150, 1e150)


def _rank_message(n, p, rank, intercept):
    params = p + int(bool(intercept))
    if n < params:
        why = f"there are fewer points ({n}) than parameters ({params})"
    else:
        why = (f"the {p} feature columns are linearly dependent (rank {rank}): a constant input or too few "
               "distinct x values")
    return (f"least squares has infinitely many solutions: {why}, so XᵀX is singular. "
            "Use ridge (λ > 0 makes XᵀX + λI invertible) or a smaller basis, or add points.")


# --------------------------------------------------------------------------- ridge
class Ridge(_LinearModel):
    """Ridge regression, scikit-learn's objective ‖y − Xw − b‖² + α‖w‖².

    The intercept is not penalised: on centred data ŵ = (X_cᵀX_c + αI)⁻¹X_cᵀy_c, computed
    from the SVD X_c = U diag(s) Vᵀ as ŵ = V diag(s / (s² + α)) Uᵀy_c, and b = ȳ − x̄ᵀŵ. For
    any α > 0 the matrix X_cᵀX_c + αI is positive definite, so the solution is unique even
    with fewer points than features.

    Parameters
    ----------
    alpha : float, default=1.0
        α >= 0, the penalty's weight.
    fit_intercept : bool, default=True
        Fit the unpenalised b; False forces b = 0.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        ŵ.
    intercept_ : float
        b.
    n_iter_ : int
        1 (closed form).
    converged_ : bool
        Always True.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.regression import Ridge
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([1.0, 3.0, 5.0, 7.0])
    >>> r = Ridge(alpha=5.0).fit(X, y)
    >>> print(np.round(r.coef_, 3), round(r.intercept_, 3))
    [1.] 2.5
    """

    _parameter_constraints = {
        # α joins s² ≤ (n · 1e200) in s / (s² + α); beyond 1e100 ŵ is 0 to working precision
        "alpha": [Interval(Real, 0, 1e100)],
        "fit_intercept": [Boolean()],
    }

    def __init__(self, alpha=1.0, fit_intercept=True):
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    def fit_steps(self, X, y):
        """Yield w = 0 (step 0), then the closed-form solution (step 1).

        Yields
        ------
        RegressionSnapshot
            ``objective`` is ‖y − Xw − b‖² + α‖w‖².
        """
        self.validate_params()
        X, y = check_xy(X, y)
        Xc, yc, x_mean, y_mean = _centre(X, y, self.fit_intercept)
        if self.alpha == 0:
            s = np.linalg.svd(Xc, compute_uv=False)
            rank = int(np.sum(s > s[0] * max(Xc.shape) * np.finfo(float).eps)) if s[0] > 0 else 0
            if rank < Xc.shape[1]:
                raise ValueError("alpha = 0 is least squares: " + _rank_message(*Xc.shape, rank, self.fit_intercept))

        def objective(w):
            r = yc - Xc @ w
            return float(r @ r) + self.alpha * float(w @ w)

        w = np.zeros(Xc.shape[1])
        yield self._snapshot(0, w, x_mean, y_mean, objective(w))
        w = ridge_path(Xc, yc, [self.alpha])[1][:, 0]
        snap = self._snapshot(1, w, x_mean, y_mean, objective(w), converged=True)
        self._finish(snap, 1)
        yield snap


def ridge_path(X, y, alphas):
    """Ridge coefficients for each α, without intercept (centre X and y first).

    w(α) = V diag(s / (s² + α)) Uᵀy from one SVD X = U diag(s) Vᵀ; ``alphas`` are returned
    in decreasing order, as :func:`lasso_path` does.

    Returns
    -------
    alphas : ndarray of shape (n_alphas,)
        The α, decreasing.
    coefs : ndarray of shape (n_features, n_alphas)
        w(α), one column per α.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.regression import ridge_path
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> alphas, coefs = ridge_path(X, [2.0, 1.0, -2.0, -1.0], alphas=[0.0, 2.0])
    >>> print(alphas, np.round(coefs, 3))
    [2. 0.] [[1.  2. ]
     [0.5 1. ]]
    """
    X, y = check_xy(X, y)
    alphas = _check_alphas(alphas)
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    Uty = U.T @ y
    with np.errstate(divide="ignore", invalid="ignore"):
        factors = np.where(s[:, None] > 0, s[:, None] / (s[:, None] ** 2 + alphas[None, :]), 0.0)
    return alphas, Vt.T @ (factors * Uty[:, None])


def _check_alphas(alphas) -> np.ndarray:
    try:
        a = np.asarray(alphas, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise ValueError("alphas must be numbers") from None
    if a.size == 0:
        raise ValueError("alphas must hold at least one value")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError("alphas must be finite and >= 0")
    return np.sort(a)[::-1].copy()


# --------------------------------------------------------------------------- lasso
class Lasso(_LinearModel):
    """The lasso, scikit-learn's objective (1/2n)‖y − Xw − b‖² + α‖w‖₁, by coordinate descent.

    On centred data (the intercept b = ȳ − x̄ᵀw is not penalised), each step minimises the
    objective exactly along one coordinate j, cyclically:

        ρ_j = x_jᵀ(r + x_j w_j) / n,   w_j ← S(ρ_j, α) / (‖x_j‖²/n),   r = y_c − X_c w,

    with S the soft threshold, so the objective never increases. After each sweep over all
    coordinates the duality gap G(w) ≥ P(w) − P(ŵ) is computed; the run stops when
    G ≤ ``tol`` · ‖y_c‖²/n (scikit-learn's rule) or after ``max_iter`` sweeps. A coordinate
    whose soft threshold lands in the dead zone |ρ_j| ≤ α is exactly zero: this is why the
    lasso selects features.

    Parameters
    ----------
    alpha : float, default=1.0
        α >= 0, the weight of the L1 penalty.
    fit_intercept : bool, default=True
        Fit the unpenalised b; False forces b = 0.
    tol : float, default=1e-6
        Relative tolerance on the duality gap.
    max_iter : int, default=1000
        Largest number of sweeps.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        ŵ (exact zeros for the dropped features).
    intercept_ : float
        b.
    n_iter_ : int
        Sweeps made.
    converged_ : bool
        Whether the duality gap reached the tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.regression import Lasso
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> y = np.array([1.0, 3.0, 5.0, 7.0])
    >>> las = Lasso(alpha=0.1).fit(X, y)
    >>> print(np.round(las.coef_, 3), round(las.intercept_, 3), las.converged_)
    [1.92 0.  ] 1.12 True
    """

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, 1e100)],
        "fit_intercept": [Boolean()],
        "tol": [Interval(Real, 0, None)],
        "max_iter": [Interval(Integral, 1, MAX_ITER)],
    }

    def __init__(self, alpha=1.0, fit_intercept=True, tol=1e-6, max_iter=1000):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter

    def fit_steps(self, X, y):
        """Yield a :class:`RegressionSnapshot` after every coordinate update.

        Yields
        ------
        RegressionSnapshot
            ``coordinate`` is j just updated, ``sweep`` the pass (1-based), ``objective``
            (1/2n)‖y − Xw − b‖² + α‖w‖₁, ``gap`` the duality gap of the last complete sweep.
        """
        self.validate_params()
        X, y = check_xy(X, y)
        Xc, yc, x_mean, y_mean = _centre(X, y, self.fit_intercept)
        n, p = Xc.shape
        alpha = float(self.alpha)
        norms = np.einsum("ij,ij->j", Xc, Xc) / n
        w = np.zeros(p)
        r = yc.copy()
        bound = self.tol * float(yc @ yc) / n

        def objective():
            return 0.5 * float(r @ r) / n + alpha * float(np.abs(w).sum())

        gap = _duality_gap(Xc.T @ r, r, yc, w, n * alpha) / n
        yield self._snapshot(0, w, x_mean, y_mean, objective(), gap=gap)
        step = 0
        for sweep in range(1, self.max_iter + 1):
            for j in range(p):
                step += 1
                if norms[j] > 0:
                    old = w[j]
                    rho = float(Xc[:, j] @ r) / n + norms[j] * old
                    new = math.copysign(max(abs(rho) - alpha, 0.0), rho) / norms[j]
                    if new != old:
                        r -= (new - old) * Xc[:, j]
                        w[j] = new
                last = j == p - 1
                if last:
                    gap = _duality_gap(Xc.T @ r, r, yc, w, n * alpha) / n
                done = last and gap <= bound
                snap = self._snapshot(step, w, x_mean, y_mean, objective(), coordinate=j, sweep=sweep,
                                      gap=gap, converged=done)
                if done or (last and sweep == self.max_iter):
                    self._finish(snap, sweep, done)
                yield snap
                if done:
                    return


def _duality_gap(c, r, y, w, lam):
    """Gap of ½‖y − Xw‖² + λ‖w‖₁ given c = Xᵀr and r = y − Xw (dual point θ = r·min(1, λ/‖c‖∞), as scikit-learn)."""
    rr = float(r @ r)
    dual_norm = float(np.max(np.abs(c))) if c.size else 0.0
    if dual_norm > lam:
        const = lam / dual_norm
        gap = 0.5 * (rr + rr * const * const)
    else:
        const = 1.0
        gap = rr
    return max(gap + lam * float(np.abs(w).sum()) - const * float(r @ y), 0.0)


def lasso_alpha_max(X, y) -> float:
    """The smallest α whose lasso solution (no intercept) is w = 0: ‖Xᵀy‖∞ / n.

    Examples
    --------
    >>> from smlengine.regression import lasso_alpha_max
    >>> lasso_alpha_max([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]], [2.0, 1.0, -2.0, -1.0])
    1.0
    """
    X, y = check_xy(X, y)
    return float(np.max(np.abs(X.T @ y))) / X.shape[0]


def lasso_path(X, y, alphas=None, *, n_alphas=100, eps=1e-3, tol=1e-4, max_iter=1000, precompute="auto"):
    """Lasso coefficients along a path of α, without intercept, as scikit-learn's ``lasso_path``.

    Objective at each α: (1/2n)‖y − Xw‖² + α‖w‖₁. ``alphas``
    (sorted decreasing) or, when ``None``, ``n_alphas`` values log-spaced from
    α_max = ‖Xᵀy‖∞/n down to ``eps``·α_max. Each α starts from the previous solution (warm
    start). With the Gram matrix G = XᵀX and q = Xᵀy (``precompute``: 'auto' uses them when
    n ≥ p), a coordinate update costs O(p): with c = q − Gw,

        z = c_j + G_jj w_j,   w_j ← S(z, nα) / G_jj,   c ← c − G_{:,j} Δw_j.

    Coordinate sweeps run over a working set: the nonzero coordinates and those kept by the
    sequential strong rule |c_j| ≥ n(2α_k − α_{k−1}); after the set has converged, every
    coordinate is checked (|c_j| ≤ nα for the zeros) and violators join it. An α is done
    when the duality gap is ≤ ``tol``·‖y‖² (scikit-learn's rule on its n-scaled objective).
    Before the sweeps, and whenever a sweep leaves the signs of w as they were, an exact sign
    step is tried: with A = {j : w_j ≠ 0} and s = sign(w_A), w_A = G_AA⁻¹(q_A − nα s) is the
    solution if its signs are s and |c_j| ≤ nα off A (the optimality conditions), checked
    before it is taken.

    Returns
    -------
    alphas : ndarray of shape (n_alphas,)
        The α, decreasing.
    coefs : ndarray of shape (n_features, n_alphas)
        w(α), one column per α.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.regression import lasso_path
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> alphas, coefs = lasso_path(X, [2.0, 1.0, -2.0, -1.0], alphas=[1.0, 0.5, 0.0])
    >>> print(alphas, np.round(coefs, 3))
    [1.  0.5 0. ] [[0. 1. 2.]
     [0. 0. 1.]]
    """
    X, y = check_xy(X, y)
    check_scalar("n_alphas", n_alphas, numbers.Integral, min_value=1, max_value=100_000)
    check_scalar("eps", eps, numbers.Real, min_value=0, max_value=1, include_min=False)
    check_scalar("tol", tol, numbers.Real, min_value=0)
    check_scalar("max_iter", max_iter, numbers.Integral, min_value=1)
    check_choice("precompute", precompute, ("auto", True, False))
    n, p = X.shape
    q = X.T @ y
    if alphas is None:
        a_max = float(np.max(np.abs(q))) / n
        if a_max <= 0:
            alphas = np.zeros(n_alphas)
        else:
            alphas = np.geomspace(a_max, a_max * eps, n_alphas) if n_alphas > 1 else np.array([a_max])
    else:
        alphas = _check_alphas(alphas)
    use_gram = (n >= p) if precompute == "auto" else bool(precompute)
    coefs = np.empty((p, len(alphas)))
    bound = tol * float(y @ y)
    if use_gram:
        G = _gram(X)
        _gram_path(G, q, float(y @ y), n, alphas, bound, max_iter, coefs)
    else:
        _residual_path(X, y, alphas, bound, max_iter, coefs)
    return alphas, coefs


def _gram(X):
    """XᵀX (numpy hands ``X.T @ X`` to BLAS's symmetric rank-k update)."""
    return X.T @ X


def _gram_gap(G, q, yy, w, c, lam):
    """Duality gap of ½‖y − Xw‖² + λ‖w‖₁ from the Gram matrix.

    ‖r‖² = yᵀy − wᵀ(q + c) and rᵀy = yᵀy − wᵀq, so no residual of length n is needed."""
    wq = float(w @ q)
    rr = max(yy - wq - float(w @ c), 0.0)
    dual_norm = float(np.max(np.abs(c))) if c.size else 0.0
    if dual_norm > lam:
        const = lam / dual_norm
        gap = 0.5 * (rr + rr * const * const)
    else:
        const = 1.0
        gap = rr
    return gap + lam * float(np.abs(w).sum()) - const * (yy - wq)


def _gram_path(G, q, yy, n, alphas, bound, max_iter, coefs, screening=True):
    p = len(q)
    w = np.zeros(p)
    c = q.copy()  # Xᵀr = q − G w
    diag = np.diag(G).copy()
    columns = [G[:, j] for j in range(p)]
    prev_lam = n * float(alphas[0])
    for k, alpha in enumerate(alphas):
        lam = n * float(alpha)
        strong = np.abs(c) >= 2 * lam - prev_lam
        prev_lam = lam
        if _sign_step(G, q, w, c, lam):
            coefs[:, k] = w
            continue
        keep = (strong | (w != 0)) if screening else np.ones(p, dtype=bool)
        working = np.flatnonzero(keep & (diag > 0)).tolist()
        signs = np.sign(w)
        tried = signs.copy()  # the sign pattern of the last failed sign step: not tried again
        for _ in range(max_iter):
            biggest = 0.0
            for j in working:
                old = w[j]
                z = c[j] + diag[j] * old
                if z > lam:
                    new = (z - lam) / diag[j]
                elif z < -lam:
                    new = (z + lam) / diag[j]
                else:
                    new = 0.0
                if new != old:
                    delta = new - old
                    c -= delta * columns[j]
                    w[j] = new
                    if abs(delta) > biggest:
                        biggest = abs(delta)
            wmax = float(np.max(np.abs(w))) if working else 0.0
            if biggest > 1e-4 * wmax and biggest > 0:
                # still moving; on an ill-conditioned G coordinate descent crawls long after
                # the signs have settled, and then one exact sign step finishes the α
                now = np.sign(w)
                if np.array_equal(now, signs) and not np.array_equal(now, tried):
                    if _sign_step(G, q, w, c, lam):
                        break
                    tried = now
                signs = now
                continue
            inside = set(working)
            violators = [j for j in np.flatnonzero((np.abs(c) > lam) & (diag > 0)).tolist() if j not in inside]
            if violators:
                working = sorted(inside.union(violators))
                continue
            if _gram_gap(G, q, yy, w, c, lam) <= bound or biggest == 0:
                break  # converged (or a sweep moved nothing: the gap is at its rounding floor)
            now = np.sign(w)
            if not np.array_equal(now, tried):
                if _sign_step(G, q, w, c, lam):
                    break
                tried = now
        coefs[:, k] = w


def _sign_step(G, q, w, c, lam, tries: int = 4) -> bool:
    """Try the exact solution for the current signs: w_A = G_AA⁻¹(q_A − λ s_A) on A = {w_j ≠ 0}.

    Along a path the nonzero set and its signs usually stay as they were from one α to the
    next, and then the lasso's optimality conditions, G_AA w_A = q_A − λ s_A with the same
    signs and |c_j| ≤ λ off A, are one linear solve instead of many coordinate sweeps. A
    guess that fails is corrected up to ``tries`` times (coordinates whose sign flipped leave
    A, the worst violator off A joins it with the sign of its c_j). The step is taken (w and
    c updated in place, True returned) only when the conditions hold.
    """
    p = len(w)
    signs = np.sign(w)
    for _ in range(tries):
        active = np.flatnonzero(signs)
        if active.size == 0:
            if not c.size or float(np.max(np.abs(q))) <= lam:
                w[:] = 0.0
                c[:] = q
                return True
            j = int(np.argmax(np.abs(q)))
            signs[j] = np.sign(q[j])
            continue
        try:
            w_a = np.linalg.solve(G[np.ix_(active, active)], q[active] - lam * signs[active])
        except np.linalg.LinAlgError:
            return False
        flipped = np.sign(w_a) != signs[active]
        if flipped.any():
            signs[active[flipped]] = 0.0
            continue
        c_new = q - G[:, active] @ w_a
        off = np.ones(p, dtype=bool)
        off[active] = False
        viol = np.where(off, np.abs(c_new), 0.0)
        j = int(np.argmax(viol))
        if viol[j] > lam:
            signs[j] = np.sign(c_new[j])
            continue
        w[:] = 0.0
        w[active] = w_a
        c[:] = c_new
        return True
    return False


def _residual_path(X, y, alphas, bound, max_iter, coefs):
    n, p = X.shape
    w = np.zeros(p)
    r = y.copy()
    norms = np.einsum("ij,ij->j", X, X)
    for k, alpha in enumerate(alphas):
        lam = n * float(alpha)
        for _ in range(max_iter):
            for j in range(p):
                if norms[j] == 0:
                    continue
                old = w[j]
                z = float(X[:, j] @ r) + norms[j] * old
                new = math.copysign(max(abs(z) - lam, 0.0), z) / norms[j]
                if new != old:
                    r -= (new - old) * X[:, j]
                    w[j] = new
            if _duality_gap(X.T @ r, r, y, w, lam) <= bound:
                break
        coefs[:, k] = w


class BasisRegression(_RegressorMixin, IterativeMixin, BaseEstimator):
    """A regressor on basis features: ŷ(x) = Σ_k w_k φ_k(x) + b.

    ``fit`` fits a copy of ``basis`` on x (shape (n, 1)), transforms x to Φ and fits a copy
    of ``regressor`` on (Φ, y); the fitted copies are ``basis_`` and ``regressor_``.
    ``fit_steps`` yields the regressor's own snapshots (its coefficients are on Φ).

    Parameters
    ----------
    basis : estimator with ``transform``, default=None
        The features φ_k (None: ``PolynomialBasis(3)``).
    regressor : estimator with ``fit_steps``, default=None
        The linear model on Φ (None: ``LinearRegression()``).

    Attributes
    ----------
    basis_, regressor_ : estimators
        The fitted copies.
    coef_ : ndarray of shape (n_basis,)
        w, the weights of the basis functions.
    intercept_ : float
        b.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.regression import BasisRegression, PolynomialBasis, Ridge
    >>> x = np.array([[-1.0], [0.0], [1.0], [2.0]])
    >>> y = np.array([1.0, 0.0, 1.0, 4.0])
    >>> model = BasisRegression(PolynomialBasis(degree=2), Ridge(alpha=1e-8)).fit(x, y)
    >>> print(np.round(model.predict([[3.0]]), 3))
    [9.]
    >>> print(np.round(model.coef_, 3), round(model.intercept_, 3), model.basis_.names())
    [1.5  2.25] 0.25 ['u^1', 'u^2']
    """

    def __init__(self, basis=None, regressor=None):
        self.basis = basis
        self.regressor = regressor

    def _parts(self):
        basis = PolynomialBasis(3) if self.basis is None else self.basis
        regressor = LinearRegression() if self.regressor is None else self.regressor
        for name, part, need in (("basis", basis, "transform"), ("regressor", regressor, "fit_steps")):
            if not hasattr(part, need) or not _is_estimator(part):
                raise TypeError(f"{name} must be an estimator with {need}(), got {type(part).__name__}")
        return clone(basis), clone(regressor)

    def fit_steps(self, x, y):
        """Yield the regressor's snapshots while it fits Φ(x) → y.

        Yields
        ------
        RegressionSnapshot
        """
        basis, regressor = self._parts()
        x = check_x(x)
        _x, y = check_xy(x, y)
        phi = basis.fit(x).transform(x)
        self.basis_ = basis
        self.regressor_ = regressor
        yield from regressor.fit_steps(phi, y)
        self.coef_ = regressor.coef_
        self.intercept_ = regressor.intercept_

    def predict(self, x) -> np.ndarray:
        """ŷ(x) = Σ_k w_k φ_k(x) + b."""
        self._check_fitted("regressor_")
        return self.regressor_.predict(self.basis_.transform(x))

    def features(self, x) -> np.ndarray:
        """Φ(x) of the fitted basis."""
        self._check_fitted("basis_")
        return self.basis_.transform(x)
