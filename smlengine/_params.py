"""Declarative ranges for hyper-parameters, checked before any work is done.

An estimator states what each of its hyper-parameters may be in a class attribute::

    class SVM(BaseEstimator):
        _parameter_constraints = {
            "C": [Interval(Real, 0, 1e6, closed="right")],
            "kernel": [Options({"linear", "rbf"})],
            "shrinking": [Boolean()],
            "max_iter": [Interval(Integral, 1, 10**6), None],
        }

and :meth:`smlengine._base.BaseEstimator.validate_params` compares the stored values with
these lists before ``fit`` allocates anything. A value is accepted when it satisfies at least
one constraint of its list; ``None`` in a list accepts ``None``. Otherwise a message names
the parameter, everything it may be and what it got::

    C must be a float in (0, 1e6]; got nan

The exception is a :class:`TypeError` when the value is of none of the accepted kinds (a
string for a number, a bool for a count) and a :class:`ValueError` when the kind is right but
the value is not (out of range, NaN, infinite, not an option).

Numbers are always finite: an :class:`Interval` refuses NaN and ±inf whatever its bounds, and
refuses ``True``/``False`` as numbers. :func:`validate_call` applies the same lists to the
keyword arguments of a free function.
"""

from __future__ import annotations

import abc
import functools
import inspect
import math
import numbers
from numbers import Integral, Real
from typing import Any, Callable as _CallableType, Iterable, Mapping

import numpy as np

__all__ = [
    "Integral",
    "Real",
    "Interval",
    "Options",
    "Boolean",
    "InstanceOf",
    "Callable",
    "ArrayLike",
    "RandomState",
    "Constraint",
    "format_number",
    "describe_value",
    "check_param",
    "validate_parameter_constraints",
    "validate_call",
]

_QUOTE_LIMIT = 80


def format_number(x: float | int) -> str:
    """A bound for a message: ``1e6`` rather than ``1000000.0`` or ``1e+06``, ``0.5``, ``10``."""
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        x = int(x)
        if abs(x) < 10**6:
            return str(x)
        if x > 0 and (x & (x - 1)) == 0:  # a power of two reads better as one
            return f"2**{x.bit_length() - 1}"
        x = float(x)
    x = float(x)
    if x.is_integer() and abs(x) < 1e6:
        return str(int(x))
    text = f"{x:.6g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text


def describe_value(value: Any) -> str:
    """What a parameter was given, short enough for one message line."""
    if isinstance(value, bool) or isinstance(value, np.bool_):
        return repr(bool(value))
    if isinstance(value, numbers.Integral):
        n = int(value)
        if n.bit_length() > 64:
            return f"an integer of about {int(n.bit_length() * 0.30103) + 1} digits"
        return str(n)
    if isinstance(value, numbers.Real):
        f = float(value)
        return "nan" if math.isnan(f) else str(f) if math.isinf(f) else format_number(f)
    if isinstance(value, str):
        text = repr(value)
    elif value is None:
        return "None"
    else:
        try:
            text = repr(value)
        except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real problem
            text = f"<{type(value).__name__}>"
        if "\n" in text or len(text) > _QUOTE_LIMIT:
            text = f"a {type(value).__name__}"
    return text if len(text) <= _QUOTE_LIMIT else text[: _QUOTE_LIMIT - 3] + "..."


class Constraint(abc.ABC):
    """One acceptable form of a parameter value.

    ``is_satisfied_by(value)`` says whether the value is acceptable; ``accepts_type(value)``
    whether the value is at least of the right kind (then a refusal is a ValueError, not a
    TypeError); ``str(constraint)`` is the phrase used in messages.
    """

    @abc.abstractmethod
    def is_satisfied_by(self, value: Any) -> bool:
        """True if ``value`` is acceptable."""

    def accepts_type(self, value: Any) -> bool:
        """True if ``value`` is of the right kind (by default: if it is acceptable)."""
        return self.is_satisfied_by(value)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self}>"


class _NoneConstraint(Constraint):
    def is_satisfied_by(self, value):
        return value is None

    def __str__(self):
        return "None"


