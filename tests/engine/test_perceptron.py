import numpy as np
import pytest

from smlengine.datasets import make_blobs, make_moons
from smlengine.linear import Perceptron, PerceptronSnapshot


def separable(seed=0):
    return make_blobs(120, 0.6, random_state=seed)


@pytest.mark.parametrize("mode", ["single", "batch"])
@pytest.mark.parametrize("seed", [0, 1, 3])
def test_converges_on_separable_data(mode, seed):
    X, y = separable(seed)
    model = Perceptron(max_epochs=1000, mode=mode, random_state=seed).fit(X, y)
    assert model.converged_
    assert np.all(model.predict(X) == y)
    assert np.all(y * model.decision_function(X) > 0)
    assert model.last_snapshot_.cost == 0.0 and model.last_snapshot_.n_mistakes == 0


@pytest.mark.parametrize("mode", ["single", "batch"])
def test_last_snapshot_equals_fit(mode):
    X, y = separable(2)
    snaps = list(Perceptron(mode=mode, random_state=5).fit_steps(X, y))
    model = Perceptron(mode=mode, random_state=5).fit(X, y)
    last = snaps[-1]
    assert isinstance(last, PerceptronSnapshot)
    np.testing.assert_array_equal(last.v, model.coef_)
    assert last.intercept == model.intercept_
    assert [s.step for s in snaps] == list(range(len(snaps)))
    assert snaps[0].step == 0 and snaps[0].index is None and snaps[0].n_mistakes == len(y)
    np.testing.assert_array_equal(last.decision_function(X), model.decision_function(X))


def test_non_separable_stops_at_max_epochs():
    X, y = make_moons(100, 0.3, random_state=0)
    model = Perceptron(max_epochs=7, random_state=0).fit(X, y)
    assert not model.converged_
    assert model.n_iter_ == 7
    batch = Perceptron(max_epochs=9, mode="batch").fit(X, y)
    assert batch.n_iter_ == 9 and batch.n_updates_ == 9 and not batch.converged_


def test_hand_checked_single_updates():
    # Two points; z starts at 0 so every point is a mistake at first.
    X = np.array([[2.0, 1.0], [-1.0, -1.0]])
    y = np.array([1.0, -1.0])
    snaps = list(Perceptron(learning_rate=0.5, random_state=0).fit_steps(X, y))
    first = snaps[1]
    i = first.index
    # z = 0 + 0.5 * y_i * (1, x_i)
    expected = 0.5 * y[i] * np.array([1.0, *X[i]])
    np.testing.assert_allclose(first.v, expected[1:])
    assert first.c == pytest.approx(-expected[0])
    # the cost is the sum of |<z, x~>| over points with y <z, x~> <= 0
    z = np.array([-first.c, *first.v])
    scores = np.hstack([np.ones((2, 1)), X]) @ z
    wrong = y * scores <= 0
    assert first.cost == pytest.approx(np.abs(scores[wrong]).sum())
    assert first.n_mistakes == int(wrong.sum())
    assert snaps[-1].converged


def test_hand_checked_batch_update():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    y = np.array([1.0, 1.0, -1.0])
    snaps = list(Perceptron(mode="batch", learning_rate=1.0).fit_steps(X, y))
    # all three are mistakes at z = 0: z1 = sum y_i (1, x_i) = (1, 2, 1)
    np.testing.assert_allclose(snaps[1].v, [2.0, 1.0])
    assert snaps[1].c == pytest.approx(-1.0)
    assert snaps[1].converged


def test_any_two_labels():
    X, y = separable(0)
    labels = np.where(y > 0, "cat", "dog")
    model = Perceptron(random_state=0).fit(X, labels)
    assert set(model.predict(X)) <= {"cat", "dog"}
    assert np.mean(model.predict(X) == labels) == 1.0


def test_deterministic_under_seed():
    X, y = make_moons(80, 0.25, random_state=1)
    a = [s.index for s in Perceptron(max_epochs=3, random_state=4).fit_steps(X, y)]
    b = [s.index for s in Perceptron(max_epochs=3, random_state=4).fit_steps(X, y)]
    assert a == b


