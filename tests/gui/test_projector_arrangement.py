"""Projector mode on a small screen for the labs whose main plot is a scatter with a long legend
(classifiers, trees): the curves stand in a column beside the scatter, the parameters fold
away until F2 opens them, and normal mode puts everything back as it was. Also the check
that sees a plot pushed out of the window, and the cross-validation page that fits."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtWidgets

import picture_checks as checks

H, V = QtCore.Qt.Orientation.Horizontal, QtCore.Qt.Orientation.Vertical


def _main_splitter(lab) -> QtWidgets.QSplitter:
    parent = lab.main_plot().parentWidget()
    while parent is not None:
        if isinstance(parent, QtWidgets.QSplitter) and parent.property("sml_side_saved") is not None:
            return parent
        if isinstance(parent, QtWidgets.QSplitter) and parent.orientation() == V:
            return parent
        parent = parent.parentWidget()
    raise AssertionError("no splitter holds the main plot")


def _shown(lab) -> int:
    """Width the parameters are given (a folded pane keeps its old geometry at size 0)."""
    return lab.splitter.sizes()[0]


def _started(qtbot, make_window, lab_id, size):
    window = make_window(lab_ids=[lab_id])
    window.resize(*size)
    lab = window.show_lab(lab_id)
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=30_000)
    lab.run_to(5)
    qtbot.waitUntil(lambda: lab.runner.settled, timeout=30_000)
    return window, lab


@pytest.mark.parametrize("lab_id", ["classifiers", "trees"])
def test_side_by_side_in_projector_and_back(qtbot, make_window, lab_id):
    window, lab = _started(qtbot, make_window, lab_id, (1024, 728))
    split = _main_splitter(lab)
    normal_sizes = split.sizes()
    assert split.orientation() == V and _shown(lab) > 100

    window.set_projector(True)  # F5 at run time
    qtbot.waitUntil(lambda: _shown(lab) == 0, timeout=5_000)
    assert split.orientation() == H
    plot = lab.main_plot()
    # the scatter keeps the whole height of its pane and most of the row's width
    assert plot.height() > 0.6 * window.height()
    assert plot.width() >= 0.5 * split.width()
    rows = [w for w, _sizes in split.property("sml_side_saved")[1]]  # the rows of curves, now columns
    assert rows and all(w.orientation() == V for w in rows)
    assert checks.main_plot_room(lab, window) == []

    # F2 opens the folded parameters (the plots yield), F2 again folds them
    window.toggle_controls(False)
    qtbot.waitUntil(lambda: _shown(lab) > 100, timeout=5_000)
    assert window.controls_action.isChecked()
    window.toggle_controls(False)
    qtbot.waitUntil(lambda: _shown(lab) == 0, timeout=5_000)

    window.set_projector(False)
    qtbot.waitUntil(lambda: _shown(lab) > 100, timeout=5_000)
    assert split.orientation() == V and all(w.orientation() == H for w in rows)
    assert abs(split.sizes()[0] - normal_sizes[0]) <= 0.05 * sum(normal_sizes)


def test_a_wide_screen_keeps_the_parameters(qtbot, make_window):
    window, lab = _started(qtbot, make_window, "classifiers", (1600, 1000))
    window.set_projector(True)
    qtbot.wait(50)
    assert not lab.controls_folded_by_projector()
    assert _shown(lab) > 100


def test_labs_without_the_arrangement_keep_their_parameters(qtbot, make_window):
    window, lab = _started(qtbot, make_window, "mixtures", (1024, 728))
    window.set_projector(True)
    qtbot.wait(50)
    assert not lab.controls_folded_by_projector() and _shown(lab) > 100


def test_the_check_sees_a_plot_pushed_out_of_the_window(qtbot):
    """A plot whose least height is more than the window holds is drawn past its bottom edge."""
    import pyqtgraph as pg

    window = QtWidgets.QWidget()
    qtbot.addWidget(window)
    lay = QtWidgets.QVBoxLayout(window)
    top, bottom = pg.PlotWidget(title="top"), pg.PlotWidget(title="bottom")
    for plot in (top, bottom):
        plot.setMinimumHeight(300)
        lay.addWidget(plot)
    window.setFixedSize(500, 400)  # the two plots cannot shrink to fit: the bottom one runs past
    window.show()
    qtbot.waitUntil(lambda: window.isVisible())
    qtbot.wait(20)
    found = checks.plots_cut_by_window(window, window)
    assert len(found) == 1 and "'bottom'" in found[0], found
    window.setFixedSize(500, 700)
    qtbot.waitUntil(lambda: window.height() == 700)
    qtbot.wait(20)
    assert checks.plots_cut_by_window(window, window) == []


def test_cross_validation_page_fits_without_scrolling(qtbot, make_window):
    """The grid search's page at 1280 × 800 in projector mode: its summary under the grid is
    on screen, not scrolled away by the wrapped text's preferred height."""
    window, lab = _started(qtbot, make_window, "classifiers", (1280, 760))
    window.set_projector(True)
    lab.tabs.setCurrentIndex(1)
    view = lab.cv_view
    qtbot.wait(50)
    area = view.parentWidget().parentWidget()
    assert isinstance(area, QtWidgets.QScrollArea)
    qtbot.waitUntil(lambda: view.height() <= area.viewport().height(), timeout=5_000)
    assert not area.verticalScrollBar().isVisible()
    summary = view.summary.geometry()
    assert summary.bottom() <= area.viewport().height()


def _legend_beside(qtbot, hold: bool):
    import numpy as np
    import pyqtgraph as pg

    from app.widgets.plots import outside_legend

    box = QtWidgets.QWidget()  # the checks look at the plots a widget holds
    qtbot.addWidget(box)
    plot = pg.PlotWidget()
    QtWidgets.QVBoxLayout(box).addWidget(plot)
    legend = outside_legend(plot.getPlotItem(), "right")
    for i, name in enumerate(("first", "second", "third")):
        curve = plot.plot(np.arange(5), np.arange(5) * i, pen=pg.intColor(i))
        legend.addItem(curve, name)
    if not hold:  # stretched over the whole row, as a legend placed without its policy would be
        legend.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Expanding)
        plot.getPlotItem().layout.setAlignment(legend, QtCore.Qt.AlignmentFlag(0))
    box.resize(500, 700)
    box.show()
    qtbot.waitUntil(lambda: plot.isVisible())
    qtbot.wait(50)
    return box, plot, legend


def test_a_legend_beside_the_data_keeps_its_labels_level_with_their_keys(qtbot):
    """A legend in the column beside a tall plot holds its own height at the top; stretched to
    the plot's height its labels would float above their keys, and the check sees that."""
    box, plot, legend = _legend_beside(qtbot, hold=True)
    assert checks.legend_labels_off_their_keys(box) == []
    assert legend.sceneBoundingRect().height() < 0.5 * plot.height()
    box, plot, legend = _legend_beside(qtbot, hold=False)
    assert legend.sceneBoundingRect().height() > 0.5 * plot.height()
    assert len(checks.legend_labels_off_their_keys(box)) >= 2
