"""Clustering for image segmentation: k-means, multinomial and Gaussian mixtures by EM.

Segmentation as clustering: describe every pixel by a feature vector x_i (its colour, or the
histogram of grey values in a window around it, see :mod:`smlengine.features`) and cluster
the vectors into K groups; the cluster index m_i of each pixel, reshaped to the image, is the
segmentation.

Layout and memory
-----------------
Internally data are kept feature-major, ``(f, n)``, and responsibilities cluster-major,
``(K, n)``: every inner operation then runs along long contiguous rows (fast in numpy) and the
few big products go to BLAS. Public attributes have the usual scikit-learn shapes.

Snapshots of a live run must stay small because the GUI keeps a timeline of them: for a
512 × 512 image a full n × K responsibility matrix is 10 MB, so mixture snapshots carry the
hard labels (``uint8`` when K <= 255) and the largest responsibility of every pixel
(``float32``, 1 MB), not the whole matrix. The fitted model has ``responsibilities_`` in full.

Choosing K
----------
:meth:`MultinomialMixture.bic` / :meth:`GaussianMixture.bic` give BIC = −2 log L + m log n,
:meth:`MultinomialMixture.dispersion` how much more the counts vary than a multinomial of
independent draws allows (for an honest BIC on histograms of neighbouring pixels), and
:func:`stability` the instability and the prediction strength of clustering two random halves.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
from scipy.special import gammaln

from ._base import (
    BaseEstimator,
    IterativeMixin,
    Snapshot,
    check_array,
    check_choice,
    check_random_state,
    check_scalar,
    frozen_array,
)

__all__ = [
    "KMeans",
    "KMeansSnapshot",
    "RestartsSnapshot",
    "kmeans_plusplus_probabilities",
    "kmeans_restarts",
    "MultinomialMixture",
    "MultinomialMixtureSnapshot",
    "GaussianMixture",
    "GaussianMixtureSnapshot",
    "stability",
    "stability_steps",
    "StabilityResult",
    "StabilitySnapshot",
    "prediction_strength",
    "strongest_k",
]


# ----------------------------------------------------------------------------- helpers


def _label_dtype(k: int):
    """Smallest unsigned dtype holding 0..k-1 (labels are the bulk of a snapshot)."""
    return np.uint8 if k <= 256 else (np.uint16 if k <= 65536 else np.int64)


def _check_k(name: str, k, n: int) -> int:
    check_scalar(name, k, numbers.Integral, min_value=1)
    if k > n:
        raise ValueError(f"{name}={k} is larger than the number of samples ({n})")
    return int(k)


def _distinct_rows(X: np.ndarray) -> np.ndarray:
    return np.unique(X, axis=0)


def _pick_distinct(X: np.ndarray, k: int, rng: np.random.Generator, what: str) -> np.ndarray:
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


def _argmax_rows(R: np.ndarray, dtype=np.intp) -> tuple[np.ndarray, np.ndarray]:
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


def _relative_change(new: float, old: float) -> float:
    return abs(new - old) / max(abs(new), 1e-300)


# ----------------------------------------------------------------------------- k-means


@dataclass(frozen=True, kw_only=True)
class KMeansSnapshot(Snapshot):
    """State of k-means after one iteration (step 0: the initial centres and their assignment).

    Attributes
    ----------
    centers : ndarray (K, f) -- the centres μ_k of this step
    labels : ndarray (n,) of uint8 (uint16 for K > 256) -- m_i, index of the nearest centre
    inertia : float -- the objective Σ_i ‖x_i − μ_{m_i}‖² (never increases)
    counts : ndarray (K,) of int -- points per cluster
    center_shift : float -- Σ_k ‖μ_k^(j) − μ_k^(j−1)‖ (the stopping quantity; inf at step 0)
    n_changed : int -- points whose label changed in this step (n at step 0)
    relocated : tuple of int -- clusters that were empty and got a new centre this step
    n_iter : int -- centre updates done in this restart
    converged : bool -- center_shift < tol or no label changed
    restart : int -- index of the restart (0-based; ``n_init`` runs restarts in turn)
    """

    centers: np.ndarray
    labels: np.ndarray
    inertia: float
    counts: np.ndarray
    center_shift: float
    n_changed: int
    relocated: tuple = ()
    n_iter: int = 0
    converged: bool = False
    restart: int = 0


@dataclass(frozen=True, kw_only=True)
class RestartsSnapshot(Snapshot):
    """Progress of :func:`kmeans_restarts`: one snapshot per k-means iteration of any restart.

    Attributes
    ----------
    inertias : ndarray (r,) -- final objective of each finished restart, in order
    n_iters : ndarray (r,) of int -- iterations each finished restart took
    n_distinct : int -- distinct final solutions so far (centres equal up to relabelling)
    solution_ids : ndarray (r,) of int -- which distinct solution each restart reached
    best_index : int -- restart with the lowest objective so far (-1 before the first)
    best_centers : ndarray (K, f) or None -- its centres
    current_restart : int -- restart in progress (== n when all are done)
    current_inertia : float -- objective of the restart in progress (nan when none)
    """

    inertias: np.ndarray
    n_iters: np.ndarray
    n_distinct: int
    solution_ids: np.ndarray
    best_index: int
    best_centers: np.ndarray | None
    current_restart: int
    current_inertia: float


def kmeans_plusplus_probabilities(X, centers) -> np.ndarray:
    """The k-means++ (D²) sampling probabilities given the centres chosen so far.

    p_i = D(x_i)² / Σ_l D(x_l)², with D(x) the distance to the nearest chosen centre: points
    far from every centre are likely to become the next one. With no centre yet (an empty
    ``centers``) the first centre is drawn uniformly, p_i = 1/n.

    Parameters
    ----------
    X : array (n, f)
    centers : array (c, f), c >= 0

    Returns
    -------
    p : ndarray (n,), sums to one (all zeros when every point is already a centre -- then no
        further distinct centre exists)
    """
    X = check_array(X)
    C = np.asarray(centers, dtype=np.float64)
    if C.size == 0:
        return np.full(X.shape[0], 1.0 / X.shape[0])
    C = check_array(C.reshape(-1, X.shape[1]) if C.ndim == 1 else C, name="centers", n_features=X.shape[1])
    d2 = _min_sq_dist(X, C)
    total = d2.sum()
    return d2 / total if total > 0 else np.zeros_like(d2)


def _min_sq_dist(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared distance of every row of X to its nearest row of C (exact differences, no expansion)."""
    best = np.full(X.shape[0], np.inf)
    for c in C:
        d = X - c
        np.minimum(best, np.einsum("ij,ij->i", d, d), out=best)
    return best


