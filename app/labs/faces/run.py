"""The face-detection lab's run (Qt-free): photos, the two runs and the drawing helpers.

* **Detect faces** (default): the shipped cascade (or one trained in the lab) slides its
  24 x 24 window over the image pyramid, the largest windows first; each step scans one band
  of window rows of one level (at most :data:`WINDOWS_PER_STEP` windows), so the sweep down the
  photo plays at the run bar's speed. It keeps the windows every stage accepts, groups them
  (:func:`smlengine.detection.group_rectangles`: a face needs more than ``min_neighbors``
  overlapping windows) and the "stages passed" map of the level being scanned (the heat map).
  The last step adds nothing new: it groups once more and says what was found.
* **Train a cascade**: :meth:`smlengine.cascade.Cascade.fit_steps` live, on the augmented LFW
  faces and windows mined from the face-free scikit-image photos, with the classroom-demo
  settings of ``resources/data/scripts/train_face_cascade.py --demo``.

Here too: the file check before a photo is opened; the side tasks (scikit-image's LBP cascade,
the galleries, a clicked window's report) are in :mod:`.side_tasks`. Loaded photos, data and
the shipped cascade are cached (:class:`smlengine.cache.LRUCache`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterator

import numpy as np

from smlengine import Snapshot, frozen_array
from smlengine.cache import LRUCache, file_key
from smlengine.cascade import Cascade, to_grey_float
from smlengine.datasets import load_cascade, load_face_patches, negative_photos, read_image_file
from smlengine.detection import group_rectangles

MODES = [("detect", "Detect faces"), ("train", "Train a cascade")]
CASCADES = [("shipped", "shipped (19 stages)"), ("trained", "trained here")]
STEPS = [(0, "auto"), (1, "1 px"), (2, "2 px"), (4, "4 px")]
DEFAULT_PHOTO = "astronaut"
WINDOW = 24
#: most windows scanned per step of the detection run: one band of window rows of one level, so
#: the sweep down the photo follows the run bar's speed (29 steps on the astronaut); much smaller
#: bands would slow "Fastest" down (a flat-out runner pauses before each frame for a short step)
WINDOWS_PER_STEP = 12_000
#: pixel budget of an opened photo (larger ones are area-averaged down, with a note)
FILE_MAX_PIXELS = 640 * 640
MAX_RAW_DRAWN = 3000
#: the default vote: a face needs more than this many overlapping accepted windows (the engine's
#: default, chosen on the photos the cascade was trained on; see ``Cascade.detect``)
MIN_NEIGHBORS = 4
#: detections whose neighbour count is written beside them
MAX_COUNTS = 12
#: the key of the detection photo: what each kind of box is ("{n}" = the min. neighbours)
KEY = {"raw": "windows", "faces": "faces: n > {n}", "lbp": "LBP (skimage)", "band": "scanning"}


def key_text(name: str, min_neighbors) -> str:
    """The key's entry for a kind of box (the faces' entry names the vote in force)."""
    return KEY[name].replace("{n}", str(int(min_neighbors)))
#: accepted windows merged at every step / at the end (more: too few stages for a useful merge)
GROUP_EACH_STEP = 5_000
GROUP_AT_END = 20_000

#: the classroom demo of resources/data/scripts/train_face_cascade.py (--demo)
DEMO = dict(window=24, stage_detection_rate=0.999, stage_false_positive_rate=0.5, target_false_positive_rate=1e-6,
            max_stages=5, max_features_per_stage=200, negatives_per_stage=500, feature_min_size=1,
            feature_step=1, n_candidate_features=2000)
DATA = dict(window=24, test_fraction=0.2, n_augment=20, random_state=0)

_NO_GROUP = np.zeros(0, dtype=np.int64)
_NO_GROUP.setflags(write=False)
_NO_GROUPS = np.zeros((0, 5))
_NO_GROUPS.setflags(write=False)
_IMAGES = LRUCache(4)
_CACHE = LRUCache(8)


# ----------------------------------------------------------------------------- data


@dataclass(frozen=True, eq=False)
class Photo:
    """A grey photo in [0, 1] ready for detection."""

    grey: np.ndarray
    label: str
    note: str  # "" or the reader's sentence (downscaled, alpha dropped, ...)
    full_shape: tuple


def source_key(source: tuple) -> tuple:
    """Cache key of a photo source: ("photo", name) or ("file", path, mtime, size)."""
    return file_key(source[1]) if source[0] == "file" else tuple(source)


def load_source(source: tuple) -> Photo:
    """("photo", name) or ("file", path) -> :class:`Photo`; ValueError with a short message."""
    def compute():
        if source[0] == "file":
            image, note = read_image_file(source[1], max_pixels=FILE_MAX_PIXELS)
            label = os.path.basename(source[1])[:60]
        else:
            import skimage.data  # deferred: scikit-image's sample photos load on first use

            name = str(source[1])
            if name not in ("astronaut", "camera"):
                raise ValueError(f"unknown photo {name[:40]!r}")
            image, note, label = getattr(skimage.data, name)(), "", name
        grey = np.ascontiguousarray(to_grey_float(image, name="the image"))
        if min(grey.shape) < WINDOW:
            raise ValueError(f"the image is {grey.shape[1]} x {grey.shape[0]} pixels, smaller than the "
                             f"{WINDOW} x {WINDOW} window")
        grey.setflags(write=False)
        full = image.shape[:2]
        return Photo(grey, label, note or "", tuple(full))

    return _IMAGES.get_or_compute(source_key(source), compute)


def clear_caches() -> None:
    """Drop the photos, the training data (about 100 MB of face patches and face-free photos)
    and the cascades kept for the next run: called when the lab shuts down, so a closed lab
    leaves none of them behind."""
    _IMAGES.clear()
    _CACHE.clear()


def check_file(path: str) -> Photo:
    """Side task before a file becomes the photo: read it (errors -> the banner, nothing changes)."""
    return load_source(("file", str(path)))


def shipped_cascade():
    return _CACHE.get_or_compute("shipped", load_cascade)


def training_data():
    """(augmented training faces, LFW non-faces, face-free photos) -- cached."""

    def compute():
        fp = load_face_patches(**DATA)
        return fp, list(negative_photos("train").values())

    return _CACHE.get_or_compute("training-data", compute)


def level_scales(shape, scale_factor: float, window: int = WINDOW) -> list[float]:
    """Window sizes of the pyramid (as multiples of W), smallest first -- the engine's rule."""
    h, w = shape
    out, s = [], 1.0
    while int(round(h / s)) >= window and int(round(w / s)) >= window:
        out.append(s)
        s *= scale_factor
    return out


