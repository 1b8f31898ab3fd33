"""smlengine.bayes against closed forms, scipy.stats, numerical integration and scikit-learn.

The references see data the engine never fitted: posteriors are checked on fresh sequences,
classifiers on held-out points drawn from other distributions than their training data.
"""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from smlengine.bayes import (
    BetaBernoulli,
    DirichletMultinomial,
    GaussianBayesClassifier,
    MultinomialNaiveBayes,
    NormalKnownVariance,
    bayes_risk_2gauss,
)

RNG = np.random.default_rng(20240444)


def _flips(n, p, seed):
    return (np.random.default_rng(seed).random(n) < p).astype(int)


# ----------------------------------------------------------------------------- Beta–Bernoulli
@pytest.mark.parametrize("a, b, n, p", [(1.0, 1.0, 20, 0.7), (0.5, 0.5, 7, 0.2), (30.0, 3.0, 50, 0.3),
                                        (2.5, 4.0, 0, 0.5), (1.0, 1.0, 3, 1.0)])
def test_beta_posterior_equals_closed_form_and_scipy(a, b, n, p):
    x = _flips(n, p, seed=n)
    k = int(x.sum())
    coin = BetaBernoulli(a=a, b=b).fit(x)
    assert (coin.a_, coin.b_, coin.n_seen_, coin.heads_) == (a + k, b + n - k, n, k)
    post = stats.beta(a + k, b + n - k)
    assert coin.mean() == pytest.approx(post.mean(), rel=1e-12)
    assert coin.predictive() == pytest.approx(post.mean(), rel=1e-12)
    for level in (0.5, 0.9, 0.95, 0.99):
        lo, hi = coin.credible_interval(level)
        np.testing.assert_allclose([lo, hi], post.ppf([(1 - level) / 2, (1 + level) / 2]), rtol=1e-10, atol=1e-14)
        assert post.cdf(hi) - post.cdf(lo) == pytest.approx(level, abs=1e-10)
    mode = coin.mode()
    if coin.a_ > 1 and coin.b_ > 1:
        assert mode == pytest.approx((a + k - 1) / (a + b + n - 2))
        grid = np.linspace(1e-6, 1 - 1e-6, 200_001)
        assert mode == pytest.approx(grid[np.argmax(post.logpdf(grid))], abs=1e-5)


def test_beta_mode_at_the_ends_and_undefined():
    assert BetaBernoulli().fit([1, 1, 1]).mode() == 1.0  # Beta(4, 1): largest at θ = 1, where ML is
    assert BetaBernoulli().fit([0, 0]).mode() == 0.0
    assert BetaBernoulli(0.5, 3.0).fit([]).mode() == 0.0
    assert BetaBernoulli().fit([]).mode() is None  # flat
    assert BetaBernoulli(0.5, 0.5).fit([]).mode() is None  # peaked at both ends


def test_sequential_updates_equal_the_batch_update():
    x = _flips(40, 0.35, seed=1)
    model = BetaBernoulli(a=2.0, b=5.0)
    snaps = list(model.update_steps(x))
    assert [s.step for s in snaps] == list(range(41)) and snaps[0].x is None and snaps[0].n_seen == 0
    for s in snaps:
        batch = BetaBernoulli(a=2.0, b=5.0).fit(x[:s.n_seen])
        assert (s.a, s.b, s.heads) == (batch.a_, batch.b_, batch.heads_)
    assert [s.x for s in snaps[1:]] == x.astype(float).tolist()
    assert (model.a_, model.b_) == (snaps[-1].a, snaps[-1].b)  # the estimator holds the last posterior


@pytest.mark.parametrize("a, b", [(1.0, 1.0), (0.5, 0.5), (20.0, 2.0)])
def test_beta_marginal_likelihood_equals_numerical_integration(a, b):
    x = _flips(12, 0.6, seed=3)
    k, n = int(x.sum()), x.size
    coin = BetaBernoulli(a=a, b=b)
    value = coin.log_marginal_likelihood(x)

    def likelihood_times_prior(t):
        return t ** k * (1 - t) ** (n - k) * stats.beta(a, b).pdf(t)

    numeric = integrate.quad(likelihood_times_prior, 0, 1, points=[k / n], epsabs=0, epsrel=1e-11, limit=200)[0]
    assert value == pytest.approx(math.log(numeric), abs=1e-7)
    # the chain rule: the product of the predictive probabilities one flip at a time
    chain = sum(math.log(s.a / (s.a + s.b)) if xi else math.log(s.b / (s.a + s.b))
                for s, xi in zip(coin.update_steps(x), x))
    assert value == pytest.approx(chain, rel=1e-12)


