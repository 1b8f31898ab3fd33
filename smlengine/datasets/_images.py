"""Photos for segmentation: scikit-image's bundled samples and image files a user opens.

Only the scikit-image samples that ship inside the scikit-image wheel are listed (the others
need a download through ``pooch``, which the app never does). Every image is returned as a
float64 array in [0, 1] of shape (h, w) for grey or (h, w, 3) for colour.
"""

from __future__ import annotations

import os
import warnings
from typing import NamedTuple

import numpy as np

__all__ = ["list_photos", "load_photo", "read_image_file", "ImageFile", "DEFAULT_MAX_PIXELS", "MAX_FILE_PIXELS"]

# Samples bundled with scikit-image (checked to load offline with skimage 0.22-0.26).
# 'textures' is derived here: a 2 x 2 mosaic of brick, grass, gravel and a smooth
# moon-surface patch -- the classic test of segmentation by local histograms (see _textures).
_PHOTOS = (
    "astronaut", "coffee", "chelsea", "rocket", "coins", "camera", "immunohistochemistry",
    "hubble_deep_field", "colorwheel", "brick", "grass", "gravel", "moon", "page", "text",
    "clock", "cell", "textures",
)

#: Default pixel budget of :func:`read_image_file` (512 × 512, like ``astronaut``).
DEFAULT_MAX_PIXELS = 512 * 512
#: Files with more pixels than this (read from the header) are refused before decoding: 40 million
#: pixels, e.g. 8000 x 5000 (a 40-megapixel photo), below Pillow's own decompression-bomb limit
#: (89,478,485); decoding one costs at most 160 MB (4 bytes per pixel).
MAX_FILE_PIXELS = 40_000_000
_REDUCING_GAP = 3.0


class ImageFile(NamedTuple):
    """Result of :func:`read_image_file`; unpacks as ``image, note = read_image_file(path)``.

    Attributes
    ----------
    image : ndarray of float64, (h, w) grey or (h, w, 3) colour, values in [0, 1]
    note : str or None
        A sentence for the user when the file was changed on the way in (downscaled, alpha
        dropped, 16-bit scaled, first frame of an animation); ``None`` when nothing was done.
    """

    image: np.ndarray
    note: str | None


def list_photos() -> list[str]:
    """Names accepted by :func:`load_photo`, e.g. ``'astronaut'``, ``'coffee'``, ``'coins'``."""
    return list(_PHOTOS)


def _to_float(img) -> np.ndarray:
    arr = np.asarray(img)
    if arr.dtype == np.bool_:
        return arr.astype(np.float64)
    if arr.dtype == np.uint8:
        return arr.astype(np.float64) / 255.0
    if arr.dtype == np.uint16:
        return arr.astype(np.float64) / 65535.0
    return np.clip(arr.astype(np.float64), 0.0, 1.0)


def load_photo(name: str) -> np.ndarray:
    """A bundled photo as float64 in [0, 1]: (h, w) grey or (h, w, 3) colour.

    Colour photos with an alpha channel have it dropped; ``'hubble_deep_field'`` (872 × 1000)
    is returned at full size -- downscale it yourself if a lab needs speed.
    """
    if not isinstance(name, str):
        raise TypeError(f"photo name must be a string, got {type(name).__name__}")
    key = name.strip().lower()
    if key not in _PHOTOS:
        raise ValueError(f"unknown photo {name[:80]!r}; choose one of list_photos(), e.g. 'astronaut'")
    import skimage.data  # deferred: scikit-image's data module is slow to import

    if key == "textures":
        return _textures()
    arr = _to_float(getattr(skimage.data, key)())
    if arr.ndim == 3 and arr.shape[2] == 4:
        arr = arr[..., :3]
    return np.ascontiguousarray(arr)


#: Top-left corner (row, column) of each texture's 128 × 128 patch in its 512 × 512 photo.
#: Each is the patch of its photo (on a 16-pixel grid) whose sixteen 32 × 32 blocks have
#: grey-level histograms (16 bins) closest to the patch's own, mean Jensen–Shannon divergence
#: 0.005-0.011: one texture throughout. (The centre crops held a clover patch in the grass, a
#: shadowed rim on the moon and bricks larger than a histogram window.)
TEXTURE_PATCHES = {"brick": (0, 368), "grass": (208, 336), "gravel": (288, 336), "moon": (192, 384)}


