"""Gaussian-process regression: a prior over functions, the posterior in closed form, the evidence.

A Gaussian process f ~ GP(0, k) is a distribution over functions such that at any inputs
X = (x₁, …, x_n) the values f(X) are jointly Gaussian with mean 0 and covariance K = k(X, X).
Observed with Gaussian noise, yᵢ = f(xᵢ) + εᵢ, εᵢ ~ N(0, σ²), the posterior at new inputs x*
is Gaussian again, with (Rasmussen & Williams, *Gaussian Processes for Machine Learning*,
2006, algorithm 2.1)

* mean m(x*) = k*ᵀ (K + σ²I)⁻¹ y, k* = k(X, x*);
* variance k(x*, x*) − k*ᵀ (K + σ²I)⁻¹ k*;

both by one Cholesky factorisation K + σ²I = LLᵀ: α = Lᵀ \\ (L \\ y), m(x*) = k*ᵀα,
v = L \\ k*, variance k(x*, x*) − vᵀv. The evidence (log marginal likelihood) of the
hyper-parameters θ of k and of σ² is

    log p(y | X, θ) = −½ yᵀ(K + σ²I)⁻¹y − ½ log|K + σ²I| − (n/2) log 2π,

a data-fit term, a complexity penalty (log|K + σ²I| = 2 Σ log Lᵢᵢ) and a constant: a short
length-scale fits every point but pays in complexity, a long one is simple but fits badly.
Its gradient is ∂/∂θⱼ = ½ tr((ααᵀ − (K + σ²I)⁻¹) ∂K/∂θⱼ), and ``optimize=True`` climbs it
over θ = log(hyper-parameters, σ²) with a bounded L-BFGS, from the given kernel and from
``n_restarts`` random starts, keeping the best.

The kernels (:class:`RBF`, :class:`Matern`, :class:`Periodic`, :class:`Linear` and their
sums and products) are defined in :mod:`smlengine._gp_kernels`, the optimiser's steps in
:mod:`smlengine._gp_optimise`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ._base import (
    MAX_ABS_VALUE,
    BaseEstimator,
    IterativeMixin,
    RegressorMixin,
    Snapshot,
    check_array,
    check_random_state,
    frozen_array,
)
from ._gp_kernels import HYPERPARAMETER_BOUNDS, RBF, Kernel, Linear, Matern, Periodic, Product, Sum
from ._gp_optimise import ascend
from ._params import Boolean, InstanceOf, Integral, Interval, RandomState, Real, check_param
from ._regression_checks import check_xy

__all__ = [
    "Kernel",
    "RBF",
    "Matern",
    "Periodic",
    "Linear",
    "Sum",
    "Product",
    "GaussianProcessRegressor",
    "GPSnapshot",
    "Evidence",
    "EvidenceSurface",
    "JitterWarning",
    "log_evidence",
    "HYPERPARAMETER_BOUNDS",
    "NOISE_BOUNDS",
    "MAX_TRAIN",
    "MAX_SAMPLE_POINTS",
]

#: most training points: the regressor keeps the n × n factor L (20,000 points: 3.2 GB)
MAX_TRAIN = 20_000
#: most inputs a joint sample or a full covariance is drawn at (an m × m matrix)
MAX_SAMPLE_POINTS = 5_000
#: the optimiser's box for the noise variance σ²
NOISE_BOUNDS = (1e-8, 1e5)
#: the first jitter tried on the diagonal (relative to its mean) and the largest
JITTER_START, JITTER_MAX = 1e-10, 1e-4
_LOG_2PI = math.log(2.0 * math.pi)
_SAMPLES = [Interval(Integral, 1, 10_000)]


class JitterWarning(RuntimeWarning):
    """K + σ²I was not positive definite to working precision; a small jitter was added to its diagonal.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from smlengine.gp import GaussianProcessRegressor, JitterWarning, Linear
    >>> X = np.array([[0.0], [1.0], [2.0]])  # three points on a line: a rank-1 linear kernel
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     gp = GaussianProcessRegressor(Linear(), noise=0.0).fit(X, [0.0, 1.0, 2.0])
    >>> caught[0].category is JitterWarning, gp.jitter_ > 0
    (True, True)
    """


@dataclass(frozen=True)
class Evidence:
    """log p(y | X, θ) and its three terms; ``gradient`` is ∂/∂θ (θ = log of the kernel's
    hyper-parameters, then log σ² when σ² > 0), empty when not asked for.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.gp import RBF, log_evidence
    >>> e = log_evidence(np.array([[0.0], [1.0]]), np.array([1.0, -1.0]), RBF(), 0.1)
    >>> round(e.value, 4), round(e.data_fit + e.complexity + e.constant, 4)
    (-3.7784, -3.7784)
    """

    value: float
    data_fit: float  # −½ yᵀ(K + σ²I)⁻¹y
    complexity: float  # −½ log|K + σ²I|
    constant: float  # −(n/2) log 2π
    gradient: np.ndarray


@dataclass(frozen=True, kw_only=True, eq=False)
class GPSnapshot(Snapshot):
    """One step of the evidence's optimiser (or the fit itself when nothing is optimised).

    Attributes
    ----------
    kernel : Kernel
        The kernel at this step (a copy of its own).
    noise : float
        σ² at this step.
    theta : ndarray
        θ: the logarithms of ``names``' values.
    names : tuple of str
        The hyper-parameters in θ: the kernel's, then ``"noise"`` when σ² is optimised.
    log_marginal_likelihood : float
        The evidence log p(y | X, θ) (of the standardised y when ``normalize_y``).
    data_fit, complexity, constant : float
        Its three terms: −½ yᵀ(K + σ²I)⁻¹y, −½ log|K + σ²I|, −(n/2) log 2π.
    gradient : ndarray
        ∂ log p / ∂θ (empty when the evidence is not optimised).
    restart : int
        0 for the ascent from the given kernel, then 1, 2, … for the random starts.
    iteration : int
        Step within the ascent.
    converged : bool
        The ascent stopped here (gradient ≈ 0 or no more gain).
    best : bool
        This is the fitted state: the last snapshot of a fit, the best of all ascents.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.gp import GaussianProcessRegressor, RBF
    >>> X = np.linspace(0, 5, 12)[:, None]
    >>> gp = GaussianProcessRegressor(RBF(length_scale=0.3), noise=0.1, optimize=True)
    >>> snaps = list(gp.fit_steps(X, np.sin(X[:, 0])))
    >>> snaps[0].names, snaps[-1].best, snaps[-1].log_marginal_likelihood > snaps[0].log_marginal_likelihood
    (('length_scale', 'variance', 'noise'), True, True)
    """

    kernel: Kernel
    noise: float
    theta: np.ndarray
    names: tuple
    log_marginal_likelihood: float
    data_fit: float
    complexity: float
    constant: float
    gradient: np.ndarray
    restart: int = 0
    iteration: int = 0
    converged: bool = False
    best: bool = False


# ----------------------------------------------------------------------------- linear algebra
def _cholesky(A):
    """Lower L with LLᵀ = A, or None when A is not positive definite to working precision.

    A's storage becomes L's (A is symmetric, so its transpose is the Fortran-ordered copy
    LAPACK wants without copying).
    """
    L, info = scipy.linalg.lapack.dpotrf(A.T, lower=1, clean=1, overwrite_a=1)
    return L if info == 0 else None


def _factor(build):
    """Cholesky of build() = K + σ²I; a jitter ε·mean(diag) is added only if needed.

    Returns ``(L, jitter)``; raises ValueError when even the largest jitter fails.
    """
    A = build()
    scale = float(np.mean(np.diag(A))) if A.size else 1.0
    L = _cholesky(A)
    jitter = 0.0
    eps = JITTER_START
    while L is None and eps <= JITTER_MAX:
        jitter = eps * max(scale, np.finfo(float).tiny)
        A = build()
        A[np.diag_indices_from(A)] += jitter
        L = _cholesky(A)
        eps *= 10.0
    if L is None:
        raise ValueError("K + σ²I is not positive definite, even with a jitter of "
                         f"{JITTER_MAX:g} × its mean diagonal: raise the noise or change the kernel")
    return L, jitter


def _terms(L, y):
    """α = (LLᵀ)⁻¹y and the evidence's three terms."""
    alpha, info = scipy.linalg.lapack.dpotrs(L, y, lower=1)
    n = y.shape[0]
    return alpha, -0.5 * float(y @ alpha), -float(np.sum(np.log(np.diag(L)))), -0.5 * n * _LOG_2PI


