"""The tree drawn as a diagram: rules in the inner nodes, class counts in the leaves.

A pyqtgraph plot (pan with the mouse, zoom with the wheel) whose labels keep their size
while zooming, so a deep tree becomes readable by zooming into a part of it. Text labels
are pooled and reused; a tree is redrawn only when it changed.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from ... import style as theme
from ...widgets.plots import PlotPanel
from .run import tree_layout

AXES = ("x₁", "x₂")
#: labels drawn at most (the rest are visible after zooming in: only nodes in view get labels)
MAX_LABELS = 160


class TreeDiagram(PlotPanel):
    def __init__(self, parent=None):
        super().__init__("Tree", "", "depth", parent, legend=False)
        pi = self.plot_item
        pi.getAxis("bottom").setTicks([[]])
        pi.showGrid(x=False, y=False)
        self.edges = pg.PlotCurveItem(connect="pairs")
        self.path_edges = pg.PlotCurveItem(connect="pairs")
        self.nodes = pg.ScatterPlotItem()
        self.current = pg.ScatterPlotItem()
        for z, item in enumerate((self.edges, self.path_edges, self.nodes, self.current)):
            item.setZValue(z)
            pi.addItem(item)
        self._labels: list[pg.TextItem] = []
        self._tree = None
        self._xy = (np.zeros(0), np.zeros(0))
        self._texts: list[str] = []
        self.path: list[int] = []
        pi.getViewBox().sigRangeChanged.connect(lambda *a: self._place_labels())
        self.apply_style(theme.current())

    # ------------------------------------------------------------------ drawing
    def set_tree(self, tree, current: int | None = None, fit: bool = True) -> None:
        """Draw ``tree`` (TreeArrays); ``current`` is the node just split (ringed)."""
        if tree is not self._tree:
            self._tree = tree
            x, y = tree_layout(tree)
            self._xy = (x, y)
            inner = tree.feature >= 0
            ids = np.flatnonzero(inner)
            ex = np.column_stack([x[ids], x[tree.children_left[ids]], x[ids], x[tree.children_right[ids]]]).ravel()
            ey = np.column_stack([y[ids], y[tree.children_left[ids]], y[ids], y[tree.children_right[ids]]]).ravel()
            self.edges.setData(ex, ey)
            self._texts = [self._node_text(tree, i) for i in range(tree.node_count)]
            self._draw_nodes()
            if fit:
                pad_x = 0.6
                self.plot_item.setRange(xRange=(x.min() - pad_x, x.max() + pad_x), yRange=(y.min() - 0.6, 0.4),
                                        padding=0)
            self._place_labels()
            self.set_path(self.path if self.path and max(self.path) < tree.node_count else [])
        s = theme.current()
        if current is not None and 0 <= current < tree.node_count:
            x, y = self._xy
            self.current.setData([x[current]], [y[current]], symbol="o", size=s.marker_size * 2.6,
                                 pen=pg.mkPen(theme.OKABE_ITO["orange"], width=3 * s.scale), brush=pg.mkBrush(None))
        else:
            self.current.setData([], [])

    def clear_tree(self) -> None:
        self._tree = None
        self._xy = (np.zeros(0), np.zeros(0))
        self._texts = []
        for item in (self.edges, self.path_edges, self.nodes, self.current):
            item.setData([], [])
        for lab in self._labels:
            lab.setVisible(False)

    def set_path(self, path: list[int]) -> None:
        """Highlight the nodes a point passes (root to leaf)."""
        self.path = list(path)
        if self._tree is None or len(path) < 2:
            self.path_edges.setData([], [])
            return
        x, y = self._xy
        p = np.asarray(path)
        ex = np.column_stack([x[p[:-1]], x[p[1:]]]).ravel()
        ey = np.column_stack([y[p[:-1]], y[p[1:]]]).ravel()
        s = theme.current()
        self.path_edges.setData(ex, ey, pen=pg.mkPen(theme.OKABE_ITO["bluish_green"], width=3.5 * s.scale))

    @staticmethod
    def _node_text(tree, i: int) -> str:
        if tree.feature[i] >= 0:
            return f"{AXES[int(tree.feature[i])]} ≤ {tree.threshold[i]:.2f}"
        neg, pos = tree.value[i]
        return f"{pos:g}+ {neg:g}−"

    def _draw_nodes(self) -> None:
        tree = self._tree
        if tree is None:
            return
        s = theme.current()
        x, y = self._xy
        v = tree.value
        vote_pos = v[:, 1] > v[:, 0]
        leaf = tree.feature < 0
        brushes = [pg.mkBrush(theme.POS_COLOR if p else theme.NEG_COLOR) for p in vote_pos]
        symbols = ["s" if lf else "o" for lf in leaf]
        self.nodes.setData(x, y, symbol=symbols, size=s.marker_size * 1.3, brush=brushes,
                           pen=pg.mkPen(s.foreground, width=max(1.0, s.scale)))
        self.edges.setPen(pg.mkPen(s.foreground, width=max(1.0, s.line_width * 0.6)))

    def _place_labels(self) -> None:
        """Labels for the nodes in view (at most MAX_LABELS), taken from a reusable pool."""
        if self._tree is None:
            return
        x, y = self._xy
        (x0, x1), (y0, y1) = self.plot_item.viewRange()
        inside = np.flatnonzero((x >= x0) & (x <= x1) & (y >= y0) & (y <= y1))
        # too many to read: label only as many nodes as fit side by side on the widest level
        width_px = max(self.plot_item.getViewBox().width(), 1.0)
        span = max(x1 - x0, 1e-9)
        px_per_unit = width_px / span
        s = theme.current()
        need_px = 6.0 * s.font_pt
        if px_per_unit < need_px:  # labels of neighbouring leaves would overlap: show inner nodes only
            inside = inside[self._tree.feature[inside] >= 0]
            depth = self._tree.depth[inside]
            # keep the shallow levels where nodes are far enough apart
            room = px_per_unit * 2.0 ** (self._tree.max_depth - depth)
            inside = inside[room >= need_px]
        inside = inside[:MAX_LABELS]
        while len(self._labels) < len(inside):
            t = pg.TextItem(anchor=(0.5, -0.25))
            t.setZValue(10)
            self.plot_item.addItem(t)
            self._labels.append(t)
        font = self.font()
        font.setPointSizeF(s.font_pt * 0.85)
        for lab, i in zip(self._labels, inside):
            lab.setText(self._texts[i], color=s.foreground)
            lab.setFont(font)
            lab.setPos(float(x[i]), float(y[i]))
            lab.setVisible(True)
        for lab in self._labels[len(inside):]:
            lab.setVisible(False)

    def label_texts(self) -> list[str]:
        return [lab.toPlainText() for lab in self._labels if lab.isVisible()]

    def apply_style(self, s: theme.Style | None = None) -> None:
        super().apply_style(s)
        if getattr(self, "_tree", None) is not None:
            self._draw_nodes()
            self._place_labels()
