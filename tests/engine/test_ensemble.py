"""AdaBoost, bagging, random forests and Condorcet: scikit-learn agreement, bounds, OOB, snapshots."""

import math

import numpy as np
import pytest

from smlengine.ensemble import (
    AdaBoost,
    AdaBoostSnapshot,
    Bagging,
    ForestSnapshot,
    RandomForest,
    condorcet_probability,
)
from smlengine.trees import DecisionStump, DecisionTree


def _data(n, d, seed, flip=0.1):
    datasets = pytest.importorskip("sklearn.datasets")
    return datasets.make_classification(n_samples=n, n_features=d, n_informative=min(3, d), n_redundant=0,
                                        flip_y=flip, random_state=seed)


# ---------------------------------------------------------------- AdaBoost


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_adaboost_agrees_with_sklearn_samme(seed):
    ens = pytest.importorskip("sklearn.ensemble")
    tree = pytest.importorskip("sklearn.tree")
    X, y = _data(400, 4, seed)
    Xt, _yt = _data(400, 4, seed + 100)
    ours = AdaBoost(n_rounds=60, criterion="gini").fit(X, y)  # scikit-learn's trees split by Gini
    # scikit-learn >= 1.6 has only SAMME (the `algorithm` argument is gone)
    ref = ens.AdaBoostClassifier(tree.DecisionTreeClassifier(max_depth=1), n_estimators=60, random_state=0).fit(X, y)
    ours_err = [np.mean(p != y) for p in ours.staged_predict(X)]
    ref_err = [np.mean(p != y) for p in ref.staged_predict(X)]
    assert len(ours_err) == len(ref_err) == 60
    np.testing.assert_array_equal(ours_err, ref_err)
    np.testing.assert_allclose(ours.errors_, ref.estimator_errors_, rtol=1e-9)
    np.testing.assert_allclose(ours.alphas_, ref.estimator_weights_, rtol=1e-9)
    assert np.mean(ours.predict(Xt) == ref.predict(Xt)) >= 0.99
    assert np.mean(ours.predict(X) == ref.predict(X)) >= 0.99


def test_adaboost_alpha_weights_and_staged_functions():
    X, y = _data(300, 3, 5)
    model = AdaBoost(n_rounds=40).fit(X, y)
    np.testing.assert_allclose(model.alphas_, np.log((1 - model.errors_) / model.errors_))
    # round m's weights are those of round m-1 times exp(alpha I{wrong}), normalised
    y_pm = np.where(y == model.classes_[1], 1.0, -1.0)
    G = model.learner_outputs(X)
    for m in range(1, len(model.alphas_)):
        w = model.sample_weights_[m - 1] * np.exp(model.alphas_[m - 1] * (G[m - 1] != y_pm))
        np.testing.assert_allclose(model.sample_weights_[m], w / w.sum())
        err = np.sum(model.sample_weights_[m] * (G[m] != y_pm))
        assert model.errors_[m] == pytest.approx(err)
    np.testing.assert_allclose(model.sample_weights_[0], 1 / 300)
    staged = list(model.staged_decision_function(X))
    assert len(staged) == 40
    np.testing.assert_allclose(staged[-1], model.decision_function(X))
    np.testing.assert_array_equal(list(model.staged_predict(X))[-1], model.predict(X))
    assert all(isinstance(e, DecisionStump) for e in model.estimators_)


@pytest.mark.parametrize("criterion", ["misclassification", "gini"])
@pytest.mark.parametrize("base", ["stump", "tree"])
def test_training_error_bound_holds_every_round(criterion, base):
    X, y = _data(300, 3, 8, flip=0.05)
    snaps = list(AdaBoost(n_rounds=50, base=base, max_depth=2, criterion=criterion).fit_steps(X, y))
    for s in snaps:
        assert s.train_error <= s.bound + 1e-12
        assert s.train_error <= s.exp_loss_half + 1e-12  # exp(-yF/2) >= I{yF <= 0}
        # the average of exp(-yF/2) is exactly the bound prod 2 sqrt(err (1 - err)) ...
        assert s.exp_loss_half == pytest.approx(s.bound, rel=1e-9)
        assert s.train_error <= s.exp_loss + 1e-12
    assert snaps[-1].train_error < snaps[1].train_error


