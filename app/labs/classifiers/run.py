"""The classifiers lab's run (Qt-free): estimators, the per-run context, the lab's snapshot
type (the engine snapshot plus train/test decisions), fast decision maps and the
cross-validation generator.

Everything here runs on worker threads (``make_run``'s generator, ``prepare``, the grid
search and the reference check); nothing touches a widget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from smlengine import Snapshot
from smlengine.grid import DecisionFrame, decision_frame, grid_points
from smlengine.kernels import make_kernel, rbf_grid_expansion
from smlengine.linear import LogisticRegression, Perceptron
from smlengine.model_selection import grid_search_steps
from smlengine.svm import SVM

from ...points_data import LabelledRun

CLASSIFIERS = [
    ("perceptron", "Perceptron"),
    ("logistic", "Logistic regression"),
    ("svm_linear", "Linear SVM"),
    ("svm_poly", "Polynomial SVM"),
    ("svm_rbf", "RBF SVM"),
]
SVM_KERNEL = {"svm_linear": "linear", "svm_poly": "poly", "svm_rbf": "rbf"}
COEF0 = 1.0  # polynomial kernel (<x, y> + coef0)^degree
LN3 = math.log(3.0)  # logistic map: f / ln 3 = ±1  <=>  P(+1 | x) = 3/4 or 1/4

#: grid evaluations (grid points × support vectors) allowed per frame for the generic path
POLY_FRAME_BUDGET = 1.2e6


def is_svm(kind: str) -> bool:
    return kind in SVM_KERNEL


def make_estimator(kind: str, params: dict, seed: int = 0, *, max_iter: int | None = None):
    """The engine estimator of a classifier choice with the lab's parameters."""
    if kind == "perceptron":
        return Perceptron(max_epochs=params["max_epochs"], learning_rate=params["learning_rate"],
                          mode=params["mode"], random_state=seed)
    if kind == "logistic":
        return LogisticRegression(C=params["C"], solver=params["solver"], max_iter=params["max_iter"])
    if is_svm(kind):
        return SVM(C=params["C"], kernel=SVM_KERNEL[kind], gamma=params["gamma"], degree=int(params["degree"]),
                   coef0=COEF0, max_iter=max_iter)
    raise ValueError(f"unknown classifier {kind!r}")


#: the most points the lab draws and trains on (the "Points" parameter's maximum)
MAX_POINTS = 20_000


@dataclass(eq=False)
class RunContext(LabelledRun):
    """One run of a classifier: the labelled points and their split (:class:`~app.points_data.LabelledRun`,
    ``method`` is the classifier's name, also read as ``kind``), the engine estimator and, for
    the SVMs, its kernel."""

    model: Any = None
    kernel: Any = None

    def __post_init__(self):
        super().__post_init__()
        self.model = make_estimator(self.kind, self.params, self.seed)
        if is_svm(self.kind):
            self.kernel = make_kernel(SVM_KERNEL[self.kind], gamma=self.params["gamma"],
                                      degree=int(self.params["degree"]), coef0=COEF0)

    @property
    def kind(self) -> str:
        return self.method

    def kernel_columns(self, cols: np.ndarray) -> np.ndarray:
        """k(x, x_j) for every point x and the training points j in ``cols``: shape (n, len(cols))."""
        return self.kernel(self.X, self.X_train[cols])


@dataclass(frozen=True, kw_only=True, eq=False)
class ClassifiersLabSnapshot(Snapshot):
    """One step of the lab: the engine snapshot plus what the lab adds to it.

    ``engine`` is the estimator's own snapshot (``engine.alpha``, ``engine.v`` ...);
    ``metrics`` holds the numbers of the curves; ``wrong`` are the indices (all points)
    misclassified by sign f; ``test_error`` the error on the held-out points (None if none).
    """

    engine: Any
    ctx: RunContext
    metrics: tuple
    wrong: np.ndarray
    test_error: float | None


def _lab_snapshot(engine, ctx: RunContext, metrics: tuple, wrong: np.ndarray,
                  test_error: float | None) -> ClassifiersLabSnapshot:
    return ClassifiersLabSnapshot(step=engine.step, phase=engine.phase, progress=engine.progress, engine=engine,
                                  ctx=ctx, metrics=metrics, wrong=wrong, test_error=test_error)


