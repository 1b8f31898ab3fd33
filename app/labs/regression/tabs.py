"""The regression lab's tabs, one class each, mixed into :class:`~.lab.RegressionLab`: the fit (the
points, the curve and its residuals, the objective, the coefficients), the ridge and lasso paths
against λ, the constraint picture (ℓ1 diamond, ℓ2 disc) and bias against variance, with the sweep
that feeds it. Each builds its tab (and styles what it draws in its own colours); the lab draws
the snapshots on them.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets import plot_style
from ...widgets.labels import NoteLabel
from ...widgets.plots import PlotPanel
from ...widgets.point_canvas import CanvasToolbar
from . import run

#: parameters the bias–variance sweep depends on (besides the training points)
SWEEP_PARAMS = ("truth", "noise", "basis", "size", "method", "log_alpha", "bv_axis", "folds")
ORANGE, BLUE, GREEN, VERMILLION, PURPLE, SKY, BLACK = (theme.OKABE_ITO[k] for k in (
    "orange", "blue", "bluish_green", "vermillion", "reddish_purple", "sky_blue", "black"))


def themed_pen(color, width=None, style=QtCore.Qt.PenStyle.SolidLine, alpha=None):
    """A pen of ``color`` in the current style: ``width`` in style units (the style's line width if None)."""
    s = theme.current()
    c = pg.mkColor(color)
    if alpha is not None:
        c.setAlphaF(alpha)
    pen = pg.mkPen(c, width=s.line_width if width is None else width * s.scale)
    pen.setStyle(style)
    return pen


class FitTab:
    """The points and the fitted curve with its residuals, the objective against the step and the
    coefficients w_k."""

    def _build_fit_tab(self) -> QtWidgets.QWidget:
        self.make_canvas()
        pi = self.canvas.plot_item
        self.truth_item = pg.PlotDataItem([], [])
        self.fit_item = pg.PlotDataItem([], [])
        self.residual_item = pg.PlotDataItem([], [], connect="pairs")
        for item in (self.truth_item, self.residual_item, self.fit_item):
            pi.addItem(item, ignoreBounds=True)  # the view follows the points, not a wild curve
        self.fit_item.setZValue(5)
        # a row of three short entries above the data (fixed: re-flowing to one column
        # misplaces pyqtgraph's legend entries)
        top = pi.getAxis("top")
        pi.layout.removeItem(top)
        top.hide()
        self.legend = pg.LegendItem(offset=None, colCount=3)
        pi.layout.addItem(self.legend, 1, 1)
        pi.legend = self.legend
        self._truth_keyed = None
        self._show_truth_key(True)
        self.toolbar = CanvasToolbar(self.canvas, columns=2,
                                     hint="Click the plot to add a point, drag one to move it, Ctrl+click to remove "
                                          "it; hollow points are test points.")
        self._toolbar_slot.addWidget(self.toolbar)
        self._toolbar_slot.addWidget(self.toolbar.hint)
        self.loss_panel = PlotPanel("Objective J(w)", "step", "J(w)", legend=False)
        self.loss_curve = self.loss_panel.curve("objective")
        self.coef_panel = PlotPanel("w_k (× = 0)", "k", "w_k", legend=False)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.7)
        self.coef_panel.plot_item.addItem(self.bars)
        self.zero_marks = pg.ScatterPlotItem()
        self.coef_panel.plot_item.addItem(self.zero_marks)
        bottom = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        bottom.addWidget(self.loss_panel)
        bottom.addWidget(self.coef_panel)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.canvas)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([700, 300])
        split.setChildrenCollapsible(False)
        self.fit_split = split
        self.canvas.pointsChanged.connect(self._points_changed)
        plot_style.style_plot(self.canvas, theme.current(), title="Fit")
        return split


class PathsTab:
    """Ridge and lasso: the coefficients and the training and test errors against log₁₀ λ."""

    def _build_paths_tab(self) -> QtWidgets.QWidget:
        grid = QtWidgets.QWidget()
        lay = QtWidgets.QGridLayout(grid)
        lay.setContentsMargins(0, 0, 0, 0)
        self.path_panels, self.error_panels, self.lambda_lines = {}, {}, []
        for col, name in enumerate(("ridge", "lasso")):
            coef = PlotPanel(f"{name.capitalize()} w_k", "log₁₀ λ", "w_k", legend=False)
            err = PlotPanel(f"{name.capitalize()} MSE", "log₁₀ λ", "MSE", log_y=True)
            err.curve("train")
            err.curve("test")
            for panel in (coef, err):
                line = pg.InfiniteLine(angle=90, movable=False)
                panel.plot_item.addItem(line, ignoreBounds=True)
                self.lambda_lines.append(line)
            self.path_panels[name], self.error_panels[name] = coef, err
            lay.addWidget(coef, 0, col)
            lay.addWidget(err, 1, col)
        lay.setRowStretch(0, 3)
        lay.setRowStretch(1, 2)
        return grid