def _kmeans_plusplus(X: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Arthur & Vassilvitskii's seeding: first centre uniform, then each by D² sampling."""
    n = X.shape[0]
    centers = np.empty((k, X.shape[1]))
    centers[0] = X[rng.integers(n)]
    d = X - centers[0]
    d2 = np.einsum("ij,ij->i", d, d)
    for j in range(1, k):
        total = d2.sum()
        if not total > 0:
            raise ValueError(
                f"n_clusters={k} is larger than the number of distinct points ({j}); choose n_clusters <= {j}"
            )
        i = int(np.searchsorted(np.cumsum(d2), rng.random() * total, side="right"))
        i = min(i, n - 1)
        while d2[i] == 0 and i > 0:  # never pick a point that is already a centre
            i -= 1
        centers[j] = X[i]
        d = X - centers[j]
        np.minimum(d2, np.einsum("ij,ij->i", d, d), out=d2)
    return centers


class _Lloyd:
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

    def assign(self, C: np.ndarray, labels: np.ndarray):
        """Nearest centre of every point into ``labels``; returns (partial distances, S, counts).

        The partial distance is ‖x − μ_{m}‖² − ‖x‖²; S (K, f) the cluster sums, counts (K,).
        """
        Ca = np.hstack([-2.0 * C, np.einsum("ij,ij->i", C, C)[:, None]])
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

    def inertia(self, C: np.ndarray, S: np.ndarray, counts: np.ndarray) -> float:
        val = self.xx_sum - 2.0 * float(np.sum(C * S)) + float(counts @ np.einsum("ij,ij->i", C, C))
        return max(val, 0.0)


class KMeans(IterativeMixin, BaseEstimator):
    """k-means clustering by Lloyd's algorithm, with restarts.

    Choose K centres μ_k, then repeat

    1. assignment: m_i = argmin_k ‖x_i − μ_k‖² (ties go to the lowest k);
    2. update: μ_k = mean of the points with m_i = k;

    until Σ_k ‖μ_k^(j+1) − μ_k^(j)‖ < τ (``tol``) or no label changes. The objective
    J = Σ_i ‖x_i − μ_{m_i}‖² never increases: step 1 minimises it over the labels, step 2
    over the centres. A cluster that becomes empty has its centre moved to the point that is
    currently worst served (largest distance to its centre), as scikit-learn does; this cannot
    increase J either. With ``n_init > 1`` the runs start from different seeds and the one
    with the lowest J is kept.

    Parameters
    ----------
    n_clusters : int, K >= 1
    init : {'random', 'k-means++'} or array (K, f)
        ``'random'``: K distinct data points chosen uniformly; ``'k-means++'``: D² seeding
        (see :func:`kmeans_plusplus_probabilities`); an array: these initial centres
        (then ``n_init`` must be 1).
    n_init : int >= 1
    tol : float >= 0, τ of the stopping rule (absolute, in feature units)
    max_iter : int >= 1, centre updates per restart
    random_state : None, int or numpy Generator

    Attributes
    ----------
    cluster_centers_ : ndarray (K, f)
    labels_ : ndarray (n,) of int64
    inertia_ : float -- J of the final centres and labels
    n_iter_ : int -- centre updates of the kept run
    objective_ : list of float -- J at every step of the kept run (step 0 first)
    last_snapshot_ : KMeansSnapshot

    Restarts for the lab: :meth:`restarts` (or :func:`kmeans_restarts`) runs n seeded
    restarts and reports the spread of final objectives and the number of distinct solutions.
    """

    def __init__(self, n_clusters=3, *, init="k-means++", n_init=1, tol=1e-4, max_iter=300, random_state=None):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    # -- validation --------------------------------------------------------------------
    def _validate(self, X):
        X = check_array(X)
        k = _check_k("n_clusters", self.n_clusters, X.shape[0])
        check_scalar("n_init", self.n_init, numbers.Integral, min_value=1)
        check_scalar("tol", self.tol, numbers.Real, min_value=0.0)
        check_scalar("max_iter", self.max_iter, numbers.Integral, min_value=1)
        if isinstance(self.init, str):
            check_choice("init", self.init, ("random", "k-means++"))
            init = self.init
        else:
            init = np.asarray(self.init, dtype=np.float64)
            if init.shape != (k, X.shape[1]):
                raise ValueError(
                    f"init centres must have shape (n_clusters, n_features) = {(k, X.shape[1])}, got {init.shape}"
                )
            if not np.all(np.isfinite(init)):
                raise ValueError("init centres contain NaN or infinite values")
            if self.n_init != 1:
                raise ValueError(f"with explicit init centres n_init must be 1, got {self.n_init}")
        return X, k, init

    def _initial_centers(self, X, k, init, rng) -> np.ndarray:
        if isinstance(init, np.ndarray):
            return init.copy()
        if init == "random":
            return _pick_distinct(X, k, rng, "n_clusters")
        return _kmeans_plusplus(X, k, rng)

    # -- the run -------------------------------------------------------------------------
    def fit_steps(self, X) -> Iterator[KMeansSnapshot]:
        """Run k-means, yielding one :class:`KMeansSnapshot` per iteration.

        Yields
        ------
        KMeansSnapshot
            Step 0: the initial centres with their assignment; then one snapshot per
            (update, assignment) pair. With ``n_init > 1`` the restarts follow each other
            (``restart`` field, phase ``'restart r/n'``) and a final snapshot repeats the
            best run's end state (phase ``'best'``). The last snapshot equals the fitted state.
        """
        X, k, init = self._validate(X)
        rng = check_random_state(self.random_state)
        lloyd = _Lloyd(X, k)
        best = None
        step = 0
        for r in range(self.n_init):
            phase = f"restart {r + 1}/{self.n_init}" if self.n_init > 1 else "k-means"
            C = self._initial_centers(X, k, init, rng)
            run = _kmeans_run(lloyd, C, float(self.tol), int(self.max_iter), r, phase)
            history = []
            snap = None
            for snap in run:
                history.append(snap.inertia)
                yield _restep(snap, step)
                step += 1
            if best is None or snap.inertia < best[0].inertia:
                best = (snap, history)
        snap, history = best
        if self.n_init > 1:
            snap = _restep(snap, step, phase="best")
            yield snap
        self.cluster_centers_ = np.array(snap.centers)
        self.labels_ = snap.labels.astype(np.int64)
        self.inertia_ = snap.inertia
        self.n_iter_ = snap.n_iter
        self.objective_ = history
        self.n_features_in_ = X.shape[1]

    def predict(self, X) -> np.ndarray:
        """Index of the nearest centre for each row of X."""
        self._check_fitted("cluster_centers_")
        X = check_array(X, n_features=self.n_features_in_)
        lloyd = _Lloyd(X, self.cluster_centers_.shape[0])
        labels = np.empty(X.shape[0], dtype=np.intp)
        lloyd.assign(self.cluster_centers_, labels)
        return labels.astype(np.int64)

    def fit_predict(self, X) -> np.ndarray:
        return self.fit(X).labels_

    def restarts(self, X, n: int = 20) -> RestartsSnapshot:
        """Run ``n`` seeded restarts with this model's parameters; see :func:`kmeans_restarts`."""
        return kmeans_restarts(
            X, self.n_clusters, n_restarts=n, init=self.init if isinstance(self.init, str) else "k-means++",
            tol=self.tol, max_iter=self.max_iter, random_state=self.random_state,
        )


def _restep(snap: KMeansSnapshot, step: int, phase: str | None = None) -> KMeansSnapshot:
    from dataclasses import replace

    return replace(snap, step=step, phase=snap.phase if phase is None else phase)


def _kmeans_run(lloyd: _Lloyd, C: np.ndarray, tol: float, max_iter: int, restart: int, phase: str):
    """One Lloyd run from centres C; yields snapshots with step numbers local to the run."""
    k, n = lloyd.k, lloyd.n
    ldt = _label_dtype(k)
    labels = np.empty(n, dtype=np.intp)
    dist, S, counts = lloyd.assign(C, labels)
    J = lloyd.inertia(C, S, counts)
    yield KMeansSnapshot(
        step=0, phase=phase, centers=frozen_array(C), labels=frozen_array(labels, dtype=ldt), inertia=J,
        counts=frozen_array(counts), center_shift=math.inf, n_changed=n, n_iter=0, converged=False,
        restart=restart,
    )
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
        yield KMeansSnapshot(
            step=it, phase=phase, centers=frozen_array(C), labels=frozen_array(labels, dtype=ldt), inertia=J,
            counts=frozen_array(counts), center_shift=shift, n_changed=changed,
            relocated=tuple(int(e) for e in empty), n_iter=it, converged=converged, restart=restart,
        )
        if converged:
            return


def _same_solution(A: np.ndarray, B: np.ndarray, scale: float) -> bool:
    """Centres equal up to a relabelling (matched by linear_sum_assignment)."""
    from scipy.optimize import linear_sum_assignment

    cost = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2))
    r, c = linear_sum_assignment(cost)
    return bool(cost[r, c].max() <= 1e-6 * scale)


