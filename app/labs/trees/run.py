"""The trees lab's run (Qt-free): the per-run context, the lab's snapshot type, the
decision maps of a tree, of a boosted sum of stumps and of a forest's vote, the tree-diagram
layout, the error-against-depth sweep and the reference check against scikit-learn.

Everything here runs on worker threads (``make_run``'s generator, ``prepare``, side tasks).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from smlengine import Snapshot
from smlengine.ensemble import AdaBoost, Bagging, RandomForest, condorcet_probability
from smlengine.grid import DecisionFrame, decision_frame, grid_points
from smlengine.trees import DecisionTree, TreeArrays, split_cost

from ...points_data import LabelledRun, split_mask  # noqa: F401 - split_mask: the held-out mask, for scripts

METHODS = [
    ("adaboost", "AdaBoost (stumps)"),
    ("tree", "Decision tree"),
    ("bagging", "Bagging"),
    ("forest", "Random forest"),
]
CRITERIA = [("misclassification", "misclassification"), ("gini", "Gini"), ("entropy", "entropy")]
#: resolution of the decision maps (the boosted map is separable, so it can afford more)
BOOST_RES = 160
TREE_RES = 140
FOREST_RES = 110
MAX_SWEEP_DEPTH = 12


def _depth(value: int) -> int | None:
    """The lab's "max depth" 0 means "grow until pure" (None for the engine)."""
    return None if int(value) <= 0 else int(value)


@dataclass(eq=False)
class RunContext(LabelledRun):
    """One run of a learner (``method``) on the labelled points and their split
    (:class:`~app.points_data.LabelledRun`)."""

    def make_estimator(self):
        p = self.params
        if self.method == "adaboost":
            return AdaBoost(n_rounds=int(p["n_rounds"]), criterion=p["criterion"])
        if self.method == "tree":
            return DecisionTree(max_depth=_depth(p["max_depth"]), criterion=p["criterion"])
        if self.method == "bagging":
            return Bagging(n_estimators=int(p["n_estimators"]), max_depth=_depth(p["forest_depth"]),
                           criterion=p["criterion"], random_state=self.seed)
        if self.method == "forest":
            return RandomForest(n_estimators=int(p["n_estimators"]), max_depth=_depth(p["forest_depth"]),
                                max_features=int(p["max_features"]), criterion=p["criterion"], random_state=self.seed)
        raise ValueError(f"unknown method {self.method!r}")


@dataclass(frozen=True, kw_only=True, eq=False)
class TreesLabSnapshot(Snapshot):
    """One step of the lab: the engine snapshot plus what the lab adds.

    ``engine`` is the engine's snapshot (AdaBoostSnapshot, TreeSnapshot or ForestSnapshot).
    ``stumps`` (AdaBoost): rows (axis, threshold, left vote, right vote, alpha) of the accepted
    stumps so far (a read-only view of one growing table). ``test_error``: error of the current
    model on the held-out points (None without any). ``grid_votes`` (forests): +1 votes of the
    trees so far on the decision-map grid; ``test_votes``: +1 votes on the test points;
    ``tree_accuracy``: mean test accuracy of the single trees so far (None without test points).
    ``upcoming`` (tree): the engine's next snapshot when it splits a region (the region about to
    be split, its cost curves and the optimal split: what "You split" asks the student to
    guess), None when no split follows.
    """

    engine: Any
    ctx: RunContext
    train_error: float | None
    test_error: float | None
    stumps: np.ndarray | None = None
    grid_votes: np.ndarray | None = None
    test_votes: np.ndarray | None = None
    tree_accuracy: float | None = None
    trees: tuple = ()
    upcoming: Any = None


def run_steps(ctx: RunContext) -> Iterator[TreesLabSnapshot]:
    """The run of the chosen method, each engine snapshot wrapped in a :class:`TreesLabSnapshot`."""
    if ctx.train_idx.size == 0:
        raise ValueError("Every point is a test point: lower the test fraction or add points.")
    if np.unique(ctx.y_train).size < 2:
        raise ValueError("The training points need both classes: add points of the missing class.")
    if ctx.method == "adaboost":
        yield from _boost_steps(ctx)
    elif ctx.method == "tree":
        yield from _tree_steps(ctx)
    else:
        yield from _forest_steps(ctx)


