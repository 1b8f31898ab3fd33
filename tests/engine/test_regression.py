"""Regression engine: least squares, ridge, lasso, paths, bases, bias–variance, x,y files."""

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smlengine.datasets._regression import load_xy_points, make_regression_1d, save_xy_points, truth_function
from smlengine.regression import (
    MAX_DEGREE,
    BasisRegression,
    GaussianBasis,
    Lasso,
    LinearRegression,
    PolynomialBasis,
    Ridge,
    bias_variance,
    clone,
    cross_val_mse,
    lasso_alpha_max,
    lasso_path,
    ridge_path,
    soft_threshold,
)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 8)) * np.array([1, 2, 0.5, 1, 3, 1, 1, 0.2]) + 1.5
    w = np.array([2.0, 0.0, -1.0, 0.0, 0.5, 0.0, 3.0, 0.0])
    y = X @ w + 0.5 * rng.standard_normal(60) + 3.0
    return X, y


# --------------------------------------------------------------------------- least squares
def test_lstsq_equals_numpy_lstsq(data):
    X, y = data
    A = np.column_stack([np.ones(len(X)), X])
    ref = np.linalg.lstsq(A, y, rcond=None)[0]
    m = LinearRegression().fit(X, y)
    np.testing.assert_allclose(m.coef_, ref[1:], atol=1e-10)
    assert m.intercept_ == pytest.approx(ref[0], abs=1e-10)
    m0 = LinearRegression(fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(m0.coef_, np.linalg.lstsq(X, y, rcond=None)[0], atol=1e-10)
    assert m0.intercept_ == 0.0
    np.testing.assert_allclose(m.predict(X), A @ ref, atol=1e-9)


def test_normal_equations_hold(data):
    X, y = data
    m = LinearRegression().fit(X, y)
    r = y - m.predict(X)
    np.testing.assert_allclose(X.T @ r, 0, atol=1e-8)  # residual orthogonal to every column
    assert abs(r.sum()) < 1e-8


def test_gradient_descent_converges_to_least_squares(data):
    X, y = data
    ref = LinearRegression().fit(X, y)
    gd = LinearRegression(solver="gd", tol=1e-12, max_iter=200_000)
    snaps = list(gd.fit_steps(X, y))
    assert gd.converged_ and len(snaps) > 10
    np.testing.assert_allclose(gd.coef_, ref.coef_, atol=1e-7)
    assert gd.intercept_ == pytest.approx(ref.intercept_, abs=1e-6)
    losses = np.array([s.objective for s in snaps])
    assert np.all(np.diff(losses) <= 1e-12 * losses[0])  # step 1/L never increases the loss
    assert [s.step for s in snaps] == list(range(len(snaps)))
    np.testing.assert_array_equal(snaps[-1].coef, gd.coef_)


def test_gradient_descent_too_large_step_is_reported(data):
    X, y = data
    with pytest.raises(ValueError, match="diverged.*learning_rate"):
        LinearRegression(solver="gd", learning_rate=100.0, max_iter=5000).fit(X, y)


# --------------------------------------------------------------------------- ridge
@pytest.mark.parametrize("alpha", [0.0, 1e-3, 0.5, 3.0, 100.0])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_ridge_equals_scikit_learn(data, alpha, fit_intercept):
    lm = pytest.importorskip("sklearn.linear_model")
    X, y = data
    ours = Ridge(alpha=alpha, fit_intercept=fit_intercept).fit(X, y)
    ref = lm.Ridge(alpha=alpha, fit_intercept=fit_intercept).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-8)
    assert ours.intercept_ == pytest.approx(ref.intercept_, abs=1e-8)