class ConstraintTab:
    """The error contours around the least-squares ŵ against the ℓ1 diamond and the ℓ2 disc, in
    the plane of two coefficients."""

    def _build_constraint_tab(self) -> QtWidgets.QWidget:
        self.constraint_panel = PlotPanel("Error contours and the budget ‖w‖ ≤ t", "w_A", "w_B")
        pi = self.constraint_panel.plot_item
        pi.setAspectLocked(True)
        self.contour_items = [pg.PlotDataItem([], []) for _ in range(4)]
        for item in self.contour_items:
            pi.addItem(item)
        self.diamond_item = pg.PlotDataItem([], [])
        self.disc_item = pg.PlotDataItem([], [])
        self.touch_l1 = pg.PlotDataItem([], [])
        self.touch_l2 = pg.PlotDataItem([], [])
        self.ls_point = pg.ScatterPlotItem()
        self.l1_point = pg.ScatterPlotItem()
        self.l2_point = pg.ScatterPlotItem()
        for item in (self.diamond_item, self.disc_item, self.touch_l1, self.touch_l2, self.ls_point, self.l1_point,
                     self.l2_point):
            pi.addItem(item)
        legend = self.constraint_panel.legend
        legend.addItem(self.diamond_item, "ℓ1 diamond")
        legend.addItem(self.disc_item, "ℓ2 disc")
        legend.addItem(self.ls_point, "least squares ŵ")
        legend.addItem(self.l1_point, "lasso solution")
        legend.addItem(self.l2_point, "ridge solution")
        legend.setVisible(True)
        self.constraint_note = NoteLabel(lines=3, tight=True)
        self.constraint_note.setToolTip("Contours of ‖y_c − w_A φ_A − w_B φ_B‖² (centred data) around the "
                                        "least-squares ŵ; the solutions are "
                                        "where a contour first meets the budget region")
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.constraint_panel, 1)
        lay.addWidget(self.constraint_note)
        return page

    def _style_constraint(self, s: theme.Style) -> None:
        fg = s.foreground
        for item in self.contour_items:
            item.setPen(themed_pen(SKY, 1.0))
        self.touch_l1.setPen(themed_pen(GREEN, 1.0, QtCore.Qt.PenStyle.DashLine))
        self.touch_l2.setPen(themed_pen(PURPLE, 1.0, QtCore.Qt.PenStyle.DashLine))
        self.diamond_item.setPen(themed_pen(GREEN, 2.0))
        self.disc_item.setPen(themed_pen(PURPLE, 2.0))
        size = s.marker_size * 1.1
        self.ls_point.setData(self.ls_point.data["x"], self.ls_point.data["y"], symbol="+", size=size * 1.3,
                              pen=themed_pen(fg, 2.0), brush=pg.mkBrush(fg))
        self.l1_point.setData(self.l1_point.data["x"], self.l1_point.data["y"], symbol="o", size=size,
                              pen=themed_pen(fg, 1.0), brush=pg.mkBrush(GREEN))
        self.l2_point.setData(self.l2_point.data["x"], self.l2_point.data["y"], symbol="s", size=size,
                              pen=themed_pen(fg, 1.0), brush=pg.mkBrush(PURPLE))


    def _show_truth_key(self, on: bool) -> None:
        """The legend names the truth f only when one is drawn (not for the user's own points)."""
        if on == self._truth_keyed:
            return
        self._truth_keyed = on
        self.legend.clear()
        self.legend.addItem(self.fit_item, "fit ŷ")
        if on:
            self.legend.addItem(self.truth_item, "truth f")
        self.legend.addItem(self.residual_item, "residuals")
        plot_style.style_plot(self.canvas, theme.current())


