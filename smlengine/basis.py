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
    """

    _parameter_constraints = {
        "degree": [Interval(Integral, 0, MAX_DEGREE)],
        "kind": [Options(("power", "legendre"))],
    }

    def __init__(self, degree=3, kind="power"):
        self.degree = degree
        self.kind = kind

    def fit(self, x, y=None):
        self.validate_params()
        x = check_x(x)[:, 0]
        lo, hi = float(x.min()), float(x.max())
        self.centre_ = 0.5 * (lo + hi)
        self.scale_ = 0.5 * (hi - lo) if hi > lo else 1.0
        return self

    def transform(self, x) -> np.ndarray:
        self._check_fitted("scale_")
        u = (check_x(x)[:, 0] - self.centre_) / self.scale_
        if self.degree == 0:
            return np.zeros((len(u), 1))
        if self.kind == "legendre":
            return np.polynomial.legendre.legvander(u, int(self.degree))[:, 1:]
        return np.power.outer(u, np.arange(1, self.degree + 1))

    def fit_transform(self, x, y=None) -> np.ndarray:
        return self.fit(x).transform(x)

    @property
    def n_features(self) -> int:
        return max(int(self.degree), 1)

    def names(self) -> list[str]:
        if not self.degree:
            return ["0"]
        return [f"P{k}(u)" if self.kind == "legendre" else f"u^{k}" for k in range(1, self.n_features + 1)]


class GaussianBasis(BaseEstimator):
    """Gaussian bumps φ_k(x) = exp(−(x − c_k)² / (2 s²)).

    ``centres``: the centres c_k, or an int K for K centres evenly spaced over the training
    inputs' range; ``width``: s > 0, or ``None`` for the spacing of the centres (their range
    when there is one centre).
    """

    _parameter_constraints = {
        "centres": [Interval(Integral, 1, MAX_CENTRES), ArrayLike()],
        "width": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(self, centres=10, width=None):
        self.centres = centres
        self.width = width

    def fit(self, x, y=None):
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
        self._check_fitted("centres_")
        d = check_x(x)[:, 0][:, None] - self.centres_[None, :]
        return np.exp(-0.5 * (d / self.width_) ** 2)

    def fit_transform(self, x, y=None) -> np.ndarray:
        return self.fit(x).transform(x)

    @property
    def n_features(self) -> int:
        return int(self.centres) if isinstance(self.centres, numbers.Integral) else int(np.size(self.centres))

    def names(self) -> list[str]:
        return [f"φ{k + 1}" for k in range(self.n_features)]
