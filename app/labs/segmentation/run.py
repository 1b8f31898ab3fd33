"""The segmentation lab's run (Qt-free): image loading and downscaling, per-pixel features,
the lab's snapshot type, initial centres (random, k-means++, clicked seeds) and the feature-space
projection of the linked views (2-D PCA, once per run). The side tasks (model order, restarts,
k-means versus EM) are in :mod:`.side_tasks`.

Everything here runs on worker threads (the run's generator and the side tasks); nothing
touches a widget. Loaded images and features are cached (:class:`smlengine.cache.LRUCache`)
so restarting with another K or method does not read or recompute them.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

from smlengine import Snapshot
from smlengine.cache import LRUCache, file_key
from smlengine.cluster import KMeans, MultinomialMixture, kmeans_plusplus
from smlengine.mixture import GaussianMixture
from smlengine.datasets import load_photo, read_image_file
from smlengine.features import pixel_features, texture_histograms

METHODS = [
    ("kmeans_colour", "k-means · colour"),
    ("kmeans_hist", "k-means · histograms"),
    ("multinomial", "EM multinomial · histograms"),
    ("gmm", "EM Gaussian · colour"),
]
HIST_METHODS = ("kmeans_hist", "multinomial")
COLOUR_METHODS = ("kmeans_colour", "gmm")
EM_METHODS = ("multinomial", "gmm")
INITS = [("random", "random"), ("k-means++", "k-means++"), ("clicked", "clicked seeds")]
FEATURE_CHOICES = [("rgb", "RGB"), ("lab", "CIE-Lab"), ("rgb+xy", "RGB + position"), ("lab+xy", "Lab + position")]
HISTOGRAM_CHOICES = [("grey+lbp", "grey + patterns"), ("grey", "grey levels")]
MAX_K = 12  # the most clusters K (the lab makes the cluster bars and the pixel's profiles once for all)

#: largest image a user file is decoded to (the live run downscales further to "Resolution")
FILE_MAX_PIXELS = 1024 * 1024
MODEL_ORDER_KS = tuple(range(2, 9))
STABILITY_MAX_POINTS = 4000
#: EM / k-means runs from different random starts per fitted model of the model-order task
#: (the one with the best log-likelihood or objective is kept)
BIC_RESTARTS = 10
STABILITY_RESTARTS = 3
#: prediction strength a K must reach to count as stable (Tibshirani and Walther suggest 0.8-0.9)
STABILITY_SPLITS = 5
STRENGTH_THRESHOLD = 0.9

_IMAGES = LRUCache(6)
_FEATURES = LRUCache(6)


# ----------------------------------------------------------------------------- images


@dataclass(frozen=True, eq=False)
class LoadedImage:
    """An image ready for the run: ``image`` downscaled to the resolution, float in [0, 1]."""

    image: np.ndarray
    full_shape: tuple
    note: str  # "" or a sentence (downscaled, alpha dropped, ...)
    label: str  # photo name or file name
    key: tuple = ()  # cache key (source, resolution)


def source_key(source: tuple) -> tuple:
    """Cache key of an image source: ("photo", name) or ("file", path, mtime, size)."""
    return file_key(source[1]) if source[0] == "file" else tuple(source)


def _read_source(source: tuple) -> tuple[np.ndarray, str, str]:
    if source[0] == "file":
        image, note = read_image_file(source[1], max_pixels=FILE_MAX_PIXELS)
        return image, note or "", os.path.basename(source[1])[:60]
    return load_photo(source[1]), "", source[1]


def downscale(image: np.ndarray, max_side: int) -> np.ndarray:
    """The image with its longer side at most ``max_side`` pixels (area-averaged, aspect kept)."""
    h, w = image.shape[:2]
    if max(h, w) <= max_side:
        return np.ascontiguousarray(image)
    from skimage.transform import resize  # deferred: scikit-image's transforms, on the first large image

    s = max_side / max(h, w)
    shape = (max(1, round(h * s)), max(1, round(w * s))) + image.shape[2:]
    return np.clip(resize(image, shape, anti_aliasing=True, preserve_range=True), 0.0, 1.0)


def load_image(source: tuple, max_side: int) -> LoadedImage:
    """Read (cached) and downscale an image source; ValueError with a short message if unusable."""
    key = (source_key(source), int(max_side))

    def compute():
        full = _FULL.get_or_compute(source_key(source), lambda: _read_source(source))
        image, note, label = full
        small = downscale(image, int(max_side))
        small.setflags(write=False)
        return LoadedImage(small, image.shape[:2], note, label, key)

    return _IMAGES.get_or_compute(key, compute)


_FULL = LRUCache(4)


# ----------------------------------------------------------------------------- features


def features(loaded: LoadedImage, method: str, params: dict) -> tuple[np.ndarray, np.ndarray | None]:
    """(X, H): the data the method clusters, and the integer local histograms (h, w, bins) or None.

    Colour methods: X = :func:`pixel_features` of the chosen kind. Histogram methods: the
    counts of :func:`texture_histograms` (grey levels, optionally followed by the local
    binary patterns); k-means clusters them as fractions (H / l²) so the distances do not
    grow with the window, the multinomial mixture uses the counts.
    """
    if method in HIST_METHODS:
        kind = params.get("histograms", "grey")
        key = (loaded.key, "hist", int(params["window"]), int(params["bins"]), kind)

        def compute():
            H = texture_histograms(loaded.image, window=int(params["window"]), bins=int(params["bins"]), kind=kind)
            H.setflags(write=False)
            return H

        H = _FEATURES.get_or_compute(key, compute)
        flat = H.reshape(-1, H.shape[2]).astype(np.float64)
        if method == "kmeans_hist":
            flat /= float(params["window"]) ** 2
        flat.setflags(write=False)
        return flat, H
    key = (loaded.key, "colour", params["features"], float(params["position_weight"]))

    def compute():
        X = pixel_features(loaded.image, kind=params["features"], position_weight=float(params["position_weight"]))
        X.setflags(write=False)
        return X

    return _FEATURES.get_or_compute(key, compute), None


# ----------------------------------------------------------------------------- the run


@dataclass(eq=False)
class RunContext:
    """Everything one run needs and draws besides the engine's numbers (constant over the run)."""

    method: str
    params: dict
    seed: int
    image: np.ndarray  # (h, w) or (h, w, 3), float in [0, 1]
    full_shape: tuple
    note: str
    label: str
    X: np.ndarray  # (n, f) the clustered data
    H: np.ndarray | None  # (h, w, bins) integer local histograms (histogram methods)
    seeds: np.ndarray  # pixel indices of the clicked seeds used (clicked init), else empty
    init_centres: np.ndarray = field(default=None)  # the initial centres / t_k / means
    projection: "FeatureProjection | None" = None  # the feature-space scatter (set once per run)

    @property
    def shape(self) -> tuple:
        return self.image.shape[:2]

    @property
    def n_clusters(self) -> int:
        return int(self.params["K"])

    @property
    def is_em(self) -> bool:
        return self.method in EM_METHODS


