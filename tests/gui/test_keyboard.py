"""The keyboard reaches the run bar whenever no text is being edited (issue "never freeze,
never lose work", item 18).

Keys are delivered as a window system delivers them: to the focus widget of the active
window. When no window is active (as after a modal dialog closed and nothing took the
keyboard back) a key goes nowhere, and the test fails.
"""

from pathlib import Path

import lab_templates
import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtGui, QtTest, QtWidgets

from app.testing import drawn, open_lab, wait_until
from app.testing import press as press_key

Key = QtCore.Qt.Key
Mod = QtCore.Qt.KeyboardModifier


def _app():
    return QtWidgets.QApplication.instance()


def press(qtbot, key, modifier=Mod.NoModifier):
    """One key press and release where the keyboard is: the active window's focus widget."""
    try:
        qtbot.waitUntil(lambda: _app().activeWindow() is not None, timeout=2000)
    except Exception:  # noqa: BLE001 - pytest-qt's TimeoutError
        pytest.fail("no window has the keyboard: the key would go nowhere")
    target = _app().focusWidget() or _app().activeWindow()
    QtTest.QTest.keyClick(target, key, modifier)


@pytest.fixture
def window(make_window, qtbot):
    w = make_window(lab_ids=["classifiers"])
    w.activateWindow()
    qtbot.waitUntil(lambda: _app().activeWindow() is w)
    lab = w.show_lab("classifiers")
    qtbot.waitUntil(lambda: lab.runner.current is not None)
    lab.pause()
    # a slow pace: a started run is still playing when the test looks
    lab.runner.set_rate(2.0)
    return w


def _field(lab, name):
    w = lab.form.widgets[name]
    return getattr(w, "box", w)  # a log slider's editable value box


@pytest.mark.parametrize("name, typed, value", [
    ("n_samples", "200", 200),  # QSpinBox
    ("noise", "0.35", 0.35),  # QDoubleSpinBox
    ("learning_rate", "0.5", 0.5),  # the value box of a log slider
])
def test_enter_then_space_plays_and_keeps_the_value(window, qtbot, name, typed, value):
    lab = window.lab()
    field = _field(lab, name)
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    press(qtbot, Key.Key_A, Mod.ControlModifier)  # select the old value
    for ch in typed:
        press(qtbot, getattr(Key, f"Key_{'Period' if ch == '.' else ch}"))
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(lambda: lab.form.value(name) == pytest.approx(value))
    qtbot.waitUntil(lambda: not field.hasFocus())  # the edit has ended; the user reaches for the space bar
    assert not lab.runner.playing
    press(qtbot, Key.Key_Space)
    qtbot.waitUntil(lambda: lab.runner.playing, timeout=3000)
    assert field.cleanText() == typed  # the field was not blanked
    assert lab.form.value(name) == pytest.approx(value)
    lab.pause()


def test_enter_in_a_line_edit_gives_the_keyboard_back(window, qtbot):
    lab = window.lab()
    edit = QtWidgets.QLineEdit("some text")
    lab.form.layout_.addRow("note", edit)
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(lambda: not edit.hasFocus())  # Enter gave the keyboard back
    press(qtbot, Key.Key_Space)
    qtbot.waitUntil(lambda: lab.runner.playing, timeout=3000)
    assert edit.text() == "some text"
    lab.pause()


