"""Sliding-window evaluation of a cascade: grey images, the pyramid, and the stages over many windows.

Every window is scored with the same arithmetic, whether it comes from a photo, a band of a
photo or a stack of training patches:

* the (squared) integral image of each pyramid level is computed once; a window's mean m and
  standard deviation s need four reads of each (s is floored at ``SIGMA_FLOOR``);
* stump t of stage j reads x_t = sum_k c_k I(corner_k) and votes h_t = +1 when
  p_t (x_t - m A_t - s theta_t) > 0; the stage accepts when f_j = sum_t alpha_t h_t >= Theta_j;
* while many windows of a level are alive (the first stages), a stage is scored on all of them
  at once: each corner read of a stump is a strided slice of the integral image (one read per
  window, no index arrays), added in place;
* the survivors are then scored stage by stage, rejected windows dropping out before the next
  stage (early rejection). A detection puts the integral images of its pyramid levels in one
  buffer with a common row length, so the survivors of all levels are scored together: each
  corner read is one gather from the buffer shifted by the read's offset (few windows: all the
  stage's reads in one gather). Levels and survivors are shared by ``THREADS`` threads;
* the reads, the mean and deviation terms and the votes are added in the same order everywhere,
  so every window gets the same stages and margins, however the work is cut;
* a level is evaluated in bands of whole window rows (at most ``BAND_WINDOWS`` windows) and the
  levels scored together hold at most ``CHUNK_CELLS`` cells, so memory stays bounded whatever
  the image size.

With numba installed, :mod:`smlengine.cascade._compiled` runs the same arithmetic window by
window in a compiled loop (each window stops at its first rejecting stage); the stages passed
and the margins are the same on either path.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..haar import HaarFeatureSet, integral_image
from . import _compiled

__all__ = [
    "SIGMA_FLOOR",
    "BAND_WINDOWS",
    "to_grey_float",
    "area_resize",
    "resize_patch",
    "level_scales",
    "StageEvaluator",
    "window_stats",
    "eval_windows",
    "eval_grid",
    "eval_pyramid",
    "level_integrals",
    "pyramid_level",
]

SIGMA_FLOOR = 1e-3  # std of a flat window (pixels in [0, 1]); avoids dividing by zero
#: most windows of a level evaluated together (a band of whole window rows): bounds memory
BAND_WINDOWS = 1 << 17
#: a stage is scored on every window of a band while more than this fraction of them is alive
DENSE_FRACTION = 0.3
#: below this many windows a stage gathers all its reads at once (fewer numpy calls)
GATHER_WINDOWS = 2000
#: windows scored together on the sparse path (their integral-image rows stay in cache)
SPARSE_BLOCK = 8192
#: most reads gathered at once on the gather path (bounds its index array)
GATHER_CELLS = 1 << 16
#: most integral-image cells of the pyramid levels whose survivors are scored together
CHUNK_CELLS = 1 << 21
#: threads sharing a detection's pyramid levels and survivors on the numpy path (OpenCV uses the
#: machine's cores likewise)
THREADS = min(2, os.cpu_count() or 1)
#: the compiled window loop is used when numba is installed (tests switch it off to compare)
_USE_COMPILED = True


# ----------------------------------------------------------------------------- image helpers


def to_grey_float(image, name: str = "image") -> np.ndarray:
    """Grey float64 image: colour (h, w, 3|4) through luminance, 8/16-bit scaled to [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cascade.scan import to_grey_float
    >>> print(to_grey_float(np.array([[0, 255]], dtype=np.uint8)))
    [[0. 1.]]
    >>> print(to_grey_float(np.full((1, 2, 3), 255, dtype=np.uint8)))
    [[1. 1.]]
    """
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


def _corners(n_src: int, n_out: int):
    """Integer part and fraction of the n_out + 1 box edges spread evenly over 0..n_src."""
    pos = np.linspace(0.0, n_src, n_out + 1)
    i0 = np.minimum(np.floor(pos).astype(np.int64), n_src - 1)
    return i0, pos - i0


def area_resize(ii: np.ndarray, out_h: int, out_w: int) -> np.ndarray:
    """Resize by exact area averaging, read off the integral image ``ii``.

    The integral of a piecewise-constant image is bilinear inside each pixel, so bilinear
    interpolation of ``ii`` at fractional corners gives exact sums over fractional boxes:
    a box filter of any (non-integer) width for the cost of the output size.
    """
    h, w = ii.shape[0] - 1, ii.shape[1] - 1
    y0, fy = _corners(h, out_h)
    x0, fx = _corners(w, out_w)
    rows = ii[y0] * (1 - fy)[:, None] + ii[y0 + 1] * fy[:, None]
    grid = rows[:, x0] * (1 - fx) + rows[:, x0 + 1] * fx
    box = grid[1:, 1:] - grid[:-1, 1:] - grid[1:, :-1] + grid[:-1, :-1]
    return box * (out_h * out_w / (h * w))


def resize_patch(image, size: int) -> np.ndarray:
    """Area-average a grey image (or a stack (n, h, w)) to ``size`` x ``size`` pixels.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cascade.scan import resize_patch
    >>> print(resize_patch(np.arange(16.0).reshape(4, 4), 2))
    [[ 2.5  4.5]
     [10.5 12.5]]
    """
    a = np.asarray(image, dtype=np.float64)
    if a.ndim == 2:
        return area_resize(integral_image(a), size, size)
    return np.stack([area_resize(ii, size, size) for ii in integral_image(a)])


def level_scales(shape, window: int, scale_factor: float, min_size: float | None = None,
                 max_size: float = np.inf) -> list:
    """Scales s (window side / W) of the pyramid levels: min_size / W times powers of the factor.

    Examples
    --------
    >>> from smlengine.cascade.scan import level_scales
    >>> [round(s, 4) for s in level_scales((100, 60), 24, 1.25)]
    [1.0, 1.25, 1.5625, 1.9531, 2.4414]
    """
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


# ----------------------------------------------------------------------------- stages


class StageEvaluator:
    """One boosted stage, with its corner reads flattened for fast window evaluation.

    ``dense_plan[t]`` lists the reads (row, col, coefficient) of stump t for the slice path;
    ``rows``, ``cols``, ``coef`` are all the stage's reads in a row (stump after stump, ``starts``
    where each stump begins) for the gather path.

    Parameters
    ----------
    fs : HaarFeatureSet
        The features of the stage's stumps.
    theta, polarity, alpha : array-like
        The stumps' thresholds, polarities and weights.
    threshold : float
        Theta_j of the stage score.

    Examples
    --------
    >>> from smlengine.haar import haar_feature_set
    >>> from smlengine.cascade.scan import StageEvaluator
    >>> fs = haar_feature_set(4, types=("2h",)).subset([0])
    >>> ev = StageEvaluator(fs, theta=[0.0], polarity=[1], alpha=[1.5], threshold=0.5)
    >>> print(ev.rows, ev.cols, ev.coef)
    [0 0 0 1 1 1] [0 1 2 0 1 2] [-1.  2. -1.  1. -2.  1.]
    >>> ev.alpha_sum, ev.dense_plan[0][:2]
    (1.5, [(0, 0, -1.0), (0, 1, 2.0)])
    """

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
        self.area = np.asarray(fs.signed_area, dtype=np.float64)
        self.two_alpha = 2.0 * self.alpha
        self.alpha_sum = float(self.alpha.sum())
        self.dense_plan = [[(int(fs.corner_rows[t, k]), int(fs.corner_cols[t, k]), float(fs.corner_coef[t, k]))
                            for k in range(fs.corner_coef.shape[1]) if fs.corner_coef[t, k] != 0]
                           for t in range(len(fs))]
        self._stride = None
        self._off = None

    def read_plan(self, stride: int):
        """Per stump, its reads as (flat offset for row length ``stride``, coefficient), and the same
        reads padded to a (T, K) table (offset 0, coefficient 0 past a stump's last read)."""
        plans = self.__dict__.setdefault("_plans", {})
        if stride not in plans:
            per_stump = [[(r * stride + c, k) for r, c, k in reads] for reads in self.dense_plan]
            K = max(len(reads) for reads in per_stump)
            off = np.zeros((len(per_stump), K), dtype=np.int64)
            coef = np.zeros((len(per_stump), K))
            for t, reads in enumerate(per_stump):
                off[t, : len(reads)] = [o for o, _ in reads]
                coef[t, : len(reads)] = [k for _, k in reads]
            if len(plans) > 16:
                plans.clear()
            plans[stride] = (per_stump, off, coef)
        return plans[stride]

    def offsets(self, stride: int) -> np.ndarray:
        """Flat offsets of the reads in an integral image of row length ``stride``."""
        if self._stride != stride:
            self._off = self.rows * stride + self.cols
            self._stride = stride
        return self._off

    def raw_features(self, flat, bases, stride) -> np.ndarray:
        """x_t = sum_k c_k I(corner_k) of every stump (columns) on every window (rows), shape (m, T)."""
        vals = flat[bases[:, None] + self.offsets(stride)[None, :]]  # a window's reads lie close together
        vals *= self.coef
        return np.add.reduceat(vals, self.starts, axis=1)

    def scores(self, flat, bases, mean, sigma, stride) -> np.ndarray:
        """f_j = sum_t alpha_t h_t on the windows whose top-left integral index is ``bases``."""
        x = self.raw_features(flat, bases, stride)
        # p (x_norm - theta) > 0  with  x_norm = (x - mean * A) / sigma   (sigma > 0)
        x -= mean[:, None] * self.area
        x -= sigma[:, None] * self.theta
        votes = (x * self.polarity) > 0
        return votes @ self.two_alpha - self.alpha_sum


def window_stats(flat, flat2, bases, stride, window):
    """Mean and standard deviation of each window from the (squared) integral image."""
    br = bases + window * stride + window
    tr = bases + window
    bl = bases + window * stride
    n = float(window * window)
    s1 = flat[br] - flat[tr] - flat[bl] + flat[bases]
    s2 = flat2[br] - flat2[tr] - flat2[bl] + flat2[bases]
    mean = s1 / n
    var = s2 / n - mean * mean
    return mean, np.sqrt(np.maximum(var, SIGMA_FLOOR**2))



def eval_windows(stages, window, flat, flat2, bases, stride):
    """Stages passed and last normalised margin of every window; rejected windows drop out stage by stage.

    ``flat``/``flat2`` are the raveled (squared) integral images, ``bases`` the flat index of each
    window's top-left corner and ``stride`` the integral image's row length. The margin of stage j
    is (f_j - Theta_j) / (2 sum alpha), kept for the last stage a window reached.
    """
    bases = np.asarray(bases, dtype=np.int64)
    m = bases.shape[0]
    passed = np.zeros(m, dtype=np.int32)
    last = np.zeros(m)
    if m and stages:
        mean, sigma = window_stats(flat, flat2, bases, stride, window)
        _eval_sparse(stages, flat, stride, {0: [(np.arange(m), bases, mean, sigma)]}, passed, last)
    return passed, last


def _dense_scores(st, read, mean, sigma, x, tmp, score):
    """f_j of every window of a band from strided slices of the integral image, in place.

    x_t is formed read after read (a coefficient of +-1 is an exact add or subtract), the votes
    are added in order starting from -sum alpha.
    """
    score.fill(-st.alpha_sum)
    for t, reads in enumerate(st.dense_plan):
        (r, c, k), rest = reads[0], reads[1:]
        np.multiply(read(r, c), k, out=x)
        for r, c, k in rest:
            if k == 1.0:
                x += read(r, c)
            elif k == -1.0:
                x -= read(r, c)
            else:
                np.multiply(read(r, c), k, out=tmp)
                x += tmp
        np.multiply(mean, st.area[t], out=tmp)
        x -= tmp
        np.multiply(sigma, st.theta[t], out=tmp)
        x -= tmp
        vote = np.greater(x, 0.0) if st.polarity[t] > 0 else np.less(x, 0.0)
        np.add(score, st.two_alpha[t], out=score, where=vote)
    return score


def _sparse_scores(st, flat, stride, bases, mean, sigma):
    """f_j on the windows whose top-left flat index is ``bases``, in the order of :func:`_dense_scores`.

    Many windows: each read is one gather from the integral image shifted by the read's offset
    (``flat[off:]`` taken at ``bases``: no index arithmetic). Few windows: all reads of the stage
    in one gather, fewer numpy calls.
    """
    per_stump, off, coef = st.read_plan(stride)
    m = bases.shape[0]
    if m < GATHER_WINDOWS:
        T, K = off.shape
        score = np.empty(m)
        B = max(1, GATHER_CELLS // (T * K))
        off_t, coef_t = off.T[:, None, :], coef.T[:, None, :]
        for b0 in range(0, m, B):
            b1 = min(m, b0 + B)
            v = flat.take(bases[b0:b1, None] + off_t, mode="clip")  # (K, m, T): read q of stump t
            v *= coef_t  # padding reads count 0: x + 0 = x
            x = v[0]
            for q in range(1, K):
                x += v[q]
            x -= mean[b0:b1, None] * st.area
            x -= sigma[b0:b1, None] * st.theta
            gain = np.empty((b1 - b0, T + 1))
            gain[:, 0] = -st.alpha_sum
            np.multiply((x * st.polarity) > 0, st.two_alpha, out=gain[:, 1:])
            score[b0:b1] = np.cumsum(gain, axis=1)[:, -1]  # votes added in order from -sum alpha (+ 0 = exact)
        return score
    score = np.full(m, -st.alpha_sum)
    B = SPARSE_BLOCK  # windows scored together: their reads stay in cache from one read to the next
    x_, tmp_, vote_ = np.empty(min(m, B)), np.empty(min(m, B)), np.empty(min(m, B), dtype=bool)
    for b0 in range(0, m, B):
        b1 = min(m, b0 + B)
        ba, mu, sd, sc = bases[b0:b1], mean[b0:b1], sigma[b0:b1], score[b0:b1]
        x, tmp, vote = x_[: b1 - b0], tmp_[: b1 - b0], vote_[: b1 - b0]
        for t, reads in enumerate(per_stump):
            o, k = reads[0]
            flat[o:].take(ba, out=x, mode="clip")
            if k != 1.0:
                x *= k
            for o, k in reads[1:]:
                flat[o:].take(ba, out=tmp, mode="clip")
                if k == 1.0:
                    x += tmp
                elif k == -1.0:
                    x -= tmp
                else:
                    tmp *= k
                    x += tmp
            np.multiply(mu, st.area[t], out=tmp)
            x -= tmp
            np.multiply(sd, st.theta[t], out=tmp)
            x -= tmp
            if st.polarity[t] > 0:
                np.greater(x, 0.0, out=vote)
            else:
                np.less(x, 0.0, out=vote)
            np.add(sc, st.two_alpha[t], out=sc, where=vote)
    return score


def _eval_sparse(stages, flat, stride, pending, passed, last):
    """Early rejection on scattered windows: ``pending[j]`` lists (result index, flat base, mean, sigma)
    of windows that passed stages 0..j-1 and start at stage j; rejected windows drop out stage by stage.
    ``passed`` and ``last`` (1-D) are written at the result indices."""
    if not pending:
        return
    idx = np.zeros(0, dtype=np.intp)
    bases = np.zeros(0, dtype=np.int64)
    mean = sigma = np.zeros(0)
    for j in range(min(pending), len(stages)):
        if j in pending:
            parts = [(idx, bases, mean, sigma), *pending[j]]
            idx, bases, mean, sigma = (np.concatenate(col) for col in zip(*parts))
        if idx.size == 0:
            continue
        st = stages[j]
        s = _sparse_scores(st, flat, stride, bases, mean, sigma)
        last[idx] = (s - st.threshold) / (2.0 * st.alpha_sum + 1e-300)
        ok = s >= st.threshold
        idx, bases, mean, sigma = idx[ok], bases[ok], mean[ok], sigma[ok]
        passed[idx] = j + 1


def _dense_band(stages, window, ii, ii2, nr, n_cols, step, passed, last, dense_fraction):
    """The first stages on every window of a band (rows of windows of ``ii``, a view starting at the
    band's first window row), while more than ``dense_fraction`` of the windows are alive.

    Writes the band's ``passed`` and ``last`` maps; returns (j, alive, mean, sigma): the next stage,
    the windows still alive (None: none) and every window's mean and deviation.
    """
    W = window

    def read(r, c, a=ii):
        return a[r : r + (nr - 1) * step + 1 : step, c : c + (n_cols - 1) * step + 1 : step]

    n = float(W * W)
    s1 = read(W, W) - read(0, W) - read(W, 0) + read(0, 0)
    s2 = read(W, W, ii2) - read(0, W, ii2) - read(W, 0, ii2) + read(0, 0, ii2)
    mean = s1 / n
    sigma = np.sqrt(np.maximum(s2 / n - mean * mean, SIGMA_FLOOR**2))
    alive = np.ones((nr, n_cols), dtype=bool)
    n_alive = m = alive.size
    x, tmp, score = np.empty((nr, n_cols)), np.empty((nr, n_cols)), np.empty((nr, n_cols))
    j = 0
    while j < len(stages) and n_alive > dense_fraction * m:
        st = stages[j]
        s = _dense_scores(st, read, mean, sigma, x, tmp, score)
        np.subtract(s, st.threshold, out=tmp)
        tmp /= 2.0 * st.alpha_sum + 1e-300
        np.copyto(last, tmp, where=alive)
        alive &= s >= st.threshold
        n_alive = int(np.count_nonzero(alive))
        j += 1
        if n_alive == 0:
            return j, None, mean, sigma
        passed[alive] = j
    return j, alive, mean, sigma


def level_integrals(level: np.ndarray, out=None):
    """Integral image and squared integral image of a pyramid level (finite by construction).

    ``out`` may give the two (h + 1, w + 1) arrays (views into a larger buffer, zero first row and
    column) to fill in place of new ones.
    """
    h, w = level.shape
    ii, ii2 = (np.zeros((h + 1, w + 1)), np.zeros((h + 1, w + 1))) if out is None else out
    np.cumsum(level, axis=0, out=ii[1:, 1:])
    np.cumsum(ii[1:, 1:], axis=1, out=ii[1:, 1:])
    np.cumsum(level * level, axis=0, out=ii2[1:, 1:])
    np.cumsum(ii2[1:, 1:], axis=1, out=ii2[1:, 1:])
    return ii, ii2


def pyramid_level(ii_img: np.ndarray, out_h: int, out_w: int):
    """(Squared) integral images of the level ``out_h`` x ``out_w`` area-averaged from the image whose
    integral image is ``ii_img``: :func:`level_integrals` of :func:`area_resize`, the same sums."""
    kernel = _compiled.level_kernel() if _USE_COMPILED else None
    if kernel is None:
        return level_integrals(area_resize(ii_img, out_h, out_w))
    h, w = ii_img.shape[0] - 1, ii_img.shape[1] - 1
    y0, fy = _corners(h, out_h)
    x0, fx = _corners(w, out_w)
    ii, ii2 = np.zeros((out_h + 1, out_w + 1)), np.zeros((out_h + 1, out_w + 1))
    kernel(np.ascontiguousarray(ii_img, dtype=np.float64), y0, fy, x0, fx, out_h * out_w / (h * w), ii, ii2)
    return ii, ii2


def eval_grid(stages, window, ii, ii2, n_rows, n_cols, step, dense_fraction=None, band_windows=None):
    """Stages passed and last margin of every window of a level: maps (n_rows, n_cols).

    Window (i, j) has its top-left corner at (i * step, j * step) of the integral image ``ii`` (a row
    band of a level passes a view of its level's integral image, so every window sees the same sums).
    The margin of stage j is (f_j - Theta_j) / (2 sum alpha), kept for the last stage a window
    reached. The level is evaluated in bands of whole window rows of at most ``band_windows``
    (default ``BAND_WINDOWS``) windows; in each band the stages are scored on every window while
    more than ``dense_fraction`` (default ``DENSE_FRACTION``) of them are alive, then on the
    survivors alone.
    """
    if n_rows <= 0 or n_cols <= 0:
        return np.zeros((0, 0), dtype=np.int32), np.zeros((0, 0))
    passed = np.zeros((n_rows, n_cols), dtype=np.int32)
    last = np.zeros(passed.shape)
    if not stages:
        return passed, last
    ii = np.ascontiguousarray(ii, dtype=np.float64)
    ii2 = np.ascontiguousarray(ii2, dtype=np.float64)
    kernel = _compiled.grid_kernel() if _USE_COMPILED else None
    if kernel is not None:
        packed = _compiled.packed(stages, ii.shape[1])
        kernel(ii, ii2, n_rows, n_cols, step, window, SIGMA_FLOOR**2, *packed, passed, last)
        return passed, last
    _eval_level(stages, window, ii, ii2, 0, n_rows, n_cols, step, passed, last,
                DENSE_FRACTION if dense_fraction is None else dense_fraction, band_windows)
    return passed, last


def _eval_level(stages, window, ii, ii2, row0, n_rows, n_cols, step, passed, last, dense_fraction, band_windows,
                pending=None, first=0):
    """The numpy path over one level whose integral images are rows ``row0 ..`` of the contiguous ``ii``
    and ``ii2``: the dense stages band by band, then the survivors. With ``pending`` (a dict), the
    survivors are added to it (result indices from ``first``, into ``passed``/``last`` raveled) to be
    scored later together with other levels; otherwise they are scored here."""
    stride = ii.shape[1]
    own = pending is None
    if own:
        pending, first = {}, 0
    per_band = max(1, int(band_windows or BAND_WINDOWS) // n_cols)
    for r0 in range(0, n_rows, per_band):
        nr = min(per_band, n_rows - r0)
        a = row0 + r0 * step
        j, alive, mean, sigma = _dense_band(stages, window, ii[a:], ii2[a:], nr, n_cols, step,
                                            passed[r0 : r0 + nr], last[r0 : r0 + nr], dense_fraction)
        if alive is None or j == len(stages):
            continue
        idx = np.flatnonzero(alive)
        r, c = np.divmod(idx, n_cols)
        bases = (a + r * step) * stride + c * step
        pending.setdefault(j, []).append((first + r0 * n_cols + idx, bases, mean.reshape(-1)[idx],
                                          sigma.reshape(-1)[idx]))
    if own:
        _eval_sparse(stages, ii.reshape(-1), stride, pending, passed.reshape(-1), last.reshape(-1))


def eval_pyramid(stages, window, ii_img, levels, dense_fraction=None, band_windows=None):
    """Generator: (ii, ii2, passed, last) of each pyramid level in turn.

    ``levels`` lists (out_h, out_w, step): the level area-averaged from the image whose integral
    image is ``ii_img`` to out_h x out_w pixels, its windows ``step`` pixels apart. The integral
    images of a level are computed once. Levels are grouped (at most ``CHUNK_CELLS`` integral-image
    cells per group; a larger level alone). With the compiled loop, the levels of a group are
    scored on ``THREADS`` threads; on the numpy path, a group's integral images share one buffer
    with a common row length, the first stages are scored level by level on whole bands of
    windows (:func:`_dense_band`), and the survivors of all the group's levels stage by stage
    together, so each later stage costs one pass over a group's survivors (:func:`_eval_group`).
    """
    W = window
    compiled = not stages or (_compiled.grid_kernel() if _USE_COMPILED else None) is not None
    fraction = DENSE_FRACTION if dense_fraction is None else dense_fraction
    group = []
    for k, (out_h, out_w, _st) in enumerate(levels):
        group.append(k)
        nxt = levels[k + 1] if k + 1 < len(levels) else None
        rows = sum(levels[q][0] + 1 for q in group)
        width = max(levels[q][1] + 1 for q in group)
        if nxt is not None and (rows + nxt[0] + 1) * max(width, nxt[1] + 1) <= CHUNK_CELLS:
            continue
        chunk = [levels[q] for q in group]
        if compiled:  # the compiled loops release the GIL: the group's levels share out between threads
            yield from _map_threads(lambda lv: _compiled_level(stages, W, ii_img, *lv), chunk)
        else:
            yield from _eval_group(stages, W, ii_img, chunk, rows, width, fraction, band_windows)
        group = []


def _compiled_level(stages, W, ii_img, out_h, out_w, st):
    ii, ii2 = pyramid_level(ii_img, out_h, out_w)
    passed, last = eval_grid(stages, W, ii, ii2, (out_h - W) // st + 1, (out_w - W) // st + 1, st)
    return ii, ii2, passed, last


def _map_threads(fn, items):
    """``[fn(x) for x in items]`` on up to ``THREADS`` threads."""
    n = max(1, min(int(THREADS), len(items)))
    if n == 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(fn, items))


def _eval_group(stages, W, ii_img, levels, rows, width, dense_fraction, band_windows):
    """:func:`eval_pyramid` on one group of levels, on up to ``THREADS`` threads: the levels (integral
    images and first stages) share out between the threads, then the survivors (halves of each
    stage's newcomers). numpy releases the GIL in its array loops; every window's result is
    computed once, by one thread, so the results do not depend on the threads."""
    ii_all, ii2_all = np.zeros((rows, width)), np.zeros((rows, width))
    sizes = [((h - W) // st + 1) * ((w - W) // st + 1) for h, w, st in levels]
    passed_all = np.zeros(sum(sizes), dtype=np.int32)
    last_all = np.zeros(sum(sizes))
    jobs, out, row0, first = [], [], 0, 0
    for (h, w, st), size in zip(levels, sizes):
        ii, ii2 = ii_all[row0 : row0 + h + 1, : w + 1], ii2_all[row0 : row0 + h + 1, : w + 1]
        n_rows, n_cols = (h - W) // st + 1, (w - W) // st + 1
        passed = passed_all[first : first + size].reshape(n_rows, n_cols)
        last = last_all[first : first + size].reshape(n_rows, n_cols)
        jobs.append((h, w, st, ii, ii2, row0, n_rows, n_cols, passed, last, first))
        out.append((ii, ii2, passed, last))
        row0 += h + 1
        first += size

    def level_job(job):
        h, w, st, ii, ii2, row0, n_rows, n_cols, passed, last, first = job
        level_integrals(area_resize(ii_img, h, w), out=(ii, ii2))
        pending = {}
        _eval_level(stages, W, ii_all, ii2_all, row0, n_rows, n_cols, st, passed, last, dense_fraction,
                    band_windows, pending, first)
        return pending

    n_threads = max(1, min(int(THREADS), len(jobs)))
    pool = ThreadPoolExecutor(n_threads) if n_threads > 1 else None
    try:
        # the largest levels first, so that the threads finish together
        order = sorted(range(len(jobs)), key=lambda q: -sizes[q])
        found = dict(zip(order, pool.map(level_job, [jobs[q] for q in order]) if pool else
                         map(level_job, [jobs[q] for q in order])))
        pending = {}
        for q in range(len(jobs)):
            for j, parts in found[q].items():
                pending.setdefault(j, []).extend(parts)
        flat = ii_all.reshape(-1)
        if pool is None or sum(p[0].size for parts in pending.values() for p in parts) < 2 * SPARSE_BLOCK:
            _eval_sparse(stages, flat, width, pending, passed_all, last_all)
        else:
            shares = [{} for _ in range(n_threads)]
            for j, parts in pending.items():
                cols = [np.concatenate(c) for c in zip(*parts)]
                cut = np.linspace(0, cols[0].size, n_threads + 1).astype(np.intp)
                for q in range(n_threads):
                    shares[q][j] = [tuple(c[cut[q] : cut[q + 1]] for c in cols)]
            list(pool.map(lambda share: _eval_sparse(stages, flat, width, share, passed_all, last_all), shares))
    finally:
        if pool is not None:
            pool.shutdown()
    yield from out
