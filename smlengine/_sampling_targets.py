"""Named 2-D targets for the samplers: a correlated Gaussian, a banana, two modes and a donut.

Each :class:`Target2D` is a normalised density with its true mean and covariance (for
checking the samplers' estimates), plot bounds, a random-walk step size that mixes well, and
the family and parameters the compiled Metropolis–Hastings loop of
:mod:`smlengine._sampling_compiled` evaluates without calling back into Python.
:mod:`smlengine.sampling` re-exports :class:`Target2D`, :data:`TARGETS` and :func:`get_target`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import integrate

from . import _sampling_compiled as compiled
from ._base import frozen_array


@dataclass(frozen=True, eq=False)
class Target2D:
    """A normalised 2-D density for the samplers.

    Attributes
    ----------
    name, title : str
        Short name and title for menus.
    log_density : callable
        log p(x) for points of shape (n, 2).
    mean : ndarray (2,)
        The true mean.
    cov : ndarray (2, 2)
        The true covariance.
    bounds : tuple
        (x_min, x_max, y_min, y_max) holding nearly all the mass (for plots and grids).
    good_step : float
        A random-walk step size with a reasonable acceptance rate.
    kind, params
        The density's family and parameters for the compiled sampler loop (kind -1: none).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.sampling import get_target
    >>> t = get_target("gaussian")
    >>> t.name, t.bounds, t.good_step
    ('gaussian', (-4.0, 4.0, -4.0, 4.0), 0.6)
    >>> print(np.round(t.mean, 3), np.round(t.cov, 3))
    [0. 0.] [[1.  0.9]
     [0.9 1. ]]
    >>> xs, ys, dens = t.grid(n=50)
    >>> dens.shape, round(float(dens.sum() * (xs[1] - xs[0]) * (ys[1] - ys[0])), 2)
    ((50, 50), 1.0)
    """

    name: str
    title: str
    log_density: Callable[[np.ndarray], np.ndarray] = field(repr=False)
    mean: np.ndarray = field(repr=False)
    cov: np.ndarray = field(repr=False)
    bounds: tuple = (-4.0, 4.0, -4.0, 4.0)
    good_step: float = 1.0
    kind: int = -1
    params: np.ndarray | None = field(default=None, repr=False)

    def __call__(self, x) -> np.ndarray:
        return self.log_density(np.asarray(x, dtype=np.float64).reshape(-1, 2))

    def __copy__(self):  # immutable: a copy (e.g. by sklearn's clone) is the target itself
        return self

    def __deepcopy__(self, memo):
        return self

    def grid(self, n: int = 200, bounds: tuple | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(xs, ys, density) with density[i, j] = p(xs[i], ys[j]) on an n × n grid over ``bounds``
        (default: the target's)."""
        x0, x1, y0, y1 = self.bounds if bounds is None else bounds
        xs, ys = np.linspace(x0, x1, n), np.linspace(y0, y1, n)
        gx, gy = np.meshgrid(xs, ys, indexing="ij")
        dens = np.exp(self.log_density(np.column_stack([gx.ravel(), gy.ravel()]))).reshape(n, n)
        return xs, ys, dens

    def marginals(self, n: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(xs, p(x1), ys, p(x2)): the marginal densities over ``bounds`` by numerical integration on a grid."""
        xs, ys, dens = self.grid(n)
        dx, dy = xs[1] - xs[0], ys[1] - ys[0]
        return xs, dens.sum(axis=1) * dy, ys, dens.sum(axis=0) * dx


def _correlated_gaussian(rho: float = 0.9) -> Target2D:
    """N(0, [[1, ρ], [ρ, 1]])."""
    cov = np.array([[1.0, rho], [rho, 1.0]])
    mean = np.zeros(2)
    prec = np.linalg.inv(cov)
    const = -math.log(2 * math.pi) - 0.5 * math.log(np.linalg.det(cov))

    def log_density(x):
        x = np.asarray(x, dtype=np.float64)
        d0, d1 = x[:, 0] - mean[0], x[:, 1] - mean[1]
        return const - 0.5 * (prec[0, 0] * d0 * d0 + 2.0 * prec[0, 1] * d0 * d1 + prec[1, 1] * d1 * d1)

    params = compiled.as_params([mean[0], mean[1], prec[0, 0], prec[0, 1], prec[1, 1], const])
    return Target2D("gaussian", f"Correlated Gaussian (ρ = {rho:g})", log_density, frozen_array(mean),
                    frozen_array(cov), (-4.0, 4.0, -4.0, 4.0), 0.6, compiled.GAUSSIAN, params)


def _banana(a: float = 1.5, b: float = 0.5) -> Target2D:
    """x1 ~ N(0, a²), x2 | x1 ~ N(b x1², 1): mean (0, b a²), var x2 = 1 + 2 b² a⁴, cov 0."""
    const = -math.log(2 * math.pi) - math.log(a)

    def log_density(x):
        x = np.asarray(x, dtype=np.float64)
        u = x[:, 0] / a
        v = x[:, 1] - b * x[:, 0] * x[:, 0]
        return const - 0.5 * u * u - 0.5 * v * v

    mean = np.array([0.0, b * a * a])
    cov = np.diag([a * a, 1.0 + 2.0 * b * b * a ** 4])
    return Target2D("banana", "Banana", log_density, frozen_array(mean), frozen_array(cov),
                    (-5.0, 5.0, -3.0, 9.0), 1.0, compiled.BANANA, compiled.as_params([a, b, const]))


def _two_modes(c: float = 1.6, var: float = 0.35) -> Target2D:
    """½ N((−c, −c), v I) + ½ N((c, c), v I): mean 0, cov = v I + c² [[1, 1], [1, 1]]."""
    const = -math.log(2 * math.pi * var) + math.log(0.5)

    def log_density(x):
        x = np.asarray(x, dtype=np.float64)
        la = -0.5 * ((x[:, 0] + c) ** 2 + (x[:, 1] + c) ** 2) / var
        lb = -0.5 * ((x[:, 0] - c) ** 2 + (x[:, 1] - c) ** 2) / var
        hi, lo = np.maximum(la, lb), np.minimum(la, lb)
        return const + hi + np.log1p(np.exp(lo - hi))

    cov = var * np.eye(2) + c * c * np.ones((2, 2))
    return Target2D("two-modes", "Two-mode mixture", log_density, frozen_array(np.zeros(2)), frozen_array(cov),
                    (-4.0, 4.0, -4.0, 4.0), 0.8, compiled.TWO_MODES, compiled.as_params([c, var, const]))


def _donut(radius: float = 2.5, width: float = 0.3) -> Target2D:
    """p(x) ∝ exp(−(‖x‖ − r)² / (2 w²)): mean 0, cov = E‖x‖² / 2 I (radial integrals by quadrature)."""

    def radial(rho, power):
        return rho ** power * math.exp(-0.5 * ((rho - radius) / width) ** 2)

    hi = radius + 12 * width
    z1 = integrate.quad(radial, 0.0, hi, args=(1,), epsabs=0, epsrel=1e-12)[0]
    z3 = integrate.quad(radial, 0.0, hi, args=(3,), epsabs=0, epsrel=1e-12)[0]
    const = -math.log(2 * math.pi * z1)

    def log_density(x):
        x = np.asarray(x, dtype=np.float64)
        z = (np.sqrt(x[:, 0] * x[:, 0] + x[:, 1] * x[:, 1]) - radius) / width
        return const - 0.5 * z * z

    cov = 0.5 * (z3 / z1) * np.eye(2)
    return Target2D("donut", "Donut", log_density, frozen_array(np.zeros(2)), frozen_array(cov),
                    (-3.8, 3.8, -3.8, 3.8), 0.5, compiled.DONUT, compiled.as_params([radius, width, const]))


TARGETS: dict[str, Target2D] = {t.name: t for t in (_correlated_gaussian(), _banana(), _two_modes(), _donut())}


def get_target(name: str) -> Target2D:
    """The named 2-D target: 'gaussian', 'banana', 'two-modes' or 'donut'.

    Examples
    --------
    >>> from smlengine.sampling import get_target
    >>> get_target("banana").bounds
    (-5.0, 5.0, -3.0, 9.0)
    """
    if name not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(map(repr, TARGETS))}, got {name!r}")
    return TARGETS[name]
