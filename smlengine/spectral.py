"""Spectral methods: Fisher's discriminant, spectral clustering, kernel PCA and CCA.

The course's method
-------------------
**Fisher's LDA.** With class means μ_c, overall mean μ and n_c points in class c,

    S_W = Σ_c Σ_{i ∈ c} (x_i − μ_c)(x_i − μ_c)ᵀ,      S_B = Σ_c n_c (μ_c − μ)(μ_c − μ)ᵀ,

the direction w maximises the Rayleigh quotient J(w) = wᵀS_B w / wᵀS_W w. For two classes
w ∝ S_W⁻¹(μ₁ − μ₀); for q classes the directions are the top eigenvectors of S_W⁻¹S_B
(the generalised problem S_B w = λ S_W w), at most q − 1 of them since S_B has rank ≤ q − 1.

**Spectral clustering.** An affinity graph W (RBF: W_ij = exp(−γ‖x_i − x_j‖²); or the k
nearest neighbours), degrees d_i = Σ_j W_ij, D = diag(d), and the normalised Laplacian

    L = I − D^{-1/2} W D^{-1/2}        (or the unnormalised L = D − W for the ratio cut).

Relaxing the normalised cut (ratio cut) of the graph into k parts gives the k eigenvectors of
the smallest eigenvalues of L; a graph with c connected components has eigenvalue 0 c times,
and a large gap after the k-th eigenvalue says k groups are well separated. The points are
embedded as the rows of those eigenvectors (mapped back by D^{-1/2}, the eigenvectors of the
random-walk Laplacian, in the normalised case) and k-means clusters them there.

**Kernel PCA.** PCA of the centred kernel matrix K̃ = HKH, H = I − 11ᵀ/n: with K̃α = λα,
‖α‖ = 1, the j-th component of x is Σ_i α_ij k̃(x_i, x)/√λ_j (√λ_j α_ij for a training
point). For the linear kernel with n ≫ D the same λ come from the D × D matrix X̃ᵀX̃
(the n ≫ D trick) and α = X̃v/√λ.

**CCA.** Directions u, v maximising corr(Xu, Yv), then the next pair uncorrelated with the
previous ones, and so on. With orthonormal bases Q_X, Q_Y of the centred column spaces,
the canonical correlations are the singular values of Q_XᵀQ_Y: the cosines of the
principal angles between the two column spaces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ._base import (
    BaseEstimator,
    IterativeMixin,
    Snapshot,
    MAX_ABS_VALUE,
    check_array,
    check_random_state,
    check_X_y,
    frozen_array,
)
from ._params import Boolean, Integral, Interval, Options, RandomState, Real
from ._spectral_linalg import (
    as_view,
    kernel_matrix,
    orthonormal_basis,
    positive_definite,
    rayleigh_quotient,
    scatter_matrices,
)
from ._spectral_graph import (
    DENSE_MAX,
    count_components,
    knn_affinity,
    laplacian,
    rbf_affinity,
    smallest_eigenpairs,
    vector_sign_flip,
)
from .kmeans import KMeans

__all__ = [
    "FisherLDA",
    "SpectralClustering",
    "SpectralSnapshot",
    "KernelPCA",
    "CCA",
    "scatter_matrices",
    "rayleigh_quotient",
    "kernel_matrix",
]

#: restarts of k-means in the embedding (the best of them is kept)
KMEANS_RESTARTS = 10
#: k-NN graphs of more points than this are kept sparse (Lanczos eigensolver)
SPARSE_FROM = DENSE_MAX


# ----------------------------------------------------------------------------- Fisher


class FisherLDA(BaseEstimator):
    """Fisher's linear discriminant: the directions that best separate labelled classes.

    The columns of ``scalings_`` solve S_B w = λ S_W w for the largest λ (the Rayleigh
    quotients J(w) = wᵀS_B w / wᵀS_W w, in ``eigenvalues_``), at most q − 1 of them for q
    classes. For two classes the one column is S_W⁻¹(μ₁ − μ₀) scaled to unit length.
    When S_W is singular (fewer points than dimensions, points on a line) a ridge
    10⁻¹⁰·trace(S_W)/D (or 10⁻¹⁰ when S_W = 0) is added to it.

    Parameters
    ----------
    n_components : int >= 1 or None
        Number of directions; ``None`` takes min(q − 1, D). More than that is an error.

    Attributes
    ----------
    scalings_ : ndarray (D, n_components)
        Unit directions w_j, by decreasing J; signed so that their largest entry is positive
        (two classes: so that class ``classes_[1]`` projects above ``classes_[0]``).
    eigenvalues_ : ndarray (n_components,)
        J(w_j) for each direction.
    classes_ : ndarray (q,)
        The class labels.
    means_ : ndarray (q, D)
        Class means μ_c.
    xbar_ : ndarray (D,)
        Overall mean μ.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.spectral import FisherLDA
    >>> X = np.array([[0.0, 0.0], [2.0, 0.3], [0.5, 2.0], [2.5, 2.4]])
    >>> lda = FisherLDA().fit(X, [0, 0, 1, 1])
    >>> print(np.round(lda.scalings_.ravel(), 3), np.round(lda.eigenvalues_, 3))
    [-0.172  0.985] [1540.625]
    >>> print(np.round(lda.transform(X).ravel(), 3))
    [-0.942 -0.991  0.942  0.991]
    """

    _parameter_constraints = {"n_components": [Interval(Integral, 1, None), None]}

    def __init__(self, n_components=None):
        self.n_components = n_components

    def fit(self, X, y) -> "FisherLDA":
        """Learn the class means and the discriminant directions."""
        self.validate_params()
        X, y = check_X_y(X, y, min_samples=2, max_abs=MAX_ABS_VALUE)
        classes = np.unique(y)
        q, D = classes.size, X.shape[1]
        if q < 2:
            raise ValueError(f"Fisher's discriminant needs at least two classes, got {q}")
        most = min(q - 1, D)
        k = most if self.n_components is None else int(self.n_components)
        if k > most:
            raise ValueError(f"n_components must be <= min(classes - 1, features) = {most}, got {k}")
        Sw, Sb = scatter_matrices(X, y)
        Sw_reg = positive_definite(Sw)
        vals, vecs = scipy.linalg.eigh(Sb, Sw_reg, subset_by_index=[D - k, D - 1])
        vals, W = vals[::-1], vecs[:, ::-1]
        W = W / np.linalg.norm(W, axis=0, keepdims=True)
        means = np.array([X[y == c].mean(axis=0) for c in classes])
        if q == 2:
            W = W * (1.0 if float(W[:, 0] @ (means[1] - means[0])) >= 0 else -1.0)
        else:
            W = vector_sign_flip(W)
        self.classes_ = classes
        self.means_ = means
        self.xbar_ = X.mean(axis=0)
        self.scalings_ = W
        self.eigenvalues_ = np.maximum(vals, 0.0)
        self.n_features_in_ = D
        return self

    def transform(self, X) -> np.ndarray:
        """Coordinates (x − μ)ᵀw_j of every row along the discriminant directions."""
        self._check_fitted("scalings_")
        X = check_array(X, n_features=self.n_features_in_, max_abs=MAX_ABS_VALUE)
        return (X - self.xbar_) @ self.scalings_

    def fit_transform(self, X, y) -> np.ndarray:
        """``fit(X, y).transform(X)``."""
        return self.fit(X, y).transform(X)


# ----------------------------------------------------------------------------- spectral clustering


@dataclass(frozen=True, kw_only=True)
class SpectralSnapshot(Snapshot):
    """One stage of spectral clustering.

    Attributes
    ----------
    affinity : ndarray (n, n) or None
        W, in the ``'affinity'`` snapshot (dense graphs only), else None.
    eigenvalues : ndarray (m,) or None
        The smallest eigenvalues of the Laplacian, ascending (from the ``'eigenvectors'`` stage).
    embedding : ndarray (n, k) or None
        The points in the eigenvector embedding.
    labels : ndarray (n,) or None
        Cluster of every point (the k-means stages).
    centers : ndarray (k, k) or None
        k-means centres in the embedding.
    n_connected : int
        Connected components of the affinity graph.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.spectral import SpectralClustering
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]])
    >>> snaps = list(SpectralClustering(2, random_state=0).fit_steps(X))
    >>> [s.phase for s in snaps[:2]], snaps[0].n_connected, snaps[-1].phase
    (['affinity', 'eigenvectors'], 1, 'done')
    """

    affinity: np.ndarray | None = None
    eigenvalues: np.ndarray | None = None
    embedding: np.ndarray | None = None
    labels: np.ndarray | None = None
    centers: np.ndarray | None = None
    n_connected: int = 0


class SpectralClustering(IterativeMixin, BaseEstimator):
    """Clustering along the smallest eigenvectors of a graph Laplacian.

    Parameters
    ----------
    n_clusters : int >= 1
        k, the number of clusters (and of eigenvectors in the embedding).
    affinity : {'rbf', 'knn'}
        RBF weights exp(−γ‖x_i − x_j‖²) between all pairs, or the symmetric k-nearest-neighbour
        connectivity (1 for mutual neighbours, 1/2 for one-sided), sparse above 1500 points.
    gamma : float > 0
        γ of the RBF affinity.
    n_neighbors : int >= 1
        Neighbours of each point in the k-NN graph.
    normalized : bool
        L = I − D^{-1/2}WD^{-1/2} (normalised cut) or L = D − W (ratio cut).
    random_state : None, int or numpy Generator
        Seeds the Lanczos start vector and k-means.

    Attributes
    ----------
    affinity_matrix_ : ndarray (n, n) or scipy.sparse.csr_matrix
        W (zero diagonal).
    eigenvalues_ : ndarray (m,)
        The m smallest eigenvalues of L, ascending: m = min(n, max(k + 5, 10)) for a dense graph,
        k + 1 (the gap after the k-th) for a sparse one, whose Lanczos iterations cost more with m.
    embedding_ : ndarray (n, k)
        The rows of the k eigenvectors (D^{-1/2}u in the normalised case), one per point.
    labels_ : ndarray (n,)
        Cluster of every point.
    n_connected_ : int
        Connected components of the graph. A disconnected graph is clustered all the same
        (each component gives one eigenvalue 0); with more components than k the labels
        join whole components.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.spectral import SpectralClustering
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [8.0, 8.0], [8.0, 9.0], [9.0, 8.0]])
    >>> sc = SpectralClustering(2, gamma=0.5, random_state=0).fit(X)
    >>> sc.labels_[:3].tolist() != sc.labels_[3:].tolist(), len(set(sc.labels_[:3]))
    (True, 1)
    >>> print(np.round(sc.eigenvalues_[:3], 3))
    [0.    0.    1.378]
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None)],
        "affinity": [Options(("rbf", "knn"))],
        "gamma": [Interval(Real, 0, MAX_ABS_VALUE, closed="right")],
        "n_neighbors": [Interval(Integral, 1, None)],
        "normalized": [Boolean()],
        "random_state": [RandomState(), None],
    }

    def __init__(self, n_clusters=2, affinity="rbf", gamma=1.0, n_neighbors=10, normalized=True, random_state=None):
        self.n_clusters = n_clusters
        self.affinity = affinity
        self.gamma = gamma
        self.n_neighbors = n_neighbors
        self.normalized = normalized
        self.random_state = random_state

    def fit_steps(self, X):
        """Yield the stages: ``'affinity'``, ``'eigenvectors'``, then k-means in the embedding.

        The last snapshot (phase ``'done'``) holds the final labels.
        """
        self.validate_params()
        X = check_array(X, max_abs=MAX_ABS_VALUE)
        n, k = X.shape[0], int(self.n_clusters)
        if n < k:
            raise ValueError(f"n_clusters = {k} needs at least {k} points, got {n}")
        rng = check_random_state(self.random_state)
        if self.affinity == "rbf":
            W = rbf_affinity(X, float(self.gamma))
        else:
            W = knn_affinity(X, int(self.n_neighbors), sparse=n > SPARSE_FROM)
        components = count_components(W)
        dense = isinstance(W, np.ndarray)
        yield SpectralSnapshot(step=0, phase="affinity", affinity=frozen_array(W) if dense else None,
                               n_connected=components)
        L, d = laplacian(W, bool(self.normalized))
        m = min(n, max(k + 5, 10) if dense else k + 1)
        vals, vecs = smallest_eigenpairs(L, m, rng)
        U = vecs[:, :k]
        if self.normalized:
            U = U / np.sqrt(np.where(d > 0, d, 1.0))[:, None]
        U = vector_sign_flip(U)
        yield SpectralSnapshot(step=1, phase="eigenvectors", eigenvalues=frozen_array(vals),
                               embedding=frozen_array(U), n_connected=components)
        km = KMeans(k, n_init=KMEANS_RESTARTS, random_state=rng)
        step = 2
        for snap in km.fit_steps(U):
            yield SpectralSnapshot(step=step, phase=snap.phase, eigenvalues=frozen_array(vals),
                                   embedding=frozen_array(U), labels=snap.labels, centers=snap.centers,
                                   n_connected=components)
            step += 1
        labels = km.labels_
        self.affinity_matrix_ = W
        self.eigenvalues_ = vals
        self.embedding_ = U
        self.labels_ = labels
        self.n_connected_ = components
        self.n_features_in_ = X.shape[1]
        yield SpectralSnapshot(step=step, phase="done", eigenvalues=frozen_array(vals), embedding=frozen_array(U),
                               labels=frozen_array(labels), centers=frozen_array(km.cluster_centers_),
                               n_connected=components, progress=1.0)

    def fit_predict(self, X) -> np.ndarray:
        """``fit(X).labels_``."""
        return self.fit(X).labels_


