"""The engine's import graph, read from the source: no circle, no private name imported across
modules, no private module over a public one.

Every ``import`` and ``from ... import`` statement counts, wherever it stands (module top,
inside a function, under ``if TYPE_CHECKING``), so an import moved into a function cannot hide
a circle. The import-linter contracts in ``pyproject.toml`` state the same layers for
``lint-imports``; this test needs no tool and also catches private names.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import smlengine

ENGINE = Path(smlengine.__file__).resolve().parent

# Pairs (importer, source) allowed to share underscore names; none today.
PENDING: set[tuple[str, str]] = set()


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@dataclass
class ImportGraph:
    """Modules of one package, the arrows between them and the underscore names crossing them."""

    modules: dict[str, Path]
    arrows: dict[str, set[str]] = field(default_factory=dict)
    private_names: list[str] = field(default_factory=list)  # "importer:line imports source.name"

    def add(self, importer: str, target: str):
        while target not in self.modules and "." in target:
            target = target.rsplit(".", 1)[0]
        if target in self.modules and target != importer:
            self.arrows.setdefault(importer, set()).add(target)

    def circles(self) -> list[list[str]]:
        """Strongly connected components of more than one module (Tarjan)."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        found: list[list[str]] = []

        def visit(v):
            index[v] = low[v] = len(index)
            stack.append(v)
            on_stack.add(v)
            for w in sorted(self.arrows.get(v, ())):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

        for v in sorted(self.modules):
            if v not in index:
                visit(v)
        return found

    def arrows_up(self) -> list[str]:
        """Private modules importing public ones, compared where their paths part (as the layers
        contract does with its containers): ``a._x -> a.y`` is one, ``a.pkg._x -> a.y`` is not
        (``a.pkg`` is public), nor is a package importing what it contains."""
        found = []
        for a, targets in sorted(self.arrows.items()):
            for b in sorted(targets):
                pa, pb = a.split("."), b.split(".")
                common = 0
                while common < min(len(pa), len(pb)) and pa[common] == pb[common]:
                    common += 1
                if common == len(pa) or common == len(pb):  # one contains the other
                    continue
                if _private(pa[common]) and not _private(pb[common]):
                    found.append(f"{a} -> {b}")
        return found


def read_graph(root: Path, package: str) -> ImportGraph:
    """The import graph of the package at ``root`` (its directory), from every import statement."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    graph = ImportGraph(modules)
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        aliases = {}  # local name -> engine module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == package:
                        graph.add(name, alias.name)
                        if alias.asname and alias.name in modules:
                            aliases[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if source.split(".")[0] != package:
                    continue
                for alias in node.names:
                    submodule = f"{source}.{alias.name}"
                    if submodule in modules:
                        graph.add(name, submodule)
                        aliases[alias.asname or alias.name] = submodule
                        continue
                    graph.add(name, source)
                    if _private(alias.name) and source != name:
                        graph.private_names.append(f"{name}:{node.lineno} imports {source}.{alias.name}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and _private(node.attr) and aliases[node.value.id] != name):
                graph.private_names.append(f"{name}:{node.lineno} reads {aliases[node.value.id]}.{node.attr}")
    return graph


def _pending(entry: str) -> bool:
    importer = entry.split(":")[0]
    source = entry.split(" ", 2)[2].rpartition(".")[0]
    return (importer, source) in PENDING


# ----------------------------------------------------------------------------- the engine


@pytest.fixture(scope="module")
def engine():
    return read_graph(ENGINE, "smlengine")


def test_no_import_circle_in_the_engine(engine):
    assert "smlengine.mixture" in engine.modules and sum(map(len, engine.arrows.values())) > 100
    assert engine.circles() == []


def test_no_private_name_crosses_a_module_of_the_engine(engine):
    found = [e for e in engine.private_names if not _pending(e)]
    assert found == [], "a private module exports public names for the modules that use them:\n" + "\n".join(found)


def test_no_private_engine_module_imports_a_public_one(engine):
    assert engine.arrows_up() == []


# ----------------------------------------------------------------------------- the reader itself


def _package(tmp_path, files: dict[str, str]) -> ImportGraph:
    root = tmp_path / "pkg"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return read_graph(root, "pkg")


def test_a_circle_hidden_in_a_function_is_found(tmp_path):
    graph = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from .b import f\n",
        "b.py": "def f():\n    from . import a\n    return a\n",
        "c.py": "import pkg.a\n",
    })
    assert graph.circles() == [["pkg.a", "pkg.b"]]


def test_private_names_and_arrows_up_are_found(tmp_path):
    graph = _package(tmp_path, {
        "__init__.py": "from ._core import helper\n",
        "_core.py": "def helper():\n    from .public import _secret\n    return _secret\n",
        "public.py": "from . import _core as core\n_secret = 1\nX = core._hidden\n",
        "sub/__init__.py": "",
        "sub/_loader.py": "from ..public import X\nfrom .._core import helper\n",
    })
    assert sorted(e.split(":")[0] + " " + e.split(" ", 1)[1] for e in graph.private_names) == [
        "pkg._core imports pkg.public._secret",
        "pkg.public reads pkg._core._hidden",
    ]
    # pkg.sub._loader -> pkg.public is pkg.sub -> pkg.public: public over public
    assert graph.arrows_up() == ["pkg._core -> pkg.public"]
    assert graph.circles() == [["pkg._core", "pkg.public"]]