def test_marginal_likelihood_prefers_the_prior_that_fits():
    x = np.r_[np.ones(27), np.zeros(3)]  # 90 % heads
    right, wrong = BetaBernoulli(9.0, 1.0), BetaBernoulli(1.0, 9.0)
    assert right.log_marginal_likelihood(x) > BetaBernoulli().log_marginal_likelihood(x) > \
        wrong.log_marginal_likelihood(x)


def test_data_overwhelm_the_prior():
    x = _flips(2000, 0.7, seed=5)
    means = [BetaBernoulli(a, b).fit(x).mean() for a, b in ((1, 1), (0.5, 0.5), (50, 5))]
    assert max(means) - min(means) < 0.02
    assert abs(means[0] - 0.7) < 0.03


@pytest.mark.parametrize("bad, message", [([0, 1, 2], "0 .tails. or 1 .heads."), ([0.5], "0 .tails."),
                                          ([[0, 1], [1, 0]], "1-D"), (["h", "t"], "0 .tails. and 1")])
def test_coin_data_must_be_binary(bad, message):
    with pytest.raises(ValueError, match=message):
        BetaBernoulli().fit(bad)
    with pytest.raises(ValueError, match=message):
        next(BetaBernoulli().update_steps(bad))


@pytest.mark.parametrize("params", [dict(a=0.0), dict(b=-1.0), dict(a=float("nan")), dict(b=1e7)])
def test_beta_prior_out_of_range(params):
    with pytest.raises(ValueError, match=r"^[ab] must be a float in \(0, 1e6\]"):
        BetaBernoulli(**params).fit([1])


def test_level_and_unfitted():
    coin = BetaBernoulli()
    with pytest.raises(ValueError, match="not fitted"):
        coin.mean()
    coin.fit([1])
    for level in (0, 1, 1.5, -0.1, "0.9"):
        with pytest.raises(ValueError, match=r"level must be a number in \(0, 1\)"):
            coin.credible_interval(level)


# ----------------------------------------------------------------------------- Dirichlet
def test_dirichlet_posterior_from_symbols_and_counts():
    alpha = np.array([1.0, 2.0, 0.5, 3.0])
    rolls = RNG.integers(0, 4, 60)
    counts = np.bincount(rolls, minlength=4)
    die = DirichletMultinomial(alpha).fit(rolls)
    np.testing.assert_array_equal(die.alpha_, alpha + counts)
    np.testing.assert_array_equal(DirichletMultinomial(alpha).fit(counts[None, :]).alpha_, alpha + counts)
    halves = np.vstack([np.bincount(rolls[:30], minlength=4), np.bincount(rolls[30:], minlength=4)])
    np.testing.assert_array_equal(DirichletMultinomial(alpha).fit(halves).alpha_, alpha + counts)
    np.testing.assert_allclose(die.mean(), stats.dirichlet(alpha + counts).mean(), rtol=1e-12)
    np.testing.assert_allclose(die.predictive(), die.mean())
    ci = die.credible_interval(0.9)
    post = alpha + counts
    for k in range(4):
        marginal = stats.beta(post[k], post.sum() - post[k])
        np.testing.assert_allclose(ci[k], marginal.ppf([0.05, 0.95]), rtol=1e-10)


def test_dirichlet_sequential_equals_batch_and_marginal_likelihood():
    alpha = [2.0, 1.0, 1.0]
    rolls = np.array([0, 2, 2, 1, 0, 0, 2, 1])
    model = DirichletMultinomial(alpha)
    snaps = list(model.update_steps(rolls))
    assert len(snaps) == rolls.size + 1 and snaps[0].symbol is None
    for s in snaps:
        np.testing.assert_array_equal(s.alpha, DirichletMultinomial(alpha).fit(rolls[:s.n_seen]).alpha_)
    np.testing.assert_array_equal(model.alpha_, snaps[-1].alpha)
    chain = sum(math.log(s.alpha[r] / s.alpha.sum()) for s, r in zip(snaps, rolls))
    value = model.log_marginal_likelihood(rolls)
    assert value == pytest.approx(chain, rel=1e-12)
    # integral over the simplex of Π θ_k^{n_k} Dir(θ; α)
    n = np.bincount(rolls, minlength=3)
    prior = stats.dirichlet(alpha)

    def f(t2, t1):
        t = np.array([t1, t2, 1 - t1 - t2])
        return 0.0 if t[2] <= 0 else float(np.prod(t ** n) * prior.pdf(t))

    numeric = integrate.dblquad(f, 0, 1, 0, lambda t1: 1 - t1, epsabs=1e-13, epsrel=1e-9)[0]
    assert value == pytest.approx(math.log(numeric), abs=1e-6)


