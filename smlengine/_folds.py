"""k-fold splits of n samples: the folds of every cross-validation in the engine.

Shared by the classifiers' cross-validation and grid search (:mod:`smlengine.model_selection`,
which exports :func:`kfold_indices`) and the regressions' cross-validated error
(:func:`smlengine.regression.cross_val_mse`).
"""

from __future__ import annotations

import numpy as np

from ._base import check_random_state
from ._params import Boolean, Integral, Interval, RandomState, validate_call

__all__ = ["K_FOLDS", "MAX_SAMPLES", "RANDOM_STATE", "kfold_indices"]

#: Most samples a k-fold split accepts (its permutation is n integers).
MAX_SAMPLES = 100_000_000
#: allowed number of folds k, and seeds, for every function that splits into folds
K_FOLDS = [Interval(Integral, 2, None)]
RANDOM_STATE = [RandomState(), None]


@validate_call({"n": [Interval(Integral, 1, MAX_SAMPLES)], "k": K_FOLDS, "shuffle": [Boolean()],
                "random_state": RANDOM_STATE})
def kfold_indices(n, k, shuffle=True, random_state=None):
    """Split range(n) into k folds of sizes differing by at most one.

    Returns
    -------
    list of (train_idx, val_idx)
        k pairs of sorted index arrays; the validation folds partition range(n).

    Examples
    --------
    >>> from smlengine.model_selection import kfold_indices
    >>> [(tr.tolist(), va.tolist()) for tr, va in kfold_indices(5, 2, shuffle=False)]
    [([3, 4], [0, 1, 2]), ([0, 1, 2], [3, 4])]
    """
    if k > n:
        raise ValueError(f"k = {k} folds need at least {k} samples, got {n}")
    order = check_random_state(random_state).permutation(n) if shuffle else np.arange(n)
    folds = np.array_split(order, k)
    out = []
    for f in range(k):
        val = np.sort(folds[f])
        train = np.sort(np.concatenate([folds[g] for g in range(k) if g != f]))
        out.append((train, val))
    return out
