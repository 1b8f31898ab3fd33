"""Hidden Markov models with categorical emissions: filtering, smoothing, Viterbi and Baum-Welch.

The model (the course's notation)
---------------------------------
Hidden states z_t in {0..K-1}, observed symbols x_t in {0..M-1}, t = 1..T. Initial
distribution pi (pi_k = P(z_1 = k)), transition matrix A (A_jk = P(z_t = k | z_{t-1} = j),
rows sum to one) and emission matrix B (B_km = P(x_t = m | z_t = k), rows sum to one):

    P(x, z) = pi_{z_1} B_{z_1, x_1} prod_{t=2..T} A_{z_{t-1}, z_t} B_{z_t, x_t}.

Algorithms
----------
Forward (filtering), scaled so that long sequences never underflow:
    a_1(k) = pi_k B_k(x_1),   a_t(k) = B_k(x_t) sum_j alpha_{t-1}(j) A_jk,
    c_t = sum_k a_t(k),       alpha_t = a_t / c_t = P(z_t | x_1..x_t),
    log P(x_1..x_T) = sum_t log c_t.
Backward with the same constants:
    beta_T = 1,   beta_t(j) = sum_k A_jk B_k(x_{t+1}) beta_{t+1}(k) / c_{t+1},
and smoothing gamma_t(k) = alpha_t(k) beta_t(k) = P(z_t = k | x_1..x_T).
Viterbi in log space with back-pointers:
    d_1(k) = log pi_k + log B_k(x_1),
    d_t(k) = max_j [d_{t-1}(j) + log A_jk] + log B_k(x_t),   psi_t(k) = argmax_j [...],
    z*_T = argmax_k d_T(k),   z*_{t-1} = psi_t(z*_t).
Baum-Welch (EM for HMMs). E-step: gamma_t and
    xi_t(i, j) = alpha_t(i) A_ij B_j(x_{t+1}) beta_{t+1}(j) / c_{t+1} = P(z_t = i, z_{t+1} = j | x);
M-step from the expected counts, summed over the sequences:
    pi_k = sum_seq gamma_1(k) / n_seq,   A_ij = sum_t xi_t(i, j) / sum_t sum_j' xi_t(i, j'),
    B_km = sum_{t: x_t = m} gamma_t(k) / sum_t gamma_t(k).
The log-likelihood never decreases from one iteration to the next (Rabiner 1989, section III.C;
Bishop, PRML, section 13.2).

The time loops run in compiled code (``smlengine._hmm_compiled``, numba, extra "fast") for
long sequences when numba is installed, and in numpy otherwise: vectorised over blocks of the
sequence (``smlengine._hmm_blocks``) from a few hundred steps on, step by step below that.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from . import _hmm_blocks, _hmm_compiled
from ._base import (
    BaseEstimator,
    IterativeMixin,
    NotFittedError,
    Snapshot,
    short_repr,
    check_random_state,
    frozen_array,
)
from ._params import ArrayLike, Integral, Interval, RandomState, Real, check_param

__all__ = [
    "CategoricalHMM",
    "FilterSnapshot",
    "ViterbiSnapshot",
    "BaumWelchSnapshot",
]

_USE_COMPILED = True  # the time loops in compiled code when numba is installed
# Sequence length from which a call loads the compiled code (numba's import and its cache take
# about half a second; below this the numpy loop is done sooner). Once loaded, every call uses it.
_COMPILED_MIN_T = 20_000
# Sequence length from which the numpy path runs its loops over blocks of the sequence
# (smlengine._hmm_blocks) instead of one numpy step per symbol.
_BLOCK_MIN_T = 256  # measured: from about 256 steps on the blocks are faster (5 x at 2,000)
# Most states for the blocks: their transfers cost K^3 per step against K^2 for the step loop,
# whose numpy calls cost microseconds each whatever K (measured at T = 10^5: forward-backward
# over blocks 13x faster at 8 states, 1.4x at 32).
_BLOCK_MAX_K = 32
_SUM_TOL = 1e-6  # how far from one a probability row may sum (it is then renormalised)
# Size limits: A is K x K and B is K x M floats, the forward pass T x K, so K = 1,000 and
# M = 10,000 keep every matrix of a model within 80 MB.
MAX_STATES = 1_000
MAX_SYMBOLS = 10_000
MAX_ITER = 1_000_000
MAX_SAMPLE = 10_000_000  # longest sequence sample() draws


# ----------------------------------------------------------------------------- snapshots


@dataclass(frozen=True, kw_only=True)
class FilterSnapshot(Snapshot):
    """One step of the forward algorithm.

    Attributes
    ----------
    t : int
        Number of symbols seen (0: the prior, before the first symbol).
    symbol : int
        x_t, the symbol just read (-1 at t = 0).
    alpha : ndarray (K,)
        P(z_t | x_1..x_t) (pi at t = 0).
    scale : float
        c_t = P(x_t | x_1..x_{t-1}) (1 at t = 0).
    log_likelihood : float
        log P(x_1..x_t) = sum of log c (0 at t = 0).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.hmm import CategoricalHMM
    >>> hmm = CategoricalHMM(2, 6, startprob=[0.5, 0.5], transmat=[[0.95, 0.05], [0.1, 0.9]],
    ...                      emissionprob=[[1 / 6] * 6, [0.1, 0.1, 0.1, 0.1, 0.1, 0.5]])
    >>> for s in hmm.filter_steps([5, 5, 5, 0]):
    ...     print(s.t, s.symbol, np.round(s.alpha, 3), round(s.log_likelihood, 3))
    0 -1 [0.5 0.5] 0.0
    1 5 [0.25 0.75] -1.099
    2 5 [0.132 0.868] -2.025
    3 5 [0.082 0.918] -2.871
    4 0 [0.254 0.746] -5.066
    """

    t: int
    symbol: int
    alpha: np.ndarray
    scale: float
    log_likelihood: float


@dataclass(frozen=True, kw_only=True)
class ViterbiSnapshot(Snapshot):
    """One column of the Viterbi trellis, or the back-tracked path after the last column.

    Attributes
    ----------
    t : int
        Column index 0..T-1 (time t+1 in the course's 1-based notation); T for the back-track.
    log_delta : ndarray (K,)
        d_t(k) = max over paths ending in k of log P(x_1..x_t, z_1..z_t).
    backpointer : ndarray (K,) of int
        psi_t(k), the best predecessor of each state (-1 in the first column).
    path : ndarray (T,) of int or None
        The best state sequence (last snapshot only).
    log_prob : float or None
        max_z log P(x, z) (last snapshot only).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.hmm import CategoricalHMM
    >>> hmm = CategoricalHMM(2, 6, startprob=[0.5, 0.5], transmat=[[0.95, 0.05], [0.1, 0.9]],
    ...                      emissionprob=[[1 / 6] * 6, [0.1, 0.1, 0.1, 0.1, 0.1, 0.5]])
    >>> for s in hmm.viterbi_steps([5, 5, 0]):
    ...     print(s.t, np.round(s.log_delta, 3), s.backpointer, s.path)
    0 [-2.485 -1.386] [-1 -1] None
    1 [-4.328 -2.185] [0 1] None
    2 [-6.171 -4.593] [0 1] None
    3 [-6.171 -4.593] [0 1] [1 1 1]
    """

    t: int
    log_delta: np.ndarray
    backpointer: np.ndarray
    path: np.ndarray | None = None
    log_prob: float | None = None


@dataclass(frozen=True, kw_only=True)
class BaumWelchSnapshot(Snapshot):
    """The parameters after ``step`` Baum-Welch iterations and their log-likelihood.

    Attributes
    ----------
    startprob, transmat, emissionprob : ndarray
        pi (K,), A (K, K), B (K, M).
    log_likelihood : float
        log P(X | pi, A, B) of these parameters, summed over the sequences.
    converged : bool
        True on the last snapshot (the gain fell below ``tol`` or ``max_iter`` was reached).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.hmm import CategoricalHMM
    >>> x = np.array([0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0])
    >>> for s in CategoricalHMM(2, 2, max_iter=3, random_state=0).fit_steps(x):
    ...     print(s.step, round(s.log_likelihood, 3), s.converged)
    0 -10.596 False
    1 -9.713 False
    2 -9.687 False
    3 -9.678 True
    """

    startprob: np.ndarray
    transmat: np.ndarray
    emissionprob: np.ndarray
    log_likelihood: float
    converged: bool = False


# ----------------------------------------------------------------------------- validation


def _check_probabilities(name: str, value, shape: tuple[int, ...]) -> np.ndarray:
    """A finite non-negative float array of ``shape`` whose rows (last axis) sum to one."""
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"{name} must be an array of probabilities, got {short_repr(value)}") from None
    if arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite entries")
    if arr.min() < 0 or arr.max() > 1:
        raise ValueError(
            f"{name} entries must be probabilities in [0, 1], got values in [{arr.min():.3g}, {arr.max():.3g}]"
        )
    sums = arr.sum(axis=-1)
    bad = np.flatnonzero(np.abs(sums - 1.0).ravel() > _SUM_TOL)
    if bad.size:
        if arr.ndim == 1:
            raise ValueError(f"{name} must sum to 1, got {sums.item():.6g}")
        raise ValueError(f"{name} rows must each sum to 1; row {bad[0]} sums to {sums.ravel()[bad[0]]:.6g}")
    return np.ascontiguousarray(arr / sums[..., None] if arr.ndim > 1 else arr / sums)


def _check_symbols(x, n_symbols: int, name: str = "x") -> np.ndarray:
    """A 1-D int64 array of symbols in 0..n_symbols-1 (a column of shape (T, 1) is accepted)."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of integer symbols 0..{n_symbols - 1}, got a string")
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a sequence of integer symbols ({exc})") from None
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one symbol per time step) or a (T, 1) column, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty: a sequence needs at least one symbol")
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must contain integer symbols 0..{n_symbols - 1}, got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains {int(np.count_nonzero(~np.isfinite(arr)))} NaN or infinite value(s)")
        if not np.all(arr == np.round(arr)):
            bad = arr[arr != np.round(arr)][0]
            raise ValueError(f"{name} must contain integer symbols 0..{n_symbols - 1}, got {bad:g}")
    lo, hi = arr.min(), arr.max()
    if lo < 0 or hi >= n_symbols:
        wrong = lo if lo < 0 else hi
        raise ValueError(f"{name} has symbols outside 0..{n_symbols - 1} (n_symbols={n_symbols}), got {wrong:g}")
    out = np.ascontiguousarray(arr, dtype=np.int64)
    # the compiled loops take writeable arrays only (a read-only view of a snapshot is copied)
    return out if out.flags.writeable else out.copy()


