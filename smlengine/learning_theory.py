r"""Learning theory: the PAC rectangle game, shattering, growth functions and the bounds.

The course's method
-------------------
**PAC learning.** A learner is *probably approximately correct* when, after m ≥ m₀(ε, δ)
examples drawn from a distribution D and labelled by a target c ∈ H, it outputs h with

    P( err(h) ≤ ε ) ≥ 1 − δ,    err(h) = D( h Δ c ).

**The rectangle game.** The target is an axis-aligned rectangle R; the learner outputs the
tightest rectangle R′ around the positive examples. R′ ⊂ R, so R′ errs only in the four strips
of R around it. Each of four strips of mass ε/4 is missed by all m samples with probability
(1 − ε/4)^m, hence P(err(R′) > ε) ≤ 4 (1 − ε/4)^m ≤ 4 e^{−εm/4} ≤ δ as soon as

    m ≥ (4/ε) ln(4/δ)                                           (pac_rectangle_bound)

**Finite classes.** A consistent learner over a finite class H is PAC with

    m ≥ (1/ε) (ln|H| + ln(1/δ))                                  (finite_class_bound)

**Shattering and growth.** H shatters a set S when it realises all 2^|S| labellings of S; the
growth function Π_H(m) is the largest number of labellings H realises on m points and the VC
dimension d the largest m with Π_H(m) = 2^m: thresholds 1, intervals 2, half-planes 3,
axis-aligned rectangles 4, discs 3. Sauer's lemma bounds the growth by

    Π_H(m) ≤ Σ_{i=0}^{d} C(m, i)                                 (sauer_bound)

and half-planes realise exactly m² − m + 2 labellings of m points in general position.

**The VC bound.** The double-sampling argument gives, for a consistent learner,
P(err(h) > ε) ≤ 2 Π_H(2m) 2^{−εm/2}; setting it to δ, with probability ≥ 1 − δ

    err(h) ≤ (2/m) (log₂ Π_H(2m) + log₂(2/δ))                    (vc_error_bound)

with Π_H(2m) replaced by Sauer's bound: the error falls like (d log m)/m.

Conventions
-----------
A labelling is a tuple of 0/1, one per point; 1 means inside the hypothesis: x ≥ t for
thresholds, a ≤ x ≤ b for intervals, w·x + b ≥ 0 for half-planes, inside the closed
rectangle or the closed disc. Identical points always carry the same label.

The exact algorithms (no sampling, no 2^m search):

* thresholds and intervals: from the k distinct sorted values, the k + 1 cuts and the
  k(k + 1)/2 runs (plus the empty labelling); the growth in closed form, O(m log m);
* half-planes: every labelling is a small perturbation of a line through two points; each
  line gives its two sides and the threshold splits of the points on it, O(m³) (m ≤ 64);
* rectangles: every labelling is the set of points inside a box whose sides lie on point
  coordinates: for each vertical strip between two x-values, the runs of its points in y
  order, O(m⁴) candidate boxes (m ≤ 64);
* discs: lifted to the paraboloid z = x² + y², a disc is the part under a plane; every
  labelling is a perturbation of a circle through three points (the arcs of the points on
  it) or of a line through two points (the runs of the points on it), O(m⁴) (m ≤ 64).

Each refuses more points than it handles in about half a second (:data:`MAX_POINTS`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from numbers import Integral, Real
from typing import Iterator

import numpy as np

from ._base import Snapshot, check_random_state, frozen_array
from ._params import Interval, RandomState, validate_call

__all__ = [
    "CLASSES",
    "DIMENSION",
    "MAX_POINTS",
    "labellings",
    "shatters",
    "growth",
    "vc_dimension",
    "sauer_bound",
    "realise",
    "tightest_rectangle",
    "rectangle_error",
    "error_strips",
    "pac_rectangle_bound",
    "finite_class_bound",
    "vc_error_bound",
    "rectangle_errors",
    "pac_experiment",
    "pac_experiment_steps",
    "rectangle_game_steps",
    "RectangleGameSnapshot",
    "PACTrialSnapshot",
]

#: the hypothesis classes by name
CLASSES = ("thresholds", "intervals", "half-planes", "rectangles", "discs")
#: the dimension of the points each class labels
DIMENSION = {"thresholds": 1, "intervals": 1, "half-planes": 2, "rectangles": 2, "discs": 2}
_VC = {"thresholds": 1, "intervals": 2, "half-planes": 3, "rectangles": 4, "discs": 3}
#: the most (distinct) points each class's exact enumeration of labellings accepts: the 2-D
#: classes keep a labelling as the bits of one 64-bit word, and stay under about 0.5 s there
MAX_POINTS = {"thresholds": 64, "intervals": 64, "half-planes": 64, "rectangles": 48, "discs": 48}
#: the most points ``growth`` accepts in 1-D, where it is a closed formula of the sorted points
MAX_POINTS_1D_GROWTH = 1_000_000
#: the most trials or samples of a PAC experiment
MAX_TRIALS = 100_000
MAX_SAMPLES = 100_000

_UNIT = (0.0, 1.0, 0.0, 1.0)
_BITS = np.uint64(1) << np.arange(64, dtype=np.uint64)

_EPS_DELTA = [Interval(Real, 0, 1, closed="neither")]


# ----------------------------------------------------------------------------- input
def _check_class(cls) -> str:
    if not isinstance(cls, str):
        raise TypeError(f"cls must be a class name, one of {', '.join(CLASSES)}; got {type(cls).__name__}")
    if cls not in DIMENSION:
        raise ValueError(f"cls must be one of {', '.join(CLASSES)}; got {cls!r}")
    return cls


def _check_points(cls: str, points, limit: int | None = None) -> np.ndarray:
    """The points as an (m, d) float array in the class's dimension d (1-D may come flat)."""
    d = DIMENSION[cls]
    try:
        P = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"points must be numbers ({str(exc)[:60]})") from None
    if P.size == 0:
        return np.zeros((0, d))
    if d == 1 and P.ndim == 1:
        P = P[:, None]
    if P.ndim != 2 or P.shape[1] != d:
        shape = "(m,) or (m, 1)" if d == 1 else "(m, 2)"
        raise ValueError(f"points for {cls} must be {d}-D, of shape {shape}; got shape {P.shape}")
    if not np.all(np.isfinite(P)):
        raise ValueError("points contain NaN or infinite values")
    if limit is not None and len(P) > limit:
        raise ValueError(f"{len(P)} points are too many for the exact labellings of {cls} (at most {limit})")
    return P


