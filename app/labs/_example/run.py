"""The run (Qt-free): one point more per step, and the sample mean and covariance so far."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from smlengine import Snapshot, frozen_array
from smlengine.datasets import make_gaussian_mixture


@dataclass(frozen=True, kw_only=True, eq=False)
class ExampleLabSnapshot(Snapshot):
    """After ``n`` points: their mean x̄ₙ and covariance Sₙ (frozen arrays)."""

    n: int
    mean: np.ndarray
    cov: np.ndarray


def sample(n: int, seed: int) -> np.ndarray:
    """``n`` points from two Gaussian clusters (seeded)."""
    X, _ = make_gaussian_mixture(n, [[-2.0, 0.0], [2.0, 1.0]], [np.eye(2), [[1.0, 0.8], [0.8, 1.0]]], None, seed)
    return X


def run_steps(X: np.ndarray):
    """Yield x̄ₙ = x̄ₙ₋₁ + (xₙ − x̄ₙ₋₁)/n and Mₙ = Mₙ₋₁ + (xₙ − x̄ₙ₋₁)(xₙ − x̄ₙ)ᵀ, Sₙ = Mₙ/n (Welford)."""
    mean, M = np.array(X[0], float), np.zeros((2, 2))
    for n in range(1, len(X) + 1):
        if n > 1:
            d = X[n - 1] - mean
            mean = mean + d / n
            M = M + np.outer(d, X[n - 1] - mean)
        yield ExampleLabSnapshot(step=n - 1, n=n, mean=frozen_array(mean), cov=frozen_array(M / n))
