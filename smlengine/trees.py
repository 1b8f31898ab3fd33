"""Classification trees grown greedily by axis-aligned splits, and decision stumps.

A tree partitions the input space into boxes by splits ``x_j > t`` (right) / ``x_j <= t``
(left); every leaf predicts the majority class (largest weighted count) of its region.
Growing is greedy: for a region R_m and every axis j the best threshold t_j minimises

    Q(R_m, t) = (N_1 Q_1 + N_2 Q_2) / N_m,

where R_1 = {x in R_m : x_j <= t}, R_2 = {x in R_m : x_j > t}, N are (weighted) sizes and Q_k
is the impurity of R_k:

* ``'misclassification'``: Q_k = 1 - max_c p_kc, so N_1 Q_1 + N_2 Q_2 counts the points the two
  majority votes get wrong -- the course's cost (misclassified in R_1 + in R_2) / #R_m;
* ``'gini'``: Q_k = sum_c p_kc (1 - p_kc);
* ``'entropy'``: Q_k = -sum_c p_kc log2 p_kc (as scikit-learn, in bits).

The best axis wins; every impure region is split until depth ``max_depth``. Thresholds are
halfway between consecutive distinct values of the region along the axis.

Implementation: the data are sorted once per axis; the tree is grown level by level, and
every level evaluates *all* candidate thresholds of *all* regions along *all* axes in one
pass of cumulative class weights over those sorted orders. Children inherit their parent's
sorted orders by a stable partition (no re-sorting), which is what makes a depth-8 tree on
5000 x 20 data cost a few dozen numpy calls per level.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from ._base import (
    BaseEstimator,
    ClassifierMixin,
    IterativeMixin,
    Snapshot,
    check_array,
    check_choice,
    check_random_state,
    check_scalar,
    check_X_y,
    frozen_array,
)
from ._params import Integral, Interval, Options, RandomState, Real

__all__ = [
    "DecisionStump",
    "DecisionTree",
    "Presorted",
    "TreeArrays",
    "TreeSnapshot",
    "best_split",
    "cost_curve",
    "presort",
    "region_impurity",
    "split_cost",
]

CRITERIA = ("misclassification", "gini", "entropy")

#: Deepest tree accepted: a tree cannot be deeper than its number of points minus one, and no
#: teaching data set comes near a thousand levels.
MAX_DEPTH = 1000

#: Constraints shared by every estimator made of trees (``_parameter_constraints``).
TREE_PARAM_CONSTRAINTS = {
    "max_depth": [Interval(Integral, 1, MAX_DEPTH), None],
    "criterion": [Options(CRITERIA)],
    "min_samples_leaf": [Interval(Integral, 1, None)],
    "max_features": [Options(("sqrt", "log2")), Interval(Integral, 1, None), Interval(Real, 0, 1, closed="right"),
                     None],
    "random_state": [RandomState(), None],
}
_LN2 = math.log(2.0)


# ----------------------------------------------------------------------------------------
# impurity arithmetic on weighted class counts (last axis = class)
# ----------------------------------------------------------------------------------------


def _xlogx(a):
    """a log a with 0 log 0 = 0 (the entropy of an empty class)."""
    out = np.zeros_like(a)
    pos = a > 0
    out[pos] = a[pos] * np.log(a[pos])
    return out


def _weighted_impurity(counts, criterion):
    """N_k * Q_k from class counts of shape (..., K); 0 for empty regions.

    Working with N_k Q_k (not Q_k) lets the two children be added and divided by N_m once.
    """
    counts = np.asarray(counts, dtype=np.float64)
    w = counts.sum(axis=-1)
    if criterion == "misclassification":
        return w - counts.max(axis=-1)
    if criterion == "gini":
        sq = np.einsum("...k,...k->...", counts, counts)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = w - sq / w
        return np.where(w > 0, out, 0.0)
    return (_xlogx(w) - _xlogx(counts).sum(axis=-1)) / _LN2


def _children_cost_channels(L, T, criterion):
    """N_1 Q_1 + N_2 Q_2 for left counts given as a list of K arrays, node totals T (K,) or (K, ...).

    Channels are kept as separate arrays (one per class) so the hot loop never builds an
    (..., K) array with a short, slow last axis.
    """
    K = len(L)
    R = [T[k] - L[k] for k in range(K)]
    if K == 2 and criterion == "misclassification":  # N_k - max = the smaller of the two counts
        return np.minimum(L[0], L[1]) + np.minimum(R[0], R[1])
    wL = L[0] + L[1] if K > 1 else L[0].copy()
    for k in range(2, K):
        wL += L[k]
    wR = R[0] + R[1] if K > 1 else R[0].copy()
    for k in range(2, K):
        wR += R[k]
    if K == 2 and criterion == "gini":  # N_k Q_gini = 2 n_0 n_1 / N_k
        with np.errstate(divide="ignore", invalid="ignore"):
            return 2.0 * (L[0] * L[1] / wL + R[0] * R[1] / wR)
    if criterion == "misclassification":
        mL, mR = L[0], R[0]
        for k in range(1, K):
            mL = np.maximum(mL, L[k])
            mR = np.maximum(mR, R[k])
        return (wL - mL) + (wR - mR)
    if criterion == "gini":
        sL = L[0] * L[0]
        sR = R[0] * R[0]
        for k in range(1, K):
            sL += L[k] * L[k]
            sR += R[k] * R[k]
        with np.errstate(divide="ignore", invalid="ignore"):
            return (wL - sL / wL) + (wR - sR / wR)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = wL * np.log(wL) + wR * np.log(wR)
        for k in range(K):
            out -= _xlogx(L[k]) + _xlogx(R[k])
    return out / _LN2


def region_impurity(y, sample_weight=None, criterion="misclassification", classes=None):
    """Impurity Q(R) of one region: 1 - max_c p_c, Gini or entropy of its (weighted) labels."""
    check_choice("criterion", criterion, CRITERIA)
    y = np.asarray(y)
    classes = np.unique(y) if classes is None else np.asarray(classes)
    w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    counts = np.array([w[y == c].sum() for c in classes])
    total = counts.sum()
    if total <= 0:
        raise ValueError("the region is empty (total weight 0)")
    return float(_weighted_impurity(counts, criterion) / total)


def _check_weights(sample_weight, n):
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have shape ({n},), got {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or infinite values")
    if np.any(w < 0):
        raise ValueError("sample_weight must be >= 0")
    if w.sum() <= 0:
        raise ValueError("sample_weight sums to 0; at least one point needs a positive weight")
    return w


def _midpoints(a, b):
    """Threshold halfway between a < b; falls back to a if rounding reaches b (so a <= t < b)."""
    t = a / 2.0 + b / 2.0
    return np.where(t >= b, a, t)


def cost_curve(X, y, axis, sample_weight=None, criterion="misclassification", region=None, min_samples_leaf=1):
    """Cost Q(R, t) of every candidate threshold of one region along one axis.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    axis : int
        The coordinate j of the split x_j > t.
    sample_weight : array-like of shape (n_samples,), optional
    criterion : {'misclassification', 'gini', 'entropy'}
    region : None, boolean mask or integer indices
        The points of the region R (None: all points).
    min_samples_leaf : int
        Thresholds leaving fewer points on a side are left out.

    Returns
    -------
    thresholds : ndarray of shape (n_candidates,)
        Midpoints between consecutive distinct values of x_axis in R, increasing.
    costs : ndarray of shape (n_candidates,)
        Q(R, t) = (N_1 Q_1 + N_2 Q_2) / N_R for each threshold.
    """
    X, y = check_X_y(X, y)
    check_choice("criterion", criterion, CRITERIA)
    n, d = X.shape
    check_scalar("axis", axis, numbers.Integral, min_value=0, max_value=d - 1)
    w = _check_weights(sample_weight, n)
    if region is not None:
        region = np.asarray(region)
        idx = np.flatnonzero(region) if region.dtype == bool else region.astype(np.intp)
        X, y, w = X[idx], y[idx], w[idx]
    if X.shape[0] == 0:
        return np.empty(0), np.empty(0)
    classes, yk = np.unique(y, return_inverse=True)
    o = np.argsort(X[:, axis], kind="stable")
    v = X[o, axis]
    ws, ys = w[o], yk[o]
    L = [np.cumsum(np.where(ys == k, ws, 0.0))[:-1] for k in range(classes.size)]
    T = np.array([w[yk == k].sum() for k in range(classes.size)])
    pos = np.arange(1, X.shape[0])
    ok = (v[:-1] < v[1:]) & (pos >= min_samples_leaf) & (X.shape[0] - pos >= min_samples_leaf)
    cost = _children_cost_channels(L, T, criterion) / T.sum()
    return _midpoints(v[:-1], v[1:])[ok], cost[ok]


def split_cost(X, y, axis, threshold, sample_weight=None, criterion="misclassification"):
    """Cost Q(R, t) of splitting the points (X, y) at x_axis > threshold.

    For ``'misclassification'`` this is (misclassified in R_1 + misclassified in R_2) / #R
    with each side voting for its (weighted) majority. A threshold that leaves one side empty
    costs the impurity of R itself.
    """
    X, y = check_X_y(X, y)
    check_choice("criterion", criterion, CRITERIA)
    n, d = X.shape
    check_scalar("axis", axis, numbers.Integral, min_value=0, max_value=d - 1)
    check_scalar("threshold", threshold, numbers.Real)
    w = _check_weights(sample_weight, n)
    classes, yk = np.unique(y, return_inverse=True)
    right = X[:, axis] > threshold
    L = np.bincount(yk[~right], weights=w[~right], minlength=classes.size)
    R = np.bincount(yk[right], weights=w[right], minlength=classes.size)
    total = w.sum()
    return float((_weighted_impurity(L, criterion) + _weighted_impurity(R, criterion)) / total)


def best_split(X, y, sample_weight=None, criterion="misclassification", min_samples_leaf=1):
    """The optimal split of one region: ``(axis, threshold, cost)``; ``(None, None, inf)`` if none.

    Ties are broken towards the lowest axis, then the lowest threshold (same rule as the trees).
    """
    X, y = check_X_y(X, y)
    best = (None, None, np.inf)
    for j in range(X.shape[1]):
        t, c = cost_curve(X, y, j, sample_weight, criterion, min_samples_leaf=min_samples_leaf)
        if c.size and c.min() < best[2]:
            i = int(np.argmin(c))
            best = (j, float(t[i]), float(c[i]))
    return best


# ----------------------------------------------------------------------------------------
# presorted orders
# ----------------------------------------------------------------------------------------


class Presorted:
    """Sorted orders of a design matrix along every axis, computed once and reused.

    Attributes
    ----------
    order : ndarray of shape (n_features, n_samples)
        ``order[j]`` lists the sample indices by increasing ``X[:, j]`` (stable).
    values : ndarray of shape (n_features, n_samples)
        ``X[order[j], j]``.
    shape : tuple
        Shape of X (used to check it is reused with the same data).
    """

    def __init__(self, X):
        X = np.asarray(X, dtype=np.float64)
        self.shape = X.shape
        self.XT = np.ascontiguousarray(X.T)
        self.order = np.argsort(self.XT, axis=1, kind="stable").astype(np.intp)
        self.values = np.take_along_axis(self.XT, self.order, axis=1)
        # Stump helpers: candidate positions (between p and p+1) and their thresholds.
        self.valid = self.values[:, :-1] < self.values[:, 1:]
        self.invalid_flat = np.flatnonzero(~self.valid)
        self.thresholds = _midpoints(self.values[:, :-1], self.values[:, 1:])


def presort(X) -> Presorted:
    """Sort X once along every axis; pass the result as ``order=`` to trees and stumps."""
    return Presorted(check_array(X))


def _get_presorted(order, X):
    if order is None:
        return Presorted(X)
    if isinstance(order, Presorted):
        if order.shape != X.shape:
            raise ValueError(f"order was computed for data of shape {order.shape}, got {X.shape}")
        return order
    arr = np.asarray(order)
    if arr.shape != (X.shape[1], X.shape[0]):
        raise ValueError(f"order must have shape (n_features, n_samples) = {(X.shape[1], X.shape[0])}, got {arr.shape}")
    p = Presorted.__new__(Presorted)
    p.shape = X.shape
    p.XT = np.ascontiguousarray(X.T)
    p.order = arr.astype(np.intp)
    p.values = np.take_along_axis(p.XT, p.order, axis=1)
    p.valid = p.values[:, :-1] < p.values[:, 1:]
    p.invalid_flat = np.flatnonzero(~p.valid)
    p.thresholds = _midpoints(p.values[:, :-1], p.values[:, 1:])
    return p


def _resolve_max_features(max_features, d):
    if max_features is None:
        return d
    if isinstance(max_features, str):
        check_choice("max_features", max_features, ("sqrt", "log2"))
        return max(1, int(math.sqrt(d)) if max_features == "sqrt" else int(math.log2(d)))
    if isinstance(max_features, bool):
        raise TypeError(f"max_features must be None, 'sqrt', 'log2', an int or a float, got {max_features!r}")
    if isinstance(max_features, numbers.Integral):
        check_scalar("max_features", max_features, numbers.Integral, min_value=1)
        return min(int(max_features), d)
    if isinstance(max_features, numbers.Real):
        check_scalar("max_features", max_features, numbers.Real, min_value=0.0, max_value=1.0, include_min=False)
        return max(1, int(max_features * d))
    raise TypeError(f"max_features must be None, 'sqrt', 'log2', an int or a float, got {max_features!r}")


# ----------------------------------------------------------------------------------------
# tree structure and snapshots
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, eq=False)
class TreeArrays:
    """Node arrays of a (possibly partial) tree; node 0 is the root, ids in breadth-first order.

    Attributes
    ----------
    feature : ndarray of int, shape (n_nodes,)
        Split axis j of an internal node; -1 for a leaf.
    threshold : ndarray of float, shape (n_nodes,)
        Split threshold t (x_j > t goes right); NaN for a leaf.
    children_left, children_right : ndarray of int, shape (n_nodes,)
        Child ids; -1 for a leaf.
    value : ndarray of float, shape (n_nodes, n_classes)
        Weighted class counts of the node's region (the leaf votes for the largest).
    depth : ndarray of int, shape (n_nodes,)
    n_samples : ndarray of int, shape (n_nodes,)
        Number of (distinct) training points in the region.
    impurity : ndarray of float, shape (n_nodes,)
        Q of the region under the tree's criterion.
    lower, upper : ndarray of float, shape (n_nodes, n_features)
        The region as a box lower < x <= upper (-inf / +inf where unbounded).
    """

    feature: np.ndarray
    threshold: np.ndarray
    children_left: np.ndarray
    children_right: np.ndarray
    value: np.ndarray
    depth: np.ndarray
    n_samples: np.ndarray
    impurity: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    @property
    def node_count(self) -> int:
        return int(self.feature.shape[0])

    @property
    def is_leaf(self) -> np.ndarray:
        return self.children_left < 0

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.children_left < 0))

    @property
    def max_depth(self) -> int:
        return int(self.depth[self.children_left < 0].max()) if self.node_count else 0

    def training_error(self) -> float:
        """Weighted fraction misclassified by the leaves' majority votes."""
        leaves = self.value[self.children_left < 0]
        return float((leaves.sum() - leaves.max(axis=1).sum()) / self.value[0].sum())

    def apply(self, X) -> np.ndarray:
        """Leaf id of every row of X (one vectorised step per level)."""
        node = np.zeros(X.shape[0], dtype=np.intp)
        rows = np.arange(X.shape[0])
        for _ in range(int(self.depth.max()) if self.node_count else 0):
            f = self.feature[node]
            internal = f >= 0
            if not internal.any():
                break
            go_right = X[rows, np.where(internal, f, 0)] > self.threshold[node]
            nxt = np.where(go_right, self.children_right[node], self.children_left[node])
            node = np.where(internal, nxt, node)
        return node


