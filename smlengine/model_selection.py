"""k-fold cross-validation, grid search and the course's train/validation/test protocol.

Protocol of the course: fit each candidate on the training part, choose the candidate with
the smallest validation error (a held-out set or the k-fold cross-validation error),
retrain the chosen one on training + validation data, and report its error on the test
set, which played no part in the choice.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from ._base import Snapshot, check_X_y, frozen_array
from ._folds import K_FOLDS, MAX_SAMPLES, RANDOM_STATE, kfold_indices  # noqa: F401 - MAX_SAMPLES re-exported
from ._params import Boolean, validate_call


__all__ = [
    "kfold_indices",
    "cross_val_error",
    "grid_search_steps",
    "GridSearchSnapshot",
    "select_and_test",
    "SelectionResult",
]


def _error(estimator, X, y) -> float:
    return float(np.mean(estimator.predict(X) != y))


def _fold_errors(estimator_factory, X, y, folds, params):
    errs = np.empty(len(folds))
    for f, (tr, va) in enumerate(folds):
        if np.unique(y[tr]).size < 2:
            raise ValueError("a training fold contains a single class; use fewer folds or shuffle the data")
        est = estimator_factory(**params).fit(X[tr], y[tr])
        errs[f] = _error(est, X[va], y[va])
    return errs


@validate_call({"k": K_FOLDS, "random_state": RANDOM_STATE, "return_folds": [Boolean()]})
def cross_val_error(estimator_factory, X, y, k=5, random_state=None, return_folds=False):
    """Mean misclassification rate over k folds.

    Parameters
    ----------
    estimator_factory : callable
        ``estimator_factory()`` returns a fresh unfitted estimator (a class works).
    X, y : array-like
        The training data.
    k : int, default=5
        Number of folds.
    random_state : None, int or Generator
        Seed of the shuffle before splitting.
    return_folds : bool
        Also return the array of per-fold errors.

    Returns
    -------
    float, or (float, ndarray of shape (k,))
        The mean error (and the error of every fold).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.model_selection import cross_val_error
    >>> from smlengine.trees import DecisionTree
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0]])
    >>> y = np.array([0, 0, 1, 0, 1, 1, 1, 1])
    >>> err, folds = cross_val_error(lambda: DecisionTree(max_depth=1), X, y, k=4, random_state=0, return_folds=True)
    >>> print(err, folds)
    0.375 [1.  0.5 0.  0. ]
    """
    X, y = check_X_y(X, y)
    folds = kfold_indices(X.shape[0], k, shuffle=True, random_state=random_state)
    errs = _fold_errors(estimator_factory, X, y, folds, {})
    return (float(errs.mean()), errs) if return_folds else float(errs.mean())


@dataclass(frozen=True, kw_only=True, eq=False)
class GridSearchSnapshot(Snapshot):
    """One evaluated grid cell.

    Attributes
    ----------
    params : dict
        The hyper-parameters of this cell.
    index : tuple of int
        Position of the cell in the grid (one index per parameter, in ``names`` order).
    names : tuple of str
        The parameter names, i.e. the axes of ``errors``.
    mean_error, fold_errors : float, ndarray of shape (k,)
        Cross-validation error of this cell.
    errors : ndarray
        Mean CV error of every cell so far (NaN where not yet evaluated), shape = grid shape.
    best_params : dict
        The parameters of the best cell so far.
    best_index : tuple of int
        Its position in the grid.
    best_error : float
        Its mean CV error.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.model_selection import grid_search_steps
    >>> from smlengine.trees import DecisionTree
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0]])
    >>> y = np.array([0, 0, 1, 0, 1, 1, 1, 1])
    >>> for s in grid_search_steps(DecisionTree, {"max_depth": [1, 2, 3]}, X, y, k=4):
    ...     print(s.step, s.params, s.errors, s.best_params)
    1 {'max_depth': 1} [0.375   nan   nan] {'max_depth': 1}
    2 {'max_depth': 2} [0.375 0.375   nan] {'max_depth': 1}
    3 {'max_depth': 3} [0.375 0.375 0.375] {'max_depth': 1}
    """

    params: dict
    index: tuple
    names: tuple
    mean_error: float
    fold_errors: np.ndarray
    errors: np.ndarray
    best_params: dict
    best_index: tuple
    best_error: float


def _grid_axes(grid: Mapping[str, Any]):
    if not isinstance(grid, Mapping) or not grid:
        raise ValueError("grid must be a non-empty mapping parameter name -> list of values")
    names = tuple(grid)
    values = [list(grid[nm]) for nm in names]
    for nm, v in zip(names, values):
        if not v:
            raise ValueError(f"grid parameter {nm!r} has no values")
    return names, values


@validate_call({"k": K_FOLDS, "random_state": RANDOM_STATE})
def grid_search_steps(estimator_factory: Callable, grid, X, y, k=5, random_state=0):
    """Cross-validate every cell of a parameter grid, yielding after each cell.

    ``estimator_factory(**params)`` builds the estimator of a cell; all cells share the same
    folds, so their errors are comparable. Ties keep the first cell in grid order.

    Yields
    ------
    GridSearchSnapshot
        One per cell, in row-major order of ``grid`` (step 1 .. number of cells).
    """
    X, y = check_X_y(X, y)
    names, values = _grid_axes(grid)
    folds = kfold_indices(X.shape[0], k, shuffle=True, random_state=random_state)
    shape = tuple(len(v) for v in values)
    errors = np.full(shape, np.nan)
    best = (np.inf, None, None)
    total = int(np.prod(shape))
    for step, index in enumerate(itertools.product(*(range(s) for s in shape)), start=1):
        params = {nm: values[a][index[a]] for a, nm in enumerate(names)}
        errs = _fold_errors(estimator_factory, X, y, folds, params)
        mean = float(errs.mean())
        errors[index] = mean
        if mean < best[0]:
            best = (mean, index, params)
        yield GridSearchSnapshot(
            step=step, params=dict(params), index=index, names=names, mean_error=mean,
            fold_errors=frozen_array(errs), errors=frozen_array(errors),
            best_params=dict(best[2]), best_index=best[1], best_error=best[0],
            phase="grid search", progress=step / total,
        )


@dataclass(frozen=True)
class SelectionResult:
    """Outcome of :func:`select_and_test`.

    Attributes
    ----------
    best_params : dict
        The chosen cell.
    validation_errors : ndarray
        Validation error of every cell, grid-shaped.
    names : tuple of str
        The parameter names, i.e. the axes of ``validation_errors``.
    best_validation_error : float
        The chosen cell's validation error.
    test_error : float
        Its error on the test set, measured once.
    estimator : estimator
        The chosen model retrained on train (+ validation).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.model_selection import select_and_test
    >>> from smlengine.trees import DecisionTree
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0]])
    >>> y = np.array([0, 0, 1, 0, 1, 1, 1, 1])
    >>> res = select_and_test(DecisionTree, {"max_depth": [1, 3]}, X, y, X[:4], y[:4], k=4)
    >>> res.best_params, res.validation_errors, res.test_error
    ({'max_depth': 1}, array([0.375, 0.375]), 0.25)
    """

    best_params: dict
    validation_errors: np.ndarray  # grid-shaped
    names: tuple
    best_validation_error: float
    test_error: float
    estimator: Any  # retrained on train + validation


@validate_call({"k": K_FOLDS, "random_state": RANDOM_STATE})
def select_and_test(estimator_factory, grid, X_train, y_train, X_test, y_test, X_val=None, y_val=None, k=5,
                    random_state=0):
    """The course protocol: choose by validation error, retrain, report the test error.

    With ``X_val``/``y_val`` every cell is fitted on the training set and scored on the
    validation set; without them the validation error is the k-fold CV error on the training
    set. The chosen cell is retrained on train (+ validation) and scored once on the test set.
    """
    X_train, y_train = check_X_y(X_train, y_train)
    X_test, y_test = check_X_y(X_test, y_test)
    if X_test.shape[1] != X_train.shape[1]:
        raise ValueError(f"X_test has {X_test.shape[1]} features, X_train has {X_train.shape[1]}")
    if X_val is None:
        last = None
        for last in grid_search_steps(estimator_factory, grid, X_train, y_train, k=k, random_state=random_state):
            pass
        names, errors, best_params, best_err = last.names, np.array(last.errors), last.best_params, last.best_error
        X_all, y_all = X_train, y_train
    else:
        X_val, y_val = check_X_y(X_val, y_val)
        names, values = _grid_axes(grid)
        errors = np.full(tuple(len(v) for v in values), np.nan)
        best_err, best_params = np.inf, None
        for index in itertools.product(*(range(len(v)) for v in values)):
            params = {nm: values[a][index[a]] for a, nm in enumerate(names)}
            err = _error(estimator_factory(**params).fit(X_train, y_train), X_val, y_val)
            errors[index] = err
            if err < best_err:
                best_err, best_params = err, params
        X_all, y_all = np.vstack([X_train, X_val]), np.concatenate([y_train, y_val])
    final = estimator_factory(**best_params).fit(X_all, y_all)
    return SelectionResult(
        best_params=dict(best_params), validation_errors=errors, names=tuple(names),
        best_validation_error=float(best_err), test_error=_error(final, X_test, y_test), estimator=final,
    )
