"""Every lab fits classroom screens: generated for every registered lab and template (lab_templates.py),
every tab of it, at 1024×768, 1280×800, 1366×768 and 1920×1080, in normal and projector mode.

Rules checked on the live widget tree: the window is never wider than the screen; the
parameter panel has no horizontal overflow; no button, box or field in it is narrower
than its minimum size hint; legends that lie over a plot's data area cover no data point;
no plot is cut by its widget (a plot whose title, legend and axes need more room than its
widget has is drawn larger than the widget and loses its bottom or right edge).
"""

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtWidgets

from lab_templates import CHECKED as LAB_IDS  # the registered labs and the templates

SIZES = [(1024, 768), (1280, 800), (1366, 768), (1920, 1080)]


def _squeezed_controls(lab) -> list[str]:
    bad = []
    for w in lab.controls_scroll.widget().findChildren(QtWidgets.QWidget):
        if not w.isVisibleTo(lab) or not isinstance(w, (QtWidgets.QAbstractButton, QtWidgets.QComboBox,
                                                        QtWidgets.QAbstractSpinBox)):
            continue
        if w.width() + 6 < w.minimumSizeHint().width():  # a few pixels of frame may go
            text = w.text() if hasattr(w, "text") and callable(w.text) else type(w).__name__
            bad.append(f"{text!r}: {w.width()} < {w.minimumSizeHint().width()}")
    return bad


def _legends_over_data(lab) -> list[str]:
    """Legends drawn inside a data area must not cover a data point."""
    bad = []
    for view in lab.findChildren(pg.GraphicsView):
        if not view.isVisibleTo(lab):
            continue
        for item in view.scene().items():
            if not isinstance(item, pg.PlotItem) or item.legend is None or not item.legend.isVisible():
                continue
            vb = item.getViewBox()
            legend_rect = item.legend.sceneBoundingRect().adjusted(1, 1, -1, -1)  # touching is not covering
            if not legend_rect.intersects(vb.sceneBoundingRect()) or not item.legend.items:
                continue
            area = vb.mapSceneToView(legend_rect).boundingRect()
            for data in item.listDataItems():
                x, y = data.getData() if hasattr(data, "getData") else (None, None)
                if x is None or len(x) == 0:
                    continue
                x, y = np.asarray(x, float), np.asarray(y, float)
                if item.ctrl.logYCheck.isChecked():
                    y = np.log10(np.clip(y, 1e-300, None))
                inside = (x > area.left()) & (x < area.right()) & (y > area.top()) & (y < area.bottom())
                if inside.any():
                    bad.append(f"legend of {item.titleLabel.text!r} covers {int(inside.sum())} point(s)")
                    break
    return bad


def _clipped_plots(lab) -> list[str]:
    """Plots drawn larger than the widget that shows them (their edges cut off)."""
    bad = []
    for view in lab.findChildren(pg.PlotWidget):
        if not view.isVisibleTo(lab) or view.width() < 2:
            continue
        item = view.getPlotItem()
        rect = item.geometry()
        port = view.viewport()
        if rect.width() > port.width() + 2 or rect.height() > port.height() + 2:
            bad.append(f"{item.titleLabel.text!r}: plot {rect.width():.0f}×{rect.height():.0f} "
                       f"in {port.width()}×{port.height()}")
    return bad


@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_lab_fits_the_screen(qtbot, make_window, lab_id, projector):
    """One window per lab and mode, resized through the four screens (as a user drags a
    window between screens): every size is checked on every tab."""
    from app import style as theme

    theme.manager().set(projector=projector)  # as a start with projector mode restored: built in it
    window = make_window(lab_ids=[lab_id])
    window.set_projector(projector)
    lab = window.show_lab(lab_id)
    qtbot.waitUntil(lambda: lab.runner.current is not None or lab.runner.error is not None, timeout=30_000)
    lab.run_to(3)
    qtbot.waitUntil(lambda: lab.runner.settled, timeout=30_000)
    lab.runner.flush()
    tabs = lab.plots if isinstance(lab.plots, QtWidgets.QTabWidget) else None
    for width, height in SIZES:
        window.resize(width, height - 40)  # a panel or task bar takes the rest
        for index in range(tabs.count() if tabs else 1):
            if tabs:
                tabs.setCurrentIndex(index)
            qtbot.wait(10)
            where = f"{lab_id} tab {index} at {width}x{height}{' projector' if projector else ''}"
            assert window.width() <= width, f"{where}: window {window.width()} px wide"
            inner = lab.controls_scroll.widget()
            assert inner.width() <= lab.controls_scroll.viewport().width() + 1, f"{where}: parameter panel overflows"
            assert not _squeezed_controls(lab), f"{where}: {_squeezed_controls(lab)}"
            assert not _legends_over_data(lab), f"{where}: {_legends_over_data(lab)}"
            assert not _clipped_plots(lab), f"{where}: {_clipped_plots(lab)}"
        if tabs:
            tabs.setCurrentIndex(0)
    assert lab.error_text == "", lab.error_text