def kmeans_restarts(X, n_clusters=3, *, n_restarts=20, init="k-means++", tol=1e-4, max_iter=300,
                    random_state=None, steps: bool = False):
    """Run k-means ``n_restarts`` times from seeded initialisations and compare the results.

    Restart r uses the seed ``seeds[r]`` drawn once from ``random_state``, so the same
    ``random_state`` replays the same restarts. Two restarts reach the *same* solution when
    their centres coincide up to a relabelling (within 1e-6 of the data's scale).

    Parameters
    ----------
    X : array (n, f)
    n_clusters, init, tol, max_iter : as in :class:`KMeans` (init 'random' or 'k-means++')
    n_restarts : int >= 1
    random_state : None, int or Generator
    steps : bool
        False: return the final :class:`RestartsSnapshot`. True: return a generator yielding a
        :class:`RestartsSnapshot` after every k-means iteration (progress = fraction of
        restarts done), for a live lab; its last item is the final summary.
    """
    gen = _restarts_steps(X, n_clusters, n_restarts, init, tol, max_iter, random_state)
    if steps:
        return gen
    last = None
    for last in gen:
        pass
    return last


def _restarts_steps(X, n_clusters, n_restarts, init, tol, max_iter, random_state):
    X = check_array(X)
    check_scalar("n_restarts", n_restarts, numbers.Integral, min_value=1)
    if not isinstance(init, str):
        raise ValueError("restarts need a random init ('random' or 'k-means++'), not fixed centres")
    model = KMeans(n_clusters, init=init, tol=tol, max_iter=max_iter)
    X, k, init = model._validate(X)
    rng = check_random_state(random_state)
    seeds = rng.integers(0, 2**31 - 1, size=n_restarts)
    lloyd = _Lloyd(X, k)
    scale = float(np.abs(X).max()) or 1.0
    inertias: list[float] = []
    iters: list[int] = []
    ids: list[int] = []
    reps: list[np.ndarray] = []
    best_i = -1
    step = 0

    def snapshot(current, cur_J, progress):
        return RestartsSnapshot(
            step=step, phase="restarts", progress=progress, inertias=frozen_array(inertias, dtype=np.float64),
            n_iters=frozen_array(iters, dtype=np.int64), n_distinct=len(reps),
            solution_ids=frozen_array(ids, dtype=np.int64), best_index=best_i,
            best_centers=None if best_i < 0 else frozen_array(best_centers), current_restart=current,
            current_inertia=cur_J,
        )

    best_centers = None
    for r in range(n_restarts):
        C = model._initial_centers(X, k, init, np.random.default_rng(int(seeds[r])))
        snap = None
        for snap in _kmeans_run(lloyd, C, float(tol), int(max_iter), r, "restarts"):
            yield snapshot(r, snap.inertia, (r + min(snap.n_iter / 30.0, 0.95)) / n_restarts)
            step += 1
        inertias.append(snap.inertia)
        iters.append(snap.n_iter)
        cen = np.array(snap.centers)
        for j, rep in enumerate(reps):
            if _same_solution(rep, cen, scale):
                ids.append(j)
                break
        else:
            ids.append(len(reps))
            reps.append(cen)
        if best_i < 0 or snap.inertia < inertias[best_i]:
            best_i, best_centers = r, cen
    yield snapshot(n_restarts, math.nan, 1.0)


