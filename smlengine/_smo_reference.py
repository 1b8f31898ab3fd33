"""SMO in plain loops: the course's equations one line at a time, for reading.

The solver that :class:`smlengine.svm.SVM` runs (``smlengine._smo``) takes the same pair steps
with a kernel cache, shrinking and vectorised updates; a test checks that both take the same
pairs and multipliers on small problems. This one evaluates the whole Gram matrix up front
and costs O(n) Python steps per pair: use it to follow the algorithm, not to train.
"""

from __future__ import annotations

__all__ = ["smo_reference"]


def smo_reference(K, y, C, tol=1e-3, max_pairs=100_000, tau=1e-12, alpha=None):
    """Solve the SVM dual by SMO with second-order working-set selection, one pair at a time.

    Dual (labels y_t = +-1, Gram matrix K):

        max_alpha  sum_t alpha_t - 1/2 sum_st alpha_s alpha_t y_s y_t K_st
        s.t.       0 <= alpha_t <= C,   sum_t y_t alpha_t = 0.

    With F_t = y_t - sum_s alpha_s y_s K_st (minus y_t times the gradient of the negative
    dual), I_up = {t : alpha_t < C if y_t = +1, alpha_t > 0 if y_t = -1} and I_low the
    mirror set, each step

    1. stops if m - M <= tol, m = max_{I_up} F_t, M = min_{I_low} F_t (the KKT conditions);
    2. takes i = argmax_{I_up} F_t and j = argmax over t in I_low with F_t < m of
       (m - F_t)^2 / a_it, a_it = K_ii + K_tt - 2 K_it (tau where a_it <= 0);
    3. moves alpha_i += y_i t, alpha_j -= y_j t with t = (F_i - F_j) / a_ij, cut to the
       room both multipliers have before a bound (sum_t y_t alpha_t stays 0);
    4. updates F_t -= t (K_ti - K_tj) for every t.

    Parameters
    ----------
    K : array-like of shape (n, n)
    y : sequence of n labels, +1 or -1
    C, tol : float
    max_pairs : int
    tau : float
        Curvature floor (libsvm's 1e-12 for kernel values of order 1).
    alpha : sequence of n floats, optional
        Feasible multipliers to start from (default: all 0).

    Yields
    ------
    (i, j, alpha) : the pair just updated and a copy of the multipliers (a list).
    """
    n = len(y)
    y = [float(v) for v in y]
    K = [[float(v) for v in row] for row in K]
    alpha = [0.0] * n if alpha is None else [float(a) for a in alpha]
    F = [y[t] - sum(alpha[s] * y[s] * K[s][t] for s in range(n)) for t in range(n)]
    for _ in range(max_pairs):
        up = [t for t in range(n) if (alpha[t] < C if y[t] > 0 else alpha[t] > 0)]
        low = [t for t in range(n) if (alpha[t] > 0 if y[t] > 0 else alpha[t] < C)]
        if not up or not low:
            return
        i = max(up, key=lambda t: F[t])  # the first of ties
        m, M = F[i], min(F[t] for t in low)
        if m - M <= tol:
            return
        best, j = None, None
        for t in low:
            if F[t] < m:
                a = K[i][i] + K[t][t] - 2.0 * K[i][t]
                gain = (m - F[t]) ** 2 / (a if a > 0 else tau)
                if best is None or gain > best:
                    best, j = gain, t
        a = K[i][i] + K[j][j] - 2.0 * K[i][j]
        step = (m - F[j]) / (a if a > 0 else tau)
        room_i = C - alpha[i] if y[i] > 0 else alpha[i]
        room_j = alpha[j] if y[j] > 0 else C - alpha[j]
        step = min(step, room_i, room_j)
        # a multiplier that reaches its bound is set to it exactly
        alpha[i] = (C if y[i] > 0 else 0.0) if step == room_i else alpha[i] + y[i] * step
        alpha[j] = (0.0 if y[j] > 0 else C) if step == room_j else alpha[j] - y[j] * step
        for t in range(n):
            F[t] -= step * (K[t][i] - K[t][j])
        yield i, j, list(alpha)