@pytest.mark.parametrize("alpha, x, message", [
    ([1, 1, 1], [[1, -2, 0]], "counts must be >= 0"),
    ([1, 1, 1], [0, 3], r"symbols must be whole numbers in 0..2"),
    ([1, 1, 1], [0.5], "whole numbers"),
    ([1, 1, 1], [[1, 2]], "K = 3 columns"),
    ([1, 0, 1], [0], r"alpha must hold pseudo-counts in \(0"),
    ([1], [0], "K >= 2"),
    (3.0, [0], "alpha must be an array-like"),
])
def test_dirichlet_bad_input(alpha, x, message):
    with pytest.raises((ValueError, TypeError), match=message):
        DirichletMultinomial(alpha).fit(x)


# ----------------------------------------------------------------------------- normal mean
@pytest.mark.parametrize("mu0, tau0, sigma, n", [(0.0, 1.0, 1.0, 10), (5.0, 0.1, 2.0, 40), (-3.0, 10.0, 0.5, 1),
                                                 (1.0, 2.0, 1.0, 0)])
def test_normal_posterior_and_predictive(mu0, tau0, sigma, n):
    x = np.random.default_rng(n).normal(1.5, sigma, n)
    post = NormalKnownVariance(mu0, tau0, sigma).fit(x)
    precision = 1 / tau0 ** 2 + n / sigma ** 2
    assert post.tau_ == pytest.approx(precision ** -0.5, rel=1e-12)
    assert post.mu_ == pytest.approx((mu0 / tau0 ** 2 + x.sum() / sigma ** 2) / precision, rel=1e-10, abs=1e-12)
    mean, sd = post.predictive()
    assert (mean, sd) == pytest.approx((post.mu_, math.sqrt(post.tau_ ** 2 + sigma ** 2)))
    lo, hi = post.credible_interval(0.95)
    np.testing.assert_allclose([lo, hi], stats.norm(post.mu_, post.tau_).ppf([0.025, 0.975]), rtol=1e-10)
    # marginal likelihood: x ~ N(μ₀ 1, σ² I + τ₀² 1 1ᵀ), and the integral over μ
    if n:
        cov = sigma ** 2 * np.eye(n) + tau0 ** 2 * np.ones((n, n))
        ref = stats.multivariate_normal(np.full(n, mu0), cov).logpdf(x)
        assert NormalKnownVariance(mu0, tau0, sigma).log_marginal_likelihood(x) == pytest.approx(ref, rel=1e-10)
        if n <= 10:
            def f(mu):
                return np.exp(stats.norm(mu, sigma).logpdf(x).sum() - ref) * stats.norm(mu0, tau0).pdf(mu)
            assert integrate.quad(f, mu0 - 12 * tau0, mu0 + 12 * tau0, points=[x.mean()], limit=200)[0] == \
                pytest.approx(1.0, abs=1e-8)


def test_normal_sequential_equals_batch():
    x = np.random.default_rng(9).normal(0.3, 1.0, 25)
    step = NormalKnownVariance(0.0, 1.0, 1.0).fit([])
    for xi in x:  # yesterday's posterior is today's prior
        step = NormalKnownVariance(step.mu_, step.tau_, 1.0).fit([xi])
    batch = NormalKnownVariance(0.0, 1.0, 1.0).fit(x)
    assert (step.mu_, step.tau_) == pytest.approx((batch.mu_, batch.tau_), rel=1e-12)


@pytest.mark.parametrize("params, x, message", [(dict(tau0=0.0), [1.0], "tau0 must be"),
                                                (dict(sigma=-1.0), [1.0], "sigma must be"),
                                                (dict(), [1.0, float("nan")], "NaN"),
                                                (dict(), [[1.0, 2.0]], "1-D")])
