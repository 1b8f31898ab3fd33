"""Decision trees and stumps: hand-checked costs, scikit-learn agreement, brute force, snapshots."""

import itertools

import numpy as np
import pytest

from smlengine.trees import (
    DecisionStump,
    DecisionTree,
    TreeSnapshot,
    best_split,
    cost_curve,
    presort,
    region_impurity,
    split_cost,
)


def _tie_free(n, d, n_classes, seed, informative=3):
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.make_classification(
        n_samples=n, n_features=d, n_informative=min(informative, d), n_redundant=0, n_classes=n_classes,
        n_clusters_per_class=1, flip_y=0.05, random_state=seed,
    )
    return X, y


# ---------------------------------------------------------------- hand-checked misclassification

X1 = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [6.0]])
Y1 = np.array([0, 0, 1, 0, 1, 1])


def test_misclassification_cost_curve_by_hand():
    # t=1.5: right {0,1,0,1,1} -> 2 wrong; t=2.5: right {1,0,1,1} -> 1; t=3.5: 1 + 1;
    # t=4.5: left {0,0,1,0} -> 1; t=5.5: left {0,0,1,0,1} -> 2.
    t, c = cost_curve(X1, Y1, 0)
    np.testing.assert_allclose(t, [1.5, 2.5, 3.5, 4.5, 5.5])
    np.testing.assert_allclose(c, np.array([2, 1, 2, 1, 2]) / 6)
    assert split_cost(X1, Y1, 0, 2.5) == pytest.approx(1 / 6)
    assert split_cost(X1, Y1, 0, 3.0) == pytest.approx(2 / 6)
    assert split_cost(X1, Y1, 0, 0.0) == pytest.approx(3 / 6)  # nothing left: cost of R itself
    assert region_impurity(Y1) == pytest.approx(0.5)


def test_misclassification_tree_by_hand():
    # second axis is worse everywhere (it separates nothing better than 2 of 6)
    X = np.column_stack([X1[:, 0], [3.0, 1.0, 2.0, 6.0, 5.0, 4.0]])
    tree = DecisionTree(max_depth=1).fit(X, Y1)
    t = tree.tree_
    assert t.feature[0] == 0
    assert t.threshold[0] == 2.5  # ties (2.5 and 4.5) go to the lowest threshold
    np.testing.assert_allclose(t.value[1], [2, 0])
    np.testing.assert_allclose(t.value[2], [1, 3])
    assert tree.last_snapshot_.train_error == pytest.approx(1 / 6)
    assert best_split(X, Y1) == (0, 2.5, pytest.approx(1 / 6))
    np.testing.assert_array_equal(tree.predict([[0.0, 0.0], [2.6, 0.0]]), [0, 1])


def test_gini_and_entropy_costs_by_hand():
    # split at 2.5: left (2, 0) pure; right (1, 3): gini 2 * 1/4 * 3/4 = 3/8, entropy H(1/4)
    assert split_cost(X1, Y1, 0, 2.5, criterion="gini") == pytest.approx(4 / 6 * 3 / 8)
    h = -(0.25 * np.log2(0.25) + 0.75 * np.log2(0.75))
    assert split_cost(X1, Y1, 0, 2.5, criterion="entropy") == pytest.approx(4 / 6 * h)


# ---------------------------------------------------------------- agreement with scikit-learn


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_gini_tree_agrees_with_sklearn(seed, n_classes, depth):
    tree_mod = pytest.importorskip("sklearn.tree")
    X, y = _tie_free(300, 4, n_classes, seed)
    ours = DecisionTree(max_depth=depth, criterion="gini").fit(X, y)
    ref = tree_mod.DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
    assert ours.score(X, y) == ref.score(X, y)
    assert ours.n_leaves_ == ref.get_n_leaves()
    assert ours.depth_ == ref.get_depth()
    if depth <= 2:
        np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
        grid = np.random.default_rng(seed).normal(scale=2.0, size=(2000, 4))
        assert np.mean(ours.predict(grid) == ref.predict(grid)) >= 0.99
        np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-12)
    else:
        # small regions have exactly tied splits (e.g. two axes isolating the same points);
        # we take the lowest axis, scikit-learn a random one, so only a few points may differ
        assert np.mean(ours.predict(X) == ref.predict(X)) >= 0.98

        def leaf_cost(v):
            return np.sum(v.sum(1) - (v**2).sum(1) / v.sum(1))

        ours_leaves = ours.tree_.value[ours.tree_.is_leaf]
        ref_v = ref.tree_.value[ref.tree_.children_left < 0, 0] * ref.tree_.weighted_n_node_samples[
            ref.tree_.children_left < 0, None]
        assert leaf_cost(ours_leaves) == pytest.approx(leaf_cost(ref_v), rel=0.05)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_deep_tree_and_min_samples_leaf_agree_with_sklearn(criterion):
    tree_mod = pytest.importorskip("sklearn.tree")
    X, y = _tie_free(500, 5, 2, 7)
    for msl in (1, 7):
        ours = DecisionTree(max_depth=6, criterion=criterion, min_samples_leaf=msl).fit(X, y)
        ref = tree_mod.DecisionTreeClassifier(max_depth=6, criterion=criterion, min_samples_leaf=msl,
                                              random_state=0).fit(X, y)
        assert ours.score(X, y) == pytest.approx(ref.score(X, y), abs=0.004)
        assert np.mean(ours.predict(X) == ref.predict(X)) >= 0.99
        assert ours.tree_.n_samples[ours.tree_.is_leaf].min() >= msl


