"""MCMC diagnostics: autocorrelation, bulk effective sample size and rank-normalised split R̂.

The checks a Markov chain Monte Carlo run is judged by, re-exported by :mod:`smlengine.sampling`.
They follow Vehtari, Gelman, Simpson, Carpenter and Bürkner (2021), "Rank-normalization,
folding, and localization: an improved R̂", the defaults of ArviZ. Each chain is split in two
halves (2m chains of n draws). The draws of all halves together are replaced by their normal
scores z = Φ⁻¹((r − 3/8) / (S + 1/4)) (r the average rank, S the number of draws). Bulk
ESS = S / τ̂ with τ̂ = −1 + 2 Σ_t ρ̂_t summed over Geyer's initial monotone sequence of the
multi-chain autocorrelations ρ̂_t = 1 − (W − mean_j acov_j(t)) / var⁺,
var⁺ = (n − 1)/n W + B/n. R̂ = sqrt(var⁺ / W), the larger of the value on the normal scores
and on the normal scores of the folded draws |x − median|.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy import special

from ._base import check_scalar


def autocorrelation(chain, max_lag: int | None = None) -> np.ndarray:
    """Sample autocorrelation ρ̂_k = γ̂_k / γ̂_0 of one chain for lags k = 0 … max_lag.

    γ̂_k = (1/n) Σ_{t<n−k} (x_t − x̄)(x_{t+k} − x̄) (the biased estimate, computed with an FFT).

    Parameters
    ----------
    chain : array (n,) or (n, d)
        Draws along the first axis.
    max_lag : int or None
        Largest lag (default min(n − 1, 100)).

    Returns
    -------
    ndarray (max_lag + 1,) or (max_lag + 1, d)
        1 at lag 0; a constant chain gives 1 at lag 0 and 0 elsewhere.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.sampling import autocorrelation
    >>> x = np.random.default_rng(0).standard_normal(1000)
    >>> print(np.round(autocorrelation(x, max_lag=3), 2))
    [ 1.    0.01 -0.01  0.01]
    """
    x = np.asarray(chain, dtype=np.float64)
    if x.ndim not in (1, 2) or x.shape[0] < 2:
        raise ValueError(f"chain must have shape (n,) or (n, d) with n >= 2, got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("chain contains NaN or infinite values")
    n = x.shape[0]
    max_lag = min(n - 1, 100) if max_lag is None else max_lag
    check_scalar("max_lag", max_lag, numbers.Integral, min_value=0, max_value=n - 1)
    acov = _autocovariance(x.T if x.ndim == 2 else x[None])  # (d, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = acov[:, : max_lag + 1] / acov[:, :1]
    flat = acov[:, 0] <= 0
    rho[flat] = 0.0
    rho[flat, 0] = 1.0
    return rho[0] if x.ndim == 1 else rho.T


def _autocovariance(x: np.ndarray) -> np.ndarray:
    """γ̂_k along the last axis for every row (biased, 1/n), by FFT with zero padding to ≥ 2n."""
    n = x.shape[-1]
    size = 1 << (2 * n - 1).bit_length()
    centred = x - x.mean(axis=-1, keepdims=True)
    f = np.fft.rfft(centred, n=size, axis=-1)
    return np.fft.irfft(f * np.conj(f), n=size, axis=-1)[..., :n] / n


def _check_chains(chains, name: str = "chains") -> tuple[np.ndarray, bool]:
    """(dim, n_chains, n_draws) array and whether the input had a dim axis."""
    x = np.asarray(chains, dtype=np.float64)
    if x.ndim not in (2, 3):
        raise ValueError(f"{name} must have shape (n_chains, n_draws) or (n_chains, n_draws, dim), got {x.shape}")
    if x.shape[1] < 4:
        raise ValueError(f"{name} needs at least 4 draws per chain, got {x.shape[1]}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if x.ndim == 2:
        return x[None], False
    return np.moveaxis(x, 2, 0), True


def _split(x: np.ndarray) -> np.ndarray:
    """Each chain cut into its first and last halves (the middle draw of an odd length dropped)."""
    half = x.shape[-1] // 2
    return np.concatenate([x[..., :half], x[..., x.shape[-1] - half:]], axis=-2)


def _average_ranks(row: np.ndarray) -> np.ndarray:
    """Ranks 1…S of the values of a 1-D array, tied values sharing the average of their ranks."""
    order = np.argsort(row, kind="mergesort")
    ordered = row[order]
    first = np.concatenate([[True], ordered[1:] != ordered[:-1]])
    group = np.cumsum(first) - 1
    bounds = np.flatnonzero(np.concatenate([first, [True]]))  # start of each group, then S
    mean_rank = (bounds[:-1] + bounds[1:] + 1) / 2.0  # ranks start + 1 … end, averaged
    ranks = np.empty(row.size)
    ranks[order] = mean_rank[group]
    return ranks


def _normal_scores(x: np.ndarray) -> np.ndarray:
    """Rank-normalisation of all draws of x (the last two axes together): Φ⁻¹((r − 3/8)/(S + 1/4))."""
    shape = x.shape
    flat = x.reshape(shape[0], -1)
    ranks = np.stack([_average_ranks(row) for row in flat])
    return special.ndtri((ranks - 0.375) / (flat.shape[1] + 0.25)).reshape(shape)


def _ess_one(z: np.ndarray) -> float:
    """ESS of m chains of n draws (rows of z) by Geyer's initial monotone sequence."""
    m, n = z.shape
    total = m * n
    if np.ptp(z) < np.finfo(float).resolution:
        return float(total)
    acov = _autocovariance(z)
    w = acov[:, 0].mean() * n / (n - 1.0)  # mean within-chain variance (unbiased)
    var_plus = w * (n - 1.0) / n
    if m > 1:
        var_plus += np.var(z.mean(axis=1), ddof=1)
    rho = 1.0 - (w - acov.mean(axis=0)) / var_plus  # rho[t] for t = 0 … n-1 (rho[0] = 1 up to rounding)
    rho[0] = 1.0
    # initial positive sequence: sum pairs P_k = rho[2k] + rho[2k+1] while they stay positive
    kept = np.zeros(n)
    kept[0], kept[1] = 1.0, rho[1]
    t = 1
    even, odd = 1.0, rho[1]
    while t < n - 3 and even + odd > 0.0:
        even, odd = rho[t + 1], rho[t + 2]
        if even + odd >= 0.0:
            kept[t + 1], kept[t + 2] = even, odd
        t += 2
    last = t - 2
    if even > 0.0:
        kept[last + 1] = even
    # initial monotone sequence: pair sums may not increase
    t = 1
    while t <= last - 2:
        if kept[t + 1] + kept[t + 2] > kept[t - 1] + kept[t]:
            kept[t + 1] = kept[t + 2] = (kept[t - 1] + kept[t]) / 2.0
        t += 2
    tau = -1.0 + 2.0 * kept[: last + 1].sum() + kept[last + 1: last + 2].sum()
    tau = max(tau, 1.0 / math.log10(total))
    return float(total / tau)


