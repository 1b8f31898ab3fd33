"""Gaussian-mixture EM (smlengine.mixture) versus scikit-learn, timed in one process.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_mixture.py
Case: K = 5, full covariances, 100,000 points in 2-D, both started from the same weights, means
and covariances with tol = 0. Time per iteration = (time of a long fit − time of a short fit)
divided by the extra iterations, so the one-off set-up of either library does not count.
Target: ours <= scikit-learn's.
"""

import warnings

import numpy as np
import pytest

from _bench_table import best_time, record
from smlengine.datasets import make_gaussian_mixture
from smlengine.mixture import GaussianMixture

sk_mixture = pytest.importorskip("sklearn.mixture")

_ROWS = []


def _table(row):
    _ROWS.append(row)
    print()
    print(f"{'case':48s} {'ours':>10s} {'reference':>10s} {'ratio':>6s} {'target':>8s}")
    for name, ours, ref, target in _ROWS:
        print(f"{name:48s} {ours * 1e3:8.2f}ms {ref * 1e3:8.2f}ms {ours / ref:6.2f} {target:>8s}")


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    means = rng.uniform(-8, 8, size=(5, 2))
    covs = []
    for _ in range(5):
        A = rng.normal(size=(2, 2))
        covs.append(A @ A.T + 0.3 * np.eye(2))
    X, _ = make_gaussian_mixture(100_000, means, np.array(covs), random_state=1)
    start = GaussianMixture(5, init="random", max_iter=0, random_state=3).fit(X)
    return X, start.weights_, start.means_, start.covariances_


def _time(fit, repeats=3):
    return best_time(fit, repeats)[0]


def _per_iteration(make, short=3, long=23):
    return (_time(lambda: make(long)) - _time(lambda: make(short))) / (long - short)


@pytest.mark.benchmark
@pytest.mark.parametrize("threads", [None, 1])
def test_bench_em_full_k5_100k_per_iteration(problem, threads):
    X, w0, mu0, cov0 = problem

    def ours(iters):
        return GaussianMixture(5, init=mu0, weights_init=w0, covariances_init=cov0, tol=0, max_iter=iters).fit(X)

    def ref(iters):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tol=0 never converges
            return sk_mixture.GaussianMixture(5, covariance_type="full", tol=0, max_iter=iters, weights_init=w0,
                                              means_init=mu0, precisions_init=np.linalg.inv(cov0)).fit(X)

    def measure():
        return _per_iteration(ours), _per_iteration(ref)

    if threads is None:
        t_us, t_ref = measure()
        label = "EM K=5 full, 100k x 2-D, per iteration"
    else:
        threadpoolctl = pytest.importorskip("threadpoolctl")
        with threadpoolctl.threadpool_limits(threads):  # as the app runs it: single-threaded BLAS
            t_us, t_ref = measure()
        label = "EM K=5 full, 100k x 2-D, per iteration, 1 thread"
    _table((label, t_us, t_ref, "<= 1.0"))
    record("GaussianMixture (EM)", label.replace("EM ", ""), t_us, t_ref,
           "sklearn GaussianMixture(5, covariance_type='full')")
    np.testing.assert_allclose(ours(5).means_, ref(5).means_, rtol=1e-6)  # the same work is timed
    assert t_us <= t_ref
