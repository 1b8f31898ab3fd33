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
O(#links + d) time and no memory beyond a few vectors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla

from ._base import BaseEstimator, IterativeMixin, Snapshot, check_random_state, frozen_array
from ._params import ArrayLike, Integral, Interval, RandomState, Real, check_param, validate_call

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
#: Most moves per surfer, and most steps of a small chain.
MAX_MOVES = 1_000_000
#: Most layout iterations (each O(d²)).
MAX_LAYOUT_ITER = 100_000

_TELEPORT = [Interval(Real, 0, 1)]
_TOL = [Interval(Real, 0, None, closed="neither")]
_YIELD_EVERY = [Interval(Integral, 1, None)]
_SEED = [RandomState(), None]


# ----------------------------------------------------------------------------- validation


def _check_adjacency(adjacency, name: str = "adjacency") -> sp.csr_matrix:
    """Square, finite, non-negative CSR float64 matrix; no copy when it already is one."""
    if isinstance(adjacency, TransitionMatrix):
        raise TypeError(f"{name} must be an adjacency matrix, got a TransitionMatrix (pass its .adjacency)")
    if sp.issparse(adjacency):
        a = sp.csr_matrix(adjacency)
        if a.dtype != np.float64:
            a = a.astype(np.float64)
    else:
        try:
            dense = np.asarray(adjacency, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be a numeric matrix ({exc})") from None
        if dense.ndim != 2:
            raise ValueError(f"{name} must be a 2-D square matrix, got shape {dense.shape}")
        a = sp.csr_matrix(dense)
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"{name} must be square (pages x pages), got shape {a.shape}")
    if a.shape[0] == 0:
        raise ValueError(f"{name} has no nodes")
    if a.nnz:
        if not np.all(np.isfinite(a.data)):
            raise ValueError(f"{name} contains NaN or infinite entries")
        if a.data.min() < 0:
            raise ValueError(f"{name} must be non-negative (link weights), got {a.data.min()}")
    if not a.has_sorted_indices:
        a = a.sorted_indices()
    return a


def _check_teleport(teleport) -> float:
    return float(check_param("teleport", teleport, _TELEPORT))


def _out_weights(a: sp.csr_matrix):
    """Out-degree o_i, 1/o_i (0 for dangling pages) and the dangling mask δ."""
    out = np.asarray(a.sum(axis=1)).ravel()
    dangling = out == 0
    inv = np.zeros_like(out)
    np.divide(1.0, out, out=inv, where=~dangling)
    return out, inv, dangling


def _check_start(start, d: int, name: str = "start") -> np.ndarray:
    if start is None:
        return np.full(d, 1.0 / d)
    x = np.asarray(start, dtype=np.float64)
    if x.shape != (d,):
        raise ValueError(f"{name} must be a distribution over the {d} states, got shape {x.shape}")
    if not np.all(np.isfinite(x)) or x.min() < 0:
        raise ValueError(f"{name} must be non-negative and finite")
    total = x.sum()
    if not abs(total - 1.0) <= 1e-9:
        raise ValueError(f"{name} must sum to 1, got {total:.6g}")
    return x.copy()


# ----------------------------------------------------------------------------- p as an operator


class TransitionMatrix(spla.LinearOperator):
    """The web chain p = (1 − α)(W + δ𝟙ᵀ/d) + α𝟙𝟙ᵀ/d, kept as sparse W plus rank-one parts.

    Row-stochastic: ``p[s, t] = p_{s->t}``. As a :class:`scipy.sparse.linalg.LinearOperator`
    ``p @ x`` is the column product and ``p.T @ P`` (or :meth:`step`) the chain's update of a
    distribution. Memory: the CSR adjacency and two length-d vectors, never d × d.

    Attributes
    ----------
    adjacency : scipy.sparse.csr_matrix -- the links A (weights allowed)
    links : scipy.sparse.csr_matrix -- W = D_o^{-1} A (dangling rows are zero)
    dangling : ndarray of bool -- δ, pages without out-links
    teleport : float -- α
    """

    def __init__(self, adjacency, teleport: float = 0.0):
        a = _check_adjacency(adjacency)
        self.teleport = _check_teleport(teleport)
        self.adjacency = a
        _, inv, self.dangling = _out_weights(a)
        self._inv_out = inv
        super().__init__(dtype=np.dtype(np.float64), shape=a.shape)

    @property
    def links(self) -> sp.csr_matrix:
        return sp.diags(self._inv_out, format="csr") @ self.adjacency

    def _matvec(self, x):
        # (p x)_s = (1-α) (Σ_t W_st x_t + δ_s mean(x)) + α mean(x)
        x = np.asarray(x, dtype=np.float64).ravel()
        d = self.shape[0]
        mean = x.sum() / d
        y = self._inv_out * (self.adjacency @ x)
        y += self.dangling * mean
        y *= 1.0 - self.teleport
        y += self.teleport * mean
        return y

    def _rmatvec(self, x):
        # (pᵀ x)_t = (1-α) (Σ_s W_st x_s + (δ·x)/d) + α (𝟙·x)/d
        x = np.asarray(x, dtype=np.float64).ravel()
        d = self.shape[0]
        y = self.adjacency.T @ (x * self._inv_out)
        y += x[self.dangling].sum() / d
        y *= 1.0 - self.teleport
        y += self.teleport * x.sum() / d
        return y

    def step(self, distribution) -> np.ndarray:
        """One step of the chain: P_{n+1}ᵀ = P_nᵀ p."""
        return self._rmatvec(distribution)

    def toarray(self) -> np.ndarray:
        """Dense d × d matrix (small graphs only: the lab's maths panel, eigen-checks)."""
        d = self.shape[0]
        if d > 5000:
            raise ValueError(f"toarray would need a {d} x {d} dense matrix; use the operator instead")
        p = self.links.toarray()
        p[self.dangling] = 1.0 / d
        return (1.0 - self.teleport) * p + self.teleport / d

    def tocsr(self) -> sp.csr_matrix:
        """p as a sparse matrix; exact only without teleport (dangling rows become full)."""
        if self.teleport > 0:
            raise ValueError("with teleport > 0 every entry of p is positive, so p is dense; use toarray() or the "
                             "operator")
        w = self.links.tolil()
        d = self.shape[0]
        for i in np.flatnonzero(self.dangling):
            w[i] = np.full(d, 1.0 / d)
        return w.tocsr()


def transition_matrix(adjacency, teleport: float = 0.0) -> TransitionMatrix:
    """The random-surfer chain of a directed graph, p = (1 − α)(W + δ𝟙ᵀ/d) + α𝟙𝟙ᵀ/d.

    p_{i->j} = A_ij / o_i for a link i -> j (1 / #out-links for a 0/1 adjacency); a dangling
    page jumps uniformly; with ``teleport`` α > 0 every page also jumps uniformly with
    probability α.

    An exact sparse matrix exists only when α = 0 and no page dangles, so the result is a
    :class:`TransitionMatrix`: a :class:`scipy.sparse.linalg.LinearOperator` holding the
    sparse W and the rank-one corrections, with ``.links`` (sparse W), ``.dangling``,
    ``.toarray()`` (dense, small graphs) and ``.tocsr()`` (α = 0 only).

    Parameters
    ----------
    adjacency : array-like or sparse matrix of shape (d, d)
        ``adjacency[i, j] > 0`` for a link i -> j (non-negative weights allowed).
    teleport : float in [0, 1], default=0.0
    """
    return TransitionMatrix(adjacency, teleport)


# ----------------------------------------------------------------------------- structure


def _pattern(p):
    """Non-zero pattern of p as a CSR graph, plus the mask of rows that reach every state."""
    if isinstance(p, TransitionMatrix):
        d = p.shape[0]
        full = np.ones(d, bool) if p.teleport > 0 else p.dangling.copy()
        g = p.adjacency.copy()
    else:
        g = _check_adjacency(p, "p").copy()
        full = np.zeros(g.shape[0], bool)
    g.data = np.ones_like(g.data)
    g.eliminate_zeros()
    return g, full


def _components(g, full):
    """Strongly connected components; a full row reaches everything (via a hub node)."""
    d = g.shape[0]
    if full.any():
        # u -> hub -> every v has the same reachability as u -> every v, with d edges, not d².
        rows = np.concatenate([np.flatnonzero(full), np.full(d, d)])
        cols = np.concatenate([np.full(int(full.sum()), d), np.arange(d)])
        extra = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(d + 1, d + 1))
        g = sp.bmat([[g, None], [None, sp.csr_matrix((1, 1))]], format="csr") + extra
        n, labels = csgraph.connected_components(g, directed=True, connection="strong")
        return int(np.unique(labels[:d]).size), labels[:d]
    n, labels = csgraph.connected_components(g, directed=True, connection="strong")
    return int(n), labels


