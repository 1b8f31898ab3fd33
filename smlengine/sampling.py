"""Monte Carlo sampling: rejection sampling, the Metropolis–Hastings random walk, and the
diagnostics of Markov chain Monte Carlo (autocorrelation, effective sample size, R̂).

Rejection sampling
------------------
A target known up to a constant, p̃ = Z p, and a proposal density q with p̃(x) ≤ M q(x)
everywhere. Draw x ~ q and u ~ U(0, M q(x)); keep x when u ≤ p̃(x). The kept points are
draws of p, and a proposal is kept with probability Z / M (1/M for a normalised target).

Metropolis–Hastings with a symmetric Gaussian random walk
---------------------------------------------------------
From the state x_t propose x' = x_t + s ε with ε ~ N(0, I) and accept with probability

    a(x_t, x') = min(1, p̃(x') / p̃(x_t)),

that is x_{t+1} = x' if u < a (u ~ U(0, 1)), else x_{t+1} = x_t. The proposal is symmetric,
so the chain satisfies detailed balance p(x) T(x → x') = p(x') T(x' → x) and p is its
invariant distribution. Computations are on the log scale: accept when
log u < log p̃(x') − log p̃(x_t).

Diagnostics (Vehtari, Gelman, Simpson, Carpenter and Bürkner 2021, "Rank-normalization,
folding, and localization: an improved R̂", the defaults of ArviZ)
-------------------------------------------------------------------
Each chain is split in two halves (2m chains of n draws). The draws of all halves together are
replaced by their normal scores z = Φ⁻¹((r − 3/8) / (S + 1/4)) (r the average rank, S the
number of draws). Bulk ESS = S / τ̂ with τ̂ = −1 + 2 Σ_t ρ̂_t summed over Geyer's initial
monotone sequence of the multi-chain autocorrelations
ρ̂_t = 1 − (W − mean_j acov_j(t)) / var⁺, var⁺ = (n − 1)/n W + B/n. R̂ = sqrt(var⁺ / W), the larger
of the value on the normal scores and on the normal scores of the folded draws |x − median|.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np
from scipy import integrate, special

from . import _sampling_compiled as compiled
from ._base import BaseEstimator, Snapshot, check_random_state, check_scalar, frozen_array
from ._params import Callable as CallableConstraint
from ._params import Integral, Interval, RandomState, Real, validate_call

__all__ = [
    "RejectionSnapshot",
    "rejection_steps",
    "GaussianProposal",
    "MHSnapshot",
    "MetropolisHastings",
    "autocorrelation",
    "effective_sample_size",
    "rhat",
    "Target2D",
    "TARGETS",
    "get_target",
]

#: largest number of steps one call may ask for (a typo such as 1e12 must not try to allocate it)
MAX_STEPS = 100_000_000
#: largest number of chains
MAX_CHAINS = 10_000
#: largest dimension of the state
MAX_DIM = 10_000
#: random numbers are drawn for this many steps at a time (the same for ``sample`` and ``sample_steps``)
BLOCK = 4096
#: whether ``MetropolisHastings.sample`` may run the compiled loop for the named targets (when numba is installed)
USE_COMPILED = True


def _log_values(log_target: Callable, x: np.ndarray, n: int, what: str) -> np.ndarray:
    """log p̃ at the n points x, checked: one finite number or -inf per point, never NaN or +inf."""
    try:
        values = np.asarray(log_target(x), dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"log_target failed on {what}: {exc}") from None
    if values.size != n:
        raise ValueError(f"log_target must return one value per point: got {values.size} values for {n} points")
    values = values.reshape(n)
    if not (values < np.inf).all():  # False for NaN and +inf alike
        i = int(np.flatnonzero(np.isnan(values) | np.isposinf(values))[0])
        raise ValueError(f"log_target returned {values[i]} at {what} {np.asarray(x).reshape(n, -1)[i].tolist()}; "
                         "it must be a finite log density or -inf where the density is 0")
    return values


# --------------------------------------------------------------------------- rejection sampling
@dataclass(frozen=True, kw_only=True)
class RejectionSnapshot(Snapshot):
    """One batch of rejection sampling.

    Attributes
    ----------
    points : ndarray (batch,) or (batch, d)
        The proposals x ~ q of this step.
    heights : ndarray (batch,)
        u ~ U(0, M q(x)) for each proposal (where it falls under M q).
    accepted : ndarray of bool (batch,)
        u ≤ p̃(x).
    n_proposed, n_accepted : int
        Totals since the start.
    acceptance_rate : float
        n_accepted / n_proposed (0 before the first proposal).
    """

    points: np.ndarray
    heights: np.ndarray
    accepted: np.ndarray
    n_proposed: int = 0
    n_accepted: int = 0
    acceptance_rate: float = 0.0


class GaussianProposal:
    """N(mean, scale² I) as a proposal: ``rvs(size, random_state)`` and ``logpdf(x)``.

    One-dimensional when ``mean`` is a scalar (points of shape (n,)), d-dimensional when it has
    d entries (points of shape (n, d)). scipy.stats' frozen distributions offer the same two
    methods and may be used instead.
    """

    def __init__(self, mean=0.0, scale=1.0):
        self.mean = np.asarray(mean, dtype=np.float64)
        if self.mean.ndim > 1 or not np.all(np.isfinite(self.mean)):
            raise ValueError("mean must be a finite number or a 1-D vector")
        self.scale = float(check_scalar("scale", scale, numbers.Real, min_value=0.0, include_min=False))

    @property
    def dim(self) -> int:
        return 1 if self.mean.ndim == 0 else self.mean.size

    def rvs(self, size=1, random_state=None):
        rng = check_random_state(random_state)
        shape = (int(size),) if self.mean.ndim == 0 else (int(size), self.mean.size)
        return self.mean + self.scale * rng.standard_normal(shape)

    def logpdf(self, x):
        x = np.asarray(x, dtype=np.float64)
        if self.mean.ndim == 0:
            r2 = ((x - self.mean) / self.scale) ** 2
        else:
            r2 = np.sum(((x - self.mean) / self.scale) ** 2, axis=-1)
        return -0.5 * r2 - self.dim * (math.log(self.scale) + 0.5 * math.log(2 * math.pi))


@validate_call({
    "log_target": [CallableConstraint()],
    "M": [Interval(Real, 0, None, closed="neither")],
    "random_state": [RandomState(), None],
    "n_steps": [Interval(Integral, 1, MAX_STEPS), None],
    "batch_size": [Interval(Integral, 1, 1_000_000)],
})
def rejection_steps(log_target: Callable, proposal: Any, M: float, random_state=None, *,
                    n_steps: int | None = None, batch_size: int = 1) -> Iterator[RejectionSnapshot]:
    """Rejection sampling under the scaled proposal M q, one batch of proposals per step.

    For each proposal x ~ q draw u ~ U(0, M q(x)) and accept x when u ≤ p̃(x), i.e. when
    log u' ≤ log p̃(x) − log M − log q(x) with u' ~ U(0, 1). Accepted points are draws of the
    normalised target p = p̃ / Z; a proposal is accepted with probability Z / M.

    Parameters
    ----------
    log_target : callable
        log p̃ for an array of points (shape (n,) in 1-D, (n, d) otherwise), one value per point;
        -inf where p̃ = 0.
    proposal : object
        With ``rvs(size=n, random_state=rng)`` and ``logpdf(x)``, e.g. :class:`GaussianProposal`
        or a frozen ``scipy.stats`` distribution.
    M : float
        The envelope constant, > 0, with p̃ ≤ M q. A proposal found above the envelope
        (p̃(x) > M q(x)) raises ``ValueError``: the samples would not follow p.
    random_state : None, int or numpy Generator
    n_steps : int or None
        Number of batches (None: until the caller stops).
    batch_size : int
        Proposals per step.

    Yields
    ------
    RejectionSnapshot
        Step 0 holds no proposal; step t ≥ 1 the t-th batch.
    """
    if not (hasattr(proposal, "rvs") and hasattr(proposal, "logpdf")):
        raise TypeError("proposal must have rvs(size, random_state) and logpdf(x) methods")
    M = float(M)
    rng = check_random_state(random_state)
    log_m = math.log(M)
    empty = frozen_array(np.zeros(0))
    yield RejectionSnapshot(step=0, points=empty, heights=empty, accepted=frozen_array(np.zeros(0, dtype=bool)))
    n_prop = n_acc = 0
    step = 0
    while n_steps is None or step < n_steps:
        step += 1
        x = np.asarray(proposal.rvs(size=batch_size, random_state=rng), dtype=np.float64)
        if x.ndim == 1 and x.size != batch_size:  # scipy's multivariate rvs drops the batch axis for size 1
            x = x.reshape(batch_size, -1)
        log_q = np.asarray(proposal.logpdf(x), dtype=np.float64).reshape(batch_size)
        log_p = _log_values(log_target, x, batch_size, "the proposal")
        log_env = log_m + log_q
        above = log_p > log_env + 1e-9 * np.maximum(1.0, np.abs(log_env))
        if above.any():
            i = int(np.flatnonzero(above)[0])
            ratio = math.exp(min(log_p[i] - log_q[i], 700.0))
            raise ValueError(f"M = {M:g} is too small: p̃(x) > M q(x) at x = {np.round(x[i], 4).tolist()} "
                             f"(p̃/q = {ratio:.4g}); choose M >= max p̃/q")
        u = rng.random(batch_size)
        heights = u * np.exp(log_env)
        accepted = np.log(u) <= log_p - log_env
        n_prop += batch_size
        n_acc += int(accepted.sum())
        yield RejectionSnapshot(step=step, points=frozen_array(x), heights=frozen_array(heights),
                                accepted=frozen_array(accepted), n_proposed=n_prop, n_accepted=n_acc,
                                acceptance_rate=n_acc / n_prop)


# --------------------------------------------------------------------------- Metropolis–Hastings
@dataclass(frozen=True, kw_only=True)
class MHSnapshot(Snapshot):
    """One Metropolis–Hastings step of every chain.

    Attributes
    ----------
    state : ndarray (n_chains, d)
        x_t after the step (x_0 at step 0).
    proposal : ndarray (n_chains, d)
        x' proposed at this step (x_0 at step 0).
    accepted : ndarray of bool (n_chains,)
        Whether x' was accepted (False at step 0).
    log_target : ndarray (n_chains,)
        log p̃(x_t).
    n_accepted : ndarray of int (n_chains,)
        Accepted proposals since the start, per chain.
    """

    state: np.ndarray
    proposal: np.ndarray
    accepted: np.ndarray
    log_target: np.ndarray
    n_accepted: np.ndarray

    @property
    def acceptance_rate(self) -> np.ndarray:
        """Accepted fraction per chain (0 at step 0)."""
        return self.n_accepted / max(self.step, 1)


class MetropolisHastings(BaseEstimator):
    """Random-walk Metropolis–Hastings: x' = x_t + s ε, ε ~ N(0, I), accepted with
    probability min(1, p̃(x') / p̃(x_t)); ``n_chains`` independent chains.

    Parameters
    ----------
    log_target : callable
        log p̃ for an array of points of shape (n, d), one value per point; -inf where p̃ = 0.
        NaN or +inf raise ``ValueError``.
    step_size : float
        s > 0, the standard deviation of the proposal's steps.
    n_chains : int
        Number of independent chains, each with its own start.
    random_state : None, int or numpy Generator

    Attributes
    ----------
    chains_ : ndarray (n_chains, n, d)
        The draws x_1 … x_n of the last :meth:`sample` (or exhausted :meth:`sample_steps`).
    acceptance_rate_ : ndarray (n_chains,)
        Accepted fraction of the proposals per chain.

    Notes
    -----
    The random numbers (the steps ε and the uniforms u of every chain) are drawn in blocks of
    :data:`BLOCK` steps in the same order by :meth:`sample` and :meth:`sample_steps`, so both
    produce the same chains for the same seed. With three chains or more, :meth:`sample` takes one
    vectorised step of all chains at a time; with fewer it takes the steps of one chain
    speculatively: while the chain stays at x, the next proposals x + s ε_t, x + s ε_{t+1}, …
    are all known, so log p̃ is evaluated for a run of them in one vectorised call and the chain
    moves to the first accepted one; the chain is exactly the step-by-step one.
    """

    def __init__(self, log_target: Callable, step_size: float = 1.0, n_chains: int = 1, random_state=None):
        self.log_target = log_target
        self.step_size = step_size
        self.n_chains = n_chains
        self.random_state = random_state

    _parameter_constraints = {
        "log_target": [CallableConstraint()],
        "step_size": [Interval(Real, 0, 1e100, closed="right")],
        "n_chains": [Interval(Integral, 1, MAX_CHAINS)],
        "random_state": [RandomState(), None],
    }

    def _validate(self, x0, n) -> tuple[np.ndarray, int, float]:
        self.validate_params()
        s = float(self.step_size)
        c = int(self.n_chains)
        n = int(check_scalar("n", n, numbers.Integral, min_value=0, max_value=MAX_STEPS))
        try:
            x0 = np.array(x0, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("x0 must be numbers: a start of shape (d,) or one per chain (n_chains, d)") from None
        if x0.ndim == 0:
            x0 = x0.reshape(1)
        if x0.ndim == 1:
            x0 = np.broadcast_to(x0, (c, x0.size)).copy()
        if x0.ndim != 2 or x0.shape[0] != c or x0.shape[1] == 0:
            raise ValueError(f"x0 must have shape (d,) or (n_chains, d) = ({c}, d), got {x0.shape}")
        if x0.shape[1] > MAX_DIM:
            raise ValueError(f"the state may have at most {MAX_DIM} dimensions, got {x0.shape[1]}")
        if x0.size * max(n, 1) > 2 * MAX_STEPS:
            raise ValueError(f"n_chains × n × d = {x0.size * n:,} draws is too many (at most {2 * MAX_STEPS:,})")
        if not np.all(np.isfinite(x0)):
            raise ValueError("x0 contains NaN or infinite values")
        return x0, n, s

    def _start(self, x0: np.ndarray) -> np.ndarray:
        lp = _log_values(self.log_target, x0, x0.shape[0], "the start")
        if np.isneginf(lp).any():
            i = int(np.flatnonzero(np.isneginf(lp))[0])
            raise ValueError(f"the start x0 = {x0[i].tolist()} has target density 0; start where p̃ > 0")
        return lp

    @staticmethod
    def _draw(rng, c: int, m: int, d: int, s: float) -> tuple[np.ndarray, np.ndarray]:
        steps = s * rng.standard_normal((c, m, d))
        log_u = np.log(rng.random((c, m)))
        return steps, log_u

    def sample_steps(self, x0, n: int) -> Iterator[MHSnapshot]:
        """Run every chain n steps, yielding after each step.

        Parameters
        ----------
        x0 : array (d,) or (n_chains, d)
            The start (shared, or one per chain: dispersed starts for R̂).
        n : int
            Number of steps.

        Yields
        ------
        MHSnapshot
            Step 0 is the start; step t the state after t proposals of each chain.
        """
        x0, n, s = self._validate(x0, n)
        rng = check_random_state(self.random_state)
        c, d = x0.shape
        x = x0.copy()
        lp = self._start(x)
        n_acc = np.zeros(c, dtype=np.int64)
        chains = np.empty((c, n, d))
        yield MHSnapshot(step=0, state=frozen_array(x), proposal=frozen_array(x),
                         accepted=frozen_array(np.zeros(c, dtype=bool)), log_target=frozen_array(lp),
                         n_accepted=frozen_array(n_acc))
        for start in range(0, n, BLOCK):
            m = min(BLOCK, n - start)
            steps, log_u = self._draw(rng, c, m, d, s)
            for j in range(m):
                prop = x + steps[:, j]
                lp_prop = _log_values(self.log_target, prop, c, "the proposal")
                acc = log_u[:, j] < lp_prop - lp
                x[acc] = prop[acc]
                lp[acc] = lp_prop[acc]
                n_acc += acc
                chains[:, start + j] = x
                t = start + j + 1
                if t == n:
                    self.chains_ = chains
                    self.acceptance_rate_ = n_acc / max(n, 1)
                yield MHSnapshot(step=t, state=frozen_array(x), proposal=frozen_array(prop),
                                 accepted=frozen_array(acc), log_target=frozen_array(lp),
                                 n_accepted=frozen_array(n_acc))

    def sample(self, x0, n: int) -> np.ndarray:
        """n draws of every chain, shape (n_chains, n, d) (the start x_0 not included).

        Same chains as :meth:`sample_steps` for the same seed (see Notes of the class).
        """
        x0, n, s = self._validate(x0, n)
        rng = check_random_state(self.random_state)
        c, d = x0.shape
        lp0 = self._start(x0)
        chains = np.empty((c, n, d))
        n_acc = np.zeros(c, dtype=np.int64)
        x = x0.copy()
        lp = lp0.copy()
        run = np.full(c, 4, dtype=np.int64)  # proposals evaluated per vectorised call, per chain
        target = self.log_target
        loop = None
        if USE_COMPILED and d == 2 and isinstance(target, Target2D) and target.kind >= 0:
            loop = compiled.rw_chain()
        for start in range(0, n, BLOCK):
            m = min(BLOCK, n - start)
            steps, log_u = self._draw(rng, c, m, d, s)
            if loop is not None:
                for k in range(c):
                    xk = x[k].copy()
                    acc, lp[k] = loop(target.kind, target.params, xk, float(lp[k]), steps[k], log_u[k],
                                      chains[k, start:start + m])
                    x[k] = xk
                    n_acc[k] += acc
                continue
            if c >= 3:  # one vectorised call per step for all chains beats runs chain by chain
                out = chains[:, start:start + m]
                for j in range(m):
                    prop = x + steps[:, j]
                    lp_prop = _log_values(self.log_target, prop, c, "the proposal")
                    acc = log_u[:, j] < lp_prop - lp
                    x[acc] = prop[acc]
                    lp[acc] = lp_prop[acc]
                    n_acc += acc
                    out[:, j] = x
                continue
            for k in range(c):
                xk, lpk, j, r = x[k].copy(), lp[k], 0, int(run[k])
                out = chains[k, start:start + m]
                while j < m:
                    r = min(r, m - j)
                    props = xk + steps[k, j:j + r]
                    lps = _log_values(self.log_target, props, r, "the proposal")
                    hit = np.flatnonzero(log_u[k, j:j + r] < lps - lpk)
                    if hit.size == 0:  # the whole run rejected: the chain stays at x
                        out[j:j + r] = xk
                        j += r
                        r = min(2 * r, 1024)
                        continue
                    i = int(hit[0])
                    out[j:j + i] = xk
                    xk, lpk = props[i], lps[i]
                    out[j + i] = xk
                    n_acc[k] += 1
                    j += i + 1
                    # the next run: about twice the mean wait for an acceptance seen so far
                    r = max(2, min(1024, int(2 * (start + j) / max(int(n_acc[k]), 1))))
                x[k], lp[k], run[k] = xk, lpk, r
        self.chains_ = chains
        self.acceptance_rate_ = n_acc / max(n, 1)
        return chains


# --------------------------------------------------------------------------- diagnostics
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


# --------------------------------------------------------------------------- named 2-D targets
@dataclass(frozen=True, eq=False)
class Target2D:
    """A normalised 2-D density for the samplers.

    Attributes
    ----------
    name, title : str
    log_density : callable
        log p(x) for points of shape (n, 2).
    mean : ndarray (2,)
        The true mean.
    cov : ndarray (2, 2)
        The true covariance.
    bounds : tuple
        (x_min, x_max, y_min, y_max) holding nearly all the mass (for plots and grids).
    good_step : float
        A random-walk step size with a reasonable acceptance rate.
    kind, params :
        The density's family and parameters for the compiled sampler loop (kind -1: none).
    """

    name: str
    title: str
    log_density: Callable[[np.ndarray], np.ndarray] = field(repr=False)
    mean: np.ndarray = field(repr=False)
    cov: np.ndarray = field(repr=False)
    bounds: tuple = (-4.0, 4.0, -4.0, 4.0)
    good_step: float = 1.0
    kind: int = -1
    params: np.ndarray | None = field(default=None, repr=False)

    def __call__(self, x) -> np.ndarray:
        return self.log_density(np.asarray(x, dtype=np.float64).reshape(-1, 2))

    def __copy__(self):  # immutable: a copy (e.g. by sklearn's clone) is the target itself
        return self

    def __deepcopy__(self, memo):
        return self

    def grid(self, n: int = 200, bounds: tuple | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(xs, ys, density) with density[i, j] = p(xs[i], ys[j]) on an n × n grid over ``bounds``
        (default: the target's)."""
        x0, x1, y0, y1 = self.bounds if bounds is None else bounds
        xs, ys = np.linspace(x0, x1, n), np.linspace(y0, y1, n)
        gx, gy = np.meshgrid(xs, ys, indexing="ij")
        dens = np.exp(self.log_density(np.column_stack([gx.ravel(), gy.ravel()]))).reshape(n, n)
        return xs, ys, dens

    def marginals(self, n: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(xs, p(x1), ys, p(x2)): the marginal densities over ``bounds`` by numerical integration on a grid."""
        xs, ys, dens = self.grid(n)
        dx, dy = xs[1] - xs[0], ys[1] - ys[0]
        return xs, dens.sum(axis=1) * dy, ys, dens.sum(axis=0) * dx


def _correlated_gaussian(rho: float = 0.9) -> Target2D:
    """N(0, [[1, ρ], [ρ, 1]])."""
    cov = np.array([[1.0, rho], [rho, 1.0]])
    mean = np.zeros(2)
    prec = np.linalg.inv(cov)
    const = -math.log(2 * math.pi) - 0.5 * math.log(np.linalg.det(cov))

    def log_density(x):
        x = np.asarray(x, dtype=np.float64)
        d0, d1 = x[:, 0] - mean[0], x[:, 1] - mean[1]
        return const - 0.5 * (prec[0, 0] * d0 * d0 + 2.0 * prec[0, 1] * d0 * d1 + prec[1, 1] * d1 * d1)

    params = compiled.as_params([mean[0], mean[1], prec[0, 0], prec[0, 1], prec[1, 1], const])
    return Target2D("gaussian", f"Correlated Gaussian (ρ = {rho:g})", log_density, frozen_array(mean),
                    frozen_array(cov), (-4.0, 4.0, -4.0, 4.0), 0.6, compiled.GAUSSIAN, params)


def _banana(a: float = 1.5, b: float = 0.5) -> Target2D:
    """x1 ~ N(0, a²), x2 | x1 ~ N(b x1², 1): mean (0, b a²), var x2 = 1 + 2 b² a⁴, cov 0."""
    const = -math.log(2 * math.pi) - math.log(a)

    def log_density(x):
        x = np.asarray(x, dtype=np.float64)
        u = x[:, 0] / a
        v = x[:, 1] - b * x[:, 0] * x[:, 0]
        return const - 0.5 * u * u - 0.5 * v * v

    mean = np.array([0.0, b * a * a])
    cov = np.diag([a * a, 1.0 + 2.0 * b * b * a ** 4])
    return Target2D("banana", "Banana", log_density, frozen_array(mean), frozen_array(cov),
                    (-5.0, 5.0, -3.0, 9.0), 1.0, compiled.BANANA, compiled.as_params([a, b, const]))


def _two_modes(c: float = 1.6, var: float = 0.35) -> Target2D:
    """½ N((−c, −c), v I) + ½ N((c, c), v I): mean 0, cov = v I + c² [[1, 1], [1, 1]]."""
    const = -math.log(2 * math.pi * var) + math.log(0.5)

    def log_density(x):
        x = np.asarray(x, dtype=np.float64)
        la = -0.5 * ((x[:, 0] + c) ** 2 + (x[:, 1] + c) ** 2) / var
        lb = -0.5 * ((x[:, 0] - c) ** 2 + (x[:, 1] - c) ** 2) / var
        hi, lo = np.maximum(la, lb), np.minimum(la, lb)
        return const + hi + np.log1p(np.exp(lo - hi))

    cov = var * np.eye(2) + c * c * np.ones((2, 2))
    return Target2D("two-modes", "Two-mode mixture", log_density, frozen_array(np.zeros(2)), frozen_array(cov),
                    (-4.0, 4.0, -4.0, 4.0), 0.8, compiled.TWO_MODES, compiled.as_params([c, var, const]))


def _donut(radius: float = 2.5, width: float = 0.3) -> Target2D:
    """p(x) ∝ exp(−(‖x‖ − r)² / (2 w²)): mean 0, cov = E‖x‖² / 2 I (radial integrals by quadrature)."""

    def radial(rho, power):
        return rho ** power * math.exp(-0.5 * ((rho - radius) / width) ** 2)

    hi = radius + 12 * width
    z1 = integrate.quad(radial, 0.0, hi, args=(1,), epsabs=0, epsrel=1e-12)[0]
    z3 = integrate.quad(radial, 0.0, hi, args=(3,), epsabs=0, epsrel=1e-12)[0]
    const = -math.log(2 * math.pi * z1)

    def log_density(x):
        x = np.asarray(x, dtype=np.float64)
        z = (np.sqrt(x[:, 0] * x[:, 0] + x[:, 1] * x[:, 1]) - radius) / width
        return const - 0.5 * z * z

    cov = 0.5 * (z3 / z1) * np.eye(2)
    return Target2D("donut", "Donut", log_density, frozen_array(np.zeros(2)), frozen_array(cov),
                    (-3.8, 3.8, -3.8, 3.8), 0.5, compiled.DONUT, compiled.as_params([radius, width, const]))


TARGETS: dict[str, Target2D] = {t.name: t for t in (_correlated_gaussian(), _banana(), _two_modes(), _donut())}


def get_target(name: str) -> Target2D:
    """The named 2-D target: 'gaussian', 'banana', 'two-modes' or 'donut'."""
    if name not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(map(repr, TARGETS))}, got {name!r}")
    return TARGETS[name]