def _textures() -> np.ndarray:
    """256 × 256 grey mosaic: brick | grass over gravel | moon (each 128 × 128, see TEXTURE_PATCHES)."""
    import skimage.data  # deferred: scikit-image's data module is slow to import

    tiles = []
    for name, (r, c) in TEXTURE_PATCHES.items():
        tiles.append(_to_float(getattr(skimage.data, name)())[r:r + 128, c:c + 128])
    return np.ascontiguousarray(np.block([[tiles[0], tiles[1]], [tiles[2], tiles[3]]]))


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_image_file(path, max_pixels: int | None = DEFAULT_MAX_PIXELS) -> ImageFile:
    """Read a PNG, JPEG (or any format Pillow reads) as float64 in [0, 1].

    * grey stays (h, w); colour, palette, CMYK ... become (h, w, 3) RGB;
    * an alpha channel (RGBA, LA) is dropped (not composited);
    * 16-bit and 32-bit integer images are scaled by 1/65535 (or by their maximum when it
      is larger), float images must already lie in [0, 1] (otherwise min-max scaled, and the
      note says so; a float image of one value outside [0, 1] is read as black, saying so);
    * a file of several frames (an animated GIF) gives its first, and the note says how many it has;
    * the EXIF orientation of phone photos is applied;
    * an image with more than ``max_pixels`` pixels is downscaled (area averaging, aspect
      kept) to at most ``max_pixels`` pixels, and the returned note says so: a JPEG is decoded
      at 1/2, 1/4 or 1/8 scale by its decoder (draft mode), other formats are decoded in their
      own depth (8 bits per channel for 8-bit files) and reduced by an integer factor at once
      (box average, leaving at least a factor 3 to the exact resize) before any conversion or
      copy, then box-resized to the budget.

    Parameters
    ----------
    path : str or path-like
    max_pixels : int or None
        Pixel budget (default 262,144 = 512 × 512); ``None`` keeps the full size.

    Returns
    -------
    ImageFile
        ``(image, note)``; ``note`` is None or one sentence describing what was changed.

    Raises
    ------
    ValueError
        The file is missing, empty, not an image, truncated, corrupt, has no pixels, or has
        more than :data:`MAX_FILE_PIXELS` pixels (40 million, checked from the header before
        decoding). Messages are short.
    """
    from PIL import Image, ImageOps  # deferred: Pillow is only needed to read image files

    if max_pixels is not None:
        if isinstance(max_pixels, bool) or not isinstance(max_pixels, (int, np.integer)):
            raise TypeError(f"max_pixels must be an integer or None, got {max_pixels!r}")
        if max_pixels < 1:
            raise ValueError(f"max_pixels must be >= 1, got {max_pixels}")
    path = os.fspath(path)
    base = _short(os.path.basename(path), 80)
    try:
        size = os.path.getsize(path)
    except OSError:
        raise ValueError(f"cannot open {base}: no such file") from None
    if size == 0:
        raise ValueError(f"{base} is empty")
    notes: list[str] = []
    img = opened = None
    try:
        with warnings.catch_warnings():  # the size is checked below, against a lower limit
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = opened = Image.open(path)  # reads the header only
        w0, h0 = img.size
        if w0 <= 0 or h0 <= 0:
            raise ValueError(f"{base} has no pixels")
        if w0 * h0 > MAX_FILE_PIXELS:
            raise ValueError(f"{base} is too large: {w0:,} x {h0:,} pixels; files of at most {MAX_FILE_PIXELS:,} "
                             "pixels (e.g. 8000 x 5000) are read: downscale it first")
        frames = getattr(img, "n_frames", 1)
        if frames > 1:
            notes.append(f"only the first of its {frames:,} frames was read")
        if max_pixels is not None and w0 * h0 > max_pixels and img.format == "JPEG":
            # JPEG decodes at 1/2, 1/4 or 1/8 scale directly: fast and memory-light
            scale = (max_pixels / (w0 * h0)) ** 0.5
            img.draft(img.mode, (max(1, int(w0 * scale)), max(1, int(h0 * scale))))
        img.load()
        small = _reduce(img, max_pixels)  # integer box reduction of the decoded image, before any copy
        if small is not img:
            img.close()  # frees the full-size pixels
            img = small
        try:
            img = ImageOps.exif_transpose(img)
        except Exception:  # a broken EXIF block must not make a readable image unreadable
            pass
        img, mode_note = _normalise_mode(img)
        if mode_note:
            notes.append(mode_note)
        w1, h1 = img.size
        if max_pixels is not None and w1 * h1 > max_pixels:
            scale = (max_pixels / (w1 * h1)) ** 0.5
            nw = max(1, min(int(w1 * scale), max_pixels))
            nh = max(1, min(int(h1 * scale), max_pixels // nw))
            img = img.resize((nw, nh), Image.Resampling.BOX)
        out_w, out_h = img.size
        if sorted((w0, h0)) != sorted((out_w, out_h)):
            notes.insert(0, f"downscaled from {w0} x {h0} to {out_w} x {out_h} pixels (max_pixels={max_pixels:,})")
        arr = np.asarray(img)
    except ValueError as exc:
        if str(exc).startswith(base):
            raise
        raise ValueError(f"cannot read {base} as an image: {_short(exc)}") from None
    except MemoryError:
        raise ValueError(f"{base} is too large to read into memory") from None
    except Image.DecompressionBombError:
        raise ValueError(f"{base} is too large: more than {MAX_FILE_PIXELS:,} pixels (e.g. 8000 x 5000); "
                         "downscale it first") from None
    except Exception as exc:  # Pillow raises many types (OSError, SyntaxError, struct.error ...)
        name = type(exc).__name__
        if name == "UnidentifiedImageError":
            raise ValueError(f"{base} is not an image file Pillow can read (PNG, JPEG, ...)") from None
        raise ValueError(f"cannot read {base} as an image ({name}: {_short(exc)})") from None
    finally:
        if img is not None:
            img.close()
        if opened is not None and opened is not img:  # the file itself (a GIF's frames keep it open)
            opened.close()
    image, scale_note = _scale(arr, base)
    if scale_note:
        notes.append(scale_note)
    note = "; ".join(notes) if notes else None
    if note:
        note = note[0].upper() + note[1:] + "."
    return ImageFile(image, note)


def _reduce(img, max_pixels):
    """The decoded image box-reduced by an integer factor k, leaving at least a factor 3 (per side)
    to the exact box resize that follows, which then differs from a single box resize by a small
    fraction of a grey level (Pillow's ``reducing_gap``); ``img`` itself when no reduction applies."""
    if max_pixels is None:
        return img
    w, h = img.size
    k = int((w * h / max_pixels) ** 0.5 / _REDUCING_GAP)
    if k < 2:
        return img
    try:
        return img.reduce(k)
    except (ValueError, NotImplementedError):  # modes the reducer does not handle: the exact resize alone
        return img


def _normalise_mode(img):
    """Bring any Pillow mode to L, RGB, I (32-bit int) or F; say what was dropped."""
    mode = img.mode
    if mode in ("L", "RGB", "F"):
        return img, None
    if mode == "1":
        return img.convert("L"), None
    if mode.startswith("I;16") or mode == "I":
        return img.convert("I") if mode != "I" else img, "16-bit values scaled to [0, 1]"
    if mode in ("RGBA", "RGBa", "LA", "La", "PA"):
        target = "L" if mode.startswith("L") else "RGB"
        return img.convert(target), "transparency (alpha channel) dropped"
    if mode == "P":
        has_alpha = "transparency" in img.info
        return img.convert("RGB"), ("transparency dropped" if has_alpha else None)
    return img.convert("RGB"), None  # CMYK, YCbCr, LAB, HSV, ...


def _scale(arr: np.ndarray, base: str) -> tuple[np.ndarray, str | None]:
    """The pixels as float64 in [0, 1], and what was changed to get there (None: nothing worth saying)."""
    note = None
    if arr.size == 0:
        raise ValueError(f"{base} has no pixels")
    if arr.dtype == np.uint8:
        out = arr.astype(np.float64) / 255.0
    elif arr.dtype.kind in "iu":
        top = float(arr.max())
        out = arr.astype(np.float64) / (65535.0 if top <= 65535 else top)
        out = np.clip(out, 0.0, 1.0)
    else:
        out = arr.astype(np.float64)
        if not np.all(np.isfinite(out)):
            raise ValueError(f"{base} contains NaN or infinite pixel values")
        lo, hi = float(out.min()), float(out.max())
        if lo < 0.0 or hi > 1.0:
            if hi > lo:  # min-max scaled: the picture is kept, its values are not
                out = (out - lo) / (hi - lo)
                note = f"float values from {lo:.3g} to {hi:.3g} scaled to [0, 1]"
            else:  # one value outside [0, 1]: no scale says what grey it is
                out = np.zeros_like(out)
                note = f"every pixel is {lo:.3g}, outside [0, 1]: read as a black image"
    if out.ndim == 3 and out.shape[2] > 3:
        out = out[..., :3]
    return np.ascontiguousarray(out), note
