"""Gaussian mixtures fitted by EM: the estimator, its snapshots and the E- and M-steps.

The model and the course's updates are described in :mod:`smlengine.mixture`, which exports
everything public here together with the choice among mixtures
(:mod:`smlengine.mixture_selection`, which builds on this module: restarts, model order, soft
k-means).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, replace
from typing import Iterator

import numpy as np
from scipy.special import xlogy

from ._base import (
    MAX_ABS_VALUE,
    BaseEstimator,
    IterativeMixin,
    Snapshot,
    check_array,
    check_choice,
    check_random_state,
    check_scalar,
    frozen_array,
)
from ._params import ArrayLike, Integral, Interval, Options, RandomState, Real
from ._kmeans_core import (
    DEFAULT_MAX_ITER,
    DEFAULT_TOL,
    MAX_ITER,
    MAX_RESTARTS,
    Lloyd,
    argmax_rows,
    label_dtype,
    lloyd_steps,
    n_distinct_upto,
    plusplus_centres,
)

__all__ = [
    "COVARIANCE_TYPES",
    "CONVERGENCE_RULES",
    "INITS",
    "LOG_2PI",
    "GaussianMixture",
    "GaussianMixtureSnapshot",
    "MixtureSnapshot",
    "check_data",
    "e_step",
    "log_normalise",
    "n_parameters",
]

COVARIANCE_TYPES = ("full", "diag", "spherical", "tied")
INITS = ("kmeans", "k-means++", "random")
#: how ``tol`` is compared: |Δℓ| / n ('mean', scikit-learn's rule) or |Δℓ| / |ℓ| ('relative')
CONVERGENCE_RULES = ("mean", "relative")
LOG_2PI = math.log(2.0 * math.pi)
_EPS10 = 10.0 * np.finfo(float).eps  # added to n_k, as scikit-learn does, so an empty component gives 0/ε, not 0/0
_BLOCK = 16384  # points per block of the E-step: its (K f, block) temporary stays in the CPU cache


def n_parameters(n_components: int, n_features: int, covariance_type: str) -> int:
    """Free parameters m of a K-component mixture in f dimensions (used by BIC and AIC).

    m = (K − 1) weights + K f means + the covariance parameters: K f(f+1)/2 ('full'),
    K f ('diag'), K ('spherical') or f(f+1)/2 ('tied').

    Examples
    --------
    >>> from smlengine.mixture import n_parameters
    >>> [n_parameters(3, 2, t) for t in ("full", "diag", "spherical", "tied")]
    [17, 14, 11, 11]
    """
    k, f = int(n_components), int(n_features)
    cov = {"full": k * f * (f + 1) // 2, "diag": k * f, "spherical": k, "tied": f * (f + 1) // 2}
    check_choice("covariance_type", covariance_type, COVARIANCE_TYPES)
    return (k - 1) + k * f + cov[covariance_type]


# ----------------------------------------------------------------------------- snapshots


@dataclass(frozen=True, kw_only=True)
class MixtureSnapshot(Snapshot):
    """State of EM after one iteration (or one half step).

    Attributes
    ----------
    half : str
        ``'init'`` (step 0: the initial parameters and their responsibilities; with
        ``half_steps=True`` no responsibilities yet, a_ik = 1/K), ``'EM'`` (a whole
        iteration: M-step then E-step), or with ``half_steps=True`` ``'E'`` (new
        responsibilities, parameters unchanged) and ``'M'`` (new parameters,
        responsibilities of the previous E-step), alternating from step 1.
    weights : ndarray (K,)
        c_k
    means : ndarray (K, f)
        μ_k
    covariances : ndarray (K, f, f)
        Σ_k as full matrices for every covariance type
        (diagonal, a multiple of I, or the same matrix K times), ``reg_covar`` included
    responsibilities : ndarray (n, K) or None
        a_ik, rows sum to one (None when the run
        was asked for compact snapshots)
    labels : ndarray (n,) of uint8 (uint16 for K > 256)
        argmax_k a_ik, ties to the lowest k
    confidence : ndarray (n,) of float32
        max_k a_ik (1 = certain, 1/K = undecided)
    log_likelihood : float
        ℓ(θ) = Σ_i log π(x_i) of this snapshot's parameters
    lower_bound : float
        F(a, θ) of this snapshot's responsibilities and parameters
        (equal to ℓ after an E-step)
    change : float or None
        (ℓ_j − ℓ_{j−1}) / n since the previous iteration (None at step 0,
        where there is no previous ℓ)
    relative_change : float or None
        |ℓ_j − ℓ_{j−1}| / |ℓ_j| (None at step 0)
    n_iter : int
        M-steps done in this restart
    converged : bool
        the change is below ``tol`` (see ``convergence``)
    restart : int
        index of the restart (``n_init`` runs restarts in turn)

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import GaussianMixture
    >>> X = np.array([[0.0], [0.5], [1.0], [4.0], [4.5], [5.0]])
    >>> gm = GaussianMixture(n_components=2, init="random", random_state=0)
    >>> snaps = list(gm.fit_steps(X, half_steps=True))
    >>> for s in snaps[:4]:
    ...     print(s.step, s.half, np.round(s.means.ravel(), 3), round(s.log_likelihood, 3))
    0 init [4.  4.5] -16.326
    1 E [4.  4.5] -16.326
    2 M [1.884 4.516] -11.163
    3 E [1.884 4.516] -11.163
    >>> last = snaps[-1]
    >>> last.step, last.half, last.converged, last.labels
    (13, 'E', True, array([0, 0, 0, 1, 1, 1], dtype=uint8))
    >>> print(np.round(last.means.ravel(), 3), np.round(last.weights, 3))
    [0.5 4.5] [0.5 0.5]
    """

    half: str
    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray
    responsibilities: np.ndarray | None
    labels: np.ndarray
    confidence: np.ndarray
    log_likelihood: float
    lower_bound: float
    change: float | None
    relative_change: float | None = None
    n_iter: int
    converged: bool = False
    restart: int = 0


#: the name the segmentation lab knew the snapshot by
GaussianMixtureSnapshot = MixtureSnapshot


# ----------------------------------------------------------------------------- numerics


def log_normalise(L: np.ndarray) -> np.ndarray:
    """Turn the (K, n) log joint L in place into responsibilities; return log Σ_k exp L[k, i]."""
    m = L.max(axis=0)
    m[~np.isfinite(m)] = 0.0
    L -= m
    np.exp(L, out=L)
    s = L.sum(axis=0)
    L /= s
    return m + np.log(s)


def _cholesky(cov: np.ndarray, reg: float, tiny: float = 0.0) -> np.ndarray:
    """Lower Cholesky factors L_k of the (K, f, f) covariances; a clear error when one is singular.

    Singular means no factor, or a pivot L_aa² <= ``tiny`` (a variance left by rounding: a
    component on one point has S_k = 0 in exact arithmetic, about 1e-30 in floating point).
    """
    floor = max(tiny, 1e-300)
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        chol = None
    if chol is not None:
        d = np.diagonal(chol, axis1=1, axis2=2)
        if np.all(np.isfinite(chol)) and np.all(d * d > floor):
            return chol
    bad = []
    for j in range(cov.shape[0]):
        try:
            c = np.linalg.cholesky(cov[j])
            if not (np.all(np.isfinite(c)) and np.all(np.diagonal(c) ** 2 > floor)):
                bad.append(j)
        except np.linalg.LinAlgError:
            bad.append(j)
    which = ", ".join(str(j) for j in bad) or "?"
    raise ValueError(
        f"the covariance of component {which} became singular: the component collapsed onto a single point or "
        f"a line, and the likelihood grows without bound. Set reg_covar > 0 (now {reg:g}) or use fewer components"
    )



class _EM:
    """E- and M-steps on fixed data, feature-major and centred on the data mean.

    Centring keeps P x − P μ (P = L⁻¹, Σ = L Lᵀ) accurate for data far from the origin; the
    K Mahalanobis distances of a block of points come from one BLAS product of the stacked
    P_k with the block.
    """

    def __init__(self, X: np.ndarray, covariance_type: str, reg: float, center: np.ndarray | None = None):
        self.n, self.f = X.shape
        self.center = X.mean(axis=0) if center is None else center
        self.Xt = np.ascontiguousarray((X - self.center).T)  # (f, n)
        self.ctype = covariance_type
        self.reg = reg
        # without a floor, a variance below this is rounding noise of a collapsed component
        self.tiny = 0.0 if reg > 0 else 1e-14 * float(np.mean(np.var(X, axis=0)))

    def log_joint(self, weights, means, chol) -> np.ndarray:
        """(K, n): log c_k + log g(x_i; μ_k, Σ_k)."""
        k, f = means.shape
        n = self.n
        P = np.linalg.solve(chol, np.broadcast_to(np.eye(f), chol.shape))  # (K, f, f) = L_k⁻¹
        Pf = P.reshape(k * f, f)
        Pm = np.einsum("kab,kb->ka", P, means - self.center).reshape(k * f, 1)
        Q = np.empty((k, n))  # squared Mahalanobis distances
        for s in range(0, n, _BLOCK):
            e = min(s + _BLOCK, n)
            Y = Pf @ self.Xt[:, s:e]  # (K f, block)
            Y -= Pm
            np.square(Y, out=Y)
            Q[:, s:e] = Y.reshape(k, f, e - s).sum(axis=1)
        half_logdet = np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
        with np.errstate(divide="ignore"):
            logc = np.log(weights)
        Q *= -0.5
        Q += (logc - half_logdet - 0.5 * f * LOG_2PI)[:, None]
        return Q

    def m_step(self, R: np.ndarray, floor_small: bool = False):
        """Weights, means (K, f) and full covariances (K, f, f) from responsibilities R (K, n).

        ``floor_small``: components with fewer than f + 1 points (an initial hard assignment)
        get the covariance of all the data instead of a singular one.
        """
        k = R.shape[0]
        f = self.f
        nk = R.sum(axis=1) + _EPS10
        mu_c = (R @ self.Xt.T) / nk[:, None]
        S = np.empty((k, f, f))
        for j in range(k):
            D = self.Xt - mu_c[j][:, None]
            S[j] = (D * R[j]) @ D.T / nk[j]
        if floor_small:
            small = nk < f + 1
            if np.any(small):
                S[small] = np.cov(self.Xt, bias=True).reshape(f, f)
        cov = _constrain(S, nk, self.ctype)
        cov[:, np.arange(f), np.arange(f)] += self.reg
        return nk / nk.sum(), mu_c + self.center, cov


def _constrain(S: np.ndarray, nk: np.ndarray, ctype: str) -> np.ndarray:
    """Full scatter matrices S_k → Σ_k of the covariance type (as full matrices, no floor yet)."""
    k, f, _ = S.shape
    if ctype == "full":
        return S
    if ctype == "tied":
        T = np.einsum("k,kab->ab", nk, S) / nk.sum()
        return np.repeat(T[None], k, axis=0)
    d = np.diagonal(S, axis1=1, axis2=2)
    if ctype == "spherical":
        d = np.repeat(d.mean(axis=1, keepdims=True), f, axis=1)
    out = np.zeros_like(S)
    out[:, np.arange(f), np.arange(f)] = d
    return out


def _full_from(cov, k: int, f: int, ctype: str, name: str) -> np.ndarray:
    """A covariance parameter in scikit-learn's shape for ``ctype`` → (K, f, f), validated."""
    C = np.asarray(cov, dtype=np.float64)
    shapes = {"full": (k, f, f), "diag": (k, f), "spherical": (k,), "tied": (f, f)}
    if C.shape != shapes[ctype]:
        raise ValueError(f"{name} for covariance_type={ctype!r} must have shape {shapes[ctype]}, got {C.shape}")
    if not np.all(np.isfinite(C)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if ctype == "full":
        full = C.copy()
    elif ctype == "tied":
        full = np.repeat(C[None], k, axis=0)
    elif ctype == "diag":
        full = np.zeros((k, f, f))
        full[:, np.arange(f), np.arange(f)] = C
    else:
        full = C[:, None, None] * np.eye(f)[None]
    if not np.allclose(full, full.transpose(0, 2, 1), rtol=1e-10, atol=0):
        raise ValueError(f"{name} must be symmetric")
    if np.any(np.linalg.eigvalsh(full)[:, 0] <= 0):
        raise ValueError(f"{name} must be positive definite (every variance > 0)")
    return full


def _native(cov: np.ndarray, ctype: str) -> np.ndarray:
    """Full (K, f, f) covariances → scikit-learn's shape for ``ctype``."""
    if ctype == "full":
        return cov.copy()
    if ctype == "tied":
        return cov[0].copy()
    d = np.diagonal(cov, axis1=1, axis2=2).copy()
    return d if ctype == "diag" else d[:, 0].copy()


def check_data(X, k, *, name="n_components"):
    X = check_array(X, max_abs=MAX_ABS_VALUE)
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"a Gaussian mixture needs at least 2 points, got {n}")
    check_scalar(name, k, numbers.Integral, min_value=1)
    if k > n:
        raise ValueError(f"{name}={k} is larger than the number of points ({n}); choose {name} <= {n}")
    distinct = n_distinct_upto(X, max(int(k), 2))
    if distinct == 1:
        raise ValueError("all points are identical: there is no spread for a Gaussian to fit; add different points")
    if k > distinct:
        raise ValueError(f"{name}={k} is larger than the number of distinct points ({distinct}); "
                         f"choose {name} <= {distinct}")
    return X


