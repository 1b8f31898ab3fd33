"""Turning the windows a detector accepts into detections: grouping by overlap, and IoU.

A sliding-window detector accepts a face at many nearby positions and scales, and now and then
a lone window elsewhere. Viola and Jones (IJCV 2004, section 5.6) merge the accepted windows:
windows that overlap fall into one subset, each subset gives one detection whose corners are
the average of its members' corners, and the number of members is a vote -- a face collects
many, a false positive few. OpenCV's ``groupRectangles`` makes "overlap" precise and adds the
vote threshold:

* Two boxes ``a``, ``b`` (row, col, height, width) are *similar* when each of their four sides
  moves by at most delta = eps * (min(w_a, w_b) + min(h_a, h_b)) / 2.
* The groups are the classes of the equivalence relation this generates (the connected
  components of the similarity graph: chains of similar boxes join).
* A group's box is the mean of its members; its *neighbour count* n is the number of members.
  A group is kept when n > ``min_neighbors``.
* A kept group lying inside another kept group (each side within eps of the outer box's
  size) is dropped when the outer group has more than max(3, n) members, or when n < 3.

References: P. Viola and M. Jones, "Robust real-time face detection", IJCV 57(2), 2004,
section 5.6; the rule of OpenCV's ``cv::groupRectangles`` (objdetect module).
"""

from __future__ import annotations

import numbers

import numpy as np

from ._base import check_scalar

__all__ = ["box_iou", "group_rectangles", "partition_rectangles"]


def _as_boxes(rects, name: str = "rects") -> np.ndarray:
    a = np.asarray(rects, dtype=np.float64) if np.size(rects) else np.zeros((0, 4))
    if a.ndim != 2 or a.shape[1] < 4:
        raise ValueError(f"{name} must be an array (n, 4) of row, col, height, width; got shape {np.shape(rects)}")
    a = a[:, :4]
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if np.any(a[:, 2:] <= 0):
        raise ValueError(f"{name} must have heights and widths > 0")
    return a


def partition_rectangles(rects, eps: float = 0.2) -> np.ndarray:
    """Group label of each box: the classes of OpenCV's similarity relation.

    Boxes a, b are similar when |r_a - r_b|, |c_a - c_b|, |(r_a + h_a) - (r_b + h_b)| and
    |(c_a + w_a) - (c_b + w_b)| are all <= eps * (min(w_a, w_b) + min(h_a, h_b)) / 2; labels
    are the connected components of this relation, numbered in order of each group's first box.

    Parameters
    ----------
    rects : array (n, 4)
        row, col, height, width (more columns are ignored).
    eps : float, default=0.2
        Relative tolerance, 0 <= eps <= 2.

    Returns
    -------
    ndarray (n,) of int
        The group of every box, numbered in order of first appearance.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.detection import partition_rectangles
    >>> partition_rectangles(np.array([[10, 10, 24, 24], [11, 10, 24, 24], [10, 12, 24, 24], [80, 80, 24, 24]]))
    array([0, 0, 0, 1])
    """
    check_scalar("eps", eps, numbers.Real, min_value=0.0, max_value=2.0)
    boxes = _as_boxes(rects)
    n = boxes.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    # deferred: scipy.sparse.csgraph and scipy.spatial are slow to import, and only grouping needs them
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    from scipy.spatial import cKDTree

    r, c, h, w = boxes.T
    sides = np.column_stack([r, c, r + h, c + w])
    # candidate pairs within the largest tolerance any pair can have (Chebyshev distance of the
    # four sides), then each pair's own tolerance
    reach = eps * float(max(h.max(), w.max()))
    pairs = cKDTree(sides).query_pairs(reach * (1 + 1e-12), p=np.inf, output_type="ndarray")
    i, j = pairs[:, 0], pairs[:, 1]
    delta = eps * 0.5 * (np.minimum(w[i], w[j]) + np.minimum(h[i], h[j]))
    ok = np.all(np.abs(sides[i] - sides[j]) <= delta[:, None], axis=1)
    graph = coo_matrix((np.ones(int(ok.sum())), (i[ok], j[ok])), shape=(n, n))
    _, label = connected_components(graph, directed=False)
    # number the groups by their first member (connected_components already does; made explicit)
    first = np.full(label.max() + 1, n)
    np.minimum.at(first, label, np.arange(n))
    rank = np.empty_like(first)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[label].astype(np.int64)


