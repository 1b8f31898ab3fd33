"""Bayesian inference and decision: conjugate posteriors, the Bayes classifier, naive Bayes.

Bayes' rule, p(θ | x) ∝ p(x | θ) p(θ), and its incremental form: after each observation the
posterior becomes the prior of the next one, so updating one observation at a time ends where
the batch update does. The conjugate pairs of the course:

* **Beta–Bernoulli.** Prior θ ~ Beta(a, b); after k heads (x = 1) in n flips the posterior is
  Beta(a + k, b + n − k). Posterior mean (a + k) / (a + b + n); MAP (mode)
  (a + k − 1) / (a + b + n − 2); maximum likelihood k / n; predictive P(next = 1) = posterior
  mean; marginal likelihood of the sequence p(x) = B(a + k, b + n − k) / B(a, b).
* **Dirichlet–multinomial.** Prior (θ_1..θ_K) ~ Dir(α); after counts n_k the posterior is
  Dir(α + n); mean and predictive (α_k + n_k) / Σ_j (α_j + n_j); marginal likelihood of the
  sequence Γ(A) / Γ(A + n) Π_k Γ(α_k + n_k) / Γ(α_k), A = Σ α_k.
* **Normal mean, known variance σ².** Prior μ ~ N(μ₀, τ₀²); after n points of mean x̄ the
  posterior is N(μ_n, τ_n²) with precisions adding up, 1/τ_n² = 1/τ₀² + n/σ², and the
  precision-weighted mean μ_n = τ_n² (μ₀/τ₀² + n x̄/σ²); predictive N(μ_n, τ_n² + σ²).

Decision: the MAP rule ŷ(x) = argmax_k p(x | y = k) π_k minimises the probability of error.
With Gaussian classes p(x | y = k) = N(μ_k, Σ_k) the boundary is quadratic (QDA); with one
shared Σ it is linear (LDA); with diagonal Σ_k the class density is a product over features
(Gaussian naive Bayes). The Bayes error of two classes is the overlap
∫ min(π₀ p₀(x), π₁ p₁(x)) dx; for equal covariances and priors it is Φ(−Δ/2), Δ the Mahalanobis
distance between the means. Multinomial naive Bayes models a document's word counts with one
word distribution per class, estimated with add-α (Laplace) smoothing:
P(w | c) = (N_cw + α) / (N_c + V α).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Iterator

import numpy as np
from scipy.special import betaincinv, betaln, gammaln, ndtri

from ._base import (
    MAX_ABS_VALUE,
    BaseEstimator,
    ClassifierMixin,
    Snapshot,
    check_array,
    check_X_y,
    frozen_array,
)
from ._bayes_gaussian import check_rows, fit_class_model, log_joint, softmax_rows
from ._bayes_risk import prob_positive, quadratic_form
from ._params import ArrayLike, Interval, Options, Real, validate_call

__all__ = [
    "BetaBernoulli",
    "BetaBernoulliSnapshot",
    "DirichletMultinomial",
    "DirichletSnapshot",
    "NormalKnownVariance",
    "GaussianBayesClassifier",
    "MultinomialNaiveBayes",
    "bayes_risk_2gauss",
]

#: largest prior pseudo-count (a prior worth a million observations)
MAX_PSEUDOCOUNT = 1e6
#: bounds of the normal model's scales and prior mean: precisions 1/τ² and 1/σ² stay far from overflow
MAX_SCALE = 1e50


def _check_level(level) -> float:
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    return float(level)


def _check_binary(x) -> np.ndarray:
    """Coin data as a 1-D float array of 0.0 and 1.0 (an empty sequence is allowed)."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"coin data must be 0 (tails) and 1 (heads) only ({str(exc)[:60]})") from None
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"coin data must be a 1-D sequence of 0 and 1, got shape {arr.shape}")
    bad = (arr != 0.0) & (arr != 1.0)
    if np.any(bad):
        raise ValueError(f"coin data must be 0 (tails) or 1 (heads) only; got {arr[bad][0]!r}")
    return arr


# ----------------------------------------------------------------------------- Beta–Bernoulli


@dataclass(frozen=True, kw_only=True)
class BetaBernoulliSnapshot(Snapshot):
    """The Beta posterior after ``n_seen`` flips.

    Attributes
    ----------
    a, b : float
        The posterior Beta(a, b): the prior's pseudo-counts plus the heads and tails seen.
    n_seen : int
        Flips seen so far (0 for the prior).
    heads : int
        Heads among them.
    x : float or None
        The flip just seen (1.0 heads, 0.0 tails; None for the prior).

    Examples
    --------
    >>> from smlengine.bayes import BetaBernoulli
    >>> for s in BetaBernoulli(a=2, b=2).update_steps([1, 1, 0]):
    ...     print(s.step, s.a, s.b, s.n_seen, s.x)
    0 2.0 2.0 0 None
    1 3.0 2.0 1 1.0
    2 4.0 2.0 2 1.0
    3 4.0 3.0 3 0.0
    """

    a: float
    b: float
    n_seen: int
    heads: int
    x: float | None


