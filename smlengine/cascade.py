"""Viola-Jones face detector: boosted Haar stumps arranged in an attentional cascade.

Face detection is classification of square W x W patches (face / not face) under an
enormous class imbalance: a photo has hundreds of thousands of windows and a handful of
faces. The course's method:

* Features: the Haar windows of :mod:`smlengine.haar`, x_ij = sum(grey) - sum(white),
  on a *variance-normalised* patch. With mean m and standard deviation s of the patch
  (read from the integral image and the squared integral image),
  x_ij(normalised) = (x_ij - m * A_j) / s, where A_j is the signed area of feature j.
* Stage j is a discrete AdaBoost classifier of decision stumps h_t(x) = +1 if
  p_t (x_{f_t} - theta_t) > 0 else -1. Each round picks the stump of least weighted error
  err, sets alpha = log((1 - err) / err), multiplies the weights of the misclassified
  patches by exp(alpha) and renormalises. Each feature column is sorted once per stage;
  the error of every threshold of every feature then follows from a cumulative sum of
  the signed weights in that order, D_k = sum_{i <= k} w_(i) y_(i), as
  err_k = min(W_- + D_k, W_+ - D_k) (W_+ / W_- the total weight of faces / non-faces).
* The stage score is f_j(x) = sum_t alpha_t h_t(x); its threshold Theta_j is lowered
  until the stage detection rate DR(f_j) reaches ``stage_detection_rate``; stumps are
  added until also FPR(f_j) <= ``stage_false_positive_rate``.
* Stage j trains on all faces and on the non-face windows that every earlier stage
  wrongly accepts, mined afresh from face-free images. A window is a face only if every
  stage accepts it, so DR(f) = prod_j DR(f_j) and FPR(f) = prod_j FPR(f_j) (stage rates
  measured on the patches that reached the stage).
* Detection slides the window over every position of an image pyramid (factor about
  1.25) and merges overlapping accepted windows into groups; a group of n windows is a
  detection when n > ``min_neighbors`` (:func:`smlengine.detection.group_rectangles`).

References: P. Viola and M. Jones, "Robust real-time face detection", IJCV 57(2), 2004;
discrete AdaBoost as in Hastie, Tibshirani & Friedman, ESL, Algorithm 10.1.
"""

from __future__ import annotations

import json
import numbers
from dataclasses import dataclass

import numpy as np

from ._base import (
    BaseEstimator,
    IterativeMixin,
    NotFittedError,
    Snapshot,
    check_choice,
    check_random_state,
    check_scalar,
    frozen_array,
)
from .detection import group_rectangles
from .haar import (
    FEATURE_TYPES,
    HaarFeatureSet,
    _corners_of,
    haar_feature_set,
    haar_features,
    integral_image,
)

__all__ = ["Cascade", "CascadeSnapshot", "FORMAT_NAME", "FORMAT_VERSION", "to_grey_float", "group_boxes"]

FORMAT_NAME = "smllab-haar-cascade"
FORMAT_VERSION = 1
_SIGMA_FLOOR = 1e-3  # std of a flat window (pixels in [0, 1]); avoids dividing by zero
_WORK_PER_YIELD = 3_000_000  # array elements touched between two snapshots (~10-30 ms)


# ----------------------------------------------------------------------------- snapshots


@dataclass(frozen=True, kw_only=True, eq=False)
class CascadeSnapshot(Snapshot):
    """State of cascade training after one event.

    ``phase`` names what happens ('start', 'mining', 'features', 'sorting', 'boosting',
    'feature', 'stage', 'done', 'stopped'); ``progress`` is the fraction done of the current
    long phase (mining, features, sorting, boosting), else None.

    Attributes
    ----------
    event : str
        'start' (step 0), 'progress' (inside a long phase), 'feature' (a stump was added),
        'stage' (a stage is finished), 'done' (training ended normally) or 'stopped'
        (the negatives ran out; see ``message``).
    message : str
        One plain sentence describing the event (shown in the GUI's status line).
    stage : int
        0-based index of the stage being trained (for 'stage': the stage just finished).
    n_stages : int
        Number of finished stages.
    feature_index : int
        For 'feature': 0-based index of the stump within its stage; else -1.
    feature_rects : ndarray (4, 4) int or None
        For 'feature': the blocks (row, col, height, width) of its Haar window (zero rows
        are padding).
    feature_weights : ndarray (4,) or None
        +1 grey block, -1 white block, 0 padding.
    feature_type : str
        '2h', '2v', '3h', '3v' or '4' for 'feature' events, else ''.
    feature_threshold : float
        theta of the stump (on the variance-normalised feature).
    feature_polarity : int
        +1: face if x > theta; -1: face if x < theta.
    alpha : float
        log((1 - err) / err) of the stump.
    weighted_error : float
        err of the stump under the current AdaBoost weights.
    stage_n_features : int
        Stumps in the current stage so far.
    stage_threshold : float
        Theta_j, the lowered threshold of the stage score so far.
    stage_detection_rate, stage_false_positive_rate : float
        DR(f_j) and FPR(f_j) of the stage so far, on the faces that passed the earlier
        stages and on this stage's negatives (nan before the first stump).
    detection_rate, false_positive_rate : float
        Cumulative products over the finished stages times the current stage's rates.
    negatives_mined : int
        Negatives collected for the current stage (so far, while mining).
    windows_scanned : int
        Windows the current cascade looked at to find them.
    mined_acceptance : float
        Accepted / scanned while mining: a direct estimate of the FPR of the earlier stages
        on the face-free images (nan before any scan).
    n_positives, n_negatives : int
        Training patches of the current stage.
    done : bool
        True for the last snapshot.
    """

    event: str
    message: str = ""
    stage: int = 0
    n_stages: int = 0
    feature_index: int = -1
    feature_rects: np.ndarray | None = None
    feature_weights: np.ndarray | None = None
    feature_type: str = ""
    feature_threshold: float = float("nan")
    feature_polarity: int = 0
    alpha: float = float("nan")
    weighted_error: float = float("nan")
    stage_n_features: int = 0
    stage_threshold: float = float("nan")
    stage_detection_rate: float = float("nan")
    stage_false_positive_rate: float = float("nan")
    detection_rate: float = 1.0
    false_positive_rate: float = 1.0
    negatives_mined: int = 0
    windows_scanned: int = 0
    mined_acceptance: float = float("nan")
    n_positives: int = 0
    n_negatives: int = 0
    done: bool = False


# ----------------------------------------------------------------------------- image helpers