def test_normal_bad_input(params, x, message):
    with pytest.raises(ValueError, match=message):
        NormalKnownVariance(**params).fit(x)


# ----------------------------------------------------------------------------- Gaussian classifiers
def _gaussian_classes(n, seed, k=3, d=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    means = rng.normal(0, 2, (k, d))
    mix = [rng.normal(size=(d, d)) for _ in range(k)]
    X = np.stack([means[c] + mix[c] @ rng.normal(size=d) for c in y])
    return X, y


sklearn_da = pytest.importorskip("sklearn.discriminant_analysis")
sklearn_nb = pytest.importorskip("sklearn.naive_bayes")


def _qda_is_ml():
    """Whether this scikit-learn's QDA uses the ML covariance (/n_k; older versions divide by n_k − 1)."""
    X = np.array([[0.0], [2.0], [10.0], [14.0]])
    qda = sklearn_da.QuadraticDiscriminantAnalysis(store_covariance=True).fit(X, [0, 0, 1, 1])
    return np.isclose(np.ravel(qda.covariance_[0])[0], 1.0)


def _references(priors=None):
    refs = {"shared": sklearn_da.LinearDiscriminantAnalysis(solver="lsqr"),
            "diagonal": sklearn_nb.GaussianNB(var_smoothing=0.0, priors=priors)}
    if _qda_is_ml():
        refs["full"] = sklearn_da.QuadraticDiscriminantAnalysis(priors=priors)
    return refs


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("covariance", ["full", "shared", "diagonal"])
def test_gaussian_classifier_equals_scikit_learn(covariance, k):
    ref = _references().get(covariance)
    if ref is None:
        pytest.skip("this scikit-learn's QDA divides by n_k − 1")
    X, y = _gaussian_classes(400, seed=k, k=k)
    X_new = np.random.default_rng(99).normal(0, 4, (500, 3))  # points the models never saw
    ours = GaussianBayesClassifier(covariance=covariance).fit(X, y)
    ref.fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X_new), ref.predict_proba(X_new), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X_new), ref.predict(X_new))
    np.testing.assert_allclose(ours.means_, ref.means_ if covariance != "diagonal" else ref.theta_, rtol=1e-10)
    if covariance == "diagonal":
        np.testing.assert_allclose(ours.covariances_, ref.var_, rtol=1e-10)
    elif covariance == "shared":
        np.testing.assert_allclose(ours.covariances_, ref.covariance_, rtol=1e-10)


@pytest.mark.parametrize("covariance", ["full", "diagonal"])
def test_given_priors_equal_scikit_learn(covariance):
    ref = _references(priors=[0.7, 0.1, 0.2]).get(covariance)
    if ref is None:
        pytest.skip("this scikit-learn's QDA divides by n_k − 1")
    X, y = _gaussian_classes(300, seed=5)
    X_new = np.random.default_rng(7).normal(0, 3, (200, 3))
    ours = GaussianBayesClassifier(covariance=covariance, priors=[0.7, 0.1, 0.2]).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X_new), ref.fit(X, y).predict_proba(X_new), atol=1e-6)


