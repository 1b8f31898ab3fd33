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

Layout: the arrays of the passes are ordered (step within the block, state, block), so that
every numpy call of a step works on contiguous rows of L numbers (the blocks) and sums over
states are sums of rows; a layout with the K states last would make each call loop over
rows of K = 2..16 numbers, several times slower. The forward and the backward recursions
share one transfer: the product A diag(B(x_bS)) ... A diag(B(x_bS+S-1)) carries alpha
forward through block b and beta backward through it, so forward-backward forms it once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def block_length(T: int) -> int:
    """S: about sqrt(T) steps per block, at least 16."""
    return max(16, int(math.isqrt(T)))


def _by_block(T: int):
    S = block_length(T)
    L = T // S
    return S, L, L * S


def _steps_of_blocks(x, n, L, S):
    """x[bS + s] at [s, b]: the symbols of step s of every block, one contiguous row."""
    return np.ascontiguousarray(x[:n].reshape(L, S).T)


def _column(table, symbols, out):
    """table[k, symbols[b]] at out[k, b]: the emissions of one step of every block.

    Read at every step from the small (K, M) table rather than gathered for all steps at once:
    an (S, K, L) array of them is as large as the sequence's alpha and is read again from
    memory by every pass, while one step's (K, L) stays in the cache.
    """
    return np.take(table, symbols, axis=1, out=out)


def _to_time_order(blocks, out, n):
    """Write (S, K, L) values, [s, k, b] for time bS + s, into the first n rows of out (T, K)."""
    S, K, L = blocks.shape
    out[:n].reshape(L, S, K)[...] = blocks.transpose(2, 0, 1)


#: steps of a block over which a first, rough run forgets its guessed start (a fraction of S)
_FORGET = 2
#: largest sum_k |alpha_new(k) - alpha_used(k)| (and sum_k alpha(k) |beta_new(k) - beta_used(k)|)
#: at a block boundary that counts as equal: rounding, where a wrong start differs by far more
_EQUAL_TOL = 1e-13


@dataclass(frozen=True)
class Forward:
    """The forward pass over blocks, in the blocks' layout, for the backward pass.

    ``xs[s, b]`` = x_{bS+s}, ``B`` the (K, M) emission matrix; ``alpha[s, k, b]`` and
    ``c[s, b]`` the scaled forward variables of time bS + s, ``tail_alpha`` and ``tail_c``
    those of the steps after the last whole block.
    """

    S: int
    xs: np.ndarray
    B: np.ndarray
    alpha: np.ndarray
    c: np.ndarray
    tail_alpha: np.ndarray
    tail_c: np.ndarray

    def scales(self) -> np.ndarray:
        """c (T,) in time order."""
        return np.concatenate([self.c.T.ravel(), self.tail_c])

    def filtered(self) -> np.ndarray:
        """alpha (T, K) in time order."""
        S, K, L = self.alpha.shape
        out = np.empty((S * L + self.tail_alpha.shape[0], K))
        _to_time_order(self.alpha, out, S * L)
        out[S * L:] = self.tail_alpha
        return out


def _transfers(A, B, xs):
    """(Q (L, K, K), log scales (L, K)) of every block at once (module docstring, pass 1):
    the product A diag(B(x_bS)) ... A diag(B(x_bS+S-1)) is diag(exp(log_scale[b])) Q[b] with the
    rows of Q[b] normalised (block 0 starts from pi: its product lacks the first A)."""
    S, L = xs.shape
    K = A.shape[0]
    AT = np.ascontiguousarray(A.T)
    e = _column(B, xs[0], np.empty((K, L)))
    Q = A[:, :, None] * e[None, :, :]  # Q[i, k, b]: from state i before block b to k at step s
    Q[:, :, 0] = np.diag(e[:, 0])
    nxt = np.empty_like(Q)
    r = np.empty((K, L))
    log_scale = np.zeros((K, L))
    with np.errstate(divide="ignore", invalid="ignore"):
        for s in range(S):
            if s:
                np.matmul(AT, Q, out=nxt)  # nxt[i] = Aᵀ Q[i]: one product per starting state
                nxt *= _column(B, xs[s], e)[None]
                Q, nxt = nxt, Q
            np.add.reduce(Q, axis=1, out=r)
            log_scale += np.log(r)
            r[r == 0] = 1.0  # a row of zeros stays zero (its log scale is -inf)
            Q /= r[:, None, :]
    return np.ascontiguousarray(Q.transpose(2, 0, 1)), np.ascontiguousarray(log_scale.T)


