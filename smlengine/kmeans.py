"""k-means clustering by Lloyd's algorithm, k-means++ seeding and seeded restarts.

Layout and memory
-----------------
Internally data are kept feature-major, ``(f + 1, n)`` with a row of ones, so the assignment
is one BLAS product per block of points and every inner operation runs along long contiguous
rows. Snapshots carry the labels as ``uint8`` (``uint16`` for K > 256): a 512 × 512 image
then costs 256 kB per step in the GUI's timeline.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace
from typing import Iterator

import numpy as np

from ._base import (
    MAX_ABS_VALUE,
    BaseEstimator,
    IterativeMixin,
    Snapshot,
    check_array,
    check_random_state,
    check_scalar,
    frozen_array,
)
from ._kmeans_core import (
    DEFAULT_MAX_ITER,
    DEFAULT_TOL,
    MAX_ITER,
    MAX_RESTARTS,
    Lloyd,
    check_k,
    label_dtype,
    lloyd_steps,
    n_distinct_upto,
    pick_distinct,
    plusplus_centres,
    plusplus_indices,
)
from ._params import ArrayLike, Integral, Interval, Options, RandomState, Real


__all__ = [
    "KMeans",
    "KMeansSnapshot",
    "RestartsSnapshot",
    "kmeans_plusplus",
    "kmeans_plusplus_probabilities",
    "kmeans_restarts",
]


# ----------------------------------------------------------------------------- k-means


@dataclass(frozen=True, kw_only=True)
class KMeansSnapshot(Snapshot):
    """State of k-means after one iteration (step 0: the initial centres and their assignment).

    Attributes
    ----------
    centers : ndarray (K, f)
        the centres μ_k of this step
    labels : ndarray (n,) of uint8 (uint16 for K > 256)
        m_i, index of the nearest centre
    inertia : float
        the objective Σ_i ‖x_i − μ_{m_i}‖² (never increases)
    counts : ndarray (K,) of int
        points per cluster
    center_shift : float or None
        Σ_k ‖μ_k^(j) − μ_k^(j−1)‖ (the stopping quantity; None at
        step 0, before any centre has moved)
    n_changed : int
        points whose label changed in this step (n at step 0)
    relocated : tuple of int
        clusters that were empty and got a new centre this step
    n_iter : int
        centre updates done in this restart
    converged : bool
        center_shift < tol or no label changed
    restart : int
        index of the restart (0-based; ``n_init`` runs restarts in turn)

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import KMeans
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [5.0, 5.0], [5.0, 6.0], [6.0, 5.0]])
    >>> for s in KMeans(n_clusters=2, init="random", random_state=1).fit_steps(X):
    ...     print(s.step, s.labels, round(s.inertia, 3), s.n_changed, s.converged)
    0 [0 0 0 1 1 1] 5.0 6 False
    1 [0 0 0 1 1 1] 2.667 0 True
    """

    centers: np.ndarray
    labels: np.ndarray
    inertia: float
    counts: np.ndarray
    center_shift: float | None
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
    inertias : ndarray (r,)
        final objective of each finished restart, in order
    n_iters : ndarray (r,) of int
        iterations each finished restart took
    n_distinct : int
        distinct final solutions so far (centres equal up to relabelling)
    solution_ids : ndarray (r,) of int
        which distinct solution each restart reached
    best_index : int
        restart with the lowest objective so far (-1 before the first)
    best_centers : ndarray (K, f) or None
        its centres
    current_restart : int
        restart in progress (== n when all are done)
    current_inertia : float or None
        objective of the restart in progress (None when all are done)

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import kmeans_restarts
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [5.0, 5.0], [5.0, 6.0], [6.0, 5.0], [0.0, 6.0]])
    >>> summary = kmeans_restarts(X, n_clusters=3, n_restarts=5, init="random", random_state=0)
    >>> print(np.round(summary.inertias, 3), summary.n_iters)
    [2.667 2.667 2.667 2.667 2.667] [1 1 2 1 1]
    >>> summary.n_distinct, summary.solution_ids, summary.best_index
    (1, array([0, 0, 0, 0, 0]), 0)
    """

    inertias: np.ndarray
    n_iters: np.ndarray
    n_distinct: int
    solution_ids: np.ndarray
    best_index: int
    best_centers: np.ndarray | None
    current_restart: int
    current_inertia: float | None


def kmeans_plusplus_probabilities(X, centers) -> np.ndarray:
    """The k-means++ (D²) sampling probabilities given the centres chosen so far.

    p_i = D(x_i)² / Σ_l D(x_l)², with D(x) the distance to the nearest chosen centre: points
    far from every centre are likely to become the next one. With no centre yet (an empty
    ``centers``) the first centre is drawn uniformly, p_i = 1/n.

    Parameters
    ----------
    X : array (n, f)
        The data.
    centers : array (c, f), c >= 0
        The centres chosen so far.

    Returns
    -------
    p : ndarray (n,)
        Sums to one (all zeros when every point is already a centre -- then no
        further distinct centre exists).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import kmeans_plusplus_probabilities
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [4.0, 0.0]])
    >>> print(np.round(kmeans_plusplus_probabilities(X, X[:0]), 3))
    [0.333 0.333 0.333]
    >>> print(np.round(kmeans_plusplus_probabilities(X, X[:1]), 3))
    [0.    0.059 0.941]
    """
    X = check_array(X, max_abs=MAX_ABS_VALUE)
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


