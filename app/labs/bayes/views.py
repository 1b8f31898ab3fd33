"""The lab's plots: the coin's posterior, the evidence of each prior, the die's simplex, and the
plane of Gaussian classes with draggable means and axes."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from ... import style as theme
from ...widgets.plots import DASHES, PlotPanel
from ...widgets.shapes import PALETTE, ellipse_xy
from . import run

#: the estimates marked on the posterior: legend name and colour
MARKERS = (("ML", theme.OKABE_ITO["reddish_purple"]), ("mean", theme.OKABE_ITO["orange"]),
           ("MAP", theme.OKABE_ITO["sky_blue"]), ("true θ", theme.OKABE_ITO["black"]))
#: the fitted models' boundaries (QDA, LDA, naive Bayes): colours away from the classes' own
MODEL_COLOURS = (theme.OKABE_ITO["bluish_green"], theme.OKABE_ITO["reddish_purple"], "#5A5A5A")


def log_ticks(panel: PlotPanel) -> None:
    """An x axis of counts on a log scale: the curves are drawn at x = log₁₀ n (see :func:`log_n`),
    labelled at 10, 100 and 1000, with unlabelled ticks at 2 and 5 times each (their labels would
    run together on a narrow plot).

    The curves carry log₁₀ n themselves rather than the axis being put in log mode: a run that
    plays grows the view in calm steps computed on the curves' own x, which would be n on a log
    axis (the curves then squeezed into one column of the plot)."""
    minor = [(math.log10(m * 10 ** e), "") for e in (1, 2, 3) for m in (2, 5)]
    panel.plot_item.getAxis("bottom").setTicks([[(1.0, "10"), (2.0, "100"), (3.0, "1000")], minor])


def log_n(values) -> np.ndarray:
    """The x of counts ``values`` on an axis of :func:`log_ticks`."""
    return np.log10(np.asarray(values, dtype=float))


def _vertical(x: float | None, top: float) -> tuple[list, list]:
    return ([], []) if x is None else ([x, x], [0.0, top])


class PosteriorPanel(PlotPanel):
    """The prior and posterior densities of θ, the 95 % interval filled, the estimates as lines,
    each named where it is drawn (a legend box would take the plot's room)."""

    def __init__(self):
        super().__init__("Posterior of θ", "θ = P(heads)", "density", legend=False)
        self.prior = self.curve("prior", color=theme.CATEGORICAL[0], dash=1)
        self.posterior = self.curve("posterior", color=theme.CATEGORICAL[1], dash=0)
        self.interval = self.curve("95 %", color=theme.CATEGORICAL[2], dash=0)
        self.markers = [self.curve(name, color=colour, dash=i % 3 + 1) for i, (name, colour) in enumerate(MARKERS)]
        self.names = {name: pg.TextItem(name, color=colour, anchor=(0, 0.5)) for name, colour in
                      (("prior", theme.CATEGORICAL[0]), ("posterior", theme.CATEGORICAL[1]),
                       ("95 %", theme.OKABE_ITO["bluish_green"]), *MARKERS)}
        for item in self.names.values():
            item.setZValue(10)
            self.addItem(item)
        self.plot_item.getViewBox().setMouseEnabled(False, False)
        self.plot_item.hideButtons()
        self.xs = np.linspace(0.0, 1.0, 801)[1:-1]
        self.apply_style()

    def draw(self, s: run.BayesCoinSnapshot) -> None:
        prior = run.beta_curve(s.a0, s.b0, self.xs)
        post = run.beta_curve(s.a, s.b, self.xs)
        top = 1.45 * float(max(post.max(), min(prior.max(), 3.0 * post.max())))
        self.prior.set(self.xs, np.minimum(prior, top))
        self.posterior.set(self.xs, post)
        inside = (self.xs >= s.lo) & (self.xs <= s.hi)
        self.interval.set(self.xs[inside], post[inside])
        peak = int(np.argmax(post))
        right = self.xs[peak] < 0.5  # the posterior is named on its flank with more room, at half height
        below = post < 0.5 * post[peak]
        flank = np.flatnonzero(below[peak:]) if right else np.flatnonzero(below[:peak])
        half = (peak + flank[0]) if right and flank.size else (flank[-1] if flank.size else peak)
        self.names["posterior"].setAnchor((0, 0.5) if right else (1, 0.5))
        self.names["posterior"].setPos(self.xs[half] + (0.02 if right else -0.02), 0.5 * post[peak])
        i = 40 if s.a0 >= s.b0 else len(self.xs) - 120
        self.names["prior"].setPos(self.xs[i], min(float(prior[i]), top) + 0.04 * top)
        self.names["95 %"].setAnchor((0.5, 0))
        self.names["95 %"].setPos(0.5 * (s.lo + s.hi), 0.06 * top)
        for k, (series, (name, _), x) in enumerate(zip(self.markers, MARKERS, (s.ml, s.mean, s.mode, s.true_p))):
            series.set(*_vertical(x, top))
            label = self.names[name]
            label.setVisible(x is not None)
            if x is not None:  # stacked one under the other, beside the lines
                label.setAnchor((0, 0.5) if x < 0.75 else (1, 0.5))
                label.setPos(x + (0.01 if x < 0.75 else -0.01), top * (0.96 - 0.075 * k))
        vb = self.plot_item.getViewBox()
        vb.setRange(xRange=(0.0, 1.0), yRange=(0.0, top), padding=0.02)

    def apply_style(self, s: theme.Style | None = None) -> None:
        super().apply_style(s)
        s = s or theme.current()
        if hasattr(self, "interval"):  # the interval is a filled area under the posterior, without a line
            colour = QtGui.QColor(theme.CATEGORICAL[2])
            colour.setAlpha(90)
            self.interval.item.setPen(None)
            self.interval.item.setFillLevel(0.0)
            self.interval.item.setBrush(pg.mkBrush(colour))
            font = QtGui.QFont()
            font.setPointSizeF(s.legend_pt)
            font.setBold(True)
            for name, item in self.names.items():
                item.setFont(font)
                if name == "true θ":
                    item.setColor(s.foreground)
            for series, (name, _) in zip(self.markers, MARKERS):
                if name == "true θ":
                    series.item.setPen(pg.mkPen(s.foreground, width=s.line_width, style=QtCore.Qt.PenStyle.DashLine))


class EvidencePanel(PlotPanel):
    """The log marginal likelihood of the flips under each prior, as horizontal bars."""

    LEFT_AXIS_EM = 4.6  # the priors' names
    NAMES = {"uniform": "uniform", "jeffreys": "Jeffreys", "wrong": "wrong"}

    def __init__(self):
        super().__init__("Evidence", "log p(x)", "", legend=False)
        n = len(run.PRIORS)
        self.bars = pg.BarGraphItem(x0=np.zeros(n), y=np.arange(n), height=0.6, width=np.zeros(n),
                                    brushes=[pg.mkBrush(c) for c in theme.CATEGORICAL[:n]])
        self.addItem(self.bars)
        self.plot_item.getAxis("left").setTicks([[(i, self.NAMES[p]) for i, p in enumerate(run.PRIORS)]])
        self.plot_item.getViewBox().setMouseEnabled(False, False)
        self.plot_item.getViewBox().invertY(True)
        self.plot_item.hideButtons()

    def draw(self, s: run.BayesCoinSnapshot) -> None:
        values = np.array(s.log_ml)
        self.bars.setOpts(x0=values, width=-values)
        low = float(min(values.min(), -1.0))
        self.plot_item.getViewBox().setRange(xRange=(1.05 * low, 0.0), yRange=(-0.6, len(values) - 0.4), padding=0)


class SimplexPanel(PlotPanel):
    """The die's Dirichlet posterior on the triangle of three faces' probabilities."""

    def __init__(self):
        super().__init__("Die: Dirichlet posterior", "", "", legend=False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setZValue(-10)
        self.addItem(self.image)
        h = math.sqrt(3) / 2
        self.outline = pg.PlotCurveItem([0, 1, 0.5, 0], [0, 0, h, 0])
        self.addItem(self.outline)
        self.corners = [pg.TextItem(f"{k + 1}", anchor=a) for k, a in enumerate(((0.5, 0), (0.5, 0), (0.5, 1)))]
        for item, (x, y) in zip(self.corners, ((0, 0), (1, 0), (0.5, h))):
            item.setPos(x, y)
            self.addItem(item)
        self.truth = pg.ScatterPlotItem(symbol="x")
        self.mean = pg.ScatterPlotItem(symbol="o")
        for item in (self.truth, self.mean):
            item.setZValue(5)
            self.addItem(item)
        for name in ("left", "bottom"):
            self.plot_item.hideAxis(name)
        vb = self.plot_item.getViewBox()
        vb.setAspectLocked(True)
        vb.setMouseEnabled(False, False)
        vb.setRange(xRange=(-0.1, 1.1), yRange=(-0.16, h + 0.14), padding=0)
        self.plot_item.hideButtons()
        self.apply_style()

    def draw(self, s: run.BayesCoinSnapshot, density: np.ndarray, rect: tuple) -> None:
        st = theme.current()
        valid = np.isfinite(density)
        top = float(np.nanpercentile(density, 99.5)) if valid.any() else 1.0
        t = np.clip(np.where(valid, density, 0.0) / max(top, 1e-12), 0.0, 1.0) ** 0.7
        bg = np.array(QtGui.QColor(st.background).getRgb()[:3], float)
        hot = np.array(QtGui.QColor(theme.OKABE_ITO["blue"]).getRgb()[:3], float)
        rgba = np.zeros(density.shape + (4,), np.ubyte)
        rgba[..., :3] = (bg + (hot - bg) * t[..., None]).astype(np.ubyte)
        rgba[..., 3] = np.where(valid, 255, 0)
        self.image.setImage(rgba, autoLevels=False)
        self.image.setRect(QtCore.QRectF(*rect))
        mean = s.die_alpha / s.die_alpha.sum()
        size = st.marker_size * 1.2
        self.mean.setData(*[[v] for v in run.simplex_point(mean)], size=size,
                          brush=pg.mkBrush(theme.OKABE_ITO["orange"]), pen=pg.mkPen(st.foreground, width=1.5))
        if s.die_true is None:
            self.truth.setData([], [])
        else:
            self.truth.setData(*[[v] for v in run.simplex_point(s.die_true)], size=size,
                               brush=pg.mkBrush(st.foreground), pen=pg.mkPen(st.foreground, width=2))
        self.set_title(f"Die: {s.n} roll{'' if s.n == 1 else 's'}")

    def apply_style(self, s: theme.Style | None = None) -> None:
        super().apply_style(s)
        s = s or theme.current()
        for name in ("left", "bottom"):  # a triangle of probabilities: no axes
            self.plot_item.hideAxis(name)
        if hasattr(self, "outline"):
            self.outline.setPen(pg.mkPen(s.foreground, width=max(1.0, 0.7 * s.line_width)))
            font = QtGui.QFont()
            font.setPointSizeF(s.legend_pt)
            for item in self.corners:
                item.setColor(s.foreground)
                item.setFont(font)


class DecisionPanel(PlotPanel):
    """Gaussian classes in the plane: P(y | x) as colour, darker where the rule errs, the true
    boundary, a fitted model's boundary, the sample, and handles to drag each mean and axis."""

    def __init__(self, on_moved):
        super().__init__("P(y | x)", "x₁", "x₂", legend_corner="top")
        self.on_moved = on_moved  # called with (class, "mean" | "axis" | "width", (x, y)) when a drag ends
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setZValue(-20)
        self.addItem(self.image)
        # boundaries are polylines broken by NaN (a curve of the panel would join their pieces)
        self.boundary_items = [pg.PlotCurveItem(connect="finite") for _ in range(1 + len(run.MODELS))]
        for item, name in zip(self.boundary_items, ["true", *(label for _, label in run.MODELS)]):
            item.setZValue(3)
            self.addItem(item)
            self.legend.addItem(item, name)
        self.legend.setVisible(True)
        self.true_ellipses = pg.PlotCurveItem(connect="finite")
        self.points = pg.ScatterPlotItem()
        for z, item in enumerate((self.true_ellipses, self.points)):
            item.setZValue(2 + z)
            self.addItem(item)
        self.handles: list[tuple[pg.TargetItem, pg.TargetItem, pg.TargetItem]] = []
        self.class_names: list[pg.TextItem] = []  # "1", "2", "3" beside each mean
        self.classes = None  # (means, covs) shown by the handles
        vb = self.plot_item.getViewBox()
        vb.setMouseEnabled(False, False)  # the view is the map's box: the map covers all of it
        self.plot_item.hideButtons()
        self.apply_style()

    # --- the classes and their handles
    @staticmethod
    def axes(cov) -> tuple[np.ndarray, np.ndarray]:
        """The ellipse's two semi-axes at 2 standard deviations (major first)."""
        w, v = np.linalg.eigh(cov)
        return 2 * math.sqrt(w[1]) * v[:, 1], 2 * math.sqrt(w[0]) * v[:, 0]

    def set_classes(self, means, covs) -> None:
        st = theme.current()
        self.classes = (np.array(means, float), np.array(covs, float))
        K = len(means)
        while len(self.handles) < K:
            k = len(self.handles)
            colour = theme.CATEGORICAL[k]
            trio = tuple(pg.TargetItem(size=st.marker_size * (1.9 if i == 0 else 1.4), symbol="o" if i == 0 else "s",
                                       brush=pg.mkBrush(colour), pen=pg.mkPen(st.foreground, width=1.5))
                         for i in range(3))
            for i, item in enumerate(trio):
                item.setZValue(10)
                self.addItem(item)
                item.sigPositionChanged.connect(lambda it, k=k, i=i: self._dragging(k, i))
                item.sigPositionChangeFinished.connect(lambda it, k=k, i=i: self._dropped(k, i))
            self.handles.append(trio)
            name = pg.TextItem(f"{k + 1}", anchor=(-0.35, 1.05))  # the class's number, as the priors and losses say
            name.setZValue(11)
            self.addItem(name)
            self.class_names.append(name)
            self._style_names(st)
        for k, trio in enumerate(self.handles):
            for item in (*trio, self.class_names[k]):
                item.setVisible(k < K)
        self._place_handles()
        self._draw_true_ellipses()

    def _place_handles(self) -> None:
        means, covs = self.classes
        for k, (m, c) in enumerate(zip(means, covs)):
            major, minor = self.axes(c)
            for item, pos in zip(self.handles[k], (m, m + major, m + minor)):
                item.blockSignals(True)
                item.setPos(float(pos[0]), float(pos[1]))
                item.blockSignals(False)
            self.class_names[k].setPos(float(m[0]), float(m[1]))

    def _draw_true_ellipses(self) -> None:
        xs, ys = [], []
        for m, c in zip(*self.classes):
            x, y = ellipse_xy(m, c, radii=(2.0,))
            xs += [x, [np.nan]]
            ys += [y, [np.nan]]
        self.true_ellipses.setData(np.concatenate(xs), np.concatenate(ys))

    def moved_classes(self, k: int, which: int) -> tuple[np.ndarray, np.ndarray]:
        """The classes after handle ``which`` (0 mean, 1 major axis, 2 minor axis) of class k moved."""
        means, covs = self.classes[0].copy(), self.classes[1].copy()
        pos = [np.array([h.pos().x(), h.pos().y()]) for h in self.handles[k]]
        if which == 0:
            means[k] = pos[0]
            return means, covs
        major, minor = self.axes(covs[k])
        if which == 1:
            major = pos[1] - means[k]
            length = max(float(np.hypot(*major)), 1e-3)
            minor = np.array([-major[1], major[0]]) / length * max(float(np.hypot(*minor)), 1e-3)
        else:
            unit = np.array([-major[1], major[0]]) / max(float(np.hypot(*major)), 1e-12)
            minor = unit * max(abs(float((pos[2] - means[k]) @ unit)), 0.02)
        covs[k] = (np.outer(major, major) + np.outer(minor, minor)) / 4.0
        return means, covs

    def _dragging(self, k: int, which: int) -> None:
        if self.classes is None:
            return
        means, covs = self.moved_classes(k, which)
        keep = self.classes
        self.classes = (means, covs)
        self._draw_true_ellipses()
        if which == 0:  # the axes' handles and the class's number travel with the mean
            self.class_names[k].setPos(float(means[k][0]), float(means[k][1]))
            major, minor = self.axes(covs[k])
            for item, pos in zip(self.handles[k][1:], (means[k] + major, means[k] + minor)):
                item.blockSignals(True)
                item.setPos(float(pos[0]), float(pos[1]))
                item.blockSignals(False)
        self.classes = keep if which else (means, covs)

    def _dropped(self, k: int, which: int) -> None:
        if self.classes is not None:
            self.on_moved(*self.moved_classes(k, which))

    # --- a snapshot
    def draw(self, s: run.BayesDecisionSnapshot, lines) -> None:
        st = theme.current()
        bg = np.array(QtGui.QColor(st.background).getRgb()[:3], float) / 255.0
        colours = PALETTE[:s.K].astype(float) / 255.0
        rgb = np.tensordot(np.moveaxis(s.posterior, 0, -1), colours, axes=1)
        rgb = bg + 0.55 * (rgb - bg)
        err = s.error_density / max(float(s.error_density.max()), 1e-300)
        rgb *= (1.0 - 0.6 * np.sqrt(err))[..., None]
        self.image.setImage((255 * np.clip(rgb, 0, 1)).astype(np.ubyte), autoLevels=False)
        x0, x1, y0, y1 = s.extent
        self.image.setRect(QtCore.QRectF(x0, y0, x1 - x0, y1 - y0))
        self.plot_item.getViewBox().setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
        if lines is not None:
            for item, xy in zip(self.boundary_items, lines):
                item.setData(*(xy if xy is not None else ([], [])))
        brushes = np.array([pg.mkBrush(c) for c in theme.CATEGORICAL[:s.K]], dtype=object)[s.y]
        self.points.setData(s.X[:, 0], s.X[:, 1], brush=brushes, pen=pg.mkPen(st.foreground, width=0.8),
                            size=0.55 * st.marker_size)
        if self.classes is None or len(self.classes[0]) != s.K or not np.allclose(self.classes[0], s.means) \
                or not np.allclose(self.classes[1], s.covs):
            self.set_classes(s.means, s.covs)

    def forget(self) -> None:
        self.image.clear()
        for item in self.boundary_items:
            item.setData([], [])
        self.points.setData([], [])

    def apply_style(self, s: theme.Style | None = None) -> None:
        super().apply_style(s)
        s = s or theme.current()
        if hasattr(self, "true_ellipses"):
            self.true_ellipses.setPen(pg.mkPen(s.foreground, width=max(1.0, 0.6 * s.line_width),
                                               style=QtCore.Qt.PenStyle.DotLine))
            dashes = DASHES  # as the risk panel draws the same rules
            for item, colour, dash in zip(self.boundary_items, (s.foreground, *MODEL_COLOURS), dashes):
                item.setPen(pg.mkPen(colour, width=s.line_width * (1.2 if dash == dashes[0] else 1.0), style=dash))
            for trio in self.handles:
                for item in trio:
                    item.setPen(pg.mkPen(s.foreground, width=1.5))
            self._style_names(s)

    def _style_names(self, s: theme.Style) -> None:
        font = QtGui.QFont()
        font.setPointSizeF(s.legend_pt)
        font.setBold(True)
        back = QtGui.QColor(s.background)
        back.setAlpha(200)
        for item in self.class_names:
            item.setColor(s.foreground)
            item.setFont(font)
            item.fill = pg.mkBrush(back)


class WordBars(PlotPanel):
    """Words as horizontal bars of their log-odds (red toward spam, blue toward ham), each word written
    beside the zero line on the side its bar does not take. A word wider than that half of the plot
    is set smaller (down to three quarters of the legend's size), then shortened with an ellipsis."""

    LEFT_AXIS_EM = 1.5  # no tick labels on the left: the words stand in the plot
    SMALLEST = 0.75  # of the legend's font size
    GAP = 0.03  # between the zero line and a word, a fraction of the longest bar

    def __init__(self, title: str, x_label: str):
        super().__init__(title, x_label, "", legend=False)
        self.bars = pg.BarGraphItem(x0=[], y=[], height=0.7, width=[])
        self.addItem(self.bars)
        self.word_items: list[pg.TextItem] = []
        self._shown: tuple[list, list] | None = None
        vb = self.plot_item.getViewBox()
        vb.invertY(True)
        vb.setMouseEnabled(False, False)
        vb.sigResized.connect(self._fit_words)
        self.plot_item.hideButtons()
        self.plot_item.getAxis("left").setTicks([[], []])

    def set_bars(self, names, values) -> None:
        st = theme.current()
        values = np.array([0.0 if v is None else v for v in values], float)
        self._shown = ([str(name) for name in names], values)
        n = len(values)
        colours = [theme.OKABE_ITO["vermillion"] if v > 0 else theme.OKABE_ITO["blue"] for v in values]
        self.bars.setOpts(x0=np.minimum(values, 0.0), width=np.abs(values), y=np.arange(n),
                          brushes=[pg.mkBrush(c) for c in colours], pens=[pg.mkPen(None)] * n)
        while len(self.word_items) < n:
            item = pg.TextItem("")
            item.setZValue(5)
            self.addItem(item)
            self.word_items.append(item)
        span = float(np.abs(values).max()) if n else 1.0
        span = max(span, 1e-9)
        for i, item in enumerate(self.word_items):
            item.setVisible(i < n)
            if i < n:
                toward_spam = values[i] > 0
                item.setColor(st.foreground)
                item.setAnchor((1, 0.5) if toward_spam else (0, 0.5))
                item.setPos(-self.GAP * span if toward_spam else self.GAP * span, i)
        self._fit_words()
        self.plot_item.getViewBox().setRange(xRange=(-1.05 * span, 1.05 * span), yRange=(-0.6, max(n, 1) - 0.4),
                                             padding=0)

    def _fit_words(self, *_args) -> None:
        """Each word in the half of the plot beside the zero line: smaller, then elided, if need be."""
        if self._shown is None:
            return
        names = self._shown[0]
        font = QtGui.QFont()
        font.setPointSizeF(theme.current().legend_pt)
        width = self.plot_item.getViewBox().width()
        # the half of the view a word may take (TextItem's own margin of a few pixels included)
        room = width * 0.5 * (1.0 - self.GAP / 1.05) - 8.0 if width > 40 else math.inf
        widest = max((QtGui.QFontMetricsF(font).horizontalAdvance(name) for name in names), default=0.0)
        if widest > room:
            font.setPointSizeF(font.pointSizeF() * max(self.SMALLEST, room / widest))
        metrics = QtGui.QFontMetricsF(font)
        for name, item in zip(names, self.word_items):
            text = name if metrics.horizontalAdvance(name) <= room else metrics.elidedText(
                name, QtCore.Qt.TextElideMode.ElideRight, max(room, 0.0))
            item.setFont(font)
            if item.toPlainText() != text:
                item.setText(text)