@dataclass(frozen=True, kw_only=True, eq=False)
class SegmentationLabSnapshot(Snapshot):
    """One step of the lab: the engine snapshot (``engine``), the run's context and the curve value.

    ``objective`` is the k-means objective J (never increases) or the EM log-likelihood ℓ
    (never decreases; for the multinomial mixture the penalised one the engine monitors).
    """

    engine: Any
    ctx: RunContext
    objective: float


def seed_pixels(seeds, shape: tuple) -> np.ndarray:
    """Pixel indices (row-major) of seeds given as (row, column) fractions of the image size."""
    h, w = shape
    out = []
    for fy, fx in seeds:
        r = min(max(int(fy * h), 0), h - 1)
        c = min(max(int(fx * w), 0), w - 1)
        out.append(r * w + c)
    return np.asarray(out, dtype=np.int64)


def kmeanspp_seeding(X: np.ndarray, k: int, rng: np.random.Generator):
    """The engine's k-means++ seeding (:func:`smlengine.cluster.kmeans_plusplus`) of the pixels.

    Returns (indices (k,), maps list of (n,) arrays: maps[j] are the D² probabilities of
    choosing centre j+2 given the first j+1 centres). Fewer distinct pixels than K: a
    ValueError naming K.
    """
    try:
        return kmeans_plusplus(X, k, rng, return_probabilities=True)
    except ValueError as exc:  # the engine's message in the lab's words
        raise ValueError(str(exc).replace("n_clusters", "K").replace("points", "pixels")) from None


