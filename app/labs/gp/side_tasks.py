"""The kernels tab's side task (Qt-free): the same points under five kernels, each with its
hyper-parameters and noise chosen by the evidence, and the evidence each reaches."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from smlengine import frozen_array
from smlengine.gp import GaussianProcessRegressor, JitterWarning

from . import run

#: the kernels compared, in the order of the bars
COMPARED = ("rbf", "matern", "periodic", "linear", "rbf+linear")
#: their names under the bars (short: five of them share the plot's width)
SHORT = {"rbf": "RBF", "matern": "Matérn 3/2", "periodic": "periodic", "linear": "linear", "rbf+linear": "RBF+lin"}


@dataclass(frozen=True, eq=False)
class KernelFit:
    """One kernel fitted to the points by the evidence: its curve and its log evidence."""

    name: str
    index: int
    kernel: object
    noise: float
    log_evidence: float
    mean: np.ndarray  # on the grid
    std: np.ndarray


def compare_kernels(x, y, grid, start: tuple[float, float, float, float], n_restarts: int, seed: int, state=None):
    """Yield a :class:`KernelFit` per kernel of :data:`COMPARED`, each optimised from the lab's
    (ℓ, v, p, σ²) with ``n_restarts`` random restarts; the periodic kernel starts at ℓ = 1 (its ℓ
    is measured against sin(π|x − x′|/p), which stays within [−1, 1], not against x)."""
    X, G = np.asarray(x, float)[:, None], np.asarray(grid, float)[:, None]
    length_scale, variance, period, noise = start
    for i, name in enumerate(COMPARED):
        if state is not None:
            state.check()
            state.set_progress(i / len(COMPARED), f"fitting {SHORT[name]}")
        ell = 1.0 if name == "periodic" else length_scale
        gp = GaussianProcessRegressor(run.make_kernel(name, ell, variance, period), noise=noise,
                                      optimize=True, n_restarts=n_restarts, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JitterWarning)
            gp.fit(X, y)
        mean, std = gp.predict(G, return_std=True)
        yield KernelFit(name, i, gp.kernel_, gp.noise_, gp.log_marginal_likelihood(), frozen_array(mean),
                        frozen_array(std))
