"""Markov chains, PageRank by the power method, the random surfer and a graph layout.

Convention
----------
The course writes distributions as column vectors and P_n = p^n P_init with
[p]_{t,s} = p_{s->t}. This module stores the transition matrix **row-stochastic**, like
networkx and scipy: ``p[s, t] = p_{s->t} = Pr{X_n = t | X_{n-1} = s}`` (rows sum to one), and
distributions are 1-D arrays updated as a *row* vector,

    P_{n+1}^T = P_n^T p      (numerically ``p.T @ P_n``),

which is the course's update with its matrix transposed. An equilibrium satisfies
P^T = P^T p.

The web chain (simple random walk with teleport α, the course's regularisation)
------------------------------------------------------------------------------
For an adjacency A (A[i, j] > 0 for a link i -> j; weights allowed), out-degree
o_i = sum_j A[i, j], W = D_o^{-1} A for pages with links, δ the indicator of dangling pages
(o_i = 0, they jump uniformly) and 𝟙 the all-ones vector on d pages:

    p = (1 - α) (W + δ 𝟙^T / d) + α 𝟙 𝟙^T / d.

For α > 0 the chain is irreducible and aperiodic, so the equilibrium is unique and the
power method converges from any start with ‖P_n − P‖₁ ≤ (1 − α)^n ‖P_0 − P‖₁ ≤ 2 (1 − α)^n.
The dense d × d matrix is never formed: one step is a sparse product plus two rank-one
terms, P_{n+1} = (1 − α) (W^T P_n + (δ·P_n)/d 𝟙) + α/d 𝟙 (using 𝟙·P_n = 1), i.e.
O(#links + d) time per step and, beyond a few vectors, one scaled copy of the link values.

The chain itself (the :class:`TransitionMatrix` operator, irreducibility and aperiodicity,
small dense chains, the eigen-solver cross-check) is defined in :mod:`smlengine._markov_chain`
and re-exported here; this module holds PageRank (power method and estimator), the random
surfer and the force-directed layout.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import blas

from ._base import BaseEstimator, IterativeMixin, Snapshot, check_random_state, frozen_array
from ._markov_chain import (
    TELEPORT,
    MAX_MOVES,
    ChainSnapshot,
    TransitionMatrix,
    check_adjacency,
    check_start,
    out_weights,
    chain_steps,
    is_aperiodic,
    is_irreducible,
    stationary_distribution,
    transition_matrix,
)
from ._params import ArrayLike, Integral, Interval, RandomState, Real, validate_call

__all__ = [
    "TransitionMatrix",
    "transition_matrix",
    "is_irreducible",
    "is_aperiodic",
    "chain_steps",
    "ChainSnapshot",
    "pagerank_steps",
    "pagerank",
    "PageRankSnapshot",
    "random_surfer_steps",
    "SurferSnapshot",
    "stationary_distribution",
    "layout_steps",
    "layout",
    "LayoutSnapshot",
    "PageRank",
]

#: Most power-method iterations one call may run (each costs O(#links + d)).
MAX_ITER = 1_000_000
#: Most random surfers moved together (their positions are n_walkers integers per move).
MAX_WALKERS = 1_000_000
#: Most layout iterations (each O(d²)).
MAX_LAYOUT_ITER = 100_000

_TOL = [Interval(Real, 0, None, closed="neither")]
_YIELD_EVERY = [Interval(Integral, 1, None)]
_SEED = [RandomState(), None]


# ----------------------------------------------------------------------------- PageRank


@dataclass(frozen=True, kw_only=True, eq=False)
class PageRankSnapshot(Snapshot):
    """One power-method iteration.

    Attributes
    ----------
    distribution : ndarray of shape (d,)
        P_n (sums to 1). A read-only array owned by the snapshot.
    change : float or None
        Residual ‖P_n − P_{n−1}‖₁ (None at step 0: there is no previous iterate).
    bound : float
        (1 − α)^n, the course's rate: ‖P_n − P‖₁ ≤ 2 (1 − α)^n.
    teleport : float
        α.
    converged : bool
        ``change < tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.markov import pagerank_steps
    >>> A = np.array([[0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]])
    >>> for s in pagerank_steps(A, max_iter=3):
    ...     print(s.step, np.round(s.distribution, 3), s.change and round(s.change, 3), round(s.bound, 3))
    0 [0.25 0.25 0.25 0.25] None 1.0
    1 [0.25  0.144 0.569 0.038] 0.637 0.85
    2 [0.521 0.144 0.298 0.037] 0.542 0.722
    3 [0.291 0.259 0.413 0.037] 0.461 0.614
    """

    distribution: np.ndarray
    change: float | None
    bound: float
    teleport: float
    converged: bool


#: out-weights o_i within this range are used as they are; the rows of a graph with others are
#: scaled first (W = A / o does not change when a row is scaled)
_SAFE_OUT = (1e-300, 1e300)


def _scaled_rows(a):
    """``a``, or a copy whose rows are scaled to a largest weight of 1 when an out-weight o_i is
    so small that 1/o_i overflows (links of weight 1e-310) or so large that it does (1e308 and
    1e308 sum to ∞): the walk's probabilities A_ij / o_i are those of the scaled rows."""
    counts = np.diff(a.indptr)
    linked = counts > 0
    row_max = np.ones(a.shape[0])
    if a.nnz:
        row_max[linked] = np.maximum.reduceat(a.data, a.indptr[:-1][linked])
    # o_i lies between the row's largest weight and that times its number of links
    if np.all(row_max >= _SAFE_OUT[0]) and np.all(row_max <= _SAFE_OUT[1] / np.maximum(counts, 1)):
        return a
    b = a.copy()
    b.data = a.data / np.repeat(row_max, counts)
    return b