def _forward_run(pi, AT, B, xs, starts, first=0, ab=None, cb=None):
    """a_t = (alpha_{t-1} A) * B(x_t), c_t = sum_k a_t(k), alpha_t = a_t / c_t over the steps
    ``first``..S-1 of every block at once, from alpha = ``starts[:, b]`` before them (block 0
    starts from pi at step 0); stored in ``ab``, ``cb`` when given. Returns the last alpha (K, L)."""
    S, L = xs.shape
    K = AT.shape[0]
    e = np.empty((K, L))
    work = [np.empty((K, L)), np.empty((K, L))]
    c = np.empty(L)
    a = starts
    with np.errstate(divide="ignore", invalid="ignore"):
        for s in range(first, S):
            out = work[s % 2] if ab is None else ab[s]
            np.matmul(AT, a, out=out)
            if s == 0:
                out[:, 0] = pi
            out *= _column(B, xs[s], e)
            cs = c if cb is None else cb[s]
            np.add.reduce(out, axis=0, out=cs)
            out /= cs
            a = out
    return a


def _boundaries_by_transfers(pi, A, B, xs):
    """alpha before every block (K, L) from the transfers (passes 1 and 2), or None."""
    S, L = xs.shape
    Q, log_scale = _transfers(A, B, xs)
    starts = np.empty((pi.shape[0], L))  # alpha_{bS-1}, the filtered state before block b (pi before block 0)
    a = pi
    with np.errstate(divide="ignore"):
        for b in range(L):
            starts[:, b] = a
            w = np.log(a) + log_scale[b]
            m = w.max()
            if not np.isfinite(m):
                return None
            v = np.exp(w - m) @ Q[b]
            a = v / v.sum()
    return starts


