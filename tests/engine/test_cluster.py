"""k-means, multinomial and Gaussian mixtures by EM, restarts and the stability criterion."""

import math

import numpy as np
import pytest

from smlengine.cluster import (
    GaussianMixture,
    KMeans,
    MultinomialMixture,
    kmeans_plusplus,
    kmeans_plusplus_probabilities,
    kmeans_restarts,
    stability,
)


def _blobs(n=300, seed=0, f=3):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0, 0.0], [3.0, 3.0, 0.0], [0.0, 4.0, 3.0]])[:, :f]
    labels = rng.integers(0, 3, n)
    return centres[labels] + rng.normal(scale=0.6, size=(n, f)), labels


@pytest.fixture(scope="module")
def pixels():
    from skimage import data as skimage_data
    img = skimage_data.astronaut()[::8, ::8] / 255.0  # 64 x 64 pixels
    return img.reshape(-1, 3)


# ----------------------------------------------------------------------------- k-means


def test_kmeans_hand_computed():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [10.0, 0.0], [10.0, 1.0]])
    km = KMeans(2, init=np.array([[0.0, 0.0], [10.0, 0.0]]), tol=0).fit(X)
    np.testing.assert_allclose(km.cluster_centers_, [[0.0, 0.5], [10.0, 0.5]])
    assert km.labels_.tolist() == [0, 0, 1, 1]
    assert km.inertia_ == pytest.approx(1.0)
    np.testing.assert_array_equal(km.predict([[1.0, 0.0], [9.0, 9.0]]), [0, 1])


@pytest.mark.parametrize("init", ["random", "k-means++"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kmeans_objective_never_increases(pixels, init, seed):
    snaps = list(KMeans(5, init=init, tol=0, random_state=seed).fit_steps(pixels))
    J = np.array([s.inertia for s in snaps])
    assert np.all(np.diff(J) <= 1e-9 * J[0])
    assert [s.step for s in snaps] == list(range(len(snaps)))
    # the snapshot's inertia is the objective of its own centres and labels
    s = snaps[-1]
    direct = ((pixels - s.centers[s.labels]) ** 2).sum()
    assert s.inertia == pytest.approx(direct, rel=1e-9)


@pytest.mark.parametrize("k", [6, 12])  # 12: labels from each point's argmin (Lloyd._ARGMIN_MIN_K)
def test_kmeans_equals_sklearn_lloyd_from_same_centres(pixels, k):
    sk_cluster = pytest.importorskip("sklearn.cluster")
    rng = np.random.default_rng(3)
    init = pixels[rng.choice(len(pixels), k, replace=False)]
    ours = KMeans(k, init=init, tol=0, max_iter=500).fit(pixels)
    ref = sk_cluster.KMeans(k, init=init, n_init=1, algorithm="lloyd", tol=0, max_iter=500).fit(pixels)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-10, atol=1e-12)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)


def test_kmeans_relocates_an_empty_cluster():
    X = np.array([[0.0], [1.0], [10.0], [11.0]])
    # centre 2 is far from every point: nobody picks it at step 0
    snaps = list(KMeans(3, init=np.array([[0.0], [10.5], [100.0]]), tol=0).fit_steps(X))
    assert snaps[0].counts.tolist() == [2, 2, 0]
    assert snaps[1].relocated == (2,)
    final = snaps[-1]
    assert np.all(final.counts > 0)
    assert final.inertia < snaps[0].inertia


def test_kmeans_last_snapshot_equals_fit(pixels):
    km = KMeans(4, init="k-means++", random_state=7)
    snaps = list(km.fit_steps(pixels))
    km2 = KMeans(4, init="k-means++", random_state=7).fit(pixels)
    last = snaps[-1]
    np.testing.assert_array_equal(last.centers, km2.cluster_centers_)
    np.testing.assert_array_equal(last.labels, km2.labels_)
    assert last.inertia == km2.inertia_ and last.converged
    assert not last.labels.flags.writeable and last.labels.dtype == np.uint8
    assert km2.objective_[-1] == km2.inertia_