def level_windows(shape, s: float, step: int, window: int = WINDOW) -> int:
    h, w = shape
    oh, ow = int(round(h / s)), int(round(w / s))
    st = step if step else (2 if h / oh <= 2.0 else 1)
    return ((oh - window) // st + 1) * ((ow - window) // st + 1)


# ----------------------------------------------------------------------------- detection run


@dataclass(frozen=True, eq=False)
class DetectContext:
    """What stays the same during one detection run (shared by its snapshots)."""

    photo: Photo
    cascade: Any
    cascade_name: str
    n_stages: int
    scales: tuple
    n_windows: int
    params: dict


@dataclass(frozen=True, kw_only=True, eq=False)
class FacesDetectSnapshot(Snapshot):
    """One step of the sliding-window search: one band of window rows of one pyramid level.

    Attributes
    ----------
    ctx : DetectContext
    event : str  'start', 'scan' or 'done'
    message : str
    levels_done : int  pyramid levels scanned whole so far (largest windows first)
    windows_scanned : int
    boxes : ndarray (k, 5)  detections so far: row, col, height, width, neighbour count
    raw : ndarray (m, 4)  windows accepted by every stage used, so far
    raw_group : ndarray (m,)  group of each raw window (index into ``groups``; -1: not grouped yet)
    groups : ndarray (g, 5)  every group of overlapping raw windows (mean box, neighbour count),
        kept or not
    funnel : ndarray (K + 1,)  windows scanned that passed at least j stages, j = 0..K
    heat_parts : tuple of ndarray  the bands of the heat map's level scanned so far (stacked: ``heat``)
    heat_level : int  index of that level in ``ctx.scales`` (-1: none)
    heat_geometry : tuple  (top, left, cell_h, cell_w, window_h, window_w) in image pixels
    band : tuple  (top, left, height, width) in image pixels of the windows scanned in this step, or ()
    done : bool
    """

    ctx: DetectContext
    event: str
    message: str = ""
    levels_done: int = 0
    windows_scanned: int = 0
    boxes: np.ndarray
    raw: np.ndarray
    raw_group: np.ndarray = field(default_factory=lambda: _NO_GROUP)
    groups: np.ndarray = field(default_factory=lambda: _NO_GROUPS)
    funnel: np.ndarray
    heat_parts: tuple = ()
    heat_level: int = -1
    heat_geometry: tuple = ()
    band: tuple = ()
    done: bool = False

    @property
    def mode(self) -> str:
        return "detect"

    @cached_property
    def heat(self) -> np.ndarray | None:
        """Stages passed at the heat map's level, rows scanned so far (None before any)."""
        if not self.heat_parts:
            return None
        if len(self.heat_parts) == 1:
            return self.heat_parts[0]
        return frozen_array(np.concatenate(self.heat_parts))


def _heat_choice(boxes, maps, scales):
    """The level whose window is closest to the strongest detection (else the smallest level scanned)."""
    if not maps:
        return -1
    if boxes.shape[0]:
        side = float(boxes[0, 2])
        return min(maps, key=lambda i: abs(np.log(WINDOW * scales[i] / side)))
    return min(maps)


def _grouped(raw, mn, limit):
    """Detections, each raw window's group and every group (empty when there are too many windows)."""
    if not 0 < raw.shape[0] <= limit:
        return np.zeros((0, 5)), np.full(raw.shape[0], -1, dtype=np.int64), _NO_GROUPS
    boxes, labels, kept = group_rectangles(raw, min_neighbors=mn, return_labels=True)
    n = np.bincount(labels).astype(float)
    groups = np.column_stack([np.stack([np.bincount(labels, weights=raw[:, k]) for k in range(4)], axis=1)
                              / n[:, None], n])
    return frozen_array(boxes), frozen_array(labels), frozen_array(groups)


def _detect_steps(source: tuple, params: dict, trained=None) -> Iterator[FacesDetectSnapshot]:
    """The detection run: step 0 the photo, then one band of window rows per step (the largest
    windows first), then 'done' with the final grouping."""
    photo = load_source(source)
    if params["cascade"] == "trained":
        if trained is None:
            raise ValueError("No cascade has been trained yet: choose mode “Train a cascade”, let it finish, "
                             "then detect with it (or use the shipped cascade).")
        cascade, name = trained, "trained here"
    else:
        cascade, name = shipped_cascade(), "shipped"
    K = min(int(params["n_stages"]), cascade.n_stages_)
    factor = float(params["scale_factor"])
    step = int(params["step"])
    mn = int(params["min_neighbors"])
    grey = photo.grey
    scales = level_scales(grey.shape, factor)
    counts = [level_windows(grey.shape, s, step) for s in scales]
    ctx = DetectContext(photo, cascade, name, K, tuple(scales), int(sum(counts)), dict(params))
    empty = np.zeros((0, 5))
    funnel = np.zeros(K + 1, dtype=np.int64)
    yield FacesDetectSnapshot(
        step=0, phase="photo", ctx=ctx, event="start", boxes=empty, raw=np.zeros((0, 4)), funnel=frozen_array(funnel),
        message=f"{photo.label}: {grey.shape[1]} × {grey.shape[0]} px, {len(scales)} window sizes, "
                f"{ctx.n_windows:,} windows to scan with {K} stage(s).")
    raw_parts: list[np.ndarray] = []
    maps: dict[int, list] = {}
    geometry: dict[int, tuple] = {}
    scanned = 0
    done_levels = 0
    n = 0
    raw = np.zeros((0, 4))
    for bd in cascade.scan_bands(grey, factor, step or None, n_stages=K, max_windows=WINDOWS_PER_STEP,
                                 largest_first=True):
        li = bd["level"]
        p = bd["passed"]
        p.setflags(write=False)
        st_ = bd["step"]
        sy, sx = bd["scale_y"], bd["scale_x"]
        wh, ww = WINDOW * sy, WINDOW * sx
        maps.setdefault(li, []).append(p)
        geometry[li] = (0.0, 0.0, st_ * sy, st_ * sx, wh, ww)
        funnel += np.bincount(p.ravel(), minlength=K + 1)[::-1].cumsum()[::-1][: K + 1]
        r0 = bd["row0"]
        rr, cc = np.nonzero(p >= K)
        if rr.size or n == 0:  # regroup only when windows were added
            if rr.size:
                raw_parts.append(np.column_stack([(rr + r0) * st_ * sy, cc * st_ * sx, np.full(rr.size, wh),
                                                  np.full(rr.size, ww)]))
                raw = frozen_array(np.concatenate(raw_parts))
            boxes, labels, groups = _grouped(raw, mn, GROUP_EACH_STEP)
        scanned += p.size
        last_row = r0 + p.shape[0]
        if last_row == bd["n_rows"]:
            done_levels += 1
        n += 1
        band = (r0 * st_ * sy, 0.0, (p.shape[0] - 1) * st_ * sy + wh, (p.shape[1] - 1) * st_ * sx + ww)
        yield FacesDetectSnapshot(
            step=n, phase="scanning", progress=scanned / max(ctx.n_windows, 1), ctx=ctx, event="scan",
            levels_done=done_levels, windows_scanned=scanned, boxes=boxes, raw=raw, raw_group=labels, groups=groups,
            funnel=frozen_array(funnel), heat_parts=tuple(maps[li]), heat_level=li, heat_geometry=geometry[li],
            band=band,
            message=f"Windows of {ww:.0f} px, rows {r0 + 1}–{last_row} of {bd['n_rows']}: {raw.shape[0]} accepted by "
                    f"all {K} stages so far, {boxes.shape[0]} detection(s).")
    boxes, labels, groups = _grouped(raw, mn, GROUP_AT_END)
    hl = _heat_choice(boxes, maps, scales)
    n += 1
    note = ""
    if raw.shape[0] > GROUP_AT_END:
        note = (f" {raw.shape[0]:,} windows pass the {K} stage(s): too many to merge into detections -- "
                "use more stages.")
    yield FacesDetectSnapshot(
        step=n, phase="done", progress=1.0, ctx=ctx, event="done", levels_done=done_levels, windows_scanned=scanned,
        boxes=boxes, raw=raw, raw_group=labels, groups=groups, funnel=frozen_array(funnel),
        heat_parts=tuple(maps[hl]) if hl >= 0 else (), heat_level=hl, heat_geometry=geometry[hl] if hl >= 0 else (),
        done=True,
        message=f"{boxes.shape[0]} face(s) found in {scanned:,} windows: {raw.shape[0]} accepted windows form "
                f"{groups.shape[0]} group(s); a face needs more than {mn} neighbours.{note}")


# ----------------------------------------------------------------------------- training run


@dataclass(frozen=True, eq=False)
class TrainContext:
    mean_face: np.ndarray
    cascade: Any
    n_faces: int
    params: dict


@dataclass(frozen=True, kw_only=True, eq=False)
class FacesTrainSnapshot(Snapshot):
    """One event of cascade training: the engine's snapshot plus the features chosen so far.

    ``features`` is a tuple of (stage, rects (4, 4), weights (4,)) of every stump chosen so
    far (arrays shared between snapshots); ``stumps`` counts them. ``stage_rates`` is a tuple of
    (stage DR, stage FPR, mined acceptance) of the finished stages.
    """

    ctx: TrainContext
    engine: Any
    features: tuple = ()
    stage_rates: tuple = ()

    @property
    def mode(self) -> str:
        return "train"

    @property
    def stumps(self) -> int:
        return len(self.features)


def train_params(params: dict, seed: int) -> dict:
    out = dict(DEMO)
    out.update(stage_detection_rate=float(params["stage_dr"]), stage_false_positive_rate=float(params["stage_fpr"]),
               max_stages=int(params["max_stages"]), max_features_per_stage=int(params["max_features"]),
               random_state=int(seed))
    return out


def _train_steps(params: dict, seed: int) -> Iterator[FacesTrainSnapshot]:
    fp, photos = training_data()
    faces = fp.train_faces
    mean_face = _CACHE.get_or_compute("mean-face", lambda: frozen_array(faces.mean(axis=0)))
    cascade = Cascade(**train_params(params, seed))
    ctx = TrainContext(mean_face, cascade, int(faces.shape[0]), dict(params))
    feats: tuple = ()
    rates: tuple = ()
    last_acceptance = None  # the acceptance of the last mining scan (None before any)
    for snap in cascade.fit_steps(faces, [fp.non_faces, *photos]):
        if snap.event == "feature":
            feats = feats + ((snap.stage, snap.feature_rects, snap.feature_weights),)
        if snap.phase == "mining":
            last_acceptance = snap.mined_acceptance
        if snap.event == "stage":
            rates = rates + ((snap.stage_detection_rate, snap.stage_false_positive_rate,
                              snap.mined_acceptance if snap.mined_acceptance is not None
                              else last_acceptance),)
        yield FacesTrainSnapshot(step=snap.step, phase=snap.phase, progress=snap.progress, ctx=ctx, engine=snap,
                                 features=feats, stage_rates=rates)


def run_steps(params: dict, seed: int, source: tuple | None = None,
              trained=None) -> Iterator[FacesDetectSnapshot] | Iterator[FacesTrainSnapshot]:
    """The lab's run: cascade training when ``params['mode']`` is 'train', else the detection of
    ``source`` with the shipped cascade or ``trained``."""
    if params["mode"] == "train":
        return _train_steps(params, seed)
    return _detect_steps(source, params, trained)


# ----------------------------------------------------------------------------- drawing helpers


def box_polyline(boxes) -> tuple[np.ndarray, np.ndarray]:
    """x, y of all rectangles (row, col, h, w) as one polyline with NaN breaks (one plot item)."""
    b = np.asarray(boxes, dtype=float).reshape(-1, np.shape(boxes)[-1] if np.ndim(boxes) == 2 else 4)
    if b.shape[0] == 0:
        return np.zeros(0), np.zeros(0)
    r, c, h, w = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    xs = np.column_stack([c, c + w, c + w, c, c, np.full_like(c, np.nan)]).ravel()
    ys = np.column_stack([r, r, r + h, r + h, r, np.full_like(r, np.nan)]).ravel()
    return xs, ys


def feature_image(rects, weights, base=None, window: int = WINDOW) -> np.ndarray:
    """RGB uint8 picture of a Haar feature over ``base`` (e.g. the mean face): grey blocks dark,
    white blocks light, the face visible underneath."""
    if base is None:
        base = np.full((window, window), 0.5)
    b = np.asarray(base, dtype=float)
    lo, hi = float(b.min()), float(b.max())
    g = (b - lo) / (hi - lo) if hi > lo else np.full_like(b, 0.5)
    img = np.repeat((0.25 + 0.5 * g)[..., None], 3, axis=2)
    for (r, c, h, w), wt in zip(np.asarray(rects), np.asarray(weights)):
        if wt == 0 or h <= 0 or w <= 0:
            continue
        colour = np.array([0.15, 0.15, 0.15]) if wt > 0 else np.array([1.0, 1.0, 1.0])
        img[r:r + h, c:c + w] = 0.35 * img[r:r + h, c:c + w] + 0.65 * colour
    return (255 * np.clip(img, 0, 1)).astype(np.uint8)


def mosaic(tiles, columns: int, gap: int = 2, fill: float = 1.0) -> np.ndarray:
    """One big grey image of the tiles (n, h, w) in a grid: a gallery drawn with a single setImage."""
    tiles = np.asarray(tiles, dtype=float)
    if tiles.ndim != 3 or tiles.shape[0] == 0:
        return np.full((1, 1), fill)
    n, h, w = tiles.shape
    cols = max(1, min(columns, n))
    rows = -(-n // cols)
    out = np.full((rows * (h + gap) - gap, cols * (w + gap) - gap), fill)
    for k in range(n):
        i, j = divmod(k, cols)
        t = tiles[k]
        lo, hi = float(t.min()), float(t.max())
        cell = (t - lo) / (hi - lo) if hi > lo else 0.5
        out[i * (h + gap): i * (h + gap) + h, j * (w + gap): j * (w + gap) + w] = cell
    return out


def feature_gallery(features, base, columns: int = 10, gap: int = 2) -> np.ndarray:
    """RGB mosaic of the chosen stumps' features over the mean face (newest last)."""
    n = len(features)
    if n == 0:
        return np.full((1, 1, 3), 255, np.uint8)
    tiles = [feature_image(r, w, base) for _, r, w in features]
    h, w = tiles[0].shape[:2]
    cols = max(1, min(columns, n))
    rows = -(-n // cols)
    out = np.full((rows * (h + gap) - gap, cols * (w + gap) - gap, 3), 255, np.uint8)
    for k, t in enumerate(tiles):
        i, j = divmod(k, cols)
        out[i * (h + gap): i * (h + gap) + h, j * (w + gap): j * (w + gap) + w] = t
    return out
