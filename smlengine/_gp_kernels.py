"""Covariance functions of Gaussian processes: RBF, Matérn, periodic, linear, their sums and products.

:mod:`smlengine.gp` exports these classes. A kernel k(x, x') is a positive semi-definite
function; ``kernel(X, Y)`` is its Gram matrix K[i, j] = k(x_i, y_j). The evidence's optimiser
works on θ, the logarithms of the kernel's positive hyper-parameters (a length-scale, a
variance, a period), because they are positive and act multiplicatively: ``theta``,
``bounds``, ``with_theta`` and ``gram_gradient`` (∂K/∂θ_j) serve it.

The formulas are scikit-learn's, so a kernel here equals the product of scikit-learn's
``ConstantKernel(variance)`` with its ``RBF``, ``Matern`` or ``ExpSineSquared``:

* RBF: k = v exp(−r²/2), r = |x − x'|/ℓ;
* Matérn ν = 1/2: k = v e^(−r); ν = 3/2: v (1 + √3 r) e^(−√3 r); ν = 5/2: v (1 + √5 r + 5r²/3) e^(−√5 r);
* periodic: k = v exp(−2 sin²(π|x − x'|/p) / ℓ²);
* linear: k = v xᵀx' + c, the covariance of f(x) = wᵀx + b with w ~ N(0, vI), b ~ N(0, c).
"""

from __future__ import annotations

import abc

import numpy as np

from ._base import MAX_ABS_VALUE, BaseEstimator, check_array
from ._params import InstanceOf, Interval, Options, Real

__all__ = ["Kernel", "RBF", "Matern", "Periodic", "Linear", "Sum", "Product", "HYPERPARAMETER_BOUNDS"]

#: the box (in natural units) the evidence's optimiser searches for every positive
#: hyper-parameter of a kernel, as scikit-learn's default bounds
HYPERPARAMETER_BOUNDS = (1e-5, 1e5)

# A positive hyper-parameter: above 1e10 a length-scale or period is "constant" for any data the
# engine accepts, and a variance that large squares past float64 in the evidence's gradient.
_POSITIVE = [Interval(Real, 0, 1e10, closed="right")]
_PARAM_NAMES: dict[type, list[str]] = {}


def _squared_distances(X, Y):
    """|x_i − y_j|² from the differences themselves (exact for close points, unlike |x|² + |y|² − 2xᵀy)."""
    if X.shape[1] > 8:  # many features: the expansion is cheaper than one pass per feature
        d2 = np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", Y, Y)[None, :] - 2.0 * (X @ Y.T)
        return np.maximum(d2, 0.0, out=d2)
    d2 = np.subtract.outer(X[:, 0], Y[:, 0])
    d2 *= d2
    for k in range(1, X.shape[1]):
        t = np.subtract.outer(X[:, k], Y[:, k])
        t *= t
        d2 += t
    return d2


