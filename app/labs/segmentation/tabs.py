"""The segmentation lab's tabs drawn from the run, one class each, mixed into
:class:`~.lab.SegmentationLab`: the segmentation (photo and segments, the objective, the
clusters), where EM is unsure with what decides a clicked pixel's cluster, and the linked views
(brush the photo or the feature-space scatter). The side tasks' tabs are in :mod:`.side_tabs`.

Each class builds its tab and draws what the lab's ``render`` hands it; the lab's state stays
on the lab.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets.pages import page, splitter
from ...widgets.plots import PlotPanel
from . import maths, run
from .run import MAX_K
from .views import RectBrush, SegmentView, recolour_points

PALETTE = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in theme.CATEGORICAL], dtype=np.uint8)
PIXEL_TAB, LINK_TAB, COMPARE_TAB = 1, 2, 3  # positions of "Unsure & pixel", "Feature space" and "k-means vs EM"
DIM_ALPHA = 45  # alpha of the scatter points outside a brushed selection


class SegmentationTab:
    """The photo with the segments over it, the segmentation, the objective and the clusters."""

    def _build_segmentation_tab(self) -> QtWidgets.QWidget:
        self.photo_view = SegmentView("Photo + segments")
        self.seg_view = SegmentView("Segmentation")
        self.objective_panel = PlotPanel("Log-likelihood", "iteration", "ℓ", legend=False)
        self.objective = self.objective_panel.curve("objective")
        self.cluster_panel = PlotPanel("Cluster histograms", "grey-level bin", "probability", legend=False)
        self.cluster_bars: list[pg.BarGraphItem] = []
        for k in range(MAX_K):
            bar = pg.BarGraphItem(x=np.zeros(0), height=np.zeros(0), width=0.1)
            self.cluster_panel.addItem(bar)
            self.cluster_bars.append(bar)
        self.swatches = pg.BarGraphItem(x=np.zeros(0), height=np.zeros(0), width=0.8)
        self.cluster_panel.addItem(self.swatches)
        top = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        top.addWidget(self.photo_view)
        top.addWidget(self.seg_view)
        bottom = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        bottom.addWidget(self.objective_panel)
        bottom.addWidget(self.cluster_panel)
        main = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        main.addWidget(top)
        main.addWidget(bottom)
        main.setStretchFactor(0, 3)
        main.setStretchFactor(1, 2)
        main.setSizes([430, 280])
        return main

    def _draw_clusters(self, ctx, eng) -> None:
        s = theme.current()
        k = ctx.n_clusters
        profiles = run.cluster_profiles(ctx, eng)
        if profiles is not None:
            self.swatches.setOpts(x=np.zeros(0), height=np.zeros(0))
            d = profiles.shape[1]
            width = 0.9 / k
            for j, bar in enumerate(self.cluster_bars):
                if j < k:
                    bar.setOpts(x=np.arange(d) + (j - (k - 1) / 2) * width, height=profiles[j], width=width,
                                brush=pg.mkBrush(theme.CATEGORICAL[j % len(theme.CATEGORICAL)]), pen=pg.mkPen(None))
                else:
                    bar.setOpts(x=np.zeros(0), height=np.zeros(0))
            return
        for bar in self.cluster_bars:
            bar.setOpts(x=np.zeros(0), height=np.zeros(0))
        colours = run.centre_colours(ctx, eng)
        share = (np.asarray(eng.weights) if hasattr(eng, "weights")
                 else np.asarray(eng.counts, dtype=float) / max(1, int(np.sum(eng.counts))))
        brushes = [pg.mkBrush(*(255 * c).astype(int)) for c in colours]
        pens = [pg.mkPen(theme.CATEGORICAL[j % len(theme.CATEGORICAL)], width=4 * s.scale) for j in range(k)]
        self.swatches.setOpts(x=np.arange(1, k + 1), height=share, width=0.8, brushes=brushes, pens=pens)


class PixelTab:
    """Where EM is unsure, and what decides the cluster of a clicked pixel (its log-terms per cluster)."""

    def _build_pixel_tab(self) -> QtWidgets.QWidget:
        self.unc_view = SegmentView("Where EM is unsure", colormap="cividis")
        self.pixel_panel = PlotPanel("Pixel (grey) vs t<sub>k</sub>", "grey-level bin", "fraction", legend=False)
        self.pixel_bars = pg.BarGraphItem(x=np.zeros(0), height=np.zeros(0), width=0.9)
        self.pixel_panel.addItem(self.pixel_bars)
        self.profile_curves = [self.pixel_panel.plot_item.plot([], [], stepMode="center") for _ in range(MAX_K)]
        self.terms_panel = PlotPanel("Terms per cluster", "cluster k", "value", legend=False)
        self.terms_bars = pg.BarGraphItem(x=np.zeros(0), height=np.zeros(0), width=0.7)
        self.terms_panel.addItem(self.terms_bars)
        self.pixel_label = QtWidgets.QLabel()
        self.pixel_label.setWordWrap(True)
        self.pixel_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        right = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        right.addWidget(self.pixel_panel)
        right.addWidget(self.terms_panel)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.pixel_label)
        scroll.setMinimumHeight(60)
        right.addWidget(scroll)
        right.setSizes([260, 200, 110])
        pixel_tab = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        pixel_tab.addWidget(self.unc_view)
        pixel_tab.addWidget(right)
        return pixel_tab

    def _draw_pixel(self, snapshot) -> None:
        ctx, eng = snapshot.ctx, snapshot.engine
        sel = self.selected
        for v in (self.photo_view, self.seg_view, self.unc_view):
            v.set_cursor(*(sel if sel else (None, None)))
        if sel is None or sel[0] >= ctx.shape[0] or sel[1] >= ctx.shape[1]:
            self.terms_bars.setOpts(x=np.zeros(0), height=np.zeros(0))
            self.pixel_bars.setOpts(x=np.zeros(0), height=np.zeros(0))
            for c in self.profile_curves:
                c.setData([], [])
            self.pixel_label.setText(maths.pixel_html(None, ctx.method))
            self.pixel_info = None
            return
        info = run.pixel_terms(ctx, eng, sel[0] * ctx.shape[1] + sel[1])
        self.pixel_info = info
        s = theme.current()
        k = len(info["terms"])
        terms = np.where(np.isfinite(info["terms"]), info["terms"], np.nan)
        pens = [pg.mkPen(s.foreground, width=3 * s.scale) if j == info["label"] else pg.mkPen(None) for j in range(k)]
        self.terms_bars.setOpts(x=np.arange(1, k + 1), height=np.nan_to_num(terms), width=0.7, pens=pens,
                                brushes=[pg.mkBrush(theme.CATEGORICAL[j % len(theme.CATEGORICAL)]) for j in range(k)])
        profiles = run.cluster_profiles(ctx, eng)
        if profiles is not None:
            if ctx.H is not None:
                h = ctx.H.reshape(-1, ctx.H.shape[2])[info["index"]].astype(float)
                h = h / h.sum()
            else:
                h = info["x"]
            d = len(h)
            self.pixel_bars.setOpts(x=np.arange(d), height=h, width=0.9, brush=pg.mkBrush(s.foreground + "40"),
                                    pen=pg.mkPen(s.foreground + "90"))
            edges = np.arange(d + 1) - 0.5
            for j, c in enumerate(self.profile_curves):
                if j < k:
                    c.setData(edges, profiles[j], stepMode="center",
                              pen=pg.mkPen(theme.CATEGORICAL[j % len(theme.CATEGORICAL)], width=s.line_width))
                else:
                    c.setData([], [])
        self.pixel_label.setText(maths.pixel_html(info, ctx.method))


class LinkedViewsTab:
    """Linked views: brush pixels on the photo and see them in feature space, or the other way."""

    def _build_link_tab(self) -> QtWidgets.QWidget:
        """Photo (brushable) and the feature-space scatter of a pixel subsample, linked."""
        self.link_view = SegmentView("Photo: drag to brush", brush=True)
        self.link_view.brush.brushed.connect(self.brush_image)
        self.scatter_panel = PlotPanel("Feature space", "PC 1", "PC 2", legend=False)
        self.scatter_panel.setToolTip("A seeded subsample of the pixels on the first two principal directions of "
                                      "the features, coloured by cluster. Drag to brush; right-drag or wheel zooms.")
        self.scatter = pg.ScatterPlotItem(pxMode=True)
        self.scatter_sel = pg.ScatterPlotItem(pxMode=True)  # rings around the brushed points
        self.scatter_sel.setZValue(10)
        self.scatter_panel.addItem(self.scatter)
        self.scatter_panel.addItem(self.scatter_sel)
        self.scatter_brush = RectBrush(self.scatter_panel.plot_item.getViewBox())
        self.scatter_brush.brushed.connect(self.brush_scatter)
        n = len(PALETTE)
        self._scatter_lut = np.empty(2 * n, dtype=object)
        for j, (r, g, b) in enumerate(PALETTE.tolist()):
            self._scatter_lut[j] = pg.mkBrush(r, g, b, 255)
            self._scatter_lut[n + j] = pg.mkBrush(r, g, b, DIM_ALPHA)
        self.link_label = QtWidgets.QLabel(maths.brush_html(0, 0, 0, ""))
        self.link_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.clear_brush_button = QtWidgets.QPushButton("Clear")
        self.clear_brush_button.setToolTip("Forget the brushed rectangle")
        self.clear_brush_button.clicked.connect(self.clear_brush)
        self.clear_brush_button.setEnabled(False)
        return page([(self.link_label, 1), self.clear_brush_button],
                    splitter(False, self.link_view, self.scatter_panel, sizes=(400, 400), collapsible=False))

    def _set_scatter_positions(self, ctx) -> None:
        """Once per run: the subsample's positions in the feature plane (frames only recolour)."""
        p = ctx.projection
        self._link_key = None
        if p is None:
            self.scatter.setData([], [])
            return
        s = theme.current()
        xy = p.xy[p.sub]
        self._scatter_idx = np.full(len(p.sub), len(PALETTE), dtype=np.intp)
        brushes = list(self._scatter_lut[self._scatter_idx])
        self.scatter.setData(x=xy[:, 0], y=xy[:, 1], pen=None, brush=brushes, size=self._point_size(s),
                             symbol="o")
        title = "Histograms (PCA)" if ctx.H is not None else "Features (PCA)"
        self.scatter_panel.set_labels(title, *p.axes)  # restyles only when a label changes
        self.scatter_panel.plot_item.getViewBox().autoRange(padding=0.04)

    @staticmethod
    def _point_size(s: theme.Style) -> float:
        """Scatter points: small (3,000 of them), a little larger on a projector."""
        return max(4.0, 0.45 * s.marker_size)

    def brush_image(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """Brush the rectangle [x0, x1] × [y0, y1] of the photo (x = column, y = row, in pixels):
        the pixels whose centre lies inside are selected."""
        ctx = self._ctx
        if ctx is None:
            return
        h, w = ctx.shape
        self.brushed = ("image", x0 / w, y0 / h, x1 / w, y1 / h)
        self._update_brush()

    def brush_scatter(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """Brush the rectangle [x0, x1] × [y0, y1] of the feature plane: every pixel whose
        projection lies inside is selected (drawn in the scatter or not)."""
        ctx = self._ctx
        if ctx is None or ctx.projection is None:
            return
        self.brushed = ("scatter", x0, y0, x1, y1, ctx.projection.key)
        self._update_brush()

    def clear_brush(self) -> None:
        self.brushed = None
        self._update_brush()

    def _update_brush(self) -> None:
        """The selection mask of the brush on the current run's pixels, and its two views."""
        ctx, b = self._ctx, self.brushed
        mask = None
        self.link_view.brush.hide()
        self.scatter_brush.hide()
        if ctx is not None and b is not None:
            h, w = ctx.shape
            if b[0] == "image":
                rect = (b[1] * w, b[2] * h, b[3] * w, b[4] * h)
                mask = run.pixels_in_rect(ctx.shape, *rect)
                self.link_view.brush.show(*rect)
            elif ctx.projection is not None and b[5] == ctx.projection.key:
                mask = run.points_in_rect(ctx.projection.xy, *b[1:5])
                self.scatter_brush.show(*b[1:5])
            else:  # another feature space: the rectangle means nothing there
                self.brushed = None
        self.brush_mask = mask
        self._brush_version += 1
        self.clear_brush_button.setEnabled(mask is not None)
        self.link_view.set_mask(None if mask is None else mask.reshape(ctx.shape))
        p = ctx.projection if ctx is not None else None
        if mask is None or p is None:
            self.scatter_sel.setData([], [])
            self.link_label.setText(maths.brush_html(0, 0, 0, ""))
        else:
            drawn = p.sub[mask[p.sub]]
            s = theme.current()
            pen = pg.mkPen(s.foreground, width=1.0)
            pen.setCosmetic(True)
            self.scatter_sel.setData(x=p.xy[drawn, 0], y=p.xy[drawn, 1], symbol="o",
                                     size=self._point_size(s) + 3 * s.scale, pen=pen, brush=pg.mkBrush(None))
            self.link_label.setText(maths.brush_html(int(mask.sum()), mask.size, drawn.size, b[0]))
        self._draw_link()

    def _draw_link(self) -> None:
        """Recolour the scatter by the current clusters (dimming unbrushed points) and draw the
        photo with the segments: only while the tab is shown, only when labels or brush changed."""
        snap = self.runner.current
        if snap is None or self.tabs.currentIndex() != LINK_TAB or snap.ctx is not self._ctx:
            return
        ctx, eng = snap.ctx, snap.engine
        key = (id(eng.labels), self._brush_version)
        if key == self._link_key:
            return
        self._link_key = key
        self.link_view.set_image(ctx.image, key=id(ctx.image))
        self.link_view.set_overlay(run.label_colours(eng.labels, ctx.shape, PALETTE), key=id(eng.labels))
        p = ctx.projection
        if p is None:
            return
        idx = np.asarray(eng.labels)[p.sub].astype(np.intp) % len(PALETTE)
        if self.brush_mask is not None:
            idx = idx + len(PALETTE) * (~self.brush_mask[p.sub])
        recolour_points(self.scatter, self._scatter_lut, self._scatter_idx, idx)
        self._scatter_idx = idx
