"""SMO SVM versus scikit-learn's SVC (libsvm), timed in one process.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_svm.py
Target: our fit time <= libsvm's (ratio <= 1). Times are the best of a few repeats (the machine
may be shared); "no shrink" is our solver with shrinking=False, for reference.
"""

import time

import numpy as np
import pytest

from smlengine.svm import SVM

sklearn_datasets = pytest.importorskip("sklearn.datasets")
sklearn_svm = pytest.importorskip("sklearn.svm")

CASES = [
    ("moons", 1000, "rbf"),
    ("moons", 3000, "rbf"),
    ("moons", 10000, "rbf"),
    ("blobs", 3000, "linear"),
]
_ROWS = []


def _data(kind, n):
    if kind == "moons":
        return sklearn_datasets.make_moons(n_samples=n, noise=0.25, random_state=0)
    return sklearn_datasets.make_blobs(n_samples=n, centers=2, cluster_std=2.0, random_state=0)


def _best_time(fit, repeats):
    best, model = np.inf, None
    for _ in range(repeats):
        t = time.perf_counter()
        model = fit()
        best = min(best, time.perf_counter() - t)
    return best, model


@pytest.mark.benchmark
@pytest.mark.parametrize("kind, n, kernel", CASES)
def test_bench_fit(kind, n, kernel):
    X, y = _data(kind, n)
    params = {"C": 1.0, "kernel": kernel, "gamma": 2.0} if kernel == "rbf" else {"C": 1.0, "kernel": kernel}
    repeats = 5 if n <= 3000 else 3
    t_sk, ref = _best_time(lambda: sklearn_svm.SVC(tol=1e-3, **params).fit(X, y), repeats)
    t_us, ours = _best_time(lambda: SVM(tol=1e-3, **params).fit(X, y), repeats)
    t_ns, plain = _best_time(lambda: SVM(tol=1e-3, shrinking=False, **params).fit(X, y), repeats)
    agree = float(np.mean(ours.predict(X) == ref.predict(X)))
    row = (
        f"{kind} N={n} {kernel}",
        t_us,
        t_sk,
        t_us / t_sk,
        t_ns,
        ours.n_iter_,
        int(ref.n_iter_[0]),
        ours.support_.size,
        ref.support_.size,
        agree,
    )
    _ROWS.append(row)
    print()
    print(
        f"{'case':24s} {'ours s':>8s} {'libsvm s':>9s} {'ratio':>6s} {'no shrink s':>11s} {'it ours':>8s} "
        f"{'it libsvm':>9s} {'nSV':>6s} {'nSV ref':>7s} {'agree':>6s}"
    )
    for r in _ROWS:
        print(
            f"{r[0]:24s} {r[1]:8.4f} {r[2]:9.4f} {r[3]:6.2f} {r[4]:11.4f} {r[5]:8d} {r[6]:9d} {r[7]:6d} "
            f"{r[8]:7d} {r[9]:6.3f}"
        )
    assert agree >= 0.99
    assert abs(ours.dual_objective_ - plain.dual_objective_) <= 1e-3 * abs(plain.dual_objective_)


@pytest.mark.benchmark
@pytest.mark.parametrize("n", [3000, 10000])
def test_bench_live_yields(n):
    """Time between yields of a live run (every pair update is a snapshot)."""
    X, y = _data("moons", n)
    gaps = []
    t = time.perf_counter()
    count = 0
    for snap in SVM(C=1.0, gamma=2.0).fit_steps(X, y, snapshot_every=1):
        now = time.perf_counter()
        gaps.append(now - t)
        t = now
        count += 1
    gaps = np.array(gaps) * 1e3
    print(
        f"\nlive N={n}: {count} snapshots, total {gaps.sum():.0f} ms, median {np.median(gaps):.3f} ms, "
        f"p99 {np.percentile(gaps, 99):.3f} ms, max {gaps.max():.2f} ms"
    )
    assert snap.converged
    assert gaps.max() < 50.0