def _check_lengths(lengths, total: int) -> np.ndarray:
    """Sequence boundaries [0, l_1, l_1 + l_2, ..., total] from ``lengths`` (None: one sequence)."""
    if lengths is None:
        return np.array([0, total], dtype=np.int64)
    arr = np.asarray(lengths)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"lengths must be a non-empty 1-D list of sequence lengths, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"lengths must contain integers, got dtype {arr.dtype}")
    if arr.min() < 1:
        raise ValueError(f"lengths must all be >= 1 (no empty sequence), got {int(arr.min())}")
    if int(arr.sum()) != total:
        raise ValueError(f"lengths must add up to the number of symbols ({total}), got {int(arr.sum())}")
    return np.concatenate([[0], np.cumsum(arr, dtype=np.int64)])


# ----------------------------------------------------------------------------- the time loops
# Each recursion runs in compiled code (long sequences, numba installed), over blocks of the
# sequence in numpy (smlengine._hmm_blocks), or one numpy step per symbol (short sequences, and
# the fallback that finds where an impossible sequence becomes impossible).


def _compiled(T: int):
    """The compiled kernels when they are in use for a sequence of length T, else None."""
    if not _USE_COMPILED:
        return None
    if _hmm_compiled.loaded() or T >= _COMPILED_MIN_T:
        return _hmm_compiled.kernels()
    return None