# ----------------------------------------------------------------------------- mixtures (shared)


class _MixtureBase(IterativeMixin, BaseEstimator):
    """Shared EM driver: E-step, M-step, log-likelihood bookkeeping, predict and BIC."""

    def _check_common(self):
        check_scalar("tol", self.tol, numbers.Real, min_value=0.0)
        check_scalar("max_iter", self.max_iter, numbers.Integral, min_value=0)

    def predict(self, X) -> np.ndarray:
        """Hard segmentation m_i = argmax_k a_ik."""
        L = self._log_joint(self._check_X(X, fitted=True))
        return _argmax_rows(L, np.int64)[0]

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
    weights : ndarray (K,) -- mixture weights c_k
    probabilities : ndarray (K, d) -- bin probabilities t_k (rows on the simplex)
    labels : ndarray (n,) of uint8 (uint16 for K > 256) -- hard segmentation argmax_k a_ik
    confidence : ndarray (n,) of float32 -- max_k a_ik (1 = certain; 1/K = undecided)
    log_likelihood : float -- the monitored objective, never decreases: the data
        log-likelihood Σ_i log π(H_i) plus ``log_prior`` (see :class:`MultinomialMixture`)
    log_prior : float -- α Σ_k Σ_j log t_kj (0 when pseudocount = 0); the plain data
        log-likelihood is ``log_likelihood - log_prior``
    relative_change : float -- |ℓ_j − ℓ_{j−1}| / |ℓ_j| (inf at step 0)
    n_iter : int
    converged : bool
    """

    weights: np.ndarray
    probabilities: np.ndarray
    labels: np.ndarray
    confidence: np.ndarray
    log_likelihood: float
    log_prior: float
    relative_change: float
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
    tol : float >= 0 -- relative change of ℓ to stop
    max_iter : int >= 0 -- EM iterations (0: only the initial state)
    pseudocount : float >= 0, α (default 0.01)
    init : {'random'} -- t_k from K distinct random histograms smoothed by +1, c_k = 1/K
    weights_init, probabilities_init : arrays (K,), (K, d), optional -- start from these
    random_state : None, int or Generator

    Attributes
    ----------
    weights_ : (K,), probabilities_ : (K, d), responsibilities_ : (n, K) of the training data
    labels_ : (n,) int64 -- argmax_k a_ik
    log_likelihood_ : list of float, one per step (step 0 first), non-decreasing
    n_iter_ : int, converged_ : bool, last_snapshot_ : MultinomialMixtureSnapshot
    """

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
        parts : sequence of int, optional -- bin counts of the histograms a row is made of
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
        Xt = self._check_X(X)
        d, n = Xt.shape
        k = _check_k("n_components", self.n_components, n)
        self._check_common()
        check_scalar("pseudocount", self.pseudocount, numbers.Real, min_value=0.0)
        check_choice("init", self.init, ("random",))
        alpha = float(self.pseudocount)
        rng = check_random_state(self.random_state)
        c, T = self._initial(Xt, k, rng)
        const = float(self._log_const(Xt).sum())
        ldt = _label_dtype(k)
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
        yield self._snapshot(0, c, T, R, ll, prior, math.inf, 0, False, ldt)
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
        self.labels_ = _argmax_rows(R, np.int64)[0]
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
            rows = _pick_distinct(Xt.T, k, rng, "n_components")
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
        labels, conf = _argmax_rows(R, ldt)
        labels.setflags(write=False)
        return MultinomialMixtureSnapshot(
            step=step, phase="EM", weights=frozen_array(c), probabilities=frozen_array(T),
            labels=labels, confidence=frozen_array(conf, dtype=np.float32),
            log_likelihood=ll, log_prior=prior, relative_change=change, n_iter=it, converged=converged,
        )


