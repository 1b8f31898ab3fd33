"""The declarative parameter constraints of smlengine._params and BaseEstimator.validate_params."""

import math

import numpy as np
import pytest

from smlengine._base import BaseEstimator
from smlengine._params import (
    ArrayLike,
    Boolean,
    Callable,
    InstanceOf,
    Integral,
    Interval,
    Options,
    RandomState,
    Real,
    check_param,
    describe_value,
    format_number,
    validate_call,
)


@pytest.mark.parametrize(
    "interval, inside, outside",
    [
        (Interval(Real, 0, 1e6, closed="right"), [1e-300, 0.5, 1, 1e6, np.float32(3)], [0, 0.0, -1, 1e6 * (1 + 1e-12)]),
        (Interval(Real, 0, 1, closed="left"), [0, 0.0, 0.999], [1, 1.0, -1e-300]),
        (Interval(Real, 0, 1, closed="neither"), [0.5], [0, 1]),
        (Interval(Real, None, None), [-1e308, 0, 1e308], []),
        (Interval(Integral, 1, 10**6), [1, np.int64(7), 10**6], [0, -1, 10**6 + 1, 2**63, 2**200]),
        (Interval(Integral, 0, None), [0, 2**63, 2**200], [-1, -(2**63)]),
    ],
)
def test_interval_bounds(interval, inside, outside):
    for v in inside:
        assert interval.is_satisfied_by(v), (interval, v)
        assert check_param("p", v, [interval]) is v
    for v in outside:
        assert not interval.is_satisfied_by(v), (interval, v)
        with pytest.raises(ValueError, match=r"^p must be "):
            check_param("p", v, [interval])


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, np.float64("nan"), np.inf])
def test_interval_refuses_non_finite_even_unbounded(bad):
    for interval in (Interval(Real, None, None), Interval(Real, 0, None), Interval(Real, None, 0)):
        with pytest.raises(ValueError, match="; got (nan|inf|-inf)$"):
            check_param("x", bad, [interval])


@pytest.mark.parametrize("bad", [True, False, np.True_, "1", b"1", [1], None, 1 + 0j])
def test_interval_refuses_other_kinds_with_type_error(bad):
    with pytest.raises(TypeError, match=r"^n must be an int in \[1, 10\]; got "):
        check_param("n", bad, [Interval(Integral, 1, 10)])
    with pytest.raises(TypeError, match=r"^c must be a float in \(0, 1\]; got "):
        check_param("c", bad, [Interval(Real, 0, 1, closed="right")])


def test_integral_interval_refuses_floats_as_type():
    with pytest.raises(TypeError, match=r"^n must be an int in \[1, 10\]; got 2$"):
        check_param("n", 2.0, [Interval(Integral, 1, 10)])


def test_message_is_the_documented_one():
    with pytest.raises(ValueError) as err:
        check_param("C", float("nan"), [Interval(Real, 0, 1e6, closed="right")])
    assert str(err.value) == "C must be a float in (0, 1e6]; got nan"
    with pytest.raises(ValueError) as err:
        check_param("n_estimators", 10**9, [Interval(Integral, 1, 10_000)])
    assert str(err.value) == "n_estimators must be an int in [1, 10000]; got 1000000000"
    with pytest.raises(ValueError) as err:
        check_param("tol", -1, [Interval(Real, 0, None, closed="neither"), None])
    assert str(err.value) == "tol must be a float > 0 or None; got -1"
    with pytest.raises(ValueError) as err:
        check_param("n_walkers", 2**63, [Interval(Integral, 1, 2**20)])
    assert str(err.value) == "n_walkers must be an int in [1, 2**20]; got 9223372036854775808"


def test_huge_values_are_described_briefly():
    assert describe_value(10**5000).startswith("an integer of about 5001 digits")
    assert len(describe_value("x" * 10_000)) <= 80
    assert describe_value(1e308) == "1e308"
    assert describe_value(float("-inf")) == "-inf"


@pytest.mark.parametrize("x, text", [(1e6, "1e6"), (0.5, "0.5"), (10, "10"), (1e-9, "1e-9"), (2**20, "2**20"),
                                     (1_000_000_000, "1e9"), (1.5e-12, "1.5e-12")])
def test_format_number(x, text):
    assert format_number(x) == text


