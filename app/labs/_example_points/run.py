"""The run (Qt-free): the vote of the k nearest training points, k = 1, 3, 5, ... one per step."""

from dataclasses import dataclass

import numpy as np

from smlengine import Snapshot, frozen_array
from smlengine.grid import decision_frame

P = {"euclidean": 2, "manhattan": 1}  # the lab's method: the Minkowski exponent p of the distance
CHUNK = 2048  # points voted on at once: memory grows with CHUNK × k, never with (grid) × (training points)


@dataclass(frozen=True, kw_only=True, eq=False)
class ExamplePointsLabSnapshot(Snapshot):
    """The vote of the ``k`` nearest training points; every step shares the same frozen arrays."""

    k: int
    metric: str
    X_train: np.ndarray
    y_train: np.ndarray
    train_error: float
    test_error: float | None  # None without test points


def running_votes(X_train, y_train, points, k: int, p: int) -> np.ndarray:
    """(n, k) array: column j is Σ yᵢ over the j + 1 training points nearest to each point."""
    from scipy.spatial import cKDTree  # deferred: a second to import, paid by the worker, not the window

    tree, out = cKDTree(X_train), np.empty((len(points), k), dtype=np.float32)
    for i in range(0, len(points), CHUNK):
        _, idx = tree.query(points[i:i + CHUNK], k=k, p=p)  # nearest first
        out[i:i + CHUNK] = np.cumsum(y_train[idx.reshape(-1, k)], axis=1)
    return out


def run_steps(ctx):
    """Yield ŷ(x) = sign Σ_{i ∈ Nₖ(x)} yᵢ for odd k (two classes never tie) and its errors."""
    p, k_max = P[ctx.method], min(int(ctx.params["k_max"]), len(ctx.y_train))
    X, y = frozen_array(ctx.X_train), frozen_array(ctx.y_train)
    on_train = running_votes(X, y, X, k_max, p)  # each training point is its own nearest neighbour
    on_test = running_votes(X, y, ctx.X_test, k_max, p)
    for step, k in enumerate(range(1, k_max + 1, 2)):
        test = float(np.mean(np.sign(on_test[:, k - 1]) != ctx.y_test)) if ctx.n_test else None
        yield ExamplePointsLabSnapshot(step=step, k=k, metric=ctx.method, X_train=X, y_train=y,
                                       train_error=float(np.mean(np.sign(on_train[:, k - 1]) != y)), test_error=test)


def decision_map(s: ExamplePointsLabSnapshot, extent):
    """f(x) = (1/k) Σ_{i ∈ Nₖ(x)} yᵢ on the map's grid (worker thread); f = 0 is the boundary."""
    return decision_frame(lambda grid: running_votes(s.X_train, s.y_train, grid, s.k, P[s.metric])[:, -1] / s.k,
                          extent)