def _walk_transposed(a, row_weights):
    """(diag(row_weights) A)ᵀ as a CSC matrix that shares A's index arrays.

    The weights (1 − α)/o_i are folded into a copy of the link values once, so an iteration
    is one sparse product and a few vector sums (no product x / o and no scaling of the
    result at every step); the CSC view of CSR arrays is Aᵀ without a transposed copy.
    """
    data = np.repeat(row_weights, np.diff(a.indptr))
    data *= a.data
    return sp.csc_matrix((data, a.indices, a.indptr), shape=a.shape[::-1], copy=False)


_PAGERANK_CONSTRAINTS = {"teleport": TELEPORT, "tol": _TOL, "max_iter": [Interval(Integral, 0, MAX_ITER)]}


@validate_call(_PAGERANK_CONSTRAINTS)
def pagerank_steps(adjacency, teleport=0.15, tol=1e-10, max_iter=1000, start=None):
    """PageRank by the power method, one snapshot per iteration.

    P_{n+1} = (1 − α) (Wᵀ P_n + (δ·P_n)/d 𝟙) + α/d 𝟙, from P_0 = ``start`` (uniform by
    default), until ‖P_{n+1} − P_n‖₁ < ``tol`` or ``max_iter`` iterations. The d × d
    matrix is never formed: each iteration costs one sparse product with (1 − α) Wᵀ (the
    links' values scaled once, O(#links)) and O(d) vector work, and allocates one length-d
    vector, the new distribution.

    Parameters
    ----------
    adjacency : array-like or sparse (d, d)
        ``adjacency[i, j] > 0`` for a link i -> j (weights allowed).
    teleport : float in [0, 1], default=0.15
        α. With α = 0 the plain random walk (may not converge: periodic or reducible graphs).
    tol : float > 0, default=1e-10
        Stop when the L1 change of one iteration is below it.
    max_iter : int >= 0, default=1000
        Largest number of iterations.
    start : array-like (d,), optional
        Initial distribution P_0.

    Yields
    ------
    PageRankSnapshot
        Step 0 (P_0), then one per iteration; the last one holds :func:`pagerank`'s result.
    """
    a = _scaled_rows(check_adjacency(adjacency))
    alpha = float(teleport)
    d = a.shape[0]
    x = check_start(start, d)
    x.setflags(write=False)
    yield PageRankSnapshot(
        step=0, distribution=x, change=None, bound=1.0, teleport=alpha, converged=False, progress=0.0
    )
    keep = 1.0 - alpha
    _, inv_out, dangling = out_weights(a)
    walk = _walk_transposed(a, keep * inv_out) if max_iter else None
    dangling = dangling.astype(np.float64)  # δ·P_n as one dot product
    diff = np.empty(d)
    for n in range(1, max_iter + 1):
        y = walk @ x  # (1 − α) Wᵀ P_n
        y += (keep * (dangling @ x) + alpha * x.sum()) / d
        np.subtract(y, x, out=diff)
        change = float(blas.dasum(diff))
        # y is fresh every iteration and never written again: the snapshot may own it as is.
        y.setflags(write=False)
        x = y
        done = change < tol
        yield PageRankSnapshot(
            step=n,
            distribution=x,
            change=change,
            bound=keep**n,
            teleport=alpha,
            converged=done,
            progress=1.0 if done else n / max_iter,
        )
        if done:
            return