def _snapshot_tree(arrays, n_nodes, undo_parents=()):
    """Compact frozen copy of the first n_nodes nodes; ``undo_parents`` are shown as leaves."""
    parts = {k: np.array(v[:n_nodes]) for k, v in arrays.items()}
    undo = np.asarray(undo_parents, dtype=np.intp)
    if undo.size:
        parts["feature"][undo] = -1
        parts["threshold"][undo] = np.nan
        parts["children_left"][undo] = -1
        parts["children_right"][undo] = -1
    for v in parts.values():
        v.setflags(write=False)
    return TreeArrays(**parts)


@dataclass(frozen=True, kw_only=True, eq=False)
class TreeSnapshot(Snapshot):
    """One step of greedy tree growing.

    Step 0 shows the root region before any split; every later step is one split (breadth
    first: the root, then the regions of depth 1 left to right, ...); the last step
    (``phase='done'``, ``done=True``) repeats the finished tree, which equals the fitted model.

    Attributes
    ----------
    node : int or None
        Id of the region just split (0 at step 0; None in the final snapshot).
    node_depth : int
        Depth of that region (the root has depth 0).
    indices : ndarray of int or None
        Training points in the region, increasing (read-only; all points at step 0).
    lower, upper : ndarray of shape (n_features,) or None
        The region as a box lower < x <= upper.
    axis : int or None
        Chosen split axis j (None at step 0 and in the final snapshot).
    threshold : float or None
        Chosen threshold t; x_j > t goes to the right child.
    cost : float or None
        Q(R, t) of the chosen split (the minimum of the cost curves).
    region_cost : float
        Q of the region before splitting (its impurity under the criterion).
    curve_thresholds, curve_costs : tuple of ndarray or None
        For every axis j, the candidate thresholds of the region (increasing) and their costs
        Q(R, t). Axes not drawn by ``max_features`` (random forests) have empty arrays.
        None at step 0, in the final snapshot, and when ``every_split=False``.
    tree : TreeArrays
        The tree so far (compact copy), including this split.
    n_leaves : int
    tree_depth : int
        Depth of the tree so far.
    train_error : float
        Weighted training error of the tree so far (majority vote in every leaf).
    done : bool
    """

    node: int | None
    node_depth: int
    indices: np.ndarray | None
    lower: np.ndarray | None
    upper: np.ndarray | None
    axis: int | None
    threshold: float | None
    cost: float | None
    region_cost: float
    curve_thresholds: tuple | None
    curve_costs: tuple | None
    tree: TreeArrays
    n_leaves: int
    tree_depth: int
    train_error: float
    done: bool = False


