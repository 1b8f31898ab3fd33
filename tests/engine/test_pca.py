"""PCA engine: the course's 1/n covariance, solvers, power method snapshots, compression."""

import math

import numpy as np
import pytest
import scipy.linalg

from smlengine.datasets import load_digits
from smlengine.pca import PCA, PCASnapshot, compression_ratio, storage_cost, subspace_angle
from smlengine._pca_linalg import covariance_route, gram_route

DIRECT = ["eigh", "svd"]


@pytest.fixture(scope="module")
def threes():
    images, _ = load_digits(3)
    return images.reshape(len(images), -1)


@pytest.fixture(scope="module")
def exact(threes):
    """numpy's eigh of Σ̂ (1/n), decreasing, sign-fixed: the reference."""
    n = threes.shape[0]
    xc = threes - threes.mean(axis=0)
    w, v = np.linalg.eigh(xc.T @ xc / n)
    w, v = w[::-1], v[:, ::-1].T
    idx = np.argmax(np.abs(v), axis=1)
    v = v * np.sign(v[np.arange(len(v)), idx])[:, None]
    return w, v


def _assert_same_up_to_sign(a, b, atol):
    for ra, rb in zip(a, b):
        s = 1.0 if ra @ rb >= 0 else -1.0
        np.testing.assert_allclose(ra, s * rb, atol=atol)


@pytest.mark.parametrize("method", ["eigh", "svd", "power"])
def test_matches_numpy_eigh_of_covariance(threes, exact, method):
    k = 5
    pca = PCA(n_components=k, method=method, tol=1e-11, random_state=0).fit(threes)
    w, v = exact
    np.testing.assert_allclose(pca.eigenvalues_, w[:k], rtol=1e-9)
    atol = 1e-8 if method == "power" else 1e-9
    np.testing.assert_allclose(pca.components_, v[:k], atol=atol)  # same sign convention
    np.testing.assert_allclose(pca.mean_, threes.mean(axis=0))
    assert pca.n_samples_ == 183 and pca.n_features_ == 64 and pca.n_components_ == k
    if method == "power":
        assert pca.converged_.all() and (pca.n_iter_ > 1).all()


@pytest.mark.parametrize("method", ["eigh", "svd", "power", "randomized"])
def test_matches_scikit_learn(threes, method):
    sk = pytest.importorskip("sklearn.decomposition")
    k = 6
    n = threes.shape[0]
    ref = sk.PCA(n_components=k, svd_solver="full").fit(threes)
    ours = PCA(n_components=k, method=method, random_state=0, n_iter=8).fit(threes)
    tol = 1e-3 if method == "randomized" else 1e-8
    # scikit-learn divides by n - 1, the course by n
    np.testing.assert_allclose(ours.eigenvalues_ * n / (n - 1), ref.explained_variance_, rtol=tol)
    np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=tol)
    _assert_same_up_to_sign(ours.components_, ref.components_, atol=10 * tol)
    _assert_same_up_to_sign(ours.transform(threes).T, ref.transform(threes).T, atol=1e3 * tol)


def test_components_are_orthonormal_and_sign_fixed(threes):
    pca = PCA().fit(threes)
    W = pca.components_
    np.testing.assert_allclose(W @ W.T, np.eye(64), atol=1e-10)
    largest = W[np.arange(64), np.argmax(np.abs(W), axis=1)]
    assert (largest > 0).all()
    assert np.all(np.diff(pca.eigenvalues_) <= 0)


def test_reconstruction_error_identity_equals_direct_error(threes):
    pca = PCA().fit(threes)
    errors = pca.reconstruction_errors()
    assert errors.shape == (65,)
    direct = [pca.reconstruction_error(threes, d) for d in range(65)]
    np.testing.assert_allclose(errors, direct, rtol=1e-9, atol=1e-7)
    n = threes.shape[0]
    assert errors[0] == pytest.approx(n * pca.total_variance_)
    assert errors[3] == pytest.approx(n * pca.eigenvalues_[3:].sum())


