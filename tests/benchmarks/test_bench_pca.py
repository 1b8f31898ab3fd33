"""PCA fit versus scikit-learn's default call, the solver race, and the reconstruction slider, in one process.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_pca.py
Reference: what a user writes, ``sklearn.decomposition.PCA(k).fit(X)`` (its default solver
picks covariance_eigh for 70,000 × 784 and for the digits); the full SVD is timed beside it,
labelled. Targets: ours <= 1.0 × scikit-learn's default on a seeded 70,000 × 784 matrix with
50 components and on the 1,797 × 64 digits; three 512 × 512 and twenty 96 × 96 images (the
Gram side) in well under a second; reconstructing 100 digits for a new d takes <= 10 ms.

``test_bench_shapes`` (issue 50): tall, wide and low-rank data, three runs each with both
contenders in turn; the row is the worst run, target <= 0.9 x scikit-learn's default call.
"""

import os
import time

import numpy as np
import pytest
from _bench_table import best_time, record

from smlengine.datasets import load_digits
from smlengine.pca import PCA, subspace_angle

sk_decomposition = pytest.importorskip("sklearn.decomposition")
_ROWS = []


def _best(fn, repeats):
    return best_time(fn, repeats)


def _interleaved(fns, repeats):
    """Best time of each function over ``repeats`` rounds that call them in turn (so a
    neighbour's load on a shared machine falls on both sides alike)."""
    best = [np.inf] * len(fns)
    outs = [None] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            t, outs[i] = best_time(fn, 1)
            best[i] = min(best[i], t)
    return best, outs


def _print_table():
    print()
    print(f"{'case':34s} {'ours s':>9s} {'sk default s':>13s} {'ratio':>6s} {'sk full SVD s':>14s} {'angle':>9s} route")
    for name, ours, default, full, angle, route in _ROWS:
        full_text = f"{full:14.4f}" if full is not None else f"{'-':>14s}"
        print(f"{name:34s} {ours:9.4f} {default:13.4f} {ours / default:5.2f}x {full_text} {angle:9.2e} {route}")


def _compare(name, X, k, repeats, full_repeats):
    (t_us, t_default), (ours, ref) = _interleaved(
        [lambda: PCA(n_components=k).fit(X), lambda: sk_decomposition.PCA(n_components=k).fit(X)], repeats)
    t_full = None
    if full_repeats:
        t_full, _ = _best(lambda: sk_decomposition.PCA(n_components=k, svd_solver="full").fit(X), full_repeats)
    angle = subspace_angle(ours.components_, ref.components_)
    _ROWS.append((name, t_us, t_default, t_full, angle, ours.route_))
    _print_table()
    workload = f"fit {name}"
    record("PCA", workload, t_us, t_default, f"sklearn PCA({k}).fit (default: {ref._fit_svd_solver})")
    if t_full is not None:
        record("PCA", workload, t_us, t_full, f"sklearn PCA({k}, svd_solver='full').fit", note="full SVD, beside")
    n = X.shape[0]
    np.testing.assert_allclose(ours.eigenvalues_ * n / (n - 1), ref.explained_variance_, rtol=1e-6, atol=1e-9)
    return t_us, t_default


@pytest.mark.benchmark
def test_bench_digits():
    images, _ = load_digits()
    X = images.reshape(len(images), -1)
    t_us, t_default = _compare("digits 1797 x 64, k=50", X, 50, 30, 30)
    assert t_us <= 1.0 * t_default


@pytest.mark.benchmark
def test_bench_large():
    rng = np.random.default_rng(0)
    X = rng.random((70_000, 784))
    t_us, t_default = _compare("random 70000 x 784, k=50", X, 50, 3, 1)
    assert t_us <= 1.0 * t_default


@pytest.mark.benchmark
@pytest.mark.parametrize("n, side", [(3, 512), (20, 96)])
def test_bench_few_large_images(n, side):
    """Fewer images than pixels: our Gram side (n × n) against scikit-learn's default call."""
    X = np.random.default_rng(2).random((n, side * side))
    (t_us, t_default), (ours, ref) = _interleaved(
        [lambda: PCA().fit(X), lambda: sk_decomposition.PCA(n_components=n).fit(X)], 5)
    assert ours.route_ == "gram"
    print(f"\n{n} images of {side} x {side}: ours {t_us:.4f} s (gram), sklearn default "
          f"({ref._fit_svd_solver}) {t_default:.4f} s, ratio {t_us / t_default:.2f}")
    record("PCA", f"fit {n} images of {side} x {side} (Gram side)", t_us, t_default,
           f"sklearn PCA({n}).fit (default: {ref._fit_svd_solver})")
    k = n - 1  # the last direction has zero variance: any completion is right
    assert subspace_angle(ours.components_[:k], ref.components_[:k]) < 1e-6