def _wrap(engine, ctx, train_error, test_error, **extra) -> TreesLabSnapshot:
    return TreesLabSnapshot(step=engine.step, phase=engine.phase, progress=engine.progress, engine=engine, ctx=ctx,
                     train_error=_number(train_error), test_error=_number(test_error), **extra)


def _number(value) -> float | None:
    """A rate as a float, or None where it is undefined at this step (no test points, no trees)."""
    return None if value is None else float(value)


def _stump_votes(snap, learner) -> tuple[float, float]:
    """(left vote, right vote) in {-1, +1} of an AdaBoost stump (classes_ = [-1, +1])."""
    if snap.polarity == 1:
        return -1.0, 1.0
    if snap.polarity == -1:
        return 1.0, -1.0
    v = 1.0 if learner.left_class_ == 1 else -1.0
    return v, v


def _boost_steps(ctx: RunContext) -> Iterator[TreesLabSnapshot]:
    model = ctx.make_estimator()
    X_test = ctx.X_test if ctx.n_test else None
    y_test = ctx.y_test if ctx.n_test else None
    table = np.zeros((int(ctx.params["n_rounds"]), 5))
    k = 0
    for snap in model.fit_steps(ctx.X_train, ctx.y_train, X_test, y_test):
        if snap.learner is not None and snap.accepted:
            left, right = _stump_votes(snap, snap.learner)
            table[k] = (snap.axis, snap.threshold, left, right, snap.alpha)
            k += 1
        view = table[:k]
        view.flags.writeable = False
        te = snap.test_error
        yield _wrap(snap, ctx, snap.train_error, te, stumps=view)


def _tree_steps(ctx: RunContext) -> Iterator[TreesLabSnapshot]:
    """The tree's steps, each one looking one split ahead (``upcoming``)."""
    model = ctx.make_estimator()

    def wrap(snap, nxt):
        te = None
        if ctx.n_test:
            te = float(np.mean(tree_predict_pm(snap.tree, ctx.X_test) != ctx.y_test))
        upcoming = nxt if nxt is not None and nxt.axis is not None else None
        return _wrap(snap, ctx, snap.train_error, te, upcoming=upcoming)

    previous = None
    for snap in model.fit_steps(ctx.X_train, ctx.y_train):
        if previous is not None:
            yield wrap(previous, snap)
        previous = snap
    if previous is not None:
        yield wrap(previous, None)


def split_guess(ctx: RunContext, upcoming, axis: int, threshold: float) -> dict:
    """The student's split x_axis ≤ threshold of the region about to be split, priced.

    ``upcoming`` is the engine's snapshot of that split (:attr:`TreesLabSnapshot.upcoming`). Returns
    the guess's cost Q(R_m, t) = (N₁Q₁ + N₂Q₂)/N_m on the region's training points
    (:func:`smlengine.trees.split_cost`) next to the optimum the algorithm found; the optimum
    is never larger, since every threshold splits the points like some candidate midpoint
    (or not at all, which costs Q(R_m) itself)."""
    axis = int(axis)
    if axis not in (0, 1):
        raise ValueError(f"axis must be 0 or 1, got {axis}")
    threshold = float(threshold)
    if not math.isfinite(threshold):
        raise ValueError("the threshold must be a finite number")
    idx = upcoming.indices
    X, y = ctx.X_train[idx], ctx.y_train[idx]
    cost = split_cost(X, y, axis, threshold, criterion=ctx.params["criterion"])
    n_left = int(np.count_nonzero(X[:, axis] <= threshold))
    return {
        "node": int(upcoming.node), "step": int(upcoming.step), "axis": axis, "threshold": threshold,
        "cost": float(cost), "n": len(idx), "n_left": n_left, "region_cost": float(upcoming.region_cost),
        "best_axis": int(upcoming.axis), "best_threshold": float(upcoming.threshold), "best_cost": float(upcoming.cost),
    }