def test_reconstruction_errors_with_few_components_use_the_trace(threes):
    full = PCA().fit(threes).reconstruction_errors()
    part = PCA(n_components=7).fit(threes).reconstruction_errors()
    np.testing.assert_allclose(part, full[:8], rtol=1e-9)


def test_all_components_reconstruct_exactly(threes):
    pca = PCA().fit(threes)
    np.testing.assert_allclose(pca.reconstruct(threes, 64), threes, atol=1e-9)
    np.testing.assert_allclose(pca.inverse_transform(pca.transform(threes)), threes, atol=1e-9)
    assert pca.reconstruction_errors()[-1] == 0.0


def test_zero_components_give_the_mean(threes):
    pca = PCA(n_components=3).fit(threes)
    np.testing.assert_allclose(pca.reconstruct(threes[:4], 0), np.tile(pca.mean_, (4, 1)))


def test_storage_cost_by_hand():
    # 100 images of 64 pixels, 5 components: 5*64 + 64 + 100*5 = 884 instead of 6400
    assert storage_cost(100, 64, 5) == 884
    assert compression_ratio(100, 64, 5) == pytest.approx(6400 / 884)
    assert storage_cost(183, 64, 0) == 64
    with pytest.raises(ValueError, match="d must be <= 64"):
        storage_cost(10, 64, 65)


def test_gram_path_equals_covariance_path():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 50)) @ rng.standard_normal((50, 50)) + 3.0
    mean = X.mean(axis=0)
    lam_c, W_c = covariance_route(X, mean, 10)
    lam_g, W_g = gram_route(X, mean, 10)
    np.testing.assert_allclose(lam_g, lam_c, rtol=1e-9)
    _assert_same_up_to_sign(W_g, W_c, atol=1e-8)


def test_gram_route_is_used_when_images_are_fewer_than_pixels():
    rng = np.random.default_rng(2)
    X = rng.random((20, 28 * 28))
    pca = PCA().fit(X)  # n < D: min(n, D) = 20 components, the last with eigenvalue ~0
    ref = PCA(method="svd").fit(X)
    assert pca.components_.shape == (20, 784)
    np.testing.assert_allclose(pca.eigenvalues_[:19], ref.eigenvalues_[:19], rtol=1e-9)
    _assert_same_up_to_sign(pca.components_[:19], ref.components_[:19], atol=1e-8)
    assert pca.eigenvalues_[19] < 1e-12
    np.testing.assert_allclose(pca.components_ @ pca.components_.T, np.eye(20), atol=1e-10)
    np.testing.assert_allclose(pca.reconstruct(X), X, atol=1e-9)


def test_power_method_two_by_two_contracts_at_rate_lambda2_over_lambda1():
    # Σ̂ = diag(4, 1): tan of the angle to e_1 shrinks by exactly λ2/λ1 = 1/4 per step
    X = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 1.0], [0.0, -1.0]]) * math.sqrt(2.0)
    snaps = list(PCA(n_components=1, method="power", random_state=3, tol=1e-12).fit_steps(X))
    iters = [s for s in snaps if s.phase == "iterate"]
    tans = np.array([math.tan(s.angle) for s in [snaps[0], *iters]])
    ratios = tans[1:6] / tans[:5]
    np.testing.assert_allclose(ratios, 0.25, rtol=1e-9)
    assert snaps[-1].rayleigh == pytest.approx(4.0, rel=1e-12)


