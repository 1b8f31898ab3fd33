"""Trees and boosting lab: AdaBoost with stumps, decision trees, bagging and random forests, live."""

from .lab import TreesLab as LAB

__all__ = ["LAB"]