# ----------------------------------------------------------------------------------------
# the level-wise grower
# ----------------------------------------------------------------------------------------


class _Grower:
    """Grows one tree level by level on presorted orders (see the module docstring)."""

    def __init__(self, pre, yk, w, K, max_depth, criterion, msl, k_feat, rng):
        self.pre, self.yk, self.w, self.K = pre, yk, w, K
        self.max_depth = max_depth if max_depth is not None else np.iinfo(np.int64).max
        self.criterion, self.msl, self.k_feat, self.rng = criterion, msl, k_feat, rng
        d, n = pre.order.shape
        self.d, self.n = d, n
        pos = w > 0
        n_pos = int(np.count_nonzero(pos))
        cap = 2 * n_pos - 1
        if max_depth is not None and max_depth < 62:
            cap = min(cap, 2 ** (max_depth + 1) - 1)
        self.cap = cap
        self.arr = {
            "feature": np.full(cap, -1, dtype=np.intp),
            "threshold": np.full(cap, np.nan),
            "children_left": np.full(cap, -1, dtype=np.intp),
            "children_right": np.full(cap, -1, dtype=np.intp),
            "value": np.zeros((cap, K)),
            "depth": np.zeros(cap, dtype=np.intp),
            "n_samples": np.zeros(cap, dtype=np.intp),
            "impurity": np.zeros(cap),
            "lower": np.full((cap, d), -np.inf),
            "upper": np.full((cap, d), np.inf),
        }
        # per-class weight channels and a count channel (min_samples_leaf counts distinct points)
        self.chan = [np.where(yk == k, w, 0.0) for k in range(K)] + [pos.astype(np.float64)]
        order = pre.order
        if n_pos < n:
            order = order[pos[order]].reshape(d, n_pos)
        self.order = order
        root_counts = np.array([c.sum() for c in self.chan[:K]])
        self.arr["value"][0] = root_counts
        self.arr["n_samples"][0] = n_pos
        self.arr["impurity"][0] = _weighted_impurity(root_counts, criterion) / root_counts.sum()
        self.n_nodes = 1

    def _splittable(self, counts, n_samples, depth):
        return (depth < self.max_depth) & (n_samples >= 2 * self.msl) & (np.count_nonzero(counts > 0, axis=-1) > 1)

    def levels(self, detail):
        """Yield, per level, the parents split and per-split records (curve data when ``detail``)."""
        arr, K, d, n = self.arr, self.K, self.d, self.n
        order = self.order
        if not self._splittable(arr["value"][0], arr["n_samples"][0], 0):
            return
        XT = self.pre.XT
        V = np.take_along_axis(XT, order, axis=1) if order.shape[1] < n else self.pre.values
        seg_node = np.array([0], dtype=np.intp)
        seg_starts = np.array([0, order.shape[1]], dtype=np.intp)
        # Class weights packed two per complex number: one cumulative sum serves two classes.
        packs = []
        for k in range(0, K, 2):
            packs.append(self.chan[k] + 1j * self.chan[k + 1] if k + 1 < K else self.chan[k].astype(np.complex128))
        while seg_node.size:
            S = seg_node.size
            m = order.shape[1]
            seg_len = np.diff(seg_starts)
            seg_of_pos = np.repeat(np.arange(S), seg_len)
            # ---- candidate elements: blocks (axis, region) in axis-major order
            if self.k_feat < d:
                keys = self.rng.random((S, d))
                drawn = np.argsort(keys, axis=1)[:, : self.k_feat]
                allowed = np.zeros((d, S), dtype=bool)
                allowed[drawn.T, np.arange(S)[None, :]] = True
                bfeat, bseg = np.nonzero(allowed)
                idx = np.flatnonzero(allowed[:, seg_of_pos])
                samp = order.ravel()[idx]
                vals = V.ravel()[idx]
            else:
                allowed = None
                bfeat = np.repeat(np.arange(d), S)
                bseg = np.tile(np.arange(S), d)
                samp = order.ravel()
                vals = V.ravel()
            blen = seg_len[bseg]
            bend = np.cumsum(blen)
            starts = bend - blen
            B = int(bend[-1])
            nb = bseg.size
            block = np.repeat(np.arange(nb), blen)
            # ---- left class weights of a split after each element: one cumulative sum per pack
            L = []
            for pk in packs:
                cs = np.cumsum(pk[samp])
                base = np.empty(nb, dtype=np.complex128)
                base[0] = 0.0
                base[1:] = cs[bend[:-1] - 1]
                cs -= base[block]
                L.append(cs.real)
                L.append(cs.imag)
            L = L[:K]
            totals = arr["value"][seg_node]  # (S, K)
            bT = totals[bseg]  # (nb, K)
            T = [bT[block, k] for k in range(K)]
            vnext = np.empty(B)
            vnext[:-1] = vals[1:]
            vnext[-1] = np.inf
            ok = vals < vnext
            ok[bend - 1] = False  # the last point of a block has no threshold after it
            if self.msl > 1:
                nL = np.arange(1, B + 1) - starts[block]
                nR = blen[block] - nL
                ok &= (nL >= self.msl) & (nR >= self.msl)
            cost = _children_cost_channels(L, T, self.criterion)
            cost[~ok] = np.inf
            # ---- best per block, then per region (lowest axis, then lowest threshold on ties)
            bmin = np.minimum.reduceat(cost, starts)
            smin = np.full(S, np.inf)
            np.minimum.at(smin, bseg, bmin)
            cand = np.flatnonzero((bmin == smin[bseg]) & np.isfinite(bmin))
            if cand.size == 0:
                return
            _, first = np.unique(bseg[cand], return_index=True)
            best_block = cand[first]  # blocks are axis-major: the first candidate has the lowest axis
            in_best = np.zeros(nb, dtype=bool)
            in_best[best_block] = True
            el = np.flatnonzero(in_best[block] & (cost == bmin[block]))
            _, firstel = np.unique(block[el], return_index=True)
            best_el = el[firstel]
            split_seg = bseg[block[best_el]]
            srt = np.argsort(split_seg, kind="stable")
            best_el, split_seg = best_el[srt], split_seg[srt]
            n_split = split_seg.size
            f_s = bfeat[block[best_el]]
            t_s = _midpoints(vals[best_el], vnext[best_el])
            cost_s = cost[best_el]
            left_counts = np.stack([L[k][best_el] for k in range(K)], axis=1)
            left_n = best_el - starts[block[best_el]] + 1
            parent = seg_node[split_seg]
            right_counts = arr["value"][parent] - left_counts
            right_n = arr["n_samples"][parent] - left_n
            # ---- write the new nodes (breadth-first ids)
            lid = self.n_nodes + 2 * np.arange(n_split)
            rid = lid + 1
            pdepth = arr["depth"][parent]
            arr["feature"][parent] = f_s
            arr["threshold"][parent] = t_s
            arr["children_left"][parent] = lid
            arr["children_right"][parent] = rid
            arr["value"][lid] = left_counts
            arr["value"][rid] = right_counts
            arr["n_samples"][lid] = left_n
            arr["n_samples"][rid] = right_n
            arr["depth"][lid] = pdepth + 1
            arr["depth"][rid] = pdepth + 1
            arr["impurity"][lid] = _weighted_impurity(left_counts, self.criterion) / left_counts.sum(axis=1)
            arr["impurity"][rid] = _weighted_impurity(right_counts, self.criterion) / right_counts.sum(axis=1)
            arr["lower"][lid] = arr["lower"][parent]
            arr["upper"][lid] = arr["upper"][parent]
            arr["lower"][rid] = arr["lower"][parent]
            arr["upper"][rid] = arr["upper"][parent]
            arr["upper"][lid, f_s] = t_s
            arr["lower"][rid, f_s] = t_s
            self.n_nodes += 2 * n_split
            # ---- per-split records for snapshots
            if detail:
                records = []
                for i in range(n_split):
                    s = split_seg[i]
                    wnode = totals[s].sum()
                    curves_t, curves_c = [], []
                    for j in range(d):
                        hit = np.flatnonzero((bfeat == j) & (bseg == s))
                        if hit.size == 0:  # axis not drawn for this region
                            curves_t.append(frozen_array(np.empty(0)))
                            curves_c.append(frozen_array(np.empty(0)))
                            continue
                        sl = slice(starts[hit[0]], bend[hit[0]])
                        okb = ok[sl]
                        curves_t.append(frozen_array(_midpoints(vals[sl], vnext[sl])[okb]))
                        curves_c.append(frozen_array(cost[sl][okb] / wnode))
                    records.append({
                        "node": int(parent[i]),
                        "indices": frozen_array(np.sort(order[0, seg_starts[s]: seg_starts[s + 1]])),
                        "axis": int(f_s[i]), "threshold": float(t_s[i]), "cost": float(cost_s[i] / wnode),
                        "curve_thresholds": tuple(curves_t), "curve_costs": tuple(curves_c),
                    })
            else:
                records = None
            yield parent, records
            # ---- children that can still be split become the next level's regions
            child_nodes = np.empty(2 * n_split, dtype=np.intp)
            child_nodes[0::2] = lid
            child_nodes[1::2] = rid
            active = self._splittable(arr["value"][child_nodes], arr["n_samples"][child_nodes],
                                      arr["depth"][child_nodes])
            if not active.any():
                return
            new_nodes = child_nodes[active]
            new_len = arr["n_samples"][new_nodes]
            m_new = int(new_len.sum())
            new_start_active = np.cumsum(new_len) - new_len
            # start of every child in the new layout; dead children (leaves) go to a trash area
            child_start = np.full(2 * n_split, m_new, dtype=np.intp)
            child_start[active] = new_start_active
            startL = np.full(S, m_new, dtype=np.intp)
            startR = np.full(S, m_new, dtype=np.intp)
            startL[split_seg] = child_start[0::2]
            startR[split_seg] = child_start[1::2]
            # which side every point goes to, read from row 0 (a region has the same points in every row)
            split_of_seg = np.full(S, -1, dtype=np.intp)
            split_of_seg[split_seg] = np.arange(n_split)
            pts = order[0]
            sp = split_of_seg[seg_of_pos]
            has = sp >= 0
            go = np.zeros(m, dtype=bool)
            go[has] = XT[f_s[sp[has]], pts[has]] > t_s[sp[has]]
            right = np.zeros(n, dtype=bool)
            right[pts] = go
            # Stable partition: a point's rank among the right-goers of its region is the number
            # of right-goers before it in the row minus those before the region (the same in
            # every row, so read from row 0).
            Rm = right[order]
            cR = np.cumsum(Rm, axis=1)
            cR -= Rm
            cum0 = np.concatenate(([0], np.cumsum(go)))
            baseR = cum0[seg_starts[:-1]][seg_of_pos]
            st = seg_starts[:-1][seg_of_pos]
            aL = startL[seg_of_pos] + np.arange(m) - st + baseR
            aR = startR[seg_of_pos] - baseR
            newpos = np.where(Rm, aR + cR, aL - cR)
            W = m_new + m
            flat = newpos + (np.arange(d) * W)[:, None]
            new_order = np.empty(d * W, dtype=np.intp)
            new_V = np.empty(d * W)
            new_order[flat.ravel()] = order.ravel()
            new_V[flat.ravel()] = V.ravel()
            order = np.ascontiguousarray(new_order.reshape(d, W)[:, :m_new])
            V = np.ascontiguousarray(new_V.reshape(d, W)[:, :m_new])
            seg_node = new_nodes
            seg_starts = np.concatenate((new_start_active, [m_new]))

    def finish(self):
        return {k: v[: self.n_nodes] for k, v in self.arr.items()}