def test_power_snapshots(threes, exact):
    pca = PCA(n_components=3, method="power", random_state=0, tol=1e-10)
    snaps = list(pca.fit_steps(threes))
    assert all(isinstance(s, PCASnapshot) for s in snaps)
    assert [s.step for s in snaps] == list(range(len(snaps)))
    assert [s.phase for s in snaps if s.phase != "iterate"] == ["init", "deflate"] * 3
    for j in range(3):
        comp = [s for s in snaps if s.component == j and s.phase == "iterate"]
        assert len(comp) == pca.n_iter_[j]
        assert comp[-1].change <= 1e-10 < comp[0].change
        assert comp[-1].angle < 1e-9 < comp[0].angle
        assert comp[-1].rayleigh == pytest.approx(exact[0][j], rel=1e-12)
        assert comp[0].components.shape == (j, 64)
    progress = [s.progress for s in snaps]
    assert all(0.0 <= p <= 1.0 for p in progress) and progress[-1] == 1.0
    assert not snaps[0].vector.flags.writeable and not snaps[-1].components.flags.writeable


@pytest.mark.parametrize("method", ["eigh", "svd", "power", "randomized"])
def test_last_snapshot_equals_fit(threes, method):
    kw = dict(n_components=4, method=method, random_state=5)
    last = list(PCA(**kw).fit_steps(threes))[-1]
    pca = PCA(**kw).fit(threes)
    np.testing.assert_array_equal(last.components, pca.components_)
    np.testing.assert_array_equal(last.eigenvalues, pca.eigenvalues_)
    np.testing.assert_array_equal(last.mean, pca.mean_)
    assert last.total_variance == pca.total_variance_
    assert pca.last_snapshot_.step == last.step
    if method != "power":
        assert last.step == 0 and last.phase == "done"


def test_power_is_deterministic_under_a_seed(threes):
    a = PCA(n_components=2, method="power", random_state=7).fit(threes)
    b = PCA(n_components=2, method="power", random_state=7).fit(threes)
    np.testing.assert_array_equal(a.components_, b.components_)
    np.testing.assert_array_equal(a.n_iter_, b.n_iter_)


def test_power_without_convergence_reports_it(threes):
    pca = PCA(n_components=2, method="power", max_iter=3, random_state=0).fit(threes)
    assert pca.n_iter_.tolist() == [3, 3] and not pca.converged_.any()


def test_power_on_wide_data_uses_the_implicit_operator():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((15, 300)) * np.linspace(3, 1, 300)
    snaps = list(PCA(n_components=2, method="power", random_state=0, tol=1e-9).fit_steps(X))
    ref = PCA(n_components=2).fit(X)
    assert snaps[1].angle is None  # D > 256: the exact vector is not known while iterating
    assert snaps[0].phase == "init" and snaps[0].change is None  # no iteration yet: no change
    _assert_same_up_to_sign(snaps[-1].components, ref.components_, atol=1e-7)


def test_randomized_is_close_to_exact(threes):
    exact = PCA(n_components=5).fit(threes)
    rnd = PCA(n_components=5, method="randomized", random_state=0, n_iter=6).fit(threes)
    assert subspace_angle(rnd.components_, exact.components_) < 1e-3
    np.testing.assert_allclose(rnd.eigenvalues_, exact.eigenvalues_, rtol=1e-4)


def test_subspace_angle_matches_scipy():
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((3, 10)), rng.standard_normal((3, 10))
    assert subspace_angle(A, B) == pytest.approx(scipy.linalg.subspace_angles(A.T, B.T).max(), rel=1e-10)
    M = rng.standard_normal((3, 3))
    assert subspace_angle(A, M @ A) < 1e-12  # same row space, another basis
    e = np.eye(4)
    assert subspace_angle(e[:1], np.array([[1.0, 1e-9, 0, 0]])) == pytest.approx(1e-9, rel=1e-6)
    assert subspace_angle(e[:1], e[1:2]) == pytest.approx(math.pi / 2)


def test_cumulative_explained_variance(threes):
    pca = PCA().fit(threes)
    cum = pca.cumulative_explained_variance()
    assert cum[-1] == pytest.approx(1.0) and np.all(np.diff(cum) >= 0)


