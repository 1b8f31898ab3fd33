"""Lloyd's algorithm on validated data: what k-means and the mixtures share.

:class:`smlengine.kmeans.KMeans` runs :func:`lloyd_steps` and turns each step into a
snapshot; :class:`smlengine.mixture.GaussianMixture` starts from its k-means++ centres, its
nearest-mean assignment (:class:`Lloyd`) or a whole k-means run; the multinomial mixtures
draw distinct starting rows and read hard labels off responsibilities the same way
(:func:`argmax_rows`, labels of :func:`label_dtype`).
"""

from __future__ import annotations

import numbers
from typing import Iterator, NamedTuple

import numpy as np

from ._base import check_scalar

__all__ = [
    "MAX_ITER",
    "MAX_RESTARTS",
    "DEFAULT_TOL",
    "DEFAULT_MAX_ITER",
    "Lloyd",
    "LloydStep",
    "argmax_rows",
    "check_k",
    "label_dtype",
    "lloyd_steps",
    "n_distinct_upto",
    "pick_distinct",
    "plusplus_centres",
    "plusplus_indices",
]

#: most centre updates per run, and most restarts, an estimator accepts
MAX_ITER = 100_000
MAX_RESTARTS = 1000
#: KMeans' default stopping rule, also that of GaussianMixture's k-means start: Σ_k ‖Δμ_k‖ below
#: DEFAULT_TOL, or DEFAULT_MAX_ITER updates
DEFAULT_TOL = 1e-4
DEFAULT_MAX_ITER = 300


def label_dtype(k: int):
    """Smallest unsigned dtype holding 0..k-1 (labels are the bulk of a snapshot)."""
    return np.uint8 if k <= 256 else (np.uint16 if k <= 65536 else np.int64)


def check_k(name: str, k, n: int) -> int:
    check_scalar(name, k, numbers.Integral, min_value=1)
    if k > n:
        raise ValueError(f"{name}={k} is larger than the number of samples ({n})")
    return int(k)


def _distinct_rows(X: np.ndarray) -> np.ndarray:
    return np.unique(X, axis=0)


def pick_distinct(X: np.ndarray, k: int, rng: np.random.Generator, what: str) -> np.ndarray:
    """k distinct rows of X chosen uniformly; a clear error when X has fewer distinct rows."""
    idx = rng.choice(X.shape[0], size=k, replace=False)
    rows = X[idx]
    if k > 1 and _distinct_rows(rows).shape[0] < k:
        # Duplicates drawn: fall back to drawing among the distinct rows (the slow path).
        uniq = _distinct_rows(X)
        if uniq.shape[0] < k:
            raise ValueError(
                f"{what}={k} is larger than the number of distinct points ({uniq.shape[0]}); "
                f"choose {what} <= {uniq.shape[0]}"
            )
        rows = uniq[rng.choice(uniq.shape[0], size=k, replace=False)]
    return np.array(rows, dtype=np.float64)


def argmax_rows(R: np.ndarray, dtype=np.intp) -> tuple[np.ndarray, np.ndarray]:
    """(argmax_k R[k, i], max_k R[k, i]) of a (K, n) array, ties to the lowest k.

    A running comparison over the K rows: numpy's argmax along axis 0 walks the array with a
    stride of n and is several times slower for the few rows we have.
    """
    best = R[0].copy()
    labels = np.zeros(R.shape[1], dtype=dtype)
    mask = np.empty(R.shape[1], dtype=bool)
    for j in range(1, R.shape[0]):
        np.greater(R[j], best, out=mask)
        np.maximum(best, R[j], out=best)
        np.copyto(labels, j, where=mask)
    return labels, best