def _unique(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct points and, for each point, the index of its distinct point."""
    U, inverse = np.unique(P, axis=0, return_inverse=True)
    return U, inverse.reshape(-1)


def _masks_to_labellings(masks: np.ndarray, inverse: np.ndarray) -> set[tuple[int, ...]]:
    """Bit masks over the distinct points → 0/1 tuples over the original points."""
    masks = np.unique(np.asarray(masks, dtype=np.uint64))
    bits = ((masks[:, None] >> inverse.astype(np.uint64)[None, :]) & np.uint64(1)).astype(np.uint8)
    return {tuple(int(b) for b in row) for row in bits}


def _full(k: int) -> np.uint64:
    return np.uint64((1 << k) - 1) if k < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)


def _pack(rows: np.ndarray) -> np.ndarray:
    """Boolean rows (r, k) → one uint64 mask per row (bit i = column i)."""
    return (rows.astype(np.uint64) * _BITS[: rows.shape[1]]).sum(axis=1, dtype=np.uint64)


def _runs(order_masks: np.ndarray) -> np.ndarray:
    """Masks of every contiguous run of groups, each group given as a mask, in order."""
    prefix = np.concatenate([[np.uint64(0)], np.cumsum(order_masks, dtype=np.uint64)])
    i, j = np.triu_indices(len(prefix), k=1)
    return prefix[j] - prefix[i]  # distinct bits: a difference of sums is the OR of the run


def _groups_along(t: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Masks of the points idx grouped by equal t, in increasing t (ties within 1e-12 are one group)."""
    order = np.argsort(t, kind="stable")
    t, idx = t[order], idx[order]
    scale = max(1.0, float(np.max(np.abs(t)))) if len(t) else 1.0
    starts = np.concatenate([[True], np.diff(t) > 1e-12 * scale])
    group = np.cumsum(starts) - 1
    out = np.zeros(int(group[-1]) + 1 if len(group) else 0, dtype=np.uint64)
    np.add.at(out, group, _BITS[idx])
    return out


# ----------------------------------------------------------------------------- the classes
def _one_d(cls: str, x: np.ndarray) -> np.ndarray:
    """Masks over the sorted distinct values x (bit i = i-th smallest)."""
    k = len(x)
    bits = _BITS[:k]
    if cls == "thresholds":  # 1[x ≥ t]: the top j values, j = 0..k
        suffix = np.concatenate([np.cumsum(bits[::-1], dtype=np.uint64)[::-1], [np.uint64(0)]])
        return suffix
    return np.concatenate([[np.uint64(0)], _runs(bits)])


def _on_line_tolerance(P: np.ndarray) -> float:
    span = float(np.max(np.abs(P - P.mean(axis=0)))) if len(P) else 1.0
    return 1e-10 * max(span, 1e-300) ** 2


def _half_planes(P: np.ndarray) -> np.ndarray:
    k = len(P)
    full = _full(k)
    out = [np.array([0, full], dtype=np.uint64)]
    tol = _on_line_tolerance(P)
    for i in range(k - 1):
        d = P[i + 1:] - P[i]  # directions to every later point j
        rel = P - P[i]
        cross = d[:, 0:1] * rel[None, :, 1] - d[:, 1:2] * rel[None, :, 0]  # (pairs, k)
        left = cross > tol
        on = np.abs(cross) <= tol
        n_on = on.sum(axis=1)
        simple = n_on == 2
        if simple.any():
            j = np.nonzero(simple)[0] + i + 1
            base = _pack(left[simple])
            bi, bj = _BITS[i], _BITS[j]
            out.append(np.stack([base, base | bi, base | bj, base | bi | bj]).ravel())
        for r in np.nonzero(~simple)[0]:  # three or more points on this line
            idx = np.nonzero(on[r])[0]
            groups = _groups_along(rel[idx] @ d[r], idx)
            prefix = np.concatenate([[np.uint64(0)], np.cumsum(groups, dtype=np.uint64)])
            total = prefix[-1]
            base = _pack(left[r][None, :])[0]
            out.append(base | prefix)
            out.append(base | (total - prefix))
    masks = np.concatenate(out)
    return np.concatenate([masks, full ^ masks])  # the other side of each line


def _rectangles(P: np.ndarray) -> np.ndarray:
    k = len(P)
    by_y = np.argsort(P[:, 1], kind="stable")
    ys, xs = P[by_y, 1], P[by_y, 0]
    new_group = np.concatenate([[True], np.diff(ys) > 0])
    first = np.nonzero(new_group)[0]  # where each y-group starts and ends in y order: a run of
    last = np.concatenate([first[1:], [k]]) - 1  # whole groups never splits points of equal y
    s, e = np.triu_indices(len(first))
    s, e = first[s], last[e]
    x_values = np.unique(xs)
    a, b = np.triu_indices(len(x_values))
    out = [np.zeros(1, dtype=np.uint64)]
    bits = _BITS[by_y]
    group_of = np.cumsum(new_group) - 1
    for lo in np.array_split(np.arange(len(a)), max(1, len(a) * len(s) // 400_000)):
        inside = (xs[None, :] >= x_values[a[lo], None]) & (xs[None, :] <= x_values[b[lo], None])  # (strips, k)
        cum = np.concatenate([np.zeros((len(lo), 1), np.uint64),
                              np.cumsum(np.where(inside, bits[None, :], np.uint64(0)), axis=1, dtype=np.uint64)],
                             axis=1)
        # a run is kept only when its first and last groups hold points of the strip: any other run
        # labels like a shorter one
        has = np.add.reduceat(inside, first, axis=1) > 0 if len(first) else inside
        keep = has[:, group_of[s]] & has[:, group_of[e]]
        # and only when it reaches both sides of the strip: otherwise a narrower strip gives it
        for side in (a, b):
            edge = inside & (xs[None, :] == x_values[side[lo], None])
            count = np.concatenate([np.zeros((len(lo), 1), np.int32), np.cumsum(edge, axis=1, dtype=np.int32)], axis=1)
            keep &= count[:, e + 1] > count[:, s]
        out.append((cum[:, e + 1] - cum[:, s])[keep])
    return np.concatenate(out)


def _arcs(groups: np.ndarray) -> np.ndarray:
    """Masks of every cyclic arc of groups given in cyclic order (empty and full included)."""
    g = len(groups)
    doubled = np.concatenate([groups, groups])
    prefix = np.concatenate([[np.uint64(0)], np.cumsum(doubled, dtype=np.uint64)])
    start, length = np.meshgrid(np.arange(g), np.arange(g + 1), indexing="ij")
    return (prefix[start + length] - prefix[start]).ravel()


def _discs(P: np.ndarray) -> np.ndarray:
    k = len(P)
    full = _full(k)
    out = [np.array([0, full], dtype=np.uint64)]
    centre = P.mean(axis=0)
    scale = max(float(np.max(np.abs(P - centre))), 1e-300)
    Q = (P - centre) / scale  # lifted coordinates stay of order 1
    L = np.column_stack([Q, (Q ** 2).sum(axis=1)])
    tol = 1e-10
    # lines through two points: runs of the points on the line, inside on either side
    for i in range(k - 1):
        d = Q[i + 1:] - Q[i]
        rel = Q - Q[i]
        cross = d[:, 0:1] * rel[None, :, 1] - d[:, 1:2] * rel[None, :, 0]
        on = np.abs(cross) <= tol
        for side in (cross > tol, cross < -tol):
            simple = on.sum(axis=1) == 2
            if simple.any():
                j = np.nonzero(simple)[0] + i + 1
                base = _pack(side[simple])
                bi, bj = _BITS[i], _BITS[j]
                out.append(np.stack([base, base | bi, base | bj, base | bi | bj]).ravel())
            for r in np.nonzero(~simple)[0]:
                idx = np.nonzero(on[r])[0]
                out.append(_pack(side[r][None, :])[0] | _runs(_groups_along(rel[idx] @ d[r], idx)))
    # circles through three points: inside ∪ any arc of the points on the circle
    if k >= 3:
        tri = np.array(list(combinations(range(k), 3)), dtype=np.intp)
        for chunk in np.array_split(tri, max(1, len(tri) // 4096 + 1)):
            a = L[chunk[:, 0]]
            normal = np.cross(L[chunk[:, 1]] - a, L[chunk[:, 2]] - a)
            keep = np.abs(normal[:, 2]) > tol  # a vertical plane is a line (done above)
            chunk, a, normal = chunk[keep], a[keep], normal[keep]
            normal *= np.sign(normal[:, 2])[:, None]  # z-component > 0: under the plane is inside
            value = np.einsum("tc,kc->tk", normal, L) - np.einsum("tc,tc->t", normal, a)[:, None]
            value /= np.linalg.norm(normal, axis=1)[:, None]
            inside = value < -tol
            on = np.abs(value) <= tol
            simple = on.sum(axis=1) == 3
            if simple.any():
                base = _pack(inside[simple])
                b0, b1, b2 = (_BITS[chunk[simple, c]] for c in range(3))
                out.append(np.stack([base, base | b0, base | b1, base | b2, base | b0 | b1, base | b0 | b2,
                                     base | b1 | b2, base | b0 | b1 | b2]).ravel())
            for r in np.nonzero(~simple)[0]:  # four or more points on one circle
                idx = np.nonzero(on[r])[0]
                tri_pts = Q[chunk[r]]
                c = _circumcentre(tri_pts)
                angle = np.arctan2(Q[idx, 1] - c[1], Q[idx, 0] - c[0])
                order = np.argsort(angle)
                out.append(_pack(inside[r][None, :])[0] | _arcs(_BITS[idx[order]]))
    return np.concatenate(out)


def _circumcentre(T: np.ndarray) -> np.ndarray:
    (ax, ay), (bx, by), (cx, cy) = T
    d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
    ux = ((ax * ax + ay * ay) * (by - cy) + (bx * bx + by * by) * (cy - ay) + (cx * cx + cy * cy) * (ay - by)) / d
    uy = ((ax * ax + ay * ay) * (cx - bx) + (bx * bx + by * by) * (ax - cx) + (cx * cx + cy * cy) * (bx - ax)) / d
    return np.array([ux, uy])


def _collinear(U: np.ndarray) -> bool:
    if len(U) <= 2:
        return True
    rel = U - U[0]
    d = rel[np.argmax(np.abs(rel).sum(axis=1))]
    cross = d[0] * rel[:, 1] - d[1] * rel[:, 0]
    return bool(np.all(np.abs(cross) <= _on_line_tolerance(U)))


def _masks(cls: str, U: np.ndarray) -> np.ndarray:
    """Bit masks of the labellings ``cls`` realises on the distinct points U (any order)."""
    k = len(U)
    if k == 0:
        return np.zeros(1, dtype=np.uint64)
    if DIMENSION[cls] == 1:
        order = np.argsort(U[:, 0])
        masks = _one_d(cls, U[order, 0])
        # bit i of the sorted values is bit order[i] of the points
        bits = (masks[:, None] >> np.arange(k, dtype=np.uint64)[None, :]) & np.uint64(1)
        return (bits * _BITS[order][None, :]).sum(axis=1, dtype=np.uint64)
    if cls == "rectangles":
        return _rectangles(U)
    if _collinear(U):  # every line or circle through the points is the same line: a 1-D problem
        rel = U - U[0]
        t = rel @ rel[np.argmax(np.abs(rel).sum(axis=1))]
        groups = _groups_along(t, np.arange(k))
        if cls == "half-planes":
            prefix = np.concatenate([[np.uint64(0)], np.cumsum(groups, dtype=np.uint64)])
            return np.concatenate([prefix, _full(k) - prefix])
        return np.concatenate([[np.uint64(0)], _runs(groups)])
    return _half_planes(U) if cls == "half-planes" else _discs(U)


# ----------------------------------------------------------------------------- public: shattering
def labellings(cls: str, points) -> set[tuple[int, ...]]:
    """The distinct 0/1 labellings the class realises on the points (exact).

    Parameters
    ----------
    cls : {"thresholds", "intervals", "half-planes", "rectangles", "discs"}
        The hypothesis class (1 means inside: x ≥ t, a ≤ x ≤ b, w·x + b ≥ 0, the closed
        rectangle or disc).
    points : array-like of shape (m,) or (m, 1) for the 1-D classes, (m, 2) for the others
        At most ``MAX_POINTS[cls]`` distinct points.

    Returns
    -------
    set of tuple of int
        Each labelling as a tuple of m zeros and ones.

    Examples
    --------
    >>> from smlengine.learning_theory import labellings
    >>> sorted(labellings("thresholds", [0.3, 0.1, 0.2]))
    [(0, 0, 0), (1, 0, 0), (1, 0, 1), (1, 1, 1)]
    >>> len(labellings("half-planes", [[0, 0], [1, 0], [0, 1], [1, 1]]))  # all but the two diagonals
    14
    """
    cls = _check_class(cls)
    P = _check_points(cls, points)
    U, inverse = _unique(P)
    if len(U) > MAX_POINTS[cls]:
        raise ValueError(f"{len(U)} distinct points are too many for the exact labellings of {cls} "
                         f"(at most {MAX_POINTS[cls]})")
    return _masks_to_labellings(_masks(cls, U), inverse)


def growth(cls: str, points) -> int:
    """The number of labellings the class realises on the points: Π_H(m) when they are the worst case.

    For thresholds and intervals it is the closed formula of the k distinct values, k + 1 and
    k(k + 1)/2 + 1; for the 2-D classes the size of :func:`labellings`.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.learning_theory import growth
    >>> X = np.random.default_rng(0).random((10, 2))
    >>> growth("intervals", X[:, 0]), growth("half-planes", X), 10 ** 2 - 10 + 2
    (56, 92, 92)
    """
    cls = _check_class(cls)
    if DIMENSION[cls] == 1:
        P = _check_points(cls, points, MAX_POINTS_1D_GROWTH)
        k = len(np.unique(P[:, 0]))
        return k + 1 if cls == "thresholds" else k * (k + 1) // 2 + 1
    P = _check_points(cls, points)
    U, _ = _unique(P)
    if len(U) > MAX_POINTS[cls]:
        raise ValueError(f"{len(U)} distinct points are too many for the growth of {cls} "
                         f"(at most {MAX_POINTS[cls]})")
    return int(len(np.unique(_masks(cls, U))))


def shatters(cls: str, points) -> bool:
    """Whether the class realises all 2^m labellings of the m points.

    Examples
    --------
    >>> from smlengine.learning_theory import shatters
    >>> shatters("rectangles", [[0, 1], [1, 0], [0, -1], [-1, 0]])  # the diamond
    True
    >>> shatters("half-planes", [[0, 1], [1, 0], [0, -1], [-1, 0]])
    False
    """
    cls = _check_class(cls)
    P = _check_points(cls, points)
    if len(P) > _VC[cls]:  # no set larger than the VC dimension is shattered
        return False
    return growth(cls, P) == 2 ** len(P)


def vc_dimension(cls: str) -> int:
    """The VC dimension of the class: thresholds 1, intervals 2, half-planes 3, rectangles 4, discs 3.

    Examples
    --------
    >>> from smlengine.learning_theory import vc_dimension
    >>> [vc_dimension(c) for c in ("thresholds", "intervals", "half-planes", "rectangles", "discs")]
    [1, 2, 3, 4, 3]
    """
    return _VC[_check_class(cls)]


@validate_call({"m": [Interval(Integral, 0, 10**12)], "d": [Interval(Integral, 0, 1000)]})
def sauer_bound(m: int, d: int) -> int:
    """Sauer's lemma: Π_H(m) ≤ Σ_{i=0}^{d} C(m, i) (= 2^m when m ≤ d).

    Examples
    --------
    >>> from smlengine.learning_theory import sauer_bound
    >>> sauer_bound(3, 3), sauer_bound(10, 3)
    (8, 176)
    """
    return sum(math.comb(m, i) for i in range(min(m, d) + 1))


def realise(cls: str, points, labels):
    """A hypothesis of the class that gives the points their labels, or None when none does.

    Returns ``t`` (thresholds), ``(a, b)`` (intervals), ``(w1, w2, b)`` with w·x + b ≥ 0 inside
    (half-planes), ``(x0, x1, y0, y1)`` (rectangles) or ``(cx, cy, r)`` (discs); the half-plane
    and the disc maximise their margin (a linear programme; on the paraboloid for discs).

    Examples
    --------
    >>> from smlengine.learning_theory import realise
    >>> realise("intervals", [0.0, 1.0, 2.0], [0, 1, 0])
    (0.5, 1.5)
    >>> realise("intervals", [0.0, 1.0, 2.0], [1, 0, 1]) is None
    True
    """
    cls = _check_class(cls)
    P = _check_points(cls, points)
    y = np.asarray(labels)
    if y.shape != (len(P),) or not np.all((y == 0) | (y == 1)):
        raise ValueError(f"labels must be {len(P)} zeros and ones")
    pos = y == 1
    if DIMENSION[cls] == 1:
        return _realise_1d(cls, P[:, 0], pos)
    if cls == "rectangles":
        if not pos.any():
            return _empty_box(P)
        box = tightest_rectangle(P, y)
        x0, x1, y0, y1 = box
        inside = (P[:, 0] >= x0) & (P[:, 0] <= x1) & (P[:, 1] >= y0) & (P[:, 1] <= y1)
        return box if not np.any(inside & ~pos) else None
    return _realise_lp(cls, P, pos)


def _empty_box(P: np.ndarray):
    """A rectangle outside every point (the all-zero labelling)."""
    x = float(P[:, 0].max()) + 1.0 if len(P) else 1.0
    return (x, x + 0.1, 0.0, 0.1)


def _realise_1d(cls: str, x: np.ndarray, pos: np.ndarray):
    big = float(np.max(np.abs(x))) + 1.0 if len(x) else 1.0
    if cls == "thresholds":
        lo = float(x[~pos].max()) if (~pos).any() else -big
        hi = float(x[pos].min()) if pos.any() else big
        return 0.5 * (lo + hi) if lo < hi else None
    if not pos.any():
        return (big + 1.0, big + 2.0)
    a, b = float(x[pos].min()), float(x[pos].max())
    if np.any(~pos & (x >= a) & (x <= b)):
        return None
    neg = x[~pos]
    left = neg[neg < a]
    right = neg[neg > b]
    lo = 0.5 * (a + float(left.max())) if left.size else a - 0.5
    hi = 0.5 * (b + float(right.min())) if right.size else b + 0.5
    return (lo, hi)


def _realise_lp(cls: str, P: np.ndarray, pos: np.ndarray):
    from scipy.optimize import linprog  # deferred: scipy.optimize loads in about a tenth of a second

    if len(P) == 0:
        return (0.0, 0.0, 1.0)
    centre = P.mean(axis=0)
    scale = max(float(np.max(np.abs(P - centre))), 1e-12)
    if cls == "discs" and not pos.any():  # a small disc beside the points
        return (float(centre[0] + 3 * scale), float(centre[1]), float(scale))
    Q = (P - centre) / scale
    s = np.where(pos, 1.0, -1.0)
    if cls == "half-planes":  # s (w·q + b) ≥ t, |w|, |b| ≤ 1, maximise t
        F = np.column_stack([Q, np.ones(len(Q))])
    else:  # inside: −(a |q|² + w·q + b) ≥ t, a ≥ 0
        F = -np.column_stack([(Q ** 2).sum(axis=1), Q, np.ones(len(Q))])
    n = F.shape[1]
    A = np.column_stack([-(s[:, None] * F), np.ones(len(Q))])
    bounds = [(-1, 1)] * n + [(None, 1)]
    if cls == "discs":
        bounds[0] = (0, 1)
    res = linprog(np.r_[np.zeros(n), -1.0], A_ub=A, b_ub=np.zeros(len(Q)), bounds=bounds, method="highs")
    if res.status != 0 or -res.fun <= 1e-9:
        return None
    theta, t = res.x[:n], res.x[n]
    if cls == "half-planes":
        w, b = theta[:2] / scale, theta[2] - theta[:2] @ centre / scale
        return (float(w[0]), float(w[1]), float(b))
    a, w, b = theta[0], theta[1:3], theta[3]
    a = a + 0.25 * t  # |q|² ≤ 2: adding 0.25 t |q|² changes no sign, and the disc is finite
    c = -w / (2 * a)
    r2 = float(c @ c - b / a)
    return (float(centre[0] + scale * c[0]), float(centre[1] + scale * c[1]), float(scale * math.sqrt(max(r2, 0.0))))


# ----------------------------------------------------------------------------- public: PAC
def tightest_rectangle(X, y):
    """The smallest axis-aligned rectangle around the positive examples (y = 1): ``(x0, x1, y0, y1)``.

    None when there is no positive example (the learner then says 0 everywhere).

    Examples
    --------
    >>> from smlengine.learning_theory import tightest_rectangle
    >>> tightest_rectangle([[0.2, 0.5], [0.4, 0.3], [0.9, 0.9]], [1, 1, 0])
    (0.2, 0.4, 0.3, 0.5)
    """
    X = _check_points("rectangles", X)
    y = np.asarray(y)
    if y.shape != (len(X),):
        raise ValueError(f"y must hold one label per point ({len(X)}), got shape {y.shape}")
    pos = X[y == 1]
    if len(pos) == 0:
        return None
    return (float(pos[:, 0].min()), float(pos[:, 0].max()), float(pos[:, 1].min()), float(pos[:, 1].max()))


def _check_target(target) -> tuple[float, float, float, float]:
    try:
        t = tuple(float(v) for v in target)
    except (TypeError, ValueError):
        raise TypeError("target must be a rectangle (x0, x1, y0, y1)") from None
    if len(t) != 4 or not all(math.isfinite(v) for v in t):
        raise ValueError("target must be four finite numbers (x0, x1, y0, y1)")
    x0, x1, y0, y1 = t
    if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
        raise ValueError(f"target must lie in the unit square with x0 < x1 and y0 < y1; got {t}")
    return t


def _area(r) -> float:
    return 0.0 if r is None else max(r[1] - r[0], 0.0) * max(r[3] - r[2], 0.0)


def rectangle_error(target, rectangle) -> float:
    """err(R′) under the uniform distribution on the unit square: the area of R Δ R′.

    Examples
    --------
    >>> from smlengine.learning_theory import rectangle_error
    >>> round(rectangle_error((0.2, 0.6, 0.2, 0.7), (0.3, 0.6, 0.2, 0.6)), 6)
    0.08
    """
    R = _check_target(target)
    if rectangle is None:
        return _area(R)
    Rp = tuple(float(v) for v in rectangle)
    inter = (max(R[0], Rp[0]), min(R[1], Rp[1]), max(R[2], Rp[2]), min(R[3], Rp[3]))
    return _area(R) + _area(Rp) - 2 * _area(inter)


def error_strips(target, rectangle) -> list[tuple[float, float, float, float]]:
    """The four strips of R around R′ ⊂ R (left, right, bottom, top) as rectangles: R \\ R′.

    The left and right strips span R's height; the bottom and top ones R′'s width. With no
    R′ the whole of R is the left strip.

    Examples
    --------
    >>> from smlengine.learning_theory import error_strips
    >>> error_strips((0.0, 1.0, 0.0, 1.0), (0.25, 0.5, 0.5, 1.0))
    [(0.0, 0.25, 0.0, 1.0), (0.5, 1.0, 0.0, 1.0), (0.25, 0.5, 0.0, 0.5), (0.25, 0.5, 1.0, 1.0)]
    """
    x0, x1, y0, y1 = _check_target(target)
    if rectangle is None:
        return [(x0, x1, y0, y1), (x1, x1, y0, y1), (x0, x0, y0, y0), (x0, x0, y1, y1)]
    a, b, c, d = (float(v) for v in rectangle)
    a, b, c, d = max(a, x0), min(b, x1), max(c, y0), min(d, y1)
    return [(x0, a, y0, y1), (b, x1, y0, y1), (a, b, y0, c), (a, b, d, y1)]


@validate_call({"epsilon": _EPS_DELTA, "delta": _EPS_DELTA})
def pac_rectangle_bound(epsilon: float, delta: float) -> int:
    """m₀ = ⌈(4/ε) ln(4/δ)⌉: enough samples for the tightest rectangle to be ε-good with probability 1 − δ.

    Examples
    --------
    >>> from smlengine.learning_theory import pac_rectangle_bound
    >>> pac_rectangle_bound(0.1, 0.05)
    176
    """
    return math.ceil(4.0 / epsilon * math.log(4.0 / delta))


@validate_call({"size": [Interval(Integral, 1, None)], "epsilon": _EPS_DELTA, "delta": _EPS_DELTA})
def finite_class_bound(size: int, epsilon: float, delta: float) -> int:
    """m₀ = ⌈(ln|H| + ln(1/δ)) / ε⌉ for a consistent learner over a finite class of ``size`` hypotheses.

    Examples
    --------
    >>> from smlengine.learning_theory import finite_class_bound
    >>> finite_class_bound(1000, 0.1, 0.05)
    100
    """
    return math.ceil((math.log(size) + math.log(1.0 / delta)) / epsilon)


@validate_call({"d": [Interval(Integral, 0, 1000)], "m": [Interval(Integral, 1, 10**11)], "delta": _EPS_DELTA})
def vc_error_bound(d: int, m: int, delta: float) -> float:
    """ε(m) = (2/m) (log₂ Π(2m) + log₂(2/δ)), Π(2m) ≤ Σ_{i≤d} C(2m, i): the double-sampling bound.

    With probability ≥ 1 − δ every hypothesis consistent with m examples errs at most ε(m)
    (values above 1 say nothing).

    Examples
    --------
    >>> from smlengine.learning_theory import vc_error_bound
    >>> round(vc_error_bound(4, 1000, 0.05), 4)
    0.0892
    """
    log_growth = math.log2(sauer_bound(2 * m, d))
    return 2.0 / m * (log_growth + math.log2(2.0 / delta))


def _draw(rng: np.random.Generator, shape) -> np.ndarray:
    return rng.random(shape)


def _label(target, X: np.ndarray) -> np.ndarray:
    x0, x1, y0, y1 = target
    return ((X[..., 0] >= x0) & (X[..., 0] <= x1) & (X[..., 1] >= y0) & (X[..., 1] <= y1)).astype(np.int8)


def _errors_of(target, X: np.ndarray) -> np.ndarray:
    """err(R′) of the tightest rectangle for each trial of X (trials, m, 2), vectorised."""
    inside = _label(target, X).astype(bool)
    any_pos = inside.any(axis=1)
    x, y = X[..., 0], X[..., 1]
    a = np.where(inside, x, np.inf).min(axis=1)
    b = np.where(inside, x, -np.inf).max(axis=1)
    c = np.where(inside, y, np.inf).min(axis=1)
    d = np.where(inside, y, -np.inf).max(axis=1)
    learned = np.where(any_pos, (b - a) * (d - c), 0.0)
    return _area(target) - learned  # R′ ⊂ R: the error is what R′ misses of R


_TRIAL_CONSTRAINTS = {
    "epsilon": _EPS_DELTA,
    "delta": _EPS_DELTA,
    "m": [Interval(Integral, 1, MAX_SAMPLES)],
    "n_trials": [Interval(Integral, 1, MAX_TRIALS)],
    "random_state": [RandomState(), None],
}


@validate_call({"m": [Interval(Integral, 1, MAX_SAMPLES)], "n_trials": [Interval(Integral, 1, MAX_TRIALS)],
                "random_state": [RandomState(), None]})
def rectangle_errors(target, m: int, n_trials: int, random_state=None) -> np.ndarray:
    """err(R′) of the tightest rectangle after m uniform samples, for each of ``n_trials`` trials.

    Examples
    --------
    >>> from smlengine.learning_theory import rectangle_errors
    >>> errors = rectangle_errors((0.2, 0.7, 0.3, 0.8), 200, 1000, random_state=0)
    >>> errors.shape, bool(errors.min() >= 0), bool(errors.mean() < 0.05)
    ((1000,), True, True)
    """
    target = _check_target(target)
    rng = check_random_state(random_state)
    out = np.empty(n_trials)
    block = max(1, 2_000_000 // m)  # trials per block: memory stays a few tens of MB
    for start in range(0, n_trials, block):
        n = min(block, n_trials - start)
        out[start:start + n] = _errors_of(target, _draw(rng, (n, m, 2)))
    return out


@validate_call(_TRIAL_CONSTRAINTS)
def pac_experiment(target, epsilon: float, delta: float, m: int, n_trials: int, random_state=None) -> float:
    """The fraction of trials in which the tightest rectangle after m samples errs more than ε.

    Points are uniform on the unit square and labelled by the target rectangle; the error is
    the exact area of R Δ R′. At m ≥ :func:`pac_rectangle_bound` (ε, δ) the fraction is at most
    δ up to sampling noise.

    Examples
    --------
    >>> from smlengine.learning_theory import pac_experiment, pac_rectangle_bound
    >>> m = pac_rectangle_bound(0.1, 0.1)
    >>> pac_experiment((0.2, 0.7, 0.3, 0.8), 0.1, 0.1, m, 500, random_state=0) <= 0.1
    True
    """
    return float(np.mean(rectangle_errors(target, m, n_trials, random_state) > epsilon))


@dataclass(frozen=True, kw_only=True, eq=False)
class PACTrialSnapshot(Snapshot):
    """One trial of the PAC experiment and the tally so far.

    Attributes
    ----------
    trial : int
        Trials done (0 before the first).
    X : ndarray of shape (m, 2)
        The trial's samples (empty at step 0); ``y`` their labels.
    rectangle : tuple or None
        The tightest rectangle R′ of the trial.
    error : float or None
        Its error, the area of R Δ R′.
    errors : ndarray of shape (trial,)
        Every error so far.
    fraction_over : float or None
        The fraction of trials whose error exceeds ε (None before the first trial).

    Examples
    --------
    >>> from smlengine.learning_theory import pac_experiment_steps
    >>> last = list(pac_experiment_steps((0.2, 0.7, 0.3, 0.8), 0.1, 0.1, 20, 3, random_state=0))[-1]
    >>> last.trial, len(last.errors)
    (3, 3)
    """

    trial: int
    epsilon: float
    delta: float
    m: int
    X: np.ndarray
    y: np.ndarray
    rectangle: tuple | None
    error: float | None
    errors: np.ndarray
    fraction_over: float | None


@validate_call(_TRIAL_CONSTRAINTS)
def pac_experiment_steps(target, epsilon: float, delta: float, m: int, n_trials: int,
                         random_state=None) -> Iterator[PACTrialSnapshot]:
    """:func:`pac_experiment` trial by trial: one snapshot per trial (step 0 before the first).

    The same seed draws the same samples as :func:`pac_experiment`, so the last fraction equals it.

    Yields
    ------
    PACTrialSnapshot
    """
    target = _check_target(target)
    rng = check_random_state(random_state)
    errors = np.empty(n_trials)
    empty = frozen_array(np.zeros((0, 2)))
    yield PACTrialSnapshot(step=0, trial=0, epsilon=epsilon, delta=delta, m=m, X=empty,
                           y=frozen_array(np.zeros(0, np.int8)), rectangle=None, error=None,
                           errors=frozen_array(errors[:0]), fraction_over=None)
    for t in range(n_trials):
        X = _draw(rng, (m, 2))
        y = _label(target, X)
        errors[t] = _errors_of(target, X[None])[0]
        yield PACTrialSnapshot(step=t + 1, trial=t + 1, epsilon=epsilon, delta=delta, m=m, X=frozen_array(X),
                               y=frozen_array(y), rectangle=tightest_rectangle(X, y), error=float(errors[t]),
                               errors=frozen_array(errors[:t + 1]),
                               fraction_over=float(np.mean(errors[:t + 1] > epsilon)))


@dataclass(frozen=True, kw_only=True, eq=False)
class RectangleGameSnapshot(Snapshot):
    """The rectangle game after ``m`` samples.

    Attributes
    ----------
    m : int
        Samples drawn so far.
    target : tuple
        The hidden rectangle R = (x0, x1, y0, y1).
    X : ndarray of shape (m, 2)
        The samples; ``y`` their labels (1 inside R).
    rectangle : tuple or None
        The tightest rectangle R′ around the positives (None before the first one).
    strips : list of tuple
        R \\ R′ as four rectangles: left, right, bottom, top.
    strip_areas : ndarray of shape (4,)
        Their areas, summing to ``error``.
    error : float
        err(R′), the area of R Δ R′ (the unit square is the distribution).

    Examples
    --------
    >>> from smlengine.learning_theory import rectangle_game_steps
    >>> last = list(rectangle_game_steps((0.2, 0.7, 0.3, 0.8), 50, random_state=0))[-1]
    >>> last.m, bool(abs(last.strip_areas.sum() - last.error) < 1e-12)
    (50, True)
    """

    m: int
    target: tuple
    X: np.ndarray
    y: np.ndarray
    rectangle: tuple | None
    strips: list
    strip_areas: np.ndarray
    error: float


@validate_call({"m": [Interval(Integral, 0, MAX_SAMPLES)], "random_state": [RandomState(), None]})
def rectangle_game_steps(target, m: int, random_state=None) -> Iterator[RectangleGameSnapshot]:
    """The rectangle game: one uniform sample per step, labelled by R, and the tightest R′ so far.

    Step 0 has no sample. R′ ⊂ R, so err(R′) = area(R) − area(R′) = the sum of the four strips.

    Yields
    ------
    RectangleGameSnapshot
    """
    target = _check_target(target)
    rng = check_random_state(random_state)
    X = _draw(rng, (m, 2))
    y = _label(target, X)
    rect = None
    for n in range(m + 1):
        if n and y[n - 1]:
            x, yy = X[n - 1]
            rect = (x, x, yy, yy) if rect is None else (min(rect[0], x), max(rect[1], x),
                                                         min(rect[2], yy), max(rect[3], yy))
            rect = tuple(float(v) for v in rect)
        strips = error_strips(target, rect)
        areas = np.array([_area(s) for s in strips])
        yield RectangleGameSnapshot(step=n, m=n, target=target, X=frozen_array(X[:n]), y=frozen_array(y[:n]),
                                    rectangle=rect, strips=strips, strip_areas=frozen_array(areas),
                                    error=float(areas.sum()))

