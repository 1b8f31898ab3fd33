"""Gaussian mixtures by EM (smlengine.mixture) and the mixture data sets."""

import math
import warnings

import numpy as np
import pytest

from smlengine.datasets import MIXTURE_PRESETS, make_gaussian_mixture, make_mixture_preset, mixture_preset
from smlengine.mixture import (
    COVARIANCE_TYPES,
    GaussianMixture,
    mixture_restarts,
    model_order_steps,
    n_parameters,
    soft_kmeans_steps,
)


def _data(seed=0, n=450, offset=0.0):
    X, z = make_mixture_preset("overlapping", n, random_state=seed)
    return X + offset, z


# ----------------------------------------------------------------------------- EM invariants


@pytest.mark.parametrize("ctype", COVARIANCE_TYPES)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("init", ["random", "k-means++"])
def test_log_likelihood_never_decreases(ctype, seed, init):
    X, _ = _data(seed)
    snaps = list(GaussianMixture(4, covariance_type=ctype, init=init, tol=0, max_iter=40,
                                 random_state=seed).fit_steps(X))
    ll = np.array([s.log_likelihood for s in snaps])
    assert len(ll) == 41
    assert np.all(np.diff(ll) >= -1e-10 * abs(ll[0]))
    assert ll[-1] > ll[0]


@pytest.mark.parametrize("ctype", COVARIANCE_TYPES)
def test_half_steps_invariants_and_lower_bound(ctype):
    X, _ = _data(3)
    snaps = list(GaussianMixture(3, covariance_type=ctype, init="random", tol=0, max_iter=12,
                                 random_state=3).fit_steps(X, half_steps=True))
    assert [s.half for s in snaps[:5]] == ["init", "E", "M", "E", "M"]
    np.testing.assert_allclose(snaps[0].responsibilities, 1.0 / 3)  # nothing assigned before the first E-step
    assert [s.step for s in snaps] == list(range(len(snaps)))
    for prev, cur in zip(snaps, snaps[1:]):
        if cur.half == "E":  # parameters unchanged, responsibilities renewed
            np.testing.assert_array_equal(cur.means, prev.means)
            np.testing.assert_array_equal(cur.covariances, prev.covariances)
            np.testing.assert_array_equal(cur.weights, prev.weights)
            assert cur.lower_bound == cur.log_likelihood
            assert cur.lower_bound >= prev.lower_bound - 1e-9 * abs(cur.lower_bound)
        else:  # M: responsibilities unchanged, parameters moved, bound raised but at most ℓ
            np.testing.assert_array_equal(cur.responsibilities, prev.responsibilities)
            assert cur.lower_bound >= prev.lower_bound - 1e-9 * abs(cur.lower_bound)
            assert cur.lower_bound <= cur.log_likelihood + 1e-9 * abs(cur.log_likelihood)
    assert np.any([not np.array_equal(a.means, b.means) for a, b in zip(snaps[1::2], snaps[2::2])])  # M moves them
    # the E snapshots are exactly the whole-iteration run
    whole = list(GaussianMixture(3, covariance_type=ctype, init="random", tol=0, max_iter=12,
                                 random_state=3).fit_steps(X))
    es = [s for s in snaps if s.half == "E"]
    assert len(es) == len(whole)
    for a, b in zip(es, whole):
        np.testing.assert_array_equal(a.means, b.means)
        np.testing.assert_array_equal(a.responsibilities, b.responsibilities)


