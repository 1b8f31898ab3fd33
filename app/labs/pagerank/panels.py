"""The PageRank lab's other panels: the ranked list and its bars, the convergence curves
(residual, bound, surfers' error), Pₙ per state of a textbook chain and the adjacency image;
and the page that holds them with the graph. ``RankingPanels`` builds those panels and draws on
them, ``PageLayout`` arranges the page (normal and projector mode); both are mixed into the lab,
whose ``build_plots`` calls their builders."""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme
from ...widgets.plots import PlotPanel, frame_height, outside_legend
from .graph_view import top_indices

TOP_N = 15
SHOWN_STATES_MAX = 8
#: points of the surfers' error curve at most (one per bucket of moves): a frame's cost stays
#: flat however many moves the surfers make, and 2,000 points fill any plot's width
SURFER_POINTS = 2000


class RankingPanels:
    """The ranking, convergence, chain and adjacency panels, built and drawn: part of
    :class:`~app.labs.pagerank.lab.PageRankLab`."""

    def _build_ranking_panels(self) -> None:
        """The table of the top pages and the bars of their ranks (power method and surfers)."""
        self.table = QtWidgets.QTableWidget(TOP_N, 4)
        self.table.setHorizontalHeaderLabels(["#", "page", "rank", "file"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QtWidgets.QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QtWidgets.QHeaderView.ResizeMode.Interactive)
        self.table.setColumnWidth(3, 120)
        self.table.setTextElideMode(QtCore.Qt.TextElideMode.ElideMiddle)
        self.table.setToolTip("The top pages by PageRank, by their labels on the graph (hover one for its "
                              "title and file)")
        self.table.installEventFilter(self)  # a narrow table folds its page column (resize)
        self.bar_plot = PlotPanel(f"Top {TOP_N} ranks", "position in ranking", "PageRank Pᵢ", legend=False)
        self.bar_item = pg.BarGraphItem(x=np.zeros(0), height=np.zeros(0), width=0.75)
        self.bar_plot.addItem(self.bar_item)
        self.mc_item = pg.ScatterPlotItem()
        self.mc_item.setZValue(5)
        self.bar_plot.addItem(self.mc_item)
        self.bar_legend = outside_legend(self.bar_plot.plot_item, "top", columns=2)
        self.bar_legend.addItem(self.bar_item, "power method")
        self.bar_legend.addItem(self.mc_item, "surfers")

    def _build_convergence_panel(self) -> None:
        """The L1 distances against n: the power method's residual, its bound, the surfers' error."""
        self.conv_plot = PlotPanel("Convergence", "n (iteration / surfer move)", "L1 distance", log_y=True,
                                   legend_corner="top")
        self.conv_plot.LEFT_AXIS_EM = 2.8  # decades only (1, 10⁻⁵, 10⁻¹⁰): room for the legend and curves
        self.conv_plot.apply_style()
        cp = self.conv_plot.plot_item
        cp.showGrid(x=True, y=True, alpha=0.25)
        self.conv_legend = self.conv_plot.legend
        self.change_series = self.conv_plot.curve("power method", color=theme.POS_COLOR, dash=0)
        # the bound is drawn in the text colour (dashed): its pen follows the theme in apply_style
        # it never sets the view's range (that follows the measured curves): a bound that
        # reaches down a little further every frame would re-lay out the axes every frame
        self.bound_curve = pg.PlotDataItem([], [], name="2(1−α)<sup>n</sup>")
        cp.addItem(self.bound_curve, ignoreBounds=True)
        self.mc_series = self.conv_plot.curve("surfers", color=theme.NEG_COLOR, dash=0)
        self.change_curve = self.change_series.item
        self.mc_curve = self.mc_series.item
        self._conv_nmax, self._conv_floor = 1.0, 1e-3

    def _build_state_panels(self) -> None:
        """The adjacency image, or Pₙ per state for a textbook chain, in one place under the ranking."""
        self.adj_plot = PlotPanel("Adjacency", "target page j", "source page i", legend=False)
        ap = self.adj_plot.plot_item
        ap.invertY(True)
        ap.setAspectLocked(True)
        self.adj_image = pg.ImageItem(axisOrder="row-major")
        ap.addItem(self.adj_image)
        self.chain_plot = PlotPanel("Pₙ per state", "n (iterations)", "Pₙ(state)", legend=False)
        self.chain_plot.plot_item.showGrid(x=True, y=True, alpha=0.25)
        self.chain_legend = outside_legend(self.chain_plot.plot_item, "top", columns=4)
        self.chain_curves: list[pg.PlotDataItem] = []
        self.lower_right = QtWidgets.QStackedWidget()
        self.lower_right.addWidget(self.adj_plot)
        self.lower_right.addWidget(self.chain_plot)

    def _fill_table(self, g, dist) -> None:
        order = top_indices(dist, TOP_N)
        self.table.setRowCount(len(order))
        for row, i in enumerate(order):
            cells = [str(row + 1), g.labels[i], f"{dist[i]:.5f}", g.names[i]]
            for col, text in enumerate(cells):
                item = self.table.item(row, col)
                if item is None:
                    item = QtWidgets.QTableWidgetItem()
                    self.table.setItem(row, col, item)
                item.setText(text)
                if col in (1, 3):
                    item.setToolTip(f"{g.titles[i]}\n{g.names[i]}")

    def top_pages(self) -> list[tuple[str, str, float]]:
        """(file, label, rank) rows of the ranked list as shown."""
        out = []
        for row in range(self.table.rowCount()):
            items = [self.table.item(row, c) for c in range(4)]
            if any(it is None for it in items):
                break
            out.append((items[3].text(), items[1].text(), float(items[2].text())))
        return out

    def _draw_bars(self, g, snapshot, s) -> None:
        dist = np.asarray(snapshot.distribution)
        order = top_indices(dist, TOP_N)
        x = np.arange(1, len(order) + 1, dtype=float)
        if snapshot.moves > 0:
            looks = self._looks_for(s)
            self.mc_item.setData(x, np.asarray(snapshot.frequencies)[order], symbol="d", size=s.marker_size * 1.3,
                                 brush=looks["mc_brush"], pen=looks["mc_pen"])
        else:
            self.mc_item.setData([], [])
        key = (id(snapshot.distribution), s)
        if key == self._bars_key:
            return
        self._bars_key = key
        self.bar_item.setOpts(x=x, height=dist[order], width=0.75, brush=pg.mkBrush(theme.POS_COLOR),
                              pen=pg.mkPen(s.foreground, width=max(1.0, 0.5 * s.scale)))
        top = float(dist[order[0]]) if len(order) else 1.0
        self.bar_plot.getPlotItem().setRange(xRange=(0.3, TOP_N + 0.7), yRange=(0, 1.55 * top), padding=0)

    def _draw_convergence(self, snapshot, history, s) -> None:
        """Residual and surfer curves grow by the snapshots that arrived since the last frame."""
        if history.rewound:
            self.change_series.clear()
            self.mc_series.clear()
            self._conv_nmax, self._conv_floor = 1.0, 1e-3
            self._mc_bucket = -1.0
        added = history.added
        power = [h for h in added if h.phase == "power method"]
        n = np.fromiter((h.iteration for h in power), float, len(power))
        change = np.fromiter((np.nan if h.change is None else h.change for h in power), float, len(power))
        ok = np.isfinite(change) & (change > 0)
        self.change_series.extend(n[ok], change[ok])
        surf = [h for h in added if h.phase == "random surfer"]
        m = np.fromiter((h.moves for h in surf), float, len(surf))
        err = np.fromiter((np.nan if h.l1_error is None else h.l1_error for h in surf), float, len(surf))
        good = np.isfinite(err) & (err > 0)
        # the first point of each bucket of moves: at most SURFER_POINTS points in all
        stride = max(1, -(-int(self.run_params.get("surfer_moves", 0) or 0) // SURFER_POINTS))
        bucket = np.floor(m / stride)
        first = bucket != np.concatenate(([self._mc_bucket], bucket[:-1]))
        if bucket.size:
            self._mc_bucket = float(bucket[-1])
        pick = good & first
        self.mc_series.extend(m[pick], err[pick])
        self._conv_nmax = max(self._conv_nmax, float(n.max()) if n.size else 0.0, float(m.max()) if m.size else 0.0)
        if ok.any():
            self._conv_floor = min(self._conv_floor, float(change[ok].min()))
        alpha = snapshot.teleport
        if alpha > 0:
            nb = np.linspace(0, self._conv_nmax, 200)
            bound = 2.0 * (1.0 - alpha) ** nb
            keep = bound > self._conv_floor / 30.0
            self.bound_curve.setData(nb[keep], bound[keep])
        else:
            self.bound_curve.setData([0.0, self._conv_nmax], [2.0, 2.0])

    def _setup_chain_curves(self, g) -> None:
        cp = self.chain_plot.getPlotItem()
        for c in self.chain_curves:
            cp.removeItem(c)
            self.chain_legend.removeItem(c)
        self.chain_curves = []
        if not g.chain:
            return
        s = theme.current()
        for k in range(min(g.n, SHOWN_STATES_MAX)):
            pen = pg.mkPen(theme.CATEGORICAL[k % len(theme.CATEGORICAL)], width=s.line_width)
            c = cp.plot([], [], pen=pen, symbol="o", symbolSize=s.marker_size * 0.6,
                        symbolBrush=theme.CATEGORICAL[k % len(theme.CATEGORICAL)], symbolPen=None,
                        name=f"P<sub>n</sub>({html.escape(g.names[k])})")
            self.chain_curves.append(c)

    def _draw_chain(self, history) -> None:
        changed = history.rewound
        if history.rewound:
            self._chain_points = {}
        for h in history.added:  # the layout frame(s) hold P_0: one point per iteration
            if h.phase != "random surfer":
                self._chain_points[h.iteration] = h.distribution
                changed = True
        n = np.array(sorted(self._chain_points), float)
        if not n.size or not changed:  # the surfers' moves leave P_n as it is
            return
        P = np.array([self._chain_points[int(k)] for k in n])
        for k, c in enumerate(self.chain_curves):
            c.setData(n, P[:, k])

    def chain_series(self) -> np.ndarray:
        """P_n as drawn: array of shape (n_iterations + 1, states)."""
        if not self.chain_curves:
            return np.zeros((0, 0))
        return np.column_stack([c.yData for c in self.chain_curves])

    def _draw_adjacency(self, g) -> None:
        img = g.image
        self.adj_image.setImage(img, levels=(0.0, 1.0), autoLevels=False)
        self.adj_image.setLookupTable(self._adj_lut())
        scale = g.n / img.shape[0]
        side = g.n if scale != 1 else img.shape[0]
        self.adj_image.setRect(QtCore.QRectF(0, 0, side, side))
        self.adj_plot.getPlotItem().setRange(xRange=(0, g.n), yRange=(0, g.n), padding=0.02)

    def _adj_lut(self):
        s = theme.current()
        bg = QtGui.QColor(s.background)
        fg = QtGui.QColor(theme.POS_COLOR if s.theme == "light" else theme.OKABE_ITO["sky_blue"])
        lut = np.array([[bg.red(), bg.green(), bg.blue()], [fg.red(), fg.green(), fg.blue()]], np.ubyte)
        return np.repeat(lut, [128, 128], axis=0)


class PageLayout:
    """The page of :class:`~app.labs.pagerank.lab.PageRankLab`: the graph and the ranking above, the
    convergence and the adjacency (or Pₙ per state) below, rearranged in projector mode."""

    def _build_page(self) -> QtWidgets.QWidget:
        right = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        right.addWidget(self.table)
        right.addWidget(self.bar_plot)
        right.setSizes([300, 240])
        self.right_split = right
        top = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        top.addWidget(self.graph_plot)
        top.addWidget(right)
        top.setStretchFactor(0, 3)
        top.setStretchFactor(1, 2)
        top.setSizes([520, 440])
        bottom = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        bottom.addWidget(self.conv_plot)
        bottom.addWidget(self.lower_right)
        bottom.setSizes([560, 380])
        self.bottom_split = bottom
        self._arranged_for = False
        for w in (self.graph_plot, self.table, self.bar_plot, self.conv_plot, self.adj_plot, self.chain_plot,
                  self.lower_right):
            w.setMinimumSize(80, 60)  # let the splitters shrink them in projector mode
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setSizes([520, 280])
        self.plot_split = split
        for panel in (self.graph_plot, self.bar_plot, self.chain_plot):
            panel.apply_style()  # their legends were added after the panel styled itself
        self._update_visibility()
        # a small screen in projector mode: the plots keep a readable height (apply_style) and
        # the page scrolls vertically instead of squashing them under their legends
        page = QtWidgets.QScrollArea()
        page.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        page.setWidgetResizable(True)
        page.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        page.setWidget(split)
        return page

    def eventFilter(self, obj, event) -> bool:
        if obj is self.table and event.type() == QtCore.QEvent.Type.Resize:
            self._fold_page_column()
        return super().eventFilter(obj, event)

    def _fold_page_column(self) -> None:
        """The page's file name needs room the labels need more: a table too narrow for four
        columns (projector fonts, a small screen) drops it (it is in each label's tooltip)."""
        metrics = QtGui.QFontMetrics(self.table.font())
        need = metrics.horizontalAdvance("#  0.00000  " + "M" * 12) + 120
        self.table.setColumnHidden(3, theme.current().projector or self.table.viewport().width() < need)

    def _arrange(self, projector: bool) -> None:
        """Normal mode: graph and ranking above, convergence and adjacency below. Projector
        mode: the graph takes the whole height on the left, and one column beside it holds the
        ranking bars (Pₙ per state for a textbook chain) over the convergence; the table and
        the adjacency image fold away (File ▸ Export keeps the numbers)."""
        if projector == self._arranged_for:
            return
        self._arranged_for = projector
        if projector:
            self.right_split.addWidget(self.conv_plot)
            self.right_split.addWidget(self.lower_right)
            self.bottom_split.hide()
        else:
            self.right_split.insertWidget(0, self.table)
            self.bottom_split.addWidget(self.conv_plot)
            self.bottom_split.addWidget(self.lower_right)
            self.bottom_split.show()
            self.bottom_split.setSizes([560, 380])
        self._update_visibility()

    def _fit_min_widths(self) -> None:
        """Each plot at least as wide as its title, axes and one-column legend need: the splitters
        then never cut a plot's right edge (projector fonts at 1024 px)."""
        for panel in (self.graph_plot, self.bar_plot, self.conv_plot, self.adj_plot, self.chain_plot):
            pi = panel.plot_item
            least = pi.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize).width()
            legend = pi.legend
            if legend is not None and legend.items and legend.columnCount > 1:
                widest = max(a.boundingRect().width() + b.item.boundingRect().width() + 16 for a, b in legend.items)
                least -= legend.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize).width() - widest
            panel.setMinimumWidth(max(80, int(math.ceil(least)) + 2))
        # each plot as tall as its title, legend (in the columns it now has) and axis need,
        # plus four lines of data: legends that went side by side give their rows back
        s = theme.current()
        data = 4 * s.font_pt * 96 / 72
        for panel in (self.bar_plot, self.conv_plot, self.chain_plot):
            frame = frame_height(panel.plot_item)
            if frame > 0:
                panel.setMinimumHeight(int(math.ceil(frame + data)) + 4)
        self.lower_right.setMinimumHeight(max(self.adj_plot.minimumHeight(), self.chain_plot.minimumHeight()))
        if self._graph is not None:
            self.edge_item.setPen(self._edge_pen())
            self.adj_image.setLookupTable(self._adj_lut())
            self._place_overlays()  # labels measured in the new font
