"""The Gaussian-process lab's run (Qt-free): the evidence's optimiser one step at a time, and at
every step the prior, the posterior and the numbers of the maths panel; the evidence map under the
optimiser's path (computed by ``prepare`` on a worker).

Step 0 is the model the parameters describe; the next steps are those of
:meth:`smlengine.gp.GaussianProcessRegressor.fit_steps` climbing the evidence over the kernel's
hyper-parameters and the noise σ² (from the given start, then from ``n_restarts`` random ones),
the last being the best state found. Every snapshot carries the same read-only
:class:`GPLabContext` (the data, the grids, the truth), built once before step 0.
"""

from __future__ import annotations

import math
import threading
import warnings
from dataclasses import dataclass

import numpy as np

from smlengine import Snapshot, frozen_array
from smlengine.datasets import TRUTHS, make_regression_1d
from smlengine.gp import (
    RBF,
    EvidenceSurface,
    GaussianProcessRegressor,
    GPSnapshot,
    JitterWarning,
    Linear,
    Matern,
    Periodic,
)

KERNELS = [("rbf", "RBF"), ("matern", "Matérn"), ("periodic", "periodic"), ("linear", "linear"),
           ("rbf+linear", "RBF + linear")]
#: the Matérn kernel's smoothness ν
NUS = [(0.5, "1/2"), (1.5, "3/2"), (2.5, "5/2")]
KERNEL_NAMES = dict(KERNELS)
TRUTH_CHOICES = [(name, name) for name in TRUTHS]
#: x values of the mean and band, of the functions drawn (each draw decomposes an m × m covariance),
#: of the covariance image
GRID_POINTS, SAMPLE_POINTS, COV_POINTS = 150, 80, 60
#: functions drawn from the prior and from the posterior
N_PRIOR, N_POSTERIOR = 5, 3
#: values per axis of the evidence map
MAP_POINTS = 41
#: the entries of K + σ²I, L and α the maths panel writes out
HEAD = 3
#: what ``prepare`` gives while the evidence tab is hidden: its map is computed when the tab is opened
HIDDEN = ()
#: the evidence map's contours: this many nats below the map's highest value
CONTOUR_DROPS = (1.0, 3.0, 10.0, 30.0, 100.0)


def make_kernel(name: str, length_scale: float, variance: float, period: float, nu: float = 1.5):
    """The kernel ``name`` of the lab's parameters (the linear part of a sum starts at a tenth of the variance)."""
    if name == "rbf":
        return RBF(length_scale, variance)
    if name == "matern":
        return Matern(length_scale, float(nu), variance)
    if name == "periodic":
        return Periodic(length_scale, period, variance)
    if name == "linear":
        return Linear(variance, variance)
    if name == "rbf+linear":
        return RBF(length_scale, variance) + Linear(0.1 * variance, 0.1 * variance)
    raise ValueError(f"kernel must be one of {', '.join(KERNEL_NAMES)}, got {name!r}")


def map_axis(name: str) -> tuple[str, str]:
    """The hyper-parameter along the evidence map's first axis, and its symbol."""
    if name == "linear":
        return "variance", "v"
    return ("k1__length_scale" if name == "rbf+linear" else "length_scale"), "ℓ"


