"""The run (Qt-free): Fisher's direction against PCA's, spectral clustering against k-means,
kernel PCA of the rings and CCA of two noisy sensors, through :mod:`smlengine.spectral`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from smlengine import Snapshot, frozen_array
from smlengine.datasets import make_dataset
from smlengine.kmeans import KMeans
from smlengine.spectral import (
    CCA,
    FisherLDA,
    KernelPCA,
    SpectralClustering,
    kernel_matrix,
    rayleigh_quotient,
    scatter_matrices,
)

METHODS = [("fisher", "Fisher vs PCA"), ("spectral", "Spectral clustering"), ("kpca", "Kernel PCA"), ("cca", "CCA")]
DATASETS = [("moons", "Two moons"), ("circles", "Two rings"), ("blobs", "Blobs")]
KERNELS = [("rbf", "RBF"), ("poly", "Polynomial"), ("linear", "Linear")]
AFFINITIES = [("rbf", "RBF (γ)"), ("knn", "k nearest")]
ANGLE_STEP = 3  # degrees per step of the Fisher run's hand-rotated direction
N_EIGEN_SHOWN = 10
N_KERNEL_COMPONENTS = 6
MAX_EDGES = 4000  # edges of the affinity graph drawn (the strongest)


@dataclass(frozen=True, kw_only=True, eq=False)
class SpectralFisherSnapshot(Snapshot):
    """Classes in the plane, PCA's and Fisher's directions and a direction at ``angle`` degrees."""

    X: np.ndarray
    y: np.ndarray
    pca_dir: np.ndarray
    fisher_dir: np.ndarray
    angle: float
    angles: np.ndarray  # every angle of the sweep so far (degrees) ...
    J: np.ndarray  # ... and its Rayleigh quotient
    J_pca: float
    J_fisher: float
    best_angle: float
    classes: np.ndarray  # (q, 4): each class's mean (x, y), stretch and tilt (degrees), as dragged


@dataclass(frozen=True, kw_only=True, eq=False)
class SpectralClusteringSnapshot(Snapshot):
    """One stage of spectral clustering of ``X``, and k-means on the same points."""

    X: np.ndarray
    edges: np.ndarray  # (m, 2) indices of the strongest edges
    weights: np.ndarray  # (m,) their weights
    eigenvalues: np.ndarray | None
    embedding: np.ndarray | None
    labels: np.ndarray | None
    kmeans_labels: np.ndarray
    n_clusters: int
    n_connected: int
    gap: float | None  # λ_{k+1} − λ_k


@dataclass(frozen=True, kw_only=True, eq=False)
class SpectralKernelSnapshot(Snapshot):
    """Kernel PCA of labelled points: the kernel matrix and the first two components."""

    X: np.ndarray
    y: np.ndarray
    kernel: np.ndarray  # centred kernel matrix, points ordered by class
    Z: np.ndarray  # (n, 2): the first component and component ``shown``
    eigenvalues: np.ndarray
    best: int  # the component (1-based) whose best threshold classifies most points
    shown: int  # the component drawn against the first
    separable: float  # that threshold's accuracy


@dataclass(frozen=True, kw_only=True, eq=False)
class SpectralCCASnapshot(Snapshot):
    """Two 2-D views of one latent signal, their canonical directions and variates."""

    X: np.ndarray
    Y: np.ndarray
    u: np.ndarray
    v: np.ndarray
    U: np.ndarray
    V: np.ndarray
    correlations: np.ndarray
    naive: float  # corr of the first coordinates of the two views


SHORT_SPREAD = 0.5  # each Fisher class's standard deviation across its long axis
MAX_CLASS_ABS = 1e3  # a dragged class's mean and stretch stay within this
MIN_STRETCH = 0.05


def _rotation(degrees: float) -> np.ndarray:
    t = np.radians(degrees)
    return np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])


def default_classes(n_classes: int, stretch: float, tilt: float) -> np.ndarray:
    """(q, 4) rows (mean x, mean y, stretch, tilt°): elongated classes side by side, their spread
    along the axis their means are not, all turned by ``tilt``."""
    means = np.array([[0.0, -1.2], [0.0, 1.2], [0.0, 3.6]])[:n_classes] @ _rotation(tilt).T
    return np.column_stack([means, np.full(n_classes, float(stretch)), np.full(n_classes, float(tilt))])


def check_classes(classes) -> np.ndarray:
    """The class rows as a (q, 4) float array, q = 2 or 3, or ValueError naming what is wrong."""
    c = np.asarray(classes, dtype=float)
    if c.ndim != 2 or c.shape[1] != 4 or not 2 <= len(c) <= 3:
        raise ValueError(f"the Fisher classes must be 2 or 3 rows of (x, y, stretch, tilt); got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.abs(c[:, :3]).max() > MAX_CLASS_ABS:
        raise ValueError(f"the Fisher classes' means and stretches must be finite, at most {MAX_CLASS_ABS:g}")
    if c[:, 2].min() < MIN_STRETCH:
        raise ValueError(f"a Fisher class's stretch must be at least {MIN_STRETCH}")
    return c


def fisher_data(n: int, classes, seed: int):
    """n points of the classes (rows of :func:`default_classes`), taken in turn: class c is its
    mean plus standard normals scaled by (stretch, SHORT_SPREAD) and turned by its tilt. The
    normals depend on the seed only, so a dragged class moves and stretches as one piece."""
    classes = check_classes(classes)
    rng = np.random.default_rng(seed)
    y = np.arange(n) % len(classes)
    E = rng.normal(size=(n, 2))
    X = np.empty((n, 2))
    for c, (mx, my, stretch, tilt) in enumerate(classes):
        X[y == c] = np.array([mx, my]) + (E[y == c] * [stretch, SHORT_SPREAD]) @ _rotation(tilt).T
    return X, y


def _unit_angle(w) -> float:
    return float(np.degrees(np.arctan2(w[1], w[0])) % 180.0)


def fisher_steps(n, classes, seed):
    """Sweep the direction θ = 0°, 3°, ..., 180° and its J(θ) = wᵀS_B w / wᵀS_W w."""
    classes = check_classes(classes)
    X, y = fisher_data(n, classes, seed)
    Xc = X - X.mean(axis=0)
    _, vecs = np.linalg.eigh(Xc.T @ Xc)
    pca_dir = vecs[:, -1]
    fisher_dir = FisherLDA(1).fit(X, y).scalings_[:, 0]
    Sw, Sb = scatter_matrices(X, y)
    J_pca, J_fisher = rayleigh_quotient(X, y, pca_dir), rayleigh_quotient(X, y, fisher_dir)
    Xf, yf = frozen_array(X), frozen_array(y)
    angles, Js = [], []
    for step, a in enumerate(range(0, 181, ANGLE_STEP)):
        w = np.array([np.cos(np.radians(a)), np.sin(np.radians(a))])
        angles.append(float(a))
        Js.append(float(w @ Sb @ w) / max(float(w @ Sw @ w), 1e-300))
        yield SpectralFisherSnapshot(step=step, X=Xf, y=yf, pca_dir=frozen_array(pca_dir),
                                     fisher_dir=frozen_array(fisher_dir), angle=float(a), angles=frozen_array(angles),
                                     J=frozen_array(Js), J_pca=J_pca, J_fisher=J_fisher,
                                     best_angle=_unit_angle(fisher_dir), classes=frozen_array(classes))


def _edges(W, limit: int):
    """The ``limit`` strongest edges (i < j) of a dense or sparse affinity matrix."""
    import scipy.sparse as sp  # deferred: the worker pays for it, not the window

    C = sp.triu(sp.csr_matrix(W), k=1).tocoo()
    order = np.argsort(C.data)[::-1][:limit]
    return np.c_[C.row[order], C.col[order]], C.data[order]


def spectral_steps(dataset, n, noise, k, affinity, gamma, n_neighbors, normalized, seed):
    """The stages of :meth:`SpectralClustering.fit_steps`, with k-means on the raw points beside them."""
    X, _ = make_dataset(dataset, n, noise, random_state=seed)
    km = KMeans(k, n_init=10, random_state=seed).fit(X).labels_
    sc = SpectralClustering(k, affinity=affinity, gamma=gamma, n_neighbors=n_neighbors, normalized=normalized,
                            random_state=seed)
    Xf, kmf = frozen_array(X), frozen_array(km)
    edges = weights = None
    for snap in sc.fit_steps(X):
        if snap.affinity is not None:
            e, w = _edges(snap.affinity, MAX_EDGES)
            edges, weights = frozen_array(e), frozen_array(w)
        vals = snap.eigenvalues
        gap = float(vals[k] - vals[k - 1]) if vals is not None and len(vals) > k else None
        yield SpectralClusteringSnapshot(
            step=snap.step, phase=snap.phase, X=Xf, edges=edges, weights=weights, eigenvalues=vals,
            embedding=snap.embedding, labels=snap.labels, kmeans_labels=kmf, n_clusters=k,
            n_connected=snap.n_connected, gap=gap)


def _threshold_accuracy(z, y) -> float:
    """Accuracy of the best single threshold on z (either side for either class)."""
    order = np.argsort(z, kind="stable")
    pos = (y[order] > 0).astype(float)
    n = len(z)
    # points at or below the cut are called negative: correct = negatives below + positives above
    below_neg = np.cumsum(1 - pos)
    above_pos = pos.sum() - np.cumsum(pos)
    correct = np.r_[pos.sum(), below_neg + above_pos] / n
    return float(max(correct.max(), 1 - correct.min()))


def kernel_steps(dataset, n, noise, kernel, gamma, degree, seed):
    """One snapshot: the centred kernel matrix and the points on the first kernel component and on
    the component (of the first six) along which one threshold best separates the classes."""
    X, y = make_dataset(dataset, n, noise, random_state=seed)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    kp = KernelPCA(min(N_KERNEL_COMPONENTS, len(X)), kernel=kernel, gamma=gamma, degree=degree).fit(X)
    Z = kp.transform(X)
    K = kernel_matrix(X, kernel=kernel, gamma=kp.gamma_, degree=degree, coef0=1.0)
    Kc = K - K.mean(axis=0)[None, :] - K.mean(axis=1)[:, None] + K.mean()
    accs = [_threshold_accuracy(Z[:, j], y) for j in range(Z.shape[1])]
    best = int(np.argmax(accs))
    other = best if best > 0 else min(1, Z.shape[1] - 1)
    yield SpectralKernelSnapshot(step=0, X=frozen_array(X), y=frozen_array(y), kernel=frozen_array(Kc),
                                 Z=frozen_array(Z[:, [0, other]]), eigenvalues=frozen_array(kp.eigenvalues_),
                                 best=best + 1, shown=other + 1, separable=float(accs[best]))


def sensors(n: int, noise: float, seed: int):
    """Two sensors of one latent signal s: each view mixes s with its own nuisance and noise."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    a, b = rng.normal(scale=2.0, size=n), rng.normal(scale=2.0, size=n)  # nuisances larger than the signal
    X = np.c_[s + a, a] @ np.array([[1.0, 0.3], [0.2, 1.0]]) + noise * rng.normal(size=(n, 2))
    Y = np.c_[b, s - b] @ np.array([[1.0, -0.4], [0.5, 1.0]]) + noise * rng.normal(size=(n, 2))
    return X, Y