def test_adaboost_snapshots_and_last_equals_fit():
    X, y = _data(200, 2, 3)
    Xt, yt = _data(200, 2, 4)
    model = AdaBoost(n_rounds=25)
    snaps = list(model.fit_steps(X, y, X_test=Xt, y_test=yt))
    assert all(isinstance(s, AdaBoostSnapshot) for s in snaps)
    assert [s.step for s in snaps] == list(range(26))
    s0 = snaps[0]
    assert s0.learner is None and s0.alpha == 0.0 and s0.bound == 1.0
    np.testing.assert_allclose(s0.weights, 1 / 200)
    last = snaps[-1]
    assert last.done and last.stopped_because == "n_rounds = 25 reached"
    assert not any(s.done for s in snaps[:-1])
    fitted = AdaBoost(n_rounds=25).fit(X, y)
    np.testing.assert_allclose([s.alpha for s in snaps[1:]], fitted.alphas_)
    np.testing.assert_allclose([s.error for s in snaps[1:]], fitted.errors_)
    for m in range(1, 25):
        np.testing.assert_allclose(snaps[m].weights, fitted.sample_weights_[m])
    assert [(s.axis, s.threshold, s.polarity) for s in snaps[1:]] == [
        (e.feature_, e.threshold_, e.polarity_) for e in fitted.estimators_]
    assert last.train_error == pytest.approx(np.mean(fitted.predict(X) != y))
    assert last.test_error == pytest.approx(np.mean(fitted.predict(Xt) != yt))
    assert fitted.last_snapshot_.train_error == last.train_error
    assert all(s.test_error is not None for s in snaps)
    assert AdaBoost(n_rounds=2).fit(X, y).last_snapshot_.test_error is None
    with pytest.raises(ValueError):
        last.weights[0] = 1.0


def test_adaboost_stops_on_a_perfect_learner():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([-1, -1, 1, 1])
    model = AdaBoost(n_rounds=10).fit(X, y)
    assert len(model.estimators_) == 1
    assert model.errors_[0] == 0.0
    assert np.isfinite(model.alphas_[0]) and model.alphas_[0] == pytest.approx(math.log((1 - 1e-10) / 1e-10))
    assert "err = 0" in model.stopped_because_
    assert model.last_snapshot_.stopped_because == model.stopped_because_
    np.testing.assert_array_equal(model.predict(X), y)


def test_adaboost_stops_when_no_learner_beats_chance():
    # XOR: every stump has weighted error exactly 1/2
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    y = np.array([0, 0, 1, 1])
    snaps = list(AdaBoost(n_rounds=10).fit_steps(X, y))
    assert len(snaps) == 2
    assert not snaps[-1].accepted and snaps[-1].error == 0.5
    assert ">= 1/2" in snaps[-1].stopped_because
    model = AdaBoost(n_rounds=10).fit(X, y)
    assert model.estimators_ == [] and model.alphas_.shape == (0,)
    np.testing.assert_array_equal(model.decision_function(X), 0.0)


def test_adaboost_with_trees():
    X, y = _data(300, 3, 2)
    model = AdaBoost(n_rounds=20, base="tree", max_depth=3).fit(X, y)
    assert all(isinstance(e, DecisionTree) for e in model.estimators_)
    assert model.last_snapshot_.axis is None
    assert np.mean(model.predict(X) != y) <= model.training_error_bound()[-1]