def test_ridge_path_equals_ridge_without_intercept(data):
    X, y = data
    alphas, coefs = ridge_path(X, y, [10.0, 0.1, 1.0])
    np.testing.assert_array_equal(alphas, [10.0, 1.0, 0.1])
    assert coefs.shape == (8, 3)
    for k, a in enumerate(alphas):
        np.testing.assert_allclose(coefs[:, k], Ridge(a, fit_intercept=False).fit(X, y).coef_, atol=1e-12)
        w = coefs[:, k]
        np.testing.assert_allclose((X.T @ X + a * np.eye(8)) @ w, X.T @ y, rtol=1e-9, atol=1e-8)


def test_fewer_points_than_parameters(data):
    """Least squares refuses (XᵀX is singular, infinitely many exact fits); ridge is unique."""
    lm = pytest.importorskip("sklearn.linear_model")
    X, y = data
    Xs, ys = X[:5], y[:5]  # 5 points, 9 parameters
    with pytest.raises(ValueError, match=r"fewer points \(5\) than parameters \(9\).*ridge"):
        LinearRegression().fit(Xs, ys)
    with pytest.raises(ValueError, match="fewer points"):
        LinearRegression(solver="gd").fit(Xs, ys)
    ours = Ridge(alpha=0.1).fit(Xs, ys)
    np.testing.assert_allclose(ours.coef_, lm.Ridge(alpha=0.1).fit(Xs, ys).coef_, atol=1e-8)
    assert np.all(np.isfinite(ours.predict(X)))


# --------------------------------------------------------------------------- lasso
@pytest.mark.parametrize("alpha", [1e-3, 0.05, 0.3, 1.0, 5.0])
def test_lasso_equals_scikit_learn(data, alpha):
    lm = pytest.importorskip("sklearn.linear_model")
    X, y = data
    ours = Lasso(alpha=alpha, tol=1e-12, max_iter=100_000).fit(X, y)
    ref = lm.Lasso(alpha=alpha, tol=1e-12, max_iter=100_000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-6)
    assert ours.intercept_ == pytest.approx(ref.intercept_, abs=1e-6)
    assert ours.converged_
    np.testing.assert_array_equal(ours.coef_ == 0, ref.coef_ == 0)  # the same features selected


def test_lasso_default_tolerance_is_close_to_scikit_learn(data):
    lm = pytest.importorskip("sklearn.linear_model")
    X, y = data
    np.testing.assert_allclose(Lasso(0.2).fit(X, y).coef_, lm.Lasso(alpha=0.2, tol=1e-12).fit(X, y).coef_, atol=1e-4)


def test_lasso_one_coordinate_per_step_objective_never_increases(data):
    X, y = data
    model = Lasso(alpha=0.1, tol=1e-10)
    snaps = list(model.fit_steps(X, y))
    objective = np.array([s.objective for s in snaps])
    assert np.all(np.diff(objective) <= 1e-12 * objective[0])
    assert objective[-1] < objective[0]
    for a, b in zip(snaps[:-1], snaps[1:]):
        changed = np.flatnonzero(a.coef != b.coef)
        assert changed.size == 0 or changed.tolist() == [b.coordinate]
    assert [s.coordinate for s in snaps[1:9]] == list(range(8))
    assert snaps[-1].converged and model.converged_
    np.testing.assert_array_equal(snaps[-1].coef, model.coef_)
    n = len(y)
    r = y - X @ snaps[-1].coef - snaps[-1].intercept
    assert snaps[-1].objective == pytest.approx(r @ r / (2 * n) + 0.1 * np.abs(snaps[-1].coef).sum())


def test_lasso_above_alpha_max_is_zero(data):
    X, y = data
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    a_max = lasso_alpha_max(Xc, yc)
    assert np.all(Lasso(alpha=a_max * 1.0001).fit(X, y).coef_ == 0)
    assert np.any(Lasso(alpha=a_max * 0.95).fit(X, y).coef_ != 0)


