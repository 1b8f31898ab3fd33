"""The perceptron lab: plot contents, editing points, sessions, errors, exports."""

import numpy as np
import pytest
from PySide6 import QtCore, QtGui
from app.testing import run_to


def _lab(qtbot, make_window, **kw):
    window = make_window(lab_ids=["classifiers"], **kw)
    lab = window.show_lab("classifiers")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=20_000)
    return window, lab


def test_plots_follow_the_run(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    run_to(lab, 10)
    snap = lab.runner.current
    assert snap.step == 10
    x, y = lab.mistakes_panel.curves["mistakes"].getData()
    np.testing.assert_array_equal(x, np.arange(11))
    assert y[0] == len(lab.canvas.y) and y[-1] == snap.engine.n_mistakes
    # the boundary drawn is the zero set of the current hyperplane
    bx, by = lab.decision.boundary.getData()
    ok = np.isfinite(bx)
    assert ok.sum() > 10
    f = np.column_stack([bx[ok], by[ok]]) @ snap.engine.v - snap.engine.c
    distance = np.abs(f) / np.linalg.norm(snap.engine.v)  # of each drawn boundary point to the hyperplane
    assert distance.max() < 1e-9  # the contour of a linear f is exact
    assert lab.decision.image.isVisible()
    # the maths panel shows the perceptron's page for the step on screen
    page = QtGui.QTextDocument()
    page.setHtml(lab.maths_html(snap))
    assert lab.maths.toPlainText() == page.toPlainText()
    assert "C<sub>P</sub>(z)" in lab.maths_html(snap) and "Perceptron" in page.toPlainText()
    assert f"step {snap.step}" in lab.maths.toPlainText()


def test_run_converges_and_reports_finished(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    lab.runbar.speed.setCurrentIndex(lab.runbar.speed.count() - 1)  # as fast as possible
    lab.play()
    qtbot.waitUntil(lambda: lab.runner.finished, timeout=20_000)
    lab.runner.flush()
    assert lab.runner.current.engine.converged
    assert "finished" in lab.runbar.step_label.text()


def test_drawing_points_restarts_and_undo(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    n = len(lab.canvas.y)
    lab.canvas.add_point(0.0, 0.0, +1)
    lab.canvas.add_point(1.0, 1.0, -1)
    assert len(lab.canvas.y) == n + 2
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.engine.n_mistakes == n + 2,
                    timeout=20_000)
    assert lab.canvas.undo()
    assert len(lab.canvas.y) == n + 1
    lab.canvas.remove_point(0)
    assert len(lab.canvas.y) == n


def test_mouse_clicks_add_points(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    n = len(lab.canvas.y)
    vb = lab.canvas.plot_item.getViewBox()
    scene_pt = vb.mapViewToScene(QtCore.QPointF(-2.0, 4.5))
    view_pt = lab.canvas.mapFromScene(scene_pt)
    qtbot.mouseClick(lab.canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=view_pt)
    qtbot.mouseClick(lab.canvas.viewport(), QtCore.Qt.MouseButton.RightButton, pos=view_pt)
    assert len(lab.canvas.y) == n + 2
    assert list(lab.canvas.y[-2:]) == [1.0, -1.0]
    np.testing.assert_allclose(lab.canvas.X[-1], [-2.0, 4.5], atol=0.1)


def test_session_round_trip(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    lab.form.set_value("mode", "batch")
    lab.canvas.add_point(5.0, -2.0, -1)
    lab.runbar.seed.setValue(3)
    lab.canvas.add_point(4.0, -1.0, +1)
    run_to(lab, 4)
    path = tmp_path / "s.json"
    assert window.save_session(str(path), lab)
    points = lab.canvas.X.copy()

    other = make_window(lab_ids=["classifiers"])
    lab2 = other.open_session(str(path))
    assert lab2 is not None
    qtbot.waitUntil(lambda: lab2.runner.timeline.last is not None and lab2.runner.timeline.last.step >= 4,
                    timeout=20_000)
    assert lab2.params()["mode"] == "batch"
    assert lab2.seed == 3
    np.testing.assert_array_equal(lab2.canvas.X, points)
    assert lab2.runner.timeline.last.step == 4
    original = next(snap for snap in lab.runner.timeline if snap.step == 4)
    np.testing.assert_array_equal(lab2.runner.timeline.last.engine.v, original.engine.v)  # the same run replayed


def test_autosave_keeps_drawn_points(qtbot, make_window, config_dir):
    window, lab = _lab(qtbot, make_window, restore=True, autosave=True)
    lab.canvas.clear_points()
    for x, y, c in [(0, 0, 1), (1, 2, -1), (3, 1, 1)]:
        lab.canvas.add_point(x, y, c)
    window.close()
    assert (config_dir / "sessions" / "classifiers.json").exists()
    again = make_window(lab_ids=["classifiers"], restore=True, autosave=True)
    lab2 = again.show_lab("classifiers")
    qtbot.waitUntil(lambda: not again.restoring("classifiers"), timeout=20_000)  # read on a worker
    np.testing.assert_array_equal(lab2.canvas.X, [[0, 0], [1, 2], [3, 1]])


@pytest.mark.parametrize("text", ["", "not json", '{"format": "other"}', '{"format": "smllab-session", "lab": "nope"}'])
def test_bad_session_files_are_refused(qtbot, make_window, tmp_path, text):
    window, lab = _lab(qtbot, make_window)
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert window.open_session(str(path)) is None
    assert lab.runner.current is not None  # the lab keeps working


def test_errors_show_in_the_lab(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    lab.canvas.clear_points()
    qtbot.waitUntil(lambda: "no points" in lab.error_text, timeout=5_000)
    lab.canvas.add_point(0, 0, 1)
    lab.canvas.add_point(1, 0, 1)  # a single class: the engine refuses it on the worker
    qtbot.waitUntil(lambda: lab.runner.error is not None, timeout=10_000)
    assert "two classes" in lab.error_text
    lab.canvas.add_point(-1, 0, -1)
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.error is None, timeout=10_000)
    assert lab.error_text == ""


def test_exports(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    run_to(lab, 6)
    png, svg, csv_path, gif = (tmp_path / n for n in ("p.png", "p.svg", "d.csv", "r.gif"))
    window.export_plot(str(png), lab)
    window.export_plot(str(svg), lab)
    lab.export_csv(str(csv_path))
    n = window.export_gif(str(gif), lab, max_frames=5)
    assert png.stat().st_size > 1000 and svg.read_text().lstrip().startswith("<?xml")
    rows = csv_path.read_text().splitlines()
    assert rows[0] == "x1,x2,label,f(x),predicted" and len(rows) == len(lab.canvas.y) + 1
    from PIL import Image

    with Image.open(gif) as im:
        assert im.n_frames == n == 5
    assert lab.runner.current.step == 6


def test_keyboard_shortcuts_drive_the_run(qtbot, make_window):
    from PySide6 import QtGui

    window, lab = _lab(qtbot, make_window)
    actions = {a.shortcut().toString(): a for a in window.actions() if not a.shortcut().isEmpty()}
    for key in ("Space", "Right", "Left", "R", "Ctrl+S", "Ctrl+O", "Ctrl+E", "F1", "F5"):
        assert key in actions, f"no action bound to {key}"
    assert actions["Ctrl+S"].shortcut() == QtGui.QKeySequence(QtGui.QKeySequence.StandardKey.Save)
    actions["Right"].trigger()
    qtbot.waitUntil(lambda: lab.runner.timeline.last.step == 1, timeout=10_000)
    actions["Right"].trigger()
    qtbot.waitUntil(lambda: lab.runner.timeline.last.step == 2, timeout=10_000)
    actions["Left"].trigger()
    assert lab.runner.current.step == 1
    actions["Space"].trigger()
    assert lab.runner.playing
    actions["Space"].trigger()
    assert not lab.runner.playing
    actions["R"].trigger()
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.step == 0, timeout=10_000)
    actions["F5"].trigger()
    from app import style as theme

    assert theme.current().projector


def test_clearing_the_points_leaves_no_stale_run_on_screen(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    run_to(lab, 5)
    lab.canvas.clear_points()
    qtbot.waitUntil(lambda: "no points" in lab.error_text, timeout=5_000)
    assert lab.runner.current is None and len(lab.runner.timeline) == 0
    assert "training points" not in lab.maths.toPlainText()
    window._update_status()
    assert window.status_state.text() != "finished"