@pytest.mark.parametrize(
    "kwargs, y, exc, match",
    [
        ({"n_rounds": 0}, [0, 1, 0, 1], ValueError, r"n_rounds must be an int in \[1, 10000\]; got 0"),
        ({"max_depth": 0, "base": "tree"}, [0, 1, 0, 1], ValueError, r"max_depth must be an int in \[1, 1000\]"),
        ({"base": "forest"}, [0, 1, 0, 1], ValueError, "base"),
        ({}, [1, 1, 1, 1], ValueError, "two classes"),
        ({}, [0, 1, 2, 1], ValueError, "two classes"),
    ],
)
def test_adaboost_bad_input(kwargs, y, exc, match):
    X = np.arange(8.0).reshape(4, 2)
    with pytest.raises(exc, match=match):
        AdaBoost(**kwargs).fit(X, y)


def test_adaboost_rejects_nan_and_bad_test_data():
    X = np.arange(8.0).reshape(4, 2)
    y = [0, 1, 0, 1]
    with pytest.raises(ValueError, match="NaN"):
        AdaBoost().fit(np.where(X > 6, np.nan, X), y)
    with pytest.raises(ValueError, match="both"):
        list(AdaBoost().fit_steps(X, y, X_test=X))
    with pytest.raises(ValueError, match="not in y"):
        list(AdaBoost().fit_steps(X, y, X_test=X, y_test=[0, 1, 2, 1]))


# ---------------------------------------------------------------- bagging and forests


@pytest.mark.parametrize("cls", [Bagging, RandomForest])
def test_forest_is_deterministic_under_a_seed(cls):
    X, y = _data(200, 4, 1)
    a = cls(n_estimators=8, random_state=3).fit(X, y)
    b = cls(n_estimators=8, random_state=3).fit(X, y)
    c = cls(n_estimators=8, random_state=4).fit(X, y)
    np.testing.assert_array_equal(a.bootstrap_counts_, b.bootstrap_counts_)
    np.testing.assert_array_equal(a.oob_error_curve_, b.oob_error_curve_)
    np.testing.assert_array_equal(a.votes(X), b.votes(X))
    assert not np.array_equal(a.bootstrap_counts_, c.bootstrap_counts_)


def test_oob_error_near_held_out_error_and_left_out_fraction():
    X, y = _data(3000, 5, 0)
    Xtr, ytr, Xte, yte = X[:1500], y[:1500], X[1500:], y[1500:]
    model = RandomForest(n_estimators=40, max_depth=8, random_state=0).fit(Xtr, ytr)
    held_out = np.mean(model.predict(Xte) != yte)
    assert abs(model.oob_error_ - held_out) < 0.03
    assert model.oob_fraction_ == pytest.approx((1 - 1 / 1500) ** 1500, abs=0.01)
    assert model.oob_fraction_ == pytest.approx(np.exp(-1), abs=0.01)
    assert model.oob_error_ == model.oob_error_curve_[-1]
    assert model.bootstrap_counts_.shape == (40, 1500)
    np.testing.assert_array_equal(model.bootstrap_counts_.sum(axis=1), 1500)


def test_votes_predict_and_proba():
    X, y = _data(300, 3, 6)
    X3 = np.vstack([X, X[:50] + 3.0])
    y3 = np.concatenate([y, np.full(50, 2)])
    model = Bagging(n_estimators=11, max_depth=4, random_state=0).fit(X3, y3)
    v = model.votes(X3)
    assert v.shape == (350, 3)
    np.testing.assert_array_equal(v.sum(axis=1), 11)
    np.testing.assert_array_equal(model.predict(X3), model.classes_[np.argmax(v, axis=1)])
    np.testing.assert_allclose(model.predict_proba(X3), v / 11)
    P = model.tree_predictions(X3)
    for k, tree in enumerate(model.estimators_):
        np.testing.assert_array_equal(model.classes_[P[k]], model.classes_[tree.predict(X3)])


def test_bagged_tree_equals_tree_on_the_resampled_data():
    X, y = _data(150, 3, 9)
    model = Bagging(n_estimators=1, max_depth=3, random_state=2).fit(X, y)
    counts = model.bootstrap_counts_[0]
    idx = np.repeat(np.arange(150), counts)
    direct = DecisionTree(max_depth=3, criterion="gini").fit(X[idx], y[idx])
    np.testing.assert_array_equal(model.estimators_[0].tree_.feature, direct.tree_.feature)
    np.testing.assert_allclose(model.estimators_[0].tree_.threshold, direct.tree_.threshold)