@pytest.mark.parametrize("precompute", ["auto", False])
def test_lasso_path_equals_scikit_learn(data, precompute):
    lm = pytest.importorskip("sklearn.linear_model")
    X, y = data
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    alphas, coefs = lasso_path(Xc, yc, tol=1e-12, n_alphas=30, precompute=precompute)
    ref_alphas, ref_coefs, _ = lm.lasso_path(Xc, yc, alphas=alphas, tol=1e-12, max_iter=100_000)
    np.testing.assert_array_equal(alphas, ref_alphas)
    assert coefs.shape == (8, 30)
    np.testing.assert_allclose(coefs, ref_coefs, atol=1e-6)
    assert np.abs(coefs[:, 0]).max() < 1e-12  # the path starts at α_max (zero up to rounding)


def test_lasso_path_on_nearly_singular_features_meets_the_optimality_conditions():
    """Ten points, nine Legendre features (ΦᵀΦ condition ~1e7): the exact sign steps must still
    stop only at points where |φ_jᵀr|/n ≤ α, with equality and the sign of w_j where w_j ≠ 0."""
    x, y = make_regression_1d("sine", 10, 0.3, random_state=7)
    phi = PolynomialBasis(9, kind="legendre").fit_transform(x)
    pc, yc = phi - phi.mean(axis=0), y - y.mean()
    alphas, coefs = lasso_path(pc, yc, 10.0 ** np.arange(-4.0, 0.5, 0.5), tol=1e-12, max_iter=100_000)
    n = len(y)
    for k, a in enumerate(alphas):
        w = coefs[:, k]
        c = pc.T @ (yc - pc @ w) / n
        assert np.all(np.abs(c) <= a * (1 + 1e-6) + 1e-9), (a, np.abs(c).max())
        on = w != 0
        np.testing.assert_allclose(c[on], a * np.sign(w[on]), rtol=1e-5, atol=1e-9)


def test_lasso_path_at_given_alphas_matches_lasso(data):
    X, y = data
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    alphas, coefs = lasso_path(Xc, yc, [0.01, 1.0, 0.1], tol=1e-12)
    np.testing.assert_array_equal(alphas, [1.0, 0.1, 0.01])
    for k, a in enumerate(alphas):
        np.testing.assert_allclose(coefs[:, k], Lasso(a, fit_intercept=False, tol=1e-12).fit(Xc, yc).coef_, atol=1e-7)


def test_soft_threshold():
    np.testing.assert_array_equal(soft_threshold(np.array([-3.0, -0.5, 0.0, 0.5, 2.0]), 1.0), [-2, 0, 0, 0, 1])


# --------------------------------------------------------------------------- parameters and input
@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Ridge(alpha=-1), r"alpha must be a float in \[0, 1e100\]; got -1"),
        (lambda: Lasso(alpha=-0.1), r"alpha must be a float in \[0, 1e100\]; got -0.1"),
        (lambda: Lasso(tol=-1), "tol must be a float >= 0; got -1"),
        (lambda: Lasso(max_iter=0), r"max_iter must be an int in \[1, 1e6\]; got 0"),
        (lambda: LinearRegression(solver="qr"), "solver must be one of 'lstsq', 'gd'"),
        (lambda: LinearRegression(solver="gd", learning_rate=0), "learning_rate must be a float > 0 or None; got 0"),
        (lambda: Ridge(alpha=float("nan")), r"alpha must be a float in \[0, 1e100\]; got nan"),
    ],
)
def test_bad_parameters_are_named(data, make, message):
    X, y = data
    with pytest.raises(ValueError, match=message):
        make().fit(X, y)


def test_bad_data_is_refused(data):
    X, y = data
    bad = X.copy()
    bad[3, 2] = np.nan
    for model in (LinearRegression(), Ridge(), Lasso()):
        with pytest.raises(ValueError, match="X contains 1 NaN"):
            model.fit(bad, y)
        y_bad = y.copy()
        y_bad[0] = np.inf
        with pytest.raises(ValueError, match="y contains 1 NaN or infinite"):
            model.fit(X, y_bad)
        with pytest.raises(ValueError, match="different numbers of samples"):
            model.fit(X, y[:-1])
    with pytest.raises(ValueError, match="not fitted"):
        Ridge().predict(X)
    with pytest.raises(ValueError, match="fitted with 8"):
        Ridge().fit(X, y).predict(X[:, :3])