class _FakeFileDialog:
    """Stands in for QFileDialog.getSaveFileName: a real modal dialog takes the keyboard, is
    accepted once it is active, and the given answers are returned in turn."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.calls = 0

    def __call__(self, parent=None, caption="", directory="", filter="", *args, **kwargs):
        self.calls += 1
        dialog = QtWidgets.QDialog(parent)
        dialog.setWindowTitle(caption)
        dialog.setModal(True)
        timer = QtCore.QTimer(dialog)
        timer.setInterval(10)
        waited = [0]

        def poll():
            waited[0] += 1
            if dialog.isActiveWindow() or waited[0] > 200:
                dialog.accept()

        timer.timeout.connect(poll)
        timer.start()
        dialog.exec()
        timer.stop()
        dialog.deleteLater()
        path = self.answers.pop(0) if self.answers else ""
        return path, filter.split(";;")[0] if path else ""


def test_shortcuts_work_after_a_file_dialog(window, qtbot, monkeypatch, tmp_path):
    lab = window.lab()
    fake = _FakeFileDialog([str(tmp_path / "plot.png"), ""])
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", fake)

    press(qtbot, Key.Key_E, Mod.ControlModifier)  # Export plot: the dialog opens and closes
    assert fake.calls == 1
    assert Path(tmp_path / "plot.png").exists()

    press(qtbot, Key.Key_E, Mod.ControlModifier)  # again, no click in between; cancelled this time
    assert fake.calls == 2

    # the run bar's keys, right after the (cancelled) dialog
    before = lab.runner.current.step
    press(qtbot, Key.Key_Right)
    qtbot.waitUntil(lambda: lab.runner.current.step == before + 1)
    press(qtbot, Key.Key_Left)
    qtbot.waitUntil(lambda: lab.runner.current.step == before)
    press(qtbot, Key.Key_Space)
    qtbot.waitUntil(lambda: lab.runner.playing)
    press(qtbot, Key.Key_Space)
    qtbot.waitUntil(lambda: not lab.runner.playing)
    qtbot.waitUntil(lambda: lab.runner.current.step > before)

    old_run = lab.runner.timeline.last
    press(qtbot, Key.Key_R)  # reset: a new run from step 0
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.timeline.last is not old_run
                    and lab.runner.current.step == 0)


def _open_session_dialog(window):
    window.open_session_dialog()


def _load_points_dialog(window):
    window.lab()._load_points_dialog()


@pytest.mark.parametrize("open_dialog", [_open_session_dialog, _load_points_dialog],
                         ids=["open-session", "load-points"])
def test_space_works_after_an_open_file_dialog(window, qtbot, monkeypatch, open_dialog):
    lab = window.lab()
    fake = _FakeFileDialog([""])  # cancelled
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", fake)
    open_dialog(window)
    assert fake.calls == 1
    press(qtbot, Key.Key_Space)
    qtbot.waitUntil(lambda: lab.runner.playing, timeout=3000)
    lab.pause()


def test_run_bar_keys_work_after_the_grid_search_button(window, qtbot):
    """Run grid search disables itself while the search runs; the keyboard must not fall
    into the "k = 5" box next to it, where R and Space would blank it."""
    lab = window.lab()
    lab.form.set_values({"classifier": "svm_linear", "test_fraction": 0.25}, quiet=False)
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.ctx.kind == "svm_linear")
    lab.pause()
    tabs = lab.plots
    cv = lab.cv_view
    tabs.setCurrentIndex(next(i for i in range(tabs.count()) if tabs.widget(i).isAncestorOf(cv)))
    qtbot.waitUntil(cv.run_button.isVisible)
    cv.run_button.setFocus(QtCore.Qt.FocusReason.MouseFocusReason)  # as a real click does
    qtbot.waitUntil(cv.run_button.hasFocus)
    QtTest.QTest.mouseClick(cv.run_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not isinstance(_app().focusWidget(),
                                           (QtWidgets.QAbstractSpinBox, QtWidgets.QAbstractButton)),
                    timeout=3000)
    step_before = lab.runner.current
    press(qtbot, Key.Key_R)
    qtbot.waitUntil(lambda: lab.runner.current is not step_before, timeout=5000)
    press(qtbot, Key.Key_Space)
    qtbot.waitUntil(lambda: lab.runner.playing, timeout=3000)
    assert cv.folds.value() == 5 and cv.folds.cleanText() == "5"
    lab.pause()
    cv.cancel_button.click()


# ----------------------------------------------------------------------------- every lab
def _shown(widget) -> bool:
    """On screen with room: a panel folded away by its splitter has no width."""
    return widget.isVisible() and widget.width() > 0


def _maths_text(lab) -> str:
    doc = QtGui.QTextDocument()
    doc.setHtml(lab.maths_html(lab.runner.current))
    return doc.toPlainText()


@pytest.mark.parametrize("lab_id", lab_templates.CHECKED)
def test_every_lab_answers_its_keys(make_window, lab_id):
    """R, →, ←, Space, F1, F2 and F11 in every lab, sent where the window system sends them;
    after each step the maths panel says what the step on screen is."""
    window = make_window(lab_ids=[lab_id])
    lab = open_lab(window, lab_id)
    r = lab.runner
    lab.pause()
    lab.runner.set_rate(2.0)  # a slow pace: a run started by Space still plays when the test looks

    def at(step):
        drawn(lab)
        return r.current is not None and r.current.step == step and not r.playing

    press_key(lab, "R")
    wait_until(lambda: at(0), what="R: the run back at step 0")
    press_key(lab, "Right")
    press_key(lab, "Right")
    wait_until(lambda: at(2), what="→ →: step 2")
    assert lab.maths.toPlainText() == _maths_text(lab)
    press_key(lab, "Left")
    wait_until(lambda: at(1), what="←: step 1")
    assert lab.maths.toPlainText() == _maths_text(lab)

    press_key(lab, "Space")
    wait_until(lambda: r.playing, what="Space: playing")
    press_key(lab, "Space")
    wait_until(lambda: not r.playing, what="Space again: paused")

    for key, panel in (("F1", lab.maths), ("F2", lab.controls_scroll)):
        before = _shown(panel)
        press_key(lab, key)
        wait_until(lambda: _shown(panel) != before, what=f"{key}: the panel shown or folded")
        press_key(lab, key)
        wait_until(lambda: _shown(panel) == before, what=f"{key} again: the panel as it was")

    main = lab.main_plot()
    if main is not None:
        others = [p for p in lab.plots.findChildren(pg.PlotWidget) if p is not main and p.isVisible()]
        press_key(lab, "F11")
        wait_until(lambda: lab.enlarged_plot is main, what="F11: the main plot enlarged")
        assert main.isVisible() and not any(p.isVisible() for p in others)
        press_key(lab, "F11")
        wait_until(lambda: lab.enlarged_plot is None, what="F11 again: every plot back")
        assert all(p.isVisible() for p in others)
