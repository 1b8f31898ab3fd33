"""Linear and kernel classifiers lab: perceptron, logistic regression and the SVM (SMO), live."""

# The registry reads META without importing the lab (start-up stays fast);
# LAB, the Lab subclass, is imported on first use.
META = {
    "id": "classifiers",
    "title": "Linear and kernel classifiers",
    "order": 10,
    "description": "Perceptron, logistic regression and the soft-margin SVM (SMO, linear/polynomial/RBF kernels) learning a decision boundary live; cross-validation of C and γ.",
}


def __getattr__(name: str):
    if name == "LAB":
        from .lab import ClassifiersLab

        return ClassifiersLab
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["META", "LAB"]