@validate_call(_PAGERANK_CONSTRAINTS)
def pagerank(adjacency, teleport=0.15, tol=1e-10, max_iter=1000, start=None) -> np.ndarray:
    """The PageRank vector (sums to 1): the last distribution of :func:`pagerank_steps`.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.markov import pagerank
    >>> A = np.array([[0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]])
    >>> print(np.round(pagerank(A), 3))
    [0.373 0.196 0.394 0.037]
    >>> print(np.round(pagerank(A, teleport=0.5), 3))
    [0.308 0.202 0.365 0.125]
    """
    last = None
    for last in pagerank_steps(adjacency, teleport=teleport, tol=tol, max_iter=max_iter, start=start):
        pass
    return np.array(last.distribution)


class PageRank(IterativeMixin, BaseEstimator):
    """PageRank as an estimator: ``fit(adjacency)`` runs the power method of :func:`pagerank_steps`.

    P_{n+1} = (1 − α) (Wᵀ P_n + (δ·P_n)/d 𝟙) + α/d 𝟙 from P_0 = ``start`` (uniform by default)
    until ‖P_{n+1} − P_n‖₁ < ``tol`` or ``max_iter`` iterations; for α > 0 the error after n
    iterations is at most 2 (1 − α)^n.

    Parameters
    ----------
    teleport : float in [0, 1], default=0.15
        α, the probability of a jump to a uniformly random page.
    tol : float > 0, default=1e-10
        Stop when the L1 change of one iteration is below it.
    max_iter : int in [0, 1e6], default=1000
        Largest number of iterations.
    start : array-like (d,) or None
        P_0; None for the uniform distribution.

    Attributes
    ----------
    pagerank_ : ndarray of shape (d,)
        The last iterate (sums to 1).
    n_iter_ : int
        Iterations run.
    converged_ : bool
        Whether the residual fell below ``tol``.
    residuals_ : ndarray of shape (n_iter_,)
        ‖P_n − P_{n−1}‖₁ for n = 1..n_iter_.
    n_nodes_ : int
        d.
    last_snapshot_ : PageRankSnapshot
        The final state.

    Notes
    -----
    The data of a fit is one graph, not a set of samples: ``clone``, ``get_params`` and
    ``set_params`` work as in scikit-learn, but cross-validation has nothing to split.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.markov import PageRank
    >>> A = np.array([[0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]])
    >>> pr = PageRank(teleport=0.15).fit(A)
    >>> print(np.round(pr.pagerank_, 3), pr.converged_)
    [0.373 0.196 0.394 0.037] True
    >>> pr.ranking()
    array([2, 0, 1, 3])
    """

    _parameter_constraints = {**_PAGERANK_CONSTRAINTS, "start": [ArrayLike(), None]}

    def __init__(self, teleport=0.15, tol=1e-10, max_iter=1000, start=None):
        self.teleport = teleport
        self.tol = tol
        self.max_iter = max_iter
        self.start = start

    def fit_steps(self, adjacency):
        """Run the power method on ``adjacency`` (``adjacency[i, j] > 0`` for a link i -> j).

        Yields
        ------
        PageRankSnapshot
            Step 0 (P_0), then one per iteration; the last one equals the fitted ``pagerank_``.
        """
        self.validate_params()
        residuals = []
        for snap in pagerank_steps(adjacency, teleport=self.teleport, tol=self.tol, max_iter=self.max_iter,
                                   start=self.start):
            if snap.change is not None:
                residuals.append(snap.change)
            self.pagerank_ = np.array(snap.distribution)
            self.n_iter_ = int(snap.step)
            self.converged_ = bool(snap.converged)
            self.residuals_ = np.array(residuals)
            self.n_nodes_ = int(snap.distribution.shape[0])
            yield snap

    def transform(self, adjacency=None) -> np.ndarray:
        """The fitted PageRank vector (the argument is accepted for pipelines and ignored)."""
        self._check_fitted("pagerank_")
        return self.pagerank_.copy()

    def ranking(self) -> np.ndarray:
        """Node indices from the highest PageRank to the lowest (ties: lower index first)."""
        self._check_fitted("pagerank_")
        return np.argsort(-self.pagerank_, kind="stable")


