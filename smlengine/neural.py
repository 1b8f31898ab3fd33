"""Neural networks: the multilayer perceptron trained by backpropagation and gradient descent.

The course's feed-forward network, with h⁽⁰⁾ = x and the weights in scikit-learn's shapes
(W⁽ˡ⁾ maps the units of layer l − 1 to those of layer l; in code ``coefs[l - 1]`` of shape
(units below, units above), applied to rows as h W + b):

    a⁽ˡ⁾ = W⁽ˡ⁾ h⁽ˡ⁻¹⁾ + b⁽ˡ⁾,   h⁽ˡ⁾ = g(a⁽ˡ⁾),   g ∈ {tanh, ReLU, logistic},
    p(y = k | x) = softmax(a⁽ᴸ⁾)ₖ.

With two classes the output is one logistic unit p(y = 1 | x) = σ(a⁽ᴸ⁾) (scikit-learn's
shape), which is the softmax over the logits (0, a⁽ᴸ⁾). The loss over n points is the mean
cross-entropy plus weight decay on the weights (the biases are not penalised):

    L = −(1/n) Σᵢ log p(yᵢ | xᵢ) + α/(2n) Σₗ ‖W⁽ˡ⁾‖²

(probabilities clipped to [ε, 1 − ε] inside the logarithm, ε the float64 machine epsilon, as
scikit-learn's log-loss). Backpropagation gives its gradient in one backward sweep:

    δ⁽ᴸ⁾ = p − y (y one-hot),   δ⁽ˡ⁾ = (W⁽ˡ⁺¹⁾ᵀ δ⁽ˡ⁺¹⁾) ⊙ g′(a⁽ˡ⁾),
    ∂L/∂W⁽ˡ⁾ = (1/n) Σᵢ δ⁽ˡ⁾ᵢ h⁽ˡ⁻¹⁾ᵢᵀ + (α/n) W⁽ˡ⁾,   ∂L/∂b⁽ˡ⁾ = (1/n) Σᵢ δ⁽ˡ⁾ᵢ.

Gradient descent steps w ← w − η ∇L over the whole data (``batch_size=None``) or over
mini-batches of a shuffled epoch (stochastic gradient descent), with momentum
v ← μ v − η ∇L, w ← w + v, or Adam (Kingma & Ba 2015). This is scikit-learn's
``MLPClassifier`` (``solver="sgd"`` with a constant learning rate and no Nesterov momentum, or
``solver="adam"``); from the same start, full-batch steps give its weights to rounding.

The arithmetic (activations, blocked forward and backward passes, update rules) lives in
:mod:`smlengine._neural_core`; this module holds the estimator, its snapshots and the one-point
views of backpropagation the lab draws (:func:`backprop_trace`, :func:`check_gradients`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ._base import (
    MAX_ABS_VALUE,
    BaseEstimator,
    ClassifierMixin,
    IterativeMixin,
    Snapshot,
    check_array,
    check_random_state,
    check_X_y,
    frozen_array,
)
from ._neural_core import (
    ACTIVATIONS,
    Adam,
    Momentum,
    Workspace,
    block_rows,
    gradient_pass,
    loss_and_error,
    output_layer,
    activate,
    apply_derivative,
)
from ._params import Constraint, InstanceOf, Integral, Interval, Options, RandomState, Real

__all__ = ["MLPClassifier", "MLPSnapshot", "BackpropTrace", "GradientCheck", "backprop_trace", "check_gradients",
           "ACTIVATIONS", "MAX_UNITS", "MAX_LAYERS", "MAX_WEIGHTS", "MAX_LEARNING_RATE", "MAX_ALPHA"]

#: most units in one hidden layer (a wider layer is a typing slip, not a teaching network)
MAX_UNITS = 1024
#: most hidden layers
MAX_LAYERS = 10
#: most weights and biases in one network (160 MB per copy; the optimiser keeps up to four)
MAX_WEIGHTS = 20_000_000
#: largest learning rate accepted (a million times the usual 0.001 to 1)
MAX_LEARNING_RATE = 1e3
#: largest weight decay α
MAX_ALPHA = 1e6


class _LayerSizes(Constraint):
    """A tuple or list of 0 to MAX_LAYERS ints, each in [1, MAX_UNITS]."""

    def accepts_type(self, value) -> bool:
        return isinstance(value, (tuple, list))

    def is_satisfied_by(self, value) -> bool:
        return (isinstance(value, (tuple, list)) and len(value) <= MAX_LAYERS
                and all(isinstance(u, numbers.Integral) and not isinstance(u, (bool, np.bool_))
                        and 1 <= int(u) <= MAX_UNITS for u in value))

    def __str__(self) -> str:
        return f"a tuple of at most {MAX_LAYERS} ints in [1, {MAX_UNITS}]"


def _hidden_sizes(value) -> tuple[int, ...]:
    return (int(value),) if isinstance(value, numbers.Integral) else tuple(int(u) for u in value)


def _n_weights(units) -> int:
    return sum(a * b + b for a, b in zip(units[:-1], units[1:]))


@dataclass(frozen=True, kw_only=True, eq=False)
class MLPSnapshot(Snapshot):
    """The network after some updates: its weights and the numbers of that moment.

    Attributes
    ----------
    epoch : int
        Passes over the training data completed (0 for the starting weights).
    batch : int
        Mini-batches done in the epoch under way (0 at the end of an epoch).
    n_updates : int
        Gradient steps taken since the start.
    coefs, intercepts : tuple of ndarray
        W⁽ˡ⁾ of shape (units below, units above) and b⁽ˡ⁾, layer by layer (frozen copies).
    loss : float
        L at these weights over the whole training set (mean cross-entropy + α/(2n) Σ‖W‖²).
    data_loss : float
        Its cross-entropy part alone, comparable with ``val_loss``.
    grad_norm : float
        ‖∇L‖ at these weights over the whole training set (all weights and biases).
    train_error : float
        Fraction of training points misclassified.
    epoch_loss : float or None
        scikit-learn's ``loss_curve_`` entry of the epoch just finished: the mean of its
        mini-batch losses, each taken before its update (None at the start and mid-epoch).
    val_loss, val_error : float or None
        Cross-entropy and error on the validation points (None without them).
    converged : bool
        True once ``grad_norm <= tol``.
    activation : str
        The hidden units' g.
    classes : ndarray
        The class labels, in the order of the output probabilities.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.neural import MLPClassifier
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> snaps = list(MLPClassifier((4,), learning_rate=0.5, max_iter=3, random_state=0).fit_steps(X, [0, 0, 1, 1]))
    >>> [s.epoch for s in snaps], [w.shape for w in snaps[-1].coefs]
    ([0, 1, 2, 3], [(2, 4), (4, 1)])
    >>> snaps[-1].predict_proba(X).shape
    (4, 2)
    >>> [h.shape for h in snaps[-1].layer_outputs(X)]  # the 4 hidden units, then the output unit
    [(4, 4), (4, 1)]
    """

    epoch: int
    batch: int
    n_updates: int
    coefs: tuple
    intercepts: tuple
    loss: float
    data_loss: float
    grad_norm: float
    train_error: float
    epoch_loss: float | None = None
    val_loss: float | None = None
    val_error: float | None = None
    converged: bool = False
    activation: str = "tanh"
    classes: np.ndarray | None = None

    def predict_proba(self, X, dtype=np.float64) -> np.ndarray:
        """p(y = k | x) of the network in this snapshot, one column per class.

        ``dtype=np.float32`` computes in single precision (about seven digits, a few times
        faster): enough for a picture of the probabilities on a grid.
        """
        X = np.ascontiguousarray(X, dtype=dtype)
        return _probabilities(X, self.coefs, self.intercepts, self.activation)

    def layer_outputs(self, X, dtype=np.float64) -> tuple[np.ndarray, ...]:
        """h⁽¹⁾, ..., h⁽ᴸ⁾ of every row of X: each hidden layer's units (the features the network
        learned), then the output unit(s) as the network computes them (one logistic column
        for two classes); ``dtype`` as in :meth:`predict_proba`."""
        X = np.ascontiguousarray(X, dtype=dtype)
        units = [X.shape[1], *(W.shape[1] for W in self.coefs)]
        ws = Workspace(units, block_rows(units, max(len(X), 1)), X.dtype)
        coefs, intercepts = _cast(self.coefs, X.dtype), _cast(self.intercepts, X.dtype)
        out = [np.empty((len(X), u), X.dtype) for u in units[1:]]
        for start in range(0, len(X), ws.rows):
            for o, h in zip(out, ws.forward(X[start:start + ws.rows], coefs, intercepts, self.activation)):
                o[start:start + ws.rows] = h
        return tuple(out)


def _cast(arrays, dtype) -> list:
    return [np.asarray(a, dtype=dtype) for a in arrays]


def _probabilities(X, coefs, intercepts, activation) -> np.ndarray:
    """p(y = k | x) of the rows of X, computed in X's dtype (float64, or float32 for pictures)."""
    units = [X.shape[1], *(W.shape[1] for W in coefs)]
    ws = Workspace(units, block_rows(units, max(len(X), 1)), X.dtype)
    coefs, intercepts = _cast(coefs, X.dtype), _cast(intercepts, X.dtype)
    out = np.empty((len(X), units[-1]), X.dtype)
    for start in range(0, len(X), ws.rows):
        out[start:start + ws.rows] = ws.forward(X[start:start + ws.rows], coefs, intercepts, activation)[-1]
    return np.hstack([1.0 - out, out]) if units[-1] == 1 else out


