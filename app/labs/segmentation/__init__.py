"""Image segmentation as clustering: k-means and EM (multinomial and Gaussian mixtures) on pixels."""

# The registry reads META without importing the lab (start-up stays fast);
# LAB, the Lab subclass, is imported on first use.
META = {
    "id": "segmentation",
    "title": "Image segmentation",
    "order": 50,
    "description": "Segmentation as clustering: k-means and EM for multinomial (local histograms) and Gaussian (colour) mixtures, live; choosing K by BIC and stability; restarts and k-means++.",
}


def __getattr__(name: str):
    if name == "LAB":
        from .lab import SegmentationLab

        return SegmentationLab
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["META", "LAB"]
