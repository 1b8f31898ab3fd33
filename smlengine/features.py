"""Per-pixel features for segmentation as clustering.

The course segments an image by describing every pixel with a feature vector computed from
a small window around it and clustering those vectors into K groups. Two kinds of features:

* :func:`pixel_features` -- the colour of the pixel itself (RGB or CIE-Lab), optionally with
  its position, one row per pixel (row-major order: ``labels.reshape(h, w)`` is the
  segmentation).
* :func:`local_histograms` -- for an l × l window around each pixel, the grey values binned
  into ``bins`` bins give a count vector H with Σ_j H_j = l². These are the data of the
  multinomial mixture (:class:`smlengine.cluster.MultinomialMixture`).
* :func:`texture_histograms` -- the grey-level histogram of the window followed by the
  histogram of its local binary patterns (:func:`local_binary_patterns`): how bright the
  window is, and what its fine structure looks like (edges, corners, spots, flat areas).

Both take images as float arrays in [0, 1] (what :func:`smlengine.datasets.load_photo` and
:func:`smlengine.datasets.read_image_file` return); uint8 images are scaled by 1/255.

Size limits
-----------
Every function refuses an image of more than :data:`MAX_PIXELS` pixels (2048 × 2048), before
converting or copying it: the features of a bigger image would take gigabytes (10,000 ×
10,000 colour pixels are 2.4 GB as float64 alone). The histograms hold h · w · bins counts
and are refused above :data:`MAX_HISTOGRAM_ENTRIES` (2**25 counts, 128 MB, e.g. 1024 × 1024
pixels with 32 bins); the work behind them needs about four times that. Downscale first.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._base import check_choice, check_scalar

__all__ = ["local_histograms", "texture_histograms", "local_binary_patterns", "pixel_features", "grey_levels",
           "FEATURE_KINDS", "HISTOGRAM_KINDS", "LBP_CODES", "histogram_parts", "window_counts", "tiling_windows",
           "half_window_dispersion", "part_codes", "MAX_PIXELS", "MAX_HISTOGRAM_ENTRIES"]

FEATURE_KINDS = ("rgb", "lab", "rgb+xy", "lab+xy")
HISTOGRAM_KINDS = ("grey", "grey+lbp")
#: number of distinct codes of :func:`local_binary_patterns` (8 neighbours: 0..8 and 9)
LBP_CODES = 10
#: largest image (pixels) any feature function accepts
MAX_PIXELS = 2048 * 2048
#: largest histogram array (pixels × bins) :func:`local_histograms` and :func:`texture_histograms` build
MAX_HISTOGRAM_ENTRIES = 2**25

# ITU-R BT.709 luma weights, the ones skimage.color.rgb2gray uses.
_LUMA = np.array([0.2125, 0.7154, 0.0721])


def _check_image(image, name: str = "image") -> np.ndarray:
    """A finite (h, w) or (h, w, 3) float64 array; uint8 scaled to [0, 1]."""
    if image is None:
        raise ValueError(f"{name} is missing (None)")
    arr = np.asarray(image)
    if arr.ndim in (2, 3) and arr.shape[0] * arr.shape[1] > MAX_PIXELS:
        h, w = arr.shape[:2]
        raise ValueError(f"{name} has {h} x {w} = {h * w:,} pixels; at most {MAX_PIXELS:,} (2048 x 2048) are "
                         f"accepted: downscale it first")
    if arr.dtype == np.bool_:
        arr = arr.astype(np.float64)
    elif arr.dtype == np.uint8:
        arr = arr.astype(np.float64) / 255.0
    elif arr.dtype == np.uint16:
        arr = arr.astype(np.float64) / 65535.0
    else:
        try:
            arr = arr.astype(np.float64, copy=False)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must contain numbers, got dtype {arr.dtype}") from None
    if arr.ndim == 3 and arr.shape[2] == 4:
        arr = arr[..., :3]
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] != 3):
        raise ValueError(f"{name} must be a grey (h, w) or colour (h, w, 3) array, got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s)")
    return arr


def grey_levels(image) -> np.ndarray:
    """Grey value in [0, 1] of every pixel: the image itself, or the BT.709 luma of colour.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.features import grey_levels
    >>> print(grey_levels(np.ones((1, 2, 3))))
    [[1. 1.]]
    """
    arr = _check_image(image)
    if arr.ndim == 3:
        arr = arr @ _LUMA
    return np.clip(arr, 0.0, 1.0)


def local_histograms(image, window: int = 15, bins: int = 16) -> np.ndarray:
    """Histogram of grey values in the l × l window around every pixel.

    Grey values v in [0, 1] fall into bin ``min(floor(v * bins), bins - 1)``; colour images
    are first turned into grey (BT.709 luma). At the border the image is mirrored with the edge
    pixel repeated (``numpy.pad(mode='symmetric')``, scipy's ``mode='reflect'``), so every
    window holds exactly l² pixels and Σ_j H_j = l² for every pixel.

    Computed as integral histograms: one indicator plane per bin, cumulative sums along both
    axes, and the window count as a difference of four corners -- O(h · w · bins) work
    independent of l, no loop over pixels.

    Parameters
    ----------
    image : array of shape (h, w) or (h, w, 3), values in [0, 1] (uint8 is scaled), at most
        :data:`MAX_PIXELS` pixels, and h · w · bins <= :data:`MAX_HISTOGRAM_ENTRIES`
    window : int, odd, 1 <= window <= min(h, w)
        Side l of the square window centred on the pixel.
    bins : int, 2 <= bins <= 256

    Returns
    -------
    H : ndarray of int32, shape (h, w, bins)
        Counts; ``H.reshape(-1, bins)`` are the count vectors of the multinomial mixture.

    Examples
    --------
    A dark left half and a bright right half, 3 × 3 windows, two bins:

    >>> import numpy as np
    >>> from smlengine.features import local_histograms
    >>> img = np.array([[0.0, 0.0, 1.0, 1.0]] * 3)
    >>> H = local_histograms(img, window=3, bins=2)
    >>> H.shape
    (3, 4, 2)
    >>> print(H[1])
    [[9 0]
     [6 3]
     [3 6]
     [0 9]]
    """
    grey = grey_levels(image)
    check_scalar("bins", bins, numbers.Integral, min_value=2, max_value=256)
    window, bins = _check_window(window, grey.shape), int(bins)
    _check_entries(grey.shape, bins)
    return window_counts(np.minimum((grey * bins).astype(np.intp), bins - 1), window, bins)


def _check_entries(shape, n_codes: int) -> None:
    h, w = shape
    if h * w * n_codes > MAX_HISTOGRAM_ENTRIES:
        raise ValueError(f"{h} x {w} pixels with {n_codes} histogram bins make {h * w * n_codes:,} counts; at most "
                         f"{MAX_HISTOGRAM_ENTRIES:,} are accepted: downscale the image or use fewer bins")


def _check_window(window, shape) -> int:
    check_scalar("window", window, numbers.Integral, min_value=1)
    window = int(window)
    if window % 2 == 0:
        raise ValueError(f"window must be odd so it is centred on the pixel, got {window}")
    h, w = shape
    if window > min(h, w):
        raise ValueError(f"window ({window}) is larger than the image ({h} x {w}); choose window <= {min(h, w)}")
    return window


def window_counts(codes: np.ndarray, window: int, n_codes: int) -> np.ndarray:
    """(h, w, n_codes) int32: how often each code 0..n_codes-1 occurs in the l × l window
    around every pixel of the integer image ``codes`` (mirrored at the border, as in
    :func:`local_histograms`), by integral histograms.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.features import window_counts
    >>> print(window_counts(np.array([[0, 1], [1, 1]]), 1, 2)[:, :, 1])
    [[0 1]
     [1 1]]
    """
    h, w = codes.shape
    window, bins = int(window), int(n_codes)
    r = window // 2
    idx = np.pad(codes, r, mode="symmetric")
    # Cumulative counts along rows with a leading zero row, then the window difference.
    onehot = idx[:, :, None] == np.arange(bins, dtype=np.intp)
    cum = np.zeros((h + 2 * r + 1, w + 2 * r, bins), dtype=np.int32)
    np.cumsum(onehot, axis=0, dtype=np.int32, out=cum[1:])
    rows = cum[window:] - cum[:-window]  # (h, w + 2r, bins): counts in l x 1 columns
    del cum, onehot
    cum = np.zeros((h, w + 2 * r + 1, bins), dtype=np.int32)
    np.cumsum(rows, axis=1, dtype=np.int32, out=cum[:, 1:])
    return cum[:, window:] - cum[:, :-window]


def local_binary_patterns(image) -> np.ndarray:
    """The rotation-invariant uniform local binary pattern of every pixel, a code in 0..9.

    Each of the 8 neighbours at radius 1 (bilinearly interpolated on the circle) is compared
    with the centre: s_p = 1 if g_p >= g_c. A pattern with at most two 0/1 changes around the
    circle ("uniform": a spot, an edge, a corner, a flat patch) gets the code Σ_p s_p (0..8);
    every other pattern gets 9. The code does not change when the image is brightened or its
    contrast stretched, and not when the pattern is rotated, so it describes the fine
    structure of a texture, not its grey level (Ojala, Pietikäinen and Mäenpää 2002;
    ``skimage.feature.local_binary_pattern(grey, 8, 1, 'uniform')``).

    Parameters
    ----------
    image : array (h, w) or (h, w, 3), values in [0, 1] (colour is turned into grey first)

    Returns
    -------
    codes : ndarray of intp, shape (h, w), values 0 .. LBP_CODES - 1
        The pattern code of every pixel.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.features import local_binary_patterns
    >>> print(local_binary_patterns(np.array([[0.0, 0.0, 1.0, 1.0]] * 3)))
    [[8 8 3 3]
     [8 8 5 5]
     [8 8 3 3]]
    """
    from skimage.feature import local_binary_pattern  # deferred: scikit-image submodules are slow to import

    grey = grey_levels(image)
    # 8-bit grey levels: comparisons of nearly equal float values would turn sensor noise
    # in flat regions into patterns.
    g8 = np.rint(grey * 255.0).astype(np.uint8)
    return local_binary_pattern(g8, 8, 1, method="uniform").astype(np.intp)


def texture_histograms(image, window: int = 15, bins: int = 8, kind: str = "grey+lbp") -> np.ndarray:
    """Count vectors describing the texture of the l × l window around every pixel.

    ``kind='grey'``: :func:`local_histograms` (``bins`` grey-level bins). ``kind='grey+lbp'``:
    those counts followed by the window's histogram of :func:`local_binary_patterns`
    (LBP_CODES = 10 more columns). Both parts count the same l² pixels, so each row holds two
    histograms with l² counts each; a multinomial mixture on the row is then a product of
    two multinomials, one for the grey levels and one for the patterns (the split of the 2 l²
    counts between the parts is the same for every row).

    Returns
    -------
    H : ndarray of int32, shape (h, w, bins) or (h, w, bins + LBP_CODES)
        The counts of every pixel's window.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.features import histogram_parts, texture_histograms
    >>> H = texture_histograms(np.array([[0.0, 0.0, 1.0, 1.0]] * 3), window=3, bins=2)
    >>> H.shape, histogram_parts("grey+lbp", 2)
    ((3, 4, 12), (2, 10))
    """
    check_choice("kind", kind, HISTOGRAM_KINDS)
    if kind == "grey+lbp" and isinstance(bins, numbers.Integral):
        shape = np.shape(image)[:2]
        if len(shape) == 2:
            _check_entries(shape, int(bins) + LBP_CODES)  # before the first half is built
    H = local_histograms(image, window=window, bins=bins)
    if kind == "grey":
        return H
    L = window_counts(local_binary_patterns(image), int(window), LBP_CODES)
    return np.concatenate([H, L], axis=2)


def histogram_parts(kind: str, bins: int) -> tuple:
    """Number of bins of each histogram in a row of :func:`texture_histograms`.

    Examples
    --------
    >>> from smlengine.features import histogram_parts
    >>> histogram_parts("grey", 8), histogram_parts("grey+lbp", 8)
    ((8,), (8, 10))
    """
    check_choice("kind", kind, HISTOGRAM_KINDS)
    return (int(bins),) if kind == "grey" else (int(bins), LBP_CODES)


def pixel_features(image, kind: str = "rgb", position_weight: float = 1.0) -> np.ndarray:
    """One feature row per pixel (row-major), for k-means or the Gaussian mixture.

    Parameters
    ----------
    image : array of shape (h, w, 3) colour or (h, w) grey, values in [0, 1], at most
        :data:`MAX_PIXELS` pixels
    kind : {'rgb', 'lab', 'rgb+xy', 'lab+xy'}
        ``'rgb'``: the colour in [0, 1] (grey images: one column, the grey value).
        ``'lab'``: CIE-Lab (D65) divided by 100, so L is in [0, 1] and a, b roughly in
        [-1, 1] -- the same scale as RGB, and Euclidean distance is closer to perceived
        colour difference (grey images: one column, L/100).
        ``'+xy'``: two more columns, the column x/(w-1) and row y/(h-1) in [0, 1] times
        ``position_weight``, so segments also prefer to be spatially compact.
    position_weight : float in [0, 1e6]
        Weight of the position columns relative to colour (only for ``'+xy'``).

    Returns
    -------
    X : ndarray of float64, shape (h * w, f) with f = 1 or 3 (+ 2 with position)
        One row per pixel.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.features import pixel_features
    >>> img = np.dstack([np.array([[0.0, 0.0, 1.0, 1.0]] * 3)] * 3)
    >>> F = pixel_features(img, "rgb+xy")
    >>> F.shape
    (12, 5)
    >>> print(np.round(F[:2], 3))
    [[0.    0.    0.    0.    0.   ]
     [0.    0.    0.    0.333 0.   ]]
    """
    arr = _check_image(image)
    check_choice("kind", kind, FEATURE_KINDS)
    check_scalar("position_weight", position_weight, numbers.Real, min_value=0.0, max_value=1e6)
    h, w = arr.shape[:2]
    colour = np.clip(arr, 0.0, 1.0)
    if kind.startswith("lab"):
        from skimage.color import rgb2lab  # deferred: scikit-image submodules are slow to import

        rgb = colour if colour.ndim == 3 else np.repeat(colour[:, :, None], 3, axis=2)
        lab = rgb2lab(rgb) / 100.0
        colour = lab if colour.ndim == 3 else lab[:, :, 0]
    cols = colour.reshape(h * w, -1)
    if not kind.endswith("+xy"):
        return np.ascontiguousarray(cols, dtype=np.float64)
    yy, xx = np.divmod(np.arange(h * w), w)
    pos = np.column_stack([xx / max(w - 1, 1), yy / max(h - 1, 1)]) * float(position_weight)
    return np.hstack([cols, pos])


def tiling_windows(shape: tuple, window: int) -> np.ndarray:
    """Pixel indices (row-major) of the centres of the non-overlapping l × l windows that tile
    an (h, w) image on a grid centred in it: ⌊h/l⌋ × ⌊w/l⌋ windows, no two sharing a pixel.

    Examples
    --------
    >>> from smlengine.features import tiling_windows
    >>> tiling_windows((6, 6), 3)
    array([ 7, 10, 25, 28])
    """
    h, w = int(shape[0]), int(shape[1])
    l = int(window)
    nr, nc = h // l, w // l
    r0, c0 = (h - nr * l) // 2, (w - nc * l) // 2
    rows = r0 + l // 2 + l * np.arange(nr)
    cols = c0 + l // 2 + l * np.arange(nc)
    return (rows[:, None] * w + cols[None, :]).ravel()


def half_window_dispersion(codes: np.ndarray, window: int, n_codes: int) -> float:
    """How much more the counts of a window vary than counts of independent pixels: ĉ.

    Every window of :func:`tiling_windows` is cut into two halves of m = l ⌊l/2⌋ pixels, left
    against right and top against bottom (an odd l drops the middle line). If its pixels were
    independent draws from the window's distribution p, the two halves' counts A and B would
    differ by Var(A_j − B_j) = 2 m p_j (1 − p_j). With p̂ = (A + B) / 2m,

        ĉ = Σ_windows Σ_j (A_j − B_j)² / Σ_windows Σ_j 2 m p̂_j (1 − p̂_j),

    ≈ 1 for independent pixels and larger when neighbouring pixels are alike (texture
    elements larger than a pixel): a window's l² counts then carry the information of about
    l² / ĉ independent pixels. No clustering is involved, so ĉ is the same for every K.

    Parameters
    ----------
    codes : integer array (h, w), values 0 .. n_codes - 1 (grey-level bins or patterns)
        The code of every pixel.
    window : int, odd, at least 3 and at most min(h, w)
        Side l of the windows.
    n_codes : int >= 2
        Number of codes.

    Returns
    -------
    float
        ĉ.

    Examples
    --------
    Independent pixels give about 1; blocks of 3 × 3 equal pixels much more:

    >>> import numpy as np
    >>> from smlengine.features import half_window_dispersion
    >>> rng = np.random.default_rng(0)
    >>> round(half_window_dispersion(rng.integers(0, 4, (30, 30)), 5, 4), 2)
    1.18
    >>> blocks = np.repeat(np.repeat(rng.integers(0, 4, (10, 10)), 3, axis=0), 3, axis=1)
    >>> round(half_window_dispersion(blocks, 5, 4), 2)
    4.75
    """
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.dtype.kind not in "iu":
        raise ValueError(f"codes must be a 2-D integer array, got shape {codes.shape} and dtype {codes.dtype}")
    check_scalar("n_codes", n_codes, numbers.Integral, min_value=2)
    l = _check_window(window, codes.shape)
    if l < 3:
        raise ValueError(f"window must be at least 3 to have two halves, got {l}")
    if codes.min() < 0 or codes.max() >= n_codes:
        raise ValueError(f"codes must lie in 0 .. {n_codes - 1}")
    h, w = codes.shape
    nr, nc = h // l, w // l
    r0, c0 = (h - nr * l) // 2, (w - nc * l) // 2
    tiles = codes[r0:r0 + nr * l, c0:c0 + nc * l].reshape(nr, l, nc, l).transpose(0, 2, 1, 3).reshape(-1, l, l)
    half = l // 2
    m = l * half
    num = den = 0.0
    for a, b in ((tiles[:, :, :half], tiles[:, :, l - half:]), (tiles[:, :half, :], tiles[:, l - half:, :])):
        offsets = (np.arange(tiles.shape[0]) * int(n_codes))[:, None]
        A = np.bincount((a.reshape(len(tiles), -1) + offsets).ravel(), minlength=len(tiles) * n_codes)
        B = np.bincount((b.reshape(len(tiles), -1) + offsets).ravel(), minlength=len(tiles) * n_codes)
        p = (A + B) / (2.0 * m)
        num += float(((A - B).astype(np.float64) ** 2).sum())
        den += float((2.0 * m * p * (1.0 - p)).sum())
    return num / den if den > 0 else 1.0


def part_codes(image, bins: int, kind: str) -> list:
    """The integer code images behind each part of :func:`texture_histograms`:
    [grey-level bin] or [grey-level bin, local binary pattern].

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.features import part_codes
    >>> [c.shape for c in part_codes(np.array([[0.0, 0.0, 1.0, 1.0]] * 3), 2, "grey+lbp")]
    [(3, 4), (3, 4)]
    """
    check_choice("kind", kind, HISTOGRAM_KINDS)
    grey = grey_levels(image)
    out = [np.minimum((grey * int(bins)).astype(np.intp), int(bins) - 1)]
    if kind == "grey+lbp":
        out.append(local_binary_patterns(image))
    return out
