"""Face detection lab: a Viola-Jones cascade detecting faces, trained live, with its training material."""

# The registry reads META without importing the lab (start-up stays fast);
# LAB, the Lab subclass, is imported on first use.
META = {
    "id": "faces",
    "title": "Face detection",
    "order": 30,
    "description": "Viola-Jones: Haar features from integral images, boosted stumps in an attentional cascade; detect faces in a photo, or train a small cascade live.",
}


def __getattr__(name: str):
    if name == "LAB":
        from .lab import FacesLab

        return FacesLab
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["META", "LAB"]
