"""Per-pixel features: local histograms (integral histograms) and colour/position features."""

import numpy as np
import pytest

from smlengine.features import local_histograms, pixel_features


def _direct(grey, window, bins):
    """Per-pixel count over a symmetric-padded window: the slow reference."""
    r = window // 2
    idx = np.minimum((grey * bins).astype(int), bins - 1)
    padded = np.pad(idx, r, mode="symmetric")
    h, w = grey.shape
    out = np.zeros((h, w, bins), dtype=int)
    for i in range(h):
        for j in range(w):
            out[i, j] = np.bincount(padded[i:i + window, j:j + window].ravel(), minlength=bins)
    return out


@pytest.mark.parametrize("window, bins", [(1, 4), (3, 16), (5, 8), (7, 3)])
def test_local_histograms_equal_direct_count(window, bins):
    rng = np.random.default_rng(window)
    grey = rng.random((9, 11))
    grey[0, 0], grey[1, 1] = 1.0, 0.0  # the end points of [0, 1]
    H = local_histograms(grey, window=window, bins=bins)
    np.testing.assert_array_equal(H, _direct(grey, window, bins))
    assert H.shape == (9, 11, bins) and H.dtype == np.int32
    assert np.all(H.sum(axis=2) == window * window)


def test_local_histograms_colour_uses_luma_and_scipy_reflect():
    from scipy import ndimage
    rng = np.random.default_rng(0)
    rgb = rng.random((12, 10, 3))
    grey = rgb @ np.array([0.2125, 0.7154, 0.0721])
    H = local_histograms(rgb, window=5, bins=4)
    idx = np.minimum((grey * 4).astype(int), 3)
    for b in range(4):
        ref = ndimage.uniform_filter((idx == b).astype(float), size=5, mode="reflect") * 25
        np.testing.assert_allclose(H[:, :, b], ref, atol=1e-9)


@pytest.mark.parametrize(
    "image, kwargs, match",
    [
        (np.zeros((0, 5)), {}, "empty"),
        (np.zeros((5, 5)), {"window": 7}, "larger than the image"),
        (np.zeros((5, 5)), {"window": 4}, "odd"),
        (np.full((5, 5), np.nan), {"window": 3}, "NaN"),
        (np.zeros((5, 5)), {"window": 3, "bins": 1}, "bins"),
        (np.zeros((5, 5, 2)), {"window": 3}, "shape"),
    ],
)
def test_local_histograms_bad_input(image, kwargs, match):
    with pytest.raises(ValueError, match=match):
        local_histograms(image, **kwargs)


def test_pixel_features_rgb_and_position():
    img = np.arange(2 * 3 * 3, dtype=float).reshape(2, 3, 3) / 20.0
    X = pixel_features(img, "rgb")
    np.testing.assert_array_equal(X, img.reshape(6, 3))
    Xp = pixel_features(img, "rgb+xy", position_weight=2.0)
    assert Xp.shape == (6, 5)
    np.testing.assert_allclose(Xp[:, 3], [0, 1, 2, 0, 1, 2])  # x / (w - 1) * 2
    np.testing.assert_allclose(Xp[:, 4], [0, 0, 0, 2, 2, 2])  # y / (h - 1) * 2


def test_pixel_features_lab_matches_skimage():
    from skimage import color
    rng = np.random.default_rng(1)
    img = rng.random((4, 5, 3))
    np.testing.assert_allclose(pixel_features(img, "lab"), color.rgb2lab(img).reshape(-1, 3) / 100.0)
    grey = rng.random((4, 5))
    assert pixel_features(grey, "rgb").shape == (20, 1)
    assert pixel_features(grey, "lab+xy").shape == (20, 3)
    uint8 = (img * 255).astype(np.uint8)
    np.testing.assert_allclose(pixel_features(uint8), uint8.reshape(-1, 3) / 255.0)


def test_pixel_features_bad_input():
    with pytest.raises(ValueError, match="kind"):
        pixel_features(np.zeros((2, 2, 3)), "hsv")
    with pytest.raises(ValueError, match="empty"):
        pixel_features(np.zeros((0, 0, 3)))
    with pytest.raises(ValueError, match="NaN"):
        pixel_features(np.full((2, 2, 3), np.nan))
    with pytest.raises(ValueError, match="position_weight"):
        pixel_features(np.zeros((2, 2, 3)), "rgb+xy", position_weight=-1.0)


def test_huge_images_are_refused_before_any_copy():
    from smlengine.features import MAX_HISTOGRAM_ENTRIES, MAX_PIXELS, texture_histograms

    # a 10,000 x 10,000 colour image that costs no memory (a broadcast view): refused from its shape alone
    big = np.broadcast_to(np.zeros((1, 1, 3), dtype=np.uint8), (10_000, 10_000, 3))
    for call in (lambda: local_histograms(big), lambda: pixel_features(big, kind="lab+xy"),
                 lambda: texture_histograms(big)):
        with pytest.raises(ValueError, match="downscale"):
            call()
    # the limits are where they say: the largest accepted square image works, one row more is refused
    side = int(np.sqrt(MAX_PIXELS))
    grey = np.broadcast_to(np.zeros((1, 1)), (side + 1, side))
    with pytest.raises(ValueError, match="2048 x 2048"):
        pixel_features(grey)
    assert pixel_features(np.zeros((4, 5))).shape == (20, 1)
    assert 512 * 256 * 256 == MAX_HISTOGRAM_ENTRIES  # 512 x 256 pixels with 256 bins: just accepted
    with pytest.raises(ValueError, match="fewer bins"):
        local_histograms(np.broadcast_to(np.zeros((1, 1)), (512, 257)), window=3, bins=256)
    H = local_histograms(np.random.default_rng(0).random((64, 64)), window=3, bins=256)
    assert H.shape == (64, 64, 256) and np.all(H.sum(axis=2) == 9)
    with pytest.raises(ValueError, match="counts"):
        texture_histograms(np.zeros((2048, 2048)), window=3, bins=8)  # 2048² × 18 counts


def test_position_weight_range():
    img = np.zeros((3, 3, 3))
    for bad in (1e308, float("inf"), float("nan"), -1.0):
        with pytest.raises(ValueError, match="position_weight"):
            pixel_features(img, kind="rgb+xy", position_weight=bad)
