"""The linear algebra behind :class:`smlengine.pca.PCA`: the centred covariance and Gram
matrices formed by BLAS rank-k updates (blockwise when the mean is large against the
spread), their top eigenpairs, the choice of the cheaper side, and the SVD and randomized
SVD routes. See :mod:`smlengine.pca` for the method and the cost estimates."""

from __future__ import annotations


import numpy as np
import scipy.linalg
from scipy.linalg import blas

BLOCK_ELEMENTS = 1 << 21  # numbers per centred block (16 MB): a small temporary, large enough for BLAS
#: largest tr(XᵀX/n) / tr Σ̂ for which Σ̂ = XᵀX/n − μ̂μ̂ᵀ is formed uncentred (digits lost to cancellation)
_MAX_CANCELLATION = 1e4
_FULL_EIGH_MAX = 256  # matrices up to this side are decomposed whole (faster than a subset there)


# ----------------------------------------------------------------------------- linear algebra


def sign_fix(W: np.ndarray) -> np.ndarray:
    """Flip rows so each row's largest-magnitude entry is positive (a canonical sign)."""
    if W.size == 0:
        return W
    idx = np.argmax(np.abs(W), axis=1)
    signs = np.sign(W[np.arange(W.shape[0]), idx])
    signs[signs == 0] = 1.0
    return W * signs[:, None]


def rank_k_update(C: np.ndarray, B: np.ndarray, outer: bool = False) -> np.ndarray:
    """C ← C + Bᵀ B (or C + B Bᵀ with ``outer``) on the upper triangle (BLAS ``dsyrk``), C
    Fortran-ordered and updated in place.

    ``B.T`` of a C-ordered block is a Fortran-ordered view, which is what ``dsyrk`` reads
    without a copy; ``trans`` selects which of the two products it forms.
    """
    return blas.dsyrk(1.0, B.T, beta=1.0, c=C, trans=1 if outer else 0, lower=0, overwrite_c=1)


def symmetrised(C: np.ndarray) -> np.ndarray:
    """The full symmetric matrix from its upper triangle (``syrk`` fills only that one)."""
    upper = np.triu(C)
    return upper + np.triu(C, 1).T