def e_step(X, weights, means, covariances) -> tuple[np.ndarray, float]:
    """One E-step for given parameters: the responsibilities and the log-likelihood.

    a_ik = c_k g(x_i; μ_k, Σ_k) / Σ_l c_l g(x_i; μ_l, Σ_l) and ℓ = Σ_i log Σ_k c_k g(x_i; μ_k, Σ_k).

    Parameters
    ----------
    X : array (n, f)
        The data.
    weights : array (K,)
        c_k, non-negative, normalised to sum 1
    means : array (K, f)
        μ_k
    covariances : array (K, f, f)
        Σ_k, symmetric positive definite

    Returns
    -------
    responsibilities : ndarray (n, K)
        a_ik, rows sum to one.
    log_likelihood : float
        ℓ of the parameters on X.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.mixture import e_step
    >>> a, ll = e_step(np.array([[0.0], [1.0], [2.0]]), [0.5, 0.5], [[0.0], [2.0]], [[[1.0]], [[1.0]]])
    >>> print(np.round(a, 3))
    [[0.881 0.119]
     [0.5   0.5  ]
     [0.119 0.881]]
    >>> round(ll, 3)
    -4.389
    """
    X = check_array(X, max_abs=MAX_ABS_VALUE)
    mu = np.asarray(means, dtype=np.float64)
    if mu.ndim != 2 or mu.shape[1] != X.shape[1] or not np.all(np.isfinite(mu)):
        raise ValueError(f"means must be a finite array of shape (K, {X.shape[1]})")
    k, f = mu.shape
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (k,) or not np.all(np.isfinite(w)) or w.min() < 0 or w.sum() <= 0:
        raise ValueError(f"weights must be {k} non-negative numbers with a positive sum")
    cov = _full_from(covariances, k, f, "full", "covariances")
    em = _EM(X, "full", 0.0)
    L = em.log_joint(w / w.sum(), mu, _cholesky(cov, 0.0))
    ll = float(log_normalise(L).sum())
    return np.ascontiguousarray(L.T), ll



