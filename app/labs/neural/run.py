"""The run (Qt-free): a multilayer perceptron trained on the drawn points epoch by epoch, what a
step draws (the probability map, every unit's picture over the plane) and one point's
backpropagation (its forward values, deltas and the update of one SGD step on it alone)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from smlengine import Snapshot, frozen_array
from smlengine.grid import DecisionFrame, decision_frame, grid_points
from smlengine.neural import BackpropTrace, MLPClassifier, MLPSnapshot, backprop_trace

from ...points_data import LabelledRun

OPTIMIZERS = [("gd", "gradient descent"), ("momentum", "momentum"), ("adam", "Adam")]
ACTIVATIONS = [("tanh", "tanh"), ("relu", "ReLU"), ("logistic", "logistic")]
#: pixels on a side of a unit's picture over the plane
THUMB = 33


def network(params: dict, seed: int, **changes) -> MLPClassifier:
    """The lab's network for these parameters (``changes`` override some of them: a side task's copies)."""
    p = {**params, **changes}
    optimizer = p["optimizer"]
    return MLPClassifier(hidden_layer_sizes=(int(p["units"]),) * int(p["layers"]), activation=p["activation"],
                         alpha=float(p["alpha"]), learning_rate=float(p["learning_rate"]),
                         batch_size=int(p["batch_size"]) or None,
                         momentum=float(p["momentum"]) if optimizer == "momentum" else 0.0,
                         solver="adam" if optimizer == "adam" else "sgd", max_iter=int(p["epochs"]),
                         random_state=int(seed))


@dataclass(frozen=True, kw_only=True, eq=False)
class NeuralLabSnapshot(Snapshot):
    """The engine's snapshot of the network (``net``) and the run it belongs to, with the numbers a lesson reads."""

    net: MLPSnapshot
    ctx: LabelledRun
    epoch: int
    loss: float
    train_error: float
    test_error: float | None  # None without test points
    start_loss: float  # the loss of the starting weights: above it, the training diverged


def run_steps(ctx: LabelledRun):
    """Yield the network epoch by epoch (and mini-batch by mini-batch when asked), the test points as validation."""
    model = network(ctx.params, ctx.seed)
    X_val, y_val = (ctx.X_test, ctx.y_test) if ctx.n_test else (None, None)
    start = None
    steps = model.fit_steps(ctx.X_train, ctx.y_train, X_val=X_val, y_val=y_val, per_batch=bool(ctx.params["per_batch"]))
    while True:
        try:
            s = next(steps)
        except StopIteration:
            return
        except ValueError as exc:
            if not str(exc).startswith("the training diverged"):
                raise
            epoch = str(exc).split(":")[0].removeprefix("the training diverged at epoch ")
            raise ValueError(f"The training diverged at epoch {epoch}: the weights overflowed, the steps overshoot. "
                             f"Lower the learning rate η (now {float(ctx.params['learning_rate']):g}).") from None
        start = s.loss if start is None else start
        yield NeuralLabSnapshot(step=s.step, net=s, ctx=ctx, epoch=s.epoch, loss=s.loss, train_error=s.train_error,
                                test_error=s.val_error, start_loss=start, progress=s.progress)


# ---------------------------------------------------------------------- what a step draws
@dataclass(frozen=True, eq=False)
class NeuralFrame:
    """The map of p(+1 | x) − ½ under the points and every unit's picture over ``extent``:
    ``pictures[l]`` is (units, THUMB, THUMB) in [−1, 1], first row at the top (layer 0: x₁, x₂);
    None when no tab shows them."""

    decision: DecisionFrame
    pictures: tuple | None
    extent: tuple


#: weights up to this size are drawn in single precision (beyond it they would overflow float32)
SINGLE_PRECISION_WEIGHTS = 1e30


def _picture_dtype(net: MLPSnapshot):
    """float32 for pictures (their seven digits are more than a screen shows, and they are drawn
    every frame), float64 for networks whose weights float32 cannot hold."""
    largest = max(float(np.abs(w).max(initial=0.0)) for w in (*net.coefs, *net.intercepts))
    return np.float32 if largest < SINGLE_PRECISION_WEIGHTS else np.float64