@pytest.mark.parametrize("covariance", ["full", "shared", "diagonal"])
def test_posteriors_are_bayes_rule_on_the_stated_densities(covariance):
    X, y = _gaussian_classes(200, seed=11, k=2, d=2)
    X[:, 0] += 1e6  # far from the origin: no digit is lost to cancellation
    clf = GaussianBayesClassifier(covariance=covariance, priors=[0.3, 0.7]).fit(X, y)
    X_new = X[:50] + np.random.default_rng(1).normal(0, 1, (50, 2))
    covs = {"full": clf.covariances_, "shared": [clf.covariances_] * 2,
            "diagonal": [np.diag(v) for v in clf.covariances_]}[covariance]
    joint = np.column_stack([np.log(p) + stats.multivariate_normal(m, c).logpdf(X_new)
                             for p, m, c in zip(clf.priors_, clf.means_, covs)])
    np.testing.assert_allclose(clf.predict_log_joint(X_new), joint, rtol=1e-9, atol=1e-6)
    post = np.exp(joint - joint.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(clf.predict_proba(X_new), post, atol=1e-9)
    np.testing.assert_allclose(clf.decision_function(X_new), joint[:, 1] - joint[:, 0], rtol=1e-8, atol=1e-6)
    assert clf.score(X, y) > 0.6


def test_decision_function_of_three_classes_is_the_log_posterior():
    X, y = _gaussian_classes(300, seed=2)
    clf = GaussianBayesClassifier().fit(X, y)
    np.testing.assert_allclose(np.exp(clf.decision_function(X[:20])), clf.predict_proba(X[:20]), rtol=1e-10)


@pytest.mark.parametrize("covariance, message", [("full", "covariance of class 1 .3 points. is singular"),
                                                 ("diagonal", "does not vary within the class"),
                                                 ("shared", "shared covariance is singular")])
def test_singular_covariances_are_refused_and_reg_mends_them(covariance, message):
    X = np.array([[0.0, 0.0, 1.0], [1.0, 0.5, 1.0], [0.3, 2.0, 1.0], [0.2, 0.1, 1.0],
                  [4.0, 4.0, 1.0], [5.0, 5.0, 1.0], [6.0, 6.0, 1.0]])  # a constant feature; class 1 on a line
    y = np.array([0, 0, 0, 0, 1, 1, 1])
    if covariance == "diagonal":
        X = X[:, :2].copy()
        X[4:, 1] = 3.0  # the second feature does not vary within class 1
    elif covariance == "full":
        X = X[:, :2]
    with pytest.raises(ValueError, match=message):
        GaussianBayesClassifier(covariance=covariance).fit(X, y)
    assert np.all(np.isfinite(GaussianBayesClassifier(covariance=covariance, reg=0.1).fit(X, y).predict_proba(X)))


@pytest.mark.parametrize("kwargs, y, message", [
    ({}, [1, 1, 1, 1], "at least two classes, got 1"),
    ({"priors": [0.5, 0.6]}, [0, 1, 0, 1], "sum to 1"),
    ({"priors": [1.0, 0.0]}, [0, 1, 0, 1], "positive"),
    ({"priors": [1.0]}, [0, 1, 0, 1], "one probability per class"),
    ({"covariance": "spherical"}, [0, 1, 0, 1], "covariance must be one of"),
    ({"reg": -1.0}, [0, 1, 0, 1], r"reg must be a float in \[0, 1e6\]"),
])
def test_classifier_bad_input(kwargs, y, message):
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.5], [3.0, 1.0]])
    with pytest.raises(ValueError, match=message):
        GaussianBayesClassifier(**{"reg": 1.0, **kwargs}).fit(X, y)


# ----------------------------------------------------------------------------- multinomial naive Bayes
@pytest.mark.parametrize("alpha", [1.0, 0.1, 5.0])
def test_multinomial_naive_bayes_equals_scikit_learn(alpha):
    rng = np.random.default_rng(int(alpha * 10))
    y = rng.integers(0, 3, 120)
    rates = rng.dirichlet(np.ones(30), size=3)
    X = np.stack([rng.multinomial(20, rates[c]) for c in y])
    X_new = rng.integers(0, 4, (60, 30))
    ours = MultinomialNaiveBayes(alpha=alpha).fit(X, y)
    ref = sklearn_nb.MultinomialNB(alpha=alpha).fit(X, y)
    np.testing.assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(ours.class_log_prior_, ref.class_log_prior_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X_new), ref.predict_proba(X_new), atol=1e-10)
    np.testing.assert_array_equal(ours.predict(X_new), ref.predict(X_new))


def test_multinomial_naive_bayes_bad_input():
    with pytest.raises(ValueError, match="Negative values in data"):
        MultinomialNaiveBayes().fit([[1, -1], [0, 2]], [0, 1])
    with pytest.raises(ValueError, match="at least two classes"):
        MultinomialNaiveBayes().fit([[1, 1], [0, 2]], [0, 0])
    with pytest.raises(ValueError, match=r"alpha must be a float in \(0, 1e6\]"):
        MultinomialNaiveBayes(alpha=0).fit([[1, 1], [0, 2]], [0, 1])
    with pytest.raises(ValueError, match="features"):
        MultinomialNaiveBayes().fit([[1, 1], [0, 2]], [0, 1]).predict_proba([[1, 2, 3]])


