"""Labellings and growth functions: the exact geometry of smlengine.learning_theory against the search a user
would write instead, one scipy.optimize.linprog feasibility problem per labelling (2^m of them), one process.

Methods (ours): half-planes from the lines through two points, O(m³); rectangles from the runs in y of every
vertical strip, O(m⁴); discs from the circles through three points on the paraboloid, O(m⁴); thresholds and
intervals in closed form from the sorted points, O(m log m).

Run:  .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_learning_theory.py
"""

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

from _bench_table import best_time, record
from smlengine import learning_theory as lt

pytestmark = pytest.mark.benchmark

LAB_GROWTH_M = 30  # the growth tab's largest m (app/labs/theory)
LABELLINGS_M = 40  # the issue's workload: labellings("half-planes", 40 points)


def lp_labellings(cls, P):
    """Every labelling that one LP finds feasible: max t s.t. s_k θ·F_k ≥ t, |θ| ≤ 1 (discs lifted)."""
    if cls == "half-planes":
        F, first = np.column_stack([P, np.ones(len(P))]), (-1, 1)
    else:
        F, first = -np.column_stack([(P ** 2).sum(axis=1), P, np.ones(len(P))]), (0, 1)
    n = F.shape[1]
    found = set()
    for lab in itertools.product((0, 1), repeat=len(P)):
        s = np.where(np.array(lab) == 1, 1.0, -1.0)
        res = linprog(np.r_[np.zeros(n), -1.0], A_ub=np.column_stack([-(s[:, None] * F), np.ones(len(P))]),
                      b_ub=np.zeros(len(P)), bounds=[first] + [(-1, 1)] * (n - 1) + [(None, 1)], method="highs")
        if res.status == 0 and -res.fun > 1e-9:
            found.add(lab)
    return found


@pytest.mark.parametrize("cls", ["half-planes", "discs"])
@pytest.mark.parametrize("m", [6, 8, 10])
def test_labellings_against_one_lp_per_labelling(cls, m):
    P = np.random.default_rng(m).random((m, 2))
    ours, got = best_time(lambda: lt.labellings(cls, P))
    ref, expected = best_time(lambda: lp_labellings(cls, P), repeat=1)
    assert got == expected
    record("learning_theory.labellings", f"{cls}, {m} points", ours, ref, f"2^{m} scipy linprog (HiGHS)")
    print(f"{cls:12s} m={m:3d}: ours {ours * 1e3:7.2f} ms, 2^m LPs {ref:6.2f} s, ratio {ours / ref:.4f}")


def test_the_issue_workloads_stay_under_half_a_second():
    rng = np.random.default_rng(0)
    P = rng.random((LABELLINGS_M, 2))
    seconds, found = best_time(lambda: lt.labellings("half-planes", P))
    assert len(found) == LABELLINGS_M ** 2 - LABELLINGS_M + 2
    record("learning_theory.labellings", f"half-planes, {LABELLINGS_M} points", seconds, note="limit 0.5 s")
    print(f"labellings(half-planes, {LABELLINGS_M}): {seconds * 1e3:.1f} ms")
    worst = seconds
    Q = rng.random((LAB_GROWTH_M, 2))
    for cls in lt.CLASSES:
        pts = Q[:, 0] if lt.DIMENSION[cls] == 1 else Q
        t, g = best_time(lambda: lt.growth(cls, pts))
        t_max, _ = best_time(lambda: lt.growth(cls, rng.random((lt.MAX_POINTS[cls], lt.DIMENSION[cls]))))
        record("learning_theory.growth", f"{cls}, {LAB_GROWTH_M} points", t, note=f"Π = {g}")
        record("learning_theory.growth", f"{cls}, {lt.MAX_POINTS[cls]} points (its limit)", t_max)
        print(f"growth({cls}, {LAB_GROWTH_M}) = {g}: {t * 1e3:.1f} ms; at its limit "
              f"{lt.MAX_POINTS[cls]}: {t_max * 1e3:.1f} ms")
        worst = max(worst, t, t_max)
    assert worst < 0.5, f"slowest workload {worst:.3f} s"
