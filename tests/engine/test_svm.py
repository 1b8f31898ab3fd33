"""SMO soft-margin SVM: scikit-learn agreement, KKT, snapshots, hand-checked hard margin."""

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import smlengine._smo as smo_module
import smlengine._smo_cache as cache_module
from smlengine.kernels import make_kernel
from smlengine.svm import SVM, SVMSnapshot


def _moons(n, noise, seed):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    lab = rng.integers(0, 2, n)
    X = np.column_stack([np.cos(t) + lab, np.sin(t) * (1 - 2 * lab) + 0.5 * lab])
    return X + rng.normal(scale=noise, size=X.shape), lab


def _blobs(n, sep, seed):
    rng = np.random.default_rng(seed)
    lab = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 2)) + sep * np.column_stack([lab, lab])
    return X, lab


def _dual_objective(dual_coef, sv, kernel):
    K = kernel(sv, sv)
    return np.abs(dual_coef).sum() - 0.5 * dual_coef @ K @ dual_coef


def _kkt_gap(model, X, y_pm):
    """m - M recomputed from scratch with a full Gram matrix."""
    k = model._kernel_func()
    a, C = model.alpha_, model.C
    F = y_pm - k(X, X) @ (a * y_pm)  # -y * grad
    up = np.where(y_pm > 0, a < C, a > 0)
    low = np.where(y_pm > 0, a > 0, a < C)
    return F[up].max() - F[low].min()


@pytest.fixture(params=["numpy", "compiled"])
def linear_path(request, monkeypatch):
    """Run a test on the numpy path and on the compiled linear pair updates (any n)."""
    if request.param == "compiled":
        _compiled_or_skip()
        monkeypatch.setattr(smo_module, "_COMPILED_MIN_N", 1)
    else:
        monkeypatch.setattr(smo_module, "_USE_COMPILED", False)
    return request.param


CASES = [
    # kernel, params, data, C
    ("linear", {}, ("blobs", 6.0), 1.0),  # separable
    ("linear", {}, ("blobs", 1.5), 1.0),  # noisy
    ("poly", {"degree": 3, "coef0": 1.0}, ("moons", 0.1), 1.0),
    ("poly", {"degree": 2, "coef0": 1.0}, ("moons", 0.3), 0.5),
    ("rbf", {"gamma": 2.0}, ("moons", 0.05), 10.0),  # separable
    ("rbf", {"gamma": 2.0}, ("moons", 0.3), 1.0),  # noisy
    ("rbf", {"gamma": 0.5}, ("blobs", 1.5), 100.0),
]


# the linear cases on both paths (numpy, compiled pair updates)
PATH_CASES = [(*case, path) for case in CASES
              for path in (("numpy", "compiled") if case[0] == "linear" else ("numpy",))]


@pytest.mark.parametrize("kernel, params, data, C, linear_path", PATH_CASES, indirect=["linear_path"])
@pytest.mark.parametrize("seed", [0, 1])
def test_agrees_with_sklearn(kernel, params, data, C, seed, linear_path):
    svm_mod = pytest.importorskip("sklearn.svm")
    kind, scale = data
    X, y = (_moons if kind == "moons" else _blobs)(200, scale, seed)
    ours = SVM(C=C, kernel=kernel, **params).fit(X, y)
    sk_params = dict(params)
    if kernel == "poly":
        sk_params["gamma"] = 1.0  # sklearn: (gamma <x, y> + coef0)^degree
    ref = svm_mod.SVC(C=C, kernel=kernel, tol=1e-3, **sk_params).fit(X, y)

    # predictions on a dense grid
    lo, hi = X.min(axis=0) - 0.5, X.max(axis=0) + 0.5
    g0, g1 = np.meshgrid(np.linspace(lo[0], hi[0], 100), np.linspace(lo[1], hi[1], 100))
    grid = np.column_stack([g0.ravel(), g1.ravel()])
    assert np.mean(ours.predict(grid) == ref.predict(grid)) >= 0.99

    # dual objectives
    kern = make_kernel(kernel, **params)
    ref_dual = _dual_objective(ref.dual_coef_[0], ref.support_vectors_, kern)
    assert abs(ours.dual_objective_ - ref_dual) <= 1e-3 * abs(ref_dual)
    ours_dual = _dual_objective(ours.dual_coef_, ours.support_vectors_, kern)
    assert ours.dual_objective_ == pytest.approx(ours_dual, rel=1e-9)

    # support sets nearly coincide (they may differ by points with alpha ~ 0 at the margin)
    a, b = set(ours.support_.tolist()), set(ref.support_.tolist())
    assert len(a ^ b) <= max(2, 0.05 * len(a | b))

    # KKT conditions at the end
    y_pm = np.where(y == ours.classes_[1], 1.0, -1.0)
    assert ours.last_snapshot_.converged
    assert _kkt_gap(ours, X, y_pm) <= ours.tol * (1 + 1e-6)
    assert ours.kkt_violation() == pytest.approx(_kkt_gap(ours, X, y_pm), abs=1e-9)
    assert np.all((ours.alpha_ >= 0) & (ours.alpha_ <= C))
    assert abs(ours.alpha_ @ y_pm) <= 1e-9 * C * len(y)


def test_hard_margin_four_points():
    # Negatives at x1 = 0, positives at x1 = 2: the maximum-margin hyperplane is x1 = 1,
    # i.e. w = (1, 0), b = -1, margin 2 / ||w|| = 2, dual optimum 1/2 ||w||^2 = 1/2.
    X = np.array([[0.0, 0.0], [0.0, 2.0], [2.0, 0.0], [2.0, 2.0]])
    y = np.array(["a", "a", "b", "b"])
    m = SVM(C=1e6, kernel="linear", tol=1e-8).fit(X, y)
    w = m.dual_coef_ @ m.support_vectors_
    np.testing.assert_allclose(w, [1.0, 0.0], atol=1e-7)
    assert m.intercept_ == pytest.approx(-1.0, abs=1e-7)
    assert m.dual_objective_ == pytest.approx(0.5, abs=1e-7)
    np.testing.assert_allclose(m.decision_function(X), [-1, -1, 1, 1], atol=1e-7)
    np.testing.assert_array_equal(m.predict([[0.9, 5.0], [1.1, -3.0]]), ["a", "b"])
    np.testing.assert_array_equal(m.classes_, ["a", "b"])