class BiasTab:
    """Bias against variance: fifty fits on fresh training sets and the errors against λ, computed
    by a side task (the sweep) whenever its parameters or the points change."""

    def _build_bias_tab(self) -> QtWidgets.QWidget:
        self.sets_panel = PlotPanel("50 fits", "x", "y")
        pi = self.sets_panel.plot_item
        self.sets_item = pg.PlotDataItem([], [], connect="finite")
        self.mean_item = pg.PlotDataItem([], [])
        self.bv_truth_item = pg.PlotDataItem([], [])
        for item in (self.sets_item, self.bv_truth_item, self.mean_item):
            pi.addItem(item)
        # fifty curves end to end: thinning them as one curve would draw steps between them
        self.sets_item.setDownsampling(ds=1, auto=False)
        self.sets_item.setClipToView(False)
        legend = self.sets_panel.legend
        legend.addItem(self.sets_item, "one training set")
        legend.addItem(self.mean_item, "mean fit")
        legend.addItem(self.bv_truth_item, "truth f(x)")
        legend.setVisible(True)
        self.bv_panel = PlotPanel("Error vs λ", "log₁₀ λ", "error", log_y=True)
        for name in ("bias²", "variance", "test error", "CV error"):
            self.bv_panel.curve(name)
        self.chosen_line = pg.InfiniteLine(angle=90, movable=False, label="chosen", labelOpts={"position": 0.92})
        self.cv_line = pg.InfiniteLine(angle=90, movable=False, label="CV", labelOpts={"position": 0.78})
        for line in (self.chosen_line, self.cv_line):
            self.bv_panel.plot_item.addItem(line, ignoreBounds=True)
        self.best_mark = pg.ScatterPlotItem()
        self.bv_panel.plot_item.addItem(self.best_mark)
        self.bv_panel.legend.addItem(self.best_mark, "lowest test error")
        self.sweep_label = NoteLabel(lines=2, tight=True)
        self.sweep_progress = QtWidgets.QProgressBar()
        self.sweep_progress.setRange(0, 100)
        self.sweep_progress.setMaximumHeight(16)
        self.sweep_progress.setTextVisible(False)
        plots = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        plots.addWidget(self.sets_panel)
        plots.addWidget(self.bv_panel)
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(plots, 1)
        lay.addWidget(self.sweep_progress)
        lay.addWidget(self.sweep_label)
        return page

    def _style_sweep(self, s: theme.Style) -> None:
        fg = s.foreground
        self.sets_item.setPen(themed_pen(BLUE, 1.0, alpha=0.25))
        self.mean_item.setPen(themed_pen(ORANGE, 2.5))
        self.bv_truth_item.setPen(themed_pen(fg, 1.5, QtCore.Qt.PenStyle.DashLine))
        self.chosen_line.setPen(themed_pen(fg, 1.5))
        self.best_mark.setData(self.best_mark.data["x"], self.best_mark.data["y"], symbol="star",
                               size=s.marker_size * 1.6, pen=themed_pen(fg, 1.0), brush=pg.mkBrush(GREEN))
        self.cv_line.setPen(themed_pen(VERMILLION, 1.5, QtCore.Qt.PenStyle.DashLine))
        for line in (self.chosen_line, self.cv_line):
            line.label.setColor(fg)
            font = line.label.textItem.font()
            font.setPointSizeF(s.legend_pt)
            line.label.setFont(font)

    def _start_sweep(self, params: dict, x_train, y_train) -> None:
        if not self.has_truth():
            self.task("sweep").cancel()
            self._sweep_key = None
            self.sweep = None
            self._draw_sweep()
            self.sweep_progress.setVisible(False)
            self.sweep_label.setText("Bias and variance are measured against a known truth f: these points have "
                                     "none. Choose a truth f(x) to sample points from it.")
            return
        key = (tuple(params[k] for k in SWEEP_PARAMS), x_train.tobytes(), y_train.tobytes(), self.seed)
        if key == self._sweep_key and (self.sweep is not None or self.task("sweep").busy):
            return
        self._sweep_key = key
        self.sweep = None
        self._draw_sweep()
        self.sweep_progress.setValue(0)
        self.sweep_progress.setVisible(True)
        self.sweep_label.setText("computing 50 training sets …")
        task = self.task("sweep", on_done=self._sweep_done, on_error=self._sweep_failed,
                         on_progress=lambda f, _t: self.sweep_progress.setValue(int(100 * f)))
        task.start(run.bias_variance_sweep, x_train, y_train, truth=params["truth"], noise=params["noise"],
                   basis=params["basis"], size=params["size"], method=params["method"],
                   log_alpha=params["log_alpha"], axis=params["bv_axis"], folds=params["folds"], seed=self.seed)

    def _sweep_done(self, result) -> None:
        self.sweep = result
        self.sweep_progress.setValue(100)
        self.sweep_progress.setVisible(False)
        self._draw_sweep()

    def _sweep_failed(self, message: str) -> None:
        self.sweep = None
        self._sweep_key = None
        self.sweep_label.setText(f"bias–variance sweep: {message}")
        self._draw_sweep()
