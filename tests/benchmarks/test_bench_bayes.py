"""The Gaussian Bayes classifier (smlengine.bayes) versus scikit-learn, timed in one process.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_bayes.py
Case: fit then predict_proba on the same points, three classes, for QDA (covariance='full'
against ``QuadraticDiscriminantAnalysis``), LDA ('shared' against
``LinearDiscriminantAnalysis(solver='lsqr')``) and Gaussian naive Bayes ('diagonal' against
``GaussianNB(var_smoothing=0)``), at 10⁵ × 20 (the issue's shape), 10⁵ × 2 and 10⁴ × 50; the
shortest of five runs of each side, the two sides interleaved. Target: ours <= scikit-learn's.
"""

import numpy as np
import pytest

from _bench_table import best_time, record
from smlengine.bayes import GaussianBayesClassifier

da = pytest.importorskip("sklearn.discriminant_analysis")
nb = pytest.importorskip("sklearn.naive_bayes")

SHAPES = [(100_000, 20), (100_000, 2), (10_000, 50)]
REFERENCES = {
    "full": ("QDA", lambda: da.QuadraticDiscriminantAnalysis(), "sklearn QuadraticDiscriminantAnalysis()"),
    "shared": ("LDA", lambda: da.LinearDiscriminantAnalysis(solver="lsqr"),
               "sklearn LinearDiscriminantAnalysis(solver='lsqr')"),
    "diagonal": ("Gaussian naive Bayes", lambda: nb.GaussianNB(var_smoothing=0.0),
                 "sklearn GaussianNB(var_smoothing=0)"),
}
_RATIOS = {}


def _data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    shift = rng.normal(0, 1, (3, d))
    mix = np.stack([np.eye(d) + 0.3 * rng.normal(size=(d, d)) for _ in range(3)])
    X = np.einsum("nij,nj->ni", mix[y], rng.normal(size=(n, d))) + shift[y]
    return X, y


@pytest.mark.benchmark
@pytest.mark.parametrize("shape", SHAPES, ids=[f"{n}x{d}" for n, d in SHAPES])
@pytest.mark.parametrize("covariance", list(REFERENCES))
def test_bench_fit_and_predict_proba(covariance, shape):
    X, y = _data(*shape)
    name, make_ref, ref_name = REFERENCES[covariance]

    def ours():
        return GaussianBayesClassifier(covariance=covariance).fit(X, y).predict_proba(X)

    def ref():
        return make_ref().fit(X, y).predict_proba(X)

    t_us, t_ref = np.inf, np.inf
    for _ in range(5):  # interleaved: a busy moment of the machine falls on both sides alike
        t_us = min(t_us, best_time(ours, 1)[0])
        t_ref = min(t_ref, best_time(ref, 1)[0])
    np.testing.assert_allclose(ours(), ref(), atol=1e-6)  # the same numbers, or the timing means nothing
    n, d = shape
    workload = f"{name}: fit + predict_proba, {n:,} × {d}, 3 classes"
    record(f"GaussianBayesClassifier('{covariance}')", workload, t_us, t_ref, ref_name)
    _RATIOS[(covariance, shape)] = t_us / t_ref
    worst = max(_RATIOS.items(), key=lambda kv: kv[1])
    print(f"\n{workload}: ours {t_us * 1e3:.1f} ms, scikit-learn {t_ref * 1e3:.1f} ms, ratio {t_us / t_ref:.2f} "
          f"(worst so far {worst[1]:.2f} for {worst[0]})")
