"""Linear classifiers lab: the perceptron learning a separating hyperplane, live."""

from .lab import ClassifiersLab as LAB

__all__ = ["LAB"]