def test_last_snapshot_equals_fit_and_snapshots_are_frozen():
    X, _ = _data(4)
    gm = GaussianMixture(3, random_state=0)
    snaps = list(gm.fit_steps(X))
    fitted = GaussianMixture(3, random_state=0).fit(X)
    last = snaps[-1]
    np.testing.assert_array_equal(last.means, fitted.means_)
    np.testing.assert_array_equal(last.covariances, fitted.covariances_full_)
    np.testing.assert_array_equal(last.responsibilities, fitted.responsibilities_)
    assert last.log_likelihood == fitted.log_likelihood_[-1]
    assert fitted.converged_ and last.converged
    np.testing.assert_allclose(fitted.responsibilities_.sum(axis=1), 1.0)
    np.testing.assert_allclose(fitted.predict_proba(X), fitted.responsibilities_, atol=1e-12)
    np.testing.assert_array_equal(fitted.predict(X), fitted.labels_)
    assert fitted.score(X) * len(X) == pytest.approx(fitted.log_likelihood_[-1], rel=1e-12)
    for s in snaps:
        for a in (s.means, s.covariances, s.weights, s.responsibilities):
            assert not a.flags.writeable
    assert snaps[0].responsibilities is not snaps[1].responsibilities


def test_restarts_keep_the_best_and_replay():
    X, _ = _data(5)
    gm = GaussianMixture(5, init="random", n_init=4, random_state=7)
    snaps = list(gm.fit_steps(X))
    assert snaps[-1].phase == "best"
    finals = {}
    for s in snaps[:-1]:
        finals[s.restart] = s.log_likelihood
    assert sorted(finals) == [0, 1, 2, 3]
    assert snaps[-1].log_likelihood == max(finals.values())
    again = GaussianMixture(5, init="random", n_init=4, random_state=7).fit(X)
    np.testing.assert_array_equal(again.means_, gm.means_)


# ----------------------------------------------------------------------------- reference


def _precisions(cov, ctype):
    return 1.0 / cov if ctype in ("diag", "spherical") else np.linalg.inv(cov)


