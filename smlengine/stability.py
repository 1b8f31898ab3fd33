"""Choosing the number of clusters by stability: split-half disagreement and prediction strength.

Cluster two random halves of the data separately and compare the labellings they give the
same points: a K that reflects real structure gives the same partition from both halves.
Works with any clustering estimator that has ``fit`` and ``predict`` (k-means, the mixtures).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ._base import Snapshot, check_array, check_random_state, check_scalar, frozen_array

__all__ = [
    "matched_agreement",
    "stability",
    "stability_steps",
    "StabilityResult",
    "StabilitySnapshot",
    "prediction_strength",
    "strongest_k",
]


# ----------------------------------------------------------------------------- stability


@dataclass(frozen=True)
class StabilityResult:
    """Instability of clustering for each K (lower is more stable).

    Attributes
    ----------
    ks : ndarray of int
        The K compared.
    instability : ndarray
        mean over splits of the disagreement fraction, per K
    std : ndarray
        its standard deviation over splits
    scores : ndarray (len(ks), n_splits)
        every split's disagreement
    strength : ndarray
        mean over splits of the prediction strength, per K (see
        :func:`prediction_strength`; higher is more stable)
    strength_scores : ndarray (len(ks), n_splits)
        every split's prediction strength

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import KMeans, stability
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(c, 0.3, size=(20, 2)) for c in ([0, 0], [4, 0], [0, 4])])
    >>> res = stability(lambda k, s: KMeans(k, random_state=s), X, ks=[2, 3, 4], n_splits=3, random_state=0)
    >>> print(res.ks, np.round(res.instability, 3), np.round(res.strength, 3))
    [2 3 4] [0.2   0.    0.189] [0.656 1.    0.57 ]
    >>> res.chosen_k()
    3
    """

    ks: np.ndarray
    instability: np.ndarray
    std: np.ndarray
    scores: np.ndarray
    strength: np.ndarray | None = None
    strength_scores: np.ndarray | None = None

    @property
    def strength_lower(self) -> np.ndarray:
        """Mean prediction strength minus its standard error over the splits, per K
        (s / √splits with s the splits' sample standard deviation; the mean for one split)."""
        S = np.asarray(self.strength_scores, dtype=np.float64)
        if S.shape[1] < 2:
            return np.asarray(self.strength, dtype=np.float64)
        return S.mean(axis=1) - S.std(axis=1, ddof=1) / math.sqrt(S.shape[1])

    def chosen_k(self, threshold: float = 0.8) -> int:
        """The largest K whose prediction strength is at least ``threshold`` by a margin of one
        standard error (:attr:`strength_lower`; see :func:`strongest_k`)."""
        return strongest_k(self.ks, self.strength_lower, threshold)


@dataclass(frozen=True, kw_only=True)
class StabilitySnapshot(Snapshot):
    """Progress of :func:`stability_steps`: one snapshot per finished split.

    Attributes
    ----------
    scores : ndarray (len(ks), n_splits)
        Disagreement, with NaN where a split is not done yet.
    k, split : int
        The pair just finished.
    result : StabilityResult or None
        Set on the last snapshot only.
    strength : ndarray (len(ks), n_splits)
        Prediction strength, with NaN where a split is not done yet.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import KMeans, stability_steps
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(c, 0.3, size=(20, 2)) for c in ([0, 0], [4, 0], [0, 4])])
    >>> for s in stability_steps(lambda k, s: KMeans(k, random_state=s), X, ks=[2, 3], n_splits=2, random_state=0):
    ...     print(s.step, s.k, s.split, s.result is None)
    0 2 0 True
    1 3 0 True
    2 2 1 True
    3 3 1 False
    >>> print(np.round(s.scores, 3))
    [[0.267 0.333]
     [0.    0.   ]]
    """

    scores: np.ndarray
    k: int
    split: int
    result: StabilityResult | None = None
    strength: np.ndarray | None = None


def matched_agreement(a, b, n_clusters: int | None = None) -> tuple[float, np.ndarray]:
    """Fraction of points on which two labellings agree after matching their cluster numbers.

    Cluster numbers are arbitrary, so cluster j of ``b`` is renamed ``perm[j]`` where ``perm``
    maximises the number of points with a_i = perm[b_i]: an assignment problem on the
    contingency table C_uv = #{i : a_i = u, b_i = v}, solved exactly by
    :func:`scipy.optimize.linear_sum_assignment` (Hungarian method).

    Parameters
    ----------
    a, b : integer arrays of the same size, labels >= 0
        The two labellings.
    n_clusters : int, optional
        labels run over 0..n_clusters-1 (default: the largest label + 1)

    Returns
    -------
    agreement : float
        Σ_v C_{perm[v], v} / n
    perm : ndarray (K,) of int64
        the cluster of ``a`` each cluster of ``b`` is matched to, a
        permutation of 0..K-1 (K = ``n_clusters``; a cluster of ``b`` with no counterpart in ``a``
        is matched to one of ``a``'s empty labels)

    Examples
    --------
    >>> from smlengine.cluster import matched_agreement
    >>> matched_agreement([0, 0, 1, 1, 2], [1, 1, 0, 0, 0])
    (0.8, array([1, 0, 2]))
    """
    from scipy.optimize import linear_sum_assignment  # deferred: scipy.optimize is slow to import

    a = np.asarray(a, dtype=np.int64).ravel()
    b = np.asarray(b, dtype=np.int64).ravel()
    if a.shape != b.shape or (a.size and min(a.min(), b.min()) < 0):
        raise ValueError(f"a and b must be two labellings (labels >= 0) of the same points, got {a.size} and "
                         f"{b.size} labels")
    top = int(max(a.max(initial=0), b.max(initial=0))) + 1
    k = top if n_clusters is None else max(int(n_clusters), top)
    C = np.bincount(a * k + b, minlength=k * k).reshape(k, k)
    rows, cols = linear_sum_assignment(C, maximize=True)
    perm = np.empty(k, dtype=np.int64)
    perm[cols] = rows
    return float(C[rows, cols].sum()) / max(1, a.size), perm


def _disagreement(a: np.ndarray, b: np.ndarray) -> float:
    """Fraction of points labelled differently, minimised over relabellings of b."""
    return 1.0 - matched_agreement(a, b)[0]


def prediction_strength(test_labels, train_labels) -> float:
    """Prediction strength of a clustering of a test half (Tibshirani and Walther 2005).

    ``test_labels`` are the clusters of the test points found by a model fitted on the test
    half itself, ``train_labels`` those the model fitted on the *other* half gives the same
    points. For every test cluster A_j, the fraction of its pairs of points that the other
    half's model also puts together,

        ps_j = Σ_m c_jm (c_jm − 1) / (n_j (n_j − 1)),   c_jm = #{i ∈ A_j : train_labels_i = m},

    and the prediction strength is the smallest, min_j ps_j (clusters of one point are
    skipped). It is near 1 when both halves find the same groups or one merges groups of the
    other (a K below the true one), and drops towards 1/2 as soon as K splits a group in two
    at a place that depends on the sample (a K above the true one).

    Examples
    --------
    >>> from smlengine.cluster import prediction_strength
    >>> round(prediction_strength([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1]), 3)
    0.333
    """
    a = np.asarray(test_labels, dtype=np.int64).ravel()
    b = np.asarray(train_labels, dtype=np.int64).ravel()
    if a.shape != b.shape or a.size == 0:
        raise ValueError(f"test_labels and train_labels must be two labelings of the same points, "
                         f"got {a.size} and {b.size} labels")
    ka, kb = int(a.max()) + 1, int(b.max()) + 1
    C = np.bincount(a * kb + b, minlength=ka * kb).reshape(ka, kb).astype(np.float64)
    nj = C.sum(axis=1)
    ok = nj > 1
    if not ok.any():
        return 1.0
    together = (C * (C - 1.0)).sum(axis=1)
    return float(np.min(together[ok] / (nj[ok] * (nj[ok] - 1.0))))


def strongest_k(ks, strength, threshold: float = 0.8) -> int:
    """The largest K whose prediction strength is at least ``threshold`` (0.8 as Tibshirani
    and Walther suggest); the K with the largest strength when none reaches it.

    Examples
    --------
    >>> from smlengine.cluster import strongest_k
    >>> strongest_k([2, 3, 4, 5], [0.95, 0.9, 0.6, 0.5]), strongest_k([2, 3], [0.5, 0.7])
    (3, 3)
    """
    ks = np.asarray(ks, dtype=np.int64)
    strength = np.asarray(strength, dtype=np.float64)
    if ks.size == 0 or ks.shape != strength.shape:
        raise ValueError("ks and strength must be two non-empty arrays of the same length")
    check_scalar("threshold", threshold, numbers.Real, min_value=0.0, max_value=1.0)
    good = np.flatnonzero(np.nan_to_num(strength, nan=-1.0) >= threshold)
    if good.size:
        return int(ks[good].max())
    return int(ks[int(np.nanargmax(strength))])


def stability_steps(model_factory: Callable, X, ks, n_splits: int = 5, random_state=None):
    """Generator form of :func:`stability`, yielding a :class:`StabilitySnapshot` per split."""
    X = check_array(X, min_samples=2)
    ks = np.asarray(list(ks), dtype=np.int64)
    if ks.size == 0:
        raise ValueError("ks is empty; give the numbers of clusters to compare, e.g. [2, 3, 4]")
    if ks.min() < 1:
        raise ValueError(f"every K must be >= 1, got {int(ks.min())}")
    check_scalar("n_splits", n_splits, numbers.Integral, min_value=1, max_value=1000)
    if not callable(model_factory):
        raise TypeError("model_factory must be callable: model_factory(n_clusters, seed) -> unfitted model")
    rng = check_random_state(random_state)
    n = X.shape[0]
    half = n // 2
    if ks.max() > half:
        raise ValueError(f"K={int(ks.max())} is larger than half the data ({half} points)")
    scores = np.full((ks.size, n_splits), np.nan)
    strength = np.full((ks.size, n_splits), np.nan)
    step = 0
    for s in range(n_splits):
        perm = rng.permutation(n)
        A, B = X[perm[:half]], X[perm[half: 2 * half]]
        seeds = rng.integers(0, 2**31 - 1, size=(ks.size, 2))
        for i, k in enumerate(ks):
            ma = model_factory(int(k), int(seeds[i, 0])).fit(A)
            mb = model_factory(int(k), int(seeds[i, 1])).fit(B)
            la, lb = np.asarray(ma.predict(B)), np.asarray(mb.predict(B))
            scores[i, s] = _disagreement(la, lb)
            strength[i, s] = prediction_strength(lb, la)
            step += 1
            done = s * ks.size + i + 1
            result = None
            if done == ks.size * n_splits:
                result = StabilityResult(ks=ks.copy(), instability=scores.mean(axis=1), std=scores.std(axis=1),
                                         scores=scores.copy(), strength=strength.mean(axis=1),
                                         strength_scores=strength.copy())
            yield StabilitySnapshot(step=step - 1, phase="stability", progress=done / (ks.size * n_splits),
                                    scores=frozen_array(scores), k=int(k), split=s, result=result,
                                    strength=frozen_array(strength))


def stability(model_factory: Callable, X, ks, n_splits: int = 5, random_state=None) -> StabilityResult:
    """Stability criterion for choosing K.

    For each split, draw two random disjoint halves A and B; for each K fit one model on A
    and one on B, label the points of B with both, and count the fraction of points of B on
    which the two labellings disagree, minimised over relabellings (the best permutation
    from :func:`scipy.optimize.linear_sum_assignment` on the confusion matrix). A K that
    reflects real structure gives the same partition from both halves: low instability.
    The same two labellings also give the :func:`prediction_strength` of B's clustering;
    :meth:`StabilityResult.chosen_k` is the largest K whose mean strength minus its standard
    error over the splits is at least a threshold (0.8 by default).
    (Merging true groups is stable too, so the smallest instability often falls on a K
    below the true one; the strength rule asks for the largest K that is still stable.)

    Parameters
    ----------
    model_factory : callable
        ``(n_clusters, seed) -> unfitted model`` with ``fit``/``predict``,
        e.g. ``lambda k, s: KMeans(k, random_state=s)``
    X : array (n, f)
        The data.
    ks : iterable of int
        The K to compare.
    n_splits : int >= 1
        Number of random splits into halves.
    random_state : None, int or Generator
        Seeds the splits and the models.

    Returns
    -------
    StabilityResult
        Instability and prediction strength per K.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cluster import KMeans, stability
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(c, 0.3, size=(20, 2)) for c in ([0, 0], [4, 0], [0, 4])])
    >>> res = stability(lambda k, s: KMeans(k, random_state=s), X, ks=[2, 3, 4], n_splits=3, random_state=0)
    >>> print(np.round(res.instability, 3), res.chosen_k())
    [0.2   0.    0.189] 3
    """
    last = None
    for last in stability_steps(model_factory, X, ks, n_splits=n_splits, random_state=random_state):
        pass
    return last.result
