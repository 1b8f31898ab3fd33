"""The trees lab's decision-tree method: the partition growing split by split, the split
scanner Q(R, t) with its best threshold, the tree diagram, the error against depth, and "You
split", where the class guesses a split before the tree takes its own. :class:`TreeMethod` is a
part of :class:`app.labs.trees.lab.TreesLab`: it builds the method's items and page and draws
its snapshots."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets.plots import PlotPanel
from . import run
from .tree_view import TreeDiagram

AXES = ("x₁", "x₂")


class TreeMethod:
    """Building and drawing the tree method and the "You split" guess (methods of the trees lab)."""

    def _add_tree_items(self, pi) -> None:
        """The splits so far, the region being split, its new split and the student's, on the points' plot ``pi``."""
        self.split_lines = pg.PlotCurveItem(connect="finite")
        self.split_lines.setZValue(6)
        self.region_box = pg.PlotCurveItem()
        self.region_box.setZValue(7)
        self.chosen_split = pg.PlotCurveItem()
        self.chosen_split.setZValue(8)
        self.guess_line = pg.PlotCurveItem()  # "You split": the student's threshold
        self.guess_line.setZValue(9)
        for item in (self.split_lines, self.region_box, self.chosen_split, self.guess_line):
            pi.addItem(item)

    def _build_you_split_row(self) -> None:
        """The "You split" button and the axis of the student's split, in one row of the controls."""
        self.you_button = QtWidgets.QPushButton("You split")
        self.you_button.setCheckable(True)
        self.you_button.setToolTip("Before every split, click a threshold on the split scanner (or on the points, "
                                   "along the chosen axis): the lab prices your split Q(R, t) next to the best one. "
                                   "Step lets the algorithm make its own split.")
        self.you_button.toggled.connect(self._you_split_toggled)
        self.you_axis = QtWidgets.QComboBox()
        self.you_axis.addItems(list(AXES))
        self.you_axis.setToolTip("The axis of your split: x₁ ≤ t (a vertical line) or x₂ ≤ t (a horizontal one)")
        self.you_axis.currentIndexChanged.connect(lambda _i: self._redraw_you_split())
        self.you_row = QtWidgets.QWidget()
        yl = QtWidgets.QHBoxLayout(self.you_row)
        yl.setContentsMargins(0, 0, 0, 0)
        yl.addWidget(self.you_button, 1)
        yl.addWidget(self.you_axis)

    def _build_tree_page(self) -> QtWidgets.QWidget:
        """The tree diagram beside the split scanner and the error against depth (tabs)."""
        self.tree_diagram = TreeDiagram()
        self.scan_panel = PlotPanel("Split scanner", "threshold t", "Q(R, t)", legend_corner="top")
        self.scan_x = self.scan_panel.curve("x₁ ≤ t")
        self.scan_y = self.scan_panel.curve("x₂ ≤ t")
        self.scan_min = pg.ScatterPlotItem()
        self.scan_min.setZValue(10)
        self.scan_panel.plot_item.addItem(self.scan_min)
        # "You split": the student's threshold and its cost, labelled next to the optimum
        self.scan_guess = pg.ScatterPlotItem()
        self.scan_guess.setZValue(11)
        self.scan_panel.plot_item.addItem(self.scan_guess)
        self.scan_labels = (pg.TextItem("best", anchor=(0.5, -0.3)), pg.TextItem("yours", anchor=(0.5, 1.3)))
        for t in self.scan_labels:
            t.setZValue(12)
            t.setVisible(False)
            self.scan_panel.plot_item.addItem(t, ignoreBounds=True)
        self.scan_panel.scene().sigMouseClicked.connect(self._scan_clicked)
        self.depth_panel = PlotPanel("Error vs depth", "max depth", "error", legend_corner="top")
        self.depth_train = self.depth_panel.curve("training")
        self.depth_test = self.depth_panel.curve("test")
        self.depth_marker = pg.InfiniteLine(angle=90, movable=False)
        self.depth_panel.plot_item.addItem(self.depth_marker, ignoreBounds=True)
        self.tree_tabs = QtWidgets.QTabWidget()
        self.tree_tabs.addTab(self.scan_panel, "Split scanner")
        self.tree_tabs.addTab(self.depth_panel, "Error vs depth")
        tree_page = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        tree_page.addWidget(self.tree_diagram)
        tree_page.addWidget(self.tree_tabs)
        tree_page.setSizes([450, 350])
        return tree_page

    def _render_tree(self, snap, prepared, history) -> None:
        e = snap.engine
        s = theme.current()
        if isinstance(prepared, run.TreeFrame) and prepared is not self._frame_key:
            self._frame_key = prepared
            self.decision.set_frame(prepared.frame)
            self.split_lines.setData(prepared.split_x, prepared.split_y,
                                     pen=pg.mkPen(s.foreground, width=max(1.0, s.line_width * 0.6)))
        up = snap.upcoming if self._you_split_active() else None
        if up is not None and self.runner.playing:
            self.runner.pause()  # "You split": the run waits at every region for the student's split
        if up is not None:
            region, guess = up, self._guess_for(snap)
        else:
            region, guess = (e if e.node is not None and not e.done else None), None
        xmin, xmax, ymin, ymax = snap.ctx.extent
        if region is not None and region.lower is not None:
            lo = np.clip(region.lower, [xmin, ymin], [xmax, ymax])
            hi = np.clip(region.upper, [xmin, ymin], [xmax, ymax])
            self.region_box.setData([lo[0], hi[0], hi[0], lo[0], lo[0]], [lo[1], lo[1], hi[1], hi[1], lo[1]],
                                    pen=pg.mkPen(theme.OKABE_ITO["orange"], width=s.line_width))
        else:
            self.region_box.setData([], [])
        orange = pg.mkPen(theme.OKABE_ITO["orange"], width=s.line_width * 1.8)
        if up is None:
            self._draw_split(self.chosen_split, (e.axis, e.threshold) if e.axis is not None else None, e,
                             snap.ctx.extent, orange)
            self.guess_line.setData([], [])
            self._render_scanner(e, s)
        else:
            # the algorithm's split stays hidden until the student has made one
            self._draw_split(self.chosen_split, (up.axis, up.threshold) if guess else None, up, snap.ctx.extent,
                             orange)
            mine = pg.mkPen(theme.OKABE_ITO["reddish_purple"], width=s.line_width * 1.8,
                            style=QtCore.Qt.PenStyle.DashLine)
            self._draw_split(self.guess_line, (guess["axis"], guess["threshold"]) if guess else None, up,
                             snap.ctx.extent, mine)
            self._render_you_scanner(snap, up, guess, s)
        current = up.node if up is not None else (e.node if not e.done else None)
        self.tree_diagram.set_tree(e.tree, current=current)
        self.depth_marker.setPos(e.tree_depth)
        self.depth_marker.setPen(pg.mkPen(s.foreground, width=1, style=QtCore.Qt.PenStyle.DotLine))
        self._update_inspect(snap)

    @staticmethod
    def _draw_split(item, split, region, extent, pen) -> None:
        """The line x_axis = t across the region's box (clipped to the extent)."""
        if split is None or region.lower is None:
            item.setData([], [])
            return
        axis, t = split
        xmin, xmax, ymin, ymax = extent
        lo = np.clip(region.lower, [xmin, ymin], [xmax, ymax])
        hi = np.clip(region.upper, [xmin, ymin], [xmax, ymax])
        if axis == 0:
            xs, ys = [t, t], [lo[1], hi[1]]
        else:
            xs, ys = [lo[0], hi[0]], [t, t]
        item.setData(xs, ys, pen=pen)

    def _render_scanner(self, e, s) -> None:
        """The split scanner of the region just split (the algorithm's view)."""
        self.scan_guess.setData([], [])
        for t in self.scan_labels:
            t.setVisible(False)
        if self._scan_fixed:
            self._scan_fixed = False
            self.scan_panel.plot_item.enableAutoRange()
        if e.curve_thresholds is not None:
            self.scan_x.set(e.curve_thresholds[0], e.curve_costs[0])
            self.scan_y.set(e.curve_thresholds[1], e.curve_costs[1])
            self.scan_min.setData([e.threshold], [e.cost], symbol="o", size=s.marker_size * 1.6,
                                  brush=pg.mkBrush(theme.OKABE_ITO["orange"]), pen=pg.mkPen(s.foreground))
            self.scan_panel.set_title(f"Best {AXES[e.axis]} ≤ {e.threshold:.2f}")
        elif e.step == 0:
            self.scan_x.clear()
            self.scan_y.clear()
            self.scan_min.setData([], [])
            self.scan_panel.set_title("Split scanner")

    def _render_you_scanner(self, snap, up, guess, s) -> None:
        """"You split": before the student's split an empty scanner spanning the region (click a
        threshold); after it, the region's cost curves with the student's Q(R, t) and the optimum."""
        pi = self.scan_panel.plot_item
        best_label, your_label = self.scan_labels
        if guess is None:
            self.scan_x.clear()
            self.scan_y.clear()
            self.scan_min.setData([], [])
            self.scan_guess.setData([], [])
            best_label.setVisible(False)
            your_label.setVisible(False)
            j = self.you_axis.currentIndex()
            xmin, xmax, ymin, ymax = snap.ctx.extent
            lo = max(float(up.lower[j]), (xmin, ymin)[j])
            hi = min(float(up.upper[j]), (xmax, ymax)[j])
            if not hi > lo:
                lo, hi = lo - 0.5, lo + 0.5
            self._scan_fixed = True
            pi.setXRange(lo, hi, padding=0.02)
            pi.setYRange(0.0, max(up.region_cost, 0.05) * 1.15, padding=0)
            self.scan_panel.set_title(f"Click a t ({AXES[j]})")
            return
        if self._scan_fixed:
            self._scan_fixed = False
            pi.enableAutoRange()
        self.scan_x.set(up.curve_thresholds[0], up.curve_costs[0])
        self.scan_y.set(up.curve_thresholds[1], up.curve_costs[1])
        self.scan_min.setData([up.threshold], [up.cost], symbol="o", size=s.marker_size * 1.6,
                              brush=pg.mkBrush(theme.OKABE_ITO["orange"]), pen=pg.mkPen(s.foreground))
        self.scan_guess.setData([guess["threshold"]], [guess["cost"]], symbol="d", size=s.marker_size * 1.8,
                                brush=pg.mkBrush(theme.OKABE_ITO["reddish_purple"]), pen=pg.mkPen(s.foreground))
        font = self.font()
        font.setPointSizeF(s.font_pt * 0.9)
        ts = np.concatenate([np.asarray(c, float) for c in up.curve_thresholds] + [[guess["threshold"]]])
        mid = 0.5 * (ts.min() + ts.max())
        for label, (x, y), text, dy in ((best_label, (up.threshold, up.cost), f"best {up.cost:.3f}", -0.3),
                                        (your_label, (guess["threshold"], guess["cost"]),
                                         f"yours {guess['cost']:.3f}", 1.3)):
            # labels open towards the middle of the plot, so they are never cut at its edges
            label.setAnchor((1.0 if x > mid else 0.0, dy))
            label.setText(text, color=s.foreground)
            label.setFont(font)
            label.setPos(float(x), float(y))
            label.setVisible(True)
        self.scan_panel.set_title("Yours vs best")

    # ------------------------------------------------------------------ "You split"
    def _you_split_active(self) -> bool:
        return self.you_split and self.method == "tree"

    def _you_split_toggled(self, on: bool) -> None:
        self.you_split = bool(on)
        if on and self.inspect_button.isChecked():
            self.inspect_button.setChecked(False)
        self.canvas.editable = not (on or self.inspect_button.isChecked())
        self.split_guess = None
        self._guess_key = None
        if on:
            self.runner.pause()
            self.tree_tabs.setCurrentWidget(self.scan_panel)
        self._redraw_you_split()

    def _redraw_you_split(self) -> None:
        snap = self.runner.current
        if snap is not None and snap.ctx.method == "tree":
            self._render_tree(snap, self.runner.prepared_for(snap), None)
            self.maths.set_html(self.maths_html(snap))

    def _scan_clicked(self, ev) -> None:
        if not self._you_split_active():
            return
        vb = self.scan_panel.plot_item.getViewBox()
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        self.guess_split(vb.mapSceneToView(ev.scenePos()).x())
        ev.accept()

    def guess_split(self, threshold: float, axis: int | None = None) -> dict | None:
        """"You split": price the split x_axis ≤ threshold of the region about to be split (the
        shown snapshot's ``upcoming``); None when no split follows. ``axis`` None: the axis
        chosen next to the button."""
        snap = self.runner.current
        if snap is None or snap.ctx.method != "tree" or snap.upcoming is None:
            return None
        if axis is not None:
            self.you_axis.blockSignals(True)
            self.you_axis.setCurrentIndex(int(axis))
            self.you_axis.blockSignals(False)
        self.split_guess = run.split_guess(snap.ctx, snap.upcoming, self.you_axis.currentIndex(), threshold)
        self._guess_key = (id(snap.ctx), snap.step)
        self._redraw_you_split()
        return self.split_guess

    def _guess_for(self, snap) -> dict | None:
        """The student's split if it belongs to the region ``snap`` is about to split."""
        if self.split_guess is not None and self._guess_key == (id(snap.ctx), snap.step):
            return self.split_guess
        return None