@pytest.mark.parametrize("ctype", COVARIANCE_TYPES)
def test_equals_sklearn_from_the_same_start(ctype):
    sk_mixture = pytest.importorskip("sklearn.mixture")
    X, _ = _data(6, offset=20.0)  # data away from the origin
    start = GaussianMixture(3, covariance_type=ctype, init="random", max_iter=0, random_state=2).fit(X)
    iters = 25
    ours = GaussianMixture(3, covariance_type=ctype, init=start.means_, weights_init=start.weights_,
                           covariances_init=start.covariances_, tol=0, max_iter=iters).fit(X)
    ref = sk_mixture.GaussianMixture(3, covariance_type=ctype, tol=0, max_iter=iters, reg_covar=1e-6,
                                     means_init=start.means_, weights_init=start.weights_,
                                     precisions_init=_precisions(start.covariances_, ctype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tol=0 never converges, and sklearn says so
        ref.fit(X)
    assert ref.n_iter_ == ours.n_iter_ == iters
    np.testing.assert_allclose(ours.weights_, ref.weights_, rtol=1e-6)
    np.testing.assert_allclose(ours.means_, ref.means_, rtol=1e-6)
    np.testing.assert_allclose(ours.covariances_, ref.covariances_, rtol=1e-6)
    # sklearn's lower_bound_ is the mean log-likelihood of the parameters before its last M-step
    assert ours.log_likelihood_[iters - 1] / len(X) == pytest.approx(ref.lower_bound_, rel=1e-6)
    assert ours.score(X) == pytest.approx(ref.score(X), rel=1e-6)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    assert ours.bic(X) == pytest.approx(ref.bic(X), rel=1e-6)
    assert ours.aic(X) == pytest.approx(ref.aic(X), rel=1e-6)
    assert n_parameters(3, 2, ctype) == ref._n_parameters()


# ----------------------------------------------------------------------------- model order, sampling


@pytest.mark.parametrize("seed", [0, 1])
def test_bic_picks_the_true_k_on_well_separated_data(seed):
    X, _ = make_mixture_preset("well separated", 450, random_state=seed)
    snaps = list(model_order_steps(X, range(1, 7), n_init=2, n_splits=0, random_state=seed))
    last = snaps[-1]
    assert len(snaps) == 6 and last.progress == 1.0
    assert last.best_bic_k == 3
    assert int(last.ks[np.argmin(last.bic)]) == 3
    assert np.all(np.isfinite(last.aic))


def test_model_order_stability_is_lowest_near_the_truth():
    X, _ = make_mixture_preset("well separated", 300, random_state=2)
    last = list(model_order_steps(X, [2, 3, 4], n_init=1, n_splits=2, random_state=0))[-1]
    assert last.instability[1] <= last.instability[0] + 1e-12
    assert last.instability[1] < 0.05


def test_sample_moments_match_the_fitted_model():
    X, _ = make_mixture_preset("anisotropic", 600, random_state=0)
    gm = GaussianMixture(3, random_state=0).fit(X)
    S, y = gm.sample(40_000, random_state=1)
    assert S.shape == (40_000, 2) and y.shape == (40_000,)
    counts = np.bincount(y, minlength=3) / len(y)
    assert np.all(np.abs(counts - gm.weights_) < 4 * np.sqrt(gm.weights_ * (1 - gm.weights_) / len(y)))
    for k in range(3):
        Sk = S[y == k]
        se = np.sqrt(np.diagonal(gm.covariances_full_[k]) / len(Sk))
        assert np.all(np.abs(Sk.mean(axis=0) - gm.means_[k]) < 5 * se)
        np.testing.assert_allclose(np.cov(Sk.T), gm.covariances_full_[k], rtol=0.1, atol=0.02)
    mix_mean = gm.weights_ @ gm.means_
    assert np.allclose(S.mean(axis=0), mix_mean, atol=0.05)
    np.testing.assert_array_equal(gm.sample(10, random_state=3)[0], gm.sample(10, random_state=3)[0])


def test_make_gaussian_mixture_moments_and_presets():
    means = np.array([[0.0, 0.0], [5.0, -2.0]])
    covs = np.array([[[1.0, 0.5], [0.5, 2.0]], [[0.2, 0.0], [0.0, 0.2]]])
    X, z = make_gaussian_mixture(20_000, means, covs, [0.25, 0.75], random_state=0)
    assert abs(np.mean(z == 1) - 0.75) < 0.02
    for k in range(2):
        np.testing.assert_allclose(X[z == k].mean(axis=0), means[k], atol=0.06)
        np.testing.assert_allclose(np.cov(X[z == k].T), covs[k], atol=0.08)
    np.testing.assert_array_equal(make_gaussian_mixture(5, means, covs, random_state=1)[0],
                                  make_gaussian_mixture(5, means, covs, random_state=1)[0])
    assert set(MIXTURE_PRESETS) == {"well separated", "overlapping", "anisotropic", "tight inside wide"}
    t = mixture_preset("tight inside wide")
    t.means[0] = 99.0
    assert mixture_preset("tight inside wide").means[0, 0] != 99.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"means": [[0, 0]], "covariances": [[[1, 0], [0, -1]]]}, "semi-definite"),
        ({"means": [[0, 0]], "covariances": [[[1, 2], [0, 1]]]}, "symmetric"),
        ({"means": [[0, 0]], "covariances": [[[1, 0], [0, 1]]], "weights": [-1]}, "weights"),
        ({"means": [[np.nan, 0]], "covariances": [1.0]}, "finite"),
        ({"means": [[0, 0], [1, 1]], "covariances": [[[1, 0], [0, 1]]]}, "shape"),
    ],
)
def test_make_gaussian_mixture_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_gaussian_mixture(10, **kwargs)


# ----------------------------------------------------------------------------- k-means limit, restarts