def test_forest_snapshots_and_last_equals_fit():
    X, y = _data(200, 4, 2)
    snaps = list(RandomForest(n_estimators=6, max_depth=3, random_state=1).fit_steps(X, y))
    assert all(isinstance(s, ForestSnapshot) for s in snaps)
    assert [s.step for s in snaps] == list(range(7))
    assert snaps[0].n_trees == 0 and snaps[0].tree is None
    fitted = RandomForest(n_estimators=6, max_depth=3, random_state=1).fit(X, y)
    for k, s in enumerate(snaps[1:]):
        np.testing.assert_array_equal(s.counts, fitted.bootstrap_counts_[k])
        assert s.left_out_fraction == np.mean(fitted.bootstrap_counts_[k] == 0)
    last = snaps[-1]
    assert last.done
    np.testing.assert_array_equal(last.oob_error_curve, fitted.oob_error_curve_)
    assert last.oob_fraction == fitted.oob_fraction_
    np.testing.assert_array_equal(last.tree.tree_.feature, fitted.estimators_[-1].tree_.feature)


def test_random_forest_draws_axes():
    X, y = _data(300, 8, 4)
    rf = RandomForest(n_estimators=10, max_depth=2, max_features=1, random_state=0).fit(X, y)
    bag = Bagging(n_estimators=10, max_depth=2, random_state=0).fit(X, y)
    roots_rf = {int(t.tree_.feature[0]) for t in rf.estimators_}
    roots_bag = {int(t.tree_.feature[0]) for t in bag.estimators_}
    assert len(roots_rf) > len(roots_bag)


@pytest.mark.parametrize(
    "cls, kwargs, y, exc, match",
    [
        (Bagging, {"n_estimators": 0}, [0, 1, 0, 1], ValueError, r"n_estimators must be an int in \[1, 10000\]; got 0"),
        (Bagging, {"max_depth": 0}, [0, 1, 0, 1], ValueError, r"max_depth must be an int in \[1, 1000\]"),
        (RandomForest, {"max_features": 0}, [0, 1, 0, 1], ValueError, "max_features"),
        (RandomForest, {}, [1, 1, 1, 1], ValueError, "two classes"),
        (RandomForest, {"random_state": -1}, [0, 1, 0, 1], ValueError, "random_state"),
    ],
)
def test_forest_bad_input(cls, kwargs, y, exc, match):
    with pytest.raises(exc, match=match):
        cls(**kwargs).fit(np.arange(8.0).reshape(4, 2), y)


# ---------------------------------------------------------------- Condorcet


def test_condorcet_by_hand_and_vectorised():
    assert condorcet_probability(1, 0.7) == pytest.approx(0.7)
    assert condorcet_probability(3, 0.6) == pytest.approx(0.6**3 + 3 * 0.6**2 * 0.4)
    assert condorcet_probability(4, 0.6) == pytest.approx(0.6**4 + 4 * 0.6**3 * 0.4)  # a 2-2 tie is wrong
    m = np.arange(1, 202, 2)
    p = condorcet_probability(m, 0.6)
    assert p.shape == m.shape
    assert np.all(np.diff(p) > 0) and p[-1] > 0.99
    np.testing.assert_allclose(condorcet_probability(m, 0.5), 0.5)
    assert np.all(np.diff(condorcet_probability(m, 0.4)) < 0)


def test_condorcet_bad_input():
    with pytest.raises(ValueError, match="p must"):
        condorcet_probability(3, 1.5)
    with pytest.raises(ValueError, match="m must"):
        condorcet_probability(0, 0.5)
    with pytest.raises(TypeError, match="integer"):
        condorcet_probability(2.5, 0.5)
