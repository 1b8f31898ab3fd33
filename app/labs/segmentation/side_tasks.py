"""The segmentation lab's side tasks (Qt-free): model order by BIC and stability, k-means
restarts with the D² probabilities, and k-means versus EM from the same initial centres with the
matched agreement. Each is a generator the lab runs with ``self.task(...)`` on a worker thread;
they read the image and features through the run's caches (:mod:`.run`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from smlengine.cluster import KMeans, MultinomialMixture, kmeans_restarts, matched_agreement, stability_steps
from smlengine.features import half_window_dispersion, histogram_parts, part_codes, tiling_windows
from smlengine.mixture import GaussianMixture

from .run import (
    BIC_RESTARTS,
    HIST_METHODS,
    MODEL_ORDER_KS,
    STABILITY_MAX_POINTS,
    STABILITY_RESTARTS,
    STABILITY_SPLITS,
    initial_rows,
    kmeanspp_seeding,
    make_context,
    model_steps,
    smoothed,
)


@dataclass(frozen=True)
class ModelOrderItem:
    """One K of the model-order task: BIC (lower is better) and the segmentation thumbnail.

    ``n`` is the number of samples the BIC counts, ``m`` the free parameters, ``dispersion``
    the ĉ_b of each histogram part (the counts were divided by them; () for colour),
    ``loglik`` the log L of the fitted samples.
    """

    k: int
    bic: float
    labels: np.ndarray  # (h, w) uint8
    n: int = 0
    m: int = 0
    dispersion: tuple = ()
    loglik: float | None = None  # None: not computed
    samples: str = "pixels"  # what the n samples are


class BestOfRestarts:
    """``n_init`` fits of ``factory(seed)`` from different seeds; the one with the best final
    log-likelihood (mixtures) or the lowest objective (k-means) is kept and predicts."""

    def __init__(self, factory, n_init: int, seed: int):
        self.factory, self.n_init, self.seed = factory, int(n_init), int(seed)

    def fit(self, X):
        seeds = np.random.default_rng([self.seed, 515]).integers(0, 2**31 - 1, size=self.n_init)
        best, best_score = None, -math.inf
        for s in seeds:
            model = self.factory(int(s)).fit(X)
            score = -model.inertia_ if hasattr(model, "inertia_") else model.log_likelihood_[-1]
            if best is None or score > best_score:
                best, best_score = model, score
        self.model_ = best
        return self

    def predict(self, X):
        return self.model_.predict(X)


def _bic_model(method: str, k: int, seed: int, params: dict):
    if method in HIST_METHODS:
        return MultinomialMixture(k, pseudocount=float(params["pseudocount"]), max_iter=200, tol=1e-6,
                                  random_state=seed)
    return GaussianMixture(k, max_iter=100, tol=1e-5, convergence="relative", reg_covar=1e-5, random_state=seed)


def _stability_factory(method: str, params: dict):
    if method.startswith("kmeans"):
        return lambda k, s: BestOfRestarts(lambda r: KMeans(k, init="k-means++", max_iter=100, random_state=r),
                                           STABILITY_RESTARTS, s)
    return lambda k, s: BestOfRestarts(lambda r: _bic_model(method, k, r, params), STABILITY_RESTARTS, s)


def window_grid(shape: tuple, window: int) -> np.ndarray:
    """Pixel indices of the centres of the non-overlapping l × l windows that tile the image
    (:func:`smlengine.features.tiling_windows`)."""
    return tiling_windows(shape, window)


def model_order(method: str, params: dict, seed: int, source: tuple, seeds=(), *, state=None):
    """Side task: BIC of the mixture and split-half stability of the method for K = 2..8.

    Histogram methods: BIC of the multinomial mixture on the histograms of the n windows that
    tile the image without overlap (:func:`window_grid`; neighbouring pixels' windows share
    most of their pixels, so all h·w histograms are far from n independent samples). The
    pixels of a window are neighbours, not independent draws: each histogram part b is
    divided by its :func:`~smlengine.features.half_window_dispersion` ĉ_b, so a window counts
    as l²/ĉ_b independent pixels. Each K is fitted to these effective counts from
    ``BIC_RESTARTS`` random starts keeping the best likelihood, and
    BIC = −2 log L + m log n with m = (K − 1) + K Σ_b (d_b − 1). Colour methods: BIC of the
    Gaussian mixture on the pixels.
    Yields ``ModelOrderItem`` for every K (thumbnail: every pixel labelled by that model), then
    the :class:`~smlengine.cluster.StabilitySnapshot` of every (split, K) on a pixel subsample,
    each model the best of ``STABILITY_RESTARTS`` starts.
    """
    ctx = make_context(method, params, seed, source, ())
    hist = method in HIST_METHODS
    counts = ctx.H.reshape(-1, ctx.H.shape[2]).astype(np.float64) if hist else None
    c_hat, parts = (), None
    if hist:
        kind, bins, l = params.get("histograms", "grey"), int(params["bins"]), int(params["window"])
        parts = histogram_parts(kind, bins)
        c_hat = tuple(max(1.0, half_window_dispersion(codes, l, d)) if l >= 3 else 1.0
                      for codes, d in zip(part_codes(ctx.image, bins, kind), parts))
        scale = np.repeat(1.0 / np.asarray(c_hat), parts)
        counts = counts * scale
    X = counts[window_grid(ctx.shape, int(params["window"]))] if hist else ctx.X
    ks = [k for k in MODEL_ORDER_KS if k <= X.shape[0] // 2]
    if not ks:
        l = int(params["window"])
        raise ValueError(f"The image holds only {X.shape[0]} non-overlapping {l} × {l} windows, too few to compare "
                         f"K = {MODEL_ORDER_KS[0]}…{MODEL_ORDER_KS[-1]}: choose a smaller window or a higher "
                         "resolution.")
    fits = {}
    for i, k in enumerate(ks):
        if state is not None:
            if state.cancelled:
                return
            state.set_progress(i / (2 * len(ks)), f"BIC for K = {k}")
        restarts = BIC_RESTARTS if hist else 1
        fits[k] = BestOfRestarts(lambda r, k=k: _bic_model(method, k, r, params), restarts, seed + k).fit(X).model_
    for k, model in fits.items():
        full = counts if hist else ctx.X
        labels = model.predict(full).astype(np.uint8).reshape(ctx.shape)
        if hist:
            bic = model.bic(X, parts=parts)
            m = model.n_parameters(parts)
        else:
            bic = model.bic(X)
            m = model._n_parameters()
        yield ModelOrderItem(k=k, bic=float(bic), labels=labels, n=int(X.shape[0]), m=int(m), dispersion=c_hat,
                             loglik=float(np.sum(model.score_samples(X))),
                             samples="non-overlapping windows" if hist else "pixels")
    rng = np.random.default_rng([int(seed), 77])
    Xs = ctx.X
    if Xs.shape[0] > STABILITY_MAX_POINTS:
        Xs = Xs[np.sort(rng.choice(Xs.shape[0], STABILITY_MAX_POINTS, replace=False))]
    for snap in stability_steps(_stability_factory(method, params), Xs, ks, n_splits=STABILITY_SPLITS,
                                random_state=int(seed)):
        if state is not None:
            if state.cancelled:
                return
            state.set_progress(0.5 + 0.5 * snap.progress, f"stability, K = {snap.k}")
        yield snap


@dataclass(frozen=True)
class RestartsResult:
    """The restarts task: final objectives, distinct solutions, and k-means++ D² maps."""

    inertias: np.ndarray
    solution_ids: np.ndarray
    n_distinct: int
    best_index: int
    init: str
    maps: list  # (h, w) probability maps, maps[j] before choosing centre j + 2
    chosen: np.ndarray  # pixel indices of the k-means++ centres
    shape: tuple
    done: bool


#: final objectives equal within this relative difference are one solution: the stopping rule
#: leaves the centres of one minimum a little apart, and J differs in its seventh digit
SAME_OBJECTIVE = 1e-6


def one_solution_within(inertias, solution_ids) -> tuple[np.ndarray, int]:
    """(solution of each restart, number of solutions) once restarts whose final objectives
    agree within a relative :data:`SAME_OBJECTIVE` count as one solution.

    The engine tells solutions apart by their centres; centres of one minimum still differ by
    the stopping tolerance, so their J agree to about seven digits. Solutions are taken in
    order of J: each starts a new one only when its J exceeds the lowest J of the current one
    by more than SAME_OBJECTIVE (relative), so a chain of near-equal values never merges far
    apart minima. Numbers go in order of first appearance.
    """
    J = np.asarray(inertias, dtype=float)
    ids = np.asarray(solution_ids, dtype=np.int64)
    if J.size == 0:
        return ids.copy(), 0
    groups: dict[int, int] = {}  # the engine's solution -> merged solution
    best = {int(i): float(J[ids == i].min()) for i in np.unique(ids)}
    start, current = None, -1
    for sol in sorted(best, key=best.get):
        if start is None or best[sol] - start > SAME_OBJECTIVE * max(abs(start), abs(best[sol])):
            start, current = best[sol], current + 1
        groups[sol] = current
    merged = np.array([groups[int(i)] for i in ids], dtype=np.int64)
    renumber = {g: n for n, g in enumerate(dict.fromkeys(merged.tolist()))}
    return np.array([renumber[g] for g in merged.tolist()], dtype=np.int64), len(renumber)


def restart_features(method: str, params: dict, seed: int, source: tuple) -> np.ndarray:
    """The features the restarts run k-means on: those of the k-means of the method's family,
    as the "k-means vs EM" tab's k-means (histogram fractions H/l² or colours), so both tabs
    report J on one scale."""
    return _kmeans_context(method, params, seed, source).X


def _kmeans_context(method: str, params: dict, seed: int, source: tuple):
    return make_context("kmeans_hist" if method in HIST_METHODS else "kmeans_colour", params, seed, source, ())


def restarts(method: str, params: dict, seed: int, source: tuple, n_restarts: int = 20, *, state=None):
    """Side task: ``n_restarts`` seeded k-means restarts on the run's features, and the D² maps.

    The restarts run k-means on :func:`restart_features` (for the EM methods: k-means on the
    same data, as the "k-means vs EM" tab does). Restarts whose objectives agree within a
    relative :data:`SAME_OBJECTIVE` are one solution (:func:`one_solution_within`). Yields a
    :class:`RestartsResult` after every finished restart (``done`` on the last).
    """
    ctx = _kmeans_context(method, params, seed, source)
    X = ctx.X
    k = ctx.n_clusters
    init = "random" if params["init"] == "random" else "k-means++"
    idx, maps = kmeanspp_seeding(X, k, np.random.default_rng([int(seed), 4242]))
    maps = [m.reshape(ctx.shape) for m in maps]
    seen = 0
    for snap in kmeans_restarts(X, k, n_restarts=n_restarts, init=init, random_state=int(seed), max_iter=100,
                                steps=True):
        if state is not None:
            if state.cancelled:
                return
            state.set_progress(snap.progress, f"restart {min(snap.current_restart + 1, n_restarts)}/{n_restarts}")
        done = snap.current_restart == n_restarts
        if len(snap.inertias) > seen or done:
            seen = len(snap.inertias)
            ids, n_distinct = one_solution_within(snap.inertias, snap.solution_ids)
            yield RestartsResult(inertias=np.array(snap.inertias), solution_ids=ids,
                                 n_distinct=n_distinct, best_index=snap.best_index, init=init, maps=maps,
                                 chosen=idx, shape=ctx.shape, done=done)


# ----------------------------------------------------------------------------- k-means versus EM


@dataclass(frozen=True, eq=False)
class CompareResult:
    """The k-means versus EM side task: both fits from the same initial centres.

    ``family`` is "hist" (k-means on histogram fractions H/l² vs the multinomial mixture on the
    counts H) or "colour" (k-means vs the Gaussian mixture on the colour features). ``rows``
    are the pixels whose features are the shared initial centres: k-means starts at
    ``kmeans_init`` = their features; the multinomial mixture at t_k = (H_row + 1)/(l² + d)
    (so no bin starts at 0), the Gaussian mixture at μ_k = their features with weights and
    covariances of the nearest-centre partition k-means starts from. Labels and curves are
    None / empty until their phase has run; ``matching[j]`` is the k-means cluster EM's cluster
    j was matched to, ``agreement`` the matched fraction (None until both are done).
    """

    family: str
    shape: tuple
    image: np.ndarray
    rows: np.ndarray
    kmeans_init: np.ndarray
    em_init: np.ndarray
    kmeans_labels: np.ndarray | None = None
    em_labels: np.ndarray | None = None
    kmeans_curve: tuple = ()  # J per iteration
    em_curve: tuple = ()  # ℓ per iteration
    kmeans_converged: bool = False
    em_converged: bool = False
    matching: np.ndarray | None = None
    agreement: float | None = None
    done: bool = False

    @property
    def kmeans_objective(self) -> float | None:
        """The last J (None before k-means has run)."""
        return self.kmeans_curve[-1] if self.kmeans_curve else None

    @property
    def em_objective(self) -> float | None:
        """The last ℓ (None before EM has run)."""
        return self.em_curve[-1] if self.em_curve else None


def _distinct_random_rows(X: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    _, first = np.unique(X, axis=0, return_index=True)
    if first.size < k:
        raise ValueError(f"K={k} is larger than the number of distinct pixels ({first.size}); "
                         f"choose K <= {first.size}")
    return rng.choice(np.sort(first), k, replace=False)


def compare_models(params: dict, seed: int, source: tuple, seeds=()):
    """The two estimators of the comparison with their shared initial centres.

    Returns (family, ctx, kmeans features, EM data, KMeans, mixture, rows). The initial
    pixels come from the lab's Init setting (random distinct pixels, k-means++ D² sampling on
    the k-means features, or the clicked seeds), drawn with the run's seed.
    """
    family = "hist" if params["method"] in HIST_METHODS else "colour"
    ctx = make_context("kmeans_hist" if family == "hist" else "kmeans_colour", params, seed, source, seeds)
    k = ctx.n_clusters
    rng = np.random.default_rng([int(seed), 4242])
    rows = initial_rows(ctx, rng)
    if rows is None:
        rows = _distinct_random_rows(ctx.X, k, rng)
    rows = np.asarray(rows, dtype=np.int64)
    max_iter = int(params["max_iter"])
    C0 = np.array(ctx.X[rows])
    kmeans = KMeans(k, init=C0, max_iter=max_iter, tol=1e-6)
    if family == "hist":
        counts = ctx.H.reshape(-1, ctx.H.shape[2]).astype(np.float64)
        T0 = smoothed(counts[rows])
        em = MultinomialMixture(k, pseudocount=float(params["pseudocount"]), max_iter=max_iter, tol=1e-7,
                                probabilities_init=T0)
        return family, ctx, ctx.X, counts, kmeans, em, rows, C0, T0
    em = GaussianMixture(k, init=C0, max_iter=max_iter, tol=1e-7, convergence="relative", reg_covar=1e-5)
    return family, ctx, ctx.X, ctx.X, kmeans, em, rows, C0, C0


def compare(params: dict, seed: int, source: tuple, seeds=(), *, state=None):
    """Side task: k-means and the matching mixture from the same initial centres, one after
    the other; yields a :class:`CompareResult` when k-means has converged and when EM has (with
    the matched agreement), and partial EM maps every 10 iterations so the tab fills live."""
    family, ctx, Xk, Xe, kmeans, em, rows, C0, E0 = compare_models(params, seed, source, seeds)
    base = dict(family=family, shape=ctx.shape, image=ctx.image, rows=rows, kmeans_init=C0, em_init=E0)
    max_iter = max(1, int(params["max_iter"]))
    curve: list[float] = []
    snap = None
    for snap in kmeans.fit_steps(Xk):
        curve.append(float(snap.inertia))
        if state is not None:
            if state.cancelled:
                return
            state.set_progress(0.5 * min(1.0, snap.step / max_iter), f"k-means, iteration {snap.step}")
    km = dict(kmeans_labels=np.asarray(snap.labels, dtype=np.int64), kmeans_curve=tuple(curve),
              kmeans_converged=bool(snap.converged))
    yield CompareResult(**base, **km)
    curve = []
    for snap in model_steps(em, Xe):
        curve.append(float(snap.log_likelihood))
        if state is not None:
            if state.cancelled:
                return
            state.set_progress(0.5 + 0.5 * min(1.0, snap.step / max_iter), f"EM, iteration {snap.step}")
        if snap.step % 10 == 0 and not snap.converged and snap.step < max_iter:
            yield CompareResult(**base, **km, em_labels=np.asarray(snap.labels, dtype=np.int64), em_curve=tuple(curve))
    em_labels = np.asarray(snap.labels, dtype=np.int64)
    agreement, perm = matched_agreement(km["kmeans_labels"], em_labels, ctx.n_clusters)
    yield CompareResult(**base, **km, em_labels=em_labels, em_curve=tuple(curve), em_converged=bool(snap.converged),
                        matching=perm, agreement=agreement, done=True)