def sample(truth: str, n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points from the truth (x uniform on [0, 1], y = f(x) + σε), seeded."""
    x, y = make_regression_1d(truth, n, noise, random_state=seed)
    return x[:, 0], y


class _MapCache:
    """The evidence surface of one box, kept across the frames of a run (``prepare`` runs on workers)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.box = None
        self.surface = None


@dataclass(frozen=True, eq=False)
class GPLabContext:
    """What every step of one run shares: the data, the grids, the truth, the map's axes."""

    x: np.ndarray
    y: np.ndarray
    kernel_name: str
    truth: str | None  # None: the points were drawn or loaded
    truth_noise: float
    grid: np.ndarray  # x of the mean and the band
    sample_grid: np.ndarray  # x of the functions drawn from the prior and the posterior
    truth_grid: np.ndarray | None
    cov_grid: np.ndarray  # x of the covariance image
    x0: float  # the kernel is drawn as k(x₀, x)
    map_param: str
    map_symbol: str
    base_box: tuple[float, float, float, float]  # log₁₀ of (param lo, hi, σ² lo, hi) the map covers at least
    seed: int

    def __post_init__(self):
        # the evidence map's decompositions, kept for the run's frames (not a field: not part of the state)
        object.__setattr__(self, "cache", _MapCache())


@dataclass(frozen=True, kw_only=True, eq=False)
class GPLabSnapshot(Snapshot):
    """One step: the optimiser's state (``fit``) and what the tabs draw of it."""

    ctx: GPLabContext
    fit: GPSnapshot  # the engine's snapshot: kernel, σ², θ, the evidence and its terms, restart
    mean: np.ndarray  # posterior mean on ctx.grid
    std: np.ndarray  # posterior standard deviation of f on ctx.grid
    samples: np.ndarray  # (N_POSTERIOR, SAMPLE_POINTS) functions from the posterior, on ctx.sample_grid
    prior: np.ndarray  # (N_PRIOR, SAMPLE_POINTS) functions from the prior, on ctx.sample_grid
    kernel_curve: np.ndarray  # k(x₀, x) on ctx.grid
    cov: np.ndarray  # k(x, x') on ctx.cov_grid
    K_head: np.ndarray  # the first rows and columns of K + σ²I
    L_head: np.ndarray  # of its Cholesky factor
    alpha_head: np.ndarray  # the first entries of α = (K + σ²I)⁻¹y
    path: np.ndarray  # (k, 2) log₁₀(map parameter, σ²) of the steps so far, a NaN row between ascents
    point: np.ndarray  # log₁₀(map parameter, σ²) now
    jitter: float

    @property
    def log_evidence(self) -> float:
        return self.fit.log_marginal_likelihood


def _decades(lo: float, hi: float) -> tuple[float, float]:
    """[lo, hi] widened outward to half decades (a box that changes rarely as the path grows)."""
    return math.floor(lo * 2.0) / 2.0, math.ceil(hi * 2.0) / 2.0


def make_context(x, y, *, kernel: str, truth: str | None, truth_noise: float, start, seed: int) -> GPLabContext:
    """The run's context: grids over the points' x range (padded), the truth on it, the map's base box."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    lo, hi = (0.0, 1.0) if truth is not None else (float(x.min()), float(x.max()))
    lo, hi = min(lo, float(x.min())), max(hi, float(x.max()))
    span = max(hi - lo, 1e-6)
    grid = np.linspace(lo - 0.1 * span, hi + 0.1 * span, GRID_POINTS)
    truth_grid = None if truth is None else TRUTHS[truth][0](grid)
    param, symbol = map_axis(kernel)
    var_y = max(float(np.var(y)), 1e-12)
    if param == "variance":
        centre = math.log10(var_y / max(float(np.mean(x**2)), 1e-12))
        first = (centre - 3.0, centre + 2.0)
    else:
        first = (math.log10(span) - 2.5, math.log10(span) + 1.0)
    value, noise = start
    box = (*_decades(min(first[0], math.log10(value) - 0.5), max(first[1], math.log10(value) + 0.5)),
           *_decades(min(math.log10(var_y) - 5.0, math.log10(noise) - 0.5),
                     max(math.log10(var_y) + 1.0, math.log10(noise) + 0.5)))
    return GPLabContext(frozen_array(x), frozen_array(y), kernel, truth, float(truth_noise), frozen_array(grid),
                        frozen_array(np.linspace(grid[0], grid[-1], SAMPLE_POINTS)),
                        None if truth_grid is None else frozen_array(truth_grid),
                        frozen_array(np.linspace(grid[0], grid[-1], COV_POINTS)), float(0.5 * (lo + hi)), param,
                        symbol, box, int(seed))


def _map_point(fit: GPSnapshot, param: str) -> np.ndarray:
    return np.log10([float(fit.kernel.get_params(deep=True)[param]), fit.noise])


def _step(ctx: GPLabContext, step: int, fit: GPSnapshot, path: list) -> GPLabSnapshot:
    """The lab's snapshot of the engine's ``fit``: the posterior at its θ, samples, the kernel."""
    X = ctx.x[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JitterWarning)  # the maths panel states the jitter
        gp = GaussianProcessRegressor(fit.kernel, noise=fit.noise).fit(X, ctx.y)
    G = ctx.grid[:, None]
    mean, std = gp.predict(G, return_std=True)
    S = ctx.sample_grid[:, None]
    samples = gp.sample_posterior(S, N_POSTERIOR, random_state=ctx.seed)
    prior = GaussianProcessRegressor(fit.kernel).sample_prior(S, N_PRIOR, random_state=ctx.seed + 1)
    m = min(HEAD, len(ctx.y))
    K_head = fit.kernel(X[:m]) + fit.noise * np.eye(m)
    return GPLabSnapshot(
        step=step, ctx=ctx, fit=fit, mean=frozen_array(mean), std=frozen_array(std),
        samples=frozen_array(samples.T), prior=frozen_array(prior.T),
        kernel_curve=frozen_array(fit.kernel(np.array([[ctx.x0]]), G)[0]),
        cov=frozen_array(fit.kernel(ctx.cov_grid[:, None])), K_head=frozen_array(K_head),
        L_head=frozen_array(gp.L_[:m, :m]), alpha_head=frozen_array(gp.alpha_[:m]),
        path=frozen_array(np.array(path, dtype=float).reshape(-1, 2)),
        point=frozen_array(_map_point(fit, ctx.map_param)), jitter=float(gp.jitter_))


def posterior_at(snap: GPLabSnapshot, x) -> tuple[np.ndarray, np.ndarray]:
    """The posterior mean and standard deviation of f at ``x`` under the step's kernel and σ²."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JitterWarning)
        gp = GaussianProcessRegressor(snap.fit.kernel, noise=snap.fit.noise).fit(snap.ctx.x[:, None], snap.ctx.y)
    return gp.predict(np.asarray(x, float)[:, None], return_std=True)


def run_steps(ctx: GPLabContext, kernel, noise: float, n_restarts: int):
    """Yield step 0 (the given kernel and σ²), every step of the evidence's ascents, then the best."""
    gp = GaussianProcessRegressor(kernel, noise=noise, optimize=True, n_restarts=n_restarts, random_state=ctx.seed)
    path, restart = [], 0
    for fit in gp.fit_steps(ctx.x[:, None], ctx.y):
        point = tuple(_map_point(fit, ctx.map_param))
        if not (fit.best and point in path):  # the best state repeats a point of its ascent
            if fit.restart != restart:
                path.append((np.nan, np.nan))
                restart = fit.restart
            path.append(point)
        yield _step(ctx, fit.step, fit, path)


# ----------------------------------------------------------------------------- the evidence map
@dataclass(frozen=True, eq=False)
class EvidenceFrame:
    """The evidence over the map's box at one step, its contours, and the trade-off along the first axis."""

    box: tuple[float, float, float, float]  # log₁₀ (param lo, hi, σ² lo, hi)
    values: np.ndarray  # (MAP_POINTS, MAP_POINTS): rows σ², columns the parameter
    top: float  # the map's highest value
    contours: dict  # drop below the top -> (xs, ys) in log₁₀ coordinates, NaN-separated
    axis: np.ndarray  # log₁₀ of the parameter's values
    data_fit: np.ndarray  # along the axis at the step's σ²
    complexity: np.ndarray
    constant: float


def _box(snap: GPLabSnapshot) -> tuple[float, float, float, float]:
    x0, x1, y0, y1 = snap.ctx.base_box
    pts = np.vstack([snap.path, snap.point[None, :]])
    pts = pts[np.all(np.isfinite(pts), axis=1)]
    if len(pts):
        x0, x1 = _decades(min(x0, pts[:, 0].min() - 0.25), max(x1, pts[:, 0].max() + 0.25))
        y0, y1 = _decades(min(y0, pts[:, 1].min() - 0.25), max(y1, pts[:, 1].max() + 0.25))
    return x0, x1, y0, y1


def evidence_frame(snap: GPLabSnapshot) -> EvidenceFrame:
    """The map for ``snap`` (worker thread): log p(y | X, θ) over (parameter, σ²), the rest of θ as at the step."""
    from skimage.measure import find_contours  # deferred: scikit-image loads with the first map

    ctx = snap.ctx
    box = _box(snap)
    axis = np.linspace(box[0], box[1], MAP_POINTS)
    noises = np.linspace(box[2], box[3], MAP_POINTS)
    with ctx.cache.lock:
        if ctx.cache.box != box:
            ctx.cache.surface = EvidenceSurface(ctx.x[:, None], ctx.y, values=10.0**axis, noises=10.0**noises,
                                                param=ctx.map_param)
            ctx.cache.box = box
        values = ctx.cache.surface(snap.fit.kernel)
        fit, complexity, constant = ctx.cache.surface.terms(snap.fit.kernel, snap.fit.noise)
    finite = values[np.isfinite(values)]
    top = float(finite.max()) if finite.size else 0.0
    contours = {}
    shown = np.where(np.isfinite(values), values, top - 1e6)
    dx, dy = axis[1] - axis[0], noises[1] - noises[0]
    for drop in CONTOUR_DROPS:
        pieces_x, pieces_y = [], []
        for c in find_contours(shown, top - drop):
            pieces_x += [axis[0] + c[:, 1] * dx, [np.nan]]
            pieces_y += [noises[0] + c[:, 0] * dy, [np.nan]]
        if pieces_x:
            contours[drop] = (np.concatenate(pieces_x), np.concatenate(pieces_y))
    return EvidenceFrame(box, values, top, contours, axis, fit, complexity, constant)
