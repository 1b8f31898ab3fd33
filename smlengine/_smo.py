"""SMO for the dual of the soft-margin SVM: the solver behind :class:`smlengine.svm.SVM`.

Writing G = Q alpha - 1 for the gradient of the (minimised) negative dual, with
Q_ij = y_i y_j k(x_i, x_j), and F_t = -y_t G_t, the KKT conditions read

    m(alpha) = max_{t in I_up} F_t  <=  M(alpha) = min_{t in I_low} F_t,

with I_up = {t : alpha_t < C, y_t = +1 or alpha_t > 0, y_t = -1} and I_low the mirror set.
Each pair update picks i = argmax_{I_up} F_t and (second-order rule of Fan, Chen & Lin 2005)
j in I_low with F_j < F_i maximising (F_i - F_j)^2 / a_ij, a_ij = K_ii + K_jj - 2 K_ij, then

    alpha_i += y_i t,   alpha_j -= y_j t,   t = min((F_i - F_j) / a_ij, box limits),
    F <- F - t (K[:, i] - K[:, j]),

until m - M <= tol. ``smlengine._smo_reference`` does the same in plain loops.

Seams: :class:`smlengine._smo_cache.KernelCache` holds the kernel columns;
:meth:`SMOSolver.numpy_pairs` makes runs of pair updates in numpy and
``smlengine._smo_compiled`` the same runs compiled (linear kernel, with numba); the solver's
loop :meth:`SMOSolver.run` does the bookkeeping between runs (snapshots, shrinking, gradient
reconstruction, ``max_iter``).
"""

from __future__ import annotations

import numpy as np

from . import _smo_compiled
from ._smo_compiled import clip_pair

__all__ = ["SMOSolver"]

_SHRINK_EVERY = 1000  # pair updates between shrinking steps (libsvm: min(n, 1000))
_USE_COMPILED = True  # the linear kernel's pair updates in compiled code, when numba is there
# n from which a fit loads the compiled code (about 0.6 s: numba's import and its cache; 2 s the
# first time, to compile): a smaller problem takes less than that in numpy. Once loaded, the
# process uses it for problems of any size.
_COMPILED_MIN_N = 2000
# it evaluates <x_t, x_i> per point (d products); for more features the numpy path's cached
# kernel columns cost less
_COMPILED_MAX_D = 16
# d <= 2 product path: runs of at least this many updates keep both gradient rows in one vector
# (copied in and out once per run)
_DOUBLED_MIN_RUN = 16
_MAX_EVENTS = 2  # shrinking steps remembered between reconstructions (older ones are merged)
# linear kernel with more features than the cache's PRODUCT_MAX_D: the gradient update is the
# product with the points while A (d + 1) stays below this (measured: the cached columns' four
# passes cost less from about 300 active points at d = 20)
_PRODUCT_MAX_WORK = 6000


