"""Face-detection data: LFW face patches, face-free photos and the shipped cascade.

Everything comes with scikit-image and works offline:

* ``skimage.data.lfw_subset()``: 100 faces and 100 non-face patches, 25 x 25 grey, from
  Labeled Faces in the Wild. The faces are split (seeded) into training and test faces;
  only the training faces are augmented (mirror, small shifts, scalings, rotations and
  brightness / contrast changes), so the test faces stay unseen.
* Face-free photos of ``skimage.data`` (those bundled with the package, no download) for
  mining non-face windows; :data:`HELD_OUT_PHOTO` is kept out of training for testing, and
  :data:`UNSEEN_PHOTO_NAMES` out of training and of tuning the detection defaults.
* ``resources/data/face-cascade.npz``: a cascade trained by
  ``resources/data/scripts/train_face_cascade.py`` with :class:`smlengine.cascade.Cascade`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._base import check_choice, check_random_state, check_scalar, frozen_array
from .._resources import resource_path
from ..cascade import Cascade, area_resize, to_grey_float
from ..haar import integral_image

__all__ = [
    "FacePatches",
    "NEGATIVE_PHOTO_NAMES",
    "HELD_OUT_PHOTO",
    "UNSEEN_PHOTO_NAMES",
    "load_face_patches",
    "negative_photos",
    "negative_photo",
    "load_cascade",
]

# Face-free sample images bundled with scikit-image (no download). 'camera' and
# 'astronaut' show people and are not used; 'astronaut' is the detection photo.
NEGATIVE_PHOTO_NAMES = (
    "brick", "cell", "chelsea", "clock", "coffee", "coins", "grass", "gravel", "horse",
    "hubble_deep_field", "immunohistochemistry", "moon", "page", "retina", "rocket",
    "stereo_motorcycle", "text",
)
HELD_OUT_PHOTO = "coffee"
#: Face-free pictures bundled with scikit-image that neither training nor the choice of the
#: detection defaults (``min_neighbors``) looked at: with :data:`HELD_OUT_PHOTO` they are where
#: the tests count false boxes.
UNSEEN_PHOTO_NAMES = ("logo", "colorwheel", "microaneurysms", "shepp_logan_phantom")
_MAX_SIDE = 800  # larger photos are area-averaged down (mining time and memory)


@dataclass(frozen=True, eq=False)
class FacePatches:
    """Face and non-face patches of the W x W detection window (grey, floats in [0, 1]).

    Attributes
    ----------
    train_faces : ndarray (n_train, W, W)
        Augmented training faces: each training face, its mirror image and
        ``n_augment`` random jitters of it.
    test_faces : ndarray (n_test, W, W)
        The held-out LFW faces, only resized to W x W (never augmented).
    non_faces : ndarray (100, W, W)
        The non-face patches of ``lfw_subset`` resized to W x W.
    train_index, test_index : ndarray of int
        Which of the 100 LFW faces went where.
    """

    train_faces: np.ndarray
    test_faces: np.ndarray
    non_faces: np.ndarray
    train_index: np.ndarray
    test_index: np.ndarray


def _warp(images, window, mirror, angle, scale, dy, dx):
    """Sample W x W patches from 25 x 25 images under a similarity transform (vectorised).

    Output pixel centres, measured from the patch centre and stretched by 25 / W so the
    identity maps the whole source onto the patch, are rotated, scaled, mirrored and
    shifted, then read with bilinear interpolation (edge pixels repeat at the border).
    """
    from scipy.ndimage import map_coordinates  # deferred: scipy.ndimage is slow to import

    n, h, w = images.shape
    u = (np.arange(window) + 0.5 - window / 2) * (w / window)
    v = (np.arange(window) + 0.5 - window / 2) * (h / window)
    V, U = np.meshgrid(v, u, indexing="ij")
    U = U[None] * np.where(mirror, -1.0, 1.0)[:, None, None]
    V = np.broadcast_to(V[None], U.shape)
    cos, sin = np.cos(angle)[:, None, None], np.sin(angle)[:, None, None]
    s = scale[:, None, None]
    rows = h / 2 + s * (cos * V - sin * U) + dy[:, None, None] - 0.5
    cols = w / 2 + s * (sin * V + cos * U) + dx[:, None, None] - 0.5
    idx = np.broadcast_to(np.arange(n)[:, None, None], rows.shape).astype(np.float64)
    coords = np.stack([idx, rows, cols])
    return map_coordinates(images, coords, order=1, mode="nearest")


def load_face_patches(window=24, test_fraction=0.2, n_augment=10, random_state=0) -> FacePatches:
    """LFW faces and non-faces as W x W patches, with a seeded train/test split of the faces.

    Parameters
    ----------
    window : int, default=24
        Side of the output patches (the 25 x 25 LFW patches are resampled to it).
    test_fraction : float, default=0.2
        Fraction of the 100 faces held out (never augmented).
    n_augment : int, default=10
        Random jitters per training face, on top of the face and its mirror image: mirror
        with probability 1/2, rotation up to +-10 degrees, scaling 0.92-1.08, shift up to
        +-1 pixel, gamma 0.7-1.4, an illumination ramp of +-25 % across the patch in a random
        direction, contrast x 0.7-1.3 and brightness +-0.1 (clipped to [0, 1]).
    random_state : int or Generator, default=0
    """
    check_scalar("window", window, numbers.Integral, min_value=4, max_value=64)
    check_scalar("test_fraction", test_fraction, numbers.Real, min_value=0.0, max_value=1.0, include_max=False)
    check_scalar("n_augment", n_augment, numbers.Integral, min_value=0, max_value=1000)
    rng = check_random_state(random_state)
    from skimage.data import lfw_subset  # deferred: scikit-image's data module is slow to import

    data = np.asarray(lfw_subset(), dtype=np.float64)
    faces, others = data[:100], data[100:]
    perm = rng.permutation(100)
    n_test = int(round(test_fraction * 100))
    test_index, train_index = np.sort(perm[:n_test]), np.sort(perm[n_test:])

    def plain(imgs, mirror=False):
        k = imgs.shape[0]
        z = np.zeros(k)
        return _warp(imgs, window, np.full(k, mirror), z, np.ones(k), z, z)

    train = faces[train_index]
    parts = [plain(train), plain(train, mirror=True)]
    if n_augment:
        rep = np.repeat(train, n_augment, axis=0)
        k = rep.shape[0]
        jit = _warp(rep, window, rng.random(k) < 0.5, np.deg2rad(rng.uniform(-10, 10, k)),
                    rng.uniform(0.92, 1.08, k), rng.uniform(-1, 1, k), rng.uniform(-1, 1, k))
        # lighting: gamma, a linear illumination ramp in a random direction (side light),
        # then contrast and brightness around the patch mean
        jit = np.clip(jit, 0.0, 1.0) ** rng.uniform(0.7, 1.4, k)[:, None, None]
        phi = rng.uniform(0, 2 * np.pi, k)[:, None, None]
        ramp = (np.arange(window) - (window - 1) / 2) / window
        jit = jit * (1 + rng.uniform(-0.5, 0.5, k)[:, None, None]
                     * (np.cos(phi) * ramp[None, None, :] + np.sin(phi) * ramp[None, :, None]))
        contrast = rng.uniform(0.7, 1.3, k)[:, None, None]
        bright = rng.uniform(-0.1, 0.1, k)[:, None, None]
        mean = jit.mean(axis=(1, 2), keepdims=True)
        parts.append(np.clip((jit - mean) * contrast + mean + bright, 0.0, 1.0))
    return FacePatches(
        train_faces=frozen_array(np.concatenate(parts)),
        test_faces=frozen_array(plain(faces[test_index])),
        non_faces=frozen_array(plain(others)),
        train_index=frozen_array(train_index),
        test_index=frozen_array(test_index),
    )


def negative_photo(name: str) -> np.ndarray:
    """One face-free scikit-image photo (a name of :data:`NEGATIVE_PHOTO_NAMES` or
    :data:`UNSEEN_PHOTO_NAMES`) as a grey float image in [0, 1], area-averaged down to 800 pixels
    on its long side when larger."""
    check_choice("name", name, NEGATIVE_PHOTO_NAMES + UNSEEN_PHOTO_NAMES)
    import skimage.data  # deferred: scikit-image's data module is slow to import

    img = getattr(skimage.data, name)()
    if isinstance(img, tuple):  # stereo_motorcycle: (left, right, disparity)
        img = img[0]
    grey = to_grey_float(img, name=name)
    h, w = grey.shape
    f = max(h, w) / _MAX_SIDE
    if f > 1:
        grey = area_resize(integral_image(grey), int(round(h / f)), int(round(w / f)))
    return grey


def negative_photos(split="train") -> dict:
    """Face-free scikit-image photos as grey float images in [0, 1], by name.

    ``split='train'`` gives every photo except :data:`HELD_OUT_PHOTO` ('coffee'), which
    ``split='test'`` gives alone; ``'all'`` gives both. Photos larger than 800 pixels are
    area-averaged down to 800 on their long side.
    """
    check_choice("split", split, ("train", "test", "all"))
    names = [n for n in NEGATIVE_PHOTO_NAMES
             if split == "all" or (n == HELD_OUT_PHOTO) == (split == "test")]
    return {n: negative_photo(n) for n in names}


def load_cascade(name="face"):
    """The shipped face cascade (``resources/data/face-cascade.npz``) as a fitted Cascade."""
    check_choice("name", name, ("face",))
    return Cascade.load(resource_path("data", "face-cascade.npz"))