def plusplus_indices(X: np.ndarray, k: int, rng: np.random.Generator, maps: list | None = None) -> np.ndarray:
    """The D² draws of :func:`kmeans_plusplus` on validated data; D² kept up to date in one (n,) array."""
    n = X.shape[0]
    idx = np.empty(k, dtype=np.int64)
    idx[0] = rng.integers(n)
    d = X - X[idx[0]]
    d2 = np.einsum("ij,ij->i", d, d)
    for j in range(1, k):
        total = d2.sum()
        if not total > 0:
            raise ValueError(
                f"n_clusters={k} is larger than the number of distinct points ({j}); choose n_clusters <= {j}"
            )
        if maps is not None:
            maps.append(d2 / total)
        i = int(np.searchsorted(np.cumsum(d2), rng.random() * total, side="right"))
        i = min(i, n - 1)
        while d2[i] == 0 and i > 0:  # never pick a point that is already a centre
            i -= 1
        idx[j] = i
        d = X - X[i]
        np.minimum(d2, np.einsum("ij,ij->i", d, d), out=d2)
    return idx


def plusplus_centres(X: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """The k-means++ initial centres (K, f) of validated data."""
    return np.array(X[plusplus_indices(X, k, rng)], dtype=np.float64)


def n_distinct_upto(X: np.ndarray, k: int) -> int:
    """min(k, number of distinct rows of X), in O(n k f) without sorting the data (the first
    rows, sorted, usually hold k distinct ones already: then nothing else is read)."""
    if k <= 1:
        return min(k, X.shape[0])
    if _distinct_rows(X[: 64 * k]).shape[0] >= k:
        return k
    differs = np.ones(X.shape[0], dtype=bool)
    found = 0
    while found < k:
        rest = np.flatnonzero(differs)
        if rest.size == 0:
            break
        found += 1
        differs &= np.any(X != X[rest[0]], axis=1)
    return found


class Lloyd:
    """The two Lloyd half-steps on fixed data, with the buffers reused across iterations.

    Distances use ‖x − μ‖² = ‖x‖² − 2 x·μ + ‖μ‖²; the ‖x‖² term does not change which centre
    is nearest, so the assignment needs only one BLAS product [−2μ, ‖μ‖²] · [x; 1] and a
    running minimum over the K rows. The work goes in blocks of ``_BLOCK`` points so the
    (K, block) distance matrix stays in the CPU cache, and each block also adds its points
    to the cluster sums S_k and counts n_k (a one-hot (K, block) matrix times [x; 1]) while it
    is still in cache. The objective then follows from quantities the mean update needs anyway:
    Σ_i ‖x_i − μ_{m_i}‖² = Σ_i ‖x_i‖² − 2 Σ_k μ_k·S_k + Σ_k n_k ‖μ_k‖².
    """

    _BLOCK = 32768
    #: from this many centres (and no more features than centres) a block's labels are the
    #: argmin of each point's row of K distances, and its sums weighted bincounts: the running
    #: minimum's three passes per centre cost more
    _ARGMIN_MIN_K = 10

    def __init__(self, X: np.ndarray, k: int):
        n, f = X.shape
        self.k = k
        self.n = n
        self.f = f
        self.Xa = np.empty((f + 1, n))  # [x; 1], feature-major
        self.Xa[:f] = X.T
        self.Xa[f] = 1.0
        self.X = X
        self.xx_sum = float(np.einsum("ij,ij->", X, X))
        self.best = np.empty(n)
        b = min(self._BLOCK, n)
        self.mask = np.empty(b, dtype=bool)
        self.D = np.empty((k, b))
        self.onehot = np.empty((k, b))
        self.rows = np.arange(k)[:, None]
        self.by_argmin = k >= self._ARGMIN_MIN_K and f + 1 <= k
        self.DT = np.empty((b, k)) if self.by_argmin else None  # distances point by point

    def assign(self, C: np.ndarray, labels: np.ndarray):
        """Nearest centre of every point into ``labels``; returns (partial distances, S, counts).

        The partial distance is ‖x − μ_{m}‖² − ‖x‖²; S (K, f) the cluster sums, counts (K,).
        """
        Ca = np.hstack([-2.0 * C, np.einsum("ij,ij->i", C, C)[:, None]])
        if self.by_argmin:
            return self._assign_by_argmin(Ca, labels)
        G = np.zeros((self.k, self.f + 1))
        block = self.D.shape[1]
        for s in range(0, self.n, block):
            e = min(s + block, self.n)
            m = e - s
            D = self.D[:, :m]
            np.matmul(Ca, self.Xa[:, s:e], out=D)
            best, lab, mask = self.best[s:e], labels[s:e], self.mask[:m]
            best[:] = D[0]
            lab[:] = 0
            for j in range(1, self.k):
                row = D[j]
                np.less(row, best, out=mask)
                np.minimum(best, row, out=best)
                np.copyto(lab, j, where=mask)
            oh = self.onehot[:, :m]
            np.equal(lab, self.rows, out=oh, casting="unsafe")
            G += oh @ self.Xa[:, s:e].T
        return self.best, G[:, : self.f], np.rint(G[:, self.f]).astype(np.int64)

    def _assign_by_argmin(self, Ca: np.ndarray, labels: np.ndarray):
        """:meth:`assign` for many centres: the (block, K) distances from one product, the
        labels their rows' argmin (ties to the lowest k), the sums a weighted bincount per
        feature."""
        G = np.zeros((self.k, self.f + 1))
        block, k = self.DT.shape[0], self.k
        CaT = np.ascontiguousarray(Ca.T)
        for s in range(0, self.n, block):
            e = min(s + block, self.n)
            D = self.DT[: e - s]
            np.matmul(self.Xa[:, s:e].T, CaT, out=D)
            lab = labels[s:e]
            D.argmin(axis=1, out=lab)
            self.best[s:e] = np.take_along_axis(D, lab[:, None], axis=1)[:, 0]
            for c in range(self.f + 1):
                G[:, c] += np.bincount(lab, weights=self.Xa[c, s:e], minlength=k)
        return self.best, G[:, : self.f], np.rint(G[:, self.f]).astype(np.int64)

    def inertia(self, C: np.ndarray, S: np.ndarray, counts: np.ndarray) -> float:
        val = self.xx_sum - 2.0 * float(np.sum(C * S)) + float(counts @ np.einsum("ij,ij->i", C, C))
        return max(val, 0.0)


class LloydStep(NamedTuple):
    """The state after one step of :func:`lloyd_steps` (step 0: the initial centres assigned).

    ``labels`` is the run's own array, overwritten by the next step: copy it to keep it.
    """

    n_iter: int
    centers: np.ndarray
    labels: np.ndarray
    inertia: float
    counts: np.ndarray
    center_shift: float | None
    n_changed: int
    relocated: tuple
    converged: bool


def lloyd_steps(lloyd: Lloyd, C: np.ndarray, tol: float, max_iter: int) -> Iterator[LloydStep]:
    """Lloyd's iterations from centres C until Σ_k ‖Δμ_k‖ < tol, no label changes, or max_iter updates."""
    n = lloyd.n
    labels = np.empty(n, dtype=np.intp)
    dist, S, counts = lloyd.assign(C, labels)
    J = lloyd.inertia(C, S, counts)
    yield LloydStep(0, C, labels, J, counts, None, n, (), False)
    for it in range(1, max_iter + 1):
        empty = np.flatnonzero(counts == 0)
        newC = np.empty_like(C)
        full = counts > 0
        newC[full] = S[full] / counts[full, None]
        if empty.size:
            # Move each empty centre onto the currently worst-served points (largest distance).
            sq = dist + np.einsum("ij,ij->i", lloyd.X, lloyd.X)
            far = np.argsort(sq, kind="stable")[::-1][: empty.size]
            newC[empty] = lloyd.X[far]
        shift = float(np.sqrt(((newC - C) ** 2).sum(axis=1)).sum())
        old = labels.copy()
        C = newC
        dist, S, counts = lloyd.assign(C, labels)
        J = lloyd.inertia(C, S, counts)
        changed = int(np.count_nonzero(old != labels))
        converged = shift < tol or changed == 0
        yield LloydStep(it, C, labels, J, counts, shift, changed, tuple(int(e) for e in empty), converged)
        if converged:
            return
