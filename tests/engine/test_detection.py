"""Grouping accepted windows into detections (Viola-Jones voting, OpenCV's rule) and IoU."""

import numpy as np
import pytest

from smlengine.detection import box_iou, group_rectangles, partition_rectangles


def _similar(a, b, eps):
    delta = eps * 0.5 * (min(a[3], b[3]) + min(a[2], b[2]))
    return (abs(a[0] - b[0]) <= delta and abs(a[1] - b[1]) <= delta
            and abs(a[0] + a[2] - b[0] - b[2]) <= delta and abs(a[1] + a[3] - b[1] - b[3]) <= delta)


def _reference_groups(rects, min_neighbors, eps):
    """The rule written out pair by pair: union-find over all pairs, means, votes, the inside filter."""
    n = len(rects)
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            if _similar(rects[i], rects[j], eps):
                parent[find(i)] = find(j)
    roots = {}
    for i in range(n):
        roots.setdefault(find(i), []).append(i)
    groups = []
    for members in sorted(roots.values(), key=lambda m: m[0]):
        groups.append((np.mean([rects[i] for i in members], axis=0), len(members)))
    out = []
    for g, (box, n1) in enumerate(groups):
        if n1 <= min_neighbors:
            continue
        dropped = False
        for h, (outer, n2) in enumerate(groups):
            if h == g or n2 <= min_neighbors:
                continue
            dr, dc = eps * outer[2], eps * outer[3]
            inside = (box[0] >= outer[0] - dr and box[1] >= outer[1] - dc
                      and box[0] + box[2] <= outer[0] + outer[2] + dr and box[1] + box[3] <= outer[1] + outer[3] + dc)
            if inside and (n2 > max(3, n1) or n1 < 3):
                dropped = True
                break
        if not dropped:
            out.append([*box, n1])
    return np.array(out).reshape(-1, 5)


def _sorted(a):
    return a[np.lexsort(np.round(a, 9).T[::-1])]


def test_hand_built_groups_means_and_votes():
    rects = np.array([
        [10, 10, 20, 20], [11, 10, 20, 20], [10, 12, 21, 21],  # a face: three similar windows
        [100, 100, 20, 20],  # a lone window
        [50, 60, 30, 30], [52, 60, 30, 30],  # a pair
    ], dtype=float)
    labels = partition_rectangles(rects)
    np.testing.assert_array_equal(labels, [0, 0, 0, 1, 2, 2])
    out = group_rectangles(rects, min_neighbors=2)
    np.testing.assert_allclose(out, [[31 / 3, 32 / 3, 61 / 3, 61 / 3, 3]])
    out = group_rectangles(rects, min_neighbors=1)
    np.testing.assert_allclose(out, [[31 / 3, 32 / 3, 61 / 3, 61 / 3, 3], [51, 60, 30, 30, 2]])
    out, labels, kept = group_rectangles(rects, min_neighbors=0, return_labels=True)
    assert out.shape == (3, 5) and list(out[:, 4]) == [3, 2, 1]  # most neighbours first
    np.testing.assert_array_equal(kept, [True, True, True])
    assert group_rectangles(np.zeros((0, 4))).shape == (0, 5)


def test_similarity_threshold_is_inclusive_and_groups_chain():
    # delta = 0.2 * (10 + 10) / 2 = 2: a shift of exactly 2 joins, 2.01 does not
    a = [0, 0, 10, 10]
    assert partition_rectangles([a, [2, 0, 10, 10]]).tolist() == [0, 0]
    assert partition_rectangles([a, [2.01, 0, 10, 10]]).tolist() == [0, 1]
    # a ~ b and b ~ c but not a ~ c: one group (the relation is closed transitively)
    chain = [[0, 0, 10, 10], [2, 0, 10, 10], [4, 0, 10, 10]]
    assert not _similar(chain[0], chain[2], 0.2)
    assert partition_rectangles(chain).tolist() == [0, 0, 0]
    # the tolerance uses the smaller sides: a big and a small box at the same corner differ
    assert partition_rectangles([[0, 0, 10, 10], [0, 0, 13, 13]]).tolist() == [0, 1]
    assert partition_rectangles([[0, 0, 10, 10], [0, 0, 12, 12]]).tolist() == [0, 0]