class SMOSolver:
    """One binary SMO problem on the points of ``cache`` with labels ``y0`` (+-1).

    Shrinking (Joachims 1999; Fan, Chen & Lin 2005, as in libsvm): every min(n, 1000) pair
    updates, a multiplier at a bound whose F_t cannot be part of a violating pair while m and
    M stay put (only in I_up with F_t < M, or only in I_low with F_t > m, with M the smaller
    and m the larger of their values now and at the previous check) is moved behind the
    active prefix [0, A) of the solver's ordering of the points; selection and gradient
    update then cost O(A) instead of O(n), and its F_t is not updated while it is out. When
    the active problem reaches m - M <= tol (and once at m - M <= 10 tol) the full gradient
    is reconstructed, F_t -= sum_s (alpha_s - alpha_s^then) y_s k(x_t, x_s) over the
    multipliers that moved since t left, and the optimality check is repeated on all n
    points, so the result meets the same stopping rule as without shrinking; if it is not
    optimal there, the next shrinking waits a full period.

    The gradient is kept as two rows, FF[0] = F on I_up (-inf elsewhere) and FF[1] = F on
    I_low (+inf elsewhere): i = argmax FF[0] and M = min FF[1] need no masking, and a pair
    update is one subtraction per row.

    A live run (``every`` > 0) also keeps a display copy of the gradient of the shrunk points
    for its snapshots; the solver never reads it, so live and batch runs take the same
    iterates. The runs of pair updates between two bookkeeping events take the same steps
    however they are cut, so ``fit`` and a live run of any ``every`` take the same iterates.

    On the linear kernel with d <= _COMPILED_MAX_D and numba installed, a fit with
    n >= _COMPILED_MIN_N (not a live run of single updates), or any fit once the compiled code
    is loaded in this process, makes its runs of updates in ``smlengine._smo_compiled``: the
    same rule with the kernel evaluated from the points, so its iterates are those of the
    numpy path up to rounding.
    """

    def __init__(self, cache, y0, *, C, tol, max_iter, shrinking, every):
        n = y0.shape[0]
        self.cache, self.y0, self.n = cache, y0, n
        self.C, self.tol, self.max_iter, self.shrinking = float(C), float(tol), int(max_iter), bool(shrinking)
        self.every, self.live = every, every > 0
        self.rbf = cache.kind == "rbf"  # the cache then holds a-rows 2 + tau - 2 K[:, o]
        self.linear = cache.kind == "linear"
        self.product = False  # the gradient update as one product with the points (see _views)
        self.tau = cache.tau
        self.diag = None if self.rbf else cache.diag.tolist()
        # Scalar operands go through 0-d arrays: numpy converts a Python float on every call,
        # which costs as much as the operation itself on a small active set.
        self.s_m, self.s_t = np.zeros(()), np.zeros(())
        self.d = cache.X.shape[1]
        self.dx = np.empty(self.d)
        self.perm = np.arange(n)  # position -> original index
        self.plist = self.perm.tolist()
        self.y = y0.copy()
        self.ypos = (self.y > 0).tolist()  # y_t = +1, as Python bools (the hot loop reads them)
        self.Pp, self.auxp = cache.P, cache.aux  # kernel data per point, in the solver's order
        cache.new_epoch()  # rows evaluated on another problem's active set are not valid here
        self.alpha = np.zeros(n)
        # F = -y * G with G = Q alpha - 1; at alpha = 0, F = y, I_up = {y = +1}, I_low = {y = -1}
        inf = np.inf
        self.FF = np.empty((2, n))
        self.FF[0] = np.where(self.y > 0, self.y, -inf)
        self.FF[1] = np.where(self.y > 0, inf, self.y)
        self.work = np.empty((3, n))
        self.compact = {}  # original index -> (K row, gain row) on the current active set
        self.compact_room = 0
        # The compact rows live in one block (a quarter of the rows' budget), filled from its
        # start again at every change of the active set: memory already touched is used again
        # (touching fresh memory costs about as much as evaluating the row itself).
        self.compact_pool = None
        self.A = n
        self.events = []  # shrinking steps since the last reconstruction: (lo, hi, alpha then)
        self.unshrunk = False
        self.F_disp = self.y.copy() if self.live else None
        self.disp_ref = np.zeros(n)  # alpha (original order) at which F_disp is exact
        self.it = 0
        self.shrunk_ever = False
        self.m_prev = self.M_prev = None
        self.stats = {"shrinks": 0, "reconstructions": 0, "compact_bytes": 0, "compiled_updates": 0,
                      "stacked_updates": 0}
        self._compiled = None
        self._views()

    # ------------------------------------------------------------------ active set and rows
    def _views(self):
        """Views of the working vectors on the active prefix (rebuilt when A changes)."""
        A, n = self.A, self.n
        self.act = None if A == n and not self.shrunk_ever else self.perm[:A]
        self.cache.set_active(self.act, self.Pp[:A], self.auxp[:A])
        self.compact.clear()
        # none at all on a budget that tight: a row not kept is evaluated when needed
        self.compact_room = int(0.25 * self.cache.row_budget // (8 * A * (1 if self.rbf else 2)))
        self.Fup, self.Flow = self.FF[0, :A], self.FF[1, :A]
        self.nv, self.av, self.tb = self.work[0, :A], self.work[1, :A], self.work[2, :A]
        # linear: the product X (t (x_i - x_j)) costs A d, the cached columns' difference A and
        # a column of j; a few features, or few active points, make the product the cheaper
        self.product = self.linear and (self.cache.by_product or A * (self.d + 1) <= _PRODUCT_MAX_WORK)
        self._points = None  # product path: the active points as lists of Python floats (made when asked)
        self._stacked = None  # product path: its two (2A, d + 1) blocks (made when asked)
        self._doubled = None  # d <= 2 product path: its doubled rows (made when asked)

    def rows(self, o):
        """(K column, gain row) of original point o on the active set, in the solver's order:
        for rbf both are the a-row 2 + tau - 2 K[:, o]; otherwise K[:, o] and r = a^(-1/2).
        While shrunk, the rows gathered for the active set are kept (compact) until it changes:
        a dict look-up instead of a gather."""
        if self.act is None:
            cache = self.cache
            s = cache.slot_of[o]
            if s >= 0 and cache.full[s]:  # a cache hit of a full row, inlined (the common case)
                cache.lru.move_to_end(s)
                r = cache.buf[s]
            else:
                r = cache.column(o)
            return (r, r) if self.rbf else (r[0], r[1])
        e = self.compact.get(o)
        return self._compact_rows(o) if e is None else e

    def _compact_rows(self, o):
        A, k, per = self.A, len(self.compact), 1 if self.rbf else 2
        if k < self.compact_room:
            if self.compact_pool is None:
                self.compact_pool = np.empty(int(0.25 * self.cache.row_budget) // 8)
            out = self.compact_pool[k * per * A : (k + 1) * per * A].reshape((per, A) if per == 2 else (A,))
        else:
            out = np.empty((per, A) if per == 2 else A)
        r = self.cache.column(o, out)
        e = (r, r) if self.rbf else (r[0], r[1])
        if k < self.compact_room:
            self.compact[o] = e
            nbytes = 8 * A * (1 if self.rbf else 2) * len(self.compact)
            self.stats["compact_bytes"] = max(self.stats["compact_bytes"], nbytes)
        return e

    # ------------------------------------------------------------------ the gradient
    def gradient(self, lo, hi):
        """F on positions lo..hi, read back from the two rows."""
        up = self.FF[0, lo:hi]
        return np.where(up > -np.inf, up, self.FF[1, lo:hi])

    def alpha_original(self):
        """The multipliers alpha in the points' original order (the solver keeps them permuted)."""
        out = np.empty(self.n)
        out[self.perm] = self.alpha
        return out

    def extremes(self):
        """i = argmax F on I_up, m = F_i and M = min F on I_low, on the active set."""
        A = self.A
        i = int(self.FF[0, :A].argmax())
        return i, float(self.FF[0, i]), float(self.FF[1, :A].min())

    def _catch_up(self, lo, hi, a_then, a_now):
        """F on the shrunk positions lo..hi, left at alpha = a_then, brought to a_now:
        F_t -= sum_s (a_now - a_then)_s y_s k(x_t, x_s) over the multipliers that moved."""
        d = a_now - a_then
        S = np.flatnonzero(d)
        if S.size:
            FF = self.FF
            Fs = self.gradient(lo, hi) - self.cache.block_dot(self.perm[lo:hi], S, d[S] * self.y0[S])
            FF[0, lo:hi] = np.where(FF[0, lo:hi] > -np.inf, Fs, -np.inf)
            FF[1, lo:hi] = np.where(FF[1, lo:hi] < np.inf, Fs, np.inf)

    def _remember_shrink(self, lo, hi):
        """Record a shrinking step; beyond _MAX_EVENTS the oldest block is brought up to the
        next one's multipliers and joins it (each record holds n floats)."""
        events = self.events
        if len(events) >= _MAX_EVENTS:
            lo1, hi1, a1 = events.pop(0)
            lo2, hi2, a2 = events[0]
            self._catch_up(lo1, hi1, a1, a2)
            events[0] = (lo2, hi1, a2)  # the older block sits right behind the newer one
        events.append((lo, hi, self.alpha_original()))

    def reconstruct(self):
        """Bring F of the shrunk points up to date; the active set becomes everything."""
        a_now = self.alpha_original()
        for lo, hi, a_then in self.events:
            self._catch_up(lo, hi, a_then, a_now)
        self.events.clear()
        self.cache.new_epoch()
        self.stats["reconstructions"] += 1
        self.A = self.n
        self._views()

    def _sync_display(self):
        """F_disp = exact F on all points (live runs only; never read by the solver)."""
        A, n, F_disp = self.A, self.n, self.F_disp
        a_now = self.alpha_original()
        if A < n:
            d = a_now - self.disp_ref
            S = np.flatnonzero(d)
            if S.size:
                F_disp[A:] -= self.cache.block_dot(self.perm[A:], S, d[S] * self.y0[S])
            F_disp[:A] = self.gradient(0, A)
        else:
            F_disp[:] = self.gradient(0, n)
        self.disp_ref = a_now
        return a_now

    def _shrink(self, i, m):
        """The shrinking step (see the class); returns the selection (i, m) on the new active set."""
        A, n, FF, tol, inf = self.A, self.n, self.FF, self.tol, np.inf
        M = float(FF[1, :A].min())
        moved = False
        if not self.unshrunk and m - M <= 10.0 * tol:
            self.unshrunk = True
            if A < n:
                self.reconstruct()
                A = n
                i, m, M = self.extremes()
                moved = True
        up, low = FF[0, :A], FF[1, :A]
        # libsvm compares with the current m and M; the wider of these and the previous
        # check's keeps bounded points near the margin in (on heavily overlapping data they
        # re-entered after each reconstruction, which doubled the number of pair updates)
        Ms, ms = min(M, self.M_prev), max(m, self.m_prev)
        self.m_prev, self.M_prev = m, M
        mask = (low == inf) & (up < Ms)
        mask |= (up == -inf) & (low > ms)
        k = int(np.count_nonzero(mask))
        if k:
            if self.live:
                self._sync_display()
            order = np.concatenate([np.flatnonzero(~mask), np.flatnonzero(mask)])
            self._remember_shrink(A - k, A)
            if not self.shrunk_ever:
                self.Pp, self.auxp = self.Pp.copy(), self.auxp.copy()
            FF[:, :A] = FF[:, order]
            for arr in (self.alpha, self.y, self.perm, self.Pp, self.auxp) + ((self.F_disp,) if self.live else ()):
                arr[:A] = arr[order]
            self.ypos = (self.y > 0).tolist()
            self.plist = self.perm.tolist()
            self.A = A - k
            self.shrunk_ever = True
            self.stats["shrinks"] += 1
            moved = True
        if moved:
            self._views()
            i, m, _ = self.extremes()
        return i, m

    # ------------------------------------------------------------------ pair updates
    def numpy_pairs(self, i, m, kmax):
        """Up to ``kmax`` pair updates on the active set, each selection followed by the
        optimality check, the last one too (with kmax = 0 a call only checks).

        Per update: the gain (m - F_t) r_t (rbf: (m - F_t) |m - F_t| / a_t) over I_low, whose
        argmax is j (entries with F_t >= m score <= 0, those outside I_low -inf); if
        m - F_j <= tol and also m - M <= tol (M = min F on I_low: m - M >= m - F_j, so it is
        read only then) it stops before the update. Otherwise t = (m - F_j) / a_ij clipped to
        the box, F -= t (K[:, i] - K[:, j]) (linear: X (t (x_i - x_j)), one product, see
        :meth:`product_pairs`), the new memberships of i and j, and the next i = argmax F on I_up.

        Returns (updates done, i, m, positions of the last pair, stopped because optimal).
        """
        if self.product and not self.cache.by_product:
            return self.product_pairs(i, m, kmax)
        A, Fup, Flow, Pa = self.A, self.Fup, self.Flow, self.cache.Pa
        linear = self.product  # here: the cache's by_product (d <= PRODUCT_MAX_D)
        if linear and kmax < _DOUBLED_MIN_RUN:  # a live run's few updates: not worth the copies
            if self._points is None:
                self._points = Pa.tolist()
            return self._pairs(i, m, kmax, Fup, Flow, self._points, None, None, None)
        if linear:
            if self._points is None:
                self._points = Pa.tolist()
            points = self._points
            # both gradient rows in one vector, the points twice: the update is one product and
            # one subtraction (each row's value as in X dx, the same products, so the same iterates)
            F2, P2, av2 = self._doubled_rows()
            F2[:A] = Fup
            F2[A:] = Flow
            Fup, Flow = F2[:A], F2[A:]
            try:
                return self._pairs(i, m, kmax, Fup, Flow, points, F2, P2, av2)
            finally:
                self.Fup[:] = Fup
                self.Flow[:] = Flow
        return self._pairs(i, m, kmax, Fup, Flow, None, None, None, None)

    def _doubled_rows(self):
        """The d <= 2 product path's (F on I_up then F on I_low, the active points twice, X dx twice)."""
        if self._doubled is None:
            A, Pa = self.A, self.cache.Pa
            P2 = np.empty((2 * A, self.d))
            P2[:A] = Pa
            P2[A:] = Pa
            self._doubled = np.empty(2 * A), P2, np.empty(2 * A)
        return self._doubled

    def _pairs(self, i, m, kmax, Fup, Flow, points, F2, P2, av2):
        """The loop of :meth:`numpy_pairs` (``points`` given: the d <= 2 product path)."""
        nv, av, tb = self.nv, self.av, self.tb
        alpha, ypos, plist, rows = self.alpha, self.ypos, self.plist, self.rows
        C, tol, tau, rbf, diag = self.C, self.tol, self.tau, self.rbf, self.diag
        s_m, s_t, dx, d, Pa = self.s_m, self.s_t, self.dx, self.d, self.cache.Pa
        linear = points is not None
        subtract, multiply, inf = np.subtract, np.multiply, np.inf
        compact_get = None if self.act is None else self.compact.get  # shrunk: the kept rows first
        k = 0
        li = lj = -1
        while True:
            oi = plist[i]
            e = None if compact_get is None else compact_get(oi)
            Ki, g = rows(oi) if e is None else e
            s_m[()] = m
            subtract(s_m, Flow, nv)
            if rbf:
                np.absolute(nv, tb)
                multiply(nv, tb, nv)
                np.divide(nv, g, nv)
            else:
                multiply(nv, g, nv)
            j = int(nv.argmax())
            Fj = Flow.item(j)
            if m - Fj <= tol and m - float(Flow.min()) <= tol:
                return k, i, m, li, lj, True
            if k >= kmax:
                return k, i, m, li, lj, False
            # a_ij = K_ii + K_jj - 2 K_ij, as in the row (tau where it is <= 0)
            if rbf:
                aij = g.item(j)
            else:
                aij = (-2.0 * Ki.item(j) + diag[plist[j]]) + diag[oi]
                if not aij > 0.0:
                    aij = tau
            t = (m - Fj) / aij
            ai, aj = alpha.item(i), alpha.item(j)
            pi, pj = ypos[i], ypos[j]
            was_low_i = ai > 0 if pi else ai < C
            was_up_j = aj < C if pj else aj > 0
            ai, aj, t = clip_pair(ai, aj, pi, pj, t, C)  # to the box
            alpha[i] = ai
            alpha[j] = aj
            if linear:  # K[:, i] - K[:, j] = X (x_i - x_j): one product, no column of j
                xi, xj = points[i], points[j]
                dx[0] = t * (xi[0] - xj[0])  # in Python floats: cheaper than numpy calls on d <= 2 numbers
                if d == 2:
                    dx[1] = t * (xi[1] - xj[1])
                if F2 is None:
                    np.dot(Pa, dx, out=av)  # np.dot: less call overhead than matmul
                    subtract(Fup, av, Fup)
                    subtract(Flow, av, Flow)
                else:
                    np.dot(P2, dx, out=av2)
                    subtract(F2, av2, F2)
            else:
                oj = plist[j]
                e = None if compact_get is None else compact_get(oj)
                Kj = (rows(oj) if e is None else e)[0]
                if rbf:  # K[:, i] - K[:, j] = (a_j - a_i) / 2
                    subtract(Kj, Ki, av)
                    s_t[()] = 0.5 * t
                else:
                    subtract(Ki, Kj, av)
                    s_t[()] = t
                multiply(av, s_t, av)
                subtract(Fup, av, Fup)  # two 1-D passes beat one broadcast over both rows
                subtract(Flow, av, Flow)
            # new memberships of i and j (i was in I_up, j in I_low before the step); a free
            # multiplier has the same F in both rows, so only a change of set is written
            up, low = (ai < C, ai > 0) if pi else (ai > 0, ai < C)
            if not (up and low == was_low_i):
                Fi = Fup.item(i)
                Fup[i] = Fi if up else -inf
                Flow[i] = Fi if low else inf
            up, low = (aj < C, aj > 0) if pj else (aj > 0, aj < C)
            if not (low and up == was_up_j):
                Fj = Flow.item(j)
                Fup[j] = Fj if up else -inf
                Flow[j] = Fj if low else inf
            k += 1
            li, lj = i, j
            i = int(Fup.argmax())
            m = Fup.item(i)

    def _stacked_blocks(self):
        """The product path's two blocks B of shape (2A, d + 1), column-major: the active points
        (in the solver's order) twice in the first d columns, the gradient rows F on I_up and F
        on I_low one after the other in the last. One product B (-t (x_i - x_j), 1) is then the
        whole gradient update of both rows, written into the other block's last column."""
        if self._stacked is None:
            A, d, Pa = self.A, self.d, self.cache.Pa
            blocks = []
            for _ in range(2):
                B = np.empty((2 * A, d + 1), order="F")
                B[:A, :d] = Pa
                B[A:, :d] = Pa
                blocks.append((B, B[:, d], B[:A, d], B[A:, d]))
            self._stacked = blocks, np.empty(d + 1), np.empty(d)
            self._rows_of_points = list(Pa)  # x_t as views (indexing Pa makes a new one each time)
        return self._stacked

    def product_pairs(self, i, m, kmax):
        """:meth:`numpy_pairs` on the linear kernel: K[:, i] - K[:, j] = X (x_i - x_j), so the
        gradient update needs no column of j. F on I_up and on I_low are updated by one matrix
        product: with B = [X X'; X F] (the points twice, the two gradient rows as a last
        column, see :meth:`_stacked_blocks`), the new rows are B (-t (x_i - x_j), 1), written into
        a second block whose point columns are the same; the blocks then swap. F comes in from
        the solver's rows at the start of a run and goes back at its end."""
        (blk, nxt), v, w = self._stacked_blocks()
        _, _, Fup, Flow = blk
        Fup[:] = self.Fup
        Flow[:] = self.Flow
        nv, alpha, ypos, plist, rows = self.nv, self.alpha, self.ypos, self.plist, self.rows
        C, tol, tau, diag, s_m, s_t, d = self.C, self.tol, self.tau, self.diag, self.s_m, self.s_t, self.d
        if d <= 2 and self._points is None:
            self._points = self.cache.Pa.tolist()
        points = self._points
        prow = self._rows_of_points
        v[d] = 1.0
        vd = v[:d]
        subtract, multiply, dot, inf = np.subtract, np.multiply, np.dot, np.inf
        compact_get = None if self.act is None else self.compact.get  # shrunk: the kept rows first
        k = 0
        li = lj = -1
        try:
            while True:
                oi = plist[i]
                e = None if compact_get is None else compact_get(oi)
                Ki, g = rows(oi) if e is None else e
                s_m[()] = m
                subtract(s_m, Flow, nv)
                multiply(nv, g, nv)
                j = int(nv.argmax())
                Fj = Flow.item(j)
                if m - Fj <= tol and m - float(Flow.min()) <= tol:
                    return k, i, m, li, lj, True
                if k >= kmax:
                    return k, i, m, li, lj, False
                # a_ij = K_ii + K_jj - 2 K_ij, as in the row (tau where it is <= 0)
                aij = (-2.0 * Ki.item(j) + diag[plist[j]]) + diag[oi]
                if not aij > 0.0:
                    aij = tau
                t = (m - Fj) / aij
                ai, aj = alpha.item(i), alpha.item(j)
                pi, pj = ypos[i], ypos[j]
                was_low_i = ai > 0 if pi else ai < C
                was_up_j = aj < C if pj else aj > 0
                ai, aj, t = clip_pair(ai, aj, pi, pj, t, C)  # to the box
                alpha[i] = ai
                alpha[j] = aj
                # v = (-t (x_i - x_j), 1) = (t (x_j - x_i), 1)
                if d == 2:  # in Python floats: cheaper than numpy calls on two numbers
                    xi, xj = points[i], points[j]
                    v[0] = -(t * (xi[0] - xj[0]))
                    v[1] = -(t * (xi[1] - xj[1]))
                else:
                    subtract(prow[i], prow[j], w)
                    s_t[()] = -t
                    multiply(w, s_t, vd)
                _, Fb, Fup, Flow = nxt
                dot(blk[0], v, out=Fb)  # both gradient rows, into the other block
                blk, nxt = nxt, blk
                # new memberships of i and j (i was in I_up, j in I_low before the step); a free
                # multiplier has the same F in both rows, so only a change of set is written
                up, low = (ai < C, ai > 0) if pi else (ai > 0, ai < C)
                if not (up and low == was_low_i):
                    Fi = Fup.item(i)
                    Fup[i] = Fi if up else -inf
                    Flow[i] = Fi if low else inf
                up, low = (aj < C, aj > 0) if pj else (aj > 0, aj < C)
                if not (low and up == was_up_j):
                    Fj = Flow.item(j)
                    Fup[j] = Fj if up else -inf
                    Flow[j] = Fj if low else inf
                k += 1
                li, lj = i, j
                i = int(Fup.argmax())
                m = Fup.item(i)
        finally:
            self.Fup[:] = Fup
            self.Flow[:] = Flow
            self.stats["stacked_updates"] += k
            blocks, v, w = self._stacked
            self._stacked = (blk, nxt), v, w

    def compiled_pairs(self, i, m, kmax):
        """:meth:`numpy_pairs` in ``smlengine._smo_compiled`` (linear kernel)."""
        cache, A = self.cache, self.A
        k, i, m, li, lj, optimal = self._compiled(
            cache.Pa, cache.auxa, self.y[:A], self.alpha[:A], self.Fup, self.Flow,
            self.C, self.tol, self.tau, i, m, kmax,
        )
        self.stats["compiled_updates"] += k
        return k, i, m, li, lj, optimal

    def _pick_pairs(self):
        X = self.cache.X
        if (
            _USE_COMPILED and self.cache.kind == "linear" and X.shape[1] <= _COMPILED_MAX_D and X.flags.c_contiguous
            and (_smo_compiled.loaded() or (self.n >= _COMPILED_MIN_N and self.every != 1))
        ):
            self._compiled = _smo_compiled.linear_pairs()
        return self.numpy_pairs if self._compiled is None else self.compiled_pairs

    # ------------------------------------------------------------------ the loop
    def run(self):
        """Generator: yields (pair, converged) for the initial state, after every ``every``
        pair updates (none if 0) and for the final state (read it with :meth:`summary`).

        ``pair`` holds the original indices of the last pair updated (None before the first).
        Between two events (a snapshot due, the shrinking step, ``max_iter``, optimality on
        the active set) the updates go in one run (:meth:`numpy_pairs` or its compiled twin).
        """
        n, tol, every = self.n, self.tol, self.every
        i, m, M = self.extremes()
        self.m_prev, self.M_prev = m, M
        yield None, m - M <= tol
        if m - M <= tol:
            return
        pairs = self._pick_pairs()
        counter = min(n, _SHRINK_EVERY)
        since = 0
        pair = None
        done = False
        reported = False  # whether the last yield was of the current state, converged or not
        reported_done = False
        while True:
            kmax = min(counter, self.max_iter - self.it, every - since if every else counter)
            k, i, m, li, lj, optimal = pairs(i, m, kmax)
            if k:
                self.it += k
                since += k
                counter -= k
                pair = (self.plist[li], self.plist[lj])
                reported = False
            if optimal:
                if self.A < n:
                    self.reconstruct()  # optimal on the active set: check all points
                    i, m, M = self.extremes()
                    # if not optimal after all, the points that came back get a full period
                    # before the next shrinking (libsvm shrinks at once; on overlapping data
                    # that sent them out and back again, reconstruction after reconstruction)
                    counter = min(n, _SHRINK_EVERY)
                    if m - M > tol:
                        continue  # select again, on all points
                done = True
            if every and since >= every:
                since = 0
                reported, reported_done = True, done
                yield pair, done
            if done:
                break
            if self.it >= self.max_iter:
                if self.A < n:
                    self.reconstruct()  # report the exact state on all points
                break
            if counter <= 0:
                counter = min(n, _SHRINK_EVERY)
                if self.shrinking:
                    i, m = self._shrink(i, m)
        if not reported or done != reported_done:
            yield pair, done

    def summary(self):
        """(alpha in the original order, b, dual objective, m - M, training error) now.

        b = mean of F_t over the free support vectors (0 < alpha_t < C), or (m + M) / 2
        without any; dual = sum alpha - 1/2 alpha^T Q alpha = 1/2 sum alpha - 1/2 alpha^T G."""
        A, n, FF, inf = self.A, self.n, self.FF, np.inf
        if A == n:
            Fs, a_orig = self.gradient(0, n), self.alpha_original()
        else:
            a_orig = self._sync_display()
            Fs = self.F_disp
        m = float(Fs[FF[0] > -inf].max(initial=-inf))
        M = float(Fs[FF[1] < inf].min(initial=inf))
        alpha, y = self.alpha, self.y
        free = (alpha > 0) & (alpha < self.C)
        b = float(Fs[free].mean()) if free.any() else 0.5 * (m + M)
        dual = 0.5 * float(alpha.sum()) + 0.5 * float(alpha @ (y * Fs))
        f = y - Fs + b  # f(x_t) on training points from the maintained gradient
        err = float(np.mean(np.where(f > 0, 1.0, -1.0) != y))
        return a_orig, b, dual, float(m - M), err
