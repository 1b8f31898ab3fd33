"""The regression lab's run (Qt-free): a basis, a method and its live fit, the ridge and lasso
paths, the two-coefficient constraint picture and the bias–variance sweep.

The run fits Φ(x) → y on the training points with the chosen method, one snapshot per update
(gradient descent: per step; lasso: per coordinate; least squares and ridge: the solution).
Every snapshot carries the same read-only :class:`RegressionContext` (the data, the basis on a
grid, the paths and the constraint picture), computed once before step 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from smlengine import Snapshot
from smlengine._base import frozen_array
from smlengine.datasets._regression import TRUTHS, truth_function
from smlengine.model_selection import kfold_indices
from smlengine.regression import (
    GaussianBasis,
    Lasso,
    LinearRegression,
    PolynomialBasis,
    Ridge,
    lasso_path,
    ridge_path,
)

METHODS = [("lasso", "lasso (coordinate descent)"), ("ridge", "ridge"), ("lstsq", "least squares"),
           ("gd", "least squares by gradient descent")]
BASES = [("legendre", "polynomial (Legendre)"), ("poly", "polynomial (powers)"), ("gauss", "Gaussian bumps")]
#: the truth choice while the points are the user's (opened or drawn): no f to draw or sample from
OWN = "own"
TRUTH_CHOICES = [(name, name) for name in TRUTHS] + [(OWN, "none: your points")]
#: opened points hold out test points only when the training side keeps this many and the test side
MIN_TRAIN, MIN_TEST = 10, 4
#: opened points get a basis of at most one function per this many training points
POINTS_PER_FUNCTION = 3
GRID_POINTS = 200
#: log₁₀ λ of the paths
PATH_LOG_ALPHAS = np.linspace(-6.0, 2.0, 33)
#: training sets of the bias–variance picture
N_SETS = 50
MAX_SWEEP_SIZE = 15


def test_fraction_for(n: int, test_fraction: float) -> float:
    """The test fraction that suits ``n`` opened points: the current one when both sides stay
    large enough to mean something (:data:`MIN_TRAIN` training and :data:`MIN_TEST` test
    points expected), else 0 (every point trains)."""
    f = float(test_fraction)
    return f if n * f >= MIN_TEST and n * (1.0 - f) >= MIN_TRAIN else 0.0


def basis_size_for(n_train: int, size: int) -> int:
    """The basis size that suits ``n_train`` training points: at most one function per
    :data:`POINTS_PER_FUNCTION` of them (a degree-9 polynomial through 7 points interpolates
    them and its normal equations are singular), at least 1."""
    return int(max(1, min(int(size), n_train // POINTS_PER_FUNCTION)))


# ----------------------------------------------------------------------------- model pieces
def make_basis(kind: str, size: int):
    """The basis: polynomial of degree ``size`` or ``size`` Gaussian bumps over the inputs."""
    if kind in ("poly", "legendre"):
        return PolynomialBasis(int(size), kind="power" if kind == "poly" else "legendre")
    if kind == "gauss":
        return GaussianBasis(max(int(size), 1))
    raise ValueError(f"basis must be 'poly' or 'gauss', got {kind!r}")


def make_regressor(method: str, alpha: float):
    if method == "lstsq":
        return LinearRegression()
    if method == "gd":
        return LinearRegression(solver="gd", max_iter=20_000, tol=1e-6)
    if method == "ridge":
        return Ridge(alpha=alpha)
    if method == "lasso":
        return Lasso(alpha=alpha, tol=1e-6, max_iter=2000)
    raise ValueError(f"method must be one of lasso, ridge, lstsq, gd, got {method!r}")


def fit_many(phi, Y, method: str, alphas, check=None) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients and intercepts of one model per row of ``Y`` (same design Φ) and α.

    Returns ``coefs`` (n_sets, p, n_alphas) and ``intercepts`` (n_sets, n_alphas); least
    squares ignores α (all columns equal). NaN where least squares is not unique. ``check``,
    if given, is called before each fit (a side task's cancellation test).
    """
    Y = np.atleast_2d(Y)
    alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
    mean_phi = phi.mean(axis=0)
    pc = phi - mean_phi
    Yc = Y - Y.mean(axis=1, keepdims=True)
    n_sets, p, k = len(Y), phi.shape[1], len(alphas)
    coefs = np.empty((n_sets, p, k))
    if method in ("lstsq", "gd"):
        s = np.linalg.svd(pc, compute_uv=False)
        if s[0] == 0 or np.sum(s > s[0] * max(pc.shape) * np.finfo(float).eps) < p:
            coefs[:] = np.nan
        else:
            w = np.linalg.lstsq(pc, Yc.T, rcond=None)[0]  # (p, n_sets)
            coefs[:] = w.T[:, :, None]
    else:
        order = np.argsort(-alphas)  # the paths return decreasing α
        for s_i in range(n_sets):
            if check is not None:
                check()
            if method == "ridge":
                _a, c = ridge_path(pc, Yc[s_i], alphas)
            else:
                _a, c = lasso_path(pc, Yc[s_i], alphas, tol=1e-4, max_iter=300)
            coefs[s_i][:, order] = c
    intercepts = Y.mean(axis=1)[:, None] - np.einsum("p,spk->sk", mean_phi, coefs)
    return coefs, intercepts