# ----------------------------------------------------------------------------- kernel PCA


class KernelPCA(BaseEstimator):
    """PCA in the feature space of a kernel: the eigenvectors of the centred kernel matrix.

    Parameters
    ----------
    n_components : int >= 1
        Number of components (at most n).
    kernel : {'rbf', 'poly', 'linear'}
        The kernel k(x, y) (see :func:`kernel_matrix`).
    gamma : float > 0 or None
        γ of the RBF and polynomial kernels; ``None`` takes 1/D.
    degree : int >= 1
        Degree of the polynomial kernel.
    coef0 : float
        c₀ of the polynomial kernel.

    Attributes
    ----------
    eigenvalues_ : ndarray (n_components,)
        λ_j of the centred kernel matrix, descending.
    eigenvectors_ : ndarray (n, n_components)
        Unit α_j (signed so that their largest entry is positive). A component whose λ_j is
        zero (up to rounding) maps every point to 0.
    route_ : str
        ``'kernel'`` (n × n) or ``'covariance'`` (linear kernel with n > D: the D × D matrix).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.spectral import KernelPCA
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [3.0, 3.0]])
    >>> kp = KernelPCA(1, kernel="linear").fit(X)
    >>> print(np.round(kp.eigenvalues_, 3), kp.route_)
    [11.] covariance
    >>> print(np.round(kp.transform(X).ravel(), 3))
    [-1.414 -0.707 -0.707  2.828]
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None)],
        "kernel": [Options(("rbf", "poly", "linear"))],
        "gamma": [Interval(Real, 0, MAX_ABS_VALUE, closed="right"), None],
        "degree": [Interval(Integral, 1, 20)],
        "coef0": [Interval(Real, -1e6, 1e6)],
    }

    def __init__(self, n_components=2, kernel="rbf", gamma=None, degree=3, coef0=1):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    def _kernel(self, X, Y=None):
        return kernel_matrix(X, Y, kernel=self.kernel, gamma=self.gamma_, degree=int(self.degree),
                             coef0=float(self.coef0))

    def fit(self, X, y=None) -> "KernelPCA":
        """Eigen-decompose the centred kernel matrix of X (y is ignored)."""
        self.validate_params()
        X = check_array(X, max_abs=MAX_ABS_VALUE)
        n, D = X.shape
        k = int(self.n_components)
        if k > n:
            raise ValueError(f"n_components must be <= the number of points ({n}), got {k}")
        self.gamma_ = 1.0 / D if self.gamma is None else float(self.gamma)
        self.X_fit_ = X
        K = self._kernel(X)
        self.K_col_means_ = K.mean(axis=0)
        self.K_mean_ = float(self.K_col_means_.mean())
        if self.kernel == "linear" and n > D:
            Xc = X - X.mean(axis=0)
            lam, V = scipy.linalg.eigh(Xc.T @ Xc, subset_by_index=[D - min(k, D), D - 1])
            lam, V = lam[::-1], V[:, ::-1]
            A = Xc @ V / np.sqrt(np.where(lam > 0, lam, 1.0))
            if k > D:  # components beyond the rank of a linear kernel are zero
                A, lam = np.c_[A, np.zeros((n, k - D))], np.r_[lam, np.zeros(k - D)]
            self.route_ = "covariance"
        else:
            Kc = K - self.K_col_means_[None, :] - self.K_col_means_[:, None] + self.K_mean_
            lam, A = scipy.linalg.eigh(Kc, subset_by_index=[n - k, n - 1])
            lam, A = lam[::-1], A[:, ::-1]
            self.route_ = "kernel"
        tiny = 1e-12 * max(float(abs(lam[0])) if lam.size else 0.0, 1e-300)
        lam = np.where(lam > tiny, lam, 0.0)
        A = vector_sign_flip(A) * (lam > 0)[None, :]
        self.eigenvalues_ = lam
        self.eigenvectors_ = A
        self.n_features_in_ = D
        return self

    def transform(self, X) -> np.ndarray:
        """Components Σ_i α_ij k̃(x_i, x)/√λ_j of every row of X."""
        self._check_fitted("eigenvectors_")
        X = check_array(X, n_features=self.n_features_in_, max_abs=MAX_ABS_VALUE)
        K = self._kernel(X, self.X_fit_)
        Kc = K - K.mean(axis=1, keepdims=True) - self.K_col_means_[None, :] + self.K_mean_
        scale = np.where(self.eigenvalues_ > 0, 1.0 / np.sqrt(np.where(self.eigenvalues_ > 0, self.eigenvalues_, 1.0)),
                         0.0)
        return Kc @ self.eigenvectors_ * scale[None, :]

    def fit_transform(self, X, y=None) -> np.ndarray:
        """``fit(X).transform(X)``."""
        return self.fit(X).transform(X)


# ----------------------------------------------------------------------------- CCA


class CCA(BaseEstimator):
    """Canonical correlation analysis of two views X (n × p) and Y (n × r) of the same points.

    Parameters
    ----------
    n_components : int >= 1
        Number of canonical pairs, at most min(rank X̃, rank Ỹ) of the centred views.

    Attributes
    ----------
    correlations_ : ndarray (n_components,)
        Canonical correlations ρ_1 ≥ ρ_2 ≥ ..., the cosines of the principal angles between
        the column spaces of the centred X and Y.
    x_weights_ : ndarray (p, n_components)
        Directions u_j; the canonical variates X̃u_j have unit variance (1/n convention).
    y_weights_ : ndarray (r, n_components)
        Directions v_j, likewise, signed so that corr(X̃u_j, Ỹv_j) = ρ_j ≥ 0.
    x_mean_, y_mean_ : ndarray
        Column means of the two views.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.spectral import CCA
    >>> X = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.0], [4.0, 2.0], [5.0, 1.0]])
    >>> Y = np.array([[2.1], [3.9], [6.2], [8.0], [9.9]])
    >>> cca = CCA(1).fit(X, Y)
    >>> print(np.round(cca.correlations_, 4))
    [0.9995]
    """

    _parameter_constraints = {"n_components": [Interval(Integral, 1, None)]}

    def __init__(self, n_components=1):
        self.n_components = n_components

    def fit(self, X, Y) -> "CCA":
        """Find the canonical directions of the two views."""
        self.validate_params()
        X = as_view(X, "X")
        Y = as_view(Y, "Y")
        if X.shape[0] != Y.shape[0]:
            raise ValueError(f"X and Y have different numbers of rows: {X.shape[0]} and {Y.shape[0]}")
        n, k = X.shape[0], int(self.n_components)
        if n < 2:
            raise ValueError(f"CCA needs at least 2 rows, got {n}")
        self.x_mean_, self.y_mean_ = X.mean(axis=0), Y.mean(axis=0)
        Qx, Bx = orthonormal_basis(X - self.x_mean_)
        Qy, By = orthonormal_basis(Y - self.y_mean_)
        most = min(Qx.shape[1], Qy.shape[1])
        if k > most:
            raise ValueError(f"n_components must be <= min(rank of centred X, rank of centred Y) = {most}, got {k}")
        U, s, Vt = np.linalg.svd(Qx.T @ Qy, full_matrices=False)
        scale = np.sqrt(n)
        self.x_weights_ = Bx @ U[:, :k] * scale
        self.y_weights_ = By @ Vt.T[:, :k] * scale
        signs = np.sign(self.x_weights_[np.argmax(np.abs(self.x_weights_), axis=0), np.arange(k)])
        signs[signs == 0] = 1.0
        self.x_weights_ *= signs
        self.y_weights_ *= signs
        self.correlations_ = np.clip(s[:k], 0.0, 1.0)
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X, Y) -> tuple[np.ndarray, np.ndarray]:
        """The canonical variates (X − x̄)u_j and (Y − ȳ)v_j."""
        self._check_fitted("x_weights_")
        X = as_view(X, "X", self.x_weights_.shape[0])
        Y = as_view(Y, "Y", self.y_weights_.shape[0])
        return (X - self.x_mean_) @ self.x_weights_, (Y - self.y_mean_) @ self.y_weights_