def test_soft_kmeans_becomes_kmeans_as_sigma_shrinks():
    from smlengine.cluster import KMeans

    X, _ = make_mixture_preset("overlapping", 300, random_state=1)
    start = X[[0, 1, 2]]
    km = KMeans(3, init=start, tol=0, max_iter=100).fit(X)
    soft = list(soft_kmeans_steps(X, start, sigma=1e-3, max_iter=100, tol=0))
    np.testing.assert_allclose(soft[-1].means, km.cluster_centers_, atol=1e-9)
    wide = list(soft_kmeans_steps(X, start, sigma=3.0, max_iter=100))
    assert wide[-1].responsibilities.max() < 0.99  # still soft
    obj = np.array([s.objective for s in wide])
    assert np.all(np.diff(obj) >= -1e-9 * abs(obj[0]))  # it is EM: never decreases


def test_mixture_restarts_count_distinct_optima():
    X, _ = make_mixture_preset("overlapping", 300, random_state=0)
    snaps = list(mixture_restarts(X, 6, n_restarts=6, init="random", random_state=0))
    last = snaps[-1]
    assert len(snaps) == 6 and last.progress == 1.0
    assert last.log_likelihoods.shape == (6,)
    assert last.log_likelihoods[last.best_index] == last.log_likelihoods.max()
    assert last.log_likelihoods[last.worst_index] == last.log_likelihoods.min()
    assert 1 <= last.n_distinct <= 6 and last.solution_ids.max() == last.n_distinct - 1
    again = list(mixture_restarts(X, 6, n_restarts=6, init="random", random_state=0))[-1]
    np.testing.assert_array_equal(again.log_likelihoods, last.log_likelihoods)
    W, _ = make_mixture_preset("well separated", 300, random_state=0)
    one = list(mixture_restarts(W, 3, n_restarts=4, init="kmeans", random_state=0))[-1]
    assert one.n_distinct == 1  # k-means starts on clear clusters all reach one optimum
    assert np.ptp(one.log_likelihoods) < 1e-3


# ----------------------------------------------------------------------------- degeneracy and bad input


def test_collapse_diverges_without_reg_covar_and_is_held_by_it():
    X, _ = make_mixture_preset("well separated", 200, random_state=0)
    X = np.vstack([X, [[9.0, 9.0]]])  # a lone point
    means = np.array([[-3.0, -1.5], [3.0, -1.0], [9.0, 9.0]])
    cov = np.array([np.eye(2), np.eye(2), 1e-4 * np.eye(2)])
    gm = GaussianMixture(3, init=means, covariances_init=cov, reg_covar=0.0, tol=0, max_iter=50)
    lls = []
    with pytest.raises(ValueError, match="reg_covar"):  # one M-step puts Σ_3 = 0: ℓ = +∞
        for s in gm.fit_steps(X):
            lls.append(s.log_likelihood)
    assert len(lls) == 1 and math.isfinite(lls[0])
    lls = []
    for reg in (1e-2, 1e-4, 1e-6):  # the floor holds ℓ finite, and the smaller it is the larger ℓ gets
        held = GaussianMixture(3, init=means, covariances_init=cov, reg_covar=reg, tol=0, max_iter=20).fit(X)
        assert np.all(np.isfinite(held.log_likelihood_))
        np.testing.assert_allclose(held.covariances_[2], reg * np.eye(2), rtol=1e-6, atol=1e-12 * reg)
        lls.append(held.log_likelihood_[-1])
    assert lls[0] < lls[1] < lls[2]
    assert lls[2] - lls[1] == pytest.approx(math.log(100.0), rel=1e-2)  # −½ log det Σ grows by log 100


@pytest.mark.parametrize("ctype, cov0", [("diag", 1e-4 * np.ones(2)), ("spherical", 1e-4)])
def test_collapse_is_detected_for_diagonal_and_spherical_covariances(ctype, cov0):
    X, _ = make_mixture_preset("well separated", 200, random_state=0)
    X = np.vstack([X, [[9.0, 9.0]]])
    means = np.array([[-3.0, -1.5], [3.0, -1.0], [9.0, 9.0]])
    others = np.ones(2) if ctype == "diag" else 1.0
    cov = np.array([others, others, cov0])
    with pytest.raises(ValueError, match="reg_covar"):  # S_3 = 0 up to rounding: not a finite optimum
        GaussianMixture(3, covariance_type=ctype, init=means, covariances_init=cov, reg_covar=0.0, tol=0,
                        max_iter=20).fit(X)
    held = GaussianMixture(3, covariance_type=ctype, init=means, covariances_init=cov, reg_covar=1e-3, tol=0,
                           max_iter=20).fit(X)
    assert np.all(np.isfinite(held.log_likelihood_))


