"""The HMM time loops in numpy for long sequences, vectorised over blocks of the sequence.

Why: each step of the forward, backward and Viterbi recursions needs the previous one, so a
numpy loop over the T steps pays numpy's fixed cost per call T times (seconds for 10^6
symbols). Here the sequence is cut into L blocks of S steps (S about sqrt(T)) and each
recursion runs in three passes, each a Python loop of S steps vectorised over the L blocks or
a loop of L cheap steps:

1. the transfer of every block at once: the product of its step matrices
   M_t = A diag(B(x_t)) (in the max-plus algebra for Viterbi), rescaled every step with the
   logarithm of the scale kept, so nothing underflows;
2. the value at every block boundary, block after block, from the transfers;
3. the textbook recursion inside all blocks at once, started from the boundary values.

Pass 3 is the recursion of the sequential loop, so the results equal it up to rounding in the
boundary values. The steps after the last whole block run sequentially. Any function returns
None when a block boundary has probability 0 (the sequence is impossible there): the caller's
sequential loop then finds where.
"""

from __future__ import annotations

import math

import numpy as np


def block_length(T: int) -> int:
    """S: about sqrt(T) steps per block, at least 16."""
    return max(16, int(math.isqrt(T)))


def forward(pi, A, BT, x):
    """(alpha (T, K), c (T,)) of the scaled forward pass, or None (see the module docstring).

    Block b covers t = bS..bS+S-1. Its transfer Q_b = M'_{bS} M_{bS+1} ... M_{bS+S-1}, with
    M' = A diag(B(x)) (diag(B(x_0)) for block 0, which starts from pi), kept row-normalised with
    log row scales; then alpha_{bS+S-1} ∝ sum_i alpha_{bS-1}(i) exp(scale_i) Q_b[i].
    """
    T, K = x.shape[0], pi.shape[0]
    S = block_length(T)
    L = T // S
    n = L * S
    Bx = BT[x]
    Bb = Bx[:n].reshape(L, S, K)
    Q = np.empty((L, K, K))
    Q[:] = A
    Q[0] = np.eye(K)
    Q *= Bb[:, 0, None, :]
    scales = np.zeros((L, K))
    with np.errstate(divide="ignore"):
        for s in range(S):
            if s:
                Q = (Q.reshape(L * K, K) @ A).reshape(L, K, K)  # one matrix product for all blocks
                Q *= Bb[:, s, None, :]
            r = Q.sum(axis=2)
            scales += np.log(r)
            Q /= np.where(r > 0, r, 1.0)[:, :, None]
        starts = np.empty((L, K))  # alpha_{bS-1}, the filtered state before block b (pi before block 0)
        a = pi
        for b in range(L):
            starts[b] = a
            w = np.log(a) + scales[b]
            m = w.max()
            if not np.isfinite(m):
                return None
            v = np.exp(w - m) @ Q[b]
            a = v / v.sum()
    alpha = np.empty((T, K))
    c = np.empty(T)
    ab = alpha[:n].reshape(L, S, K)
    cb = c[:n].reshape(L, S)
    for s in range(S):
        if s:
            a = ab[:, s - 1] @ A
        else:
            a = starts @ A
            a[0] = pi
        a *= Bb[:, s]
        cs = a.sum(axis=1)
        if not np.all(cs > 0):
            return None
        cb[:, s] = cs
        ab[:, s] = a / cs[:, None]
    for t in range(n, T):
        a = (alpha[t - 1] @ A) * Bx[t]
        s = a.sum()
        if not s > 0:
            return None
        c[t] = s
        alpha[t] = a / s
    return alpha, c