def is_irreducible(p) -> bool:
    """True when every state can reach every other (one communicating class).

    ``p``: a transition matrix (dense, sparse or :class:`TransitionMatrix`) or any adjacency;
    only its non-zero pattern matters. Cost O(d + #non-zeros).
    """
    g, full = _pattern(p)
    if full.all():
        return True
    n, _ = _components(g, full)
    return n == 1


def is_aperiodic(p) -> bool:
    """True when every state that can return to itself has period 1.

    The period of a state is the gcd of the lengths of its return paths; for an irreducible
    chain all states share it and "aperiodic" is the course's condition for P_n to converge.
    For a reducible chain every communicating class with a cycle must be aperiodic. A
    self-loop (p_{s->s} > 0) makes its class aperiodic. Cost O(d + #non-zeros): breadth-first
    levels ℓ in each class, and the period is gcd over its edges u -> v of ℓ(u) + 1 − ℓ(v).
    """
    g, full = _pattern(p)
    if full.all():
        return True
    d = g.shape[0]
    _, labels = _components(g, full)
    coo = g.tocoo()
    inside = labels[coo.row] == labels[coo.col]
    u, v = coo.row[inside], coo.col[inside]
    # A class containing a full row has a self-loop there: period 1.
    fine = np.zeros(labels.max() + 1, bool)
    fine[labels[full]] = True
    keep = ~fine[labels[u]]
    u, v = u[keep], v[keep]
    if u.size == 0:
        return True
    # Levels from one root per class, via a super-root linked to all roots.
    roots = np.unique(labels, return_index=True)[1]
    rows = np.concatenate([u, np.full(roots.size, d)])
    cols = np.concatenate([v, roots])
    h = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(d + 1, d + 1))
    level = csgraph.dijkstra(h, directed=True, indices=d, unweighted=True)
    delta = (level[u] + 1 - level[v]).astype(np.int64)
    order = np.argsort(labels[u], kind="stable")
    lab = labels[u][order]
    starts = np.flatnonzero(np.r_[True, lab[1:] != lab[:-1]])
    periods = np.gcd.reduceat(np.abs(delta[order]), starts)
    return bool(np.all(periods == 1))


