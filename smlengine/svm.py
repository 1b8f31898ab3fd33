"""Soft-margin support vector machine trained through its dual by SMO.

Dual problem (course notation, labels y_i in {-1, +1}):

    max_alpha  sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j k(x_i, x_j)
    s.t.       0 <= alpha_i <= C,   sum_i y_i alpha_i = 0.

Decision function f(x) = sum_i alpha_i y_i k(x_i, x) + b.

SMO (Platt 1998; working-set selection of Fan, Chen & Lin 2005) changes two multipliers
at a time along the direction that keeps sum_i y_i alpha_i fixed, where the dual is a
1-D concave parabola maximised in closed form and clipped to the box.
"""

from __future__ import annotations

import numbers
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from . import _smo_compiled
from ._base import (
    MAX_ABS_VALUE,
    BaseEstimator,
    IterativeMixin,
    NotFittedError,
    Snapshot,
    check_array,
    check_binary_labels,
    check_choice,
    check_random_state,
    check_scalar,
    check_X_y,
    frozen_array,
)
from ._smo_compiled import clip_pair
from .kernels import KernelRows, make_kernel

__all__ = ["SVM", "SVMSnapshot"]

_TAU = 1e-12  # curvature floor for non-PD kernels / duplicate points (as in LIBSVM)
_SHRINK_EVERY = 1000  # pair updates between shrinking steps (libsvm: min(n, 1000))
# Float vectors of n entries a fit may hold at once besides the kernel rows (counted against
# cache_size): data and kernel terms, the solver's gradient rows, work rows, multipliers and
# orderings (with their Python lists), the multipliers saved at shrinking steps, the
# temporaries of a reconstruction and of the final state, the compact rows in use but not
# kept. Measured with tracemalloc: up to about 65 (N = 30,000, rbf).
_WORK_VECTORS = 80
_USE_COMPILED = True  # the linear kernel's pair updates in compiled code, when numba is there
# n from which a fit loads the compiled code (about 0.6 s: numba's import and its cache; 2 s the
# first time, to compile): a smaller problem takes less than that in numpy. Once loaded, the
# process uses it for problems of any size.
_COMPILED_MIN_N = 2000
# it evaluates <x_t, x_i> per point (d products); for more features the numpy path's cached
# kernel columns cost less
_COMPILED_MAX_D = 16
_MAX_EVENTS = 2  # shrinking steps remembered between reconstructions (older ones are merged)


@dataclass(frozen=True, kw_only=True, eq=False)
class SVMSnapshot(Snapshot):
    """State of SMO after a pair update.

    Attributes
    ----------
    pair : tuple of int or None
        (i, j), the two training indices just updated (None for the initial state).
    alpha : ndarray of shape (n_samples,)
        Dual variables (copy).
    b : float
        Intercept from the free support vectors (averaged).
    dual_objective : float
        sum alpha - 1/2 alpha^T Q alpha.
    kkt_gap : float
        m(alpha) - M(alpha), the maximal KKT violation; SMO stops when it is <= tol.
    n_support : int
        Number of alpha_i > 0.
    n_bounded : int
        Number of alpha_i == C (support vectors at the bound).
    train_error : float
        Fraction of training points misclassified by sign(f).
    class_index : int
        Index in ``classes_`` of the one-vs-rest problem being solved (0 for two classes).
    converged : bool
    """

    pair: tuple[int, int] | None
    alpha: np.ndarray
    b: float
    dual_objective: float
    kkt_gap: float
    n_support: int
    n_bounded: int
    train_error: float
    class_index: int = 0
    converged: bool = False


