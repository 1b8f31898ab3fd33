"""Affinity graphs, graph Laplacians and their smallest eigenpairs (for :mod:`smlengine.spectral`).

Dense matrices where n is small (an RBF graph is dense anyway), scipy's sparse matrices and
its shift-invert Lanczos solver (``scipy.sparse.linalg.eigsh``) for k-nearest-neighbour graphs
of many points.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import LinearOperator, eigsh, splu
from scipy.spatial import cKDTree

__all__ = [
    "DENSE_MAX",
    "rbf_affinity",
    "knn_affinity",
    "degrees",
    "laplacian",
    "smallest_eigenpairs",
    "count_components",
    "vector_sign_flip",
]

#: above this many points a k-NN graph stays sparse and is solved by Lanczos iterations
DENSE_MAX = 1500
#: shift of the sparse eigensolver, just below the Laplacian's smallest eigenvalue 0
SHIFT = 1e-5


def rbf_affinity(X: np.ndarray, gamma: float) -> np.ndarray:
    """W_ij = exp(−γ‖x_i − x_j‖²) for i ≠ j, W_ii = 0 (no self-loops)."""
    sq = np.einsum("ij,ij->i", X, X)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    np.maximum(d2, 0.0, out=d2)
    W = np.exp(-gamma * d2)
    np.fill_diagonal(W, 0.0)
    return W


def knn_affinity(X: np.ndarray, n_neighbors: int, *, sparse: bool):
    """Connectivity of the k nearest neighbours, made symmetric: W = (A + Aᵀ)/2.

    A_ij = 1 when x_j is one of the ``n_neighbors`` nearest points of x_i (x_i itself left
    out), so W_ij is 1 for mutual neighbours and 1/2 for one-sided ones.
    """
    n = X.shape[0]
    k = min(n_neighbors, n - 1)
    if k < 1:
        W = sp.csr_matrix((n, n))
        return W if sparse else W.toarray()
    _, idx = cKDTree(X).query(X, k=k + 1)
    rows = np.repeat(np.arange(n), k + 1)
    cols = idx.ravel()
    keep = rows != cols  # the point itself (duplicates may take its place: drop exactly one self)
    rows, cols = rows[keep], cols[keep]
    # each row keeps its k nearest others (a duplicate point may push the self index to the end)
    counts = np.bincount(rows, minlength=n)
    start = np.r_[0, np.cumsum(counts)[:-1]]
    pos = np.arange(rows.size) - np.repeat(start, counts)
    first = pos < k
    A = sp.csr_matrix((np.ones(int(first.sum())), (rows[first], cols[first])), shape=(n, n))
    W = (0.5 * (A + A.T)).tocsr()
    return W if sparse else W.toarray()


def degrees(W) -> np.ndarray:
    """d_i = Σ_j W_ij."""
    return np.asarray(W.sum(axis=1)).ravel()


def laplacian(W, normalized: bool):
    """L = I − D^{-1/2} W D^{-1/2} (``normalized``) or L = D − W; also returns d.

    An isolated point (d_i = 0) gets L_ii = 0 in the normalised form (its indicator is then an
    eigenvector of eigenvalue 0, one per connected component, as for any other component).
    """
    d = degrees(W)
    if not normalized:
        if sp.issparse(W):
            return (sp.diags(d) - W).tocsr(), d
        L = -W.copy()
        L[np.diag_indices_from(L)] += d
        return L, d
    isolated = d <= 0.0
    s = 1.0 / np.sqrt(np.where(isolated, 1.0, d))
    diag = np.where(isolated, 0.0, 1.0)
    if sp.issparse(W):
        S = sp.diags(s)
        return (sp.diags(diag) - S @ W @ S).tocsr(), d
    L = -(s[:, None] * W * s[None, :])
    L[np.diag_indices_from(L)] += diag
    return L, d


def smallest_eigenpairs(L, m: int, rng: np.random.Generator):
    """The m smallest eigenvalues (ascending) of the symmetric L and their unit eigenvectors.

    Dense: LAPACK's ``eigh`` on the requested index range. Sparse: Lanczos iterations on
    (L + σI)⁻¹ with a small σ = 10⁻⁵ (shift-invert just below the spectrum of a Laplacian, which
    starts at 0, so L + σI is positive definite); its largest eigenvalues 1/(λ + σ) are the
    smallest λ of L, and they stand far apart, so few iterations converge. L + σI is factored
    once, its rows and columns ordered for a symmetric matrix (minimum degree on Aᵀ + A, pivots
    on the diagonal): a third of the fill of the general ordering, so each solve of an
    iteration costs a third as much.
    """
    n = L.shape[0]
    m = min(m, n)
    if not sp.issparse(L) or m >= n - 1:
        dense = L.toarray() if sp.issparse(L) else L
        vals, vecs = scipy.linalg.eigh(dense, subset_by_index=[0, m - 1])
    else:
        v0 = rng.uniform(-1.0, 1.0, n)
        L = L.tocsc()
        lu = splu((L + SHIFT * sp.identity(n, format="csc")).tocsc(), permc_spec="MMD_AT_PLUS_A",
                  options={"SymmetricMode": True})
        inverse = LinearOperator((n, n), matvec=lu.solve, dtype=float)
        vals, vecs = eigsh(L, k=m, sigma=-SHIFT, which="LM", v0=v0, tol=0.0, OPinv=inverse)
        order = np.argsort(vals)
        vals, vecs = vals[order], vecs[:, order]
    return np.clip(vals, 0.0, None), vecs


def count_components(W) -> int:
    """Number of connected components of the graph with weights W."""
    graph = W if sp.issparse(W) else sp.csr_matrix(W)
    return int(connected_components(graph, directed=False)[0])


def vector_sign_flip(V: np.ndarray) -> np.ndarray:
    """Flip each column so that its largest-magnitude entry is positive (a canonical sign)."""
    if V.size == 0:
        return V
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    return V * signs[None, :]
