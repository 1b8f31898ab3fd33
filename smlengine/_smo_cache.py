"""Kernel columns for SMO, least recently used first out, in a byte budget (libsvm's cache).

What a pair update reads per point of the active set: the kernel column of a point of the
pair and what the working-set selection divides by, kept in one block of rows in the order
of the data and handed to the solver in its own (shrinking) order.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ._kernel_formulas import KernelRows

__all__ = ["KernelCache", "TAU", "WORK_VECTORS"]

TAU = 1e-12  # curvature floor for non-PD kernels / duplicate points (as in LIBSVM)
# Float vectors of n entries a fit may hold at once besides the kernel rows (counted against
# cache_size): data and kernel terms, the solver's gradient rows, work rows, multipliers and
# orderings (with their Python lists), the multipliers saved at shrinking steps, the
# temporaries of a reconstruction and of the final state, the compact rows in use but not
# kept. Measured with tracemalloc: up to about 65 (N = 30,000, rbf).
WORK_VECTORS = 80
# Linear kernel: full rows kept at most. They serve only until the first shrinking step (a
# column on the active set is then one product, evaluated when needed), where the first
# touch of fresh memory costs more than evaluating a row again into a row in use (an LRU
# miss); measured on blobs N = 3,000: 2 % more evaluations than an unbounded cache.
LINEAR_MAX_ROWS = 128
# Linear kernel: up to this many features a gradient update is one product with the points
# (X (t (x_i - x_j))); beyond it the cached columns of i and j cost less.
PRODUCT_MAX_D = 2


class KernelCache:
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
    A linear column on the active set with d <= PRODUCT_MAX_D is not scattered: one product
    with d columns costs less than the scatter and the later gather.
    The solver reads rows gathered in its own (shrinking) order: O(A) per column instead of
    reordering every cached row at each shrinking step.
    """

    def __init__(self, X, kind, gamma, degree, coef0, cache_bytes, extra_vectors=0):
        n = X.shape[0]
        self.n = n
        self.kind = kind
        self.X = X
        self.by_product = kind == "linear" and X.shape[1] <= PRODUCT_MAX_D
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
        self.tau = TAU * max(kscale, 1e-280)
        self._consts = (np.array(-2.0), np.array(self.tau), np.array(1.0))
        self._s_o = np.zeros(())
        self._two_tau = np.array(2.0 + TAU)
        self.diag_list = self.diag.tolist()
        # What a row evaluation reads per point, kept by the solver in its own order: P (the
        # kernel's rows to multiply by x_o) and one number (the kernel's term for rbf; else
        # k(x_t, x_t), for the a-row).
        self.P = self.rows.P
        self.aux = self.rows.aux if kind == "rbf" else self.diag
        # The budget covers the whole fit, not only the rows: the gradient reconstruction's
        # kernel blocks and the O(n) working vectors (the solver's and the fit's, counted in
        # WORK_VECTORS) are set aside first; of what is left, 3/4 hold full rows and 1/4 the
        # solver's compact rows while shrunk.
        self.budget = cache_bytes
        self.block_bytes = min(16 * 2**20, max(2**16, cache_bytes / 32))
        self.reserved = self.block_bytes + 8 * n * (WORK_VECTORS + extra_vectors)
        self.row_budget = max(0.0, cache_bytes - self.reserved)
        row_bytes = 8 * n * (1 if kind == "rbf" else 2)  # rbf: a-row; else K row and a-row
        self.capacity = int(min(n, max(2, (0.75 * self.row_budget) // row_bytes)))
        if self.by_product:
            self.capacity = min(self.capacity, LINEAR_MAX_ROWS)
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
        elif act is not None and self.by_product:
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
            np.subtract(self._two_tau, out, out=out)  # a_t = 1 + 1 - 2 K_to + tau
            return
        K, r = out[0], out[1]
        if self.kind == "linear":
            np.dot(Pa, self.X[o], out=K)  # K[:, o] (np.dot: less call overhead than matmul)
        else:
            self.rows.row(o, K, Pa, None)
        # scalars as 0-d arrays: numpy converts a Python float at every call
        consts, s_o = self._consts, self._s_o
        s_o[()] = self.diag_list[o]
        np.multiply(K, consts[0], out=r)
        np.add(r, auxa, out=r)
        np.add(r, s_o, out=r)
        np.maximum(r, consts[1], out=r)  # as LIBSVM (a <= 0 -> tau), with a tau on the kernel's scale
        # r = a^(-1/2): the selection's gain (F_i - F_t)^2 / a_t, for F_t < F_i, is then the
        # square of (F_i - F_t) r_t, one product that keeps the sign instead of four passes
        np.sqrt(r, out=r)
        np.divide(consts[2], r, out=r)

    def block_dot(self, R, S, coef):
        """K[R, S] @ coef for original indices R and S (gradient reconstruction), in blocks
        of ``block_bytes`` (1/32 of the budget, between 64 kB and 16 MB), set aside in it."""
        return self.rows.block_dot(R, S, coef, max_bytes=self.block_bytes)