def test_hard_margin_unique_multipliers():
    # Two points only: w = 2 (x+ - x-) / ||x+ - x-||^2, alpha = 2 / ||x+ - x-||^2 for both.
    X = np.array([[1.0, 1.0], [3.0, 2.0]])
    m = SVM(C=1e6, kernel="linear", tol=1e-9).fit(X, [-1, 1])
    np.testing.assert_allclose(m.alpha_, [0.4, 0.4], rtol=1e-9)
    np.testing.assert_allclose(m.dual_coef_ @ m.support_vectors_, [0.8, 0.4], rtol=1e-9)
    assert m.intercept_ == pytest.approx(-2.2)  # w.x+ + b = 2.4 + 0.8 + b = 1


def test_last_snapshot_equals_fit_and_snapshots():
    X, y = _moons(150, 0.3, 2)
    live = SVM(C=1.0, gamma=2.0)
    snaps = list(live.fit_steps(X, y, snapshot_every=1))
    fitted = SVM(C=1.0, gamma=2.0).fit(X, y)
    last = snaps[-1]
    assert isinstance(last, SVMSnapshot) and last.converged
    np.testing.assert_array_equal(last.alpha, fitted.alpha_)
    assert last.b == fitted.intercept_ and last.dual_objective == fitted.dual_objective_
    assert last.n_support == fitted.support_.size and fitted.n_iter_ == last.step
    assert fitted.last_snapshot_.dual_objective == last.dual_objective
    np.testing.assert_array_equal(live.alpha_, fitted.alpha_)
    # every pair update is a snapshot; SMO is an ascent method on the dual
    assert snaps[0].step == 0 and snaps[0].pair is None and np.all(snaps[0].alpha == 0)
    assert [s.step for s in snaps] == list(range(len(snaps)))
    duals = np.array([s.dual_objective for s in snaps])
    assert np.all(np.diff(duals) >= -1e-12)
    assert all(s.pair is not None and s.pair[0] != s.pair[1] for s in snaps[1:])
    assert not last.alpha.flags.writeable
    assert last.kkt_gap <= 1e-3 < snaps[1].kkt_gap
    grid = np.random.default_rng(0).uniform(-1.5, 2.5, size=(50, 2))
    np.testing.assert_allclose(live.snapshot_decision_function(last, grid), fitted.decision_function(grid), atol=1e-12)
    np.testing.assert_array_equal(live.snapshot_decision_function(snaps[0], grid), snaps[0].b)
    err = np.mean(fitted.predict(X) != y)
    assert last.train_error == pytest.approx(err)
    # coarser live runs end in the same state
    coarse = list(SVM(C=1.0, gamma=2.0).fit_steps(X, y, snapshot_every=25))
    np.testing.assert_array_equal(coarse[-1].alpha, last.alpha)
    assert len(coarse) < len(snaps)


def test_snapshot_alpha_is_a_copy():
    X, y = _moons(80, 0.3, 3)
    snaps = list(SVM().fit_steps(X, y, snapshot_every=1))
    assert not np.array_equal(snaps[1].alpha, snaps[-1].alpha)


def test_one_vs_rest():
    rng = np.random.default_rng(0)
    centers = np.array([[0, 0], [4, 0], [0, 4]])
    lab = rng.integers(0, 3, 240)
    X = centers[lab] + rng.normal(size=(240, 2))
    names = np.array(["r", "g", "b"])[lab]
    m = SVM(C=1.0, kernel="rbf", gamma=0.5).fit(X, names)
    np.testing.assert_array_equal(m.classes_, ["b", "g", "r"])
    f = m.decision_function(X)
    assert f.shape == (240, 3)
    assert np.mean(m.predict(X) == names) > 0.9
    assert len(m.estimators_) == 3 and m.alpha_.shape == (3, 240)
    steps = list(SVM(C=1.0, gamma=0.5).fit_steps(X, names, snapshot_every=50))
    assert {s.class_index for s in steps} == {0, 1, 2}
    assert [s.step for s in steps] == list(range(len(steps)))
    sklearn_mc = pytest.importorskip("sklearn.multiclass")
    from sklearn.svm import SVC

    ref = sklearn_mc.OneVsRestClassifier(SVC(C=1.0, gamma=0.5)).fit(X, names)
    assert np.mean(ref.predict(X) == m.predict(X)) >= 0.99


def test_max_iter_stops_early():
    X, y = _moons(200, 0.3, 4)
    m = SVM(max_iter=5).fit(X, y)
    assert m.n_iter_ == 5 and not m.last_snapshot_.converged


def test_live_runs_yield_after_every_pair_update():
    """A live run yields after each SMO pair update (its time per step is measured in
    tests/benchmarks/test_bench_svm.py), so pause, cancel and redraw never wait on a long
    stretch of updates."""
    X, y = _moons(3000, 0.25, 0)
    gen = SVM(C=1.0, gamma=2.0).fit_steps(X, y, snapshot_every=1)
    snaps = [next(gen) for _ in range(200)]
    assert [s.step for s in snaps] == list(range(200))
    assert snaps[0].pair is None and all(s.pair is not None for s in snaps[1:])
    # one pair per step: at most two multipliers change between consecutive snapshots
    for a, b in zip(snaps[1:], snaps[2:]):
        assert np.count_nonzero(a.alpha != b.alpha) <= 2


