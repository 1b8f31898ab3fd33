"""Gaussian processes: kernels, posterior, evidence and its optimiser against scikit-learn; samples; bad input."""

import warnings

import numpy as np
import pytest

from smlengine import NotFittedError
from smlengine.gp import (
    MAX_TRAIN,
    RBF,
    EvidenceSurface,
    GaussianProcessRegressor,
    GPSnapshot,
    JitterWarning,
    Linear,
    Matern,
    Periodic,
    Product,
    Sum,
    log_evidence,
)

sk_gp = pytest.importorskip("sklearn.gaussian_process")
sk_k = pytest.importorskip("sklearn.gaussian_process.kernels")
C = sk_k.ConstantKernel


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, d))
    return X, np.sin(1.3 * X[:, 0]) + 0.3 * X[:, -1] + 0.1 * rng.normal(size=n)


@pytest.fixture(scope="module")
def data1():
    X, y = _data(30, 1, 0)
    return X, y, np.random.default_rng(10).uniform(-4, 4, (12, 1))  # test inputs the fit never saw


@pytest.fixture(scope="module")
def data2():
    X, y = _data(40, 2, 1)
    return X, y, np.random.default_rng(11).uniform(-4, 4, (12, 2))


def _pairs(d):
    """(ours, scikit-learn's) for every kernel family; the periodic kernel only for one input."""
    pairs = [
        (RBF(0.7, 1.5), C(1.5) * sk_k.RBF(0.7)),
        (Matern(0.8, 0.5, 1.2), C(1.2) * sk_k.Matern(0.8, nu=0.5)),
        (Matern(0.8, 1.5, 1.2), C(1.2) * sk_k.Matern(0.8, nu=1.5)),
        (Matern(0.8, 2.5, 1.2), C(1.2) * sk_k.Matern(0.8, nu=2.5)),
        (Linear(2.0, 0.5), C(2.0) * sk_k.DotProduct(sigma_0=0.5)),  # 2 (xᵀx' + 1/4) = 2 xᵀx' + 0.5
        (RBF(0.7, 1.5) + Linear(0.3, 0.2),
         C(1.5) * sk_k.RBF(0.7) + C(0.3) * sk_k.DotProduct(sigma_0=np.sqrt(0.2 / 0.3))),
        (Matern(1.1, 2.5) * RBF(2.0, 0.5), C(0.5) * sk_k.Matern(1.1, nu=2.5) * sk_k.RBF(2.0)),
    ]
    if d == 1:
        pairs += [(Periodic(0.8, 2.0, 1.3), C(1.3) * sk_k.ExpSineSquared(0.8, 2.0)),
                  (Periodic(1.0, 3.0) * RBF(4.0, 2.0) + RBF(0.5, 0.1),
                   C(2.0) * sk_k.ExpSineSquared(1.0, 3.0) * sk_k.RBF(4.0) + C(0.1) * sk_k.RBF(0.5))]
    return pairs


def _ids(pairs):
    return [repr(p[0]).split("(")[0] + str(i) for i, p in enumerate(pairs)]


# ----------------------------------------------------------------------------- kernels
@pytest.mark.parametrize("d", [1, 2])
def test_every_gram_matrix_equals_scikit_learns(d):
    X, _ = _data(25, d, 2)
    Y = np.random.default_rng(3).uniform(-4, 4, (9, d))
    for ours, theirs in _pairs(d):
        np.testing.assert_allclose(ours(X), theirs(X), rtol=1e-12, atol=1e-14, err_msg=repr(ours))
        np.testing.assert_allclose(ours(X, Y), theirs(X, Y), rtol=1e-12, atol=1e-14, err_msg=repr(ours))
        np.testing.assert_allclose(ours.diag(Y), theirs.diag(Y), rtol=1e-12, err_msg=repr(ours))


def test_sum_and_product_operators_build_the_kernels():
    k = RBF() + Matern() * Linear()
    assert isinstance(k, Sum) and isinstance(k.k2, Product)
    assert repr(k) == "RBF(length_scale=1.0, variance=1.0) + (Matern(length_scale=1.0, nu=1.5, variance=1.0) * " \
                      "Linear(variance=1.0, offset=0.0))"
    X = np.linspace(-1, 1, 5)[:, None]
    np.testing.assert_allclose(k(X), RBF()(X) + Matern()(X) * Linear()(X))
    with pytest.raises(TypeError):
        RBF() + 1.0


