"""The Viola-Jones cascade as an estimator: fit (train), classify patches, detect in photos.

The pieces live beside it: :mod:`.training` (boosted stages and the snapshots of a live run),
:mod:`.miner` (hard negatives), :mod:`.scan` (the sliding-window evaluation) and
:mod:`.fileformat` (the ``.npz`` file).
"""

from __future__ import annotations

import numbers

import numpy as np

from .._base import BaseEstimator, IterativeMixin, NotFittedError, check_scalar, frozen_array
from .._params import InstanceOf, Integral, Interval, RandomState, Real
from ..detection import group_rectangles
from ..haar import FEATURE_TYPES, haar_feature_set, integral_image
from . import fileformat
from .scan import (
    StageEvaluator,
    area_resize,
    eval_grid,
    eval_pyramid,
    eval_windows,
    level_integrals,
    level_scales,
    pyramid_level,
    to_grey_float,
    window_stats,
)
from .training import train_steps

__all__ = ["Cascade", "group_boxes", "MAX_IMAGE_PIXELS", "MIN_SCALE_FACTOR"]

#: largest image (and largest pyramid level) the detector scans, in pixels (e.g. 4096 x 2048): a
#: scan costs about 50 bytes per pixel of the image at its peak
MAX_IMAGE_PIXELS = 4096 * 2048
#: smallest ratio between successive window sizes (a pyramid of at most a few hundred levels)
MIN_SCALE_FACTOR = 1.01


def group_boxes(boxes: np.ndarray, min_neighbors: int = 3, eps: float = 0.2) -> np.ndarray:
    """Merge overlapping windows into detections: :func:`smlengine.detection.group_rectangles`.

    Returns an array (k, 5): row, col, height, width, neighbour count (windows merged), most
    neighbours first.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cascade import group_boxes
    >>> boxes = np.array([[10, 10, 24, 24], [11, 10, 24, 24], [10, 12, 24, 24], [80, 80, 24, 24]])
    >>> print(np.round(group_boxes(boxes, min_neighbors=2), 3))
    [[10.333 10.667 24.    24.     3.   ]]
    """
    return group_rectangles(boxes, min_neighbors=min_neighbors, eps=eps)


