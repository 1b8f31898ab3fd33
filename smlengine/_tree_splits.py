"""Split scanning for classification trees: impurities, cost curves, best splits, presorted orders.

The arithmetic behind every split of :mod:`smlengine.trees`: the impurity of weighted class
counts under the three criteria, the cost Q(R_m, t) of every threshold along one axis
(:func:`cost_curve`, :func:`split_cost`), the best axis and threshold of a region
(:func:`best_split`), and :class:`Presorted`, the design matrix sorted once along every axis
so that growing a tree or an ensemble never sorts again. :mod:`smlengine.trees` re-exports
the public names.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ._base import check_array, check_choice, check_scalar, check_X_y

CRITERIA = ("misclassification", "gini", "entropy")
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


def weighted_impurity(counts, criterion):
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


def children_cost_channels(L, T, criterion):
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
    """Impurity Q(R) of one region: 1 - max_c p_c, Gini or entropy of its (weighted) labels.

    Examples
    --------
    >>> from smlengine.trees import region_impurity
    >>> region_impurity([0, 0, 1, 1]), region_impurity([0, 0, 1, 1], criterion="entropy")
    (0.5, 1.0)
    >>> round(region_impurity([0, 0, 1], criterion="gini"), 4)
    0.4444
    """
    check_choice("criterion", criterion, CRITERIA)
    y = np.asarray(y)
    classes = np.unique(y) if classes is None else np.asarray(classes)
    w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    counts = np.array([w[y == c].sum() for c in classes])
    total = counts.sum()
    if total <= 0:
        raise ValueError("the region is empty (total weight 0)")
    return float(weighted_impurity(counts, criterion) / total)


def check_weights(sample_weight, n):
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


def midpoints(a, b):
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

    Examples
    --------
    >>> from smlengine.trees import cost_curve
    >>> thresholds, costs = cost_curve([[1.0], [2.0], [3.0], [4.0]], [0, 0, 1, 1], axis=0)
    >>> print(thresholds, costs)
    [1.5 2.5 3.5] [0.25 0.   0.25]
    """
    X, y = check_X_y(X, y)
    check_choice("criterion", criterion, CRITERIA)
    n, d = X.shape
    check_scalar("axis", axis, numbers.Integral, min_value=0, max_value=d - 1)
    w = check_weights(sample_weight, n)
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
    cost = children_cost_channels(L, T, criterion) / T.sum()
    return midpoints(v[:-1], v[1:])[ok], cost[ok]


def split_cost(X, y, axis, threshold, sample_weight=None, criterion="misclassification"):
    """Cost Q(R, t) of splitting the points (X, y) at x_axis > threshold.

    For ``'misclassification'`` this is (misclassified in R_1 + misclassified in R_2) / #R
    with each side voting for its (weighted) majority. A threshold that leaves one side empty
    costs the impurity of R itself.

    Examples
    --------
    >>> from smlengine.trees import split_cost
    >>> split_cost([[1.0], [2.0], [3.0], [4.0]], [0, 0, 1, 0], axis=0, threshold=2.5)
    0.25
    >>> split_cost([[1.0], [2.0], [3.0], [4.0]], [0, 0, 1, 1], axis=0, threshold=2.5, criterion="gini")
    0.0
    """
    X, y = check_X_y(X, y)
    check_choice("criterion", criterion, CRITERIA)
    n, d = X.shape
    check_scalar("axis", axis, numbers.Integral, min_value=0, max_value=d - 1)
    check_scalar("threshold", threshold, numbers.Real)
    w = check_weights(sample_weight, n)
    classes, yk = np.unique(y, return_inverse=True)
    right = X[:, axis] > threshold
    L = np.bincount(yk[~right], weights=w[~right], minlength=classes.size)
    R = np.bincount(yk[right], weights=w[right], minlength=classes.size)
    total = w.sum()
    return float((weighted_impurity(L, criterion) + weighted_impurity(R, criterion)) / total)


def best_split(X, y, sample_weight=None, criterion="misclassification", min_samples_leaf=1):
    """The optimal split of one region: ``(axis, threshold, cost)``; ``(None, None, inf)`` if none.

    Ties are broken towards the lowest axis, then the lowest threshold (same rule as the trees).

    Examples
    --------
    >>> from smlengine.trees import best_split
    >>> best_split([[1.0, 5.0], [2.0, 3.0], [3.0, 4.0], [4.0, 1.0]], [0, 1, 0, 1])
    (1, 3.5, 0.0)
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

    Examples
    --------
    >>> from smlengine.trees import presort
    >>> pre = presort([[3.0, 0.5], [1.0, 2.5], [2.0, 1.5]])
    >>> print(pre.order)
    [[1 2 0]
     [0 2 1]]
    >>> print(pre.values)
    [[1.  2.  3. ]
     [0.5 1.5 2.5]]
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
        self.thresholds = midpoints(self.values[:, :-1], self.values[:, 1:])


def presort(X) -> Presorted:
    """Sort X once along every axis; pass the result as ``order=`` to trees and stumps."""
    return Presorted(check_array(X))


def get_presorted(order, X):
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
    p.thresholds = midpoints(p.values[:, :-1], p.values[:, 1:])
    return p


def resolve_max_features(max_features, d):
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