# ----------------------------------------------------------------------------- Gaussian mixture


@dataclass(frozen=True, kw_only=True)
class GaussianMixtureSnapshot(Snapshot):
    """State of EM for the Gaussian mixture after one iteration.

    Attributes
    ----------
    weights : ndarray (K,) -- c_k
    means : ndarray (K, f) -- μ_k
    covariances : ndarray (K, f, f) -- Σ_k (``reg_covar`` already added)
    labels : ndarray (n,) of uint8 (uint16 for K > 256) -- argmax_k a_ik
    confidence : ndarray (n,) of float32 -- max_k a_ik
    log_likelihood : float -- Σ_i log Σ_k c_k g(x_i | μ_k, Σ_k) of this snapshot's parameters
    relative_change : float -- |ℓ_j − ℓ_{j−1}| / |ℓ_j| (inf at step 0)
    n_iter : int
    converged : bool
    """

    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray
    labels: np.ndarray
    confidence: np.ndarray
    log_likelihood: float
    relative_change: float
    n_iter: int
    converged: bool


class GaussianMixture(_MixtureBase):
    """Gaussian mixture with full covariances, fitted by EM (e.g. on pixel colours).

    Model: π(x) = Σ_k c_k g(x | μ_k, Σ_k). EM:

    * E-step: a_ik = c_k g(x_i | μ_k, Σ_k) / Σ_l c_l g(x_i | μ_l, Σ_l) (log space);
    * M-step: n_k = Σ_i a_ik, c_k = n_k / n, μ_k = Σ_i a_ik x_i / n_k,
      Σ_k = Σ_i a_ik (x_i − μ_k)(x_i − μ_k)ᵀ / n_k + ``reg_covar`` · I.

    The log-likelihood ℓ = Σ_i log π(x_i) never decreases (up to the tiny ``reg_covar``
    term); stop when its relative change is below ``tol``. As in scikit-learn, n_k gets
    10 ε added so an empty component gives a zero mean and covariance ``reg_covar`` · I
    instead of 0/0.

    Parameters
    ----------
    n_components : int, K >= 1
    tol : float >= 0 -- relative change of ℓ to stop
    max_iter : int >= 0 -- EM iterations (0: only the initial state)
    reg_covar : float >= 0 -- added to every covariance diagonal; raise it when a component
        collapses onto identical points (a singular covariance)
    init_params : {'kmeans', 'random'}
        'kmeans': one k-means++ fit, then weights/means/covariances of its clusters;
        'random': K distinct random points as means, the data covariance for all, c_k = 1/K.
    weights_init, means_init, covariances_init : arrays (K,), (K, f), (K, f, f), optional
        Start from these. Missing pieces are estimated from the hard assignment of every
        point to its nearest initial mean (or from ``init_params`` when no mean is given).
    random_state : None, int or Generator

    Attributes
    ----------
    weights_ (K,), means_ (K, f), covariances_ (K, f, f), responsibilities_ (n, K),
    labels_ (n,) int64, log_likelihood_ list (one per step, step 0 first), n_iter_,
    converged_, last_snapshot_
    """

    def __init__(self, n_components=3, *, tol=1e-6, max_iter=200, reg_covar=1e-6, init_params="kmeans",
                 weights_init=None, means_init=None, covariances_init=None, random_state=None):
        self.n_components = n_components
        self.tol = tol
        self.max_iter = max_iter
        self.reg_covar = reg_covar
        self.init_params = init_params
        self.weights_init = weights_init
        self.means_init = means_init
        self.covariances_init = covariances_init
        self.random_state = random_state

    def _check_X(self, X, fitted=False) -> np.ndarray:
        """Validated data as the design matrix of monomials F (1 + f + f(f+1)/2, n), see _design."""
        if fitted:
            self._check_fitted("means_")
        X = check_array(X, n_features=self.means_.shape[1] if fitted else None)
        if not fitted:
            self._center = X.mean(axis=0)
        return _design(X, self._center)

    def _n_parameters(self) -> int:
        k, f = self.means_.shape
        return (k - 1) + k * f + k * f * (f + 1) // 2

    @staticmethod
    def _log_const(F: np.ndarray) -> float:
        return 0.0

    def _precisions(self, covariances: np.ndarray):
        """Λ_k = Σ_k⁻¹ and log det Σ_k^{-1/2} via Cholesky; a clear error when Σ_k is singular."""
        from scipy.linalg import solve_triangular

        k, f, _ = covariances.shape
        prec = np.empty_like(covariances)
        half_logdet = np.empty(k)
        for j in range(k):
            try:
                Lc = np.linalg.cholesky(covariances[j])
            except np.linalg.LinAlgError:
                raise ValueError(
                    f"the covariance of component {j} is singular (its points have (almost) no spread in some "
                    f"direction, e.g. a flat colour patch or too few points); increase reg_covar "
                    f"(now {self.reg_covar:g}), use fewer components, or other features"
                ) from None
            P = solve_triangular(Lc, np.eye(f), lower=True)  # L⁻¹, so Λ = L⁻ᵀ L⁻¹
            prec[j] = P.T @ P
            half_logdet[j] = np.log(np.diagonal(P)).sum()
        return prec, half_logdet

    def _log_joint(self, F: np.ndarray, cache=None) -> np.ndarray:
        """(K, n): log c_k + log g(x_i | μ_k, Σ_k) for every point, as ONE product W F.

        With centred x and Λ = Σ⁻¹, −½ (x − μ)ᵀ Λ (x − μ) = −½ μᵀΛμ + (Λμ)·x − ½ Σ_{a≤b} w_ab x_a x_b
        (w_aa = Λ_aa, w_ab = 2 Λ_ab): linear in the monomials [1, x, x_a x_b] of ``F``, so
        the log density of all K components is a (K, 1 + f + f(f+1)/2) × (…, n) BLAS product.
        """
        k, f = self.means_.shape
        prec, half_logdet = cache if cache is not None else self._precisions(self.covariances_)
        mu = self.means_ - self._center
        a, b = np.triu_indices(f)
        W = np.empty((k, F.shape[0]))
        lm = np.einsum("kab,kb->ka", prec, mu)
        with np.errstate(divide="ignore"):
            logc = np.log(self.weights_)
        W[:, 0] = logc + half_logdet - 0.5 * f * math.log(2.0 * math.pi) - 0.5 * np.einsum("ka,ka->k", lm, mu)
        W[:, 1:1 + f] = lm
        W[:, 1 + f:] = -0.5 * np.where(a == b, 1.0, 2.0) * prec[:, a, b]
        return W @ F

    def _m_step(self, F: np.ndarray, R: np.ndarray, reg: float):
        """Weights, means and covariances from the responsibilities, via G = R Fᵀ.

        G holds n_k, Σ_i a_ik x_i and Σ_i a_ik x_a x_b for every k (one BLAS product), and
        Σ_i a_ik (x_i − μ_k)(x_i − μ_k)ᵀ = S2 − μ S1ᵀ − S1 μᵀ + n_k μ μᵀ. The data are centred
        first, so this shortcut loses no accuracy worth mentioning for image features.
        """
        k = R.shape[0]
        n = F.shape[1]
        f = self._center.size
        G = (F @ R.T).T  # (K, 1 + f + p); this operand order is the faster BLAS call
        nk_raw = G[:, 0]
        nk = nk_raw + 10.0 * np.finfo(float).eps
        S1 = G[:, 1:1 + f]
        mu = S1 / nk[:, None]
        a, b = np.triu_indices(f)
        S2 = np.zeros((k, f, f))
        S2[:, a, b] = G[:, 1 + f:]
        S2[:, b, a] = G[:, 1 + f:]
        outer = np.einsum("ka,kb->kab", mu, S1)
        cov = (S2 - outer - outer.transpose(0, 2, 1) + nk_raw[:, None, None] * np.einsum("ka,kb->kab", mu, mu))
        cov /= nk[:, None, None]
        cov = 0.5 * (cov + cov.transpose(0, 2, 1))
        cov[:, np.arange(f), np.arange(f)] += reg
        return nk / n, mu + self._center, cov

    def _initial(self, F: np.ndarray, X: np.ndarray, k: int, rng):
        n, f = X.shape
        reg = float(self.reg_covar)
        means = None
        if self.means_init is not None:
            means = np.asarray(self.means_init, dtype=np.float64)
            if means.shape != (k, f) or not np.all(np.isfinite(means)):
                raise ValueError(f"means_init must be a finite array of shape {(k, f)}, got {means.shape}")
            labels = np.empty(n, dtype=np.intp)
            _Lloyd(X, k).assign(means, labels)
        elif self.init_params == "kmeans":
            km = KMeans(k, init="k-means++", tol=1e-3, max_iter=30, random_state=rng).fit(X)
            labels = km.labels_
        else:
            means = _pick_distinct(X, k, rng, "n_components")
            labels = None
        if labels is not None:
            R = np.zeros((k, n))
            R[labels, np.arange(n)] = 1.0
            c, mu, cov = self._m_step(F, R, reg)
            if means is None:
                means = mu
        else:
            c = np.full(k, 1.0 / k)
            cov = np.repeat((np.cov(X.T, bias=True).reshape(f, f) + reg * np.eye(f))[None], k, axis=0)
        if self.weights_init is not None:
            c = np.asarray(self.weights_init, dtype=np.float64)
            if c.shape != (k,) or not np.all(np.isfinite(c)) or c.min() < 0 or c.sum() <= 0:
                raise ValueError(f"weights_init must be {k} non-negative numbers with a positive sum")
            c = c / c.sum()
        if self.covariances_init is not None:
            cov = np.asarray(self.covariances_init, dtype=np.float64)
            if cov.shape != (k, f, f) or not np.all(np.isfinite(cov)):
                raise ValueError(f"covariances_init must be a finite array of shape {(k, f, f)}, got {cov.shape}")
            if not np.allclose(cov, cov.transpose(0, 2, 1)):
                raise ValueError("covariances_init must be symmetric")
            cov = cov.copy()
        return c, means, cov

    def fit_steps(self, X) -> Iterator[GaussianMixtureSnapshot]:
        """Run EM, yielding one :class:`GaussianMixtureSnapshot` per iteration.

        Yields
        ------
        GaussianMixtureSnapshot
            Step 0: the initial parameters with their E-step (with ``init_params='kmeans'``
            step 0 includes one k-means fit); step j: after the j-th M-step and the following
            E-step. The last snapshot equals the fitted state.
        """
        X = check_array(X)
        n, f = X.shape
        k = _check_k("n_components", self.n_components, n)
        self._check_common()
        check_scalar("reg_covar", self.reg_covar, numbers.Real, min_value=0.0)
        check_choice("init_params", self.init_params, ("kmeans", "random"))
        rng = check_random_state(self.random_state)
        reg = float(self.reg_covar)
        ldt = _label_dtype(k)
        for name in ("means_", "weights_", "covariances_"):
            self.__dict__.pop(name, None)
        F = self._check_X(X)
        c, mu, cov = self._initial(F, X, k, rng)

        def estep():
            cache = self._precisions(cov)
            self.weights_, self.means_, self.covariances_ = c, mu, cov
            L = self._log_joint(F, cache)
            return L, float(_logsumexp_rows(L).sum())

        R, ll = estep()
        history = [ll]
        converged = False
        yield self._snapshot(0, c, mu, cov, R, ll, math.inf, 0, False, ldt)
        it = 0
        for it in range(1, int(self.max_iter) + 1):
            c, mu, cov = self._m_step(F, R, reg)
            R, ll = estep()
            change = _relative_change(ll, history[-1])
            history.append(ll)
            converged = change < self.tol
            yield self._snapshot(it, c, mu, cov, R, ll, change, it, converged, ldt)
            if converged:
                break
        self.responsibilities_ = R.T
        self.labels_ = _argmax_rows(R, np.int64)[0]
        self.log_likelihood_ = history
        self.n_iter_ = it
        self.converged_ = converged
        self.n_features_in_ = f

    @staticmethod
    def _snapshot(step, c, mu, cov, R, ll, change, it, converged, ldt):
        labels, conf = _argmax_rows(R, ldt)
        labels.setflags(write=False)
        return GaussianMixtureSnapshot(
            step=step, phase="EM", weights=frozen_array(c), means=frozen_array(mu), covariances=frozen_array(cov),
            labels=labels, confidence=frozen_array(conf, dtype=np.float32),
            log_likelihood=ll, relative_change=change, n_iter=it, converged=converged,
        )