def probability_map(net: MLPSnapshot, extent, resolution: int = 140) -> DecisionFrame:
    """p(+1 | x) − ½ on a grid over ``extent``: its zero line is the boundary p = ½."""
    dtype = _picture_dtype(net)

    def f(grid):
        with np.errstate(over="ignore", invalid="ignore"):  # a diverging network's values saturate
            return np.nan_to_num(net.predict_proba(grid, dtype)[:, 1].astype(float), nan=0.5) - 0.5

    return decision_frame(f, extent, resolution)


def unit_pictures(net: MLPSnapshot, extent, size: int = THUMB) -> tuple:
    """Each unit's value over the plane, scaled to [−1, 1] the same way for a layer: tanh as it
    is, logistic units and the output as 2h − 1, ReLU units as h / (largest h of the layer)."""
    _, _, points = grid_points(extent, size)
    span = np.array([extent[1] - extent[0], extent[3] - extent[2]]) / 2
    centre = np.array([extent[0] + extent[1], extent[2] + extent[3]]) / 2
    layers = [(points - centre) / span]
    with np.errstate(over="ignore", invalid="ignore"):
        outputs = [np.nan_to_num(h.astype(float), nan=0.0) for h in net.layer_outputs(points, _picture_dtype(net))]
    for l, h in enumerate(outputs):
        if l == len(net.coefs) - 1 or net.activation == "logistic":
            h = 2.0 * h - 1.0
        elif net.activation == "relu":
            top = float(h.max()) if h.size else 0.0
            h = h / top if top > 0 else h
        layers.append(h)
    return tuple(frozen_array(np.clip(v, -1.0, 1.0).T.reshape(-1, size, size)[:, ::-1, :]) for v in layers)


def prepare_frame(snapshot: NeuralLabSnapshot, extent, pictures: bool = True) -> NeuralFrame:
    """The map over the plot's box and, with ``pictures``, the units' pictures over the run's box (worker thread)."""
    net, box = snapshot.net, snapshot.ctx.extent
    return NeuralFrame(probability_map(net, extent), unit_pictures(net, box) if pictures else None, box)


# ---------------------------------------------------------------------- one point's backpropagation
@dataclass(frozen=True, eq=False)
class PointStep:
    """Backpropagation on training point ``index`` alone and the update of one SGD step on it:
    Δw = −η ∂Lᵢ/∂w, Lᵢ = −log p(yᵢ | xᵢ) + (α/2) Σ‖W‖² (a batch of one)."""

    index: int
    x: np.ndarray
    label: int  # ±1
    trace: BackpropTrace
    coef_updates: tuple
    intercept_updates: tuple
    learning_rate: float
    loss_after: float | None  # None when the step would overflow the weights


def point_step(snapshot: NeuralLabSnapshot, index: int) -> PointStep | None:
    """One point's forward and backward pass at the snapshot's weights (None without training points)."""
    ctx, net = snapshot.ctx, snapshot.net
    if not len(ctx.y_train):
        return None
    index = int(min(max(index, 0), len(ctx.y_train) - 1))
    x, label = ctx.X_train[index:index + 1], int(ctx.y_train[index])
    eta, alpha = float(ctx.params["learning_rate"]), float(ctx.params["alpha"])
    y_idx = np.array([1 if label > 0 else 0])
    trace = backprop_trace(x, y_idx, net.coefs, net.intercepts, activation=net.activation, alpha=alpha)
    with np.errstate(over="ignore", invalid="ignore"):  # a diverging network's step may overflow: said, not drawn
        dW = tuple(frozen_array(-eta * g) for g in trace.coef_grads)
        db = tuple(frozen_array(-eta * g) for g in trace.intercept_grads)
        try:
            after = backprop_trace(x, y_idx, [W + d for W, d in zip(net.coefs, dW)],
                                   [b + d for b, d in zip(net.intercepts, db)], activation=net.activation,
                                   alpha=alpha).loss
        except ValueError:  # the step leaves the engine's range of weights
            after = None
    return PointStep(index, frozen_array(x[0]), label, trace, dW, db, eta, after)


def nearest_training_point(ctx: LabelledRun, point) -> int:
    """Index (among the training points) of the one nearest to ``point``; −1 without training points."""
    if not len(ctx.X_train):
        return -1
    return int(np.argmin(np.sum((ctx.X_train - np.asarray(point, float)) ** 2, axis=1)))
