"""Find the labs: every package under ``app/labs/`` exposing ``LAB`` (a ``Lab`` subclass).

Adding a lab means adding its folder; nothing else changes. Lab packages should keep
heavy imports (scikit-image, large data) inside their run functions so start-up stays fast.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil

from . import labs as labs_package
from .lab import Lab

log = logging.getLogger(__name__)

_cache: list[type[Lab]] | None = None
#: import errors of lab packages, shown by --self-test and the log
import_errors: dict[str, str] = {}


def discover() -> list[type[Lab]]:
    """All registered lab classes, in their stated order (then by id)."""
    global _cache
    if _cache is not None:
        return list(_cache)
    found: dict[str, type[Lab]] = {}
    for info in pkgutil.iter_modules(labs_package.__path__):
        if not info.ispkg or info.name.startswith("_"):
            continue
        name = f"{labs_package.__name__}.{info.name}"
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - one broken lab must not hide the others
            log.exception("could not import lab %s", name)
            import_errors[info.name] = f"{type(exc).__name__}: {exc}"
            continue
        cls = getattr(module, "LAB", None)
        if not (isinstance(cls, type) and issubclass(cls, Lab) and cls.id):
            import_errors[info.name] = "the package does not define LAB, a Lab subclass with an id"
            continue
        if cls.id in found:
            import_errors[info.name] = f"duplicate lab id {cls.id!r}"
            continue
        found[cls.id] = cls
    _cache = sorted(found.values(), key=lambda c: (c.order, c.id))
    return list(_cache)


def get(lab_id: str) -> type[Lab]:
    for cls in discover():
        if cls.id == lab_id:
            return cls
    known = ", ".join(c.id for c in discover())
    raise KeyError(f"unknown lab {lab_id!r}; known labs: {known}")
