"""The multilayer perceptron: backpropagation against finite differences, the loss, probabilities and
full-batch training against scikit-learn's MLPClassifier from the same start, snapshots, bad input."""

import tracemalloc
import warnings

import numpy as np
import pytest

from smlengine.neural import MLPClassifier, MLPSnapshot, backprop_trace, check_gradients

try:  # the reference: a test dependency, imported once here rather than inside the first test that needs it
    from sklearn import linear_model as sk_linear, metrics as sk_metrics, neural_network as sk_neural
    from sklearn.exceptions import ConvergenceWarning
except ImportError:  # pragma: no cover - scikit-learn is in the test extras
    sk_neural = None
needs_sklearn = pytest.mark.skipif(sk_neural is None, reason="scikit-learn is not installed")

ACTIVATIONS = ["tanh", "relu", "logistic"]


def _data(n_classes, seed=0, n=40, d=3):
    """Points the engine's own data sets never produce: Gaussian features, labels from a random net."""
    rng = np.random.default_rng(100 + seed)
    X = rng.normal(size=(n, d))
    scores = np.tanh(X @ rng.normal(size=(d, 5))) @ rng.normal(size=(5, n_classes))
    y = np.argmax(scores + 0.3 * rng.normal(size=scores.shape), axis=1)
    y[:n_classes] = np.arange(n_classes)  # every class present
    return X, np.array(["ant", "bee", "cat"])[y] if n_classes == 3 else y


def _start(units, activation, seed):
    """Starting weights of a network of these layer sizes (drawn here, handed over as initial_weights)."""
    rng = np.random.default_rng(seed)
    scale = 1.0 if activation == "logistic" else 0.6
    coefs = [scale * rng.normal(size=(a, b)) for a, b in zip(units[:-1], units[1:])]
    intercepts = [0.3 * rng.normal(size=b) for b in units[1:]]
    return coefs, intercepts


def _units(X, hidden, n_classes):
    return [X.shape[1], *hidden, 1 if n_classes == 2 else n_classes]


def _flat(arrays):
    return np.concatenate([np.ravel(a) for a in arrays])