def _blocks(T: int, K: int) -> bool:
    """Whether the numpy path runs over blocks of the sequence (smlengine._hmm_blocks)."""
    return T >= _BLOCK_MIN_T and K <= _BLOCK_MAX_K


def _forward(pi, A, BT, x):
    """(alpha (T, K), c (T,), first t with c_t = 0 or -1): the scaled forward pass."""
    return _forward_keeping(pi, A, BT, x)[:3]


def _forward_keeping(pi, A, BT, x, *, need_alpha=True):
    """:func:`_forward` and the block loops' forward pass (``_hmm_blocks.Forward``, None when
    they did not run), which :func:`_backward` reuses. Without ``need_alpha`` alpha may be
    None (the block loops keep it in their own layout)."""
    T, K = x.shape[0], pi.shape[0]
    kern = _compiled(T)
    if kern is not None:
        alpha = np.empty((T, K))
        c = np.empty(T)
        return alpha, c, int(kern.forward(pi, A, BT, x, alpha, c)), None
    if _blocks(T, K):
        fwd = _hmm_blocks.forward(pi, A, BT, x)
        if fwd is not None:
            return fwd.filtered() if need_alpha else None, fwd.scales(), -1, fwd
    alpha = np.empty((T, K))
    c = np.empty(T)
    Bx = BT[x]
    a = pi * Bx[0]
    for t in range(T):
        if t:
            a = alpha[t - 1] @ A
            a *= Bx[t]
        s = a.sum()
        c[t] = s
        if not s > 0.0:
            return alpha, c, t, None
        np.divide(a, s, out=alpha[t])
    return alpha, c, -1, None


