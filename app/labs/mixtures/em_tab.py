"""The mixtures lab's EM tab, mixed into :class:`~.lab.MixturesLab`: the points coloured by their
responsibilities with the 1σ and 2σ ellipses of every component, the density's contours, the
true mixture's ellipses dashed, the rings and the pie of a selected point, and the
log-likelihood (with the lower bound F when E- and M-steps are apart). :class:`EMTab` builds
the tab and draws its items; the lab's ``render`` hands it each frame.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme
from ...widgets import plot_style
from ...widgets.plots import PlotPanel, outside_legend
from ...widgets.point_canvas import CanvasToolbar
from ...widgets.shapes import ellipse_xy

MAX_K = 8  # the most components (K's maximum): their ellipse items are made once for all


def pie_symbols(fractions) -> list[QtGui.QPainterPath]:
    """One pie slice per fraction (in a unit box, for scatter symbols): a point's responsibilities as a pie."""
    paths, start = [], 90.0
    for f in fractions:
        span = 360.0 * float(f)
        path = QtGui.QPainterPath()
        path.moveTo(0.0, 0.0)
        path.arcTo(QtCore.QRectF(-0.5, -0.5, 1.0, 1.0), start, span)
        path.closeSubpath()
        paths.append(path)
        start += span
    return paths