# ----------------------------------------------------------------------------- random surfer


@dataclass(frozen=True, kw_only=True, eq=False)
class SurferSnapshot(Snapshot):
    """The walkers after ``step`` moves each.

    Attributes
    ----------
    positions : ndarray of int, shape (n_walkers,)
        where each walker is now
    previous : ndarray of int, shape (n_walkers,)
        where it was one move before
    teleported : ndarray of bool, shape (n_walkers,)
        it jumped (teleport or dangling) rather than followed a link
    frequencies : ndarray of shape (d,)
        fraction of all visits (moves 1..step) per page
    n_visits : int
        n_walkers × step
    l1_error : float or None
        ‖frequencies − pagerank‖₁ (the power-method result); None at step 0, before
        any visit is counted

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.markov import random_surfer_steps
    >>> A = np.array([[0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]])
    >>> snaps = list(random_surfer_steps(A, n_walkers=200, n_steps=50, random_state=0, yield_every=25))
    >>> [(s.step, s.n_visits) for s in snaps]
    [(0, 0), (25, 5000), (50, 10000)]
    >>> print(np.round(snaps[-1].frequencies, 2), round(snaps[-1].l1_error, 2))
    [0.38 0.19 0.39 0.04] 0.01
    """

    positions: np.ndarray
    previous: np.ndarray
    teleported: np.ndarray
    frequencies: np.ndarray
    n_visits: int
    l1_error: float | None