def _design(X: np.ndarray, center: np.ndarray) -> np.ndarray:
    """Monomials [1, x, x_a x_b (a <= b)] of the centred data, feature-major (1 + f + f(f+1)/2, n)."""
    n, f = X.shape
    a, b = np.triu_indices(f)
    F = np.empty((1 + f + a.size, n))
    F[0] = 1.0
    F[1:1 + f] = (X - center).T
    F[1 + f:] = F[1 + a] * F[1 + b]
    return F


# ----------------------------------------------------------------------------- stability


@dataclass(frozen=True)
class StabilityResult:
    """Instability of clustering for each K (lower is more stable).

    Attributes
    ----------
    ks : ndarray of int
    instability : ndarray -- mean over splits of the disagreement fraction, per K
    std : ndarray -- its standard deviation over splits
    scores : ndarray (len(ks), n_splits) -- every split's disagreement
    strength : ndarray -- mean over splits of the prediction strength, per K (see
        :func:`prediction_strength`; higher is more stable)
    strength_scores : ndarray (len(ks), n_splits) -- every split's prediction strength
    """

    ks: np.ndarray
    instability: np.ndarray
    std: np.ndarray
    scores: np.ndarray
    strength: np.ndarray | None = None
    strength_scores: np.ndarray | None = None

    @property
    def strength_lower(self) -> np.ndarray:
        """Mean prediction strength minus its standard error over the splits, per K
        (s / √splits with s the splits' sample standard deviation; the mean for one split)."""
        S = np.asarray(self.strength_scores, dtype=np.float64)
        if S.shape[1] < 2:
            return np.asarray(self.strength, dtype=np.float64)
        return S.mean(axis=1) - S.std(axis=1, ddof=1) / math.sqrt(S.shape[1])

    def chosen_k(self, threshold: float = 0.8) -> int:
        """The largest K whose prediction strength is at least ``threshold`` by a margin of one
        standard error (:attr:`strength_lower`; see :func:`strongest_k`)."""
        return strongest_k(self.ks, self.strength_lower, threshold)