class EMTab:
    """The EM plot and the log-likelihood below it."""

    def _build_em_tab(self) -> QtWidgets.QWidget:
        self.make_canvas()
        plot_style.set_axis_labels(self.canvas, "x₁", "x₂")
        pi = self.canvas.plot_item
        for item in (*self.canvas.scatter_items(), self.canvas._test_pos_item, self.canvas._test_neg_item):
            item.setVisible(False)  # the lab draws the points itself, coloured by responsibility
        self.points_item = pg.ScatterPlotItem()
        self.points_item.setZValue(10)
        self.density_item = pg.PlotCurveItem(connect="finite")
        self.density_item.setZValue(2)
        self.truth_item = pg.PlotCurveItem(connect="finite")
        self.truth_item.setZValue(15)
        self.means_item = pg.ScatterPlotItem()
        self.means_item.setZValue(30)
        self.clicked_item = pg.ScatterPlotItem()
        self.clicked_item.setZValue(31)
        self.ring_item = pg.ScatterPlotItem()
        self.ring_item.setZValue(32)
        self.pie_item = pg.ScatterPlotItem()  # the selected point's responsibilities
        self.pie_item.setZValue(33)
        for item in (self.points_item, self.density_item, self.truth_item, self.means_item, self.clicked_item,
                     self.ring_item, self.pie_item):
            pi.addItem(item)
        self.ellipse_items: list[tuple[pg.PlotCurveItem, pg.PlotCurveItem]] = []
        for _ in range(MAX_K):
            one, two = pg.PlotCurveItem(connect="finite"), pg.PlotCurveItem(connect="finite")
            one.setZValue(20)
            two.setZValue(19)
            pi.addItem(one)
            pi.addItem(two)
            self.ellipse_items.append((one, two))
        # at the right: the plot keeps equal axis scales, so a wide plot has room to spare there
        self.legend = outside_legend(pi, "right")
        self._legend_samples = {name: pg.PlotDataItem([], []) for name in
                                ("1σ ellipse", "2σ ellipse", "truth", "density")}
        for name, item in self._legend_samples.items():
            self.legend.addItem(item, name)
        self.truth_handles_item = None
        self.toolbar = CanvasToolbar(self.canvas, columns=2,
                                     hint="Mouse 'edit points': click adds a point, drag moves it, Ctrl+click erases")
        self.canvas.scene().sigMouseClicked.connect(self._scene_clicked)

        self.ll_panel = PlotPanel("Log-likelihood", "step", "ℓ", legend_corner="top")
        self.ll_curve = self.ll_panel.curve("ℓ(θ)")
        self.bound_curve = None  # created with the first half step (then the legend names both)
        self.ll_marker = pg.TextItem("", anchor=(1, 0))
        self.ll_panel.plot_item.addItem(self.ll_marker, ignoreBounds=True)

        self._toolbar_slot.addWidget(self.toolbar)
        self._toolbar_slot.addWidget(self.toolbar.hint)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.canvas)
        split.addWidget(self.ll_panel)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([560, 200])
        split.setCollapsible(0, False)
        self.em_split = split
        return split

    def _append_curves(self, history) -> None:
        if history.rewound:
            self.ll_panel.clear_series()
            self.ll_marker.setText("")
        added = list(history.added)
        if not added:
            return
        # ℓ(θ) of every frame: it rises at an M-step and stays at an E-step (θ unchanged), and
        # stays flat while k-means goes on after EM has converged: the axis reaches the step on screen
        self.ll_curve.extend([h.step for h in added], [h.em.log_likelihood for h in added])
        halves = any(h.em.half in ("E", "M") for h in added)
        if halves and self.bound_curve is None:
            self.bound_curve = self.ll_panel.curve("lower bound F(a, θ)")
        if self.bound_curve is not None:
            self.bound_curve.item.setVisible(halves or bool(self.run_params.get("half_steps")))
            self.ll_panel.show_legend(self.bound_curve.item.isVisible())
            if halves:
                self.bound_curve.extend([h.step for h in added], [h.em.lower_bound for h in added])
        last = added[-1]
        if last.diverged:
            self.ll_marker.setText("ℓ → +∞")
            self.ll_marker.setColor(theme.OKABE_ITO["vermillion"])
            self.ll_marker.setPos(last.step, last.em.log_likelihood)

    def _style_ellipses(self, s) -> None:
        if self._ellipse_style == s:
            return
        self._ellipse_style = s
        # a halo in the background colour keeps an ellipse visible over points of its own colour
        halo = pg.mkPen(s.background, width=s.line_width * 2.6)
        for j, (one, two) in enumerate(self.ellipse_items):
            colour = theme.CATEGORICAL[j % 8]
            one.setPen(pg.mkPen(colour, width=s.line_width * 1.1))
            one.setShadowPen(halo)
            two.setPen(pg.mkPen(colour, width=max(1.0, s.line_width * 0.7), style=QtCore.Qt.PenStyle.DashLine))
            two.setShadowPen(pg.mkPen(s.background, width=s.line_width * 1.8))

    def _draw_truth(self) -> None:
        t = self.truth
        if t is None or not self.form.value("show_truth"):
            self.truth_item.setData([], [])
            return
        xs, ys = [], []
        for m, S in zip(t.means, t.covariances):
            x, y = ellipse_xy(m, S)
            xs += [x, [np.nan]]
            ys += [y, [np.nan]]
        self.truth_item.setData(np.concatenate(xs), np.concatenate(ys))

    def _draw_rings(self) -> None:
        s = theme.current()
        X = self._ctx.X if self._ctx is not None else self.canvas.X
        pts, pens = [], []
        if self._ctx is not None and self._ctx.collapse and 0 <= self._ctx.lone < len(X):
            pts.append(X[self._ctx.lone])
            pens.append(pg.mkPen(theme.OKABE_ITO["vermillion"], width=3 * s.scale))
        if 0 <= self.selected < len(X):
            pts.append(X[self.selected])
            pens.append(pg.mkPen(theme.OKABE_ITO["bluish_green"], width=3 * s.scale))
        if pts:
            self.ring_item.setData(pos=np.array(pts), symbol="o", size=s.marker_size * 2.6, pen=pens,
                                   brush=pg.mkBrush(None))
        else:
            self.ring_item.setData([], [])
        self._draw_pie()

    def _draw_pie(self) -> None:
        """A pie of a_i1 … a_iK on the selected point (the shares of the components)."""
        frame = self.runner.current
        if frame is None or not 0 <= self.selected < len(frame.ctx.X):
            self.pie_item.setData([], [])
            return
        s = theme.current()
        a = np.asarray(frame.em.responsibilities[self.selected])
        keep = np.flatnonzero(a > 1e-3)
        pos = np.repeat(frame.ctx.X[self.selected][None], len(keep), axis=0)
        self.pie_item.setData(pos=pos, symbol=pie_symbols(a[keep]), size=s.marker_size * 2.2,
                              brush=[pg.mkBrush(theme.CATEGORICAL[j % 8]) for j in keep],
                              pen=pg.mkPen(s.background, width=s.scale))

    def _brushes(self, colours: np.ndarray, alpha: int = 255) -> list:
        """One shared QBrush per distinct colour (pyqtgraph then renders each symbol once)."""
        cache = self._brush_cache
        out = []
        for rgb in map(tuple, colours.tolist()):
            brush = cache.get((rgb, alpha))
            if brush is None:
                brush = cache[(rgb, alpha)] = QtGui.QBrush(QtGui.QColor(*rgb, alpha))
            out.append(brush)
        if len(cache) > 4096:
            cache.clear()
        return out
