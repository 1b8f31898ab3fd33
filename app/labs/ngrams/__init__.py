"""n-gram text generation: from unigram word salad to 5-grams quoting Shakespeare."""

from .lab import NGramsLab as LAB

__all__ = ["LAB"]
