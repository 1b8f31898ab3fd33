"""A complete minimal lab, written only against the lab contract, proves it end to end:
state, parameters with visible_when, a chained run, incremental curves, a side task,
sessions that never lose work, and a clean shutdown."""

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import lab_templates
import numpy as np
import pytest
from PySide6 import QtWidgets

import app.lab
import app.lab_layout
import app.points_lab
from app import registry
from app.lab import Lab
from app.points_lab import PointsLab
from app.widgets.params import Param
from app.widgets.plots import PlotPanel
from smlengine import Snapshot
from smlengine.phases import chain_phases


@dataclass(frozen=True, kw_only=True)
class CoinSnapshot(Snapshot):
    mean: float


def flips(p: float, seed: int, n: int):
    rng = np.random.default_rng(seed)
    heads = 0
    for i in range(n):
        heads += rng.random() < p
        yield CoinSnapshot(step=i, mean=heads / (i + 1))


class CoinLab(Lab):  # not registered: the registry only scans app/labs/
    id, title, order, description = "coin", "Coin flips", 999, "The law of large numbers."

    def init_state(self):
        self.marks: list[int] = []  # what a user "made", saved in sessions

    def parameter_specs(self):
        return [Param("p", "P(heads)", "float", 0.5, minimum=0.0, maximum=1.0),
                Param("bias_note", "Note", "bool", False, visible_when=lambda v: v["p"] != 0.5)]

    def build_plots(self):
        self.plot = PlotPanel("Running mean", "flips", "mean")
        self.curve = self.plot.curve("mean")
        return self.plot

    def make_run(self, params, seed):
        p = float(params["p"])
        return lambda: chain_phases(("warm-up", flips(p, seed, 3)), ("main", lambda: flips(p, seed + 1, 50)))

    def render(self, snapshot, prepared, history):
        if history.rewound:
            self.curve.clear()
        self.curve.extend([h.step for h in history.added], [h.mean for h in history.added])

    def user_data(self):
        return {"marks": list(self.marks)}

    def set_user_data(self, data):
        marks = data.get("marks", [])
        if not all(isinstance(m, int) for m in marks):
            raise ValueError("marks must be integers")
        self.marks = list(marks)


def test_the_contract_end_to_end(qtbot):
    lab = CoinLab()
    qtbot.addWidget(lab)
    lab.show()
    assert not lab.form.widgets["bias_note"].isVisibleTo(lab.form)
    lab.form.set_value("p", 0.8)
    lab.form._edited("p")  # as a user edit: the row appears and the run restarts
    assert lab.form.widgets["bias_note"].isVisibleTo(lab.form)
    r = lab.runner
    lab.run_to(20)
    qtbot.waitUntil(lambda: r.timeline.last is not None and r.timeline.last.step == 20)
    r.flush()
    steps = [s.step for s in r.timeline]
    assert steps == list(range(21)) and r.timeline[3].phase == "main"  # chained, renumbered
    assert lab.run_params["p"] == 0.8
    np.testing.assert_array_equal(lab.curve.x, np.arange(21))  # appended frame by frame
    lab.step_back()
    assert lab.curve.n == 20  # a rewind rebuilds the curve up to the snapshot shown

    results = []
    task = lab.task("square", on_done=results.append)
    task.start(lambda x: x * x, 7)
    qtbot.waitUntil(lambda: results == [49])

    lab.marks = [1, 2, 3]
    good = lab.session_state()
    bad = dict(good, user_data={"marks": ["x"]}, parameters={"p": 0.3})
    with pytest.raises(ValueError):
        lab.restore_session(bad)
    assert lab.marks == [1, 2, 3] and lab.params()["p"] == 0.8  # nothing lost
    with pytest.raises(ValueError, match="newer"):
        lab.restore_session(dict(good, version=99))
    lab.restore_session(dict(good, seed=5, step=4))
    qtbot.waitUntil(lambda: r.timeline.last is not None and r.timeline.last.step == 4)
    assert lab.seed == 5
    lab.shutdown()
    lab.close()


# ----------------------------------------------------------------------------- the contract is written down
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "writing-a-lab.md"
BASE_MODULES = [Path(app.lab.__file__), Path(app.lab_layout.__file__), Path(app.points_lab.__file__)]


def _contract_section() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("## The contract: every hook")
    return text[start:text.index("\n## ", start + 1)]


def _named(section: str) -> set[str]:
    """Every name the section's tables give in their first column (``name`` or ``name(args)``)."""
    names = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            for cell in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)", line.split("|")[1]):
                names.add(cell)
    return names


def _overridden(cls) -> set[str]:
    """Names a lab class (and its own helper bases: the mixins of its folder that build a tab or
    hold handlers) defines that its base lab class declares."""
    base = PointsLab if issubclass(cls, PointsLab) else Lab
    declared = set(dir(base))
    own = set()
    for klass in cls.__mro__:
        if klass in (Lab, PointsLab) or not (issubclass(klass, Lab) or klass.__module__.startswith("app.labs.")):
            continue
        own |= set(vars(klass))
    qt = set(dir(QtWidgets.QWidget))
    return {n for n in own & declared if not n.startswith("__") and n not in qt}


@pytest.mark.parametrize("package", lab_templates.PACKAGES)
def test_every_hook_a_lab_overrides_is_declared_and_written_down(package):
    cls = registry.LabInfo.of(package).cls
    section = _contract_section()
    undocumented = sorted(n for n in _overridden(cls) if n not in _named(section))
    assert not undocumented, f"{package} overrides {undocumented}, which docs/writing-a-lab.md does not name"
    private = sorted(n for n in _overridden(cls) if n.startswith("_"))
    assert not private, f"{package} overrides private names of its base: {private}"


def test_the_written_contract_names_only_what_the_bases_declare():
    missing = sorted(n for n in _named(_contract_section()) if not hasattr(PointsLab, n))
    assert not missing, f"docs/writing-a-lab.md names hooks no base declares: {missing}"


def test_the_bases_read_only_attributes_they_declare():
    """Every ``self.<name>`` the base classes read is defined by them (a method, a class
    attribute, or assigned on ``self``) or by Qt: a lab never has to guess a name to provide."""
    defined, read = set(dir(QtWidgets.QWidget)), {}
    for path in BASE_MODULES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        defined.add(stmt.name)
                    elif isinstance(stmt, ast.Assign):
                        defined.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
                    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        defined.add(stmt.target.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                if isinstance(node.ctx, ast.Store):
                    defined.add(node.attr)
                else:
                    read.setdefault(node.attr, f"{path.name}:{node.lineno}")
    undeclared = {name: where for name, where in read.items() if name not in defined}
    assert not undeclared, f"the bases read attributes they never declare: {undeclared}"