class Cascade(IterativeMixin, BaseEstimator):
    """Attentional cascade of boosted Haar-feature stumps (Viola-Jones).

    Parameters
    ----------
    window : int, default=24
        Side W of the square detection window (the size of the training patches).
    stage_detection_rate : float, default=0.995
        Each stage's threshold is lowered until it accepts this fraction of the faces
        that reached it.
    stage_false_positive_rate : float, default=0.5
        Stumps are added to a stage until it accepts at most this fraction of its negatives.
    target_false_positive_rate : float, default=1e-5
        Training stops when prod_j FPR(f_j) falls to this value.
    max_stages : int, default=20
        Largest number of stages.
    max_features_per_stage : int, default=200
        Largest number of stumps in one stage.
    negatives_per_stage : int, default=1000
        Non-face windows mined for each stage. Training stops when fewer than a tenth of
        them (or of all the windows the source has) can be found.
    feature_types : sequence of str, default=('2h', '2v', '3h', '3v', '4')
        The Haar patterns to draw features from.
    feature_min_size, feature_step : int, default=1
        Restrict the Haar family (see :func:`smlengine.haar.haar_feature_set`).
    n_candidate_features : int or None, default=4000
        Random subset of the family drawn afresh for each stage (None: every feature). The
        full 24 x 24 family has 162,336 features; a subset keeps live training responsive.
    random_state : None, int or Generator
        Seeds the feature subsets and the mining order.

    Attributes
    ----------
    n_stages_ : int
        Number of trained stages.
    stages_ : list of dict
        Per stage: 'features' (HaarFeatureSet), 'theta', 'polarity', 'alpha' (arrays of its
        stumps), 'threshold', 'detection_rate', 'false_positive_rate', 'n_negatives',
        'windows_scanned'.
    stage_detection_rate_, stage_false_positive_rate_ : ndarray (n_stages_,)
        DR(f_j) and FPR(f_j) of every stage on its training patches.
    detection_rate_, false_positive_rate_ : float
        Products of the stage rates.
    stop_reason_ : str
        Why training ended.

    Examples
    --------
    "Faces" slightly brighter at the top and on the left, against uniform noise:

    >>> import numpy as np
    >>> from smlengine.cascade import Cascade
    >>> rng = np.random.default_rng(0)
    >>> faces = rng.uniform(0.0, 1.0, (60, 8, 8))
    >>> faces[:, :4] += 0.12
    >>> faces[:, :, :2] += 0.1
    >>> background = rng.uniform(0.0, 1.0, (300, 8, 8))
    >>> model = Cascade(window=8, feature_types=("2v", "2h"), n_candidate_features=40, negatives_per_stage=100,
    ...                 max_stages=2, random_state=0)
    >>> model = model.fit(faces, background)
    >>> model.n_stages_, model.stop_reason_, [len(s["alpha"]) for s in model.stages_]
    (2, 'reached max_stages = 2', [8, 8])
    >>> print(np.round(model.detection_rate_, 3), np.round(model.false_positive_rate_, 3))
    1.0 0.207
    >>> print(model.stages_passed(faces[:6]), model.predict(background[:6]))
    [2 2 2 2 2 2] [0 0 0 0 0 0]
    """

    def __init__(
        self,
        window=24,
        stage_detection_rate=0.995,
        stage_false_positive_rate=0.5,
        target_false_positive_rate=1e-5,
        max_stages=20,
        max_features_per_stage=200,
        negatives_per_stage=1000,
        feature_types=FEATURE_TYPES,
        feature_min_size=1,
        feature_step=1,
        n_candidate_features=4000,
        random_state=None,
    ):
        self.window = window
        self.stage_detection_rate = stage_detection_rate
        self.stage_false_positive_rate = stage_false_positive_rate
        self.target_false_positive_rate = target_false_positive_rate
        self.max_stages = max_stages
        self.max_features_per_stage = max_features_per_stage
        self.negatives_per_stage = negatives_per_stage
        self.feature_types = feature_types
        self.feature_min_size = feature_min_size
        self.feature_step = feature_step
        self.n_candidate_features = n_candidate_features
        self.random_state = random_state

    # ------------------------------------------------------------------ validation

    _parameter_constraints = {
        "window": [Interval(Integral, 4, 64)],
        "stage_detection_rate": [Interval(Real, 0.5, 1.0, closed="right")],
        "stage_false_positive_rate": [Interval(Real, 0.0, 1.0, closed="neither")],
        "target_false_positive_rate": [Interval(Real, 0.0, 1.0, closed="right")],
        "max_stages": [Interval(Integral, 1, 100)],
        "max_features_per_stage": [Interval(Integral, 1, 5000)],
        "negatives_per_stage": [Interval(Integral, 1, 1_000_000)],
        "feature_types": [InstanceOf(tuple, list, str)],
        "feature_min_size": [Interval(Integral, 1, 64)],
        "feature_step": [Interval(Integral, 1, 64)],
        "n_candidate_features": [Interval(Integral, 1, None), None],
        "random_state": [RandomState(), None],
    }

    def _validate(self):
        self.validate_params()
        return haar_feature_set(self.window, self.feature_types, min_size=self.feature_min_size,
                                step=self.feature_step)

    def _check_patches(self, patches, name="patches"):
        W = self.window
        a = np.asarray(patches)
        if a.dtype == bool:
            a = a.astype(np.float64)
        if a.dtype.kind not in "uif":
            raise TypeError(f"{name} must contain numbers, got dtype {a.dtype}")
        if a.ndim == 2:
            a = a[None]
        if a.ndim != 3 or a.shape[1:] != (W, W):
            raise ValueError(f"{name} must be {W} x {W} patches (n, {W}, {W}), got shape {a.shape}")
        if a.dtype.kind in "ui":
            a = a.astype(np.float64) / np.iinfo(a.dtype).max
        else:
            a = a.astype(np.float64)
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} contain NaN or infinite values")
        return a


    # ------------------------------------------------------------------ evaluation core

    def _check_ready(self):
        if not hasattr(self, "stages_"):
            raise NotFittedError("this Cascade is not fitted yet; call fit or Cascade.load first")

    def _stages(self, n_stages=None):
        return self._stage_objs[: self.n_stages_ if n_stages is None else n_stages]

    def _eval_windows(self, flat, flat2, bases, stride, n_stages=None):
        """Stages passed and last margin of the windows with top-left flat index ``bases``."""
        return eval_windows(self._stages(n_stages), self.window, flat, flat2, bases, stride)

    def _eval_grid(self, ii, ii2, n_rows, n_cols, step, n_stages=None):
        """Stages passed and last margin of the windows (i, j) at (i * step, j * step) of ``ii``."""
        return eval_grid(self._stages(n_stages), self.window, ii, ii2, n_rows, n_cols, step)

    def _eval_level(self, lv, step, n_stages=None):
        """Stages passed and last margin of every window of one pyramid level (maps (rows, cols))."""
        W = self.window
        ii, ii2 = level_integrals(lv)
        return self._eval_grid(ii, ii2, (lv.shape[0] - W) // step + 1, (lv.shape[1] - W) // step + 1, step, n_stages)

    def _eval_patches(self, patches, n_stages=None):
        W = self.window
        ii = integral_image(patches)
        ii2 = integral_image(patches * patches)
        n = patches.shape[0]
        S = (W + 1) * (W + 1)
        bases = np.arange(n, dtype=np.int64) * S
        return self._eval_windows(ii.reshape(-1), ii2.reshape(-1), bases, W + 1, n_stages)

    def stages_passed(self, patches, n_stages=None):
        """Number of consecutive stages that accept each W x W patch (n_stages_ = face)."""
        self._check_ready()
        return self._eval_patches(self._check_patches(patches), n_stages)[0]

    def decision_function(self, patches):
        """Cascade score, >= 0 exactly when every stage accepts the patch.

        score = (k - K) + m, with K stages, k of them passed, and m = (f - Theta) / (2 sum alpha)
        in [-1, 1] the normalised margin of the last stage evaluated (the rejecting one, or
        the last stage for a face).
        """
        self._check_ready()
        passed, last = self._eval_patches(self._check_patches(patches))
        return (passed - self.n_stages_) + last

    def predict(self, patches):
        """1 for a face (every stage accepts), 0 otherwise."""
        return (self.stages_passed(patches) == self.n_stages_).astype(np.int64)

    def explain(self, patch, n_stages=None):
        """How the cascade scores one W x W patch, stage by stage, up to the first rejecting stage.

        With the patch mean m and standard deviation s (floored as for image windows), stump t of
        a stage reads x_t (grey minus white block sums), normalises it to
        x_norm = (x_t - m A_t) / s and votes h_t = +1 when p_t (x_t - m A_t - s theta_t) > 0,
        else -1; the stage score is f = sum_t alpha_t h_t, accepted when f >= Theta.

        Returns
        -------
        dict
            'mean', 'sigma', and 'stages': a list with, per stage evaluated, a dict of 'stage'
            (0-based), 'score' (f), 'threshold' (Theta), 'accepted' (bool), and per stump 'x',
            'x_norm', 'theta', 'polarity', 'alpha', 'votes' (+1 / -1) as arrays.
        """
        self._check_ready()
        p = self._check_patches(patch, "patch")
        if p.shape[0] != 1:
            raise ValueError(f"patch must be one {self.window} x {self.window} patch, got {p.shape[0]}")
        W = self.window
        ii, ii2 = integral_image(p[0]), integral_image(p[0] * p[0])
        flat, flat2 = ii.reshape(-1), ii2.reshape(-1)
        bases = np.zeros(1, dtype=np.int64)
        mean, sigma = (float(v[0]) for v in window_stats(flat, flat2, bases, W + 1, W))
        out = []
        for j, st in enumerate(self._stages(n_stages)):
            x = st.raw_features(flat, bases, W + 1)[0]
            centred = x - mean * st.area
            votes = np.where((centred - sigma * st.theta) * st.polarity > 0, 1, -1)
            score = float(st.scores(flat, bases, np.array([mean]), np.array([sigma]), W + 1)[0])
            ok = score >= st.threshold
            out.append({"stage": j, "score": score, "threshold": st.threshold, "accepted": bool(ok), "x": x,
                        "x_norm": centred / sigma, "theta": st.theta, "polarity": st.polarity.astype(np.int64),
                        "alpha": st.alpha, "votes": votes})
            if not ok:
                break
        return {"mean": mean, "sigma": sigma, "stages": out}

    # ------------------------------------------------------------------ detection

    def _check_image(self, image):
        """The image as grey float64, refused above MAX_IMAGE_PIXELS before any conversion."""
        shape = np.shape(image)
        if len(shape) in (2, 3) and int(np.prod(shape[:2], dtype=object)) > MAX_IMAGE_PIXELS:
            raise ValueError(f"image has {shape[1]:,} x {shape[0]:,} pixels; the detector scans at most "
                             f"{MAX_IMAGE_PIXELS:,} pixels (e.g. 4096 x 2048): downscale it first")
        return to_grey_float(image)

    def _levels(self, image, scale_factor, step, min_size, max_size, n_stages):
        self._check_ready()
        check_scalar("scale_factor", scale_factor, numbers.Real, min_value=MIN_SCALE_FACTOR, max_value=4.0)
        W = self.window
        check_scalar("step", step, numbers.Integral, min_value=1, max_value=W, allow_none=True)
        min_size = W if min_size is None else check_scalar("min_size", min_size, numbers.Real, min_value=4)
        max_size = (np.inf if max_size is None else
                    check_scalar("max_size", max_size, numbers.Real, min_value=min_size))
        if n_stages is not None:
            check_scalar("n_stages", n_stages, numbers.Integral, min_value=0, max_value=self.n_stages_)
        grey = self._check_image(image)
        h, w = grey.shape
        s0 = float(min_size) / W
        if round(h / s0) * round(w / s0) > MAX_IMAGE_PIXELS:
            raise ValueError(f"min_size={min_size} scans this {w} x {h} image enlarged {1 / s0:.2g} times, over "
                             f"{MAX_IMAGE_PIXELS:,} pixels: min_size must be at least "
                             f"{W * np.sqrt(h * w / MAX_IMAGE_PIXELS):.1f} here")
        return grey, level_scales(grey.shape, W, float(scale_factor), float(min_size), float(max_size))

    def _pyramid(self, grey, scales, step, order=None):
        """(index, scale, scale_y, scale_x, step, integral image, squared integral image) per level.

        The grey image's integral image is computed once; each level is area-averaged from it, and
        the level's own (squared) integral images once.
        """
        h, w = grey.shape
        ii_img = integral_image(grey)
        for k in (range(len(scales)) if order is None else order):
            s = scales[k]
            out_h, out_w, st = self._level_shape(grey.shape, s, step)
            ii, ii2 = pyramid_level(ii_img, out_h, out_w)
            yield k, s, h / out_h, w / out_w, st, ii, ii2

    @staticmethod
    def _level_shape(shape, s, step):
        """(out_h, out_w, step) of the level of scale ``s``: a stride of 2 level pixels while the window
        is at most twice its trained size and 1 beyond (OpenCV's rule) unless ``step`` is given."""
        h, w = shape
        out_h, out_w = int(round(h / s)), int(round(w / s))
        return out_h, out_w, step if step is not None else (2 if h / out_h <= 2.0 else 1)

    def scan_levels(self, image, scale_factor=1.25, step=None, min_size=None, max_size=None, n_stages=None):
        """Generator over the image pyramid, smallest window first: one level at a time.

        Yields, per level, a dict with 'scale' (window side / W), 'scale_y', 'scale_x' (image
        pixels per level pixel), 'step' (stride in level pixels), 'passed' (int map (rows,
        cols): stages passed by the window whose top-left corner is at image pixel
        (i * step * scale_y, j * step * scale_x)) and 'window' (its side (h, w) in image
        pixels). The same windows and results as :meth:`scan` (which concatenates them).
        """
        grey, scales = self._levels(image, scale_factor, step, min_size, max_size, n_stages)
        W = self.window
        h, w = grey.shape
        dims = [self._level_shape(grey.shape, s, step) for s in scales]
        results = eval_pyramid(self._stages(n_stages), W, integral_image(grey), dims)
        for s, (out_h, out_w, st), (_ii, _ii2, passed, last) in zip(scales, dims, results):
            sy, sx = h / out_h, w / out_w
            yield {"scale": s, "scale_y": sy, "scale_x": sx, "step": st, "passed": passed, "last": last,
                   "window": (W * sy, W * sx)}

    def scan_bands(self, image, scale_factor=1.25, step=None, min_size=None, max_size=None, n_stages=None,
                   max_windows=5000, largest_first=False):
        """Generator: the sliding-window search of :meth:`scan_levels` in bands of window rows.

        Each pyramid level is scanned in bands of consecutive window rows, at most
        ``max_windows`` windows per band (at least one row), so a live view can follow the
        window down the photo. Yields per band a dict with the keys of :meth:`scan_levels`
        plus 'level' (index of the level, smallest window first), 'n_levels', 'row0' (the
        band's first window row in its level) and 'n_rows' (window rows of the whole level);
        'passed' and 'last' cover the band's rows only. A level's bands stacked in order equal
        its map from :meth:`scan_levels` exactly (the bands read the level's integral image).

        Parameters
        ----------
        max_windows : int, default=5000
        largest_first : bool, default=False
            Visit the levels from the largest window down (few windows, the big faces first).
        """
        check_scalar("max_windows", max_windows, numbers.Integral, min_value=1)
        grey, scales = self._levels(image, scale_factor, step, min_size, max_size, n_stages)
        W = self.window
        order = range(len(scales) - 1, -1, -1) if largest_first else range(len(scales))
        for k, s, sy, sx, st, ii, ii2 in self._pyramid(grey, scales, step, order):
            n_rows = (ii.shape[0] - 1 - W) // st + 1
            n_cols = (ii.shape[1] - 1 - W) // st + 1
            per_band = max(1, int(max_windows) // max(n_cols, 1))
            for r0 in range(0, n_rows, per_band):
                nr = min(per_band, n_rows - r0)
                a = r0 * st
                passed, last = self._eval_grid(ii[a:], ii2[a:], nr, n_cols, st, n_stages)
                yield {"level": k, "n_levels": len(scales), "scale": s, "scale_y": sy, "scale_x": sx, "step": st,
                       "row0": r0, "n_rows": n_rows, "passed": passed, "last": last, "window": (W * sy, W * sx)}

    def _scan_levels(self, image, scale_factor, step, min_size, max_size, n_stages, keep_all):
        K = self.n_stages_ if n_stages is None else n_stages
        boxes, passed, last = [], [], []
        for lv in self.scan_levels(image, scale_factor, step, min_size, max_size, n_stages):
            p, l_ = lv["passed"], lv["last"]
            if keep_all:
                R, C = (a.ravel() for a in np.indices(p.shape))
                p, l_ = p.ravel(), l_.ravel()
            else:
                R, C = np.nonzero(p >= K)
                p, l_ = p[R, C], l_[R, C]
            R, C = R * lv["step"], C * lv["step"]
            sy, sx = lv["scale_y"], lv["scale_x"]
            W = self.window
            boxes.append(np.column_stack([R * sy, C * sx, np.full(R.size, W * sy), np.full(R.size, W * sx)]))
            passed.append(p.astype(np.int32))
            last.append(l_)
        if not boxes:
            return np.zeros((0, 4)), np.zeros(0, dtype=np.int32), np.zeros(0)
        return np.concatenate(boxes), np.concatenate(passed), np.concatenate(last)

    def scan(self, image, scale_factor=1.25, step=None, min_size=None, max_size=None, n_stages=None,
             keep_all=False):
        """Raw windows of the sliding-window search, before grouping.

        Returns ``(boxes, stages_passed)``: boxes (m, 4) as (row, col, height, width) in image
        pixels and the number of stages each window passed. With ``keep_all=False`` only the
        windows accepted by every stage (the first ``n_stages`` stages when given) are kept.
        """
        boxes, passed, _ = self._scan_levels(image, scale_factor, step, min_size, max_size, n_stages, keep_all)
        return boxes, passed

    def detect(self, image, scale_factor=1.25, step=None, min_size=None, max_size=None, min_neighbors=4,
               n_stages=None):
        """Find faces in a grey or colour, 8-bit or float image.

        Parameters
        ----------
        image : array (h, w) or (h, w, 3)
            At most ``MAX_IMAGE_PIXELS`` pixels (e.g. 4096 x 2048).
        scale_factor : float, default=1.25
            Ratio between successive window sizes, in [1.01, 4].
        step : int or None
            Window stride in pixels of each pyramid level, 1..W; None uses 2 while the window
            is at most twice its trained size and 1 beyond (as OpenCV does).
        min_size, max_size : float or None
            Smallest / largest window side in image pixels (default: W and the image size);
            a min_size below W enlarges the image, up to ``MAX_IMAGE_PIXELS``.
        min_neighbors : int, default=4
            A detection needs more than this many overlapping windows (the vote of
            :func:`smlengine.detection.group_rectangles`). 4 is the smallest value that leaves
            one box on ``skimage.data.astronaut()`` and at most one false box on each photo the
            shipped cascade mined its negatives from.
        n_stages : int or None
            Use only the first stages (None: all) -- shows how later stages prune.

        Returns
        -------
        ndarray (k, 5)
            row, col, height, width, neighbour count (number of merged windows), most first.
        """
        check_scalar("min_neighbors", min_neighbors, numbers.Integral, min_value=0)
        boxes, _, _ = self._scan_levels(image, scale_factor, step, min_size, max_size, n_stages, False)
        return group_boxes(boxes, min_neighbors=min_neighbors)

    def stage_map(self, image, scale=1.0, step=1, n_stages=None):
        """Stages passed by the window at every position of one scale (a heat map).

        ``scale`` is the window side divided by W (window of ``scale * W`` image pixels).
        Returns an int array (n_rows, n_cols); entry (i, j) belongs to the window whose
        top-left corner is at image pixel (i * step * scale, j * step * scale).
        """
        self._check_ready()
        check_scalar("scale", scale, numbers.Real, min_value=0.1, include_min=True)
        W = self.window
        check_scalar("step", step, numbers.Integral, min_value=1, max_value=W)
        if n_stages is not None:
            check_scalar("n_stages", n_stages, numbers.Integral, min_value=0, max_value=self.n_stages_)
        grey = self._check_image(image)
        h, w = grey.shape
        out_h, out_w = int(round(h / scale)), int(round(w / scale))
        if out_h * out_w > MAX_IMAGE_PIXELS:
            raise ValueError(f"scale={scale} enlarges this {w} x {h} image to {out_w:,} x {out_h:,}, over "
                             f"{MAX_IMAGE_PIXELS:,} pixels: use a larger scale")
        if out_h < W or out_w < W:
            return np.zeros((0, 0), dtype=np.int32)
        lv = area_resize(integral_image(grey), out_h, out_w)
        return self._eval_level(lv, int(step), n_stages)[0]

    # ------------------------------------------------------------------ training

    def fit_steps(self, faces, negative_source):
        """Train stage after stage, yielding a :class:`CascadeSnapshot` for every event.

        Parameters
        ----------
        faces : array (n, W, W)
            Face patches (any brightness scale; each is variance-normalised).
        negative_source : array or sequence of arrays
            Face-free material: 2-D photos (grey or colour, any size >= W), scanned at every
            position and scale (factor 1.25), as they are, mirrored and transposed, to mine
            the windows the current cascade wrongly accepts, and/or stacks (m, W, W) of
            non-face patches used as they are.

        Yields
        ------
        CascadeSnapshot
            See :mod:`smlengine.cascade.training` for the update rules.
        """
        return train_steps(self, faces, negative_source)

    def _append_stage(self, fs, theta, polarity, alpha, threshold, dr, fpr, n_neg, scanned):
        self.stages_.append({
            "features": fs,
            "theta": frozen_array(theta, dtype=np.float64),
            "polarity": frozen_array(polarity, dtype=np.int8),
            "alpha": frozen_array(alpha, dtype=np.float64),
            "threshold": float(threshold),
            "detection_rate": float(dr),
            "false_positive_rate": float(fpr),
            "n_negatives": int(n_neg),
            "windows_scanned": int(scanned),
        })
        self._stage_objs.append(StageEvaluator(fs, theta, polarity, alpha, threshold))
        self.n_stages_ = len(self.stages_)
        self.stage_detection_rate_ = np.array([s["detection_rate"] for s in self.stages_])
        self.stage_false_positive_rate_ = np.array([s["false_positive_rate"] for s in self.stages_])
        self.detection_rate_ = float(np.prod(self.stage_detection_rate_))
        self.false_positive_rate_ = float(np.prod(self.stage_false_positive_rate_))


    # ------------------------------------------------------------------ persistence

    def save(self, path):
        """Write the cascade as a ``.npz`` archive (format ``smllab-haar-cascade``, version 1); the
        arrays are listed in :mod:`smlengine.cascade.fileformat`."""
        fileformat.save_cascade(self, path)

    @classmethod
    def load(cls, path):
        """Read a cascade written by :meth:`save`; a corrupt or foreign file raises ValueError."""
        return fileformat.load_cascade_file(cls, path)
