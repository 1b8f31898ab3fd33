"""A drawing of a digit turned into an 8 × 8 digit of the UCI optical digits.

The UCI optical digits (Alpaydin & Kaynak) were made with NIST's preprocessing of scanned
forms: each handwritten digit became a binary 32 × 32 bitmap, size-normalised and centred,
and the 8 × 8 image counts the "on" pixels of each non-overlapping 4 × 4 block (0..16).
Their strokes carry about the same ink whatever the digit (312 of the 1,024 pixels on
average), so a pen's width is normalised away too. :func:`digit_from_bitmap` applies the
same steps to ink drawn or typeset at any resolution, so a drawing lands in the space the
training digits live in.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage
from skimage import morphology

__all__ = ["digit_from_bitmap", "BITMAP_SIDE", "BLOCK", "BOX_HEIGHT", "BOX_WIDTH", "MAX_WIDENING", "INK_PIXELS"]

#: side of the normalised bitmap (pixels)
BITMAP_SIDE = 32
#: side of the square blocks counted into one pixel of the 8 × 8 digit
BLOCK = 4
#: the box the ink's bounding box is stretched to (pixels of the 32 × 32 bitmap)
BOX_HEIGHT = 32
BOX_WIDTH = 20
#: a narrow digit (a 1) is widened at most this many times as much as it is heightened
MAX_WIDENING = 2.0
#: ink at or above this level is "on" (both in the drawing and after resampling)
INK_LEVEL = 0.5
MAX_SIDE = 4096
#: on pixels of the normalised 32 × 32 bitmap that the strokes are redrawn to give: the shipped
#: digits' block counts sum to 312.6 on average (5–95 %: 261–368), 303 to 330 whatever the class,
#: so their strokes are as thick as it takes for a fixed amount of ink
INK_PIXELS = 312
#: pixels along the longer side of the drawing's box where its skeleton is found and redrawn
FINE = 96


def _check_ink(ink) -> np.ndarray:
    if isinstance(ink, (str, bytes)) or ink is None:
        raise TypeError(f"ink must be a 2-D array of numbers in [0, 1], got {type(ink).__name__}")
    try:
        arr = np.asarray(ink, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("ink must be a 2-D array of numbers in [0, 1]") from None
    if arr.ndim != 2:
        raise ValueError(f"ink must be a 2-D array (rows, columns), got {arr.ndim} dimension(s) of shape {arr.shape}")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"ink is empty (shape {arr.shape})")
    if arr.shape[0] > MAX_SIDE or arr.shape[1] > MAX_SIDE:
        raise ValueError(f"ink must be at most {MAX_SIDE} pixels per side, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("ink must be finite: it contains NaN or infinite values")
    lo, hi = float(arr.min()), float(arr.max())
    if lo < 0.0 or hi > 1.0:
        raise ValueError(f"ink values must lie in [0, 1], got values from {lo:.3g} to {hi:.3g}")
    return arr


def _coverage_matrix(n_src: int, n_dst: int) -> np.ndarray:
    """(n_dst, n_src): the length of source cell i inside destination cell k, in destination
    units, when the n_src source cells are stretched over n_dst destination cells. Applied on
    both axes it gives the fraction of each destination pixel covered by each source pixel, so
    resampling is exact area averaging whether the drawing is shrunk or enlarged."""
    edges = np.arange(n_src + 1) * (n_dst / n_src)
    lo = np.maximum(edges[:-1][None, :], np.arange(n_dst)[:, None])
    hi = np.minimum(edges[1:][None, :], np.arange(n_dst)[:, None] + 1)
    return np.clip(hi - lo, 0.0, None)


def _stretch(on: np.ndarray) -> tuple[np.ndarray, int]:
    """The bounding box of the on pixels stretched to BOX_HEIGHT × tw (area averaging, on
    when ≥ ½) and tw."""
    rows = np.flatnonzero(on.any(axis=1))
    cols = np.flatnonzero(on.any(axis=0))
    crop = on[rows[0]: rows[-1] + 1, cols[0]: cols[-1] + 1].astype(np.float64)
    h, w = crop.shape
    sy = BOX_HEIGHT / h
    sx = min(BOX_WIDTH / w, MAX_WIDENING * sy)
    tw = int(min(BOX_WIDTH, max(1, round(w * sx))))
    cover = _coverage_matrix(h, BOX_HEIGHT) @ crop @ _coverage_matrix(w, tw).T
    return cover >= INK_LEVEL - 1e-9, tw


def _redrawn(on: np.ndarray, ink_pixels: int) -> np.ndarray:
    """The drawing's skeleton redrawn with the round pen whose size-normalised digit has
    the number of on pixels nearest ``ink_pixels``.

    Why: the pen decides how many blocks a stroke inks, so a thin font, a bold one and a
    mouse pen would otherwise give different digits of the same shape; the shipped digits
    all carry about the same ink. The skeleton is found with the box resampled to FINE
    pixels along its longer side (whatever the drawing's resolution), the pen radius grows
    by half a fine pixel until the normalised bitmap has more ink than asked for."""
    rows = np.flatnonzero(on.any(axis=1))
    cols = np.flatnonzero(on.any(axis=0))
    crop = on[rows[0]: rows[-1] + 1, cols[0]: cols[-1] + 1].astype(np.float64)
    h, w = crop.shape
    f = FINE / max(h, w)
    H, W = max(1, round(h * f)), max(1, round(w * f))
    cover = _coverage_matrix(h, H) @ crop @ _coverage_matrix(w, W).T
    pad = FINE // 2
    # smoothed over a source pixel before thresholding: the staircase edges of a coarse
    # drawing would otherwise grow spurs on the skeleton
    smooth = ndimage.gaussian_filter(np.pad(cover, pad), sigma=max(1.0, 0.5 * f), mode="constant")
    fine = smooth >= INK_LEVEL
    if not fine.any():
        fine = smooth >= 0.5 * smooth.max()
    skeleton = morphology.skeletonize(fine)
    dist = ndimage.distance_transform_edt(~skeleton)
    best, best_gap = skeleton, np.inf
    for r in np.arange(0.5, pad, 0.5):
        pen = dist <= r
        count = int(_stretch(pen)[0].sum())
        if abs(count - ink_pixels) < best_gap:
            best, best_gap = pen, abs(count - ink_pixels)
        if count >= ink_pixels:
            break
    return best


def digit_from_bitmap(ink, *, center: str = "box", ink_pixels: int | None = INK_PIXELS) -> np.ndarray:
    """The 8 × 8 digit (values 0..16) that the UCI preprocessing makes of a drawing.

    Steps, as in the making of the UCI optical digits from NIST forms:

    1. binarise: a pixel is on when its ink is ≥ 0.5;
    2. normalise the stroke width: the on pixels are thinned to their skeleton (one pixel
       wide lines, scikit-image's ``skeletonize``) and redrawn with a round pen whose radius
       is chosen so that the normalised 32 × 32 bitmap has ``ink_pixels`` on pixels, as
       near as the pen's half-pixel steps allow (skipped when ``ink_pixels`` is None);
    3. size-normalise: the bounding box of the on pixels (h × w) is stretched to 32 pixels
       tall and 20 wide, s_y = 32 / h and s_x = min(20 / w, 2 s_y) (a narrow digit such as
       a 1 is widened at most twice as much as it is heightened). Each pixel of the
       stretched box is the fraction of its area covered by ink (exact area averaging,
       whatever the drawing's resolution), on when ≥ 0.5;
    4. centre in a 32 × 32 bitmap: by the bounding box (``center="box"``) or by moving the
       centre of mass of the on pixels to the bitmap's centre (``center="mass"``);
    5. count the on pixels of each non-overlapping 4 × 4 block:
       x[r, c] = Σ_{i<4, j<4} b[4r + i, 4c + j] ∈ {0, …, 16}.

    The box is read off the shipped digits: every one of the 1,797 has ink in its first
    and last rows of blocks, about as much as in the middle rows (the digits are 32 pixels
    tall whatever their shape), none in the first column of blocks and almost none in the
    last (about 20 pixels wide); the 1s are drawn with strokes two blocks wide, as a narrow
    glyph stretched sideways is, yet a fifth of them are at most 4 blocks wide (so the
    stretch is bounded). A box kept at the glyph's aspect ratio (20 × 20, or 32 tall)
    leaves the outer rows empty or the digits too wide, and typeset 3s then fall outside
    the 3s' PCA model.

    Parameters
    ----------
    ink : array_like, shape (rows, columns)
        Ink in [0, 1] (0 paper, 1 full ink) at any resolution, e.g. a 64 × 64 drawing or a
        typeset glyph.
    center : {"box", "mass"}
        How the stretched digit is placed in the 32 × 32 bitmap.
    ink_pixels : int or None
        On pixels of the 32 × 32 bitmap after the strokes are redrawn (default
        :data:`INK_PIXELS`, the shipped digits' mean); None keeps the strokes as drawn.

    Returns
    -------
    digit : ndarray of float64, shape (8, 8)
        Block counts 0..16, on the scale of :func:`~smlengine.datasets.load_digits`.

    Raises
    ------
    TypeError
        ``ink`` is not an array of numbers.
    ValueError
        ``ink`` is not 2-D, is empty, has values outside [0, 1], NaN or infinity, or is
        blank (no pixel with ink ≥ 0.5): there is no digit to normalise; or, with
        ``ink_pixels=None``, its strokes are so thin that none covers half a pixel of the
        32 × 32 bitmap; ``ink_pixels`` is not a whole number in 1..1024.
    """
    if not isinstance(center, str) or center not in ("box", "mass"):
        raise ValueError(f"center must be 'box' or 'mass', got {center!r}"[:120])
    if ink_pixels is not None and (isinstance(ink_pixels, bool) or not isinstance(ink_pixels, (int, np.integer))
                                   or not 1 <= ink_pixels <= BITMAP_SIDE ** 2):
        raise ValueError(f"ink_pixels must be None or a whole number in 1..1024, got {ink_pixels!r}"[:120])
    arr = _check_ink(ink)
    on = arr >= INK_LEVEL
    rows = np.flatnonzero(on.any(axis=1))
    if rows.size == 0:
        raise ValueError("ink is blank: no pixel has ink >= 0.5, so there is no digit to normalise")
    if ink_pixels is not None:
        on = _redrawn(on, ink_pixels)
    scaled, tw = _stretch(on)
    th = BOX_HEIGHT
    if not scaled.any():
        raise ValueError("ink strokes are too thin: none covers half a pixel of the 32 × 32 bitmap; draw thicker lines")
    side = BITMAP_SIDE
    if center == "box":
        top, left = (side - th) // 2, (side - tw) // 2
    else:
        rr, cc = np.nonzero(scaled)
        top = int(np.clip(round(side / 2 - (rr.mean() + 0.5)), 0, side - th))
        left = int(np.clip(round(side / 2 - (cc.mean() + 0.5)), 0, side - tw))
    bitmap = np.zeros((side, side), dtype=np.float64)
    bitmap[top: top + th, left: left + tw] = scaled
    n = side // BLOCK
    return bitmap.reshape(n, BLOCK, n, BLOCK).sum(axis=(1, 3))
