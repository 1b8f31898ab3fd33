"""Linear and kernel classifiers lab: perceptron, logistic regression and the SVM (SMO), live."""

from .lab import ClassifiersLab as LAB

__all__ = ["LAB"]