@dataclass
class _Problem:
    """Training data as the passes use them: contiguous X, class indices, targets in the output's shape."""

    X: np.ndarray
    y_idx: np.ndarray
    T: np.ndarray
    classes: np.ndarray
    units: list


def _targets(y_idx, n_classes) -> np.ndarray:
    if n_classes == 2:
        return y_idx.astype(np.float64)[:, None]
    T = np.zeros((len(y_idx), n_classes))
    T[np.arange(len(y_idx)), y_idx] = 1.0
    return T


class MLPClassifier(ClassifierMixin, IterativeMixin, BaseEstimator):
    """Multilayer perceptron classifier trained by backpropagation and gradient descent.

    Minimises L = −(1/n) Σᵢ log p(yᵢ | xᵢ) + α/(2n) Σₗ ‖W⁽ˡ⁾‖² (see the module's equations)
    by steps w ← w − η ∇L over the whole data or over shuffled mini-batches, with momentum or
    Adam. Training stops after ``max_iter`` epochs or once ‖∇L‖ ≤ ``tol`` at the end of an
    epoch. Steps so long that the weights overflow stop the training with a ValueError that
    names the learning rate (weights beyond ±1e100, the engine's range, count as overflowed).

    Parameters
    ----------
    hidden_layer_sizes : tuple of int or int, default=(8,)
        Units of each hidden layer (at most 10 layers of 1 to 1024 units; ``()`` is logistic
        regression).
    activation : {'tanh', 'relu', 'logistic'}, default='tanh'
        g of the hidden units.
    alpha : float, default=1e-4
        Weight decay α ≥ 0 (at most 1e6).
    learning_rate : float, default=0.1
        Step size η in (0, 1000] (Adam's initial step).
    batch_size : int or None, default=None
        Points per mini-batch; None (or at least n) steps on the whole data once per epoch.
    momentum : float, default=0.0
        μ in [0, 1) of ``solver='sgd'`` (Adam keeps β₁ = 0.9 and ignores it).
    solver : {'sgd', 'adam'}, default='sgd'
        Gradient descent (with momentum) or Adam.
    max_iter : int, default=200
        Epochs, at most 10⁶.
    tol : float, default=1e-6
        Stop once ‖∇L‖ over the training set is at most ``tol`` after an epoch.
    initial_weights : (coefs, intercepts) or None, default=None
        Starting weights in scikit-learn's shapes (coefs[l] of shape (units below, units
        above), intercepts[l] of shape (units above,); one output column for two classes).
        None draws them uniformly in ±√(6 / (fan_in + fan_out)) (√(2 / ...) for the logistic
        activation), as scikit-learn.
    random_state : int, numpy Generator or None, default=None
        Seeds the starting weights and the order of the mini-batches.

    Attributes
    ----------
    classes_ : ndarray
        The class labels (sorted).
    n_features_in_ : int
        Features seen in ``fit``.
    coefs_, intercepts_ : list of ndarray
        The weights W⁽ˡ⁾ and biases b⁽ˡ⁾ (scikit-learn's shapes).
    out_activation_ : str
        'logistic' (two classes, one output unit) or 'softmax'.
    loss_curve_ : list of float
        One entry per epoch, as scikit-learn's: the mean of the epoch's mini-batch losses,
        each at the weights before its update (for full batches: L at the epoch's start).
    n_iter_ : int
        Epochs run.
    converged_ : bool
        True when training stopped on ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.neural import MLPClassifier
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])  # XOR: no line separates the classes
    >>> clf = MLPClassifier((4,), solver="adam", learning_rate=0.1, max_iter=300, random_state=0).fit(X, y)
    >>> clf.predict(X), [W.shape for W in clf.coefs_]
    (array([0, 0, 1, 1]), [(2, 4), (4, 1)])
    >>> loss, coef_grads, intercept_grads = clf.loss_and_gradients(X, y)
    >>> [g.shape for g in coef_grads], [g.shape for g in intercept_grads]
    ([(2, 4), (4, 1)], [(4,), (1,)])
    """

    _parameter_constraints = {
        "hidden_layer_sizes": [Interval(Integral, 1, MAX_UNITS), _LayerSizes()],
        "activation": [Options(ACTIVATIONS)],
        "alpha": [Interval(Real, 0, MAX_ALPHA)],
        "learning_rate": [Interval(Real, 0, MAX_LEARNING_RATE, closed="right")],
        "batch_size": [Interval(Integral, 1, None), None],
        "momentum": [Interval(Real, 0, 1, closed="left")],
        "solver": [Options(("sgd", "adam"))],
        "max_iter": [Interval(Integral, 1, 1_000_000)],
        "tol": [Interval(Real, 0, None)],
        "initial_weights": [InstanceOf(tuple, list, name="a pair (coefs, intercepts)"), None],
        "random_state": [RandomState(), None],
    }

    def __init__(self, hidden_layer_sizes=(8,), activation="tanh", alpha=1e-4, learning_rate=0.1, batch_size=None,
                 momentum=0.0, solver="sgd", max_iter=200, tol=1e-6, initial_weights=None, random_state=None):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.alpha = alpha
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.momentum = momentum
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.initial_weights = initial_weights
        self.random_state = random_state

    # ------------------------------------------------------------------ set-up
    def _problem(self, X, y) -> _Problem:
        X, y = check_X_y(X, y, max_abs=MAX_ABS_VALUE)
        classes, y_idx = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"y needs at least two classes, got {len(classes)}")
        units = [X.shape[1], *_hidden_sizes(self.hidden_layer_sizes), 1 if len(classes) == 2 else len(classes)]
        n_weights = _n_weights(units)
        if n_weights > MAX_WEIGHTS:
            raise ValueError(f"hidden_layer_sizes: a network of {n_weights:,} weights for {X.shape[1]:,} features "
                             f"is too large (at most {MAX_WEIGHTS:,}); use fewer units")
        return _Problem(np.ascontiguousarray(X), y_idx.astype(np.intp).ravel(), _targets(y_idx.ravel(), len(classes)),
                        classes, units)

    def _start(self, units, rng) -> tuple[list, list]:
        """The starting weights: ``initial_weights`` checked against the network's shapes, or Glorot's."""
        if self.initial_weights is None:
            factor = 2.0 if self.activation == "logistic" else 6.0
            coefs, intercepts = [], []
            for fan_in, fan_out in zip(units[:-1], units[1:]):
                bound = np.sqrt(factor / (fan_in + fan_out))
                coefs.append(rng.uniform(-bound, bound, (fan_in, fan_out)))
                intercepts.append(rng.uniform(-bound, bound, fan_out))
            return coefs, intercepts
        try:
            coefs, intercepts = self.initial_weights
        except (TypeError, ValueError):
            raise ValueError("initial_weights must be a pair (coefs, intercepts)") from None
        L = len(units) - 1
        if not isinstance(coefs, (list, tuple)) or not isinstance(intercepts, (list, tuple)) or \
                len(coefs) != L or len(intercepts) != L:
            raise ValueError(f"initial_weights must hold {L} weight matrices and {L} bias vectors "
                             f"for layers of {units} units")
        out_c, out_b = [], []
        for l, (W, b) in enumerate(zip(coefs, intercepts)):
            W = check_array(W, name=f"initial_weights coefs[{l}]", max_abs=MAX_ABS_VALUE)
            b = check_array(b, name=f"initial_weights intercepts[{l}]", ndim=1, max_abs=MAX_ABS_VALUE)
            if W.shape != (units[l], units[l + 1]) or b.shape != (units[l + 1],):
                raise ValueError(f"initial_weights layer {l}: expected shapes {(units[l], units[l + 1])} and "
                                 f"{(units[l + 1],)} for layers of {units} units, got {W.shape} and {b.shape}")
            out_c.append(np.array(W, dtype=np.float64))
            out_b.append(np.array(b, dtype=np.float64))
        return out_c, out_b

    def _encode(self, y, n: int, classes, name: str = "y") -> np.ndarray:
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != n:
            raise ValueError(f"{name} must be 1-D with one label per row of X, got shape {y.shape}")
        idx = np.searchsorted(classes, y)
        idx = np.clip(idx, 0, len(classes) - 1)
        unknown = classes[idx] != y
        if np.any(unknown):
            raise ValueError(f"{name} has labels the training data does not: {np.unique(y[unknown])[:5].tolist()}")
        return idx.astype(np.intp)

    # ------------------------------------------------------------------ training
    def fit_steps(self, X, y, *, X_val=None, y_val=None, per_batch=False):
        """Train epoch by epoch (and mini-batch by mini-batch when ``per_batch``).

        Parameters
        ----------
        X : array of shape (n, d)
            Training points.
        y : array of shape (n,)
            Their labels (at least two classes).
        X_val, y_val : arrays or None
            Validation points and labels: each snapshot then reports their loss and error.
        per_batch : bool
            Also yield a snapshot after every mini-batch update, not only at the end of
            each epoch.

        Yields
        ------
        MLPSnapshot
            The starting weights (step 0), then the weights after every epoch (and every
            mini-batch when asked), each with the loss and gradient over the whole training
            set at those weights. The last snapshot equals the fitted state.
        """
        self.validate_params()
        prob = self._problem(X, y)
        val = None
        if (X_val is None) != (y_val is None):
            raise ValueError("X_val and y_val go together: give both or neither")
        if X_val is not None:
            Xv = np.ascontiguousarray(check_array(X_val, name="X_val", n_features=prob.X.shape[1],
                                                  max_abs=MAX_ABS_VALUE))
            val = (Xv, self._encode(y_val, len(Xv), prob.classes, "y_val"))
        rng = check_random_state(self.random_state)
        coefs, intercepts = self._start(prob.units, rng)
        n = len(prob.X)
        batch = n if self.batch_size is None else min(int(self.batch_size), n)
        ws = Workspace(prob.units, block_rows(prob.units, n))
        params = coefs + intercepts
        optimizer = Adam(params, self.learning_rate) if self.solver == "adam" else \
            Momentum(params, self.learning_rate, self.momentum)
        coef_grads = [np.empty_like(W) for W in coefs]
        intercept_grads = [np.empty_like(b) for b in intercepts]
        grads = coef_grads + intercept_grads
        act = self.activation
        losses: list[float] = []
        self.classes_, self.n_features_in_ = prob.classes, prob.X.shape[1]
        self.out_activation_ = "logistic" if prob.units[-1] == 1 else "softmax"

        def full_pass(rows=None):
            # overflow is checked after the pass (a non-finite loss or weight stops the run with a message)
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                return gradient_pass(prob.X, prob.T, prob.y_idx, coefs, intercepts, act, self.alpha, ws, coef_grads,
                                     intercept_grads, rows=rows)

        state = {"step": 0, "updates": 0}

        def snapshot(epoch, batch_done, measured, epoch_loss=None):
            loss, data_loss, error = measured
            with np.errstate(over="ignore", invalid="ignore"):
                grad_norm = float(np.sqrt(sum(float(np.dot(g.ravel(), g.ravel())) for g in grads)))
            if not (np.isfinite(loss) and np.isfinite(grad_norm)):
                raise self._diverged(epoch)
            vl, ve = None, None
            if val is not None:
                with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                    vl, ve = loss_and_error(*val, coefs, intercepts, act, ws)
                if not np.isfinite(vl):
                    raise self._diverged(epoch)
            converged = grad_norm <= self.tol and batch_done == 0
            snap = MLPSnapshot(step=state["step"], epoch=epoch, batch=batch_done, n_updates=state["updates"],
                               coefs=tuple(frozen_array(W) for W in coefs),
                               intercepts=tuple(frozen_array(b) for b in intercepts),
                               loss=float(loss), data_loss=float(data_loss), grad_norm=grad_norm,
                               train_error=float(error), epoch_loss=epoch_loss, val_loss=vl, val_error=ve,
                               converged=converged, activation=act, classes=frozen_array(prob.classes),
                               progress=min(1.0, epoch / self.max_iter))
            self.coefs_ = [np.array(W) for W in coefs]
            self.intercepts_ = [np.array(b) for b in intercepts]
            self.loss_curve_, self.n_iter_, self.converged_ = losses, epoch, converged  # the list grows with the run
            state["step"] += 1
            return snap

        def step(epoch):
            with np.errstate(over="ignore", invalid="ignore"):
                optimizer.update(params, grads)
            state["updates"] += 1
            # weights beyond the engine's range (or infinite, or NaN) only come from steps that overshoot
            if not all(np.abs(p).max(initial=0.0) <= MAX_ABS_VALUE for p in params):
                raise self._diverged(epoch)

        measured = full_pass()
        snap = snapshot(0, 0, measured)
        yield snap
        for epoch in range(1, self.max_iter + 1):
            if snap.converged:
                return
            if batch >= n:  # full batch: the gradient of the last snapshot is this epoch's step
                losses.append(measured[0])
                step(epoch)
            else:
                order = rng.permutation(n)
                total = 0.0
                for start in range(0, n, batch):
                    rows = order[start:start + batch]
                    total += full_pass(rows)[0] * len(rows)
                    step(epoch)
                    if per_batch and start + batch < n:
                        yield snapshot(epoch - 1, start // batch + 1, full_pass())
                losses.append(total / n)
            measured = full_pass()
            snap = snapshot(epoch, 0, measured, epoch_loss=losses[-1])
            yield snap

    def _diverged(self, epoch) -> ValueError:
        extra = f" or alpha (now {self.alpha:g})" if self.alpha > 1 else ""
        return ValueError(f"the training diverged at epoch {epoch}: the weights overflowed. The steps are too "
                          f"long: lower the learning_rate (now {self.learning_rate:g}){extra}.")

    # ------------------------------------------------------------------ the fitted network
    def loss_and_gradients(self, X, y):
        """The loss and its gradient by backpropagation at the current weights.

        The current weights are the fitted ones; before any fit, the starting weights
        (``initial_weights``, or the seeded random start ``fit`` would take on these data).

        Returns
        -------
        loss : float
            L = mean log-loss + α/(2n) Σ‖W‖² (scikit-learn's).
        coef_grads, intercept_grads : list of ndarray
            ∂L/∂W⁽ˡ⁾ and ∂L/∂b⁽ˡ⁾ in the shapes of ``coefs_`` and ``intercepts_``.
        """
        self.validate_params()
        if hasattr(self, "coefs_"):
            X = np.ascontiguousarray(check_array(X, n_features=self.n_features_in_, max_abs=MAX_ABS_VALUE))
            y_idx = self._encode(y, len(X), self.classes_)
            coefs, intercepts = self.coefs_, self.intercepts_
            units = [X.shape[1], *(W.shape[1] for W in coefs)]
            T = _targets(y_idx, len(self.classes_))
        else:
            prob = self._problem(X, y)
            X, y_idx, T, units = prob.X, prob.y_idx, prob.T, prob.units
            coefs, intercepts = self._start(units, check_random_state(self.random_state))
        coef_grads = [np.empty_like(W) for W in coefs]
        intercept_grads = [np.empty_like(b) for b in intercepts]
        ws = Workspace(units, block_rows(units, len(X)))
        loss = gradient_pass(X, T, y_idx, coefs, intercepts, self.activation, self.alpha, ws, coef_grads,
                             intercept_grads)[0]
        return loss, coef_grads, intercept_grads

    def predict_proba(self, X) -> np.ndarray:
        """p(y = k | x), one column per class of ``classes_``."""
        self._check_fitted("coefs_")
        X = np.ascontiguousarray(check_array(X, n_features=self.n_features_in_, max_abs=MAX_ABS_VALUE))
        return _probabilities(X, self.coefs_, self.intercepts_, self.activation)

    def predict(self, X) -> np.ndarray:
        """The class of largest probability (for two classes: class 1 where p > 1/2)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


# ---------------------------------------------------------------------- backpropagation for one point
@dataclass(frozen=True, kw_only=True, eq=False)
class BackpropTrace:
    """Every number of one forward and backward pass (rows = points), layer by layer.

    Attributes
    ----------
    pre_activations : tuple of ndarray
        a⁽ˡ⁾ for l = 1 .. L, shape (points, units).
    activations : tuple of ndarray
        h⁽ˡ⁾ for l = 0 .. L (h⁽⁰⁾ = x; the last one holds the output probabilities, one
        column for two classes).
    deltas : tuple of ndarray
        δ⁽ˡ⁾ = ∂(n L)/∂a⁽ˡ⁾ for l = 1 .. L, shape (points, units).
    loss : float
        L at these weights over these points.
    coef_grads, intercept_grads : tuple of ndarray
        ∂L/∂W⁽ˡ⁾ and ∂L/∂b⁽ˡ⁾.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.neural import backprop_trace
    >>> W = [np.array([[1.0, -1.0], [0.5, 0.5]]), np.array([[1.0], [-1.0]])]
    >>> b = [np.zeros(2), np.zeros(1)]
    >>> t = backprop_trace([[1.0, 2.0]], [1], W, b, activation="relu")
    >>> t.pre_activations[0], t.activations[1], t.deltas[-1]
    (array([[2., 0.]]), array([[2., 0.]]), array([[-0.11920292]]))
    >>> t.coef_grads[0]
    array([[-0.11920292,  0.        ],
           [-0.23840584,  0.        ]])
    """

    pre_activations: tuple
    activations: tuple
    deltas: tuple
    loss: float
    coef_grads: tuple
    intercept_grads: tuple


def _weights(coefs, intercepts) -> tuple[list, list, list]:
    if len(coefs) != len(intercepts) or not coefs:
        raise ValueError("coefs and intercepts must be two lists of the same length (one entry per layer)")
    coefs = [check_array(W, name=f"coefs[{l}]", max_abs=MAX_ABS_VALUE) for l, W in enumerate(coefs)]
    intercepts = [check_array(b, name=f"intercepts[{l}]", ndim=1, max_abs=MAX_ABS_VALUE)
                  for l, b in enumerate(intercepts)]
    units = [coefs[0].shape[0], *(W.shape[1] for W in coefs)]
    for l, (W, b) in enumerate(zip(coefs, intercepts)):
        if W.shape[0] != units[l] or b.shape != (units[l + 1],):
            raise ValueError(f"layer {l}: coefs[{l}] of shape {W.shape} and intercepts[{l}] of shape {b.shape} "
                             f"do not chain with the layer below ({units[l]} units)")
    return coefs, intercepts, units


def backprop_trace(X, y, coefs, intercepts, *, activation="tanh", alpha=0.0) -> BackpropTrace:
    """Forward and backward pass of a few points through the network, keeping every number.

    ``y`` holds class indices (0 .. K − 1, in the order of the output). The arithmetic is the
    one :class:`MLPClassifier` trains with; this form keeps the pre-activations a⁽ˡ⁾ and the
    deltas of every point, for drawing them.
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(map(repr, ACTIVATIONS))}, got {activation!r}")
    coefs, intercepts, units = _weights(coefs, intercepts)
    X = np.ascontiguousarray(check_array(X, n_features=units[0], max_abs=MAX_ABS_VALUE))
    n_classes = 2 if units[-1] == 1 else units[-1]
    y_idx = np.asarray(y)
    if y_idx.shape != (len(X),) or y_idx.dtype.kind not in "iu" or np.any((y_idx < 0) | (y_idx >= n_classes)):
        raise ValueError(f"y must hold one class index in [0, {n_classes - 1}] per row of X")
    with np.errstate(over="ignore", invalid="ignore"):  # huge weights: the values overflow to ±inf, said as such
        return _trace(X, y_idx, coefs, intercepts, units, activation, float(alpha))