@pytest.mark.parametrize(
    "X, kw, exc, match",
    [
        (np.ones((1, 4)), {}, ValueError, "at least 2 images"),
        (np.tile([1.0, 2.0, 3.0], (5, 1)), {}, ValueError, "zero variance"),
        (np.array([[1.0, np.nan], [2.0, 3.0]]), {}, ValueError, "NaN"),
        (np.eye(3), {"n_components": 4}, ValueError, "n_components must be <= min"),
        (np.eye(3), {"n_components": 0}, ValueError, r"n_components must be an int >= 1 or None; got 0"),
        (np.eye(3), {"method": "qr"}, ValueError, "method must be one of"),
        (np.eye(3), {"max_iter": 0}, ValueError, r"max_iter must be an int in \[1, 1e6\]; got 0"),
        (np.eye(3), {"tol": -1.0}, ValueError, r"tol must be a float in \[0, 1\]; got -1"),
        (np.zeros((3, 2, 2)), {}, ValueError, "flatten the images"),
        (np.eye(3), {"n_components": 1.5}, TypeError, "n_components must be"),
    ],
)
def test_bad_input(X, kw, exc, match):
    with pytest.raises(exc, match=match):
        PCA(**kw).fit(X)


def test_use_before_fit_and_wrong_width(threes):
    with pytest.raises(ValueError, match="not fitted"):
        PCA().transform(threes)
    pca = PCA(n_components=3).fit(threes)
    with pytest.raises(ValueError, match="fitted with 64"):
        pca.transform(np.ones((2, 10)))
    with pytest.raises(ValueError, match="d must be <= 3"):
        pca.reconstruct(threes, 4)
    with pytest.raises(ValueError, match="4 columns"):
        pca.inverse_transform(np.ones((2, 4)))


# ----------------------------------------------------------------------------- absurd parameters


@pytest.mark.parametrize(
    "kw, exc, match",
    [
        ({"method": "randomized", "n_iter": 10**9}, ValueError,
         r"n_iter must be an int in \[0, 1000\]; got 1000000000"),
        ({"method": "randomized", "n_iter": -1}, ValueError, r"n_iter must be an int in \[0, 1000\]; got -1"),
        ({"method": "randomized", "n_iter": 2.5}, TypeError, "n_iter must be an int"),
        ({"method": "randomized", "n_oversamples": 10**12}, ValueError,
         r"n_oversamples must be an int in \[0, 10000\]"),
        ({"method": "power", "max_iter": 10**9}, ValueError, r"max_iter must be an int in \[1, 1e6\]"),
        ({"method": "power", "max_iter": 2**63}, ValueError,
         r"max_iter must be an int in \[1, 1e6\]; got 9223372036854775808"),
        ({"tol": math.nan}, ValueError, r"tol must be a float in \[0, 1\]; got nan"),
        ({"tol": math.inf}, ValueError, r"tol must be a float in \[0, 1\]; got inf"),
        ({"tol": 1e308}, ValueError, r"tol must be a float in \[0, 1\]"),
        ({"n_components": 2**63}, ValueError, "n_components must be <= min"),
        ({"n_components": -1}, ValueError, r"n_components must be an int >= 1 or None"),
        ({"n_components": True}, TypeError, r"n_components must be"),
        ({"random_state": -1}, ValueError, "random_state must be"),
        ({"random_state": "seed"}, TypeError, "random_state must be"),
    ],
)
def test_absurd_parameters_are_refused_before_any_work(threes, kw, exc, match, monkeypatch):
    """Each bad value is named with its range before the data is even looked at."""
    import smlengine.pca as pca_module

    def no_work(*args, **kwargs):
        raise AssertionError("work started before the parameters were checked")

    import smlengine._pca_linalg as linalg_module

    for name in ("covariance_matrix", "gram_matrix", "_total_variance", "svd_route", "randomized_route"):
        for module in (pca_module, linalg_module):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, no_work)
    with pytest.raises(exc, match=match) as info:
        PCA(**kw).fit(threes)
    assert len(str(info.value)) < 120