def covariance_matrix(X: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Σ̂ = X_cᵀ X_c / n from symmetric rank-k updates (BLAS ``syrk``), without a centred copy of X.

    Data that fits one block (16 MB) is centred once and multiplied as one contiguous
    B_cᵀ B_c. Larger data is first multiplied uncentred, in one ``syrk`` of X itself (no copy
    at all), and centred afterwards, Σ̂ = XᵀX/n − μ̂μ̂ᵀ: that subtraction cancels the digits
    of ‖μ̂‖² against those of the spread, κ = tr(XᵀX/n) / tr Σ̂ of them, so it is kept only
    when κ <= 10⁴ (at most 4 of 16 digits lost). Data far from the origin (κ larger) is
    accumulated over blocks of rows centred one at a time instead, C ← C + B_cᵀ B_c.
    """
    n, D = X.shape
    rows = max(1, BLOCK_ELEMENTS // max(D, 1))
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused by the caller
        if n <= rows:
            block = X - mean
            C = block.T @ block
            C /= n
            return C
        C = X.T @ X
        C /= n
        raw_trace = float(np.trace(C))
        C -= np.outer(mean, mean)
        centred_trace = float(np.trace(C))
    if centred_trace > 0 and raw_trace <= _MAX_CANCELLATION * centred_trace:
        return C
    C = np.zeros((D, D), order="F")
    for start in range(0, n, rows):
        C = rank_k_update(C, X[start:start + rows] - mean)
    C = symmetrised(C)
    with np.errstate(over="ignore", invalid="ignore"):
        C /= n
    return C


def gram_matrix(X: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """G = X_c X_cᵀ by symmetric rank-k updates over blocks of centred columns (no centred copy)."""
    n, D = X.shape
    G = np.zeros((n, n), order="F")
    cols = max(1, BLOCK_ELEMENTS // max(n, 1))
    for start in range(0, D, cols):
        G = rank_k_update(G, X[:, start:start + cols] - mean[start:start + cols], outer=True)
    return symmetrised(G)


def eigh_top(M: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-k eigenpairs of a symmetric matrix, eigenvalues decreasing, vectors as columns.

    A subset (LAPACK ``evr``) is asked for only when it saves work; small matrices, or most
    of a spectrum, are decomposed whole by divide and conquer (numpy's ``eigh``, ``evd``).
    """
    m = M.shape[0]
    if k < m and m > _FULL_EIGH_MAX and 2 * k <= m:
        w, V = scipy.linalg.eigh(M, subset_by_index=[m - k, m - 1], driver="evr", check_finite=False,
                                 overwrite_a=True)
    else:
        w, V = np.linalg.eigh(M)
        w, V = w[m - k:], V[:, m - k:]
    return w[::-1], V[:, ::-1]


def complete_rows(W: np.ndarray, good: np.ndarray) -> np.ndarray:
    """Replace the rows of W flagged ``~good`` (zero-variance directions) by an orthonormal
    completion of the good rows, so ``components_`` stays an orthonormal set.

    Any orthonormal completion is a valid set of eigenvectors for the eigenvalue 0. The
    standard basis vectors e_1, e_2, ... are taken in turn and orthogonalised (twice, for
    rounding) against the rows kept so far; one whose remainder is shorter than 1/2 lies
    mostly in their span and is skipped. Since Σ_i ‖P e_i‖² = rank P, at most 4·(rows kept)
    of them are skipped, so the loop looks at a few vectors, never at a D × D matrix.
    """
    if good.all():
        return W
    D = W.shape[1]
    basis = [row for row in W[good]]
    extra = []
    need = int((~good).sum())
    for i in range(D):
        if len(extra) == need:
            break
        v = np.zeros(D)
        v[i] = 1.0
        for _ in range(2):
            for b in basis:
                v -= (b @ v) * b
        norm = float(np.linalg.norm(v))
        if norm < 0.5:
            continue
        v /= norm
        basis.append(v)
        extra.append(v)
    out = W.copy()
    out[~good] = np.array(extra)
    return out


def choose_route(n: int, D: int, k: int) -> str:
    """'covariance' (D × D) or 'gram' (n × n), whichever needs fewer multiply-adds.

    Forming the matrix of side m from n·D numbers costs about n·D·m / 2, decomposing it
    about 4·m³; the Gram side also maps its k vectors back, ξ = X_cᵀ u / √σ, for n·D·k.
    """
    covariance = n * D * D / 2 + 4.0 * D**3
    gram = n * D * n / 2 + 4.0 * n**3 + n * D * k
    return "covariance" if covariance <= gram else "gram"


def covariance_route(X, mean, k, C=None):
    """Top-k eigenpairs of Σ̂ from the D × D covariance (the route when n ≥ D)."""
    lam, V = eigh_top(covariance_matrix(X, mean) if C is None else C, k)
    return np.maximum(lam, 0.0), V.T.copy()


def gram_route(X, mean, k, G=None):
    """Top-k eigenpairs of Σ̂ from the n × n Gram matrix G = X_c X_cᵀ (the route when n < D).

    G u = σ u implies Σ̂ (X_cᵀ u) = (σ/n) X_cᵀ u and ‖X_cᵀ u‖² = uᵀ G u = σ, so
    ξ = X_cᵀ u / √σ is a unit eigenvector of Σ̂ with λ = σ/n. X_cᵀ U is formed over the same
    blocks of centred columns as G.
    """
    n, D = X.shape
    sigma, U = eigh_top(gram_matrix(X, mean) if G is None else G, k)
    sigma = np.maximum(sigma, 0.0)
    good = sigma > sigma[0] * 1e-12 * n if sigma[0] > 0 else np.zeros(k, bool)
    W = np.zeros((k, D))
    if good.any():
        Ug = U[:, good] / np.sqrt(sigma[good])
        cols = max(1, BLOCK_ELEMENTS // max(n, 1))
        for start in range(0, D, cols):
            W[good, start:start + cols] = Ug.T @ (X[:, start:start + cols] - mean[start:start + cols])
    return sigma / n, complete_rows(W, good)


def svd_route(X, mean, k):
    """Thin SVD of X_c: ξ_j = row j of Vᵀ, λ_j = s_j² / n."""
    _, s, Vt = scipy.linalg.svd(X - mean, full_matrices=False, check_finite=False)
    return s[:k] ** 2 / X.shape[0], Vt[:k].copy()


def randomized_route(X, mean, k, n_oversamples, n_iter, rng):
    """Randomized SVD of X_c without forming X_c (products centre on the fly).

    X_c v = X v − 1 (μ̂·v) and X_cᵀ u = Xᵀ u − μ̂ (1ᵀu). Each power iteration is
    re-orthonormalised (QR) so the small singular values are not lost to rounding.
    """
    n, D = X.shape
    ell = min(k + n_oversamples, n, D)

    def right(M):  # X_c M, M is (D, ell)
        return X @ M - np.outer(np.ones(n), mean @ M)

    def left(M):  # X_cᵀ M, M is (n, ell)
        return X.T @ M - np.outer(mean, M.sum(axis=0))

    Q, _ = np.linalg.qr(right(rng.standard_normal((D, ell))))
    for _ in range(n_iter):
        Z, _ = np.linalg.qr(left(Q))
        Q, _ = np.linalg.qr(right(Z))
    B = left(Q).T  # (ell, D) = Qᵀ X_c
    _, s, Vt = scipy.linalg.svd(B, full_matrices=False, check_finite=False)
    return s[:k] ** 2 / n, Vt[:k].copy()