# ----------------------------------------------------------------------------- small chains


@dataclass(frozen=True, kw_only=True, eq=False)
class ChainSnapshot(Snapshot):
    """P_n of a small chain.

    Attributes
    ----------
    distribution : ndarray of shape (d,) -- P_n
    change : float or None -- ‖P_n − P_{n−1}‖₁ (None at step 0: there is no previous P)
    """

    distribution: np.ndarray
    change: float | None


def _check_stochastic(p) -> np.ndarray:
    p = np.asarray(p.toarray() if (sp.issparse(p) or isinstance(p, TransitionMatrix)) else p, dtype=np.float64)
    if p.ndim != 2 or p.shape[0] != p.shape[1]:
        raise ValueError(f"p must be a square matrix, got shape {p.shape}")
    if not np.all(np.isfinite(p)) or p.min() < 0:
        raise ValueError("p must have non-negative finite entries")
    sums = p.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1) > 1e-9)
    if bad.size:
        raise ValueError(f"rows of p must sum to 1 (p[s, t] = Pr(s -> t)); row {bad[0]} sums to {sums[bad[0]]:.6g}")
    return p


@validate_call({"n_steps": [Interval(Integral, 0, MAX_MOVES)]})
def chain_steps(p, start=None, n_steps: int = 50):
    """Iterate P_{n+1}ᵀ = P_nᵀ p on a small dense chain, showing (non-)convergence.

    Parameters
    ----------
    p : array-like of shape (d, d), row-stochastic (e.g. from ``textbook_chain``)
    start : array-like of shape (d,), default uniform
    n_steps : int, default=50

    Yields
    ------
    ChainSnapshot
        Step 0 (the start) then one per step; on a periodic chain ``change`` never shrinks,
        on a reducible chain the limit depends on ``start``.
    """
    p = _check_stochastic(p)
    x = _check_start(start, p.shape[0])
    yield ChainSnapshot(step=0, distribution=frozen_array(x), change=None, progress=0.0)
    for n in range(1, n_steps + 1):
        y = x @ p
        change = float(np.abs(y - x).sum())
        x = y
        yield ChainSnapshot(step=n, distribution=frozen_array(x), change=change, progress=n / max(n_steps, 1))


