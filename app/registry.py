"""Find the labs: every package under ``app/labs/`` exposing ``META`` and ``LAB``.

Adding a lab means adding its folder; nothing else changes. The registry reads each lab's
``META`` (id, title, order, description) from its package's ``__init__.py`` without importing
the lab itself, so start-up does not pay for seven labs' imports; the ``Lab`` subclass is
imported when the lab is first built (:attr:`LabInfo.cls`).
"""

from __future__ import annotations

import importlib
import logging
import pkgutil

from . import labs as labs_package

log = logging.getLogger(__name__)

_cache: list["LabInfo"] | None = None
#: import errors of lab packages, shown by --self-test and the log
import_errors: dict[str, str] = {}


class LabInfo:
    """A registered lab: its metadata at once, its class on demand.

    It stands in for the ``Lab`` subclass: calling it builds the lab, and any other class
    attribute (``screenshot_steps``, ``self_test_steps`` ...) is read from the class, which
    is imported then.
    """

    def __init__(self, package: str, meta: dict):
        self.package = package
        self.id = str(meta["id"])
        self.title = str(meta["title"])
        self.order = int(meta.get("order", 100))
        self.description = str(meta.get("description", ""))
        self._cls = None

    @property
    def cls(self):
        if self._cls is None:
            from .lab import Lab

            cls = getattr(importlib.import_module(self.package), "LAB", None)
            if not (isinstance(cls, type) and issubclass(cls, Lab)):
                raise TypeError(f"{self.package}.LAB is not a Lab subclass")
            if cls.id != self.id:
                raise TypeError(f"{self.package}: META says {self.id!r} but the lab's id is {cls.id!r}")
            self._cls = cls
        return self._cls

    def __call__(self, *args, **kwargs):
        return self.cls(*args, **kwargs)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.cls, name)

    def __repr__(self) -> str:
        return f"LabInfo({self.id!r})"


def discover() -> list[LabInfo]:
    """All registered labs, in their stated order (then by id)."""
    global _cache
    if _cache is not None:
        return list(_cache)
    found: dict[str, LabInfo] = {}
    for info in pkgutil.iter_modules(labs_package.__path__):
        if not info.ispkg or info.name.startswith("_"):
            continue
        name = f"{labs_package.__name__}.{info.name}"
        try:
            module = importlib.import_module(name)
            meta = getattr(module, "META", None)
            if not isinstance(meta, dict) or not meta.get("id") or not meta.get("title"):
                raise TypeError("the package does not define META with an id and a title")
        except Exception as exc:  # noqa: BLE001 - one broken lab must not hide the others
            log.exception("could not read lab %s", name)
            import_errors[info.name] = f"{type(exc).__name__}: {exc}"
            continue
        lab = LabInfo(name, meta)
        if lab.id in found:
            import_errors[info.name] = f"duplicate lab id {lab.id!r}"
            continue
        found[lab.id] = lab
    _cache = sorted(found.values(), key=lambda c: (c.order, c.id))
    return list(_cache)


def get(lab_id: str) -> LabInfo:
    for lab in discover():
        if lab.id == lab_id:
            return lab
    known = ", ".join(c.id for c in discover())
    raise KeyError(f"unknown lab {lab_id!r}; known labs: {known}")
