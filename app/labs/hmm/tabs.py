"""The HMM lab's tabs, one class each, mixed into :class:`~.lab.HMMLab`: filtering (the symbols
as a strip, the filtered and smoothed probabilities over the rolls, the true and Viterbi states as
bands), the Viterbi trellis and the learning by Baum-Welch (learned and true matrices, the
log-likelihood of each restart). Each builds its tab; the lab draws the snapshots on them."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ...widgets.plots import PlotPanel
from . import run
from .views import ROLL_SPAN, ROLL_Y0, FixedNote, MatrixView, StateBand


class FilterTab:
    """Filtering and smoothing roll by roll, with the true and the Viterbi states as bands."""

    def _build_filter_tab(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        self.strip = QtWidgets.QLabel()
        self.strip.setToolTip("The latest symbols, coloured by the true hidden state")
        self.strip.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.strip.setMinimumWidth(10)
        self.strip.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        lay.addWidget(self.strip)
        # One plot, so that it keeps most of a projector's height: the rolls as dots above the
        # probabilities (their face on the right axis), the true die as a band below them. No
        # legend box: the note under the plot names curves and colours (a box beside a narrow
        # plot would take its room, one over it would cover data).
        self.prob_panel = PlotPanel("P(loaded | rolls so far)", "roll t", "probability", legend=False)
        self.rolls_scatter = pg.ScatterPlotItem(pxMode=True)
        self.prob_panel.plot_item.addItem(self.rolls_scatter)
        self.prob_panel.plot_item.showAxis("right")
        self.filter_curve = self.prob_panel.curve("filtered")
        self.smooth_curve = self.prob_panel.curve("smoothed")
        self.prob_band = StateBand(-0.16, -0.04)  # the truth
        self.rolls_band = self.prob_band
        self.viterbi_band = StateBand(-0.32, -0.20)  # the Viterbi path, once the sequence has ended
        self.prob_panel.plot_item.addItem(self.prob_band)
        self.prob_panel.plot_item.addItem(self.viterbi_band)
        self.prob_panel.plot_item.setMouseEnabled(x=True, y=False)
        self.prob_panel.plot_item.enableAutoRange(False)
        self.prob_panel.plot_item.setYRange(-0.34, ROLL_Y0 + ROLL_SPAN + 0.06, padding=0)
        self.prob_panel.plot_item.getAxis("left").setTicks([[(0.0, "0"), (0.5, "0.5"), (1.0, "1")]])
        self.error_label = FixedNote(3)
        lay.addWidget(self.prob_panel, 1)
        lay.addWidget(self.error_label)
        return page


class TrellisTab:
    """The Viterbi trellis: a window of columns filled step by step, then the back-tracked path."""

    def _build_trellis_tab(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("Window starts at t ="))
        self.window_box = QtWidgets.QSpinBox()
        self.window_box.setRange(1, 1)
        self.window_box.setToolTip(f"The {run.WINDOW} trellis columns shown (after the back-track)")
        self.window_box.valueChanged.connect(lambda *_: self._draw_trellis(self.runner.current))
        row.addWidget(self.window_box)
        row.addStretch(1)
        lay.addLayout(row)
        self.trellis_panel = PlotPanel(f"Viterbi trellis, {run.WINDOW} steps", "step t", "state", legend=False)
        pi = self.trellis_panel.plot_item
        pi.setMouseEnabled(False, False)
        pi.hideButtons()
        self.trellis_edges = pg.PlotCurveItem(connect="pairs")
        self.trellis_path = pg.PlotCurveItem()
        self.trellis_nodes = pg.ScatterPlotItem(pxMode=True)
        for item in (self.trellis_edges, self.trellis_path, self.trellis_nodes):
            pi.addItem(item)
        self.trellis_symbols: list[pg.TextItem] = []
        for _ in range(run.WINDOW):
            t = pg.TextItem("", anchor=(0.5, 1.0))
            pi.addItem(t)
            self.trellis_symbols.append(t)
        self.trellis_label = FixedNote()
        lay.addWidget(self.trellis_panel, 1)
        lay.addWidget(self.trellis_label)
        return page


class LearningTab:
    """Baum-Welch: the learned matrices beside the true ones and the log-likelihood of every restart."""

    def _build_learn_tab(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        self.A_learned = MatrixView("A learned", "", "")
        self.A_true = MatrixView("A true", "", "")
        self.B_learned = MatrixView("B learned", "", "")
        self.B_true = MatrixView("B true", "", "")
        grid = QtWidgets.QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.A_learned, 0, 0)
        grid.addWidget(self.A_true, 0, 1)
        grid.addWidget(self.B_learned, 1, 0)
        grid.addWidget(self.B_true, 1, 1)
        self.ll_panel = PlotPanel("Log-likelihood per iteration", "iteration", "log P(x)", legend_corner="top")
        self.learn_label = FixedNote(4)
        self.learn_label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        lay.addLayout(grid, 2)
        lay.addWidget(self.ll_panel, 2)
        lay.addWidget(self.learn_label)
        return page