def test_huge_degree_and_constant_x():
    x = np.linspace(0, 1, 20)[:, None]
    y = np.sin(6 * x[:, 0])
    with pytest.raises(ValueError, match=rf"degree must be an int in \[0, {MAX_DEGREE}\]; got 500"):
        BasisRegression(PolynomialBasis(500), Ridge(1.0)).fit(x, y)
    with pytest.raises(TypeError, match=r"degree must be an int in \[0, 30\]; got 2.5"):
        PolynomialBasis(2.5).fit(x)
    const = np.full((10, 1), 0.3)
    with pytest.raises(ValueError, match="linearly dependent.*constant input.*ridge"):
        BasisRegression(PolynomialBasis(2), LinearRegression()).fit(const, y[:10])
    m = BasisRegression(PolynomialBasis(2), Ridge(1.0)).fit(const, y[:10])  # ridge: the mean
    np.testing.assert_allclose(m.predict(const), y[:10].mean())
    with pytest.raises(ValueError, match=r"shape \(n, 1\)"):
        BasisRegression().fit(np.zeros((5, 2)), np.zeros(5))
    with pytest.raises(ValueError, match="x contains 1 NaN"):
        BasisRegression().fit(np.array([[0.0], [np.nan], [1.0], [2.0], [3.0]]), np.zeros(5))


# --------------------------------------------------------------------------- bases
def test_polynomial_basis_scales_to_unit_interval():
    x = np.array([[2.0], [4.0], [6.0]])
    b = PolynomialBasis(3).fit(x)
    np.testing.assert_allclose(b.transform(x), [[-1, 1, -1], [0, 0, 0], [1, 1, 1]])
    assert PolynomialBasis(0).fit(x).transform(x).shape == (3, 1)


def test_legendre_basis_fits_the_same_curve_better_conditioned():
    x, y = make_regression_1d("sine", 30, 0.2, random_state=4)
    grid = np.linspace(0, 1, 50)[:, None]
    power = BasisRegression(PolynomialBasis(9), LinearRegression()).fit(x, y)
    legendre = BasisRegression(PolynomialBasis(9, kind="legendre"), LinearRegression()).fit(x, y)
    np.testing.assert_allclose(legendre.predict(grid), power.predict(grid), atol=1e-6)
    b = PolynomialBasis(3, kind="legendre").fit(np.array([[-1.0], [1.0]]))
    np.testing.assert_allclose(b.transform([[0.5]]), [[0.5, -0.125, -0.4375]])  # P1, P2, P3 at 0.5
    gram_l, gram_p = legendre.features(x).T @ legendre.features(x), power.features(x).T @ power.features(x)
    assert np.linalg.cond(gram_l) < np.linalg.cond(gram_p) / 100
    with pytest.raises(ValueError, match="kind must be one of 'power', 'legendre'"):
        PolynomialBasis(3, kind="chebyshev").fit(x)


def test_gaussian_basis():
    x = np.linspace(0, 1, 11)[:, None]
    b = GaussianBasis(5).fit(x)
    np.testing.assert_allclose(b.centres_, [0, 0.25, 0.5, 0.75, 1])
    assert b.width_ == pytest.approx(0.25)
    phi = b.transform(x)
    assert phi.shape == (11, 5)
    assert phi[0, 0] == 1.0 and phi[0, 1] == pytest.approx(np.exp(-0.5))
    b2 = GaussianBasis([0.2, 0.8], width=0.1).fit(x)
    assert b2.transform([[0.2]])[0, 0] == 1.0
    with pytest.raises(ValueError, match="width must be a float > 0 or None; got 0"):
        GaussianBasis(3, width=0).fit(x)
    with pytest.raises(ValueError, match=r"centres must be an int in \[1, 500\] or an array-like; got 10000"):
        GaussianBasis(10_000).fit(x)