def test_bad_input():
    X, y = _moons(20, 0.3, 0)
    for kw, msg in [
        ({"C": -1}, r"C must be a float in \(0, 1e100\]; got -1"),
        ({"C": 0.0}, r"C must be a float in \(0, 1e100\]; got 0"),
        ({"gamma": 0.0}, r"gamma must be a float in \(0, 1e6\]"),
        ({"gamma": -2.0}, r"gamma must be a float in \(0, 1e6\]"),
        ({"kernel": "sigmoid"}, "kernel must be one of"),
        ({"tol": 0}, r"tol must be a float in \(0, 1\]"),
    ]:
        with pytest.raises(ValueError, match=msg):
            SVM(**kw).fit(X, y)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        SVM().fit(Xn, y)
    Xn[0, 0] = -np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        SVM().fit(Xn, y)
    with pytest.raises(ValueError, match="two classes"):
        SVM().fit(X, np.ones(20))
    with pytest.raises(ValueError, match="different numbers of samples"):
        SVM().fit(X, y[:5])
    with pytest.raises(ValueError, match="2-D"):
        SVM().fit(X[:, 0], y)
    m = SVM().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="not fitted"):
        SVM().predict(X)


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
@pytest.mark.parametrize("scale", [1e200, 1e308])
def test_huge_finite_values_are_refused_not_nan(kernel, scale):
    # +-1e200 made b and the dual objective NaN without a word (x^2 overflows).
    X, y = _moons(20, 0.3, 0)
    X = np.sign(X) * scale
    with pytest.raises(ValueError, match=r"rescale the data \(\|x\| <= 1e\+100\)"):
        SVM(kernel=kernel).fit(X, y)


def test_kernel_overflow_is_refused():
    X, y = _moons(20, 0.3, 0)
    with pytest.raises(ValueError, match="poly kernel takes values up to inf"):
        SVM(kernel="poly", degree=20).fit(X * 1e20, y)
    with pytest.raises(ValueError, match="linear kernel takes values up to"):
        SVM(kernel="linear").fit(X * 1e100 / np.abs(X).max(), y)


def test_large_but_safe_values_stay_finite():
    X, y = _moons(30, 0.2, 1)
    m = SVM(kernel="rbf").fit(X * 1e99 / np.abs(X).max(), y)
    assert np.isfinite(m.intercept_) and np.all(np.isfinite(m.alpha_)) and np.isfinite(m.dual_objective_)


def test_predict_refuses_huge_values():
    X, y = _moons(20, 0.3, 0)
    m = SVM().fit(X, y)
    with pytest.raises(ValueError, match="rescale"):
        m.predict(np.full((2, 2), 1e300))


# ---------------------------------------------------------------- shrinking, cache, snapshots
SHRINK_CASES = [
    ("linear", {}, ("blobs", 1.5), 1.0, 600),
    ("rbf", {"gamma": 2.0}, ("moons", 0.3), 10.0, 600),
    ("poly", {"degree": 3, "coef0": 1.0}, ("moons", 0.3), 5.0, 400),
]


def _data(data, n, seed=0):
    kind, scale = data
    return (_moons if kind == "moons" else _blobs)(n, scale, seed)


@pytest.mark.parametrize("every", [None, 50])
@pytest.mark.parametrize("kernel, params, data, C, n", SHRINK_CASES)
def test_shrinking_on_and_off_give_the_same_solution(kernel, params, data, C, n, every, monkeypatch):
    if every is not None:  # shrink often, so that reconstruction and re-shrinking are exercised
        monkeypatch.setattr(smo_module, "_SHRINK_EVERY", every)
    X, y = _data(data, n)
    on = SVM(C=C, kernel=kernel, **params).fit(X, y)
    off = SVM(C=C, kernel=kernel, shrinking=False, **params).fit(X, y)
    assert on._shrink_stats["shrinks"] >= 1 and on._shrink_stats["reconstructions"] >= 1
    assert off._shrink_stats["shrinks"] == 0 and off._shrink_stats["reconstructions"] == 0
    y_pm = np.where(y == on.classes_[1], 1.0, -1.0)
    for m in (on, off):  # both meet the stopping rule on all points, from a fresh gradient
        assert m.last_snapshot_.converged
        assert _kkt_gap(m, X, y_pm) <= m.tol * (1 + 1e-6)
        assert m.kkt_violation() == pytest.approx(_kkt_gap(m, X, y_pm), abs=1e-9)
        assert abs(m.alpha_ @ y_pm) <= 1e-9 * C * n
    kern = make_kernel(kernel, **params)
    exact = _dual_objective(on.dual_coef_, on.support_vectors_, kern)
    assert on.dual_objective_ == pytest.approx(exact, rel=1e-9)  # b and dual from the rebuilt gradient
    assert abs(on.dual_objective_ - off.dual_objective_) <= 1e-3 * abs(off.dual_objective_)
    assert abs(on.intercept_ - off.intercept_) <= 2 * on.tol
    assert np.mean(on.predict(X) == off.predict(X)) >= 0.99
    f_on, f_off = on.decision_function(X), off.decision_function(X)
    assert np.max(np.abs(f_on - f_off)) <= 0.05


