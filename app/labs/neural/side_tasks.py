"""The side tasks (Qt-free): three learning rates from the same start, a sweep over capacity (hidden
units or weight decay) against training and test error, and the gradient check of one point."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from smlengine.grid import DecisionFrame
from smlengine.neural import MAX_LEARNING_RATE, MAX_UNITS, GradientCheck, check_gradients

from .run import network, probability_map

#: the three copies: the lab's learning rate divided by ten, as it is, and thirty times it
RATE_FACTORS = (0.1, 1.0, 30.0)
#: the capacities a sweep trains: hidden units per layer, or weight decay α
SWEEPS = {"units": (1, 2, 3, 4, 6, 8, 12, 16, 24, 32), "alpha": (1e-4, 1e-3, 1e-2, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)}
#: side of the grid of the small maps
MAP_RESOLUTION = 70


@dataclass(frozen=True, eq=False)
class RateCopy:
    """One copy of the run at learning rate ``learning_rate``: its loss at every epoch (step 0
    included), the test loss, why it stopped early ("" when it did not), its last map."""

    learning_rate: float
    losses: np.ndarray
    test_losses: np.ndarray | None
    diverged: str
    train_error: float
    frame: DecisionFrame


@dataclass(frozen=True, eq=False)
class CapacityPoint:
    """One network of the sweep: its capacity ``value`` and its errors and losses after training."""

    value: float
    train_error: float
    test_error: float | None
    train_loss: float
    test_loss: float | None
    frame: DecisionFrame


def _train(model, X, y, X_val, y_val, state, progress: tuple[float, float]):
    """The snapshots of one training (the last finite ones if it diverged) and the reason it stopped early."""
    snaps, diverged = [], ""
    lo, hi = progress
    try:
        for s in model.fit_steps(X, y, X_val=X_val, y_val=y_val):
            snaps.append(s)
            if state is not None:
                state.check()
                state.set_progress(lo + (hi - lo) * s.epoch / model.max_iter)
    except ValueError as exc:
        text = str(exc)
        diverged = text.split(". ")[0].removeprefix("the training ")  # "diverged at epoch k: the weights overflowed"
        if not snaps:
            raise
    return snaps, diverged


def rate_race(X, y, X_val, y_val, params: dict, seed: int, extent, state=None) -> list[RateCopy]:
    """The run three times from the same start on the same points, at η/10, η and 30η (full
    epochs, the lab's other settings)."""
    eta = float(params["learning_rate"])
    out = []
    for i, factor in enumerate(RATE_FACTORS):
        rate = min(eta * factor, MAX_LEARNING_RATE)
        model = network(params, seed, learning_rate=rate)
        snaps, diverged = _train(model, X, y, X_val, y_val, state, (i / 3, (i + 1) / 3))
        last = snaps[-1]
        tests = np.array([s.val_loss for s in snaps]) if X_val is not None else None
        out.append(RateCopy(rate, np.array([s.loss for s in snaps]), tests, diverged, last.train_error,
                            probability_map(last, extent, MAP_RESOLUTION)))
    return out


def capacity_sweep(X, y, X_val, y_val, params: dict, seed: int, axis: str, extent, state=None) -> list[CapacityPoint]:
    """A network per capacity of :data:`SWEEPS` [``axis``] trained as the lab's run; its errors and losses."""
    values = SWEEPS[axis]
    out = []
    for i, value in enumerate(values):
        change = {"units": min(int(value), MAX_UNITS)} if axis == "units" else {"alpha": float(value)}
        model = network(params, seed, **change)
        snaps, _ = _train(model, X, y, X_val, y_val, state, (i / len(values), (i + 1) / len(values)))
        s = snaps[-1]
        out.append(CapacityPoint(float(value), s.train_error, s.val_error, s.data_loss, s.val_loss,
                                 probability_map(s, extent, MAP_RESOLUTION)))
    return out


def point_gradient_check(X, y_idx, coefs, intercepts, activation: str, alpha: float) -> GradientCheck:
    """Backpropagation against central differences (ε = 1e-6) on the chosen point's loss, weight by weight."""
    return check_gradients(X, y_idx, coefs, intercepts, activation=activation, alpha=alpha)
