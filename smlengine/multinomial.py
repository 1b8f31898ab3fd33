"""Mixture of multinomials fitted by EM, for local histograms (count vectors).

Layout and memory as in :mod:`smlengine.kmeans`: counts feature-major ``(d, n)``,
responsibilities cluster-major ``(K, n)``; snapshots carry the hard labels (``uint8`` when
K <= 256) and the largest responsibility of every pixel (``float32``), not the (n, K) matrix.
The fitted model has ``responsibilities_`` in full.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Iterator

import numpy as np
from scipy.special import gammaln

from ._base import (
    BaseEstimator,
    IterativeMixin,
    Snapshot,
    check_array,
    check_random_state,
    check_scalar,
    frozen_array,
)
from ._params import ArrayLike, Integral, Interval, Options, RandomState, Real
from ._kmeans_core import MAX_ITER, argmax_rows, check_k, label_dtype, pick_distinct

__all__ = ["MultinomialMixture", "MultinomialMixtureSnapshot"]

#: largest pseudo-count α (a prior worth a million observations per bin)
MAX_PSEUDOCOUNT = 1e6


def _logsumexp_rows(L: np.ndarray) -> np.ndarray:
    """log Σ_k exp L[k, i] for a (K, n) array, overwriting L with exp(L - max) (its responsibilities).

    Returns the (n,) normaliser; afterwards ``L`` holds the responsibilities a_ik (columns sum
    to one). Done in place because the (K, n) matrix is the largest array of an EM step.
    """
    m = L.max(axis=0)
    m[~np.isfinite(m)] = 0.0  # a column of -inf only happens for impossible points; keep it finite
    L -= m
    np.exp(L, out=L)
    s = L.sum(axis=0)
    L /= s
    return m + np.log(s)


def _relative_change(new: float, old: float) -> float:
    return abs(new - old) / max(abs(new), 1e-300)


class _MixtureBase(IterativeMixin, BaseEstimator):
    """What a fitted mixture answers from its log joint (K, n): labels, responsibilities, scores, BIC."""

    def predict(self, X) -> np.ndarray:
        """Hard segmentation m_i = argmax_k a_ik."""
        L = self._log_joint(self._check_X(X, fitted=True))
        return argmax_rows(L, np.int64)[0]

    def predict_proba(self, X) -> np.ndarray:
        """Responsibilities a_ik = c_k P(x_i | θ_k) / Σ_l c_l P(x_i | θ_l), shape (n, K)."""
        L = self._log_joint(self._check_X(X, fitted=True))
        _logsumexp_rows(L)
        return np.ascontiguousarray(L.T)

    def score_samples(self, X) -> np.ndarray:
        """log π(x_i) = log Σ_k c_k P(x_i | θ_k) for every row (the full density, constants included)."""
        Xt = self._check_X(X, fitted=True)
        return _logsumexp_rows(self._log_joint(Xt)) + self._log_const(Xt)

    def score(self, X) -> float:
        """Mean log-likelihood per sample."""
        return float(np.mean(self.score_samples(X)))

    def bic(self, X) -> float:
        """BIC = −2 log L + m log n, with m the number of free parameters (lower is better)."""
        n = np.asarray(X).shape[0] if np.ndim(X) >= 1 else 0
        return float(-2.0 * np.sum(self.score_samples(X)) + self._n_parameters() * math.log(max(n, 1)))

    def aic(self, X) -> float:
        """AIC = −2 log L + 2 m."""
        return float(-2.0 * np.sum(self.score_samples(X)) + 2.0 * self._n_parameters())


# ----------------------------------------------------------------------------- multinomial mixture


@dataclass(frozen=True, kw_only=True)
class MultinomialMixtureSnapshot(Snapshot):
    """State of EM for the multinomial mixture after one iteration.

    Step 0 is the initial parameters with their E-step; step j the parameters after the j-th
    M-step with their E-step, so ``labels``/``confidence`` always belong to ``weights`` and
    ``probabilities`` of the same snapshot.

    Attributes
    ----------
    weights : ndarray (K,)
        mixture weights c_k
    probabilities : ndarray (K, d)
        bin probabilities t_k (rows on the simplex)
    labels : ndarray (n,) of uint8 (uint16 for K > 256)
        hard segmentation argmax_k a_ik
    confidence : ndarray (n,) of float32
        max_k a_ik (1 = certain; 1/K = undecided)
    log_likelihood : float
        the monitored objective, never decreases: the data
        log-likelihood Σ_i log π(H_i) plus ``log_prior`` (see :class:`MultinomialMixture`)
    log_prior : float
        α Σ_k Σ_j log t_kj (0 when pseudocount = 0); the plain data
        log-likelihood is ``log_likelihood - log_prior``
    relative_change : float or None
        |ℓ_j − ℓ_{j−1}| / |ℓ_j| (None at step 0: no previous ℓ)
    n_iter : int
        M-steps done.
    converged : bool
        The relative change is below ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import MultinomialMixture
    >>> H = np.array([[8, 1, 1], [9, 0, 1], [7, 2, 1], [1, 1, 8], [0, 2, 8], [1, 0, 9]])
    >>> for s in MultinomialMixture(n_components=2, random_state=0).fit_steps(H):
    ...     print(s.step, s.labels, round(s.log_likelihood, 2), s.converged)
    0 [1 1 1 1 0 1] -48.97 False
    1 [1 1 1 0 0 0] -23.23 False
    2 [1 1 1 0 0 0] -17.03 False
    3 [1 1 1 0 0 0] -17.01 False
    4 [1 1 1 0 0 0] -17.01 True
    """

    weights: np.ndarray
    probabilities: np.ndarray
    labels: np.ndarray
    confidence: np.ndarray
    log_likelihood: float
    log_prior: float
    relative_change: float | None
    n_iter: int
    converged: bool


class MultinomialMixture(_MixtureBase):
    """Mixture of multinomials fitted by EM, for local histograms (count vectors).

    Model: π(H) = Σ_k c_k P(H | t_k) with P(H | t) = N! / Π_j H_j! · Π_j t_j^{H_j} and
    N = Σ_j H_j, so log P(H_i | t_k) = Σ_j H_ij log t_kj + const.

    EM (the course's updates):

    * E-step: a_ik = c_k P(H_i | t_k) / Σ_l c_l P(H_i | t_l), computed in log space
      (log-sum-exp), so 225-count histograms do not underflow.
    * M-step: c_k = (1/n) Σ_i a_ik and
      t_kj = (Σ_i a_ik H_ij + α) / (Σ_i a_ik Σ_j H_ij + d α).

    The pseudo-count α (``pseudocount``) keeps bins that no pixel of a cluster uses from
    getting probability 0 (log 0 would make such a histogram impossible for that cluster
    forever). It is exactly the MAP update under a Dirichlet(α + 1) prior on every t_k, so EM
    never decreases the *penalised* log-likelihood

        ℓ(θ) = Σ_i log π(H_i) + α Σ_k Σ_j log t_kj,

    and that is what ``log_likelihood_`` records (non-decreasing at every step). With
    ``pseudocount=0`` it is the plain log-likelihood. :meth:`score_samples` and :meth:`bic`
    always use the plain log-likelihood. Stop when the relative change of ℓ is below ``tol``.

    A component whose weight becomes exactly 0 stays empty (reseeding it would break the
    monotone objective); its t_k is kept.

    Parameters
    ----------
    n_components : int, K >= 1
        K, the number of components.
    tol : float >= 0
        relative change of ℓ to stop
    max_iter : int in [0, 100000]
        EM iterations (0: only the initial state)
    pseudocount : float in [0, 1e6], default=0.01
        α; larger values would drown any histogram's
        counts (and from about 1e300 on overflow the update to NaN)
    init : {'random'}
        t_k from K distinct random histograms smoothed by +1, c_k = 1/K
    weights_init, probabilities_init : arrays (K,), (K, d), optional
        start from these
    random_state : None, int or Generator
        Seeds the random initialisation.

    Attributes
    ----------
    weights_ : ndarray (K,)
        The mixture weights c_k.
    probabilities_ : ndarray (K, d)
        The bin probabilities t_k.
    responsibilities_ : ndarray (n, K)
        a_ik of the training data.
    labels_ : ndarray (n,) of int64
        argmax_k a_ik
    log_likelihood_ : list of float
        ℓ, one per step (step 0 first), non-decreasing.
    n_iter_ : int
        EM iterations run.
    converged_ : bool
        Whether EM stopped on ``tol``.
    last_snapshot_ : MultinomialMixtureSnapshot
        The final state.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import MultinomialMixture
    >>> H = np.array([[8, 1, 1], [9, 0, 1], [7, 2, 1], [1, 1, 8], [0, 2, 8], [1, 0, 9]])
    >>> mm = MultinomialMixture(n_components=2, random_state=0).fit(H)
    >>> mm.labels_, mm.converged_, mm.n_iter_
    (array([1, 1, 1, 0, 0, 0]), True, 4)
    >>> print(np.round(mm.weights_, 3))
    [0.5 0.5]
    >>> print(np.round(mm.probabilities_, 3))
    [[0.067 0.1   0.833]
     [0.8   0.1   0.1  ]]
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
        "max_iter": [Interval(Integral, 0, MAX_ITER)],
        "pseudocount": [Interval(Real, 0, MAX_PSEUDOCOUNT)],
        "init": [Options(("random",))],
        "weights_init": [ArrayLike(), None],
        "probabilities_init": [ArrayLike(), None],
        "random_state": [RandomState(), None],
    }

    def __init__(self, n_components=3, *, tol=1e-6, max_iter=200, pseudocount=0.01, init="random",
                 weights_init=None, probabilities_init=None, random_state=None):
        self.n_components = n_components
        self.tol = tol
        self.max_iter = max_iter
        self.pseudocount = pseudocount
        self.init = init
        self.weights_init = weights_init
        self.probabilities_init = probabilities_init
        self.random_state = random_state

    def _check_X(self, X, fitted=False) -> np.ndarray:
        """Validated counts, returned feature-major (d, n)."""
        if fitted:
            self._check_fitted("probabilities_")
        X = check_array(X, name="X (counts)", n_features=self.probabilities_.shape[1] if fitted else None)
        if X.min() < 0:
            raise ValueError("X (counts) must be non-negative: rows are histograms of counts")
        if np.any(X.sum(axis=1) <= 0):
            raise ValueError("every count vector (row of X) needs a positive total")
        return np.ascontiguousarray(X.T)

    def _log_joint(self, Xt: np.ndarray) -> np.ndarray:
        """(K, n): log c_k + Σ_j H_ij log t_kj (without the multinomial coefficient)."""
        with np.errstate(divide="ignore"):
            logT = np.log(np.maximum(self.probabilities_, np.finfo(float).tiny))
            logc = np.log(self.weights_)
        L = logT @ Xt
        L += logc[:, None]
        return L

    @staticmethod
    def _log_const(Xt: np.ndarray) -> np.ndarray:
        """log N_i! − Σ_j log H_ij!, the multinomial coefficient of each histogram.

        Integer counts (the usual case) use a table of log m! instead of gammaln on every
        entry, which is many times faster for a 512 × 512 image of histograms.
        """
        totals = Xt.sum(axis=0)
        top = float(totals.max())
        if top <= 1e6 and np.array_equal(Xt, np.floor(Xt)):
            table = gammaln(np.arange(int(top) + 2, dtype=np.float64) + 1.0)
            ints = Xt.astype(np.intp)
            return table[totals.astype(np.intp)] - table[ints].sum(axis=0)
        return gammaln(totals + 1.0) - gammaln(Xt + 1.0).sum(axis=0)

    def _n_parameters(self) -> int:
        k, d = self.probabilities_.shape
        return (k - 1) + k * (d - 1)

    def _parts(self, parts) -> list:
        """Bin slices of the histograms a row is made of (one slice: the whole row)."""
        d = self.probabilities_.shape[1]
        if parts is None:
            return [slice(0, d)]
        sizes = [int(p) for p in parts]
        if not sizes or min(sizes) < 1 or sum(sizes) != d:
            raise ValueError(f"parts must be positive bin counts adding up to the {d} bins, got {list(parts)}")
        ends = np.cumsum(sizes)
        return [slice(int(e - z), int(e)) for e, z in zip(ends, sizes)]

    def n_parameters(self, parts=None) -> int:
        """Free parameters m: K − 1 weights and, per component and histogram part, bins − 1
        probabilities (each part's t_kj add up to a fixed share), m = (K − 1) + K Σ_b (d_b − 1)."""
        self._check_fitted("probabilities_")
        k = self.probabilities_.shape[0]
        return (k - 1) + k * sum(sl.stop - sl.start - 1 for sl in self._parts(parts))

    def dispersion(self, X, parts=None) -> float:
        """Overdispersion ĉ: how much more the counts vary than multinomial draws would.

        With responsibilities a_ik, N_ib the count total of part b of row i and t_kj
        renormalised within its part,

            ĉ = Σ_i Σ_k a_ik Σ_j (H_ij − N_ib t_kj)² / Σ_i Σ_k a_ik Σ_j N_ib t_kj (1 − t_kj),

        the observed squared deviations over their multinomial expectation: ≈ 1 when every
        count is an independent draw, larger when the counted items are dependent (the pixels
        of a window are neighbours), when a count vector then carries the information of
        about N / ĉ independent draws (the quasi-likelihood variance inflation, as in QAIC).

        Parameters
        ----------
        X : array (n, d) of counts
        parts : sequence of int, optional
            bin counts of the histograms a row is made of
            (e.g. ``(8, 10)``), each a multinomial of its own; default one histogram.
        """
        Xt = self._check_X(X, fitted=True)
        R = self._log_joint(Xt)
        _logsumexp_rows(R)  # R becomes the responsibilities (K, n)
        num = den = 0.0
        for sl in self._parts(parts):
            H = Xt[sl]  # (d_b, n)
            N = H.sum(axis=0)
            T = self.probabilities_[:, sl]
            T = T / np.maximum(T.sum(axis=1, keepdims=True), np.finfo(float).tiny)
            for k in range(T.shape[0]):
                E = T[k][:, None] * N[None, :]
                num += float(((H - E) ** 2).sum(axis=0) @ R[k])
                den += float((E * (1.0 - T[k])[:, None]).sum(axis=0) @ R[k])
        return num / den if den > 0 else 1.0

    def bic(self, X, *, parts=None, dispersion: float = 1.0) -> float:
        """BIC = −2 log L / ĉ + m log n (lower is better).

        log L = Σ_i log π(H_i) of the rows of X (plain, without the pseudo-count prior), n the
        number of rows, m = :meth:`n_parameters` (``parts``) and ĉ = ``dispersion`` (1: counts
        are independent draws; see :meth:`dispersion`). With the defaults this is the usual
        BIC = −2 log L + m log n.
        """
        check_scalar("dispersion", dispersion, numbers.Real, min_value=1e-12)
        n = np.asarray(X).shape[0] if np.ndim(X) >= 1 else 0
        loglik = float(np.sum(self.score_samples(X)))
        return -2.0 * loglik / float(dispersion) + self.n_parameters(parts) * math.log(max(n, 1))

    def fit_steps(self, X) -> Iterator[MultinomialMixtureSnapshot]:
        """Run EM, yielding one :class:`MultinomialMixtureSnapshot` per iteration.

        Yields
        ------
        MultinomialMixtureSnapshot
            Step 0: initial parameters and their responsibilities; step j: after the j-th
            M-step and the following E-step. The last snapshot equals the fitted state.
        """
        self.validate_params()
        Xt = self._check_X(X)
        d, n = Xt.shape
        k = check_k("n_components", self.n_components, n)
        alpha = float(self.pseudocount)
        rng = check_random_state(self.random_state)
        c, T = self._initial(Xt, k, rng)
        const = float(self._log_const(Xt).sum())
        ldt = label_dtype(k)
        history: list[float] = []
        converged = False

        def estep():
            self.weights_, self.probabilities_ = c, T
            L = self._log_joint(Xt)
            ll = float(_logsumexp_rows(L).sum()) + const
            with np.errstate(divide="ignore"):
                prior = alpha * float(np.log(np.maximum(T, np.finfo(float).tiny)).sum()) if alpha > 0 else 0.0
            return L, ll + prior, prior

        R, ll, prior = estep()
        history.append(ll)
        yield self._snapshot(0, c, T, R, ll, prior, None, 0, False, ldt)
        it = 0
        for it in range(1, int(self.max_iter) + 1):
            Nk = R.sum(axis=1)
            c = Nk / n
            num = (Xt @ R.T).T  # Σ_i a_ik H_ij, (K, d); this operand order is the faster BLAS call
            num += alpha
            den = num.sum(axis=1)
            newT = T.copy()
            ok = den > 0
            newT[ok] = num[ok] / den[ok, None]
            T = newT
            R, ll, prior = estep()
            change = _relative_change(ll, history[-1])
            history.append(ll)
            converged = change < self.tol
            yield self._snapshot(it, c, T, R, ll, prior, change, it, converged, ldt)
            if converged:
                break
        self.weights_ = c
        self.probabilities_ = T
        self.responsibilities_ = R.T
        self.labels_ = argmax_rows(R, np.int64)[0]
        self.log_likelihood_ = history
        self.n_iter_ = it
        self.converged_ = converged
        self.n_features_in_ = d

    def _initial(self, Xt, k, rng):
        d, n = Xt.shape
        if self.probabilities_init is not None:
            T = np.asarray(self.probabilities_init, dtype=np.float64)
            if T.shape != (k, d):
                raise ValueError(f"probabilities_init must have shape {(k, d)}, got {T.shape}")
            if not np.all(np.isfinite(T)) or T.min() < 0 or np.any(T.sum(axis=1) <= 0):
                raise ValueError("probabilities_init rows must be finite, non-negative and not all zero")
            T = T / T.sum(axis=1, keepdims=True)
        else:
            rows = pick_distinct(Xt.T, k, rng, "n_components")
            T = (rows + 1.0) / (rows.sum(axis=1, keepdims=True) + d)
        if self.weights_init is not None:
            c = np.asarray(self.weights_init, dtype=np.float64)
            if c.shape != (k,) or not np.all(np.isfinite(c)) or c.min() < 0 or c.sum() <= 0:
                raise ValueError(f"weights_init must be {k} non-negative numbers with a positive sum")
            c = c / c.sum()
        else:
            c = np.full(k, 1.0 / k)
        return c, T

    @staticmethod
    def _snapshot(step, c, T, R, ll, prior, change, it, converged, ldt):
        labels, conf = argmax_rows(R, ldt)
        labels.setflags(write=False)
        return MultinomialMixtureSnapshot(
            step=step, phase="EM", weights=frozen_array(c), probabilities=frozen_array(T),
            labels=labels, confidence=frozen_array(conf, dtype=np.float32),
            log_likelihood=ll, log_prior=prior, relative_change=change, n_iter=it, converged=converged,
        )
