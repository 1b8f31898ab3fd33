"""The time loops of the hidden Markov model, compiled with numba when it is installed.

Why: the forward, backward and Viterbi recursions are sequential in time; vectorised over the
K states, each step is still a handful of numpy calls of a few microseconds each, so a
sequence of 10^6 symbols takes seconds in numpy against tens of milliseconds in compiled code.
The functions here run the same recursions as the numpy path in ``smlengine.hmm`` (same
order of operations per step, so the results agree to rounding), one compiled loop over time.

Without numba (``kernels()`` is None) the model uses its numpy path alone. A frozen
application leaves numba out (see ``build/smllab.spec``); the numpy path is then the rule.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ._compiled import CompiledCode


def kernels():
    """The compiled functions (a namespace: ``forward``, ``backward``, ``viterbi``),
    or None without numba; compiled (or loaded from numba's cache) at the first call of a process."""
    return COMPILED.get()


def loaded() -> bool:
    """Whether the compiled functions are ready in this process (never loads them)."""
    return COMPILED.loaded()


def forward(pi, A, BT, x, alpha, c):
    """Scaled forward pass: alpha[t] = normalised alpha_t, c[t] its normaliser.

    a_1(k) = pi_k B_k(x_1); a_t(k) = B_k(x_t) sum_j alpha[t-1](j) A_jk; c_t = sum_k a_t(k),
    alpha[t] = a_t / c_t. BT is B transposed (M, K). Returns the first t with c_t = 0
    (the sequence is impossible under the model; the pass stops there) or -1.
    """
    T = x.shape[0]
    K = pi.shape[0]
    s = 0.0
    for k in range(K):
        v = pi[k] * BT[x[0], k]
        alpha[0, k] = v
        s += v
    c[0] = s
    if not s > 0.0:
        return 0
    for k in range(K):
        alpha[0, k] /= s
    for t in range(1, T):
        xt = x[t]
        s = 0.0
        for k in range(K):
            v = 0.0
            for j in range(K):
                v += alpha[t - 1, j] * A[j, k]
            v *= BT[xt, k]
            alpha[t, k] = v
            s += v
        c[t] = s
        if not s > 0.0:
            return t
        for k in range(K):
            alpha[t, k] /= s
    return -1


def backward(A, BT, x, c, alpha, gamma, trans, want_xi):
    """Scaled backward pass fused with smoothing (and the expected transitions).

    beta_T = 1, beta_t(j) = sum_k A_jk B_k(x_{t+1}) beta_{t+1}(k) / c_{t+1}, kept for one step
    only; gamma[t] = alpha[t] * beta_t normalised; with ``want_xi``,
    trans[i, j] += sum_t alpha[t](i) A_ij B_j(x_{t+1}) beta_{t+1}(j) / c_{t+1}.
    """
    T = x.shape[0]
    K = A.shape[0]
    beta = np.ones(K)
    w = np.empty(K)
    acc = np.zeros((K, K))
    s = 0.0
    for k in range(K):
        s += alpha[T - 1, k]
    for k in range(K):
        gamma[T - 1, k] = alpha[T - 1, k] / s
    for t in range(T - 2, -1, -1):
        xn = x[t + 1]
        cn = c[t + 1]
        for k in range(K):
            w[k] = BT[xn, k] * beta[k] / cn
        if want_xi:
            for i in range(K):
                a = alpha[t, i]
                for j in range(K):
                    acc[i, j] += a * w[j]
        s = 0.0
        for j in range(K):
            v = 0.0
            for k in range(K):
                v += A[j, k] * w[k]
            beta[j] = v
            g = alpha[t, j] * v
            gamma[t, j] = g
            s += g
        for j in range(K):
            gamma[t, j] /= s
    if want_xi:
        for i in range(K):
            for j in range(K):
                trans[i, j] += acc[i, j] * A[i, j]


def viterbi(log_pi, log_A, log_BT, x, path):
    """Viterbi in log space: d_1 = log pi + log B(x_1), d_t(k) = max_j (d_{t-1}(j) + log A_jk) + log B_k(x_t),
    psi_t(k) = the first j reaching the max; back-tracked into ``path``. Returns max_k d_T(k)."""
    T = x.shape[0]
    K = log_pi.shape[0]
    psi = np.empty((T, K), dtype=np.int64)
    d = np.empty(K)
    dn = np.empty(K)
    for k in range(K):
        d[k] = log_pi[k] + log_BT[x[0], k]
    for t in range(1, T):
        xt = x[t]
        for k in range(K):
            best = d[0] + log_A[0, k]
            arg = 0
            for j in range(1, K):
                v = d[j] + log_A[j, k]
                if v > best:
                    best = v
                    arg = j
            psi[t, k] = arg
            dn[k] = best + log_BT[xt, k]
        for k in range(K):
            d[k] = dn[k]
    best = d[0]
    arg = 0
    for k in range(1, K):
        if d[k] > best:
            best = d[k]
            arg = k
    path[T - 1] = arg
    for t in range(T - 1, 0, -1):
        arg = psi[t, arg]
        path[t - 1] = arg
    return best


def _compile(numba, cache):
    f8, i8 = numba.float64, numba.int64
    mat, vec, ivec = f8[:, ::1], f8[::1], i8[::1]
    return SimpleNamespace(
        forward=numba.njit(i8(vec, mat, mat, ivec, mat, vec), cache=cache, nogil=True)(forward),
        backward=numba.njit(
            numba.void(mat, mat, ivec, vec, mat, mat, mat, numba.boolean), cache=cache, nogil=True
        )(backward),
        viterbi=numba.njit(f8(vec, mat, mat, ivec, ivec), cache=cache, nogil=True)(viterbi),
    )


COMPILED = CompiledCode(_compile)