def effective_sample_size(chains) -> np.ndarray | float:
    """Bulk effective sample size of MCMC draws (rank-normalised split chains).

    ESS = S / τ̂, τ̂ = −1 + 2 Σ_t ρ̂_t over Geyer's initial monotone sequence, on the normal scores
    of the split chains (see the module docstring; ArviZ's ``ess(method="bulk")``).

    Parameters
    ----------
    chains : array (n_chains, n_draws) or (n_chains, n_draws, dim)
        At least 4 draws per chain.

    Returns
    -------
    float, or ndarray (dim,) for 3-D input
        The effective number of independent draws.

    Examples
    --------
    Independent draws: the ESS is about the number of draws (2 × 1000).

    >>> import numpy as np
    >>> from smlengine.sampling import effective_sample_size
    >>> chains = np.random.default_rng(0).standard_normal((2, 1000))
    >>> round(float(effective_sample_size(chains)), -1)
    1960.0
    """
    x, multi = _check_chains(chains)
    z = _normal_scores(_split(x))
    out = np.array([_ess_one(zd) for zd in z])
    return out if multi else float(out[0])


def _rhat_one(z: np.ndarray) -> float:
    m, n = z.shape
    w = np.var(z, axis=1, ddof=1).mean()
    b = n * np.var(z.mean(axis=1), ddof=1)
    return float(np.sqrt((b / w + n - 1) / n))


def rhat(chains) -> np.ndarray | float:
    """Rank-normalised split R̂: the larger of R̂ on the normal scores of the split chains and
    on the normal scores of their folded draws |x − median| (ArviZ's ``rhat(method="rank")``).

    R̂ = sqrt(var⁺ / W), var⁺ = (n − 1)/n W + B/n, W the mean within-chain variance and
    B = n × the variance of the chain means. Close to 1 when the chains agree.

    Parameters
    ----------
    chains : array (n_chains, n_draws) or (n_chains, n_draws, dim)

    Returns
    -------
    float, or ndarray (dim,) for 3-D input
        For one chain, the R̂ of its two halves (ArviZ returns NaN there).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.sampling import rhat
    >>> chains = np.random.default_rng(0).standard_normal((2, 1000))
    >>> round(float(rhat(chains)), 2), round(float(rhat(chains + [[0.0], [3.0]])), 1)
    (1.0, 1.7)
    """
    x, multi = _check_chains(chains)
    split = _split(x)
    bulk = _normal_scores(split)
    med = np.median(split.reshape(split.shape[0], -1), axis=1)[:, None, None]
    tail = _normal_scores(np.abs(split - med))
    out = np.empty(x.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        for i in range(x.shape[0]):
            out[i] = max(_rhat_one(bulk[i]), _rhat_one(tail[i]))
    return out if multi else float(out[0])
