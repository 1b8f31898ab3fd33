"""Kernel functions and their Gram matrices: the engine's one registry of kernel formulas.

A kernel k(x, y) = <phi(x), phi(y)> lets a linear method work in feature space phi
without computing phi. Each function takes two sample matrices X (n, d) and Y (m, d)
and returns the Gram matrix K[i, j] = k(x_i, y_j) of shape (n, m), fully vectorized.
:class:`KernelRows` gives single rows of the same formulas fast (the SVM's kernel cache),
:func:`rbf_grid_expansion` an rbf expansion on a 2-D grid (decision maps).
"""

from __future__ import annotations

import numpy as np

from ._base import check_array
from ._kernel_formulas import FORMULAS, KernelRows, diagonal
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
    """||x_i - y_j||^2 via ||x||^2 + ||y||^2 - 2<x, y>, clipped at 0 against round-off.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.kernels import squared_distances
    >>> print(squared_distances(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])))
    [[0. 1. 4.]
     [1. 0. 5.]
     [4. 5. 0.]]
    """
    X, Y = _pair(X, Y)
    xx = np.einsum("ij,ij->i", X, X)
    yy = xx if Y is X else np.einsum("ij,ij->i", Y, Y)
    d2 = xx[:, None] + yy[None, :] - 2.0 * (X @ Y.T)
    np.maximum(d2, 0.0, out=d2)
    if Y is X:
        np.fill_diagonal(d2, 0.0)
    return d2


def _gram(name, X, Y, gamma=1.0, degree=3, coef0=1.0):
    terms, finish = FORMULAS[name]
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
    """k(x, y) = <x, y>.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.kernels import linear
    >>> print(linear(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])))
    [[0. 0. 0.]
     [0. 1. 0.]
     [0. 0. 4.]]
    """
    X, Y = _pair(X, Y)
    return _gram("linear", X, Y)


@validate_call({"degree": KERNEL_PARAM_CONSTRAINTS["degree"], "coef0": KERNEL_PARAM_CONSTRAINTS["coef0"]})
def polynomial(X, Y=None, degree=3, coef0=1.0) -> np.ndarray:
    """k(x, y) = (<x, y> + coef0)^degree.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.kernels import polynomial
    >>> print(polynomial(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]]), degree=2))
    [[ 1.  1.  1.]
     [ 1.  4.  1.]
     [ 1.  1. 25.]]
    """
    X, Y = _pair(X, Y)
    return _gram("poly", X, Y, degree=int(degree), coef0=float(coef0))


@validate_call({"gamma": KERNEL_PARAM_CONSTRAINTS["gamma"]})
def rbf(X, Y=None, gamma=1.0) -> np.ndarray:
    """k(x, y) = exp(-gamma ||x - y||^2), gamma > 0.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.kernels import rbf
    >>> print(np.round(rbf(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]]), gamma=0.5), 3))
    [[1.    0.607 0.135]
     [0.607 1.    0.082]
     [0.135 0.082 1.   ]]
    """
    X, Y = _pair(X, Y)
    return _gram("rbf", X, Y, gamma=float(gamma))


def rbf_grid_expansion(xs, ys, centres, coef, gamma, *, flush=200.0) -> np.ndarray:
    """f[b, a] = sum_s coef_s exp(-gamma |(xs[a], ys[b]) - c_s|^2) on a 2-D grid.

    The rbf kernel factorises over the coordinates, exp(-g|p - c|^2) = exp(-g(p1 - c1)^2)
    exp(-g(p2 - c2)^2), so on a regular grid f = (E_y * coef) E_x^T with two small factor
    matrices: 2 R n_centres exponentials instead of R^2 n_centres kernel evaluations. Factors
    below e^-flush are set to 0: products of two of them would be subnormal numbers, which
    make the product many times slower, and terms that small do not change f.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.kernels import rbf_grid_expansion
    >>> centres = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> f = rbf_grid_expansion(np.array([0.0, 1.0]), np.array([0.0, 1.0, 2.0]), centres, np.array([1.0, -1.0, 0.5]),
    ...                        gamma=0.5)
    >>> print(np.round(f, 3))
    [[ 0.461 -0.352]
     [ 0.542 -0.055]
     [ 0.553  0.25 ]]
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

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.kernels import make_kernel
    >>> k = make_kernel("rbf", gamma=0.5, degree=7)
    >>> print(np.round(k(np.array([[0.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 2.0]])), 3))
    [[0.607 0.135]]
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
