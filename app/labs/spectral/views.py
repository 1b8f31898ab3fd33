"""The four pages of the spectral lab: each builds its plots once and draws one snapshot into them."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from ... import style as theme
from ...widgets.image_view import ImageView
from ...widgets.pages import splitter
from ...widgets.plots import PlotPanel
from .run import ANGLE_STEP, MIN_STRETCH, SHORT_SPREAD

PCA_COLOR = theme.OKABE_ITO["orange"]
FISHER_COLOR = theme.OKABE_ITO["bluish_green"]
HAND_COLOR = "#808080"
_SUB = dict(zip(range(10), "₀₁₂₃₄₅₆₇₈₉"))


def _class_brushes(labels) -> list:
    labels = np.asarray(labels)
    values = np.unique(labels)
    index = np.searchsorted(values, labels)
    palette = [pg.mkBrush(c) for c in theme.CATEGORICAL]
    return [palette[i % len(palette)] for i in index]


def _hist(values, edges) -> tuple[np.ndarray, np.ndarray]:
    """A histogram as a step polyline (density)."""
    h, _ = np.histogram(values, bins=edges, density=True)
    return np.repeat(edges, 2), np.r_[0.0, np.repeat(h, 2), 0.0]


class Points:
    """A scatter of points coloured by class or cluster, on a panel."""

    def __init__(self, panel: PlotPanel):
        self.item = pg.ScatterPlotItem(pen=None)
        panel.addItem(self.item)

    def set(self, X, labels) -> None:
        size = 6 * theme.current().scale
        self.item.setData(X[:, 0], X[:, 1], brush=_class_brushes(labels), size=size)

    def clear(self) -> None:
        self.item.setData([], [])


def _square(panel: PlotPanel) -> PlotPanel:
    panel.plot_item.setAspectLocked(True)
    return panel


def _rotation(degrees: float) -> np.ndarray:
    t = np.radians(degrees)
    return np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])


class ClassHandles:
    """Handles to drag the Fisher classes: each class's ● moves it, its ■ (the end of its long
    axis, two standard deviations from the mean) turns and stretches it. While a handle moves
    the class's points follow it; when it is dropped ``on_moved(classes)`` gets the new rows
    (mean x, mean y, stretch, tilt°)."""

    def __init__(self, panel: PlotPanel, points: "Points", on_moved):
        self.panel, self.points, self.on_moved = panel, points, on_moved
        self.handles: list[tuple[pg.TargetItem, pg.TargetItem]] = []
        self.classes: np.ndarray | None = None  # the rows the handles show
        self.X = self.y = self.E = None  # the points on screen and their standard normals

    def set(self, classes: np.ndarray, X: np.ndarray, y: np.ndarray) -> None:
        """Place the handles on ``classes``, whose points are ``X`` (classes ``y``)."""
        st = theme.current()
        self.classes = np.array(classes, float)
        self.X, self.y = np.array(X, float), np.asarray(y)
        self.E = np.empty_like(self.X)
        for c, (mx, my, stretch, tilt) in enumerate(self.classes):  # the normals the points were drawn from
            rows = self.y == c
            self.E[rows] = ((self.X[rows] - [mx, my]) @ _rotation(tilt)) / [stretch, SHORT_SPREAD]
        while len(self.handles) < len(self.classes):
            c = len(self.handles)
            pair = tuple(pg.TargetItem(size=st.marker_size * (1.3 if i == 0 else 1.1), symbol="o" if i == 0 else "s",
                                       brush=pg.mkBrush(theme.CATEGORICAL[c]), pen=pg.mkPen(st.foreground, width=1.5))
                         for i in range(2))
            for i, item in enumerate(pair):
                item.setZValue(10)
                self.panel.addItem(item)
                item.sigPositionChanged.connect(lambda _it, c=c, i=i: self._dragging(c, i))
                item.sigPositionChangeFinished.connect(lambda _it, c=c, i=i: self._dropped(c, i))
            self.handles.append(pair)
        for c, pair in enumerate(self.handles):
            for item in pair:
                item.setVisible(c < len(self.classes))
        for c in range(len(self.classes)):
            self._place(c, self.classes[c])

    @staticmethod
    def axis_end(row) -> np.ndarray:
        mx, my, stretch, tilt = row
        return np.array([mx, my]) + 2.0 * stretch * _rotation(tilt)[:, 0]

    def _place(self, c: int, row) -> None:
        for item, pos in zip(self.handles[c], (row[:2], self.axis_end(row))):
            item.blockSignals(True)
            item.setPos(float(pos[0]), float(pos[1]))
            item.blockSignals(False)

    def moved(self, c: int, which: int) -> np.ndarray:
        """The classes after handle ``which`` (0 the mean, 1 the long axis's end) of class c moved."""
        classes = self.classes.copy()
        pos = [np.array([h.pos().x(), h.pos().y()]) for h in self.handles[c]]
        if which == 0:
            classes[c, :2] = pos[0]
        else:
            axis = pos[1] - classes[c, :2]
            classes[c, 2] = max(float(np.hypot(*axis)) / 2.0, MIN_STRETCH)
            classes[c, 3] = float(np.degrees(np.arctan2(axis[1], axis[0])))
        return classes

    def _dragging(self, c: int, which: int) -> None:
        if self.classes is None:
            return
        self.panel.plot_item.getViewBox().disableAutoRange()  # the view stays put under the hand
        row = self.moved(c, which)[c]
        if which == 0:  # the axis handle travels with the mean
            self._place(c, row)
        rows = self.y == c
        X = self.X.copy()
        X[rows] = row[:2] + (self.E[rows] * [row[2], SHORT_SPREAD]) @ _rotation(row[3]).T
        self.points.set(X, self.y)

    def _dropped(self, c: int, which: int) -> None:
        if self.classes is not None:
            self.on_moved(self.moved(c, which))


class FisherPage:
    """Classes with PCA's, Fisher's and the hand-rotated direction; projections; J(θ). The classes
    are dragged by their handles (:class:`ClassHandles`)."""

    def __init__(self, on_moved=lambda classes: None, on_turned=lambda angle: None):
        self.plane = _square(PlotPanel("PCA vs Fisher", "x₁", "x₂", legend=False))
        self.plane.LEFT_AXIS_EM = 2.6  # short ticks (−20 … 20): the width to the data
        self.plane.apply_style(theme.current())
        self.plane.setToolTip("Drag a class's ● to move it and its ■ to turn and stretch it; drag the grey ◆ to "
                              "turn the direction θ by hand. The PCA direction (orange), Fisher's direction (green) "
                              "and the direction θ (grey), through the mean of the points")
        self.points = Points(self.plane)
        self.handles = ClassHandles(self.plane, self.points, on_moved)
        self.on_turned = on_turned  # called with the angle (degrees, in [0, 180)) the ◆ points at
        self.turn = pg.TargetItem(size=theme.current().marker_size * 1.1, symbol="d", brush=pg.mkBrush(HAND_COLOR),
                                  pen=pg.mkPen(theme.current().foreground, width=1.5))
        self.turn.setZValue(11)
        self.turn.setVisible(False)
        self.plane.addItem(self.turn)
        self.turn.sigPositionChanged.connect(self._turned)
        self._centre = None
        self.lines = {}
        for name, color, width in (("hand", HAND_COLOR, 2), ("pca", PCA_COLOR, 3), ("fisher", FISHER_COLOR, 3)):
            self.lines[name] = pg.PlotCurveItem(pen=pg.mkPen(color, width=width))
            self.plane.addItem(self.lines[name])
        self.hist_pca = PlotPanel("Along PCA's w", "wᵀx", "density", legend=False)
        self.hist_fisher = PlotPanel("Along Fisher's w", "wᵀx", "density", legend=False)
        self.rayleigh = PlotPanel("J(θ)", "θ (°)", "J", legend=False)
        self.J_curve = self.rayleigh.curve("J", color=HAND_COLOR)
        self.best = pg.InfiniteLine(angle=90, pen=pg.mkPen(FISHER_COLOR, width=2))
        self.pca_mark = pg.InfiniteLine(angle=90, pen=pg.mkPen(PCA_COLOR, width=2))
        self.rayleigh.addItem(self.best)
        self.rayleigh.addItem(self.pca_mark)
        self.now = pg.ScatterPlotItem(pen=None, brush=pg.mkBrush(HAND_COLOR))
        self.rayleigh.addItem(self.now)
        side = splitter(True, self.hist_pca, self.hist_fisher, self.rayleigh, sizes=[200, 200, 200])
        # the plane keeps its aspect: width beyond its height would be blank, the side column takes it
        self.widget = splitter(False, self.plane, side, sizes=[560, 440], stretch=[1, 1])
        self.hist_items = {}
        for panel in (self.hist_pca, self.hist_fisher):
            for c in range(3):
                item = pg.PlotCurveItem(pen=pg.mkPen(theme.CATEGORICAL[c], width=2))
                panel.addItem(item)
                self.hist_items[(id(panel), c)] = item

    def render(self, s) -> None:
        X, y = s.X, s.y
        self.points.set(X, y)
        centre = X.mean(axis=0)
        half = 0.6 * float(np.max(X.max(axis=0) - X.min(axis=0)))
        hand = np.array([np.cos(np.radians(s.angle)), np.sin(np.radians(s.angle))])
        for name, w in (("hand", hand), ("pca", s.pca_dir), ("fisher", s.fisher_dir)):
            ends = centre + np.outer([-half, half], w)
            self.lines[name].setData(ends[:, 0], ends[:, 1])
        if not self.turn.isVisible() or self._centre is None or \
                abs(self.turn_angle() - s.angle) > 0.5 * ANGLE_STEP:  # not while the hand holds it there
            tip = centre + half * hand
            self.turn.blockSignals(True)
            self.turn.setPos(float(tip[0]), float(tip[1]))
            self.turn.blockSignals(False)
        self._centre = centre
        self.turn.setVisible(True)
        for panel, w in ((self.hist_pca, s.pca_dir), (self.hist_fisher, s.fisher_dir)):
            z = (X - centre) @ w
            lo, hi = float(z.min()), float(z.max())
            edges = np.linspace(lo, hi, 31) if hi > lo else np.linspace(lo - 1, hi + 1, 31)
            classes = np.unique(y)
            for c in range(3):
                item = self.hist_items[(id(panel), c)]
                if c < len(classes):
                    item.setData(*_hist(z[y == classes[c]], edges))
                else:
                    item.setData([], [])
        self.J_curve.set(s.angles, s.J)
        pca_angle = float(np.degrees(np.arctan2(s.pca_dir[1], s.pca_dir[0])) % 180.0)
        self.best.setValue(s.best_angle)
        self.pca_mark.setValue(pca_angle)
        self.now.setData([s.angle], [s.J[-1]], size=10 * theme.current().scale)
        h = self.handles
        if h.classes is None or h.X is None or h.classes.shape != s.classes.shape or \
                not np.array_equal(h.classes, s.classes) or not np.array_equal(h.X, s.X):
            h.set(s.classes, X, y)

    def turn_angle(self) -> float:
        """The angle (degrees, in [0, 180)) from the points' mean to the ◆."""
        d = np.array([self.turn.pos().x(), self.turn.pos().y()]) - self._centre
        return float(np.degrees(np.arctan2(d[1], d[0])) % 180.0)

    def _turned(self) -> None:
        if self._centre is not None:
            self.on_turned(self.turn_angle())

    def clear(self) -> None:
        self.points.clear()
        self.turn.setVisible(False)
        self._centre = None
        for item in (*self.lines.values(), *self.hist_items.values()):
            item.setData([], [])
        self.rayleigh.clear_series()
        self.now.setData([], [])


class ClusterPage:
    """The affinity graph and labels, k-means on the same points, the eigenvalues, the embedding."""

    def __init__(self):
        self.graph = _square(PlotPanel("Spectral clusters", "x₁", "x₂", legend=False))
        self.graph.setToolTip("The affinity graph (its strongest edges, darker when stronger) and the clusters "
                              "k-means finds in the eigenvector embedding")
        self.weak = pg.PlotCurveItem(connect="pairs")
        self.strong = pg.PlotCurveItem(connect="pairs")
        self.graph.addItem(self.weak)
        self.graph.addItem(self.strong)
        self.points = Points(self.graph)
        self.kmeans = _square(PlotPanel("k-means", "x₁", "x₂", legend=False))
        self.kmeans.setToolTip("k-means with the same k on the same points, for comparison")
        self.km_points = Points(self.kmeans)
        self.eigen = PlotPanel("Eigenvalues of L", "index", "λ", legend=False)
        self.eigen_dots = pg.ScatterPlotItem(pen=None)
        self.eigen.addItem(self.eigen_dots)
        self.gap_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(FISHER_COLOR, width=2))
        self.eigen.addItem(self.gap_line)
        self.embed = PlotPanel("Embedding", "u₁", "u₂", legend=False)
        self.embed.setToolTip("Each point at its entries of the first two eigenvectors of L")
        self.embed_points = Points(self.embed)
        top = splitter(False, self.graph, self.kmeans, sizes=[550, 450], stretch=[1, 1])
        bottom = splitter(False, self.eigen, self.embed, sizes=[500, 500], stretch=[1, 1])
        self.widget = splitter(True, top, bottom, sizes=[420, 300], stretch=[3, 2])
        self.apply_style(theme.current())

    def apply_style(self, s) -> None:
        fg = pg.mkColor(s.foreground)
        fg.setAlpha(60)
        self.weak.setPen(pg.mkPen(fg, width=1))
        fg.setAlpha(150)
        self.strong.setPen(pg.mkPen(fg, width=1.5))

    def render(self, s) -> None:
        X = s.X
        self.points.set(X, s.labels if s.labels is not None else np.zeros(len(X), int))
        self.km_points.set(X, s.kmeans_labels)
        if s.edges is not None and len(s.edges):
            top = float(s.weights.max())
            for item, keep in ((self.strong, s.weights >= 0.5 * top),
                               (self.weak, (s.weights < 0.5 * top) & (s.weights >= 0.05 * top))):
                e = s.edges[keep].ravel()
                item.setData(X[e, 0], X[e, 1])
        else:
            self.weak.setData([], [])
            self.strong.setData([], [])
        if s.eigenvalues is not None:
            vals = s.eigenvalues
            idx = np.arange(1, len(vals) + 1)
            colors = [pg.mkBrush(FISHER_COLOR if i <= s.n_clusters else HAND_COLOR) for i in idx]
            self.eigen_dots.setData(idx, vals, brush=colors, size=8 * theme.current().scale)
            self.gap_line.setValue(s.n_clusters + 0.5)
            self.gap_line.setVisible(True)
        else:
            self.eigen_dots.setData([], [])
            self.gap_line.setVisible(False)
        if s.embedding is not None:
            E = s.embedding if s.embedding.shape[1] >= 2 else np.c_[s.embedding, np.zeros(len(X))]
            self.embed_points.set(E[:, :2], s.labels if s.labels is not None else np.zeros(len(X), int))
        else:
            self.embed_points.clear()

    def clear(self) -> None:
        for p in (self.points, self.km_points, self.embed_points):
            p.clear()
        for item in (self.weak, self.strong, self.eigen_dots):
            item.setData([], [])