def initial_rows(ctx: RunContext, rng: np.random.Generator) -> np.ndarray | None:
    """Pixel rows of the initial centres for k-means++ or clicked seeds; None for random."""
    init, k = ctx.params["init"], ctx.n_clusters
    if init == "clicked":
        if ctx.seeds.size < k:
            raise ValueError(f"Click {k} seed pixels on the photo for K = {k} "
                             f"({ctx.seeds.size} placed), or choose another initialisation.")
        rows = ctx.seeds[-k:]
        if np.unique(ctx.X[rows], axis=0).shape[0] < k:
            raise ValueError("Two clicked seeds have identical features: click pixels that differ.")
        return rows
    if init == "k-means++":
        return kmeanspp_seeding(ctx.X, k, rng)[0]
    return None


def make_context(method: str, params: dict, seed: int, source: tuple, seeds) -> RunContext:
    """Load the image and its features (worker thread) and check the parameters against them."""
    loaded = load_image(source, int(params["resolution"]))
    if method in HIST_METHODS:
        h, w = loaded.image.shape[:2]
        if int(params["window"]) > min(h, w):
            raise ValueError(f"The window ({params['window']} px) is larger than the image at this resolution "
                             f"({w} × {h} px): choose a smaller window or a higher resolution.")
    X, H = features(loaded, method, params)
    return RunContext(method=method, params=dict(params), seed=int(seed), image=loaded.image,
                      full_shape=loaded.full_shape, note=loaded.note, label=loaded.label, X=X, H=H,
                      seeds=seed_pixels(seeds, loaded.image.shape[:2]))


def smoothed(rows: np.ndarray) -> np.ndarray:
    return (rows + 1.0) / (rows.sum(axis=1, keepdims=True) + rows.shape[1])


def make_model(ctx: RunContext, rng: np.random.Generator):
    """The engine estimator of the run with its initialisation."""
    p, k = ctx.params, ctx.n_clusters
    rows = initial_rows(ctx, rng)
    seed = int(rng.integers(2**31 - 1))
    if ctx.method in ("kmeans_colour", "kmeans_hist"):
        init = p["init"] if rows is None else ctx.X[rows]
        ctx.init_centres = None if rows is None else np.array(ctx.X[rows])
        return KMeans(k, init=init, max_iter=int(p["max_iter"]), tol=1e-6, random_state=seed)
    if ctx.method == "multinomial":
        T = None if rows is None else smoothed(ctx.X[rows])
        ctx.init_centres = T
        return MultinomialMixture(k, pseudocount=float(p["pseudocount"]), max_iter=int(p["max_iter"]), tol=1e-7,
                                  probabilities_init=T, random_state=seed)
    means = None if rows is None else np.array(ctx.X[rows])
    ctx.init_centres = means
    return GaussianMixture(k, init="random" if means is None else means, max_iter=int(p["max_iter"]), tol=1e-7,
                           convergence="relative", reg_covar=1e-5, random_state=seed)


def model_steps(model, X: np.ndarray):
    """The engine's snapshots of a fit; the Gaussian mixture's compact ones (labels and
    confidence, not the n × K responsibilities) so the timeline stays small."""
    if isinstance(model, GaussianMixture):
        return model.fit_steps(X, responsibilities=False)
    return model.fit_steps(X)


def run_steps(method: str, params: dict, seed: int, source: tuple, seeds) -> Iterator[SegmentationLabSnapshot]:
    """The run: load, build features, then one snapshot per k-means or EM iteration."""
    ctx = make_context(method, params, seed, source, seeds)
    ctx.projection = feature_projection(ctx)
    rng = np.random.default_rng([int(seed), 4242])
    model = make_model(ctx, rng)
    kmeans = ctx.method.startswith("kmeans")
    for snap in model_steps(model, ctx.X):
        objective = snap.inertia if kmeans else snap.log_likelihood
        yield SegmentationLabSnapshot(step=snap.step, phase=snap.phase, engine=snap, ctx=ctx,
                                      objective=float(objective))


# ----------------------------------------------------------------------------- drawing helpers (pure)


def label_colours(labels: np.ndarray, shape: tuple, palette: np.ndarray) -> np.ndarray:
    """(h, w, 3) uint8 image of the segmentation, cluster k in ``palette[k % len]``."""
    lut = palette[np.arange(256) % len(palette)]
    return lut[labels.reshape(shape)]


def uncertainty(ctx: RunContext, eng) -> np.ndarray:
    """(h, w) float32: 1 − max_k a_ik for EM; for k-means the distance to the own centre."""
    if hasattr(eng, "confidence"):
        return (1.0 - eng.confidence).reshape(ctx.shape)
    d = ctx.X - eng.centers[eng.labels]
    return np.sqrt(np.einsum("ij,ij->i", d, d)).astype(np.float32).reshape(ctx.shape)


