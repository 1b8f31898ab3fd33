"""Shared building blocks of the engine: snapshots, estimator base and validation.

Every iterative algorithm in :mod:`smlengine` exposes ``fit_steps(...)``, a generator
of frozen snapshot dataclasses, and ``fit(...)`` which simply exhausts it. The GUI keeps
snapshots in a timeline, so a snapshot must own its arrays: use :func:`frozen_array`.
"""

from __future__ import annotations

import inspect
import numbers
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from ._params import validate_parameter_constraints

__all__ = [
    "Snapshot",
    "BaseEstimator",
    "ClassifierMixin",
    "RegressorMixin",
    "IterativeMixin",
    "LinearClassifierMixin",
    "frozen_array",
    "check_array",
    "check_X_y",
    "check_binary_labels",
    "check_scalar",
    "check_choice",
    "check_random_state",
    "NotFittedError",
    "MAX_ABS_VALUE",
    "quote_text",
    "display_path",
    "LineErrors",
]

# Largest |x| the estimators accept. Kernels and Gram-type sums square the data and then
# multiply by hyper-parameters (C, learning rate, iteration counts); with |x| <= 1e100 the
# squares stay below 1e200, which leaves a factor 1e100 of headroom before float64
# overflows (about 1.8e308) and a silent NaN appears.
MAX_ABS_VALUE = 1e100

# How much user data an error message may quote: per item and number of items.
QUOTE_LIMIT = 80
MAX_QUOTED_ERRORS = 3


class NotFittedError(ValueError, AttributeError):
    """Raised when a method needs learned state that ``fit`` has not produced yet.

    Examples
    --------
    >>> from smlengine import NotFittedError
    >>> from smlengine.svm import SVM
    >>> try:
    ...     SVM().predict([[0.0, 0.0]])
    ... except NotFittedError as err:
    ...     print(err)
    this SVM is not fitted yet; call fit first
    """


@dataclass(frozen=True, kw_only=True)
class Snapshot:
    """Base of every snapshot: the step counter plus optional progress information.

    Attributes
    ----------
    step : int
        0 for the initial state, then 1, 2, ... for each yielded update.
    phase : str
        Short human-readable name of what the algorithm is doing (long runs).
    progress : float or None
        Fraction of the work done in ``[0, 1]`` when it is known.

    Examples
    --------
    >>> from smlengine import Snapshot
    >>> Snapshot(step=3, phase="fit", progress=0.5)
    Snapshot(step=3, phase='fit', progress=0.5)
    """

    step: int
    phase: str = ""
    progress: float | None = None


def frozen_array(a: Any, dtype=None) -> np.ndarray:
    """Return a read-only copy of ``a`` so a snapshot can be kept safely.

    Examples
    --------
    >>> from smlengine import frozen_array
    >>> a = frozen_array([1, 2, 3], dtype=float)
    >>> a.flags.writeable, a
    (False, array([1., 2., 3.]))
    """
    out = np.array(a, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


def quote_text(text: Any, limit: int = QUOTE_LIMIT) -> str:
    """``repr`` of user data for an error message, at most about ``limit`` characters.

    A malformed line may be megabytes long (a file without line breaks); quoting all of it
    makes a message nobody can read and a dialog that freezes, so long text is cut and the
    full length is stated instead.
    """
    text = str(text)
    n = min(len(text), limit)
    shown = repr(text[:n])
    while len(shown) > limit + 2 and n > 0:  # escapes such as \x00 make repr longer
        n //= 2
        shown = repr(text[:n])
    if n < len(text):
        return f"{shown}... ({len(text):,} characters)"
    return shown


def display_path(path: Any, limit: int = QUOTE_LIMIT) -> str:
    """A file path for a message: its end (the file name) when the whole path is too long."""
    text = str(path)
    return text if len(text) <= limit else "..." + text[-(limit - 3):]


class LineErrors:
    """Problems found while reading a file, for one short error message.

    Loaders report every malformed line instead of stopping at the first, but a broken
    file can have millions of them: only the first ``keep`` are kept for the message
    (each quoting at most :data:`QUOTE_LIMIT` characters of the line), the rest are counted.
    """

    def __init__(self, keep: int = MAX_QUOTED_ERRORS):
        self.keep = keep
        self.shown: list[str] = []
        self.count = 0

    def add(self, message) -> None:
        """Count a problem; ``message`` is its text, or a function that makes it (called only
        while the message still has room, so millions of broken lines cost no quoting)."""
        self.count += 1
        if len(self.shown) < self.keep:
            self.shown.append(message() if callable(message) else message)

    def __bool__(self) -> bool:
        return self.count > 0

    def __len__(self) -> int:
        return self.count

    def message(self, label: str, what: str = "malformed line(s)") -> str:
        """``label: N what:`` then the kept problems, one per line, then ``... and M more``."""
        lines = list(self.shown)
        if self.count > len(self.shown):
            lines.append(f"... and {self.count - len(self.shown):,} more")
        return f"{label}: {self.count:,} {what}:\n  " + "\n  ".join(lines)


def check_random_state(seed) -> np.random.Generator:
    """Turn ``None``, an int or a Generator into a :class:`numpy.random.Generator`.

    Examples
    --------
    >>> from smlengine._base import check_random_state
    >>> int(check_random_state(0).integers(10)), int(check_random_state(0).integers(10))
    (8, 8)
    """
    if seed is None or isinstance(seed, (numbers.Integral, np.integer)):
        if seed is not None and int(seed) < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {seed}")
        return np.random.default_rng(None if seed is None else int(seed))
    if isinstance(seed, np.random.Generator):
        return seed
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {type(seed).__name__}")


def short_repr(value: Any) -> str:
    """``repr`` of a parameter value for a message, cut short (a value may be a huge string or int)."""
    if isinstance(value, numbers.Integral) and abs(int(value)).bit_length() > 64:
        # str() of an int with thousands of digits is slow or refused by Python itself
        return f"an integer of about {int(abs(int(value)).bit_length() * 0.30103) + 1} digits"
    try:
        text = str(value) if isinstance(value, numbers.Number) else repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real problem
        text = f"<{type(value).__name__}>"
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 3] + "..."


