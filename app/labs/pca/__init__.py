"""PCA digit compression lab: eigen-digits by the power method, compression, scores, novelty, solver race."""

from .lab import PCALab as LAB

__all__ = ["LAB"]