def test_weighted_tree_agrees_with_sklearn():
    tree_mod = pytest.importorskip("sklearn.tree")
    X, y = _tie_free(300, 3, 2, 3)
    w = np.random.default_rng(3).uniform(0.1, 2.0, size=300)
    ours = DecisionTree(max_depth=3, criterion="gini").fit(X, y, sample_weight=w)
    ref = tree_mod.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


# ---------------------------------------------------------------- stumps vs brute force


def _brute_force_stump(X, y, w, criterion):
    best = np.inf
    classes = np.unique(y)
    for j in range(X.shape[1]):
        v = np.unique(X[:, j])
        for t in (v[:-1] + v[1:]) / 2:
            right = X[:, j] > t
            cost = 0.0
            for side in (~right, right):
                counts = np.array([w[side & (y == c)].sum() for c in classes])
                tot = counts.sum()
                if criterion == "misclassification":
                    cost += tot - counts.max()
                else:
                    cost += tot - (counts**2).sum() / tot
            best = min(best, cost / w.sum())
    return best


@pytest.mark.parametrize("criterion", ["misclassification", "gini"])
@pytest.mark.parametrize("seed", range(4))
def test_weighted_stump_equals_brute_force(criterion, seed):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(60, 3)), 1)  # rounded: ties in the values too
    y = rng.integers(0, 2, 60) if seed % 2 else rng.integers(0, 3, 60)
    w = rng.exponential(size=60)
    stump = DecisionStump(criterion=criterion).fit(X, y, sample_weight=w)
    assert stump.cost_ == pytest.approx(_brute_force_stump(X, y, w, criterion), rel=1e-12, abs=1e-12)
    pred = stump.predict(X)
    if criterion == "misclassification":
        assert np.sum(w * (pred != y)) / w.sum() == pytest.approx(stump.cost_, rel=1e-12, abs=1e-12)
    # the same stump from presorted orders (what boosting reuses)
    pre = presort(X)
    again = DecisionStump(criterion=criterion).fit(X, y, sample_weight=w, order=pre)
    assert (again.feature_, again.threshold_) == (stump.feature_, stump.threshold_)


def test_stump_equals_depth_one_tree():
    X, y = _tie_free(200, 4, 2, 5)
    w = np.random.default_rng(5).uniform(size=200)
    s = DecisionStump().fit(X, y, w)
    t = DecisionTree(max_depth=1).fit(X, y, w)
    assert (s.feature_, s.threshold_) == (t.tree_.feature[0], t.tree_.threshold[0])
    assert s.polarity_ in (-1, 1)
    np.testing.assert_array_equal(s.predict(X), t.predict(X))


def test_constant_data_gives_constant_stump():
    X = np.ones((5, 2))
    y = np.array([0, 1, 1, 0, 1])
    s = DecisionStump().fit(X, y)
    assert s.feature_ == -1 and s.polarity_ == 0
    np.testing.assert_array_equal(s.predict(X), np.ones(5, dtype=int))
    tree = DecisionTree(max_depth=3).fit(X, y)
    assert tree.n_leaves_ == 1


# ---------------------------------------------------------------- cost curves and snapshots


def test_cost_curve_matches_split_cost():
    X, y = _tie_free(80, 2, 3, 11)
    for crit in ("misclassification", "gini", "entropy"):
        t, c = cost_curve(X, y, 1, criterion=crit)
        for k in range(0, t.size, 9):
            assert c[k] == pytest.approx(split_cost(X, y, 1, t[k], criterion=crit))