class Interval(Constraint):
    """A finite number of a given kind between two bounds.

    Parameters
    ----------
    kind : numbers.Integral or numbers.Real
        ``Integral`` accepts Python and numpy integers; ``Real`` also accepts floats. Neither
        accepts a bool.
    left, right : float, int or None
        Bounds; ``None`` leaves that side open to any finite value.
    closed : {"both", "left", "right", "neither"}
        Which bounds belong to the interval.

    Notes
    -----
    NaN and ±inf never satisfy an interval: a hyper-parameter that is infinite is always a
    mistake that would surface later as a NaN in the results.
    """

    def __init__(self, kind, left=None, right=None, *, closed: str = "both"):
        if kind not in (Integral, Real):
            raise TypeError("Interval kind must be numbers.Integral or numbers.Real")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be 'both', 'left', 'right' or 'neither', got {closed!r}")
        for name, bound in (("left", left), ("right", right)):
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, numbers.Real)
                                      or not math.isfinite(bound)):
                raise ValueError(f"Interval {name} bound must be a finite number or None, got {bound!r}")
        if left is not None and right is not None and left > right:
            raise ValueError(f"Interval left bound {left} is above its right bound {right}")
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def accepts_type(self, value) -> bool:
        """True for a number of the interval's kind (never a bool), whatever its value."""
        if isinstance(value, (bool, np.bool_)):
            return False
        return isinstance(value, numbers.Integral) if self.kind is Integral else isinstance(value, numbers.Real)

    def is_satisfied_by(self, value) -> bool:
        """True for a finite number of the right kind within the bounds.

        Examples
        --------
        >>> from numbers import Real
        >>> from smlengine._params import Interval
        >>> c = Interval(Real, 0, 1, closed="right")
        >>> c.is_satisfied_by(0.5), c.is_satisfied_by(0), c.is_satisfied_by(float("nan")), str(c)
        (True, False, False, 'a float in (0, 1]')
        """
        if not self.accepts_type(value):
            return False
        if not isinstance(value, numbers.Integral):
            try:
                if not math.isfinite(value):
                    return False
            except (TypeError, ValueError, OverflowError):
                return False
        else:
            value = int(value)  # exact comparison however large, no overflow into float
        if self.left is not None:
            if value < self.left or (value == self.left and self.closed in ("right", "neither")):
                return False
        if self.right is not None:
            if value > self.right or (value == self.right and self.closed in ("left", "neither")):
                return False
        return True

    def __str__(self) -> str:
        noun = "an int" if self.kind is Integral else "a float"
        if self.left is None and self.right is None:
            return "an int" if self.kind is Integral else "a finite float"
        if self.right is None:
            op = ">=" if self.closed in ("both", "left") else ">"
            return f"{noun} {op} {format_number(self.left)}"
        if self.left is None:
            op = "<=" if self.closed in ("both", "right") else "<"
            return f"{noun} {op} {format_number(self.right)}"
        lo = "[" if self.closed in ("both", "left") else "("
        hi = "]" if self.closed in ("both", "right") else ")"
        return f"{noun} in {lo}{format_number(self.left)}, {format_number(self.right)}{hi}"


class Options(Constraint):
    """One of a fixed set of values (strings usually), compared by value and kind.

    ``True`` does not match an option ``1`` and ``1.0`` does not match ``1``: a choice is
    spelled exactly.
    """

    def __init__(self, options: Iterable[Any]):
        self.options = tuple(sorted(options, key=repr)) if not isinstance(options, (list, tuple)) else tuple(options)
        if not self.options:
            raise ValueError("Options needs at least one option")

    @staticmethod
    def _same(a, b) -> bool:
        if isinstance(a, str) and isinstance(b, str):
            return str(a) == str(b)
        if type(a) is not type(b):
            return False
        try:
            return bool(a == b)
        except Exception:  # noqa: BLE001 - an object whose == raises is not an option
            return False

    def is_satisfied_by(self, value) -> bool:
        """True if ``value`` is one of the options, of the same kind."""
        return any(self._same(value, o) for o in self.options)

    def accepts_type(self, value) -> bool:
        """True if ``value`` is of the kind of one of the options."""
        return any(isinstance(value, str) if isinstance(o, str) else type(value) is type(o) for o in self.options)

    def __str__(self) -> str:
        if len(self.options) == 1:
            return repr(self.options[0])
        return "one of " + ", ".join(repr(o) for o in self.options)