@pytest.mark.parametrize("kernel, rows", [("rbf", 3), ("rbf", 20), ("linear", 6)])
def test_kernel_cache_never_exceeds_its_budget(kernel, rows, monkeypatch):
    monkeypatch.setattr(smo_module, "_USE_COMPILED", False)  # the compiled linear path caches no rows
    monkeypatch.setattr(smo_module, "_SHRINK_EVERY", 100)  # compact rows of the active set too
    X, y = _moons(500, 0.3, 1)
    row_bytes = 8 * 500 * (1 if kernel == "rbf" else 2)  # rbf: a-row; else K row and a-row
    # what a fit sets aside for its O(n) vectors and reconstruction blocks (64 kB below 2 MB)
    reserved = 2**16 + 8 * 500 * cache_module.WORK_VECTORS
    budget = reserved + (rows + 0.5) * row_bytes / 0.75  # room for `rows` full rows
    m = SVM(C=10.0, kernel=kernel, gamma=2.0, cache_size=budget / 2**20).fit(X, y)
    cache = m._cache
    assert m._shrink_stats["shrinks"] >= 1
    assert cache.reserved == reserved and cache.capacity == rows  # 3/4 of what is left
    assert cache.max_rows_used <= cache.capacity
    assert cache.buf_bytes + m._shrink_stats["compact_bytes"] <= budget - reserved
    assert cache.buf is None  # released after training
    assert cache.rows_computed > cache.capacity  # columns were dropped and evaluated again
    ref = SVM(C=10.0, kernel=kernel, gamma=2.0).fit(X, y)  # 200 MB: every column fits
    if kernel == "linear":  # but linear keeps at most LINEAR_MAX_ROWS
        assert ref._cache.capacity == min(500, cache_module.LINEAR_MAX_ROWS)
    else:
        assert ref._cache.rows_computed <= ref._cache.capacity
    y_pm = np.where(y == m.classes_[1], 1.0, -1.0)
    assert _kkt_gap(m, X, y_pm) <= m.tol * (1 + 1e-6)
    # the same optimum up to the stopping rule: cached and evaluated columns round differently
    # in the last bit (linear: K[:, i] - K[:, j] or X (x_i - x_j)), so the iterates may part
    assert m.dual_objective_ == pytest.approx(ref.dual_objective_, rel=1e-5)


@pytest.mark.parametrize(
    "kernel, params, data, every",
    [("rbf", {"gamma": 2.0}, ("moons", 0.3), 0), ("rbf", {"gamma": 2.0}, ("moons", 0.3), 1),
     ("linear", {}, ("blobs", 2.5), 0)],
)
def test_whole_fit_stays_within_cache_size(kernel, params, data, every, monkeypatch):
    """cache_size bounds the fit's peak traced memory, not only the kernel rows: the O(n)
    vectors, the reconstruction blocks and the multipliers saved at shrinking steps count."""
    import tracemalloc
    monkeypatch.setattr(smo_module, "_SHRINK_EVERY", 100)  # many shrinking steps, merged records
    X, y = _data(data, 3000)
    monkeypatch.setattr(smo_module, "_USE_COMPILED", False)  # the compiled linear path caches no rows
    SVM(C=1.0, kernel=kernel, **params).fit(X[:200], y[:200])  # imports, first-call set-up
    budget_mb = 3.0
    model = SVM(C=1.0, kernel=kernel, cache_size=budget_mb, **params)
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        last = None
        for last in model.fit_steps(X, y, snapshot_every=every):
            pass  # snapshots are dropped, as the caller decides what to keep
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert last.converged
    assert model._shrink_stats["shrinks"] >= 3 and model._shrink_stats["reconstructions"] >= 1
    assert model._cache.buf_bytes > 0.5 * 2**20  # the rows had room, and used it
    assert peak - base <= budget_mb * 2**20


def test_kernel_cache_keeps_two_columns_at_least():
    X, y = _moons(300, 0.3, 2)
    m = SVM(gamma=2.0, cache_size=1e-6).fit(X, y)
    assert m._cache.capacity == 2 and m._cache.max_rows_used == 2
    assert m.last_snapshot_.converged