class Kernel(BaseEstimator, abc.ABC):
    """A covariance function k(x, x'): ``kernel(X, Y)`` is its Gram matrix; ``+`` and ``*`` combine kernels.

    The kernels' hyper-parameters are stored verbatim as an estimator's (``get_params``,
    ``set_params``, ``sklearn.base.clone`` work); the positive ones that are not 0 make θ, in
    the order of ``hyperparameters``.

    Parameters
    ----------
    (each kernel its own; a sum or product its two parts ``k1`` and ``k2``)

    Attributes
    ----------
    hyperparameters : tuple of str
        The names in θ.
    theta : ndarray
        θ, the logarithms of their values.
    bounds : ndarray of shape (len(θ), 2)
        The optimiser's box for θ.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.gp import RBF, Linear
    >>> k = RBF(length_scale=2.0) + Linear(variance=0.5)
    >>> k
    RBF(length_scale=2.0, variance=1.0) + Linear(variance=0.5, offset=0.0)
    >>> print(np.round(k(np.array([[0.0], [2.0]])), 3))
    [[1.    0.607]
     [0.607 3.   ]]
    >>> k.hyperparameters, np.round(np.exp(k.theta), 3)
    (('k1__length_scale', 'k1__variance', 'k2__variance'), array([2. , 1. , 0.5]))
    """

    @classmethod
    def _param_names(cls) -> list[str]:
        # read from __init__'s signature once per class: the optimiser copies kernels at every step
        names = _PARAM_NAMES.get(cls)
        if names is None:
            names = _PARAM_NAMES[cls] = super()._param_names()
        return list(names)

    def __call__(self, X, Y=None) -> np.ndarray:
        """The Gram matrix K[i, j] = k(x_i, y_j) (Y = X when omitted)."""
        self.check()
        X = check_array(X, name="X", max_abs=MAX_ABS_VALUE)
        if Y is None:
            return self.gram(X, X)
        Y = check_array(Y, name="Y", max_abs=MAX_ABS_VALUE)
        if X.shape[1] != Y.shape[1]:
            raise ValueError(f"X and Y have different numbers of features: {X.shape[1]} and {Y.shape[1]}")
        return self.gram(X, Y)

    def diag(self, X) -> np.ndarray:
        """k(x_i, x_i) for every row of X, without the whole Gram matrix."""
        self.check()
        return self.gram_diag(check_array(X, name="X", max_abs=MAX_ABS_VALUE))

    def check(self) -> None:
        """Validate the hyper-parameters (of both parts of a sum or product too)."""
        self.validate_params()

    def __add__(self, other):
        return Sum(self, other) if isinstance(other, Kernel) else NotImplemented

    def __mul__(self, other):
        return Product(self, other) if isinstance(other, Kernel) else NotImplemented

    def clone(self) -> "Kernel":
        """A copy with the same hyper-parameters (parts of a sum or product copied too)."""
        params = self.get_params(deep=False)
        return type(self)(**{k: v.clone() if isinstance(v, Kernel) else v for k, v in params.items()})

    # ---- the optimiser's view: θ = log of the positive hyper-parameters that are not 0
    @property
    def hyperparameters(self) -> tuple[str, ...]:
        """Names of the hyper-parameters in θ (``k1__…`` and ``k2__…`` for the parts of a sum or product)."""
        return tuple(name for name in self.positive if getattr(self, name) > 0)

    #: the kernel's positive hyper-parameters, in the order of θ
    positive: tuple[str, ...] = ()

    @property
    def theta(self) -> np.ndarray:
        """θ: the logarithms of the hyper-parameters named by ``hyperparameters``."""
        params = self.get_params(deep=True)
        return np.log(np.array([float(params[name]) for name in self.hyperparameters]))

    @property
    def bounds(self) -> np.ndarray:
        """(len(θ), 2): the optimiser's box for θ, the logarithms of :data:`HYPERPARAMETER_BOUNDS`."""
        return np.tile(np.log(HYPERPARAMETER_BOUNDS), (len(self.hyperparameters), 1))

    def with_theta(self, theta) -> "Kernel":
        """A copy whose hyper-parameters are exp(θ)."""
        theta = np.asarray(theta, dtype=float)
        names = self.hyperparameters
        if theta.shape != (len(names),):
            raise ValueError(f"theta must have {len(names)} values ({', '.join(names)}), got shape {theta.shape}")
        return self.clone().set_params(**{name: float(np.exp(t)) for name, t in zip(names, theta)})

    # ---- formulas on validated float arrays (``__call__`` and ``diag`` validate)
    @abc.abstractmethod
    def gram(self, X, Y) -> np.ndarray:
        """K = k(X, Y) for validated arrays (a new array the caller may change)."""

    @abc.abstractmethod
    def gram_diag(self, X) -> np.ndarray:
        """k(x_i, x_i) for a validated X (a new array)."""

    @abc.abstractmethod
    def gram_gradient(self, X) -> tuple[np.ndarray, list[np.ndarray]]:
        """K = k(X, X) and ∂K/∂θ_j for every j, for a validated X (arrays the caller must not change)."""


