"""The PageRank lab's graph picture: pages as discs sized and coloured by rank, links (a fixed
sample while the layout moves), the surfers and their last moves, the highest-ranked pages
labelled and links ending in arrowheads placed in pixels. ``GraphDrawing`` is mixed into the
lab: it builds the graph's panel (the lab's ``build_plots`` calls it) and draws on it."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme
from ...widgets.plots import PlotPanel, outside_legend

LOG_MIN, LOG_MAX = -1.0, 2.0  # colour scale of log10(d · P_i)
# While the force layout moves, the links are re-stroked every frame (Qt needs
# ~30 ms for 15,000 lines): draw a fixed sample of this many links until the layout stops.
LAYOUT_EDGES = 2000
#: page labels drawn at most (the highest-ranked that fit without overlapping), and how many
#: pages, in rank order, are tried for a place
MAX_LABELS = 20
LABEL_CANDIDATES = 120
#: graphs with at most this many drawn links get an arrowhead on every link; larger ones on
#: the links between labelled pages (drawn stronger), so the picture stays readable
ARROW_MAX_LINKS = 1500


def top_indices(values, k: int) -> np.ndarray:
    """Indices of the ``k`` largest values, largest first, ties in index order: the first ``k``
    of ``np.argsort(-values, kind="stable")`` in O(n) instead of O(n log n)."""
    v = np.asarray(values, dtype=float)
    n = v.size
    if k >= n:
        return np.argsort(-v, kind="stable")
    if k <= 0:
        return np.zeros(0, dtype=np.intp)
    kth = np.partition(v, n - k)[n - k]  # the k-th largest value
    above = np.flatnonzero(v > kth)
    ties = np.flatnonzero(v == kth)[: k - above.size]
    pick = np.concatenate([above, ties])
    return pick[np.argsort(-v[pick], kind="stable")]


def viridis_brushes(n: int = 256) -> list[QtGui.QBrush]:
    cmap = pg.colormap.get("viridis")
    colors = cmap.map(np.linspace(0, 1, n), mode="qcolor")
    return [QtGui.QBrush(c) for c in colors]


class GraphPanel(PlotPanel):
    """The drawing of the graph: a self-styling panel without axes (the layout has no units)."""

    def apply_style(self, s: theme.Style | None = None) -> None:
        super().apply_style(s)  # labels the axes, which shows them: hide them again
        self.plot_item.hideAxis("left")
        self.plot_item.hideAxis("bottom")


class GraphDrawing:
    """The graph picture's drawing, part of :class:`~app.labs.pagerank.lab.PageRankLab`."""

    def _build_graph_panel(self) -> None:
        """The graph: links, pages, the selected page, surfers and their last moves, the overlays
        placed in pixels (labels, arrowheads, links between labelled pages), the key and the colour bar."""
        self._brushes = viridis_brushes()
        self.graph_plot = GraphPanel("Pages by rank", legend=False)
        gp = self.graph_plot.plot_item
        gp.setAspectLocked(True)
        self.edge_item = pg.PlotCurveItem(connect="pairs", antialias=False)
        self.edge_item.setZValue(0)
        # 15,000 links take ~10 ms to stroke: cache the picture, it only changes with the layout.
        self.edge_item.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
        gp.addItem(self.edge_item)
        self.move_item = pg.PlotCurveItem(connect="pairs")
        self.move_item.setZValue(5)
        gp.addItem(self.move_item)
        self.node_item = pg.ScatterPlotItem(hoverable=True, tip=self._tip, pxMode=True)
        self.node_item.setZValue(10)
        self.node_item.sigClicked.connect(self._node_clicked)
        gp.addItem(self.node_item)
        self.selected_item = pg.ScatterPlotItem(pxMode=True)
        self.selected_item.setZValue(12)
        gp.addItem(self.selected_item)
        # its key is right before the first surfer moves: the stars' symbol and first colour
        self.walker_item = pg.ScatterPlotItem(pxMode=True, symbol="star", brush=theme.CATEGORICAL[1])
        self.walker_item.setZValue(20)
        self.walker_item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        gp.addItem(self.walker_item)
        # links between labelled pages (large graphs), arrowheads and page labels: placed in
        # pixels, so they are recomputed whenever the view's transform changes
        self.top_edge_item = pg.PlotCurveItem(connect="pairs")
        self.top_edge_item.setZValue(1)
        gp.addItem(self.top_edge_item, ignoreBounds=True)
        self.arrow_item = QtWidgets.QGraphicsPathItem()
        self.arrow_item.setZValue(8)
        gp.addItem(self.arrow_item, ignoreBounds=True)
        self.label_items: list[pg.TextItem] = []
        gp.vb.sigTransformChanged.connect(self._place_overlays)
        self.legend = outside_legend(gp, "top", columns=3)
        self.legend.addItem(self.node_item, "page (size ∝ rank)")
        self.legend.addItem(self.walker_item, "surfers")
        self.legend.addItem(self.move_item, "last move")
        self.colorbar = pg.ColorBarItem(values=(LOG_MIN, LOG_MAX), colorMap=pg.colormap.get("viridis"),
                                        interactive=False, width=14)
        gp.layout.addItem(self.colorbar, 2, 5)

    def _tip(self, x=0.0, y=0.0, data=0, **_kw) -> str:
        g = self._graph
        dist = self._drawn_dist
        try:
            i = int(data)
        except (TypeError, ValueError):
            return ""
        if g is None or not (0 <= i < g.n):
            return ""
        title = g.titles[i] if g.titles[i] else g.names[i]
        if dist is not None and i < len(dist):
            rank = float(dist[i])
            ranked = f"rank {rank:.5f}  ({rank * g.n:.2f} × average)"
        else:
            ranked = "rank —"
        return (f"{title}\n{g.names[i]}\n{ranked}\n"
                f"{g.in_degree[i]} links in, {g.out_degree[i]} links out")

    def _draw_selected(self) -> None:
        s = theme.current()
        pos = self._drawn_positions
        if self._selected < 0 or pos is None or self._selected >= len(pos):
            self.selected_item.setData([], [])
            return
        looks = self._looks_for(s)
        self.selected_item.setData(pos=pos[[self._selected]], size=s.marker_size * 3.2, symbol="o",
                                   pen=looks["selected_pen"], brush=looks["no_brush"])

    def _looks_for(self, s: theme.Style) -> dict:
        """Pens and brushes of the per-frame items, made once per style: pyqtgraph caches a
        scatter symbol per pen and brush *object*, so new ones every frame would render new
        symbols every frame."""
        if self._looks_key != s:
            self._looks_key = s
            self._looks = {
                "selected_pen": pg.mkPen(theme.OKABE_ITO["vermillion"], width=3 * s.scale),
                "no_brush": pg.mkBrush(None),
                "walker_brushes": [pg.mkBrush(theme.CATEGORICAL[(k + 1) % 6]) for k in range(6)],
                "walker_pen": pg.mkPen(s.foreground, width=1.2 * s.scale),
                "move_pen": pg.mkPen(theme.OKABE_ITO["vermillion"], width=2.5 * s.scale),
                "mc_brush": pg.mkBrush(theme.OKABE_ITO["orange"]),
                "mc_pen": pg.mkPen(s.foreground, width=s.scale),
                "node_pen": pg.mkPen(s.foreground + "90", width=max(1.0, 0.6 * s.scale)),
                "walkers": {},  # number of walkers -> list of their brushes
            }
        return self._looks

    def layout_edges(self, g) -> np.ndarray:
        """Indices of the links drawn while the layout moves: all of them up to LAYOUT_EDGES,
        else a fixed random sample of LAYOUT_EDGES (the same for every frame of a graph, so
        the picture thins out evenly and does not flicker), in link order."""
        if self._sample_key[0] != g.key:
            E = g.edge_rows.size
            if E <= LAYOUT_EDGES:
                pick = np.arange(E)
            else:
                pick = np.sort(np.random.default_rng(0).choice(E, LAYOUT_EDGES, replace=False))
            self._sample_key = (g.key, pick)
        return self._sample_key[1]

    def _draw_edges(self, g, positions, moving: bool = False) -> None:
        self._edges_moving = moving
        if g.edge_rows.size == 0:
            self.edge_item.setData([], [])
            return
        rows, cols = g.edge_rows, g.edge_cols
        if moving:
            pick = self.layout_edges(g)
            rows, cols = rows[pick], cols[pick]
        xy = np.empty((2 * rows.size, 2))
        xy[0::2] = positions[rows]
        xy[1::2] = positions[cols]
        self.edge_item.setData(xy[:, 0], xy[:, 1], connect="pairs", pen=self._edge_pen(g))
        gp = self.graph_plot.getPlotItem()
        gp.setRange(xRange=(-1.1, 1.1), yRange=(-1.1, 1.1), padding=0.02)

    def _edge_pen(self, g=None):
        s = theme.current()
        g = g or self._graph
        many = g is not None and g.n_links > 3000
        # An opaque colour between foreground and background: faster than alpha blending.
        fg, bg = QtGui.QColor(s.foreground), QtGui.QColor(s.background)
        t = 0.18 if many else 0.5
        mix = QtGui.QColor(*(int(round(t * a + (1 - t) * b)) for a, b in
                             ((fg.red(), bg.red()), (fg.green(), bg.green()), (fg.blue(), bg.blue()))))
        return pg.mkPen(mix, width=1.0 if many else 1.5 * s.scale)

    def _node_visuals(self, dist, n, s, shown=None):
        """Brushes of the pages ``shown`` (all by default) and the sizes of all pages."""
        d = max(n, 1)
        rel = np.asarray(dist, float) * d
        level = (np.log10(np.maximum(rel, 1e-12)) - LOG_MIN) / (LOG_MAX - LOG_MIN)
        # Quantized colours and sizes: pyqtgraph renders one symbol per distinct (size, brush),
        # so a few dozen levels keep a frame of 500+ nodes at a few milliseconds.
        idx = np.clip(np.round(level * 31).astype(int), 0, 31) * 8
        brushes = [self._brushes[k] for k in (idx if shown is None else idx[shown])]
        # Size by rank relative to the average page (d · P_i = 1): equal ranks give equal small
        # discs, and fewer pixels per node on big graphs so a heap never hides the links.
        crowd = float(np.clip(np.sqrt(300.0 / max(n, 1)), 0.45, 1.6))
        size = s.scale * crowd * np.clip(3.0 + 5.0 * np.sqrt(np.round(rel * 4) / 4), 3.0, 34.0)
        return brushes, size

    def _draw_walkers(self, snapshot, positions, s) -> None:
        w = snapshot.walkers
        if w.size == 0:
            self.walker_item.setData([], [])
            self.move_item.setData([], [])
            return
        looks = self._looks_for(s)
        brushes = looks["walkers"].get(w.size)
        if brushes is None:
            brushes = looks["walkers"][w.size] = [looks["walker_brushes"][k % 6] for k in range(w.size)]
        self.walker_item.setData(pos=positions[w], symbol="star", size=s.marker_size * 2.8,
                                 brush=brushes, pen=looks["walker_pen"])
        follow = ~snapshot.walkers_jumped
        src, dst = snapshot.walkers_prev[follow], w[follow]
        if src.size:
            xy = np.empty((2 * src.size, 2))
            xy[0::2] = positions[src]
            xy[1::2] = positions[dst]
            self.move_item.setData(xy[:, 0], xy[:, 1], connect="pairs", pen=looks["move_pen"])
        else:
            self.move_item.setData([], [])

    def _place_overlays(self, *_args) -> None:
        """Page labels and arrowheads for the current view: both are sized in pixels, so they
        follow every change of the view's transform (resize, projector mode, a new layout)."""
        if self._placing:
            return
        self._placing = True
        try:
            g, pos, dist = self._graph, self._drawn_positions, self._drawn_dist
            ok = (g is not None and pos is not None and dist is not None and self._node_sizes is not None
                  and len(pos) == g.n == len(dist) == len(self._node_sizes))
            vb = self.graph_plot.plot_item.vb
            vb.updateMatrix()  # the range set this frame, not the last one painted
            labelled = self._place_labels(g, pos, dist, vb) if ok else []
            self._draw_arrows(g, pos, labelled, vb) if ok else self._clear_arrows()
        finally:
            self._placing = False

    def _scene_xy(self, vb, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = vb.childGroup.sceneTransform()  # data -> scene (pixels): a scale and a shift
        x, y = pos[:, 0], pos[:, 1]
        return t.m11() * x + t.m21() * y + t.m31(), t.m12() * x + t.m22() * y + t.m32()

    def _label_item(self, k: int, s: theme.Style) -> pg.TextItem:
        while len(self.label_items) <= k:
            item = pg.TextItem(anchor=(0.5, 1.0))
            item.setZValue(25)  # above the surfers: a label stays readable
            item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
            item.textItem.document().setDocumentMargin(1.0)  # tight boxes: more labels fit
            self.graph_plot.plot_item.addItem(item, ignoreBounds=True)
            self.label_items.append(item)
        item = self.label_items[k]
        if getattr(item, "_style", None) != s:
            font = QtGui.QFont()
            font.setPointSizeF(s.font_pt * 0.9)
            item.setFont(font)
            item.setColor(s.foreground)
            bg = QtGui.QColor(s.background)
            bg.setAlpha(170)
            item.fill = pg.mkBrush(bg)
            item._style = s
        return item

    def _place_labels(self, g, pos, dist, vb) -> list[int]:
        """Label the highest-ranked pages, each above (else below) its disc, centred or shifted to
        one side, skipping any whose label would overlap one already placed or leave the view;
        returns the pages labelled."""
        s = theme.current()
        xs, ys = self._scene_xy(vb, pos)
        view = vb.sceneBoundingRect()
        inverse, _ = vb.childGroup.sceneTransform().inverted()
        placed: list[QtCore.QRectF] = []
        pages: list[int] = []
        order = top_indices(dist, LABEL_CANDIDATES)
        for i in order:
            if len(pages) == MAX_LABELS:
                break
            if not (np.isfinite(xs[i]) and np.isfinite(ys[i]) and view.contains(QtCore.QPointF(xs[i], ys[i]))):
                continue
            item = self._label_item(len(pages), s)
            text = g.labels[i]  # short and distinct (run.page_labels)
            if item.toPlainText() != text:
                item.setText(text)
            box = item.textItem.boundingRect()
            w, h = box.width(), box.height()
            gap = float(self._node_sizes[i]) / 2 + 1.0
            # above the disc, else below it; centred, else shifted right or left (near an edge)
            for anchor_y, anchor_x in ((1.0, 0.5), (0.0, 0.5), (1.0, 0.0), (1.0, 1.0), (0.0, 0.0), (0.0, 1.0)):
                top = ys[i] - gap - h if anchor_y == 1.0 else ys[i] + gap
                rect = QtCore.QRectF(xs[i] - anchor_x * w, top, w, h)
                if view.contains(rect) and not any(rect.intersects(r) for r in placed):
                    break
            else:
                continue
            gap_x, gap_y = 3.0 * s.scale, 1.0 * s.scale  # apart by a space and a little leading at least
            placed.append(rect.adjusted(-gap_x, -gap_y, gap_x, gap_y))
            item.setAnchor((anchor_x, anchor_y))
            item.setPos(inverse.map(QtCore.QPointF(xs[i], ys[i] - gap if anchor_y == 1.0 else ys[i] + gap)))
            item.setToolTip(f"{g.titles[i]}\n{g.names[i]}")
            item.setVisible(True)
            item.updateTransform(force=True)
            pages.append(int(i))
        for item in self.label_items[len(pages):]:
            item.setVisible(False)
        self._label_pages = pages
        return pages

    def labels_shown(self) -> list[tuple[int, str, QtCore.QRectF]]:
        """(page, text, scene bounding rectangle) of every page label drawn."""
        return [(i, item.toPlainText(), item.sceneBoundingRect())
                for i, item in zip(self._label_pages, self.label_items) if item.isVisible()]

    def _clear_arrows(self) -> None:
        self.arrow_item.setPath(QtGui.QPainterPath())
        self.top_edge_item.setData([], [])
        self._arrow_links = (np.zeros(0, int), np.zeros(0, int))

    def _draw_arrows(self, g, pos, labelled: list[int], vb) -> None:
        """A filled arrowhead at the target end of each link, its tip on the target's disc.

        Every drawn link gets one on graphs with at most ARROW_MAX_LINKS links; on larger
        graphs the links between labelled pages get one (and a stronger line), so the picture
        says which of the named pages links to which.
        """
        rows, cols = g.edge_rows, g.edge_cols
        if self._edges_moving:
            pick = self.layout_edges(g)
            rows, cols = rows[pick], cols[pick]
        strong = rows.size > ARROW_MAX_LINKS
        if strong:
            mark = np.zeros(g.n, bool)
            mark[labelled] = True
            keep = mark[rows] & mark[cols]
            rows, cols = rows[keep], cols[keep]
        s = theme.current()
        if strong and rows.size:
            xy = np.empty((2 * rows.size, 2))
            xy[0::2], xy[1::2] = pos[rows], pos[cols]
            self.top_edge_item.setData(xy[:, 0], xy[:, 1], connect="pairs",
                                       pen=pg.mkPen(s.foreground, width=1.2 * s.scale))
        else:
            self.top_edge_item.setData([], [])
        xs, ys = self._scene_xy(vb, pos)
        dx, dy = xs[cols] - xs[rows], ys[cols] - ys[rows]
        length = np.hypot(dx, dy)
        head = 7.0 * s.scale  # arrowhead length in pixels
        gap = self._node_sizes[cols] / 2 + 1.0
        ok = length > gap + head  # a link shorter than its arrowhead keeps none
        rows, cols, dx, dy, length, gap = rows[ok], cols[ok], dx[ok], dy[ok], length[ok], gap[ok]
        self._arrow_links = (rows, cols)
        if rows.size == 0:
            self.arrow_item.setPath(QtGui.QPainterPath())
            return
        ux, uy = dx / length, dy / length
        tip_x, tip_y = xs[cols] - ux * gap, ys[cols] - uy * gap
        base_x, base_y = tip_x - ux * head, tip_y - uy * head
        half = 0.45 * head
        # triangles tip -> left -> right (-> tip), in scene pixels, then back to data coordinates
        px = np.column_stack([tip_x, base_x - uy * half, base_x + uy * half, tip_x]).ravel()
        py = np.column_stack([tip_y, base_y + ux * half, base_y - ux * half, tip_y]).ravel()
        t = vb.childGroup.sceneTransform()
        inverse, _ = t.inverted()
        data_x = inverse.m11() * px + inverse.m21() * py + inverse.m31()
        data_y = inverse.m12() * px + inverse.m22() * py + inverse.m32()
        connect = np.tile(np.array([1, 1, 1, 0], dtype=np.int32), rows.size)
        path = pg.arrayToQPath(data_x, data_y, connect=connect)
        path.setFillRule(QtCore.Qt.FillRule.WindingFill)
        self.arrow_item.setPath(path)
        colour = QtGui.QColor(s.foreground) if strong or rows.size <= 400 else self._edge_pen(g).color()
        pen = QtGui.QPen(colour)
        pen.setCosmetic(True)
        pen.setWidthF(0.8)
        self.arrow_item.setPen(pen)
        self.arrow_item.setBrush(QtGui.QBrush(colour))

    def arrow_heads(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(source pages, target pages, tips, bases) of the arrowheads drawn, tips and the
        bases' midpoints in data coordinates, read back from the drawn path."""
        path = self.arrow_item.path()
        pts = np.array([[path.elementAt(k).x, path.elementAt(k).y] for k in range(path.elementCount())])
        rows, cols = self._arrow_links
        if pts.size == 0:
            return rows, cols, np.zeros((0, 2)), np.zeros((0, 2))
        pts = pts.reshape(-1, 4, 2)
        return rows, cols, pts[:, 0], (pts[:, 1] + pts[:, 2]) / 2
