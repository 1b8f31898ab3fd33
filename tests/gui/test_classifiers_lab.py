"""The perceptron lab: plot contents, editing points, sessions, errors, exports."""

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
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


def _drag(canvas, start, end):
    """A left-button drag in pixels of the canvas's viewport, in small moves as a hand makes it."""
    vp = canvas.viewport()
    left, none = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.NoButton
    ev = QtCore.QEvent.Type

    def send(kind, pos, button, buttons):
        pos = QtCore.QPointF(pos)
        QtWidgets.QApplication.sendEvent(vp, QtGui.QMouseEvent(kind, pos, QtCore.QPointF(vp.mapToGlobal(pos)), button,
                                                               buttons, QtCore.Qt.KeyboardModifier.NoModifier))

    send(ev.MouseButtonPress, start, left, left)
    for t in np.linspace(0, 1, 9)[1:]:
        send(ev.MouseMove, QtCore.QPointF(start.x() + (end.x() - start.x()) * t, start.y() + (end.y() - start.y()) * t),
             none, left)
    send(ev.MouseButtonRelease, end, left, none)


def test_mouse_edits_leave_the_view_put(qtbot, make_window):
    from app.testing import drawn, press
    from app.widgets.point_canvas import DRAG_PICK_FACTOR, PICK_RADIUS_PX

    window, lab = _lab(qtbot, make_window)
    drawn(lab)
    canvas = lab.canvas
    vb = canvas.plot_item.getViewBox()
    n = len(canvas.y)
    fitted = np.array(vb.targetRange())

    def pixel(x, y):
        return canvas.mapFromScene(vb.mapViewToScene(QtCore.QPointF(x, y)))

    for (x, y), button in (((-2.0, 4.5), QtCore.Qt.MouseButton.LeftButton),
                           ((-2.0, 4.5), QtCore.Qt.MouseButton.RightButton),
                           ((7.0, -2.0), QtCore.Qt.MouseButton.LeftButton)):  # beyond the points' box
        qtbot.mouseClick(canvas.viewport(), button, pos=pixel(x, y))
    drawn(lab)
    np.testing.assert_allclose(vb.targetRange(), fitted, err_msg="a click moved the view")
    assert len(canvas.y) == n + 3
    assert list(canvas.y[-3:]) == [1.0, -1.0, 1.0]
    np.testing.assert_allclose(canvas.X[-2], [-2.0, 4.5], atol=0.1)
    assert vb.state["autoRange"] == [False, False]

    # spots in pixels: one beside a point yet off every point's reach, one a near miss of a single point
    px = np.array([[pixel(x, y).x(), pixel(x, y).y()] for x, y in canvas.X], dtype=float)
    inside = canvas.mapFromScene(vb.sceneBoundingRect()).boundingRect().adjusted(80, 80, -80, -80)
    reach = DRAG_PICK_FACTOR * PICK_RADIUS_PX
    beside = near = None
    for i, angle in ((i, a) for i in range(n) for a in np.linspace(0, 2 * np.pi, 16, endpoint=False)):
        unit = np.array([np.cos(angle), np.sin(angle)])
        for radius in (reach + 6, 1.5 * PICK_RADIUS_PX):
            spot = px[i] + radius * unit
            d = np.sort(np.hypot(*(px - spot).T))
            if not inside.contains(QtCore.QPoint(*spot.astype(int))):
                continue
            if beside is None and d[0] > reach + 4:
                beside = (spot, unit)
            if near is None and radius < reach and d[1] > reach + 4:
                near = (i, spot, unit)
    assert beside is not None and near is not None
    before = canvas.X.copy()
    _drag(canvas, QtCore.QPointF(*beside[0]), QtCore.QPointF(*(beside[0] + 60 * beside[1])))
    np.testing.assert_allclose(vb.targetRange(), fitted, err_msg="a drag beside a point panned the view")
    np.testing.assert_array_equal(canvas.X, before)
    # a near miss still drags the point it was meant for
    i, spot, unit = near
    _drag(canvas, QtCore.QPointF(*spot), QtCore.QPointF(*(spot + 40 * unit)))
    drawn(lab)
    moved = np.flatnonzero(np.any(canvas.X != before, axis=1))
    assert list(moved) == [i]
    np.testing.assert_allclose(vb.targetRange(), fitted)

    # a visible "Fit view" button in the corner between the axes (off the data) brings the points back
    button = canvas.fit_button
    assert button.isVisible() and button.text().startswith("Fit")
    assert "Home" in button.toolTip()
    corner = canvas.mapToScene(button.geometry()).boundingRect()
    assert not corner.intersects(vb.sceneBoundingRect())
    assert canvas.rect().contains(button.geometry())
    for way in ("button", "key"):
        vb.translateBy(x=40.0)  # the points far off screen (a wheel or a middle-button drag)
        if way == "button":
            qtbot.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)
        else:
            canvas.setFocus()
            press(lab, "Home")
        (x0, x1), (y0, y1) = vb.targetRange()
        X = canvas.X
        assert (X[:, 0] > x0).all() and (X[:, 0] < x1).all() and (X[:, 1] > y0).all() and (X[:, 1] < y1).all(), way
        assert vb.state["autoRange"] == [False, False]
    # and the view stays put at the next click
    refitted = np.array(vb.targetRange())
    qtbot.mouseClick(canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pixel(8.0, 5.0))
    drawn(lab)
    np.testing.assert_allclose(vb.targetRange(), refitted)


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
