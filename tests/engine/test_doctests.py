"""The examples in the engine's docstrings run, and every public class of the engine has them.

Each ``>>>`` example of every ``smlengine`` module runs as a doctest (stdlib :mod:`doctest`,
one test per module), with numpy's default print options so printed arrays read the same
whatever an earlier test set. Estimators document their hyper-parameters, learned state and
use in numpydoc sections (Parameters, Attributes, Examples); every other class a public
engine module exports shows an example.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re

import numpy as np
import pytest

import smlengine
from smlengine._base import BaseEstimator

MODULES = sorted(m.name for m in pkgutil.walk_packages(smlengine.__path__, prefix="smlengine."))

# numpy's defaults, set for every example whatever an earlier test left behind
PRINT_OPTIONS = dict(precision=8, threshold=1000, edgeitems=3, linewidth=75, suppress=False,
                     nanstr="nan", infstr="inf", sign="-", floatmode="maxprec", legacy=False)

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _doctests(name):
    """The module's doctests that hold at least one example (objects defined in it only)."""
    module = importlib.import_module(name)
    return [t for t in doctest.DocTestFinder().find(module, name) if t.examples]


def _public_classes():
    """One pytest param per class that a public engine module exports in ``__all__``."""
    found = {}
    for name in MODULES:
        if any(part.startswith("_") for part in name.split(".")):
            continue
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if inspect.isclass(obj) and obj.__module__.startswith("smlengine."):
                found.setdefault(obj, f"{name}.{attr}")
    return [pytest.param(cls, id=label) for cls, label in found.items()]


def _sections(doc):
    """The numpydoc section titles of a docstring (a title line underlined with dashes)."""
    return set(re.findall(r"^\s*([A-Z][a-z]+)\n\s*-{3,}\s*$", doc or "", flags=re.M))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report = []
    failed = 0
    with np.printoptions(**PRINT_OPTIONS):
        for test in _doctests(name):
            failed += runner.run(test, out=report.append).failed
    assert failed == 0, "".join(report)


@pytest.mark.parametrize("cls", _public_classes())
def test_public_classes_are_documented(cls):
    sections = _sections(cls.__doc__)
    wanted = {"Parameters", "Attributes", "Examples"} if issubclass(cls, BaseEstimator) else {"Examples"}
    assert wanted <= sections, f"{cls.__qualname__}'s docstring lacks {sorted(wanted - sections)}"
    examples = doctest.DocTestParser().get_examples(cls.__doc__)
    assert examples, f"{cls.__qualname__}'s Examples section holds no >>> example"