@pytest.mark.parametrize("value", [0, -1, math.nan, math.inf, -math.inf, 1e308, 2**63])
@pytest.mark.parametrize("name", ["n_components", "tol", "max_iter", "n_oversamples", "n_iter"])
def test_every_numeric_parameter_gives_a_clean_error_or_a_finite_result(threes, name, value):
    methods = {"tol": "power", "max_iter": "power", "n_oversamples": "randomized", "n_iter": "randomized"}
    method = methods.get(name, "eigh")
    kw = {"method": method, "random_state": 0, name: value}
    if name != "n_components":
        kw["n_components"] = 2
    try:
        pca = PCA(**kw).fit(threes)
    except (ValueError, TypeError) as exc:
        assert name in str(exc) and len(str(exc)) < 120
        return
    assert np.all(np.isfinite(pca.components_)) and np.all(np.isfinite(pca.eigenvalues_))


# ----------------------------------------------------------------------------- extreme data


@pytest.mark.parametrize("method", ["eigh", "svd", "power", "randomized"])
@pytest.mark.parametrize("scale, words", [(1e200, "squares overflow"), (1e-320, "underflows"),
                                          (1e-160, "underflows"), (1e308, "sum overflows")])
def test_extreme_values_are_refused_with_a_message(method, scale, words):
    X = np.random.default_rng(0).random((30, 20)) * scale
    with pytest.raises(ValueError, match=words) as info:
        PCA(n_components=3, method=method, random_state=0).fit(X)
    assert "rescale" in str(info.value) and len(str(info.value)) < 160


@pytest.mark.parametrize("scale", [1e150, 1e-140])
def test_large_and_small_but_representable_scales_are_fitted(threes, scale):
    ref = PCA(n_components=4).fit(threes)
    pca = PCA(n_components=4).fit(threes * scale)
    np.testing.assert_allclose(pca.eigenvalues_ / scale**2, ref.eigenvalues_, rtol=1e-9)
    np.testing.assert_allclose(pca.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-9)


# ----------------------------------------------------------------------------- the cheaper side


@pytest.mark.parametrize("n, D, route", [(183, 64, "covariance"), (70_000, 784, "covariance"),
                                         (3, 512 * 512, "gram"), (20, 96 * 96, "gram"), (500, 400, "covariance")])
def test_route_is_the_cheaper_side(n, D, route):
    from smlengine._pca_linalg import choose_route

    assert choose_route(n, D, min(n, D)) == route


def test_few_large_images_use_the_gram_matrix_in_small_memory():
    """Three 512 × 512 images: the 3 × 3 Gram matrix, never a 262,144² covariance, and the
    rank-deficient last direction (3 centred images span 2 dimensions) completed without a
    D × D basis."""
    X = np.random.default_rng(5).random((3, 512 * 512))
    pca = PCA().fit(X)
    assert pca.route_ == "gram" and pca.components_.shape == (3, 512 * 512)
    ref = PCA(method="svd").fit(X)
    np.testing.assert_allclose(pca.eigenvalues_[:2], ref.eigenvalues_[:2], rtol=1e-9)
    _assert_same_up_to_sign(pca.components_[:2], ref.components_[:2], atol=1e-9)
    np.testing.assert_allclose(pca.components_ @ pca.components_.T, np.eye(3), atol=1e-10)
    assert pca.eigenvalues_[2] < 1e-12 * pca.eigenvalues_[0]


def test_covariance_and_gram_routes_agree_with_scikit_learn_default():
    sk = pytest.importorskip("sklearn.decomposition")
    rng = np.random.default_rng(6)
    # scikit-learn's default picks covariance_eigh for the tall case and a randomized SVD for
    # the wide one, so the exact full SVD is the reference there
    for shape, route, solver in (((400, 30), "covariance", "auto"), ((25, 600), "gram", "full")):
        X = rng.standard_normal(shape) @ np.diag(np.linspace(3, 0.5, shape[1])) + 7.0
        k = 10
        ours = PCA(n_components=k).fit(X)
        ref = sk.PCA(n_components=k, svd_solver=solver).fit(X)
        n = shape[0]
        assert ours.route_ == route
        np.testing.assert_allclose(ours.eigenvalues_ * n / (n - 1), ref.explained_variance_, rtol=1e-8)
        np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-8)
        _assert_same_up_to_sign(ours.components_, ref.components_, atol=1e-8)