def stationary_distribution(p) -> np.ndarray:
    """An equilibrium P = pᵀP (sums to 1) by an eigen-solver, for cross-checks.

    Dense ``scipy.linalg.eig`` for d ≤ 2000, else ARPACK (``scipy.sparse.linalg.eigs``) on
    the operator P ↦ pᵀP. For a reducible chain the equilibrium is not unique; one of them
    (whichever eigenvector the solver returns for eigenvalue 1) comes back.
    """
    if isinstance(p, TransitionMatrix) and p.shape[0] > 2000:
        vals, vecs = spla.eigs(p.H, k=1, which="LR", tol=1e-13, v0=np.full(p.shape[0], 1.0 / p.shape[0]))
        vec = vecs[:, 0].real
    elif sp.issparse(p) and p.shape[0] > 2000:
        pt = sp.csr_matrix(p).T.tocsr()
        sums = np.asarray(pt.sum(axis=0)).ravel()
        if np.any(np.abs(sums - 1) > 1e-9):
            raise ValueError("rows of p must sum to 1 (p[s, t] = Pr(s -> t))")
        vals, vecs = spla.eigs(pt, k=1, which="LR", tol=1e-13, v0=np.full(p.shape[0], 1.0 / p.shape[0]))
        vec = vecs[:, 0].real
    else:
        dense = _check_stochastic(p)
        vals, vecs = scipy.linalg.eig(dense.T)
        vec = vecs[:, int(np.argmin(np.abs(vals - 1.0)))].real
    vec = vec / vec.sum()
    vec[np.abs(vec) < 1e-15] = 0.0
    return vec


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
    """

    distribution: np.ndarray
    change: float | None
    bound: float
    teleport: float
    converged: bool


_PAGERANK_CONSTRAINTS = {"teleport": _TELEPORT, "tol": _TOL, "max_iter": [Interval(Integral, 0, MAX_ITER)]}


@validate_call(_PAGERANK_CONSTRAINTS)
def pagerank_steps(adjacency, teleport=0.15, tol=1e-10, max_iter=1000, start=None):
    """PageRank by the power method, one snapshot per iteration.

    P_{n+1} = (1 − α) (Wᵀ P_n + (δ·P_n)/d 𝟙) + α/d 𝟙, from P_0 = ``start`` (uniform by
    default), until ‖P_{n+1} − P_n‖₁ < ``tol`` or ``max_iter`` iterations. The d × d
    matrix is never formed: each iteration costs one sparse product with Aᵀ (O(#links))
    and O(d) vector work, and allocates only a few length-d vectors.

    Parameters
    ----------
    adjacency : array-like or sparse (d, d)
        ``adjacency[i, j] > 0`` for a link i -> j (weights allowed).
    teleport : float in [0, 1], default=0.15
        α. With α = 0 the plain random walk (may not converge: periodic or reducible graphs).
    tol : float > 0, default=1e-10
    max_iter : int >= 0, default=1000
    start : array-like (d,), optional
        Initial distribution P_0.

    Yields
    ------
    PageRankSnapshot
        Step 0 (P_0), then one per iteration; the last one holds :func:`pagerank`'s result.
    """
    a = _check_adjacency(adjacency)
    alpha = float(teleport)
    d = a.shape[0]
    x = _check_start(start, d)
    _, inv_out, dangling = _out_weights(a)
    at = a.T  # CSC view of the same arrays: Aᵀ products without a transposed copy
    x.setflags(write=False)
    yield PageRankSnapshot(
        step=0, distribution=x, change=None, bound=1.0, teleport=alpha, converged=False, progress=0.0
    )
    keep = 1.0 - alpha
    for n in range(1, max_iter + 1):
        y = at @ (x * inv_out)
        jump = (keep * x[dangling].sum() + alpha * x.sum()) / d
        y *= keep
        y += jump
        change = float(np.abs(y - x).sum())
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
    """The PageRank vector (sums to 1): the last distribution of :func:`pagerank_steps`."""
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
    max_iter : int in [0, 1e6], default=1000
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

    Notes
    -----
    The data of a fit is one graph, not a set of samples: ``clone``, ``get_params`` and
    ``set_params`` work as in scikit-learn, but cross-validation has nothing to split.
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
    positions : ndarray of int, shape (n_walkers,) -- where each walker is now
    previous : ndarray of int, shape (n_walkers,) -- where it was one move before
    teleported : ndarray of bool, shape (n_walkers,) -- it jumped (teleport or dangling) rather than followed a link
    frequencies : ndarray of shape (d,) -- fraction of all visits (moves 1..step) per page
    n_visits : int -- n_walkers × step
    l1_error : float or None -- ‖frequencies − pagerank‖₁ (the power-method result); None at step 0, before
        any visit is counted
    """

    positions: np.ndarray
    previous: np.ndarray
    teleported: np.ndarray
    frequencies: np.ndarray
    n_visits: int
    l1_error: float | None


@validate_call({
    "teleport": _TELEPORT,
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
    teleport : float in [0, 1], default=0.15
    n_walkers : int >= 1, default=1000
    n_steps : int >= 0, default=1000 -- moves per walker
    random_state : int, Generator or None
    yield_every : int >= 1, default=1 -- yield after this many moves (and after the last)
    reference : array-like (d,), optional
        Equilibrium to measure ``l1_error`` against; default ``pagerank(adjacency, teleport, tol=1e-12)``
        (with α = 0 on a periodic or reducible graph that is not an equilibrium: pass one).

    Yields
    ------
    SurferSnapshot
        Step 0 (start positions, no visits counted, ``l1_error`` None), then every
        ``yield_every`` moves.
    """
    a = _check_adjacency(adjacency)
    alpha = float(teleport)
    rng = check_random_state(random_state)
    d = a.shape[0]
    if reference is None:
        reference = pagerank(a, teleport=alpha, tol=1e-12, max_iter=100_000)
    reference = _check_start(reference, d, "reference")
    out, _, dangling = _out_weights(a)
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
    positions : ndarray of shape (d, 2) -- node coordinates, scaled into [-1, 1]²
    temperature : float -- the largest move allowed in this iteration
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
    a = _check_adjacency(adjacency)
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
    """Final positions (d, 2) of :func:`layout_steps`."""
    last = None
    for last in layout_steps(adjacency, random_state=random_state, n_iter=n_iter, yield_every=max(1, int(n_iter))):
        pass
    return np.array(last.positions)