# ----------------------------------------------------------------------------------------
# estimators
# ----------------------------------------------------------------------------------------


def _check_classification(X, y, sample_weight, need_two=True):
    X, y = check_X_y(X, y)
    classes, yk = np.unique(y, return_inverse=True)
    if need_two and classes.size < 2:
        raise ValueError(f"a classifier needs at least two classes in y, got {classes.size} ({classes.tolist()[:3]})")
    w = _check_weights(sample_weight, X.shape[0])
    return X, y, classes, yk, w


class DecisionTree(ClassifierMixin, IterativeMixin, BaseEstimator):
    """Classification tree grown greedily, level by level, until depth ``max_depth``.

    For every region R_m and every axis j the threshold t minimising
    Q(R_m, t) = (N_1 Q_1 + N_2 Q_2) / N_m is found (N weighted sizes, Q the impurity of the
    criterion); the best axis wins. A region is split while it is impure, has at least
    2 ``min_samples_leaf`` points, is shallower than ``max_depth`` and has a valid threshold
    (even when the split does not lower the cost, as scikit-learn does). Ties: lowest axis, then
    lowest threshold. Each leaf predicts the class with the largest weighted count.

    Parameters
    ----------
    max_depth : int or None, default=3
        Maximal depth D (>= 1); None grows until the leaves are pure.
    criterion : {'misclassification', 'gini', 'entropy'}, default='misclassification'
    min_samples_leaf : int, default=1
    max_features : None, 'sqrt', 'log2', int or float, default=None
        Axes drawn at random for every split (random forests); None uses all axes.
    random_state : None, int or Generator
        Only used when ``max_features`` draws axes.

    Attributes
    ----------
    tree_ : TreeArrays
        Node arrays (feature, threshold, children_left/right, value = weighted class counts,
        depth, n_samples, impurity, lower/upper region boxes).
    classes_ : ndarray
    n_features_in_ : int
    depth_ : int
    n_leaves_ : int
    last_snapshot_ : TreeSnapshot
    """

    _parameter_constraints = TREE_PARAM_CONSTRAINTS

    def __init__(self, max_depth=3, criterion="misclassification", min_samples_leaf=1, max_features=None,
                 random_state=None):
        self.max_depth = max_depth
        self.criterion = criterion
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.random_state = random_state

    def _validate(self, d):
        self.validate_params()
        return _resolve_max_features(self.max_features, d)

    def fit(self, X, y, sample_weight=None, order=None):
        """Grow the tree; equivalent to exhausting ``fit_steps(..., every_split=False)``.

        ``order`` may be a :class:`Presorted` of X (or its ``order`` array) to skip sorting.
        """
        last = None
        for last in self.fit_steps(X, y, sample_weight, every_split=False, order=order):
            pass
        self.last_snapshot_ = last
        return self

    def fit_steps(self, X, y, sample_weight=None, every_split=True, order=None):
        """Grow the tree and yield one snapshot per split.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), at least two classes
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights; points of weight 0 are ignored.
        every_split : bool, default=True
            False yields only step 0 and the final snapshot (what ``fit`` uses).
        order : Presorted or ndarray, optional

        Yields
        ------
        TreeSnapshot
            Step 0: the root region; then one step per split (breadth first) with the cost
            curves of that region along every axis; finally the finished tree (done=True).
        """
        X, y, classes, yk, w = _check_classification(X, y, sample_weight)
        k_feat = self._validate(X.shape[1])
        pre = _get_presorted(order, X)
        for name in ("tree_", "last_snapshot_"):
            self.__dict__.pop(name, None)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        rng = check_random_state(self.random_state) if k_feat < X.shape[1] else None
        g = _Grower(pre, yk, w, classes.size, self.max_depth, self.criterion, self.min_samples_leaf, k_feat, rng)
        arr = g.arr
        root_idx = frozen_array(np.flatnonzero(w > 0))
        step = 0
        d = X.shape[1]
        inf_lo = frozen_array(np.full(d, -np.inf))
        inf_hi = frozen_array(np.full(d, np.inf))
        tree0 = _snapshot_tree(arr, 1)
        yield TreeSnapshot(
            step=0, phase="root", progress=0.0, node=0, node_depth=0, indices=root_idx, lower=inf_lo, upper=inf_hi,
            axis=None, threshold=None, cost=None, region_cost=float(arr["impurity"][0]), curve_thresholds=None,
            curve_costs=None, tree=tree0, n_leaves=1, tree_depth=0, train_error=tree0.training_error(),
        )
        for parents, records in g.levels(every_split):
            if not every_split:
                continue
            n_before = g.n_nodes - 2 * len(parents)
            for i, rec in enumerate(records):
                step += 1
                tree = _snapshot_tree(arr, n_before + 2 * (i + 1), parents[i + 1 :])
                p = rec["node"]
                yield TreeSnapshot(
                    step=step, phase="split", progress=None, node=p, node_depth=int(arr["depth"][p]),
                    indices=rec["indices"], lower=frozen_array(arr["lower"][p]), upper=frozen_array(arr["upper"][p]),
                    axis=rec["axis"], threshold=rec["threshold"], cost=rec["cost"],
                    region_cost=float(arr["impurity"][p]), curve_thresholds=rec["curve_thresholds"],
                    curve_costs=rec["curve_costs"], tree=tree, n_leaves=tree.n_leaves, tree_depth=tree.max_depth,
                    train_error=tree.training_error(),
                )
        self.tree_ = _snapshot_tree(arr, g.n_nodes)
        self.depth_ = self.tree_.max_depth
        self.n_leaves_ = self.tree_.n_leaves
        yield TreeSnapshot(
            step=step + 1, phase="done", progress=1.0, node=None, node_depth=0, indices=None, lower=None, upper=None,
            axis=None, threshold=None, cost=None, region_cost=float(arr["impurity"][0]), curve_thresholds=None,
            curve_costs=None, tree=self.tree_, n_leaves=self.n_leaves_, tree_depth=self.depth_,
            train_error=self.tree_.training_error(), done=True,
        )

    # -- prediction -------------------------------------------------------------------------

    def _X(self, X):
        self._check_fitted("tree_")
        return check_array(X, n_features=self.n_features_in_)

    def apply(self, X) -> np.ndarray:
        """Id of the leaf (region) every point falls into."""
        X = self._X(X)
        return self.tree_.apply(X)

    def predict_proba(self, X) -> np.ndarray:
        """Weighted class fractions of the leaf of every point, shape (n, n_classes)."""
        leaves = self.apply(X)
        v = self.tree_.value[leaves]
        return v / v.sum(axis=1, keepdims=True)

    def predict(self, X) -> np.ndarray:
        """Majority class of the leaf of every point."""
        leaves = self.apply(X)
        return self.classes_[np.argmax(self.tree_.value[leaves], axis=1)]

    def decision_path(self, X):
        """Sparse indicator (n_samples, n_nodes): entry (i, k) is 1 if point i passes node k."""
        from scipy import sparse

        X = self._X(X)
        t = self.tree_
        n = X.shape[0]
        node = np.zeros(n, dtype=np.intp)
        rows, cols = [np.arange(n)], [node]
        for _ in range(self.depth_):
            f = t.feature[node]
            internal = f >= 0
            r = np.flatnonzero(internal)
            if not r.size:
                break
            nd = node[r]
            nxt = np.where(X[r, f[r]] > t.threshold[nd], t.children_right[nd], t.children_left[nd])
            node = node.copy()
            node[r] = nxt
            rows.append(r)
            cols.append(nxt)
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        order = np.lexsort((cols, rows))
        return sparse.csr_matrix(
            (np.ones(rows.size, dtype=np.int8), (rows[order], cols[order])), shape=(n, t.node_count)
        )

    def region_cost_curve(self, X, y, node, axis, sample_weight=None):
        """Cost curve Q(R, t) along ``axis`` of the region of ``node`` on the data (X, y).

        Convenience for the "you split" mode: returns ``(thresholds, costs)`` of the training
        points (X, y) that fall in the node's box under this tree's criterion.
        """
        self._check_fitted("tree_")
        X = check_array(X, n_features=self.n_features_in_)
        check_scalar("node", node, numbers.Integral, min_value=0, max_value=self.tree_.node_count - 1)
        inside = np.all((X > self.tree_.lower[node]) & (X <= self.tree_.upper[node]), axis=1)
        return cost_curve(X, y, axis, sample_weight, self.criterion, region=inside,
                          min_samples_leaf=self.min_samples_leaf)