class KernelPage:
    """The points, the centred kernel matrix as an image, the first two kernel components."""

    def __init__(self):
        self.data = _square(PlotPanel("Points (two classes)", "x₁", "x₂", legend=False))
        self.points = Points(self.data)
        self.matrix = ImageView("Kernel matrix K̃", colormap="viridis")
        self.matrix.setToolTip("The centred kernel matrix K̃ = HKH, the points ordered by class")
        self.comp = PlotPanel("z₁ and z₂", "z₁", "z₂", legend=False)
        self.comp.setToolTip("The points on the first kernel component and on the component (of the first six) "
                             "along which one threshold best separates the classes")
        self.comp_points = Points(self.comp)
        right = splitter(True, self.matrix, self.comp, sizes=[300, 300])
        self.widget = splitter(False, self.data, right, sizes=[500, 500])

    def render(self, s) -> None:
        self.points.set(s.X, s.y)
        K = s.kernel
        lo, hi = float(K.min()), float(K.max())
        self.matrix.set_image(K, key=id(K), levels=(lo, hi if hi > lo else lo + 1.0))
        self.matrix.fit(K.shape[1], K.shape[0])
        self.comp_points.set(s.Z, s.y)
        self.comp.set_labels(title=f"z₁ and z{_SUB[s.shown]}", y_label=f"z{_SUB[s.shown]}")

    def clear(self) -> None:
        self.points.clear()
        self.comp_points.clear()


