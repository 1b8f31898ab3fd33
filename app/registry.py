"""Find the labs: every package under ``app/labs/`` whose ``lab.py`` defines a :class:`~app.lab.Lab`
subclass with an ``id``.

Adding a lab means adding its folder; nothing else changes. The lab's metadata is written once,
as class attributes of its ``Lab`` subclass (``id``, ``title``, ``order``, ``description``, and
for the course map ``chapter``, ``summary``, ``keywords``: plain literals). The registry reads
them from ``lab.py``'s source without importing it, so start-up does not pay for every lab's
imports; the class is imported when the lab is first built (:attr:`LabInfo.cls`). Where the
source is not shipped (a frozen build without ``.py`` files) the module is imported instead.
Packages whose name starts with ``_`` are skipped (labs under development, the template
``app/labs/_example``).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import logging
import pkgutil

from . import labs as labs_package

log = logging.getLogger(__name__)

_cache: list["LabInfo"] | None = None
#: import errors of lab packages, shown by --self-test and the log
import_errors: dict[str, str] = {}
#: the class attributes that describe a lab (the registry reads them without importing it)
META_FIELDS = ("id", "title", "order", "description", "chapter", "summary", "keywords")
#: the course's chapters in teaching order: the course map shows its cards under these headings
#: (a lab's ``chapter`` names one of them; a chapter not listed here follows them, by name)
CHAPTERS = (
    "Classification",
    "Trees and ensembles",
    "Regression",
    "Dimensionality reduction",
    "Clustering and mixtures",
    "Sequences and text",
    "Graphs",
    "Sampling",
    "Bayesian inference",
    "Gaussian processes",
    "Neural networks",
    "Learning theory",
)
#: the heading of labs that name no chapter
OTHER_CHAPTER = "Other labs"


class LabInfo:
    """A registered lab: its metadata at once, its class on demand.

    It stands in for the ``Lab`` subclass: calling it builds the lab, and any other class
    attribute (``screenshot_steps``, ``self_test_steps`` ...) is read from the class, which
    is imported then.
    """

    def __init__(self, package: str, meta: dict, class_name: str = ""):
        self.package = package
        self.id = str(meta["id"])
        self.title = str(meta["title"])
        self.order = int(meta.get("order", 100))
        self.description = str(meta.get("description", ""))
        self.chapter = str(meta.get("chapter") or "") or OTHER_CHAPTER
        #: one line for the course map's card (the description when the lab gives none)
        self.summary = " ".join(str(meta.get("summary") or self.description).split())
        self.keywords = _keywords(meta.get("keywords", ()))
        self.class_name = class_name or str(meta.get("class", ""))
        self._cls = None

    @classmethod
    def of(cls, package: str) -> "LabInfo":
        """The lab of a package (``"app.labs.pca"``); TypeError when its ``lab.py`` defines none."""
        class_name, meta = read_meta(package)
        return cls(package, meta, class_name)

    @property
    def cls(self):
        if self._cls is None:
            from .lab import Lab  # deferred: app.lab loads pyqtgraph, which start-up and the course map do without

            lab = getattr(importlib.import_module(f"{self.package}.lab"), self.class_name, None)
            if not (isinstance(lab, type) and issubclass(lab, Lab)):
                raise TypeError(f"{self.package}.lab.{self.class_name} is not a Lab subclass")
            if lab.id != self.id:
                raise TypeError(f"{self.package}: the source says {self.id!r} but the lab's id is {lab.id!r}")
            self._cls = lab
        return self._cls

    def __call__(self, *args, **kwargs):
        return self.cls(*args, **kwargs)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.cls, name)

    def __repr__(self) -> str:
        return f"LabInfo({self.id!r})"


def _keywords(value) -> tuple[str, ...]:
    """A lab's ``keywords``: a tuple (or list) of words and phrases; TypeError otherwise."""
    if isinstance(value, str) or not isinstance(value, (tuple, list)) or not all(isinstance(w, str) for w in value):
        raise TypeError("keywords must be a tuple of strings, e.g. ('SVM', 'kernel', 'casino')")
    return tuple(w.strip() for w in value if w.strip())


def read_meta(package: str) -> tuple[str, dict]:
    """(class name, {id, title, order, description, chapter, summary, keywords}) of the Lab
    subclass in ``<package>.lab``.

    The class is the one in ``lab.py`` that assigns a string literal to ``id`` in its body;
    the fields must be literals there (all but ``id`` and ``title`` may be left out).
    """
    spec = importlib.util.find_spec(f"{package}.lab")
    if spec is None:
        raise TypeError("the package has no lab.py")
    source = spec.loader.get_source(spec.name) if spec.loader is not None else None
    if source is None:  # no source shipped: ask the class itself
        return _meta_from_module(importlib.import_module(spec.name))
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        meta = {}
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                if name in META_FIELDS:
                    try:
                        meta[name] = ast.literal_eval(stmt.value)
                    except ValueError:
                        raise TypeError(f"{node.name}.{name} must be a literal, so the registry can read it") from None
        if isinstance(meta.get("id"), str) and meta["id"]:
            if not meta.get("title"):
                raise TypeError(f"{node.name} has an id but no title")
            return node.name, meta
    raise TypeError("lab.py defines no Lab subclass with an id and a title")


def _meta_from_module(module) -> tuple[str, dict]:
    from .lab import Lab  # deferred, as in LabInfo.cls

    for name, value in vars(module).items():
        if isinstance(value, type) and issubclass(value, Lab) and value.__module__ == module.__name__ and value.id:
            return name, {field: getattr(value, field) for field in META_FIELDS}
    raise TypeError("lab.py defines no Lab subclass with an id")


def chapters(labs: list[LabInfo] | None = None) -> list[tuple[str, list[LabInfo]]]:
    """The labs grouped by chapter, chapters in :data:`CHAPTERS` order (then the others by
    name, :data:`OTHER_CHAPTER` last), labs in their stated order within a chapter."""
    labs = discover() if labs is None else labs
    known = {name.casefold(): i for i, name in enumerate(CHAPTERS)}
    groups: dict[str, list[LabInfo]] = {}
    for lab in labs:
        name = next((c for c in CHAPTERS if c.casefold() == lab.chapter.casefold()), lab.chapter)
        groups.setdefault(name, []).append(lab)

    def rank(name: str) -> tuple[int, int, str]:
        return (name == OTHER_CHAPTER, known.get(name.casefold(), len(known)), name.casefold())

    return [(name, sorted(groups[name], key=lambda c: (c.order, c.id))) for name in sorted(groups, key=rank)]


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
            lab = LabInfo.of(name)
        except Exception as exc:  # noqa: BLE001 - one broken lab must not hide the others
            log.exception("could not read lab %s", name)
            import_errors[info.name] = f"{type(exc).__name__}: {exc}"
            continue
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
