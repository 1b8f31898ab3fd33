"""PCA digit compression lab: eigen-digits by the power method, compression, scores, novelty, solver race."""

# The registry reads META without importing the lab (start-up stays fast);
# LAB, the Lab subclass, is imported on first use.
META = {
    "id": "pca",
    "title": "PCA digit compression",
    "order": 40,
    "description": "Eigen-digits by the power method with deflation; compression with d components, scree plot, scores, novelty of a drawn digit and a race of PCA solvers.",
}


def __getattr__(name: str):
    if name == "LAB":
        from .lab import PCALab

        return PCALab
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["META", "LAB"]
