"""How a classification tree is grown and stored: node arrays, snapshots and the level-wise grower.

:class:`TreeArrays` holds a (possibly partial) tree as flat node arrays in breadth-first
order, :class:`TreeSnapshot` is what :meth:`smlengine.trees.DecisionTree.fit_steps` yields
after each split, and ``Grower`` grows one tree level by level on presorted orders,
evaluating every candidate threshold of every region along every axis of a level in one pass
(see :mod:`smlengine.trees` for the method). :mod:`smlengine.trees` re-exports the public
names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._base import Snapshot, frozen_array
from ._tree_splits import children_cost_channels, midpoints, weighted_impurity


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

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.trees import DecisionTree
    >>> X = np.array([[1.0, 1.0], [2.0, 1.0], [1.0, 3.0], [2.0, 3.0], [4.0, 1.0], [4.0, 3.0]])
    >>> y = np.array([0, 0, 1, 1, 2, 2])
    >>> t = DecisionTree(max_depth=2).fit(X, y).tree_
    >>> t.node_count, t.n_leaves, t.max_depth
    (5, 3, 2)
    >>> print(t.children_left, t.children_right, t.is_leaf)
    [ 1  3 -1 -1 -1] [ 2  4 -1 -1 -1] [False False  True  True  True]
    >>> print(t.value)
    [[2. 2. 2.]
     [2. 2. 0.]
     [0. 0. 2.]
     [2. 0. 0.]
     [0. 2. 0.]]
    >>> t.apply(np.array([[1.5, 4.0]])), t.training_error()
    (array([4]), 0.0)
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
        """Number of nodes, internal and leaves."""
        return int(self.feature.shape[0])

    @property
    def is_leaf(self) -> np.ndarray:
        """Boolean mask of the leaves, shape (n_nodes,)."""
        return self.children_left < 0

    @property
    def n_leaves(self) -> int:
        """Number of leaves (regions)."""
        return int(np.count_nonzero(self.children_left < 0))

    @property
    def max_depth(self) -> int:
        """Depth of the deepest leaf (0 for a lone root)."""
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


def snapshot_tree(arrays, n_nodes, undo_parents=()):
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
        True in the final snapshot only.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.trees import DecisionTree
    >>> X = np.array([[1.0, 1.0], [2.0, 1.0], [1.0, 3.0], [2.0, 3.0], [4.0, 1.0], [4.0, 3.0]])
    >>> y = np.array([0, 0, 1, 1, 2, 2])
    >>> snaps = list(DecisionTree(max_depth=2).fit_steps(X, y))
    >>> [(s.phase, s.node, s.axis, s.threshold, s.n_leaves) for s in snaps]
    [('root', 0, None, None, 1), ('split', 0, 0, 3.0, 2), ('split', 1, 1, 2.0, 3), ('done', None, None, None, 3)]
    >>> first = snaps[1]
    >>> print(first.curve_thresholds[0], np.round(first.curve_costs[0], 3))
    [1.5 3. ] [0.5   0.333]
    >>> print(first.indices, round(first.region_cost, 3), round(first.cost, 3))
    [0 1 2 3 4 5] 0.667 0.333
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


class Grower:
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
        self.arr["impurity"][0] = weighted_impurity(root_counts, criterion) / root_counts.sum()
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
            cost = children_cost_channels(L, T, self.criterion)
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
            t_s = midpoints(vals[best_el], vnext[best_el])
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
            arr["impurity"][lid] = weighted_impurity(left_counts, self.criterion) / left_counts.sum(axis=1)
            arr["impurity"][rid] = weighted_impurity(right_counts, self.criterion) / right_counts.sum(axis=1)
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
                        curves_t.append(frozen_array(midpoints(vals[sl], vnext[sl])[okb]))
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
