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

The split arithmetic and the presorted orders are defined in :mod:`smlengine._tree_splits`,
the node arrays, snapshots and the level-wise grower in :mod:`smlengine._tree_grower`; this
module holds the estimators (:class:`DecisionTree`, :class:`DecisionStump`) and re-exports
the public names of both.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ._base import (
    BaseEstimator,
    ClassifierMixin,
    IterativeMixin,
    check_array,
    check_random_state,
    check_scalar,
    check_X_y,
    frozen_array,
)
from ._params import Integral, Interval, Options, RandomState, Real
from ._tree_grower import TreeArrays, TreeSnapshot, Grower, snapshot_tree
from ._tree_splits import (
    CRITERIA,
    Presorted,
    check_weights,
    children_cost_channels,
    get_presorted,
    resolve_max_features,
    weighted_impurity,
    best_split,
    cost_curve,
    presort,
    region_impurity,
    split_cost,
)

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
# estimators
# ----------------------------------------------------------------------------------------


def _check_classification(X, y, sample_weight, need_two=True):
    X, y = check_X_y(X, y)
    classes, yk = np.unique(y, return_inverse=True)
    if need_two and classes.size < 2:
        raise ValueError(f"a classifier needs at least two classes in y, got {classes.size} ({classes.tolist()[:3]})")
    w = check_weights(sample_weight, X.shape[0])
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
        The impurity Q_k of a region (see the module docstring).
    min_samples_leaf : int, default=1
        Smallest number of (distinct) training points a leaf may hold.
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
        The sorted class labels.
    n_features_in_ : int
        Number of input axes seen by ``fit``.
    depth_ : int
        Depth of the grown tree.
    n_leaves_ : int
        Number of leaves (regions).
    last_snapshot_ : TreeSnapshot
        The finished tree as a snapshot (set by ``fit``).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.trees import DecisionTree
    >>> X = np.array([[1.0, 1.0], [2.0, 1.0], [1.0, 3.0], [2.0, 3.0], [4.0, 1.0], [4.0, 3.0]])
    >>> y = np.array([0, 0, 1, 1, 2, 2])
    >>> tree = DecisionTree(max_depth=2).fit(X, y)
    >>> tree.depth_, tree.n_leaves_
    (2, 3)
    >>> print(tree.tree_.feature, tree.tree_.threshold)
    [ 0  1 -1 -1 -1] [ 3.  2. nan nan nan]
    >>> tree.predict([[1.5, 0.0], [1.5, 4.0], [5.0, 2.0]])
    array([0, 1, 2])

    Growing it step by step shows each split:

    >>> for s in DecisionTree(max_depth=2).fit_steps(X, y):
    ...     print(s.step, s.phase, s.node, s.axis, s.threshold, round(s.train_error, 3))
    0 root 0 None None 0.667
    1 split 0 0 3.0 0.333
    2 split 1 1 2.0 0.0
    3 done None None None 0.0
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
        return resolve_max_features(self.max_features, d)

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
        pre = get_presorted(order, X)
        for name in ("tree_", "last_snapshot_"):
            self.__dict__.pop(name, None)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        rng = check_random_state(self.random_state) if k_feat < X.shape[1] else None
        g = Grower(pre, yk, w, classes.size, self.max_depth, self.criterion, self.min_samples_leaf, k_feat, rng)
        arr = g.arr
        root_idx = frozen_array(np.flatnonzero(w > 0))
        step = 0
        d = X.shape[1]
        inf_lo = frozen_array(np.full(d, -np.inf))
        inf_hi = frozen_array(np.full(d, np.inf))
        tree0 = snapshot_tree(arr, 1)
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
                tree = snapshot_tree(arr, n_before + 2 * (i + 1), parents[i + 1 :])
                p = rec["node"]
                yield TreeSnapshot(
                    step=step, phase="split", progress=None, node=p, node_depth=int(arr["depth"][p]),
                    indices=rec["indices"], lower=frozen_array(arr["lower"][p]), upper=frozen_array(arr["upper"][p]),
                    axis=rec["axis"], threshold=rec["threshold"], cost=rec["cost"],
                    region_cost=float(arr["impurity"][p]), curve_thresholds=rec["curve_thresholds"],
                    curve_costs=rec["curve_costs"], tree=tree, n_leaves=tree.n_leaves, tree_depth=tree.max_depth,
                    train_error=tree.training_error(),
                )
        self.tree_ = snapshot_tree(arr, g.n_nodes)
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
        from scipy import sparse  # deferred: scipy.sparse is slow to import, and only decision_path needs it

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

    Parameters
    ----------
    criterion : {'misclassification', 'gini', 'entropy'}, default='misclassification'
        The impurity Q_k of each side.

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
        The sorted class labels.
    n_features_in_ : int
        Number of input axes seen by ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.trees import DecisionStump
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> stump = DecisionStump().fit(X, y, sample_weight=[0.1, 0.1, 0.1, 0.7])
    >>> stump.feature_, stump.threshold_, stump.polarity_, stump.cost_
    (0, 2.5, 1, 0.0)
    >>> print(stump.value_)
    [[0.2 0. ]
     [0.  0.8]]
    >>> stump.predict([[0.0], [5.0]])
    array([0, 1])
    """

    _parameter_constraints = {"criterion": TREE_PARAM_CONSTRAINTS["criterion"]}

    def __init__(self, criterion="misclassification"):
        self.criterion = criterion

    def fit(self, X, y, sample_weight=None, order=None):
        """Fit on weighted data; ``order`` is a :class:`Presorted` of X (or its order array)."""
        self.validate_params()
        X, y, classes, yk, w = _check_classification(X, y, sample_weight, need_two=False)
        pre = get_presorted(order, X)
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
            cost = children_cost_channels(L, T, self.criterion)
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
            self.cost_ = float(weighted_impurity(T, self.criterion) / T.sum())
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
        """The class voted by the side of the threshold every point falls on."""
        self._check_fitted("feature_")
        X = check_array(X, n_features=self.n_features_in_)
        return self.classes_[self._predict_index(X)]
