"""Every lab package has one shape (docs/writing-a-lab.md, "Names"): ``lab.py``, ``run.py`` and
``maths.py``; ``lab.py`` imports its run and maths modules under their own names and starts its
run through ``run.run_steps``; the snapshot types of ``run.py`` are named after the lab. The
other modules of a lab folder are parts the lab class stands on (tabs, views, side tasks): each
is used, none imports ``lab.py``, and the Qt-free modules import no Qt part."""

import ast
import importlib
import inspect
from pathlib import Path

import pytest
from lab_templates import PACKAGES

from app import registry
from smlengine import Snapshot

LABS = Path(registry.__file__).parent / "labs"


def lab_prefix(package: str) -> str:
    """The prefix of the lab's snapshot types: its Lab class name without 'Lab'."""
    return registry.LabInfo.of(package).class_name.removesuffix("Lab")


def shape_problems(package: str, folder: Path | None = None, prefix: str = "") -> list[str]:
    """What in ``package`` (its files in ``folder``) departs from the shape every lab shares, its
    snapshot types named ``prefix…Snapshot`` (empty when nothing does)."""
    folder = folder or LABS / package.rsplit(".", 1)[1]
    prefix = prefix or lab_prefix(package)
    problems = [f"{name} missing" for name in ("__init__.py", "lab.py", "run.py", "maths.py")
                if not (folder / name).is_file()]
    if problems:
        return problems
    tree = ast.parse((folder / "lab.py").read_text(encoding="utf-8"))
    imported = {(a.name, a.asname) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.level == 1 and node.module is None for a in node.names}
    for name in ("run", "maths"):
        if (name, None) not in imported:
            problems.append(f"lab.py does not import {name} as 'from . import {name}'")
    problems += [f"lab.py imports {name} as {alias}" for name, alias in imported if alias]
    calls = {node.func.attr for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
             and node.func.value.id == "run" and node.func.attr.endswith(("_run", "_steps"))}
    if calls != {"run_steps"}:
        problems.append(f"lab.py starts its run through run.{sorted(calls)}, not run.run_steps alone")
    run = importlib.import_module(f"{package}.run")
    if not callable(getattr(run, "run_steps", None)):
        problems.append("run.py has no run_steps")
    for name, obj in vars(run).items():
        if (inspect.isclass(obj) and issubclass(obj, Snapshot) and obj.__module__ == run.__name__
                and not (name.startswith(prefix) and name.endswith("Snapshot"))):
            problems.append(f"snapshot type {name} is not named {prefix}…Snapshot")
    return problems


#: the Qt-free modules of a lab folder (pyproject.toml's import contract keeps Qt out of them)
QT_FREE = ("run", "maths", "side_tasks")
QT_MODULES = ("PySide6", "pyqtgraph", "superqt")
#: modules of the application that bring Qt with them
QT_KIT = ("lab", "points_lab", "lab_layout", "runner", "tasks", "style", "widgets")


def _imports(path: Path) -> tuple[set[str], bool]:
    """The sibling modules ``path`` imports (``from . import x``, ``from .x import y``) and whether
    it imports Qt itself (PySide6, pyqtgraph, superqt or a Qt module of the application)."""
    siblings, qt = set(), False
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            qt |= any(a.name.split(".")[0] in QT_MODULES for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            top = (node.module or "").split(".")[0]
            if node.level == 0:
                qt |= top in QT_MODULES
            elif node.level == 1:
                siblings |= {top} if top else {a.name for a in node.names}
            elif node.level == 3:
                qt |= top in QT_KIT or (not top and any(a.name in QT_KIT for a in node.names))
    return siblings, qt


def part_problems(folder: Path) -> list[str]:
    """What in the lab folder's parts (its modules besides the four files) departs from the rules:
    every part is imported by ``lab.py`` or by another part, no module imports ``lab.py`` (the lab
    class stands on its parts), and ``run.py``, ``maths.py`` and ``side_tasks.py`` import no part
    that brings Qt (the import contract lets Qt in through a sibling)."""
    modules = {f.stem: _imports(f) for f in folder.glob("*.py") if f.stem != "__init__"}
    problems = [f"{name}.py imports lab.py" for name, (siblings, _) in modules.items() if "lab" in siblings]
    used = set().union(*(siblings - {name} for name, (siblings, _) in modules.items()))
    problems += [f"{name}.py is imported by no other module of the lab" for name in modules
                 if name not in ("lab", "run", "maths") and name not in used]
    qt = {name for name, (_, own) in modules.items() if own}
    grew = True
    while grew:  # a part that imports a Qt part brings Qt too
        more = {name for name, (siblings, _) in modules.items() if siblings & qt} - qt
        qt |= more
        grew = bool(more)
    problems += [f"{name}.py imports the Qt part {part}.py" for name in QT_FREE if name in modules
                 for part in sorted(modules[name][0] & qt)]
    return problems


@pytest.mark.parametrize("package", PACKAGES)
def test_every_lab_has_the_shared_shape(package):
    assert shape_problems(package) == []
    assert part_problems(LABS / package.rsplit(".", 1)[1]) == []


def test_parts_off_the_rules_are_found(tmp_path):
    """The parts check itself: a view that imports the lab class, an unused module, and a
    side task that brings Qt in through a view."""
    for name, text in {"lab.py": "from . import maths, run, tabs\n", "run.py": "", "maths.py": "",
                       "tabs.py": "from PySide6 import QtWidgets\nfrom .lab import ExampleLab\n",
                       "views.py": "from ...widgets.plots import PlotPanel\n",
                       "side_tasks.py": "from .views import PlotPanel\n"}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert sorted(part_problems(tmp_path)) == ["side_tasks.py imports the Qt part views.py",
                                               "side_tasks.py is imported by no other module of the lab",
                                               "tabs.py imports lab.py"]


def test_a_lab_off_the_shape_is_found(tmp_path, monkeypatch):
    """The check itself: a lab whose run entry and snapshot are named its own way fails it."""
    folder = tmp_path / "labs" / "_offshape"
    folder.mkdir(parents=True)
    example = LABS / "_example"
    for name in ("__init__.py", "maths.py"):
        (folder / name).write_text((example / name).read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "lab.py").write_text((example / "lab.py").read_text(encoding="utf-8")
                                   .replace("run.run_steps(", "run.moments_run("), encoding="utf-8")
    (folder / "run.py").write_text((example / "run.py").read_text(encoding="utf-8")
                                   .replace("ExampleLabSnapshot", "MomentsView")
                                   .replace("def run_steps(", "def moments_run("), encoding="utf-8")
    (tmp_path / "labs" / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    problems = shape_problems("labs._offshape", folder, "Example")
    assert "lab.py starts its run through run.['moments_run'], not run.run_steps alone" in problems
    assert "run.py has no run_steps" in problems
    assert "snapshot type MomentsView is not named Example…Snapshot" in problems