def _forest_steps(ctx: RunContext) -> Iterator[TreesLabSnapshot]:
    model = ctx.make_estimator()
    _, _, pts = grid_points(ctx.extent, FOREST_RES)
    grid = np.zeros(FOREST_RES * FOREST_RES, dtype=np.uint16)
    tvotes = np.zeros(ctx.n_test, dtype=np.int32)
    trvotes = np.zeros(len(ctx.train_idx), dtype=np.int32)
    acc_sum = 0.0
    trees: tuple = ()
    for snap in model.fit_steps(ctx.X_train, ctx.y_train):
        k = snap.n_trees
        if snap.tree is not None:
            trees = trees + (snap.tree,)
            grid = grid + (tree_predict_pm(snap.tree.tree_, pts) > 0)
            trvotes = trvotes + (tree_predict_pm(snap.tree.tree_, ctx.X_train) > 0)
            if ctx.n_test:
                p = tree_predict_pm(snap.tree.tree_, ctx.X_test)
                tvotes = tvotes + (p > 0)
                acc_sum += float(np.mean(p == ctx.y_test))
        g = grid.reshape(FOREST_RES, FOREST_RES)
        g.flags.writeable = False
        tv = tvotes.copy()
        tv.flags.writeable = False
        # majority of k votes; ties go to the first class (-1), as the engine's argmax does
        tr_err = float(np.mean(np.where(2 * trvotes > k, 1.0, -1.0) != ctx.y_train)) if k else None
        te = float(np.mean(np.where(2 * tvotes > k, 1.0, -1.0) != ctx.y_test)) if (k and ctx.n_test) else None
        acc = acc_sum / k if (k and ctx.n_test) else None
        yield _wrap(snap, ctx, tr_err, te, grid_votes=g, test_votes=tv, tree_accuracy=acc, trees=trees)


# ---------------------------------------------------------------------- predictions and maps
def tree_predict_pm(tree: TreeArrays, X: np.ndarray) -> np.ndarray:
    """±1 majority vote of the leaf of every row (classes [-1, +1]; ties -> -1)."""
    v = tree.value[tree.apply(np.asarray(X, float))]
    return np.where(v[:, 1] > v[:, 0], 1.0, -1.0)


