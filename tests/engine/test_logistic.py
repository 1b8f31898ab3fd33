"""Logistic regression: agreement with scikit-learn, Newton == GD optimum, monotone loss."""

import itertools

import numpy as np
import pytest

from smlengine.linear import LogisticRegression, LogisticSnapshot


def _data(seed=0, n=200, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.3 + rng.normal(scale=1.0, size=n) > 0, "yes", "no")
    return X, y


@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_matches_sklearn(C, seed):
    sk = pytest.importorskip("sklearn.linear_model")
    X, y = _data(seed)
    ours = LogisticRegression(C=C).fit(X, y)
    # sklearn minimises C * sum log(1 + exp(-y f)) + ||v||^2 / 2, the intercept unpenalised
    # (lbfgs): the same optimum as sum log(...) + ||v||^2 / (2C).
    ref = sk.LogisticRegression(C=C, tol=1e-12, max_iter=10_000).fit(X, y)
    assert ours.converged_
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    np.testing.assert_allclose(ours.coef_, ref.coef_[0], atol=1e-4)
    assert abs(ours.intercept_ - ref.intercept_[0]) < 1e-4
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-5)
    assert np.mean(ours.predict(X) == ref.predict(X)) == 1.0


def test_newton_and_gd_reach_same_optimum():
    X, y = _data(3)
    newton = LogisticRegression(C=2.0, solver="newton").fit(X, y)
    gd = LogisticRegression(C=2.0, solver="gd", max_iter=20_000, tol=1e-7).fit(X, y)
    assert newton.converged_ and gd.converged_
    np.testing.assert_allclose(gd.coef_, newton.coef_, atol=1e-6)
    assert abs(gd.intercept_ - newton.intercept_) < 1e-6
    assert gd.n_iter_ > newton.n_iter_


@pytest.mark.parametrize("solver", ["newton", "gd"])
def test_loss_never_increases(solver):
    X, y = _data(4)
    snaps = list(LogisticRegression(C=1e3, solver=solver, max_iter=300).fit_steps(X, y))
    losses = np.array([s.loss for s in snaps])
    assert np.all(np.diff(losses) <= 1e-12 * np.abs(losses[:-1]))
    assert snaps[0].step == 0 and np.all(snaps[0].w == 0)
    assert [s.step for s in snaps] == list(range(len(snaps)))


def test_separable_data_stays_finite():
    X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    y = np.array([0, 0, 1, 1])
    m = LogisticRegression(C=1e6, max_iter=50).fit(X, y)
    assert np.all(np.isfinite(m.coef_)) and np.isfinite(m.intercept_)
    np.testing.assert_array_equal(m.predict(X), y)


def test_last_snapshot_equals_fit():
    X, y = _data(5)
    model = LogisticRegression(C=0.5)
    snaps = list(model.fit_steps(X, y))
    fitted = LogisticRegression(C=0.5).fit(X, y)
    last = snaps[-1]
    assert isinstance(last, LogisticSnapshot) and last.converged
    np.testing.assert_array_equal(last.coef, fitted.coef_)
    assert last.intercept == fitted.intercept_
    assert fitted.last_snapshot_.loss == last.loss
    np.testing.assert_allclose(last.decision_function(X), fitted.decision_function(X))
    assert not last.w.flags.writeable


def test_bad_input():
    X, y = _data(0, n=20)
    with pytest.raises(ValueError, match=r"C must be a float in \[1e-100, 1e100\]; got (-1|0)$"):
        LogisticRegression(C=-1).fit(X, y)
    with pytest.raises(ValueError, match=r"C must be a float in \[1e-100, 1e100\]; got (-1|0)$"):
        LogisticRegression(C=0).fit(X, y)
    with pytest.raises(ValueError, match="solver must be one of"):
        LogisticRegression(solver="lbfgs").fit(X, y)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        LogisticRegression().fit(Xn, y)
    Xn[3, 1] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        LogisticRegression().fit(Xn, y)
    with pytest.raises(ValueError, match="exactly two classes"):
        LogisticRegression().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="different numbers of samples"):
        LogisticRegression().fit(X, y[:-1])
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(np.zeros((2, 3)))


@pytest.mark.parametrize("solver", ["newton", "gd"])
def test_huge_finite_values_are_refused(solver):
    X, y = _data(0, n=20, d=2)
    with pytest.raises(ValueError, match=r"X has values up to 1e\+308; rescale the data"):
        LogisticRegression(solver=solver).fit(np.sign(X) * 1e308, y)


def test_absurd_learning_rate_and_C_are_refused():
    X, y = _data(0, n=20, d=2)
    with pytest.raises(ValueError, match=r"learning_rate must be a float in \(0, 1e6\]; got 1e308"):
        LogisticRegression(solver="gd", learning_rate=1e308).fit(X, y)
    with pytest.raises(ValueError, match=r"C must be a float in \[1e-100, 1e100\]; got 9.99989e-321"):
        LogisticRegression(C=1e-320).fit(X, y)


def test_gradient_descent_on_the_largest_data_stays_finite_and_monotone():
    # The largest accepted data and learning rate: every accepted iterate is finite and
    # the loss never increases (overflowing trial steps count as failed trials).
    X, y = _data(1, n=40, d=2)
    X = X * 1e99 / np.abs(X).max()
    snaps = list(LogisticRegression(solver="gd", learning_rate=1e6, max_iter=300).fit_steps(X, y))
    assert all(np.isfinite(s.loss) and np.all(np.isfinite(s.w)) for s in snaps)
    losses = [s.loss for s in snaps]
    assert all(b <= a for a, b in itertools.pairwise(losses))