def check_scalar(
    name: str,
    value: Any,
    kind: type | tuple = numbers.Real,
    *,
    min_value: float | None = None,
    max_value: float | None = None,
    include_min: bool = True,
    include_max: bool = True,
    allow_none: bool = False,
):
    """Validate one hyper-parameter and return it; raise a message a student understands.

    Examples
    --------
    >>> from smlengine._base import check_scalar
    >>> check_scalar("C", 2.0, min_value=0.0, include_min=False)
    2.0
    >>> try:
    ...     check_scalar("C", -1.0, min_value=0.0, include_min=False)
    ... except ValueError as err:
    ...     print(err)
    C must be > 0.0, got -1.0
    """
    if value is None and allow_none:
        return value
    if isinstance(value, bool) or not isinstance(value, kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        names = " or ".join(getattr(k, "__name__", str(k)).replace("Integral", "integer").replace("Real", "number")
                            for k in kinds)
        raise TypeError(f"{name} must be a {names}, got {short_repr(value)}")
    # Integers are always finite (and Python ints beyond 2**64 do not fit a numpy float
    # check), so only real non-integers are tested for NaN/inf.
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral) and not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {short_repr(value)}")
    if min_value is not None:
        if include_min and value < min_value:
            raise ValueError(f"{name} must be >= {min_value}, got {short_repr(value)}")
        if not include_min and value <= min_value:
            raise ValueError(f"{name} must be > {min_value}, got {short_repr(value)}")
    if max_value is not None:
        if include_max and value > max_value:
            raise ValueError(f"{name} must be <= {max_value}, got {short_repr(value)}")
        if not include_max and value >= max_value:
            raise ValueError(f"{name} must be < {max_value}, got {short_repr(value)}")
    return value


def check_choice(name: str, value: Any, options: Iterable[Any]):
    """Validate that ``value`` is one of ``options``."""
    options = tuple(options)
    if value not in options:
        listed = ", ".join(repr(o) for o in options)
        raise ValueError(f"{name} must be one of {listed}, got {short_repr(value)}")
    return value


