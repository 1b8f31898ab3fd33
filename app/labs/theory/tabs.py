"""The learning-theory lab's tabs, one mixin each, mixed into :class:`~.lab.TheoryLab`: each builds its tab's
widgets and draws its snapshots on them."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from smlengine import learning_theory as lt

from ... import style as theme
from ...widgets.pages import splitter
from ...widgets.plots import PlotPanel
from . import run

STRIP_NAMES = ("left", "right", "bottom", "top")
STRIP_COLOR = theme.OKABE_ITO["orange"]
CELL_COLORS = {0: (215, 215, 215, 255), 1: (0, 158, 115, 255), -1: (213, 94, 0, 255)}  # untried, realised, not
BOUND_CURVES = (("mean err", theme.CATEGORICAL[2], 0), ("(1 − δ) quantile", theme.OKABE_ITO["black"], 0),
                ("finite |H|", theme.CATEGORICAL[0], 1), ("VC, d = 4", theme.CATEGORICAL[1], 2),
                ("rectangle", theme.CATEGORICAL[3], 3))


def outline(rect) -> tuple[list, list]:
    """A rectangle (x0, x1, y0, y1) as a closed polyline."""
    if rect is None:
        return [], []
    x0, x1, y0, y1 = rect
    return [x0, x1, x1, x0, x0], [y0, y0, y1, y1, y0]


def histogram_steps(edges: np.ndarray, heights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.repeat(edges, 2), np.concatenate([[0.0], np.repeat(heights, 2), [0.0]])


class GameTab:
    """The unit square with the hidden R, the samples, R′ and the four strips of R \\ R′; the trials' errors."""

    def _build_game_tab(self) -> QtWidgets.QWidget:
        self.square = PlotPanel("The rectangle game", "x₁", "x₂", legend=False)
        self.square.setToolTip("Uniform samples on the unit square: ● inside the hidden rectangle R (dashed), "
                               "✕ outside; R′ (solid) is the tightest rectangle around the ● and errs in the "
                               "shaded strips of R around it")
        pi = self.square.plot_item
        pi.setAspectLocked(True)
        pi.setXRange(-0.12, 1.12, padding=0)
        pi.setYRange(-0.12, 1.12, padding=0)
        pi.setMouseEnabled(False, False)
        self.domain_item = pg.PlotCurveItem(*outline((0.0, 1.0, 0.0, 1.0)))
        self.domain_item.setZValue(-10)
        pi.addItem(self.domain_item)
        self.strip_items = []
        self.strip_texts = []
        # each strip's area is written outside R, beside its strip (a thin strip has no room inside)
        for anchor in ((1, 0.5), (0, 0.5), (0.5, 0), (0.5, 1)):
            item = QtWidgets.QGraphicsRectItem()
            item.setZValue(-5)
            pi.addItem(item)
            self.strip_items.append(item)
            text = pg.TextItem("", anchor=anchor)
            pi.addItem(text, ignoreBounds=True)
            self.strip_texts.append(text)
        self.target_item = pg.PlotCurveItem()
        self.learned_item = pg.PlotCurveItem()
        self.inside_item = pg.ScatterPlotItem(symbol="o")
        self.outside_item = pg.ScatterPlotItem(symbol="x")
        for item in (self.target_item, self.learned_item, self.inside_item, self.outside_item):
            pi.addItem(item)
        self.hist_panel = PlotPanel("Trial errors", "err(R′)", "trials", legend=False)
        self.hist_curve = pg.PlotCurveItem(fillLevel=0)
        self.hist_panel.addItem(self.hist_curve)
        self.eps_line = pg.InfiniteLine(angle=90, label="ε", labelOpts={"position": 0.85})
        self.hist_panel.addItem(self.eps_line)
        self.frac_panel = PlotPanel("P(err > ε)", "trial", "fraction", legend=False)
        self.frac_curve = self.frac_panel.curve("fraction over ε", dash=0)
        self.delta_line = pg.InfiniteLine(angle=0, label="δ", labelOpts={"position": 0.92})
        self.frac_panel.addItem(self.delta_line)
        # the course's bound on P(err > ε) at this m, where it says something (below 1)
        self.chance_line = pg.InfiniteLine(angle=0, label="4e^(−εm/4)", labelOpts={"position": 0.3})
        self.frac_panel.addItem(self.chance_line)
        self.frac_panel.plot_item.setYRange(0, 1, padding=0.02)
        self.frac_panel.plot_item.enableAutoRange(y=False)
        below = splitter(False, self.hist_panel, self.frac_panel, sizes=[300, 300], stretch=[1, 1])
        return splitter(True, self.square, below, sizes=[420, 220], stretch=[2, 1])

    def _clear_game(self) -> None:
        for item in (self.target_item, self.learned_item, self.inside_item, self.outside_item, self.hist_curve):
            item.setData([], [])
        for item, text in zip(self.strip_items, self.strip_texts):
            item.setRect(QtCore.QRectF())
            text.setText("")
        self.frac_panel.clear_series()

    def _render_game(self, s: run.TheoryGameSnapshot, history) -> None:
        style = theme.current()
        self.target_item.setData(*outline(s.target))
        self.learned_item.setData(*outline(s.rectangle))
        inside = s.y.astype(bool)
        size = 0.9 * style.marker_size
        self.inside_item.setData(s.X[inside, 0], s.X[inside, 1], size=size, brush=pg.mkBrush(theme.POS_COLOR),
                                 pen=None)
        self.outside_item.setData(s.X[~inside, 0], s.X[~inside, 1], size=size, brush=pg.mkBrush(theme.NEG_COLOR),
                                  pen=None)
        r0, r1, q0, q1 = s.target
        gap = 0.015
        places = ((r0 - gap, None), (r1 + gap, None), (None, q0 - gap), (None, q1 + gap))
        for item, text, rect, area, (px, py) in zip(self.strip_items, self.strip_texts, s.strips, s.strip_areas,
                                                    places):
            x0, x1, y0, y1 = rect
            item.setRect(QtCore.QRectF(x0, y0, x1 - x0, y1 - y0))
            text.setText(f"{area:.3f}" if area > 0 else "")
            text.setPos(0.5 * (x0 + x1) if px is None else px, 0.5 * (y0 + y1) if py is None else py)
        where = f"trial {s.trial}" if s.phase == "trials" else "game"
        self.square.set_title(f"{where}: m = {s.n_seen}, err(R′) = {s.error:.3f}")
        self.eps_line.setValue(s.epsilon)
        self.delta_line.setValue(s.delta)
        self.chance_line.setValue(s.chance_bound)
        self.chance_line.setVisible(s.chance_bound < 1.0)
        if history.rewound:
            self.frac_panel.clear_series()
        if len(s.errors):
            top = max(float(s.errors.max()), 2 * s.epsilon) * 1.05
            edges = np.linspace(0.0, top, run.N_BINS + 1)
            counts, _ = np.histogram(s.errors, bins=edges)
            self.hist_curve.setData(*histogram_steps(edges, counts.astype(float)))
        else:
            self.hist_curve.setData([], [])
        added = [h for h in history.added if h.trial > 0]
        if added:
            self.frac_curve.extend([h.trial for h in added], [h.fraction_over for h in added])

    def _style_game(self, s: theme.Style) -> None:
        dash = QtCore.Qt.PenStyle.DashLine
        self.target_item.setPen(s.pen(s.foreground, style=dash))
        self.learned_item.setPen(s.pen(theme.POS_COLOR))
        self.domain_item.setPen(s.pen("#909090", width=1))
        colour = QtGui.QColor(STRIP_COLOR)
        colour.setAlpha(110)
        font = QtGui.QFont()
        font.setPointSizeF(s.legend_pt)
        back = QtGui.QColor(s.background)
        back.setAlpha(210)  # the areas stay legible over the samples
        for item, text in zip(self.strip_items, self.strip_texts):
            item.setBrush(QtGui.QBrush(colour))
            item.setPen(QtGui.QPen(QtCore.Qt.PenStyle.NoPen))
            text.setColor(s.foreground)
            text.setFont(font)
            text.fill = pg.mkBrush(back)
            text.setZValue(15)
            text.update()
        self.hist_curve.setPen(s.pen(theme.CATEGORICAL[0], width=max(1.0, 0.6 * s.line_width)))
        fill = QtGui.QColor(theme.CATEGORICAL[0])
        fill.setAlpha(90)
        self.hist_curve.setBrush(QtGui.QBrush(fill))
        for line in (self.eps_line, self.delta_line, self.chance_line):
            line.setPen(s.pen(theme.NEG_COLOR, width=max(1.0, 0.6 * s.line_width), style=QtCore.Qt.PenStyle.DotLine))
            line.label.setColor(theme.NEG_COLOR)
            line.label.setFont(font)