def test_snapshots_are_immutable_copies():
    X, y = separable(0)
    snaps = list(Perceptron(random_state=0).fit_steps(X, y))
    with pytest.raises(ValueError):
        snaps[1].v[0] = 5.0
    assert not np.shares_memory(snaps[1].v, snaps[2].v)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"max_epochs": 0}, "max_epochs"),
        ({"learning_rate": -1.0}, r"learning_rate must be a float in \(0, 1e6\]; got -1"),
        ({"learning_rate": float("nan")}, r"learning_rate must be a float in \(0, 1e6\]; got nan"),
        ({"mode": "online"}, "mode must be one of"),
    ],
)
def test_bad_parameters(kwargs, message):
    X, y = separable(0)
    with pytest.raises(ValueError, match=message):
        Perceptron(**kwargs).fit(X, y)


def test_bad_data():
    X, y = separable(0)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Perceptron().fit(bad, y)
    with pytest.raises(ValueError, match="exactly two classes"):
        Perceptron().fit(X, np.ones(len(y)))
    with pytest.raises(ValueError, match="different numbers of samples"):
        Perceptron().fit(X, y[:-1])
    with pytest.raises(TypeError, match="max_epochs must be"):
        Perceptron(max_epochs=2.5).fit(X, y)
    model = Perceptron().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(np.zeros((2, 3)))


def test_params_stored_verbatim():
    p = Perceptron(max_epochs=3, learning_rate=0.2, mode="batch", random_state=7)
    assert p.get_params() == {"max_epochs": 3, "learning_rate": 0.2, "mode": "batch", "random_state": 7}
    p.set_params(max_epochs=5)
    assert p.max_epochs == 5
    with pytest.raises(ValueError, match="unknown parameter"):
        p.set_params(epochs=1)


def test_agrees_with_sklearn_perceptron_on_separable_data():
    """Every single-sample update equals scikit-learn's Perceptron fed the same points.

    scikit-learn updates w += eta0 y x, b += eta0 y when y (w.x + b) <= 0, as the course's
    z <- z + alpha y x~ with z = (-c, v). Feeding it, one ``partial_fit`` at a time, the
    points our perceptron updated on (in our visiting order) must give the same hyperplane
    after every update; skipped points change neither model.
    """
    sk = pytest.importorskip("sklearn.linear_model")
    X, y = separable(4)
    snaps = list(Perceptron(max_epochs=1000, learning_rate=0.5, random_state=0).fit_steps(X, y))
    assert snaps[-1].converged and len(snaps) > 3
    ref = sk.Perceptron(eta0=0.5, penalty=None, fit_intercept=True)
    classes = np.unique(y)
    for snap in snaps[1:]:
        i = snap.index
        ref.partial_fit(X[[i]], y[[i]], classes=classes)
        np.testing.assert_allclose(ref.coef_.ravel(), snap.v, rtol=1e-12, atol=1e-12)
        assert ref.intercept_[0] == pytest.approx(-snap.c, rel=1e-12, abs=1e-12)
    assert np.array_equal(ref.predict(X),
                          Perceptron(max_epochs=1000, learning_rate=0.5, random_state=0).fit(X, y).predict(X))


@pytest.mark.parametrize("mode", ["single", "batch"])
def test_huge_finite_values_are_refused(mode):
    X, y = separable(0)
    with pytest.raises(ValueError, match=r"X has values up to 1e\+308; rescale the data"):
        Perceptron(mode=mode).fit(np.sign(X) * 1e308, y)


def test_absurd_learning_rate_is_refused():
    X, y = separable(0)
    with pytest.raises(ValueError, match=r"learning_rate must be a float in \(0, 1e6\]; got 1e308"):
        Perceptron(learning_rate=1e308).fit(X, y)


@pytest.mark.parametrize("mode", ["single", "batch"])
def test_largest_accepted_values_stay_finite(mode):
    X, y = make_moons(60, 0.3, random_state=0)  # not separable: runs all epochs
    X = X * 1e100 / np.abs(X).max()
    m = Perceptron(mode=mode, learning_rate=1e6, max_epochs=30, random_state=0).fit(X, y)
    assert np.all(np.isfinite(m.coef_)) and np.isfinite(m.intercept_)
    assert np.isfinite(m.last_snapshot_.cost)