def check_array(
    X,
    *,
    name: str = "X",
    ndim: int = 2,
    min_samples: int = 1,
    n_features: int | None = None,
    max_abs: float | None = None,
) -> np.ndarray:
    """Convert to a finite float64 array of the expected dimension.

    ``n_features``, when given, is the width the estimator was fitted with. ``max_abs``,
    when given (estimators pass :data:`MAX_ABS_VALUE`), is the largest |x| accepted: huge
    but finite values overflow once squared inside the algorithm and would come back as
    a silent NaN, so they are refused with a request to rescale.
    """
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        detail = str(exc)
        detail = detail if len(detail) <= QUOTE_LIMIT else detail[: QUOTE_LIMIT - 3] + "..."
        raise ValueError(f"{name} must contain numbers only ({detail})") from None
    if ndim == 2 and arr.ndim == 1:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got a 1-D array of shape {arr.shape}")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if arr.shape[0] < min_samples:
        raise ValueError(f"{name} needs at least {min_samples} sample(s), got {arr.shape[0]}")
    if ndim == 2 and arr.shape[1] == 0:
        raise ValueError(f"{name} has no features (shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); remove or impute them first")
    if max_abs is not None and arr.size:
        largest = float(np.max(np.abs(arr)))
        if largest > max_abs:
            raise ValueError(f"{name} has values up to {largest:.3g}; rescale the data (|x| <= {max_abs:.0e})")
    if n_features is not None and ndim == 2 and arr.shape[1] != n_features:
        raise ValueError(f"{name} has {arr.shape[1]} features, but the model was fitted with {n_features}")
    return arr


def check_X_y(X, y, *, min_samples: int = 1, max_abs: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate a design matrix and its labels together (``max_abs`` as in :func:`check_array`)."""
    X = check_array(X, name="X", min_samples=min_samples, max_abs=max_abs)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y have different numbers of samples: {X.shape[0]} and {y.shape[0]}")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinite labels")
    return X, y


def check_binary_labels(y) -> tuple[np.ndarray, np.ndarray]:
    """Map two distinct labels to -1/+1.

    Returns ``(classes, y_pm)`` where ``classes[0]`` maps to -1 and ``classes[1]`` to +1.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine._base import check_binary_labels
    >>> classes, y_pm = check_binary_labels(np.array(["spam", "ham", "spam"]))
    >>> print(classes, y_pm)
    ['ham' 'spam'] [ 1. -1.  1.]
    """
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(
            f"this classifier needs exactly two classes, got {classes.size}"
            + (f" ({classes.tolist()})" if classes.size <= 5 else "")
        )
    y_pm = np.where(y == classes[1], 1.0, -1.0)
    return classes, y_pm


def _is_estimator(value) -> bool:
    """An estimator instance (it has ``get_params``), not a class."""
    return hasattr(value, "get_params") and not isinstance(value, type)


class BaseEstimator:
    """scikit-learn-shaped base: hyper-parameters stored verbatim in ``__init__``.

    Subclasses state the allowed values of their hyper-parameters in the class attribute
    ``_parameter_constraints`` (see :mod:`smlengine._params`) and call :meth:`validate_params`
    before ``fit`` (or any method that consumes a hyper-parameter) does any work, so a bad
    value is refused with its allowed range before anything is allocated.
    ``get_params(deep=True)``, ``set_params`` with ``name__sub`` keys and ``__sklearn_tags__``
    make the estimators acceptable to ``sklearn.base.clone``, ``GridSearchCV``,
    ``cross_val_score`` and ``Pipeline``.

    Examples
    --------
    >>> from smlengine.svm import SVM
    >>> svm = SVM(C=2.0)
    >>> svm.get_params()["C"], svm.set_params(kernel="linear").kernel
    (2.0, 'linear')
    >>> try:
    ...     SVM(C=-1).validate_params()
    ... except ValueError as err:
    ...     print(err)
    C must be a float in (0, 1e100]; got -1
    """

    #: parameter name -> list of accepted constraints (an entry missing is not checked)
    _parameter_constraints: dict[str, list] = {}

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Hyper-parameters as given to ``__init__``; with ``deep`` also ``name__sub`` of nested estimators."""
        out = {name: getattr(self, name) for name in self._param_names()}
        if deep:
            for key, value in list(out.items()):
                if _is_estimator(value):
                    for sub, sub_value in value.get_params(deep=True).items():
                        out[f"{key}__{sub}"] = sub_value
        return out

    def set_params(self, **params) -> "BaseEstimator":
        """Set hyper-parameters; ``name__sub`` sets ``sub`` of the nested estimator ``name``."""
        valid = set(self._param_names())
        nested: dict[str, dict] = {}
        for key, value in params.items():
            head, sep, tail = key.partition("__")
            if head not in valid or (sep and not _is_estimator(getattr(self, head))):
                raise ValueError(f"unknown parameter {key!r} for {type(self).__name__}; valid: {sorted(valid)}")
            if sep:
                nested.setdefault(head, {})[tail] = value
            else:
                setattr(self, key, value)
        for head, sub in nested.items():
            getattr(self, head).set_params(**sub)
        return self

    def validate_params(self) -> None:
        """Check every hyper-parameter against ``_parameter_constraints``.

        Raises
        ------
        TypeError
            A value of the wrong kind ("max_iter must be an int in [1, 100000]; got 'ten'").
        ValueError
            A value of the right kind out of its range, NaN or infinite
            ("C must be a float in (0, 1e6]; got nan").
        """
        validate_parameter_constraints(type(self)._parameter_constraints, self.get_params(deep=False),
                                       type(self).__name__)

    def __sklearn_tags__(self):
        from sklearn.utils import Tags, TargetTags  # only reached from scikit-learn, a test dependency

        return Tags(estimator_type=None, target_tags=TargetTags(required=False))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params(deep=False).items())
        return f"{type(self).__name__}({args})"

    def _check_fitted(self, attribute: str) -> None:
        if not hasattr(self, attribute):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")