@pytest.mark.parametrize("kernel, params, data, C, n", SHRINK_CASES)
def test_fit_with_and_without_snapshots_gives_identical_alphas(kernel, params, data, C, n, monkeypatch):
    monkeypatch.setattr(smo_module, "_SHRINK_EVERY", 100)
    X, y = _data(data, n)
    fitted = SVM(C=C, kernel=kernel, **params).fit(X, y)
    assert fitted._shrink_stats["shrinks"] >= 1
    for every in (1, 7):
        live = SVM(C=C, kernel=kernel, **params)
        snaps = list(live.fit_steps(X, y, snapshot_every=every))
        last = snaps[-1]
        np.testing.assert_array_equal(last.alpha, fitted.alpha_)
        assert last.b == fitted.intercept_ and last.dual_objective == fitted.dual_objective_
        assert live.n_iter_ == fitted.n_iter_ and last.kkt_gap == fitted.kkt_gap_
        assert live._shrink_stats == fitted._shrink_stats
        assert [s.step for s in snaps] == list(range(len(snaps)))
    # snapshots taken while points were shrunk report the exact state (display gradient)
    y_pm = np.where(y == fitted.classes_[1], 1.0, -1.0)
    kern = make_kernel(kernel, **params)
    K = kern(X, X)
    for s in (snaps[len(snaps) // 2], snaps[-2]):
        a = np.asarray(s.alpha)
        F = y_pm - K @ (a * y_pm)
        dual = a.sum() - 0.5 * (a * y_pm) @ K @ (a * y_pm)
        assert s.dual_objective == pytest.approx(dual, rel=1e-9, abs=1e-9)
        up = np.where(y_pm > 0, a < C, a > 0)
        low = np.where(y_pm > 0, a > 0, a < C)
        assert s.kkt_gap == pytest.approx(F[up].max() - F[low].min(), abs=1e-9)
        f = y_pm - F + s.b
        assert s.train_error == pytest.approx(np.mean(np.where(f > 0, 1.0, -1.0) != y_pm))


def test_linear_kernel_with_many_features_on_both_update_paths(monkeypatch):
    """20 features, overlapping classes: the gradient update is the cached columns' difference
    while many points are active and the stacked product while few are (both ran); the
    solution is libsvm's, a live run takes the fit's steps, the gap holds on all points."""
    svm_mod = pytest.importorskip("sklearn.svm")
    monkeypatch.setattr(smo_module, "_USE_COMPILED", False)
    monkeypatch.setattr(smo_module, "_SHRINK_EVERY", 100)
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 400)
    X = rng.normal(size=(400, 20)) + np.linspace(0.5, 1.5, 20)
    X[:, 0] += 3.0 * y
    fitted = SVM(C=1.0, kernel="linear").fit(X, y)
    stats = fitted._shrink_stats
    assert 0 < stats["stacked_updates"] < fitted.n_iter_ and stats["reconstructions"] >= 1
    snaps = list(SVM(C=1.0, kernel="linear").fit_steps(X, y, snapshot_every=50))
    np.testing.assert_array_equal(snaps[-1].alpha, fitted.alpha_)
    y_pm = np.where(y == 1, 1.0, -1.0)
    assert fitted.last_snapshot_.converged and _kkt_gap(fitted, X, y_pm) <= fitted.tol * (1 + 1e-6)
    ref = svm_mod.SVC(C=1.0, kernel="linear").fit(X, y)
    kern = make_kernel("linear")
    ref_dual = _dual_objective(ref.dual_coef_[0], ref.support_vectors_, kern)
    assert fitted.dual_objective_ == pytest.approx(_dual_objective(fitted.dual_coef_, fitted.support_vectors_, kern),
                                                   rel=1e-9)
    assert abs(fitted.dual_objective_ - ref_dual) <= 1e-3 * abs(ref_dual)
    assert np.mean(fitted.predict(X) == ref.predict(X)) >= 0.99


def test_max_iter_while_shrunk_reports_the_exact_state(monkeypatch):
    monkeypatch.setattr(smo_module, "_SHRINK_EVERY", 50)
    X, y = _moons(400, 0.3, 5)
    m = SVM(C=10.0, gamma=2.0, max_iter=180).fit(X, y)
    assert m.n_iter_ == 180 and not m.last_snapshot_.converged and m._shrink_stats["shrinks"] >= 1
    y_pm = np.where(y == m.classes_[1], 1.0, -1.0)
    assert m.kkt_violation() == pytest.approx(_kkt_gap(m, X, y_pm), abs=1e-9)
    exact = _dual_objective(m.dual_coef_, m.support_vectors_, make_kernel("rbf", gamma=2.0))
    assert m.dual_objective_ == pytest.approx(exact, rel=1e-9)


def test_one_vs_rest_with_shrinking(monkeypatch):
    monkeypatch.setattr(smo_module, "_SHRINK_EVERY", 50)
    rng = np.random.default_rng(3)
    centers = np.array([[0, 0], [2.5, 0], [0, 2.5]])
    lab = rng.integers(0, 3, 450)
    X = centers[lab] + rng.normal(size=(450, 2))
    on = SVM(C=1.0, gamma=0.5).fit(X, lab)
    off = SVM(C=1.0, gamma=0.5, shrinking=False).fit(X, lab)
    assert sum(e._shrink_stats["shrinks"] for e in on.estimators_) >= 1
    np.testing.assert_allclose(on.dual_objective_, off.dual_objective_, rtol=1e-3)
    assert np.mean(on.predict(X) == off.predict(X)) >= 0.99
    for k, e in enumerate(on.estimators_):
        assert _kkt_gap(e, X, np.where(lab == k, 1.0, -1.0)) <= e.tol * (1 + 1e-6)


def test_shrinking_must_be_bool():
    X, y = _moons(20, 0.3, 0)
    with pytest.raises(TypeError, match="shrinking must be a bool"):
        SVM(shrinking="yes").fit(X, y)


NUMERIC_PARAMS = ["C", "gamma", "degree", "coef0", "tol", "max_iter", "cache_size"]


@pytest.mark.parametrize("name", NUMERIC_PARAMS)
@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf"), float("-inf"), 1e308, 2**63])
def test_absurd_parameters_are_refused_before_any_work(name, value):
    """Each numeric parameter at 0, -1, NaN, +-inf, 1e308 and 2**63: a ValueError / TypeError
    naming it and its range before the kernel cache exists, or, where the value is in range
    (coef0 = 0 and -1, C = 2**63), a finite machine."""
    X, y = _moons(40, 0.3, 0)
    model = SVM(kernel="poly" if name in ("degree", "coef0") else "rbf", **{name: value})
    try:
        model.fit(X, y)
    except (ValueError, TypeError) as exc:
        assert str(exc).startswith(f"{name} must be ") and "; got " in str(exc)
        assert not hasattr(model, "_cache")
    else:
        assert (name, value) in (("coef0", 0), ("coef0", -1), ("C", 2**63))
        assert np.all(np.isfinite(model.alpha_)) and np.isfinite(model.intercept_)


def test_gamma_1e308_names_its_range():
    X, y = _moons(40, 0.3, 0)
    with pytest.raises(ValueError, match=r"^gamma must be a float in \(0, 1e6\]; got 1e308$"):
        SVM(gamma=1e308).fit(X, y)


def test_sklearn_clone_cross_val_score_and_grid_search_accept_the_svm():
    model_selection = pytest.importorskip("sklearn.model_selection")
    base = pytest.importorskip("sklearn.base")
    X, y = _moons(120, 0.2, 1)
    m = base.clone(SVM(C=3.0, gamma=2.0))
    assert m.get_params(deep=True)["C"] == 3.0 and not hasattr(m, "alpha_")
    scores = model_selection.cross_val_score(SVM(gamma=2.0), X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores >= 0.8)
    grid = model_selection.GridSearchCV(SVM(), {"C": [0.1, 10.0], "gamma": [0.5, 2.0]}, cv=3).fit(X, y)
    assert grid.best_score_ >= 0.8 and grid.best_estimator_.score(X, y) >= 0.8


@pytest.mark.parametrize("kernel, scale", [("poly", 10.0), ("linear", 100.0), ("rbf", 10.0)])
def test_duplicates_and_large_kernel_values_give_no_nan(kernel, scale, linear_path, monkeypatch):
    # a_ij = k_ii + k_jj - 2 k_ij is 0 for duplicated points; with kernel values ~1e4 a tau
    # added afterwards is absorbed, and 0 / 0 in the selection made NaN (a RuntimeWarning).
    monkeypatch.setattr(smo_module, "_SHRINK_EVERY", 100)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(180, 4)) * scale
    X[90:] = X[:90]
    y = rng.integers(0, 2, 180)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = SVM(C=0.1, kernel=kernel, degree=2, gamma=0.1, max_iter=3000).fit(X, y)
    assert np.all(np.isfinite(m.alpha_)) and np.isfinite(m.intercept_) and np.isfinite(m.dual_objective_)
    assert (m._shrink_stats["compiled_updates"] > 0) == (kernel == "linear" and linear_path == "compiled")
    y_pm = np.where(y == m.classes_[1], 1.0, -1.0)
    gap = _kkt_gap(m, X, y_pm)
    assert m.kkt_violation() == pytest.approx(gap, rel=1e-6, abs=1e-6)
    assert m.last_snapshot_.converged == (gap <= m.tol * (1 + 1e-6))


