"""Principal component analysis: eigen-digits, compression and the power method.

The course's method
-------------------
Data x_1, ..., x_n in R^D (images flattened to rows of ``X``). With the empirical mean and
covariance (the 1/n convention, not scikit-learn's 1/(n-1))

    μ̂ = (1/n) Σ_i x_i,        Σ̂ = (1/n) Σ_i (x_i − μ̂)(x_i − μ̂)ᵀ,

the eigenvalues λ_1 ≥ ... ≥ λ_D of Σ̂ and their unit eigenvectors ξ_1, ..., ξ_D (the
"eigen-digits") give the compression with d components

    x ≈ x^(d) = μ̂ + Σ_{j ≤ d} c_j ξ_j,        c_j = ⟨x − μ̂, ξ_j⟩,

whose total squared error on the training data is Σ_i ‖x_i − x_i^(d)‖² = n Σ_{j > d} λ_j.
Storing the n images costs n·D numbers; compressed, d·D (the ξ_j) + D (μ̂) + n·d (the c_j).

Solvers (``PCA(method=...)``)
-----------------------------
``'eigh'``
    Eigen-decomposition of a symmetric matrix with LAPACK, on the cheaper of two sides
    (``route_`` says which; Shashua's "case n ≫ m"):

    * ``'covariance'``: the D × D matrix X_cᵀ X_c / n, formed by a symmetric rank-k update
      (BLAS ``syrk``) of X itself followed by the rank-one centring −μ̂μ̂ᵀ when the mean is
      small against the spread (little cancellation), else by updates C ← C + B_cᵀ B_c over
      blocks B of rows centred one at a time; no centred copy of a big X is made;
    * ``'gram'``: the n × n Gram matrix G = X_c X_cᵀ, formed by the same updates over blocks
      of columns. If G u = σ u then Σ̂ (X_cᵀ u) = (σ/n) (X_cᵀ u) and ‖X_cᵀ u‖² = σ, so
      ξ = X_cᵀ u / √σ with λ = σ / n: in matrix form U = A Q D^(−1/2) with A = X_cᵀ, Q the
      eigenvectors of G and D their eigenvalues.

    Forming either matrix costs about (n·D·m)/2 multiply-adds and decomposing it about 4m³,
    m the matrix's side, plus n·D·k for mapping the Gram side's vectors back; the smaller
    estimate is taken (in practice the smaller of n and D). Only the top k eigenpairs are
    asked of ``scipy.linalg.eigh(subset_by_index=...)`` when that is cheaper than all.
``'svd'``
    Thin SVD X_c = U S Vᵀ: ξ_j are the rows of Vᵀ and λ_j = s_j² / n (the full-SVD reference).
``'power'``
    The power method v ← B v / ‖B v‖ with B = Σ̂, which converges to ξ_1 at the rate
    λ_2 / λ_1 per iteration; the Rayleigh quotient vᵀ B v converges to λ_1. Hotelling
    deflation B ← B − λ_1 ξ_1 ξ_1ᵀ then makes ξ_2 the top eigenvector, and so on.
    ``fit_steps`` yields one snapshot per iteration (the live lab).
``'randomized'``
    Randomized SVD (Halko, Martinsson & Tropp 2011): a Gaussian sketch X_c Ω with
    k + ``n_oversamples`` columns, ``n_iter`` power iterations (X_c X_cᵀ)^q to sharpen it,
    then an exact SVD of the small projected matrix.

Signs: an eigenvector is only defined up to sign, so every solver flips each component so
that its largest-magnitude entry is positive (ties: the first such entry). The components
of different solvers are then directly comparable.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from ._base import (
    BaseEstimator,
    IterativeMixin,
    Snapshot,
    check_array,
    check_random_state,
    check_scalar,
    frozen_array,
)
from . import _pca_linalg as _linalg
from ._pca_linalg import (
    sign_fix,
    covariance_matrix,
    gram_matrix,
    eigh_top,
    choose_route,
    covariance_route,
    gram_route,
    svd_route,
    randomized_route,
)
from ._params import Integral, Interval, Options, RandomState, Real

__all__ = [
    "PCA",
    "PCASnapshot",
    "storage_cost",
    "compression_ratio",
    "subspace_angle",
    "heldout_residuals",
    "METHODS",
]

METHODS = ("eigh", "svd", "power", "randomized")

#: total variance below which its squares lose digits to underflow (tiny / eps ≈ 1e-292)
_MIN_TOTAL_VARIANCE = np.finfo(np.float64).tiny / np.finfo(np.float64).eps
_EXACT_ANGLE_MAX_D = 256  # the power method computes exact eigenvectors (for `angle`) up to this D


# ----------------------------------------------------------------------------- public helpers


def storage_cost(n: int, D: int, d: int) -> int:
    """Numbers stored for n images of D pixels compressed to d components.

    d·D for the components ξ_1..ξ_d, D for the mean μ̂ and n·d for the coefficients c_ij.
    ``d = 0`` stores only the mean (every image is replaced by μ̂).

    Examples
    --------
    >>> from smlengine.pca import storage_cost
    >>> storage_cost(n=1000, D=64, d=10), storage_cost(n=1000, D=64, d=0)
    (10704, 64)
    """
    n, D, d = _check_sizes(n, D, d)
    return d * D + D + n * d


def compression_ratio(n: int, D: int, d: int) -> float:
    """Uncompressed over compressed size, n·D / (d·D + D + n·d); > 1 means a saving.

    Examples
    --------
    >>> from smlengine.pca import compression_ratio
    >>> round(compression_ratio(n=1000, D=64, d=10), 2)
    5.98
    """
    n, D, d = _check_sizes(n, D, d)
    return (n * D) / storage_cost(n, D, d)


def heldout_residuals(X, max_d: int | None = None, n_folds: int = 10, random_state=0) -> np.ndarray:
    """Cross-validated residual norms: R[i, d] = ‖x_i − x_i^(d)‖ with μ̂ and ξ_1..ξ_d fitted
    without x_i, for d = 0..max_d.

    The rows of ``X`` are dealt at random into ``n_folds`` folds (at most n); each fold is
    reconstructed by the exact PCA (``eigh``) of the other folds:
    ‖z‖² − Σ_{j ≤ d} ⟨z, ξ_j⟩², z = x_i − μ̂. A training image's own residual is
    optimistically small (the components were fitted to it), so a novelty threshold taken
    from the training residuals calls too many new images of the same kind novel; the
    held-out residuals are those of images the model has not seen. Where a fold's model has
    fewer than d components (d > n − n/n_folds or D), its last residual is repeated.

    Returns an array of shape (n, max_d + 1); ``max_d`` defaults to min(n, D, 256).
    Raises ValueError for fewer than 3 rows or a fold whose other rows are all identical.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.pca import heldout_residuals
    >>> X = np.array([[2.0, 1.0], [3.0, 2.0], [4.0, 2.0], [5.0, 4.0], [6.0, 4.0]])
    >>> R = heldout_residuals(X, n_folds=5)
    >>> print(R.shape, np.round(R[:, 1], 3))
    (5, 3) [0.155 0.256 0.581 0.677 0.489]
    """
    X = check_array(X, name="X")
    n, D = X.shape
    if n < 3:
        raise ValueError(f"held-out residuals need at least 3 rows, got {n}")
    check_scalar("n_folds", n_folds, numbers.Integral, min_value=2)
    max_d = min(n, D, 256) if max_d is None else int(max_d)
    check_scalar("max_d", max_d, numbers.Integral, min_value=0, max_value=D)
    folds = min(int(n_folds), n)
    order = check_random_state(random_state).permutation(n)
    out = np.empty((n, max_d + 1))
    for f in range(folds):
        test = order[f::folds]
        train = np.setdiff1d(order, test, assume_unique=True)
        k = min(max_d, len(train), D, 256)
        model = PCA(n_components=max(k, 1), method="eigh").fit(X[train])
        Z = X[test] - model.mean_
        c2 = (Z @ np.asarray(model.components_)[:k].T) ** 2
        r2 = np.einsum("ij,ij->i", Z, Z)[:, None] - np.cumsum(np.c_[np.zeros(len(test)), c2], axis=1)
        r2 = np.c_[r2, np.repeat(r2[:, -1:], max_d - k, axis=1)]
        out[test] = np.sqrt(np.maximum(r2, 0.0))
    return out


def _check_sizes(n, D, d):
    check_scalar("n", n, numbers.Integral, min_value=1)
    check_scalar("D", D, numbers.Integral, min_value=1)
    check_scalar("d", d, numbers.Integral, min_value=0, max_value=D)
    return int(n), int(D), int(d)


def _orthonormal_rows(A, name: str) -> np.ndarray:
    A = check_array(A, name=name)
    q, r = np.linalg.qr(A.T)  # columns of q span the row space of A
    diag = np.abs(np.diag(r))
    if diag.size and diag.min() <= 1e-12 * max(diag.max(), 1e-300):
        raise ValueError(f"the rows of {name} are linearly dependent; they do not span a {A.shape[0]}-D subspace")
    return q


def subspace_angle(A, B) -> float:
    """Largest principal angle (radians, in [0, π/2]) between the row spaces of A and B.

    Both are (k, D) arrays whose rows span a subspace of R^D (for instance the
    ``components_`` of two solvers). With orthonormal bases Q_A, Q_B (columns) and Q_A the
    smaller one, sin θ_max = ‖Q_A − Q_B Q_Bᵀ Q_A‖₂: the sine form stays accurate for tiny
    angles, where arccos of the singular values of Q_Aᵀ Q_B would lose half the digits.
    If the dimensions differ, this is the angle of the smaller space to its best match in
    the larger one (0 when it is contained in it).

    Examples
    --------
    >>> from smlengine.pca import subspace_angle
    >>> round(subspace_angle([[1.0, 0.0, 0.0]], [[1.0, 1.0, 0.0]]), 4)
    0.7854
    >>> round(subspace_angle([[1.0, 0.0, 0.0]], [[0.0, 2.0, 0.0], [3.0, 0.0, 0.0]]), 6)
    0.0
    """
    qa = _orthonormal_rows(A, "A")
    qb = _orthonormal_rows(B, "B")
    if qa.shape[0] != qb.shape[0]:
        raise ValueError(f"A and B must have the same number of columns, got {qa.shape[0]} and {qb.shape[0]}")
    if qa.shape[1] > qb.shape[1]:
        qa, qb = qb, qa
    residual = qa - qb @ (qb.T @ qa)
    sine = np.linalg.norm(residual, 2)
    return float(math.asin(min(1.0, sine)))


# ----------------------------------------------------------------------------- snapshot


@dataclass(frozen=True, kw_only=True, eq=False)
class PCASnapshot(Snapshot):
    """State of a PCA fit.

    ``phase`` is one of

    * ``'init'`` -- the power method starts component ``component`` from a random unit
      vector (orthogonal to the components already found); step 0 is the first of these.
    * ``'iterate'`` -- one power iteration v ← B v / ‖B v‖ was just made.
    * ``'deflate'`` -- component ``component`` is finished and appended to ``components``;
      B ← B − λ ξ ξᵀ follows. The last snapshot of a power run is the ``'deflate'`` of the
      last component and holds the fitted state.
    * ``'done'`` -- the single snapshot of the direct solvers ('eigh', 'svd', 'randomized').

    Attributes
    ----------
    component : int
        Index j (0-based) of the component being computed or just finished. For ``'done'``
        it is ``n_components_ - 1``.
    vector : ndarray of shape (D,)
        The current unit iterate v (power method), or component ``component`` once finished.
        Reshape to the image size to draw it as an eigen-digit.
    rayleigh : float
        Rayleigh quotient vᵀ B v, the current estimate of λ_{component+1}.
    change : float or None
        ‖v_new − v_old‖ after aligning signs; the power method stops when it is <= ``tol``.
        Shrinks by about λ_{j+1}/λ_j per iteration. None for ``'init'`` (no iteration has
        been made, so there is no change yet).
    angle : float or None
        Angle (radians) between v and the exact eigenvector ξ_{component+1} of Σ̂. Computed
        from an exact ``eigh`` of Σ̂ made before the first iteration when D <= 256 (the
        digits: D = 64); None for larger D in live iterations (the exact vector is not known
        then) and 0.0 in ``'deflate'``/``'done'`` snapshots (relative to the result itself).
    n_iter : int
        Power iterations made on this component so far (0 for the direct solvers).
    converged : bool
        Whether this component met the tolerance (True for the direct solvers).
    components : ndarray of shape (k, D)
        Components finished so far, unit rows, sign-fixed (k = ``component`` while iterating,
        ``component + 1`` after deflation). Shared, read-only, between the snapshots of one
        component.
    eigenvalues : ndarray of shape (k,)
        Their eigenvalues λ_j (1/n convention), decreasing.
    mean : ndarray of shape (D,)
        μ̂ (read-only, shared by all snapshots of a run).
    total_variance : float
        trace Σ̂ = Σ_j λ_j (all D eigenvalues), for explained-variance ratios.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.pca import PCA
    >>> X = np.array([[2.0, 1.0], [3.0, 2.0], [4.0, 2.0], [5.0, 4.0], [6.0, 4.0]])
    >>> snaps = list(PCA(n_components=2, method="power", tol=1e-8, random_state=0).fit_steps(X))
    >>> [s.phase for s in snaps if s.phase != "iterate"]
    ['init', 'deflate', 'init', 'deflate']
    >>> last = snaps[-1]
    >>> print(last.component, last.converged, np.round(last.eigenvalues, 3))
    1 True [3.344 0.096]
    """

    component: int
    vector: np.ndarray
    rayleigh: float
    change: float | None
    angle: float | None
    n_iter: int
    converged: bool
    components: np.ndarray
    eigenvalues: np.ndarray
    mean: np.ndarray
    total_variance: float


# ----------------------------------------------------------------------------- estimator


class PCA(IterativeMixin, BaseEstimator):
    """Principal component analysis with the course's 1/n covariance.

    Parameters
    ----------
    n_components : int or None
        Number d of components to keep (1 <= d <= min(n, D)); None keeps min(n, D).
    method : {'eigh', 'svd', 'power', 'randomized'}
        Solver, see the module docstring. 'eigh' picks the covariance (D × D) or the Gram
        (n × n) matrix, whichever is cheaper (``route_``).
    tol : float in [0, 1]
        Power method: stop a component when ‖v_new − v_old‖ <= tol.
    max_iter : int in [1, 10⁶]
        Power method: at most this many iterations per component (``converged_`` tells).
    random_state : None, int or numpy Generator
        Start vectors of the power method, sketch of the randomized solver.
    n_oversamples : int in [0, 10,000]
        Randomized solver: extra sketch columns beyond n_components.
    n_iter : int in [0, 1,000]
        Randomized solver: power iterations on the sketch.

    Attributes
    ----------
    mean_ : ndarray (D,)
        μ̂.
    components_ : ndarray (d, D)
        ξ_1..ξ_d as unit rows, largest-magnitude entry positive.
    eigenvalues_ : ndarray (d,)
        λ_1 ≥ ... ≥ λ_d of Σ̂ (1/n; scikit-learn's
        ``explained_variance_`` is n/(n−1) times this).
    total_variance_ : float
        trace Σ̂ = Σ of all D eigenvalues.
    explained_variance_ratio_ : ndarray (d,)
        λ_j / trace Σ̂.
    n_components_, n_samples_, n_features_ : int
        d, n and D of the fit.
    route_ : str
        how the eigenpairs were found: 'covariance' (D × D) or 'gram' (n × n) for
        'eigh', else the method's name.
    n_iter_ : ndarray of int (d,)
        power iterations per component (0 for direct solvers).
    converged_ : ndarray of bool (d,)
        Whether each component met ``tol`` (always True for direct solvers).
    last_snapshot_ : PCASnapshot
        The final state.

    Notes
    -----
    The ranges are checked before any work (``_parameter_constraints``); a value outside
    them raises a ValueError (a TypeError for the wrong kind) naming the parameter and its
    range, e.g. "n_iter must be an int in [0, 1000]; got 1000000000".

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.pca import PCA
    >>> X = np.array([[2.0, 1.0], [3.0, 2.0], [4.0, 2.0], [5.0, 4.0], [6.0, 4.0]])
    >>> pca = PCA(n_components=2).fit(X)
    >>> print(pca.mean_, np.round(pca.eigenvalues_, 3), pca.route_)
    [4.  2.6] [3.344 0.096] covariance
    >>> print(np.round(pca.components_, 3))
    [[ 0.766  0.643]
     [-0.643  0.766]]
    >>> print(np.round(pca.explained_variance_ratio_, 3))
    [0.972 0.028]
    >>> print(np.round(pca.transform(X, d=1).ravel(), 3))
    [-2.561 -1.152 -0.386  1.666  2.432]
    >>> print(np.round(pca.reconstruct(X[:2], d=1), 3))
    [[2.04  0.953]
     [3.118 1.859]]
    >>> print(np.round(pca.reconstruction_errors(), 3))
    [17.2    0.478  0.   ]
    """

    def __init__(self, n_components=None, method="eigh", tol=1e-10, max_iter=1000, random_state=None,
                 n_oversamples=10, n_iter=4):
        self.n_components = n_components
        self.method = method
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_oversamples = n_oversamples
        self.n_iter = n_iter

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None), None],
        "method": [Options(METHODS)],
        "tol": [Interval(Real, 0, 1)],
        "max_iter": [Interval(Integral, 1, 1_000_000)],
        "random_state": [RandomState(), None],
        "n_oversamples": [Interval(Integral, 0, 10_000)],
        "n_iter": [Interval(Integral, 0, 1_000)],
    }

    # ------------------------------------------------------------------ validation

    def _validate(self, X):
        """Hyper-parameters (their ranges, before anything else), then the data's shape."""
        self.validate_params()
        if not isinstance(X, np.ndarray):
            X = np.asarray(X)
        if getattr(X, "ndim", 2) == 3:
            raise ValueError(f"X must be 2-D (n_images, n_pixels), got shape {X.shape}; "
                             "flatten the images with X.reshape(len(X), -1)")
        if not (X.dtype == np.float64 and X.ndim == 2 and X.size):
            X = check_array(X, name="X")
        # else: finiteness is checked on the mean (one pass, which the fit needs anyway): a NaN
        # or ±inf anywhere makes its column's mean non-finite
        n, D = X.shape
        if n < 2:
            raise ValueError(f"PCA needs at least 2 images, got {n}")
        k = min(n, D) if self.n_components is None else self.n_components
        if k > min(n, D):
            raise ValueError(f"n_components must be <= min(n_samples, n_features) = {min(n, D)}, got {k}")
        return X, int(k)

    @staticmethod
    def _mean(X):
        with np.errstate(over="ignore", invalid="ignore"):
            mean = X.mean(axis=0)
        if not np.all(np.isfinite(mean)):
            check_array(X, name="X")  # names the NaN or infinite values
            largest = float(np.max(np.abs(X)))
            raise ValueError(f"X has values up to {largest:.3g}: their sum overflows; rescale the data")
        mean.setflags(write=False)
        return mean

    @staticmethod
    def _check_scale(X, total, matrix=None):
        """Refuse data whose variance is not a normal positive number (before any result is made).

        Squares of values near 1e200 overflow to inf and those of values near 1e-160 underflow
        to (partly) zero, so the covariance would carry inf/NaN or lose its digits silently.
        """
        finite = math.isfinite(total) and (matrix is None or bool(np.isfinite(matrix).all()))
        if not finite:
            largest = float(np.max(np.abs(X)))
            raise ValueError(f"X has values up to {largest:.3g}: their squares overflow, so the covariance is "
                             "not finite; rescale the data")
        if total <= 0.0 and not np.any(X != X[0]):
            raise ValueError("all images are identical (zero variance): there are no principal directions")
        if total < _MIN_TOTAL_VARIANCE:
            spread = float(np.max(np.abs(X - X[0])))
            raise ValueError(f"X varies by at most {spread:.3g}: the variance {total:.3g} underflows "
                             "(below 1e-292 its digits are lost); rescale the data")

    # ------------------------------------------------------------------ fitting

    def fit_steps(self, X):
        """Fit and yield :class:`PCASnapshot` objects (steps 0, 1, 2, ...).

        The direct solvers yield one ``'done'`` snapshot. The power method yields, for each
        component j: an ``'init'`` snapshot (random unit start v_0 ⟂ ξ_1..ξ_{j−1}), one
        ``'iterate'`` snapshot per v ← B v / ‖B v‖, and a ``'deflate'`` snapshot when
        ‖v_new − v_old‖ <= tol or after max_iter iterations.

        Raises
        ------
        ValueError, TypeError
            A hyper-parameter outside its range (checked before any work), data that is not
            a finite 2-D array of at least 2 rows, identical rows, or values whose squares
            overflow or underflow (the covariance would not be finite or would lose its digits).
        """
        X, k = self._validate(X)
        n, D = X.shape
        mean = self._mean(X)
        self.mean_ = mean
        self.n_samples_, self.n_features_, self.n_components_ = n, D, k
        if self.method == "eigh":
            route = choose_route(n, D, k)
            M = covariance_matrix(X, mean) if route == "covariance" else gram_matrix(X, mean)
            total = float(np.trace(M)) / (1.0 if route == "covariance" else n)
            self._check_scale(X, total, M)
        else:
            route = self.method
            total = _total_variance(X, mean)
            self._check_scale(X, total)
        self.route_ = route
        self.total_variance_ = total
        if self.method == "power":
            yield from self._power_steps(X, mean, k, total)
            return
        if route == "svd":
            lam, W = svd_route(X, mean, k)
        elif route == "randomized":
            lam, W = randomized_route(X, mean, k, int(self.n_oversamples), int(self.n_iter),
                                       check_random_state(self.random_state))
        elif route == "covariance":
            lam, W = covariance_route(X, mean, k, M)
        else:
            lam, W = gram_route(X, mean, k, M)
        self._set_result(lam, W, np.zeros(k, int), np.ones(k, bool))
        yield PCASnapshot(
            step=0, phase="done", progress=1.0, component=k - 1, vector=self.components_[-1],
            rayleigh=float(lam[-1]), change=0.0, angle=0.0, n_iter=0, converged=True,
            components=self.components_, eigenvalues=self.eigenvalues_, mean=mean, total_variance=total,
        )

    def _set_result(self, lam, W, n_iter, converged):
        lam = np.maximum(np.asarray(lam, dtype=float), 0.0)
        W = sign_fix(np.asarray(W, dtype=float))
        self.eigenvalues_ = frozen_array(lam)
        self.components_ = frozen_array(W)
        self.explained_variance_ratio_ = frozen_array(lam / self.total_variance_)
        self.n_iter_ = np.asarray(n_iter, dtype=int)
        self.converged_ = np.asarray(converged, dtype=bool)

    def _power_steps(self, X, mean, k, total):
        n, D = X.shape
        rng = check_random_state(self.random_state)
        tol, max_iter = float(self.tol), int(self.max_iter)
        if D <= n:
            B = covariance_matrix(X, mean)

            def apply(v):
                return B @ v
        else:  # n < D: never form the D × D matrix, apply Σ̂ v = X_cᵀ (X_c v) / n
            Xc = X - mean

            def apply(v):
                return Xc.T @ (Xc @ v) / n
        exact = None
        if D <= _EXACT_ANGLE_MAX_D:
            exact = eigh_top(B if D <= n else covariance_matrix(X, mean), k)[1].T

        W = np.zeros((0, D))
        lam = np.zeros(0)
        iters, conv = [], []
        shared_W, shared_lam = frozen_array(W), frozen_array(lam)
        step = 0

        def deflated(v):
            # Hotelling deflation B_j = B − Σ_{i<j} λ_i ξ_i ξ_iᵀ, applied without forming B_j.
            return apply(v) - W.T @ (lam * (W @ v))

        def angle_to_exact(v, j):
            if exact is None:
                return None
            c = abs(float(exact[j] @ v))
            s = float(np.linalg.norm(v - (exact[j] @ v) * exact[j]))
            return math.atan2(s, c)

        for j in range(k):
            v = rng.standard_normal(D)
            v -= W.T @ (W @ v)
            v /= np.linalg.norm(v)
            Bv = deflated(v)
            rho = float(v @ Bv)
            it, change, ok = 0, None, False
            yield PCASnapshot(
                step=step, phase="init", progress=j / k, component=j, vector=frozen_array(v),
                rayleigh=rho, change=None, angle=angle_to_exact(v, j), n_iter=0, converged=False,
                components=shared_W, eigenvalues=shared_lam, mean=mean, total_variance=total,
            )
            step += 1
            while it < max_iter:
                # Re-orthogonalise against ξ_1..ξ_{j−1}: the same in exact arithmetic, but it
                # stops rounding errors from reviving the components already deflated.
                w = Bv - W.T @ (W @ Bv)
                norm = float(np.linalg.norm(w))
                if norm <= 1e-300:  # B_j v = 0: v already spans the (zero) eigenspace
                    change, ok = 0.0, True
                    break
                w /= norm
                if w @ v < 0:  # align signs so the change measures direction, not sign flips
                    w = -w
                change = float(np.linalg.norm(w - v))
                v = w
                Bv = deflated(v)
                rho = float(v @ Bv)
                it += 1
                ok = change <= tol
                yield PCASnapshot(
                    step=step, phase="iterate", progress=min(1.0, (j + it / max_iter) / k), component=j,
                    vector=frozen_array(v), rayleigh=rho, change=change, angle=angle_to_exact(v, j),
                    n_iter=it, converged=ok, components=shared_W, eigenvalues=shared_lam, mean=mean,
                    total_variance=total,
                )
                step += 1
                if ok:
                    break
            W = np.vstack([W, sign_fix(v[None, :])])
            lam = np.append(lam, max(rho, 0.0))
            iters.append(it)
            conv.append(ok)
            shared_W, shared_lam = frozen_array(W), frozen_array(lam)
            if j == k - 1:
                self._set_result(lam, W, iters, conv)
            yield PCASnapshot(
                step=step, phase="deflate", progress=(j + 1) / k, component=j, vector=frozen_array(W[-1]),
                rayleigh=float(lam[-1]), change=change, angle=0.0, n_iter=it, converged=ok,
                components=shared_W, eigenvalues=shared_lam, mean=mean, total_variance=total,
            )
            step += 1

    # ------------------------------------------------------------------ using the fit

    def _check_X(self, X, name="X"):
        self._check_fitted("components_")
        return check_array(X, name=name, n_features=self.n_features_)

    def _check_d(self, d):
        if d is None:
            return self.n_components_
        check_scalar("d", d, numbers.Integral, min_value=0, max_value=self.n_components_)
        return int(d)

    def transform(self, X, d=None) -> np.ndarray:
        """Coefficients c_ij = ⟨x_i − μ̂, ξ_j⟩ for j <= d (default: all components), shape (n, d)."""
        X = self._check_X(X)
        d = self._check_d(d)
        return (X - self.mean_) @ self.components_[:d].T

    def inverse_transform(self, C) -> np.ndarray:
        """Images μ̂ + Σ_j c_j ξ_j from coefficients C of shape (n, d), d <= n_components_."""
        self._check_fitted("components_")
        C = check_array(C, name="coefficients")
        if C.shape[1] > self.n_components_:
            raise ValueError(f"coefficients have {C.shape[1]} columns, but the model has {self.n_components_} "
                             "components")
        return self.mean_ + C @ self.components_[: C.shape[1]]

    def reconstruct(self, X, d=None) -> np.ndarray:
        """x^(d) = μ̂ + Σ_{j <= d} ⟨x − μ̂, ξ_j⟩ ξ_j for each row of X (the lab's slider)."""
        X = self._check_X(X)
        d = self._check_d(d)
        W = self.components_[:d]
        return self.mean_ + ((X - self.mean_) @ W.T) @ W

    def reconstruction_error(self, X, d=None) -> float:
        """Σ_i ‖x_i − x_i^(d)‖², computed directly by reconstructing X (any data)."""
        X = self._check_X(X)
        diff = X - self.reconstruct(X, d)
        return float(np.einsum("ij,ij->", diff, diff))

    def reconstruction_errors(self) -> np.ndarray:
        """Training error for every d = 0, 1, ..., n_components_ at once: n Σ_{j > d} λ_j.

        Uses the identity Σ_i ‖x_i − x_i^(d)‖² = n Σ_{j > d} λ_j = n (trace Σ̂ − Σ_{j<=d} λ_j),
        so no image is reconstructed. When the whole spectrum is known (d reaches min(n, D))
        the tail sums are accumulated from the small end, which is exact to rounding even
        where trace − cumsum would cancel.
        """
        self._check_fitted("components_")
        lam = self.eigenvalues_
        n = self.n_samples_
        if self.n_components_ == min(self.n_samples_, self.n_features_):
            # the eigenvalues not computed (if any) are zero: the rank of X_c is < n
            tail = np.concatenate([np.cumsum(lam[::-1])[::-1], [0.0]])
        else:
            tail = np.maximum(self.total_variance_ - np.concatenate([[0.0], np.cumsum(lam)]), 0.0)
        return n * tail

    def cumulative_explained_variance(self) -> np.ndarray:
        """Σ_{j<=d} λ_j / trace Σ̂ for d = 1..n_components_ (the model-selection curve)."""
        self._check_fitted("components_")
        return np.cumsum(self.explained_variance_ratio_)


def _total_variance(X, mean):
    """trace Σ̂ = (1/n) Σ_i ‖x_i − μ̂‖², block-wise (no centred copy of a big X)."""
    total = 0.0
    rows = max(1, _linalg.BLOCK_ELEMENTS // max(X.shape[1], 1))
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused by the caller
        for start in range(0, X.shape[0], rows):
            block = X[start:start + rows] - mean
            total += float(np.einsum("ij,ij->", block, block))
    return total / X.shape[0]