def _wrong_and_test_error(ctx: RunContext, f: np.ndarray) -> tuple[np.ndarray, float | None]:
    pred = np.where(f > 0, 1.0, -1.0)
    bad = pred != ctx.y
    test_err = float(bad[ctx.test_idx].mean()) if ctx.n_test else None
    return np.flatnonzero(bad).astype(np.int32), test_err


def run_steps(ctx: RunContext, smo_every: int = 1) -> Iterator[ClassifiersLabSnapshot]:
    """The engine generator of the run, each snapshot wrapped in a :class:`Step`."""
    if ctx.train_idx.size == 0:
        raise ValueError("Every point is a test point: lower the test fraction or add points.")
    if ctx.kind == "perceptron":
        for snap in ctx.model.fit_steps(ctx.X_train, ctx.y_train):
            wrong, te = _wrong_and_test_error(ctx, ctx.X @ snap.v - snap.c)
            yield _lab_snapshot(snap, ctx, (snap.n_mistakes, snap.cost), wrong, te)
    elif ctx.kind == "logistic":
        for snap in ctx.model.fit_steps(ctx.X_train, ctx.y_train):
            f = ctx.X @ snap.w[1:] + snap.w[0]
            wrong, te = _wrong_and_test_error(ctx, f)
            tr = float(np.mean(np.where(f[ctx.train_idx] > 0, 1.0, -1.0) != ctx.y_train))
            yield _lab_snapshot(snap, ctx, (snap.loss, snap.grad_norm, tr, te), wrong, te)
    else:
        yield from _svm_steps(ctx, smo_every)


def _svm_steps(ctx: RunContext, every: int) -> Iterator[ClassifiersLabSnapshot]:
    """SMO snapshots plus f on every point, kept up to date from the alpha changes.

    f(x) = sum_i alpha_i y_i k(x_i, x) + b; one pair update changes two alphas, so the sum
    over all points is updated with two kernel columns (exactly recomputed at the end).
    """
    model, kernel = ctx.model, ctx.kernel
    Xtr, ytr = ctx.X_train, ctx.y_train
    s = np.zeros(len(ctx.y))
    prev = np.zeros(len(ytr))
    for snap in model.fit_steps(Xtr, ytr, snapshot_every=every):
        d = snap.alpha - prev
        ch = np.flatnonzero(d)
        if snap.converged:
            sv = np.flatnonzero(snap.alpha > 0)
            s = kernel(ctx.X, Xtr[sv]) @ (snap.alpha[sv] * ytr[sv]) if sv.size else np.zeros(len(ctx.y))
        elif ch.size:
            s += ctx.kernel_columns(ch) @ (d[ch] * ytr[ch])
        prev = snap.alpha
        wrong, te = _wrong_and_test_error(ctx, s + snap.b)
        yield _lab_snapshot(snap, ctx, (snap.dual_objective, snap.kkt_gap, snap.train_error, te), wrong, te)


# ---------------------------------------------------------------------- decision maps
def svm_resolution(kind: str, n_support: int, n_train: int = 0) -> int:
    """Grid of the SVM decision map: 100² (80² above 1500 training points, where the
    frame budget is tighter); the polynomial path evaluates the kernel, so it shrinks with
    the number of support vectors."""
    if kind == "svm_poly":
        return int(np.clip(math.sqrt(POLY_FRAME_BUDGET / max(n_support, 1)), 40, 100))
    return 80 if n_train > 1500 else 100


