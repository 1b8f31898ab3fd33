"""Trees, AdaBoost and random forests versus scikit-learn, timed in one process.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_trees.py
Targets: AdaBoost (200 stumps) >= 3 x faster than scikit-learn's; DecisionTree(depth 8, gini)
within 2 x; RandomForest(100 trees, depth 8, one thread) within 3 x.
"""

import time

import numpy as np
import pytest

from _bench_table import best_time, record
from smlengine.ensemble import AdaBoost, RandomForest
from smlengine.trees import DecisionTree

sklearn_datasets = pytest.importorskip("sklearn.datasets")
sklearn_tree = pytest.importorskip("sklearn.tree")
sklearn_ensemble = pytest.importorskip("sklearn.ensemble")

_ROWS = []


@pytest.fixture(scope="module")
def data():
    return sklearn_datasets.make_classification(n_samples=5000, n_features=20, n_informative=8, random_state=0)


def _best_time(fit, repeats):
    return best_time(fit, repeats)


def _report(name, t_us, t_sk, acc_us, acc_sk, agree, reference):
    _ROWS.append((name, t_us, t_sk, t_us / t_sk, acc_us, acc_sk, agree))
    engine, _, workload = name.partition(" ")
    record(engine, f"fit {workload}, 5,000 x 20", t_us, t_sk, f"sklearn {reference}")
    print()
    print(f"{'case':34s} {'ours s':>8s} {'sklearn s':>9s} {'ratio':>6s} {'acc ours':>8s} {'acc sk':>7s} {'agree':>6s}")
    for r in _ROWS:
        print(f"{r[0]:34s} {r[1]:8.3f} {r[2]:9.3f} {r[3]:6.2f} {r[4]:8.4f} {r[5]:7.4f} {r[6]:6.3f}")


@pytest.mark.benchmark
@pytest.mark.parametrize("criterion", ["misclassification", "gini"])
def test_bench_adaboost_stumps(data, criterion):
    X, y = data
    t_sk, ref = _best_time(lambda: sklearn_ensemble.AdaBoostClassifier(
        sklearn_tree.DecisionTreeClassifier(max_depth=1), n_estimators=200, random_state=0).fit(X, y), 2)
    t_us, ours = _best_time(lambda: AdaBoost(n_rounds=200, criterion=criterion).fit(X, y), 3)
    agree = float(np.mean(ours.predict(X) == ref.predict(X)))
    _report(f"AdaBoost 200 stumps ({criterion})", t_us, t_sk, ours.score(X, y) if hasattr(ours, "score") else
            float(np.mean(ours.predict(X) == y)), ref.score(X, y), agree,
            "AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=200)")
    if criterion == "gini":
        assert agree >= 0.99


@pytest.mark.benchmark
def test_bench_decision_tree(data):
    X, y = data
    t_sk, ref = _best_time(lambda: sklearn_tree.DecisionTreeClassifier(max_depth=8, random_state=0).fit(X, y), 5)
    t_us, ours = _best_time(lambda: DecisionTree(max_depth=8, criterion="gini").fit(X, y), 5)
    agree = float(np.mean(ours.predict(X) == ref.predict(X)))
    _report("DecisionTree depth 8 (gini)", t_us, t_sk, ours.score(X, y), ref.score(X, y), agree,
            "DecisionTreeClassifier(max_depth=8)")
    assert abs(ours.score(X, y) - ref.score(X, y)) < 0.005


@pytest.mark.benchmark
def test_bench_random_forest(data):
    X, y = data
    t_sk, ref = _best_time(lambda: sklearn_ensemble.RandomForestClassifier(
        n_estimators=100, max_depth=8, n_jobs=1, random_state=0).fit(X, y), 2)
    t_us, ours = _best_time(lambda: RandomForest(n_estimators=100, max_depth=8, random_state=0).fit(X, y), 2)
    agree = float(np.mean(ours.predict(X) == ref.predict(X)))
    _report("RandomForest 100 x depth 8 (1 thread)", t_us, t_sk, ours.score(X, y), ref.score(X, y), agree,
            "RandomForestClassifier(n_estimators=100, max_depth=8, n_jobs=1)")
    assert agree >= 0.95


@pytest.mark.benchmark
def test_bench_live_tree_steps(data):
    """Time between yields of a live tree run with cost curves (one snapshot per split)."""
    X, y = data
    gaps, t = [], time.perf_counter()
    for _ in DecisionTree(max_depth=8, criterion="gini").fit_steps(X, y):
        now = time.perf_counter()
        gaps.append(now - t)
        t = now
    gaps = np.array(gaps) * 1e3
    print(f"\nlive tree 5000x20 depth 8: {gaps.size} snapshots, total {gaps.sum():.0f} ms, "
          f"median {np.median(gaps):.2f} ms, max {gaps.max():.1f} ms")
