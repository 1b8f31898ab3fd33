"""Bias against variance: the expected error of a model split over redrawn training sets.

:func:`bias_variance` fits one model per training set drawn from a known truth f plus noise
and splits its expected squared error at each x into bias², variance and noise
(:class:`BiasVariance`); :func:`cross_val_mse` estimates the same error from one data set
by k-fold cross-validation. Both take a ``model_factory`` returning an unfitted estimator on
one input variable; :mod:`smlengine.regression` re-exports them.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ._base import check_random_state, check_scalar
from ._folds import kfold_indices
from ._regression_checks import check_x, check_xy


@dataclass(frozen=True, eq=False)
class BiasVariance:
    """Bias–variance decomposition over training sets redrawn from one truth.

    Attributes
    ----------
    predictions : ndarray of shape (n_sets, n_eval)
        ŷ_s(x) of the model fitted on training set s.
    mean_prediction : ndarray of shape (n_eval,)
        ȳ(x) = mean over s of ŷ_s(x).
    truth : ndarray of shape (n_eval,)
        f(x).
    bias2 : ndarray of shape (n_eval,)
        (ȳ(x) − f(x))².
    variance : ndarray of shape (n_eval,)
        mean over s of (ŷ_s(x) − ȳ(x))² (1/S, so bias2 + variance equals the mean of
        (ŷ_s(x) − f(x))² exactly).
    noise : float
        σ², the error no model avoids: the expected test error at x is
        bias2 + variance + noise.

    Examples
    --------
    A straight line cannot follow a sine: large bias, small variance.

    >>> import numpy as np
    >>> from smlengine.regression import BasisRegression, PolynomialBasis, bias_variance
    >>> x_train = np.linspace(0.0, 1.0, 10)[:, None]
    >>> bv = bias_variance(lambda: BasisRegression(PolynomialBasis(degree=1)), lambda x: np.sin(2 * np.pi * x),
    ...                    0.1, x_train, [[0.25], [0.75]], n_sets=20, random_state=0)
    >>> bv.predictions.shape
    (20, 2)
    >>> print(np.round(bv.bias2, 3), np.round(bv.variance, 4), round(bv.noise, 3))
    [0.44  0.444] [0.001  0.0028] 0.01
    >>> print(np.round(bv.expected_test_error, 3))
    [0.451 0.456]
    """

    predictions: np.ndarray
    mean_prediction: np.ndarray
    truth: np.ndarray
    bias2: np.ndarray
    variance: np.ndarray
    noise: float

    @property
    def expected_test_error(self) -> np.ndarray:
        """bias2 + variance + noise at every evaluation point."""
        return self.bias2 + self.variance + self.noise


def bias_variance(model_factory: Callable, f: Callable, noise, x_train, x_eval, n_sets=50, random_state=None,
                  y_draws=None) -> BiasVariance:
    """Fit ``n_sets`` models on training sets drawn from one truth and split their error.

    The design ``x_train`` is fixed; training set s has responses y = f(x_train) + σ ε_s,
    ε_s ~ N(0, I) (``y_draws`` may give these responses, shape (n_sets, n_train)). Each
    ``model_factory()`` is an unfitted estimator on x of shape (n, 1). At each x of
    ``x_eval``: E_s[(ŷ_s(x) − f(x))²] = (ȳ(x) − f(x))² + E_s[(ŷ_s(x) − ȳ(x))²], bias² plus
    variance, and the expected error on a new response f(x) + σε adds σ².
    """
    check_scalar("noise", noise, numbers.Real, min_value=0)
    check_scalar("n_sets", n_sets, numbers.Integral, min_value=2, max_value=100_000)
    if not callable(model_factory) or not callable(f):
        raise TypeError("model_factory and f must be callables")
    x_train = check_x(x_train, "x_train")
    x_eval = check_x(x_eval, "x_eval")
    f_train = np.asarray(f(x_train[:, 0]), dtype=np.float64).reshape(-1)
    truth = np.asarray(f(x_eval[:, 0]), dtype=np.float64).reshape(-1)
    if f_train.shape != (len(x_train),) or truth.shape != (len(x_eval),):
        raise ValueError("f must map an array of x values to an array of the same length")
    if y_draws is None:
        rng = check_random_state(random_state)
        y_draws = f_train[None, :] + float(noise) * rng.standard_normal((n_sets, len(x_train)))
    else:
        y_draws = np.asarray(y_draws, dtype=np.float64)
        if y_draws.shape != (n_sets, len(x_train)):
            raise ValueError(f"y_draws must have shape ({n_sets}, {len(x_train)}), got {y_draws.shape}")
    preds = np.empty((n_sets, len(x_eval)))
    for s in range(n_sets):
        preds[s] = model_factory().fit(x_train, y_draws[s]).predict(x_eval)
    mean = preds.mean(axis=0)
    return BiasVariance(predictions=preds, mean_prediction=mean, truth=truth, bias2=(mean - truth) ** 2,
                        variance=((preds - mean) ** 2).mean(axis=0), noise=float(noise) ** 2)


def cross_val_mse(model_factory: Callable, x, y, k=5, random_state=0) -> tuple[float, float]:
    """k-fold cross-validation: (mean, standard error) of the folds' mean squared errors.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.regression import BasisRegression, PolynomialBasis, cross_val_mse
    >>> x = np.linspace(0.0, 1.0, 10)[:, None]
    >>> mean, se = cross_val_mse(lambda: BasisRegression(PolynomialBasis(degree=3)), x, np.sin(2 * np.pi * x[:, 0]))
    >>> round(mean, 4), round(se, 4)
    (0.0729, 0.0587)
    """
    x = check_x(x)
    _x, y = check_xy(x, y)
    errors = []
    for train, val in kfold_indices(len(y), k, shuffle=True, random_state=random_state):
        model = model_factory().fit(x[train], y[train])
        errors.append(float(np.mean((model.predict(x[val]) - y[val]) ** 2)))
    errors = np.array(errors)
    return float(errors.mean()), float(errors.std(ddof=1) / math.sqrt(len(errors))) if len(errors) > 1 else 0.0