@validate_call({
    "teleport": TELEPORT,
    "n_walkers": [Interval(Integral, 1, MAX_WALKERS)],
    "n_steps": [Interval(Integral, 0, MAX_MOVES)],
    "random_state": _SEED,
    "yield_every": _YIELD_EVERY,
})
def random_surfer_steps(
    adjacency,
    teleport=0.15,
    n_walkers=1000,
    n_steps=1000,
    random_state=None,
    *,
    yield_every=1,
    reference=None,
):
    """Monte Carlo PageRank: many random surfers moved together.

    Each move, every walker jumps to a uniformly random page with probability α (always,
    if its page is dangling), otherwise follows one out-link i -> j with probability
    A_ij / o_i. The fraction of visits per page converges to the equilibrium P, so the
    L1 error against the power method shrinks like O(1/sqrt(n_walkers × step)).
    Walkers start uniformly at random. Cost per move O(n_walkers log #links + d).

    Parameters
    ----------
    adjacency : array-like or sparse (d, d)
        ``adjacency[i, j] > 0`` for a link i -> j (weights allowed).
    teleport : float in [0, 1], default=0.15
        α.
    n_walkers : int >= 1, default=1000
        Number of surfers.
    n_steps : int >= 0, default=1000
        moves per walker
    random_state : int, Generator or None
        Seeds the start pages and the moves.
    yield_every : int >= 1, default=1
        yield after this many moves (and after the last)
    reference : array-like (d,), optional
        Equilibrium to measure ``l1_error`` against; default ``pagerank(adjacency, teleport, tol=1e-12)``
        (with α = 0 on a periodic or reducible graph that is not an equilibrium: pass one).

    Yields
    ------
    SurferSnapshot
        Step 0 (start positions, no visits counted, ``l1_error`` None), then every
        ``yield_every`` moves.
    """
    a = _scaled_rows(check_adjacency(adjacency))
    alpha = float(teleport)
    rng = check_random_state(random_state)
    d = a.shape[0]
    if reference is None:
        reference = pagerank(a, teleport=alpha, tol=1e-12, max_iter=100_000)
    reference = check_start(reference, d, "reference")
    out, _, dangling = out_weights(a)
    # A weighted out-link is picked by inverting the cumulative weights of the walker's row.
    cum = np.cumsum(a.data)
    row_start = np.concatenate([[0.0], cum])[a.indptr[:-1]]
    pos = rng.integers(0, d, size=int(n_walkers))
    counts = np.zeros(d, dtype=np.int64)
    empty = np.zeros(d)
    yield SurferSnapshot(
        step=0,
        positions=frozen_array(pos),
        previous=frozen_array(pos),
        teleported=frozen_array(np.zeros(pos.size, bool)),
        frequencies=frozen_array(empty),
        n_visits=0,
        l1_error=None,
        progress=0.0,
    )
    for n in range(1, int(n_steps) + 1):
        prev = pos
        jump = dangling[prev] | (rng.random(prev.size) < alpha)
        follow = ~jump
        pos = np.empty_like(prev)
        pos[jump] = rng.integers(0, d, size=int(jump.sum()))
        src = prev[follow]
        target = row_start[src] + rng.random(src.size) * out[src]
        k = np.searchsorted(cum, target, side="right")
        # Round-off can land exactly on the row's end; stay inside the row.
        k = np.clip(k, a.indptr[src], a.indptr[src + 1] - 1)
        pos[follow] = a.indices[k]
        counts += np.bincount(pos, minlength=d)
        if n % yield_every == 0 or n == n_steps:
            visits = int(n) * pos.size
            freq = counts / visits
            yield SurferSnapshot(
                step=n,
                positions=frozen_array(pos),
                previous=frozen_array(prev),
                teleported=frozen_array(jump),
                frequencies=frozen_array(freq),
                n_visits=visits,
                l1_error=float(np.abs(freq - reference).sum()),
                progress=n / n_steps,
            )


# ----------------------------------------------------------------------------- layout


@dataclass(frozen=True, kw_only=True, eq=False)
class LayoutSnapshot(Snapshot):
    """Force-directed layout after ``step`` iterations.

    Attributes
    ----------
    positions : ndarray of shape (d, 2)
        node coordinates, scaled into [-1, 1]²
    temperature : float
        the largest move allowed in this iteration

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.markov import layout_steps
    >>> A = np.array([[0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]])
    >>> [(s.step, round(s.temperature, 3)) for s in layout_steps(A, random_state=0, n_iter=10, yield_every=5)]
    [(0, 0.1), (5, 0.06), (10, 0.01)]
    """

    positions: np.ndarray
    temperature: float


