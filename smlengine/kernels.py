"""Kernel functions and their Gram matrices.

A kernel k(x, y) = <phi(x), phi(y)> lets a linear method work in feature space phi
without computing phi. Each function takes two sample matrices X (n, d) and Y (m, d)
and returns the Gram matrix K[i, j] = k(x_i, y_j) of shape (n, m), fully vectorized.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._base import check_array, check_choice, check_scalar

__all__ = ["linear", "polynomial", "rbf", "make_kernel", "squared_distances", "KERNELS"]


def _pair(X, Y):
    X = check_array(X, name="X")
    Y = X if Y is None else check_array(Y, name="Y")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"X and Y have different numbers of features: {X.shape[1]} and {Y.shape[1]}")
    return X, Y


def squared_distances(X, Y=None) -> np.ndarray:
    """||x_i - y_j||^2 via ||x||^2 + ||y||^2 - 2<x, y>, clipped at 0 against round-off."""
    X, Y = _pair(X, Y)
    xx = np.einsum("ij,ij->i", X, X)
    yy = xx if Y is X else np.einsum("ij,ij->i", Y, Y)
    d2 = xx[:, None] + yy[None, :] - 2.0 * (X @ Y.T)
    np.maximum(d2, 0.0, out=d2)
    if Y is X:
        np.fill_diagonal(d2, 0.0)
    return d2


def linear(X, Y=None) -> np.ndarray:
    """k(x, y) = <x, y>."""
    X, Y = _pair(X, Y)
    return X @ Y.T


def polynomial(X, Y=None, degree=3, coef0=1.0) -> np.ndarray:
    """k(x, y) = (<x, y> + coef0)^degree."""
    check_scalar("degree", degree, numbers.Integral, min_value=1)
    check_scalar("coef0", coef0, numbers.Real)
    X, Y = _pair(X, Y)
    return (X @ Y.T + coef0) ** degree


def rbf(X, Y=None, gamma=1.0) -> np.ndarray:
    """k(x, y) = exp(-gamma ||x - y||^2), gamma > 0."""
    check_scalar("gamma", gamma, numbers.Real, min_value=0, include_min=False)
    d2 = squared_distances(X, Y)
    return np.exp(-gamma * d2, out=d2)


KERNELS = {"linear": linear, "poly": polynomial, "polynomial": polynomial, "rbf": rbf}
_PARAMS = {"linear": (), "poly": ("degree", "coef0"), "polynomial": ("degree", "coef0"), "rbf": ("gamma",)}


def make_kernel(name, **params):
    """Return k(X, Y) for the named kernel with its parameters bound.

    Parameters not used by the kernel (e.g. ``gamma`` for ``'linear'``) are ignored so a
    GUI can pass all of its sliders at once.
    """
    check_choice("kernel", name, tuple(KERNELS))
    func = KERNELS[name]
    used = {k: v for k, v in params.items() if k in _PARAMS[name]}
    unknown = set(params) - {"gamma", "degree", "coef0"}
    if unknown:
        raise ValueError(f"unknown kernel parameter(s) {sorted(unknown)}; valid: gamma, degree, coef0")
    # validate now rather than at the first call
    if name == "rbf":
        check_scalar("gamma", used.get("gamma", 1.0), numbers.Real, min_value=0, include_min=False)
    elif name in ("poly", "polynomial"):
        check_scalar("degree", used.get("degree", 3), numbers.Integral, min_value=1)
        check_scalar("coef0", used.get("coef0", 1.0), numbers.Real)

    def kernel(X, Y=None):
        return func(X, Y, **used)

    kernel.__name__ = f"{name}_kernel"
    kernel.params = dict(used)
    return kernel
