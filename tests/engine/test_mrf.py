"""Potts MRF Gibbs sampler: exact enumeration on tiny grids, sweep order, denoising, bad input."""

import itertools
import math

import numpy as np
import pytest

from smlengine.mrf import PottsGibbs, potts_energy
from smlengine.sampling import effective_sample_size


def exact_posterior(image, k, beta, means, sigma):
    """All K^(H·W) label fields of a tiny grid with their posterior probabilities exp(−E) / Z."""
    h, w = image.shape
    fields = np.array(list(itertools.product(range(k), repeat=h * w))).reshape(-1, h, w)
    energies = np.array([potts_energy(z, image, beta, means, sigma) for z in fields])
    p = np.exp(-(energies - energies.min()))
    return fields, p / p.sum()


def exact_marginals(image, k, beta, means, sigma):
    fields, p = exact_posterior(image, k, beta, means, sigma)
    return np.stack([(p[:, None, None] * (fields == lab)).sum(axis=0) for lab in range(k)], axis=-1)


@pytest.mark.parametrize("k, beta, n_sweeps", [(2, 0.8, 12000), (3, 0.6, 6000)])
def test_marginals_equal_exact_enumeration_on_3x3(k, beta, n_sweeps):
    rng = np.random.default_rng(k)
    means = np.linspace(0, 1, k)
    image = means[rng.integers(0, k, (3, 3))] + 0.5 * rng.standard_normal((3, 3))
    exact = exact_marginals(image, k, beta, means, 0.5)
    gibbs = PottsGibbs(n_labels=k, beta=beta, means=means, sigma=0.5, burn_in=100, random_state=0)
    fields = np.array([s.labels for s in gibbs.sweep_steps(image, n_sweeps)])[101:]
    assert gibbs.marginals_.shape == (3, 3, k)
    np.testing.assert_allclose(gibbs.marginals_.sum(axis=-1), 1.0)
    for lab in range(k):
        ind = (fields == lab).astype(float).reshape(1, len(fields), 9)
        ess = effective_sample_size(ind)
        se = np.sqrt(exact[..., lab] * (1 - exact[..., lab]) / ess.reshape(3, 3))
        assert np.all(np.abs(gibbs.marginals_[..., lab] - exact[..., lab]) <= 4 * se + 1e-3), lab


def single_site_sweeps(image, k, beta, means, sigma, n_sweeps, rng):
    """The textbook Gibbs sampler: one pixel at a time in raster order, each from its full conditional
    p(z_i = k | rest) ∝ exp(β n_i(k) − (x_i − μ_k)² / (2σ²)). Yields the field after each sweep."""
    h, w = image.shape
    z = np.zeros((h, w), dtype=int)
    for _ in range(n_sweeps):
        for i in range(h):
            for j in range(w):
                around = ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1))
                nbrs = [z[a, b] for a, b in around if 0 <= a < h and 0 <= b < w]
                logit = np.array([beta * nbrs.count(lab) - (image[i, j] - means[lab]) ** 2 / (2 * sigma ** 2)
                                  for lab in range(k)])
                p = np.exp(logit - logit.max())
                z[i, j] = rng.choice(k, p=p / p.sum())
        yield z.copy()