# ----------------------------------------------------------------------------- the estimator


class GaussianMixture(IterativeMixin, BaseEstimator):
    """Gaussian mixture fitted by EM, with every half step observable.

    See the module docstring for the E- and M-step and the four covariance types. EM stops
    after ``max_iter`` M-steps or when the change of the log-likelihood is below ``tol``:
    |ℓ_j − ℓ_{j−1}| / n with ``convergence='mean'`` (scikit-learn's rule, the change of the
    mean log-likelihood per point), |ℓ_j − ℓ_{j−1}| / |ℓ_j| with ``'relative'`` (the rule of
    :class:`~smlengine.multinomial.MultinomialMixture`). With ``n_init > 1`` the restarts run
    in turn from different seeds and the one with the highest final ℓ is kept (EM finds a
    local maximum only).

    Parameters
    ----------
    n_components : int, K >= 1 (at most the number of distinct points)
        K, the number of components.
    covariance_type : {'full', 'diag', 'spherical', 'tied'}
        The form of the Σ_k (see the module docstring).
    init : {'kmeans', 'k-means++', 'random'} or array (K, f) of initial means
        'kmeans': a k-means fit (k-means++ seeded), then c_k, μ_k, Σ_k of its clusters;
        'k-means++': D²-seeded data points as means (:func:`smlengine.kmeans.kmeans_plusplus`);
        'random': K distinct data points chosen uniformly; an array: these means (then
        ``n_init`` must be 1). Unless given by ``weights_init``/``covariances_init``, initial
        weights and covariances are those of the hard assignment of every point to its
        nearest initial mean (a group with fewer than f + 1 points gets the covariance of all
        the data).
    weights_init : array (K,), optional
        initial c_k (non-negative; normalised to sum 1)
    covariances_init : array, optional
        initial Σ_k in scikit-learn's shape for the type:
        (K, f, f) full, (K, f) diag, (K,) spherical, (f, f) tied
    reg_covar : float in [0, 1e6]
        added to the diagonal of every Σ_k
    tol : float >= 0
        stop when the change of ℓ is below it (0: run ``max_iter`` iterations)
    max_iter : int in [0, 100000]
        M-steps per restart
    n_init : int in [1, 1000]
        restarts; the best final log-likelihood is kept
    convergence : {'mean', 'relative'}
        how the change of ℓ is compared with ``tol`` (above)
    random_state : None, int or numpy Generator
        Seeds the initialisation and the restarts.

    Attributes
    ----------
    weights_ : ndarray (K,)
        The mixture weights c_k.
    means_ : ndarray (K, f)
        The means μ_k.
    covariances_ : ndarray
        The Σ_k in scikit-learn's shape for the type (see ``covariances_init``).
    covariances_full_ : ndarray (K, f, f)
        the same covariances as full matrices
    responsibilities_ : ndarray (n, K)
        a_ik on the training data.
    labels_ : ndarray (n,) of int64
        argmax_k a_ik on the training data
    log_likelihood_ : list of float
        ℓ after every iteration of the kept run (step 0 first)
    n_iter_ : int
        M-steps of the kept run.
    converged_ : bool
        Whether the kept run stopped on ``tol``.
    last_snapshot_ : MixtureSnapshot
        The final state of the kept run.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import GaussianMixture
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [5.0, 5.0], [5.0, 6.0], [6.0, 5.0], [6.0, 6.0]])
    >>> gm = GaussianMixture(n_components=2, covariance_type="spherical", random_state=0).fit(X)
    >>> print(np.round(gm.weights_, 3), np.round(gm.covariances_, 3))
    [0.5 0.5] [0.25 0.25]
    >>> print(np.round(gm.means_, 3))
    [[5.5 5.5]
     [0.5 0.5]]
    >>> gm.predict([[0.5, 0.5], [5.5, 5.5]])
    array([1, 0])
    >>> gm.converged_, round(gm.log_likelihood_[-1], 3), round(gm.bic(X), 3)
    (True, -17.158, 48.872)
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None)],
        "covariance_type": [Options(COVARIANCE_TYPES)],
        "init": [Options(INITS), ArrayLike()],
        "weights_init": [ArrayLike(), None],
        "covariances_init": [ArrayLike(), None],
        "reg_covar": [Interval(Real, 0, 1e6)],
        "tol": [Interval(Real, 0, None)],
        "max_iter": [Interval(Integral, 0, MAX_ITER)],
        "n_init": [Interval(Integral, 1, MAX_RESTARTS)],
        "convergence": [Options(CONVERGENCE_RULES)],
        "random_state": [RandomState(), None],
    }

    def __init__(self, n_components=3, *, covariance_type="full", init="kmeans", weights_init=None,
                 covariances_init=None, reg_covar=1e-6, tol=1e-3, max_iter=100, n_init=1, convergence="mean",
                 random_state=None):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.init = init
        self.weights_init = weights_init
        self.covariances_init = covariances_init
        self.reg_covar = reg_covar
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.convergence = convergence
        self.random_state = random_state

    # -- validation ----------------------------------------------------------------------
    def _validate(self, X):
        self.validate_params()
        X = check_data(X, self.n_components)
        k, f = int(self.n_components), X.shape[1]
        if isinstance(self.init, str):
            init = self.init
        else:
            init = np.asarray(self.init, dtype=np.float64)
            if init.shape != (k, f):
                raise ValueError(f"init means must have shape (n_components, n_features) = {(k, f)}, got {init.shape}")
            if not np.all(np.isfinite(init)):
                raise ValueError("init means contain NaN or infinite values")
            if self.n_init != 1:
                raise ValueError(f"with explicit init means n_init must be 1, got {self.n_init}")
        w = None
        if self.weights_init is not None:
            w = np.asarray(self.weights_init, dtype=np.float64)
            if w.shape != (k,) or not np.all(np.isfinite(w)) or w.min() < 0 or w.sum() <= 0:
                raise ValueError(f"weights_init must be {k} non-negative numbers with a positive sum")
            w = w / w.sum()
        cov = None
        if self.covariances_init is not None:
            cov = _full_from(self.covariances_init, k, f, self.covariance_type, "covariances_init")
        return X, k, init, w, cov

    # -- initialisation ------------------------------------------------------------------
    def _initial(self, em: _EM, X, k, init, w, cov, rng):
        n = X.shape[0]
        if isinstance(init, np.ndarray):
            means = init.copy()
        elif init == "kmeans":
            # k-means from k-means++ centres with KMeans' defaults (KMeans(k).fit(X).cluster_centers_)
            last = None
            for last in lloyd_steps(Lloyd(X, k), plusplus_centres(X, k, rng), DEFAULT_TOL, DEFAULT_MAX_ITER):
                pass
            means = last.centers
        elif init == "k-means++":
            means = plusplus_centres(X, k, rng)
        else:
            uniq = np.unique(X, axis=0)
            means = uniq[rng.choice(uniq.shape[0], size=k, replace=False)]
            means = means[rng.permutation(k)]
        if w is None or cov is None:
            labels = np.empty(n, dtype=np.intp)
            Lloyd(X, k).assign(means, labels)  # nearest initial mean, in blocks of points
            R = np.zeros((k, n))
            R[labels, np.arange(n)] = 1.0
            w0, _, cov0 = em.m_step(R, floor_small=True)
            w = w0 if w is None else w
            cov = cov0 if cov is None else cov
        return np.array(w, dtype=np.float64), np.array(means, dtype=np.float64), np.array(cov, dtype=np.float64)

    # -- the run -------------------------------------------------------------------------
    def fit_steps(self, X, half_steps: bool = False, responsibilities: bool = True) -> Iterator[MixtureSnapshot]:
        """Run EM, yielding a :class:`MixtureSnapshot` per iteration or per half step.

        Parameters
        ----------
        X : array (n, f)
        half_steps : bool
            False: step 0 is the initial parameters with their responsibilities, then one
            snapshot per iteration (M-step followed by E-step). True: step 0 is the initial
            parameters with nothing assigned yet (a_ik = 1/K), then ``'E'`` (responsibilities
            updated, parameters unchanged) and ``'M'`` (parameters updated, responsibilities
            unchanged) in turn; the ``'E'`` snapshots are the whole-iteration snapshots.
        responsibilities : bool
            True: every snapshot holds the (n, K) responsibilities. False: compact snapshots
            (labels and confidence only), for many points.

        Yields
        ------
        MixtureSnapshot
            With ``n_init > 1`` the restarts follow each other (``restart`` field) and a final
            snapshot (``phase='best'``) repeats the kept run's end. The last snapshot equals
            the fitted state; ℓ never decreases within a restart.
        """
        X, k, init, w, cov = self._validate(X)
        rng = check_random_state(self.random_state)
        reg = float(self.reg_covar)
        em = _EM(X, self.covariance_type, reg)
        best = None
        step = 0
        for r in range(int(self.n_init)):
            phase = f"restart {r + 1}/{self.n_init}" if self.n_init > 1 else "EM"
            c0, mu0, cov0 = self._initial(em, X, k, init, w, cov, rng)
            snap = R = None
            history = []
            run = _em_run(em, c0, mu0, cov0, float(self.tol), self.convergence == "relative", int(self.max_iter),
                          half_steps, bool(responsibilities), r, phase)
            for snap, R in run:
                if snap.half != "M":
                    history.append(snap.log_likelihood)
                yield replace(snap, step=step)
                step += 1
            if best is None or snap.log_likelihood > best[0].log_likelihood:
                best = (snap, history, R)
        snap, history, R = best
        if self.n_init > 1:
            snap = replace(snap, step=step, phase="best")
            yield snap
        ctype = self.covariance_type
        self.weights_ = np.array(snap.weights)
        self.means_ = np.array(snap.means)
        self.covariances_full_ = np.array(snap.covariances)
        self.covariances_ = _native(self.covariances_full_, ctype)
        self._chol = np.linalg.cholesky(self.covariances_full_)
        self.responsibilities_ = np.ascontiguousarray(R.T)
        self.labels_ = snap.labels.astype(np.int64)
        self.log_likelihood_ = history
        self.n_iter_ = snap.n_iter
        self.converged_ = snap.converged
        self.n_features_in_ = X.shape[1]
        self._center = em.center

    # -- using the fitted model ----------------------------------------------------------
    def _log_joint(self, X) -> np.ndarray:
        self._check_fitted("means_")
        X = check_array(X, n_features=self.n_features_in_, max_abs=MAX_ABS_VALUE)
        return _EM(X, self.covariance_type, 0.0, center=self._center).log_joint(self.weights_, self.means_, self._chol)

    def score_samples(self, X) -> np.ndarray:
        """log π(x_i) = log Σ_k c_k g(x_i; μ_k, Σ_k) for every row of X."""
        return log_normalise(self._log_joint(X))

    def score(self, X) -> float:
        """Mean log-likelihood per point, ℓ / n."""
        return float(np.mean(self.score_samples(X)))

    def predict_proba(self, X) -> np.ndarray:
        """Responsibilities a_ik of the fitted parameters, shape (n, K)."""
        L = self._log_joint(X)
        log_normalise(L)
        return np.ascontiguousarray(L.T)

    def predict(self, X) -> np.ndarray:
        """The most responsible component argmax_k a_ik of every row (ties to the lowest k)."""
        return argmax_rows(self._log_joint(X), np.int64)[0]

    def fit_predict(self, X) -> np.ndarray:
        """Fit on X and return ``labels_``."""
        return self.fit(X).labels_

    def _n_parameters(self) -> int:
        return n_parameters(self.means_.shape[0], self.means_.shape[1], self.covariance_type)

    def bic(self, X) -> float:
        """BIC = −2 ℓ + m log n with m free parameters (see :func:`n_parameters`); lower is better."""
        ll = float(np.sum(self.score_samples(X)))
        return -2.0 * ll + self._n_parameters() * math.log(np.asarray(X).shape[0])

    def aic(self, X) -> float:
        """AIC = −2 ℓ + 2 m; lower is better."""
        return -2.0 * float(np.sum(self.score_samples(X))) + 2.0 * self._n_parameters()

    def sample(self, n_samples=1, random_state=None) -> tuple[np.ndarray, np.ndarray]:
        """Draw from the fitted mixture: m ~ Categorical(c), then x = μ_m + L_m z, z ~ N(0, I).

        Returns ``(X, y)``: the points (n_samples, f), grouped by component, and the component
        of each (as scikit-learn's ``sample``).
        """
        self._check_fitted("means_")
        check_scalar("n_samples", n_samples, numbers.Integral, min_value=1, max_value=100_000_000)
        rng = check_random_state(random_state)
        counts = rng.multinomial(int(n_samples), self.weights_ / self.weights_.sum())
        f = self.n_features_in_
        parts = [self.means_[j] + rng.standard_normal((c, f)) @ self._chol[j].T for j, c in enumerate(counts)]
        y = np.repeat(np.arange(counts.size), counts)
        return np.vstack(parts), y


def _em_run(em: _EM, c, mu, cov, tol, relative, max_iter, half_steps, full_resp, restart, phase):
    """One EM run from (c, μ, Σ); yields (snapshot, responsibilities (K, n)) with step numbers
    local to the run (renumbered by the caller)."""
    n = em.n
    reg = em.reg
    L = em.log_joint(c, mu, _cholesky(cov, reg, em.tiny))
    k = L.shape[0]
    ldt = label_dtype(k)
    # before the first E-step nothing is assigned: a_ik = 1/K, F = Σ_ik (1/K) L_ik + n log K
    lb_uniform = float(L.sum()) / k + n * math.log(k) if half_steps else 0.0
    ll = float(log_normalise(L).sum())
    R = L
    R.setflags(write=False)
    entropy = -float(xlogy(R, R).sum()) if half_steps else 0.0
    hard = None  # labels and confidence of the current R (shared by the E and M snapshots)

    def snap(half, c, mu, cov, R, ll, lb, change, rel, it, converged):
        nonlocal hard
        if hard is None or hard[0] is not R:
            labels, conf = argmax_rows(R, ldt)
            hard = (R, frozen_array(labels), frozen_array(conf, dtype=np.float32))
        return MixtureSnapshot(
            step=0, phase=phase, half=half, weights=frozen_array(c), means=frozen_array(mu),
            covariances=frozen_array(cov), responsibilities=R.T if full_resp else None, labels=hard[1],
            confidence=hard[2], log_likelihood=ll, lower_bound=lb, change=change, relative_change=rel, n_iter=it,
            converged=converged, restart=restart,
        ), R

    if half_steps:
        uniform = np.full((k, n), 1.0 / k)
        uniform.setflags(write=False)
        yield snap("init", c, mu, cov, uniform, ll, lb_uniform, None, None, 0, False)
        yield snap("E", c, mu, cov, R, ll, ll, None, None, 0, False)
    else:
        yield snap("init", c, mu, cov, R, ll, ll, None, None, 0, False)
    for it in range(1, max_iter + 1):
        c, mu, cov = em.m_step(R)
        L = em.log_joint(c, mu, _cholesky(cov, reg, em.tiny))
        if half_steps:
            lb = float(np.sum(R * L)) + entropy
        new_ll = float(log_normalise(L).sum())
        if not math.isfinite(new_ll):
            raise ValueError("the log-likelihood became infinite: a component collapsed onto a point; "
                             f"set reg_covar > 0 (now {reg:g})")
        change = (new_ll - ll) / n
        rel = abs(new_ll - ll) / max(abs(new_ll), 1e-300)
        ll = new_ll
        converged = (rel if relative else abs(change)) < tol
        if half_steps:
            yield snap("M", c, mu, cov, R, ll, lb, change, rel, it, False)
        R = L
        R.setflags(write=False)
        if half_steps:
            entropy = -float(xlogy(R, R).sum())
        yield snap("E" if half_steps else "EM", c, mu, cov, R, ll, ll, change, rel, it, converged)
        if converged:
            return