def forward(pi, A, BT, x):
    """The scaled forward pass as a :class:`Forward`, or None (module docstring).

    The filter forgets where it started (for most chains): a rough run over the second half of
    every block from the uniform distribution gives each block's end, a full run of the
    recursion from those ends is exact when every block's end in it equals the end it was
    started from (checked, up to rounding); else one more run from the new ends, and if that
    does not settle either, the boundaries come from the blocks' transfers (passes 1 and 2).
    """
    T, K = x.shape[0], pi.shape[0]
    S, L, n = _by_block(T)
    B = np.ascontiguousarray(BT.T)
    xs = _steps_of_blocks(x, n, L, S)
    AT = np.ascontiguousarray(A.T)
    ab = np.empty((S, K, L))  # alpha_{bS+s}(k) at [s, k, b]
    cb = np.empty((S, L))
    used = np.full((K, L), 1.0 / K)
    ends = _forward_run(pi, AT, B, xs, used, S - S // _FORGET)
    settled = False
    for _ in range(2):
        used = np.empty((K, L))
        used[:, 1:] = ends[:, :-1]
        used[:, 0] = pi
        ends = _forward_run(pi, AT, B, xs, used, 0, ab, cb)
        with np.errstate(invalid="ignore"):
            settled = bool(np.all(np.abs(ends[:, :-1] - used[:, 1:]).sum(axis=0) <= _EQUAL_TOL))
        if settled:
            break
    if not settled:
        used = _boundaries_by_transfers(pi, A, B, xs)
        if used is None:
            return None
        _forward_run(pi, AT, B, xs, used, 0, ab, cb)
    if not np.all(cb > 0):  # a zero (or NaN after one) anywhere: the caller's loop finds where
        return None
    tail_alpha = np.empty((T - n, K))
    tail_c = np.empty(T - n)
    a = ab[S - 1][:, L - 1]
    for t in range(n, T):
        a = (a @ A) * BT[x[t]]
        s = a.sum()
        if not s > 0:
            return None
        tail_c[t - n] = s
        a = a / s
        tail_alpha[t - n] = a
    return Forward(S, xs, B, ab, cb, tail_alpha, tail_c)


def _backward_run(A, fwd, ends, bb, last=0):
    """beta_t = A (B(x_{t+1}) * beta_{t+1}) / c_{t+1} inside every block at once, from
    beta = ``ends[:, b]`` at the block's last step, down to step ``last``; stored in ``bb`` when
    given. Returns beta before every block, at bS - 1 (K, L) (column 0 is meaningless)."""
    S, L = fwd.xs.shape
    K = A.shape[0]
    e = np.empty((K, L))
    work = [np.empty((K, L)), np.empty((K, L))]
    v = ends
    if bb is not None:
        bb[S - 1] = ends
    for s in range(S - 2, last - 2, -1):  # s = -1: the step before the block
        _column(fwd.B, fwd.xs[s + 1], e)
        e *= v
        e /= fwd.c[s + 1]
        out = bb[s] if bb is not None and s >= 0 else work[s % 2]
        np.matmul(A, e, out=out)
        v = out
    return v


def _backward_blocks(fwd: Forward, A, BT, x):
    """(beta in the blocks' layout (S, K, L), beta of the tail (T - n, K)), or None.

    As in :func:`forward`: a rough run over the first half of every block from beta = 1 gives
    beta at the end of the block before, scaled so that alpha . beta = 1 there (sum_k
    alpha_t(k) beta_t(k) = 1 for the scaled variables); the full run from those values is exact
    when each block's own run continued to the step before it lands on the value its
    neighbour started from (checked); else one more run, else the transfers.
    """
    S, K, L = fwd.alpha.shape
    n = S * L
    T = x.shape[0]
    tail = np.empty((T - n + 1, K))  # beta_{n-1}, ..., beta_{T-1}
    tail[-1] = 1.0
    for t in range(T - 2, n - 2, -1):  # the steps after the last whole block, down to its end
        tail[t - n + 1] = A @ (BT[x[t + 1]] * tail[t - n + 2]) / fwd.tail_c[t + 1 - n]
    last_alpha = fwd.alpha[S - 1]  # alpha at the end of each block

    def scaled(before):  # beta before block b+1 as the end of block b, alpha . beta = 1
        ends = np.empty((K, L))
        ends[:, :-1] = before[:, 1:]
        with np.errstate(divide="ignore", invalid="ignore"):
            ends[:, :-1] /= np.add.reduce(ends[:, :-1] * last_alpha[:, :-1], axis=0)
        ends[:, L - 1] = tail[0]
        return ends

    bb = np.empty((S, K, L))  # beta_{bS+s}(k) at [s, k, b]
    rough = np.empty((K, L))
    rough[...] = 1.0
    # the first S // _FORGET steps of every block, from beta = 1 at the last of them
    sub = Forward(S // _FORGET, fwd.xs[:S // _FORGET], fwd.B, fwd.alpha, fwd.c[:S // _FORGET],
                  fwd.tail_alpha, fwd.tail_c)
    ends = scaled(_backward_run(A, sub, rough, None))
    settled = False
    for _ in range(2):
        before = _backward_run(A, fwd, ends, bb)
        with np.errstate(invalid="ignore"):
            gap = (last_alpha[:, :-1] * np.abs(before[:, 1:] - ends[:, :-1])).sum(axis=0)
            settled = bool(np.all(gap <= _EQUAL_TOL))
        if settled:
            break
        ends = scaled(before)
    if not settled:
        Q, log_scale = _transfers(A, fwd.B, fwd.xs)
        ends = np.empty((K, L))  # beta at the last step of each block
        ends[:, L - 1] = tail[0]
        with np.errstate(divide="ignore"):
            for b in range(L - 1, 0, -1):
                w = np.log(Q[b] @ ends[:, b]) + log_scale[b]
                m = w.max()
                if not np.isfinite(m):
                    return None
                v = np.exp(w - m)
                norm = last_alpha[:, b - 1] @ v
                if not norm > 0:
                    return None
                ends[:, b - 1] = v / norm
        _backward_run(A, fwd, ends, bb)
    return bb, tail[1:]


def backward(fwd: Forward, A, BT, x):
    """beta (T, K) of the scaled backward pass in time order, or None."""
    done = _backward_blocks(fwd, A, BT, x)
    if done is None:
        return None
    bb, tail = done
    S, K, L = bb.shape
    beta = np.empty((S * L + tail.shape[0], K))
    _to_time_order(bb, beta, S * L)
    beta[S * L:] = tail
    return beta


def smooth(fwd: Forward, A, BT, x):
    """gamma_t = alpha_t * beta_t / sum_k alpha_t(k) beta_t(k), (T, K) in time order, or None;
    formed in the blocks' layout, so that only gamma is put in time order."""
    done = _backward_blocks(fwd, A, BT, x)
    if done is None:
        return None
    bb, tail = done
    S, K, L = bb.shape
    bb *= fwd.alpha
    bb /= np.add.reduce(bb, axis=1)[:, None, :]
    gamma = np.empty((S * L + tail.shape[0], K))
    _to_time_order(bb, gamma, S * L)
    if tail.shape[0]:
        g = tail * fwd.tail_alpha
        gamma[S * L:] = g / g.sum(axis=1, keepdims=True)
    return gamma


#: largest spread, relative to the values' size, of d_end(two starts) - d_end(other start) over the
#: states that still counts as a constant (rounding of S additions; a real difference is far larger)
_MERGED_TOL = 1e-12


def _viterbi_boundaries(log_pi, LA, log_B, xs):
    """d at the start of every block (K, L), by the max-plus transfers (module docstring, passes
    1 and 2), or None when the sequence is impossible."""
    S, L = xs.shape
    K = LA.shape[0]
    lb = _column(log_B, xs[0], np.empty((K, L)))
    Q = LA + lb[None, :, :]  # Q[i, k, b]: the best log-weight from state i before block b to k at step s
    Q[:, :, 0] = np.where(np.eye(K, dtype=bool), 0.0, -np.inf) + lb[None, :, 0]
    nxt = np.empty_like(Q)
    tmp = np.empty_like(Q)
    for s in range(1, S):
        np.add(Q[:, 0, None, :], LA[0][None], out=nxt)
        for j in range(1, K):  # the max-plus product, one predecessor state at a time
            np.add(Q[:, j, None, :], LA[j][None], out=tmp)
            np.maximum(nxt, tmp, out=nxt)
        nxt += _column(log_B, xs[s], lb)[None]
        Q, nxt = nxt, Q
    QL = np.ascontiguousarray(Q.transpose(2, 0, 1))
    starts = np.empty((K, L))
    d = log_pi
    for b in range(L):
        starts[:, b] = d
        d = (d[:, None] + QL[b]).max(axis=0)
    if not np.isfinite(d.max()):
        return None
    return starts


def _viterbi_blocks(log_pi, LA, log_B, xs, starts, pb=None, first=0):
    """The recursion d_t(k) = max_j [d_{t-1}(j) + log A_jk] + log B_k(x_t) over the steps
    ``first``..S-1 of every block at once from d = ``starts[:, b]`` before them (block 0 starts
    from pi at step 0); the back-pointers
    psi[bS + s, k] go to pb[s, k, b] when pb is given. Returns d at the blocks' ends (K, L)."""
    S, L = xs.shape
    K = LA.shape[0]
    lb = np.empty((K, L))
    d = starts.copy()
    dn = np.empty((K, L))
    cand = np.empty((K, K, L))  # cand[j, k, b] = d(j) + log A[j, k]
    if pb is not None:
        # psi = the lowest j reaching the maximum (as argmax takes) = K - 1 - max_j [(K - 1 - j) if
        # cand[j] is the maximum else 0]: three calls on small integers instead of a loop over j
        rank = np.ascontiguousarray(np.broadcast_to(np.arange(K - 1, -1, -1, dtype=pb.dtype)[:, None, None],
                                                    (K, K, L)))
        hit = np.empty((K, K, L), dtype=bool)
        ranked = np.empty((K, K, L), dtype=pb.dtype)
        top = np.empty((K, L), dtype=pb.dtype)
    for s in range(first, S):
        np.add(d[:, None, :], LA, out=cand)
        np.maximum.reduce(cand, axis=0, out=dn)
        if pb is not None:
            np.equal(cand, dn[None], out=hit)
            np.multiply(hit.view(pb.dtype) if pb.itemsize == 1 else hit, rank, out=ranked)
            np.maximum.reduce(ranked, axis=0, out=top)
            np.subtract(pb.dtype.type(K - 1), top, out=pb[s])
        dn += _column(log_B, xs[s], lb)
        if s == 0:
            dn[:, 0] = log_pi + lb[:, 0]
        d, dn = dn, d
    return d


def viterbi(log_pi, log_A, log_BT, x):
    """(max log P(x, z), path), or None; ties go to the lowest state index as in the loop.

    The d at the block boundaries: the recursion forgets where it started, up to a constant
    (the best paths from all states before a block merge within it, for most chains), so a first
    run over the second half of every block from d = 0 gives each block's end up to a constant,
    and a second run
    from those ends, the recursion itself with its back-pointers, is exact up to one constant
    per block. That holds when every block's end in the second run differs from the first by
    the same number in all states (checked); the constants add up to log P. Otherwise the
    boundaries come from the max-plus transfers of the blocks (passes 1 and 2 of the module
    docstring) and the second run starts from them. The back-track runs in three passes: the
    back-pointers of a block composed into one map from its last state to its first, the states
    at the block boundaries block after block, then all blocks at once.
    """
    T, K = x.shape[0], log_pi.shape[0]
    S, L, n = _by_block(T)
    log_B = np.ascontiguousarray(log_BT.T)
    xs = _steps_of_blocks(x, n, L, S)
    # log A[j, k] repeated along the blocks: numpy adds contiguous rows several times faster
    # than it broadcasts one number along a row
    LA = np.ascontiguousarray(np.broadcast_to(log_A[:, :, None], (K, K, L)))
    pb = np.empty((S, K, L), dtype=np.int8 if K <= 127 else np.int64)  # psi[bS + s, k] at [s, k, b]
    first = _viterbi_blocks(log_pi, LA, log_B, xs, np.zeros((K, L)), first=S - S // _FORGET)
    top = first.max(axis=0)
    if not np.all(np.isfinite(top)):  # a block impossible from every state
        return None
    first -= top
    starts = np.zeros((K, L))
    starts[:, 1:] = first[:, :-1]
    ends = _viterbi_blocks(log_pi, LA, log_B, xs, starts, pb)
    with np.errstate(invalid="ignore"):
        shift = ends[:, :-1] - first[:, :-1]
        finite = np.isfinite(first[:, :-1])
        size = np.abs(np.where(finite, ends[:, :-1], 0.0)).max(initial=1.0)
        low = np.where(finite, shift, np.inf).min(axis=0)
        high = np.where(finite, shift, -np.inf).max(axis=0)
        merged = np.array_equal(finite, np.isfinite(ends[:, :-1])) and bool(
            np.all(high - low <= _MERGED_TOL * max(size, S)))
    if not merged:
        starts = _viterbi_boundaries(log_pi, LA, log_B, xs)
        if starts is None:
            return None
        ends = _viterbi_blocks(log_pi, LA, log_B, xs, starts, pb)
    d = ends[:, L - 1].copy()
    tail = np.empty((T - n, K), dtype=np.int64)
    for t in range(n, T):
        sc = d[:, None] + log_A
        arg = sc.argmax(axis=0)
        tail[t - n] = arg
        d = sc[arg, np.arange(K)] + log_BT[x[t]]
    if not np.isfinite(d.max()):
        return None
    best_value = float(d.max()) + math.fsum(np.where(np.isfinite(high), high, 0.0)) if merged else float(d.max())
    path = np.empty(T, dtype=np.int64)
    path[T - 1] = int(d.argmax())
    for t in range(T - 1, n - 1, -1):
        path[t - 1] = tail[t - n, path[t]]
    # The back-track inside the blocks. The back-pointers of a block are read as a flat array
    # (pb[s][k, b] at k L + b). The paths from the K states at a block's end merge after a few
    # steps back (checked every few steps): from there on one path per block is followed, and
    # its states are those of the best path whatever the block's end state.
    rows = np.arange(L)
    block_of = np.tile(rows, K)
    F = np.repeat(np.arange(K), L) * L + block_of  # flat index of (state at bS+s, b), per end state
    zb = np.empty((S, L), dtype=np.int64)  # the best path, z[bS + s] at [s, b]
    merged_at = 0  # the paths from all end states agree at steps < merged_at... of every block
    for s in range(S - 1, 0, -1):
        F = np.take(pb[s].ravel(), F).astype(np.int64) * L + block_of  # the state at bS+s-1
        if s % 8 == 1 and K > 1:
            states = F.reshape(K, L)
            if np.all(states[1:] == states[0]):
                merged_at = s - 1
                break
    if merged_at:
        z = F[:L] // L
        zb[merged_at] = z
        for s in range(merged_at, 0, -1):
            z = np.take(pb[s].ravel(), z * L + rows).astype(np.int64)
            zb[s - 1] = z
        first_state = np.broadcast_to(zb[0], (K, L))
    else:
        first_state = F.reshape(K, L) // L  # state at bS given the state at bS+S-1
    last = np.empty(L, dtype=np.int64)
    last[L - 1] = path[n - 1]
    for b in range(L - 1, 0, -1):
        last[b - 1] = pb[0, first_state[last[b], b], b]
    zb[S - 1] = last
    for s in range(S - 1, merged_at, -1):
        zb[s - 1] = np.take(pb[s].ravel(), zb[s] * L + rows)
    path[:n] = zb.T.ravel()
    return best_value, path