# ----------------------------------------------------------------------------- constraint picture
def constraint_picture(phi2, y, budget_fraction: float) -> dict:
    """The course's picture for two coefficients (centred data, no intercept).

    E(w) = ‖y_c − Φ₂w‖² = E_min + (w − ŵ)ᵀA(w − ŵ), A = Φ₂ᵀΦ₂. The budget is t =
    ``budget_fraction`` · ‖ŵ‖₁; the solutions minimise E on the ℓ1 diamond ‖w‖₁ ≤ t and on
    the ℓ2 disc ‖w‖₂ ≤ t: inside when ŵ is, else where a contour of E touches the boundary.
    """
    pc = phi2 - phi2.mean(axis=0)
    yc = y - y.mean()
    A = pc.T @ pc
    b = pc.T @ yc
    try:
        w_ls = np.linalg.solve(A, b)
    except np.linalg.LinAlgError:
        w_ls = np.linalg.lstsq(A, b, rcond=None)[0]
    if not np.all(np.isfinite(w_ls)) or np.linalg.cond(A) > 1e12:
        raise ValueError("these two features are (nearly) the same column: choose another pair")
    e_min = float(yc @ yc - w_ls @ b)
    t = float(budget_fraction) * float(np.abs(w_ls).sum())

    def energy(w):
        d = np.asarray(w) - w_ls
        return e_min + float(d @ A @ d)

    w_l1 = _min_on_diamond(A, w_ls, t)
    w_l2 = _min_on_disc(A, b, w_ls, t)
    return {"w_ls": w_ls, "A": A, "e_min": e_min, "t": t, "fraction": float(budget_fraction), "w_l1": w_l1,
            "w_l2": w_l2, "e_l1": energy(w_l1), "e_l2": energy(w_l2)}


def _min_on_diamond(A, w_ls, t):
    """argmin of (w − ŵ)ᵀA(w − ŵ) on ‖w‖₁ ≤ t: ŵ if inside, else the best point of the four edges."""
    if np.abs(w_ls).sum() <= t:
        return w_ls.copy()
    corners = [np.array([t, 0.0]), np.array([0.0, t]), np.array([-t, 0.0]), np.array([0.0, -t])]
    best, best_e = None, math.inf
    for a, c in zip(corners, corners[1:] + corners[:1]):
        d = c - a
        denom = float(d @ A @ d)
        s = 0.0 if denom <= 0 else float(np.clip(d @ A @ (w_ls - a) / denom, 0.0, 1.0))
        w = a + s * d
        e = float((w - w_ls) @ A @ (w - w_ls))
        if e < best_e:
            best, best_e = w, e
    return best