def centre_colours(ctx: RunContext, eng) -> np.ndarray | None:
    """RGB in [0, 1] of the colour part of the centres / means (colour methods), else None."""
    if ctx.method not in COLOUR_METHODS:
        return None
    C = np.asarray(eng.centers if hasattr(eng, "centers") else eng.means)
    kind = ctx.params["features"]
    grey = ctx.image.ndim == 2
    col = C[:, :1] if grey else C[:, :3]
    if kind.startswith("lab"):
        from skimage.color import lab2rgb  # deferred: scikit-image's colour module, on first use

        if grey:
            col = np.column_stack([col[:, 0] * 100.0, np.zeros(len(col)), np.zeros(len(col))])
        else:
            col = col * 100.0
        rgb = lab2rgb(col[None, :, :])[0]
    else:
        rgb = np.repeat(col, 3, axis=1) if grey else col
    return np.clip(rgb, 0.0, 1.0)


def cluster_profiles(ctx: RunContext, eng) -> np.ndarray | None:
    """Histogram methods: (K, bins) bin probabilities t_k (EM) or centre fractions (k-means)."""
    if ctx.method == "multinomial":
        return np.asarray(eng.probabilities)
    if ctx.method == "kmeans_hist":
        return np.asarray(eng.centers)
    return None