def _backward(A, BT, x, c, alpha, trans=None, transfers=None):
    """gamma (T, K) of the scaled backward pass with the forward constants c; adds the expected
    transitions sum_t xi_t to ``trans`` when it is given. ``transfers``: the block loops' forward
    pass of the same sequence and model, or None; alpha may then be None."""
    T, K = x.shape[0], A.shape[0]
    kern = _compiled(T)
    if kern is not None:
        gamma = np.empty((T, K))
        kern.backward(A, BT, x, c, alpha, gamma, np.zeros((K, K)) if trans is None else trans, trans is not None)
        return gamma
    if transfers is not None and trans is None:
        gamma = _hmm_blocks.smooth(transfers, A, BT, x)
        if gamma is not None:
            return gamma
    beta = None if transfers is None else _hmm_blocks.backward(transfers, A, BT, x)
    if alpha is None:
        alpha = transfers.filtered()
    Bx = BT[x] if beta is None or trans is not None else None
    if beta is None:
        gamma = np.empty((T, K))
        beta = gamma  # beta first, then gamma = alpha * beta in place
        beta[T - 1] = 1.0
        for t in range(T - 2, -1, -1):
            np.divide(A @ (Bx[t + 1] * beta[t + 1]), c[t + 1], out=beta[t])
    else:
        gamma = beta
    if trans is not None and T > 1:
        trans += (alpha[:-1].T @ (Bx[1:] * beta[1:] / c[1:, None])) * A
    gamma *= alpha
    gamma /= (gamma @ np.ones(K))[:, None]  # a product, not sum(axis=1): rows of K numbers sum slowly
    return gamma


def _logs(pi, A, B):
    with np.errstate(divide="ignore"):
        return np.log(pi), np.ascontiguousarray(np.log(A)), np.ascontiguousarray(np.log(B).T)


def _viterbi(pi, A, B, x):
    """(max_z log P(x, z), best path) by the log-space Viterbi recursion."""
    log_pi, log_A, log_BT = _logs(pi, A, B)
    T, K = x.shape[0], pi.shape[0]
    path = np.empty(T, dtype=np.int64)
    kern = _compiled(T)
    if kern is not None:
        return float(kern.viterbi(log_pi, log_A, log_BT, x, path)), path
    if _blocks(T, K):
        done = _hmm_blocks.viterbi(log_pi, log_A, log_BT, x)
        if done is not None:
            return done
    psi = np.empty((T, K), dtype=np.int64)
    cols = np.arange(K)
    d = log_pi + log_BT[x[0]]
    for t in range(1, T):
        s = d[:, None] + log_A
        arg = s.argmax(axis=0)
        psi[t] = arg
        d = s[arg, cols] + log_BT[x[t]]
    path[T - 1] = int(d.argmax())
    for t in range(T - 1, 0, -1):
        path[t - 1] = psi[t, path[t]]
    return float(d.max()), path


def _impossible(name: str, t: int, symbol: int) -> ValueError:
    return ValueError(
        f"{name} has probability 0 under the model: symbol {symbol} at position {t} cannot be emitted "
        "by any state reachable there (check the zeros of transmat and emissionprob)"
    )


# ----------------------------------------------------------------------------- the model