@validate_call({"random_state": _SEED, "n_iter": [Interval(Integral, 0, MAX_LAYOUT_ITER)], "yield_every": _YIELD_EVERY})
def layout_steps(adjacency, random_state=None, n_iter=50, yield_every=5):
    """Fruchterman--Reingold force-directed layout, yielding the positions as they settle.

    Links are springs (attraction ‖x_u − x_v‖² / k along each link, direction ignored), every
    pair repels with k² / ‖x_u − x_v‖, with k = sqrt(1/d); a weak pull to the centre keeps
    isolated pages on screen, and the step length cools linearly to zero. Vectorized over
    all pairs: O(d²) time and memory per iteration (a few ms for 500 nodes), so meant for
    graphs up to a few thousand nodes.

    Yields
    ------
    LayoutSnapshot
        Step 0 (random start), then every ``yield_every`` iterations and the last one.
    """
    a = check_adjacency(adjacency)
    d = a.shape[0]
    if d > 5000:
        raise ValueError(f"layout is O(d²) per iteration; {d} nodes is too many (at most 5000)")
    rng = check_random_state(random_state)
    sym = (a + a.T).tocoo()
    keep = sym.row < sym.col  # each undirected edge once, no self-loops
    u, v = sym.row[keep], sym.col[keep]
    pos = rng.uniform(-1.0, 1.0, size=(d, 2))
    k = np.sqrt(4.0 / d)  # area 4 for the [-1, 1]² box
    t0 = 0.1

    def scaled(p):
        span = np.abs(p).max()
        return p / span if span > 0 else p

    yield LayoutSnapshot(step=0, positions=frozen_array(scaled(pos)), temperature=t0, progress=0.0)
    for it in range(1, int(n_iter) + 1):
        temp = t0 * (1.0 - (it - 1) / n_iter)
        # Per-coordinate (d, d) arrays: about 3x faster than one (d, d, 2) array + einsum.
        dx = pos[:, 0, None] - pos[None, :, 0]
        dy = pos[:, 1, None] - pos[None, :, 1]
        w = dx * dx
        w += dy * dy
        np.fill_diagonal(w, 1.0)
        np.maximum(w, 1e-6, out=w)
        np.divide(k * k, w, out=w)  # repulsion k²/r along the unit vector: (k²/r²) · (x_u − x_v)
        force = np.column_stack([np.einsum("ij,ij->i", w, dx), np.einsum("ij,ij->i", w, dy)])
        e = pos[u] - pos[v]
        el = np.sqrt(np.einsum("ij,ij->i", e, e))[:, None]
        pull = e * el / k  # attraction r²/k along the link
        force[:, 0] -= np.bincount(u, pull[:, 0], minlength=d) - np.bincount(v, pull[:, 0], minlength=d)
        force[:, 1] -= np.bincount(u, pull[:, 1], minlength=d) - np.bincount(v, pull[:, 1], minlength=d)
        force -= 0.05 * pos * np.sqrt(d)  # gravity: disconnected parts stay near the centre
        length = np.sqrt(np.einsum("ij,ij->i", force, force))[:, None]
        pos = pos + force / np.maximum(length, 1e-12) * np.minimum(length, temp)
        if it % yield_every == 0 or it == n_iter:
            yield LayoutSnapshot(
                step=it, positions=frozen_array(scaled(pos)), temperature=float(temp), progress=it / n_iter
            )


@validate_call({"random_state": _SEED, "n_iter": [Interval(Integral, 0, MAX_LAYOUT_ITER)]})
def layout(adjacency, random_state=None, n_iter=50) -> np.ndarray:
    """Final positions (d, 2) of :func:`layout_steps`.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.markov import layout
    >>> pos = layout(np.array([[0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]]), random_state=0)
    >>> pos.shape, bool(np.abs(pos).max() <= 1.0)
    ((4, 2), True)
    """
    last = None
    for last in layout_steps(adjacency, random_state=random_state, n_iter=n_iter, yield_every=max(1, int(n_iter))):
        pass
    return np.array(last.positions)