def _min_on_disc(A, b, w_ls, t):
    """argmin on ‖w‖₂ ≤ t: ŵ if inside, else the ridge solution (A + μI)⁻¹b with ‖w‖ = t (bisection on μ)."""
    if np.linalg.norm(w_ls) <= t:
        return w_ls.copy()
    if t <= 0:
        return np.zeros(2)
    lo, hi = 0.0, 1.0
    while np.linalg.norm(np.linalg.solve(A + hi * np.eye(2), b)) > t:
        hi *= 2.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if np.linalg.norm(np.linalg.solve(A + mid * np.eye(2), b)) > t:
            lo = mid
        else:
            hi = mid
    return np.linalg.solve(A + hi * np.eye(2), b)


def ellipse(A, centre, level: float, n: int = 120) -> tuple[np.ndarray, np.ndarray]:
    """Points of {w : (w − centre)ᵀA(w − centre) = level}."""
    L = np.linalg.cholesky(A)
    theta = np.linspace(0.0, 2 * np.pi, n)
    circle = np.vstack([np.cos(theta), np.sin(theta)]) * math.sqrt(max(level, 0.0))
    pts = np.linalg.solve(L.T, circle)
    return centre[0] + pts[0], centre[1] + pts[1]


# ----------------------------------------------------------------------------- the run
class RegressionContext:
    """What every snapshot of a run shares (read-only; not a dataclass so the timeline counts it once).

    ``x_train``, ``y_train``, ``x_test``, ``y_test``; ``x_grid`` and ``phi_grid`` (the basis on
    200 points over the inputs); ``truth_grid`` (f on the grid, or None); the features'
    ``names``; ``alpha`` and ``log_alpha``; the paths ``path_alphas``, ``ridge_coefs`` and
    ``lasso_coefs`` (p, k) with their train and test errors; ``constraint`` (see
    :func:`constraint_picture`, or None with ``constraint_note`` saying why); ``cond`` the
    condition number of ΦᵀΦ (centred); ``method``, ``basis``, ``size``.
    """

    FIELDS = ("x_train", "y_train", "x_test", "y_test", "x_grid", "phi_grid", "truth_grid", "truth", "names",
              "alpha", "log_alpha", "path_alphas", "ridge_coefs", "lasso_coefs", "ridge_errors", "lasso_errors",
              "constraint", "constraint_note", "pair", "cond", "method", "basis", "size", "noise", "basis_fit")
    __slots__ = FIELDS

    def __init__(self, **values):
        for name in self.FIELDS:
            object.__setattr__(self, name, values[name])

    def __setattr__(self, name, value):
        raise AttributeError("RegressionContext is read-only")

    def __eq__(self, other):
        if not isinstance(other, RegressionContext):
            return NotImplemented
        return all(_equal(getattr(self, k), getattr(other, k)) for k in self.FIELDS if k != "basis_fit")

    def __hash__(self):
        return hash((self.method, self.basis, self.size, len(self.y_train)))

    @property
    def n_features(self) -> int:
        return int(self.phi_grid.shape[1])