@pytest.mark.slow  # left out of `dev.py test --quick`
def test_checkerboard_sweeps_equal_single_site_sweeps_in_distribution():
    """Both samplers leave the posterior invariant: the frequencies of all 64 fields of a 2 × 3 grid
    agree with each other and with exact enumeration (total variation within Monte-Carlo error)."""
    rng = np.random.default_rng(5)
    image = rng.integers(0, 2, (2, 3)) + 0.6 * rng.standard_normal((2, 3))
    beta, means, sigma, n = 0.7, np.array([0.0, 1.0]), 0.6, 12000
    fields, exact = exact_posterior(image, 2, beta, means, sigma)
    code = 2 ** np.arange(6)
    index = {int((f.ravel() * code).sum()): i for i, f in enumerate(fields)}

    def histogram(stream):
        counts = np.zeros(len(fields))
        for z in itertools.islice(stream, 200, None):
            counts[index[int((z.ravel() * code).sum())]] += 1
        return counts / counts.sum()

    gibbs = PottsGibbs(2, beta=beta, means=means, sigma=sigma, random_state=1)
    checker = histogram(s.labels for s in gibbs.sweep_steps(image, n + 199))
    single = histogram(single_site_sweeps(image, 2, beta, means, sigma, n + 199, np.random.default_rng(2)))
    tv = lambda a, b: 0.5 * np.abs(a - b).sum()  # noqa: E731
    # with n draws over 64 cells the total variation of an exact sampler is about sqrt(64 / n) / 2.5
    assert tv(checker, exact) < 0.05
    assert tv(single, exact) < 0.05
    assert tv(checker, single) < 0.06
    # a sampler with the wrong β is seen by the same measure
    wrong = histogram(s.labels for s in PottsGibbs(2, beta=1.4, means=means, sigma=sigma,
                                                   random_state=1).sweep_steps(image, n + 199))
    assert tv(wrong, exact) > 0.1


def test_without_coupling_the_marginals_are_pixelwise_posteriors():
    rng = np.random.default_rng(0)
    image = rng.random((6, 7))
    gibbs = PottsGibbs(2, beta=0.0, means=[0.2, 0.8], sigma=0.3, burn_in=0, random_state=0).fit(image, 4000)
    d0, d1 = (image - 0.2) ** 2 / (2 * 0.09), (image - 0.8) ** 2 / (2 * 0.09)
    p1 = 1 / (1 + np.exp(d1 - d0))
    assert np.abs(gibbs.marginals_[..., 1] - p1).max() < 4 * math.sqrt(0.25 / 4000)


def test_snapshots_energy_changes_and_marginals_are_consistent():
    rng = np.random.default_rng(1)
    image = rng.random((9, 12)) * 2
    gibbs = PottsGibbs(3, beta=1.2, means=[0.0, 1.0, 2.0], sigma=0.5, burn_in=5, random_state=3)
    snaps = list(gibbs.sweep_steps(image, 30))
    assert [s.step for s in snaps] == list(range(31))
    for prev, s in zip(snaps, snaps[1:]):
        assert s.energy == pytest.approx(potts_energy(s.labels, image, 1.2, [0.0, 1.0, 2.0], 0.5))
        assert s.changed_fraction == pytest.approx(np.mean(prev.labels != s.labels))
        assert not s.labels.flags.writeable
    after = np.array([s.labels for s in snaps[6:]])
    expected = np.stack([(after == lab).mean(axis=0) for lab in range(3)], axis=-1)
    np.testing.assert_allclose(gibbs.marginals_, expected)
    assert snaps[-1].n_kept == gibbs.n_kept_ == 25
    np.testing.assert_array_equal(gibbs.labels_, snaps[-1].labels)
    np.testing.assert_allclose(gibbs.energies_, [s.energy for s in snaps])
    # the default burn-in is a tenth of the sweeps
    assert PottsGibbs(2, random_state=0).fit(image, 50).n_kept_ == 45
    # same seed, same run
    again = [s.labels for s in PottsGibbs(3, beta=1.2, means=[0.0, 1.0, 2.0], sigma=0.5, burn_in=5,
                                          random_state=3).sweep_steps(image, 30)]
    assert all(np.array_equal(a.labels, b) for a, b in zip(snaps, again))


