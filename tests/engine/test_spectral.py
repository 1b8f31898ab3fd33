"""smlengine.spectral against scikit-learn and scipy: Fisher's LDA, spectral clustering,
kernel PCA and CCA, on data the engine never saw (generated here)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp

from smlengine import spectral
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

sklearn = pytest.importorskip("sklearn")
from sklearn.cluster import SpectralClustering as SkSpectral  # noqa: E402
from sklearn.decomposition import KernelPCA as SkKernelPCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402


def _classes(q, n=90, D=4, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % q
    centres = rng.normal(scale=3.0, size=(q, D))
    mix = rng.normal(size=(D, D))
    return centres[y] + rng.normal(size=(n, D)) @ mix, y


def _rings(n=300, seed=1, noise=0.05):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 2 * np.pi, n)
    r = np.where(np.arange(n) % 2 == 0, 1.0, 3.0)
    X = np.c_[r * np.cos(t), r * np.sin(t)] + noise * rng.normal(size=(n, 2))
    return X, np.arange(n) % 2


def _moons(n=300, seed=2, noise=0.05):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    t = rng.uniform(0, np.pi, n)
    X = np.where(y[:, None] == 0, np.c_[np.cos(t), np.sin(t)], np.c_[1 - np.cos(t), 0.5 - np.sin(t)])
    return X + noise * rng.normal(size=(n, 2)), y


def _max_angle(A, B):
    return float(np.max(scipy.linalg.subspace_angles(A, B)))


# ----------------------------------------------------------------------------- Fisher


@pytest.mark.parametrize("q", [2, 3, 4])
def test_fisher_subspace_equals_sklearn_eigen_solver(q):
    X, y = _classes(q, seed=q)
    ours = FisherLDA().fit(X, y)
    ref = LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    k = q - 1
    assert ours.scalings_.shape == (4, k)
    assert _max_angle(ours.scalings_, ref.scalings_[:, :k]) < 1e-6
    # each direction on its own too (distinct eigenvalues), and by decreasing J
    for j in range(k):
        assert _max_angle(ours.scalings_[:, [j]], ref.scalings_[:, [j]]) < 1e-6
    J = [rayleigh_quotient(X, y, w) for w in ours.scalings_.T]
    np.testing.assert_allclose(J, ours.eigenvalues_, rtol=1e-9)
    assert np.all(np.diff(ours.eigenvalues_) <= 0)


def test_two_class_direction_is_the_closed_form():
    X, y = _classes(2, n=60, D=3, seed=7)
    lda = FisherLDA().fit(X, y)
    Sw, _ = scatter_matrices(X, y)
    w = np.linalg.solve(Sw, X[y == 1].mean(axis=0) - X[y == 0].mean(axis=0))
    np.testing.assert_allclose(lda.scalings_[:, 0], w / np.linalg.norm(w), atol=1e-10)
    proj = lda.transform(X)[:, 0]
    assert proj[y == 1].mean() > proj[y == 0].mean()


def test_fisher_maximises_the_rayleigh_quotient_over_directions():
    X, y = _classes(2, n=80, D=2, seed=11)
    lda = FisherLDA().fit(X, y)
    angles = np.linspace(0, np.pi, 721)
    J = [rayleigh_quotient(X, y, [np.cos(a), np.sin(a)]) for a in angles]
    assert max(J) <= lda.eigenvalues_[0] * (1 + 1e-12)
    assert max(J) > 0.999 * lda.eigenvalues_[0]


def test_fisher_bad_input():
    X, y = _classes(3, seed=0)
    with pytest.raises(ValueError, match="at least two classes"):
        FisherLDA().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="n_components must be <= "):
        FisherLDA(n_components=3).fit(X, y)
    with pytest.raises(ValueError, match="different numbers of samples"):
        FisherLDA().fit(X, y[:-1])
    # singular within-class scatter (more dimensions than points): the stated ridge, finite result
    rng = np.random.default_rng(0)
    lda = FisherLDA().fit(rng.normal(size=(4, 10)), [0, 0, 1, 1])
    assert np.all(np.isfinite(lda.scalings_)) and np.isclose(np.linalg.norm(lda.scalings_), 1.0)


# ----------------------------------------------------------------------------- spectral clustering


@pytest.mark.parametrize("normalized", [True, False])
def test_laplacian_eigenvalues_equal_scipy_eigh(normalized):
    X, _ = _moons(120, seed=3)
    sc = SpectralClustering(2, gamma=5.0, normalized=normalized, random_state=0).fit(X)
    W = sc.affinity_matrix_
    d = W.sum(axis=1)
    if normalized:
        L = np.eye(len(X)) - W / np.sqrt(np.outer(d, d))
    else:
        L = np.diag(d) - W
    ref = scipy.linalg.eigh(L, eigvals_only=True)
    m = len(sc.eigenvalues_)
    np.testing.assert_allclose(sc.eigenvalues_, ref[:m], atol=1e-9)


def test_sparse_knn_eigenvalues_equal_dense(monkeypatch):
    monkeypatch.setattr(spectral, "SPARSE_FROM", 200)  # the sparse path on a small graph
    X, _ = _moons(400, seed=4, noise=0.08)
    sc = SpectralClustering(2, affinity="knn", n_neighbors=8, random_state=0).fit(X)
    W = sc.affinity_matrix_
    assert sp.issparse(W)
    Wd = W.toarray()
    d = Wd.sum(axis=1)
    ref = scipy.linalg.eigh(np.eye(len(X)) - Wd / np.sqrt(np.outer(d, d)), eigvals_only=True,
                            subset_by_index=[0, len(sc.eigenvalues_) - 1])
    np.testing.assert_allclose(sc.eigenvalues_, ref, atol=1e-8)


@pytest.mark.filterwarnings("ignore:Graph is not fully connected")  # scikit-learn's, on the separate moons
@pytest.mark.parametrize("data,affinity", [(_rings, "rbf"), (_moons, "knn"), (_rings, "knn")])
def test_labels_agree_with_sklearn_on_the_same_affinity(data, affinity):
    X, truth = data()
    sc = SpectralClustering(2, affinity=affinity, gamma=10.0, n_neighbors=10, random_state=0).fit(X)
    W = sc.affinity_matrix_
    ref = SkSpectral(2, affinity="precomputed", random_state=0).fit(W)
    assert adjusted_rand_score(sc.labels_, ref.labels_) >= 0.99
    assert adjusted_rand_score(sc.labels_, truth) >= 0.99


def test_kmeans_fails_on_the_rings_and_moons():
    for X, truth in (_rings(), _moons()):
        km = KMeans(2, n_init=10, random_state=0).fit(X)
        assert adjusted_rand_score(km.labels_, truth) < 0.5


def test_knn_graph_is_symmetric_with_the_stated_weights():
    X, _ = _moons(200, seed=5)
    W = SpectralClustering(2, affinity="knn", n_neighbors=5, random_state=0).fit(X).affinity_matrix_
    W = W.toarray() if sp.issparse(W) else W
    np.testing.assert_array_equal(W, W.T)
    assert set(np.unique(W)) <= {0.0, 0.5, 1.0}
    assert np.all(np.diag(W) == 0) and np.all((W > 0).sum(axis=1) >= 5)


def test_steps_are_affinity_eigenvectors_then_kmeans():
    X, _ = _rings(100)
    snaps = list(SpectralClustering(2, gamma=10.0, random_state=0).fit_steps(X))
    assert [s.phase for s in snaps[:2]] == ["affinity", "eigenvectors"] and snaps[-1].phase == "done"
    assert snaps[0].affinity.shape == (100, 100) and not snaps[0].affinity.flags.writeable
    assert snaps[1].embedding.shape == (100, 2)
    assert all(s.labels is not None for s in snaps[2:])
    assert [s.step for s in snaps] == list(range(len(snaps)))


def test_spectral_bad_input_and_disconnected_graph():
    X, _ = _rings(40)
    with pytest.raises(ValueError, match="needs at least 5 points"):
        SpectralClustering(5).fit(X[:4])
    for gamma in (0.0, -1.0):
        with pytest.raises(ValueError, match="gamma"):
            SpectralClustering(2, gamma=gamma).fit(X)
    with pytest.raises(ValueError, match="affinity"):
        SpectralClustering(2, affinity="cosine").fit(X)
    # two far-apart groups and a huge gamma: a disconnected graph is clustered by its components
    Y = np.r_[np.zeros((5, 2)) + np.arange(5)[:, None] * 0.01, 100 + np.arange(5)[:, None] * 0.01 * np.ones((5, 2))]
    sc = SpectralClustering(2, gamma=1.0, random_state=0).fit(Y)
    assert sc.n_connected_ == 2 and np.allclose(sc.eigenvalues_[:2], 0.0, atol=1e-12)
    assert adjusted_rand_score(sc.labels_, [0] * 5 + [1] * 5) == 1.0
    # every point isolated: finite, stated fallback (n zero eigenvalues)
    sc = SpectralClustering(2, gamma=1e12, random_state=0).fit(X)
    assert sc.n_connected_ == len(X) and np.all(np.isfinite(sc.embedding_))


# ----------------------------------------------------------------------------- kernel PCA


@pytest.mark.parametrize("kernel,params", [("rbf", {"gamma": 0.5}), ("poly", {"gamma": 0.3, "degree": 3, "coef0": 1.0}),
                                           ("linear", {}), ("rbf", {})])
def test_kernel_pca_equals_sklearn_up_to_sign(kernel, params):
    X, _ = _rings(150, seed=6)
    X_new = np.random.default_rng(9).normal(size=(20, 2)) * 2
    ours = KernelPCA(3, kernel=kernel, **params).fit(X)
    ref = SkKernelPCA(3, kernel=kernel, **params).fit(X)
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-8)
    for a, b in ((ours.transform(X), ref.transform(X)), (ours.transform(X_new), ref.transform(X_new))):
        signs = np.sign(np.sum(a * b, axis=0))
        np.testing.assert_allclose(a * signs, b, atol=1e-7 * max(1.0, np.abs(b).max()))


def test_kernel_pca_linear_trick_equals_the_gram_route():
    X = np.random.default_rng(3).normal(size=(80, 3)) @ np.diag([3.0, 1.0, 0.2])
    fast = KernelPCA(2, kernel="linear").fit(X)
    assert fast.route_ == "covariance"
    K = kernel_matrix(X, kernel="linear")
    H = np.eye(80) - 1 / 80
    lam = scipy.linalg.eigh(H @ K @ H, eigvals_only=True)[::-1][:2]
    np.testing.assert_allclose(fast.eigenvalues_, lam, rtol=1e-10)
    assert KernelPCA(2, kernel="linear").fit(X[:2].repeat(1, 0)).route_ == "kernel"


def test_kernel_pca_separates_the_rings():
    X, truth = _rings(200, seed=8)
    Z = KernelPCA(2, kernel="rbf", gamma=1.0).fit_transform(X)
    # one threshold on one kernel component separates the rings; no line does in the plane
    best = max(np.mean((Z[:, j] > t) == truth) for j in range(2) for t in np.unique(Z[:, j]))
    best = max(best, 1 - min(np.mean((Z[:, j] > t) == truth) for j in range(2) for t in np.unique(Z[:, j])))
    assert best >= 0.98


def test_kernel_pca_bad_input():
    with pytest.raises(ValueError, match="n_components must be <="):
        KernelPCA(5).fit(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="gamma"):
        KernelPCA(1, gamma=0.0).fit(np.ones((3, 2)))
    kp = KernelPCA(2).fit(np.ones((4, 2)))  # a constant kernel: no variance, components 0
    assert np.all(kp.eigenvalues_ == 0) and np.all(kp.transform(np.ones((2, 2))) == 0)


# ----------------------------------------------------------------------------- CCA


def _two_sensors(n=200, seed=10):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 2))  # latent signal
    X = z @ rng.normal(size=(2, 3)) + 0.3 * rng.normal(size=(n, 3))
    Y = z @ rng.normal(size=(2, 4)) + 0.5 * rng.normal(size=(n, 4))
    return X, Y


def test_cca_correlations_are_cosines_of_principal_angles():
    X, Y = _two_sensors()
    cca = CCA(3).fit(X, Y)
    angles = scipy.linalg.subspace_angles(X - X.mean(0), Y - Y.mean(0))
    np.testing.assert_allclose(cca.correlations_, np.sort(np.cos(angles))[::-1], atol=1e-10)
    U, V = cca.transform(X, Y)
    C = np.corrcoef(U.T, V.T)
    np.testing.assert_allclose(np.diag(C[:3, 3:]), cca.correlations_, atol=1e-10)
    np.testing.assert_allclose(C[:3, :3], np.eye(3), atol=1e-10)  # the variates are uncorrelated
    np.testing.assert_allclose(U.var(axis=0), 1.0, atol=1e-10)
    assert cca.correlations_[0] > 0.9 and cca.correlations_[2] < 0.3


def test_cca_against_sklearn_first_pair():
    from sklearn.cross_decomposition import CCA as SkCCA  # the reference, a test dependency

    X, Y = _two_sensors(seed=12)
    ours = CCA(1).fit(X, Y)
    u, v = SkCCA(1, max_iter=2000, tol=1e-12, scale=False).fit(X, Y).transform(X, Y)
    assert abs(np.corrcoef(u[:, 0], v[:, 0])[0, 1] - ours.correlations_[0]) < 1e-6


def test_cca_bad_input():
    X, Y = _two_sensors(20)
    with pytest.raises(ValueError, match="different numbers of rows"):
        CCA(1).fit(X, Y[:-1])
    with pytest.raises(ValueError, match="n_components must be <="):
        CCA(4).fit(X, Y)
    with pytest.raises(ValueError, match="n_components must be <="):
        CCA(2).fit(np.c_[X[:, 0], 2 * X[:, 0]], Y)  # rank 1
    cca = CCA(1).fit(X[:, 0], Y)  # a 1-D view is one column
    assert cca.x_weights_.shape == (1, 1)