def test_blocks_give_the_same_covariance_and_gram(monkeypatch):
    """Many small blocks (each a rank-k update on centred rows or columns) give the centred
    products X_cᵀX_c/n and X_cX_cᵀ, also for data far from the origin."""
    import smlengine._pca_linalg as pca_module

    X = np.random.default_rng(7).random((53, 37)) + 1e6
    Xc = X - X.mean(axis=0)
    for elements in (1 << 21, 100, 1):
        monkeypatch.setattr(pca_module, "BLOCK_ELEMENTS", elements)
        mean = X.mean(axis=0)
        np.testing.assert_allclose(pca_module.covariance_matrix(X, mean), Xc.T @ Xc / 53, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(pca_module.gram_matrix(X, mean), Xc @ Xc.T, rtol=1e-9, atol=1e-12)


def test_uncentred_product_is_used_only_when_little_cancels(monkeypatch):
    """Large data near the origin: XᵀX/n − μ̂μ̂ᵀ (one product of X itself); far from the origin
    (tr(XᵀX/n) / tr Σ̂ > 10⁴) the centred blocks, which keep the digits the subtraction would lose."""
    import smlengine._pca_linalg as pca_module

    monkeypatch.setattr(pca_module, "BLOCK_ELEMENTS", 64)  # 53 × 37 is then many blocks
    rng = np.random.default_rng(8)
    calls = []
    real = pca_module.rank_k_update
    monkeypatch.setattr(pca_module, "rank_k_update", lambda C, B, outer=False: calls.append(1) or real(C, B, outer))
    for offset, blocked in ((0.5, False), (1e3, True), (1e8, True)):
        calls.clear()
        X = rng.random((53, 37)) + offset
        Xc = X - X.mean(axis=0)
        C = pca_module.covariance_matrix(X, X.mean(axis=0))
        assert bool(calls) == blocked, offset
        np.testing.assert_allclose(C, Xc.T @ Xc / 53, rtol=1e-11, atol=1e-13 * np.abs(Xc.T @ Xc / 53).max())


def test_heldout_residuals_are_those_of_models_fitted_without_the_image():
    """Each row's residuals come from the PCA of the other folds (checked against an SVD of
    those rows), for every d; held out, the 3s' residuals are larger than in-sample ones."""
    from smlengine.datasets import load_digits
    from smlengine.pca import heldout_residuals

    X = np.random.default_rng(3).normal(size=(23, 6)) @ np.diag([5, 3, 2, 1, 0.5, 0.1])
    R = heldout_residuals(X, max_d=6, n_folds=4, random_state=1)
    assert R.shape == (23, 7)
    order = np.random.default_rng(1).permutation(23)
    for f in range(4):
        test = order[f::4]
        train = np.setdiff1d(np.arange(23), test)
        mu = X[train].mean(axis=0)
        _u, _s, Vt = np.linalg.svd(X[train] - mu, full_matrices=False)
        Z = X[test] - mu
        for d in range(7):
            expected = np.linalg.norm(Z - Z @ Vt[:d].T @ Vt[:d], axis=1)
            np.testing.assert_allclose(R[test, d], expected, rtol=1e-9, atol=1e-6)  # √ of a difference of squares
    threes, _ = load_digits(3)
    X3 = threes.reshape(len(threes), -1)
    model = PCA(n_components=5).fit(X3)
    inside = np.linalg.norm(X3 - model.reconstruct(X3, 5), axis=1)
    held = heldout_residuals(X3, max_d=5)[:, 5]
    assert np.percentile(held, 99) > np.percentile(inside, 99) and held.mean() > 1.03 * inside.mean()
    with pytest.raises(ValueError, match="at least 3"):
        heldout_residuals(X[:2])