def log_evidence(X, y, kernel, noise, *, eval_gradient=False) -> Evidence:
    """log p(y | X, θ) = −½ yᵀ(K + σ²I)⁻¹y − ½ log|K + σ²I| − (n/2) log 2π for one kernel and σ².

    Raises ValueError when K + σ²I is not positive definite (no jitter: the evidence of a
    singular model is not a number). With ``eval_gradient`` the gradient is
    ½ tr((ααᵀ − (K + σ²I)⁻¹) ∂K/∂θⱼ) for θ = log(kernel.hyperparameters), then log σ² when σ² > 0.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.gp import RBF, log_evidence
    >>> X = np.linspace(0, 6, 15)[:, None]
    >>> y = np.sin(X[:, 0]) + 0.1 * np.cos(7 * X[:, 0])
    >>> [round(log_evidence(X, y, RBF(length_scale=s), 0.01).value, 2) for s in (0.1, 1.0, 10.0)]
    [-17.51, -0.66, -136.89]
    """
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel must be a kernel of smlengine.gp, got {type(kernel).__name__}")
    kernel.check()
    check_param("noise", noise, [Interval(Real, 0, 1e10)])
    X, y = check_xy(X, y)
    result = _evidence(X, y, kernel, float(noise), eval_gradient)
    if result is None:
        raise ValueError("K + σ²I is not positive definite: raise the noise or change the kernel")
    return result