def test_denoising_beats_the_noisy_image_and_burn_in_matters():
    from skimage import data as skimage_data
    clean = skimage_data.binary_blobs(96, blob_size_fraction=0.15, rng=1).astype(int)
    rng = np.random.default_rng(0)
    noisy = clean + 0.7 * rng.standard_normal(clean.shape)
    noisy_error = np.mean((noisy > 0.5) != clean)
    gibbs = PottsGibbs(2, beta=1.0, means=[0.0, 1.0], sigma=0.7, random_state=0)
    snaps = list(gibbs.sweep_steps(noisy, 60, init=0))  # start from all one label
    assert np.all(snaps[0].labels == 0)
    sample_error = np.mean(gibbs.labels_ != clean)
    marginal_error = np.mean((gibbs.marginals_[..., 1] > 0.5) != clean)
    assert noisy_error > 0.2
    assert sample_error < 0.5 * noisy_error
    assert marginal_error < 0.3 * noisy_error
    energies = gibbs.energies_
    assert energies[0] > energies[3] > np.mean(energies[30:])  # far from the posterior at the start
    # from all-background the foreground fills in over several sweeps: the early sweeps are not posterior draws
    share = [s.labels.mean() for s in snaps]
    assert share[2] < 0.5 * clean.mean()
    assert abs(np.mean(share[30:]) - clean.mean()) < 0.05


def test_bad_input_raises_clear_errors():
    image = np.zeros((4, 4))
    for kwargs, message in [({"beta": -0.1}, r"beta must be a float in \[0, 1e6\]; got -0.1"),
                            ({"sigma": 0.0}, r"sigma must be a float in \[1e-6, 1e6\]; got 0"),
                            ({"n_labels": 1}, r"n_labels must be an int in \[2, 64\]; got 1"),
                            ({"n_labels": 1000}, r"n_labels must be an int in \[2, 64\]; got 1000"),
                            ({"means": [0, 1, 2]}, "means must have n_labels = 2"),
                            ({"means": [0, np.nan]}, "means must be finite"), ({"burn_in": -1}, "burn_in"),
                            ({"beta": float("nan")}, r"beta must be a float in \[0, 1e6\]; got nan")]:
        with pytest.raises(ValueError, match=message):
            next(PottsGibbs(**kwargs).sweep_steps(image, 5))
    with pytest.raises(TypeError, match=r"beta must be a float in \[0, 1e6\]; got 'strong'"):
        next(PottsGibbs(beta="strong").sweep_steps(image, 5))
    bad = image.copy()
    bad[1, 2] = np.nan
    for img, message in [(bad, "1 NaN"), (np.zeros((3, 3, 3)), "must be 2-D"), (np.zeros((0, 4)), "empty"),
                         (np.broadcast_to(0.0, (5000, 5000)), "at most"), ([["a", "b"]], "grey levels"),
                         (image + 1e9, "rescale")]:
        with pytest.raises(ValueError, match=message):
            next(PottsGibbs().sweep_steps(img, 5))
    for n, message in [(0, "n_sweeps must be >= 1"), (10 ** 9, "n_sweeps must be <=")]:
        with pytest.raises(ValueError, match=message):
            next(PottsGibbs().sweep_steps(image, n))
    for init, message in [(5, "init label must be in 0..1"), ("ones", "init must be"),
                          (np.zeros((2, 2), dtype=int), "init must be an integer label field"),
                          (np.full((4, 4), 3), "init labels must be in")]:
        with pytest.raises(ValueError, match=message):
            next(PottsGibbs().sweep_steps(image, 5, init=init))


def test_params_round_trip_and_clone():
    g = PottsGibbs(n_labels=3, beta=0.5, means=[0, 1, 2], sigma=0.4, burn_in=2, random_state=1)
    assert g.get_params(deep=True) == {"n_labels": 3, "beta": 0.5, "means": [0, 1, 2], "sigma": 0.4,
                                       "burn_in": 2, "random_state": 1}
    assert g.set_params(beta=2.0).beta == 2.0
    with pytest.raises(ValueError, match="unknown parameter"):
        g.set_params(temperature=1.0)
    base = pytest.importorskip("sklearn.base")
    assert base.clone(g).get_params() == g.get_params()