class CCAPage:
    """Two views of one signal with their first canonical directions, and the canonical variates."""

    def __init__(self):
        self.view_x = _square(PlotPanel("Sensor X with u₁", "x₁", "x₂", legend=False))
        self.view_y = _square(PlotPanel("Sensor Y with v₁", "y₁", "y₂", legend=False))
        self.variates = PlotPanel("Canonical variates", "Xu₁", "Yv₁", legend=False)
        self.px, self.py, self.pv = Points(self.view_x), Points(self.view_y), Points(self.variates)
        self.dir_x = pg.PlotCurveItem(pen=pg.mkPen(FISHER_COLOR, width=3))
        self.dir_y = pg.PlotCurveItem(pen=pg.mkPen(FISHER_COLOR, width=3))
        self.view_x.addItem(self.dir_x)
        self.view_y.addItem(self.dir_y)
        top = splitter(False, self.view_x, self.view_y, sizes=[400, 400])
        self.widget = splitter(True, top, self.variates, sizes=[400, 300])

    def render(self, s) -> None:
        colour = np.zeros(len(s.X), int)
        self.px.set(s.X, colour)
        self.py.set(s.Y, colour)
        self.pv.set(np.c_[s.U[:, 0], s.V[:, 0]], colour)
        for item, A, w in ((self.dir_x, s.X, s.u), (self.dir_y, s.Y, s.v)):
            c = A.mean(axis=0)
            half = 0.5 * float(np.max(A.max(axis=0) - A.min(axis=0)))
            ends = c + np.outer([-half, half], w)
            item.setData(ends[:, 0], ends[:, 1])

    def clear(self) -> None:
        for p in (self.px, self.py, self.pv):
            p.clear()
        self.dir_x.setData([], [])
        self.dir_y.setData([], [])


def tab_widget(pages) -> QtWidgets.QTabWidget:
    tabs = QtWidgets.QTabWidget()
    for page, label in pages:
        tabs.addTab(page.widget, label)
    return tabs
