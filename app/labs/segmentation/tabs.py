"""The segmentation lab's side tabs, one class each, mixed into :class:`~.lab.SegmentationLab`:
the linked views (brush the photo or the feature-space scatter), k-means versus EM from the
same initial centres, choosing K (BIC and stability) and the k-means restarts with the D² map.

Each class holds its tab's handlers; the widgets live on the lab (built in ``build_plots``),
so the lab's state stays in one place.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from ... import style as theme
from ...widgets.pages import page, splitter
from ...widgets.plots import PlotPanel
from . import maths, run, side_tasks
from .run import EM_METHODS
from .views import RectBrush, SegmentView, recolour_points

PALETTE = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in theme.CATEGORICAL], dtype=np.uint8)
LINK_TAB, COMPARE_TAB = 2, 3  # positions of the "Feature space" and "k-means vs EM" tabs
DIM_ALPHA = 45  # alpha of the scatter points outside a brushed selection
DIFFER_RGB = (40, 40, 40)  # pixels where k-means and EM disagree (on light grey)


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


class CompareTab:
    """k-means and the matching EM mixture from the same initial centres, side by side."""

    def _build_compare_tab(self) -> QtWidgets.QWidget:
        """Both segmentation maps from the same initial centres, their curves and where they differ."""
        self.compare_button = QtWidgets.QPushButton("Run both")
        self.compare_button.setToolTip("k-means and the matching EM mixture (histograms: multinomial; colour: "
                                       "Gaussian) from the same initial centres, on a worker thread")
        self.compare_button.clicked.connect(self.run_compare)
        self.compare_label = QtWidgets.QLabel(maths.compare_html(None))
        self.compare_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                                         QtWidgets.QSizePolicy.Policy.Preferred)
        self.km_view = SegmentView("k-means")
        self.em_view = SegmentView("EM")
        self.diff_view = SegmentView("Where they differ")
        self.km_panel = PlotPanel("k-means", "iteration", "J", legend=False)
        self.km_curve = self.km_panel.curve("J")
        self.em_panel = PlotPanel("EM", "iteration", "ℓ", legend=False)
        self.em_curve = self.em_panel.curve("ℓ")
        maps = splitter(False, self.km_view, self.em_view, self.diff_view)
        curves = splitter(False, self.km_panel, self.em_panel)
        tab = page([self.compare_button, (self.compare_label, 1)],
                   splitter(True, maps, curves, stretch=(3, 2), sizes=(330, 220)))
        for v in (self.km_view, self.em_view, self.diff_view):
            v.pixelClicked.connect(lambda r, c, b: self.inspect_pixel(r, c))
        return tab

    def run_compare(self) -> None:
        params = self.params()
        k = int(params["K"])
        if params["init"] == "clicked" and len(self.seeds) < k:
            self.compare_label.setText(f"⚠ Click {k} seed pixels on the photo first<br>(init = clicked seeds).")
            return
        self.compare_result = None
        self.km_curve.clear()
        self.em_curve.clear()
        task = self.task("compare", on_item=self._compare_item, on_error=self._compare_failed,
                         on_progress=self._compare_progress,
                         on_done=lambda _r: self.compare_button.setEnabled(True))
        task.start(side_tasks.compare, dict(params), int(self.seed), self.source(), [tuple(s) for s in self.seeds])
        self.compare_button.setEnabled(False)
        self.compare_label.setText("Running k-means, then EM …")

    def _compare_progress(self, fraction: float, text: str) -> None:
        if self.compare_result is None:
            self.compare_label.setText(f"{text} ({100 * fraction:.0f}%)")

    def _compare_item(self, res) -> None:
        self.compare_result = res
        k = len(res.rows)
        w = res.shape[1]
        rc = [(int(i) // w, int(i) % w) for i in res.rows]
        km = res.kmeans_labels
        self.km_view.set_image(run.label_colours(km, res.shape, PALETTE), key=id(km))
        self.km_view.set_markers(rc, [theme.CATEGORICAL[j % len(theme.CATEGORICAL)] for j in range(k)])
        self.km_curve.set(np.arange(len(res.kmeans_curve)), res.kmeans_curve)
        em_name = "EM multinomial" if res.family == "hist" else "EM Gaussian"
        self.km_view.set_title("k-means")
        self.em_panel.set_labels(em_name)
        if res.em_labels is not None:
            perm = res.matching if res.matching is not None else side_tasks.matched_agreement(km, res.em_labels, k)[1]
            matched = perm[res.em_labels]
            self.em_view.set_image(run.label_colours(matched, res.shape, PALETTE), key=id(res.em_labels))
            self.em_view.set_markers(rc, [theme.CATEGORICAL[int(perm[j]) % len(theme.CATEGORICAL)] for j in range(k)])
            self.em_view.set_title("EM (matched)")
            differ = (km != matched).reshape(res.shape)
            img = np.full(res.shape + (3,), 235, np.uint8)
            img[differ] = DIFFER_RGB
            self.diff_view.set_image(img, key=("diff", id(res.em_labels)))
            self.diff_view.set_title(f"Differ: {100 * differ.mean():.1f}%")
            self.em_curve.set(np.arange(len(res.em_curve)), res.em_curve)
        self.compare_label.setText(maths.compare_html(res))

    def _compare_failed(self, message: str) -> None:
        self.compare_button.setEnabled(True)
        self.compare_label.setText(f"⚠ {html.escape(message)}")


class ChooseKTab:
    """Choosing K: BIC of the mixture per K with thumbnails, then split-half stability."""

    def run_model_order(self) -> None:
        params = self.params()
        self._order_items = {}
        self._order_stab = None
        self.bic.clear()
        self.stab.clear()
        self.bic_best.setData([], [])
        self.stab_best.setData([], [])
        self.stab_errors.setData(x=np.zeros(0), y=np.zeros(0), height=np.zeros(0))
        self.thumbs.set_image(np.zeros((1, 1, 3), np.uint8), key="empty")
        for t in self.thumb_texts:
            self.thumbs.removeItem(t)
        self.thumb_texts = []
        task = self.task("order", on_item=self._order_item, on_done=self._order_done,
                         on_error=self._order_failed, on_progress=self._order_progress)
        task.start(side_tasks.model_order, params["method"], dict(params), int(self.seed), self.source())
        self.order_label.setText("Computing …")
        self.order_button.setEnabled(False)
        self._order_method = params["method"]

    def _order_progress(self, fraction: float, text: str) -> None:
        self.order_label.setText(f"{text} ({100 * fraction:.0f}%)")

    def _order_item(self, item) -> None:
        if isinstance(item, side_tasks.ModelOrderItem):
            self._order_items[item.k] = item
            ks = sorted(self._order_items)
            self.bic.set(ks, [self._order_items[k].bic for k in ks])
            self._draw_thumbs()
        else:
            self._order_stab = item
            scores = np.asarray(item.strength)
            ks = np.asarray(sorted(self._order_items), dtype=float)
            done = ~np.all(np.isnan(scores), axis=1)
            if ks.size == scores.shape[0] and done.any():
                with np.errstate(all="ignore"):
                    mean = np.nanmean(scores[done], axis=1)
                self.stab.set(ks[done], mean)

    def _draw_thumbs(self) -> None:
        ks = sorted(self._order_items)
        if not ks:
            return
        tiles = [run.label_colours(self._order_items[k].labels.ravel(), self._order_items[k].labels.shape, PALETTE)
                 for k in ks]
        h, w = tiles[0].shape[:2]
        gap = max(2, w // 16)
        mosaic = np.full((h, len(tiles) * (w + gap) - gap, 3), 255, np.uint8)
        for i, t in enumerate(tiles):
            mosaic[:, i * (w + gap): i * (w + gap) + w] = t
        self.thumbs.set_image(mosaic, key=("thumbs", tuple(ks)))
        s = theme.current()
        while len(self.thumb_texts) < len(ks):
            t = pg.TextItem(anchor=(0.5, 0.0), fill=pg.mkBrush("#FFFFFFB0"))
            self.thumbs.addItem(t)
            self.thumb_texts.append(t)
        for i, (k, t) in enumerate(zip(ks, self.thumb_texts)):
            t.setHtml(f"<span style='font-size:{s.font_pt:.0f}pt; color:#000'>K = {k}</span>")
            t.setPos(i * (w + gap) + w / 2, 0)

    def _order_done(self, _result) -> None:
        self.order_button.setEnabled(True)
        s = theme.current()
        parts = []
        if self._order_items:
            ks = sorted(self._order_items)
            bics = [self._order_items[k].bic for k in ks]
            kb = ks[int(np.argmin(bics))]
            self.bic_best.setData([kb], [min(bics)], symbol="star", size=s.marker_size * 2.4,
                                  brush=pg.mkBrush(theme.OKABE_ITO["vermillion"]), pen=pg.mkPen(s.foreground))
            parts.append(f"BIC chooses <b>K = {kb}</b>")
            self.chosen_k_bic = kb
        stab = self._order_stab
        if stab is not None and stab.result is not None:
            res = stab.result
            kc = res.chosen_k(run.STRENGTH_THRESHOLD)
            ks_ = np.asarray(res.ks)
            i = int(np.flatnonzero(ks_ == kc)[0])
            se = np.asarray(res.strength) - res.strength_lower
            self.stab_errors.setData(x=np.asarray(ks_, float), y=np.asarray(res.strength, float), height=2 * se,
                                     beam=0.15, pen=pg.mkPen(s.foreground, width=s.scale))
            self.stab_best.setData([kc], [float(res.strength[i])], symbol="star",
                                   size=s.marker_size * 2.4, brush=pg.mkBrush(theme.OKABE_ITO["vermillion"]),
                                   pen=pg.mkPen(s.foreground))
            parts.append(f"stability chooses <b>K = {kc}</b>")
            self.chosen_k_stability = kc
        note = "" if self._order_method in EM_METHODS else " (BIC of the matching mixture)"
        shown = self._order_items.get(getattr(self, "chosen_k_bic", None)) if self._order_items else None
        self.order_label.setText(", ".join(parts) + note + "<br>" + maths.order_html(shown))

    def _order_failed(self, message: str) -> None:
        self.order_button.setEnabled(True)
        self.order_label.setText(f"⚠ {html.escape(message)}")


class RestartsTab:
    """Seeded k-means restarts (their objectives and distinct solutions) and the k-means++ D² map."""

    def run_restarts(self) -> None:
        params = self.params()
        self._restarts = None
        self.restarts_points.setData([], [])
        task = self.task("restarts", on_item=self._restarts_item, on_error=self._restarts_failed,
                         on_done=lambda _r: self.restarts_button.setEnabled(True))
        task.start(side_tasks.restarts, params["method"], dict(params), int(self.seed), self.source(), 20)
        self.restarts_button.setEnabled(False)
        self.restarts_label.setText("Running restarts …")

    def _restarts_item(self, res) -> None:
        self._restarts = res
        s = theme.current()
        x = np.arange(1, len(res.inertias) + 1)
        brushes = [pg.mkBrush(theme.CATEGORICAL[int(i) % len(theme.CATEGORICAL)]) for i in res.solution_ids]
        self.restarts_points.setData(x=x, y=res.inertias, brush=brushes, size=s.marker_size * 1.4,
                                     pen=pg.mkPen(s.foreground, width=s.scale))
        if len(res.inertias):
            lo, hi = float(np.min(res.inertias)), float(np.max(res.inertias))
            text = (f"{len(res.inertias)} restarts ({res.init}): <b>{res.n_distinct} distinct solution"
                    f"{'s' if res.n_distinct != 1 else ''}</b> (colours)<br>best J = {lo:.5g}, worst {hi:.5g} "
                    f"(+{100 * (hi - lo) / max(lo, 1e-300):.2f}%)")
            self.restarts_label.setText(text)
        k = len(res.maps) + 1
        self.d2_slider.setRange(1, max(1, k - 1))
        self._draw_d2()

    def _restarts_failed(self, message: str) -> None:
        self.restarts_button.setEnabled(True)
        self.restarts_label.setText(f"⚠ {html.escape(message)}")

    def _draw_d2(self, *_args) -> None:
        res = self._restarts
        if res is None or not res.maps:
            self.d2_caption.setText("")
            return
        j = min(self.d2_slider.value(), len(res.maps))
        p = res.maps[j - 1]
        self.d2_view.set_image(p.astype(np.float32), key=(id(res.maps), j), levels=(0.0, float(p.max()) or 1.0))
        w = res.shape[1]
        rc = [(int(i) // w, int(i) % w) for i in res.chosen[:j]]
        self.d2_view.set_markers(rc, [theme.CATEGORICAL[i % len(theme.CATEGORICAL)] for i in range(j)])
        nxt = int(res.chosen[j])
        self.d2_view.set_cursor(nxt // w, nxt % w)
        self.d2_caption.setText(f"{j} centre{'s' if j > 1 else ''} chosen")