def to_grey_float(image, name: str = "image") -> np.ndarray:
    """Grey float64 image: colour (h, w, 3|4) through luminance, 8/16-bit scaled to [0, 1]."""
    a = np.asarray(image)
    if a.dtype == bool:
        a = a.astype(np.float64)
    if a.dtype.kind not in "uif":
        raise TypeError(f"{name} must contain numbers, got dtype {a.dtype}")
    if a.ndim == 3 and a.shape[-1] in (3, 4):
        a = a[..., :3]
        scale = 1.0 / np.iinfo(a.dtype).max if a.dtype.kind in "ui" else 1.0
        a = (a.astype(np.float64) @ np.array([0.2125, 0.7154, 0.0721])) * scale
    elif a.ndim == 2:
        a = a.astype(np.float64) / np.iinfo(a.dtype).max if a.dtype.kind in "ui" else a.astype(np.float64)
    else:
        raise ValueError(f"{name} must be grey (h, w) or colour (h, w, 3), got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return a


def _area_resize(ii: np.ndarray, out_h: int, out_w: int) -> np.ndarray:
    """Resize by exact area averaging, read off the integral image.

    The integral of a piecewise-constant image is bilinear inside each pixel, so bilinear
    interpolation of ``ii`` at fractional corners gives exact sums over fractional boxes:
    a box filter of any (non-integer) width for the cost of the output size.
    """
    h, w = ii.shape[0] - 1, ii.shape[1] - 1

    def _interp(n_src, n_out):
        pos = np.linspace(0.0, n_src, n_out + 1)
        i0 = np.minimum(np.floor(pos).astype(np.int64), n_src - 1)
        return i0, pos - i0

    y0, fy = _interp(h, out_h)
    x0, fx = _interp(w, out_w)
    rows = ii[y0] * (1 - fy)[:, None] + ii[y0 + 1] * fy[:, None]
    grid = rows[:, x0] * (1 - fx) + rows[:, x0 + 1] * fx
    box = grid[1:, 1:] - grid[:-1, 1:] - grid[1:, :-1] + grid[:-1, :-1]
    return box * (out_h * out_w / (h * w))


def resize_patch(image, size: int) -> np.ndarray:
    """Area-average a grey image (or a stack (n, h, w)) to ``size`` x ``size`` pixels."""
    a = np.asarray(image, dtype=np.float64)
    if a.ndim == 2:
        return _area_resize(integral_image(a), size, size)
    return np.stack([_area_resize(ii, size, size) for ii in integral_image(a)])


def _level_scales(shape, window: int, scale_factor: float, min_size: float | None = None,
                  max_size: float = np.inf):
    """Scales s (window side / W) of the pyramid levels: min_size / W times powers of the factor."""
    h, w = shape
    out = []
    s = (window if min_size is None else min_size) / window
    while True:
        out_h, out_w = int(round(h / s)), int(round(w / s))
        if out_h < window or out_w < window or window * s > max_size * (1 + 1e-9):
            break
        out.append(s)
        s *= scale_factor
    return out


def _pyramid_levels(grey: np.ndarray, window: int, scale_factor: float, min_size: float, max_size: float):
    """(scale_y, scale_x, level image) for window sizes min_size, min_size * factor, ... <= max_size."""
    h, w = grey.shape
    ii = integral_image(grey)
    levels = []
    for s in _level_scales(grey.shape, window, scale_factor, min_size, max_size):
        out_h, out_w = int(round(h / s)), int(round(w / s))
        levels.append((h / out_h, w / out_w, _area_resize(ii, out_h, out_w)))
    return levels


# ----------------------------------------------------------------------------- grouping


def group_boxes(boxes: np.ndarray, min_neighbors: int = 3, eps: float = 0.2) -> np.ndarray:
    """Merge overlapping windows into detections: :func:`smlengine.detection.group_rectangles`.

    Returns an array (k, 5): row, col, height, width, neighbour count (windows merged), most
    neighbours first.
    """
    return group_rectangles(boxes, min_neighbors=min_neighbors, eps=eps)


# ----------------------------------------------------------------------------- the estimator


class _Stage:
    """One boosted stage, with its corner reads flattened for fast window evaluation."""

    def __init__(self, fs: HaarFeatureSet, theta, polarity, alpha, threshold):
        self.fs = fs
        self.theta = np.asarray(theta, dtype=np.float64)
        self.polarity = np.asarray(polarity, dtype=np.float64)
        self.alpha = np.asarray(alpha, dtype=np.float64)
        self.threshold = float(threshold)
        nz = fs.corner_coef != 0
        self.rows = fs.corner_rows[nz].astype(np.int64)
        self.cols = fs.corner_cols[nz].astype(np.int64)
        self.coef = fs.corner_coef[nz]
        counts = nz.sum(axis=1)
        self.starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        self.area = fs.signed_area
        self.two_alpha = 2.0 * self.alpha
        self.alpha_sum = float(self.alpha.sum())
        self._stride = None

    def offsets(self, stride):
        if self._stride != stride:
            self._off = self.rows * stride + self.cols
            self._stride = stride
        return self._off

    def scores(self, flat, bases, mean, sigma, stride):
        """f_j = sum_t alpha_t h_t on the windows whose top-left integral index is ``bases``."""
        vals = flat[bases[:, None] + self.offsets(stride)[None, :]]
        vals *= self.coef
        x = np.add.reduceat(vals, self.starts, axis=1)  # raw feature values (m, T)
        # p (x_norm - theta) > 0  with  x_norm = (x - mean * A) / sigma   (sigma > 0)
        x -= mean[:, None] * self.area
        x -= sigma[:, None] * self.theta
        votes = (x * self.polarity) > 0
        return votes @ self.two_alpha - self.alpha_sum


def _window_stats(flat, flat2, bases, stride, window):
    """Mean and standard deviation of each window from the (squared) integral image."""
    br = bases + window * stride + window
    tr = bases + window
    bl = bases + window * stride
    n = float(window * window)
    s1 = flat[br] - flat[tr] - flat[bl] + flat[bases]
    s2 = flat2[br] - flat2[tr] - flat2[bl] + flat2[bases]
    mean = s1 / n
    var = s2 / n - mean * mean
    return mean, np.sqrt(np.maximum(var, _SIGMA_FLOOR**2))


def _grid_reader(ii, n_rows, n_cols, step):
    """``read(r, c)``: the integral-image value at offset (r, c) of every window, as a strided view.

    Window (i, j) of a level has its top-left corner at (i * step, j * step); the reads of one
    corner for all windows form a regular sub-grid of the integral image, so a whole-array slice
    replaces a gather (no index arrays, memory read in order).
    """
    def read(r, c):
        return ii[r : r + (n_rows - 1) * step + 1 : step, c : c + (n_cols - 1) * step + 1 : step]
    return read


def _dense_stage_scores(st, read, mean, sigma):
    """f_j of every window of a level from slices (same arithmetic as :meth:`_Stage.scores`)."""
    score = np.full(mean.shape, -st.alpha_sum)
    rows, cols, coef, starts = st.rows, st.cols, st.coef, st.starts
    ends = np.append(starts[1:], rows.size)
    for t in range(st.theta.size):
        a, b = int(starts[t]), int(ends[t])
        x = read(rows[a], cols[a]) * coef[a]
        for k in range(a + 1, b):
            x = x + read(rows[k], cols[k]) * coef[k]
        x -= mean * st.area[t]
        x -= sigma * st.theta[t]
        score += np.where(x * st.polarity[t] > 0, st.two_alpha[t], 0.0)
    return score


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
    max_features_per_stage : int, default=200
    negatives_per_stage : int, default=1000
        Non-face windows mined for each stage. Training stops when fewer than a tenth of
        them (or of all the windows the source has) can be found.
    feature_types : sequence of str, default=('2h', '2v', '3h', '3v', '4')
    feature_min_size, feature_step : int, default=1
        Restrict the Haar family (see :func:`smlengine.haar.haar_feature_set`).
    n_candidate_features : int or None, default=4000
        Random subset of the family drawn afresh for each stage (None: every feature). The
        full 24 x 24 family has 162,336 features; a subset keeps live training responsive.
    random_state : None, int or Generator

    Attributes
    ----------
    n_stages_ : int
    stages_ : list of dict
        Per stage: 'features' (HaarFeatureSet), 'theta', 'polarity', 'alpha' (arrays of its
        stumps), 'threshold', 'detection_rate', 'false_positive_rate', 'n_negatives',
        'windows_scanned'.
    stage_detection_rate_, stage_false_positive_rate_ : ndarray (n_stages_,)
    detection_rate_, false_positive_rate_ : float
        Products of the stage rates.
    stop_reason_ : str
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

    def _validate(self):
        check_scalar("window", self.window, numbers.Integral, min_value=4, max_value=64)
        check_scalar("stage_detection_rate", self.stage_detection_rate, numbers.Real, min_value=0.5, max_value=1.0,
                     include_min=False)
        check_scalar("stage_false_positive_rate", self.stage_false_positive_rate, numbers.Real, min_value=0.0,
                     max_value=1.0, include_min=False, include_max=False)
        check_scalar("target_false_positive_rate", self.target_false_positive_rate, numbers.Real, min_value=0.0,
                     max_value=1.0, include_min=False)
        check_scalar("max_stages", self.max_stages, numbers.Integral, min_value=1, max_value=100)
        check_scalar("max_features_per_stage", self.max_features_per_stage, numbers.Integral, min_value=1,
                     max_value=5000)
        check_scalar("negatives_per_stage", self.negatives_per_stage, numbers.Integral, min_value=1,
                     max_value=1_000_000)
        check_scalar("n_candidate_features", self.n_candidate_features, numbers.Integral, min_value=1,
                     allow_none=True)
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

    def _eval_windows(self, flat, flat2, bases, stride, n_stages=None):
        """Stages passed and last score of every window; rejected windows drop out stage by stage."""
        stages = self._stage_objs[: self.n_stages_ if n_stages is None else n_stages]
        m = bases.shape[0]
        passed = np.zeros(m, dtype=np.int32)
        last = np.zeros(m)
        if m == 0 or not stages:
            return passed, last
        mean, sigma = _window_stats(flat, flat2, bases, stride, self.window)
        alive = np.arange(m)
        b = bases
        for j, st in enumerate(stages):
            s = st.scores(flat, b, mean, sigma, stride)
            last[alive] = (s - st.threshold) / (2.0 * st.alpha_sum + 1e-300)
            ok = s >= st.threshold
            alive, b, mean, sigma = alive[ok], b[ok], mean[ok], sigma[ok]
            passed[alive] = j + 1
            if alive.size == 0:
                break
        return passed, last

    def _eval_level(self, lv, step, n_stages=None, dense_fraction=0.25):
        """Stages passed and last score of every window of one pyramid level (maps (rows, cols)).

        While more than ``dense_fraction`` of the windows are still alive, a stage is evaluated
        on the whole level with strided slices of the integral image (cheap per window); the
        few survivors of the first stages are then gathered and evaluated window by window.
        """
        W = self.window
        ii, ii2 = integral_image(lv), integral_image(lv * lv)
        n_rows = (lv.shape[0] - W) // step + 1
        n_cols = (lv.shape[1] - W) // step + 1
        return self._eval_grid(ii, ii2, n_rows, n_cols, step, n_stages, dense_fraction)

    def _eval_grid(self, ii, ii2, n_rows, n_cols, step, n_stages=None, dense_fraction=0.25):
        """:meth:`_eval_level` on (squared) integral images given: window (i, j) has its top-left
        corner at (i * step, j * step) of ``ii`` (a row band of a level passes a view of its
        integral image, so every window sees the same sums as in the whole level)."""
        W = self.window
        passed = np.zeros((max(n_rows, 0), max(n_cols, 0)), dtype=np.int32)
        last = np.zeros(passed.shape)
        stages = self._stage_objs[: self.n_stages_ if n_stages is None else n_stages]
        if n_rows <= 0 or n_cols <= 0:
            return passed[:0, :0], last[:0, :0]
        if not stages:
            return passed, last
        read, read2 = _grid_reader(ii, n_rows, n_cols, step), _grid_reader(ii2, n_rows, n_cols, step)
        n = float(W * W)
        s1 = read(W, W) - read(0, W) - read(W, 0) + read(0, 0)
        s2 = read2(W, W) - read2(0, W) - read2(W, 0) + read2(0, 0)
        mean = s1 / n
        sigma = np.sqrt(np.maximum(s2 / n - mean * mean, _SIGMA_FLOOR**2))
        alive = np.ones((n_rows, n_cols), dtype=bool)
        m = alive.size
        j = 0
        while j < len(stages) and alive.sum() > dense_fraction * m:
            st = stages[j]
            s = _dense_stage_scores(st, read, mean, sigma)
            margin = (s - st.threshold) / (2.0 * st.alpha_sum + 1e-300)
            last[alive] = margin[alive]
            alive &= s >= st.threshold
            passed[alive] = j + 1
            j += 1
            if not alive.any():
                return passed, last
        if j < len(stages):
            idx = np.flatnonzero(alive)
            r, c = np.divmod(idx, n_cols)
            stride = ii.shape[1]
            bases = (r * step) * stride + c * step
            flat, flat2 = ii.ravel(), ii2.ravel()
            mu, sg = mean.ravel()[idx], sigma.ravel()[idx]
            p_flat, l_flat = passed.ravel(), last.ravel()
            for jj in range(j, len(stages)):
                st = stages[jj]
                s = st.scores(flat, bases, mu, sg, stride)
                l_flat[idx] = (s - st.threshold) / (2.0 * st.alpha_sum + 1e-300)
                ok = s >= st.threshold
                idx, bases, mu, sg = idx[ok], bases[ok], mu[ok], sg[ok]
                p_flat[idx] = jj + 1
                if idx.size == 0:
                    break
        return passed, last

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

    # ------------------------------------------------------------------ detection

    def _levels(self, image, scale_factor, step, min_size, max_size, n_stages):
        self._check_ready()
        check_scalar("scale_factor", scale_factor, numbers.Real, min_value=1.0, max_value=4.0, include_min=False)
        check_scalar("step", step, numbers.Integral, min_value=1, allow_none=True)
        W = self.window
        grey = to_grey_float(image)
        min_size = W if min_size is None else check_scalar("min_size", min_size, numbers.Real, min_value=4)
        max_size = (np.inf if max_size is None else
                    check_scalar("max_size", max_size, numbers.Real, min_value=min_size))
        if n_stages is not None:
            check_scalar("n_stages", n_stages, numbers.Integral, min_value=0, max_value=self.n_stages_)
        return grey, _level_scales(grey.shape, W, float(scale_factor), float(min_size), float(max_size))

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
        ii = integral_image(grey)
        for s in scales:
            out_h, out_w = int(round(h / s)), int(round(w / s))
            lv = _area_resize(ii, out_h, out_w)
            sy, sx = h / out_h, w / out_w
            st = step if step is not None else (2 if sy * 1.0 <= 2.0 else 1)
            passed, last = self._eval_level(lv, st, n_stages)
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
        h, w = grey.shape
        ii_img = integral_image(grey)
        order = range(len(scales) - 1, -1, -1) if largest_first else range(len(scales))
        for k in order:
            s = scales[k]
            out_h, out_w = int(round(h / s)), int(round(w / s))
            lv = _area_resize(ii_img, out_h, out_w)
            sy, sx = h / out_h, w / out_w
            st = step if step is not None else (2 if sy * 1.0 <= 2.0 else 1)
            ii, ii2 = integral_image(lv), integral_image(lv * lv)
            n_rows = (out_h - W) // st + 1
            n_cols = (out_w - W) // st + 1
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
            p = lv["passed"]
            R, C = np.indices(p.shape)
            R, C, p, l_ = R.ravel() * lv["step"], C.ravel() * lv["step"], p.ravel(), lv["last"].ravel()
            if not keep_all:
                ok = p >= K
                R, C, p, l_ = R[ok], C[ok], p[ok], l_[ok]
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
        scale_factor : float, default=1.25
            Ratio between successive window sizes.
        step : int or None
            Window stride in pixels of each pyramid level; None uses 2 while the window is
            at most twice its trained size and 1 beyond (as OpenCV does).
        min_size, max_size : float or None
            Smallest / largest window side in image pixels (default: W and the image size).
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
        check_scalar("step", step, numbers.Integral, min_value=1)
        W = self.window
        grey = to_grey_float(image)
        h, w = grey.shape
        out_h, out_w = int(round(h / scale)), int(round(w / scale))
        if out_h < W or out_w < W:
            return np.zeros((0, 0), dtype=np.int32)
        lv = _area_resize(integral_image(grey), out_h, out_w)
        if n_stages is not None:
            check_scalar("n_stages", n_stages, numbers.Integral, min_value=0, max_value=self.n_stages_)
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
        """
        all_features = self._validate()
        rng = check_random_state(self.random_state)
        faces = self._check_patches(faces, "faces")
        if faces.shape[0] < 2:
            raise ValueError(f"faces needs at least 2 patches, got {faces.shape[0]}")
        miner = _Miner(negative_source, self.window)
        W = self.window
        P = faces.shape[0]
        quota = int(self.negatives_per_stage)
        # stop when the source yields less than a tenth of the quota (or of all its windows)
        min_negatives = max(1, min(quota // 10, miner.total_windows // 10))
        self.stages_ = []
        self._stage_objs = []
        self.n_stages_ = 0
        self.stage_detection_rate_ = np.zeros(0)
        self.stage_false_positive_rate_ = np.zeros(0)
        self.detection_rate_ = 1.0
        self.false_positive_rate_ = 1.0
        self.stop_reason_ = ""
        face_ii = integral_image(faces)
        face_mean, face_sigma = _patch_stats(faces)
        step = 0
        cum_dr, cum_fpr = 1.0, 1.0
        yield CascadeSnapshot(step=0, phase="start", event="start", n_positives=P,
                              message=f"Ready to train on {P} faces; {miner.describe()}.")
        for frac in miner.prepare():
            step += 1
            yield CascadeSnapshot(step=step, phase="preparing", progress=frac, event="progress", n_positives=P,
                                  message="Building the image pyramids of the face-free photos.")
        stop_reason = f"reached max_stages = {self.max_stages}"
        stopped = False
        for j in range(int(self.max_stages)):
            # faces that reach stage j (the stage DR is measured on them)
            reach = np.ones(P, dtype=bool)
            if j:
                reach = self._eval_patches(faces)[0] >= j
            # ---- mining
            mined = None
            for item in miner.mine(self, quota, rng):
                if isinstance(item, tuple):
                    found, scanned, frac = item
                    step += 1
                    yield CascadeSnapshot(
                        step=step, phase="mining", progress=frac, event="progress", stage=j, n_stages=j,
                        negatives_mined=found, windows_scanned=scanned,
                        mined_acceptance=found / scanned if scanned else float("nan"),
                        detection_rate=cum_dr, false_positive_rate=cum_fpr, n_positives=P,
                        message=f"Stage {j + 1}: mining non-faces that stages 1-{j} accept "
                        f"({found} found in {scanned:,} windows).")
                else:
                    mined = item
            negs, scanned, accepted = mined
            N = negs.shape[0]
            if N < min_negatives:
                stopped = True
                stop_reason = (
                    f"the face-free images ran out: only {N} of {scanned:,} windows pass the {j} stage(s) "
                    f"trained so far, but stage {j + 1} needs at least {min_negatives} non-faces. "
                    f"Training stops with {j} stage(s); add more face-free photos to go further."
                )
                break
            # ---- features of faces and negatives on this stage's candidate family
            if self.n_candidate_features is not None and self.n_candidate_features < len(all_features):
                cand = np.sort(rng.choice(len(all_features), size=int(self.n_candidate_features), replace=False))
                fs = all_features.subset(cand)
            else:
                fs = all_features
            neg_mean, neg_sigma = _patch_stats(negs)
            X_ii = np.concatenate([face_ii, integral_image(negs)])
            mean = np.concatenate([face_mean, neg_mean])
            sigma = np.concatenate([face_sigma, neg_sigma])
            y = np.concatenate([np.ones(P), -np.ones(N)])
            n = P + N
            F = len(fs)
            XT = np.empty((F, n), dtype=np.float32)  # one row per feature: sorted rows stay contiguous
            chunk = max(1, _WORK_PER_YIELD // (9 * n))
            for a in range(0, F, chunk):
                b = min(F, a + chunk)
                sub = fs.subset(np.arange(a, b))
                raw = haar_features(X_ii, sub)
                XT[a:b] = ((raw - mean[:, None] * sub.signed_area) / sigma[:, None]).T
                step += 1
                yield CascadeSnapshot(step=step, phase="features", progress=b / F, event="progress", stage=j,
                                      n_stages=j, negatives_mined=N, windows_scanned=scanned, n_positives=P,
                                      n_negatives=N, detection_rate=cum_dr, false_positive_rate=cum_fpr,
                                      message=f"Stage {j + 1}: Haar features of {n} patches ({b}/{F}).")
            # ---- sort every feature column once
            order = np.empty((F, n), dtype=np.int32)
            valid = np.empty((F, n - 1), dtype=bool)  # a threshold between sorted k-1 and k exists
            chunk = max(1, _WORK_PER_YIELD // (4 * n))
            for a in range(0, F, chunk):
                b = min(F, a + chunk)
                o = np.argsort(XT[a:b], axis=1, kind="stable")
                order[a:b] = o
                sv = np.take_along_axis(XT[a:b], o, axis=1)
                valid[a:b] = sv[:, 1:] > sv[:, :-1]
                step += 1
                yield CascadeSnapshot(step=step, phase="sorting", progress=b / F, event="progress", stage=j,
                                      n_stages=j, negatives_mined=N, windows_scanned=scanned, n_positives=P,
                                      n_negatives=N, detection_rate=cum_dr, false_positive_rate=cum_fpr,
                                      message=f"Stage {j + 1}: sorting feature columns ({b}/{F}).")
            # ---- AdaBoost rounds
            w = np.where(y > 0, 0.5 / P, 0.5 / N)
            chosen, thetas, pols, alphas, votes = [], [], [], [], []
            stage_dr = stage_fpr = float("nan")
            theta_stage = float("nan")
            chunk = max(1, _WORK_PER_YIELD // (3 * n))
            reach_pos = np.flatnonzero(reach)
            for t in range(int(self.max_features_per_stage)):
                w /= w.sum()
                wy = w * y
                Wp, Wn = w[y > 0].sum(), w[y < 0].sum()
                best = (np.inf, -1, -1, 0)
                for a in range(0, F, chunk):
                    b = min(F, a + chunk)
                    D = np.cumsum(wy[order[a:b, :-1]], axis=1)
                    e_plus = Wn + D
                    e_minus = Wp - D
                    e = np.minimum(e_plus, e_minus)
                    e[~valid[a:b]] = np.inf
                    k = np.argmin(e, axis=1)
                    ek = e[np.arange(b - a), k]
                    f = int(np.argmin(ek))
                    if ek[f] < best[0]:
                        pol = 1 if e_plus[f, k[f]] <= e_minus[f, k[f]] else -1
                        best = (float(ek[f]), a + f, int(k[f]), pol)
                    if F > chunk:
                        step += 1
                        yield CascadeSnapshot(
                            step=step, phase="boosting", progress=b / F, event="progress", stage=j, n_stages=j,
                            stage_n_features=t, negatives_mined=N, windows_scanned=scanned, n_positives=P,
                            n_negatives=N, stage_detection_rate=stage_dr, stage_false_positive_rate=stage_fpr,
                            stage_threshold=theta_stage, detection_rate=cum_dr * (1.0 if t == 0 else stage_dr),
                            false_positive_rate=cum_fpr * (1.0 if t == 0 else stage_fpr),
                            message=f"Stage {j + 1}: searching the best stump {t + 1} over {F} features.")
                err, f, k, pol = best
                if f < 0 or err >= 0.5 - 1e-12:
                    if t == 0:
                        stopped = True
                        stop_reason = (f"no Haar feature separates faces from the stage-{j + 1} non-faces "
                                       "better than chance; training stops")
                    break
                # the chosen column again in float64, as detection computes it, so that theta
                # (the midpoint of the split) sorts every training patch exactly as at test time
                one = fs.subset([f])
                col = (haar_features(X_ii, one)[:, 0] - mean * one.signed_area[0]) / sigma
                theta = 0.5 * (col[order[f, k]] + col[order[f, k + 1]])
                h = np.where(pol * (col - theta) > 0, 1.0, -1.0)
                err = float(w[h != y].sum())  # exact, free of the cumulative sum's rounding
                err_c = min(max(err, 1e-10), 1 - 1e-10)
                alpha = float(np.log((1 - err_c) / err_c))
                w *= np.exp(alpha * (h != y))
                votes.append(h > 0)
                chosen.append(f)
                thetas.append(theta)
                pols.append(pol)
                alphas.append(alpha)
                a_arr = np.asarray(alphas)
                score = np.column_stack(votes) @ (2.0 * a_arr) - a_arr.sum()  # as in _Stage.scores
                # lower the stage threshold until DR >= target on the faces reaching the stage;
                # the tiny slack keeps a face sitting exactly on it accepted despite rounding
                sp = np.sort(score[reach_pos])[::-1]
                need = int(np.ceil(float(self.stage_detection_rate) * sp.size - 1e-9))
                theta_stage = float(sp[max(need, 1) - 1]) - 1e-9 * (1.0 + float(a_arr.sum()))
                stage_dr = float(np.mean(sp >= theta_stage))
                stage_fpr = float(np.mean(score[P:] >= theta_stage))
                step += 1
                yield CascadeSnapshot(
                    step=step, phase="feature", event="feature", stage=j, n_stages=j, feature_index=t,
                    feature_rects=frozen_array(fs.rects[f]), feature_weights=frozen_array(fs.weights[f]),
                    feature_type=fs.type_names[fs.kind[f]], feature_threshold=theta, feature_polarity=pol,
                    alpha=alpha, weighted_error=err, stage_n_features=t + 1, stage_threshold=theta_stage,
                    stage_detection_rate=stage_dr, stage_false_positive_rate=stage_fpr,
                    detection_rate=cum_dr * stage_dr, false_positive_rate=cum_fpr * stage_fpr,
                    negatives_mined=N, windows_scanned=scanned, n_positives=P, n_negatives=N,
                    mined_acceptance=accepted / scanned if scanned else float("nan"),
                    message=f"Stage {j + 1}, stump {t + 1}: {fs.type_names[fs.kind[f]]} feature, err = {err:.3f}, "
                    f"alpha = {alpha:.2f}; stage DR = {stage_dr:.3f}, FPR = {stage_fpr:.3f}.")
                if stage_fpr <= self.stage_false_positive_rate:
                    break
            if stopped:
                break
            del XT, order, valid
            sel = fs.subset(np.asarray(chosen))
            cum_dr *= stage_dr
            cum_fpr *= stage_fpr
            self._append_stage(sel, thetas, pols, alphas, theta_stage, stage_dr, stage_fpr, N, scanned)
            step += 1
            yield CascadeSnapshot(
                step=step, phase="stage", event="stage", stage=j, n_stages=j + 1, stage_n_features=len(chosen),
                stage_threshold=theta_stage, stage_detection_rate=stage_dr, stage_false_positive_rate=stage_fpr,
                detection_rate=cum_dr, false_positive_rate=cum_fpr, negatives_mined=N, windows_scanned=scanned,
                mined_acceptance=accepted / scanned if scanned else float("nan"), n_positives=P, n_negatives=N,
                message=f"Stage {j + 1} done: {len(chosen)} stumps, DR = {stage_dr:.3f}, FPR = {stage_fpr:.3f}; "
                f"cascade DR = {cum_dr:.3f}, FPR = {cum_fpr:.2e}.")
            if cum_fpr <= self.target_false_positive_rate:
                stop_reason = (f"the cascade's false-positive rate {cum_fpr:.2e} reached the target "
                               f"{self.target_false_positive_rate:.0e}")
                break
        self.stop_reason_ = stop_reason
        step += 1
        yield CascadeSnapshot(
            step=step, phase="stopped" if stopped else "done", event="stopped" if stopped else "done",
            stage=max(self.n_stages_ - 1, 0), n_stages=self.n_stages_, detection_rate=cum_dr,
            false_positive_rate=cum_fpr, n_positives=P, done=True,
            message=f"Training {'stopped' if stopped else 'finished'}: {stop_reason}.")

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
        self._stage_objs.append(_Stage(fs, theta, polarity, alpha, threshold))
        self.n_stages_ = len(self.stages_)
        self.stage_detection_rate_ = np.array([s["detection_rate"] for s in self.stages_])
        self.stage_false_positive_rate_ = np.array([s["false_positive_rate"] for s in self.stages_])
        self.detection_rate_ = float(np.prod(self.stage_detection_rate_))
        self.false_positive_rate_ = float(np.prod(self.stage_false_positive_rate_))

    # ------------------------------------------------------------------ persistence

    def save(self, path):
        """Write the cascade as a ``.npz`` archive (format ``smllab-haar-cascade``, version 1).

        Arrays: ``format`` (str), ``version`` (int), ``window`` (int), ``type_names`` (str array),
        per stump ``kind`` (int8), ``rects`` (int16, (T, 4, 4) row, col, height, width of each
        block), ``weights`` ((T, 4) +1 grey / -1 white / 0 padding), ``theta``, ``polarity``
        (int8), ``alpha``; per stage ``stage_size`` (stumps, int), ``stage_threshold``,
        ``stage_detection_rate``, ``stage_false_positive_rate``, ``stage_negatives``,
        ``stage_windows_scanned``; and ``params`` (JSON of the hyper-parameters).
        """
        self._check_ready()
        if not self.stages_:
            raise ValueError("this Cascade has no stage to save")
        type_names = list(FEATURE_TYPES)
        kinds = []
        for s in self.stages_:
            fs = s["features"]
            kinds.append(np.array([type_names.index(fs.type_names[k]) for k in fs.kind], dtype=np.int8))
        cat = lambda key: np.concatenate([np.asarray(s[key]) for s in self.stages_])  # noqa: E731
        params = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.get_params().items()
                  if k != "random_state" or v is None or isinstance(v, int)}
        if hasattr(path, "write"):
            self._write(path, type_names, kinds, cat, params)
        else:
            with open(path, "wb") as fh:
                self._write(fh, type_names, kinds, cat, params)

    def _write(self, fh, type_names, kinds, cat, params):
        np.savez_compressed(
            fh,
            format=np.array(FORMAT_NAME),
            version=np.array(FORMAT_VERSION),
            window=np.array(self.window),
            type_names=np.array(type_names),
            kind=np.concatenate(kinds),
            rects=np.concatenate([s["features"].rects for s in self.stages_]).astype(np.int16),
            weights=np.concatenate([s["features"].weights for s in self.stages_]),
            theta=cat("theta"),
            polarity=cat("polarity").astype(np.int8),
            alpha=cat("alpha"),
            stage_size=np.array([len(s["features"]) for s in self.stages_], dtype=np.int64),
            stage_threshold=np.array([s["threshold"] for s in self.stages_]),
            stage_detection_rate=self.stage_detection_rate_,
            stage_false_positive_rate=self.stage_false_positive_rate_,
            stage_negatives=np.array([s["n_negatives"] for s in self.stages_], dtype=np.int64),
            stage_windows_scanned=np.array([s["windows_scanned"] for s in self.stages_], dtype=np.int64),
            params=np.array(json.dumps(params)),
        )

    @classmethod
    def load(cls, path):
        """Read a cascade written by :meth:`save`; a corrupt or foreign file raises ValueError."""
        if hasattr(path, "read"):
            data = cls._read_npz(path)
        else:
            with open(path, "rb") as fh:  # our own handle: np.load leaks it when the zip is bad
                data = cls._read_npz(fh)
        return cls._from_arrays(data)

    @staticmethod
    def _read_npz(fh):
        try:
            with np.load(fh, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except Exception as exc:  # zip, zlib, header and allocation errors of a damaged file
            raise ValueError(f"not a cascade file (cannot read it as .npz: {type(exc).__name__})") from None
        return data

    @classmethod
    def _from_arrays(cls, d):
        def get(key, kind, ndim):
            if key not in d:
                raise ValueError(f"not a cascade file: '{key}' is missing")
            a = d[key]
            if a.dtype.kind not in kind or a.ndim != ndim:
                raise ValueError(f"corrupt cascade file: '{key}' has the wrong type or shape")
            if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
                raise ValueError(f"corrupt cascade file: '{key}' contains NaN or infinite values")
            return a

        fmt = get("format", "U", 0)
        if str(fmt) != FORMAT_NAME:
            raise ValueError(f"not a cascade file (format is {str(fmt)[:40]!r}, expected {FORMAT_NAME!r})")
        version = int(get("version", "iu", 0))
        if version != FORMAT_VERSION:
            raise ValueError(f"cascade file version {version} is not supported (this program reads {FORMAT_VERSION})")
        W = int(get("window", "iu", 0))
        if not 4 <= W <= 64:
            raise ValueError(f"corrupt cascade file: window {W} outside 4..64")
        type_names = [str(t) for t in get("type_names", "U", 1)]
        if not type_names or any(t not in FEATURE_TYPES for t in type_names) or len(type_names) > 5:
            raise ValueError("corrupt cascade file: unknown Haar pattern names")
        kind = get("kind", "iu", 1).astype(np.int64)
        T = kind.shape[0]
        rects = get("rects", "iu", 3).astype(np.int64)
        weights = get("weights", "f", 2).astype(np.float64)
        theta = get("theta", "f", 1).astype(np.float64)
        polarity = get("polarity", "i", 1).astype(np.int64)
        alpha = get("alpha", "f", 1).astype(np.float64)
        sizes = get("stage_size", "iu", 1).astype(np.int64)
        J = sizes.shape[0]
        thr = get("stage_threshold", "f", 1)
        dr = get("stage_detection_rate", "f", 1)
        fpr = get("stage_false_positive_rate", "f", 1)
        nneg = get("stage_negatives", "iu", 1)
        nscan = get("stage_windows_scanned", "iu", 1)
        if T == 0 or J == 0:
            raise ValueError("corrupt cascade file: it has no stage")
        if (rects.shape != (T, 4, 4) or weights.shape != (T, 4) or theta.shape != (T,) or polarity.shape != (T,)
                or alpha.shape != (T,)):
            raise ValueError("corrupt cascade file: the stump arrays do not have matching shapes")
        if any(a.shape != (J,) for a in (thr, dr, fpr, nneg, nscan)):
            raise ValueError("corrupt cascade file: the stage arrays do not have matching shapes")
        if np.any(sizes < 1) or int(sizes.sum()) != T:
            raise ValueError("corrupt cascade file: stage sizes do not add up to the number of stumps")
        if np.any(kind < 0) or np.any(kind >= len(type_names)):
            raise ValueError("corrupt cascade file: a stump has an unknown pattern")
        if np.any((polarity != 1) & (polarity != -1)):
            raise ValueError("corrupt cascade file: polarities must be +1 or -1")
        if np.any(alpha < 0) or np.any(alpha > 100):
            raise ValueError("corrupt cascade file: stump weights alpha outside [0, 100]")
        used = weights != 0
        if not np.all(np.isin(weights, (-1.0, 0.0, 1.0))) or np.any(used.sum(axis=1) < 2):
            raise ValueError("corrupt cascade file: block weights must be +1, -1 or 0 with at least two blocks")
        r, c, h, w = (rects[..., i] for i in range(4))
        bad = used & ((r < 0) | (c < 0) | (h < 1) | (w < 1) | (r + h > W) | (c + w > W))
        if np.any(bad):
            raise ValueError("corrupt cascade file: a Haar block lies outside the window")
        if np.any((dr < 0) | (dr > 1) | (fpr < 0) | (fpr > 1)):
            raise ValueError("corrupt cascade file: stage rates outside [0, 1]")
        params = {}
        if "params" in d:
            try:
                params = json.loads(str(d["params"]))
                if not isinstance(params, dict):
                    params = {}
            except (ValueError, TypeError):
                params = {}
        model = cls(window=W)
        for key in ("stage_detection_rate", "stage_false_positive_rate", "target_false_positive_rate",
                    "max_stages", "max_features_per_stage", "negatives_per_stage", "feature_min_size",
                    "feature_step", "n_candidate_features", "random_state"):
            value = params.get(key, getattr(model, key))
            if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
                setattr(model, key, value)
        ft = params.get("feature_types")
        if isinstance(ft, list) and ft and all(isinstance(t, str) and t in FEATURE_TYPES for t in ft):
            model.feature_types = tuple(ft)
        crow, ccol, ccoef = _corners_of(rects.astype(np.int16), np.where(used, weights, 0.0))
        area = (np.where(used, weights, 0.0) * h * w).sum(axis=1)
        names = tuple(type_names)
        full = HaarFeatureSet(
            window=W, type_names=names, kind=frozen_array(kind.astype(np.int8)),
            rects=frozen_array(np.where(used[..., None], rects, 0).astype(np.int16)),
            weights=frozen_array(np.where(used, weights, 0.0)), corner_rows=frozen_array(crow),
            corner_cols=frozen_array(ccol), corner_coef=frozen_array(ccoef),
            signed_area=frozen_array(area.astype(np.float64)), groups=None)
        model.stages_, model._stage_objs = [], []
        start = 0
        for j in range(J):
            idx = np.arange(start, start + int(sizes[j]))
            start += int(sizes[j])
            model._append_stage(full.subset(idx), theta[idx], polarity[idx], alpha[idx], float(thr[j]),
                                float(dr[j]), float(fpr[j]), int(nneg[j]), int(nscan[j]))
        model.stop_reason_ = "loaded from file"
        return model


def _patch_stats(patches):
    """Mean and standard deviation of each patch (the same floor as for image windows)."""
    n = patches[0].size
    flat = patches.reshape(patches.shape[0], -1)
    mean = flat.sum(axis=1) / n
    var = (flat * flat).sum(axis=1) / n - mean * mean
    return mean, np.sqrt(np.maximum(var, _SIGMA_FLOOR**2))


def _cut(image, rows, cols, W):
    """The W x W patches of ``image`` whose top-left corners are (rows, cols)."""
    r = rows[:, None, None] + np.arange(W)[None, :, None]
    c = cols[:, None, None] + np.arange(W)[None, None, :]
    return image[r, c]


class _Miner:
    """Finds the non-face windows that the current cascade wrongly accepts.

    Photos are cut into small chunks (a band of a few window rows of one pyramid level,
    taken as is, mirrored, transposed or both, so every photo gives four times its windows);
    each stage visits the chunks in a fresh random order and keeps at most a few accepted
    windows per chunk, so the negatives of a stage come from many photos and scales.
    Stacks of ready-made patches are chunks whose every accepted patch is kept.
    """

    _CHUNK_WINDOWS = 2048

    def __init__(self, source, window):
        W = window
        self.window = W
        items = []
        if isinstance(source, np.ndarray):
            items = [source]
        elif isinstance(source, (list, tuple)):
            items = list(source)
        else:
            raise TypeError("negative_source must be an array or a list of arrays (photos or patch stacks)")
        if not items:
            raise ValueError("negative_source is empty: give face-free photos or non-face patches")
        self.pools, self.levels, self.photos = [], [], []
        self.chunks = []  # ('pool', pool, start, stop, 0) or ('photo', level, row0, nrows, variant)
        for i, item in enumerate(items):
            a = np.asarray(item)
            if a.ndim == 3 and a.shape[1:] == (W, W):
                pool = a.astype(np.float64) / (np.iinfo(a.dtype).max if a.dtype.kind in "ui" else 1.0)
                if a.dtype.kind not in "uifb" or not np.all(np.isfinite(pool)):
                    raise ValueError(f"negative_source item {i} must be finite numbers")
                k = len(self.pools)
                self.pools.append(pool)
                for s in range(0, pool.shape[0], self._CHUNK_WINDOWS):
                    self.chunks.append(("pool", k, s, min(pool.shape[0], s + self._CHUNK_WINDOWS), 0))
                continue
            grey = to_grey_float(a, name=f"negative_source item {i}")
            if min(grey.shape) < W:
                raise ValueError(f"negative_source photo {i} is smaller than the {W} x {W} window")
            self.photos.append(grey)
        self.n_photos = len(self.photos)
        self.n_pool = sum(p.shape[0] for p in self.pools)
        self.total_windows = self.n_pool
        for grey in self.photos:
            h, w = grey.shape
            for s in _level_scales(grey.shape, W, 1.25):
                self.total_windows += 4 * (int(round(h / s)) - W + 1) * (int(round(w / s)) - W + 1)

    def prepare(self):
        """Generator: build every photo's pyramid (one level per yield); yields the fraction done."""
        W = self.window
        todo = [(grey, s) for grey in self.photos for s in _level_scales(grey.shape, W, 1.25)]
        for done, (grey, s) in enumerate(todo):
            h, w = grey.shape
            lv = _area_resize(integral_image(grey), int(round(h / s)), int(round(w / s)))
            k = len(self.levels)
            self.levels.append(lv.astype(np.float32))
            for v in range(4):
                view = self._view(k, v)
                n_cols = view.shape[1] - W + 1
                rows = max(1, self._CHUNK_WINDOWS // n_cols)
                for r0 in range(0, view.shape[0] - W + 1, rows):
                    self.chunks.append(("photo", k, r0, min(rows, view.shape[0] - W + 1 - r0), v))
            yield (done + 1) / len(todo)
        self.photos = []

    def _view(self, k, variant):
        """Level k as is, mirrored, transposed, or transposed and mirrored (4 x the windows)."""
        lv = self.levels[k]
        if variant >= 2:
            lv = lv.T
        return lv[:, ::-1] if variant % 2 else lv

    def describe(self):
        parts = []
        if self.n_photos:
            parts.append(f"{self.n_photos} face-free photo(s)")
        if self.n_pool:
            parts.append(f"{self.n_pool} non-face patches")
        return " and ".join(parts) + f" ({self.total_windows:,} windows)"

    def mine(self, cascade, quota, rng):
        """Generator: progress tuples (found, scanned, fraction), then (patches, scanned, accepted)."""
        W = self.window
        found, kept, reserve = 0, [], []
        scanned = accepted = 0
        cap = max(1, int(np.ceil(quota / 50)))
        since = 0
        order = rng.permutation(len(self.chunks))
        for ci in order:
            kind, k, a, b, v = self.chunks[ci]
            if kind == "pool":
                patches = self.pools[k][a:b]
                ok = cascade._eval_patches(patches)[0] >= cascade.n_stages_ if cascade.n_stages_ else \
                    np.ones(b - a, dtype=bool)
                sel = np.flatnonzero(ok)
                scanned += b - a
                accepted += sel.size
                since += b - a
                if sel.size:
                    kept.append(patches[sel])
                    found += sel.size
            else:
                lv = self._view(k, v)
                nrows = b
                band = lv[a : a + nrows + W - 1].astype(np.float64)
                ii, ii2 = integral_image(band), integral_image(band * band)
                stride = ii.shape[1]
                n_cols = lv.shape[1] - W + 1
                bases = (np.arange(nrows)[:, None] * stride + np.arange(n_cols)[None, :]).ravel()
                m = bases.size
                scanned += m
                since += m
                if cascade.n_stages_:
                    passed = cascade._eval_windows(ii.ravel(), ii2.ravel(), bases, stride)[0]
                    sel = np.flatnonzero(passed >= cascade.n_stages_)
                else:
                    sel = np.arange(m)
                accepted += sel.size
                if sel.size:
                    if sel.size > cap:
                        mask = np.zeros(sel.size, dtype=bool)
                        mask[rng.choice(sel.size, size=cap, replace=False)] = True
                        rest = sel[~mask]
                        reserve.append((k, v, a + rest // n_cols, rest % n_cols))
                        sel = sel[mask]
                    kept.append(_cut(band, sel // n_cols, sel % n_cols, W))
                    found += sel.size
            if found >= quota:
                break
            if since >= 60_000:
                since = 0
                yield (min(found, quota), scanned, min(1.0, found / quota))
        if found < quota and reserve:  # a small source: fill up with the windows skipped above
            lv_id = np.concatenate([np.full(r.size, 4 * k + v) for k, v, r, _ in reserve])
            rows = np.concatenate([r for _, _, r, _ in reserve])
            cols = np.concatenate([c for _, _, _, c in reserve])
            pick = np.sort(rng.choice(rows.size, size=min(rows.size, quota - found), replace=False))
            for kv in np.unique(lv_id[pick]):
                p = pick[lv_id[pick] == kv]
                kept.append(_cut(self._view(kv // 4, kv % 4).astype(np.float64), rows[p], cols[p], W))
            found += pick.size
        negs = np.concatenate(kept) if kept else np.zeros((0, W, W))
        if negs.shape[0] > quota:
            negs = negs[np.sort(rng.choice(negs.shape[0], size=quota, replace=False))]
        yield (min(found, quota), scanned, 1.0)
        yield [negs, scanned, accepted]