def _evidence(X, y, kernel, noise, eval_gradient):
    """:class:`Evidence` of validated data, or None when K + σ²I is not positive definite."""
    if eval_gradient:
        K, dK = kernel.gram_gradient(X)
        A = K + noise * np.eye(len(X))
    else:
        A = kernel.gram(X, X)
        A[np.diag_indices_from(A)] += noise
    if not np.all(np.isfinite(A)):
        return None
    L = _cholesky(A)
    if L is None:
        return None
    alpha, fit, complexity, constant = _terms(L, y)
    gradient = np.empty(0)
    if eval_gradient:
        inverse, info = scipy.linalg.lapack.dpotri(L, lower=1)  # (K + σ²I)⁻¹ from L, its lower triangle
        W = np.outer(alpha, alpha)
        W -= np.tril(inverse)
        W -= np.tril(inverse, -1).T
        gradient = [0.5 * np.einsum("ij,ij->", W, g) for g in dK]
        if noise > 0:
            gradient.append(0.5 * noise * float(np.trace(W)))
        gradient = np.array(gradient, dtype=float)
    return Evidence(fit + complexity + constant, fit, complexity, constant, gradient)


# ----------------------------------------------------------------------------- the regressor
class GaussianProcessRegressor(RegressorMixin, IterativeMixin, BaseEstimator):
    """Gaussian-process regression by Cholesky, with the evidence and its optimiser.

    ``fit`` factorises K + σ²I = LLᵀ (adding a jitter to the diagonal only when the matrix is
    not positive definite to working precision, with a :class:`JitterWarning`); ``predict``
    gives the posterior mean k*ᵀα and, on request, its standard deviation or covariance. With
    ``optimize=True`` the kernel's hyper-parameters and σ² maximise the evidence (see the
    module's docstring), each step a snapshot of ``fit_steps``. The formulas are those of
    scikit-learn's ``GaussianProcessRegressor(kernel, alpha=noise, optimizer=None)``.

    Parameters
    ----------
    kernel : Kernel or None, default=None
        The prior's covariance; None is ``RBF(length_scale=1.0, variance=1.0)``.
    noise : float, default=1e-2
        σ² >= 0, the variance of the observation noise (of the standardised y when
        ``normalize_y``). 0 interpolates the points exactly.
    normalize_y : bool, default=False
        Standardise y (mean 0, variance 1) before fitting; predictions are scaled back.
    optimize : bool, default=False
        Maximise the evidence over the kernel's hyper-parameters and σ² (when σ² > 0), in the
        box :data:`HYPERPARAMETER_BOUNDS` (:data:`NOISE_BOUNDS` for σ²).
    n_restarts : int, default=0
        Further ascents from θ drawn log-uniformly within two decades of the given kernel's.
    random_state : int, numpy Generator or None, default=None
        Seed of the restarts' starting points.

    Attributes
    ----------
    kernel_ : Kernel
        The kernel of the fitted model (optimised when ``optimize``).
    noise_ : float
        Its σ².
    X_train_, y_train_ : ndarray
        The training data (y standardised when ``normalize_y``).
    L_ : ndarray of shape (n, n)
        Lower Cholesky factor of K + σ²I (+ jitter).
    alpha_ : ndarray of shape (n,)
        α = (K + σ²I)⁻¹y.
    jitter_ : float
        What was added to the diagonal to factorise it (0.0 almost always).
    log_marginal_likelihood_value_ : float
        The evidence of the fitted model.
    evidence_terms_ : tuple of float
        Its data-fit, complexity and constant terms.
    n_iter_ : int
        Steps of all ascents (0 without ``optimize``).
    last_snapshot_ : GPSnapshot
        The last snapshot of ``fit_steps``: the fitted state.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.gp import GaussianProcessRegressor, RBF
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> gp = GaussianProcessRegressor(RBF(length_scale=1.0), noise=1e-4).fit(X, np.sin(X[:, 0]))
    >>> mean, std = gp.predict(np.array([[1.0], [1.5]]), return_std=True)
    >>> print(np.round(mean, 3), np.round(std, 3))
    [0.841 1.044] [0.01 0.1 ]
    >>> round(gp.log_marginal_likelihood(), 3)
    -3.466
    """

    _parameter_constraints = {
        "kernel": [InstanceOf(Kernel, name="a kernel of smlengine.gp"), None],
        # σ² joins K's diagonal; beyond 1e10 the data is noise to working precision
        "noise": [Interval(Real, 0, 1e10)],
        "normalize_y": [Boolean()],
        "optimize": [Boolean()],
        "n_restarts": [Interval(Integral, 0, 100)],
        "random_state": [RandomState(), None],
    }

    def __init__(self, kernel=None, noise=1e-2, normalize_y=False, optimize=False, n_restarts=0, random_state=None):
        self.kernel = kernel
        self.noise = noise
        self.normalize_y = normalize_y
        self.optimize = optimize
        self.n_restarts = n_restarts
        self.random_state = random_state

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "alpha_")

    def _prior_kernel(self) -> Kernel:
        kernel = RBF() if self.kernel is None else self.kernel
        kernel.check()
        return kernel.clone()

    def fit_steps(self, X, y):
        """Yield the evidence at the given kernel, then every step of the ascents, then the best.

        Without ``optimize`` a single snapshot (step 0) is the fitted state. With it, the
        ascents start at the given kernel (restart 0) and at ``n_restarts`` random points; the
        last snapshot (``best=True``) is the state of highest evidence, which the estimator
        keeps. Snapshots are numbered 0, 1, 2, … across the ascents.

        Yields
        ------
        GPSnapshot
        """
        self.validate_params()
        X, y = check_xy(X, y)
        if len(X) > MAX_TRAIN:
            raise ValueError(f"a Gaussian process keeps an n × n matrix: at most {MAX_TRAIN:,} training points, "
                             f"got {len(X):,}")
        kernel, noise = self._prior_kernel(), float(self.noise)
        if noise == 0 and len(np.unique(X, axis=0)) < len(X):
            raise ValueError("X has repeated rows and noise = 0: K + σ²I is singular (two equal rows); "
                             "set noise > 0 or remove the repeated points")
        mean, std = (float(np.mean(y)), float(np.std(y))) if self.normalize_y else (0.0, 1.0)
        std = std if std > 0 else 1.0
        yn = (y - mean) / std
        names = kernel.hyperparameters + (("noise",) if noise > 0 else ())
        step, best, held = 0, None, None
        if self.optimize:
            # each snapshot is held back one step, so the last ascent's last one can be marked the best
            for snap in self._ascents(X, yn, kernel, noise, names):
                if held is not None:
                    yield held
                held = snap = _replace_step(snap, step)
                step += 1
                if best is None or snap.log_marginal_likelihood > best.log_marginal_likelihood:
                    best = snap
            if best is not None:
                kernel, noise = best.kernel.clone(), best.noise
        L, jitter = _factor(lambda: _gram_plus_noise(kernel, X, noise))
        if jitter:
            warnings.warn(f"K + σ²I was not numerically positive definite: added a jitter of {jitter:.3g} to its "
                          "diagonal", JitterWarning, stacklevel=2)
        alpha, fit, complexity, constant = _terms(L, yn)
        if held is not None and (best is not held or jitter):
            yield held
        if best is not None and not jitter:
            final = _replace_step(best, best.step if best is held else step, best=True)
        else:
            final = GPSnapshot(step=step, kernel=kernel.clone(), noise=noise,
                               theta=frozen_array(_theta(kernel, noise, noise > 0)), names=names,
                               log_marginal_likelihood=fit + complexity + constant, data_fit=fit,
                               complexity=complexity, constant=constant, gradient=frozen_array(np.empty(0)),
                               converged=True, best=True)
        self.kernel_, self.noise_ = kernel, noise
        self.X_train_, self.y_train_ = X, yn
        self._y_mean, self._y_std = mean, std
        self.L_, self.alpha_, self.jitter_ = L, alpha, jitter
        self.log_marginal_likelihood_value_ = fit + complexity + constant
        self.evidence_terms_ = (fit, complexity, constant)
        self.n_iter_ = step
        self.n_features_in_ = X.shape[1]
        yield final

    def _ascents(self, X, y, kernel, noise, names):
        """Snapshots of the ascent from the given kernel, then from each random start."""
        with_noise = noise > 0
        bounds = np.vstack([kernel.bounds] + ([np.log(NOISE_BOUNDS)] if with_noise else []))
        lower, upper = bounds[:, 0], bounds[:, 1]

        def split(theta):
            return kernel.with_theta(theta[:len(kernel.hyperparameters)]), (float(np.exp(theta[-1])) if with_noise
                                                                            else noise)

        def fun(theta):
            k, s2 = split(theta)
            e = _evidence(X, y, k, s2, True)
            return (-np.inf, None) if e is None else (e.value, e.gradient)

        given = _theta(kernel, noise, with_noise)
        theta0 = np.clip(given, lower, upper)
        rng = check_random_state(self.random_state)
        starts = [theta0] + [np.clip(theta0 + rng.uniform(-math.log(100.0), math.log(100.0), theta0.shape),
                                     lower, upper) for _ in range(self.n_restarts)]
        for restart, start in enumerate(starts):
            for iteration, it in enumerate(ascend(fun, start, lower, upper)):
                # the given kernel itself where the ascent starts from it (exp(log(ℓ)) may differ from ℓ by an ulp)
                k, s2 = (kernel.clone(), noise) if np.array_equal(it.x, given) else split(it.x)
                e = _evidence(X, y, k, s2, False) if np.isfinite(it.value) else None
                if e is None:
                    break  # a start where K + σ²I is singular: nothing to climb from
                yield GPSnapshot(step=0, kernel=k, noise=s2, theta=frozen_array(it.x), names=names,
                                 log_marginal_likelihood=e.value, data_fit=e.data_fit, complexity=e.complexity,
                                 constant=e.constant, gradient=frozen_array(it.gradient), restart=restart,
                                 iteration=iteration, converged=it.converged)

    # ---- the posterior
    def _check_X(self, X):
        self._check_fitted("alpha_")
        return check_array(X, n_features=self.X_train_.shape[1], max_abs=MAX_ABS_VALUE)

    def predict(self, X, return_std=False, return_cov=False):
        """The posterior mean m(x*) = k*ᵀα at each row of X, with its std or covariance on request.

        Returns
        -------
        mean : ndarray of shape (m,)
        std : ndarray of shape (m,), when ``return_std``
            √(k(x*, x*) − vᵀv), v = L \\ k* (negative round-off clipped to 0).
        cov : ndarray of shape (m, m), when ``return_cov``
            k(X*, X*) − VᵀV.
        """
        if return_std and return_cov:
            raise ValueError("ask for return_std or return_cov, not both (the std is the root of cov's diagonal)")
        X = self._check_X(X)
        if return_cov and len(X) > MAX_SAMPLE_POINTS:
            raise ValueError(f"a covariance is an m × m matrix: at most {MAX_SAMPLE_POINTS:,} points, got {len(X):,}")
        Ks = self.kernel_.gram(X, self.X_train_)
        mean = Ks @ self.alpha_ * self._y_std + self._y_mean
        if not (return_std or return_cov):
            return mean
        V = scipy.linalg.solve_triangular(self.L_, Ks.T, lower=True, check_finite=False)
        if return_cov:
            cov = self.kernel_.gram(X, X)
            cov -= V.T @ V
            return mean, cov * self._y_std**2
        var = self.kernel_.gram_diag(X) - np.einsum("ij,ij->j", V, V)
        np.maximum(var, 0.0, out=var)
        return mean, np.sqrt(var) * self._y_std

    def log_marginal_likelihood(self) -> float:
        """The evidence log p(y | X, θ) of the fitted model (of the standardised y when ``normalize_y``)."""
        self._check_fitted("alpha_")
        return self.log_marginal_likelihood_value_

    def sample_prior(self, X, n_samples=1, random_state=None) -> np.ndarray:
        """Functions f ~ GP(0, k) at the rows of X: an array (len(X), n_samples).

        k is the fitted ``kernel_`` when fitted (in y's units when ``normalize_y``), else ``kernel``.

        Examples
        --------
        >>> import numpy as np
        >>> from smlengine.gp import GaussianProcessRegressor, RBF
        >>> f = GaussianProcessRegressor(RBF()).sample_prior(np.linspace(0, 1, 5)[:, None], 3, random_state=0)
        >>> f.shape
        (5, 3)
        """
        check_param("n_samples", n_samples, _SAMPLES)
        if hasattr(self, "alpha_"):
            X = self._check_X(X)
            kernel, mean, scale = self.kernel_, self._y_mean, self._y_std
        else:
            self.validate_params()
            X = check_array(X, max_abs=MAX_ABS_VALUE)
            kernel, mean, scale = self._prior_kernel(), 0.0, 1.0
        _check_sample_size(X)
        return _draw(mean + np.zeros(len(X)), kernel.gram(X, X) * scale**2, n_samples, random_state)

    def sample_posterior(self, X, n_samples=1, random_state=None) -> np.ndarray:
        """Functions from the posterior at the rows of X: an array (len(X), n_samples).

        Examples
        --------
        >>> import numpy as np
        >>> from smlengine.gp import GaussianProcessRegressor
        >>> gp = GaussianProcessRegressor(noise=1e-6).fit([[0.0], [1.0]], [1.0, -1.0])
        >>> np.round(gp.sample_posterior([[0.0], [1.0]], 2, random_state=0), 2)
        array([[ 1.,  1.],
               [-1., -1.]])
        """
        check_param("n_samples", n_samples, _SAMPLES)
        X = self._check_X(X)
        _check_sample_size(X)
        mean, cov = self.predict(X, return_cov=True)
        return _draw(mean, cov, n_samples, random_state)