class BetaBernoulli(BaseEstimator):
    """The Beta posterior of a coin's probability of heads θ, flip by flip.

    Prior θ ~ Beta(a, b); the likelihood of a flip is θ^x (1 − θ)^(1 − x). After k heads in n
    flips the posterior is Beta(a + k, b + n − k) (conjugacy), whatever the order of the flips.

    Parameters
    ----------
    a, b : float in (0, 1e6], default=1.0
        The prior's pseudo-counts of heads and tails: (1, 1) uniform, (0.5, 0.5) Jeffreys,
        large values a prior as strong as that many flips.

    Attributes
    ----------
    a_, b_ : float
        The posterior Beta(a_, b_).
    n_seen_ : int
        Flips seen.
    heads_ : int
        Heads seen.

    Examples
    --------
    >>> from smlengine.bayes import BetaBernoulli
    >>> coin = BetaBernoulli().fit([1, 1, 1])
    >>> coin.a_, coin.b_, coin.mean(), coin.mode(), coin.predictive()
    (4.0, 1.0, 0.8, 1.0, 0.8)
    >>> [round(v, 4) for v in coin.credible_interval(0.95)]
    [0.3976, 0.9937]
    >>> round(coin.log_marginal_likelihood([1, 1, 1]), 4)  # log 1/4
    -1.3863
    """

    _parameter_constraints = {
        "a": [Interval(Real, 0, MAX_PSEUDOCOUNT, closed="right")],
        "b": [Interval(Real, 0, MAX_PSEUDOCOUNT, closed="right")],
    }

    def __init__(self, a=1.0, b=1.0):
        self.a = a
        self.b = b

    def fit(self, x, y=None) -> "BetaBernoulli":
        """The posterior after the flips ``x`` (0 tails, 1 heads; empty: the prior); ``y`` is ignored."""
        self.validate_params()
        arr = _check_binary(x)
        self._set(float(self.a), float(self.b), arr.size, int(arr.sum()))
        return self

    def update_steps(self, x) -> Iterator[BetaBernoulliSnapshot]:
        """Bayes' rule one flip at a time: yesterday's posterior is today's prior.

        Yields
        ------
        BetaBernoulliSnapshot
            The prior (step 0), then the posterior after each flip; the last equals :meth:`fit`.
        """
        self.validate_params()
        arr = _check_binary(x)
        a, b, heads = float(self.a), float(self.b), 0
        self._set(a, b, 0, 0)
        yield BetaBernoulliSnapshot(step=0, a=a, b=b, n_seen=0, heads=0, x=None)
        for i, xi in enumerate(arr, start=1):
            a, b = a + xi, b + (1.0 - xi)  # the posterior of the last flip is the prior of this one
            heads += int(xi)
            self._set(float(self.a), float(self.b), i, heads)
            yield BetaBernoulliSnapshot(step=i, a=a, b=b, n_seen=i, heads=heads, x=float(xi),
                                        progress=i / arr.size)

    def _set(self, a0: float, b0: float, n: int, heads: int) -> None:
        self.a_, self.b_ = a0 + heads, b0 + (n - heads)
        self.n_seen_, self.heads_ = int(n), int(heads)

    def mean(self) -> float:
        """Posterior mean E[θ | x] = a_ / (a_ + b_)."""
        self._check_fitted("a_")
        return self.a_ / (self.a_ + self.b_)

    def mode(self) -> float | None:
        """The MAP estimate argmax_θ Beta(θ; a_, b_).

        (a_ − 1) / (a_ + b_ − 2) when a_, b_ > 1; 0 or 1 where the density is largest at an end
        (a_ ≤ 1 ≤ b_ or b_ ≤ 1 ≤ a_, not both 1); None where it is undefined: a flat posterior
        (a_ = b_ = 1) or one peaked at both ends (a_, b_ < 1).
        """
        self._check_fitted("a_")
        a, b = self.a_, self.b_
        if a > 1.0 and b > 1.0:
            return (a - 1.0) / (a + b - 2.0)
        if a == 1.0 and b == 1.0 or (a < 1.0 and b < 1.0):
            return None
        return 0.0 if a <= 1.0 <= b else 1.0

    def credible_interval(self, level=0.95) -> tuple[float, float]:
        """The equal-tailed interval: the (1 − level)/2 and (1 + level)/2 quantiles of the posterior."""
        self._check_fitted("a_")
        level = _check_level(level)
        lo, hi = betaincinv(self.a_, self.b_, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
        return float(lo), float(hi)

    def predictive(self) -> float:
        """P(next flip = 1 | x) = ∫ θ p(θ | x) dθ = a_ / (a_ + b_)."""
        return self.mean()

    def log_marginal_likelihood(self, x) -> float:
        """log p(x) = log ∫ Π θ^x_i (1 − θ)^(1 − x_i) Beta(θ; a, b) dθ = log B(a + k, b + n − k) − log B(a, b).

        The probability of this sequence under the *prior* (a, b), not the posterior: it compares
        priors on the same data (no binomial coefficient: the order of the flips is given).
        """
        self.validate_params()
        arr = _check_binary(x)
        k, n = float(arr.sum()), arr.size
        return float(betaln(self.a + k, self.b + n - k) - betaln(self.a, self.b))

    def score(self, x, y=None) -> float:
        """Mean log posterior predictive of a new sequence, log p(x | data seen) / n (higher is better)."""
        self._check_fitted("a_")
        arr = _check_binary(x)
        if arr.size == 0:
            return 0.0
        k, n = float(arr.sum()), arr.size
        return float(betaln(self.a_ + k, self.b_ + n - k) - betaln(self.a_, self.b_)) / n


# ----------------------------------------------------------------------------- Dirichlet–multinomial


@dataclass(frozen=True, kw_only=True, eq=False)
class DirichletSnapshot(Snapshot):
    """The Dirichlet posterior after ``n_seen`` rolls.

    Attributes
    ----------
    alpha : ndarray (K,)
        The posterior Dir(alpha): the prior's pseudo-counts plus the counts seen.
    n_seen : int
        Rolls seen (0 for the prior).
    symbol : int or None
        The face just seen (None for the prior).

    Examples
    --------
    >>> from smlengine.bayes import DirichletMultinomial
    >>> for s in DirichletMultinomial([1, 1, 1]).update_steps([2, 0]):
    ...     print(s.step, s.alpha, s.symbol)
    0 [1. 1. 1.] None
    1 [1. 1. 2.] 2
    2 [2. 1. 2.] 0
    """

    alpha: np.ndarray
    n_seen: int
    symbol: int | None


class DirichletMultinomial(BaseEstimator):
    """The Dirichlet posterior of a die's face probabilities.

    Prior (θ_1..θ_K) ~ Dir(α); after n_k rolls of face k the posterior is Dir(α + n).

    Parameters
    ----------
    alpha : array-like (K,), K >= 2
        The prior's pseudo-count of each face, each in (0, 1e6].

    Attributes
    ----------
    alpha_ : ndarray (K,)
        The posterior Dir(alpha_).
    counts_ : ndarray (K,)
        The counts seen.
    n_seen_ : int
        Rolls seen.

    Examples
    --------
    >>> from smlengine.bayes import DirichletMultinomial
    >>> die = DirichletMultinomial([1, 1, 1]).fit([0, 0, 2, 0])  # symbols: faces 0, 0, 2, 0
    >>> die.alpha_, die.mean()
    (array([4., 1., 2.]), array([0.57142857, 0.14285714, 0.28571429]))
    >>> DirichletMultinomial([1, 1, 1]).fit([[3, 0, 1]]).alpha_  # a row of counts: the same posterior
    array([4., 1., 2.])
    """

    _parameter_constraints = {"alpha": [ArrayLike()]}

    def __init__(self, alpha):
        self.alpha = alpha

    def _prior(self) -> np.ndarray:
        self.validate_params()
        try:
            alpha = np.asarray(self.alpha, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("alpha must be a list of K >= 2 positive pseudo-counts") from None
        if alpha.ndim != 1 or alpha.size < 2:
            raise ValueError(f"alpha must be a 1-D list of K >= 2 pseudo-counts, got shape {alpha.shape}")
        if not np.all(np.isfinite(alpha)) or np.any(alpha <= 0) or np.any(alpha > MAX_PSEUDOCOUNT):
            raise ValueError(f"alpha must hold pseudo-counts in (0, {MAX_PSEUDOCOUNT:.0e}], got {alpha.tolist()[:6]}")
        return alpha

    @staticmethod
    def _counts(x, K: int) -> np.ndarray:
        """Counts of each face from symbols (1-D, each in 0..K-1) or rows of counts (2-D, (n, K))."""
        try:
            arr = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("die data must be face numbers 0..K-1 (1-D) or rows of counts (2-D)") from None
        if not np.all(np.isfinite(arr)):
            raise ValueError("die data contain NaN or infinite values")
        if arr.ndim == 2:
            if arr.shape[1] != K:
                raise ValueError(f"rows of counts must have K = {K} columns (one per face), got {arr.shape[1]}")
            if np.any(arr < 0):
                raise ValueError(f"counts must be >= 0, got {arr[arr < 0][0]:g}")
            if np.any(arr != np.round(arr)):
                raise ValueError("counts must be whole numbers")
            return arr.sum(axis=0)
        if arr.ndim != 1:
            raise ValueError(f"die data must be 1-D symbols or 2-D counts, got shape {arr.shape}")
        bad = (arr < 0) | (arr >= K) | (arr != np.round(arr))
        if np.any(bad):
            raise ValueError(f"symbols must be whole numbers in 0..{K - 1}, got {arr[bad][0]:g} "
                             f"(pass counts as a 2-D array, one row per histogram)")
        return np.bincount(arr.astype(np.int64), minlength=K).astype(np.float64)

    def fit(self, x, y=None) -> "DirichletMultinomial":
        """The posterior after ``x``: symbols (1-D) or rows of counts (2-D, summed); ``y`` is ignored."""
        alpha = self._prior()
        counts = self._counts(x, alpha.size)
        self.counts_, self.alpha_, self.n_seen_ = counts, alpha + counts, int(counts.sum())
        return self

    def update_steps(self, x) -> Iterator[DirichletSnapshot]:
        """One roll at a time.

        Yields
        ------
        DirichletSnapshot
            The prior (step 0), then the posterior after each symbol of ``x`` (1-D); the last
            equals :meth:`fit`.
        """
        alpha = self._prior()
        K = alpha.size
        arr = np.asarray(x)
        if arr.ndim != 1:
            raise ValueError(f"update_steps takes a 1-D sequence of symbols, got shape {arr.shape}")
        self._counts(arr, K)  # the same checks as fit, before the first snapshot
        counts = np.zeros(K)
        self.counts_, self.alpha_, self.n_seen_ = counts.copy(), alpha.copy(), 0
        yield DirichletSnapshot(step=0, alpha=frozen_array(alpha), n_seen=0, symbol=None)
        for i, s in enumerate(arr.astype(np.int64), start=1):
            counts[s] += 1.0
            self.counts_, self.alpha_, self.n_seen_ = counts.copy(), alpha + counts, i
            yield DirichletSnapshot(step=i, alpha=frozen_array(self.alpha_), n_seen=i, symbol=int(s),
                                    progress=i / arr.size)

    def mean(self) -> np.ndarray:
        """Posterior mean E[θ_k | x] = alpha_k / Σ alpha_j."""
        self._check_fitted("alpha_")
        return self.alpha_ / self.alpha_.sum()

    def predictive(self) -> np.ndarray:
        """P(next roll = k | x), the posterior mean."""
        return self.mean()

    def credible_interval(self, level=0.95) -> np.ndarray:
        """(K, 2): equal-tailed intervals of each θ_k from its marginal Beta(alpha_k, Σ alpha − alpha_k)."""
        self._check_fitted("alpha_")
        level = _check_level(level)
        rest = self.alpha_.sum() - self.alpha_
        return np.column_stack([betaincinv(self.alpha_, rest, (1.0 - level) / 2.0),
                                betaincinv(self.alpha_, rest, (1.0 + level) / 2.0)])

    def log_marginal_likelihood(self, x) -> float:
        """log p(x) of a sequence with these counts under the prior α:
        log Γ(A) − log Γ(A + n) + Σ_k [log Γ(α_k + n_k) − log Γ(α_k)]."""
        alpha = self._prior()
        n = self._counts(x, alpha.size)
        A = alpha.sum()
        return float(gammaln(A) - gammaln(A + n.sum()) + np.sum(gammaln(alpha + n) - gammaln(alpha)))

    def score(self, x, y=None) -> float:
        """Mean log posterior predictive of a new sequence, log p(x | data seen) / n (higher is better)."""
        self._check_fitted("alpha_")
        n = self._counts(x, self.alpha_.size)
        total, A = n.sum(), self.alpha_.sum()
        if total == 0:
            return 0.0
        return float(gammaln(A) - gammaln(A + total) + np.sum(gammaln(self.alpha_ + n) - gammaln(self.alpha_))) / total


# ----------------------------------------------------------------------------- normal mean


class NormalKnownVariance(BaseEstimator):
    """The posterior of a normal mean μ when the noise's standard deviation σ is known.

    Prior μ ~ N(mu0, tau0²), data x_i ~ N(μ, σ²). Precisions add, 1/τ_n² = 1/τ₀² + n/σ², and the
    posterior mean is the precision-weighted average μ_n = τ_n² (μ₀/τ₀² + n x̄/σ²).

    Parameters
    ----------
    mu0 : float in [-1e50, 1e50], default=0.0
        Prior mean.
    tau0 : float in [1e-50, 1e50], default=1.0
        Prior standard deviation.
    sigma : float in [1e-50, 1e50], default=1.0
        The known standard deviation of the data around μ.

    Attributes
    ----------
    mu_ : float
        Posterior mean μ_n.
    tau_ : float
        Posterior standard deviation τ_n.
    n_seen_ : int
        Points seen.

    Examples
    --------
    >>> from smlengine.bayes import NormalKnownVariance
    >>> post = NormalKnownVariance(mu0=0.0, tau0=1.0, sigma=1.0).fit([2.0, 2.0, 2.0])
    >>> post.mu_, round(post.tau_, 4), [round(v, 4) for v in post.predictive()]
    (1.5, 0.5, [1.5, 1.118])
    """

    _parameter_constraints = {
        "mu0": [Interval(Real, -MAX_SCALE, MAX_SCALE)],
        "tau0": [Interval(Real, 1.0 / MAX_SCALE, MAX_SCALE)],
        "sigma": [Interval(Real, 1.0 / MAX_SCALE, MAX_SCALE)],
    }

    def __init__(self, mu0=0.0, tau0=1.0, sigma=1.0):
        self.mu0 = mu0
        self.tau0 = tau0
        self.sigma = sigma

    def _data(self, x) -> np.ndarray:
        arr = np.asarray(x, dtype=np.float64) if not isinstance(x, np.ndarray) else x
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        return check_array(arr, name="x", ndim=1, min_samples=0, max_abs=MAX_ABS_VALUE)

    def _posterior(self, x: np.ndarray) -> tuple[float, float]:
        """(μ_n, τ_n²) after the points x."""
        w0, n = 1.0 / float(self.tau0) ** 2, x.size
        if n == 0:
            return float(self.mu0), 1.0 / w0
        w = n / float(self.sigma) ** 2
        # μ_n = μ₀ + (w / (w₀ + w)) (x̄ − μ₀): a weight in [0, 1], no product of huge numbers
        return float(self.mu0 + (w / (w0 + w)) * (x.mean() - self.mu0)), 1.0 / (w0 + w)

    def fit(self, x, y=None) -> "NormalKnownVariance":
        """The posterior after the points ``x`` (1-D; empty: the prior); ``y`` is ignored."""
        self.validate_params()
        x = self._data(x)
        mu, var = self._posterior(x)
        self.mu_, self.tau_, self.n_seen_ = mu, math.sqrt(var), int(x.size)
        return self

    def predictive(self) -> tuple[float, float]:
        """(mean, sd) of the next point: N(μ_n, τ_n² + σ²)."""
        self._check_fitted("mu_")
        return self.mu_, math.sqrt(self.tau_ ** 2 + float(self.sigma) ** 2)

    def credible_interval(self, level=0.95) -> tuple[float, float]:
        """The equal-tailed interval μ_n ± z τ_n of the posterior."""
        self._check_fitted("mu_")
        z = float(ndtri(0.5 + _check_level(level) / 2.0))
        return self.mu_ - z * self.tau_, self.mu_ + z * self.tau_

    def _sequential_log_predictive(self, x: np.ndarray, mu0: float, var0: float) -> float:
        """Σ_i log N(x_i; μ_{i−1}, τ_{i−1}² + σ²): the chain rule p(x) = Π p(x_i | x_<i)."""
        s2 = float(self.sigma) ** 2
        w0 = 1.0 / var0
        idx = np.arange(x.size)
        prev_sum = np.concatenate([[0.0], np.cumsum(x)[:-1]])
        w = w0 + idx / s2
        mean_prev = (w0 * mu0 + prev_sum / s2) / w
        var = 1.0 / w + s2
        return float(np.sum(-0.5 * (np.log(2.0 * math.pi * var) + (x - mean_prev) ** 2 / var)))

    def log_marginal_likelihood(self, x) -> float:
        """log p(x) = log ∫ Π N(x_i; μ, σ²) N(μ; μ₀, τ₀²) dμ under the prior."""
        self.validate_params()
        x = self._data(x)
        return self._sequential_log_predictive(x, float(self.mu0), float(self.tau0) ** 2)

    def score(self, x, y=None) -> float:
        """Mean log posterior predictive of new points, log p(x | data seen) / n (higher is better)."""
        self._check_fitted("mu_")
        x = self._data(x)
        if x.size == 0:
            return 0.0
        return self._sequential_log_predictive(x, self.mu_, self.tau_ ** 2) / x.size


# ----------------------------------------------------------------------------- Gaussian Bayes classifier


def _check_priors(priors, K: int) -> np.ndarray | None:
    if priors is None:
        return None
    try:
        p = np.asarray(priors, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("priors must be a list of K positive numbers that sum to 1") from None
    if p.ndim != 1 or p.size != K:
        raise ValueError(f"priors must hold one probability per class ({K}), got shape {p.shape}")
    if not np.all(np.isfinite(p)) or np.any(p <= 0) or abs(p.sum() - 1.0) > 1e-6:
        raise ValueError(f"priors must be positive and sum to 1, got {np.round(p, 6).tolist()[:6]}")
    return p / p.sum()


def _labels(y) -> tuple[np.ndarray, np.ndarray]:
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"the Bayes classifier needs at least two classes, got {classes.size}"
                         + (f" ({classes.tolist()})" if classes.size else ""))
    return classes, codes.ravel()


class GaussianBayesClassifier(ClassifierMixin, BaseEstimator):
    """The MAP rule with one Gaussian per class: QDA, LDA or Gaussian naive Bayes.

    p(x | y = k) = N(x; μ_k, Σ_k), ŷ(x) = argmax_k log p(x | y = k) + log π_k and
    P(y = k | x) = π_k p(x | y = k) / Σ_j π_j p(x | y = j).

    * ``covariance='full'``: one Σ_k per class (QDA, a quadratic boundary), the ML estimate
      S_k = Σ_{i: y_i = k} (x_i − μ_k)(x_i − μ_k)ᵀ / n_k (scikit-learn's
      ``QuadraticDiscriminantAnalysis``; its older versions divide by n_k − 1);
    * ``'shared'``: one pooled Σ = Σ_k (n_k / n) S_k, S_k the class's ML covariance (LDA, a
      linear boundary; scikit-learn's ``LinearDiscriminantAnalysis(solver='lsqr')``);
    * ``'diagonal'``: Σ_k diagonal, the ML variance of each feature (Gaussian naive Bayes: the
      features independent given the class; scikit-learn's ``GaussianNB(var_smoothing=0)``).

    Parameters
    ----------
    covariance : {'full', 'shared', 'diagonal'}, default='full'
    priors : array-like (K,) or None, default=None
        The class priors π_k (positive, summing to 1); None: the class frequencies n_k / n.
    reg : float in [0, 1e6], default=0.0
        Added to every variance (Σ + reg I): keeps a covariance of few points invertible.

    Attributes
    ----------
    classes_ : ndarray (K,)
        The class labels, sorted.
    priors_ : ndarray (K,)
        π_k used.
    means_ : ndarray (K, d)
        μ_k.
    covariances_ : ndarray
        (K, d, d) for 'full', (d, d) for 'shared', (K, d) variances for 'diagonal' (reg included).
    n_features_in_ : int
        d.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.bayes import GaussianBayesClassifier
    >>> X = np.array([[0.0, 0.0], [1.0, 0.5], [0.5, 1.0], [4.0, 4.0], [5.0, 4.5], [4.5, 5.5]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = GaussianBayesClassifier(covariance="shared").fit(X, y)
    >>> clf.predict([[1.0, 1.0], [4.0, 5.0]])
    array([0, 1])
    >>> print(np.round(clf.predict_proba([[2.5, 2.5]]), 3))
    [[0.682 0.318]]
    """

    _parameter_constraints = {
        "covariance": [Options(("full", "shared", "diagonal"))],
        "priors": [ArrayLike(), None],
        "reg": [Interval(Real, 0, 1e6)],
    }

    def __init__(self, covariance="full", priors=None, reg=0.0):
        self.covariance = covariance
        self.priors = priors
        self.reg = reg

    def fit(self, X, y) -> "GaussianBayesClassifier":
        """Estimate π_k, μ_k and Σ_k from labelled points."""
        self.validate_params()
        X = check_rows(X)
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0] or (y.dtype.kind == "f" and not np.all(np.isfinite(y))):
            check_X_y(X, y)  # refuses them with its message
        classes, codes = _labels(y)
        K = classes.size
        counts = np.bincount(codes, minlength=K)
        priors = _check_priors(self.priors, K)
        priors = counts / counts.sum() if priors is None else priors
        model = fit_class_model(X, codes, classes, self.covariance, priors, float(self.reg))
        self._model = model
        self.classes_, self.priors_, self.means_ = classes, priors, model.means
        self.covariances_ = model.covariances
        self.n_features_in_ = X.shape[1]
        return self

    def _joint(self, X, common: bool = False) -> np.ndarray:
        self._check_fitted("classes_")
        return log_joint(self._model, check_rows(X, self.n_features_in_), common)

    def predict_log_joint(self, X) -> np.ndarray:
        """(n, K) log p(x | y = k) + log π_k."""
        return self._joint(X, common=True)

    def predict_proba(self, X) -> np.ndarray:
        """(n, K) posteriors P(y = k | x)."""
        return softmax_rows(self._joint(X))

    def decision_function(self, X) -> np.ndarray:
        """Two classes: the log posterior odds log P(classes_[1] | x) − log P(classes_[0] | x), (n,),
        0 on the MAP boundary; K > 2: the log posteriors log P(y = k | x), (n, K)."""
        L = self._joint(X)
        if L.shape[1] == 2:
            return L[:, 1] - L[:, 0]
        m = L.max(axis=1, keepdims=True)
        return L - (m + np.log(np.exp(L - m).sum(axis=1, keepdims=True)))

    def predict(self, X) -> np.ndarray:
        """The MAP class argmax_k P(y = k | x)."""
        return self.classes_[np.argmax(self._joint(X), axis=1)]


# ----------------------------------------------------------------------------- multinomial naive Bayes


class MultinomialNaiveBayes(ClassifierMixin, BaseEstimator):
    """Naive Bayes for word counts: one word distribution per class, add-α smoothing.

    log P(c | x) = log π_c + Σ_w x_w log P(w | c) + const, with
    P(w | c) = (N_cw + α) / (N_c + V α), N_cw the count of word w in the documents of class c,
    N_c = Σ_w N_cw and V the vocabulary's size; π_c the class frequencies.

    Parameters
    ----------
    alpha : float in (0, 1e6], default=1.0
        The pseudo-count added to every word (1: Laplace).

    Attributes
    ----------
    classes_ : ndarray (K,)
    class_count_ : ndarray (K,)
        Documents per class.
    class_log_prior_ : ndarray (K,)
        log π_c.
    feature_count_ : ndarray (K, V)
        N_cw.
    feature_log_prob_ : ndarray (K, V)
        log P(w | c).
    n_features_in_ : int
        V.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.bayes import MultinomialNaiveBayes
    >>> counts = np.array([[2, 0, 1], [3, 0, 0], [0, 2, 1], [0, 3, 1]])  # words: "win", "meeting", "today"
    >>> nb = MultinomialNaiveBayes(alpha=1.0).fit(counts, ["spam", "spam", "ham", "ham"])
    >>> nb.classes_
    array(['ham', 'spam'], dtype='<U4')
    >>> print(np.round(np.exp(nb.feature_log_prob_), 3))
    [[0.1   0.6   0.3  ]
     [0.667 0.111 0.222]]
    >>> nb.predict([[1, 0, 0], [0, 1, 0]])
    array(['spam', 'ham'], dtype='<U4')
    """

    _parameter_constraints = {"alpha": [Interval(Real, 0, MAX_PSEUDOCOUNT, closed="right")]}

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags

    @staticmethod
    def _check_counts(X, n_features=None) -> np.ndarray:
        X = check_array(X, n_features=n_features, max_abs=MAX_ABS_VALUE)
        if np.any(X < 0):
            raise ValueError(f"Negative values in data: X holds word counts, which must be >= 0 "
                             f"(found {X[X < 0][0]:g})")
        return X

    def fit(self, X, y) -> "MultinomialNaiveBayes":
        """Count the words of each class and smooth them."""
        self.validate_params()
        X, y = check_X_y(X, y, max_abs=MAX_ABS_VALUE)
        X = self._check_counts(X)
        classes, codes = _labels(y)
        K, V = classes.size, X.shape[1]
        onehot = np.zeros((K, X.shape[0]))
        onehot[codes, np.arange(X.shape[0])] = 1.0
        self.feature_count_ = onehot @ X
        self.class_count_ = onehot.sum(axis=1)
        smoothed = self.feature_count_ + float(self.alpha)
        self.feature_log_prob_ = np.log(smoothed) - np.log(smoothed.sum(axis=1, keepdims=True))
        self.class_log_prior_ = np.log(self.class_count_) - math.log(self.class_count_.sum())
        self.classes_, self.n_features_in_ = classes, V
        return self

    def predict_log_joint(self, X) -> np.ndarray:
        """(n, K) log π_c + Σ_w x_w log P(w | c) (the multinomial coefficient left out)."""
        self._check_fitted("feature_log_prob_")
        X = self._check_counts(X, self.n_features_in_)
        return X @ self.feature_log_prob_.T + self.class_log_prior_

    def predict_proba(self, X) -> np.ndarray:
        """(n, K) posteriors P(c | x)."""
        return softmax_rows(self.predict_log_joint(X))

    def predict(self, X) -> np.ndarray:
        """The MAP class."""
        return self.classes_[np.argmax(self.predict_log_joint(X), axis=1)]


# ----------------------------------------------------------------------------- Bayes error


@validate_call({"prior1": [Interval(Real, 0, 1)]})
def bayes_risk_2gauss(mu0, cov0, mu1, cov1, prior1) -> float:
    """The Bayes error of two Gaussian classes: the error of the MAP rule, ∫ min(π₀ p₀, π₁ p₁) dx.

    With h(x) = log π₁ N(x; μ₁, Σ₁) − log π₀ N(x; μ₀, Σ₀) the MAP rule says class 1 where h > 0,
    so the error is π₀ P₀(h > 0) + π₁ P₁(h ≤ 0). Under each class h is a quadratic form of a
    Gaussian vector, whose distribution Imhof's integral gives to about 1e-9; with equal
    covariances h is linear and the error is π₀ Φ(−Δ/2 + ln(π₀/π₁)/Δ) + π₁ Φ(−Δ/2 − ln(π₀/π₁)/Δ),
    Φ(−Δ/2) for equal priors, Δ the Mahalanobis distance between the means.

    Parameters
    ----------
    mu0, mu1 : array-like (d,)
        The class means.
    cov0, cov1 : array-like (d, d)
        The class covariances (symmetric positive definite).
    prior1 : float in [0, 1]
        π₁ = P(y = 1); π₀ = 1 − π₁.

    Returns
    -------
    float
        The probability that the MAP rule errs, in [0, min(π₀, π₁)].

    Examples
    --------
    >>> from smlengine.bayes import bayes_risk_2gauss
    >>> round(bayes_risk_2gauss([0, 0], [[1, 0], [0, 1]], [2, 0], [[1, 0], [0, 1]], 0.5), 6)  # Φ(−1)
    0.158655
    >>> round(bayes_risk_2gauss([0, 0], [[1, 0], [0, 1]], [0, 0], [[4, 0], [0, 4]], 0.5), 6)  # a circle
    0.263765
    """
    m0, m1 = np.asarray(mu0, dtype=np.float64), np.asarray(mu1, dtype=np.float64)
    if m0.ndim != 1 or m1.shape != m0.shape or m0.size == 0:
        raise ValueError(f"mu0 and mu1 must be 1-D means of the same length, got shapes {m0.shape}, {m1.shape}")
    d = m0.size
    covs = []
    for name, c in (("cov0", cov0), ("cov1", cov1)):
        C = np.asarray(c, dtype=np.float64)
        if C.shape != (d, d):
            raise ValueError(f"{name} must be a ({d}, {d}) matrix, got shape {C.shape}")
        if not np.all(np.isfinite(C)) or not np.allclose(C, C.T, rtol=1e-10, atol=1e-12 * np.abs(C).max()):
            raise ValueError(f"{name} must be a finite symmetric matrix")
        try:
            np.linalg.cholesky(C)
        except np.linalg.LinAlgError:
            raise ValueError(f"{name} is singular or not positive definite: a Gaussian needs an invertible "
                             f"covariance") from None
        covs.append(0.5 * (C + C.T))
    if not (np.all(np.isfinite(m0)) and np.all(np.isfinite(m1))):
        raise ValueError("mu0 and mu1 must be finite")
    p1 = float(prior1)
    if p1 in (0.0, 1.0):
        return 0.0  # one class only: the rule never errs
    P0, P1 = np.linalg.inv(covs[0]), np.linalg.inv(covs[1])
    logdet0, logdet1 = np.linalg.slogdet(covs[0])[1], np.linalg.slogdet(covs[1])[1]
    # h(x) = xᵀ A x + bᵀ x + e
    A = 0.5 * (P0 - P1)
    b = P1 @ m1 - P0 @ m0
    e = (-0.5 * m1 @ P1 @ m1 + 0.5 * m0 @ P0 @ m0 + math.log(p1 / (1.0 - p1)) - 0.5 * logdet1 + 0.5 * logdet0)
    err0 = prob_positive(*quadratic_form(A, b, e, m0, covs[0]))  # class 0 called 1
    err1 = 1.0 - prob_positive(*quadratic_form(A, b, e, m1, covs[1]))  # class 1 not called 1
    risk = (1.0 - p1) * err0 + p1 * err1
    return float(min(max(risk, 0.0), min(p1, 1.0 - p1)))
