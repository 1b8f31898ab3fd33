"""Points sampled from a stated Gaussian mixture, and named 2-D mixtures for teaching.

``make_gaussian_mixture`` draws m_i ~ Categorical(c) and x_i ~ N(μ_{m_i}, Σ_{m_i}); the
presets in :data:`MIXTURE_PRESETS` are truths a class can recognise: well separated blobs,
overlapping ones, stretched (anisotropic) ones, and a tight cluster inside a wide one.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._base import check_random_state, check_scalar

__all__ = ["make_gaussian_mixture", "MixtureTruth", "MIXTURE_PRESETS", "mixture_preset", "make_mixture_preset",
           "mixture_truth"]


@dataclass(frozen=True)
class MixtureTruth:
    """A stated mixture: weights (K,), means (K, f), full covariances (K, f, f), a title.

    Examples
    --------
    >>> from smlengine.datasets import mixture_preset
    >>> truth = mixture_preset("anisotropic")
    >>> truth.title, truth.weights.shape, truth.means.shape, truth.covariances.shape
    ('three stretched parallel clusters', (3,), (3, 2), (3, 2, 2))
    """

    weights: np.ndarray
    means: np.ndarray
    covariances: np.ndarray
    title: str = ""


def _check_truth(means, covariances, weights):
    mu = np.asarray(means, dtype=np.float64)
    if mu.ndim != 2 or mu.shape[0] < 1 or mu.shape[1] < 1:
        raise ValueError(f"means must be a (K, f) array with K >= 1, got shape {mu.shape}")
    k, f = mu.shape
    cov = np.asarray(covariances, dtype=np.float64)
    if cov.shape == (k,):  # spherical: one variance per component
        cov = cov[:, None, None] * np.eye(f)[None]
    if cov.shape != (k, f, f):
        raise ValueError(f"covariances must have shape {(k, f, f)} (or {(k,)} variances), got {cov.shape}")
    if not (np.all(np.isfinite(mu)) and np.all(np.isfinite(cov))):
        raise ValueError("means and covariances must be finite")
    if not np.allclose(cov, cov.transpose(0, 2, 1)):
        raise ValueError("covariances must be symmetric")
    if np.any(np.linalg.eigvalsh(cov)[:, 0] < 0):
        raise ValueError("covariances must be positive semi-definite (no negative variance)")
    if weights is None:
        w = np.full(k, 1.0 / k)
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (k,) or not np.all(np.isfinite(w)) or w.min() < 0 or w.sum() <= 0:
            raise ValueError(f"weights must be {k} non-negative numbers with a positive sum")
        w = w / w.sum()
    return w, mu, cov


def mixture_truth(means, covariances, weights=None, title: str = "") -> MixtureTruth:
    """A validated :class:`MixtureTruth` (ValueError as :func:`make_gaussian_mixture`); weights normalised.

    Examples
    --------
    >>> from smlengine.datasets._mixture import mixture_truth
    >>> t = mixture_truth([[0.0], [3.0]], [1.0, 2.0], weights=[1, 3], title="two")
    >>> t.weights, t.covariances.shape, t.title
    (array([0.25, 0.75]), (2, 1, 1), 'two')
    """
    w, mu, cov = _check_truth(means, covariances, weights)
    return MixtureTruth(w, mu, cov, str(title))


def make_gaussian_mixture(n, means, covariances, weights=None, random_state=None):
    """Sample ``n`` points from π(x) = Σ_k c_k g(x; μ_k, Σ_k).

    Parameters
    ----------
    n : int >= 1
    means : array (K, f)
    covariances : array (K, f, f) of symmetric positive semi-definite matrices, or (K,) variances
    weights : array (K,), optional
        c_k (normalised to sum 1; equal weights by default)
    random_state : None, int or Generator

    Returns
    -------
    X : ndarray (n, f) in random order
        The points.
    labels : ndarray (n,) of int64
        the component m_i each point was drawn from

    Examples
    --------
    >>> from smlengine.datasets import make_gaussian_mixture
    >>> X, labels = make_gaussian_mixture(6, means=[[0.0, 0.0], [5.0, 5.0]], covariances=[1.0, 1.0], random_state=0)
    >>> X.shape, labels
    ((6, 2), array([1, 0, 0, 0, 1, 1]))
    """
    check_scalar("n", n, numbers.Integral, min_value=1, max_value=10_000_000)
    w, mu, cov = _check_truth(means, covariances, weights)
    rng = check_random_state(random_state)
    labels = rng.choice(mu.shape[0], size=int(n), p=w)
    # a factor A with A Aᵀ = Σ that also works for singular Σ (a line of points)
    vals, vecs = np.linalg.eigh(cov)
    A = vecs * np.sqrt(np.maximum(vals, 0.0))[:, None, :]
    z = rng.standard_normal((int(n), mu.shape[1]))
    X = mu[labels] + np.einsum("iab,ib->ia", A[labels], z)
    return X, labels.astype(np.int64)


def _rot(angle_deg, sx, sy):
    t = np.deg2rad(angle_deg)
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return R @ np.diag([sx**2, sy**2]) @ R.T


MIXTURE_PRESETS: dict[str, MixtureTruth] = {
    "well separated": MixtureTruth(
        np.array([0.3, 0.4, 0.3]), np.array([[-3.0, -1.5], [3.0, -1.0], [0.0, 3.5]]),
        np.array([_rot(30, 1.0, 0.6), _rot(-20, 0.9, 0.5), _rot(80, 1.1, 0.7)]), "three well separated clusters"),
    "overlapping": MixtureTruth(
        np.array([0.35, 0.35, 0.3]), np.array([[-1.7, 0.0], [1.7, 0.3], [0.0, 2.7]]),
        np.array([_rot(0, 1.0, 0.8), _rot(45, 1.1, 0.7), _rot(-30, 0.9, 0.8)]), "three overlapping clusters"),
    "anisotropic": MixtureTruth(
        np.array([0.3, 0.3, 0.4]), np.array([[-2.5, 0.0], [0.0, 0.6], [2.5, 0.0]]),
        np.array([_rot(60, 2.0, 0.25), _rot(60, 2.0, 0.25), _rot(60, 2.0, 0.25)]), "three stretched parallel clusters"),
    "tight inside wide": MixtureTruth(
        np.array([0.35, 0.65]), np.array([[0.5, 0.5], [0.0, 0.0]]),
        np.array([_rot(0, 0.3, 0.3), _rot(20, 3.0, 2.2)]), "a tight cluster inside a wide one"),
}


def mixture_preset(name: str) -> MixtureTruth:
    """The stated truth of a preset (copies, safe to edit)."""
    if name not in MIXTURE_PRESETS:
        raise ValueError(f"unknown mixture preset {name!r}; choose one of {', '.join(map(repr, MIXTURE_PRESETS))}")
    t = MIXTURE_PRESETS[name]
    return MixtureTruth(t.weights.copy(), t.means.copy(), t.covariances.copy(), t.title)


def make_mixture_preset(name: str, n=400, random_state=None):
    """Sample ``n`` points from the preset ``name``; returns ``(X, labels)`` as :func:`make_gaussian_mixture`.

    Examples
    --------
    >>> from smlengine.datasets import MIXTURE_PRESETS, make_mixture_preset
    >>> sorted(MIXTURE_PRESETS)
    ['anisotropic', 'overlapping', 'tight inside wide', 'well separated']
    >>> X, labels = make_mixture_preset("anisotropic", n=10, random_state=0)
    >>> X.shape, labels.shape
    ((10, 2), (10,))
    """
    t = mixture_preset(name)
    return make_gaussian_mixture(n, t.means, t.covariances, t.weights, random_state)
