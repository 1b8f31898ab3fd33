"""The PageRank lab's other panels: the ranked list and its bars, the convergence curves
(residual, bound, surfers' error), Pₙ per state of a textbook chain and the adjacency image.
``RankingPanels`` is mixed into the lab; its items are built in the lab's ``build_plots``."""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme
from .graph_view import top_indices

TOP_N = 15
SHOWN_STATES_MAX = 8
#: points of the surfers' error curve at most (one per bucket of moves): a frame's cost stays
#: flat however many moves the surfers make, and 2,000 points fill any plot's width
SURFER_POINTS = 2000


class RankingPanels:
    """Ranking, convergence, chain and adjacency drawing, part of :class:`~app.labs.pagerank.lab.PageRankLab`."""

    def _fill_table(self, g, dist) -> None:
        order = top_indices(dist, TOP_N)
        self.table.setRowCount(len(order))
        for row, i in enumerate(order):
            cells = [str(row + 1), g.titles[i], f"{dist[i]:.5f}", g.names[i]]
            for col, text in enumerate(cells):
                item = self.table.item(row, col)
                if item is None:
                    item = QtWidgets.QTableWidgetItem()
                    self.table.setItem(row, col, item)
                item.setText(text)
                if col in (1, 3):
                    item.setToolTip(f"{g.titles[i]}\n{g.names[i]}")

    def top_pages(self) -> list[tuple[str, str, float]]:
        """(page, title, rank) rows of the ranked list as shown."""
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