def test_inside_rule():
    big = [[100, 100, 100, 100]] * 10  # 10 windows
    small = [[130, 130, 30, 30]] * 5  # 5 windows inside it: 10 > max(3, 5) -> dropped
    out = group_rectangles(np.array(big + small, dtype=float), min_neighbors=2)
    np.testing.assert_allclose(out, [[100, 100, 100, 100, 10]])
    # the outer group must beat max(3, n): an inner group with more windows stays
    out = group_rectangles(np.array(big[:4] + small, dtype=float), min_neighbors=2)
    assert out.shape == (2, 5) and list(out[:, 4]) == [5, 4]
    # an inner group of fewer than 3 windows goes whenever it lies inside a kept group
    out = group_rectangles(np.array(big[:3] + small[:2], dtype=float), min_neighbors=1)
    np.testing.assert_allclose(out, [[100, 100, 100, 100, 3]])
    # a group too weak to be kept does not swallow anything
    out = group_rectangles(np.array(big[:2] + small[:3], dtype=float), min_neighbors=2)
    np.testing.assert_allclose(out, [[130, 130, 30, 30, 3]])


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_the_rule_written_pair_by_pair(seed):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 300, (6, 2))
    sizes = rng.uniform(20, 80, 6)
    rects = []
    for (y, x), s in zip(centres, sizes):
        k = rng.integers(1, 12)
        side = s * rng.uniform(0.85, 1.15, k)
        rects.append(np.column_stack([y + rng.normal(0, 0.08 * s, k), x + rng.normal(0, 0.08 * s, k), side, side]))
    rects = np.concatenate(rects)
    for mn in (0, 1, 3, 5):
        for eps in (0.1, 0.2, 0.4):
            ours = group_rectangles(rects, min_neighbors=mn, eps=eps)
            ref = _reference_groups(rects, mn, eps)
            np.testing.assert_allclose(_sorted(ours), _sorted(ref), atol=1e-9)


def test_agrees_with_opencv_group_rectangles():
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(3)
    rects = []
    for y, x, s, k in [(40, 40, 60, 9), (40, 200, 40, 5), (200, 80, 90, 14), (220, 260, 30, 2), (60, 60, 24, 4)]:
        jitter = rng.integers(-2, 3, (k, 3))
        rects += [[y + a, x + b, s + c, s + c] for a, b, c in jitter]
    rects = np.array(rects, dtype=float)
    for mn in (1, 2, 3, 4):
        cv_in = [[int(c), int(r), int(w), int(h)] for r, c, h, w in rects]  # OpenCV: x, y, width, height
        cv_out, weights = cv2.groupRectangles(cv_in, mn, 0.2)
        ref = np.array([[y, x, h, w, n] for (x, y, w, h), n in zip(np.reshape(cv_out, (-1, 4)),
                                                                       np.ravel(weights))]).reshape(-1, 5)
        ours = group_rectangles(rects, min_neighbors=mn, eps=0.2)
        ours[:, :4] = np.round(ours[:, :4])  # OpenCV rounds the mean box to whole pixels
        np.testing.assert_allclose(_sorted(ours), _sorted(ref.astype(float)), atol=1)


def test_box_iou():
    a = np.array([[0, 0, 10, 10]])
    b = np.array([[0, 0, 10, 10], [5, 0, 10, 10], [0, 20, 5, 5], [2, 2, 5, 5]])
    np.testing.assert_allclose(box_iou(a, b), [[1.0, 50 / 150, 0.0, 25 / 100]])
    assert box_iou(b, a).shape == (4, 1)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: group_rectangles([[0, 0, 10, 10]], min_neighbors=-1), ValueError, "min_neighbors"),
    (lambda: group_rectangles([[0, 0, 10, 10]], min_neighbors=1.5), TypeError, "min_neighbors"),
    (lambda: partition_rectangles([[0, 0, 10, 10]], eps=-0.1), ValueError, "eps"),
    (lambda: group_rectangles([[0, 0, 10]]), ValueError, "row, col, height, width"),
    (lambda: group_rectangles([[0, 0, 0, 10]]), ValueError, "> 0"),
    (lambda: group_rectangles([[0, np.nan, 10, 10]]), ValueError, "NaN"),
    (lambda: box_iou([[0, 0, 10, 10]], [[0, 0, -1, 10]]), ValueError, "b must"),
])
def test_bad_input_raises_clear_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
