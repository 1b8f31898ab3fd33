"""Locate shipped resources the same way in a source checkout and in a frozen app."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["resource_root", "resource_path"]


def resource_root() -> Path:
    """The ``resources/`` folder.

    ``SMLLAB_RESOURCES`` overrides it; a PyInstaller bundle keeps it under
    ``sys._MEIPASS``; otherwise it sits next to the ``smlengine`` package.
    """
    env = os.environ.get("SMLLAB_RESOURCES")
    if env:
        return Path(env)
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def resource_path(*parts: str) -> Path:
    """Path of a file under ``resources/``; raises ``FileNotFoundError`` with its name."""
    path = resource_root().joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"resource not found: {path}")
    return path