class CategoricalHMM(IterativeMixin, BaseEstimator):
    """Hidden Markov model with K hidden states and M categorical symbols.

    Parameters
    ----------
    n_states : int
        K >= 1, the number of hidden states.
    n_symbols : int
        M >= 1, the number of symbols; observations are integers 0..M-1.
    startprob : array (K,), optional
        pi. With all three matrices given the model can filter, smooth, decode and sample
        before any fit, and Baum-Welch starts from them.
    transmat : array (K, K), optional
        A, rows sum to one (A[j, k] = P(z_t = k | z_{t-1} = j)).
    emissionprob : array (K, M), optional
        B, rows sum to one (B[k, m] = P(x_t = m | z_t = k)).
    tol : float
        Baum-Welch stops when one iteration raises the log-likelihood by less than ``tol``.
    max_iter : int
        Largest number of Baum-Welch iterations (M-steps).
    random_state : None, int or numpy Generator
        Starting matrices a fit draws when they are not given (pi uniform, rows of A and B
        from a flat Dirichlet), and the default source of :meth:`sample`.

    Attributes
    ----------
    startprob_, transmat_, emissionprob_ : ndarray
        The learned pi, A and B.
    log_likelihood_ : float
        log P(X) under the learned parameters.
    n_iter_ : int
        Baum-Welch iterations done.
    history_ : list of float
        The log-likelihood of every iterate, the starting one first (never decreasing).

    Notes
    -----
    The recursions are those of the module docstring. Compared with hmmlearn's
    ``CategoricalHMM`` (``n_components`` = n_states, ``n_features`` = n_symbols), ``score``,
    ``predict_proba`` and ``decode`` agree; ``fit`` with ``max_iter=n`` equals hmmlearn's
    with ``n_iter=n, params='ste', init_params=''`` from the same start.

    Examples
    --------
    The dishonest casino (state 1 is the loaded die, symbol 5 the six):

    >>> import numpy as np
    >>> from smlengine.hmm import CategoricalHMM
    >>> hmm = CategoricalHMM(2, 6, startprob=[0.5, 0.5], transmat=[[0.95, 0.05], [0.1, 0.9]],
    ...                      emissionprob=[[1 / 6] * 6, [0.1, 0.1, 0.1, 0.1, 0.1, 0.5]])
    >>> rolls = np.array([0, 2, 4, 1, 3, 5, 5, 5, 5, 5, 2, 0])
    >>> print(np.round(hmm.smooth(rolls)[:, 1], 2))
    [0.33 0.32 0.35 0.41 0.55 0.81 0.9  0.92 0.91 0.85 0.67 0.57]
    >>> logp, path = hmm.viterbi(rolls)
    >>> print(path, round(logp, 3), round(hmm.score(rolls), 3))
    [1 1 1 1 1 1 1 1 1 1 1 1] -21.436 -19.534
    >>> x, z = hmm.sample(8, random_state=0)
    >>> print(x, z)
    [5 5 4 0 5 0 4 1] [1 1 0 0 0 0 0 0]

    Baum-Welch from a random start never lowers the log-likelihood:

    >>> fitted = CategoricalHMM(2, 6, max_iter=20, random_state=0).fit(hmm.sample(500, random_state=1)[0])
    >>> fitted.n_iter_, bool(np.all(np.diff(fitted.history_) >= 0))
    (20, True)
    """

    def __init__(
        self,
        n_states,
        n_symbols,
        startprob=None,
        transmat=None,
        emissionprob=None,
        tol=1e-6,
        max_iter=100,
        random_state=None,
    ):
        self.n_states = n_states
        self.n_symbols = n_symbols
        self.startprob = startprob
        self.transmat = transmat
        self.emissionprob = emissionprob
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    _parameter_constraints = {
        "n_states": [Interval(Integral, 1, MAX_STATES)],
        "n_symbols": [Interval(Integral, 1, MAX_SYMBOLS)],
        "startprob": [ArrayLike(), None],
        "transmat": [ArrayLike(), None],
        "emissionprob": [ArrayLike(), None],
        "tol": [Interval(Real, 0, None)],
        "max_iter": [Interval(Integral, 1, MAX_ITER)],
        "random_state": [RandomState(), None],
    }

    # -------------------------------------------------------------- parameters

    def _sizes(self) -> tuple[int, int]:
        self.validate_params()
        return int(self.n_states), int(self.n_symbols)

    def _given(self):
        """The validated (pi, A, B) of the constructor; None for each one not given."""
        K, M = self._sizes()
        pi = None if self.startprob is None else _check_probabilities("startprob", self.startprob, (K,))
        A = None if self.transmat is None else _check_probabilities("transmat", self.transmat, (K, K))
        B = None if self.emissionprob is None else _check_probabilities("emissionprob", self.emissionprob, (K, M))
        return pi, A, B

    def _model(self):
        """(pi, A, B^T) in use: the learned ones after a fit, else the constructor's."""
        if hasattr(self, "startprob_"):
            pi, A, B = self.startprob_, self.transmat_, self.emissionprob_
            self._sizes()
            if B.shape != (self.n_states, self.n_symbols):
                raise ValueError(
                    f"n_states/n_symbols ({self.n_states}, {self.n_symbols}) no longer match the fitted "
                    f"emissionprob_ of shape {B.shape}; fit again"
                )
        else:
            pi, A, B = self._given()
            if pi is None or A is None or B is None:
                missing = [n for n, v in (("startprob", pi), ("transmat", A), ("emissionprob", B)) if v is None]
                raise NotFittedError(
                    f"this {type(self).__name__} has no {', '.join(missing)} yet: pass them or call fit first"
                )
        return pi, A, B, np.ascontiguousarray(B.T)

    # -------------------------------------------------------------- inference

    def filter_steps(self, x):
        """The forward algorithm one symbol at a time.

        Yields
        ------
        FilterSnapshot
            t = 0: alpha_0 = pi; then for t = 1..T: a_t(k) = B_k(x_t) sum_j alpha_{t-1}(j) A_jk,
            c_t = sum_k a_t(k), alpha_t = a_t / c_t = P(z_t | x_1..x_t) and
            log P(x_1..x_t) = sum_{s <= t} log c_s. (At t = 1 the sum over j is replaced by pi.)
        """
        pi, A, B, BT = self._model()
        x = _check_symbols(x, self.n_symbols)
        yield FilterSnapshot(step=0, t=0, symbol=-1, alpha=frozen_array(pi), scale=1.0, log_likelihood=0.0)
        a_prev = None
        ll = 0.0
        for t in range(x.shape[0]):
            a = pi * BT[x[t]] if a_prev is None else (a_prev @ A) * BT[x[t]]
            s = float(a.sum())
            if not s > 0.0:
                raise _impossible("x", t, int(x[t]))
            a_prev = a / s
            ll += np.log(s)
            yield FilterSnapshot(
                step=t + 1, t=t + 1, symbol=int(x[t]), alpha=frozen_array(a_prev), scale=s, log_likelihood=float(ll)
            )

    def filter(self, x) -> np.ndarray:
        """P(z_t | x_1..x_t) for t = 1..T, shape (T, K): the normalised forward variables."""
        pi, A, B, BT = self._model()
        x = _check_symbols(x, self.n_symbols)
        alpha, c, bad = _forward(pi, A, BT, x)
        if bad >= 0:
            raise _impossible("x", bad, int(x[bad]))
        return alpha

    def _forward_backward(self, x, lengths=None):
        pi, A, B, BT = self._model()
        x = _check_symbols(x, self.n_symbols)
        bounds = _check_lengths(lengths, x.shape[0])
        gamma = np.empty((x.shape[0], pi.shape[0]))
        ll = 0.0
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            xs = x[lo:hi]
            alpha, c, bad, transfers = _forward_keeping(pi, A, BT, xs, need_alpha=False)
            if bad >= 0:
                raise _impossible("x", lo + bad, int(xs[bad]))
            if hi - lo == x.shape[0]:
                gamma = _backward(A, BT, xs, c, alpha, transfers=transfers)
            else:
                gamma[lo:hi] = _backward(A, BT, xs, c, alpha, transfers=transfers)
            ll += float(np.log(c).sum())
        return ll, gamma

    def smooth(self, x, lengths=None) -> np.ndarray:
        """P(z_t = k | x_1..x_T), shape (T, K): gamma_t = alpha_t * beta_t of forward-backward."""
        return self._forward_backward(x, lengths)[1]

    def predict_proba(self, x, lengths=None) -> np.ndarray:
        """Same as :meth:`smooth` (hmmlearn's name)."""
        return self.smooth(x, lengths)

    def score(self, x, lengths=None) -> float:
        """log P(x) = sum_t log c_t from the scaled forward pass (summed over the sequences);
        -inf when the sequence is impossible under the model."""
        pi, A, B, BT = self._model()
        x = _check_symbols(x, self.n_symbols)
        bounds = _check_lengths(lengths, x.shape[0])
        ll = 0.0
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            _, c, bad, _ = _forward_keeping(pi, A, BT, x[lo:hi], need_alpha=False)
            if bad >= 0:
                return -np.inf
            ll += float(np.log(c).sum())
        return ll

    def viterbi(self, x):
        """The most probable state sequence.

        Returns
        -------
        log_prob : float
            max_z log P(x, z).
        path : ndarray (T,) of int
            argmax_z P(x, z), by d_t(k) = max_j [d_{t-1}(j) + log A_jk] + log B_k(x_t) and
            back-pointers psi_t(k) (ties go to the lowest state index).
        """
        pi, A, B, BT = self._model()
        x = _check_symbols(x, self.n_symbols)
        log_prob, path = _viterbi(pi, A, B, x)
        if not np.isfinite(log_prob):
            _, _, bad = _forward(pi, A, BT, x)
            raise _impossible("x", max(bad, 0), int(x[max(bad, 0)]))
        return log_prob, path

    def decode(self, x):
        """Same as :meth:`viterbi`: (log-probability, path) (hmmlearn's name)."""
        return self.viterbi(x)

    def predict(self, x) -> np.ndarray:
        """The Viterbi path."""
        return self.viterbi(x)[1]

    def viterbi_steps(self, x):
        """The Viterbi trellis filled column by column, then the back-tracked path.

        Yields
        ------
        ViterbiSnapshot
            Column t (0-based): d_t and psi_t, with d_0(k) = log pi_k + log B_k(x_0) and
            d_t(k) = max_j [d_{t-1}(j) + log A_jk] + log B_k(x_t). The last snapshot (t = T)
            carries the path z*_T = argmax d_T, z*_{t-1} = psi_t(z*_t) and its log-probability.
        """
        pi, A, B, _ = self._model()
        x = _check_symbols(x, self.n_symbols)
        log_pi, log_A, log_BT = _logs(pi, A, B)
        T, K = x.shape[0], pi.shape[0]
        cols = np.arange(K)
        psi = np.empty((T, K), dtype=np.int64)
        psi[0] = -1
        d = log_pi + log_BT[x[0]]
        yield ViterbiSnapshot(step=0, t=0, log_delta=frozen_array(d), backpointer=frozen_array(psi[0]))
        for t in range(1, T):
            s = d[:, None] + log_A
            arg = s.argmax(axis=0)
            psi[t] = arg
            d = s[arg, cols] + log_BT[x[t]]
            yield ViterbiSnapshot(step=t, t=t, log_delta=frozen_array(d), backpointer=frozen_array(arg))
        if not np.isfinite(d.max()):
            raise ValueError("x has probability 0 under the model (every state path is impossible)")
        path = np.empty(T, dtype=np.int64)
        path[T - 1] = int(d.argmax())
        for t in range(T - 1, 0, -1):
            path[t - 1] = psi[t, path[t]]
        yield ViterbiSnapshot(
            step=T, t=T, phase="backtrack", log_delta=frozen_array(d), backpointer=frozen_array(psi[T - 1]),
            path=frozen_array(path), log_prob=float(d.max()),
        )

    def sample(self, n, random_state=None):
        """Draw a sequence of ``n`` steps: z_1 ~ pi, z_t ~ A[z_{t-1}], x_t ~ B[z_t].

        ``random_state`` (None: the model's ``random_state``) seeds the draw.

        Returns
        -------
        symbols, states : ndarray (n,) of int
        """
        pi, A, B, _ = self._model()
        n = int(check_param("n", n, [Interval(Integral, 1, MAX_SAMPLE)]))
        rng = check_random_state(self.random_state if random_state is None else random_state)
        u = rng.random(n).tolist()
        cum_pi = np.cumsum(pi).tolist()
        cum_A = [row.tolist() for row in np.cumsum(A, axis=1)]
        last = pi.shape[0] - 1
        states = np.empty(n, dtype=np.int64)
        z = min(bisect.bisect_right(cum_pi, u[0]), last)
        states[0] = z
        for t in range(1, n):  # a Markov chain: each state depends on the previous one
            z = min(bisect.bisect_right(cum_A[z], u[t]), last)
            states[t] = z
        cum_B = np.cumsum(B, axis=1)
        v = rng.random(n)
        symbols = np.empty(n, dtype=np.int64)
        for k in range(pi.shape[0]):
            at = states == k
            symbols[at] = np.minimum(np.searchsorted(cum_B[k], v[at], side="right"), B.shape[1] - 1)
        return symbols, states

    # -------------------------------------------------------------- learning

    def _start(self):
        """Starting (pi, A, B): the constructor's where given, else drawn from ``random_state``."""
        K, M = self._sizes()
        pi, A, B = self._given()
        rng = check_random_state(self.random_state)
        if A is None:
            A = rng.dirichlet(np.ones(K), size=K)
        if B is None:
            B = rng.dirichlet(np.ones(M), size=K)
        if pi is None:
            pi = np.full(K, 1.0 / K)
        return pi, np.ascontiguousarray(A), np.ascontiguousarray(B)

    @staticmethod
    def _estep(pi, A, B, x, bounds, need_stats=True):
        """(log P(X), expected counts: starts (K,), transitions (K, K), emissions (K, M))."""
        K, M = B.shape
        BT = np.ascontiguousarray(B.T)
        start = np.zeros(K)
        trans = np.zeros((K, K))
        emit = np.zeros((K, M))
        ll = 0.0
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            xs = x[lo:hi]
            alpha, c, bad, transfers = _forward_keeping(pi, A, BT, xs)
            if bad >= 0:
                raise _impossible("X", lo + bad, int(xs[bad]))
            ll += float(np.log(c).sum())
            if not need_stats:
                continue
            gamma = _backward(A, BT, xs, c, alpha, trans, transfers)
            start += gamma[0]
            for k in range(K):
                emit[k] += np.bincount(xs, weights=gamma[:, k], minlength=M)
        return ll, (start, trans, emit)

    @staticmethod
    def _mstep(stats, pi, A, B):
        """pi, A, B from the expected counts; a state never visited keeps its previous row."""
        start, trans, emit = stats
        pi = start / start.sum()
        rows = trans.sum(axis=1, keepdims=True)
        A = np.where(rows > 0, trans / np.where(rows > 0, rows, 1.0), A)
        rows = emit.sum(axis=1, keepdims=True)
        B = np.where(rows > 0, emit / np.where(rows > 0, rows, 1.0), B)
        return pi, np.ascontiguousarray(A), np.ascontiguousarray(B)

    def fit_steps(self, X, lengths=None):
        """Baum-Welch, one snapshot per iteration.

        Parameters
        ----------
        X : array (T,) or (T, 1) of int
            The symbols of one sequence, or of several concatenated.
        lengths : list of int, optional
            Lengths of the concatenated sequences (they add up to T).

        Yields
        ------
        BaumWelchSnapshot
            Step 0: the starting parameters; step i: after i iterations of E-step (gamma, xi by
            forward-backward) and M-step (pi, A, B from the expected counts, module docstring),
            each with its log-likelihood, which never decreases. Stops after ``max_iter``
            iterations or when the gain of the last one is below ``tol``; the last snapshot is
            the fitted state.
        """
        K, M = self._sizes()
        max_iter = int(self.max_iter)
        x = _check_symbols(X, M, name="X")
        bounds = _check_lengths(lengths, x.shape[0])
        pi, A, B = self._start()
        history: list[float] = []
        for it in range(max_iter + 1):
            ll, stats = self._estep(pi, A, B, x, bounds, need_stats=it < max_iter)
            done = it == max_iter or (bool(history) and ll - history[-1] < self.tol)
            history.append(ll)
            self.startprob_, self.transmat_, self.emissionprob_ = pi, A, B
            self.log_likelihood_ = ll
            self.n_iter_ = it
            self.history_ = list(history)
            yield BaumWelchSnapshot(
                step=it, phase="Baum-Welch", startprob=frozen_array(pi), transmat=frozen_array(A),
                emissionprob=frozen_array(B), log_likelihood=ll, converged=done,
            )
            if done:
                break
            pi, A, B = self._mstep(stats, pi, A, B)
