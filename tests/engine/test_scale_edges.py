"""The engine at the edges of float64: inputs near 1e-310 or 1e154 give the right finite answer
or a clear ValueError, never inf, NaN or a raw ZeroDivisionError; potts_energy checks its
arguments as the Potts sampler does."""

import warnings

import numpy as np
import pytest

from smlengine.cluster import KMeans
from smlengine.markov import PageRank, random_surfer_steps
from smlengine.mrf import PottsGibbs, potts_energy
from smlengine.regression import LinearRegression

A = np.array([[0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]], dtype=float)


@pytest.mark.parametrize("scale", [1e-310, 1e-320, 1e-300, 1e300, 1e308])
def test_pagerank_does_not_depend_on_the_scale_of_the_links(scale):
    want = PageRank().fit(A).pagerank_
    got = PageRank().fit(A * scale).pagerank_
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert got.sum() == pytest.approx(1.0)


def test_pagerank_of_rows_at_different_scales_is_that_of_the_walk():
    rows = np.array([[1e-310], [1e300], [1.0], [1e-5]])
    np.testing.assert_allclose(PageRank().fit(A * rows).pagerank_, PageRank().fit(A).pagerank_, rtol=1e-12)
    for snap in random_surfer_steps(A * 1e-310, n_walkers=200, n_steps=5, random_state=0):
        pass
    assert np.all(np.isfinite(snap.frequencies)) and snap.frequencies.sum() == pytest.approx(1.0)


def test_kmeans_refuses_values_whose_squares_overflow():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning on the way
        with pytest.raises(ValueError, match=r"X has values up to .*e\+154; rescale the data"):
            KMeans(3, random_state=0).fit(X * 1e154)
        fitted = KMeans(3, random_state=0).fit(X * 1e90)
    assert np.isfinite(fitted.inertia_)
    assert fitted.inertia_ == pytest.approx(KMeans(3, random_state=0).fit(X).inertia_ * 1e180, rel=1e-9)


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-160, 1e-150, 1.0, 1e90])
def test_gradient_descent_least_squares_at_any_scale_of_x(scale):
    x = np.arange(10.0)[:, None]
    y = np.arange(10) % 3 * 1.0
    want = LinearRegression().fit(x, y)
    gd = LinearRegression(solver="gd").fit(x * scale, y)
    assert gd.converged_
    np.testing.assert_allclose(gd.coef_ * scale, want.coef_, rtol=1e-9)
    assert gd.intercept_ == pytest.approx(want.intercept_, rel=1e-9)


def test_a_chosen_step_on_tiny_inputs_runs_and_a_too_large_one_is_a_message():
    x = np.arange(10.0)[:, None]
    y = np.arange(10) % 3 * 1.0
    gd = LinearRegression(solver="gd", learning_rate=1.0, max_iter=20).fit(x * 1e-300, y)  # 2/λ_max is ∞
    assert np.all(np.isfinite(gd.coef_))
    with pytest.raises(ValueError, match=r"diverged at step \d+: learning_rate = 10 is too large .* below 2/λ_max"):
        LinearRegression(solver="gd", learning_rate=10.0, max_iter=500).fit(x, y)


Z = np.zeros((8, 8), dtype=int)
Z[:, 4:] = 1
GOOD = dict(labels=Z, image=Z.astype(float), beta=1.0, means=[0.0, 1.0], sigma=0.4)


@pytest.mark.parametrize("change, said", [
    (dict(beta=float("nan")), "beta must be a float in"),
    (dict(beta=-1.0), "beta must be a float in"),
    (dict(sigma=0.0), "sigma must be a float in"),
    (dict(sigma=float("inf")), "sigma must be a float in"),
    (dict(means=[0.0]), "means must be a sequence of 2 to 64"),
    (dict(means=[0.0, float("nan")]), "means must be finite"),
    (dict(labels=Z + 1), r"labels must be in 0..1 \(one per mean\), got 1..2"),
    (dict(labels=Z - 1), "labels must be in 0..1"),
    (dict(labels=Z[:4]), r"labels must be an integer label field of the image's shape \(8, 8\)"),
    (dict(labels=Z.astype(float)), "labels must be an integer label field"),
    (dict(image=np.zeros((3, 3))), "the image's shape"),
    (dict(image=np.full((8, 8), np.nan)), "NaN or infinite"),
    (dict(image=np.zeros(64)), "image must be 2-D"),
])
def test_potts_energy_checks_as_the_sampler_does(change, said):
    with pytest.raises(ValueError, match=said):
        potts_energy(**{**GOOD, **change})


def test_potts_energy_agrees_with_the_sampler_on_valid_input():
    assert potts_energy(**GOOD) == -104.0
    # the sampler's constraints and the energy's are one: what one refuses the other refuses
    for beta, sigma in [(float("nan"), 0.4), (1.0, 0.0)]:
        with pytest.raises(ValueError):
            PottsGibbs(n_labels=2, beta=beta, sigma=sigma).sweep_steps(GOOD["image"], 1).__next__()