# ---------------------------------------------------------------- scale of the data
def _separable(n=200, seed=0):
    rng = np.random.default_rng(seed)
    lab = rng.integers(0, 2, n)
    return rng.normal(size=(n, 2)) + 5.0 * np.column_stack([lab, lab]) - 2.5, lab


@pytest.mark.parametrize("scale", [1e-6, 1e3, 1e6, 1e9])
def test_linear_hard_margin_at_any_scale_agrees_with_svc(scale, linear_path):
    # |x| ~ 1e6 makes k ~ 1e12 and the multipliers ~ 1e-13: they used to be rounded to 0
    # (a bound test absolute in C), and the machine learned nothing.
    svm_mod = pytest.importorskip("sklearn.svm")
    X, y = _separable()
    Xs = X * scale
    ours = SVM(C=1.0, kernel="linear").fit(Xs, y)
    ref = svm_mod.SVC(C=1.0, kernel="linear", tol=1e-3).fit(Xs, y)
    assert ours.last_snapshot_.converged
    np.testing.assert_array_equal(ours.predict(Xs), ref.predict(Xs))
    a, b = set(ours.support_.tolist()), set(ref.support_.tolist())
    if scale >= 1e3:  # hard margin: three support vectors, well defined
        assert a == b and len(a) == 3
    else:  # C = 1 is tiny for k ~ 1e-12: alpha = C on almost all points, a few ~0 at the margin
        assert len(a ^ b) <= 2 and len(a) > 150
    # f = w.x + b is free of the scale (the margin points have |f| = 1)
    np.testing.assert_allclose(ours.decision_function(Xs), ref.decision_function(Xs), atol=1e-2)
    if scale >= 1e3:  # hard margin: alpha = alpha(unscaled) / scale^2
        base = SVM(C=1.0, kernel="linear").fit(X, y)
        np.testing.assert_allclose(ours.alpha_ * scale**2, base.alpha_, rtol=1e-3, atol=1e-9)


# rbf: gamma / s^2 stays within gamma's range (0, 1e6]
RESCALED = [("linear", s) for s in (1e-9, 1e-6, 1e3, 1e6, 1e9)] + [("rbf", s) for s in (1e-3, 1e3, 1e6, 1e9)]


@pytest.mark.parametrize("kernel, scale", RESCALED)
def test_rescaled_problem_gives_the_same_machine(kernel, scale, linear_path):
    # X -> s X with C -> C / s^2 (linear) or gamma -> gamma / s^2 (rbf) is the same problem:
    # alpha s^2 (linear) or alpha (rbf) and f are unchanged. The solver's thresholds (the
    # curvature floor tau, the bounds) must follow the kernel's scale, as tol on F does.
    svm_mod = pytest.importorskip("sklearn.svm")
    X, y = _blobs(200, 1.5, 0)
    X = X - 0.75
    Xs = X * scale
    if kernel == "linear":
        params, scaled, factor = {"C": 1.0}, {"C": 1.0 / scale**2}, scale**2
    else:
        params, scaled, factor = {"C": 1.0, "gamma": 0.5}, {"C": 1.0, "gamma": 0.5 / scale**2}, 1.0
    base = SVM(kernel=kernel, **params).fit(X, y)
    ours = SVM(kernel=kernel, **scaled).fit(Xs, y)
    ref = svm_mod.SVC(kernel=kernel, tol=1e-3, **scaled).fit(Xs, y)
    assert ours.last_snapshot_.converged
    assert abs(ours.n_iter_ - base.n_iter_) <= 0.1 * base.n_iter_
    np.testing.assert_allclose(ours.alpha_ * factor, base.alpha_, atol=1e-3)
    np.testing.assert_allclose(ours.decision_function(Xs), base.decision_function(X), atol=5e-3)
    np.testing.assert_array_equal(ours.predict(Xs), ref.predict(Xs))
    np.testing.assert_allclose(ours.decision_function(Xs), ref.decision_function(Xs), atol=1e-2)
    a, b = set(ours.support_.tolist()), set(ref.support_.tolist())
    assert len(a ^ b) <= 2


@pytest.mark.parametrize("kernel, params", [("linear", {}), ("poly", {"degree": 2, "coef0": 1.0})])
def test_cached_rows_hold_the_column_and_inverse_root_curvature(kernel, params):
    """Non-rbf cache rows: K[:, o] and r_t = a_t^(-1/2), a_t = K_tt + K_oo - 2 K_to (tau if <= 0)."""
    X, _ = _moons(200, 0.3, 7)
    X = np.vstack([X, X[:1]])  # a duplicate of point 0: a = 0 there, replaced by tau
    cache = cache_module.KernelCache(X, kernel, 1.0, params.get("degree", 3), params.get("coef0", 1.0), 2**20)
    K = make_kernel(kernel, **params)(X, X)
    for o in (0, 57):
        rows = np.array(cache.column(o))
        np.testing.assert_allclose(rows[0], K[:, o], rtol=1e-12, atol=1e-12)
        a = np.diag(K) + K[o, o] - 2 * K[:, o]
        expect = 1 / np.sqrt(np.where(a <= 0, cache.tau, a))
        keep = np.abs(a) > 1e-9  # elsewhere the round-off of a decides between a and tau
        np.testing.assert_allclose(rows[1][keep], expect[keep], rtol=1e-6)
        assert rows[1][o] >= cache.tau**-0.5 * (1 - 1e-12)  # a_oo = 0: the curvature floor
    assert np.array(cache.column(0))[1][-1] >= cache.tau**-0.5 * (1 - 1e-12)  # the duplicate



