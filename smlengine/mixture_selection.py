"""Choosing among Gaussian mixtures: seeded restarts, model order, and EM's k-means limit.

* :func:`mixture_restarts`: EM from many seeded starts, the spread of the final
  log-likelihoods and how many distinct optima they reach (EM finds local maxima only);
* :func:`model_order_steps`: BIC = −2ℓ + m log n, AIC = −2ℓ + 2m and split-half stability
  against K;
* :func:`soft_kmeans_steps`: EM with Σ_k = σ² I fixed and c_k = 1/K, which becomes k-means
  as σ → 0.

All three are importable from :mod:`smlengine.mixture` as well.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ._base import MAX_ABS_VALUE, Snapshot, check_array, check_random_state, check_scalar, frozen_array
from ._params import Integral, Interval, Real, validate_call
from ._kmeans_core import MAX_ITER
from ._mixture_core import LOG_2PI, GaussianMixture, check_data, log_normalise
from .stability import stability_steps

__all__ = [
    "soft_kmeans_steps",
    "SoftKMeansSnapshot",
    "mixture_restarts",
    "MixtureRestartsSnapshot",
    "model_order_steps",
    "ModelOrderSnapshot",
]


# ----------------------------------------------------------------------------- soft k-means


@dataclass(frozen=True, kw_only=True)
class SoftKMeansSnapshot(Snapshot):
    """One iteration of :func:`soft_kmeans_steps`.

    Attributes
    ----------
    means : ndarray (K, f)
        μ_k after this iteration.
    responsibilities : ndarray (n, K)
        a_ik of these means.
    objective : float
        Σ_i log Σ_k (1/K) g(x_i; μ_k, σ² I).
    n_iter : int
        M-steps done.
    converged : bool
        The means moved less than ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.mixture import soft_kmeans_steps
    >>> X = np.array([[0.0], [1.0], [5.0], [6.0]])
    >>> for s in soft_kmeans_steps(X, means_init=[[1.0], [2.0]], sigma=1.0):
    ...     print(s.step, np.round(s.means.ravel(), 3), round(s.objective, 3), s.converged)
    0 [1. 2.] -18.732 False
    1 [0.564 4.431] -8.092 False
    2 [0.499 5.493] -6.948 False
    3 [0.5 5.5] -6.948 False
    4 [0.5 5.5] -6.948 False
    5 [0.5 5.5] -6.948 True
    """

    means: np.ndarray
    responsibilities: np.ndarray
    objective: float
    n_iter: int
    converged: bool


#: smallest σ relative to the data's spread √(Σ_j Var x_j): below it d²/2σ² overflows for far points
MIN_RELATIVE_SIGMA = 1e-8


@validate_call({"sigma": [Interval(Real, 0, 1e100, closed="right")], "max_iter": [Interval(Integral, 0, MAX_ITER)],
                "tol": [Interval(Real, 0, None)]})
def soft_kmeans_steps(X, means_init, sigma, *, max_iter=100, tol=1e-8) -> Iterator[SoftKMeansSnapshot]:
    """EM for a mixture with fixed Σ_k = σ² I and c_k = 1/K: k-means in the limit σ → 0.

    E-step: a_ik = exp(−‖x_i − μ_k‖² / 2σ²) / Σ_l exp(−‖x_i − μ_l‖² / 2σ²);
    M-step: μ_k = Σ_i a_ik x_i / Σ_i a_ik (a component with no weight keeps its mean).
    As σ → 0 the responsibilities become the 0/1 nearest-mean assignment and the iteration is
    Lloyd's k-means. Stops when the means move less than ``tol`` (Σ_k ‖Δμ_k‖) or after
    ``max_iter`` M-steps (at most 100,000). σ lies in [1e-8 · spread, 1e100], the spread being
    √(Σ_j Var x_j): a smaller σ gives the same hard assignments and would overflow d²/2σ².

    Yields
    ------
    SoftKMeansSnapshot
        Step 0: the initial means with their responsibilities; then one per iteration.
    """
    X = check_array(X, max_abs=MAX_ABS_VALUE)
    mu = np.array(means_init, dtype=np.float64)
    if mu.ndim != 2 or mu.shape[1] != X.shape[1] or mu.shape[0] < 1 or not np.all(np.isfinite(mu)):
        raise ValueError(f"means_init must be a finite array of shape (K, {X.shape[1]})")
    spread = float(np.sqrt(X.var(axis=0).sum()))
    if sigma < MIN_RELATIVE_SIGMA * spread:
        raise ValueError(f"sigma must be at least {MIN_RELATIVE_SIGMA:g} times the spread of the data, "
                         f"{MIN_RELATIVE_SIGMA * spread:.3g} here; got {sigma:g}")
    k, f = mu.shape
    s2 = float(sigma) ** 2
    xx = np.einsum("ij,ij->i", X, X)

    def estep(mu):
        d2 = xx[:, None] - 2.0 * X @ mu.T + np.einsum("ij,ij->i", mu, mu)[None]
        np.maximum(d2, 0.0, out=d2)
        L = (-0.5 / s2) * d2.T - math.log(k) - 0.5 * f * (LOG_2PI + math.log(s2))
        ll = float(log_normalise(L).sum())
        L.setflags(write=False)
        return L, ll

    R, ll = estep(mu)
    yield SoftKMeansSnapshot(step=0, phase="soft k-means", means=frozen_array(mu), responsibilities=R.T,
                             objective=ll, n_iter=0, converged=False)
    for it in range(1, int(max_iter) + 1):
        nk = R.sum(axis=1)
        new = mu.copy()
        ok = nk > 0
        new[ok] = (R[ok] @ X) / nk[ok, None]
        shift = float(np.sqrt(((new - mu) ** 2).sum(axis=1)).sum())
        mu = new
        R, ll = estep(mu)
        converged = shift <= tol
        yield SoftKMeansSnapshot(step=it, phase="soft k-means", means=frozen_array(mu), responsibilities=R.T,
                                 objective=ll, n_iter=it, converged=converged)
        if converged:
            return


# ----------------------------------------------------------------------------- restarts


@dataclass(frozen=True, kw_only=True)
class MixtureRestartsSnapshot(Snapshot):
    """Progress of :func:`mixture_restarts`, one snapshot per finished restart.

    Attributes
    ----------
    log_likelihoods : ndarray (r,)
        Final ℓ of each finished restart.
    n_iters : ndarray (r,)
        EM iterations of each finished restart.
    solution_ids : ndarray (r,)
        Which distinct optimum each reached.
    n_distinct : int
        Number of distinct optima so far.
    best_index, worst_index : int
        Restart with the highest / lowest final ℓ (-1 before the first).
    best_means, worst_means : ndarray (K, f) or None
        Their means.
    n_restarts : int
        How many restarts will run.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.mixture import mixture_restarts
    >>> X = np.array([[0.0], [0.5], [1.0], [4.0], [4.5], [5.0], [9.0], [9.5]])
    >>> for s in mixture_restarts(X, n_components=2, n_restarts=3, random_state=0):
    ...     print(s.step, np.round(s.log_likelihoods, 3), s.n_distinct, s.best_index)
    0 [-18.152] 1 0
    1 [-18.152 -17.353] 2 1
    2 [-18.152 -17.353 -18.152] 2 1
    """

    log_likelihoods: np.ndarray
    n_iters: np.ndarray
    solution_ids: np.ndarray
    n_distinct: int
    best_index: int
    best_means: np.ndarray | None
    worst_index: int
    worst_means: np.ndarray | None
    n_restarts: int


def _same_optimum(A: np.ndarray, B: np.ndarray, scale: float) -> bool:
    from scipy.optimize import linear_sum_assignment  # deferred: scipy.optimize is slow to import

    cost = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2))
    r, c = linear_sum_assignment(cost)
    return bool(cost[r, c].max() <= 0.05 * scale)


def mixture_restarts(X, n_components=3, *, n_restarts=20, covariance_type="full", init="random", reg_covar=1e-6,
                     tol=1e-4, max_iter=200, random_state=None) -> Iterator[MixtureRestartsSnapshot]:
    """Run EM ``n_restarts`` times from seeded initialisations; yield after each restart.

    Restart r uses the seed ``seeds[r]`` drawn once from ``random_state`` (the same
    ``random_state`` replays the same restarts). Two restarts reach the same optimum when
    their means coincide up to relabelling within 5 % of the data's standard deviation.
    """
    check_scalar("n_restarts", n_restarts, numbers.Integral, min_value=1, max_value=10_000)
    if not isinstance(init, str):
        raise ValueError("restarts need a random init ('kmeans', 'k-means++' or 'random'), not fixed means")
    X = check_data(X, n_components)
    rng = check_random_state(random_state)
    seeds = rng.integers(0, 2**31 - 1, size=int(n_restarts))
    scale = float(np.sqrt(X.var(axis=0).sum())) or 1.0
    lls, iters, ids, reps = [], [], [], []
    best_i, best_means, worst_i, worst_means = -1, None, -1, None
    for r in range(int(n_restarts)):
        gm = GaussianMixture(n_components, covariance_type=covariance_type, init=init, reg_covar=reg_covar, tol=tol,
                             max_iter=max_iter, random_state=int(seeds[r])).fit(X)
        ll = gm.log_likelihood_[-1]
        lls.append(ll)
        iters.append(gm.n_iter_)
        for j, rep in enumerate(reps):
            if _same_optimum(rep, gm.means_, scale):
                ids.append(j)
                break
        else:
            ids.append(len(reps))
            reps.append(gm.means_)
        if best_i < 0 or ll > lls[best_i]:
            best_i, best_means = r, gm.means_
        if worst_i < 0 or ll < lls[worst_i]:
            worst_i, worst_means = r, gm.means_
        yield MixtureRestartsSnapshot(
            step=r, phase="restarts", progress=(r + 1) / n_restarts, log_likelihoods=frozen_array(lls),
            n_iters=frozen_array(iters, dtype=np.int64), solution_ids=frozen_array(ids, dtype=np.int64),
            n_distinct=len(reps), best_index=best_i, best_means=frozen_array(best_means), worst_index=worst_i,
            worst_means=frozen_array(worst_means), n_restarts=int(n_restarts),
        )


# ----------------------------------------------------------------------------- model order


@dataclass(frozen=True, kw_only=True)
class ModelOrderSnapshot(Snapshot):
    """Progress of :func:`model_order_steps`: one snapshot per finished K (then per stability K).

    Attributes
    ----------
    ks : ndarray (m,)
        The K compared.
    bic, aic, log_likelihood, instability : ndarray (m,)
        Per K, with NaN where not done yet.
    models : tuple
        (weights, means, full covariances) per K done (None where not).
    best_bic_k, best_aic_k : int
        The K with the lowest criterion so far (0 when none).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.mixture import model_order_steps
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(0.0, 1.0, size=(15, 1)), rng.normal(8.0, 1.0, size=(15, 1))])
    >>> snaps = list(model_order_steps(X, ks=[1, 2, 3], n_init=1, n_splits=0, random_state=0))
    >>> last = snaps[-1]
    >>> print(last.ks, np.round(last.bic, 2), last.best_bic_k, last.best_aic_k)
    [1 2 3] [177.91 129.38 138.79] 2 2
    """

    ks: np.ndarray
    bic: np.ndarray
    aic: np.ndarray
    log_likelihood: np.ndarray
    instability: np.ndarray
    models: tuple
    best_bic_k: int
    best_aic_k: int


def model_order_steps(X, ks=range(1, 9), *, covariance_type="full", n_init=3, reg_covar=1e-6, tol=1e-4,
                      max_iter=200, n_splits=3, random_state=None) -> Iterator[ModelOrderSnapshot]:
    """Compare K by BIC = −2ℓ + m log n, AIC = −2ℓ + 2m and split-half instability.

    For each K (skipping those larger than the distinct points) fit with ``n_init``
    restarts and record BIC and AIC; then for each K the instability of
    :func:`smlengine.cluster.stability` (two random halves, fitted separately, disagreement on
    one half minimised over relabellings; ``n_splits`` splits; 0 skips it). One snapshot per
    finished piece of work, so a live view fills in progressively.
    """
    X = check_data(X, 1)
    ks = np.asarray(list(ks), dtype=np.int64)
    if ks.size == 0 or ks.min() < 1:
        raise ValueError("ks must be a non-empty list of K >= 1")
    check_scalar("n_splits", n_splits, numbers.Integral, min_value=0, max_value=100)
    distinct = np.unique(X, axis=0).shape[0]
    ks = ks[ks <= distinct]
    if ks.size == 0:
        raise ValueError(f"every K is larger than the number of distinct points ({distinct})")
    rng = check_random_state(random_state)
    seeds = rng.integers(0, 2**31 - 1, size=ks.size + 1)
    m = ks.size
    bic, aic, lls, inst = (np.full(m, np.nan) for _ in range(4))
    models: list = [None] * m
    total = m + (m if n_splits else 0)
    step = 0

    def snapshot():
        def best(v):
            return int(ks[np.nanargmin(v)]) if np.any(np.isfinite(v)) else 0

        return ModelOrderSnapshot(
            step=step, phase="model order", progress=(step + 1) / total, ks=frozen_array(ks), bic=frozen_array(bic),
            aic=frozen_array(aic), log_likelihood=frozen_array(lls), instability=frozen_array(inst),
            models=tuple(models), best_bic_k=best(bic), best_aic_k=best(aic),
        )

    for i, k in enumerate(ks):
        gm = GaussianMixture(int(k), covariance_type=covariance_type, reg_covar=reg_covar, tol=tol, max_iter=max_iter,
                             n_init=n_init, random_state=int(seeds[i])).fit(X)
        bic[i], aic[i] = gm.bic(X), gm.aic(X)
        lls[i] = gm.log_likelihood_[-1]
        models[i] = (frozen_array(gm.weights_), frozen_array(gm.means_), frozen_array(gm.covariances_full_))
        yield snapshot()
        step += 1
    if not n_splits:
        return
    half = X.shape[0] // 2
    for i, k in enumerate(ks):
        if k > half or k < 2:
            inst[i] = 0.0 if k == 1 else np.nan
        else:
            def factory(kk, seed):
                return GaussianMixture(kk, covariance_type=covariance_type, reg_covar=max(reg_covar, 1e-6), tol=tol,
                                       max_iter=max_iter, random_state=seed)

            try:
                last = None
                for last in stability_steps(factory, X, [int(k)], n_splits=n_splits, random_state=int(seeds[-1])):
                    pass
                inst[i] = float(last.result.instability[0])
            except ValueError:  # a half with too few distinct points for this K
                inst[i] = np.nan
        yield snapshot()
        step += 1