@dataclass(frozen=True, kw_only=True)
class StabilitySnapshot(Snapshot):
    """Progress of :func:`stability_steps`: one snapshot per finished split.

    ``scores`` (disagreement) and ``strength`` (prediction strength) are (len(ks), n_splits)
    with NaN where a split is not done yet; ``k`` and ``split`` name the pair just finished;
    the last snapshot also has ``result``.
    """

    scores: np.ndarray
    k: int
    split: int
    result: StabilityResult | None = None
    strength: np.ndarray | None = None


def _disagreement(a: np.ndarray, b: np.ndarray) -> float:
    """Fraction of points labelled differently, minimised over relabellings of b."""
    from scipy.optimize import linear_sum_assignment

    ka, kb = int(a.max()) + 1, int(b.max()) + 1
    conf = np.zeros((ka, kb))
    np.add.at(conf, (a, b), 1.0)
    r, c = linear_sum_assignment(conf, maximize=True)
    return 1.0 - conf[r, c].sum() / a.size


def prediction_strength(test_labels, train_labels) -> float:
    """Prediction strength of a clustering of a test half (Tibshirani and Walther 2005).

    ``test_labels`` are the clusters of the test points found by a model fitted on the test
    half itself, ``train_labels`` those the model fitted on the *other* half gives the same
    points. For every test cluster A_j, the fraction of its pairs of points that the other
    half's model also puts together,

        ps_j = Σ_m c_jm (c_jm − 1) / (n_j (n_j − 1)),   c_jm = #{i ∈ A_j : train_labels_i = m},

    and the prediction strength is the smallest, min_j ps_j (clusters of one point are
    skipped). It is near 1 when both halves find the same groups or one merges groups of the
    other (a K below the true one), and drops towards 1/2 as soon as K splits a group in two
    at a place that depends on the sample (a K above the true one).
    """
    a = np.asarray(test_labels, dtype=np.int64).ravel()
    b = np.asarray(train_labels, dtype=np.int64).ravel()
    if a.shape != b.shape or a.size == 0:
        raise ValueError(f"test_labels and train_labels must be two labelings of the same points, "
                         f"got {a.size} and {b.size} labels")
    ka, kb = int(a.max()) + 1, int(b.max()) + 1
    C = np.bincount(a * kb + b, minlength=ka * kb).reshape(ka, kb).astype(np.float64)
    nj = C.sum(axis=1)
    ok = nj > 1
    if not ok.any():
        return 1.0
    together = (C * (C - 1.0)).sum(axis=1)
    return float(np.min(together[ok] / (nj[ok] * (nj[ok] - 1.0))))