@pytest.mark.parametrize("kernel", [RBF(0.7, 1.5), Matern(0.8, 0.5, 1.2), Matern(0.8, 1.5), Matern(0.8, 2.5, 2.0),
                                    Periodic(0.8, 2.0, 1.3), Linear(2.0, 0.5), Linear(0.7),
                                    Periodic(1.0, 3.0) * RBF(4.0, 2.0) + Linear(0.1, 0.3)],
                         ids=lambda k: repr(k)[:40])
def test_kernel_gradients_equal_finite_differences(kernel):
    X, _ = _data(12, 1, 4)
    K, grads = kernel.gram_gradient(X)
    np.testing.assert_allclose(K, kernel(X), rtol=1e-13)
    assert len(grads) == len(kernel.theta) == len(kernel.hyperparameters)
    h = 1e-6
    for j in range(len(kernel.theta)):
        up, down = kernel.theta.copy(), kernel.theta.copy()
        up[j] += h
        down[j] -= h
        numeric = (kernel.with_theta(up)(X) - kernel.with_theta(down)(X)) / (2 * h)
        np.testing.assert_allclose(grads[j], numeric, rtol=1e-6, atol=1e-8, err_msg=kernel.hyperparameters[j])


def test_theta_round_trips_and_a_zero_offset_stays_out_of_it():
    k = RBF(2.0, 3.0) + Linear(0.5, 0.0)
    assert k.hyperparameters == ("k1__length_scale", "k1__variance", "k2__variance")
    np.testing.assert_allclose(np.exp(k.theta), [2.0, 3.0, 0.5])
    k2 = k.with_theta(np.log([4.0, 5.0, 6.0]))
    assert (k2.k1.length_scale, k2.k1.variance, k2.k2.variance, k2.k2.offset) == pytest.approx((4.0, 5.0, 6.0, 0.0))
    assert k.k1.length_scale == 2.0  # the original is untouched
    assert k.bounds.shape == (3, 2)


# ----------------------------------------------------------------------------- the posterior
@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("normalize_y", [False, True])
def test_posterior_and_evidence_equal_scikit_learns(d, normalize_y, data1, data2):
    X, y, Xt = data1 if d == 1 else data2
    for noise in (1e-2, 0.3):
        for ours, theirs in _pairs(d):
            gp = GaussianProcessRegressor(ours, noise=noise, normalize_y=normalize_y).fit(X, y)
            ref = sk_gp.GaussianProcessRegressor(theirs, alpha=noise, optimizer=None, normalize_y=normalize_y).fit(X, y)
            mean, std = gp.predict(Xt, return_std=True)
            ref_mean, ref_std = ref.predict(Xt, return_std=True)
            np.testing.assert_allclose(mean, ref_mean, rtol=1e-8, atol=1e-12, err_msg=repr(ours))
            np.testing.assert_allclose(std, ref_std, rtol=1e-8, atol=1e-12, err_msg=repr(ours))
            _, cov = gp.predict(Xt, return_cov=True)
            np.testing.assert_allclose(cov, ref.predict(Xt, return_cov=True)[1], rtol=1e-8, atol=1e-10)
            assert gp.log_marginal_likelihood() == pytest.approx(ref.log_marginal_likelihood_value_, rel=1e-8)
            assert gp.jitter_ == 0.0


def test_the_band_pinches_at_the_points_and_widens_between_them():
    X = np.array([[-2.0], [0.0], [2.0]])
    gp = GaussianProcessRegressor(RBF(0.5), noise=1e-4).fit(X, [1.0, -1.0, 0.5])
    _, std_at = gp.predict(X, return_std=True)
    _, std_between = gp.predict(np.array([[-1.0], [1.0]]), return_std=True)
    _, std_far = gp.predict(np.array([[10.0]]), return_std=True)
    assert np.all(std_at < 0.011) and np.all(std_between > 0.5) and std_far[0] == pytest.approx(1.0)


