"""The trees lab's bagging and random-forest methods: the out-of-bag error, the test error and the
left-out fraction against the number of trees, the Condorcet curves, and the trees' votes at an
inspected point. :class:`ForestMethod` is a part of :class:`app.labs.trees.lab.TreesLab`: it
builds the methods' page and draws their snapshots."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets.plots import PlotPanel
from . import run


class ForestMethod:
    """Building and drawing bagging and random forests (methods of the trees lab)."""

    def _build_forest_page(self) -> QtWidgets.QWidget:
        """Out of bag beside the Condorcet curves and the votes at the inspected point (tabs)."""
        self.oob_panel = PlotPanel("Out of bag", "trees", "value", legend_corner="top")
        for name in ("OOB error", "test error", "left-out fraction"):
            self.oob_panel.curve(name)
        self.e_line = pg.InfiniteLine(pos=math.exp(-1), angle=0, movable=False, label="1/e",
                                      labelOpts={"position": 0.08})
        self.oob_panel.plot_item.addItem(self.e_line, ignoreBounds=True)
        self.oob_panel.plot_item.setYRange(0.0, 1.0, padding=0)  # the legend sits above the curves
        self.oob_panel.plot_item.enableAutoRange(y=False)
        self.condorcet_panel = PlotPanel("Condorcet", "voters m", "P(vote right)", legend_corner="top")
        self.cond_p = self.condorcet_panel.curve("independent, p")
        self.cond_hat = self.condorcet_panel.curve("independent, p̂ of a tree")
        self.cond_forest = self.condorcet_panel.curve("forest (test)")
        self.votes_panel = PlotPanel("Votes at the inspected point", "class", "trees", legend=False)
        self.votes_bars = pg.BarGraphItem(x=[-1, 1], height=[0, 0], width=1.2,
                                          brushes=[pg.mkBrush(theme.NEG_COLOR), pg.mkBrush(theme.POS_COLOR)])
        self.votes_panel.plot_item.addItem(self.votes_bars)
        self.votes_panel.plot_item.getAxis("bottom").setTicks([[(-1, "−1"), (1, "+1")]])
        self.votes_panel.plot_item.setXRange(-2.0, 2.0, padding=0)
        self.votes_panel.plot_item.enableAutoRange(x=False)
        self.forest_tabs = QtWidgets.QTabWidget()
        self.forest_tabs.addTab(self.condorcet_panel, "Condorcet")
        self.forest_tabs.addTab(self.votes_panel, "Votes")
        forest_page = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        forest_page.addWidget(self.oob_panel)
        forest_page.addWidget(self.forest_tabs)
        forest_page.setSizes([400, 400])
        return forest_page

    def _render_forest(self, snap, prepared, history) -> None:
        e = snap.engine
        s = theme.current()
        frame = prepared.frame if prepared is not None and hasattr(prepared, "frame") else prepared
        if prepared is not None or e.n_trees == 0:
            self._set_frame(frame)
        if history.rewound:
            self.oob_panel.clear_series()
            self.cond_forest.clear()
        added = [h for h in history.added if h.engine.n_trees > 0]
        if added:
            k = np.fromiter((h.engine.n_trees for h in added), float, len(added))
            c = self.oob_panel.series
            names = list(c)
            c[names[0]].extend(k, [np.nan if h.engine.oob_error is None else h.engine.oob_error for h in added])
            if snap.ctx.n_test:
                test = [np.nan if h.test_error is None else h.test_error for h in added]  # undefined: a gap
                c[names[1]].extend(k, test)
                self.cond_forest.extend(k, [1.0 - t for t in test])
            c[names[2]].extend(k, [h.engine.oob_fraction for h in added])
        self.e_line.setPen(pg.mkPen(s.foreground, width=1, style=QtCore.Qt.PenStyle.DotLine))
        if history.rewound or not self.cond_p.n:
            B = int(snap.ctx.params["n_estimators"])
            m, pm = run.condorcet_curve(B, float(snap.ctx.params["p_voter"]))
            self.cond_p.set(m, pm)
            self.condorcet_panel.set_title(f"Condorcet (p = {float(snap.ctx.params['p_voter']):.2f})")
        if prepared is not None and getattr(prepared, "condorcet_hat", None) is not None:
            self.cond_hat.set(*prepared.condorcet_hat)
        elif e.n_trees == 0:
            self.cond_hat.clear()
        self._update_inspect(snap)

    def point_votes(self, snap, point) -> tuple[int, int]:
        """(votes for −1, votes for +1) of the trees of ``snap`` at ``point``."""
        trees = snap.trees or ()
        p = np.asarray(point, float).reshape(1, 2)
        pos = sum(int(run.tree_predict_pm(t.tree_, p)[0] > 0) for t in trees)
        return len(trees) - pos, pos