def pixel_terms(ctx: RunContext, eng, index: int) -> dict:
    """What decides the cluster of pixel ``index`` in this snapshot.

    multinomial: ``terms[k] = log c_k + Σ_j H_ij log t_kj`` (the log-likelihood terms, up to
    the multinomial coefficient shared by all k) and the responsibilities a_ik = softmax(terms);
    Gaussian: ``terms[k] = log c_k + log g(x_i | μ_k, Σ_k)``; k-means: squared distances
    ``‖x_i − μ_k‖²``. ``label`` is the cluster the snapshot assigned.
    """
    x = np.asarray(ctx.X[index], dtype=np.float64)
    out: dict = {"index": int(index), "row": int(index // ctx.shape[1]), "col": int(index % ctx.shape[1]),
                 "label": int(eng.labels[index]), "x": x}
    if ctx.method.startswith("kmeans"):
        d = np.asarray(eng.centers) - x
        out["kind"] = "distance"
        out["terms"] = np.einsum("ij,ij->i", d, d)
        return out
    if ctx.method == "multinomial":
        h = ctx.H.reshape(-1, ctx.H.shape[2])[index].astype(np.float64)
        with np.errstate(divide="ignore"):
            logT = np.log(np.maximum(np.asarray(eng.probabilities), np.finfo(float).tiny))
            logc = np.log(np.asarray(eng.weights))
        out["counts"] = h
        out["data_terms"] = logT @ h
        terms = logc + out["data_terms"]
    else:
        mu, cov, c = np.asarray(eng.means), np.asarray(eng.covariances), np.asarray(eng.weights)
        f = mu.shape[1]
        terms = np.empty(len(c))
        for k in range(len(c)):
            L = np.linalg.cholesky(cov[k])
            z = np.linalg.solve(L, x - mu[k])
            with np.errstate(divide="ignore"):
                terms[k] = (math.log(c[k]) if c[k] > 0 else -math.inf) - 0.5 * z @ z \
                    - np.log(np.diagonal(L)).sum() - 0.5 * f * math.log(2 * math.pi)
    out["kind"] = "log"
    out["terms"] = terms
    m = np.max(terms[np.isfinite(terms)]) if np.isfinite(terms).any() else 0.0
    e = np.exp(terms - m)
    out["resp"] = e / e.sum()
    return out


def open_image(path: str, max_side: int, k: int = 1) -> LoadedImage:
    """Side task of File ▸ Open: read and cache the file; ValueError when it is not an image, or
    when it has fewer distinct colours than the ``k`` segments asked for (a flat picture, a
    single pixel), checked before the lab's photo is replaced."""
    loaded = load_image(("file", str(path)), int(max_side))
    pixels = loaded.image.reshape(loaded.image.shape[0] * loaded.image.shape[1], -1)
    distinct = np.unique(pixels, axis=0).shape[0]
    if distinct < k:
        what = f"{len(pixels)} pixel(s)" if len(pixels) < k else f"{distinct} distinct colour(s)"
        raise ValueError(f"the image has {what}: K = {k} segments need at least {k} (choose a smaller K first)")
    return loaded


# ----------------------------------------------------------------------------- linked views

#: most pixels drawn in the feature-space scatter (a seeded subsample; brushing uses all pixels)
SCATTER_MAX_POINTS = 3000


@dataclass(frozen=True, eq=False)
class FeatureProjection:
    """Every pixel's features projected on their first two principal directions.

    ``xy`` (n, 2) holds the coordinates of *all* pixels (a rectangle brushed in the scatter
    selects every pixel inside it, drawn or not); ``sub`` are the pixel indices of the
    seeded subsample the scatter draws (sorted, at most :data:`SCATTER_MAX_POINTS`).
    ``key`` names the feature space: two runs with the same key share the same plane.
    """

    xy: np.ndarray  # (n, 2) float32
    sub: np.ndarray  # (m,) int64, sorted pixel indices
    axes: tuple  # the two axis labels
    explained: tuple  # fraction of the variance along each axis
    key: tuple


def _projection_data(ctx: RunContext) -> tuple[np.ndarray, str]:
    """The features the scatter shows: histogram fractions H/l² (both histogram methods, so
    k-means and the multinomial mixture share one plane), or the colour features."""
    if ctx.H is not None:
        d = ctx.H.shape[2]
        return ctx.H.reshape(-1, d).astype(np.float64) / float(ctx.params["window"]) ** 2, "histograms"
    return np.asarray(ctx.X, dtype=np.float64), "features"


def feature_projection(ctx: RunContext) -> FeatureProjection:
    """The 2-D PCA of the run's features, computed once per run (worker thread).

    The principal directions are the top eigenvectors of the 1/m covariance of the seeded
    subsample (cheap: m <= 3000 rows, at most 64 columns); all n pixels are then projected,
    x_i ↦ ((x_i − x̄)·ξ_1, (x_i − x̄)·ξ_2). Each direction's sign makes its largest entry
    positive, so the picture is the same on every run. With a single feature (a grey image)
    the second coordinate is 0.
    """
    Z, what = _projection_data(ctx)
    n, f = Z.shape
    rng = np.random.default_rng([int(ctx.seed), 31337])
    m = min(n, SCATTER_MAX_POINTS)
    sub = np.sort(rng.choice(n, m, replace=False)) if m < n else np.arange(n)
    S = Z[sub]
    mean = S.mean(axis=0)
    cov = np.atleast_2d(np.cov(S.T, bias=True))
    vals, vecs = np.linalg.eigh(cov)
    order = np.argsort(vals)[::-1][:2]
    W = vecs[:, order]
    W *= np.where(W[np.abs(W).argmax(axis=0), np.arange(W.shape[1])] < 0, -1.0, 1.0)
    xy = np.zeros((n, 2), dtype=np.float32)
    xy[:, :W.shape[1]] = (Z - mean) @ W
    total = float(vals.sum())
    explained = tuple(float(vals[j] / total) if total > 0 else 0.0 for j in order) + (0.0,) * (2 - len(order))
    axes = tuple(f"PC {j + 1} ({100 * e:.0f}%)" for j, e in enumerate(explained))
    xy.setflags(write=False)
    sub.setflags(write=False)
    if ctx.H is not None:
        key = ("hist", int(ctx.params["window"]), int(ctx.params["bins"]))
    else:
        key = ("colour", ctx.params["features"], float(ctx.params["position_weight"]))
    return FeatureProjection(xy=xy, sub=sub, axes=axes, explained=explained, key=(ctx.shape, ctx.label, what) + key)


def pixels_in_rect(shape: tuple, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """(h·w,) bool: the pixels whose centre (column + ½, row + ½) lies in the rectangle
    [x0, x1] × [y0, y1] of image coordinates (x = column, y = row, pixel (r, c) covers
    [c, c+1) × [r, r+1))."""
    h, w = shape
    x0, x1 = sorted((float(x0), float(x1)))
    y0, y1 = sorted((float(y0), float(y1)))
    cols = np.arange(w) + 0.5
    rows = np.arange(h) + 0.5
    in_c = (cols >= x0) & (cols <= x1)
    in_r = (rows >= y0) & (rows <= y1)
    return (in_r[:, None] & in_c[None, :]).ravel()


def points_in_rect(xy: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """(n,) bool: the points of ``xy`` (n, 2) inside the rectangle [x0, x1] × [y0, y1]."""
    x0, x1 = sorted((float(x0), float(x1)))
    y0, y1 = sorted((float(y0), float(y1)))
    x, y = xy[:, 0], xy[:, 1]
    return (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