@pytest.mark.parametrize(
    "X, kwargs, match",
    [
        (np.zeros((3, 2)) + np.arange(3)[:, None], {"n_components": 4}, "larger than the number of points"),
        (np.array([[1.0, np.nan], [0.0, 0.0], [2.0, 1.0]]), {"n_components": 1}, "NaN"),
        (np.array([[1.0, 2.0]] * 6), {"n_components": 1}, "identical"),
        (np.array([[1.0, 2.0]] * 3 + [[0.0, 0.0]] * 3), {"n_components": 3}, "distinct points"),
        (np.array([[1.0, 2.0]]), {"n_components": 1}, "at least 2 points"),
        (np.zeros((4, 2)) + np.arange(4)[:, None], {"n_components": 2, "reg_covar": -1.0}, "reg_covar"),
        (np.zeros((4, 2)) + np.arange(4)[:, None], {"n_components": 2, "tol": -1.0}, "tol"),
        (np.zeros((4, 2)) + np.arange(4)[:, None], {"n_components": 0}, "n_components"),
        (np.zeros((4, 2)) + np.arange(4)[:, None], {"n_components": 2, "covariance_type": "round"},
         "covariance_type"),
        (np.zeros((4, 2)) + np.arange(4)[:, None], {"n_components": 2, "init": "kmeanz"}, "init"),
        (np.zeros((4, 2)) + np.arange(4)[:, None], {"n_components": 2, "init": np.zeros((3, 2))}, "init means"),
        (np.zeros((4, 2)) + np.arange(4)[:, None], {"n_components": 2, "init": np.zeros((2, 2)), "n_init": 2},
         "n_init"),
        (np.zeros((4, 2)) + np.arange(4)[:, None], {"n_components": 2, "weights_init": [1.0, -1.0]},
         "weights_init"),
        (np.zeros((4, 2)) + np.arange(4)[:, None],
         {"n_components": 2, "covariance_type": "diag", "covariances_init": np.ones((2, 2, 2))}, "shape"),
        (np.zeros((4, 2)) + np.arange(4)[:, None],
         {"n_components": 2, "covariance_type": "spherical", "covariances_init": [1.0, 0.0]}, "positive definite"),
    ],
)
def test_bad_input(X, kwargs, match):
    with pytest.raises(ValueError, match=match):
        GaussianMixture(random_state=0, **kwargs).fit(X)


def test_bad_input_types_and_unfitted():
    with pytest.raises(TypeError, match="n_components"):
        GaussianMixture(2.5).fit(np.arange(8.0).reshape(4, 2))
    with pytest.raises(ValueError, match="not fitted"):
        GaussianMixture(2).predict(np.zeros((2, 2)))
    gm = GaussianMixture(1).fit(np.arange(8.0).reshape(4, 2) ** 1.5)
    with pytest.raises(ValueError, match="features"):
        gm.predict(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="n_samples"):
        gm.sample(0)
    assert math.isfinite(gm.score(np.zeros((2, 2))))


def test_e_step_equals_scipy_densities():
    from scipy.stats import multivariate_normal

    from smlengine.mixture import e_step

    X, _ = _data(7, n=60, offset=3.0)
    t = mixture_preset("overlapping")
    R, ll = e_step(X, t.weights, t.means, t.covariances)
    dens = np.column_stack([w * multivariate_normal(m, c).pdf(X) for w, m, c in zip(t.weights, t.means, t.covariances)])
    np.testing.assert_allclose(R, dens / dens.sum(axis=1, keepdims=True), rtol=1e-10)
    assert ll == pytest.approx(np.log(dens.sum(axis=1)).sum(), rel=1e-12)
    with pytest.raises(ValueError, match="positive definite"):
        e_step(X, t.weights, t.means, np.zeros((3, 2, 2)))