# ---------------------------------------------------------------- compiled linear pair updates
def _compiled_or_skip():
    pytest.importorskip("numba")
    from smlengine import _smo_compiled

    if _smo_compiled.linear_pairs() is None:
        pytest.fail(f"numba is installed but the compiled pair updates are not: {_smo_compiled.COMPILED.error}")


@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("data, C, seed",
                         [(("blobs", 1.5), 1.0, 0), (("blobs", 0.8), 10.0, 1), (("moons", 0.3), 1.0, 2)])
def test_compiled_linear_pairs_reach_the_numpy_paths_solution(data, C, seed, shrinking, monkeypatch):
    _compiled_or_skip()
    monkeypatch.setattr(smo_module, "_COMPILED_MIN_N", 100)
    monkeypatch.setattr(smo_module, "_SHRINK_EVERY", 150)  # shrink and reconstruct several times
    X, y = _data(data, 900, seed)
    fast = SVM(C=C, kernel="linear", shrinking=shrinking).fit(X, y)
    monkeypatch.setattr(smo_module, "_USE_COMPILED", False)
    slow = SVM(C=C, kernel="linear", shrinking=shrinking).fit(X, y)
    assert fast._shrink_stats["compiled_updates"] >= 0.9 * fast.n_iter_
    assert slow._shrink_stats["compiled_updates"] == 0
    y_pm = np.where(y == fast.classes_[1], 1.0, -1.0)
    for m in (fast, slow):
        assert m.last_snapshot_.converged
        assert _kkt_gap(m, X, y_pm) <= m.tol * (1 + 1e-6)
        assert abs(m.alpha_ @ y_pm) <= 1e-9 * C * len(y)
    exact = _dual_objective(fast.dual_coef_, fast.support_vectors_, make_kernel("linear"))
    assert fast.dual_objective_ == pytest.approx(exact, rel=1e-9)
    assert abs(fast.dual_objective_ - slow.dual_objective_) <= 1e-4 * abs(slow.dual_objective_)
    assert abs(fast.intercept_ - slow.intercept_) <= 2 * fast.tol
    assert len(set(fast.support_.tolist()) ^ set(slow.support_.tolist())) <= 0.01 * slow.support_.size
    np.testing.assert_allclose(fast.decision_function(X), slow.decision_function(X), atol=0.02)
    svm_mod = pytest.importorskip("sklearn.svm")
    ref = svm_mod.SVC(kernel="linear", C=C, tol=1e-3).fit(X, y)
    assert np.mean(fast.predict(X) == ref.predict(X)) >= 0.995


def test_compiled_linear_pairs_take_the_numpy_paths_steps(monkeypatch):
    """Run by run (two or three updates between snapshots, the rest in numpy), the pairs and
    multipliers are those of the numpy path: the same selection, clipping and gradient update."""
    _compiled_or_skip()
    monkeypatch.setattr(smo_module, "_COMPILED_MIN_N", 100)
    X, y = _blobs(700, 1.5, 3)
    runs = {}
    for use in (True, False):
        monkeypatch.setattr(smo_module, "_USE_COMPILED", use)
        m = SVM(C=1.0, kernel="linear")
        runs[use] = list(zip(range(40), m.fit_steps(X, y, snapshot_every=3)))
        assert (m._shrink_stats["compiled_updates"] > 0) == use
    for (_, a), (_, b) in zip(runs[True], runs[False]):
        assert a.pair == b.pair and a.step == b.step
        np.testing.assert_allclose(a.alpha, b.alpha, atol=1e-9)
        assert a.dual_objective == pytest.approx(b.dual_objective, rel=1e-9)


@pytest.mark.parametrize("shrink_every", [100, 1000])
def test_compiled_fit_and_live_runs_take_the_same_iterates(shrink_every, monkeypatch):
    _compiled_or_skip()
    monkeypatch.setattr(smo_module, "_COMPILED_MIN_N", 100)
    monkeypatch.setattr(smo_module, "_SHRINK_EVERY", shrink_every)
    X, y = _blobs(1200, 1.0, 5)
    fitted = SVM(C=1.0, kernel="linear").fit(X, y)
    assert fitted._shrink_stats["compiled_updates"] == fitted.n_iter_
    for every in (1, 7, 250):
        live = SVM(C=1.0, kernel="linear")
        snaps = list(live.fit_steps(X, y, snapshot_every=every))
        assert live._shrink_stats == fitted._shrink_stats
        np.testing.assert_array_equal(snaps[-1].alpha, fitted.alpha_)
        assert snaps[-1].converged and not any(s.converged for s in snaps[:-1])
        assert snaps[-1].b == fitted.intercept_ and live.n_iter_ == fitted.n_iter_
        assert [s.step for s in snaps] == list(range(len(snaps)))
        assert len(snaps) == 2 + (fitted.n_iter_ - 1) // every  # step 0, one per `every`, the last


def test_compiled_linear_pairs_stop_at_max_iter_and_at_snapshots(monkeypatch):
    _compiled_or_skip()
    monkeypatch.setattr(smo_module, "_COMPILED_MIN_N", 100)
    X, y = _blobs(800, 1.0, 4)
    m = SVM(C=1.0, kernel="linear", max_iter=257).fit(X, y)
    assert m.n_iter_ == 257 and not m.last_snapshot_.converged
    assert m._shrink_stats["compiled_updates"] > 200
    y_pm = np.where(y == m.classes_[1], 1.0, -1.0)
    assert m.kkt_violation() == pytest.approx(_kkt_gap(m, X, y_pm), abs=1e-9)
    snaps = list(SVM(C=1.0, kernel="linear", max_iter=257).fit_steps(X, y, snapshot_every=10))
    assert [s.step for s in snaps] == list(range(len(snaps)))
    assert len(snaps) == 1 + 26  # step 0, one per 10 updates, and the last (7 updates)