class _Stationary(Kernel):
    """A kernel of the distance |x − x'| only, scaled by a variance: k(x, x) = v."""

    def gram_diag(self, X):
        return np.full(X.shape[0], float(self.variance))

    def _scale(self, K):
        if self.variance != 1.0:
            K *= self.variance
        return K


class RBF(_Stationary):
    """The squared-exponential kernel k(x, x') = v exp(−|x − x'|² / (2ℓ²)).

    Smooth functions (infinitely differentiable) that vary on the scale ℓ; scikit-learn's
    ``ConstantKernel(v) * RBF(ℓ)``.

    Parameters
    ----------
    length_scale : float, default=1.0
        ℓ > 0: inputs this far apart have correlation e^(−1/2).
    variance : float, default=1.0
        v > 0: the prior variance of f(x).

    Attributes
    ----------
    hyperparameters, theta, bounds
        As for every :class:`Kernel`: ``('length_scale', 'variance')``, their logarithms, the optimiser's box.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.gp import RBF
    >>> print(np.round(RBF(length_scale=1.0, variance=2.0)(np.array([[0.0], [1.0], [3.0]])), 3))
    [[2.    1.213 0.022]
     [1.213 2.    0.271]
     [0.022 0.271 2.   ]]
    """

    _parameter_constraints = {"length_scale": _POSITIVE, "variance": _POSITIVE}
    positive = ("length_scale", "variance")

    def __init__(self, length_scale=1.0, variance=1.0):
        self.length_scale = length_scale
        self.variance = variance

    def gram(self, X, Y):
        ell = float(self.length_scale)
        K = _squared_distances(X / ell, X / ell if Y is X else Y / ell)
        K *= -0.5
        return self._scale(np.exp(K, out=K))

    def gram_gradient(self, X):
        ell = float(self.length_scale)
        D = _squared_distances(X / ell, X / ell)  # r²
        K = self._scale(np.exp(-0.5 * D))
        return K, [g for name, g in (("length_scale", K * D), ("variance", K)) if getattr(self, name) > 0]


class Matern(_Stationary):
    """The Matérn kernel of smoothness ν ∈ {1/2, 3/2, 5/2}, scaled by a variance.

    With r = |x − x'|/ℓ: ν = 1/2 gives k = v e^(−r) (continuous, nowhere differentiable paths),
    ν = 3/2 gives v (1 + √3 r) e^(−√3 r) (once differentiable), ν = 5/2 gives
    v (1 + √5 r + 5r²/3) e^(−√5 r) (twice); as ν → ∞ it becomes the RBF. scikit-learn's
    ``ConstantKernel(v) * Matern(ℓ, nu=ν)``.

    Parameters
    ----------
    length_scale : float, default=1.0
        ℓ > 0.
    nu : {0.5, 1.5, 2.5}, default=1.5
        ν, the smoothness (fixed: it is not one of the optimised hyper-parameters).
    variance : float, default=1.0
        v > 0.

    Attributes
    ----------
    hyperparameters, theta, bounds
        As for every :class:`Kernel`: ``('length_scale', 'variance')``, their logarithms, the optimiser's box.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.gp import Matern
    >>> print(np.round(Matern(nu=0.5)(np.array([[0.0], [1.0], [3.0]])), 3))
    [[1.    0.368 0.05 ]
     [0.368 1.    0.135]
     [0.05  0.135 1.   ]]
    """

    _parameter_constraints = {"length_scale": _POSITIVE, "nu": [Options((0.5, 1.5, 2.5))], "variance": _POSITIVE}
    positive = ("length_scale", "variance")

    def __init__(self, length_scale=1.0, nu=1.5, variance=1.0):
        self.length_scale = length_scale
        self.nu = nu
        self.variance = variance

    def _from_r(self, r):
        """(k/v, r ∂(k/v)/∂r · (−1)) at the scaled distances r: the shape and its ∂/∂log ℓ."""
        if self.nu == 0.5:
            e = np.exp(-r)
            return e, r * e
        if self.nu == 1.5:
            a = np.sqrt(3.0) * r
            e = np.exp(-a)
            return (1.0 + a) * e, a * a * e
        a = np.sqrt(5.0) * r
        e = np.exp(-a)
        return (1.0 + a + a * a / 3.0) * e, a * a * (1.0 + a) * e / 3.0

    def gram(self, X, Y):
        ell = float(self.length_scale)
        r = np.sqrt(_squared_distances(X / ell, X / ell if Y is X else Y / ell))
        return self._scale(self._from_r(r)[0])

    def gram_gradient(self, X):
        ell = float(self.length_scale)
        shape, d_log_ell = self._from_r(np.sqrt(_squared_distances(X / ell, X / ell)))
        K = self._scale(shape)
        return K, [g for name, g in (("length_scale", self._scale(d_log_ell)), ("variance", K))
                   if getattr(self, name) > 0]


