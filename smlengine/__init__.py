"""smlengine: the numbers behind SML Lab.

A Qt-free package of statistical machine-learning algorithms written to be watched:
every iterative estimator has ``fit_steps(...)``, a generator of immutable snapshots,
and ``fit(...)`` which exhausts it. Usable from scripts and notebooks as well as from
the desktop application.
"""

__version__ = "0.1.0"
__all__ = ["Snapshot", "NotFittedError", "frozen_array", "__version__"]


def __getattr__(name):
    # numpy is imported with the first estimator, not with the package (the desktop app
    # reads resources through smlengine._resources before its window first paints)
    if name in ("Snapshot", "NotFittedError", "frozen_array"):
        from . import _base

        return getattr(_base, name)
    raise AttributeError(f"module 'smlengine' has no attribute {name!r}")