def _trace(X, y_idx, coefs, intercepts, units, activation, alpha) -> BackpropTrace:
    n_classes = 2 if units[-1] == 1 else units[-1]
    pre, acts = [], [X]
    for l, (W, b) in enumerate(zip(coefs, intercepts)):
        a = acts[-1] @ W + b
        pre.append(a)
        h = a.copy()
        acts.append(activate(activation, h) if l < len(coefs) - 1 else output_layer(h))
    T = _targets(y_idx.astype(np.intp), n_classes)
    deltas = [None] * len(coefs)
    deltas[-1] = acts[-1] - T
    for l in range(len(coefs) - 1, 0, -1):
        d = deltas[l] @ coefs[l].T
        apply_derivative(activation, acts[l], d, np.empty_like(d))
        deltas[l - 1] = d
    ws = Workspace(units, block_rows(units, len(X)))
    coef_grads = [np.empty_like(W) for W in coefs]
    intercept_grads = [np.empty_like(b) for b in intercepts]
    loss = gradient_pass(X, T, y_idx.astype(np.intp), coefs, intercepts, activation, alpha, ws, coef_grads,
                         intercept_grads)[0]
    freeze = lambda arrays: tuple(frozen_array(a) for a in arrays)  # noqa: E731
    return BackpropTrace(pre_activations=freeze(pre), activations=freeze(acts), deltas=freeze(deltas),
                         loss=float(loss), coef_grads=freeze(coef_grads), intercept_grads=freeze(intercept_grads))


