"""The mixtures lab's run (Qt-free): data sources, the lab's snapshot (EM and k-means from the
same start, side by side), the collapse demonstration, density contours, ellipses and the
side tasks (seeded restarts, model order, EM with Σ = σ² I).

Everything here runs on worker threads (the run's generator, ``prepare`` and the side
tasks) or is a pure function of plain values; nothing touches a widget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterator

import numpy as np

from smlengine import Snapshot
from smlengine._base import frozen_array
from smlengine.cluster import KMeans, KMeansSnapshot
from smlengine.datasets import MIXTURE_PRESETS, make_mixture_preset, mixture_preset
from smlengine.grid import decision_frame, grid_points
from smlengine.mixture import (
    GaussianMixture,
    MixtureSnapshot,
    e_step,
    mixture_restarts,
    model_order_steps,
    soft_kmeans_steps,
)

PRESETS = list(MIXTURE_PRESETS)
OWN = "own"  # the data choice while the points are the user's (drawn, edited or loaded)
DATA_CHOICES = [(name, name) for name in PRESETS] + [(OWN, "own points")]
COVARIANCE_CHOICES = [("full", "full"), ("diag", "diagonal"), ("spherical", "spherical"), ("tied", "tied")]
INIT_CHOICES = [("random", "random points"), ("k-means++", "k-means++"), ("kmeans", "k-means fit"),
                ("clicked", "clicked means")]
MAX_POINTS = 5000
MODEL_ORDER_KS = tuple(range(1, 9))
N_RESTARTS = 20
#: density contours enclose these fractions of the probability mass
MASS_LEVELS = (0.25, 0.5, 0.75, 0.95)


# ----------------------------------------------------------------------------- geometry


def lone_point(X: np.ndarray) -> int:
    """Index of the most isolated point (the largest distance to its nearest neighbour)."""
    from scipy.spatial import cKDTree  # deferred: scipy.spatial loads only when a point is looked for

    dist, _ = cKDTree(X).query(X, k=2)  # the nearest neighbour other than the point itself
    return int(np.argmax(dist[:, 1]))


def mixture_density(points: np.ndarray, weights, means, covariances) -> np.ndarray:
    """π(x) = Σ_k c_k g(x; μ_k, Σ_k) at every row of ``points`` (2-D, closed form)."""
    out = np.zeros(len(points))
    for c, m, S in zip(weights, means, covariances):
        det = S[0, 0] * S[1, 1] - S[0, 1] * S[1, 0]
        if not det > 0:
            continue
        inv = np.array([[S[1, 1], -S[0, 1]], [-S[1, 0], S[0, 0]]]) / det
        d = points - m
        q = np.einsum("ia,ab,ib->i", d, inv, d)
        out += c * np.exp(-0.5 * q) / (2.0 * math.pi * math.sqrt(det))
    return out


def density_frame(weights, means, covariances, extent, resolution: int = 90):
    """The density on a grid over ``extent`` and its contours enclosing :data:`MASS_LEVELS` of the mass.

    The level for mass p is the density value t with Σ_{cells: π > t} π · cell area = p (the
    highest-density region holding a fraction p of the probability).
    """
    xs, ys, pts = grid_points(extent, resolution)
    values = mixture_density(pts, weights, means, covariances)
    cell = (xs[1] - xs[0]) * (ys[1] - ys[0])
    order = np.sort(values)[::-1]
    mass = np.cumsum(order) * cell
    levels = []
    for p in MASS_LEVELS:
        i = int(np.searchsorted(mass, p))
        if i < len(order) and order[i] > 0:
            levels.append(float(order[i]))
    return decision_frame(lambda _pts: values, extent, resolution, levels=tuple(levels))


# ----------------------------------------------------------------------------- data


def sample_preset(name: str, n: int, seed: int) -> np.ndarray:
    X, _ = make_mixture_preset(name, int(n), random_state=int(seed))
    return X


def preset_truth(name: str):
    return mixture_preset(name) if name in MIXTURE_PRESETS else None


# ----------------------------------------------------------------------------- the run


@dataclass(frozen=True, eq=False)
class RunContext:
    """Everything a run needs, captured on the GUI thread (plain values and read-only arrays)."""

    X: np.ndarray
    params: dict
    seed: int
    truth: object = None  # MixtureTruth of the sampled preset (None for own points)
    clicked: np.ndarray | None = None  # (K, 2) clicked initial means
    collapse: bool = False
    lone: int = -1  # the lone point the collapse start puts a mean on
    extent: tuple = (-3.0, 3.0, -3.0, 3.0)  # the region the density is drawn over

    @property
    def reg(self) -> float:
        return float(self.params["reg_covar"]) if self.params.get("floor", True) else 0.0


@dataclass(frozen=True, kw_only=True)
class MixturesLabSnapshot(Snapshot):
    """One step of the lab: EM's state and k-means' state from the same initial means.

    ``em`` is the engine's snapshot (half ``'init'``, ``'EM'``, ``'E'``, ``'M'``, or
    ``'collapse'`` for the frames that shrink a collapsed component's covariance toward 0);
    ``km`` k-means after as many iterations as EM (its last state once it has converged);
    ``diverged`` is set when ℓ went to +∞ (no covariance floor), with ``note`` saying why;
    ``em_step`` is the step whose EM state this is (below ``step`` once EM has converged and
    k-means goes on, -1: this step's own).
    """

    ctx: RunContext
    em: MixtureSnapshot
    km: KMeansSnapshot | None
    diverged: bool = False
    em_step: int = -1
    note: str = ""


def check_context(ctx: RunContext) -> None:
    """Refuse what cannot run, with a message for the banner (GUI thread, before the run)."""
    X, p = ctx.X, ctx.params
    k = int(p["K"])
    if len(X) == 0:
        raise ValueError("There are no points: choose a preset, draw some points or load a file.")
    if len(X) < 2:
        raise ValueError("EM needs at least 2 points (there is 1): add points or choose a preset.")
    distinct = len(np.unique(X, axis=0))
    if distinct == 1:
        raise ValueError("All points are at the same place: a Gaussian needs spread. Add other points.")
    if k > distinct:
        raise ValueError(f"K = {k} components but only {distinct} distinct points: lower K or add points.")
    if p["init"] == "clicked" and not ctx.collapse:
        placed = 0 if ctx.clicked is None else len(ctx.clicked)
        if placed != k:
            raise ValueError(f"Click the {k} initial means on the plot (mouse mode 'place initial means'): "
                             f"{placed} of {k} placed.")


def initial_means(ctx: RunContext) -> np.ndarray | str:
    """The engine's ``init``: an init name, or the clicked / collapse means."""
    p = ctx.params
    if ctx.collapse:
        k = int(p["K"])
        gm = GaussianMixture(k, init="k-means++", max_iter=0, random_state=ctx.seed).fit(ctx.X)
        means = gm.means_.copy()
        # the mean nearest to the lone point moves onto it
        j = int(np.argmin(((means - ctx.X[ctx.lone]) ** 2).sum(axis=1)))
        means[j] = ctx.X[ctx.lone]
        return means
    if p["init"] == "clicked":
        return np.array(ctx.clicked, dtype=float)
    return p["init"]


def _collapse_covariances(ctx: RunContext, means: np.ndarray):
    """Start of the collapse demo: the hard assignment's covariances, the lone point's tiny."""
    p = ctx.params
    ctype = p["covariance_type"]
    k = len(means)
    gm = GaussianMixture(k, covariance_type=ctype, init=means, reg_covar=max(ctx.reg, 1e-9), max_iter=0).fit(ctx.X)
    cov = np.array(gm.covariances_, dtype=float)
    j = int(np.argmin(((means - ctx.X[ctx.lone]) ** 2).sum(axis=1)))
    tiny = 1e-3 * float(np.var(ctx.X, axis=0).mean())
    if ctype == "full":
        cov[j] = tiny * np.eye(2)
    elif ctype == "diag":
        cov[j] = tiny
    elif ctype == "spherical":
        cov[j] = tiny
    return cov, j  # 'tied': one covariance for all, nothing can collapse


def run_steps(ctx: RunContext) -> Iterator[MixturesLabSnapshot]:
    """EM from the chosen start, k-means from the same means alongside; see :class:`MixturesLabSnapshot`."""
    p = ctx.params
    k = int(p["K"])
    init = initial_means(ctx)
    cov0, lone_comp = (None, -1)
    if ctx.collapse:
        cov0, lone_comp = _collapse_covariances(ctx, init)
    gm = GaussianMixture(k, covariance_type=p["covariance_type"], init=init, covariances_init=cov0,
                         reg_covar=ctx.reg, tol=float(p["tol"]), max_iter=int(p["max_iter"]), random_state=ctx.seed)
    em_steps = gm.fit_steps(ctx.X, half_steps=bool(p["half_steps"]))
    first = next(em_steps)  # bad input raises here, before anything is shown
    km_steps = KMeans(k, init=np.array(first.means), tol=0.0, max_iter=int(p["max_iter"])).fit_steps(ctx.X)
    km = next(km_steps)
    step = 0
    yield MixturesLabSnapshot(step=step, phase="EM", ctx=ctx, em=first, km=km)
    last = first
    try:
        for em in em_steps:
            step += 1
            if em.half in ("EM", "E") and not km.converged:
                km = next(km_steps, km)
            last = em
            yield MixturesLabSnapshot(step=step, phase="EM", ctx=ctx, em=em, km=km)
    except ValueError:
        if ctx.reg > 0:
            raise
        yield from _diverge(ctx, last, km, step, lone_comp)
        return
    em_step = step
    while not km.converged:  # EM has converged; k-means finishes from the same start
        nxt = next(km_steps, None)
        if nxt is None:
            break
        km = nxt
        step += 1
        yield MixturesLabSnapshot(step=step, phase="k-means", ctx=ctx, em=last, km=km, em_step=em_step,
                                  note=f"EM converged at step {em_step}; k-means from the same start goes on")


def _diverge(ctx, last: MixtureSnapshot, km, step: int, comp: int) -> Iterator[MixturesLabSnapshot]:
    """ℓ along the way to the M-step's singular answer: Σ_j = s I with s → 0 on the lone point.

    Without a floor the M-step puts the collapsed component's covariance at 0 (det Σ_j = 0,
    ℓ = +∞). These frames evaluate ℓ (an E-step, :func:`smlengine.mixture.e_step`) as s
    shrinks, s = s₀ · 10^(−2^(j−1)) at frame j: ℓ grows by log(1/s) − const, without bound.
    """
    X = ctx.X
    if comp < 0:
        comp = int(np.argmin(np.linalg.det(np.asarray(last.covariances))))
    weights, means = np.array(last.weights), np.array(last.means)
    covs = np.array(last.covariances)
    if ctx.lone >= 0:
        means[comp] = X[ctx.lone]
    det0 = float(np.linalg.det(covs[comp]))
    s0 = math.sqrt(det0) if det0 > 0 else 1e-3
    em = last
    for j in range(1, 9):
        s = s0 * 10.0 ** (-(2 ** (j - 1)))
        covs = covs.copy()
        covs[comp] = s * np.eye(2)
        R, ll = e_step(X, weights, means, covs)
        R.setflags(write=False)
        step += 1
        em = replace(last, step=step, phase="collapse", half="collapse", means=means.copy(), covariances=covs,
                     responsibilities=R, labels=frozen_array(np.argmax(R, axis=1), dtype=last.labels.dtype),
                     confidence=frozen_array(R.max(axis=1), dtype=np.float32), log_likelihood=ll, lower_bound=ll,
                     change=None, relative_change=None)
        yield MixturesLabSnapshot(step=step, phase="collapse", ctx=ctx, em=em, km=km, diverged=True,
                                  note=f"Component {comp + 1} sits on one point; with Σ = {s:.0e}·I, ℓ = {ll:,.1f}")
    yield MixturesLabSnapshot(step=step + 1, phase="collapse", ctx=ctx, em=replace(em, step=step + 1), km=km,
                              diverged=True,
                              note=f"ℓ → +∞ as Σ{comp + 1} → 0: without a floor the M-step gives component "
                                   f"{comp + 1}, alone on one point, a zero covariance. Tick 'Covariance floor' "
                                   "(reg_covar > 0) to hold it.")


def prepare_frame(frame: MixturesLabSnapshot) -> object:
    """Density contours of the frame's parameters over the run's extent (worker thread)."""
    em = frame.em
    return density_frame(np.asarray(em.weights), np.asarray(em.means), np.asarray(em.covariances), frame.ctx.extent)


# ----------------------------------------------------------------------------- side tasks


def restarts_steps(X, params: dict, seed: int):
    """:func:`smlengine.mixture.mixture_restarts` with the lab's parameters (20 seeded restarts)."""
    init = params["init"] if params["init"] in ("random", "k-means++", "kmeans") else "random"
    reg = float(params["reg_covar"]) if params.get("floor", True) else 1e-6
    return mixture_restarts(np.asarray(X), int(params["K"]), n_restarts=N_RESTARTS,
                            covariance_type=params["covariance_type"], init=init, reg_covar=reg,
                            tol=float(params["tol"]), max_iter=int(params["max_iter"]), random_state=int(seed))


def model_order(X, params: dict, seed: int):
    """:func:`smlengine.mixture.model_order_steps` for K = 1..8 with the lab's covariance type."""
    reg = float(params["reg_covar"]) if params.get("floor", True) else 1e-6
    return model_order_steps(np.asarray(X), MODEL_ORDER_KS, covariance_type=params["covariance_type"], n_init=2,
                             reg_covar=reg, tol=1e-4, max_iter=200, n_splits=3, random_state=int(seed))


@dataclass(frozen=True)
class SigmaResult:
    """EM with Σ_k = σ² I fixed (soft k-means) from the run's start, against k-means from it."""

    sigma: float
    means: np.ndarray
    responsibilities: np.ndarray
    n_iter: int
    agreement: float  # fraction of points whose argmax a_ik equals k-means' label
    max_shift: float  # largest distance between the soft means and k-means' centres


def sigma_limit(X, means0, sigma: float) -> SigmaResult:
    """EM with Σ_k = σ² I and c_k = 1/K from ``means0`` to convergence, and k-means from the same means.

    As σ → 0 the responsibilities become 0/1 and the two give the same partition.
    """
    X = np.asarray(X)
    means0 = np.asarray(means0, dtype=float)
    km = KMeans(len(means0), init=means0, tol=0.0, max_iter=300).fit(X)
    last = None
    for last in soft_kmeans_steps(X, means0, float(sigma), max_iter=300, tol=1e-9):
        pass
    labels = np.argmax(last.responsibilities, axis=1)
    agreement = float(np.mean(labels == km.labels_))
    shift = float(np.sqrt(((np.asarray(last.means) - km.cluster_centers_) ** 2).sum(axis=1)).max())
    return SigmaResult(float(sigma), np.array(last.means), np.array(last.responsibilities), last.n_iter, agreement,
                       shift)