def strongest_k(ks, strength, threshold: float = 0.8) -> int:
    """The largest K whose prediction strength is at least ``threshold`` (0.8 as Tibshirani
    and Walther suggest); the K with the largest strength when none reaches it."""
    ks = np.asarray(ks, dtype=np.int64)
    strength = np.asarray(strength, dtype=np.float64)
    if ks.size == 0 or ks.shape != strength.shape:
        raise ValueError("ks and strength must be two non-empty arrays of the same length")
    check_scalar("threshold", threshold, numbers.Real, min_value=0.0, max_value=1.0)
    good = np.flatnonzero(np.nan_to_num(strength, nan=-1.0) >= threshold)
    if good.size:
        return int(ks[good].max())
    return int(ks[int(np.nanargmax(strength))])


def stability_steps(model_factory: Callable, X, ks, n_splits: int = 5, random_state=None):
    """Generator form of :func:`stability`, yielding a :class:`StabilitySnapshot` per split."""
    X = check_array(X, min_samples=2)
    ks = np.asarray(list(ks), dtype=np.int64)
    if ks.size == 0:
        raise ValueError("ks is empty; give the numbers of clusters to compare, e.g. [2, 3, 4]")
    if ks.min() < 1:
        raise ValueError(f"every K must be >= 1, got {int(ks.min())}")
    check_scalar("n_splits", n_splits, numbers.Integral, min_value=1)
    if not callable(model_factory):
        raise TypeError("model_factory must be callable: model_factory(n_clusters, seed) -> unfitted model")
    rng = check_random_state(random_state)
    n = X.shape[0]
    half = n // 2
    if ks.max() > half:
        raise ValueError(f"K={int(ks.max())} is larger than half the data ({half} points)")
    scores = np.full((ks.size, n_splits), np.nan)
    strength = np.full((ks.size, n_splits), np.nan)
    step = 0
    for s in range(n_splits):
        perm = rng.permutation(n)
        A, B = X[perm[:half]], X[perm[half: 2 * half]]
        seeds = rng.integers(0, 2**31 - 1, size=(ks.size, 2))
        for i, k in enumerate(ks):
            ma = model_factory(int(k), int(seeds[i, 0])).fit(A)
            mb = model_factory(int(k), int(seeds[i, 1])).fit(B)
            la, lb = np.asarray(ma.predict(B)), np.asarray(mb.predict(B))
            scores[i, s] = _disagreement(la, lb)
            strength[i, s] = prediction_strength(lb, la)
            step += 1
            done = s * ks.size + i + 1
            result = None
            if done == ks.size * n_splits:
                result = StabilityResult(ks=ks.copy(), instability=scores.mean(axis=1), std=scores.std(axis=1),
                                         scores=scores.copy(), strength=strength.mean(axis=1),
                                         strength_scores=strength.copy())
            yield StabilitySnapshot(step=step - 1, phase="stability", progress=done / (ks.size * n_splits),
                                    scores=frozen_array(scores), k=int(k), split=s, result=result,
                                    strength=frozen_array(strength))


def stability(model_factory: Callable, X, ks, n_splits: int = 5, random_state=None) -> StabilityResult:
    """Stability criterion for choosing K.

    For each split, draw two random disjoint halves A and B; for each K fit one model on A
    and one on B, label the points of B with both, and count the fraction of points of B on
    which the two labellings disagree, minimised over relabellings (the best permutation
    from :func:`scipy.optimize.linear_sum_assignment` on the confusion matrix). A K that
    reflects real structure gives the same partition from both halves: low instability.
    The same two labellings also give the :func:`prediction_strength` of B's clustering;
    :meth:`StabilityResult.chosen_k` is the largest K whose mean strength minus its standard
    error over the splits is at least a threshold (0.8 by default).
    (Merging true groups is stable too, so the smallest instability often falls on a K
    below the true one; the strength rule asks for the largest K that is still stable.)

    Parameters
    ----------
    model_factory : callable ``(n_clusters, seed) -> unfitted model`` with ``fit``/``predict``,
        e.g. ``lambda k, s: KMeans(k, random_state=s)``
    X : array (n, f)
    ks : iterable of int
    n_splits : int >= 1
    random_state : None, int or Generator

    Returns
    -------
    StabilityResult
    """
    last = None
    for last in stability_steps(model_factory, X, ks, n_splits=n_splits, random_state=random_state):
        pass
    return last.result
