"""Kernel functions and their Gram matrices: the engine's one registry of kernel formulas.

A kernel k(x, y) = <phi(x), phi(y)> lets a linear method work in feature space phi
without computing phi. Each function takes two sample matrices X (n, d) and Y (m, d)
and returns the Gram matrix K[i, j] = k(x_i, y_j) of shape (n, m), fully vectorized.
:class:`KernelRows` gives single rows of the same formulas fast (the SVM's kernel cache),
:func:`rbf_grid_expansion` an rbf expansion on a 2-D grid (decision maps).
"""

from __future__ import annotations

import numpy as np

from ._base import check_array, check_choice
from ._params import Integral, Interval, Options, Real, check_param, validate_call

#: Allowed kernel parameters, for every estimator that takes them (``_parameter_constraints``).
#: With |x| <= MAX_ABS_VALUE (1e100), gamma * |x|^2 <= 1e206 stays finite, so the rbf
#: exponent never becomes inf - inf = NaN; degree 20 is far past any teaching use, and a larger
#: power of <x, y> + coef0 overflows for ordinary data.
KERNEL_PARAM_CONSTRAINTS = {
    "gamma": [Interval(Real, 0, 1e6, closed="right")],
    "degree": [Interval(Integral, 1, 20)],
    "coef0": [Interval(Real, -1e6, 1e6)],
}

__all__ = [
    "KERNELS",
    "KernelRows",
    "diagonal",
    "linear",
    "make_kernel",
    "polynomial",
    "rbf",
    "rbf_grid_expansion",
    "squared_distances",
]


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


# ---------------------------------------------------------------------- the formulas
# Every kernel value in the engine goes through these three functions: the Gram matrices
# below, the kernel rows of the SVM (KernelRows) and the grid evaluation of an expansion.
# Each kernel is written as (a scale of) a function of inner products G = <P_t, x_o> plus
# per-point terms computed once, so a row costs one matrix-vector product and O(n) work.
def _linear_terms(X, gamma, degree, coef0, sq, log_scale):
    return X, None


def _linear_finish(G, aux_rows, aux_col, gamma, degree, coef0, log_scale):
    """k = <x, y> (G holds the inner products already)."""
    return G


def _poly_finish(G, aux_rows, aux_col, gamma, degree, coef0, log_scale):
    """k = (<x, y> + coef0)^degree, in place."""
    G += coef0
    return np.power(G, degree, out=G)


def _rbf_terms(X, gamma, degree, coef0, sq, log_scale):
    # exp(-gamma |x - y|^2) = exp(<2 gamma x, y> - gamma |x|^2 - gamma |y|^2)
    return X * (2.0 * gamma), log_scale - gamma * sq


def _rbf_finish(G, aux_rows, aux_col, gamma, degree, coef0, log_scale):
    """k = exp(<2 gamma x, y> - gamma |x|^2 - gamma |y|^2), in place, times e^log_scale.

    The exponent is <= 0 (Cauchy-Schwarz) up to round-off, so it is clipped there: k <= 1.
    """
    G += aux_rows
    G += aux_col
    np.minimum(G, log_scale, out=G)
    return np.exp(G, out=G)


# name -> (per-point terms, finish); also the parameter names each kernel uses
_FORMULAS = {
    "linear": (_linear_terms, _linear_finish),
    "poly": (_linear_terms, _poly_finish),
    "rbf": (_rbf_terms, _rbf_finish),
}
_FORMULAS["polynomial"] = _FORMULAS["poly"]


def _gram(name, X, Y, gamma=1.0, degree=3, coef0=1.0):
    terms, finish = _FORMULAS[name]
    sqX = np.einsum("ij,ij->i", X, X) if name == "rbf" else None
    sqY = sqX if Y is X else (np.einsum("ij,ij->i", Y, Y) if name == "rbf" else None)
    PX, auxX = terms(X, gamma, degree, coef0, sqX, 0.0)
    G = PX @ Y.T
    if name == "rbf":
        G = finish(G, auxX[:, None], -gamma * sqY[None, :], gamma, degree, coef0, 0.0)
        if Y is X:
            np.fill_diagonal(G, 1.0)  # exactly, whatever the round-off of |x|^2 - 2 <x, x> + |x|^2
        return G
    return finish(G, None, None, gamma, degree, coef0, 0.0)


def linear(X, Y=None) -> np.ndarray:
    """k(x, y) = <x, y>."""
    X, Y = _pair(X, Y)
    return _gram("linear", X, Y)