def _equal(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return a == b


@dataclass(frozen=True, kw_only=True, eq=False)
class RegressionLabSnapshot(Snapshot):
    """One update of the fit: weights, the curve on the grid and the errors.

    ``curve`` is ŷ on ``ctx.x_grid``; ``train_mse`` and ``test_mse`` (None without test
    points) are mean squared errors; ``objective``, ``coordinate``, ``sweep``, ``gap`` and
    ``converged`` come from the engine's snapshot.
    """

    ctx: RegressionContext
    coef: np.ndarray
    intercept: float
    curve: np.ndarray
    train_pred: np.ndarray
    train_mse: float
    test_mse: float | None
    objective: float
    coordinate: int
    sweep: int
    gap: float
    converged: bool


def _mse(pred, y) -> float | None:
    """Mean squared error, None without points (no test set): undefined, shown as "–"."""
    return float(np.mean((pred - y) ** 2)) if len(y) else None


def _path_errors(phi_tr, y_tr, phi_te, y_te, coefs):
    mean_phi, mean_y = phi_tr.mean(axis=0), y_tr.mean()
    intercepts = mean_y - mean_phi @ coefs
    train = np.mean((phi_tr @ coefs + intercepts - y_tr[:, None]) ** 2, axis=0)
    if not len(y_te):
        return np.vstack([train, np.full(len(intercepts), np.nan)])
    test = np.mean((phi_te @ coefs + intercepts - y_te[:, None]) ** 2, axis=0)
    return np.vstack([train, test])


def split_points(x, y, test_mask):
    """(x_train, y_train, x_test, y_test) of the points; ValueError when they cannot be fitted."""
    x = np.asarray(x, dtype=float).reshape(-1)
    y = np.asarray(y, dtype=float).reshape(-1)
    test_mask = np.asarray(test_mask, dtype=bool).reshape(-1)
    if len(x) != len(y) or len(test_mask) != len(y):
        raise ValueError("the points and their test marks do not match")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("Some points are not finite numbers.")
    x_tr, y_tr = x[~test_mask], y[~test_mask]
    if len(x_tr) < 2:
        raise ValueError(f"There are {len(x_tr)} training point(s): draw or sample at least 2 "
                         "(test points are hollow).")
    return x_tr, y_tr, x[test_mask], y[test_mask]


def prepare_context(x, y, test_mask, *, basis: str, size: int, method: str, log_alpha: float, truth: str | None,
                    noise: float, pair=(1, 2), budget: float = 0.5) -> tuple[RegressionContext, np.ndarray, np.ndarray]:
    """Validate the data and build the run's shared context; returns (ctx, Φ_train, Φ_test).

    The paths are a picture: the lasso path stops at scikit-learn's default tolerance (1e-4)
    or 100 sweeps per λ, so many bumps on few points cannot hold the run up."""
    x = np.asarray(x, dtype=float).reshape(-1)
    x_tr, y_tr, x_te, y_te = split_points(x, y, test_mask)
    b = make_basis(basis, size).fit(x_tr[:, None])
    phi_tr = b.transform(x_tr[:, None])
    phi_te = b.transform(x_te[:, None]) if len(x_te) else np.zeros((0, b.n_features))
    lo, hi = float(x.min()), float(x.max())
    if truth is not None:
        lo, hi = min(lo, 0.0), max(hi, 1.0)
    pad = 0.02 * (hi - lo if hi > lo else 1.0)
    x_grid = np.linspace(lo - pad, hi + pad, GRID_POINTS)
    phi_grid = b.transform(x_grid[:, None])
    alpha = 10.0 ** float(log_alpha)
    alphas = 10.0 ** PATH_LOG_ALPHAS
    pc = phi_tr - phi_tr.mean(axis=0)
    yc = y_tr - y_tr.mean()
    ridge = ridge_path(pc, yc, alphas)[1][:, ::-1]
    lasso = lasso_path(pc, yc, alphas, tol=1e-4, max_iter=100)[1][:, ::-1]
    s = np.linalg.svd(pc, compute_uv=False)
    cond = float(s[0] / s[-1]) ** 2 if s[-1] > 0 else math.inf
    i, j = int(pair[0]) - 1, int(pair[1]) - 1
    constraint, note = None, ""
    p = phi_tr.shape[1]
    if i == j:
        note = "choose two different coefficients"
    elif max(i, j) >= p:
        note = f"the basis has {p} coefficient(s): choose two of 1 … {p}"
    elif len(x_tr) < 3:
        note = "needs at least 3 training points"
    else:
        try:
            constraint = constraint_picture(phi_tr[:, [i, j]], y_tr, budget)
        except (ValueError, np.linalg.LinAlgError) as exc:
            note = str(exc)
    ctx = RegressionContext(
        x_train=frozen_array(x_tr), y_train=frozen_array(y_tr), x_test=frozen_array(x_te), y_test=frozen_array(y_te),
        x_grid=frozen_array(x_grid), phi_grid=frozen_array(phi_grid),
        truth_grid=None if truth is None else frozen_array(truth_function(truth)(x_grid)), truth=truth,
        names=tuple(b.names()), alpha=alpha, log_alpha=float(log_alpha), path_alphas=frozen_array(alphas),
        ridge_coefs=frozen_array(ridge), lasso_coefs=frozen_array(lasso),
        ridge_errors=frozen_array(_path_errors(phi_tr, y_tr, phi_te, y_te, ridge)),
        lasso_errors=frozen_array(_path_errors(phi_tr, y_tr, phi_te, y_te, lasso)),
        constraint=constraint, constraint_note=note, pair=(i + 1, j + 1), cond=cond, method=method, basis=basis,
        size=int(size), noise=float(noise), basis_fit=b)
    return ctx, phi_tr, phi_te


def run_steps(x, y, test_mask, **settings):
    """The lab's run on its worker thread: the shared context, then the live fit."""
    ctx, phi_tr, phi_te = prepare_context(x, y, test_mask, **settings)
    yield from fit_run(ctx, phi_tr, phi_te)


def fit_run(ctx: RegressionContext, phi_tr, phi_te):
    """The live fit: one :class:`RegressionLabSnapshot` per engine update."""
    model = make_regressor(ctx.method, ctx.alpha)
    for snap in model.fit_steps(phi_tr, ctx.y_train):
        w = snap.coef
        train_pred = phi_tr @ w + snap.intercept
        test_pred = phi_te @ w + snap.intercept
        yield RegressionLabSnapshot(
            step=snap.step, phase=ctx.method, ctx=ctx, coef=w, intercept=snap.intercept,
            curve=frozen_array(ctx.phi_grid @ w + snap.intercept), train_pred=frozen_array(train_pred),
            train_mse=_mse(train_pred, ctx.y_train), test_mse=_mse(test_pred, ctx.y_test), objective=snap.objective,
            coordinate=snap.coordinate, sweep=snap.sweep, gap=snap.gap, converged=snap.converged)


# ----------------------------------------------------------------------------- bias and variance
@dataclass(frozen=True, eq=False)
class SweepResult:
    """Bias², variance, expected test error and CV error against complexity.

    ``axis`` is "size" (values: degrees or numbers of bumps) or "alpha" (values: log₁₀ λ);
    ``chosen`` the index of the current setting; ``cv_choice`` the index with the smallest
    cross-validation error; ``curves`` the 50 fitted curves at the chosen setting on
    ``x_grid`` and ``mean_curve`` their mean; ``bias2``, ``variance``, ``test_error``
    (bias² + variance + σ²) are averaged over the grid; ``cv`` is k-fold CV MSE on the data.
    """

    axis: str
    values: np.ndarray
    chosen: int
    bias2: np.ndarray
    variance: np.ndarray
    test_error: np.ndarray
    cv: np.ndarray
    cv_choice: int
    best: int
    x_grid: np.ndarray
    truth_grid: np.ndarray
    curves: np.ndarray
    mean_curve: np.ndarray
    noise: float
    note: str


def sweep_values(axis: str, basis: str, size: int, log_alpha: float, n_train: int) -> tuple[np.ndarray, int]:
    """The complexities swept and the index of the current one."""
    if axis == "size":
        first = 1
        last = max(min(MAX_SWEEP_SIZE, n_train - 1 if basis == "gauss" else n_train - 2), size, first + 1)
        values = np.arange(first, last + 1)
        return values.astype(float), int(np.flatnonzero(values == size)[0])
    grid = np.arange(-6.0, 2.01, 0.5)
    values = np.unique(np.append(grid, round(float(log_alpha), 6)))
    return values, int(np.flatnonzero(np.isclose(values, round(float(log_alpha), 6)))[0])


def bias_variance_sweep(x_train, y_train, *, truth: str, noise: float, basis: str, size: int, method: str,
                        log_alpha: float, axis: str, folds: int = 5, seed: int = 0, n_sets: int = N_SETS, state=None):
    """Redraw ``n_sets`` training sets y = f(x) + σε on the fixed design ``x_train`` and fit each at
    every complexity; also k-fold CV of the given data. Returns a :class:`SweepResult`."""
    f = truth_function(truth)
    x_train = np.asarray(x_train, dtype=float).reshape(-1)
    y_train = np.asarray(y_train, dtype=float).reshape(-1)
    if len(x_train) < 3:
        raise ValueError("the bias–variance sweep needs at least 3 training points")
    if axis == "alpha" and method in ("lstsq", "gd"):
        method = "ridge"  # λ only means something for a penalty: sweep ridge
    values, chosen = sweep_values(axis, basis, size, log_alpha, len(x_train))
    rng = np.random.default_rng([int(seed), 2028])
    Y = f(x_train)[None, :] + float(noise) * rng.standard_normal((n_sets, len(x_train)))
    x_grid = np.linspace(float(x_train.min()), float(x_train.max()), GRID_POINTS)  # the design's range
    truth_grid = f(x_grid)
    k = min(int(folds), len(x_train))
    splits = kfold_indices(len(x_train), k, shuffle=True, random_state=int(seed)) if k >= 2 else []
    m = len(values)
    bias2, variance, cv = np.full(m, np.nan), np.full(m, np.nan), np.full(m, np.nan)
    curves = mean_curve = None
    if axis == "size":
        groups = [(int(v), [10.0 ** log_alpha], [i]) for i, v in enumerate(values)]
    else:  # one basis, every λ at once: the paths start each λ from the last (warm starts)
        groups = [(int(size), list(10.0 ** values), list(range(m)))]
    for g, (deg, alphas, indices) in enumerate(groups):
        if state is not None:
            state.check()
            state.set_progress(g / len(groups), f"complexity {g + 1} of {len(groups)}")
        b = make_basis(basis, deg).fit(x_train[:, None])
        phi_grid = b.transform(x_grid[:, None])
        check = state.check if state is not None else None
        coefs, intercepts = fit_many(b.transform(x_train[:, None]), Y, method, alphas, check)
        fold_errors = np.zeros(len(alphas))
        for tr, va in splits:
            bf = make_basis(basis, deg).fit(x_train[tr][:, None])
            c, b0 = fit_many(bf.transform(x_train[tr][:, None]), y_train[tr][None, :], method, alphas)
            pred = bf.transform(x_train[va][:, None]) @ c[0] + b0[0]
            fold_errors += np.mean((pred - y_train[va][:, None]) ** 2, axis=0) / len(splits)
        for k, index in enumerate(indices):
            preds = phi_grid @ coefs[:, :, k].T + intercepts[:, k]
            preds = preds.T  # (n_sets, grid)
            if not np.all(np.isfinite(preds)):
                continue
            mean = preds.mean(axis=0)
            bias2[index] = float(np.mean((mean - truth_grid) ** 2))
            variance[index] = float(np.mean((preds - mean) ** 2))
            if splits:
                cv[index] = float(fold_errors[k])
            if index == chosen:
                curves, mean_curve = preds, mean
    test_error = bias2 + variance + float(noise) ** 2
    if curves is None:
        curves, mean_curve = np.zeros((0, GRID_POINTS)), np.full(GRID_POINTS, np.nan)
    note = "" if np.isfinite(test_error[chosen]) else "least squares is not unique at this complexity"
    best = int(np.nanargmin(test_error)) if np.any(np.isfinite(test_error)) else chosen
    cv_choice = int(np.nanargmin(cv)) if np.any(np.isfinite(cv)) else -1
    if state is not None:
        state.set_progress(1.0, "done")
    return SweepResult(axis=axis, values=values, chosen=chosen, bias2=bias2, variance=variance, test_error=test_error,
                       cv=cv, cv_choice=cv_choice, best=best, x_grid=x_grid, truth_grid=truth_grid, curves=curves,
                       mean_curve=mean_curve, noise=float(noise) ** 2, note=note)
