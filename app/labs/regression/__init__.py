"""Regression lab: least squares, ridge and lasso on basis functions, their paths and constraint
regions, and the bias–variance trade-off."""

# The registry reads META without importing the lab (start-up stays fast);
# LAB, the Lab subclass, is imported on first use.
META = {
    "id": "regression",
    "title": "Regression: least squares, ridge, lasso",
    "order": 25,
    "description": "Fit curves with basis functions by least squares, gradient descent, ridge and lasso (coordinate "
                   "by coordinate); paths against λ, the ℓ1/ℓ2 constraint picture, and bias against variance.",
}


def __getattr__(name: str):
    if name == "LAB":
        from .lab import RegressionLab

        return RegressionLab
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["META", "LAB"]