class ShatterTab:
    """The points on the canvas coloured by the labelling tried, its hypothesis, and the 2^m labellings lit."""

    def _build_shatter_tab(self) -> QtWidgets.QWidget:
        self.make_canvas()
        pi = self.canvas.plot_item
        self.hyp_item = pg.PlotCurveItem()
        self.hyp_item.setZValue(3)
        pi.addItem(self.hyp_item, ignoreBounds=True)
        self.labelled_item = pg.ScatterPlotItem()
        self.labelled_item.setZValue(20)  # over the canvas's own markers
        pi.addItem(self.labelled_item, ignoreBounds=True)
        self.point_numbers = []  # point i is the i-th sign of a pattern such as + − + −
        for i in range(run.MAX_SHATTER):
            text = pg.TextItem(str(i + 1), anchor=(-0.25, 1.1))
            text.setZValue(21)
            pi.addItem(text, ignoreBounds=True)
            self.point_numbers.append(text)
        # the labellings as a grid of cells in a bare view (no axes: a cell is a labelling, not a value)
        self.cells_panel = pg.GraphicsLayoutWidget()
        self.cells_panel.setToolTip("One cell per labelling of the points, row by row (point i is + in "
                                    "labelling k when bit i of k is 1): green realised by the class, vermillion "
                                    "not (the first one is the witness), grey not tried yet; framed: on screen")
        self.cells_title = self.cells_panel.addLabel("", row=0, col=0)
        self.cells_view = self.cells_panel.addViewBox(row=1, col=0)
        self.cells_view.setAspectLocked(True)
        self.cells_view.invertY(True)
        self.cells_view.setMouseEnabled(False, False)
        self.cells_image = pg.ImageItem(axisOrder="row-major")
        self.cells_view.addItem(self.cells_image)
        self.cell_mark = QtWidgets.QGraphicsRectItem()
        self.cell_mark.setZValue(5)
        self.cells_view.addItem(self.cell_mark)
        self._cells_key = None
        return splitter(False, self.canvas_with_toolbar(), self.cells_panel, sizes=[600, 380], stretch=[3, 2])

    @staticmethod
    def cells_shape(m: int) -> tuple[int, int]:
        """(rows, columns) of the grid of 2^m cells: labelling k is at row k // columns, column k % columns."""
        cols = 2 ** ((m + 1) // 2)
        return 2 ** m // cols, cols

    def _clear_shatter(self) -> None:
        self.hyp_item.setData([], [])
        self.labelled_item.setData([], [])
        for text in self.point_numbers:
            text.setVisible(False)
        self.cells_image.clear()
        self.cell_mark.setRect(QtCore.QRectF())
        self.cells_title.setText("")
        self._cells_key = None

    def _render_shatter(self, s: run.TheoryShatterSnapshot) -> None:
        style = theme.current()
        m = len(s.points)
        rows, cols = self.cells_shape(m)
        if self._cells_key != (m,):
            self._cells_key = (m,)
            self.cells_view.setRange(xRange=(0, cols), yRange=(0, rows), padding=0.04)
        rgba = np.array([CELL_COLORS[int(v)] for v in s.tried], dtype=np.ubyte).reshape(rows, cols, 4)
        self.cells_image.setImage(rgba, autoLevels=False)
        self.cells_image.setRect(QtCore.QRectF(0, 0, cols, rows))
        # the last step shows the witness, if there is one: the labelling the class cannot realise
        shown, labels, hypothesis = s.index, s.labels, s.hypothesis
        if s.index == 2 ** m - 1 and s.witness is not None:
            shown, labels, hypothesis = s.witness, run.labels_of(s.witness, m), None
        self.cell_mark.setRect(QtCore.QRectF(shown % cols, shown // cols, 1, 1))
        pattern = " ".join("+" if v else "−" for v in labels)
        if shown == s.witness:
            head = f"witness {pattern}"
        else:
            head = f"{pattern} {'realised' if s.realisable else 'not realisable'}"
        self.cells_title.setText(f"{head}<br>{s.n_realisable} of {2 ** m} realisable",
                                 size=f"{style.legend_pt:.0f}pt", color=style.foreground)
        brushes = [pg.mkBrush(theme.POS_COLOR if v else theme.NEG_COLOR) for v in labels]
        symbols = ["o" if v else "s" for v in labels]
        self.labelled_item.setData(s.points[:, 0], s.points[:, 1], size=1.5 * style.marker_size, brush=brushes,
                                   symbol=symbols, pen=pg.mkPen(style.foreground, width=1))
        self.hyp_item.setData(*self._hypothesis_xy(s.cls, hypothesis))
        for i, text in enumerate(self.point_numbers):
            text.setVisible(i < m)
            if i < m:
                text.setPos(float(s.points[i, 0]), float(s.points[i, 1]))
        self.hyp_item.setPen(style.pen(theme.OKABE_ITO["bluish_green"] if s.realisable else theme.NEG_COLOR))

    def _hypothesis_xy(self, cls: str, h) -> tuple[np.ndarray, np.ndarray]:
        if h is None:
            return np.zeros(0), np.zeros(0)
        (x_lo, x_hi), (y_lo, y_hi) = self.canvas.plot_item.getViewBox().viewRange()
        span = max(x_hi - x_lo, y_hi - y_lo)
        x_lo, x_hi, y_lo, y_hi = x_lo - span, x_hi + span, y_lo - span, y_hi + span
        if cls == "thresholds":
            return np.array([h, h]), np.array([y_lo, y_hi])
        if cls == "intervals":
            return np.array([h[0], h[0], np.nan, h[1], h[1]]), np.array([y_lo, y_hi, np.nan, y_lo, y_hi])
        if cls == "rectangles":
            return tuple(np.asarray(v, float) for v in outline(h))
        if cls == "half-planes":
            w1, w2, b = h
            if w1 == 0 and w2 == 0:  # a constant labelling: no line to draw
                return np.zeros(0), np.zeros(0)
            if abs(w2) >= abs(w1):
                xs = np.array([x_lo, x_hi])
                return xs, -(w1 * xs + b) / w2
            ys = np.array([y_lo, y_hi])
            return -(w2 * ys + b) / w1, ys
        cx, cy, r = h
        t = np.linspace(0, 2 * np.pi, 721)
        return cx + r * np.cos(t), cy + r * np.sin(t)

    def _style_shatter(self, s: theme.Style) -> None:
        self.style_canvas(s)
        self.cells_panel.setBackground(s.background)
        font = QtGui.QFont()
        font.setPointSizeF(s.legend_pt)
        for text in self.point_numbers:
            text.setColor(s.foreground)
            text.setFont(font)
        pen = QtGui.QPen(QtGui.QColor(s.foreground))
        pen.setCosmetic(True)
        pen.setWidthF(2.5 * s.scale)
        self.cell_mark.setPen(pen)


class GrowthTab:
    """Π(m) of every class against m, beside 2^m and Sauer's bound, on a log scale."""

    def _build_growth_tab(self) -> QtWidgets.QWidget:
        self.growth_panel = PlotPanel("Labellings realised on m points", "m", "Π(m)", log_y=True,
                                      legend_corner="right")
        self.growth_curves = {c: self.growth_panel.curve(run.CLASS_NAMES[c], color=theme.CATEGORICAL[i], dash=0)
                              for i, c in enumerate(lt.CLASSES)}
        self.power_curve = self.growth_panel.curve("2^m", color=theme.OKABE_ITO["black"], dash=1)
        self.sauer_curve = self.growth_panel.curve("Sauer, d = 4", color="#808080", dash=2)
        return self.growth_panel

    def _render_growth(self, s: run.TheoryGrowthSnapshot) -> None:
        ms = s.ms.astype(float)
        for c, curve in self.growth_curves.items():
            curve.set(ms, s.counts[c].astype(float))
        self.power_curve.set(ms, 2.0 ** ms)
        self.sauer_curve.set(ms, np.array([lt.sauer_bound(int(m), 4) for m in s.ms], float))


class BoundsTab:
    """The three bounds on ε(m) and the consistent learner's measured error, against m (log scale)."""

    def _build_bounds_tab(self) -> QtWidgets.QWidget:
        self.bounds_panel = PlotPanel("Error bounds against m", "m (samples)", "err", legend_corner="right")
        self.bounds_panel.plot_item.setLogMode(x=True)
        self.bounds_panel.plot_item.getAxis("bottom").setTicks([[(1.0, "10"), (2.0, "100"), (3.0, "1000")], []])
        self.bounds_panel.plot_item.setYRange(0, 1, padding=0.02)
        self.bounds_panel.plot_item.enableAutoRange(y=False)
        self.bound_curves = {name: self.bounds_panel.curve(name, color=colour, dash=dash)
                             for name, colour, dash in BOUND_CURVES}
        return self.bounds_panel

    def _render_bounds(self, s: run.TheoryBoundsSnapshot) -> None:
        ms = s.ms.astype(float)
        for (name, _, _), values in zip(BOUND_CURVES, (s.mean_error, s.quantile_error, s.finite_bound, s.vc_bound,
                                                        s.rectangle_bound)):
            self.bound_curves[name].set(ms, np.minimum(values, 1.0))