def test_without_numba_the_numpy_path_is_used(monkeypatch):
    from smlengine import _smo_compiled
    from smlengine._compiled import CompiledCode

    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    monkeypatch.setattr(_smo_compiled, "COMPILED", CompiledCode(_smo_compiled.COMPILED.build))
    monkeypatch.setattr(smo_module, "_COMPILED_MIN_N", 100)
    X, y = _blobs(500, 1.5, 0)
    m = SVM(C=1.0, kernel="linear").fit(X, y)
    assert m.last_snapshot_.converged and m._shrink_stats["compiled_updates"] == 0
    assert re.match(r"(Import|ModuleNotFound)Error: .*numba", _smo_compiled.COMPILED.error)


def test_small_problems_and_live_single_steps_never_load_the_compiled_code(monkeypatch):
    from smlengine import _smo_compiled

    asked = []
    monkeypatch.setattr(_smo_compiled, "linear_pairs", lambda: asked.append(1))
    monkeypatch.setattr(_smo_compiled, "loaded", lambda: False)  # not loaded in this process yet
    X, y = _blobs(smo_module._COMPILED_MIN_N - 1, 1.5, 0)
    SVM(C=1.0, kernel="linear").fit(X, y)
    X, y = _blobs(smo_module._COMPILED_MIN_N, 1.5, 0)
    for _ in zip(range(50), SVM(C=1.0, kernel="linear").fit_steps(X, y, snapshot_every=1)):
        pass
    assert asked == []
    SVM(C=1.0, kernel="linear").fit(X, y)
    assert asked == [1]


def test_once_loaded_the_compiled_code_serves_small_problems_too():
    _compiled_or_skip()
    X, y = _blobs(300, 1.5, 0)
    m = SVM(C=1.0, kernel="linear").fit(X, y)
    assert m._shrink_stats["compiled_updates"] > 0.5 * m.n_iter_
    assert SVM(C=1.0, kernel="rbf").fit(X, y)._shrink_stats["compiled_updates"] == 0
    assert SVM(C=1.0, kernel="linear").fit(np.asfortranarray(np.hstack([X, X])), y).last_snapshot_.converged


def test_a_second_process_loads_the_compiled_code_from_numbas_cache(tmp_path):
    """Compiled once, loaded after: no process but the first compiles (2 s against 0.6 s)."""
    _compiled_or_skip()
    code = "from smlengine import _smo_compiled as c; assert c.linear_pairs() is not None, c.COMPILED.error"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "NUMBA_DEBUG_CACHE": "1"}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
            for _ in range(2)]
    assert "data saved" in runs[0].stdout + runs[0].stderr
    second = runs[1].stdout + runs[1].stderr
    assert "data loaded" in second and "data saved" not in second, second


# ---------------------------------------------------------------- the readable reference SMO
REFERENCE_CASES = [
    ("linear", {}, ("blobs", 1.0), 1.0, "numpy"),
    ("linear", {}, ("blobs", 1.0), 1.0, "compiled"),
    ("rbf", {"gamma": 2.0}, ("moons", 0.3), 1.0, "numpy"),
    ("poly", {"degree": 2, "coef0": 1.0}, ("moons", 0.3), 0.5, "numpy"),
]


@pytest.mark.parametrize("kernel, params, data, C, linear_path", REFERENCE_CASES, indirect=["linear_path"])
def test_optimised_smo_takes_the_reference_steps(kernel, params, data, C, linear_path):
    """The plain-loop SMO of the course's equations and the solver SVM runs (shrinking off:
    shrinking is the one heuristic the reference leaves out) take the same step from every
    state of a run: the same pair and multipliers, unless two candidates tie in exact
    arithmetic (after an unclipped step F_i = F_j, so the next argmax may meet two equal F,
    and which one rounding makes larger depends on how the gradient was summed). Both solve
    the problem to the same optimum."""
    from smlengine._smo_reference import smo_reference

    X, y = _data(data, 60, seed=3)
    y_pm = np.where(y == np.unique(y)[1], 1.0, -1.0)
    K = make_kernel(kernel, **params)(X, X)
    tau = 1e-12 * (1.0 if kernel == "rbf" else float(np.diag(K).max()))
    model = SVM(C=C, kernel=kernel, shrinking=False, **params)
    snaps = list(model.fit_steps(X, y, snapshot_every=1))
    ties = 0
    for before, s in zip(snaps, snaps[1:]):
        ((i, j, a_ref),) = smo_reference(K, y_pm, C, tol=1e-3, tau=tau, alpha=before.alpha, max_pairs=1)
        if s.pair == (i, j):
            np.testing.assert_allclose(s.alpha, a_ref, rtol=1e-9, atol=1e-9)
            continue
        ties += 1
        F = y_pm - K @ (before.alpha * y_pm)
        i2, j2 = s.pair
        assert F[i2] == pytest.approx(F[i], abs=1e-9)
        if i2 == i:
            assert (F[i] - F[j2]) ** 2 / (K[i, i] + K[j2, j2] - 2 * K[i, j2]) == pytest.approx(
                (F[i] - F[j]) ** 2 / (K[i, i] + K[j, j] - 2 * K[i, j]), rel=1e-9)
    assert len(snaps) > 40 and ties <= 0.2 * len(snaps)
    assert snaps[-1].converged and not list(smo_reference(K, y_pm, C, tol=1e-3, tau=tau, alpha=snaps[-1].alpha))
    a = np.asarray(list(smo_reference(K, y_pm, C, tol=1e-3, tau=tau))[-1][2])
    dual = a.sum() - 0.5 * (a * y_pm) @ K @ (a * y_pm)
    assert model.dual_objective_ == pytest.approx(dual, rel=1e-3)
