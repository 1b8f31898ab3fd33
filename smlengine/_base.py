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

__all__ = [
    "Snapshot",
    "BaseEstimator",
    "IterativeMixin",
    "frozen_array",
    "check_array",
    "check_X_y",
    "check_binary_labels",
    "check_scalar",
    "check_choice",
    "check_random_state",
    "NotFittedError",
]


class NotFittedError(ValueError, AttributeError):
    """Raised when a method needs learned state that ``fit`` has not produced yet."""


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
    """

    step: int
    phase: str = ""
    progress: float | None = None


def frozen_array(a: Any, dtype=None) -> np.ndarray:
    """Return a read-only copy of ``a`` so a snapshot can be kept safely."""
    out = np.array(a, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


def check_random_state(seed) -> np.random.Generator:
    """Turn ``None``, an int or a Generator into a :class:`numpy.random.Generator`."""
    if seed is None or isinstance(seed, (numbers.Integral, np.integer)):
        if seed is not None and int(seed) < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {seed}")
        return np.random.default_rng(None if seed is None else int(seed))
    if isinstance(seed, np.random.Generator):
        return seed
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {type(seed).__name__}")


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
    """Validate one hyper-parameter and return it; raise a message a student understands."""
    if value is None and allow_none:
        return value
    if isinstance(value, bool) or not isinstance(value, kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        names = " or ".join(getattr(k, "__name__", str(k)).replace("Integral", "integer").replace("Real", "number") for k in kinds)
        raise TypeError(f"{name} must be a {names}, got {value!r}")
    if isinstance(value, numbers.Real) and not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if min_value is not None:
        if include_min and value < min_value:
            raise ValueError(f"{name} must be >= {min_value}, got {value}")
        if not include_min and value <= min_value:
            raise ValueError(f"{name} must be > {min_value}, got {value}")
    if max_value is not None:
        if include_max and value > max_value:
            raise ValueError(f"{name} must be <= {max_value}, got {value}")
        if not include_max and value >= max_value:
            raise ValueError(f"{name} must be < {max_value}, got {value}")
    return value


def check_choice(name: str, value: Any, options: Iterable[Any]):
    """Validate that ``value`` is one of ``options``."""
    options = tuple(options)
    if value not in options:
        listed = ", ".join(repr(o) for o in options)
        raise ValueError(f"{name} must be one of {listed}, got {value!r}")
    return value


def check_array(X, *, name: str = "X", ndim: int = 2, min_samples: int = 1, n_features: int | None = None) -> np.ndarray:
    """Convert to a finite float64 array of the expected dimension.

    ``n_features``, when given, is the width the estimator was fitted with.
    """
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must contain numbers only ({exc})") from None
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
    if n_features is not None and ndim == 2 and arr.shape[1] != n_features:
        raise ValueError(f"{name} has {arr.shape[1]} features, but the model was fitted with {n_features}")
    return arr


def check_X_y(X, y, *, min_samples: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Validate a design matrix and its labels together."""
    X = check_array(X, name="X", min_samples=min_samples)
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
    """
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(
            f"this classifier needs exactly two classes, got {classes.size}"
            + (f" ({classes.tolist()})" if classes.size <= 5 else "")
        )
    y_pm = np.where(y == classes[1], 1.0, -1.0)
    return classes, y_pm


class BaseEstimator:
    """scikit-learn-shaped base: hyper-parameters stored verbatim in ``__init__``."""

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]

    def get_params(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params) -> "BaseEstimator":
        valid = set(self._param_names())
        for key, value in params.items():
            if key not in valid:
                raise ValueError(f"unknown parameter {key!r} for {type(self).__name__}; valid: {sorted(valid)}")
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def _check_fitted(self, attribute: str) -> None:
        if not hasattr(self, attribute):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")


class IterativeMixin:
    """``fit`` exhausts ``fit_steps`` so batch and live runs share one code path."""

    def fit(self, *args, **kwargs):
        last = None
        for last in self.fit_steps(*args, **kwargs):
            pass
        self.last_snapshot_ = last
        return self
