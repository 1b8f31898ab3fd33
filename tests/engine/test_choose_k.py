"""Model-order pieces of the engine: prediction strength, the strongest-K rule, the
multinomial mixture's overdispersion ĉ and honest BIC, and the texture histograms."""

import itertools
import math

import numpy as np
import pytest

from smlengine.cluster import MultinomialMixture, prediction_strength, strongest_k
from smlengine.features import LBP_CODES, local_binary_patterns, local_histograms, texture_histograms


def _ps_by_pairs(test, train):
    worst = 1.0
    for j in np.unique(test):
        idx = np.flatnonzero(test == j)
        if idx.size < 2:
            continue
        pairs = list(itertools.permutations(idx, 2))
        worst = min(worst, np.mean([train[a] == train[b] for a, b in pairs]))
    return worst


def test_prediction_strength_equals_pair_counting():
    rng = np.random.default_rng(0)
    for _ in range(5):
        a, b = rng.integers(0, 3, 30), rng.integers(0, 4, 30)
        assert prediction_strength(a, b) == pytest.approx(_ps_by_pairs(a, b))
    same = np.repeat([0, 1, 2], 5)
    assert prediction_strength(same, same) == 1.0
    assert prediction_strength(same, np.zeros(15, int)) == 1.0  # a merge keeps every pair together
    with pytest.raises(ValueError, match="same points"):
        prediction_strength([0, 1], [0])


def test_strongest_k_is_the_largest_stable_k():
    assert strongest_k([2, 3, 4, 5], [0.99, 0.95, 0.93, 0.6], 0.9) == 4
    assert strongest_k([2, 3], [0.5, 0.7], 0.9) == 3  # none reaches it: the strongest
    with pytest.raises(ValueError, match="threshold"):
        strongest_k([2], [0.5], 1.5)


def test_stability_result_chooses_with_one_standard_error():
    from smlengine.cluster import StabilityResult

    S = np.array([[1.0, 1.0, 1.0], [0.95, 0.93, 0.97], [0.99, 0.80, 0.93]])
    res = StabilityResult(ks=np.array([2, 3, 4]), instability=np.zeros(3), std=np.zeros(3), scores=np.zeros((3, 3)),
                          strength=S.mean(axis=1), strength_scores=S)
    se = S.std(axis=1, ddof=1) / np.sqrt(3)
    np.testing.assert_allclose(res.strength_lower, S.mean(axis=1) - se)
    assert res.strength[2] > 0.9 > res.strength_lower[2]
    assert res.chosen_k(0.9) == 3 and res.chosen_k(0.8) == 4


def _mixture_counts(rng, n, N, overdispersed):
    T = np.array([[0.6, 0.3, 0.1], [0.1, 0.3, 0.6]])
    z = rng.integers(0, 2, n)
    if not overdispersed:
        return np.stack([rng.multinomial(N, T[k]) for k in z]).astype(float)
    # each row: N/10 independent draws, every one counted 10 times (dependent items)
    return np.stack([10 * rng.multinomial(N // 10, T[k]) for k in z]).astype(float)


def test_dispersion_is_one_for_independent_draws_and_larger_for_dependent_ones():
    rng = np.random.default_rng(1)
    X = _mixture_counts(rng, 400, 200, False)
    m = MultinomialMixture(2, random_state=0).fit(X)
    assert m.dispersion(X) == pytest.approx(1.0, abs=0.1)
    Y = _mixture_counts(rng, 400, 200, True)
    m = MultinomialMixture(2, random_state=0).fit(Y)
    assert m.dispersion(Y) == pytest.approx(10.0, rel=0.15)


def test_bic_with_parts_and_dispersion():
    rng = np.random.default_rng(2)
    X = np.hstack([_mixture_counts(rng, 200, 60, False), _mixture_counts(rng, 200, 60, False)])
    m = MultinomialMixture(3, random_state=0).fit(X)
    assert m.n_parameters() == 2 + 3 * 5
    assert m.n_parameters(parts=(3, 3)) == 2 + 3 * 4
    loglik = m.score_samples(X).sum()
    assert m.bic(X) == pytest.approx(-2 * loglik + 17 * math.log(200))
    assert m.bic(X, parts=(3, 3), dispersion=4.0) == pytest.approx(-2 * loglik / 4 + 14 * math.log(200))
    with pytest.raises(ValueError, match="parts"):
        m.n_parameters(parts=(2, 2))


def test_texture_histograms_are_grey_then_patterns():
    from skimage import feature
    rng = np.random.default_rng(3)
    img = rng.random((20, 24))
    codes = local_binary_patterns(img)
    ref = feature.local_binary_pattern(np.rint(img * 255).astype(np.uint8), 8, 1, "uniform")
    np.testing.assert_array_equal(codes, ref)
    H = texture_histograms(img, window=5, bins=6)
    assert H.shape == (20, 24, 6 + LBP_CODES)
    np.testing.assert_array_equal(H[..., :6], local_histograms(img, window=5, bins=6))
    assert np.all(H[..., 6:].sum(axis=2) == 25)
    padded = np.pad(codes, 2, mode="symmetric")
    np.testing.assert_array_equal(H[7, 9, 6:], np.bincount(padded[7:12, 9:14].ravel(), minlength=LBP_CODES))
    np.testing.assert_array_equal(texture_histograms(img, 5, 6, kind="grey"), H[..., :6])
    with pytest.raises(ValueError, match="kind"):
        texture_histograms(img, kind="gradient")


def test_half_window_dispersion_is_one_for_independent_pixels_and_large_for_blobs():
    from smlengine.features import half_window_dispersion, tiling_windows

    rng = np.random.default_rng(4)
    noise = rng.integers(0, 4, (480, 480))  # 1,024 windows
    assert half_window_dispersion(noise, 15, 4) == pytest.approx(1.0, abs=0.06)
    blobs = np.kron(rng.integers(0, 4, (30, 30)), np.ones((4, 4), int))  # 4 × 4 pixel texture elements
    assert half_window_dispersion(blobs, 15, 4) > 5.0
    # by hand: one 3 × 3 window, halves = first and last column, then first and last row
    codes = np.array([[0, 0, 1], [0, 1, 1], [0, 1, 1]])
    A, B = np.array([3, 0]), np.array([0, 3])  # left vs right column
    C, D = np.array([2, 1]), np.array([1, 2])  # top vs bottom row
    num = ((A - B) ** 2).sum() + ((C - D) ** 2).sum()
    p1, p2 = (A + B) / 6, (C + D) / 6
    den = (6 * p1 * (1 - p1)).sum() + (6 * p2 * (1 - p2)).sum()
    assert half_window_dispersion(codes, 3, 2) == pytest.approx(num / den)
    # 2 × 3 windows of 3 × 3 in 7 × 10 pixels: rows 0-5 and columns 0-8 (the leftover split, floor first)
    np.testing.assert_array_equal(tiling_windows((7, 10), 3), [1 * 10 + 1, 1 * 10 + 4, 1 * 10 + 7,
                                                               4 * 10 + 1, 4 * 10 + 4, 4 * 10 + 7])
    np.testing.assert_array_equal(tiling_windows((9, 9), 3) // 9, [1, 1, 1, 4, 4, 4, 7, 7, 7])
    with pytest.raises(ValueError, match="0 .. 1"):
        half_window_dispersion(codes + 1, 3, 2)
