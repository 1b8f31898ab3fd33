"""The PCA lab's side task (Qt-free): the race of the PCA solvers (full SVD, covariance eigh,
randomized SVD, the power method) on the run's data, timed, each with the angle of its subspace
to the exact one. The Race tab runs it with ``self.task(...)`` on a worker thread.
"""

from __future__ import annotations

import math
import time

import numpy as np

from smlengine.pca import PCA, subspace_angle

from .run import PCAData

RACE_SOLVERS = [("svd", "full SVD"), ("eigh", "covariance eigh"), ("randomized", "randomized SVD"),
                ("power", "power method")]


def race(data: PCAData, k: int, n_iter: int = 2, seed: int = 0, state=None) -> list[dict]:
    """Time every solver on the same data for k components and measure the largest
    principal angle of its subspace to the exact one (``data.components[:k]``).

    Every solver runs at least twice (the first call pays for imports and caches) and fast ones
    up to 5 times within ~0.3 s; the best time counts, so the times are not
    timer noise. Returns one row per solver: name, label, seconds, angle (rad), repeats.
    """
    k = max(1, min(int(k), data.K))
    exact = data.components[:k]
    rows = []
    for i, (method, label) in enumerate(RACE_SOLVERS):
        if state is not None:
            if state.cancelled:
                return rows
            state.set_progress(i / len(RACE_SOLVERS), label)
        kw = {"n_iter": int(n_iter), "random_state": seed} if method == "randomized" else {}
        if method == "power":
            kw = {"tol": 1e-10, "max_iter": 2000, "random_state": seed}
        best, reps, spent = math.inf, 0, 0.0
        model = None
        while reps < 5 and (reps < 2 or spent < 0.3):
            t0 = time.perf_counter()
            model = PCA(n_components=k, method=method, **kw).fit(data.X)
            dt = time.perf_counter() - t0
            best, spent, reps = min(best, dt), spent + dt, reps + 1
        angle = subspace_angle(model.components_, exact)
        rows.append({"method": method, "label": label, "seconds": best, "angle": angle, "repeats": reps,
                     "iterations": int(np.sum(model.n_iter_))})
    return rows
