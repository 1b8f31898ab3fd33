"""Clustering for image segmentation: k-means, multinomial and Gaussian mixtures by EM.

Segmentation as clustering: describe every pixel by a feature vector x_i (its colour, or the
histogram of grey values in a window around it, see :mod:`smlengine.features`) and cluster
the vectors into K groups; the cluster index m_i of each pixel, reshaped to the image, is the
segmentation.

The estimators live in one module each; this module gathers their public names:

* :mod:`smlengine.kmeans` -- :class:`KMeans` (Lloyd's algorithm), k-means++ seeding
  (:func:`kmeans_plusplus`, :func:`kmeans_plusplus_probabilities`) and seeded restarts
  (:func:`kmeans_restarts`);
* :mod:`smlengine.multinomial` -- :class:`MultinomialMixture`, EM for local histograms;
* :mod:`smlengine.mixture` -- :class:`GaussianMixture`, EM with four covariance types
  (compact snapshots for pixels: ``fit_steps(X, responsibilities=False)``);
* :mod:`smlengine.stability` -- choosing K: :func:`stability` (split-half instability and
  prediction strength), :func:`strongest_k`; :func:`matched_agreement` of two labellings.

Choosing K
----------
:meth:`MultinomialMixture.bic` / :meth:`GaussianMixture.bic` give BIC = −2 log L + m log n,
:meth:`MultinomialMixture.dispersion` how much more the counts vary than a multinomial of
independent draws allows (for an honest BIC on histograms of neighbouring pixels), and
:func:`stability` the instability and the prediction strength of clustering two random halves.
"""

from __future__ import annotations

from .kmeans import (
    KMeans,
    KMeansSnapshot,
    RestartsSnapshot,
    kmeans_plusplus,
    kmeans_plusplus_probabilities,
    kmeans_restarts,
)
from .mixture import GaussianMixture, GaussianMixtureSnapshot
from .multinomial import MultinomialMixture, MultinomialMixtureSnapshot
from .stability import (
    StabilityResult,
    StabilitySnapshot,
    matched_agreement,
    prediction_strength,
    stability,
    stability_steps,
    strongest_k,
)

__all__ = [
    "KMeans",
    "KMeansSnapshot",
    "RestartsSnapshot",
    "kmeans_plusplus",
    "kmeans_plusplus_probabilities",
    "kmeans_restarts",
    "MultinomialMixture",
    "MultinomialMixtureSnapshot",
    "GaussianMixture",
    "GaussianMixtureSnapshot",
    "stability",
    "stability_steps",
    "StabilityResult",
    "StabilitySnapshot",
    "matched_agreement",
    "prediction_strength",
    "strongest_k",
]