def test_evidence_terms_add_up_and_log_evidence_agrees(data1):
    X, y, _ = data1
    gp = GaussianProcessRegressor(Matern(0.9, 2.5), noise=0.05).fit(X, y)
    fit, complexity, constant = gp.evidence_terms_
    assert fit + complexity + constant == pytest.approx(gp.log_marginal_likelihood(), rel=1e-12)
    assert constant == pytest.approx(-0.5 * len(y) * np.log(2 * np.pi))
    assert complexity == pytest.approx(-0.5 * np.linalg.slogdet(Matern(0.9, 2.5)(X) + 0.05 * np.eye(len(y)))[1])
    e = log_evidence(X, y, Matern(0.9, 2.5), 0.05)
    assert (e.value, e.data_fit, e.complexity) == pytest.approx((gp.log_marginal_likelihood(), fit, complexity))


@pytest.mark.parametrize("kernel", [RBF(0.7, 1.5), Periodic(0.8, 2.0, 1.3), RBF(1.0) + Linear(0.5, 0.3)],
                         ids=lambda k: repr(k)[:30])
def test_evidence_gradient_equals_finite_differences_and_scikit_learns(kernel, data1):
    X, y, _ = data1
    noise = 0.05
    e = log_evidence(X, y, kernel, noise, eval_gradient=True)
    theta = np.append(kernel.theta, np.log(noise))
    h = 1e-6

    def value(t):
        return log_evidence(X, y, kernel.with_theta(t[:-1]), float(np.exp(t[-1]))).value

    numeric = [(value(theta + h * np.eye(len(theta))[j]) - value(theta - h * np.eye(len(theta))[j])) / (2 * h)
               for j in range(len(theta))]
    np.testing.assert_allclose(e.gradient, numeric, rtol=1e-5, atol=1e-6)
    if isinstance(kernel, RBF):  # scikit-learn orders θ as (constant, length-scale, noise)
        ref = sk_gp.GaussianProcessRegressor(C(1.5) * sk_k.RBF(0.7) + sk_k.WhiteKernel(noise), alpha=0.0,
                                             optimizer=None).fit(X, y)
        value_ref, grad_ref = ref.log_marginal_likelihood(ref.kernel_.theta, eval_gradient=True)
        assert e.value == pytest.approx(value_ref, rel=1e-10)
        np.testing.assert_allclose(e.gradient, grad_ref[[1, 0, 2]], rtol=1e-8)


# ----------------------------------------------------------------------------- the optimiser
@pytest.mark.parametrize("family", ["rbf", "matern", "periodic", "rbf-2d"])
@pytest.mark.parametrize("restarts", [0, 2])
def test_optimised_evidence_reaches_scikit_learns(family, restarts):
    rng = np.random.default_rng(5)
    d = 2 if family == "rbf-2d" else 1
    X = rng.uniform(0, 10, (35, d))
    y = np.sin(X[:, 0]) + (0.2 * X[:, 1] if d == 2 else 0.0) + 0.2 * rng.normal(size=35)
    ours, theirs = {
        "rbf": (RBF(1.0), sk_k.RBF(1.0)), "rbf-2d": (RBF(1.0), sk_k.RBF(1.0)),
        "matern": (Matern(1.0, 1.5), sk_k.Matern(1.0, nu=1.5)),
        "periodic": (Periodic(1.0, 6.0), sk_k.ExpSineSquared(1.0, 6.0)),
    }[family]
    gp = GaussianProcessRegressor(ours, noise=0.01, optimize=True, n_restarts=restarts, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's warnings about its bounds
        ref = sk_gp.GaussianProcessRegressor(C(1.0) * theirs + sk_k.WhiteKernel(0.01), alpha=1e-10,
                                             n_restarts_optimizer=restarts, random_state=0).fit(X, y)
    assert gp.log_marginal_likelihood() >= ref.log_marginal_likelihood_value_ - 1e-3
    # the fitted state is a model of its own: refitting it without the optimiser gives the same evidence
    again = GaussianProcessRegressor(gp.kernel_, noise=gp.noise_).fit(X, y)
    assert again.log_marginal_likelihood() == pytest.approx(gp.log_marginal_likelihood(), rel=1e-10)


def test_fit_steps_climb_and_end_on_the_best_state():
    rng = np.random.default_rng(6)
    X = rng.uniform(0, 6, (25, 1))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=25)
    gp = GaussianProcessRegressor(RBF(0.1), noise=0.5, optimize=True, n_restarts=2, random_state=3)
    snaps = list(gp.fit_steps(X, y))
    assert [s.step for s in snaps] == list(range(len(snaps)))
    assert all(isinstance(s, GPSnapshot) and not s.theta.flags.writeable for s in snaps)
    assert snaps[0].names == ("length_scale", "variance", "noise") and snaps[0].restart == 0
    assert {s.restart for s in snaps} == {0, 1, 2}
    for r in range(3):
        lml = [s.log_marginal_likelihood for s in snaps if s.restart == r and not s.best]
        assert np.all(np.diff(lml) >= -1e-12), "an ascent never lowers the evidence"
    last = snaps[-1]
    assert last.best and sum(s.best for s in snaps) == 1
    assert last.log_marginal_likelihood == max(s.log_marginal_likelihood for s in snaps)
    assert last.log_marginal_likelihood == pytest.approx(gp.log_marginal_likelihood(), rel=1e-12)
    assert last.data_fit + last.complexity + last.constant == pytest.approx(last.log_marginal_likelihood)
    assert repr(last.kernel) == repr(gp.kernel_) and last.noise == gp.noise_
    np.testing.assert_allclose(np.exp(last.theta), [gp.kernel_.length_scale, gp.kernel_.variance, gp.noise_])
    assert snaps[0].log_marginal_likelihood < last.log_marginal_likelihood - 5  # ℓ = 0.1 overfits: far worse
    assert gp.kernel_.length_scale > 0.5  # the evidence chose a smoother function