def kmeans_plusplus(X, n_clusters, random_state=None, *, return_probabilities: bool = False):
    """k-means++ seeding (Arthur and Vassilvitskii 2007): which rows of X become the initial centres.

    The first centre is a point drawn uniformly; every further centre is drawn with the D²
    probabilities p_i = D(x_i)² / Σ_l D(x_l)² of :func:`kmeans_plusplus_probabilities`, D the
    distance to the nearest centre chosen so far, so a point that is already a centre is never
    chosen again. This is the seeding :class:`KMeans` and :class:`~smlengine.mixture.GaussianMixture`
    use for ``init='k-means++'``.

    Parameters
    ----------
    X : array (n, f)
        The data.
    n_clusters : int, 1 <= K <= number of distinct rows of X
        K, the number of centres.
    random_state : None, int or numpy Generator
        Seeds the draws.
    return_probabilities : bool
        Also return the D² probabilities each choice was drawn from.

    Returns
    -------
    indices : ndarray (K,) of int64
        the chosen rows, in the order they were chosen
    probabilities : list of K − 1 ndarrays (n,)
        Only with ``return_probabilities``:
        ``probabilities[j]`` is p given the first j + 1 centres (the draw of centre j + 2)

    Raises
    ------
    ValueError
        When X has fewer than K distinct rows (no further point has D > 0).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import kmeans_plusplus
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [4.0, 0.0]])
    >>> kmeans_plusplus(X, 2, random_state=0)
    array([2, 0])
    """
    X = check_array(X, max_abs=MAX_ABS_VALUE)
    k = check_k("n_clusters", n_clusters, X.shape[0])
    maps: list | None = [] if return_probabilities else None
    idx = plusplus_indices(X, k, check_random_state(random_state), maps)
    return (idx, maps) if return_probabilities else idx


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
        K, the number of clusters.
    init : {'random', 'k-means++'} or array (K, f)
        ``'random'``: K distinct data points chosen uniformly; ``'k-means++'``: D² seeding
        (see :func:`kmeans_plusplus_probabilities`); an array: these initial centres
        (then ``n_init`` must be 1).
    n_init : int in [1, 1000]
        Number of restarts; the run with the lowest J is kept.
    tol : float >= 0
        τ of the stopping rule (absolute, in feature units).
    max_iter : int in [1, 100000]
        Centre updates per restart.
    random_state : None, int or numpy Generator
        Seeds the initial centres.

    Attributes
    ----------
    cluster_centers_ : ndarray (K, f)
        The centres μ_k.
    labels_ : ndarray (n,) of int64
        m_i, the cluster of every training point.
    inertia_ : float
        J of the final centres and labels
    n_iter_ : int
        centre updates of the kept run
    objective_ : list of float
        J at every step of the kept run (step 0 first)
    last_snapshot_ : KMeansSnapshot
        The final state of the kept run.

    Notes
    -----
    Restarts for the lab: :meth:`restarts` (or :func:`kmeans_restarts`) runs n seeded
    restarts and reports the spread of final objectives and the number of distinct solutions.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import KMeans
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [5.0, 5.0], [5.0, 6.0], [6.0, 5.0]])
    >>> km = KMeans(n_clusters=2, random_state=0).fit(X)
    >>> km.labels_
    array([1, 1, 1, 0, 0, 0])
    >>> print(np.round(km.cluster_centers_, 3))
    [[5.333 5.333]
     [0.333 0.333]]
    >>> round(km.inertia_, 3), km.n_iter_
    (2.667, 1)
    >>> km.predict([[0.5, 0.5], [5.5, 5.5]])
    array([1, 0])
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None)],
        "init": [Options(("random", "k-means++")), ArrayLike()],
        "n_init": [Interval(Integral, 1, MAX_RESTARTS)],
        "tol": [Interval(Real, 0, None)],
        "max_iter": [Interval(Integral, 1, MAX_ITER)],
        "random_state": [RandomState(), None],
    }

    def __init__(self, n_clusters=3, *, init="k-means++", n_init=1, tol=DEFAULT_TOL, max_iter=DEFAULT_MAX_ITER,
                 random_state=None):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    # -- validation --------------------------------------------------------------------
    def _validate(self, X):
        self.validate_params()
        X = check_array(X, max_abs=MAX_ABS_VALUE)
        k = check_k("n_clusters", self.n_clusters, X.shape[0])
        if isinstance(self.init, str):
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
            distinct = n_distinct_upto(X, k)
            if distinct < k:
                # a centre would stay without points (or be moved onto a point another centre already holds)
                raise ValueError(f"n_clusters={k} is larger than the number of distinct points ({distinct}); "
                                 f"choose n_clusters <= {distinct}")
        return X, k, init

    def _initial_centers(self, X, k, init, rng) -> np.ndarray:
        if isinstance(init, np.ndarray):
            return init.copy()
        if init == "random":
            return pick_distinct(X, k, rng, "n_clusters")
        return plusplus_centres(X, k, rng)

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
        lloyd = Lloyd(X, k)
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
        X = check_array(X, n_features=self.n_features_in_, max_abs=MAX_ABS_VALUE)
        lloyd = Lloyd(X, self.cluster_centers_.shape[0])
        labels = np.empty(X.shape[0], dtype=np.intp)
        lloyd.assign(self.cluster_centers_, labels)
        return labels.astype(np.int64)

    def fit_predict(self, X) -> np.ndarray:
        """Fit on X and return ``labels_``."""
        return self.fit(X).labels_

    def score(self, X, y=None) -> float:
        """The k-means objective on X with the opposite sign, −Σ_i min_k ‖x_i − μ_k‖² (higher is
        better, as scikit-learn's ``KMeans.score``); ``y`` is ignored."""
        self._check_fitted("cluster_centers_")
        X = check_array(X, n_features=self.n_features_in_, max_abs=MAX_ABS_VALUE)
        return -float(_min_sq_dist(X, self.cluster_centers_).sum())

    def restarts(self, X, n: int = 20) -> RestartsSnapshot:
        """Run ``n`` seeded restarts with this model's parameters; see :func:`kmeans_restarts`."""
        return kmeans_restarts(
            X, self.n_clusters, n_restarts=n, init=self.init if isinstance(self.init, str) else "k-means++",
            tol=self.tol, max_iter=self.max_iter, random_state=self.random_state,
        )


