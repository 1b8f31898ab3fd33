"""Linear-algebra helpers of :mod:`smlengine.spectral`: scatter matrices, the Rayleigh quotient,
kernel matrices and orthonormal bases of data columns."""

from __future__ import annotations

import numpy as np

from ._base import MAX_ABS_VALUE, check_array, check_X_y

__all__ = [
    "scatter_matrices",
    "rayleigh_quotient",
    "positive_definite",
    "kernel_matrix",
    "as_view",
    "orthonormal_basis",
]


def scatter_matrices(X, y) -> tuple[np.ndarray, np.ndarray]:
    """The within-class and between-class scatter matrices (S_W, S_B) of labelled data.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.spectral import scatter_matrices
    >>> Sw, Sb = scatter_matrices([[0.0, 0.0], [2.0, 0.0], [0.0, 4.0], [2.0, 4.0]], [0, 0, 1, 1])
    >>> print(Sw)
    [[4. 0.]
     [0. 0.]]
    >>> print(Sb)
    [[ 0.  0.]
     [ 0. 16.]]
    """
    X, y = check_X_y(X, y, max_abs=MAX_ABS_VALUE)
    mu = X.mean(axis=0)
    D = X.shape[1]
    Sw = np.zeros((D, D))
    Sb = np.zeros((D, D))
    for c in np.unique(y):
        Xc = X[y == c]
        mc = Xc.mean(axis=0)
        Z = Xc - mc
        Sw += Z.T @ Z
        Sb += len(Xc) * np.outer(mc - mu, mc - mu)
    return Sw, Sb


def rayleigh_quotient(X, y, w) -> float:
    """J(w) = wᵀS_B w / wᵀS_W w, the separation of the classes along the direction w.

    Infinite when every class collapses to a point along w (wᵀS_W w = 0 < wᵀS_B w), 0 when
    neither spread nor separation shows along w.

    Examples
    --------
    >>> from smlengine.spectral import rayleigh_quotient
    >>> X, y = [[0.0, 0.0], [2.0, 0.0], [0.0, 4.0], [2.0, 4.0]], [0, 0, 1, 1]
    >>> rayleigh_quotient(X, y, [1.0, 0.0]), rayleigh_quotient(X, y, [1.0, 1.0])
    (0.0, 4.0)
    """
    Sw, Sb = scatter_matrices(X, y)
    w = check_array(w, name="w", ndim=1, n_features=None)
    if w.shape[0] != Sw.shape[0]:
        raise ValueError(f"w has {w.shape[0]} entries, but X has {Sw.shape[0]} features")
    num, den = float(w @ Sb @ w), float(w @ Sw @ w)
    if den <= 0.0:
        return 0.0 if num <= 0.0 else float("inf")
    return num / den


def positive_definite(S: np.ndarray) -> np.ndarray:
    """S itself when its Cholesky factor exists, else S plus the stated small ridge."""
    try:
        np.linalg.cholesky(S)
        return S
    except np.linalg.LinAlgError:
        D = S.shape[0]
        scale = float(np.trace(S)) / D
        return S + 1e-10 * (scale if scale > 0 else 1.0) * np.eye(D)


def kernel_matrix(X, Y=None, *, kernel="rbf", gamma=1.0, degree=3, coef0=1.0) -> np.ndarray:
    """k(x_i, y_j): RBF exp(−γ‖x − y‖²), polynomial (γ⟨x, y⟩ + c₀)^degree or linear ⟨x, y⟩.

    Examples
    --------
    >>> from smlengine.spectral import kernel_matrix
    >>> print(kernel_matrix([[0.0], [1.0]], kernel="poly", gamma=1.0, degree=2, coef0=1.0))
    [[1. 1.]
     [1. 4.]]
    """
    X = check_array(X, max_abs=MAX_ABS_VALUE)
    Y = X if Y is None else check_array(Y, name="Y", n_features=X.shape[1], max_abs=MAX_ABS_VALUE)
    G = X @ Y.T
    if kernel == "linear":
        return G
    if kernel == "poly":
        return (gamma * G + coef0) ** degree
    if kernel == "rbf":
        d2 = np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", Y, Y)[None, :] - 2.0 * G
        return np.exp(-gamma * np.maximum(d2, 0.0))
    raise ValueError(f"kernel must be one of 'rbf', 'poly', 'linear', got {kernel!r}")


def as_view(A, name, n_features=None) -> np.ndarray:
    """One view as a 2-D array; a 1-D array is one column."""
    arr = np.asarray(A)
    if arr.ndim == 1:
        arr = arr[:, None]
    return check_array(arr, name=name, n_features=n_features, max_abs=MAX_ABS_VALUE)


def orthonormal_basis(Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q with orthonormal columns spanning the columns of Z, and B with Z B = Q."""
    U, s, Vt = np.linalg.svd(Z, full_matrices=False)
    r = int(np.sum(s > max(Z.shape) * np.finfo(float).eps * (s[0] if s.size else 0.0)))
    return U[:, :r], Vt[:r].T / s[:r]
