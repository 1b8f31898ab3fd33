"""Gaussian class models for the Bayes classifier: the class statistics, the covariance checks and
the log joint densities log p(x | y = k) + log π_k, computed with matrix products.

Private to :mod:`smlengine.bayes`. Squared distances are never expanded as xᵀPx − 2xᵀPμ + μᵀPμ
around the origin: that form loses every digit to cancellation when |x| is far larger than the
spread of the class. They are formed from differences (x − μ), or around the data's mean.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import lapack

from ._base import MAX_ABS_VALUE, check_array

__all__ = ["GaussianClassModel", "fit_class_model", "log_joint", "softmax_rows", "check_rows", "SINGULAR_RATIO"]

#: a variance below this fraction of the feature's variance over all the data counts as zero
SINGULAR_RATIO = 1e-12
_LOG_2PI = math.log(2.0 * math.pi)


class GaussianClassModel:
    """What the classifier keeps: the centre of the data, per class mean and the factor of its
    covariance, in the form the log densities use (inverse Cholesky factors, log determinants)."""

    def __init__(self, kind, offset, means, covariances, whiten, log_dets, log_priors):
        self.kind = kind  # "full", "shared" or "diagonal"
        self.offset = offset  # (d,) the training data's mean
        self.means = means  # (K, d) class means in the original coordinates
        self.covariances = covariances  # (K, d, d) full, (d, d) shared, (K, d) diagonal variances
        self.whiten = whiten  # full: (K, d, d) L_k⁻¹; shared: (d, d) L⁻¹; diagonal: (K, d) 1/σ²
        self.log_dets = log_dets  # (K,) log |Σ_k|
        self.log_priors = log_priors  # (K,) log π_k


def _singular_message(kind: str, label, count: int, d: int, detail: str) -> str:
    label = label.item() if isinstance(label, np.generic) else label  # 1, not np.int64(1)
    points = "1 point" if count == 1 else f"{count} points"
    where = "the shared covariance" if label is None else f"the covariance of class {label!r} ({points})"
    return (f"{where} is singular ({detail}) in {d} dimension(s): add reg > 0, more points, "
            f"or remove features that are constant" + ("" if kind != "full" else
                                                           ", or use covariance='shared' or 'diagonal'"))


def _cholesky_checked(S: np.ndarray, scale: np.ndarray, kind: str, label, count: int) -> np.ndarray:
    """The Cholesky factor of S, or a ValueError saying why S is singular.

    A feature whose variance is below :data:`SINGULAR_RATIO` of its spread over all the data, or a
    correlation matrix with a pivot below it (a feature that is a combination of others), makes S
    singular in floating point even when a factorisation would still succeed.
    """
    d = S.shape[0]
    var = np.diag(S)
    flat = np.flatnonzero(var <= SINGULAR_RATIO * scale)
    if flat.size:
        raise ValueError(_singular_message(kind, label, count, d, f"feature {int(flat[0])} does not vary"))
    root = np.sqrt(var)
    R = S / np.outer(root, root)
    try:
        Lr = np.linalg.cholesky(R)
    except np.linalg.LinAlgError:
        Lr = None
    if Lr is None or np.min(np.diag(Lr)) ** 2 <= SINGULAR_RATIO:
        raise ValueError(_singular_message(kind, label, count, d, "its features are linearly dependent"))
    return Lr * root[:, None]


def _inverse_lower(L: np.ndarray) -> np.ndarray:
    """L⁻¹ of a lower-triangular factor (LAPACK's trtri: a direct triangular inverse, no general solve)."""
    inv, info = lapack.dtrtri(L, lower=1)
    if info != 0:  # a zero pivot: the checks before make this unreachable
        raise ValueError("the covariance's factor is singular")
    return np.tril(inv)


def fit_class_model(X: np.ndarray, codes: np.ndarray, classes: np.ndarray, kind: str, priors: np.ndarray,
                    reg: float) -> GaussianClassModel:
    """Class means and maximum-likelihood covariances (divided by n_k, or by n when pooled).

    ``codes`` are the class indices 0..K-1 of the rows of X. ``reg`` is added to every variance.
    One pass per class over its rows: they are copied once, centred in place and multiplied.
    """
    n, d = X.shape
    K = classes.size
    counts = np.bincount(codes, minlength=K)
    means = np.empty((K, d))
    second = np.empty((K, d) if kind == "diagonal" else (K, d, d))  # per class Σ (x − μ_k)(x − μ_k)ᵀ / n_k
    for k in range(K):
        R = X[codes == k]
        means[k] = R.mean(axis=0)
        R -= means[k]
        second[k] = np.einsum("ij,ij->j", R, R) / counts[k] if kind == "diagonal" else (R.T @ R) / counts[k]
    weights = counts / n
    offset = weights @ means  # the mean of all the data
    # each feature's spread over all the data (within + between classes): the yardstick of "does not vary"
    within = second if kind == "diagonal" else np.diagonal(second, axis1=1, axis2=2)
    scale = weights @ (within + np.square(means - offset))
    scale = np.where(scale > 0, scale, 1.0)  # a feature constant over all the data is measured against 1
    if kind == "diagonal":
        var = second + reg
        bad = np.argwhere(var <= SINGULAR_RATIO * scale)
        if bad.size:
            k, j = bad[0]
            raise ValueError(_singular_message(kind, classes[k], int(counts[k]), d,
                                               f"feature {int(j)} does not vary within the class"))
        return GaussianClassModel(kind, offset, means, var, 1.0 / var, np.log(var).sum(axis=1), np.log(priors))
    if kind == "shared":
        S = np.tensordot(weights, second, axes=1)  # the pooled ML covariance Σ_k (n_k / n) S_k
        S[np.diag_indices(d)] += reg
        L = _cholesky_checked(S, scale, kind, None, n)
        whiten = _inverse_lower(L)
        log_dets = np.full(K, 2.0 * np.log(np.diag(L)).sum())
        return GaussianClassModel(kind, offset, means, S, whiten, log_dets, np.log(priors))
    whiten = np.empty((K, d, d))
    log_dets = np.empty(K)
    for k in range(K):
        second[k][np.diag_indices(d)] += reg
        L = _cholesky_checked(second[k], scale, kind, classes[k], int(counts[k]))
        whiten[k] = _inverse_lower(L)
        log_dets[k] = 2.0 * np.log(np.diag(L)).sum()
    return GaussianClassModel(kind, offset, means, second, whiten, log_dets, np.log(priors))


def log_joint(model: GaussianClassModel, X: np.ndarray, common: bool = True) -> np.ndarray:
    """(n, K) log p(x | y = k) + log π_k for every row of X (constants included).

    With ``common=False`` a term that is the same for every class may be left out (the shared
    model's −½ ‖L⁻¹(x − x̄)‖²): posteriors and decisions do not depend on it.
    """
    K, d = model.means.shape
    const = -0.5 * (d * _LOG_2PI + model.log_dets) + model.log_priors
    out = np.empty((X.shape[0], K))
    if model.kind == "diagonal":
        for k in range(K):  # Σ_j (x_j − μ_kj)² / σ²_kj, one class at a time: no BLAS threads, no cancellation
            D = X - model.means[k]
            D *= D
            out[:, k] = np.einsum("ij,j->i", D, model.whiten[k])
        out *= -0.5
        out += const
        return out
    if model.kind == "shared":
        # log p(x | k) = −½ ‖L⁻¹(x − x̄)‖² + (x − x̄)ᵀ Σ⁻¹ (μ_k − x̄) − ½ (μ_k − x̄)ᵀ Σ⁻¹ (μ_k − x̄) + const: the first
        # term is common to every class, the rest linear in x (the LDA boundary)
        W = model.whiten
        centred = model.means - model.offset
        coef = (centred @ W.T) @ W  # rows Σ⁻¹ (μ_k − x̄)
        np.matmul(X, coef.T, out=out)
        out += const - coef @ model.offset - 0.5 * np.sum(centred * coef, axis=1)
        if common:
            Z = X @ W.T
            Z -= W @ model.offset
            out -= 0.5 * np.einsum("ij,ij->i", Z, Z)[:, None]
        return out
    for k in range(K):
        Z = X @ model.whiten[k].T
        Z -= model.whiten[k] @ model.means[k]  # L⁻¹x − L⁻¹μ is small where it matters: no cancellation
        out[:, k] = np.einsum("ij,ij->i", Z, Z)
    out *= -0.5
    out += const
    return out


def check_rows(X, n_features: int | None = None) -> np.ndarray:
    """X as a finite float64 matrix within the engine's range: one sum and one min/max on the usual
    path (no temporary as large as X), :func:`check_array`'s checks and messages otherwise."""
    arr = np.asarray(X, dtype=np.float64) if not isinstance(X, np.ndarray) or X.dtype != np.float64 else X
    if (arr.ndim == 2 and arr.shape[0] > 0 and arr.shape[1] > 0
            and (n_features is None or arr.shape[1] == n_features) and np.isfinite(arr.sum())
            and max(-float(arr.min()), float(arr.max())) <= MAX_ABS_VALUE):
        return arr
    return check_array(X, n_features=n_features, max_abs=MAX_ABS_VALUE)


def softmax_rows(L: np.ndarray) -> np.ndarray:
    """exp(L) normalised along each row, without overflow (L is overwritten)."""
    L -= L.max(axis=1, keepdims=True)
    np.exp(L, out=L)
    L /= L.sum(axis=1, keepdims=True)
    return L
