"""Learning theory: labellings against brute force (every labelling checked by a linear programme or a
bounding box), the growth formulas, shattering, the bounds and the PAC rectangle game."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.stats import binom

from smlengine import learning_theory as lt

RNG = np.random.default_rng(20260428)
DIAMOND = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, -1.0], [-1.0, 0.0]])


# ----------------------------------------------------------------------------- the reference
def _lp_separable(F: np.ndarray, pos: np.ndarray, nonneg_first: bool = False) -> bool:
    """Is there θ with s_k θ·F_k > 0 for all k (s = ±1)? Maximise the margin t under |θ| ≤ 1."""
    s = np.where(pos, 1.0, -1.0)
    n = F.shape[1]
    A = np.column_stack([-(s[:, None] * F), np.ones(len(F))])
    bounds = [(-1, 1)] * n + [(None, 1)]
    if nonneg_first:
        bounds[0] = (0, 1)
    res = linprog(np.r_[np.zeros(n), -1.0], A_ub=A, b_ub=np.zeros(len(F)), bounds=bounds, method="highs")
    return res.status == 0 and -res.fun > 1e-9


def _realisable(cls: str, P: np.ndarray, labels) -> bool:
    pos = np.asarray(labels, bool)
    if cls == "thresholds":
        return not pos.any() or not np.any(~pos & (P[:, 0] >= P[pos, 0].min()))
    if cls in ("intervals", "rectangles"):
        if not pos.any():
            return True
        lo, hi = P[pos].min(axis=0), P[pos].max(axis=0)
        return not np.any(~pos & np.all((P >= lo) & (P <= hi), axis=1))
    if cls == "half-planes":
        return _lp_separable(np.column_stack([P, np.ones(len(P))]), pos)
    # discs: −(a|x|² + w·x + b) > 0 inside, < 0 outside, a ≥ 0 (a = 0 is the limit of huge discs)
    return _lp_separable(-np.column_stack([(P ** 2).sum(axis=1), P, np.ones(len(P))]), pos, nonneg_first=True)


def _brute(cls: str, P) -> set:
    P = np.asarray(P, float).reshape(len(P), -1)
    return {lab for lab in itertools.product((0, 1), repeat=len(P)) if _realisable(cls, P, lab)}


def _points(cls, m, kind):
    d = lt.DIMENSION[cls]
    if kind == "random":
        return RNG.random((m, d))
    if kind == "grid":  # collinear triples, four points on a circle, repeated coordinates
        return RNG.integers(0, 3, size=(m, d)).astype(float)
    P = RNG.random((m, d))  # repeated points
    P[m // 2:] = P[: m - m // 2]
    return P


# ----------------------------------------------------------------------------- labellings
@pytest.mark.parametrize("cls", lt.CLASSES)
@pytest.mark.parametrize("kind", ["random", "grid", "repeated"])
def test_labellings_equal_brute_force(cls, kind):
    for m in (1, 3, 5):
        P = _points(cls, m, kind)
        assert lt.labellings(cls, P) == _brute(cls, P), (cls, kind, P.tolist())


def test_labellings_of_degenerate_sets():
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5]], float)  # cocircular corners, a centre
    line = np.column_stack([np.arange(4.0), 2 * np.arange(4.0)])  # four collinear points
    circle = np.column_stack([np.cos(np.arange(6) * np.pi / 3), np.sin(np.arange(6) * np.pi / 3)])
    for P, classes in ((square, lt.CLASSES[2:]), (line, lt.CLASSES[2:]), (circle, ("discs",)),
                       (np.zeros((3, 2)), lt.CLASSES[2:])):
        for cls in classes:
            assert lt.labellings(cls, P) == _brute(cls, P), (cls, P.tolist())
    assert lt.labellings("discs", np.zeros((0, 2))) == {()}


# ----------------------------------------------------------------------------- growth and shattering
@pytest.mark.parametrize("m", [1, 2, 5, 12, 30, 40])
def test_growth_equals_the_formulas_in_general_position(m):
    P = RNG.random((m, 2))
    assert lt.growth("thresholds", P[:, 0]) == m + 1
    assert lt.growth("intervals", P[:, 0]) == m * (m + 1) // 2 + 1
    assert lt.growth("half-planes", P) == m * m - m + 2
    for cls in lt.CLASSES:
        d = lt.DIMENSION[cls]
        g = lt.growth(cls, P[:, 0] if d == 1 else P)
        assert g <= lt.sauer_bound(m, lt.vc_dimension(cls))  # Sauer's lemma
        if m <= 12:
            assert g == len(lt.labellings(cls, P[:, :d]))


def test_rectangles_shatter_the_diamond_and_no_five_points():
    assert lt.shatters("rectangles", DIAMOND)
    assert len(lt.labellings("rectangles", DIAMOND)) == 16
    pentagon = np.column_stack([np.cos(np.arange(5) * 2 * np.pi / 5), np.sin(np.arange(5) * 2 * np.pi / 5)])
    candidates = [pentagon, np.vstack([DIAMOND, [[0.0, 0.0]]]), *RNG.random((200, 5, 2))]
    for P in candidates:  # of five points, one with no extreme coordinate is inside the others' box
        assert lt.growth("rectangles", P) < 32
        assert not lt.shatters("rectangles", P)


def test_half_planes_shatter_three_points_not_four():
    assert lt.shatters("half-planes", [[0, 0], [1, 0], [0, 1]])
    assert not lt.shatters("half-planes", [[0, 0], [1, 0], [2, 0]])  # collinear: the middle one alone
    for P in RNG.random((50, 4, 2)):
        assert len(lt.labellings("half-planes", P)) <= 14


def test_discs_shatter_three_points_not_every_labelling_of_four_in_convex_position():
    assert lt.shatters("discs", [[0, 0], [1, 0], [0.3, 0.8]])
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    found = lt.labellings("discs", square)
    assert len(found) == 14 and (1, 0, 1, 0) not in found and (0, 1, 0, 1) not in found
    for P in RNG.random((30, 4, 2)):
        hull = P[np.argsort(np.arctan2(*(P - P.mean(axis=0)).T[::-1]))]
        u, v = np.roll(hull, -1, axis=0) - hull, np.roll(hull, -2, axis=0) - np.roll(hull, -1, axis=0)
        turn = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
        if np.all(turn > 0) or np.all(turn < 0):  # convex position
            assert not lt.shatters("discs", P)


def test_vc_dimensions_and_sauer():
    assert {c: lt.vc_dimension(c) for c in lt.CLASSES} == {
        "thresholds": 1, "intervals": 2, "half-planes": 3, "rectangles": 4, "discs": 3}
    assert lt.sauer_bound(10, 3) == 1 + 10 + 45 + 120
    assert lt.sauer_bound(3, 5) == 8


def test_realise_gives_a_hypothesis_for_every_realisable_labelling_only():
    P2 = np.array([[0.1, 0.2], [0.8, 0.3], [0.5, 0.9], [0.45, 0.45], [0.3, 0.7]])
    for cls in lt.CLASSES:
        P = P2[:, :1] if lt.DIMENSION[cls] == 1 else P2
        realisable = lt.labellings(cls, P)
        for lab in itertools.product((0, 1), repeat=len(P)):
            h = lt.realise(cls, P, lab)
            assert (h is not None) == (lab in realisable), (cls, lab)
            if h is not None:
                assert tuple(_apply(cls, h, P)) == lab, (cls, lab, h)


def _apply(cls, h, P):
    x = P[:, 0]
    if cls == "thresholds":
        return (x >= h).astype(int)
    if cls == "intervals":
        return ((x >= h[0]) & (x <= h[1])).astype(int)
    if cls == "half-planes":
        return (P @ h[:2] + h[2] >= 0).astype(int)
    if cls == "rectangles":
        return ((x >= h[0]) & (x <= h[1]) & (P[:, 1] >= h[2]) & (P[:, 1] <= h[3])).astype(int)
    return (np.hypot(x - h[0], P[:, 1] - h[1]) <= h[2]).astype(int)


# ----------------------------------------------------------------------------- bounds and the PAC game
def test_bounds_equal_their_formulas():
    for eps, delta in ((0.1, 0.05), (0.01, 0.5), (0.3, 0.001)):
        assert lt.pac_rectangle_bound(eps, delta) == math.ceil(4 / eps * math.log(4 / delta))
        for size in (1, 7, 10**6):
            assert lt.finite_class_bound(size, eps, delta) == math.ceil((math.log(size) + math.log(1 / delta)) / eps)
    m, d, delta = 500, 4, 0.05
    expected = 2 / m * (math.log2(sum(math.comb(2 * m, i) for i in range(d + 1))) + math.log2(2 / delta))
    assert lt.vc_error_bound(d, m, delta) == pytest.approx(expected, rel=1e-12)
    assert lt.vc_error_bound(4, 10_000, 0.05) < lt.vc_error_bound(4, 1000, 0.05)


def test_tightest_rectangle_is_the_bounding_box_of_the_positives():
    X = RNG.random((40, 2))
    y = (RNG.random(40) < 0.4).astype(int)
    box = lt.tightest_rectangle(X, y)
    pos = X[y == 1]
    assert box == (pos[:, 0].min(), pos[:, 0].max(), pos[:, 1].min(), pos[:, 1].max())
    assert lt.tightest_rectangle(X, np.zeros(40)) is None


def test_error_is_the_area_of_the_symmetric_difference():
    target = (0.2, 0.7, 0.3, 0.8)
    U = RNG.random((400_000, 2))
    for rect in (None, (0.3, 0.6, 0.4, 0.7), (0.1, 0.5, 0.5, 0.9), (0.8, 0.9, 0.0, 0.1)):
        truth = lt._label(target, U).astype(bool)
        guess = np.zeros(len(U), bool) if rect is None else lt._label(rect, U).astype(bool)
        assert lt.rectangle_error(target, rect) == pytest.approx(np.mean(truth != guess), abs=3e-3)
    strips = lt.error_strips(target, (0.3, 0.6, 0.4, 0.7))
    assert sum((s[1] - s[0]) * (s[3] - s[2]) for s in strips) == pytest.approx(0.25 - 0.09)


def test_pac_experiment_at_the_bound_fails_at_most_delta_and_far_more_at_m_5():
    target, eps, delta, n = (0.2, 0.7, 0.3, 0.8), 0.1, 0.1, 2000
    m = lt.pac_rectangle_bound(eps, delta)
    # the number of failures is at most Binomial(n, δ): allow its 99.9 % quantile
    margin = binom.ppf(0.999, n, delta) / n
    assert lt.pac_experiment(target, eps, delta, m, n, random_state=0) <= margin
    assert lt.pac_experiment(target, eps, delta, 5, n, random_state=0) > 0.5


def test_the_steps_variant_replays_the_experiment():
    target = (0.1, 0.5, 0.2, 0.9)
    snaps = list(lt.pac_experiment_steps(target, 0.05, 0.1, 30, 25, random_state=3))
    assert [s.step for s in snaps] == list(range(26))
    assert snaps[-1].fraction_over == lt.pac_experiment(target, 0.05, 0.1, 30, 25, random_state=3)
    np.testing.assert_array_equal(snaps[-1].errors, lt.rectangle_errors(target, 30, 25, random_state=3))
    for s in snaps[1:]:
        assert s.error == pytest.approx(lt.rectangle_error(target, s.rectangle), abs=1e-12)
        assert s.rectangle == lt.tightest_rectangle(s.X, s.y)


def test_rectangle_game_grows_the_tightest_rectangle_inside_the_target():
    target = (0.2, 0.7, 0.3, 0.8)
    snaps = list(lt.rectangle_game_steps(target, 60, random_state=1))
    assert len(snaps) == 61 and snaps[0].rectangle is None and snaps[0].error == pytest.approx(0.25)
    errors = [s.error for s in snaps]
    assert all(b <= a + 1e-15 for a, b in zip(errors, errors[1:]))  # R′ only grows
    for s in snaps:
        assert s.rectangle == lt.tightest_rectangle(s.X, s.y) or (s.rectangle is None and not s.y.any())
        assert s.strip_areas.sum() == pytest.approx(s.error, abs=1e-12)
        assert s.error == pytest.approx(lt.rectangle_error(target, s.rectangle), abs=1e-12)
        if s.rectangle is not None:
            r = s.rectangle
            assert target[0] <= r[0] <= r[1] <= target[1] and target[2] <= r[2] <= r[3] <= target[3]


# ----------------------------------------------------------------------------- bad input
def test_bad_input_is_refused_with_clear_messages():
    with pytest.raises(ValueError, match="epsilon must be a float in"):
        lt.pac_rectangle_bound(0.0, 0.1)
    with pytest.raises(ValueError, match="delta must be a float in"):
        lt.finite_class_bound(10, 0.1, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        lt.pac_experiment((0.2, 0.7, 0.3, 0.8), 1.5, 0.1, 10, 10)
    with pytest.raises(ValueError, match="points for half-planes must be 2-D"):
        lt.labellings("half-planes", [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="points for intervals must be 1-D"):
        lt.growth("intervals", RNG.random((4, 2)))
    with pytest.raises(ValueError, match=r"too many for the exact labellings of rectangles \(at most 48\)"):
        lt.labellings("rectangles", RNG.random((49, 2)))
    with pytest.raises(ValueError, match="too many for the growth of discs"):
        lt.growth("discs", RNG.random((100, 2)))
    with pytest.raises(ValueError, match="cls must be one of"):
        lt.vc_dimension("squares")
    with pytest.raises(ValueError, match="NaN"):
        lt.shatters("discs", [[0.0, np.nan]])
    with pytest.raises(ValueError, match="target must lie in the unit square"):
        lt.pac_experiment((0.5, 0.2, 0.0, 1.0), 0.1, 0.1, 10, 10)
    with pytest.raises(ValueError, match="labels must be 3 zeros and ones"):
        lt.realise("discs", RNG.random((3, 2)), [0, 2, 1])
