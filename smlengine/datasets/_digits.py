"""Image data for the PCA lab: the shipped 8 × 8 digits and stacks of grey images.

* :func:`load_digits` -- the UCI optical digits (1,797 images of 8 × 8 pixel counts 0..16),
  shipped as ``resources/data/digits.npz`` (see ``resources/data/scripts/derive_digits.py``).
* :func:`load_image_stack` -- your own images: a folder of PNG/JPEG/... files, one image
  file, or a ``.npy``/``.npz`` array of shape (n, h, w) (for instance 28 × 28 MNIST).
"""

from __future__ import annotations

import numbers
import os
import warnings
import zipfile
from pathlib import Path

import numpy as np

from .._base import check_scalar
from .._resources import resource_path

__all__ = [
    "load_digits",
    "load_image_stack",
    "IMAGE_EXTENSIONS",
    "MAX_IMAGES",
    "MAX_SIDE",
    "MAX_PIXELS",
    "MAX_ITEMSIZE",
]

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".pgm", ".pbm", ".ppm", ".webp")
MAX_IMAGES = 100_000  # images in one stack
MAX_SIDE = 4096  # pixels per side of one image
MAX_PIXELS = 100_000_000  # pixels in the whole stack (800 MB as float64)
MAX_ITEMSIZE = 8  # bytes per stored pixel value (up to int64/uint64/float64)
_DIRECT_MODES = ("L", "LA", "I", "F", "I;16", "I;16L", "I;16B", "RGB", "RGBA")  # modes numpy reads as is


# ----------------------------------------------------------------------------- shipped digits


def load_digits(digit=None) -> tuple[np.ndarray, np.ndarray]:
    """The UCI optical digits: 1,797 images of 8 × 8 pixels with values 0..16.

    Each pixel counts the "on" pixels of a 4 × 4 block of a 32 × 32 bitmap (Alpaydin &
    Kaynak; the copy scikit-learn ships as ``load_digits``; CC BY 4.0).

    Parameters
    ----------
    digit : int in 0..9 or None
        Keep only the images of this class (the course uses the 3s: 183 images).

    Returns
    -------
    images : ndarray of float64, shape (n, 8, 8)
        The pixel counts.
    labels : ndarray of int64, shape (n,)
        The digits.

    Examples
    --------
    >>> from smlengine.datasets import load_digits
    >>> images, labels = load_digits()
    >>> images.shape, labels[:10]
    ((1797, 8, 8), array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))
    >>> threes, _ = load_digits(3)
    >>> threes.shape, float(threes.max())
    ((183, 8, 8), 16.0)
    """
    check_scalar("digit", digit, numbers.Integral, min_value=0, max_value=9, allow_none=True)
    with np.load(resource_path("data", "digits.npz"), allow_pickle=False) as data:
        images = data["images"].astype(np.float64)
        labels = data["labels"].astype(np.int64)
    if digit is not None:
        keep = labels == int(digit)
        images, labels = images[keep], labels[keep]
    return images, labels


# ----------------------------------------------------------------------------- your images


def _short(name) -> str:
    text = str(name)
    return text if len(text) <= 80 else "..." + text[-77:]


def _check_shape(shape, label: str) -> None:
    if len(shape) != 3:
        hint = ""
        if len(shape) == 2:
            hint = "; save images as (n, h, w), e.g. X.reshape(-1, 28, 28)"
        elif len(shape) == 4:
            hint = " (colour images are not supported: grey images only)"
        raise ValueError(f"{label}: expected an array of shape (n_images, height, width), got shape "
                         f"{tuple(shape)}{hint}")
    n, h, w = (int(s) for s in shape)
    if n == 0 or h == 0 or w == 0:
        raise ValueError(f"{label}: the image stack is empty (shape {tuple(shape)})")
    if n > MAX_IMAGES:
        raise ValueError(f"{label}: too many images ({n}); at most {MAX_IMAGES:,} are supported")
    if h > MAX_SIDE or w > MAX_SIDE:
        raise ValueError(f"{label}: images of {h} × {w} pixels are too large; at most {MAX_SIDE} pixels per side")
    if n * h * w > MAX_PIXELS:
        raise ValueError(f"{label}: {n} images of {h} × {w} pixels are too large; at most {MAX_PIXELS:,} pixels in all")


def _finish(arr: np.ndarray, label: str) -> np.ndarray:
    if arr.dtype.kind not in "buif":
        raise ValueError(f"{label}: pixel values must be numbers, got dtype {arr.dtype}")
    out = arr.astype(np.float64)
    if not np.all(np.isfinite(out)):
        bad = int(np.count_nonzero(~np.isfinite(out)))
        raise ValueError(f"{label}: contains {bad} NaN or infinite pixel value(s)")
    return out


