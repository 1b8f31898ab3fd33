"""Gaussian mixtures and EM in the plane: E- and M-step you can watch, k-means as its limit, how many clusters."""

# The registry reads META without importing the lab (start-up stays fast);
# LAB, the Lab subclass, is imported on first use.
META = {
    "id": "mixtures",
    "title": "Gaussian mixtures",
    "order": 55,
    "description": "EM for Gaussian mixtures in the plane: responsibilities and ellipses step by step, "
                   "k-means from the same start, a collapsing component, restarts, and BIC/AIC/stability for K.",
}


def __getattr__(name: str):
    if name == "LAB":
        from .lab import MixturesLab

        return MixturesLab
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["META", "LAB"]