@pytest.mark.benchmark
def test_bench_solver_race():
    """The lab's race on the digits and on 10,000 × 784: time and angle to the exact subspace.

    The large case is image-like: 30 latent factors with decaying scales plus pixel noise
    (a spectrum with a gap after the signal, where sketching and the power method work).
    """
    rng = np.random.default_rng(1)
    images, _ = load_digits()
    latent = rng.standard_normal((10_000, 30)) * np.geomspace(10, 1, 30)
    low_rank = latent @ np.linalg.qr(rng.standard_normal((784, 30)))[0].T + 0.3 * rng.standard_normal((10_000, 784))
    cases = {"digits, k=10": images.reshape(len(images), -1), "low rank + noise 10000 x 784, k=10": low_rank}
    print()
    print(f"{'case':38s} {'method':>10s} {'time s':>8s} {'angle':>9s}")
    for name, X in cases.items():
        exact = PCA(n_components=10, method="svd").fit(X).components_
        for method in ("svd", "eigh", "randomized", "power"):
            t, model = _best(lambda: PCA(n_components=10, method=method, random_state=0, tol=1e-8).fit(X), 1)
            angle = subspace_angle(model.components_, exact)
            print(f"{name:38s} {method:>10s} {t:8.4f} {angle:9.2e}")
            assert angle < 1e-2


@pytest.mark.benchmark
def test_bench_slider():
    images, _ = load_digits(3)
    X = images.reshape(len(images), -1)
    pca = PCA().fit(X)
    batch = X[:100]
    times = []
    for d in range(0, 65):
        t = time.perf_counter()
        pca.reconstruct(batch, d)
        times.append(time.perf_counter() - t)
    times = np.array(times) * 1e3
    print(f"\nslider: reconstruct 100 digits, d = 0..64: median {np.median(times):.3f} ms, max {times.max():.3f} ms")
    assert times.max() <= 10.0


@pytest.mark.benchmark
def test_bench_power_yields():
    """Time between yields of the live power method on the 3s (all 64 components)."""
    images, _ = load_digits(3)
    X = images.reshape(len(images), -1)
    gaps, count = [], 0
    t = time.perf_counter()
    for _ in PCA(method="power", random_state=0, max_iter=300).fit_steps(X):
        now = time.perf_counter()
        gaps.append(now - t)
        t = now
        count += 1
    gaps = np.array(gaps) * 1e3
    print(f"\npower method, 3s, 64 components: {count} snapshots, total {gaps.sum():.0f} ms, "
          f"median {np.median(gaps):.3f} ms, max {gaps.max():.2f} ms")
    assert gaps.max() < 50.0


def _low_rank(n, D, rank, noise, seed):
    """``rank`` latent factors with decaying scales, mixed into D columns, plus pixel noise and
    an offset (the mean is not zero)."""
    rng = np.random.default_rng(seed)
    latent = rng.standard_normal((n, rank)) * np.geomspace(10, 1, rank)
    return latent @ rng.standard_normal((rank, D)) + noise * rng.standard_normal((n, D)) + 3.0


SHAPES = {
    # name: (data, n_components, components compared: the rest spans noise of equal variance)
    "low rank 50000 x 600, rank 40, k=40": (lambda: _low_rank(50_000, 600, 40, 0.1, 0), 40, 40),
    "low rank 40000 x 500, rank 25, k=30": (lambda: _low_rank(40_000, 500, 25, 0.01, 1), 30, 25),
    "tall random 70000 x 784, k=50": (lambda: np.random.default_rng(0).random((70_000, 784)), 50, 10),
    "wide low rank 1500 x 4000, rank 60, k=50": (lambda: _low_rank(1_500, 4_000, 60, 0.1, 2), 50, 10),
}
SHAPE_TARGET = 0.9


@pytest.mark.benchmark
@pytest.mark.parametrize("name", list(SHAPES))
def test_bench_shapes(name):
    make, k, compared = SHAPES[name]
    X = make()
    PCA(n_components=k).fit(X[:2000])  # warm-up: both libraries' first calls load their code
    sk_decomposition.PCA(n_components=k).fit(X[:2000])
    pairs, cpu = [], []
    for _ in range(3):
        c = time.process_time()
        t_us, ours = best_time(lambda: PCA(n_components=k).fit(X), 1)
        c_us, c = time.process_time() - c, time.process_time()
        t_ref, ref = best_time(lambda: sk_decomposition.PCA(n_components=k).fit(X), 1)
        cpu.append(c_us / (time.process_time() - c))
        pairs.append((t_us, t_ref))
    ratios = [a / b for a, b in pairs]
    worst = int(np.argmax(ratios))
    angle = subspace_angle(ours.components_[:compared], ref.components_[:compared])
    load = os.getloadavg()[0]
    note = (f"runs {', '.join(f'{r:.2f}' for r in ratios)}; CPU time {', '.join(f'{r:.2f}' for r in cpu)}; "
            f"load {load:.1f}; ours {ours.route_}, angle {angle:.1e}")
    print(f"\n== {name}: ours {pairs[worst][0]:.3f} s, sklearn ({ref._fit_svd_solver}) {pairs[worst][1]:.3f} s, "
          f"worst ratio {ratios[worst]:.2f} ({note})")
    record("PCA", f"fit {name} (worst of 3 runs)", pairs[worst][0], pairs[worst][1],
           f"sklearn PCA({k}).fit (default: {ref._fit_svd_solver})", note=note)
    assert angle < 1e-5
    assert max(cpu) <= SHAPE_TARGET  # CPU time (all BLAS threads): a shared machine disturbs it less than wall time
