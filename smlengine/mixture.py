"""Gaussian mixtures fitted by EM, one E-step or M-step at a time.

One estimator serves the points in the plane of the mixtures lab (every responsibility and
half step observable) and the pixels of the segmentation lab (hundreds of thousands of
points, compact snapshots).

Model
-----
π(x) = Σ_k c_k g(x; μ_k, Σ_k), with a latent assignment m_i ∈ {1..K} of every point x_i.

EM (the course's updates)
-------------------------
* E-step: a_ik = c_k g(x_i; μ_k, Σ_k) / Σ_l c_l g(x_i; μ_l, Σ_l)   (the responsibilities)
* M-step: n_k = Σ_i a_ik, c_k = n_k / n, μ_k = Σ_i a_ik x_i / n_k,
  S_k = Σ_i a_ik (x_i − μ_k)(x_i − μ_k)ᵀ / n_k, and Σ_k depends on ``covariance_type``:

  - ``'full'``: Σ_k = S_k
  - ``'diag'``: Σ_k = diag(S_k)
  - ``'spherical'``: Σ_k = σ_k² I with σ_k² = tr(S_k) / f
  - ``'tied'``: one Σ = Σ_k n_k S_k / n for every component

  and ``reg_covar`` · I is added to every Σ_k (a floor: without it a component that
  collapses onto one point has det Σ_k → 0 and the likelihood → ∞).

The log-likelihood ℓ(θ) = Σ_i log Σ_k c_k g(x_i; μ_k, Σ_k) never decreases from one
iteration to the next. Behind that is the lower bound
F(a, θ) = Σ_i Σ_k a_ik (log c_k g(x_i; μ_k, Σ_k) − log a_ik) ≤ ℓ(θ): the E-step raises F to
ℓ(θ) (equality for the responsibilities of θ), the M-step raises F by maximising over θ
with a fixed. With ``half_steps=True`` both halves are yielded and F is reported.

Snapshots and memory
--------------------
Every snapshot carries the hard labels (``uint8`` for K <= 256) and the largest
responsibility of every point (``float32``); the whole (n, K) responsibility matrix only when
asked (``fit_steps(X, responsibilities=True)``, the default): for a 512 × 512 image it is
10 MB per step, and the GUI keeps a timeline of snapshots. The E-step works on blocks of
points so its temporary arrays stay small however many points there are.

Also here (defined in :mod:`smlengine.mixture_selection`): :func:`soft_kmeans_steps` (EM
with Σ_k = σ² I fixed and c_k = 1/K, which becomes k-means as σ → 0),
:func:`mixture_restarts` (seeded restarts and their distinct optima) and
:func:`model_order_steps` (BIC, AIC and split-half stability against K).
"""

from __future__ import annotations

from ._mixture_core import (
    CONVERGENCE_RULES,
    COVARIANCE_TYPES,
    INITS,
    GaussianMixture,
    GaussianMixtureSnapshot,
    MixtureSnapshot,
    e_step,
    n_parameters,
)
from .mixture_selection import (
    ModelOrderSnapshot,
    MixtureRestartsSnapshot,
    SoftKMeansSnapshot,
    mixture_restarts,
    model_order_steps,
    soft_kmeans_steps,
)

__all__ = [
    "COVARIANCE_TYPES",
    "INITS",
    "CONVERGENCE_RULES",
    "GaussianMixture",
    "MixtureSnapshot",
    "GaussianMixtureSnapshot",
    "n_parameters",
    "e_step",
    "soft_kmeans_steps",
    "SoftKMeansSnapshot",
    "mixture_restarts",
    "MixtureRestartsSnapshot",
    "model_order_steps",
    "ModelOrderSnapshot",
]