class Boolean(Constraint):
    """``True`` or ``False`` (numpy's bool too); 0 and 1 are refused."""

    def is_satisfied_by(self, value) -> bool:
        """True for ``True`` and ``False``."""
        return isinstance(value, (bool, np.bool_))

    def __str__(self) -> str:
        return "a bool"


class InstanceOf(Constraint):
    """An instance of one of the given types."""

    def __init__(self, *types: type, name: str | None = None):
        if not types:
            raise ValueError("InstanceOf needs at least one type")
        self.types = types
        self.name = name

    def is_satisfied_by(self, value) -> bool:
        """True for an instance of one of the types."""
        return isinstance(value, self.types)

    def __str__(self) -> str:
        if self.name:
            return self.name
        return "an instance of " + " or ".join(t.__name__ for t in self.types)


class Callable(Constraint):
    """Any callable object."""

    def is_satisfied_by(self, value) -> bool:
        """True for a callable."""
        return callable(value)

    def __str__(self) -> str:
        return "a callable"


class ArrayLike(Constraint):
    """A list, tuple or numpy array; its shape and values are checked by the estimator itself."""

    def is_satisfied_by(self, value) -> bool:
        """True for a list, tuple or numpy array."""
        return isinstance(value, (list, tuple, np.ndarray))

    def __str__(self) -> str:
        return "an array-like"


class RandomState(Constraint):
    """A seed as :func:`smlengine._base.check_random_state` takes it: a non-negative int or a Generator."""

    def is_satisfied_by(self, value) -> bool:
        """True for a non-negative int or a Generator."""
        if isinstance(value, np.random.Generator):
            return True
        return (isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
                and int(value) >= 0)

    def accepts_type(self, value) -> bool:
        """True for any int (a negative one is then a ValueError) or a Generator."""
        return isinstance(value, np.random.Generator) or (
            isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)))

    def __str__(self) -> str:
        return "a non-negative int or a numpy Generator"


def _as_constraint(c) -> Constraint:
    if c is None:
        return _NoneConstraint()
    if isinstance(c, Constraint):
        return c
    if isinstance(c, type):
        return InstanceOf(c)
    raise TypeError(f"not a parameter constraint: {c!r}")


def _describe(constraints: list[Constraint]) -> str:
    parts = [str(c) for c in constraints]
    # None last reads best: "a float in (0, 1] or None"
    parts.sort(key=lambda p: p == "None")
    if len(parts) <= 2:
        return " or ".join(parts)
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def check_param(name: str, value: Any, constraints: list, caller: str | None = None):
    """Return ``value`` when it satisfies one of ``constraints``, else raise.

    Raises
    ------
    TypeError
        ``value`` is of none of the accepted kinds.
    ValueError
        Its kind is accepted but the value is not (out of range, NaN, infinite, no option).
    """
    if isinstance(constraints, str) and constraints == "no_validation":
        return value
    cs = [_as_constraint(c) for c in constraints]
    for c in cs:
        if c.is_satisfied_by(value):
            return value
    message = f"{name} must be {_describe(cs)}; got {describe_value(value)}"
    if any(c.accepts_type(value) for c in cs):
        raise ValueError(message)
    raise TypeError(message)


def validate_parameter_constraints(constraints: Mapping[str, list], params: Mapping[str, Any],
                                   caller: str | None = None) -> None:
    """Check every parameter that has constraints; parameters without an entry are not checked."""
    for name, value in params.items():
        if name in constraints:
            check_param(name, value, constraints[name], caller)


def validate_call(constraints: Mapping[str, list]) -> _CallableType:
    """Decorator: check a free function's arguments against ``constraints`` before it runs.

    Works for generator functions too: the check happens at the call, not at the first
    ``next``, so a script learns of a bad value where it made it.
    """

    def decorate(func):
        sig = inspect.signature(func)
        unknown = set(constraints) - set(sig.parameters)
        if unknown:
            raise ValueError(f"constraints for unknown parameters of {func.__name__}: {sorted(unknown)}")

        def check(args, kwargs):
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            validate_parameter_constraints(constraints, bound.arguments, func.__name__)

        # the wrapper is a plain function even around a generator function, so the check runs at the
        # call and not at the first next()
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            check(args, kwargs)
            return func(*args, **kwargs)

        wrapper._parameter_constraints = dict(constraints)
        return wrapper

    return decorate