class DecisionStump(ClassifierMixin, BaseEstimator):
    """Depth-1 tree on weighted data, found by one sorted pass per axis.

    For every axis j and every threshold between consecutive distinct values the weighted
    class sums of the left side are read off cumulative sums of the weights in the sorted
    order (no loop over thresholds); the stump minimises

        Q = (N_1 Q_1 + N_2 Q_2) / N,   with 'misclassification': sum_i w_i I{y_i != f(x_i)} / sum_i w_i.

    The sorted orders depend only on X, so boosting passes one :class:`Presorted` (``order=``)
    to every round. Ties: lowest axis, then lowest threshold.

    Attributes
    ----------
    feature_ : int
        Split axis, -1 if no split exists (all points equal): the stump is then constant.
    threshold_ : float
        x_j > threshold_ -> right leaf.
    left_class_, right_class_ : int
        Index in ``classes_`` voted by each side.
    polarity_ : int
        For two classes: +1 if the right side votes classes_[1] and the left classes_[0],
        -1 for the reverse, 0 if both sides vote the same class.
    cost_ : float
        Q of the chosen stump (weighted training error for 'misclassification').
    value_ : ndarray of shape (2, n_classes)
        Weighted class counts left and right.
    classes_ : ndarray
    """

    _parameter_constraints = {"criterion": TREE_PARAM_CONSTRAINTS["criterion"]}

    def __init__(self, criterion="misclassification"):
        self.criterion = criterion

    def fit(self, X, y, sample_weight=None, order=None):
        """Fit on weighted data; ``order`` is a :class:`Presorted` of X (or its order array)."""
        self.validate_params()
        X, y, classes, yk, w = _check_classification(X, y, sample_weight, need_two=False)
        pre = _get_presorted(order, X)
        return self._fit_encoded(X, classes, yk, w, pre)

    def _fit_encoded(self, X, classes, yk, w, pre):
        """Fit from encoded labels yk (indices into classes); no validation (boosting's hot path)."""
        K = classes.size
        chans = [np.where(yk == k, w, 0.0) for k in range(K)]
        T = np.array([c.sum() for c in chans])
        d, n = pre.order.shape
        self.classes_ = classes
        self.n_features_in_ = d
        if n > 1:
            if K == 2:  # both classes in one complex cumulative sum
                cs = np.cumsum((chans[0] + 1j * chans[1])[pre.order], axis=1)[:, :-1]
                L = [cs.real, cs.imag]
            else:
                L = [np.cumsum(c[pre.order], axis=1)[:, :-1] for c in chans]
            cost = _children_cost_channels(L, T, self.criterion)
            cost.ravel()[pre.invalid_flat] = np.inf
            flat = int(np.argmin(cost))
            best = cost.ravel()[flat]
        else:
            best = np.inf
        if np.isfinite(best):
            j, p = divmod(flat, n - 1)
            left = np.array([Lk[j, p] for Lk in L])
            self.feature_ = int(j)
            self.threshold_ = float(pre.thresholds[j, p])
            self.cost_ = float(best / T.sum())
        else:
            left = T.copy()
            self.feature_ = -1
            self.threshold_ = np.inf
            self.cost_ = float(_weighted_impurity(T, self.criterion) / T.sum())
        right = T - left
        self.value_ = np.stack([left, right])
        self.left_class_ = int(np.argmax(left))
        self.right_class_ = int(np.argmax(right)) if self.feature_ >= 0 else self.left_class_
        if K == 2 and self.left_class_ != self.right_class_:
            self.polarity_ = 1 if self.right_class_ == 1 else -1
        else:
            self.polarity_ = 0
        return self

    def _predict_index(self, X):
        if self.feature_ < 0:
            return np.full(X.shape[0], self.left_class_)
        return np.where(X[:, self.feature_] > self.threshold_, self.right_class_, self.left_class_)

    def predict(self, X) -> np.ndarray:
        self._check_fitted("feature_")
        X = check_array(X, n_features=self.n_features_in_)
        return self.classes_[self._predict_index(X)]
