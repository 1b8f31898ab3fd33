"""Basis functions for regression on one input variable: polynomials and Gaussian bumps.

A basis turns a 1-D input x (shape (n, 1)) into features Φ(x) on which a linear regressor
fits ŷ(x) = Σ_k w_k φ_k(x) + b. :class:`PolynomialBasis` gives powers or Legendre
polynomials of the scaled input, :class:`GaussianBasis` evenly spaced (or given) Gaussian
bumps. :class:`smlengine.regression.BasisRegression` chains a basis with a regressor, and
:mod:`smlengine.regression` re-exports both bases and :data:`MAX_DEGREE`.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._base import BaseEstimator
from ._params import ArrayLike, Integral, Interval, Options, Real
from ._regression_checks import check_x

__all__ = ["PolynomialBasis", "GaussianBasis", "MAX_DEGREE", "MAX_CENTRES"]

#: highest polynomial degree accepted: past it the powers of the scaled input are so alike
#: that XᵀX is singular to working precision and the fitted curve is noise
MAX_DEGREE = 30
#: most Gaussian bumps a basis may have
MAX_CENTRES = 500


class PolynomialBasis(BaseEstimator):
    """Polynomials of the scaled input u = (x − m) / h up to degree p.

    ``kind='power'``: φ(x) = (u, u², …, u^p); ``kind='legendre'``: φ(x) = (P₁(u), …, P_p(u)),
    the Legendre polynomials, which span the same functions (least squares fits the same
    curve) but are nearly orthogonal on [−1, 1], so ΦᵀΦ is far better conditioned: gradient
    descent and coordinate descent converge in far fewer steps, and a penalty acts on
    shapes rather than on powers. ``fit`` takes m and h as the midpoint and half-range of the
    training inputs, so u lies in [−1, 1] on them. The constant term is the regressor's
    intercept, so degree p gives p features (p + 1 parameters); degree 0 gives a single
    column of zeros (the model is the mean).

    Parameters
    ----------
    degree : int, default=3
        p, the highest degree.
    kind : {'power', 'legendre'}, default='power'
        Powers of u or Legendre polynomials of u.

    Attributes
    ----------
    centre_ : float
        m, the midpoint of the training inputs.
    scale_ : float
        h, their half-range (1 when they are all equal).

    Examples
    --------
    >>> from smlengine.basis import PolynomialBasis
    >>> b = PolynomialBasis(degree=2).fit([[0.0], [4.0]])
    >>> b.centre_, b.scale_, b.names()
    (2.0, 2.0, ['u^1', 'u^2'])
    >>> print(b.transform([[0.0], [2.0], [4.0]]))
    [[-1.  1.]
     [ 0.  0.]
     [ 1.  1.]]
    >>> print(PolynomialBasis(degree=2, kind="legendre").fit_transform([[-1.0], [0.0], [1.0]]))
    [[-1.   1. ]
     [ 0.  -0.5]
     [ 1.   1. ]]
    """

    _parameter_constraints = {
        "degree": [Interval(Integral, 0, MAX_DEGREE)],
        "kind": [Options(("power", "legendre"))],
    }

    def __init__(self, degree=3, kind="power"):
        self.degree = degree
        self.kind = kind

    def fit(self, x, y=None):
        """Take m and h from the training inputs x, shape (n, 1); ``y`` is ignored."""
        self.validate_params()
        x = check_x(x)[:, 0]
        lo, hi = float(x.min()), float(x.max())
        self.centre_ = 0.5 * (lo + hi)
        self.scale_ = 0.5 * (hi - lo) if hi > lo else 1.0
        return self

    def transform(self, x) -> np.ndarray:
        """Φ(x), shape (n, n_features)."""
        self._check_fitted("scale_")
        u = (check_x(x)[:, 0] - self.centre_) / self.scale_
        if self.degree == 0:
            return np.zeros((len(u), 1))
        if self.kind == "legendre":
            return np.polynomial.legendre.legvander(u, int(self.degree))[:, 1:]
        return np.power.outer(u, np.arange(1, self.degree + 1))

    def fit_transform(self, x, y=None) -> np.ndarray:
        """``fit(x)`` then ``transform(x)``."""
        return self.fit(x).transform(x)

    @property
    def n_features(self) -> int:
        """Number of columns of Φ: p (1 for degree 0)."""
        return max(int(self.degree), 1)

    def names(self) -> list[str]:
        """Column names for tables and legends: 'u^k' or 'Pk(u)'."""
        if not self.degree:
            return ["0"]
        return [f"P{k}(u)" if self.kind == "legendre" else f"u^{k}" for k in range(1, self.n_features + 1)]


class GaussianBasis(BaseEstimator):
    """Gaussian bumps φ_k(x) = exp(−(x − c_k)² / (2 s²)).

    ``centres``: the centres c_k, or an int K for K centres evenly spaced over the training
    inputs' range; ``width``: s > 0, or ``None`` for the spacing of the centres (their range
    when there is one centre).

    Parameters
    ----------
    centres : int or array-like, default=10
        The centres c_k, or how many to spread evenly.
    width : float or None, default=None
        s, the bumps' standard deviation.

    Attributes
    ----------
    centres_ : ndarray of shape (K,)
        The centres c_k.
    width_ : float
        s.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.basis import GaussianBasis
    >>> g = GaussianBasis(centres=3).fit([[0.0], [2.0]])
    >>> print(g.centres_, g.width_, g.names())
    [0. 1. 2.] 1.0 ['φ1', 'φ2', 'φ3']
    >>> print(np.round(g.transform([[0.0], [1.0]]), 3))
    [[1.    0.607 0.135]
     [0.607 1.    0.607]]
    """

    _parameter_constraints = {
        "centres": [Interval(Integral, 1, MAX_CENTRES), ArrayLike()],
        "width": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(self, centres=10, width=None):
        self.centres = centres
        self.width = width

    def fit(self, x, y=None):
        """Place the centres over the training inputs x, shape (n, 1); ``y`` is ignored."""
        self.validate_params()
        x = check_x(x)[:, 0]
        if isinstance(self.centres, numbers.Integral):
            k = int(self.centres)
            lo, hi = float(x.min()), float(x.max())
            c = np.linspace(lo, hi, k) if k > 1 else np.array([0.5 * (lo + hi)])
        else:
            try:
                c = np.asarray(self.centres, dtype=np.float64).ravel()
            except (TypeError, ValueError):
                raise ValueError("centres must be an int (how many) or a list of numbers") from None
            if c.size == 0 or c.size > MAX_CENTRES or not np.all(np.isfinite(c)):
                raise ValueError(f"centres must hold 1 to {MAX_CENTRES} finite numbers, got {c.size}")
        if self.width is None:
            span = float(np.ptp(c)) if c.size > 1 else float(np.ptp(x))
            width = span / (c.size - 1) if c.size > 1 else span
            width = width if width > 0 else 1.0
        else:
            width = float(self.width)
        self.centres_ = c
        self.width_ = width
        return self

    def transform(self, x) -> np.ndarray:
        """Φ(x), shape (n, K)."""
        self._check_fitted("centres_")
        d = check_x(x)[:, 0][:, None] - self.centres_[None, :]
        return np.exp(-0.5 * (d / self.width_) ** 2)

    def fit_transform(self, x, y=None) -> np.ndarray:
        """``fit(x)`` then ``transform(x)``."""
        return self.fit(x).transform(x)

    @property
    def n_features(self) -> int:
        """K, the number of bumps."""
        return int(self.centres) if isinstance(self.centres, numbers.Integral) else int(np.size(self.centres))

    def names(self) -> list[str]:
        """Column names for tables and legends: 'φ1', 'φ2', ..."""
        return [f"φ{k + 1}" for k in range(self.n_features)]
