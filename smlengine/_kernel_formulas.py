"""The kernel formulas, each as per-point terms and a finish on inner products, and fast rows.

:mod:`smlengine.kernels` builds its Gram matrices from these formulas and exports
:class:`KernelRows` and :func:`diagonal`; the SVM's kernel cache (``smlengine._smo_cache``)
evaluates its rows with :class:`KernelRows`.
"""

from __future__ import annotations

import numpy as np

from ._base import check_choice

__all__ = ["FORMULAS", "KernelRows", "diagonal"]


# ---------------------------------------------------------------------- the formulas
# Every kernel value in the engine goes through these functions: the Gram matrices of
# smlengine.kernels and the kernel rows of the SVM (KernelRows).
# Each kernel is written as (a scale of) a function of inner products G = <P_t, x_o> plus
# per-point terms computed once, so a row costs one matrix-vector product and O(n) work.
def linear_terms(X, gamma, degree, coef0, sq, log_scale):
    return X, None


def linear_finish(G, aux_rows, aux_col, gamma, degree, coef0, log_scale):
    """k = <x, y> (G holds the inner products already)."""
    return G


def poly_finish(G, aux_rows, aux_col, gamma, degree, coef0, log_scale):
    """k = (<x, y> + coef0)^degree, in place."""
    G += coef0
    return np.power(G, degree, out=G)


def rbf_terms(X, gamma, degree, coef0, sq, log_scale):
    # exp(-gamma |x - y|^2) = exp(<2 gamma x, y> - gamma |x|^2 - gamma |y|^2)
    return X * (2.0 * gamma), log_scale - gamma * sq


def rbf_finish(G, aux_rows, aux_col, gamma, degree, coef0, log_scale):
    """k = exp(<2 gamma x, y> - gamma |x|^2 - gamma |y|^2), in place, times e^log_scale.

    The exponent is <= 0 (Cauchy-Schwarz) up to round-off, so it is clipped there: k <= 1.
    """
    G += aux_rows
    G += aux_col
    np.minimum(G, log_scale, out=G)
    return np.exp(G, out=G)


# name -> (per-point terms, finish); also the parameter names each kernel uses
FORMULAS = {
    "linear": (linear_terms, linear_finish),
    "poly": (linear_terms, poly_finish),
    "rbf": (rbf_terms, rbf_finish),
}
FORMULAS["polynomial"] = FORMULAS["poly"]


def diagonal(name, X, *, gamma=1.0, degree=3, coef0=1.0, sq=None) -> np.ndarray:
    """k(x_t, x_t) for every row of X (``sq``: the squared norms |x_t|^2 if known).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.kernels import diagonal
    >>> print(diagonal("poly", np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]]), degree=2))
    [ 1.  4. 25.]
    """
    if name == "rbf":
        return np.ones(X.shape[0])
    sq = np.einsum("ij,ij->i", X, X) if sq is None else sq
    return sq if name == "linear" else (sq + coef0) ** degree


class KernelRows:
    """Rows k(x_t, x_o), t = 1..n, of one kernel on one data set, one at a time, fast.

    The per-point terms of the formula (|x_t|^2 and the rows scaled by 2 gamma for rbf) are
    computed once, so a row costs one matrix-vector product and a few O(n) passes. A solver
    that works on a subset of the points in its own order (SMO while shrinking) keeps the
    terms ``P``, ``aux`` in that order and passes the prefix it works on.

    Parameters
    ----------
    name : {'linear', 'poly', 'rbf'}
        The kernel.
    X : ndarray of shape (n, d)
        The data, validated by the caller.
    gamma, degree, coef0
        The kernel's parameters (unused ones ignored).
    scale : float, default=1.0
        ``row`` returns scale * k (for rbf at no cost: ln(scale) joins the exponent).

    Attributes
    ----------
    sq : ndarray of shape (n,)
        The squared norms |x_t|^2.
    diag : ndarray of shape (n,)
        k(x_t, x_t).
    P, aux : ndarray
        The per-point terms of ``row``.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.kernels import KernelRows
    >>> rows = KernelRows("rbf", np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]]), gamma=0.5)
    >>> out = np.empty(3)
    >>> print(np.round(rows.row(1, out), 3), rows.diag, rows.sq)
    [0.607 1.    0.082] [1. 1. 1.] [0. 1. 4.]
    >>> print(np.round(rows.block_dot(np.array([0, 1]), np.array([0, 1, 2]), np.ones(3)), 3))
    [1.742 1.689]
    """

    def __init__(self, name, X, *, gamma=1.0, degree=3, coef0=1.0, scale=1.0):
        check_choice("kernel", name, tuple(FORMULAS))
        self.name = "poly" if name == "polynomial" else name
        self.X = X
        self.gamma, self.degree, self.coef0 = float(gamma), int(degree), float(coef0)
        self.scale = float(scale)
        self._log_scale = float(np.log(self.scale)) if self.name == "rbf" else 0.0
        self._terms, self._finish = FORMULAS[self.name]
        self.sq = np.einsum("ij,ij->i", X, X)
        self.diag = diagonal(self.name, X, degree=self.degree, coef0=self.coef0, sq=self.sq)
        self.P, self.aux = self._terms(X, self.gamma, self.degree, self.coef0, self.sq, self._log_scale)

    def row(self, o, out, P=None, aux=None):
        """scale * k(x_t, x_o) into ``out`` for the points whose terms ``P``, ``aux`` are given
        (default: all, in the order of X)."""
        if P is None:
            P, aux = self.P, self.aux
        np.matmul(P, self.X[o], out=out)
        aux_o = -self.gamma * self.sq[o] if self.name == "rbf" else None
        self._finish(out, aux, aux_o, self.gamma, self.degree, self.coef0, self._log_scale)
        if self.scale != 1.0 and self.name != "rbf":
            out *= self.scale
        return out

    def block_dot(self, R, S, coef, max_bytes=16 * 2**20):
        """k(x_R, x_S) @ coef for index arrays R and S, in row chunks of at most about
        ``max_bytes`` of temporaries."""
        XS = self.X[S]
        if self.name == "linear":  # sum_s c_s <x_r, x_s> = <x_r, sum_s c_s x_s>
            return self.X[R] @ (coef @ XS)
        auxS = -self.gamma * self.sq[S][None, :] if self.name == "rbf" else None
        out = np.empty(R.size)
        step = max(1, int(max_bytes) // (8 * max(1, S.size)))
        for a in range(0, R.size, step):
            r = R[a : a + step]
            auxr = (-self.gamma * self.sq[r])[:, None] if self.name == "rbf" else None
            blk = self.X[r] @ XS.T
            if self.name == "rbf":
                blk *= 2.0 * self.gamma
            self._finish(blk, auxr, auxS, self.gamma, self.degree, self.coef0, 0.0)
            out[a : a + step] = blk @ coef
        return out
