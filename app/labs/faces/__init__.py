"""Face detection lab: a Viola-Jones cascade detecting faces, trained live, with its training material."""

from .lab import FacesLab as LAB

__all__ = ["LAB"]
