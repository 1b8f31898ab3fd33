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

This module holds rejection sampling and Metropolis–Hastings; the diagnostics are defined in
:mod:`smlengine._mcmc_diagnostics` and the named 2-D targets in :mod:`smlengine._sampling_targets`,
both re-exported here.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np

from . import _sampling_compiled as compiled
from ._base import BaseEstimator, Snapshot, check_random_state, check_scalar, frozen_array
from ._mcmc_diagnostics import autocorrelation, effective_sample_size, rhat
from ._params import Callable as CallableConstraint
from ._params import Integral, Interval, RandomState, Real, validate_call
from ._sampling_targets import TARGETS, Target2D, get_target

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

    Examples
    --------
    A standard normal under 2.02 times an N(0, 2²) envelope: about half the proposals pass.

    >>> import numpy as np
    >>> from smlengine.sampling import GaussianProposal, rejection_steps
    >>> M = 2.0 * np.sqrt(2 * np.pi) * 1.01
    >>> steps = rejection_steps(lambda x: -0.5 * x ** 2, GaussianProposal(0.0, 2.0), M, random_state=0,
    ...                         n_steps=100, batch_size=10)
    >>> last = list(steps)[-1]
    >>> last.step, last.n_proposed, last.n_accepted, round(last.acceptance_rate, 3)
    (100, 1000, 455, 0.455)
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

    Parameters
    ----------
    mean : float or array-like (d,), default=0.0
        The centre.
    scale : float, default=1.0
        The standard deviation of every coordinate (> 0).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.sampling import GaussianProposal
    >>> q = GaussianProposal(0.0, 2.0)
    >>> q.dim, GaussianProposal([0.0, 1.0]).dim
    (1, 2)
    >>> print(np.round(q.logpdf(np.array([0.0, 2.0])), 3))
    [-1.612 -2.112]
    >>> print(np.round(q.rvs(3, random_state=0), 3))
    [ 0.251 -0.264  1.281]
    """

    def __init__(self, mean=0.0, scale=1.0):
        self.mean = np.asarray(mean, dtype=np.float64)
        if self.mean.ndim > 1 or not np.all(np.isfinite(self.mean)):
            raise ValueError("mean must be a finite number or a 1-D vector")
        self.scale = float(check_scalar("scale", scale, numbers.Real, min_value=0.0, include_min=False))

    @property
    def dim(self) -> int:
        """d, the dimension of the points."""
        return 1 if self.mean.ndim == 0 else self.mean.size

    def rvs(self, size=1, random_state=None):
        """``size`` draws, shape (size,) in 1-D, (size, d) otherwise."""
        rng = check_random_state(random_state)
        shape = (int(size),) if self.mean.ndim == 0 else (int(size), self.mean.size)
        return self.mean + self.scale * rng.standard_normal(shape)

    def logpdf(self, x):
        """log q(x) for every point of x."""
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
        Seeds the proposals and the uniforms.
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

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.sampling import MetropolisHastings
    >>> mh = MetropolisHastings(lambda x: -0.5 * np.sum(x ** 2, axis=1), step_size=1.0, n_chains=1, random_state=0)
    >>> for s in mh.sample_steps(np.zeros((1, 1)), 3):
    ...     print(s.step, np.round(s.proposal.ravel(), 3), s.accepted, np.round(s.state.ravel(), 3), s.n_accepted)
    0 [0.] [False] [0.] [0]
    1 [0.126] [ True] [0.126] [1]
    2 [-0.006] [ True] [-0.006] [2]
    3 [0.634] [False] [-0.006] [2]
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
        Seeds the steps and the acceptance draws.

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

    Examples
    --------
    Two chains on a standard normal:

    >>> import numpy as np
    >>> from smlengine.sampling import MetropolisHastings
    >>> mh = MetropolisHastings(lambda x: -0.5 * np.sum(x ** 2, axis=1), step_size=1.0, n_chains=2, random_state=0)
    >>> chains = mh.sample(np.zeros((2, 1)), 1000)
    >>> chains.shape, np.round(mh.acceptance_rate_, 2)
    ((2, 1000, 1), array([0.7 , 0.72]))
    >>> bool(abs(chains.mean()) < 0.1), round(float(chains.std()), 1)
    (True, 1.0)
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