def _replace_step(snap: GPSnapshot, step: int, **changes) -> GPSnapshot:
    fields = {name: getattr(snap, name) for name in snap.__dataclass_fields__}
    fields.update(step=step, **changes)
    return GPSnapshot(**fields)


def _theta(kernel, noise, with_noise):
    return np.concatenate([kernel.theta, [math.log(noise)] if with_noise else []])


def _gram_plus_noise(kernel, X, noise):
    A = kernel.gram(X, X)
    if not np.all(np.isfinite(A)):
        raise ValueError("the kernel's values are not finite: rescale X or lengthen the length-scale")
    A[np.diag_indices_from(A)] += noise
    return A


def _check_sample_size(X):
    if len(X) > MAX_SAMPLE_POINTS:
        raise ValueError(f"a joint sample needs an m × m covariance: at most {MAX_SAMPLE_POINTS:,} points, "
                         f"got {len(X):,}")


def _draw(mean, cov, n_samples, random_state):
    """mean + S z with S = Q √Λ Qᵀ the symmetric square root of cov = QΛQᵀ (negative round-off
    eigenvalues as 0): exact even when cov is singular, and S, unlike a Cholesky factor with jitter
    or Q √Λ alone (whose columns may flip sign), changes continuously with cov, so the same seed
    draws functions that change smoothly with the hyper-parameters."""
    rng = check_random_state(random_state)
    lam, Q = np.linalg.eigh(cov)
    z = rng.standard_normal((n_samples, len(mean))).T  # sample j is the same whatever the number drawn
    return mean[:, None] + Q @ (np.sqrt(np.maximum(lam, 0.0))[:, None] * (Q.T @ z))