def boosted_grid(stumps: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """F(x) = Σ α_m g_m(x) on the grid xs × ys, shape (len(ys), len(xs)).

    A stump depends on one coordinate, so F(x₁, x₂) = A(x₁) + B(x₂): two short sums of step
    functions (rounds × grid side comparisons) instead of rounds × grid² evaluations."""
    A = np.zeros(len(xs))
    B = np.zeros(len(ys))
    if len(stumps):
        axis, t, left, right, alpha = stumps.T
        for j, coords, out in ((0, xs, A), (1, ys, B)):
            on = axis == j
            if on.any():
                step = coords[None, :] > t[on, None]  # (stumps, grid)
                out += (alpha[on] * left[on]).sum() + (alpha[on] * (right[on] - left[on])) @ step
        const = axis < 0
        if const.any():
            A += (alpha[const] * left[const]).sum()
    return B[:, None] + A[None, :]


def boosted_values(stumps: np.ndarray, X: np.ndarray) -> np.ndarray:
    """F at arbitrary points (rows of X)."""
    F = np.zeros(len(X))
    for axis, t, left, right, alpha in stumps:
        if axis < 0:
            F += alpha * left
        else:
            F += alpha * np.where(X[:, int(axis)] > t, right, left)
    return F


@dataclass(frozen=True, eq=False)
class TreeFrame:
    """What ``prepare`` computes for a tree step: its map and its split segments."""

    frame: DecisionFrame
    split_x: np.ndarray  # NaN-separated segments of every split, clipped to the extent
    split_y: np.ndarray


def tree_map(tree: TreeArrays, extent) -> DecisionFrame:
    """(n₊ − n₋)/(n₊ + n₋) of the leaf of every grid point: the sign is the leaf's vote."""
    def f(P):
        v = tree.value[tree.apply(P)]
        tot = v.sum(axis=1)
        return np.where(tot > 0, (v[:, 1] - v[:, 0]) / np.maximum(tot, 1e-300), 0.0)

    return decision_frame(f, extent, resolution=TREE_RES, levels=(0.0,))


def split_segments(tree: TreeArrays, extent) -> tuple[np.ndarray, np.ndarray]:
    """Every split x_j = t drawn across its region's box (clipped to the extent)."""
    xmin, xmax, ymin, ymax = extent
    inner = np.flatnonzero(tree.feature >= 0)
    if not inner.size:
        return np.zeros(0), np.zeros(0)
    lo = tree.lower[inner].copy()
    hi = tree.upper[inner].copy()
    lo[:, 0] = np.clip(lo[:, 0], xmin, xmax)
    hi[:, 0] = np.clip(hi[:, 0], xmin, xmax)
    lo[:, 1] = np.clip(lo[:, 1], ymin, ymax)
    hi[:, 1] = np.clip(hi[:, 1], ymin, ymax)
    t = tree.threshold[inner]
    vert = tree.feature[inner] == 0
    x0 = np.where(vert, t, lo[:, 0])
    x1 = np.where(vert, t, hi[:, 0])
    y0 = np.where(vert, lo[:, 1], t)
    y1 = np.where(vert, hi[:, 1], t)
    nan = np.full(inner.size, np.nan)
    return np.column_stack([x0, x1, nan]).ravel(), np.column_stack([y0, y1, nan]).ravel()


def prepare_frame(step: TreesLabSnapshot, extent=None):
    """Per-frame drawing data (worker thread): a DecisionFrame or a TreeFrame, over
    ``extent`` (the visible range; by default the run's own box)."""
    ctx = step.ctx
    ext = ctx.extent if extent is None else tuple(extent)
    if ctx.method == "adaboost":
        stumps = step.stumps
        if stumps is None or not len(stumps):
            return None
        xs, ys, _ = grid_points(ext, BOOST_RES)
        values = boosted_grid(stumps, xs, ys)
        return decision_frame(lambda P: values.ravel(), ext, resolution=BOOST_RES, levels=(0.0,))
    if ctx.method == "tree":
        tree = step.engine.tree
        sx, sy = split_segments(tree, ext)
        return TreeFrame(tree_map(tree, ext), sx, sy)
    k = step.engine.n_trees
    if not k:
        return None
    hat = None
    if step.tree_accuracy is not None:
        hat = condorcet_curve(int(ctx.params["n_estimators"]), min(max(step.tree_accuracy, 0.0), 1.0))
    votes = step.grid_votes
    if ext != tuple(ctx.extent):  # the view outgrew the run's grid: count the trees' votes anew
        _, _, pts = grid_points(ext, FOREST_RES)
        votes = sum((tree_predict_pm(t.tree_, pts) > 0).astype(np.int32) for t in step.trees)
        votes = votes.reshape(FOREST_RES, FOREST_RES)
    margin = (2.0 * votes.astype(float) - k) / k  # fraction voting +1 minus fraction voting -1
    # ties (margin 0) go to class -1 in the vote: nudge them below zero so the map agrees
    margin = np.where(margin == 0, -1e-9, margin)
    return ForestFrame(decision_frame(lambda P: margin.ravel(), ext, resolution=FOREST_RES, levels=(0.0,)), hat)


@dataclass(frozen=True, eq=False)
class ForestFrame:
    frame: DecisionFrame
    condorcet_hat: tuple | None  # (m, P(majority right)) for the measured single-tree accuracy


def condorcet_curve(B: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """P(the majority of m independent voters of accuracy p is right), m = 1..B."""
    m = np.arange(1, max(int(B), 1) + 1)
    return m.astype(float), np.asarray(condorcet_probability(m, p), dtype=float)


# ---------------------------------------------------------------------- tree diagram layout
def tree_layout(tree: TreeArrays) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of every node: leaves at 0, 1, 2, ... left to right, parents centred above
    their children, y = −depth."""
    n = tree.node_count
    x = np.zeros(n)
    y = -tree.depth.astype(float)
    next_leaf = 0
    stack = [(0, False)]
    while stack:  # iterative post-order walk (no recursion limit for deep trees)
        node, visited = stack.pop()
        left, right = tree.children_left[node], tree.children_right[node]
        if left < 0:
            x[node] = next_leaf
            next_leaf += 1
        elif visited:
            x[node] = 0.5 * (x[left] + x[right])
        else:
            stack.append((node, True))
            stack.append((right, False))
            stack.append((left, False))
    return x, y


def node_path(tree: TreeArrays, point) -> list[int]:
    """Ids of the nodes a point passes from the root to its leaf."""
    node, path = 0, [0]
    p = np.asarray(point, float)
    while tree.node_count and tree.feature[node] >= 0:
        f = tree.feature[node]
        node = int(tree.children_right[node] if p[f] > tree.threshold[node] else tree.children_left[node])
        path.append(node)
    return path


# ---------------------------------------------------------------------- side tasks
def depth_sweep(X_train, y_train, X_test, y_test, criterion: str, max_depth: int = MAX_SWEEP_DEPTH, state=None):
    """Training and test error of trees of depth 1..max_depth (the overfitting picture)."""
    depths, train, test = [], [], []
    for d in range(1, max_depth + 1):
        if state is not None and state.cancelled:
            break
        t = DecisionTree(max_depth=d, criterion=criterion).fit(X_train, y_train)
        depths.append(d)
        train.append(float(np.mean(t.predict(X_train) != y_train)))
        test.append(float(np.mean(t.predict(X_test) != y_test)) if len(y_test) else math.nan)
        if state is not None:
            state.set_progress(d / max_depth, f"depth {d}")
    return {"depth": np.array(depths), "train": np.array(train), "test": np.array(test)}


def reference_check(method: str, params: dict, X, y, extent, resolution: int = 150) -> dict:
    """Our model and scikit-learn's on the same training points: agreement of predictions.

    AdaBoost: our discrete AdaBoost with Gini stumps against AdaBoostClassifier(SAMME) with
    depth-1 DecisionTreeClassifier (the same α = log((1 − err)/err) for two classes). Trees:
    our DecisionTree against DecisionTreeClassifier with the same depth and criterion
    (scikit-learn has no misclassification criterion: Gini is compared then).
    """
    X = np.asarray(X, float)
    y = np.where(np.asarray(y) > 0, 1.0, -1.0)
    if np.unique(y).size < 2:
        raise ValueError("the reference check needs training points of both classes")
    crit = params["criterion"] if params["criterion"] != "misclassification" else "gini"
    if method == "adaboost":
        # the reference library is a test-time option, imported only when the check runs
        from sklearn.ensemble import AdaBoostClassifier
        from sklearn.tree import DecisionTreeClassifier

        M = int(params["n_rounds"])
        ours = AdaBoost(n_rounds=M, criterion=crit).fit(X, y)
        kw = {"algorithm": "SAMME"} if "algorithm" in AdaBoostClassifier().get_params() else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1, criterion=crit), n_estimators=M,
                                        **kw).fit(X, y)
        name = f"AdaBoostClassifier(SAMME, {crit} stumps)"
    elif method == "tree":
        from sklearn.tree import DecisionTreeClassifier  # deferred: the optional reference library

        ours = DecisionTree(max_depth=_depth(params["max_depth"]), criterion=crit).fit(X, y)
        theirs = DecisionTreeClassifier(max_depth=_depth(params["max_depth"]), criterion=crit).fit(X, y)
        name = f"DecisionTreeClassifier({crit})"
    else:
        raise ValueError("the reference check covers the decision tree and AdaBoost")
    _, _, pts = grid_points(extent, resolution)
    return {
        "name": name,
        "criterion": crit,
        "agreement": float(np.mean(ours.predict(pts) == theirs.predict(pts))),
        "train_agreement": float(np.mean(ours.predict(X) == theirs.predict(X))),
        "n_points": int(len(y)),
        "grid": int(resolution),
    }