def test_without_the_optimiser_one_snapshot_is_the_fit(data1):
    X, y, _ = data1
    gp = GaussianProcessRegressor(RBF(0.5), noise=0.1)
    snaps = list(gp.fit_steps(X, y))
    assert len(snaps) == 1 and snaps[0].best and snaps[0].step == 0
    assert snaps[0].log_marginal_likelihood == gp.log_marginal_likelihood()
    assert repr(gp.kernel_) == repr(RBF(0.5)) and gp.noise_ == 0.1 and gp.n_iter_ == 0


def test_the_given_kernel_is_never_changed(data1):
    X, y, _ = data1
    kernel = RBF(0.3)
    gp = GaussianProcessRegressor(kernel, optimize=True).fit(X, y)
    assert kernel.length_scale == 0.3 and gp.kernel_ is not kernel and gp.kernel_.length_scale != 0.3


# ----------------------------------------------------------------------------- samples
def _check_moments(samples, mean, cov):
    """Sample mean and covariance within 5 standard errors of the predicted ones."""
    n = samples.shape[1]
    sd = np.sqrt(np.diag(cov))
    assert np.all(np.abs(samples.mean(axis=1) - mean) <= 5 * sd / np.sqrt(n) + 1e-12)
    emp = np.cov(samples)
    se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / n)
    assert np.all(np.abs(emp - cov) <= 5 * se + 1e-12)


def test_prior_samples_have_the_kernels_mean_and_covariance():
    Xs = np.linspace(-2, 2, 6)[:, None]
    gp = GaussianProcessRegressor(Matern(0.8, 2.5, 2.0))
    f = gp.sample_prior(Xs, 10_000, random_state=1)
    assert f.shape == (6, 10_000)
    _check_moments(f, np.zeros(6), Matern(0.8, 2.5, 2.0)(Xs))
    np.testing.assert_array_equal(f[:, :5], gp.sample_prior(Xs, 5, random_state=1)[:, :5])  # seeded


def test_posterior_samples_have_the_predicted_mean_and_covariance(data1):
    X, y, _ = data1
    gp = GaussianProcessRegressor(RBF(0.8), noise=0.05, normalize_y=True).fit(X, y)
    Xs = np.array([[-3.5], [-1.0], [0.2], [2.9], [4.0]])
    f = gp.sample_posterior(Xs, 10_000, random_state=2)
    mean, cov = gp.predict(Xs, return_cov=True)
    _check_moments(f, mean, cov)
    # prior samples of a fitted model use the fitted kernel in y's units
    prior = gp.sample_prior(Xs, 10_000, random_state=3)
    _check_moments(prior, np.full(5, y.mean()), RBF(0.8)(Xs) * y.std() ** 2)