def test_snapshots_per_split_and_last_equals_fit():
    X, y = _tie_free(150, 2, 2, 4)
    model = DecisionTree(max_depth=3, criterion="misclassification")
    snaps = list(model.fit_steps(X, y))
    assert all(isinstance(s, TreeSnapshot) for s in snaps)
    assert [s.step for s in snaps] == list(range(len(snaps)))
    assert snaps[0].node == 0 and snaps[0].axis is None and snaps[0].indices.size == 150
    assert snaps[-1].done and snaps[-1].phase == "done"
    fitted = DecisionTree(max_depth=3, criterion="misclassification").fit(X, y)
    for name in ("feature", "children_left", "children_right", "n_samples", "depth"):
        np.testing.assert_array_equal(getattr(snaps[-1].tree, name), getattr(fitted.tree_, name))
    np.testing.assert_array_equal(snaps[-1].tree.threshold, fitted.tree_.threshold)
    assert fitted.last_snapshot_.train_error == snaps[-1].train_error
    splits = snaps[1:-1]
    assert len(splits) == int(np.count_nonzero(fitted.tree_.feature >= 0))
    errors = [s.train_error for s in snaps]
    assert all(b <= a + 1e-12 for a, b in itertools.pairwise(errors))  # a split never adds errors
    for s in splits:
        # the chosen split is the minimum over the cost curves of every axis
        assert s.cost == pytest.approx(min(c.min() for c in s.curve_costs if c.size))
        j = s.axis
        k = int(np.argmin(s.curve_costs[j]))
        assert s.threshold == s.curve_thresholds[j][k]
        sub = s.indices
        assert s.cost == pytest.approx(split_cost(X[sub], y[sub], j, s.threshold))
        inside = np.all((X > s.lower) & (X <= s.upper), axis=1)
        np.testing.assert_array_equal(np.flatnonzero(inside), sub)
        assert s.tree.node_count == s.tree.n_leaves * 2 - 1
        with pytest.raises(ValueError):
            s.curve_costs[0][0] = 1.0  # snapshots own read-only arrays


def test_region_cost_curve_of_a_node():
    X, y = _tie_free(120, 2, 2, 9)
    model = DecisionTree(max_depth=2).fit(X, y)
    t, c = model.region_cost_curve(X, y, node=1, axis=0)
    inside = model.apply(X) >= 0
    left = X[:, model.tree_.feature[0]] <= model.tree_.threshold[0]
    t2, c2 = cost_curve(X[left & inside], y[left], 0)
    np.testing.assert_allclose(t, t2)
    np.testing.assert_allclose(c, c2)


def test_apply_decision_path_and_boxes():
    X, y = _tie_free(200, 3, 3, 2)
    model = DecisionTree(max_depth=4, criterion="entropy").fit(X, y)
    leaves = model.apply(X)
    assert np.all(model.tree_.is_leaf[leaves])
    path = model.decision_path(X).toarray()
    assert np.all(path[:, 0] == 1)
    assert np.all(path[np.arange(200), leaves] == 1)
    np.testing.assert_array_equal(path.sum(axis=1), model.tree_.depth[leaves] + 1)
    lo, hi = model.tree_.lower[leaves], model.tree_.upper[leaves]
    assert np.all((X > lo) & (X <= hi))
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    counts = np.bincount(leaves, minlength=model.tree_.node_count)
    np.testing.assert_array_equal(counts[model.tree_.is_leaf], model.tree_.n_samples[model.tree_.is_leaf])


def test_random_features_are_seeded():
    X, y = _tie_free(200, 6, 2, 1)
    a = DecisionTree(max_depth=4, max_features=2, random_state=3).fit(X, y)
    b = DecisionTree(max_depth=4, max_features=2, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    curves = [s.curve_costs for s in DecisionTree(max_depth=2, max_features=2, random_state=0).fit_steps(X, y)
              if s.curve_costs is not None]
    assert all(sum(c.size > 0 for c in cc) <= 2 for cc in curves)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs, X, y, exc, match",
    [
        ({}, [[0.0], [1.0]], [1, 1], ValueError, "two classes"),
        ({}, [[np.nan], [1.0]], [0, 1], ValueError, "NaN"),
        ({"max_depth": 0}, [[0.0], [1.0]], [0, 1], ValueError, r"max_depth must be an int in \[1, 1000\]"),
        ({"max_depth": 2.5}, [[0.0], [1.0]], [0, 1], TypeError, "max_depth"),
        ({"criterion": "mse"}, [[0.0], [1.0]], [0, 1], ValueError, "criterion"),
        ({"min_samples_leaf": 0}, [[0.0], [1.0]], [0, 1], ValueError, "min_samples_leaf"),
        ({"max_features": "half"}, [[0.0], [1.0]], [0, 1], ValueError, "max_features"),
        ({}, [0.0, 1.0], [0, 1], ValueError, "2-D"),
        ({}, [[0.0], [1.0]], [0, 1, 1], ValueError, "different numbers"),
    ],
)
def test_bad_input(kwargs, X, y, exc, match):
    with pytest.raises(exc, match=match):
        DecisionTree(**kwargs).fit(X, y)


def test_bad_weights_and_unfitted():
    with pytest.raises(ValueError, match=">= 0"):
        DecisionTree().fit([[0.0], [1.0]], [0, 1], sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError, match="sums to 0"):
        DecisionStump().fit([[0.0], [1.0]], [0, 1], sample_weight=[0.0, 0.0])
    with pytest.raises(ValueError, match="not fitted"):
        DecisionTree().predict([[0.0]])
    model = DecisionTree().fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(ValueError, match="features"):
        model.predict([[0.0, 1.0]])
