"""smlengine: the numbers behind SML Lab.

A Qt-free package of statistical machine-learning algorithms written to be watched:
every iterative estimator has ``fit_steps(...)``, a generator of immutable snapshots,
and ``fit(...)`` which exhausts it. Usable from scripts and notebooks as well as from
the desktop application.
"""

from ._base import NotFittedError, Snapshot

__version__ = "0.1.0"
__all__ = ["Snapshot", "NotFittedError", "__version__"]
