"""The four pages of the spectral lab: each builds its plots once and draws one snapshot into them."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from ... import style as theme
from ...widgets.image_view import ImageView
from ...widgets.pages import splitter
from ...widgets.plots import PlotPanel

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


class FisherPage:
    """Classes with PCA's, Fisher's and the hand-rotated direction; projections; J(θ)."""

    def __init__(self):
        self.plane = _square(PlotPanel("PCA vs Fisher", "x₁", "x₂", legend=False))
        self.plane.setToolTip("The PCA direction (orange), Fisher's direction (green) and the direction θ of "
                              "this step (grey), through the mean of the points")
        self.points = Points(self.plane)
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
        self.widget = splitter(False, self.plane, side, sizes=[600, 400], stretch=[3, 2])
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

    def clear(self) -> None:
        self.points.clear()
        for item in (*self.lines.values(), *self.hist_items.values()):
            item.setData([], [])
        self.rayleigh.clear_series()
        self.now.setData([], [])


class ClusterPage:
    """The affinity graph and labels, k-means on the same points, the eigenvalues, the embedding."""

    def __init__(self):
        self.graph = _square(PlotPanel("Graph and spectral clusters", "x₁", "x₂", legend=False))
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
        self.embed = PlotPanel("Eigenvector embedding", "u₁", "u₂", legend=False)
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
        self.matrix = ImageView("Centred kernel matrix K̃ (points by class)", colormap="viridis")
        self.comp = PlotPanel("Kernel components z₁ and z₂", "z₁", "z₂", legend=False)
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
        self.comp.set_labels(title=f"Kernel components z₁ and z{_SUB[s.shown]}", y_label=f"z{_SUB[s.shown]}")

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