class Periodic(_Stationary):
    """The periodic kernel k(x, x') = v exp(−2 sin²(π|x − x'|/p) / ℓ²).

    Functions that repeat with period p exactly, with length-scale ℓ within one period;
    scikit-learn's ``ConstantKernel(v) * ExpSineSquared(ℓ, p)``. It is a kernel of one input:
    on the distance between points of the plane it is not positive semi-definite in general.

    Parameters
    ----------
    length_scale : float, default=1.0
        ℓ > 0.
    period : float, default=1.0
        p > 0.
    variance : float, default=1.0
        v > 0.

    Attributes
    ----------
    hyperparameters, theta, bounds
        As for every :class:`Kernel`: ``('length_scale', 'period', 'variance')``, their logarithms, the optimiser's box.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.gp import Periodic
    >>> print(np.round(Periodic(period=2.0)(np.array([[0.0], [1.0], [2.0]])), 3))
    [[1.    0.135 1.   ]
     [0.135 1.    0.135]
     [1.    0.135 1.   ]]
    """

    _parameter_constraints = {"length_scale": _POSITIVE, "period": _POSITIVE, "variance": _POSITIVE}
    positive = ("length_scale", "period", "variance")

    def __init__(self, length_scale=1.0, period=1.0, variance=1.0):
        self.length_scale = length_scale
        self.period = period
        self.variance = variance

    def _angles(self, X, Y):
        d = np.sqrt(_squared_distances(X, Y))
        return d, np.pi * d / float(self.period)

    def gram(self, X, Y):
        _, arg = self._angles(X, Y)
        s = np.sin(arg, out=arg)
        s /= float(self.length_scale)
        s *= s
        s *= -2.0
        return self._scale(np.exp(s, out=s))

    def gram_gradient(self, X):
        ell, p = float(self.length_scale), float(self.period)
        d, arg = self._angles(X, X)
        s, c = np.sin(arg), np.cos(arg)
        K = self._scale(np.exp(-2.0 * (s / ell) ** 2))
        grads = {"length_scale": K * (4.0 * s * s / ell**2), "period": K * (4.0 * np.pi * d * s * c / (p * ell**2)),
                 "variance": K}
        return K, [grads[name] for name in self.hyperparameters]


class Linear(Kernel):
    """The linear kernel k(x, x') = v xᵀx' + c: Bayesian linear regression f(x) = wᵀx + b.

    With w ~ N(0, vI) and b ~ N(0, c), f is a GP with this covariance; its posterior mean is
    ridge regression's line. scikit-learn's ``ConstantKernel(v) * DotProduct(sigma_0=√(c/v))``.
    An offset of 0 (a line through the origin) stays 0: it is not in θ.

    Parameters
    ----------
    variance : float, default=1.0
        v > 0, the prior variance of each weight.
    offset : float, default=0.0
        c >= 0, the prior variance of the intercept.

    Attributes
    ----------
    hyperparameters, theta, bounds
        As for every :class:`Kernel`: ``('variance', 'offset')`` (without the offset when it is 0); their
        logarithms; the optimiser's box.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.gp import Linear
    >>> print(Linear(variance=2.0, offset=1.0)(np.array([[0.0], [1.0], [3.0]])))
    [[ 1.  1.  1.]
     [ 1.  3.  7.]
     [ 1.  7. 19.]]
    """

    _parameter_constraints = {"variance": _POSITIVE, "offset": [Interval(Real, 0, 1e10)]}
    positive = ("variance", "offset")

    def __init__(self, variance=1.0, offset=0.0):
        self.variance = variance
        self.offset = offset

    def gram(self, X, Y):
        K = X @ Y.T
        K *= float(self.variance)
        K += float(self.offset)
        return K

    def gram_diag(self, X):
        return float(self.variance) * np.einsum("ij,ij->i", X, X) + float(self.offset)

    def gram_gradient(self, X):
        K = self.gram(X, X)
        grads = {"variance": K - float(self.offset), "offset": np.full_like(K, float(self.offset))}
        return K, [grads[name] for name in self.hyperparameters]


