"""Integral images and Haar features: direct pixel sums, scikit-image agreement, both code paths."""

import numpy as np
import pytest

from smlengine.haar import (
    SKIMAGE_TYPES,
    haar_feature_set,
    haar_features,
    integral_image,
    squared_integral_image,
)


def test_integral_image_has_zero_border_and_direct_sums():
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, size=(7, 9)).astype(np.uint8)
    ii = integral_image(img)
    assert ii.shape == (8, 10)
    assert np.all(ii[0] == 0) and np.all(ii[:, 0] == 0)
    for _ in range(50):
        r0, r1 = np.sort(rng.choice(8, 2, replace=False))
        c0, c1 = np.sort(rng.choice(10, 2, replace=False))
        box = ii[r1, c1] - ii[r0, c1] - ii[r1, c0] + ii[r0, c0]
        assert box == img[r0:r1, c0:c1].astype(np.int64).sum()


def test_integral_image_of_a_stack_equals_each_image():
    rng = np.random.default_rng(1)
    stack = rng.random((4, 5, 6))
    ii = integral_image(stack)
    assert ii.shape == (4, 6, 7)
    for k in range(4):
        np.testing.assert_allclose(ii[k], integral_image(stack[k]))
    np.testing.assert_allclose(squared_integral_image(stack)[2, -1, -1], (stack[2] ** 2).sum())


def test_integral_image_rejects_bad_input():
    with pytest.raises(ValueError):
        integral_image(np.zeros(5))
    with pytest.raises(ValueError):
        integral_image(np.array([[1.0, np.nan]]))
    with pytest.raises(TypeError):
        integral_image(np.array([["a"]]))


def test_feature_values_equal_direct_block_sums():
    rng = np.random.default_rng(2)
    fs = haar_feature_set(10)
    patches = rng.random((3, 10, 10))
    X = haar_features(patches, fs)
    pick = rng.choice(len(fs), 300, replace=False)
    for f in pick:
        expected = np.zeros(3)
        for (r, c, h, w), wt in zip(fs.rects[f], fs.weights[f]):
            if wt:
                expected += wt * patches[:, r : r + h, c : c + w].sum(axis=(1, 2))
        np.testing.assert_allclose(X[:, f], expected, atol=1e-10)


def test_grey_minus_white_sign_on_a_hand_made_patch():
    # left half 0, right half 1: the 2h feature covering the whole patch is right - left = 8
    patch = np.zeros((4, 4))
    patch[:, 2:] = 1.0
    fs = haar_feature_set(4, types=("2h",))
    whole = np.flatnonzero((fs.rects[:, 0, 0] == 0) & (fs.rects[:, 0, 1] == 0) & (fs.rects[:, 0, 2] == 4)
                           & (fs.rects[:, 0, 3] == 2))
    assert whole.size == 1
    assert haar_features(patch, fs)[0, whole[0]] == 8.0


def test_full_family_size_matches_scikit_image_count():
    assert len(haar_feature_set(24)) == 162336


def test_restricted_family_is_a_subset():
    full = haar_feature_set(12)
    small = haar_feature_set(12, min_size=2, step=2)
    key = lambda fs: {(int(k), *fs.rects[i, 0]) for i, k in enumerate(fs.kind)}  # noqa: E731
    assert 0 < len(small) < len(full) / 8
    assert key(small) <= key(full)
    assert np.all(small.rects[..., 2:][small.weights != 0] >= 2)


@pytest.mark.parametrize("ours, theirs", list(SKIMAGE_TYPES.items()))
def test_agrees_with_scikit_image(ours, theirs):
    from skimage import feature
    from skimage import transform
    rng = np.random.default_rng(3)
    W = 12
    patch = rng.random((W, W))
    fs = haar_feature_set(W, types=(ours,))
    mine = haar_features(patch, fs)[0]
    coords, _ = feature.haar_like_feature_coord(W, W, theirs)
    ref = feature.haar_like_feature(transform.integral_image(patch), 0, 0, W, W, feature_type=theirs)
    lookup = {}
    for value, coord in zip(ref, coords):
        (r0, c0), (r1, c1) = np.asarray(coord)[0]
        lookup[(int(r0), int(c0), int(r1 - r0 + 1), int(c1 - c0 + 1))] = value
    assert len(lookup) == len(fs)
    ours_by_key = {tuple(int(v) for v in fs.rects[i, 0]): mine[i] for i in range(len(fs))}
    assert ours_by_key.keys() == lookup.keys()
    np.testing.assert_allclose([ours_by_key[k] for k in lookup], list(lookup.values()), atol=1e-10)


def test_slice_and_gather_paths_agree_and_integrals_are_accepted():
    rng = np.random.default_rng(4)
    fs = haar_feature_set(9, step=2)
    patches = rng.random((5, 9, 9))
    a = haar_features(patches, fs)
    b = haar_features(patches, fs.subset(np.arange(len(fs))), chunk_size=7)
    c = haar_features(integral_image(patches), fs)
    np.testing.assert_allclose(a, b, atol=1e-12)
    np.testing.assert_array_equal(a, c)
    d = haar_features(patches, fs, dtype=np.float32)
    assert d.dtype == np.float32
    np.testing.assert_allclose(d, a, rtol=1e-5, atol=1e-5)


def test_feature_set_and_features_reject_bad_arguments():
    with pytest.raises(ValueError, match="unknown Haar pattern"):
        haar_feature_set(8, types=("5x",))
    with pytest.raises(ValueError, match="window"):
        haar_feature_set(1)
    fs = haar_feature_set(6)
    with pytest.raises(ValueError, match="6 x 6"):
        haar_features(np.zeros((2, 5, 5)), fs)
    with pytest.raises(TypeError):
        haar_features(np.zeros((2, 6, 6)), "all")
    with pytest.raises(ValueError, match="dtype"):
        haar_features(np.zeros((2, 6, 6)), fs, dtype=np.int32)