def _array_header(fh) -> tuple[tuple, np.dtype, int]:
    """Shape, dtype and header length of a .npy stream, read from its header only (no data loaded)."""
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
    else:
        shape, _, dtype = np.lib.format.read_array_header_2_0(fh, max_header_size=10_000)
    return shape, dtype, fh.tell()


def _check_header(shape, dtype: np.dtype, header_bytes: int, stored_bytes: int, label: str) -> None:
    """Refuse, from the header alone, what cannot be a stack of grey images of legal size.

    Checked before a byte of data is read or allocated: the shape (3-D, within the limits),
    the kind of number (bool, int, uint or float of at most 8 bytes: no complex, object,
    string or structured items, whose item size the header may declare as anything), and the
    data the header declares against the bytes the file (or the .npz member) actually holds.
    """
    _check_shape(shape, label)
    if dtype.kind not in "buif" or dtype.fields is not None or dtype.subdtype is not None:
        kind = "complex numbers" if dtype.kind == "c" else f"dtype {str(dtype)[:40]}"
        raise ValueError(f"{label}: pixel values must be real numbers (bool, int or float), got {kind}")
    if dtype.itemsize > MAX_ITEMSIZE:
        raise ValueError(f"{label}: pixel values of {dtype.itemsize} bytes ({dtype}) are not supported; "
                         f"at most {MAX_ITEMSIZE} bytes (float64)")
    declared = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if header_bytes + declared > stored_bytes:
        raise ValueError(f"{label}: the header declares {declared:,} bytes of pixels but the file holds "
                         f"{max(stored_bytes - header_bytes, 0):,}; it is truncated or corrupt")


def _load_array_file(path: Path) -> np.ndarray:
    label = path.name
    try:
        if path.suffix.lower() == ".npz":
            with zipfile.ZipFile(path) as zf:
                members = [m for m in zf.namelist() if m.endswith(".npy")]
                if not members:
                    raise ValueError(f"{_short(label)}: the .npz file holds no arrays")
                if len(members) > 1:
                    preferred = [m for m in members if m in ("images.npy", "X.npy", "arr_0.npy")]
                    if not preferred:
                        keys = ", ".join(m[:-4] for m in members[:5])[:200]
                        raise ValueError(f"{_short(label)}: several arrays ({keys}); name the images 'images'")
                    members = preferred[:1]
                info = zf.getinfo(members[0])
                with zf.open(info) as fh:
                    shape, dtype, offset = _array_header(fh)
                _check_header(shape, dtype, offset, info.file_size, _short(label))
                with zf.open(info) as fh:
                    arr = np.lib.format.read_array(fh, allow_pickle=False)
        else:
            with open(path, "rb") as fh:
                shape, dtype, offset = _array_header(fh)
            _check_header(shape, dtype, offset, path.stat().st_size, _short(label))
            arr = np.load(path, allow_pickle=False)
    except (ValueError, OSError) as exc:
        if isinstance(exc, ValueError) and str(exc).startswith(_short(label) + ":"):
            raise
        if isinstance(exc, (FileNotFoundError, PermissionError)):
            raise
        raise ValueError(f"{_short(label)}: not a readable NumPy array file ({str(exc)[:120]})") from None
    except Exception as exc:  # zipfile.BadZipFile, EOFError, struct/unpickling errors ...
        raise ValueError(f"{_short(label)}: not a readable NumPy array file ({type(exc).__name__})") from None
    if not isinstance(arr, np.ndarray):
        raise ValueError(f"{_short(label)}: not a NumPy array")
    _check_shape(arr.shape, _short(label))
    return _finish(arr, _short(label))


def _read_image(path: Path) -> np.ndarray:
    """One grey image as a 2-D array; colour only when every channel is equal."""
    from PIL import Image  # noqa: PLC0415 -- Pillow is only needed for image files

    label = _short(path.name)
    try:
        with warnings.catch_warnings():
            # the size is checked against MAX_SIDE below, before any pixel is decoded
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            im = Image.open(path)
        with im:
            w, h = im.size
            if h > MAX_SIDE or w > MAX_SIDE:
                raise ValueError(f"{label}: {w} × {h} pixels is too large; at most {MAX_SIDE} pixels per side")
            if im.mode not in _DIRECT_MODES:  # palette, bilevel, CMYK, YCbCr, ...: to RGB(A) first
                im = im.convert("RGBA" if "transparency" in im.info or im.mode.endswith("A") else "RGB")
            arr = np.asarray(im)
    except ValueError as exc:
        if str(exc).startswith(label + ":"):
            raise
        raise ValueError(f"{label}: not an image that can be read ({str(exc)[:120]})") from None
    except (FileNotFoundError, PermissionError):
        raise
    except Exception as exc:  # PIL.UnidentifiedImageError, DecompressionBombError, truncated files ...
        raise ValueError(f"{label}: not an image that can be read ({type(exc).__name__})") from None
    if arr.ndim == 3:
        if arr.shape[2] in (2, 4):  # grey+alpha or RGBA: accept only fully opaque images
            alpha = arr[..., -1]
            if np.any(alpha != alpha.max()) or alpha.max() not in (1, 255, 65535):
                raise ValueError(f"{label}: transparent images are not supported (grey images only)")
            arr = arr[..., :-1]
        if arr.shape[2] > 1 and np.any(arr != arr[..., :1]):
            raise ValueError(f"{label}: is a colour image; grey images only (convert it to greyscale first)")
        arr = arr[..., 0]
    if arr.ndim != 2:
        raise ValueError(f"{label}: unsupported image layout (shape {arr.shape})")
    return _finish(arr, label)


