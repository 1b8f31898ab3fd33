"""The PCA lab's run (Qt-free): the data with its exact (eigh) PCA, the live power method and
the small pure helpers the views use (mosaics, reconstructions, residuals); the solver race is
a side task (:mod:`.side_tasks`).

The run is: load the images (shipped digits or the user's stack) and fit the exact PCA
once (``eigh``, cached per data source); then the power method finds ξ_1, ξ_2, ... by
deflation, one snapshot per iteration. Every snapshot carries the same read-only
:class:`PCAData`, so the static views (mean, eigen-digits, scree, reconstructions,
scores) are drawn from the run's first snapshot and only redrawn when the data changes.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from smlengine import Snapshot, frozen_array
from smlengine.cache import LRUCache, file_key
from smlengine.datasets import digit_from_bitmap, load_digits, load_image_stack
from smlengine.pca import PCA, compression_ratio, heldout_residuals, storage_cost

DIGIT_CHOICES = [("all", "all digits"), *[(str(i), f"{i}s") for i in range(10)]]
#: eigenpairs kept for the static views (the whole spectrum of 8 × 8 digits: D = 64)
MAX_COMPONENTS = 256
#: images shown originals-beside-reconstructions
N_SAMPLES = 10
NOVELTY_PERCENTILE = 99.0
#: folds of the cross-validation that gives the held-out residuals of the novelty threshold
NOVELTY_FOLDS = 10
#: multiply-adds of one PCA fit up to which the threshold uses held-out residuals
HELDOUT_MAX_WORK = 2e8
#: fine pixels per side of the drawing of a digit (the model sees its 8 × 8 UCI digit)
DRAW_SIDE = 64
#: fine pixels per side of a drawing of other images: at least this many
MIN_DRAW_SIDE = 48

_DATA_CACHE = LRUCache(maxsize=6)
_HELDOUT_CACHE = LRUCache(maxsize=6)


# ----------------------------------------------------------------------------- data
class PCAData:
    """The images of a run and their exact PCA (read-only arrays, shared by all snapshots).

    ``components`` (K, D) and ``eigenvalues`` (K,) are the top K = min(n, D, 256) eigenpairs
    of the 1/n covariance; ``scores`` (n, K) the coefficients c_ij = ⟨x_i − μ̂, ξ_j⟩;
    ``errors[d]`` = Σ_i ‖x_i − x_i^(d)‖² for d = 0..K; ``sq_norms`` = ‖x_i − μ̂‖²;
    ``labels`` the digit classes (−1 for a user's images); ``sample`` the indices shown
    in the reconstruction strip; ``gap`` the j of the largest gap λ_j − λ_{j+1} (1-based)
    among j < K, None with fewer than 3 components (one gap or none: no largest one to find);
    ``route`` how the eigenpairs were found, ``'covariance'`` (D × D) or ``'gram'`` (n × n),
    whichever is cheaper (the engine's ``PCA.route_``).

    Deliberately not a dataclass: the runner walks the dataclass fields of every snapshot
    to count its arrays, and this constant object is shared by thousands of snapshots
    (the power method makes ~3,000 steps a second). Two objects are equal when they were
    made from the same source (``key``: the digit class, or the file with its mtime).
    """

    FIELDS = ("source", "key", "images", "X", "labels", "shape", "mean", "components", "eigenvalues",
              "total_variance", "ratio", "cumulative", "errors", "scores", "sq_norms", "sample", "gap", "lo", "hi",
              "route")
    __slots__ = FIELDS

    def __init__(self, **values):
        missing = set(self.FIELDS) - set(values)
        if missing:
            raise TypeError(f"PCAData is missing {sorted(missing)}")
        for name in self.FIELDS:
            object.__setattr__(self, name, values[name])

    def __setattr__(self, name, value):
        raise AttributeError("PCAData is read-only")

    def __eq__(self, other):
        return isinstance(other, PCAData) and self.key == other.key and self.source == other.source

    def __hash__(self):
        return hash((self.key, self.source))

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def D(self) -> int:
        return int(self.X.shape[1])

    @property
    def K(self) -> int:
        return int(self.components.shape[0])


def _sample_indices(labels: np.ndarray, n: int) -> np.ndarray:
    """One image of each class when several classes are present, else evenly spaced images."""
    classes = np.unique(labels[labels >= 0])
    if classes.size > 1:
        firsts = [int(np.flatnonzero(labels == c)[0]) for c in classes[:N_SAMPLES]]
        return np.array(firsts, dtype=np.int64)
    m = min(N_SAMPLES, n)
    return np.unique(np.linspace(0, n - 1, m).round().astype(np.int64))


def build_data(images: np.ndarray, labels: np.ndarray, source: str, key: tuple = ()) -> PCAData:
    """Validate an (n, h, w) stack and fit its exact PCA (``eigh``, on the cheaper side).

    Raises ValueError with a short message for fewer than 2 images, identical images, or
    values whose squares overflow or underflow (e.g. 1e200 or 1e-320: the covariance would
    not be finite, or the variance would vanish), naming the source. Nothing is kept on a
    failure, so the caller's current data stays as it was.
    """
    images = np.asarray(images, dtype=np.float64)
    if images.ndim != 3:
        raise ValueError(f"expected images of shape (n, height, width), got shape {images.shape}")
    n, h, w = images.shape
    if n < 2:
        raise ValueError(f"PCA needs at least 2 images, {source} has {n}")
    if not np.all(np.isfinite(images)):
        raise ValueError(f"{source} has pixel values that are not finite numbers")
    X = images.reshape(n, h * w)
    if not np.any(X != X[0]):
        raise ValueError(f"all {n} images of {source} are identical (zero variance): there are no principal directions")
    D = h * w
    K = min(n, D, MAX_COMPONENTS)
    try:
        pca = PCA(n_components=K, method="eigh").fit(X)
    except ValueError as exc:
        text = str(exc).replace("X has values", "its pixels have values").replace("X varies", "its pixels vary")
        raise ValueError(f"{source}: {text}") from None
    W = np.asarray(pca.components_)
    lam = np.asarray(pca.eigenvalues_)
    total = float(pca.total_variance_)
    Xc = X - pca.mean_
    scores = Xc @ W.T
    sq = np.einsum("ij,ij->i", Xc, Xc)
    errors = pca.reconstruction_errors()
    gap = int(np.argmax(lam[:-1] - lam[1:])) + 1 if K >= 3 else None
    labels = np.asarray(labels, dtype=np.int64).reshape(-1)
    if labels.shape != (n,):
        labels = np.full(n, -1, dtype=np.int64)
    return PCAData(
        source=source, key=tuple(key), images=frozen_array(images), X=frozen_array(X), labels=frozen_array(labels),
        shape=(int(h), int(w)), mean=frozen_array(np.array(pca.mean_)), components=frozen_array(W),
        eigenvalues=frozen_array(lam), total_variance=total, ratio=frozen_array(lam / total),
        cumulative=frozen_array(np.cumsum(lam) / total), errors=frozen_array(np.asarray(errors, float)),
        scores=frozen_array(scores), sq_norms=frozen_array(sq), sample=frozen_array(_sample_indices(labels, n)),
        gap=gap,
        lo=float(X.min()), hi=float(X.max()), route=pca.route_,
    )


def short_name(path: str) -> str:
    name = os.path.basename(os.path.normpath(str(path))) or str(path)
    return name if len(name) <= 40 else name[:18] + "…" + name[-18:]


def load_data(digit: str = "3", path: str = "") -> PCAData:
    """The data of a run, from the cache when the same source was prepared before.

    ``path`` (a folder of images or a .npy/.npz stack) wins over ``digit`` when given.
    """
    if path:
        key = file_key(path)

        def compute():
            images = load_image_stack(path)
            return build_data(images, np.full(len(images), -1), short_name(path), key)
    else:
        if digit not in [c for c, _ in DIGIT_CHOICES]:
            raise ValueError(f"digit must be 'all' or 0..9, got {str(digit)[:20]!r}")
        key = ("digits", digit)

        def compute():
            images, labels = load_digits(None if digit == "all" else int(digit))
            name = "all digits" if digit == "all" else f"the {digit}s"
            return build_data(images, labels, name, key)
    return _DATA_CACHE.get_or_compute(key, compute)


# ----------------------------------------------------------------------------- the run
@dataclass(frozen=True, kw_only=True, eq=False)
class PCALabSnapshot(Snapshot):
    """One power-method step plus the data and the exact answer it is compared with.

    The engine's :class:`~smlengine.pca.PCASnapshot` fields are copied in flat (the
    runner counts every snapshot's arrays, so no nested dataclass: ~5,000 steps a second
    arrive when playing flat out): ``component`` (j, 0-based), ``vector`` (the iterate v),
    ``rayleigh`` (ρ = vᵀBv), ``change`` (‖Δv‖), ``n_iter`` (t), ``converged``,
    ``components``/``eigenvalues`` (found so far, shared between steps of a component).
    Added: ``data`` (shared :class:`PCAData`), ``k`` (components the power method finds),
    ``exact_lambda`` (exact λ_{j+1}), ``rate`` = λ_{j+2}/λ_{j+1} (the convergence factor per
    iteration), ``angle`` (rad, iterate to the exact ξ_{j+1}) and ``predicted`` = θ_0·rate^t.

    A value that is undefined at a step is None, never NaN: ``change`` before the first
    iteration of a component, ``rate`` and ``predicted`` for the last exact component (no
    λ_{j+2}) or when λ_{j+1} = 0, ``exact_lambda`` and ``angle`` beyond the exact components.
    """

    data: PCAData
    component: int
    vector: np.ndarray
    rayleigh: float
    change: float | None
    n_iter: int
    converged: bool
    components: np.ndarray
    eigenvalues: np.ndarray
    k: int
    exact_lambda: float | None
    rate: float | None
    angle: float | None
    predicted: float | None


def _angle(v: np.ndarray, xi: np.ndarray) -> float:
    c = abs(float(xi @ v))
    s = float(np.linalg.norm(v - (xi @ v) * xi))
    return math.atan2(s, c)


def run_steps(digit: str, path: str, n_power: int, tol: float, max_iter: int, seed: int):
    """The lab's run: data + exact PCA, then the power method with deflation, live."""
    data = load_data(digit, path)
    k = max(1, min(int(n_power), data.K))
    lam = data.eigenvalues
    model = PCA(n_components=k, method="power", tol=tol, max_iter=max_iter, random_state=seed)
    theta0 = None
    for snap in model.fit_steps(data.X):
        j = snap.component
        exact = float(lam[j]) if j < data.K else None
        rate = float(lam[j + 1] / lam[j]) if j + 1 < data.K and lam[j] > 0 else None
        angle = snap.angle
        if j < data.K and (snap.phase == "deflate" or angle is None):
            angle = _angle(snap.vector, data.components[j])
        if snap.phase == "init":
            theta0 = angle
        predicted = theta0 * rate ** snap.n_iter if theta0 is not None and rate is not None else None
        yield PCALabSnapshot(step=snap.step, phase=snap.phase, progress=snap.progress, data=data,
                             component=j, vector=snap.vector, rayleigh=snap.rayleigh, change=snap.change,
                             n_iter=snap.n_iter, converged=snap.converged, components=snap.components,
                             eigenvalues=snap.eigenvalues, k=k, exact_lambda=exact, rate=rate,
                             angle=None if angle is None else float(angle),
                             predicted=None if predicted is None else float(predicted))


# ----------------------------------------------------------------------------- views' helpers
def reconstruct(data: PCAData, indices, d: int) -> np.ndarray:
    """x^(d) = μ̂ + Σ_{j ≤ d} c_j ξ_j of the training images ``indices``, shape (m, D)."""
    idx = np.asarray(indices, dtype=np.int64)
    d = int(min(max(d, 0), data.K))
    return data.mean + data.scores[idx, :d] @ data.components[:d]


def project(data: PCAData, x: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Coefficients c (d,), reconstruction x^(d) (D,) and residual norm ‖x − x^(d)‖ of any image."""
    d = int(min(max(d, 0), data.K))
    x = np.asarray(x, dtype=float).reshape(-1)
    W = data.components[:d]
    c = W @ (x - data.mean)
    rec = data.mean + c @ W
    return c, rec, float(np.linalg.norm(x - rec))


def residual_norms(data: PCAData, d: int) -> np.ndarray:
    """‖x_i − x_i^(d)‖ of every training image: ‖x_i − μ̂‖² − Σ_{j≤d} c_ij² (ξ orthonormal)."""
    d = int(min(max(d, 0), data.K))
    r2 = data.sq_norms - np.einsum("ij,ij->i", data.scores[:, :d], data.scores[:, :d])
    return np.sqrt(np.maximum(r2, 0.0))


def heldout_affordable(data: PCAData) -> bool:
    """Whether the 10 cross-validation fits are cheap enough to run when a drawing is first
    judged (each costs about n·D·min(n, D) multiply-adds: a fraction of a second up to
    HELDOUT_MAX_WORK); larger stacks are judged by their training residuals."""
    return data.n >= 3 and data.n * data.D * min(data.n, data.D) <= HELDOUT_MAX_WORK


def heldout_residual_norms(data: PCAData, d: int) -> np.ndarray:
    """‖x_i − x_i^(d)‖ of every training image with the model fitted without it (10-fold
    cross-validation, :func:`smlengine.pca.heldout_residuals`; all d at once, cached per data).
    Falls back to the training residuals when there are too few images to hold some out or
    the fits would take long (:func:`heldout_affordable`)."""
    d = int(min(max(d, 0), data.K))

    def compute():
        if not heldout_affordable(data):
            return None
        try:
            return frozen_array(heldout_residuals(data.X, data.K, n_folds=NOVELTY_FOLDS, random_state=0))
        except ValueError:
            return None

    table = _HELDOUT_CACHE.get_or_compute((data.key, data.source), compute)
    return residual_norms(data, d) if table is None else table[:, d]


def novelty_threshold(data: PCAData, d: int, percentile: float = NOVELTY_PERCENTILE) -> float:
    """The residual norm above which an image is called a novelty: a percentile of the
    held-out residuals of the training images. Their in-sample residuals are optimistically
    small (the components were fitted to them): a new image of the same kind would be called
    a novelty far more often than 1 − percentile of the time."""
    return float(np.percentile(heldout_residual_norms(data, d), percentile))


def mosaic(tiles: np.ndarray, cols: int, pad: int = 1, fill: float = math.nan) -> np.ndarray:
    """Tiles (m, h, w) laid out row by row in ``cols`` columns with ``pad`` pixels of ``fill``."""
    tiles = np.asarray(tiles, dtype=float)
    m, h, w = tiles.shape
    cols = max(1, min(int(cols), max(m, 1)))
    rows = max(1, -(-m // cols))
    out = np.full((rows * (h + pad) - pad, cols * (w + pad) - pad), fill)
    for i in range(m):
        r, c = divmod(i, cols)
        out[r * (h + pad): r * (h + pad) + h, c * (w + pad): c * (w + pad) + w] = tiles[i]
    return out


def normalised(tiles: np.ndarray) -> np.ndarray:
    """Each row scaled to max |value| = 1 (eigenvectors drawn with one symmetric colour scale)."""
    tiles = np.asarray(tiles, dtype=float)
    scale = np.max(np.abs(tiles.reshape(len(tiles), -1)), axis=1) if len(tiles) else np.zeros(0)
    scale[scale == 0] = 1.0
    return tiles / scale.reshape((-1,) + (1,) * (tiles.ndim - 1))


def sign_fixed(v: np.ndarray) -> np.ndarray:
    """v with its largest-magnitude entry positive (the engine's sign convention)."""
    i = int(np.argmax(np.abs(v)))
    return -v if v[i] < 0 else v


def compression_numbers(data: PCAData, d: int) -> dict:
    """Storage, compression ratio and error for d components (the text under the slider)."""
    d = int(min(max(d, 0), data.K))
    n, D = data.n, data.D
    err = float(data.errors[d])
    return {"d": d, "n": n, "D": D, "raw": n * D, "stored": storage_cost(n, D, d),
            "ratio": compression_ratio(n, D, d), "error": err, "mse": err / n,
            "explained": float(data.cumulative[d - 1]) if d >= 1 else 0.0}


# ----------------------------------------------------------------------------- drawing
def is_digits(data: PCAData) -> bool:
    """The shipped UCI digits (a drawing reaches them through the UCI preprocessing)."""
    return bool(data.key) and data.key[0] == "digits"


def drawing_geometry(data: PCAData) -> tuple[tuple[int, int], float, int]:
    """Fine shape of the drawing, pen radius and grid step (fine pixels) for the data.

    Digits: 64 × 64 with a pen of radius 4 (a stroke an eighth of the canvas wide: a digit
    drawn to fill the canvas gets the stroke width of the shipped digits, about 30 % of
    the normalised bitmap inked). Other images: each pixel is k × k fine pixels, k the
    smallest whole number giving at least 48 per side, the pen radius a sixteenth of the side.
    """
    if is_digits(data):
        return (DRAW_SIDE, DRAW_SIDE), DRAW_SIDE / 16, DRAW_SIDE // 8
    h, w = data.shape
    k = max(1, -(-MIN_DRAW_SIDE // max(h, w)))
    grid = k if max(h, w) <= 32 else 0
    return (k * h, k * w), max(1.0, min(k * h, k * w) / 16), grid


def paint_polyline(ink: np.ndarray, points, radius: float, value: float = 1.0) -> bool:
    """Set ``ink`` to ``value`` within ``radius`` of the polyline through ``points`` (x = column,
    y = row, pixel (r, c) centred at (c + ½, r + ½)); one point paints a dot. Returns whether a
    pixel changed. Each segment touches only the pixels of its bounding box."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    if len(pts) == 0 or not np.all(np.isfinite(pts)):
        return False
    if len(pts) == 1:
        pts = np.vstack([pts, pts])
    h, w = ink.shape
    r2 = float(radius) ** 2
    changed = False
    for (x0, y0), (x1, y1) in zip(pts[:-1], pts[1:]):
        c0 = max(0, int(np.floor(min(x0, x1) - radius)))
        c1 = min(w, int(np.ceil(max(x0, x1) + radius)) + 1)
        rr0 = max(0, int(np.floor(min(y0, y1) - radius)))
        rr1 = min(h, int(np.ceil(max(y0, y1) + radius)) + 1)
        if c0 >= c1 or rr0 >= rr1:
            continue
        yy, xx = np.mgrid[rr0:rr1, c0:c1] + 0.5
        dx, dy = x1 - x0, y1 - y0
        length2 = dx * dx + dy * dy
        t = np.clip(((xx - x0) * dx + (yy - y0) * dy) / length2, 0.0, 1.0) if length2 > 0 else 0.0
        hit = (xx - x0 - t * dx) ** 2 + (yy - y0 - t * dy) ** 2 <= r2
        block = ink[rr0:rr1, c0:c1]
        if np.any(block[hit] != value):
            block[hit] = value
            changed = True
    return changed


def model_input(data: PCAData, ink: np.ndarray) -> np.ndarray | None:
    """The image (h × w, on the data's scale) the model sees of a drawing, None when blank
    (digits: no pixel with ink ≥ ½; other images: no ink at all).

    Digits: :func:`smlengine.datasets.digit_from_bitmap` (binarise, redraw the skeleton with
    the data set's ink, normalise to 20 × 32, centre, count 4 × 4 blocks: the UCI preprocessing).
    Other images: the mean ink of each k × k block, mapped onto the data's range [lo, hi].
    """
    ink = np.asarray(ink, dtype=float)
    if is_digits(data):
        return digit_from_bitmap(ink) if np.any(ink >= 0.5) else None
    if not np.any(ink > 0):
        return None
    h, w = data.shape
    k = ink.shape[0] // h
    mean = ink[: k * h, : k * w].reshape(h, k, w, k).mean(axis=(1, 3))
    return data.lo + (data.hi - data.lo) * mean


def ink_of_image(data: PCAData, image: np.ndarray) -> np.ndarray:
    """A drawing of one of the data's images (Copy digit): a digit's 4 × 4 blocks with as many
    pixels on as the block counts, enlarged to the drawing; other images
    enlarged k × k with ink (x − lo) / (hi − lo), so their block means give the image back."""
    (H, W), _r, _g = drawing_geometry(data)
    image = np.asarray(image, dtype=float).reshape(data.shape)
    if is_digits(data):
        counts = np.clip(np.round(image), 0, 16).astype(int)
        # within each block, the pixels where the blurred digit is darkest come on first, so the
        # strokes run on from block to block
        smooth = ndimage.gaussian_filter(np.kron(counts.astype(float), np.ones((4, 4))), sigma=2.0, mode="constant")
        blocks = smooth.reshape(8, 4, 8, 4).transpose(0, 2, 1, 3).reshape(8, 8, 16)
        rank = np.argsort(np.argsort(-blocks, axis=2, kind="stable"), axis=2, kind="stable")
        on = rank < counts[:, :, None]
        bitmap = on.reshape(8, 8, 4, 4).transpose(0, 2, 1, 3).reshape(32, 32).astype(float)
        f = H // bitmap.shape[0]
        return np.kron(bitmap, np.ones((f, f)))
    h, w = data.shape
    k = H // h
    span = data.hi - data.lo
    grey = (image - data.lo) / span if span > 0 else np.zeros_like(image)
    return np.kron(np.clip(grey, 0.0, 1.0), np.ones((k, k)))