def backward(A, BT, x, c, alpha):
    """beta (T, K) of the scaled backward pass, or None.

    The transfer of block b is P_b = M_{bS} ... M_{bS+S-1} (columns normalised, log column
    scales kept); beta_{bS-1} ∝ P_b beta_{bS+S-1}, scaled so that alpha_{bS-1} . beta_{bS-1} = 1
    (sum_k alpha_t(k) beta_t(k) = 1 for the scaled variables).
    """
    T, K = x.shape[0], A.shape[0]
    S = block_length(T)
    L = T // S
    n = L * S
    Bx = BT[x]
    Bb = Bx[:n].reshape(L, S, K)
    beta = np.empty((T, K))
    beta[T - 1] = 1.0
    for t in range(T - 2, n - 2, -1):  # the steps after the last whole block, down to its end
        beta[t] = A @ (Bx[t + 1] * beta[t + 1]) / c[t + 1]
    # Pt = P transposed, so that P <- A diag(b) P is one matrix product for all blocks:
    # Pt <- (Pt diag(b)) A^T
    Pt = np.empty((L, K, K))
    Pt[:] = np.eye(K)
    AT = np.ascontiguousarray(A.T)
    scales = np.zeros((L, K))
    with np.errstate(divide="ignore"):
        for s in range(S - 1, -1, -1):
            Pt *= Bb[:, s, None, :]
            Pt = (Pt.reshape(L * K, K) @ AT).reshape(L, K, K)
            r = Pt.sum(axis=2)
            scales += np.log(r)
            Pt /= np.where(r > 0, r, 1.0)[:, :, None]
        ends = np.empty((L, K))  # beta at the last step of each block
        ends[L - 1] = beta[n - 1]
        for b in range(L - 1, 0, -1):
            w = np.log(ends[b]) + scales[b]
            m = w.max()
            if not np.isfinite(m):
                return None
            v = np.exp(w - m) @ Pt[b]
            norm = alpha[b * S - 1] @ v
            if not norm > 0:
                return None
            ends[b - 1] = v / norm
    bb = beta[:n].reshape(L, S, K)
    cb = c[:n].reshape(L, S)
    bb[:, S - 1] = ends
    for s in range(S - 2, -1, -1):
        bb[:, s] = (Bb[:, s + 1] * bb[:, s + 1] / cb[:, s + 1, None]) @ A.T
    return beta


def viterbi(log_pi, log_A, log_BT, x):
    """(max log P(x, z), path), or None; ties go to the lowest state index as in the loop.

    Pass 1 forms the max-plus transfers Q_b[i, k] (best log-weight from state i before block b
    to state k at its end); pass 2 the d at every block boundary; pass 3 the recursion with its
    back-pointers inside all blocks. The back-track runs in the same three passes: the
    back-pointers of a block composed into one map from its last state to its first, the states
    at the block boundaries block after block, then all blocks at once.
    """
    T, K = x.shape[0], log_pi.shape[0]
    S = block_length(T)
    L = T // S
    n = L * S
    lB = log_BT[x]
    Lb = lB[:n].reshape(L, S, K)
    Q = np.empty((L, K, K))
    Q[:] = log_A
    Q[0] = np.where(np.eye(K, dtype=bool), 0.0, -np.inf)
    Q += Lb[:, 0, None, :]
    for s in range(1, S):
        nxt = Q[:, :, 0, None] + log_A[0]
        for j in range(1, K):  # the max-plus product, one predecessor state at a time
            np.maximum(nxt, Q[:, :, j, None] + log_A[j], out=nxt)
        nxt += Lb[:, s, None, :]
        Q = nxt
    starts = np.empty((L, K))
    d = log_pi
    for b in range(L):
        starts[b] = d
        d = (d[:, None] + Q[b]).max(axis=0)
    if not np.isfinite(d.max()):
        return None
    psi = np.empty((T, K), dtype=np.int64)
    pb = psi[:n].reshape(L, S, K)
    d = starts
    rows = np.arange(L)
    for s in range(S):
        best = d[:, 0, None] + log_A[0]
        arg = np.zeros((L, K), dtype=np.int64)
        for j in range(1, K):  # strictly better only: ties keep the lowest j, as argmax does
            v = d[:, j, None] + log_A[j]
            better = v > best
            best = np.where(better, v, best)
            arg[better] = j
        d = best + Lb[:, s]
        if s == 0:
            d[0] = log_pi + Lb[0, 0]
        pb[:, s] = arg
    d = d[L - 1]
    for t in range(n, T):
        sc = d[:, None] + log_A
        arg = sc.argmax(axis=0)
        psi[t] = arg
        d = sc[arg, np.arange(K)] + lB[t]
    best = float(d.max())
    if not np.isfinite(best):
        return None
    path = np.empty(T, dtype=np.int64)
    path[T - 1] = int(d.argmax())
    for t in range(T - 1, n - 1, -1):
        path[t - 1] = psi[t, path[t]]
    F = np.broadcast_to(np.arange(K), (L, K)).copy()  # state at bS given the state at bS+S-1
    for s in range(S - 1, 0, -1):
        F = pb[rows[:, None], s, F]
    ends = np.empty(L, dtype=np.int64)
    ends[L - 1] = path[n - 1]
    for b in range(L - 1, 0, -1):
        ends[b - 1] = pb[b, 0, F[b, ends[b]]]
    zb = path[:n].reshape(L, S)
    zb[:, S - 1] = ends
    for s in range(S - 1, 0, -1):
        zb[:, s - 1] = pb[rows, s, zb[:, s]]
    return best, path