def test_basis_regression_equals_least_squares_on_powers():
    x, y = make_regression_1d("sine", 30, 0.2, random_state=1)
    m = BasisRegression(PolynomialBasis(3), LinearRegression()).fit(x, y)
    ref = np.polynomial.polynomial.polyfit(x[:, 0], y, 3)
    grid = np.linspace(0, 1, 50)
    np.testing.assert_allclose(m.predict(grid[:, None]), np.polynomial.polynomial.polyval(grid, ref), atol=1e-9)


# --------------------------------------------------------------------------- scikit-learn compatibility
def test_scikit_learn_clone_cross_val_and_grid_search():
    base = pytest.importorskip("sklearn.base")
    ms = pytest.importorskip("sklearn.model_selection")
    x, y = make_regression_1d("sine", 40, 0.2, random_state=2)
    model = BasisRegression(PolynomialBasis(3), Ridge(alpha=0.01))
    params = model.get_params(deep=True)
    assert params["basis__degree"] == 3 and params["regressor__alpha"] == 0.01
    twin = base.clone(model)
    assert twin is not model and twin.basis is not model.basis and twin.get_params()["basis__degree"] == 3
    assert repr(clone(model)) == repr(model) == (
        "BasisRegression(basis=PolynomialBasis(degree=3, kind='power'), "
        "regressor=Ridge(alpha=0.01, fit_intercept=True))")
    folds = ms.KFold(5, shuffle=True, random_state=0)  # x is sorted: unshuffled folds would extrapolate
    scores = ms.cross_val_score(model, x, y, cv=folds)
    assert scores.shape == (5,) and np.all(scores > 0.5)
    search = ms.GridSearchCV(model, {"basis__degree": [1, 3, 7]}, cv=folds).fit(x, y)
    assert search.best_params_["basis__degree"] > 1
    ours = cross_val_mse(lambda: clone(model), x, y, k=5)
    assert ours[0] > 0 and ours[1] >= 0
    model.set_params(basis__degree=5, regressor__alpha=1.0)
    assert model.basis.degree == 5 and model.regressor.alpha == 1.0
    with pytest.raises(ValueError, match="unknown parameter"):
        model.set_params(colour=1)
    for est in (LinearRegression(), Ridge(), Lasso(0.01)):
        assert np.all(ms.cross_val_score(est, np.column_stack([x, x**2]), y, cv=folds) > -1)
    r2 = Ridge(0.0).fit(np.column_stack([x, x**2]), y).score(np.column_stack([x, x**2]), y)
    lm = pytest.importorskip("sklearn.linear_model")
    assert r2 == pytest.approx(lm.Ridge(0.0).fit(np.column_stack([x, x**2]), y).score(np.column_stack([x, x**2]), y))


# --------------------------------------------------------------------------- bias and variance
def _poly_factory(degree):
    return lambda: BasisRegression(PolynomialBasis(degree), LinearRegression())