def test_small_ranges_are_not_silently_rescaled(qtbot):
    from app.widgets.plots import PlotPanel

    panel = PlotPanel("costs", "threshold", "Q")
    qtbot.addWidget(panel)
    panel.curve("Q").set([0.0, 1.0, 2.0], [0.15, 0.2, 0.25])
    panel.show()
    qtbot.waitUntil(lambda: panel.isVisible())
    axis = panel.plot_item.getAxis("left")
    axis.updateAutoSIPrefix()
    assert axis.autoSIPrefixScale == 1.0 and axis.labelUnitPrefix == ""
    strings = axis.tickStrings([0.15, 0.2, 0.25], axis.autoSIPrefixScale, 0.05)
    assert [float(t) for t in strings] == [0.15, 0.2, 0.25]  # not 150, 200, 250


def test_long_dashed_curves_are_drawn_solid(qtbot):
    """Qt strokes dashes along a long jagged path very slowly: past 1,000 points a curve is solid."""
    from PySide6 import QtCore

    from app.widgets.plots import PlotPanel, Series

    panel = PlotPanel("curves", "step", "value")
    qtbot.addWidget(panel)
    panel.curve("first")
    second = panel.curve("second")  # the second curve is dashed
    assert second.item.opts["pen"].style() == QtCore.Qt.PenStyle.DashLine
    second.extend(np.arange(Series.DASHED_POINTS + 1), np.random.default_rng(0).random(Series.DASHED_POINTS + 1))
    assert second.item.opts["pen"].style() == QtCore.Qt.PenStyle.SolidLine
    second.clear()
    assert second.item.opts["pen"].style() == QtCore.Qt.PenStyle.DashLine


def test_nice_ceil_and_calm_box():
    from app.widgets.plots import calm_box, nice_ceil

    assert [nice_ceil(v) for v in (0.7, 1.0, 1.2, 2.2, 3.0, 7.0, 101.0)] == [1.0, 1.0, 2.0, 2.5, 5.0, 10.0, 200.0]
    box = calm_box((0.0, 100.0, 0.0, 10.0), None)
    assert box == (0.0, 200.0, -2.5, 12.5)
    assert calm_box((0.0, 150.0, 1.0, 9.0), box) is box  # inside and filling it: kept
    grown = calm_box((0.0, 201.0, 0.0, 13.0), box)
    assert grown[1] == 500.0 and grown[3] == 13.0 + 0.25 * 13.0 and grown[2] == box[2]
    assert calm_box((0.0, 10.0, 0.0, 1.0), grown)[1] == 20.0  # much smaller data (a new run): remade
    log_box = calm_box((0.0, 10.0, -7.3, -0.2), None, log_y=True)
    assert log_box[2:] == (-8, 0)  # whole decades


def test_growing_curve_moves_the_view_only_in_steps(qtbot):
    """A curve that grows by one point a frame changes the view (and re-lays out the axes)
    only when it leaves its calm box: a few dozen times over 2,000 points, not 2,000."""
    from app.widgets.plots import PlotPanel

    panel = PlotPanel("loss", "step", "L")
    qtbot.addWidget(panel)
    panel.resize(400, 300)
    panel.show()
    panel.set_calm(True)  # as while a run plays
    vb = panel.plot_item.getViewBox()
    changes = []
    vb.sigRangeChanged.connect(lambda *a: changes.append(vb.viewRange()))
    curve = panel.curve("L")
    rng = np.random.default_rng(1)
    values = np.cumsum(rng.normal(size=2000))
    for i in range(2000):
        curve.extend([i], [values[i]])
        vb.updateAutoRange()  # what the next paint would do
    assert 1 <= len(changes) <= 60
    (x0, x1), (y0, y1) = vb.viewRange()
    assert x0 <= 0 and x1 >= 1999 and y0 <= values.min() and y1 >= values.max()  # all data shown
    curve.clear()
    curve.extend([0, 1, 2], [0.0, 1.0, 0.5])
    vb.updateAutoRange()
    assert vb.viewRange()[0][1] < 10  # a new run gets a view of its own size
    curve.extend(np.arange(3, 60), np.zeros(57))
    vb.updateAutoRange()
    assert vb.viewRange()[0][1] > 70  # headroom while playing
    panel.set_calm(False)  # paused or finished: tight again
    vb.updateAutoRange()
    assert 59 <= vb.viewRange()[0][1] < 65  # (pyqtgraph pads a few per cent)