@validate_call({"degree": KERNEL_PARAM_CONSTRAINTS["degree"], "coef0": KERNEL_PARAM_CONSTRAINTS["coef0"]})
def polynomial(X, Y=None, degree=3, coef0=1.0) -> np.ndarray:
    """k(x, y) = (<x, y> + coef0)^degree."""
    X, Y = _pair(X, Y)
    return _gram("poly", X, Y, degree=int(degree), coef0=float(coef0))


@validate_call({"gamma": KERNEL_PARAM_CONSTRAINTS["gamma"]})
def rbf(X, Y=None, gamma=1.0) -> np.ndarray:
    """k(x, y) = exp(-gamma ||x - y||^2), gamma > 0."""
    X, Y = _pair(X, Y)
    return _gram("rbf", X, Y, gamma=float(gamma))


def diagonal(name, X, *, gamma=1.0, degree=3, coef0=1.0, sq=None) -> np.ndarray:
    """k(x_t, x_t) for every row of X (``sq``: the squared norms |x_t|^2 if known)."""
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
    X : ndarray of shape (n, d), validated by the caller
    gamma, degree, coef0 : the kernel's parameters (unused ones ignored)
    scale : float, default=1.0
        ``row`` returns scale * k (for rbf at no cost: ln(scale) joins the exponent).

    Attributes
    ----------
    sq : squared norms |x_t|^2;  diag : k(x_t, x_t);  P, aux : per-point terms of ``row``.
    """

    def __init__(self, name, X, *, gamma=1.0, degree=3, coef0=1.0, scale=1.0):
        check_choice("kernel", name, tuple(_FORMULAS))
        self.name = "poly" if name == "polynomial" else name
        self.X = X
        self.gamma, self.degree, self.coef0 = float(gamma), int(degree), float(coef0)
        self.scale = float(scale)
        self._log_scale = float(np.log(self.scale)) if self.name == "rbf" else 0.0
        self._terms, self._finish = _FORMULAS[self.name]
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


def rbf_grid_expansion(xs, ys, centres, coef, gamma, *, flush=200.0) -> np.ndarray:
    """f[b, a] = sum_s coef_s exp(-gamma |(xs[a], ys[b]) - c_s|^2) on a 2-D grid.

    The rbf kernel factorises over the coordinates, exp(-g|p - c|^2) = exp(-g(p1 - c1)^2)
    exp(-g(p2 - c2)^2), so on a regular grid f = (E_y * coef) E_x^T with two small factor
    matrices: 2 R n_centres exponentials instead of R^2 n_centres kernel evaluations. Factors
    below e^-flush are set to 0: products of two of them would be subnormal numbers, which
    make the product many times slower, and terms that small do not change f.
    """
    centres = np.asarray(centres, dtype=float)

    def factor(t, c):
        e = gamma * (t[:, None] - c[None, :]) ** 2
        out = np.exp(-np.minimum(e, flush))  # exp itself is slow where its result is subnormal
        out[e > flush] = 0.0
        return out

    Ex, Ey = factor(np.asarray(xs, dtype=float), centres[:, 0]), factor(np.asarray(ys, dtype=float), centres[:, 1])
    # einsum, not BLAS: a multithreaded OpenBLAS product next to busy Python threads (a GUI's
    # worker and its event loop) spends most of its time waiting for cores
    return np.einsum("bs,as->ba", Ey * coef, Ex)


KERNELS = {"linear": linear, "poly": polynomial, "polynomial": polynomial, "rbf": rbf}
_DEFAULTS = {"gamma": 1.0, "degree": 3, "coef0": 1.0}
_PARAMS = {"linear": (), "poly": ("degree", "coef0"), "polynomial": ("degree", "coef0"), "rbf": ("gamma",)}


def make_kernel(name, **params):
    """Return k(X, Y) for the named kernel with its parameters bound.

    Parameters not used by the kernel (e.g. ``gamma`` for ``'linear'``) are ignored so a
    GUI can pass all of its sliders at once.
    """
    check_param("kernel", name, [Options(tuple(KERNELS))])
    func = KERNELS[name]
    used = {k: v for k, v in params.items() if k in _PARAMS[name]}
    unknown = set(params) - {"gamma", "degree", "coef0"}
    if unknown:
        raise ValueError(f"unknown kernel parameter(s) {sorted(unknown)}; valid: gamma, degree, coef0")
    # validate now rather than at the first call
    for key in _PARAMS[name]:
        check_param(key, used.get(key, _DEFAULTS[key]), KERNEL_PARAM_CONSTRAINTS[key])

    def kernel(X, Y=None):
        return func(X, Y, **used)

    kernel.__name__ = f"{name}_kernel"
    kernel.params = dict(used)
    return kernel