@dataclass(frozen=True, kw_only=True, eq=False)
class GradientCheck:
    """Backpropagation against central finite differences, weight by weight.

    Attributes
    ----------
    backprop, numeric : ndarray
        The gradient by backpropagation and by (L(w + ε eⱼ) − L(w − ε eⱼ)) / 2ε, all weights
        then all biases in layer order.
    relative_error : float
        ‖backprop − numeric‖ / max(‖backprop‖, ‖numeric‖) (0 when both vanish).
    epsilon : float
        The step ε.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.neural import check_gradients
    >>> rng = np.random.default_rng(0)
    >>> W = [rng.normal(size=(2, 3)), rng.normal(size=(3, 1))]
    >>> b = [rng.normal(size=3), rng.normal(size=1)]
    >>> check = check_gradients(rng.normal(size=(5, 2)), [0, 1, 1, 0, 1], W, b, alpha=0.1)
    >>> check.backprop.shape, bool(check.relative_error < 1e-7)
    ((13,), True)
    """

    backprop: np.ndarray
    numeric: np.ndarray
    relative_error: float
    epsilon: float


def check_gradients(X, y, coefs, intercepts, *, activation="tanh", alpha=0.0, epsilon=1e-6) -> GradientCheck:
    """Compare backpropagation's gradient with central finite differences of the loss.

    Costs two loss evaluations per weight: meant for the small networks of a lesson.
    """
    if not (isinstance(epsilon, numbers.Real) and 0 < epsilon <= 1e-2):
        raise ValueError(f"epsilon must be a float in (0, 0.01], got {epsilon!r}")
    trace = backprop_trace(X, y, coefs, intercepts, activation=activation, alpha=alpha)
    coefs, intercepts, _ = _weights(coefs, intercepts)
    params = [np.array(p) for p in (*coefs, *intercepts)]
    L = len(coefs)

    def loss():
        return backprop_trace(X, y, params[:L], params[L:], activation=activation, alpha=alpha).loss

    numeric = []
    for p in params:
        flat = p.reshape(-1)
        for j in range(flat.size):
            keep = flat[j]
            flat[j] = keep + epsilon
            up = loss()
            flat[j] = keep - epsilon
            down = loss()
            flat[j] = keep
            numeric.append((up - down) / (2 * epsilon))
    analytic = np.concatenate([g.ravel() for g in (*trace.coef_grads, *trace.intercept_grads)])
    numeric = np.array(numeric)
    scale = max(float(np.linalg.norm(analytic)), float(np.linalg.norm(numeric)))
    error = float(np.linalg.norm(analytic - numeric) / scale) if scale > 0 else 0.0
    return GradientCheck(backprop=frozen_array(analytic), numeric=frozen_array(numeric), relative_error=error,
                         epsilon=float(epsilon))
