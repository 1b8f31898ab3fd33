"""Haar-like features computed in constant time from integral images.

A Haar window j is a pattern of two, three or four adjacent rectangles of equal size
placed somewhere inside the W x W detection window. Its value on a patch is

    x_ij = (sum of the pixels in the grey blocks) - (sum of the pixels in the white blocks).

With the integral image  I(r, c) = sum_{r' < r, c' < c} image(r', c')  (a zero first row
and column), any rectangle sum needs four reads,

    sum(rows r0..r1-1, cols c0..c1-1) = I(r1, c1) - I(r0, c1) - I(r1, c0) + I(r0, c0),

so every feature costs at most nine reads whatever its size (adjacent blocks share corners).

Pattern types and which blocks are grey (the sign convention of
``skimage.feature.haar_like_feature``, so values agree with scikit-image):

======  ==================  ====================================  =====================
ours    scikit-image        blocks                                grey (+) / white (-)
======  ==================  ====================================  =====================
'2h'    'type-2-x'          two side by side                      right / left
'2v'    'type-2-y'          two stacked                           bottom / top
'3h'    'type-3-x'          three side by side                    middle / outer two
'3v'    'type-3-y'          three stacked                         middle / outer two
'4'     'type-4'            2 x 2 chequerboard                    top-right, bottom-left
                                                                  / top-left, bottom-right
======  ==================  ====================================  =====================
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ._base import check_scalar, frozen_array

__all__ = [
    "FEATURE_TYPES",
    "SKIMAGE_TYPES",
    "HaarFeatureSet",
    "corner_reads",
    "integral_image",
    "squared_integral_image",
    "haar_feature_set",
    "haar_features",
]

FEATURE_TYPES = ("2h", "2v", "3h", "3v", "4")
SKIMAGE_TYPES = {"2h": "type-2-x", "2v": "type-2-y", "3h": "type-3-x", "3v": "type-3-y", "4": "type-4"}

# Each pattern in units of its block: (rows of blocks, cols of blocks, [(block row, block col, weight)]).
_PATTERNS = {
    "2h": (1, 2, [(0, 0, -1.0), (0, 1, +1.0)]),
    "2v": (2, 1, [(0, 0, -1.0), (1, 0, +1.0)]),
    "3h": (1, 3, [(0, 0, -1.0), (0, 1, +1.0), (0, 2, -1.0)]),
    "3v": (3, 1, [(0, 0, -1.0), (1, 0, +1.0), (2, 0, -1.0)]),
    "4": (2, 2, [(0, 0, -1.0), (0, 1, +1.0), (1, 0, +1.0), (1, 1, -1.0)]),
}
_MAX_CORNERS = 9  # a 2 x 2 pattern has 3 x 3 distinct corners


def integral_image(image) -> np.ndarray:
    """Integral image with a zero first row and column.

    ``I[r, c]`` is the sum of ``image[:r, :c]``, so the result has shape ``(h + 1, w + 1)``
    (or ``(n, h + 1, w + 1)`` for a stack of ``n`` images) and a rectangle sum needs four reads
    with no special case at the border. Computed in float64 (exact for 8-bit images up to
    2**53 / 255 pixels).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.haar import integral_image
    >>> I = integral_image(np.arange(12.0).reshape(3, 4))
    >>> print(I)
    [[ 0.  0.  0.  0.  0.]
     [ 0.  0.  1.  3.  6.]
     [ 0.  4. 10. 18. 28.]
     [ 0. 12. 27. 45. 66.]]
    >>> float(I[3, 4] - I[1, 4] - I[3, 2] + I[1, 2])  # rows 1-2, columns 2-3: 6 + 7 + 10 + 11
    34.0
    """
    a = np.asarray(image)
    if a.ndim not in (2, 3):
        raise ValueError(f"image must be 2-D (h, w) or a stack (n, h, w), got shape {a.shape}")
    if a.dtype.kind not in "biuf":
        raise TypeError(f"image must contain numbers, got dtype {a.dtype}")
    a = a.astype(np.float64, copy=False)
    if a.size and not np.all(np.isfinite(a)):
        raise ValueError("image contains NaN or infinite values")
    out = np.zeros(a.shape[:-2] + (a.shape[-2] + 1, a.shape[-1] + 1))
    np.cumsum(a, axis=-2, out=out[..., 1:, 1:])
    np.cumsum(out[..., 1:, 1:], axis=-1, out=out[..., 1:, 1:])
    return out


def squared_integral_image(image) -> np.ndarray:
    """Integral image of the squared pixels (for window variances, Var = E[x^2] - E[x]^2).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.haar import squared_integral_image
    >>> float(squared_integral_image(np.full((2, 2), 3.0))[-1, -1])
    36.0
    """
    a = np.asarray(image, dtype=np.float64)
    return integral_image(a * a)


@dataclass(frozen=True, eq=False)
class HaarFeatureSet:
    """Every feature of a family, as arrays (one row per feature).

    Attributes
    ----------
    window : int
        Side W of the square detection window the features live in.
    type_names : tuple of str
        The pattern names; ``kind[f]`` indexes into it.
    kind : ndarray of int8, shape (F,)
    rects : ndarray of int16, shape (F, 4, 4)
        The blocks ``(row, col, height, width)`` of each feature (rows past the pattern's
        number of blocks are zero).
    weights : ndarray of float64, shape (F, 4)
        +1 for a grey block, -1 for a white block, 0 for padding.
    corner_rows, corner_cols : ndarray of int16, shape (F, 9)
        Integral-image reads of each feature (duplicate corners merged).
    corner_coef : ndarray of float64, shape (F, 9)
        Their coefficients: ``x = sum_k corner_coef[k] * I[corner_rows[k], corner_cols[k]]``.
    signed_area : ndarray of float64, shape (F,)
        Sum of weight x area, so a constant patch of value m gives ``m * signed_area``
        (zero for the two- and four-block patterns). Used to subtract the window mean.
    groups : ndarray of int64, shape (G, 8) or None
        ``(start, n_rows, n_cols, row0, col0, step, kind, block_h * 10000 + block_w)``: features
        ``start .. start + n_rows * n_cols`` are one pattern and block size at every grid
        position, row-major. Lets :func:`haar_features` use array slices instead of gathers.
        None for an arbitrary subset.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.haar import haar_feature_set
    >>> fs = haar_feature_set(4, types=("2h",))
    >>> len(fs), fs.window, fs.types()[0]
    (40, 4, '2h')
    >>> print(fs.rects[0], fs.weights[0])
    [[0 0 1 1]
     [0 1 1 1]
     [0 0 0 0]
     [0 0 0 0]] [-1.  1.  0.  0.]
    >>> len(fs.subset([0, 2]))
    2
    """

    window: int
    type_names: tuple
    kind: np.ndarray
    rects: np.ndarray
    weights: np.ndarray
    corner_rows: np.ndarray
    corner_cols: np.ndarray
    corner_coef: np.ndarray
    signed_area: np.ndarray
    groups: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.kind.shape[0])

    @property
    def n_features(self) -> int:
        """Number of features in the set."""
        return len(self)

    def types(self) -> np.ndarray:
        """Pattern name of every feature (array of str)."""
        return np.asarray(self.type_names, dtype=object)[self.kind]

    def subset(self, index) -> "HaarFeatureSet":
        """The features at ``index`` (ints or a boolean mask), in that order."""
        index = np.asarray(index)
        if index.dtype == bool:
            index = np.flatnonzero(index)
        return HaarFeatureSet(
            window=self.window,
            type_names=self.type_names,
            kind=frozen_array(self.kind[index]),
            rects=frozen_array(self.rects[index]),
            weights=frozen_array(self.weights[index]),
            corner_rows=frozen_array(self.corner_rows[index]),
            corner_cols=frozen_array(self.corner_cols[index]),
            corner_coef=frozen_array(self.corner_coef[index]),
            signed_area=frozen_array(self.signed_area[index]),
            groups=None,
        )

    def offsets(self, stride: int) -> np.ndarray:
        """Flat offsets ``row * stride + col`` of the corner reads in an integral image of row length ``stride``."""
        return self.corner_rows.astype(np.int64) * int(stride) + self.corner_cols.astype(np.int64)


def corner_reads(rects: np.ndarray, weights: np.ndarray):
    """Merge the 16 corner reads of up to four blocks into at most nine distinct ones.

    Adjacent blocks share corners; summing their coefficients halves the reads of a
    two-block feature (8 -> 6) and almost halves a four-block one (16 -> 9).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.haar import corner_reads
    >>> rows, cols, coef = corner_reads(np.array([[[0, 0, 2, 1], [0, 1, 2, 1], [0, 0, 0, 0], [0, 0, 0, 0]]]),
    ...                               np.array([[-1.0, 1.0, 0.0, 0.0]]))
    >>> int(np.count_nonzero(coef))
    6
    """
    n = rects.shape[0]
    r, c, h, w = (rects[..., i].astype(np.int64) for i in range(4))
    rows = np.stack([r + h, r, r + h, r], axis=-1)  # (n, 4 blocks, 4 corners)
    cols = np.stack([c + w, c + w, c, c], axis=-1)
    coef = weights[..., None] * np.array([1.0, -1.0, -1.0, 1.0])
    rows, cols, coef = rows.reshape(n, 16), cols.reshape(n, 16), coef.reshape(n, 16)
    key = rows * 4096 + cols
    key = np.where(coef == 0, np.iinfo(np.int64).max, key)  # padding blocks sort last
    order = np.argsort(key, axis=1, kind="stable")
    key = np.take_along_axis(key, order, 1)
    coef = np.take_along_axis(coef, order, 1)
    new = np.ones_like(key, dtype=bool)
    new[:, 1:] = key[:, 1:] != key[:, :-1]
    seg = np.cumsum(new, axis=1) - 1  # slot of each read after merging
    out_coef = np.zeros((n, 16))
    np.add.at(out_coef, (np.repeat(np.arange(n), 16), seg.ravel()), coef.ravel())
    out_key = np.zeros((n, 16), dtype=np.int64)
    out_key[np.repeat(np.arange(n), 16)[new.ravel()], seg[new]] = key[new]
    valid = (out_key != np.iinfo(np.int64).max) & (out_coef != 0)
    out_coef = np.where(valid, out_coef, 0.0)
    out_key = np.where(valid, out_key, 0)
    width = max(1, int(valid.sum(axis=1).max())) if n else 1
    if width > _MAX_CORNERS:  # pragma: no cover - impossible for the five patterns
        raise AssertionError("a Haar pattern needs more than nine reads")
    # compact the valid reads to the left
    order = np.argsort(~valid, axis=1, kind="stable")[:, :_MAX_CORNERS]
    out_key = np.take_along_axis(out_key, order, 1)
    out_coef = np.take_along_axis(out_coef, order, 1)
    return (out_key // 4096).astype(np.int16), (out_key % 4096).astype(np.int16), out_coef


def haar_feature_set(window, types=FEATURE_TYPES, min_size=1, step=1) -> HaarFeatureSet:
    """Enumerate every Haar feature of the given patterns inside a ``window`` x ``window`` patch.

    Parameters
    ----------
    window : int
        Side W of the detection window (>= 2).
    types : sequence of {'2h', '2v', '3h', '3v', '4'}
        Patterns to include (see the module docstring for the grey and white blocks).
    min_size : int, default=1
        Smallest block height and width in pixels.
    step : int, default=1
        Grid of positions (rows and columns ``0, step, 2 step, ...``) and of block sizes
        (``min_size, min_size + step, ...``). ``step=1, min_size=1`` gives the full set
        (162,336 features for W = 24, as in scikit-image); ``step=2`` keeps about one in 16.

    Returns
    -------
    HaarFeatureSet
        Ordered by pattern, then block height, block width, then position (row-major).

    Examples
    --------
    >>> from smlengine.haar import haar_feature_set
    >>> len(haar_feature_set(8)), len(haar_feature_set(8, step=2)), len(haar_feature_set(8, types=("2v",)))
    (2056, 216, 576)
    """
    check_scalar("window", window, numbers.Integral, min_value=2, max_value=1024)
    check_scalar("min_size", min_size, numbers.Integral, min_value=1)
    check_scalar("step", step, numbers.Integral, min_value=1)
    if isinstance(types, str):
        types = (types,)
    types = tuple(types)
    if not types:
        raise ValueError("types must name at least one pattern")
    for t in types:
        if t not in _PATTERNS:
            raise ValueError(f"unknown Haar pattern {t!r}; use some of {', '.join(FEATURE_TYPES)}")
    if len(set(types)) != len(types):
        raise ValueError("types lists a pattern twice")
    W = int(window)
    rects, weights, kinds, groups = [], [], [], []
    start = 0
    for k, t in enumerate(types):
        nby, nbx, blocks = _PATTERNS[t]
        for bh in range(min_size, W // nby + 1, step):
            for bw in range(min_size, W // nbx + 1, step):
                rows = np.arange(0, W - nby * bh + 1, step)
                cols = np.arange(0, W - nbx * bw + 1, step)
                if rows.size == 0 or cols.size == 0:
                    continue
                rr, cc = np.meshgrid(rows, cols, indexing="ij")
                rr, cc = rr.ravel(), cc.ravel()
                m = rr.size
                rect = np.zeros((m, 4, 4), dtype=np.int16)
                wt = np.zeros((m, 4))
                for b, (by, bx, sign) in enumerate(blocks):
                    rect[:, b, 0] = rr + by * bh
                    rect[:, b, 1] = cc + bx * bw
                    rect[:, b, 2] = bh
                    rect[:, b, 3] = bw
                    wt[:, b] = sign
                rects.append(rect)
                weights.append(wt)
                kinds.append(np.full(m, k, dtype=np.int8))
                groups.append((start, rows.size, cols.size, 0, 0, step, k, bh * 10000 + bw))
                start += m
    if start == 0:
        raise ValueError(f"no feature fits: window={W}, min_size={min_size}, step={step}")
    rects = np.concatenate(rects)
    weights = np.concatenate(weights)
    crow, ccol, ccoef = corner_reads(rects, weights)
    area = rects[..., 2].astype(np.float64) * rects[..., 3]
    return HaarFeatureSet(
        window=W,
        type_names=types,
        kind=frozen_array(np.concatenate(kinds)),
        rects=frozen_array(rects),
        weights=frozen_array(weights),
        corner_rows=frozen_array(crow),
        corner_cols=frozen_array(ccol),
        corner_coef=frozen_array(ccoef),
        signed_area=frozen_array((weights * area).sum(axis=1)),
        groups=frozen_array(np.array(groups, dtype=np.int64)),
    )


def _as_integrals(images_or_integrals, window: int) -> np.ndarray:
    a = np.asarray(images_or_integrals)
    if a.ndim == 2:
        a = a[None]
    if a.ndim != 3:
        raise ValueError(f"expected patches (n, {window}, {window}) or their integral images, got shape {a.shape}")
    if a.shape[1:] == (window, window):
        return integral_image(a)
    if a.shape[1:] == (window + 1, window + 1):
        if a.dtype.kind not in "biuf":
            raise TypeError(f"integral images must contain numbers, got dtype {a.dtype}")
        a = a.astype(np.float64, copy=False)
        if not np.all(np.isfinite(a)):
            raise ValueError("integral images contain NaN or infinite values")
        return a
    raise ValueError(
        f"patches must be {window} x {window} (or integral images {window + 1} x {window + 1}), got {a.shape[1:]}"
    )


def haar_features(images_or_integrals, feature_set: HaarFeatureSet, dtype=np.float64, chunk_size=4096) -> np.ndarray:
    """Values of every feature on every patch, shape ``(n_patches, n_features)``.

    Parameters
    ----------
    images_or_integrals : array of shape (n, W, W) or (n, W + 1, W + 1)
        Patches (their integral images are computed here) or integral images already
        computed with :func:`integral_image`. A single 2-D patch is accepted too.
    feature_set : HaarFeatureSet
    dtype : float64 or float32
        Output precision (the sums are always formed in float64).
    chunk_size : int
        Features evaluated at once on the gather path (bounds temporary memory).

    Notes
    -----
    A complete family from :func:`haar_feature_set` is evaluated pattern by pattern and
    block size by block size: the values at every position are then ``sum_k coef_k``
    times a *shifted slice* of the integral images, a handful of contiguous array
    operations. An arbitrary subset gathers its corner reads with fancy indexing instead,
    ``x[:, f] = sum_k coef[f, k] * I_flat[:, offset[f, k]]``.

    Examples
    --------
    A patch bright on its left half:

    >>> import numpy as np
    >>> from smlengine.haar import haar_feature_set, haar_features
    >>> fs = haar_feature_set(4, types=("2h",))
    >>> patch = np.zeros((4, 4))
    >>> patch[:, :2] = 1.0
    >>> x = haar_features(patch, fs)
    >>> x.shape, x[0, :3]
    ((1, 40), array([ 0., -1.,  0.]))
    """
    if not isinstance(feature_set, HaarFeatureSet):
        raise TypeError("feature_set must be a HaarFeatureSet (see haar_feature_set)")
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"dtype must be float64 or float32, got {dtype}")
    W = feature_set.window
    ii = _as_integrals(images_or_integrals, W)
    n = ii.shape[0]
    F = len(feature_set)
    out = np.empty((n, F), dtype=dtype)
    if feature_set.groups is not None:
        _features_by_slices(ii, feature_set, out)
        return out
    S = W + 1
    flat = ii.reshape(n, S * S)
    offsets = feature_set.offsets(S)
    coef = feature_set.corner_coef
    chunk_size = max(1, int(chunk_size))
    for a in range(0, F, chunk_size):
        b = min(F, a + chunk_size)
        acc = flat[:, offsets[a:b, 0]] * coef[a:b, 0]
        for k in range(1, _MAX_CORNERS):
            ck = coef[a:b, k]
            if not np.any(ck):
                continue
            acc += flat[:, offsets[a:b, k]] * ck
        out[:, a:b] = acc
    return out


def _features_by_slices(ii: np.ndarray, fs: HaarFeatureSet, out: np.ndarray) -> None:
    """Full families: one slice-and-add per distinct corner of each (pattern, block size)."""
    n = ii.shape[0]
    tmp = None
    for start, nr, nc, r0, c0, step, _kind, _size in fs.groups:
        coef = fs.corner_coef[start]
        dr = fs.corner_rows[start].astype(np.int64) - fs.rects[start, 0, 0]
        dc = fs.corner_cols[start].astype(np.int64) - fs.rects[start, 0, 1]
        if tmp is None or tmp.shape[1:] != (nr, nc):
            tmp = np.empty((n, nr, nc))
        first = True
        for k in range(_MAX_CORNERS):
            if coef[k] == 0:
                continue
            r, c = r0 + dr[k], c0 + dc[k]
            sl = ii[:, r : r + step * (nr - 1) + 1 : step, c : c + step * (nc - 1) + 1 : step]
            if first:
                np.multiply(sl, coef[k], out=tmp)
                first = False
            elif coef[k] == 1.0:
                tmp += sl
            elif coef[k] == -1.0:
                tmp -= sl
            else:
                tmp += coef[k] * sl
        out[:, start : start + nr * nc] = tmp.reshape(n, nr * nc)