def group_rectangles(rects, min_neighbors: int = 3, eps: float = 0.2, return_labels: bool = False):
    """Merge overlapping accepted windows into detections (Viola-Jones voting, OpenCV's rule).

    Groups are the classes of :func:`partition_rectangles`. Group g with n_g members becomes
    the box (mean row, mean col, mean height, mean width) with neighbour count n_g; it is kept
    when n_g > ``min_neighbors``, and then dropped again when it lies inside another kept group
    h (r_g >= r_h - eps h_h, c_g >= c_h - eps w_h, and the far sides likewise) with
    n_h > max(3, n_g) or n_g < 3.

    Unlike OpenCV, ``min_neighbors=0`` still merges (OpenCV then returns the windows as they are).

    Parameters
    ----------
    rects : array (n, 4)
        Accepted windows: row, col, height, width.
    min_neighbors : int, default=3
        A detection needs more than this many windows.
    eps : float, default=0.2
    return_labels : bool, default=False
        Also return each window's group and whether that group was kept.

    Returns
    -------
    detections : ndarray (k, 5)
        row, col, height, width, neighbour count; most neighbours first (ties: first group first).
    labels : ndarray (n,) of int
        Only with ``return_labels``: the group of each window.
    kept : ndarray (n_groups,) of bool
        Only with ``return_labels``: which groups became detections (``detections`` are
        ``groups[kept]`` in that order).

    Examples
    --------
    Three overlapping windows vote for one face; a lone window is dropped:

    >>> import numpy as np
    >>> from smlengine.detection import group_rectangles
    >>> boxes = np.array([[10, 10, 24, 24], [11, 10, 24, 24], [10, 12, 24, 24], [80, 80, 24, 24]])
    >>> print(np.round(group_rectangles(boxes, min_neighbors=2), 3))
    [[10.333 10.667 24.    24.     3.   ]]
    """
    check_scalar("min_neighbors", min_neighbors, numbers.Integral, min_value=0)
    boxes = _as_boxes(rects)
    labels = partition_rectangles(boxes, eps)
    if boxes.shape[0] == 0:
        out = np.zeros((0, 5))
        return (out, labels, np.zeros(0, dtype=bool)) if return_labels else out
    n_groups = int(labels.max()) + 1
    count = np.bincount(labels, minlength=n_groups).astype(np.float64)
    mean = np.stack([np.bincount(labels, weights=boxes[:, k], minlength=n_groups) for k in range(4)], axis=1)
    mean /= count[:, None]
    strong = count > min_neighbors
    R, C, H, Wd = mean.T
    dr, dc = eps * H, eps * Wd
    # inside[g, h]: group g lies inside group h (h's sides widened by eps of its size)
    inside = (
        (R[:, None] >= R[None] - dr[None])
        & (C[:, None] >= C[None] - dc[None])
        & (R[:, None] + H[:, None] <= R[None] + H[None] + dr[None])
        & (C[:, None] + Wd[:, None] <= C[None] + Wd[None] + dc[None])
    )
    np.fill_diagonal(inside, False)
    outvotes = (count[None] > np.maximum(3, count[:, None])) | (count[:, None] < 3)
    swallowed = (inside & outvotes & strong[None]).any(axis=1)
    kept = strong & ~swallowed
    idx = np.flatnonzero(kept)
    idx = idx[np.argsort(-count[idx], kind="stable")]
    out = np.column_stack([mean[idx], count[idx]])
    if return_labels:
        return out, labels, kept
    return out


def box_iou(a, b) -> np.ndarray:
    """Intersection over union of every box of ``a`` with every box of ``b`` (m, n).

    IoU(A, B) = area(A ∩ B) / (area(A) + area(B) - area(A ∩ B)); boxes are row, col, height,
    width (more columns are ignored).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.detection import box_iou
    >>> print(np.round(box_iou([[0, 0, 10, 10]], [[0, 5, 10, 10], [50, 50, 5, 5]]), 3))
    [[0.333 0.   ]]
    """
    A, B = _as_boxes(a, "a"), _as_boxes(b, "b")
    r0 = np.maximum(A[:, None, 0], B[None, :, 0])
    c0 = np.maximum(A[:, None, 1], B[None, :, 1])
    r1 = np.minimum(A[:, None, 0] + A[:, None, 2], B[None, :, 0] + B[None, :, 2])
    c1 = np.minimum(A[:, None, 1] + A[:, None, 3], B[None, :, 1] + B[None, :, 3])
    inter = np.clip(r1 - r0, 0, None) * np.clip(c1 - c0, 0, None)
    union = (A[:, 2] * A[:, 3])[:, None] + (B[:, 2] * B[:, 3])[None] - inter
    return inter / union