# ----------------------------------------------------------------------------- the evidence map
class EvidenceSurface:
    """The evidence over a grid of one hyper-parameter × the noise σ², for the map under the optimiser's path.

    For each value of the hyper-parameter, one eigendecomposition K = QΛQᵀ gives the evidence
    at every σ² at once: log p = −½ Σ (Qᵀy)ᵢ² / (λᵢ + σ²) − ½ Σ log(λᵢ + σ²) − (n/2) log 2π.
    A kernel with a ``variance`` (RBF, Matérn, periodic) scales K by it, so the
    decompositions are kept for the last kernel seen up to its variance: the map at another
    variance (a new step of the optimiser) costs no new decomposition.

    Parameters
    ----------
    X, y : array-like
        The data (y standardised when ``normalize_y``, as by the regressor).
    values : array-like
        The values of the hyper-parameter along the map's first axis.
    noises : array-like
        The σ² along its second axis.
    param : str, default="length_scale"
        The hyper-parameter (``k1__length_scale`` for a sum's first part).
    normalize_y : bool, default=False

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.gp import EvidenceSurface, RBF
    >>> X = np.linspace(0, 6, 15)[:, None]
    >>> y = np.sin(X[:, 0]) + 0.1 * np.cos(7 * X[:, 0])
    >>> surface = EvidenceSurface(X, y, values=[0.1, 1.0, 10.0], noises=[1e-3, 1e-2, 1e-1])
    >>> grid = surface(RBF())  # rows: the noises; columns: the length-scales
    >>> print(np.round(grid[1], 2), np.unravel_index(np.argmax(grid), grid.shape))
    [ -17.51   -0.66 -136.89] (np.int64(1), np.int64(1))
    """

    def __init__(self, X, y, *, values, noises, param="length_scale", normalize_y=False):
        self.X, y = check_xy(X, y)
        if len(self.X) > MAX_SAMPLE_POINTS:
            raise ValueError(f"the evidence map decomposes n × n matrices: at most {MAX_SAMPLE_POINTS:,} points")
        if normalize_y and np.std(y) > 0:
            y = (y - np.mean(y)) / np.std(y)
        self.y = y
        self.values = check_array(values, name="values", ndim=1)
        self.noises = check_array(noises, name="noises", ndim=1)
        if np.any(self.values <= 0) or np.any(self.noises < 0):
            raise ValueError("the map's hyper-parameter values must be > 0 and its noises >= 0")
        self.param = param
        self._key, self._eigen = None, None

    def _decomposed(self, kernel: Kernel):
        """The scale v and, per value of the hyper-parameter, (λ, (Qᵀy)²) of the kernel at v = 1."""
        kernel.check()
        if self.param not in kernel.get_params(deep=True):
            raise ValueError(f"the kernel has no hyper-parameter {self.param!r}")
        scaled = "variance" in kernel.get_params(deep=False)
        scale = float(kernel.variance) if scaled else 1.0
        unit = kernel.clone().set_params(variance=1.0) if scaled else kernel.clone()
        key = repr(unit.clone().set_params(**{self.param: 1.0}))
        if key != self._key:
            self._eigen = []
            for v in self.values:
                lam, Q = np.linalg.eigh(unit.clone().set_params(**{self.param: float(v)}).gram(self.X, self.X))
                self._eigen.append((np.maximum(lam, 0.0), (Q.T @ self.y) ** 2))
            self._key = key
        return scale, self._eigen

    def __call__(self, kernel: Kernel) -> np.ndarray:
        """(len(noises), len(values)): log p(y | X, θ) with ``param`` and σ² from the grid, the rest from ``kernel``."""
        scale, eigen = self._decomposed(kernel)
        out = np.empty((len(self.noises), len(self.values)))
        for j, (lam, u2) in enumerate(eigen):
            total = scale * lam[None, :] + self.noises[:, None]
            with np.errstate(divide="ignore", invalid="ignore"):
                out[:, j] = -0.5 * np.sum(u2 / total, axis=1) - 0.5 * np.sum(np.log(total), axis=1)
        out -= 0.5 * len(self.y) * _LOG_2PI
        out[~np.isfinite(out)] = -np.inf
        return out

    def terms(self, kernel: Kernel, noise: float) -> tuple[np.ndarray, np.ndarray, float]:
        """The evidence's data-fit and complexity terms along ``values`` at one σ², and its constant.

        Examples
        --------
        >>> import numpy as np
        >>> from smlengine.gp import EvidenceSurface, RBF
        >>> X = np.linspace(0, 6, 15)[:, None]
        >>> surface = EvidenceSurface(X, np.sin(X[:, 0]), values=[0.1, 1.0, 10.0], noises=[1e-2])
        >>> fit, complexity, constant = surface.terms(RBF(), 1e-2)
        >>> bool(fit[0] > fit[2]), bool(complexity[0] < complexity[2])  # short ℓ: fits better, costs more
        (True, True)
        """
        scale, eigen = self._decomposed(kernel)
        noise = float(check_param("noise", noise, [Interval(Real, 0, 1e10)]))
        with np.errstate(divide="ignore", invalid="ignore"):
            fit = np.array([-0.5 * np.sum(u2 / (scale * lam + noise)) for lam, u2 in eigen])
            complexity = np.array([-0.5 * np.sum(np.log(scale * lam + noise)) for lam, _ in eigen])
        return fit, complexity, -0.5 * len(self.y) * _LOG_2PI