def test_bias2_plus_variance_is_mean_squared_deviation_exactly():
    f = truth_function("sine")
    x_train = np.linspace(0, 1, 25)[:, None]
    x_eval = np.linspace(0, 1, 40)[:, None]
    bv = bias_variance(_poly_factory(3), f, 0.3, x_train, x_eval, n_sets=50, random_state=0)
    assert bv.predictions.shape == (50, 40)
    msd = np.mean((bv.predictions - f(x_eval[:, 0])) ** 2, axis=0)
    np.testing.assert_allclose(bv.bias2 + bv.variance, msd, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(bv.mean_prediction, bv.predictions.mean(axis=0))
    assert bv.noise == pytest.approx(0.09)


def test_expected_test_error_matches_monte_carlo():
    f = truth_function("sine")
    rng = np.random.default_rng(5)
    x_train = np.linspace(0, 1, 25)[:, None]
    x_eval = np.linspace(0.02, 0.98, 30)[:, None]
    sigma, sets = 0.3, 400
    bv = bias_variance(_poly_factory(3), f, sigma, x_train, x_eval, n_sets=sets, random_state=rng)
    y_new = f(x_eval[:, 0])[None, :] + sigma * rng.standard_normal((sets, len(x_eval)))
    per_set = np.mean((bv.predictions - y_new) ** 2, axis=1)  # one test error per training set
    mc, se = per_set.mean(), per_set.std(ddof=1) / np.sqrt(sets)
    predicted = float(np.mean(bv.expected_test_error))
    assert abs(mc - predicted) <= 2 * se, (mc, predicted, se)
    assert predicted > sigma**2


def test_bias_and_variance_trade_off_with_degree():
    f = truth_function("sine")
    x_train = np.linspace(0, 1, 20)[:, None]
    x_eval = np.linspace(0.05, 0.95, 30)[:, None]
    low = bias_variance(_poly_factory(1), f, 0.3, x_train, x_eval, n_sets=50, random_state=0)
    high = bias_variance(_poly_factory(12), f, 0.3, x_train, x_eval, n_sets=50, random_state=0)
    assert low.bias2.mean() > 10 * high.bias2.mean()
    assert high.variance.mean() > 5 * low.variance.mean()


def test_bias_variance_validation():
    f = truth_function("sine")
    x = np.linspace(0, 1, 10)[:, None]
    with pytest.raises(ValueError, match="noise must be >= 0"):
        bias_variance(_poly_factory(1), f, -1, x, x, 5)
    with pytest.raises(ValueError, match="n_sets must be >= 2"):
        bias_variance(_poly_factory(1), f, 0.1, x, x, 1)
    with pytest.raises(ValueError, match="truth must be one of"):
        truth_function("cosine")


# --------------------------------------------------------------------------- x,y files
def test_xy_file_round_trip(tmp_path):
    x, y = make_regression_1d("step", 12, 0.1, random_state=3)
    save_xy_points(tmp_path / "p.csv", x, y)
    x2, y2 = load_xy_points(tmp_path / "p.csv")
    np.testing.assert_array_equal(x, x2)
    np.testing.assert_array_equal(y, y2)
    (tmp_path / "e.csv").write_text("x,y,fitted,test\n1,2,3,0\n# c\n\n2,3,4,1\n")
    np.testing.assert_array_equal(load_xy_points(tmp_path / "e.csv")[1], [2, 3])
    (tmp_path / "bad.csv").write_text("x,y\n1,2\n1,nan\nfoo,3\n")
    with pytest.raises(ValueError, match="2 malformed line"):
        load_xy_points(tmp_path / "bad.csv")
    (tmp_path / "h.csv").write_text("a,b,c\n1,2,3\n")  # two columns of three, none named x and y
    with pytest.raises(ValueError, match=r"3 column\(s\) \(a, b, c\); this lab reads 2 \(x, y\)"):
        load_xy_points(tmp_path / "h.csv")
    with pytest.raises(ValueError, match="at most 3"):
        (tmp_path / "big.csv").write_text("x,y\n" + "1,2\n" * 5)
        load_xy_points(tmp_path / "big.csv", max_points=3)


def _joined(pieces) -> bytes:
    return "".join(pieces).encode()


_PIECES = ["x", "y", ",", "\n", "1", "-2.5", "nan", "inf", "1e400", "#", " ", "x,y\n", "\ufeff", "\r\n"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.lists(st.sampled_from(_PIECES) | st.text(max_size=4), max_size=40).map(_joined),
                 st.binary(max_size=200)))
def test_xy_loader_fuzz(content):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "f.csv"
        path.write_bytes(content)
        try:
            x, y = load_xy_points(path)
        except ValueError as exc:
            assert 0 < len(str(exc)) <= 1000
        else:
            assert x.shape == (len(y), 1) and np.all(np.isfinite(x)) and np.all(np.isfinite(y))