def test_kmeans_n_init_keeps_best_and_is_deterministic(pixels):
    km = KMeans(5, init="random", n_init=4, random_state=0).fit(pixels)
    snaps = list(KMeans(5, init="random", n_init=4, random_state=0).fit_steps(pixels))
    finals = [s for s in snaps[:-1] if s.converged or s is snaps[-2]]
    assert snaps[-1].phase == "best"
    assert snaps[-1].inertia == min(s.inertia for s in finals) == km.inertia_
    assert {s.restart for s in snaps} == {0, 1, 2, 3}


def test_kmeans_plusplus_probabilities():
    X = np.array([[0.0], [1.0], [3.0]])
    np.testing.assert_allclose(kmeans_plusplus_probabilities(X, np.empty((0, 1))), [1 / 3] * 3)
    np.testing.assert_allclose(kmeans_plusplus_probabilities(X, [[0.0]]), [0.0, 0.1, 0.9])
    np.testing.assert_allclose(kmeans_plusplus_probabilities(X, [[0.0], [3.0]]), [0.0, 1.0, 0.0])


def test_kmeans_restarts_summary(pixels):
    res = kmeans_restarts(pixels, 5, n_restarts=6, init="random", random_state=0)
    assert res.inertias.shape == (6,) and res.n_iters.shape == (6,)
    assert res.best_index == int(np.argmin(res.inertias))
    assert 1 <= res.n_distinct <= 6 and res.solution_ids.max() == res.n_distinct - 1
    again = KMeans(5, init="random", random_state=0).restarts(pixels, n=6)
    np.testing.assert_array_equal(res.inertias, again.inertias)
    steps = list(kmeans_restarts(pixels, 5, n_restarts=2, random_state=1, steps=True))
    assert [s.step for s in steps] == list(range(len(steps)))
    assert steps[-1].progress == 1.0 and steps[-1].current_restart == 2


@pytest.mark.parametrize(
    "kwargs, X, match",
    [
        ({"n_clusters": 3, "init": "random"}, np.array([[0.0, 0.0]] * 5 + [[1.0, 1.0]] * 5), "distinct"),
        ({"n_clusters": 3, "init": "k-means++"}, np.array([[0.0, 0.0]] * 5 + [[1.0, 1.0]] * 5), "distinct"),
        ({"n_clusters": 5}, np.zeros((3, 2)), "larger than the number of samples"),
        ({"n_clusters": 0}, np.zeros((3, 2)), ">= 1"),
        ({"n_clusters": 2}, np.array([[0.0, np.nan], [1.0, 1.0]]), "NaN"),
        ({"n_clusters": 2}, np.zeros((0, 2)), "at least 1"),
        ({"n_clusters": 2, "init": np.zeros((3, 2))}, np.zeros((4, 2)), "shape"),
        ({"n_clusters": 2, "init": "kmeans"}, np.zeros((4, 2)), "init must be one of"),
    ],
)
def test_kmeans_bad_input(kwargs, X, match):
    with pytest.raises(ValueError, match=match):
        KMeans(random_state=0, **kwargs).fit(X)


# ----------------------------------------------------------------------------- multinomial mixture


def _multinomial_data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    t = np.array([
        [0.5, 0.3, 0.1, 0.05, 0.05],
        [0.05, 0.05, 0.1, 0.3, 0.5],
        [0.1, 0.15, 0.5, 0.15, 0.1],
    ])
    c = np.array([0.5, 0.3, 0.2])
    z = rng.choice(3, size=n, p=c)
    H = np.array([rng.multinomial(40, t[k]) for k in z])
    return H, t, c, z


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("pseudocount", [0.0, 0.01, 1.0])
def test_multinomial_log_likelihood_never_decreases(seed, pseudocount):
    H, *_ = _multinomial_data(800, seed)
    snaps = list(MultinomialMixture(4, pseudocount=pseudocount, tol=0, max_iter=60, random_state=seed).fit_steps(H))
    ll = np.array([s.log_likelihood for s in snaps])
    assert np.all(np.diff(ll) >= -1e-9 * abs(ll[0]))
    if pseudocount == 0:
        assert all(s.log_prior == 0.0 for s in snaps)