def test_options_compare_value_and_kind():
    opts = Options({"rbf", "linear"})
    assert check_param("kernel", "rbf", [opts]) == "rbf"
    assert check_param("kernel", np.str_("linear"), [opts]) == "linear"
    with pytest.raises(ValueError, match=r"^kernel must be one of 'linear', 'rbf'; got 'poly'$"):
        check_param("kernel", "poly", [opts])
    with pytest.raises(TypeError):
        check_param("kernel", 3, [opts])
    ints = Options([1, 2])
    with pytest.raises(TypeError):
        check_param("order", True, [ints])  # True == 1 but is not the option 1
    with pytest.raises(TypeError):
        check_param("order", 1.0, [ints])
    with pytest.raises(TypeError):
        check_param("order", [1], [ints])  # unhashable values are compared safely


def test_boolean_none_and_instances():
    assert check_param("b", np.False_, [Boolean()]) is np.False_
    for bad in (0, 1, "True", None):
        with pytest.raises(TypeError, match=r"^b must be a bool; got "):
            check_param("b", bad, [Boolean()])
    assert check_param("w", None, [Interval(Real, 0, 1), None]) is None
    assert check_param("f", len, [Callable()]) is len
    assert check_param("a", [1, 2], [ArrayLike()]) == [1, 2]
    with pytest.raises(TypeError, match="an array-like"):
        check_param("a", "12", [ArrayLike()])
    with pytest.raises(TypeError, match="an instance of dict"):
        check_param("d", [], [InstanceOf(dict)])
    gen = np.random.default_rng(0)
    assert check_param("random_state", gen, [RandomState(), None]) is gen
    with pytest.raises(ValueError, match="non-negative"):
        check_param("random_state", -1, [RandomState(), None])
    with pytest.raises(TypeError):
        check_param("random_state", 1.5, [RandomState(), None])


def test_constraint_definitions_are_checked():
    with pytest.raises(ValueError):
        Interval(Real, 1, 0)
    with pytest.raises(ValueError):
        Interval(Real, 0, math.inf)
    with pytest.raises(ValueError):
        Interval(Real, 0, 1, closed="open")
    with pytest.raises(TypeError):
        Interval(float, 0, 1)


class _Toy(BaseEstimator):
    _parameter_constraints = {
        "C": [Interval(Real, 0, 1e6, closed="right")],
        "kernel": [Options({"linear", "rbf"})],
        "shrink": [Boolean()],
    }

    def __init__(self, C=1.0, kernel="rbf", shrink=True, inner=None):
        self.C = C
        self.kernel = kernel
        self.shrink = shrink
        self.inner = inner


def test_validate_params_on_an_estimator():
    _Toy().validate_params()
    with pytest.raises(ValueError, match=r"^C must be a float in \(0, 1e6\]; got inf$"):
        _Toy(C=float("inf")).validate_params()
    with pytest.raises(TypeError, match=r"^shrink must be a bool; got 1$"):
        _Toy(shrink=1).validate_params()
    with pytest.raises(ValueError, match="^kernel must be one of"):
        _Toy().set_params(kernel="sigmoid").validate_params()


def test_nested_get_and_set_params():
    outer = _Toy(inner=_Toy(C=2.0))
    params = outer.get_params(deep=True)
    assert params["inner__C"] == 2.0 and params["inner"] is outer.inner
    assert "inner__C" not in outer.get_params(deep=False)
    outer.set_params(inner__C=3.0, C=4.0)
    assert outer.inner.C == 3.0 and outer.C == 4.0
    with pytest.raises(ValueError, match="unknown parameter 'gamma'"):
        outer.set_params(gamma=1)
    with pytest.raises(ValueError, match="unknown parameter 'C__x'"):
        outer.set_params(C__x=1)


def test_validate_call_checks_at_the_call_even_for_generators():
    @validate_call({"n": [Interval(Integral, 1, 100)]})
    def count(n=3):
        yield from range(n)

    assert list(count()) == [0, 1, 2]
    with pytest.raises(ValueError, match=r"^n must be an int in \[1, 100\]; got 2\*\*63|9223372036854775808$"):
        count(n=2**63)  # raised here, before any next()
    with pytest.raises(ValueError, match="unknown parameters"):
        validate_call({"m": [Boolean()]})(lambda n: n)