# ----------------------------------------------------------------------------- one estimator for both labs


@pytest.mark.parametrize("half_steps", [False, True])
def test_compact_snapshots_equal_the_full_ones(half_steps):
    X, _ = _data(seed=3)
    kwargs = dict(covariance_type="full", init="k-means++", tol=0, max_iter=15, random_state=4)
    full = list(GaussianMixture(3, **kwargs).fit_steps(X, half_steps=half_steps))
    compact = list(GaussianMixture(3, **kwargs).fit_steps(X, half_steps=half_steps, responsibilities=False))
    assert len(full) == len(compact)
    for a, b in zip(full, compact):
        assert b.responsibilities is None and a.responsibilities.shape == (len(X), 3)
        np.testing.assert_array_equal(a.means, b.means)
        np.testing.assert_array_equal(a.labels, b.labels)
        np.testing.assert_array_equal(a.confidence, b.confidence)
        assert a.log_likelihood == b.log_likelihood and a.half == b.half
        # the labels and confidence belong to the snapshot's own responsibilities
        np.testing.assert_array_equal(a.labels, np.argmax(a.responsibilities, axis=1))
        np.testing.assert_allclose(a.confidence, a.responsibilities.max(axis=1), rtol=1e-6)
        assert a.labels.dtype == np.uint8 and a.confidence.dtype == np.float32
    gm = GaussianMixture(3, **kwargs).fit(X)
    np.testing.assert_array_equal(gm.labels_, compact[-1].labels)
    np.testing.assert_array_equal(gm.responsibilities_, full[-1].responsibilities)


def test_change_is_none_at_step_zero_and_both_stopping_rules():
    X, _ = _data(seed=5)
    for rule in ("mean", "relative"):
        tol = 1e-3 if rule == "mean" else 1e-5
        snaps = list(GaussianMixture(3, init="random", tol=tol, convergence=rule, max_iter=500,
                                     random_state=1).fit_steps(X))
        assert snaps[0].change is None and snaps[0].relative_change is None
        ll = np.array([s.log_likelihood for s in snaps])
        for j, s in enumerate(snaps[1:], start=1):
            assert s.change == pytest.approx((ll[j] - ll[j - 1]) / len(X))
            assert s.relative_change == pytest.approx(abs(ll[j] - ll[j - 1]) / abs(ll[j]))
            measured = s.relative_change if rule == "relative" else abs(s.change)
            assert s.converged == (measured < tol)
        assert snaps[-1].converged and not any(s.converged for s in snaps[:-1])
    with pytest.raises(ValueError, match="convergence must be one of 'mean', 'relative'"):
        GaussianMixture(3, convergence="absolute").fit(X)


def test_the_segmentation_names_are_the_same_class():
    from smlengine import cluster, mixture

    assert cluster.GaussianMixture is mixture.GaussianMixture
    assert cluster.GaussianMixtureSnapshot is mixture.MixtureSnapshot


@pytest.mark.parametrize("sigma", [0, -1, float("nan"), float("inf"), 1e-300, 1e-160, 1e308, 2**63, 0.5])
def test_soft_kmeans_sigma_refused_or_finite(sigma):
    X, _ = _data(seed=2, n=90)
    try:
        snaps = list(soft_kmeans_steps(X, X[:3], sigma, max_iter=5))
    except (ValueError, TypeError) as exc:
        assert "sigma" in str(exc)
        return
    assert sigma in (0.5, 2**63)
    for s in snaps:
        assert math.isfinite(s.objective) and np.all(np.isfinite(s.means)) and np.all(np.isfinite(s.responsibilities))