# ----------------------------------------------------------------------------- jitter
def test_jitter_only_when_needed_and_it_says_so():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a well-posed fit warns of nothing
        assert GaussianProcessRegressor(RBF(), noise=0.0).fit(X, [0.0, 1.0, 0.0, 1.0]).jitter_ == 0.0
    with pytest.warns(JitterWarning, match="jitter"):
        gp = GaussianProcessRegressor(Linear(), noise=0.0).fit(X, [0.0, 1.0, 2.0, 3.0])  # K has rank 1
    assert 0 < gp.jitter_ <= 1e-4 * np.mean(np.diag(Linear()(X)))
    np.testing.assert_allclose(gp.predict([[1.5]]), [1.5], rtol=1e-6)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("make, match", [
    (lambda: RBF(length_scale=0.0), "length_scale"),
    (lambda: RBF(length_scale=-1.0), "length_scale"),
    (lambda: Matern(nu=1.0), "nu"),
    (lambda: Periodic(period=0.0), "period"),
    (lambda: Linear(offset=-1.0), "offset"),
    (lambda: RBF(variance=float("nan")), "variance"),
    (lambda: RBF() + Matern(length_scale=-2.0), "length_scale"),
])
def test_bad_kernel_parameters_are_refused(make, match):
    X = np.zeros((3, 1))
    with pytest.raises(ValueError, match=match):
        make()(X)
    with pytest.raises(ValueError, match=match):
        GaussianProcessRegressor(make()).fit(X + np.arange(3)[:, None], [0.0, 1.0, 2.0])


@pytest.mark.parametrize("params, match", [
    ({"noise": -1e-3}, "noise"),
    ({"noise": float("nan")}, "noise"),
    ({"n_restarts": 10**9}, "n_restarts"),
    ({"n_restarts": -1}, "n_restarts"),
    ({"kernel": "rbf"}, "kernel"),
    ({"optimize": 1}, "optimize"),
])
def test_bad_regressor_parameters_are_refused(params, match):
    with pytest.raises((ValueError, TypeError), match=match):
        GaussianProcessRegressor(**params).fit([[0.0], [1.0]], [0.0, 1.0])


def test_bad_data_is_refused_with_a_clear_message():
    with pytest.raises(ValueError, match="repeated rows and noise = 0"):
        GaussianProcessRegressor(noise=0.0).fit([[0.0], [1.0], [0.0]], [0.0, 1.0, 0.5])
    GaussianProcessRegressor(noise=1e-3).fit([[0.0], [1.0], [0.0]], [0.0, 1.0, 0.5])  # fine with noise
    with pytest.raises(ValueError, match="NaN"):
        GaussianProcessRegressor().fit([[0.0], [np.nan]], [0.0, 1.0])
    with pytest.raises(ValueError, match="NaN"):
        GaussianProcessRegressor().fit([[0.0], [1.0]], [0.0, np.nan])
    with pytest.raises(ValueError, match="at most 20,000 training points"):
        GaussianProcessRegressor().fit(np.zeros((MAX_TRAIN + 1, 1)), np.zeros(MAX_TRAIN + 1))
    gp = GaussianProcessRegressor().fit([[0.0], [1.0]], [0.0, 1.0])
    with pytest.raises(ValueError, match="features"):
        gp.predict([[0.0, 1.0]])
    with pytest.raises(ValueError, match="n_samples"):
        gp.sample_posterior([[0.0]], n_samples=10**7)
    with pytest.raises(ValueError, match="n_samples"):
        gp.sample_prior([[0.0]], n_samples=0)
    with pytest.raises(ValueError, match="return_std or return_cov"):
        gp.predict([[0.0]], return_std=True, return_cov=True)
    with pytest.raises(NotFittedError):
        GaussianProcessRegressor().predict([[0.0]])
    with pytest.raises(NotFittedError):
        GaussianProcessRegressor().log_marginal_likelihood()