class ClassifierMixin:
    """Accuracy as ``score`` and scikit-learn's classifier tags (put it before BaseEstimator)."""

    _estimator_type = "classifier"
    #: False for classifiers of exactly two classes (scikit-learn's checks then use two classes)
    _multi_class = True

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags  # only reached from scikit-learn, a test dependency

        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags(multi_class=self._multi_class)
        tags.target_tags.required = True
        return tags

    def score(self, X, y) -> float:
        """Accuracy: the fraction of rows of X whose predicted class equals y."""
        y = np.asarray(y)
        pred = self.predict(X)
        if y.shape != pred.shape:
            raise ValueError(f"y has shape {y.shape}, but X gives {pred.shape[0]} predictions")
        return float(np.mean(pred == y)) if y.size else 0.0


class RegressorMixin:
    """R² as ``score`` and scikit-learn's regressor tags (put it before BaseEstimator)."""

    _estimator_type = "regressor"

    def __sklearn_tags__(self):
        from sklearn.utils import RegressorTags  # only reached from scikit-learn, a test dependency

        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor"
        tags.regressor_tags = RegressorTags()
        tags.target_tags.required = True
        return tags

    def score(self, X, y) -> float:
        """R² = 1 − Σ(y − ŷ)² / Σ(y − ȳ)².

        1 for a perfect fit; for a constant y, 1 if predicted exactly, else 0.
        """
        y = np.asarray(y, dtype=np.float64).ravel()
        pred = np.asarray(self.predict(X), dtype=np.float64).ravel()
        if y.shape != pred.shape:
            raise ValueError(f"y has {y.shape[0]} values, but X gives {pred.shape[0]} predictions")
        ss_res = float(np.sum((y - pred) ** 2))
        ss_tot = float(np.sum((y - y.mean()) ** 2))
        if ss_tot == 0.0:
            return 1.0 if ss_res == 0.0 else 0.0
        return 1.0 - ss_res / ss_tot


class LinearClassifierMixin:
    """``decision_function`` and ``predict`` of a fitted two-class linear model.

    The model sets ``coef_`` (v), ``intercept_`` (b) and ``classes_``;
    f(x) = <v, x> + b and the prediction is ``classes_[1]`` where f(x) > 0, else
    ``classes_[0]`` (points exactly on the hyperplane included).
    """

    def decision_function(self, X) -> np.ndarray:
        """f(x) = <coef_, x> + intercept_ for every row of X."""
        self._check_fitted("coef_")
        X = check_array(X, n_features=self.coef_.shape[0], max_abs=MAX_ABS_VALUE)
        return X @ self.coef_ + self.intercept_

    def predict(self, X) -> np.ndarray:
        """The class of sign(f(x)); points exactly on the hyperplane go to classes_[0]."""
        return np.where(self.decision_function(X) > 0, self.classes_[1], self.classes_[0])


class IterativeMixin:
    """``fit`` exhausts ``fit_steps`` so batch and live runs share one code path."""

    def fit(self, X, y=None, *args, **kwargs):
        """Exhaust ``fit_steps(X, y, ...)`` (``y`` passed on only when given) and return ``self``."""
        last = None
        head = (X,) if y is None else (X, y)
        for last in self.fit_steps(*head, *args, **kwargs):
            pass
        self.last_snapshot_ = last
        return self
