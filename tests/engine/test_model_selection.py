"""Cross-validation folds, grid search snapshots and the select/retrain/test protocol."""

import numpy as np
import pytest

from smlengine.linear import LogisticRegression
from smlengine.model_selection import (
    GridSearchSnapshot,
    cross_val_error,
    grid_search_steps,
    kfold_indices,
    select_and_test,
)
from smlengine.svm import SVM


def _moons(n=120, seed=0):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    lab = rng.integers(0, 2, n)
    X = np.column_stack([np.cos(t) + lab, np.sin(t) * (1 - 2 * lab) + 0.5 * lab])
    return X + rng.normal(scale=0.2, size=X.shape), lab


@pytest.mark.parametrize("n, k", [(10, 2), (23, 5), (100, 10), (7, 7)])
@pytest.mark.parametrize("shuffle", [True, False])
def test_folds_partition(n, k, shuffle):
    folds = kfold_indices(n, k, shuffle=shuffle, random_state=3)
    assert len(folds) == k
    vals = np.concatenate([v for _, v in folds])
    np.testing.assert_array_equal(np.sort(vals), np.arange(n))
    sizes = [v.size for _, v in folds]
    assert max(sizes) - min(sizes) <= 1
    for tr, va in folds:
        assert np.intersect1d(tr, va).size == 0
        np.testing.assert_array_equal(np.sort(np.concatenate([tr, va])), np.arange(n))


def test_folds_reproducible_and_bad_k():
    a = kfold_indices(20, 4, random_state=1)
    b = kfold_indices(20, 4, random_state=1)
    for (ta, va), (tb, vb) in zip(a, b):
        np.testing.assert_array_equal(va, vb)
    with pytest.raises(ValueError, match="k must be an int >= 2; got 1"):
        kfold_indices(10, 1)
    with pytest.raises(ValueError, match="need at least"):
        kfold_indices(3, 5)


def test_cross_val_error():
    X, y = _moons()
    mean, folds = cross_val_error(lambda: SVM(C=1.0, gamma=2.0), X, y, k=4, random_state=0, return_folds=True)
    assert folds.shape == (4,)
    assert mean == pytest.approx(folds.mean())
    assert 0.0 <= mean < 0.2


def test_grid_search_one_snapshot_per_cell():
    X, y = _moons()
    grid = {"C": [0.1, 1.0, 10.0], "gamma": [0.5, 2.0]}
    snaps = list(grid_search_steps(SVM, grid, X, y, k=3))
    assert len(snaps) == 6 and all(isinstance(s, GridSearchSnapshot) for s in snaps)
    assert [s.step for s in snaps] == list(range(1, 7))
    assert sorted(s.index for s in snaps) == [(i, j) for i in range(3) for j in range(2)]
    # the grid fills in cell by cell
    for s in snaps:
        assert np.count_nonzero(~np.isnan(s.errors)) == s.step
        assert s.fold_errors.shape == (3,)
        assert s.errors[s.index] == s.mean_error
    last = snaps[-1]
    assert last.names == ("C", "gamma")
    assert last.best_error == np.nanmin(last.errors)
    assert last.errors[last.best_index] == last.best_error
    assert last.progress == 1.0


def test_select_and_test_protocol():
    X, y = _moons(300, seed=1)
    Xtr, ytr, Xva, yva, Xte, yte = X[:150], y[:150], X[150:220], y[150:220], X[220:], y[220:]
    grid = {"C": [0.01, 1.0, 100.0], "gamma": [0.1, 2.0]}
    res = select_and_test(SVM, grid, Xtr, ytr, Xte, yte, X_val=Xva, y_val=yva)
    assert res.validation_errors.shape == (3, 2)
    assert res.best_validation_error == res.validation_errors.min()
    assert res.estimator.alpha_.shape == (220,)  # retrained on train + validation
    assert res.test_error == pytest.approx(np.mean(res.estimator.predict(Xte) != yte))
    cv = select_and_test(lambda C: LogisticRegression(C=C), {"C": [0.1, 1.0]}, Xtr, ytr, Xte, yte, k=3)
    assert cv.validation_errors.shape == (2,) and 0 <= cv.test_error <= 1