def test_multinomial_recovers_known_mixture():
    H, t, c, z = _multinomial_data()
    mm = MultinomialMixture(3, random_state=0).fit(H)
    from scipy.optimize import linear_sum_assignment

    cost = np.abs(mm.probabilities_[:, None, :] - t[None]).sum(axis=2)
    rows, cols = linear_sum_assignment(cost)
    np.testing.assert_allclose(mm.probabilities_[rows], t[cols], atol=0.02)
    np.testing.assert_allclose(mm.weights_[rows], c[cols], atol=0.03)
    np.testing.assert_allclose(mm.probabilities_.sum(axis=1), 1.0)
    perm = dict(zip(rows, cols))
    assert np.mean(np.array([perm[m] for m in mm.labels_]) == z) > 0.97
    assert mm.converged_


def test_multinomial_responsibilities_sum_to_one_and_predict():
    H, *_ = _multinomial_data(500)
    mm = MultinomialMixture(3, random_state=1).fit(H)
    np.testing.assert_allclose(mm.responsibilities_.sum(axis=1), 1.0)
    proba = mm.predict_proba(H)
    np.testing.assert_allclose(proba, mm.responsibilities_, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(mm.predict(H), mm.labels_)


def test_multinomial_log_likelihood_matches_scipy():
    from scipy import stats
    H, *_ = _multinomial_data(200)
    mm = MultinomialMixture(2, pseudocount=0.0, max_iter=5, random_state=0).fit(H)
    dens = sum(mm.weights_[k] * stats.multinomial.pmf(H, 40, mm.probabilities_[k]) for k in range(2))
    np.testing.assert_allclose(mm.score_samples(H), np.log(dens), rtol=1e-10)
    assert mm.log_likelihood_[-1] == pytest.approx(np.log(dens).sum(), rel=1e-10)
    m = (2 - 1) + 2 * 4
    assert mm.bic(H) == pytest.approx(-2 * np.log(dens).sum() + m * np.log(200), rel=1e-10)


def test_multinomial_last_snapshot_equals_fit():
    H, *_ = _multinomial_data(400)
    snaps = list(MultinomialMixture(3, random_state=4).fit_steps(H))
    mm = MultinomialMixture(3, random_state=4).fit(H)
    last = snaps[-1]
    np.testing.assert_array_equal(last.weights, mm.weights_)
    np.testing.assert_array_equal(last.probabilities, mm.probabilities_)
    np.testing.assert_array_equal(last.labels, mm.labels_)
    np.testing.assert_allclose(last.confidence, mm.responsibilities_.max(axis=1), rtol=1e-6)
    assert last.log_likelihood == mm.log_likelihood_[-1]
    assert [s.step for s in snaps] == list(range(len(snaps)))
    assert last.confidence.dtype == np.float32


def test_multinomial_from_given_initialisation_and_empty_bins():
    H = np.array([[5, 0, 0], [4, 1, 0], [0, 0, 5], [0, 1, 4]])
    mm = MultinomialMixture(2, probabilities_init=[[0.6, 0.3, 0.1], [0.1, 0.3, 0.6]], pseudocount=0.0).fit(H)
    assert mm.labels_.tolist() == [0, 0, 1, 1]
    assert np.all(np.isfinite(mm.log_likelihood_))
    assert mm.probabilities_[0, 2] < 1e-12  # no pseudo-count: an unused bin gets (almost) probability 0 ...
    assert np.all(np.isfinite(mm.score_samples([[0, 0, 3]])))  # ... yet new data stays finite
    mm1 = MultinomialMixture(2, probabilities_init=[[0.6, 0.3, 0.1], [0.1, 0.3, 0.6]], pseudocount=1.0).fit(H)
    assert mm1.probabilities_.min() > 0


@pytest.mark.parametrize(
    "X, kwargs, match",
    [
        (np.array([[1, -1, 2]]), {}, "non-negative"),
        (np.array([[0, 0, 0], [1, 2, 3]]), {}, "positive total"),
        (np.array([[1, 2], [1, 2], [1, 2]]), {"n_components": 2}, "distinct"),
        (np.array([[1.0, np.nan]]), {"n_components": 1}, "NaN"),
        (np.array([[1, 2]]), {"n_components": 1, "pseudocount": -1}, "pseudocount"),
    ],
)
def test_multinomial_bad_input(X, kwargs, match):
    with pytest.raises(ValueError, match=match):
        MultinomialMixture(random_state=0, **kwargs).fit(X)


# ----------------------------------------------------------------------------- Gaussian mixture


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("init", ["kmeans", "k-means++", "random"])
def test_gmm_log_likelihood_never_decreases(pixels, seed, init):
    snaps = list(GaussianMixture(4, tol=0, max_iter=40, init=init, random_state=seed)
                 .fit_steps(pixels, responsibilities=False))
    ll = np.array([s.log_likelihood for s in snaps])
    assert np.all(np.diff(ll) >= -1e-9 * abs(ll[0]))


def test_gmm_equals_sklearn_from_same_initialisation(pixels):
    sk_mixture = pytest.importorskip("sklearn.mixture")
    km = KMeans(4, init="k-means++", random_state=0, max_iter=5).fit(pixels)
    X = pixels
    w0 = np.bincount(km.labels_, minlength=4) / len(X)
    cov0 = np.array([np.cov(X[km.labels_ == k].T, bias=True) + 1e-3 * np.eye(3) for k in range(4)])
    iters = 15
    ours = GaussianMixture(4, tol=0, max_iter=iters, weights_init=w0, init=km.cluster_centers_,
                           covariances_init=cov0).fit(X)
    ref = sk_mixture.GaussianMixture(4, covariance_type="full", tol=0, max_iter=iters, weights_init=w0,
                                     means_init=km.cluster_centers_, precisions_init=np.linalg.inv(cov0))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns that tol=0 did not converge
        ref.fit(X)
    np.testing.assert_allclose(ours.weights_, ref.weights_, rtol=1e-6)
    np.testing.assert_allclose(ours.means_, ref.means_, rtol=1e-6)
    np.testing.assert_allclose(ours.covariances_, ref.covariances_, rtol=1e-6, atol=1e-12)
    # sklearn's lower bound is the mean log-likelihood of the parameters before its last M-step
    assert ours.log_likelihood_[iters - 1] == pytest.approx(ref.lower_bound_ * len(X), rel=1e-6)
    np.testing.assert_allclose(ours.score_samples(X), ref.score_samples(X), rtol=1e-6)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    assert ours.bic(X) == pytest.approx(ref.bic(X), rel=1e-6)


def test_gmm_recovers_blobs_and_last_snapshot_equals_fit():
    X, z = _blobs(600, seed=2)
    snaps = list(GaussianMixture(3, random_state=0).fit_steps(X))
    gm = GaussianMixture(3, random_state=0).fit(X)
    last = snaps[-1]
    np.testing.assert_array_equal(last.means, gm.means_)
    np.testing.assert_array_equal(last.covariances, gm.covariances_)
    np.testing.assert_array_equal(last.labels, gm.labels_)
    assert last.log_likelihood == gm.log_likelihood_[-1]
    np.testing.assert_allclose(gm.responsibilities_.sum(axis=1), 1.0)
    np.testing.assert_array_equal(gm.predict(X), gm.labels_)
    from sklearn.metrics import adjusted_rand_score

    assert adjusted_rand_score(z, gm.labels_) > 0.95


def test_gmm_bic_prefers_true_k():
    X, _ = _blobs(600, seed=5)
    bics = [GaussianMixture(k, random_state=0).fit(X).bic(X) for k in (1, 2, 3, 4, 5)]
    assert int(np.argmin(bics)) == 2


def test_gmm_singular_covariance_names_reg_covar():
    X = np.array([[0.0, 0.0]] * 10 + [[1.0, 1.0]] * 10)
    with pytest.raises(ValueError, match="reg_covar"):
        GaussianMixture(2, reg_covar=0.0, init="random", random_state=0).fit(X)
    gm = GaussianMixture(2, reg_covar=1e-3, init="random", random_state=0).fit(X)
    assert np.all(np.isfinite(gm.log_likelihood_))


@pytest.mark.parametrize(
    "X, kwargs, match",
    [
        (np.zeros((3, 2)), {"n_components": 4}, "larger than the number of points"),
        (np.array([[1.0, np.inf], [0.0, 0.0]]), {"n_components": 1}, "NaN or infinite"),
        (np.array([[1.0, 2.0]] * 4), {"n_components": 2, "init": "random"}, "identical"),
        (np.array([[1.0, 2.0]] * 4 + [[0.0, 0.0]]), {"n_components": 3, "init": "random"}, "distinct"),
        (np.arange(8.0).reshape(4, 2), {"n_components": 2, "init": np.zeros((3, 2))}, "init means"),
    ],
)
def test_gmm_bad_input(X, kwargs, match):
    with pytest.raises(ValueError, match=match):
        GaussianMixture(random_state=0, **kwargs).fit(X)


# ----------------------------------------------------------------------------- stability


def test_stability_prefers_true_k_and_is_deterministic():
    X, _ = _blobs(600, seed=1, f=2)
    factory = lambda k, seed: KMeans(k, init="k-means++", random_state=seed)  # noqa: E731
    res = stability(factory, X, [2, 3, 4, 5], n_splits=4, random_state=0)
    assert res.scores.shape == (4, 4)
    assert res.instability[1] < 0.02  # K = 3 is the real structure
    assert res.instability[1] == res.instability.min() or res.instability[1] < 0.02
    assert res.instability[3] > res.instability[1]
    again = stability(factory, X, [2, 3, 4, 5], n_splits=4, random_state=0)
    np.testing.assert_array_equal(res.scores, again.scores)


def test_stability_disagreement_is_permutation_invariant():
    from smlengine.stability import _disagreement

    a = np.array([0, 0, 1, 1, 2, 2])
    assert _disagreement(a, np.array([2, 2, 0, 0, 1, 1])) == 0.0
    assert _disagreement(a, np.array([2, 2, 0, 0, 1, 0])) == pytest.approx(1 / 6)


def test_stability_bad_input():
    X = np.zeros((10, 2))
    with pytest.raises(ValueError, match="half"):
        stability(lambda k, s: KMeans(k), X, [6])
    with pytest.raises(ValueError, match="empty"):
        stability(lambda k, s: KMeans(k), X, [])


# --------------------------------------------------------------------------- edges: absurd parameters, undefined values


def test_kmeans_given_centres_on_fewer_distinct_points_than_k():
    X = np.array([[0.0, 0.0]] * 5 + [[1.0, 1.0]] * 5)
    with pytest.raises(ValueError, match=r"n_clusters=3 is larger than the number of distinct points \(2\)"):
        KMeans(3, init=np.array([[0.0, 0.0], [1.0, 1.0], [5.0, 5.0]])).fit(X)
    with pytest.raises(ValueError, match="distinct points"):
        kmeans_restarts(X, 3, n_restarts=2, random_state=0)
    # exactly K distinct points: a correct result, every shift after step 0 finite
    snaps = list(KMeans(2, init=np.array([[0.0, 0.0], [5.0, 5.0]]), max_iter=10).fit_steps(X))
    assert snaps[0].center_shift is None
    assert all(math.isfinite(s.center_shift) for s in snaps[1:])
    np.testing.assert_allclose(np.sort(snaps[-1].centers, axis=0), [[0.0, 0.0], [1.0, 1.0]])


def test_kmeans_plusplus_is_the_engines_one_seeding():
    X, _ = _blobs(200, seed=3)
    idx, maps = kmeans_plusplus(X, 4, np.random.default_rng(5), return_probabilities=True)
    assert idx.dtype == np.int64 and len(set(idx.tolist())) == 4 and len(maps) == 3
    for j, p in enumerate(maps):
        np.testing.assert_allclose(p, kmeans_plusplus_probabilities(X, X[idx[: j + 1]]))
        assert p[idx[: j + 1]].max() == 0.0  # a chosen centre is never chosen again
    np.testing.assert_array_equal(idx, kmeans_plusplus(X, 4, np.random.default_rng(5)))
    # KMeans(init='k-means++') starts at exactly these rows
    first = next(KMeans(4, init="k-means++", random_state=np.random.default_rng(5)).fit_steps(X))
    np.testing.assert_array_equal(first.centers, X[idx])
    with pytest.raises(ValueError, match="distinct points"):
        kmeans_plusplus(np.zeros((6, 2)), 2, 0)


def test_restarts_final_snapshot_has_no_nan():
    X, _ = _blobs(120, seed=4)
    last = list(kmeans_restarts(X, 3, n_restarts=3, random_state=0, steps=True))[-1]
    assert last.current_inertia is None and last.current_restart == 3
    assert np.all(np.isfinite(last.inertias))


_ABSURD = [0, -1, float("nan"), float("inf"), -float("inf"), 1e308, 2**63]


def _finite_or_refused(make, X):
    """A clean ValueError/TypeError naming the problem, or a fit whose every snapshot number is finite."""
    try:
        snaps = list(make().fit_steps(X))
    except (ValueError, TypeError) as exc:
        assert 0 < len(str(exc)) < 300
        return "refused"
    for s in snaps:
        for name in ("inertia", "center_shift", "log_likelihood", "relative_change", "log_prior"):
            v = getattr(s, name, None)
            assert v is None or math.isfinite(v), (name, v)
        for name in ("centers", "weights", "probabilities", "means", "covariances", "confidence"):
            v = getattr(s, name, None)
            assert v is None or np.all(np.isfinite(v)), name
    return "finite"


@pytest.mark.parametrize("value", _ABSURD, ids=repr)
@pytest.mark.parametrize("param", ["n_clusters", "n_init", "tol", "max_iter"])
def test_kmeans_absurd_parameters(param, value):
    X, _ = _blobs(60, seed=0)
    kwargs = {"n_clusters": 3, "random_state": 0, param: value}
    _finite_or_refused(lambda: KMeans(**kwargs), X)


@pytest.mark.parametrize("value", _ABSURD, ids=repr)
@pytest.mark.parametrize("param", ["n_components", "tol", "max_iter", "pseudocount"])
def test_multinomial_absurd_parameters(param, value):
    X = np.random.default_rng(0).integers(0, 10, size=(40, 5)) + 1
    kwargs = {"n_components": 2, "random_state": 0, param: value}
    _finite_or_refused(lambda: MultinomialMixture(**kwargs), X)


def test_multinomial_huge_pseudocount_is_refused_with_its_range():
    X = np.random.default_rng(0).integers(0, 10, size=(40, 5)) + 1
    with pytest.raises(ValueError, match=r"pseudocount must be a float in \[0, 1e6\]; got 1e308"):
        MultinomialMixture(2, pseudocount=1e308).fit(X)
    mm = MultinomialMixture(2, pseudocount=1e6, random_state=0).fit(X)  # the largest allowed: finite
    assert np.all(np.isfinite(mm.log_likelihood_)) and np.all(np.isfinite(mm.probabilities_))
    snaps = list(MultinomialMixture(2, random_state=0).fit_steps(X))
    assert snaps[0].relative_change is None and all(math.isfinite(s.relative_change) for s in snaps[1:])


@pytest.mark.parametrize("value", _ABSURD, ids=repr)
@pytest.mark.parametrize("param", ["n_components", "tol", "max_iter", "reg_covar", "n_init"])
def test_gmm_absurd_parameters(param, value):
    X, _ = _blobs(60, seed=0)
    kwargs = {"n_components": 3, "random_state": 0, param: value}
    _finite_or_refused(lambda: GaussianMixture(**kwargs), X)


def test_matched_agreement_by_hand():
    from smlengine.cluster import matched_agreement

    a = np.array([0, 0, 1, 1, 2, 2, 2])
    b = np.array([2, 2, 0, 1, 1, 1, 1])
    agreement, perm = matched_agreement(a, b, 3)
    assert agreement == pytest.approx(6 / 7)
    np.testing.assert_array_equal(perm, [1, 2, 0])
    # more clusters in b than in a: the left-over cluster takes a's empty label
    agreement, perm = matched_agreement(np.array([0, 0, 1, 1]), np.array([0, 1, 2, 2]))
    assert agreement == pytest.approx(3 / 4) and sorted(perm.tolist()) == [0, 1, 2] and perm[2] == 1
    with pytest.raises(ValueError, match="same points"):
        matched_agreement([0, 1], [0, 1, 1])


def test_kmeans_score_is_minus_the_objective():
    X, _ = _blobs(150, seed=6)
    km = KMeans(3, random_state=0).fit(X)
    assert km.score(X) == pytest.approx(-km.inertia_, rel=1e-9)
    Y = X[:10] + 0.5
    d = ((Y[:, None, :] - km.cluster_centers_[None]) ** 2).sum(axis=2).min(axis=1)
    assert km.score(Y) == pytest.approx(-d.sum(), rel=1e-12)
    sk_cluster = pytest.importorskip("sklearn.cluster")
    ref = sk_cluster.KMeans(3, init=km.cluster_centers_, n_init=1, max_iter=1).fit(X)
    ref.cluster_centers_ = km.cluster_centers_
    assert km.score(Y) == pytest.approx(ref.score(Y), rel=1e-9)
