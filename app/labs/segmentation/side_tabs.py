"""The segmentation lab's side tabs, one class each, mixed into :class:`~.lab.SegmentationLab`:
k-means versus EM from the same initial centres, choosing K (BIC and stability) and the k-means
restarts with the D² map. Each fills its tab from a side task (:mod:`.side_tasks`) started by its
button.

Each class builds its tab and holds its handlers; the lab's state stays on the lab.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets.pages import page, splitter
from ...widgets.plots import PlotPanel
from . import maths, run, side_tasks
from .run import EM_METHODS, HIST_METHODS
from .tabs import PALETTE
from .views import SegmentView

DIFFER_RGB = (40, 40, 40)  # pixels where k-means and EM disagree (on light grey)


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

    def _build_order_tab(self) -> QtWidgets.QWidget:
        """The button, BIC and prediction strength against K, and the segmentation of each K."""
        self.order_button = QtWidgets.QPushButton("Compute (K = 2…8)")
        self.order_button.setToolTip("BIC of the mixture fitted to all pixels and split-half stability of the "
                                     "method, for K = 2 … 8 (on a worker thread)")
        self.order_button.clicked.connect(self.run_model_order)
        # No word wrap in the pages (a height-for-width label makes the page's scroll area
        # give the page its full size hint): lines are broken with <br> instead.
        self.order_label = QtWidgets.QLabel("BIC (lower is better) and prediction strength<br>"
                                            "(the largest K above the dashed line is stable).")
        self.order_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.bic_panel = PlotPanel("BIC", "K", "BIC", legend=False)
        self.bic = self.bic_panel.curve("BIC")
        self.stab_panel = PlotPanel("Stability", "K", "prediction strength", legend=False)
        self.stab = self.stab_panel.curve("prediction strength")
        self.stab_threshold = pg.InfiniteLine(pos=run.STRENGTH_THRESHOLD, angle=0, movable=False,
                                              pen=pg.mkPen("#888888", style=QtCore.Qt.PenStyle.DashLine))
        self.stab_panel.addItem(self.stab_threshold)
        self.stab_errors = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), height=np.zeros(0))
        self.stab_panel.addItem(self.stab_errors)
        self.bic_best = pg.ScatterPlotItem()
        self.stab_best = pg.ScatterPlotItem()
        self.bic_panel.addItem(self.bic_best)
        self.stab_panel.addItem(self.stab_best)
        self.thumbs = SegmentView("Segments per K")
        self.thumb_texts: list[pg.TextItem] = []
        order_tab = page([self.order_button, (self.order_label, 1)],
                         (splitter(False, self.bic_panel, self.stab_panel), 3), (self.thumbs, 2))
        return order_tab

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


#: the restarts' J axis spans at least this fraction of J: equal objectives (within the relative
#: 1e-6 that makes them one solution) lie on one line, not spread over a magnified axis
RESTARTS_MIN_SPAN = 1e-3


class RestartsTab:
    """Seeded k-means restarts (their objectives and distinct solutions) and the k-means++ D² map."""

    def _build_restarts_tab(self) -> QtWidgets.QWidget:
        """The button, the final objective of each restart and the D² map with its slider."""
        self.restarts_button = QtWidgets.QPushButton("Run 20 restarts")
        self.restarts_button.setToolTip("20 seeded k-means restarts on the run's features (on a worker thread): "
                                        "how much do the final objectives differ?")
        self.restarts_button.clicked.connect(self.run_restarts)
        self.restarts_label = QtWidgets.QLabel("k-means finds a local minimum<br>that depends on the start.")
        self.restarts_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.restarts_label.setWordWrap(True)  # a narrow page (projector fonts) wraps it, never cuts it
        self.restarts_panel = PlotPanel("Final J", "restart", "J", legend=False)
        self.restarts_points = pg.ScatterPlotItem()
        self.restarts_panel.addItem(self.restarts_points)
        self.d2_view = SegmentView("k-means++ D²", colormap="viridis")
        self.d2_slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.d2_slider.setRange(1, 1)
        self.d2_slider.setToolTip("Centres chosen so far: the map shows P(next centre = pixel) ∝ D(x)²")
        self.d2_slider.valueChanged.connect(self._draw_d2)
        self.d2_caption = QtWidgets.QLabel()
        d2_box = QtWidgets.QWidget()
        dl = QtWidgets.QVBoxLayout(d2_box)
        dl.setContentsMargins(0, 0, 0, 0)
        dl.addWidget(self.d2_view, 1)
        srow = QtWidgets.QHBoxLayout()
        srow.addWidget(self.d2_caption)
        srow.addWidget(self.d2_slider, 1)
        dl.addLayout(srow)
        restarts_tab = page([self.restarts_button, (self.restarts_label, 1)],
                            splitter(False, self.restarts_panel, d2_box, sizes=(400, 400), collapsible=False))
        return restarts_tab

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
        # objectives equal within a relative 1e-6 are one solution (one colour, one count)
        ids, n_distinct = side_tasks.one_solution_within(res.inertias, res.solution_ids)
        brushes = [pg.mkBrush(theme.CATEGORICAL[int(i) % len(theme.CATEGORICAL)]) for i in ids]
        self.restarts_points.setData(x=x, y=res.inertias, brush=brushes, size=s.marker_size * 1.4,
                                     pen=pg.mkPen(s.foreground, width=s.scale))
        if len(res.inertias):
            lo, hi = float(np.min(res.inertias)), float(np.max(res.inertias))
            # the axis never magnifies rounding: it spans at least RESTARTS_MIN_SPAN of J
            middle, half = (lo + hi) / 2, max(hi - lo, RESTARTS_MIN_SPAN * max(abs(hi), 1e-300)) / 2
            self.restarts_panel.plot_item.setYRange(middle - half, middle + half, padding=0.08)
            self.restarts_panel.plot_item.setXRange(0, max(len(x), 1) + 1, padding=0)  # whole markers at the ends
            spread = "equal" if n_distinct == 1 else f"+{100 * (hi - lo) / max(lo, 1e-300):.2f}%"
            text = (f"{len(res.inertias)} restarts ({res.init}): <b>{n_distinct} distinct solution"
                    f"{'s' if n_distinct != 1 else ''}</b> (colours)<br>best J = {lo:.5g}, worst {hi:.5g} "
                    f"({spread})")
            self.restarts_label.setText(text)
        # J of k-means on the features of the "k-means vs EM" tab's k-means: the axis says which
        features = "histogram fractions" if self.method in HIST_METHODS else "colours"
        self.restarts_panel.set_labels("Final J", y_label=f"J on {features}")
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