def cca_steps(n, noise, seed):
    """One snapshot: both canonical pairs of the two views."""
    X, Y = sensors(n, noise, seed)
    cca = CCA(2).fit(X, Y)
    U, V = cca.transform(X, Y)
    u = cca.x_weights_[:, 0] / np.linalg.norm(cca.x_weights_[:, 0])
    v = cca.y_weights_[:, 0] / np.linalg.norm(cca.y_weights_[:, 0])
    naive = float(np.corrcoef(X[:, 0], Y[:, 0])[0, 1])
    yield SpectralCCASnapshot(step=0, X=frozen_array(X), Y=frozen_array(Y), u=frozen_array(u), v=frozen_array(v),
                              U=frozen_array(U), V=frozen_array(V), correlations=frozen_array(cca.correlations_),
                              naive=naive)


def run_steps(method: str, p: dict, seed: int):
    """The generator of the chosen method with the lab's parameters ``p``."""
    if method == "fisher":
        classes = p.get("classes")
        if classes is None:
            classes = default_classes(int(p["n_classes"]), float(p["stretch"]), float(p["tilt"]))
        return fisher_steps(int(p["n_points"]), classes, seed)
    if method == "spectral":
        return spectral_steps(p["dataset"], int(p["n_points"]), float(p["noise"]), int(p["k"]), p["affinity"],
                              float(p["gamma"]), int(p["n_neighbors"]), bool(p["normalized"]), seed)
    if method == "kpca":
        return kernel_steps(p["kpca_data"], int(p["n_points"]), float(p["noise"]), p["kernel"], float(p["gamma"]),
                            int(p["degree"]), seed)
    return cca_steps(int(p["n_points"]), float(p["noise"]), seed)