def test_a_singular_evidence_is_an_error_not_a_number():
    with pytest.raises(ValueError, match="not positive definite"):
        log_evidence([[0.0], [0.0]], [0.0, 1.0], RBF(), 0.0)


# ----------------------------------------------------------------------------- the evidence map
def test_evidence_surface_equals_the_evidence_at_each_point(data1):
    X, y, _ = data1
    values, noises = np.geomspace(0.1, 10, 5), np.geomspace(1e-3, 1.0, 4)
    for kernel, param in [(RBF(1.0, 2.0), "length_scale"), (Periodic(1.0, 3.0, 0.7), "period"),
                          (RBF(1.0) + Linear(0.2), "k1__length_scale")]:
        surface = EvidenceSurface(X, y, values=values, noises=noises, param=param, normalize_y=True)
        grid = surface(kernel)
        assert grid.shape == (4, 5)
        yn = (y - y.mean()) / y.std()
        for i, s2 in enumerate(noises):
            for j, v in enumerate(values):
                expected = log_evidence(X, yn, kernel.clone().set_params(**{param: v}), s2).value
                assert grid[i, j] == pytest.approx(expected, rel=1e-8, abs=1e-8)
    # another variance reuses the decompositions and is still right
    grid = surface(RBF(1.0) + Linear(0.2))
    rbf = EvidenceSurface(X, y, values=values, noises=noises)
    rbf(RBF(1.0, 2.0))
    np.testing.assert_allclose(rbf(RBF(1.0, 0.5))[2], [log_evidence(X, y, RBF(v, 0.5), noises[2]).value
                                                       for v in values], rtol=1e-8)


# ----------------------------------------------------------------------------- estimator conventions
def test_params_clone_and_score(data1):
    from sklearn.base import clone

    X, y, Xt = data1
    gp = GaussianProcessRegressor(RBF(0.5) + Linear(), noise=0.1)
    params = gp.get_params()
    assert params["kernel__k1__length_scale"] == 0.5
    gp.set_params(kernel__k1__length_scale=0.8)
    assert gp.kernel.k1.length_scale == 0.8
    twin = clone(gp)
    assert twin.kernel is not gp.kernel and repr(twin) == repr(gp)
    assert gp.fit(X, y).score(X, y) > 0.9
    np.testing.assert_allclose(twin.fit(X, y).predict(Xt), gp.predict(Xt))


def test_evidence_terms_along_the_map_equal_log_evidences_terms(data1):
    X, y, _ = data1
    values = np.geomspace(0.05, 5, 6)
    surface = EvidenceSurface(X, y, values=values, noises=[0.01, 0.1])
    fit, complexity, constant = surface.terms(RBF(1.0, 0.7), 0.1)
    for j, v in enumerate(values):
        e = log_evidence(X, y, RBF(v, 0.7), 0.1)
        assert (fit[j], complexity[j], constant) == pytest.approx((e.data_fit, e.complexity, e.constant), rel=1e-9)
    np.testing.assert_allclose(fit + complexity + constant, surface(RBF(1.0, 0.7))[1], rtol=1e-12)


def test_the_same_seed_draws_functions_that_change_smoothly_with_the_kernel():
    """ℓ from 0.05 to 0.5 in steps of 2 %: the functions of one seed move a little at each step
    (the symmetric square root of K; its eigenvectors alone flip sign from one ℓ to the next)."""
    Xs = np.linspace(0, 1, 80)[:, None]
    f = [GaussianProcessRegressor(RBF(ell)).sample_prior(Xs, 5, random_state=4) for ell in np.geomspace(0.05, 0.5, 120)]
    assert max(np.max(np.abs(a - b)) for a, b in zip(f, f[1:])) < 0.1
    other = GaussianProcessRegressor(RBF(0.5)).sample_prior(Xs, 5, random_state=5)
    assert np.max(np.abs(f[-1] - other)) > 1.0


def test_the_first_snapshot_holds_the_given_kernel_exactly(data1):
    X, y, _ = data1
    first = next(GaussianProcessRegressor(RBF(0.03, 0.7), noise=0.01, optimize=True).fit_steps(X, y))
    assert (first.kernel.length_scale, first.kernel.variance, first.noise) == (0.03, 0.7, 0.01)
