"""One smoke test generated for every registered lab: build, play, pause, step, step
back, scrub, reset, close; with no thread left behind."""

import dataclasses

import pytest
from lab_templates import CHECKED, REGISTERED as LAB_IDS

from app import registry


@pytest.fixture
def lab_window(make_window):
    """A window holding one lab (a registered one or a template)."""
    return lambda lab_id: make_window(lab_ids=[lab_id])


def test_registry_finds_labs_without_errors():
    assert "classifiers" in LAB_IDS
    assert registry.import_errors == {}
    orders = [cls.order for cls in registry.discover()]
    assert orders == sorted(orders)
    for info in registry.discover():  # the class, imported on demand, agrees with its META
        assert (info.cls.id, info.cls.title, info.cls.order) == (info.id, info.title, info.order)


def test_start_up_imports_no_lab():
    import subprocess
    import sys

    code = ("import sys; from app import registry; registry.discover(); "
            "print(sorted(m for m in sys.modules if m.startswith('app.labs.') and m.count('.') > 2))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_window_paints_before_the_first_lab_is_built(tmp_path):
    """The interactive start paints the window (menus, tabs, a "Loading" line) with
    PySide6 alone, then builds the first lab: pyqtgraph, numpy and the lab's modules are
    imported after the first paint."""
    import os
    import subprocess
    import sys

    code = """
import sys
from PySide6 import QtCore, QtWidgets
app = QtWidgets.QApplication([])
from app.main_window import MainWindow
w = MainWindow(restore=False, autosave=False, lab_ids=["classifiers"], build_after_first_paint=True)
host = w.tabs.currentWidget()
seen = {}
def painted():
    seen['heavy'] = sorted(m for m in ('pyqtgraph', 'numpy', 'app.lab') if m in sys.modules)
    seen['built'] = host.lab is not None
host.firstPainted.connect(painted)
w.show()
while host.lab is None:
    app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 50)
print(seen['heavy'], seen['built'], host.lab.runner is not None)
w.shutdown()
"""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SMLLAB_CONFIG_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env,
                         timeout=120).stdout
    assert out.strip().splitlines()[-1] == "[] False True", out


@pytest.mark.parametrize("lab_id", CHECKED)
def test_lab_lifecycle(qtbot, lab_window, lab_id):
    window = lab_window(lab_id)
    lab = window.show_lab(lab_id)
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None or r.error is not None, timeout=30_000)
    assert r.error is None, r.error
    assert r.current.step == 0

    lab.play()
    qtbot.waitUntil(lambda: len(r.timeline) >= 4 or r.finished or r.error is not None, timeout=30_000)
    lab.pause()
    assert not r.playing
    assert r.error is None, r.error
    qtbot.waitUntil(lambda: r.settled, timeout=30_000)

    # Step advances exactly one snapshot (unless the run already ended).
    before = r.timeline.last.step
    if not r.finished:
        lab.step()
        qtbot.waitUntil(lambda: r.timeline.last.step >= before + 1 or r.finished, timeout=30_000)
        qtbot.waitUntil(lambda: r.settled, timeout=30_000)
        assert r.timeline.last.step == before + 1 or r.finished
        assert r.current.step == r.timeline.last.step

    # Step back shows the previous snapshot again, exactly.
    shown = r.current_index
    assert shown > 0
    lab.step_back()
    assert r.current_index == shown - 1
    assert r.current is r.timeline[shown - 1]
    lab.step()
    assert r.current_index == shown

    # Scrubbing to the start and back.
    lab.runbar.slider.setValue(0)
    assert r.current.step == 0
    lab.runbar.slider.setValue(lab.runbar.slider.maximum())
    assert r.current is r.timeline.last

    lab.reset()
    qtbot.waitUntil(lambda: r.current is not None, timeout=30_000)
    assert r.current.step == 0
    assert lab.error_text == ""
    window.close()
    assert not r.has_run


@pytest.mark.parametrize("lab_id", CHECKED)
def test_lab_projector_and_dark_theme(qtbot, lab_window, lab_id):
    window = lab_window(lab_id)
    lab = window.show_lab(lab_id)
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=30_000)
    window.set_projector(True)
    window.set_dark(True)
    # a frame drawn in the new style: the run steps on and the step is on screen
    r = lab.runner
    before = r.current.step
    lab.step()
    qtbot.waitUntil(lambda: r.finished or (r.current.step > before and r.settled), timeout=30_000)
    assert r.error is None, r.error
    assert lab.error_text == ""
    from app import style as theme

    assert theme.current().projector and theme.current().scale >= 1.5
    window.set_projector(False)
    window.set_dark(False)


@pytest.mark.parametrize("lab_id", CHECKED)
def test_same_seed_replays_exactly(qtbot, lab_window, lab_id):
    window = lab_window(lab_id)
    lab = window.show_lab(lab_id)
    r = lab.runner

    def run_five():
        lab.start()
        lab.run_to(5)
        qtbot.waitUntil(lambda: (r.timeline.last is not None and r.timeline.last.step >= 5) or r.finished,
                        timeout=30_000)
        return [s for s in r.timeline]

    first = run_five()
    second = run_five()
    assert [s.step for s in first] == [s.step for s in second]
    for a, b in zip(first, second):
        assert type(a) is type(b)
        for f in dataclasses.fields(a):
            if f.name != "progress":
                assert _same(getattr(a, f.name), getattr(b, f.name)), f.name


def _same(a, b) -> bool:
    import numpy as np

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=np.asarray(a).dtype.kind == "f")
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    if dataclasses.is_dataclass(a) and type(a) is type(b):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if hasattr(a, "get_params") and type(a) is type(b):  # an estimator: same hyper-parameters
        return _same(a.get_params(), b.get_params())
    if callable(a) and callable(b):  # e.g. a kernel function built per run
        return type(a) is type(b) and getattr(a, "__qualname__", "") == getattr(b, "__qualname__", "")
    return a == b
