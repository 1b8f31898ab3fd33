"""SMO pair updates for the linear kernel, compiled with numba when it is installed.

Why: on the linear kernel a pair update costs O(A d) arithmetic on the A active points, a few
microseconds for libsvm, but about ten numpy calls (and their fixed cost per call) in the
vectorised solver. This module runs a run of consecutive pair updates in one compiled loop:
the same second-order working-set selection, clipping and gradient update as the numpy path
in ``smlengine.svm``, the kernel evaluated from the points (k(x_t, x_o) = <x_t, x_o>, d
products) instead of cached columns. The solver calls it between its bookkeeping events
(snapshots, shrinking, the optimality check), so iterates, snapshots and stopping rule are
those of the numpy path up to rounding.

Without numba (``linear_pairs()`` is None) the solver uses its numpy path alone.
"""

from __future__ import annotations

import numpy as np

from ._compiled import CompiledCode


def clip_pair(ai, aj, pi, pj, t, C):
    """The pair step clipped to the box: (alpha_i, alpha_j, t) after alpha_i += y_i t,
    alpha_j -= y_j t with t = min(t, room of i, room of j) (pi, pj: y > 0).

    A multiplier that reaches its bound is set to it exactly (the free / bounded sets stay
    clean); no other rounding towards a bound: a multiplier of 1e-13 is real when the kernel
    values are ~1e13 (|x| ~ 1e6, linear), and moving it without moving F would break
    F = -y (Q alpha - 1). Plain Python, so that the numpy path runs it as it is and the
    compiled path compiles the same rule; no builtin calls (it runs once per pair update).
    """
    li = C - ai if pi else ai
    lj = aj if pj else C - aj
    if li < t:
        t = li
    if lj < t:
        t = lj
    if t >= li:
        ai = C if pi else 0.0
    elif pi:
        ai += t
        if ai > C:
            ai = C
    else:
        ai -= t
        if ai < 0.0:
            ai = 0.0
    if t >= lj:
        aj = 0.0 if pj else C
    elif pj:
        aj -= t
        if aj < 0.0:
            aj = 0.0
    else:
        aj += t
        if aj > C:
            aj = C
    return ai, aj, t


_clip = None  # clip_pair compiled (set by _compile)


def linear_pairs():
    """The compiled function (see ``_compile``), or None without numba; compiled (or loaded
    from numba's cache) at the first call of a process, which is when a fit first needs it."""
    return COMPILED.get()


def loaded() -> bool:
    """Whether the compiled function is ready in this process (never loads it)."""
    return COMPILED.loaded()


def _compile(numba, cache):
    f8, i8, b1 = numba.float64, numba.int64, numba.boolean
    vec = f8[::1]
    signature = numba.types.Tuple((i8, i8, f8, i8, i8, b1))(
        f8[:, ::1], vec, vec, vec, vec, vec, f8, f8, f8, i8, f8, i8
    )

    # a module global, not a closure variable: numba's cache keys a closure by its cells, which
    # would make every process compile again
    global _clip
    _clip = numba.njit(cache=cache, nogil=True)(clip_pair)

    @numba.njit(signature, cache=cache, nogil=True)
    def linear_pairs(X, sq, y, alpha, Fup, Flow, C, tol, tau, i, m, kmax):
        """Up to ``kmax`` pair updates on the active points (arrays in the solver's order),
        each selection followed by the optimality check, the last one too.

        X (A, d) points, sq = |x_t|^2, y = +-1, alpha, Fup = F on I_up (-inf elsewhere),
        Flow = F on I_low (+inf elsewhere), i = argmax Fup with m = Fup[i]. For each update:
        j = argmax over I_low of (m - F_t) a_it^(-1/2) with a_it = |x_i - x_t|^2 (tau where
        <= 0); if m - F_j <= tol, stop before the update when also m - M <= tol (M = min
        Flow: the caller checks optimality, on all points if shrunk). Otherwise the step
        t = (m - F_j) / a_ij clipped to the box, F -= t X (x_i - x_j), the memberships of i
        and j, and the next i. Returns (updates done, i, m, i and j of the last update,
        stopped for the check).
        """
        A, d = X.shape
        inf = np.inf
        dx = np.empty(d)
        k = 0
        last_i = last_j = -1
        while True:
            # second-order selection of j: the largest (m - F_t)^2 / a_it over F_t < m,
            # compared by cross-multiplication (no square root or division per point)
            best_num = 0.0
            best_a = 1.0
            j = -1
            sqi = sq[i]
            for t in range(A):
                F = Flow[t]
                # a gain (m - F_t) a^(-1/2) <= 0 can be the largest only when all are; then
                # m - F_j <= 0 and the pair goes to the check below in any case
                if not F < m:
                    continue
                kit = 0.0
                for c in range(d):
                    kit += X[t, c] * X[i, c]
                a = -2.0 * kit + sq[t] + sqi
                if a < tau:  # a <= 0 -> tau, as the numpy path
                    a = tau
                num = (m - F) * (m - F)
                if j < 0 or num * best_a > best_num * a:
                    best_num = num
                    best_a = a
                    j = t
            if j < 0:  # no F_t < m on I_low: optimal
                return k, i, m, last_i, last_j, True
            Fj = Flow[j]
            if m - Fj <= tol:
                # optimal (m - M <= tol, M = min F on I_low) is for the caller to decide;
                # otherwise the update goes ahead with this j, as in the numpy path
                M = inf
                for t in range(A):
                    if Flow[t] < M:
                        M = Flow[t]
                if m - M <= tol:
                    return k, i, m, last_i, last_j, True
            if k >= kmax:  # (after the check: with kmax = 0 a call only checks)
                return k, i, m, last_i, last_j, False
            kij = 0.0
            for c in range(d):
                kij += X[i, c] * X[j, c]
            aij = (-2.0 * kij + sq[j]) + sqi
            if not aij > 0.0:
                aij = tau
            step = (m - Fj) / aij
            ai = alpha[i]
            aj = alpha[j]
            pi = y[i] > 0
            pj = y[j] > 0
            was_low_i = ai > 0 if pi else ai < C
            was_up_j = aj < C if pj else aj > 0
            ai, aj, step = _clip(ai, aj, pi, pj, step, C)
            alpha[i] = ai
            alpha[j] = aj
            # F <- F - step (K[:, i] - K[:, j]) = F - X (step (x_i - x_j))
            for c in range(d):
                dx[c] = step * (X[i, c] - X[j, c])
            for t in range(A):
                v = 0.0
                for c in range(d):
                    v += X[t, c] * dx[c]
                Fup[t] -= v
                Flow[t] -= v
            up, low = (ai < C, ai > 0) if pi else (ai > 0, ai < C)
            if not (up and low == was_low_i):
                Fi = Fup[i]
                Fup[i] = Fi if up else -inf
                Flow[i] = Fi if low else inf
            up, low = (aj < C, aj > 0) if pj else (aj > 0, aj < C)
            if not (low and up == was_up_j):
                Fj = Flow[j]
                Fup[j] = Fj if up else -inf
                Flow[j] = Fj if low else inf
            k += 1
            last_i = i
            last_j = j
            # next i = argmax Fup (first of ties, as numpy's argmax)
            i = 0
            m = Fup[0]
            for t in range(1, A):
                if Fup[t] > m:
                    m = Fup[t]
                    i = t

    return linear_pairs


COMPILED = CompiledCode(_compile)