def load_image_stack(path) -> np.ndarray:
    """Read equally sized grey images as a float64 array of shape (n, h, w).

    Parameters
    ----------
    path : str or Path
        * a folder: every non-hidden file whose name ends in one of ``IMAGE_EXTENSIONS``
          (PNG, JPEG, BMP, GIF, TIFF, PGM, WebP, ...) is read, in sorted file-name order;
          other files are ignored. Multi-frame files contribute their first frame.
        * one image file: a stack of one image.
        * a ``.npy`` file or an ``.npz`` file with a single array (or one named ``images``,
          ``X`` or ``arr_0``) of shape (n, h, w) and a numeric dtype.

    Returns
    -------
    ndarray of float64, shape (n, h, w)
        The images.

    Raises
    ------
    FileNotFoundError
        The path does not exist.
    ValueError
        Empty folder, unreadable or non-image file, colour or transparent image, mixed
        sizes, wrong number of dimensions, non-numeric values, NaN/inf, or over the limits.

    Notes
    -----
    Pixel values are kept as stored (0..255 for 8-bit images, no rescaling). Colour images
    are accepted only when all channels are equal (saved grey); an alpha channel only when
    the image is fully opaque.

    Limits: at most ``MAX_IMAGES`` (100,000) images, ``MAX_SIDE`` (4,096) pixels per side
    and ``MAX_PIXELS`` (10⁸) pixels in all. A .npy/.npz array is checked from its header
    before its data is read: shape, a real number type of at most ``MAX_ITEMSIZE`` (8)
    bytes (no complex, object, string or structured items), and the declared bytes against
    those the file holds.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from smlengine.datasets import load_image_stack
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "stack.npy")
    >>> np.save(path, np.arange(8, dtype=np.uint8).reshape(2, 2, 2))
    >>> stack = load_image_stack(path)
    >>> stack.shape, stack.dtype, float(stack.max())
    ((2, 2, 2), dtype('float64'), 7.0)
    >>> folder.cleanup()
    """
    try:
        p = Path(os.fspath(path))
    except TypeError:
        raise TypeError(f"path must be a str or Path, got {type(path).__name__}") from None
    if not p.exists():
        raise FileNotFoundError(f"no such file or folder: {_short(p)}")
    if p.is_dir():
        files = sorted(
            f for f in p.iterdir()
            if not f.name.startswith(".") and f.suffix.lower() in IMAGE_EXTENSIONS and f.is_file()
        )
        if not files:
            raise ValueError(f"{_short(p.name)}: no image files ({', '.join(IMAGE_EXTENSIONS[:4])}, ...) "
                             "in this folder")
        if len(files) > MAX_IMAGES:
            raise ValueError(f"{_short(p.name)}: too many images ({len(files)}); at most {MAX_IMAGES:,} are supported")
        first = _read_image(files[0])
        h, w = first.shape
        if len(files) * h * w > MAX_PIXELS:
            raise ValueError(f"{_short(p.name)}: {len(files)} images of {h} × {w} pixels are too large; "
                             f"at most {MAX_PIXELS:,} pixels in all")
        stack = np.empty((len(files), h, w))
        stack[0] = first
        for i, f in enumerate(files[1:], start=1):
            img = _read_image(f)
            if img.shape != (h, w):
                raise ValueError(f"images have different sizes: {_short(files[0].name)} is {h} × {w} "
                                 f"but {_short(f.name)} is {img.shape[0]} × {img.shape[1]}")
            stack[i] = img
        return stack
    if p.suffix.lower() in (".npy", ".npz"):
        return _load_array_file(p)
    if p.suffix.lower() in IMAGE_EXTENSIONS:
        return _read_image(p)[None]
    raise ValueError(f"{_short(p.name)}: not an image stack; give a folder of images, an image file, "
                     "or a .npy/.npz array of shape (n, h, w)")
