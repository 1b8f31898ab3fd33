"""The Markov chain itself: the web chain's transition matrix, its structure, small chains.

The pieces of :mod:`smlengine.markov` that PageRank, the random surfer and the layout stand
on: validation of adjacency matrices and start distributions, :class:`TransitionMatrix`
(the web chain p = (1 − α)(W + δ𝟙ᵀ/d) + α𝟙𝟙ᵀ/d as a sparse operator, never d × d),
irreducibility and aperiodicity from the non-zero pattern, :func:`chain_steps` on a small
dense chain and :func:`stationary_distribution` by an eigen-solver. The conventions
(row-stochastic p, distributions as 1-D arrays) are those of :mod:`smlengine.markov`, which
re-exports every public name defined here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla

from ._base import Snapshot, frozen_array
from ._params import Integral, Interval, Real, check_param, validate_call

#: Most moves per surfer, and most steps of a small chain.
MAX_MOVES = 1_000_000

TELEPORT = [Interval(Real, 0, 1)]

# ----------------------------------------------------------------------------- validation


def check_adjacency(adjacency, name: str = "adjacency") -> sp.csr_matrix:
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
    return float(check_param("teleport", teleport, TELEPORT))


def out_weights(a: sp.csr_matrix):
    """Out-degree o_i, 1/o_i (0 for dangling pages) and the dangling mask δ."""
    out = np.asarray(a.sum(axis=1)).ravel()
    dangling = out == 0
    inv = np.zeros_like(out)
    np.divide(1.0, out, out=inv, where=~dangling)
    return out, inv, dangling


def check_start(start, d: int, name: str = "start") -> np.ndarray:
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
    adjacency : scipy.sparse.csr_matrix
        the links A (weights allowed)
    links : scipy.sparse.csr_matrix
        W = D_o^{-1} A (dangling rows are zero)
    dangling : ndarray of bool
        δ, pages without out-links
    teleport : float
        α

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.markov import transition_matrix
    >>> A = np.array([[0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]])
    >>> p = transition_matrix(A, teleport=0.15)
    >>> p.shape, p.dangling
    ((4, 4), array([False, False, False, False]))
    >>> print(np.round(p.toarray()[3], 4))
    [0.0375 0.0375 0.8875 0.0375]
    >>> print(np.round(p.step(np.full(4, 0.25)), 3))
    [0.25  0.144 0.569 0.038]
    """

    def __init__(self, adjacency, teleport: float = 0.0):
        a = check_adjacency(adjacency)
        self.teleport = _check_teleport(teleport)
        self.adjacency = a
        _, inv, self.dangling = out_weights(a)
        self._inv_out = inv
        super().__init__(dtype=np.dtype(np.float64), shape=a.shape)

    @property
    def links(self) -> sp.csr_matrix:
        """W = D_o^{-1} A as a sparse matrix (dangling rows are zero)."""
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
        α, the probability of a uniform jump.

    Returns
    -------
    TransitionMatrix
        The chain as a linear operator.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.markov import transition_matrix
    >>> p = transition_matrix(np.array([[0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]]))
    >>> print(p.toarray())
    [[0.  0.5 0.5 0. ]
     [0.  0.  1.  0. ]
     [1.  0.  0.  0. ]
     [0.  0.  1.  0. ]]
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
        g = check_adjacency(p, "p").copy()
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

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.markov import is_irreducible
    >>> is_irreducible(np.array([[0.0, 1.0], [1.0, 0.0]])), is_irreducible(np.array([[1.0, 0.0], [0.5, 0.5]]))
    (True, False)
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

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.markov import is_aperiodic
    >>> is_aperiodic(np.array([[0.0, 1.0], [1.0, 0.0]])), is_aperiodic(np.array([[0.5, 0.5], [1.0, 0.0]]))
    (False, True)
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
    distribution : ndarray of shape (d,)
        P_n
    change : float or None
        ‖P_n − P_{n−1}‖₁ (None at step 0: there is no previous P)

    Examples
    --------
    A periodic chain never settles:

    >>> from smlengine.markov import chain_steps
    >>> for s in chain_steps([[0.0, 1.0], [1.0, 0.0]], start=[1.0, 0.0], n_steps=3):
    ...     print(s.step, s.distribution, s.change)
    0 [1. 0.] None
    1 [0. 1.] 2.0
    2 [1. 0.] 2.0
    3 [0. 1.] 2.0
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
    p : array-like of shape (d, d)
        Row-stochastic (e.g. from ``textbook_chain``).
    start : array-like of shape (d,), default uniform
        P_0.
    n_steps : int, default=50
        Number of steps.

    Yields
    ------
    ChainSnapshot
        Step 0 (the start) then one per step; on a periodic chain ``change`` never shrinks,
        on a reducible chain the limit depends on ``start``.
    """
    p = _check_stochastic(p)
    x = check_start(start, p.shape[0])
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

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.markov import stationary_distribution
    >>> print(np.round(stationary_distribution([[0.9, 0.1], [0.5, 0.5]]), 3))
    [0.833 0.167]
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