def svm_grid_values(ctx: RunContext, snap, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """f of the machine in ``snap`` on the grid xs × ys, shape (len(ys), len(xs)).

    RBF: the engine's separable grid evaluation (``smlengine.kernels.rbf_grid_expansion``,
    2 R n_SV exponentials instead of R² n_SV kernel evaluations). Linear: w = Σ c_i x_i.
    Polynomial: the engine's ``snapshot_decision_function`` on the grid points.
    """
    alpha = snap.alpha
    sv = np.flatnonzero(alpha > 0)
    if sv.size == 0:
        return np.full((len(ys), len(xs)), float(snap.b))
    c = alpha[sv] * ctx.y_train[sv]
    P = ctx.X_train[sv]
    if ctx.kind == "svm_rbf":
        return rbf_grid_expansion(xs, ys, P, c, float(ctx.params["gamma"])) + snap.b
    if ctx.kind == "svm_linear":
        w = c @ P
        return ys[:, None] * w[1] + xs[None, :] * w[0] + snap.b
    gx, gy = np.meshgrid(xs, ys)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    return ctx.model.snapshot_decision_function(snap, pts).reshape(len(ys), len(xs))


def prepare_frame(step: ClassifiersLabSnapshot, extent=None) -> DecisionFrame | None:
    """The decision map of a step (worker thread) over ``extent`` (the visible range; by
    default the run's own box)."""
    ctx = step.ctx
    ext = ctx.extent if extent is None else tuple(extent)
    eng = step.engine
    if ctx.kind == "perceptron":
        v, c = eng.v, eng.c
        if not np.any(v):
            return None
        return decision_frame(lambda P: P @ v - c, ext, resolution=120, levels=(0.0,))
    if ctx.kind == "logistic":
        w = eng.w
        if not np.any(w[1:]):
            return None
        return decision_frame(lambda P: (P @ w[1:] + w[0]) / LN3, ext, resolution=120, levels=(0.0, -1.0, 1.0))
    res = svm_resolution(ctx.kind, int(eng.n_support), len(ctx.train_idx))
    xs, ys, _ = grid_points(ext, res)

    def func(P):
        assert P.shape[0] == res * res
        return svm_grid_values(ctx, eng, xs, ys).ravel()

    return decision_frame(func, ext, resolution=res, levels=(0.0, -1.0, 1.0))


def pair_numbers(step: ClassifiersLabSnapshot, previous: ClassifiersLabSnapshot | None) -> dict | None:
    """The numbers of the SMO pair update shown in the maths panel."""
    if not is_svm(step.ctx.kind) or step.engine.pair is None:
        return None
    ctx = step.ctx
    i, j = step.engine.pair
    xi, xj = ctx.X_train[[i]], ctx.X_train[[j]]
    k = ctx.kernel
    eta = float(k(xi, xi)[0, 0] + k(xj, xj)[0, 0] - 2.0 * k(xi, xj)[0, 0])
    out = {"i": i, "j": j, "yi": ctx.y_train[i], "yj": ctx.y_train[j], "eta": eta,
           "ai": float(step.engine.alpha[i]), "aj": float(step.engine.alpha[j])}
    if previous is not None and previous.step == step.step - 1 and previous.ctx is ctx:
        out["ai0"] = float(previous.engine.alpha[i])
        out["aj0"] = float(previous.engine.alpha[j])
    return out


# ---------------------------------------------------------------------- cross-validation
C_GRID = [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]
GAMMA_GRID = [0.1, 0.316, 1.0, 3.16, 10.0, 31.6, 100.0]
DEGREE_GRID = [1, 2, 3, 4, 5]


def cv_grid(kind: str) -> dict:
    """The (C, second parameter) grid searched for a classifier; C alone for linear models."""
    if kind == "svm_rbf":
        return {"C": C_GRID, "gamma": GAMMA_GRID}
    if kind == "svm_poly":
        return {"C": C_GRID, "degree": DEGREE_GRID}
    if kind in ("svm_linear", "logistic"):
        return {"C": C_GRID}
    raise ValueError("cross-validation needs a classifier with hyper-parameters (logistic regression or an SVM)")


def cv_steps(kind: str, params: dict, X_train, y_train, X_test, y_test, k: int = 5, seed: int = 0):
    """The course protocol, live: k-fold CV error of every grid cell (one yield per cell),
    then the chosen cell retrained on all training points and scored on the test points.

    Yields ("cell", GridSearchSnapshot) per cell, then ("final", dict). Returns "done"
    (never None: the value crosses a Qt signal).
    """
    grid = cv_grid(kind)
    n = len(y_train)
    cap = max(5000, 50 * n)  # SMO iterations per fit: large C on noisy data would take minutes

    def factory(**cell):
        return make_estimator(kind, {**params, **cell}, seed, max_iter=cap if is_svm(kind) else None)

    last = None
    for snap in grid_search_steps(factory, grid, X_train, y_train, k=k, random_state=seed):
        last = snap
        yield ("cell", snap)
    final = factory(**last.best_params).fit(X_train, y_train)
    test_error = float(np.mean(final.predict(X_test) != y_test)) if len(y_test) else None
    n_sv = int(final.support_.size) if is_svm(kind) else -1
    yield ("final", {"best_params": dict(last.best_params), "best_index": tuple(last.best_index),
                     "cv_error": float(last.best_error), "test_error": test_error,
                     "n_train": int(n), "n_test": int(len(y_test)), "n_support": n_sv})
    return "done"