class _Pair(Kernel):
    """Two kernels combined; θ is k1's then k2's."""

    _parameter_constraints = {"k1": [InstanceOf(Kernel, name="a kernel")], "k2": [InstanceOf(Kernel, name="a kernel")]}
    symbol = ""

    def __init__(self, k1, k2):
        self.k1 = k1
        self.k2 = k2

    def check(self):
        self.validate_params()
        self.k1.check()
        self.k2.check()

    @property
    def hyperparameters(self):
        return (tuple(f"k1__{n}" for n in self.k1.hyperparameters)
                + tuple(f"k2__{n}" for n in self.k2.hyperparameters))

    def __repr__(self):
        def part(k):
            return f"({k!r})" if isinstance(k, _Pair) and k.symbol != self.symbol else repr(k)

        return f"{part(self.k1)} {self.symbol} {part(self.k2)}"


class Sum(_Pair):
    """k(x, x') = k₁(x, x') + k₂(x, x'): the covariance of f₁ + f₂ for independent f₁, f₂ (``k1 + k2``).

    Parameters
    ----------
    k1, k2 : Kernel
        The two kernels.

    Attributes
    ----------
    hyperparameters, theta, bounds
        As for every :class:`Kernel`: k1's names as ``k1__…``, then k2's as ``k2__…``; their logarithms;
        the optimiser's box.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.gp import Linear, RBF, Sum
    >>> k = Sum(RBF(), Linear())
    >>> print(np.round(k(np.array([[0.0], [1.0]])), 3))
    [[1.    0.607]
     [0.607 2.   ]]
    """

    symbol = "+"

    def gram(self, X, Y):
        K = self.k1.gram(X, Y)
        K += self.k2.gram(X, Y)
        return K

    def gram_diag(self, X):
        return self.k1.gram_diag(X) + self.k2.gram_diag(X)

    def gram_gradient(self, X):
        K1, g1 = self.k1.gram_gradient(X)
        K2, g2 = self.k2.gram_gradient(X)
        return K1 + K2, g1 + g2


class Product(_Pair):
    """k(x, x') = k₁(x, x') k₂(x, x') (``k1 * k2``): e.g. a periodic pattern whose shape drifts (periodic × RBF).

    Parameters
    ----------
    k1, k2 : Kernel
        The two kernels.

    Attributes
    ----------
    hyperparameters, theta, bounds
        As for every :class:`Kernel`: k1's names as ``k1__…``, then k2's as ``k2__…``; their logarithms;
        the optimiser's box.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.gp import Periodic, Product, RBF
    >>> k = Product(Periodic(period=1.0), RBF(length_scale=2.0))
    >>> print(np.round(k(np.array([[0.0], [1.0], [2.0]])), 3))
    [[1.    0.882 0.607]
     [0.882 1.    0.882]
     [0.607 0.882 1.   ]]
    """

    symbol = "*"

    def gram(self, X, Y):
        K = self.k1.gram(X, Y)
        K *= self.k2.gram(X, Y)
        return K

    def gram_diag(self, X):
        return self.k1.gram_diag(X) * self.k2.gram_diag(X)

    def gram_gradient(self, X):
        K1, g1 = self.k1.gram_gradient(X)
        K2, g2 = self.k2.gram_gradient(X)
        return K1 * K2, [g * K2 for g in g1] + [K1 * g for g in g2]