# ----------------------------------------------------------------------------- the Bayes error
def _monte_carlo_error(mu0, cov0, mu1, cov1, prior1, n, seed):
    rng = np.random.default_rng(seed)
    n1 = rng.binomial(n, prior1)
    X = np.vstack([rng.multivariate_normal(mu0, cov0, n - n1), rng.multivariate_normal(mu1, cov1, n1)])
    y = np.r_[np.zeros(n - n1), np.ones(n1)]
    h = (np.log(prior1) + stats.multivariate_normal(mu1, cov1).logpdf(X)
         - np.log(1 - prior1) - stats.multivariate_normal(mu0, cov0).logpdf(X))
    return float(np.mean((h > 0) != (y == 1)))


@pytest.mark.parametrize("seed", range(4))
def test_bayes_error_of_equal_covariances_is_phi_of_half_the_distance(seed):
    rng = np.random.default_rng(seed)
    d = 1 + seed
    A = rng.normal(size=(d, d))
    cov = A @ A.T + 0.5 * np.eye(d)
    mu0, mu1 = rng.normal(size=d), rng.normal(size=d)
    delta = math.sqrt((mu1 - mu0) @ np.linalg.solve(cov, mu1 - mu0))
    assert bayes_risk_2gauss(mu0, cov, mu1, cov, 0.5) == pytest.approx(stats.norm.cdf(-delta / 2), abs=1e-12)
    p1 = 0.2 + 0.15 * seed  # unequal priors: the threshold moves by ln(π₀/π₁)/Δ
    t = math.log((1 - p1) / p1) / delta
    closed = (1 - p1) * stats.norm.cdf(-delta / 2 - t) + p1 * stats.norm.cdf(-delta / 2 + t)
    assert bayes_risk_2gauss(mu0, cov, mu1, cov, p1) == pytest.approx(closed, abs=1e-12)


def test_bayes_error_of_nested_circles_is_a_chi_square_probability():
    # N(0, I) against N(0, 4 I) in the plane: the boundary is the circle ‖x‖² = (8/3)(ln 4 + ln(π₀/π₁))
    for p1 in (0.5, 0.3):
        c = 8 / 3 * (math.log(4) + math.log((1 - p1) / p1))
        closed = (1 - p1) * stats.chi2(2).sf(c) + p1 * stats.chi2(2).cdf(c / 4)
        assert bayes_risk_2gauss([0, 0], np.eye(2), [0, 0], 4 * np.eye(2), p1) == pytest.approx(closed, abs=1e-9)


@pytest.mark.parametrize("case", [
    ([0, 0], [[1, 0.5], [0.5, 1]], [1, 1], [[2, -0.3], [-0.3, 0.5]], 0.3),
    ([0, 0, 0], np.eye(3), [1, 2, 0], np.diag([0.1, 3.0, 1.0]), 0.6),
    ([5, 5], [[3, 1], [1, 2]], [5.5, 4], np.eye(2), 0.7),
    ([0], [[1.0]], [1], [[1.0001]], 0.5),  # nearly equal variances: nearly linear
    ([0, 0], np.eye(2), [0.01, 0], 1.01 * np.eye(2), 0.5),  # nearly the same class
])
def test_bayes_error_of_unequal_covariances_matches_monte_carlo(case):
    n = 200_000
    mc = _monte_carlo_error(*case, n=n, seed=1)
    value = bayes_risk_2gauss(*case)
    assert abs(value - mc) < 4.5 * math.sqrt(max(mc * (1 - mc), 1e-4) / n)
    swapped = bayes_risk_2gauss(case[2], case[3], case[0], case[1], 1 - case[4])
    assert swapped == pytest.approx(value, abs=1e-8)  # naming the classes the other way changes nothing
    assert 0 <= value <= min(case[4], 1 - case[4])


def test_bayes_error_bad_input():
    with pytest.raises(ValueError, match="cov1 is singular"):
        bayes_risk_2gauss([0, 0], np.eye(2), [1, 0], [[1, 1], [1, 1]], 0.5)
    with pytest.raises(ValueError, match=r"cov0 must be a \(2, 2\) matrix"):
        bayes_risk_2gauss([0, 0], np.eye(3), [1, 0], np.eye(2), 0.5)
    with pytest.raises(ValueError, match=r"prior1 must be a float in \[0, 1\]"):
        bayes_risk_2gauss([0, 0], np.eye(2), [1, 0], np.eye(2), 1.5)
    with pytest.raises(ValueError, match="same length"):
        bayes_risk_2gauss([0, 0], np.eye(2), [1], np.eye(2), 0.5)
    assert bayes_risk_2gauss([0, 0], np.eye(2), [1, 0], np.eye(2), 0.0) == 0.0