def _restep(snap: KMeansSnapshot, step: int, phase: str | None = None) -> KMeansSnapshot:
    return replace(snap, step=step, phase=snap.phase if phase is None else phase)


def _kmeans_run(lloyd: Lloyd, C: np.ndarray, tol: float, max_iter: int, restart: int, phase: str):
    """One Lloyd run from centres C; yields snapshots with step numbers local to the run."""
    ldt = label_dtype(lloyd.k)
    for it in lloyd_steps(lloyd, C, tol, max_iter):
        yield KMeansSnapshot(
            step=it.n_iter, phase=phase, centers=frozen_array(it.centers), labels=frozen_array(it.labels, dtype=ldt),
            inertia=it.inertia, counts=frozen_array(it.counts), center_shift=it.center_shift, n_changed=it.n_changed,
            relocated=it.relocated, n_iter=it.n_iter, converged=it.converged, restart=restart,
        )


def _same_solution(A: np.ndarray, B: np.ndarray, scale: float) -> bool:
    """Centres equal up to a relabelling (matched by linear_sum_assignment)."""
    from scipy.optimize import linear_sum_assignment  # deferred: scipy.optimize is slow to import

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
        The data.
    n_clusters, init, tol, max_iter
        As in :class:`KMeans` (init 'random' or 'k-means++').
    n_restarts : int >= 1
        Number of restarts.
    random_state : None, int or Generator
        Draws the restarts' seeds.
    steps : bool
        False: return the final :class:`RestartsSnapshot`. True: return a generator yielding a
        :class:`RestartsSnapshot` after every k-means iteration (progress = fraction of
        restarts done), for a live lab; its last item is the final summary.

    Returns
    -------
    RestartsSnapshot or generator of RestartsSnapshot
        The summary of all restarts, or (``steps=True``) the snapshots leading to it.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import kmeans_restarts
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [5.0, 5.0], [5.0, 6.0], [6.0, 5.0]])
    >>> summary = kmeans_restarts(X, n_clusters=2, n_restarts=3, random_state=0)
    >>> print(np.round(summary.inertias, 3), summary.n_distinct)
    [2.667 2.667 2.667] 1
    """
    gen = _restarts_steps(X, n_clusters, n_restarts, init, tol, max_iter, random_state)
    if steps:
        return gen
    last = None
    for last in gen:
        pass
    return last


def _restarts_steps(X, n_clusters, n_restarts, init, tol, max_iter, random_state):
    X = check_array(X, max_abs=MAX_ABS_VALUE)
    check_scalar("n_restarts", n_restarts, numbers.Integral, min_value=1, max_value=10_000)
    if not isinstance(init, str):
        raise ValueError("restarts need a random init ('random' or 'k-means++'), not fixed centres")
    model = KMeans(n_clusters, init=init, tol=tol, max_iter=max_iter)
    X, k, init = model._validate(X)
    rng = check_random_state(random_state)
    seeds = rng.integers(0, 2**31 - 1, size=n_restarts)
    lloyd = Lloyd(X, k)
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
    yield snapshot(n_restarts, None, 1.0)
