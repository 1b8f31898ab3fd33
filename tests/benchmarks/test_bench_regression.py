"""The lasso path versus scikit-learn's ``lasso_path``, timed in one process.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_regression.py
Target: 100 alphas on 10,000 × 100 data (20 informative features) in at most 1.5 × the time
of scikit-learn's ``lasso_path`` (same alphas, same tolerance 1e-4). The table also shows
what each part of the solver costs: the Gram matrix, coordinate descent alone (no exact
sign step), and both coefficient sets' distance to a tightly converged path.
"""

import functools

import numpy as np
import pytest

from _bench_table import best_time, record
from smlengine import regression

sk_linear = pytest.importorskip("sklearn.linear_model")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n, p = 10_000, 100
    X = rng.standard_normal((n, p))
    w = np.zeros(p)
    w[:20] = 2 * rng.standard_normal(20)
    y = X @ w + rng.standard_normal(n)
    return X - X.mean(axis=0), y - y.mean()


def _best(fn, repeats):
    return best_time(fn, repeats)


@pytest.mark.benchmark
def test_bench_lasso_path(data, monkeypatch):
    X, y = data
    ours_fn = lambda: regression.lasso_path(X, y, n_alphas=100)  # noqa: E731
    ref_fn = lambda: sk_linear.lasso_path(X, y, alphas=100)  # noqa: E731
    t_ours, t_ref = np.inf, np.inf
    for _ in range(5):  # interleaved: a busy machine slows both alike
        t, (alphas, coefs) = _best(ours_fn, 1)
        t_ours = min(t_ours, t)
        t, (ref_alphas, ref_coefs, _gaps) = _best(ref_fn, 1)
        t_ref = min(t_ref, t)
    t_gram, _ = _best(lambda: X.T @ X, 5)
    exact = regression.lasso_path(X, y, alphas, tol=1e-12)[1]
    with monkeypatch.context() as m:
        m.setattr(regression, "_sign_step", lambda *a: False)
        t_cd, (_, cd_coefs) = _best(ours_fn, 3)
    with monkeypatch.context() as m:
        m.setattr(regression, "_sign_step", lambda *a, **k: False)
        m.setattr(regression, "_gram_path", functools.partial(regression._gram_path, screening=False))
        t_all, (_, all_coefs) = _best(ours_fn, 3)
    t_res, (_, res_coefs) = _best(lambda: regression.lasso_path(X, y, n_alphas=100, precompute=False), 1)
    print()
    print(f"{'lasso_path 10000 x 100, 100 alphas':40s} {'seconds':>8s} {'ratio':>6s} {'max |w - exact|':>16s}")
    err, cd_err = np.abs(coefs - exact).max(), np.abs(cd_coefs - exact).max()
    print(f"{'ours (Gram, warm, screening, sign step)':40s} {t_ours:8.4f} {t_ours / t_ref:6.2f} {err:16.2e}")
    print(f"{'ours, coordinate descent only':40s} {t_cd:8.4f} {t_cd / t_ref:6.2f} {cd_err:16.2e}")
    print(f"{'ours, coordinate descent, no screening':40s} {t_all:8.4f} {t_all / t_ref:6.2f} "
          f"{np.abs(all_coefs - exact).max():16.2e}")
    print(f"{'ours, residual updates (no Gram)':40s} {t_res:8.4f} {t_res / t_ref:6.2f} "
          f"{np.abs(res_coefs - exact).max():16.2e}")
    print(f"{'scikit-learn lasso_path':40s} {t_ref:8.4f} {1:6.2f} {np.abs(ref_coefs - exact).max():16.2e}")
    print(f"{'of which the Gram matrix XᵀX':40s} {t_gram:8.4f} {t_gram / t_ref:6.2f}")
    record("lasso_path", "10,000 x 100, 100 alphas", t_ours, t_ref, "sklearn lasso_path(X, y, alphas=100)")
    np.testing.assert_allclose(alphas, ref_alphas, rtol=1e-12)
    np.testing.assert_allclose(coefs, ref_coefs, atol=0.05)  # both at tolerance 1e-4
    assert t_ours <= 1.5 * t_ref