# ----------------------------------------------------------------------------- backprop = finite differences
@pytest.mark.parametrize("hidden", [(5,), (4, 3)], ids=["1 layer", "2 layers"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_loss_and_gradients_equal_central_differences(activation, n_classes, hidden):
    X, y = _data(n_classes, seed=len(hidden))
    coefs, intercepts = _start(_units(X, hidden, n_classes), activation, seed=7)
    alpha = 0.5

    def loss_at(c, b):
        return MLPClassifier(hidden, activation=activation, alpha=alpha,
                             initial_weights=(c, b)).loss_and_gradients(X, y)[0]

    _, coef_grads, intercept_grads = MLPClassifier(hidden, activation=activation, alpha=alpha,
                                                   initial_weights=(coefs, intercepts)).loss_and_gradients(X, y)
    params = [c.copy() for c in coefs] + [b.copy() for b in intercepts]
    L, eps, numeric = len(coefs), 1e-6, []
    for p in params:
        flat = p.reshape(-1)
        for j in range(flat.size):
            keep = flat[j]
            flat[j] = keep + eps
            up = loss_at(params[:L], params[L:])
            flat[j] = keep - eps
            down = loss_at(params[:L], params[L:])
            flat[j] = keep
            numeric.append((up - down) / (2 * eps))
    backprop = _flat(coef_grads + intercept_grads)
    numeric = np.array(numeric)
    relative = np.linalg.norm(backprop - numeric) / np.linalg.norm(numeric)
    assert relative < 1e-6, relative
    np.testing.assert_allclose(backprop, numeric, rtol=1e-5, atol=1e-8)
    # the lab's gradient check says the same
    y_idx = np.unique(y, return_inverse=True)[1]
    check = check_gradients(X, y_idx, coefs, intercepts, activation=activation, alpha=alpha)
    assert check.relative_error < 1e-6
    np.testing.assert_allclose(check.backprop, backprop, rtol=1e-12, atol=1e-15)


def test_tanh_units_are_tanh_to_the_last_bits():
    """The hidden units' tanh (computed from one exponential) is within 4.5e-16 of numpy's, odd, and saturates."""
    rng = np.random.default_rng(0)
    a = np.concatenate([rng.normal(size=20_000) * s for s in (1e-12, 1e-3, 1.0, 10.0, 1e3)] + [[0.0, 1e90, -1e90]])
    X = np.column_stack([a, np.zeros_like(a)])
    t = backprop_trace(X, np.zeros(len(a), int), [np.array([[1.0], [0.0]]), np.array([[1.0]])],
                       [np.zeros(1), np.zeros(1)])
    h = t.activations[1][:, 0]
    assert np.max(np.abs(h - np.tanh(a))) <= 4.5e-16
    np.testing.assert_array_equal(h[-3:], [0.0, 1.0, -1.0])
    t_neg = backprop_trace(-X, np.zeros(len(a), int), [np.array([[1.0], [0.0]]), np.array([[1.0]])],
                           [np.zeros(1), np.zeros(1)])
    np.testing.assert_array_equal(t_neg.activations[1][:, 0], -h)


def test_a_wrong_gradient_is_caught_by_the_check():
    """The check is not vacuous: a network whose backprop is fed wrong weights disagrees with the loss."""
    X, y = _data(2)
    coefs, intercepts = _start(_units(X, (4,), 2), "tanh", seed=1)
    good = check_gradients(X, y, coefs, intercepts)
    trace_other = backprop_trace(X, y, [c * 1.01 for c in coefs], intercepts)
    wrong = _flat(trace_other.coef_grads + trace_other.intercept_grads)
    assert good.relative_error < 1e-7
    assert np.linalg.norm(wrong - good.numeric) / np.linalg.norm(good.numeric) > 1e-3


def test_backprop_trace_follows_the_course_equations():
    X, y = _data(3, n=6)
    y_idx = np.unique(y, return_inverse=True)[1]
    coefs, intercepts = _start(_units(X, (4, 3), 3), "tanh", seed=2)
    t = backprop_trace(X, y_idx, coefs, intercepts, activation="tanh", alpha=0.2)
    for l, (W, b) in enumerate(zip(coefs, intercepts)):
        a = t.activations[l] @ W + b  # a⁽ˡ⁾ = W⁽ˡ⁾ h⁽ˡ⁻¹⁾ + b⁽ˡ⁾ (rows: h W + b)
        np.testing.assert_allclose(t.pre_activations[l], a, rtol=1e-13)
        h = np.tanh(a) if l < 2 else np.exp(a) / np.exp(a).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(t.activations[l + 1], h, rtol=1e-13, atol=1e-15)  # tanh: within 4.5e-16
    Y = np.eye(3)[y_idx]
    np.testing.assert_allclose(t.deltas[2], t.activations[3] - Y, rtol=1e-13)  # δ at the output = p − y
    for l in (1, 0):  # δ⁽ˡ⁾ = (W⁽ˡ⁺¹⁾ᵀ δ⁽ˡ⁺¹⁾) ⊙ g′(a⁽ˡ⁾)
        g_prime = 1 - np.tanh(t.pre_activations[l]) ** 2
        np.testing.assert_allclose(t.deltas[l], (t.deltas[l + 1] @ coefs[l + 1].T) * g_prime, rtol=1e-12, atol=1e-15)
    n = len(X)
    for l in range(3):  # ∂L/∂W = δ hᵀ / n + (α/n) W
        np.testing.assert_allclose(t.coef_grads[l], t.activations[l].T @ t.deltas[l] / n + 0.2 / n * coefs[l],
                                   rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(t.intercept_grads[l], t.deltas[l].mean(axis=0), rtol=1e-12, atol=1e-15)
    assert all(not a.flags.writeable for a in t.deltas + t.coef_grads)


# ----------------------------------------------------------------------------- against scikit-learn
def _sklearn_from(coefs, intercepts, X, y, **params):
    """scikit-learn's MLPClassifier set to start from these weights (a first fit lays out its state)."""
    model = sk_neural.MLPClassifier(max_iter=1, warm_start=True, random_state=0, **params)
    _fit_quietly(model, X, y)
    model.coefs_ = [c.copy() for c in coefs]
    model.intercepts_ = [b.copy() for b in intercepts]
    model.loss_curve_, model.n_iter_ = [], 0
    return model


@needs_sklearn
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_loss_and_probabilities_equal_sklearn(activation, n_classes):
    X, y = _data(n_classes, seed=3, n=60)
    X_new, _ = _data(n_classes, seed=4, n=25)
    hidden, alpha = (6, 4), 0.7
    coefs, intercepts = _start(_units(X, hidden, n_classes), activation, seed=5)
    ours = MLPClassifier(hidden, activation=activation, alpha=alpha, initial_weights=(coefs, intercepts))
    first = next(ours.fit_steps(X, y))  # the fitted state is the starting weights
    ref = _sklearn_from(coefs, intercepts, X, y, hidden_layer_sizes=hidden, activation=activation, alpha=alpha,
                        solver="sgd")
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    np.testing.assert_allclose(ours.predict_proba(X_new), ref.predict_proba(X_new), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(first.predict_proba(X_new), ref.predict_proba(X_new), rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(ours.predict(X_new), ref.predict(X_new))
    # scikit-learn's definition: mean log-loss + α/(2n) Σ‖W‖² (biases not penalised)
    penalty = alpha / (2 * len(X)) * sum(float(np.sum(c * c)) for c in coefs)
    expected = sk_metrics.log_loss(y, ref.predict_proba(X), labels=ref.classes_) + penalty
    loss = ours.loss_and_gradients(X, y)[0]
    assert loss == pytest.approx(expected, rel=1e-12)
    assert first.loss == pytest.approx(loss, rel=1e-14)


@needs_sklearn
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_full_batch_sgd_equals_sklearn_for_20_epochs(activation, n_classes):
    X, y = _data(n_classes, seed=6, n=80)
    hidden, alpha, eta = (7, 5), 0.01, 0.3
    coefs, intercepts = _start(_units(X, hidden, n_classes), activation, seed=8)
    ours = MLPClassifier(hidden, activation=activation, alpha=alpha, learning_rate=eta, max_iter=20, tol=0.0,
                         initial_weights=(coefs, intercepts)).fit(X, y)
    ref = _sklearn_from(coefs, intercepts, X, y, hidden_layer_sizes=hidden, activation=activation, alpha=alpha,
                        solver="sgd", learning_rate="constant", learning_rate_init=eta, momentum=0.0,
                        batch_size=len(X), shuffle=False, tol=0.0, n_iter_no_change=10**6)
    ref.set_params(max_iter=20)
    _fit_quietly(ref, X, y)
    assert ours.n_iter_ == ref.n_iter_ == 20
    for a, b in zip(ours.coefs_ + ours.intercepts_, ref.coefs_ + ref.intercepts_):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(ours.loss_curve_, ref.loss_curve_, rtol=1e-8)
    assert np.max(np.abs(ours.coefs_[0] - coefs[0])) > 1e-3  # the weights did move


@needs_sklearn
@pytest.mark.parametrize("solver, params", [("sgd", {"momentum": 0.8}), ("adam", {})], ids=["momentum", "adam"])
def test_momentum_and_adam_equal_sklearn(solver, params):
    X, y = _data(3, seed=9, n=50)
    coefs, intercepts = _start(_units(X, (6,), 3), "tanh", seed=10)
    ours = MLPClassifier((6,), learning_rate=0.05, solver=solver, max_iter=15, tol=0.0, alpha=0.01,
                         initial_weights=(coefs, intercepts), **params).fit(X, y)
    ref = _sklearn_from(coefs, intercepts, X, y, hidden_layer_sizes=(6,), activation="tanh", solver=solver,
                        learning_rate_init=0.05,
                        alpha=0.01, batch_size=len(X), shuffle=False, tol=0.0, n_iter_no_change=10**6,
                        nesterovs_momentum=False, momentum=params.get("momentum", 0.9))
    ref.set_params(max_iter=15)
    _fit_quietly(ref, X, y)
    for a, b in zip(ours.coefs_ + ours.intercepts_, ref.coefs_ + ref.intercepts_):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)


def _fit_quietly(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)


# ----------------------------------------------------------------------------- training and snapshots
def test_snapshots_tell_the_training():
    X, y = _data(2, seed=11, n=90)
    X_val, y_val = _data(2, seed=12, n=30)
    model = MLPClassifier((6,), learning_rate=0.5, max_iter=12, random_state=3)
    snaps = list(model.fit_steps(X, y, X_val=X_val, y_val=y_val))
    assert [s.step for s in snaps] == list(range(13)) and [s.epoch for s in snaps] == list(range(13))
    assert all(isinstance(s, MLPSnapshot) and s.batch == 0 for s in snaps)
    assert [s.n_updates for s in snaps] == list(range(13))
    last = snaps[-1]
    for a, b in zip(last.coefs + last.intercepts, model.coefs_ + model.intercepts_):
        np.testing.assert_array_equal(a, b)  # the last snapshot is the fitted state
        assert not a.flags.writeable
    # each snapshot's numbers are those of its own weights
    for s in (snaps[0], snaps[5], last):
        probe = MLPClassifier((6,), initial_weights=(list(s.coefs), list(s.intercepts)))
        loss, cg, ig = probe.loss_and_gradients(X, y)
        assert s.loss == pytest.approx(loss, rel=1e-12)
        assert s.grad_norm == pytest.approx(np.linalg.norm(_flat(cg + ig)), rel=1e-12)
        p_val = s.predict_proba(X_val)[np.arange(len(y_val)), y_val]
        assert s.val_loss == pytest.approx(-np.mean(np.log(p_val)), rel=1e-12)
        assert s.val_error == pytest.approx(np.mean(np.argmax(s.predict_proba(X_val), axis=1) != y_val))
        assert s.train_error == pytest.approx(np.mean(np.argmax(s.predict_proba(X), axis=1) != y))
        hidden, out = s.layer_outputs(X_val)  # the units' values are those of a forward pass
        trace = backprop_trace(X_val, y_val, s.coefs, s.intercepts)
        np.testing.assert_allclose(hidden, trace.activations[1], rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(out[:, 0], s.predict_proba(X_val)[:, 1], rtol=1e-13)
        single = s.predict_proba(X_val, np.float32)  # for pictures: single precision, seven digits
        assert single.dtype == np.float32
        np.testing.assert_allclose(single, s.predict_proba(X_val), atol=1e-6)
    # full batch: the loss curve holds the loss at each epoch's start, as scikit-learn's
    assert model.loss_curve_ == pytest.approx([s.loss for s in snaps[:-1]], rel=1e-15)
    assert [s.epoch_loss for s in snaps[1:]] == model.loss_curve_ and snaps[0].epoch_loss is None
    assert last.loss < snaps[0].loss and model.n_iter_ == 12
    # the same seed replays the same run
    again = list(MLPClassifier((6,), learning_rate=0.5, max_iter=12, random_state=3).fit_steps(X, y))
    np.testing.assert_array_equal(again[-1].coefs[0], last.coefs[0])


def test_mini_batches_per_batch_snapshots_and_sgd_loss_curve():
    X, y = _data(3, seed=13, n=50)
    model = MLPClassifier((5,), batch_size=16, learning_rate=0.2, max_iter=3, random_state=0)
    snaps = list(model.fit_steps(X, y, per_batch=True))
    # 50 points in batches of 16: 4 updates an epoch, snapshots after the first 3 and at the epoch's end
    assert [(s.epoch, s.batch) for s in snaps[:6]] == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1)]
    assert snaps[-1].n_updates == 12 and model.n_iter_ == 3
    epoch_ends = [s for s in snaps if s.batch == 0][1:]
    assert [s.epoch_loss for s in epoch_ends] == model.loss_curve_
    plain = list(MLPClassifier((5,), batch_size=16, learning_rate=0.2, max_iter=3, random_state=0).fit_steps(X, y))
    assert len(plain) == 4
    np.testing.assert_array_equal(plain[-1].coefs[0], snaps[-1].coefs[0])  # same updates either way


def test_training_stops_at_tol():
    X, y = _data(2, seed=14)
    model = MLPClassifier((3,), learning_rate=1.0, max_iter=500, tol=0.05, random_state=0).fit(X, y)
    assert model.converged_ and model.n_iter_ < 500
    assert model.last_snapshot_.grad_norm <= 0.05


def test_xor_and_circles_are_learned():
    from smlengine.datasets import make_dataset

    for name in ("xor", "circles"):
        X, y = make_dataset(name, 300, random_state=5)
        model = MLPClassifier((8,), learning_rate=1.0, max_iter=200, random_state=5).fit(X, y)
        assert model.score(X, y) >= 0.95, name


@needs_sklearn
def test_no_hidden_layer_is_logistic_regression():
    X, y = _data(2, seed=15)
    model = MLPClassifier((), alpha=0.0, learning_rate=1.0, max_iter=3000, tol=1e-9, random_state=0).fit(X, y)
    ref = sk_linear.LogisticRegression(C=1e12, tol=1e-12, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(model.coefs_[0][:, 0], ref.coef_[0], rtol=1e-4)


def test_a_too_big_learning_rate_diverges_with_a_clear_message():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)) * 1e60
    y = (X[:, 0] > 0).astype(int)
    model = MLPClassifier((4,), activation="relu", learning_rate=1000.0, max_iter=50, random_state=0)
    snaps = []
    with pytest.raises(ValueError, match=r"^the training diverged at epoch \d+: .*learning_rate \(now 1000\)"):
        for s in model.fit_steps(X, y):
            snaps.append(s)
    assert snaps, "the finite snapshots before the overflow were yielded"
    for s in snaps:
        assert np.isfinite(s.loss) and np.isfinite(s.grad_norm)
        assert all(np.isfinite(w).all() for w in s.coefs + s.intercepts)
    assert all(np.isfinite(w).all() for w in model.coefs_)  # the fitted state is the last finite one


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("params, data, message", [
    ({"activation": "sigmoid"}, None, "activation must be one of 'tanh', 'relu', 'logistic'"),
    ({"hidden_layer_sizes": (8, 0)}, None, "hidden_layer_sizes must be"),
    ({"hidden_layer_sizes": (10_000,)}, None, r"hidden_layer_sizes must be an int in \[1, 1024\]"),
    ({"learning_rate": 0.0}, None, r"learning_rate must be a float in \(0, 1000\]"),
    ({"momentum": 1.0}, None, r"momentum must be a float in \[0, 1\)"),
    ({"batch_size": 0}, None, "batch_size must be"),
    ({}, "one class", "y needs at least two classes"),
    ({}, "nan", "X contains 1 NaN"),
    ({"initial_weights": ([np.zeros((2, 3))], [np.zeros(3)])}, None, "initial_weights must hold 2 weight matrices"),
    ({"initial_weights": ([np.zeros((2, 4)), np.zeros((4, 1))], [np.zeros(3), np.zeros(1)])}, None,
     r"initial_weights layer 0: expected shapes \(2, 4\) and \(4,\)"),
    ({"initial_weights": ([np.zeros((2, 4)), np.zeros((4, 2))], [np.zeros(4), np.zeros(2)])}, None,
     r"initial_weights layer 1: expected shapes \(4, 1\)"),
])
def test_bad_input_is_refused_clearly(params, data, message):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    y = np.array([0, 0, 1, 1])
    if data == "one class":
        y = np.zeros(4, int)
    elif data == "nan":
        X = X.copy()
        X[0, 0] = np.nan
    with pytest.raises((ValueError, TypeError), match=message):
        MLPClassifier(**{"hidden_layer_sizes": (4,), **params}).fit(X, y)


def test_validation_data_must_match():
    X, y = _data(2)
    with pytest.raises(ValueError, match="X_val and y_val go together"):
        next(MLPClassifier().fit_steps(X, y, X_val=X))
    with pytest.raises(ValueError, match="X_val has 2 features, but the model was fitted with 3"):
        next(MLPClassifier().fit_steps(X, y, X_val=X[:, :2], y_val=y))
    with pytest.raises(ValueError, match=r"y_val has labels the training data does not: \[7\]"):
        next(MLPClassifier().fit_steps(X, y, X_val=X[:2], y_val=[0, 7]))
    with pytest.raises(ValueError, match="this MLPClassifier is not fitted yet"):
        MLPClassifier().predict(X)


def test_absurd_sizes_are_refused_before_any_allocation():
    X, y = _data(2, n=10)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"hidden_layer_sizes must be an int in \[1, 1024\]"):
            MLPClassifier(hidden_layer_sizes=10_000).fit(X, y)
        with pytest.raises(ValueError, match="hidden_layer_sizes must be .*tuple of at most 10 ints"):
            MLPClassifier(hidden_layer_sizes=(8,) * 11).fit(X, y)
        wide = np.zeros((2, 30_000))  # 30,000 features × 1,000 units: too many weights
        with pytest.raises(ValueError, match=r"a network of 30,002,001 weights .* is too large"):
            MLPClassifier(hidden_layer_sizes=(1000,)).fit(wide, [0, 1])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < wide.nbytes + 2 * 2**20, peak


def test_memory_of_a_pass_does_not_grow_with_the_data():
    """The passes go over blocks of rows: 50,000 points and 32 units never hold (50,000 × 32) arrays."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50_000, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    whole = X.shape[0] * 32 * 8  # one whole-data array of the hidden layer: 12.8 MB
    tracemalloc.start()
    try:
        MLPClassifier((32,), max_iter=1, random_state=0).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < whole / 2, peak