class _KernelCache:
    """Kernel columns K[:, o], LRU-cached in a byte budget (libsvm's ``cache_size``).

    Why: SMO asks for the same few columns again and again (the free support vectors), and a
    column costs n kernel evaluations, so caching them is most of SMO's speed. The cache is one
    block of ``capacity`` rows of n floats with capacity * row bytes <= 3/4 of the budget (at
    least two rows, the pair being updated; the solver's compact rows use the last quarter),
    allocated when first used, so the full Gram matrix is held only when it fits. A row holds
    what the working-set selection divides by, a_t = k(x_t, x_t) + k(x_o, x_o) - 2 k(x_t, x_o):
    for rbf a_t itself, 2 + tau - 2 K (K <= 1, and K = 1 - (a - tau) / 2 gives the gradient
    update); otherwise the kernel column and r_t = a_t^(-1/2) (a_t replaced by tau where
    a_t <= 0, as LIBSVM), with which the gain of the selection is one product.

    Rows are stored in the original order of the points. While the solver shrinks, a column is
    evaluated only on the active points (libsvm does the same) and scattered into its row; such
    a partial row stays valid as long as the active set only shrinks, i.e. until the next
    gradient reconstruction (a new ``epoch``), after which it is evaluated again when asked for.
    A linear column on the active set is not scattered: one product with d columns costs less
    than the scatter and the later gather.
    The solver reads rows gathered in its own (shrinking) order: O(A) per column instead of
    reordering every cached row at each shrinking step.
    """

    def __init__(self, X, kind, gamma, degree, coef0, cache_bytes, extra_vectors=0):
        n = X.shape[0]
        self.n = n
        self.kind = kind
        self.X = X
        # The kernel's formula comes from smlengine.kernels. For rbf the rows are 2 K, so that
        # the a-row is (2 + tau) - 2 K with 2 K = exp(<2 gamma x_t, x_o> + ln 2 - gamma |x_t|^2
        # - gamma |x_o|^2): one product, two additions, a clip, exp and a subtraction.
        self.rows = KernelRows(kind, X, gamma=gamma, degree=degree, coef0=coef0, scale=2.0 if kind == "rbf" else 1.0)
        self.diag = self.rows.diag
        # libsvm replaces a curvature a_ij <= 0 (rounding on duplicates, non-PD kernels) by
        # tau = 1e-12, which presumes kernel values ~1. Here tau is 1e-12 of the kernel's own
        # scale max_t k(x_t, x_t), so multiplying X by s (and C by 1 / s^2) gives the same
        # iterates; rbf has k(x, x) = 1.
        kscale = 1.0 if kind == "rbf" else float(self.diag.max(initial=0.0))
        self.tau = _TAU * max(kscale, 1e-280)
        # What a row evaluation reads per point, kept by the solver in its own order: P (the
        # kernel's rows to multiply by x_o) and one number (the kernel's term for rbf; else
        # k(x_t, x_t), for the a-row).
        self.P = self.rows.P
        self.aux = self.rows.aux if kind == "rbf" else self.diag
        # The budget covers the whole fit, not only the rows: the gradient reconstruction's
        # kernel blocks and the O(n) working vectors (the solver's and the fit's, counted in
        # _WORK_VECTORS) are set aside first; of what is left, 3/4 hold full rows and 1/4 the
        # solver's compact rows while shrunk.
        self.budget = cache_bytes
        self.block_bytes = min(16 * 2**20, max(2**16, cache_bytes / 32))
        self.reserved = self.block_bytes + 8 * n * (_WORK_VECTORS + extra_vectors)
        self.row_budget = max(0.0, cache_bytes - self.reserved)
        row_bytes = 8 * n * (1 if kind == "rbf" else 2)  # rbf: a-row; else K row and a-row
        self.capacity = int(min(n, max(2, (0.75 * self.row_budget) // row_bytes)))
        self.buf = None  # np.empty((capacity, n)), allocated at the first column
        self.slot_of = [-1] * n  # original index -> cache slot
        self.owner = [-1] * self.capacity  # slot -> original index
        self.full = [False] * self.capacity  # slot holds K[:, o] on all n points
        self.epoch_of = [-1] * self.capacity  # else: valid on the active set of that epoch
        self.lru: OrderedDict[int, None] = OrderedDict()  # slots, least recently used first
        self.epoch = 0
        self.rows_computed = 0  # kernel columns evaluated (for tests and profiling)
        self.max_rows_used = 0
        self.set_active(None, self.P, self.aux)

    def release(self):
        """Free the rows once training is over (the fitted model keeps no kernel cache)."""
        self.buf_bytes = 0 if self.buf is None else self.buf.nbytes
        self.buf = None
        self.lru.clear()
        self.slot_of = [-1] * self.n

    def set_active(self, act, Pa, auxa):
        """The solver's active points: original indices ``act`` (None: all, in original
        order) and their rows of ``P`` and ``aux`` in that order."""
        self.act, self.Pa, self.auxa = act, Pa, auxa

    def new_epoch(self):
        """The active set grows again: partial rows are no longer valid."""
        self.epoch += 1

    def column(self, o, out=None):
        """The rows of point o on the active set, in the solver's order: the a-row (see the
        class) for rbf, else the pair (K[:, o], a-row) as an array of shape (2, A). ``out`` receives them
        when a gather or an evaluation on the active set is needed; otherwise a view into the
        cache is returned, valid until evicted."""
        s = self.slot_of[o]
        act = self.act
        if s >= 0:
            self.lru.move_to_end(s)
            if self.full[s] or self.epoch_of[s] == self.epoch:
                row = self.buf[s]
                return row if act is None else row.take(act, axis=-1, out=out, mode="clip")
        elif act is not None and self.kind == "linear":
            # on the active set a linear column is one product with d columns: evaluating it
            # again costs less than scattering it into a cache row and gathering it back
            self.rows_computed += 1
            self._eval(self.Pa, self.auxa, o, out)
            return out
        else:
            if self.buf is None:
                shape = (self.capacity, self.n) if self.kind == "rbf" else (self.capacity, 2, self.n)
                self.buf = np.empty(shape)
            used = len(self.lru)
            if used < self.capacity:
                s = used
                self.max_rows_used = used + 1
            else:
                s, _ = self.lru.popitem(last=False)
                self.slot_of[self.owner[s]] = -1
            self.lru[s] = None
            self.slot_of[o] = s
            self.owner[s] = o
        self.rows_computed += 1
        if act is None:
            self._eval(self.P, self.aux, o, self.buf[s])
            self.full[s] = True
            return self.buf[s]
        self._eval(self.Pa, self.auxa, o, out)
        self.buf[s][..., act] = out
        self.full[s] = out.shape[-1] == self.n
        self.epoch_of[s] = self.epoch
        return out

    def _eval(self, Pa, auxa, o, out):
        if self.kind == "rbf":
            self.rows.row(o, out, Pa, auxa)  # 2 K[:, o]
            np.subtract(2.0 + _TAU, out, out=out)  # a_t = 1 + 1 - 2 K_to + tau
            return
        K, r = out[0], out[1]
        if self.kind == "linear":
            np.dot(Pa, self.X[o], out=K)  # K[:, o] (np.dot: less call overhead than matmul)
        else:
            self.rows.row(o, K, Pa, None)
        np.multiply(K, -2.0, out=r)
        r += auxa
        r += self.diag[o]
        np.maximum(r, self.tau, out=r)  # as LIBSVM (a <= 0 -> tau), with a tau on the kernel's scale
        # r = a^(-1/2): the selection's gain (F_i - F_t)^2 / a_t, for F_t < F_i, is then the
        # square of (F_i - F_t) r_t, one product that keeps the sign instead of four passes
        np.sqrt(r, out=r)
        np.divide(1.0, r, out=r)

    def block_dot(self, R, S, coef):
        """K[R, S] @ coef for original indices R and S (gradient reconstruction), in blocks
        of ``block_bytes`` (1/32 of the budget, between 64 kB and 16 MB), set aside in it."""
        return self.rows.block_dot(R, S, coef, max_bytes=self.block_bytes)


# Largest kernel value k(x, x) accepted. SMO adds up C * K_ij over many pairs and squares
# gradient differences; kernel values up to 1e200 leave room for that in float64.
_MAX_KERNEL = 1e200


def _check_kernel_scale(X, kernel: str, degree, coef0) -> None:
    """Refuse data on which the kernel overflows (SMO would then produce NaN silently).

    |k(x_i, x_j)| <= max_i k(x_i, x_i) = max |x|^2 for the linear kernel (Cauchy-Schwarz),
    and <= (max |x|^2 + |coef0|)^degree for the polynomial one; RBF values lie in (0, 1].
    """
    if kernel == "rbf":
        return
    sq = float(np.einsum("ij,ij->i", X, X).max())  # finite: |x| <= MAX_ABS_VALUE
    with np.errstate(over="ignore"):
        bound = float(np.float64(sq + abs(float(coef0))) ** int(degree)) if kernel == "poly" else sq
    if not bound <= _MAX_KERNEL:
        hint = " or lower degree / coef0" if kernel == "poly" else ""
        raise ValueError(
            f"the {kernel} kernel takes values up to {bound:.3g} on this data, too large to "
            f"train reliably (limit {_MAX_KERNEL:.0e}); rescale the data{hint}"
        )


class SVM(IterativeMixin, BaseEstimator):
    """Soft-margin kernel SVM solved in the dual by SMO.

    Writing G = Q alpha - 1 for the gradient of the (minimised) negative dual, with
    Q_ij = y_i y_j k(x_i, x_j), and F_t = -y_t G_t, the KKT conditions read

        m(alpha) = max_{t in I_up} F_t  <=  M(alpha) = min_{t in I_low} F_t,

    with I_up = {t : alpha_t < C, y_t = +1 or alpha_t > 0, y_t = -1} and I_low the mirror set.
    Each SMO step picks i = argmax_{I_up} F_t and (second-order rule) j in I_low with
    F_j < F_i minimising -(F_i - F_j)^2 / a_ij, a_ij = K_ii + K_jj - 2 K_ij, then moves

        alpha_i += y_i t,   alpha_j -= y_j t,   t = min((F_i - F_j) / a_ij, box limits),

    and updates F <- F - t (K[:, i] - K[:, j]) with two kernel columns. It stops when
    m - M <= tol. The intercept is b = mean of F_t over free support vectors (0 < alpha_t < C),
    or (m + M) / 2 when there are none.

    Parameters
    ----------
    C : float, default=1.0
        Box constraint (> 0); large C approaches the hard margin.
    kernel : {'rbf', 'linear', 'poly'}, default='rbf'
    gamma : float, default=1.0
        RBF width, k(x, y) = exp(-gamma ||x - y||^2) (> 0).
    degree : int, default=3
        Polynomial degree, k(x, y) = (<x, y> + coef0)^degree.
    coef0 : float, default=1.0
    tol : float, default=1e-3
        Stopping tolerance on the KKT gap m - M.
    max_iter : int or None, default=None
        Maximal number of pair updates (None: max(100000, 100 n)).
    random_state : None, int or Generator
        Accepted for API symmetry; SMO with this selection rule is deterministic.
    cache_size : float, default=200
        Kernel column cache in MB (least recently used columns are dropped beyond it).
    shrinking : bool, default=True
        Drop bounded multipliers that are unlikely to move from the working set for a while
        (libsvm's heuristic); the gradient is reconstructed and optimality re-checked on all
        points before stopping, so the result meets the same tolerance.

    Data with |x| > 1e100 (:data:`smlengine._base.MAX_ABS_VALUE`), or on which the linear /
    polynomial kernel exceeds 1e200, is refused with a request to rescale: SMO would
    otherwise overflow to NaN without a word.

    Attributes
    ----------
    classes_ : ndarray
        The labels; for two classes classes_[1] is the +1 class.
    alpha_ : ndarray of shape (n_samples,) (or (K, n_samples) for one-vs-rest)
    support_ : ndarray of int -- indices with alpha_i > 0
    support_vectors_ : ndarray
    dual_coef_ : ndarray -- alpha_i y_i of the support vectors
    intercept_ : float (or ndarray of shape (K,))
    dual_objective_ : float (or ndarray of shape (K,))
    n_iter_ : int (or ndarray of shape (K,))
    kkt_gap_ : float -- final m - M of the binary machine
    estimators_ : list of SVM -- the binary one-vs-rest machines (more than two classes)
    """

    def __init__(
        self,
        C=1.0,
        kernel="rbf",
        gamma=1.0,
        degree=3,
        coef0=1.0,
        tol=1e-3,
        max_iter=None,
        random_state=None,
        cache_size=200.0,
        shrinking=True,
    ):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.cache_size = cache_size
        self.shrinking = shrinking

    # ------------------------------------------------------------------ validation
    def _validate(self):
        check_scalar("C", self.C, numbers.Real, min_value=0, include_min=False)
        check_choice("kernel", self.kernel, ("rbf", "linear", "poly"))
        check_scalar("gamma", self.gamma, numbers.Real, min_value=0, include_min=False)
        check_scalar("degree", self.degree, numbers.Integral, min_value=1, max_value=20)
        check_scalar("coef0", self.coef0, numbers.Real)
        check_scalar("tol", self.tol, numbers.Real, min_value=0, include_min=False)
        check_scalar("max_iter", self.max_iter, numbers.Integral, min_value=1, allow_none=True)
        check_scalar("cache_size", self.cache_size, numbers.Real, min_value=0, include_min=False)
        if not isinstance(self.shrinking, (bool, np.bool_)):
            raise TypeError(f"shrinking must be True or False, got {type(self.shrinking).__name__}")
        check_random_state(self.random_state)

    def _kernel_func(self):
        return make_kernel(self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0)

    # ------------------------------------------------------------------ training
    def fit(self, X, y):
        """Train to convergence; equivalent to exhausting ``fit_steps(X, y, snapshot_every=0)``."""
        last = None
        for last in self.fit_steps(X, y, snapshot_every=0):
            pass
        self.last_snapshot_ = last
        return self

    def fit_steps(self, X, y, snapshot_every=1):
        """Run SMO and yield snapshots.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), at least two distinct labels
        snapshot_every : int, default=1
            Yield after every ``snapshot_every`` pair updates (1: every update, for a live
            view). 0 yields only the initial and the final state (what ``fit`` uses).

        Yields
        ------
        SVMSnapshot
            Step 0 (alpha = 0), the requested intermediate states and always the final
            state, which equals the fitted model. With more than two classes the binary
            one-vs-rest problems are solved in turn (``class_index``), steps numbered
            continuously.
        """
        self._validate()
        check_scalar("snapshot_every", snapshot_every, numbers.Integral, min_value=0)
        X, y = check_X_y(X, y, max_abs=MAX_ABS_VALUE)
        classes = np.unique(y)
        if classes.size < 2:
            raise ValueError(f"an SVM needs at least two classes, got {classes.size} ({classes.tolist()})")
        for name in ("estimators_", "last_snapshot_"):
            self.__dict__.pop(name, None)
        _check_kernel_scale(X, self.kernel, self.degree, self.coef0)
        self._kernel_func()  # validates the kernel parameters
        # one-vs-rest keeps the multipliers of every binary machine (about 4 n-vectors each)
        extra = 4 * classes.size if classes.size > 2 else 0
        cols = _KernelCache(X, self.kernel, self.gamma, self.degree, self.coef0, float(self.cache_size) * 2**20, extra)
        self._cache = cols
        self._fit_X = X
        self._y_pm = {}  # class_index -> labels +-1 of that binary problem (for snapshots)
        if classes.size == 2:
            self.classes_, y_pm = check_binary_labels(y)
            self._y_pm[0] = y_pm
            yield from self._smo(cols, y_pm, snapshot_every, 0, 0, self)
            cols.release()
            return
        self.classes_ = classes
        estimators = []
        step0 = 0
        for k, cls in enumerate(classes):
            est = SVM(**self.get_params())
            est.classes_ = np.array([-1, 1])
            est._fit_X = X
            y_pm = np.where(y == cls, 1.0, -1.0)
            self._y_pm[k] = y_pm
            # The kernel cache is shared: one-vs-rest problems use the same Gram matrix.
            last = None
            for last in self._smo(cols, y_pm, snapshot_every, k, step0, est):
                yield last
            step0 = last.step + 1
            estimators.append(est)
        self.estimators_ = estimators
        self.alpha_ = np.stack([e.alpha_ for e in estimators])
        self.support_ = np.flatnonzero(np.any(self.alpha_ > 0, axis=0))
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = np.stack([e._alpha_y[self.support_] for e in estimators])
        self.intercept_ = np.array([e.intercept_ for e in estimators])
        self.dual_objective_ = np.array([e.dual_objective_ for e in estimators])
        self.n_iter_ = np.array([e.n_iter_ for e in estimators])
        cols.release()

    def _smo(self, cache, y0, every, class_index, step0, target):
        """One binary SMO problem (generator of snapshots).

        Shrinking (Joachims 1999; Fan, Chen & Lin 2005, as in libsvm): every min(n, 1000)
        pair updates, a multiplier at a bound whose F_t cannot be part of a violating pair
        while m and M stay put (only in I_up with F_t < M, or only in I_low with F_t > m, with
        M the smaller and m the larger of their values now and at the previous check) is
        moved behind the active prefix [0, A) of the solver's ordering of the points; the
        selection and the gradient update then cost O(A) instead of O(n), and its F_t is not
        updated while it is out. When the active problem reaches m - M <= tol (and once at
        m - M <= 10 tol) the full gradient is reconstructed,
        F_t -= sum_s (alpha_s - alpha_s^then) y_s k(x_t, x_s) over the multipliers that moved
        since t left, and the optimality check is repeated on all n points, so the result
        meets the same stopping rule as without shrinking; if it is not optimal there, the
        next shrinking waits a full period.

        The gradient is kept as two rows, FF[0] = F on I_up (-inf elsewhere) and FF[1] = F
        on I_low (+inf elsewhere): i = argmax FF[0] and M = min FF[1] need no masking, and a
        pair update is one subtraction per row. Per pair update the work is a handful of numpy
        passes over the active set (its fixed cost per call dominates on small active sets,
        hence the 0-d scalar operands and the compact rows below): for the linear and
        polynomial kernels the gain (m - F_t) r_t (2 passes, r = a^(-1/2) cached with the
        column) and its argmax, t (K[:, i] - K[:, j]) (2 passes; linear without a cached column
        of j: one product X (x_i - x_j)), the two gradient rows (2) and the next i (1); rbf
        needs two more passes for its gain. M = min FF[1] is read only when the selected pair
        violates by at most tol (m - M >= m - F_j, so otherwise the problem is not optimal).

        A live run (every > 0) also keeps a display copy of the gradient of the shrunk points
        for its snapshots; the solver never reads it, so live and batch runs take the same
        iterates, and ``fit`` (every = 0) pays nothing for snapshots but the first and last.

        On the linear kernel with d <= _COMPILED_MAX_D and numba installed, a fit with
        n >= _COMPILED_MIN_N (not a live run of single updates), or any fit once the compiled
        code is loaded in this process, makes every selection and update in
        ``smlengine._smo_compiled`` (several at once between two bookkeeping events: a
        snapshot due, the shrinking step, max_iter, the optimality check): the same rule with
        the kernel evaluated from the points, so its iterates are those of the numpy path up
        to rounding, and a live run and ``fit`` on that path take the same iterates.
        """
        n = y0.shape[0]
        C = float(self.C)
        tol = float(self.tol)
        max_iter = self.max_iter if self.max_iter is not None else max(100_000, 100 * n)
        shrinking = bool(self.shrinking)
        inf = np.inf
        rbf = cache.kind == "rbf"  # the cache then holds a-rows 2 + tau - 2 K[:, o]
        tau = cache.tau
        column = cache.column
        slot_of, row_full, lru_touch = cache.slot_of, cache.full, cache.lru.move_to_end
        # Scalar operands go through 0-d arrays: numpy converts a Python float on every call,
        # which costs as much as the operation itself on a small active set.
        s_m, s_t = np.zeros(()), np.zeros(())
        perm = np.arange(n)  # position -> original index
        plist = perm.tolist()
        y = y0.copy()
        Pp, auxp = cache.P, cache.aux  # kernel data per point, in the solver's order
        cache.new_epoch()  # rows evaluated on another problem's active set are not valid here
        alpha = np.zeros(n)
        # F = -y * G with G = Q alpha - 1; at alpha = 0, F = y, I_up = {y = +1}, I_low = {y = -1}
        FF = np.empty((2, n))
        FF[0] = np.where(y > 0, y, -inf)
        FF[1] = np.where(y > 0, inf, y)
        ypos = (y > 0).tolist()  # y_t = +1, as Python bools (the hot loop reads them)
        work = np.empty((3, n))
        compact = {}  # original index -> (K row, a row) on the current active set
        compact_room = [0]
        A = n
        events = []  # shrinking steps since the last reconstruction: (lo, hi, alpha then)
        unshrunk = False
        live = every > 0
        F_disp = y.copy() if live else None
        disp_ref = np.zeros(n)  # alpha (original order) at which F_disp is exact
        it = 0
        step = step0
        shrunk_ever = False
        stats = {"shrinks": 0, "reconstructions": 0, "compact_bytes": 0, "compiled_updates": 0}  # tests, profiling
        target._shrink_stats = stats

        def views(A):
            """Views of the working vectors on the active prefix (rebuilt when A changes)."""
            act = None if A == n and not shrunk_ever else perm[:A]
            cache.set_active(act, Pp[:A], auxp[:A])
            compact.clear()
            # none at all on a budget that tight: a row not kept is evaluated when needed
            compact_room[0] = int(0.25 * cache.row_budget // (8 * A * (1 if rbf else 2)))
            return act, FF[0, :A], FF[1, :A], work[0, :A], work[1, :A], work[2, :A]

        def compact_rows(o):
            """(K[act, o], a-row of o) on the active set, kept while it lasts (within budget)."""
            r = column(o, np.empty(A) if rbf else np.empty((2, A)))
            e = (r, r) if rbf else (r[0], r[1])
            if len(compact) < compact_room[0]:
                compact[o] = e
                nbytes = 8 * A * (1 if rbf else 2) * len(compact)
                stats["compact_bytes"] = max(stats["compact_bytes"], nbytes)
            return e

        def gradient(lo, hi):
            """F on positions lo..hi, read back from the two rows."""
            up = FF[0, lo:hi]
            return np.where(up > -inf, up, FF[1, lo:hi])

        def alpha_original():
            out = np.empty(n)
            out[perm] = alpha
            return out

        def catch_up(lo, hi, a_then, a_now):
            """F on the shrunk positions lo..hi, left at alpha = a_then, brought to a_now:
            F_t -= sum_s (a_now - a_then)_s y_s k(x_t, x_s) over the multipliers that moved."""
            d = a_now - a_then
            S = np.flatnonzero(d)
            if S.size:
                Fs = gradient(lo, hi) - cache.block_dot(perm[lo:hi], S, d[S] * y0[S])
                FF[0, lo:hi] = np.where(FF[0, lo:hi] > -inf, Fs, -inf)
                FF[1, lo:hi] = np.where(FF[1, lo:hi] < inf, Fs, inf)

        def remember_shrink(lo, hi):
            """Record a shrinking step; beyond _MAX_EVENTS the oldest block is brought up to
            the next one's multipliers and joins it (each record holds n floats)."""
            if len(events) >= _MAX_EVENTS:
                lo1, hi1, a1 = events.pop(0)
                lo2, hi2, a2 = events[0]
                catch_up(lo1, hi1, a1, a2)
                events[0] = (lo2, hi1, a2)  # the older block sits right behind the newer one
            events.append((lo, hi, alpha_original()))

        def reconstruct():
            """Bring F of the shrunk points up to date; the active set becomes everything."""
            a_now = alpha_original()
            for lo, hi, a_then in events:
                catch_up(lo, hi, a_then, a_now)
            events.clear()
            cache.new_epoch()
            stats["reconstructions"] += 1
            return n

        def sync_display():
            """F_disp = exact F on all points (live runs only; never read by the solver)."""
            nonlocal disp_ref
            a_now = alpha_original()
            if A < n:
                d = a_now - disp_ref
                S = np.flatnonzero(d)
                if S.size:
                    F_disp[A:] -= cache.block_dot(perm[A:], S, d[S] * y0[S])
                F_disp[:A] = gradient(0, A)
            else:
                F_disp[:] = gradient(0, n)
            disp_ref = a_now
            return a_now

        def extremes(A):
            i = int(FF[0, :A].argmax())
            return i, float(FF[0, i]), float(FF[1, int(FF[1, :A].argmin())])

        def state(pair, converged, m, M):
            if A == n:
                Fs, a_orig = gradient(0, n), alpha_original()
            else:
                a_orig = sync_display()
                Fs = F_disp
                m = float(Fs[FF[0] > -inf].max())
                M = float(Fs[FF[1] < inf].min())
            free = (alpha > 0) & (alpha < C)
            b = float(Fs[free].mean()) if free.any() else 0.5 * (m + M)
            # dual = sum alpha - 1/2 alpha^T Q alpha = 1/2 sum alpha - 1/2 alpha^T G, G = -y F
            dual = 0.5 * float(alpha.sum()) + 0.5 * float(alpha @ (y * Fs))
            f = y - Fs + b  # f(x_t) on training points from the maintained gradient
            err = float(np.mean(np.where(f > 0, 1.0, -1.0) != y))
            target._set_state(cache.X, y0, a_orig, b, dual, it, C)
            target.kkt_gap_ = float(m - M)
            return SVMSnapshot(
                step=step,
                pair=pair,
                alpha=frozen_array(a_orig),
                b=b,
                dual_objective=dual,
                kkt_gap=float(m - M),
                n_support=int(np.count_nonzero(a_orig > 0)),
                n_bounded=int(np.count_nonzero(a_orig >= C)),
                train_error=err,
                class_index=class_index,
                converged=converged,
                phase="SMO",
                progress=1.0 if converged else None,
            )

        i, m, M = extremes(A)
        yield state(None, m - M <= tol, m, M)
        if m - M <= tol:
            return
        act, Fup, Flow, nv, av, tb = views(A)
        diag = None if rbf else cache.diag.tolist()
        linear = cache.kind == "linear"
        Xo, dx = cache.X, np.empty(cache.X.shape[1])  # linear: P is X, in the solver's order
        counter = min(n, _SHRINK_EVERY)
        since = 0
        pair = None
        done = False
        m_prev, M_prev = m, M
        # compiled pair updates (linear kernel; see the docstring): every selection and update
        # of this fit then goes through them, so live and batch runs take the same iterates
        compiled = None
        if (
            _USE_COMPILED and linear and Xo.shape[1] <= _COMPILED_MAX_D and Xo.flags.c_contiguous
            and (_smo_compiled.loaded() or (n >= _COMPILED_MIN_N and every != 1))
        ):
            compiled = _smo_compiled.linear_pairs()
        # Each pass of the loop selects the pair for the current i (and so learns whether the
        # problem is optimal), reports the last update, shrinks now and then, and updates.
        while True:
            if compiled is not None:
                # the updates with no bookkeeping due in between (a snapshot, the shrinking
                # step, max_iter) in one call; it stops before an update when the active
                # problem is optimal (m - M <= tol), which is then checked below as here
                kmax = min(counter - 1, max_iter - it, every - since if every else counter)
                k, i, m, li_, lj_, check = compiled(
                    cache.Pa, cache.auxa, y[:A], alpha[:A], Fup, Flow, C, tol, tau, i, m, max(kmax, 0)
                )
                if k:
                    it += k
                    since += k
                    counter -= k
                    stats["compiled_updates"] += k
                    pair = (plist[li_], plist[lj_])
                    M = None
                Fj = m if check else -inf  # what the check below reads
            else:
                # Rows of i: K[:, i] and r_t = a_t^(-1/2) (rbf: the a-row, which holds both). While
                # shrunk, the rows gathered for the active set are kept (compact) until it changes:
                # a dict look-up instead of a gather.
                oi = plist[i]
                if act is None:
                    s_ = slot_of[oi]  # cache hit of a full row, inlined (the common case)
                    if s_ >= 0 and row_full[s_]:
                        lru_touch(s_)
                        r = cache.buf[s_]
                    else:
                        r = column(oi)
                    if rbf:
                        Ki = gi_row = r
                    else:
                        Ki, gi_row = r
                else:
                    e = compact.get(oi)
                    if e is None:
                        e = compact_rows(oi)
                    Ki, gi_row = e
                # Second-order choice of j in I_low with F_j < F_i = m: maximise (m - F_j)^2 / a_ij,
                # through a gain with the sign of m - F_j, so that entries with F_j >= m score <= 0
                # and those outside I_low (F = +inf) -inf: (m - F_j) r_j (its square is the gain),
                # or for rbf (m - F_j) |m - F_j| / a_ij.
                s_m[()] = m
                np.subtract(s_m, Flow, nv)
                if rbf:
                    np.absolute(nv, tb)
                    np.multiply(nv, tb, nv)
                    np.divide(nv, gi_row, nv)
                else:
                    np.multiply(nv, gi_row, nv)
                j = int(nv.argmax())
                Fj = float(Flow[j])
            # m - M >= m - F_j: only a pair violating by at most tol asks whether all are.
            if m - Fj <= tol:
                M = float(Flow.min())
                if m - M <= tol:
                    if A < n:
                        A = reconstruct()  # optimal on the active set: check all points
                        i, m, M = extremes(A)
                        act, Fup, Flow, nv, av, tb = views(A)
                        # if not optimal after all, the points that came back get a full period
                        # before the next shrinking (libsvm shrinks at once; on overlapping data
                        # that sent them out and back again, reconstruction after reconstruction)
                        counter = min(n, _SHRINK_EVERY)
                        if m - M > tol:
                            continue  # select again, on all points
                    done = True
            if every and since >= every:
                since = 0
                step += 1
                if M is None:
                    M = float(Flow.min())
                yield state(pair, done, m, M)
            if done:
                break
            if it >= max_iter:
                if A < n:
                    A = reconstruct()  # report the exact state on all points
                    i, m, M = extremes(A)
                    act, Fup, Flow, nv, av, tb = views(A)
                break
            counter -= 1
            if counter == 0:
                counter = min(n, _SHRINK_EVERY)
                if shrinking:
                    M = float(Flow.min())
                    moved = False
                    if not unshrunk and m - M <= 10.0 * tol:
                        unshrunk = True
                        if A < n:
                            A = reconstruct()
                            i, m, M = extremes(A)
                            moved = True
                    up, low = FF[0, :A], FF[1, :A]
                    # libsvm compares with the current m and M; the wider of these and the
                    # previous check's keeps bounded points near the margin in (on heavily
                    # overlapping data they re-entered after each reconstruction, which
                    # doubled the number of pair updates)
                    Ms, ms = min(M, M_prev), max(m, m_prev)
                    m_prev, M_prev = m, M
                    mask = (low == inf) & (up < Ms)
                    mask |= (up == -inf) & (low > ms)
                    k = int(np.count_nonzero(mask))
                    if k:
                        if live:
                            sync_display()
                        order = np.concatenate([np.flatnonzero(~mask), np.flatnonzero(mask)])
                        remember_shrink(A - k, A)
                        if not shrunk_ever:
                            Pp, auxp = Pp.copy(), auxp.copy()
                        FF[:, :A] = FF[:, order]
                        for arr in (alpha, y, perm, Pp, auxp) + ((F_disp,) if live else ()):
                            arr[:A] = arr[order]
                        ypos = (y > 0).tolist()
                        plist = perm.tolist()
                        A -= k
                        shrunk_ever = True
                        stats["shrinks"] += 1
                        i, m, M = extremes(A)
                        moved = True
                    if moved:
                        act, Fup, Flow, nv, av, tb = views(A)
                        counter += 1  # the pass that selects again does not count as a step
                        continue
            if compiled is not None:
                k, i, m, li_, lj_, _ = compiled(
                    cache.Pa, cache.auxa, y[:A], alpha[:A], Fup, Flow, C, tol, tau, i, m, 1
                )
                if k:  # (none if the active problem became optimal: the next pass checks it)
                    it += 1
                    since += 1
                    stats["compiled_updates"] += 1
                    pair = (plist[li_], plist[lj_])
                    M = None
                continue
            # a_ij = K_ii + K_jj - 2 K_ij, as in the row (tau where it is <= 0)
            if rbf:
                aij = float(gi_row[j])
            else:
                aij = (-2.0 * float(Ki[j]) + diag[plist[j]]) + diag[oi]
                if not aij > 0.0:
                    aij = tau
            t = (m - Fj) / aij
            ai, aj = float(alpha[i]), float(alpha[j])
            pi, pj = ypos[i], ypos[j]
            was_low_i = ai > 0 if pi else ai < C
            was_up_j = aj < C if pj else aj > 0
            ai, aj, t = clip_pair(ai, aj, pi, pj, t, C)  # to the box
            alpha[i] = ai
            alpha[j] = aj
            # F <- F - t (K[:, i] - K[:, j]) on the active points (= F - t/2 (a_j - a_i) for rbf)
            oj = plist[j]
            if act is None:
                s_ = slot_of[oj]
                if s_ >= 0 and row_full[s_]:
                    lru_touch(s_)
                    Kj = cache.buf[s_]
                    if not rbf:
                        Kj = Kj[0]
                elif linear:
                    Kj = None
                else:
                    Kj = column(oj) if rbf else column(oj)[0]
            else:
                e = compact.get(oj)
                if e is None:
                    e = None if linear else compact_rows(oj)
                Kj = None if e is None else e[0]
            if rbf:
                np.subtract(Kj, Ki, av)
                s_t[()] = 0.5 * t
                np.multiply(av, s_t, av)
            elif Kj is not None:
                np.subtract(Ki, Kj, av)
                s_t[()] = t
                np.multiply(av, s_t, av)
            else:
                # linear, column of j not at hand: K[:, i] - K[:, j] = X (x_i - x_j), one
                # product over the active points instead of evaluating and caching a column
                np.subtract(Xo[oi], Xo[oj], dx)
                s_t[()] = t
                np.multiply(dx, s_t, dx)
                np.dot(cache.Pa, dx, out=av)  # np.dot: less call overhead than matmul
            np.subtract(Fup, av, Fup)  # two 1-D passes beat one broadcast over both rows
            np.subtract(Flow, av, Flow)
            # new memberships of i and j (i was in I_up, j in I_low before the step); a free
            # multiplier has the same F in both rows, so only a change of set is written
            up, low = (ai < C, ai > 0) if pi else (ai > 0, ai < C)
            if not (up and low == was_low_i):
                Fi = float(Fup[i])
                Fup[i] = Fi if up else -inf
                Flow[i] = Fi if low else inf
            up, low = (aj < C, aj > 0) if pj else (aj > 0, aj < C)
            if not (low and up == was_up_j):
                Fj = float(Flow[j])
                Fup[j] = Fj if up else -inf
                Flow[j] = Fj if low else inf
            it += 1
            since += 1
            pair = (oi, oj)
            i = int(Fup.argmax())
            m = float(Fup[i])
            M = None  # min F on I_low: computed when the next selection needs it
        if since:  # otherwise the state was just yielded, with the right converged flag
            step += 1
            if M is None:
                M = float(Flow.min())
            yield state(pair, done, m, M)

    def _set_state(self, X, y, alpha, b, dual, it, C):
        self.alpha_ = alpha.copy()
        self._alpha_y = self.alpha_ * y
        self.support_ = np.flatnonzero(alpha > 0)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = self._alpha_y[self.support_]
        self.intercept_ = float(b)
        self.dual_objective_ = float(dual)
        self.n_iter_ = int(it)

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X) -> np.ndarray:
        """f(x) = sum_i alpha_i y_i k(x_i, x) + b; shape (n,) or (n, K) for one-vs-rest."""
        self._check_fitted("alpha_")
        X = check_array(X, n_features=self._fit_X.shape[1], max_abs=MAX_ABS_VALUE)
        if hasattr(self, "estimators_"):
            return np.column_stack([e.decision_function(X) for e in self.estimators_])
        if self.support_.size == 0:
            return np.full(X.shape[0], self.intercept_)
        K = self._kernel_func()(X, self.support_vectors_)
        return K @ self.dual_coef_ + self.intercept_

    def snapshot_decision_function(self, snapshot: SVMSnapshot, X) -> np.ndarray:
        """f(x) of the machine in ``snapshot`` (e.g. a heat map during a live run).

        Uses the training data of the current/last ``fit_steps`` call; for one-vs-rest it is
        the binary problem ``snapshot.class_index``.
        """
        if not hasattr(self, "_y_pm"):
            raise NotFittedError("call fit_steps or fit before evaluating a snapshot")
        X = check_array(X, max_abs=MAX_ABS_VALUE)
        sv = np.flatnonzero(snapshot.alpha > 0)
        if sv.size == 0:
            return np.full(X.shape[0], snapshot.b)
        coef = snapshot.alpha[sv] * self._y_pm[snapshot.class_index][sv]
        return self._kernel_func()(X, self._fit_X[sv]) @ coef + snapshot.b

    def predict(self, X) -> np.ndarray:
        """sign(f(x)) mapped back to ``classes_`` (argmax of f for one-vs-rest)."""
        f = self.decision_function(X)
        if f.ndim == 2:
            return self.classes_[np.argmax(f, axis=1)]
        return np.where(f > 0, self.classes_[1], self.classes_[0])

    def kkt_violation(self) -> float:
        """The KKT gap m - M at the end of training (<= tol when SMO converged)."""
        self._check_fitted("alpha_")
        if hasattr(self, "estimators_"):
            return max(e.kkt_violation() for e in self.estimators_)
        return self.kkt_gap_