def test_masked_markers_show_exactly_the_mask(qtbot):
    from app.widgets.markers import MaskedMarkers

    pw = pg.PlotWidget()
    qtbot.addWidget(pw)
    markers = MaskedMarkers()
    pw.addItem(markers)
    pos = np.random.default_rng(2).random((300, 2))
    markers.set_points("run", pos, size=10, symbol="o")
    mask = np.zeros(300, bool)
    mask[::7] = True
    markers.show_mask(mask)
    assert np.array_equal(markers.visible_positions(), pos[mask])
    markers.show_indices([3, 5], 300)
    assert np.array_equal(markers.visible_positions(), pos[[3, 5]])
    markers.hide_all()
    assert len(markers.visible_positions()) == 0


def test_short_vertical_axes_space_their_labels(qtbot):
    """Labelled ticks of a short panel's left axis stay at least 1.25 lines apart."""
    from PySide6 import QtGui

    from app.widgets.plots import PlotPanel

    panel = PlotPanel("Mistakes", "step", "mistakes")
    qtbot.addWidget(panel)
    axis = panel.plot_item.getAxis("left")
    font = QtGui.QFont()
    font.setPointSizeF(16)
    axis.setTickFont(font)
    line = QtGui.QFontMetricsF(font).height()
    for size in (30.0, 45.0, 80.0, 200.0):
        major = axis.tickValues(-5.0, 130.0, size)[0]
        spacing, values = major
        assert len(values) >= 1
        if len(values) > 1:
            assert spacing / 135.0 * size >= 1.25 * line - 1e-9, (size, values)
    assert len(axis.tickValues(-5.0, 130.0, 400.0)[0][1]) >= 3  # a tall axis keeps its usual ticks


def test_long_histories_keep_their_envelope_in_bounded_points(qtbot):
    from app.widgets.plots import PlotPanel, Series

    panel = PlotPanel("loss", "step", "L")
    qtbot.addWidget(panel)
    curve = panel.curve("L")
    rng = np.random.default_rng(3)
    ys = rng.normal(size=100_000)
    ys[54_321] = 50.0  # a spike must survive thinning
    for lo in range(0, 100_000, 700):
        curve.extend(np.arange(lo, min(lo + 700, 100_000)), ys[lo:lo + 700])
    assert len(curve.x) <= Series.MAX_POINTS + 64
    x, y = curve.x, curve.y
    assert np.all(np.diff(x) > 0)  # still in step order
    assert x[0] < 64 and x[-1] > 99_999 - 64  # within one block of each end
    assert y.max() == 50.0 and y.min() == ys.min()
    whole = panel.curve("whole")
    whole.set(np.arange(20_000), np.arange(20_000.0))  # a curve given whole is never thinned
    assert whole.n == 20_000


@pytest.mark.parametrize("log_y", [False, True], ids=["linear", "log"])
def test_a_growing_history_is_drawn_as_if_stroked_whole(qtbot, monkeypatch, log_y):
    """A long history strokes only its tail each frame (its head is kept as an image); the
    picture is the same, pixel for pixel, as the whole curve stroked in one go."""
    from app.widgets import plots

    panel = plots.PlotPanel("loss", "step", "L", log_y=log_y)
    qtbot.addWidget(panel)
    panel.resize(600, 400)
    panel.show()
    qtbot.waitExposed(panel)
    panel.set_calm(True)  # the range grows in steps, as while a run plays
    a, b = panel.curve("a"), panel.curve("b")
    for k in range(20):  # twenty frames of a run
        xs = np.arange(k * 300, (k + 1) * 300)
        a.extend(xs, np.abs(np.sin(xs / 500.0)) + 0.01 + 0.1 * np.cos(xs / 7.0) ** 2)
        b.extend(xs, 1.0 + np.cos(xs / 300.0))
        qtbot.wait(5)
    curve = a.item.curve
    cached = panel.grab().toImage()  # painted through the cache (the head as an image)
    assert isinstance(curve, plots._HistoryCurve) and curve._head is not None
    image = curve._head[3]
    a.extend([6000.0], [0.5])  # one more point: only the tail is stroked again
    panel.grab()
    assert curve._head[3] is image
    a.item.setData(a.x[:-1], a.y[:-1])  # back to the picture above
    monkeypatch.setattr(plots._HistoryCurve, "BLOCK", 10**9)  # every curve stroked whole
    for series in (a, b):
        series.item.curve.update()
    whole = panel.grab().toImage()
    assert cached.size() == whole.size()
    assert cached == whole


def test_hidden_maths_panel_lays_out_only_when_shown(qtbot):
    from app.widgets.maths import MathsPanel

    panel = MathsPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.set_html("<p>step 1</p>")
    assert "step 1" in panel.document().toPlainText()
    panel.hide()
    panel.set_html("<p>step 2</p>")
    assert "step 2" not in panel.document().toPlainText()  # no rich-text layout while hidden
    panel.show()
    assert "step 2" in panel.document().toPlainText()
    panel.hide()
    panel.set_html("<p>step 3</p>")
    assert "step 3" in panel.toPlainText()  # reading the text lays out what is pending
