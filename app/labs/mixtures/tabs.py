"""The mixtures lab's side tabs, one class each, mixed into :class:`~.lab.MixturesLab`: the
k-means limit (k-means and EM with Σₖ = σ²I from the same start), seeded restarts and the choice
of K (BIC, AIC and split-half stability), whose results go stale with the data (:class:`SideResults`).

Each class holds its tab's widgets and handlers; the lab's state stays on the lab.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from ... import style as theme
from ...widgets.labels import NoteLabel
from ...widgets.params import LogSlider
from ...widgets.pages import control_row, page, splitter
from ...widgets.plots import PlotPanel
from ...widgets.shapes import PALETTE, blend_colours, ellipse_xy
from . import run

TAB_EM, TAB_KMEANS, TAB_RESTARTS, TAB_ORDER = range(4)  # positions of the tabs, in the order the lab adds them


def strip_positions(ids: np.ndarray, width: float = 0.5) -> np.ndarray:
    """x of every restart in the strip: its optimum's index, restarts of one optimum spread side by side."""
    ids = np.asarray(ids, dtype=int)
    x = ids.astype(float)
    for i in np.unique(ids):
        where = np.flatnonzero(ids == i)
        if len(where) > 1:
            x[where] += np.linspace(-width / 2, width / 2, len(where))
    return x


def _aspect_plot(title: str) -> PlotPanel:
    panel = PlotPanel(title, "x₁", "x₂", legend=False)
    panel.plot_item.setAspectLocked(True)
    return panel


class KMeansLimitTab:
    """k-means from the run's start beside EM with fixed spherical covariances σ²I: as σ → 0 they agree."""

    def _build_kmeans_tab(self) -> QtWidgets.QWidget:
        self.km_plot = _aspect_plot("k-means, same start")
        self.km_points = pg.ScatterPlotItem()
        self.km_centres = pg.ScatterPlotItem()
        self.km_centres.setZValue(10)
        self.km_plot.plot_item.addItem(self.km_points)
        self.km_plot.plot_item.addItem(self.km_centres)
        self.sigma_plot = _aspect_plot("EM, Σₖ = σ²I")
        self.sigma_points = pg.ScatterPlotItem()
        self.sigma_means = pg.ScatterPlotItem()
        self.sigma_means.setZValue(10)
        self.sigma_circles = pg.PlotCurveItem(connect="finite")
        for item in (self.sigma_points, self.sigma_means, self.sigma_circles):
            self.sigma_plot.plot_item.addItem(item)
        self.sigma_slider = LogSlider(0.01, 10.0, 1.0, 3)
        self.sigma_slider.setToolTip("σ of the fixed spherical covariances: as σ → 0 EM becomes k-means")
        self.sigma_slider.valueChanged.connect(lambda _v: self.update_sigma())
        self.sigma_label = NoteLabel()
        tab = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(tab)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(splitter(False, self.km_plot, self.sigma_plot), 1)
        lay.addLayout(control_row(QtWidgets.QLabel("σ"), (self.sigma_slider, 1)))
        lay.addWidget(self.sigma_label)
        return tab

    def _render_kmeans(self, frame, s) -> None:
        """k-means' points and centres (drawn while its tab is shown, and when it is opened)."""
        km = frame.km
        if km is None or self.tabs.currentIndex() != TAB_KMEANS:
            return
        X = frame.ctx.X
        key = (id(frame.ctx), s)
        if key != self._km_key:
            self._km_key = key
            self.km_points.setData(pos=X, size=s.marker_size * 0.8, pen=pg.mkPen(None))
        labels = np.asarray(km.labels, dtype=int)
        self.km_points.setBrush(self._brushes(PALETTE[labels % len(PALETTE)].astype(np.ubyte)))
        k = len(km.centers)
        self.km_centres.setData(pos=np.asarray(km.centers), symbol="d", size=s.marker_size * 1.9,
                                brush=[pg.mkBrush(theme.CATEGORICAL[j % 8]) for j in range(k)],
                                pen=pg.mkPen(s.foreground, width=1.5 * s.scale))
        self.km_plot.set_title(f"k-means, iteration {km.n_iter}" + (" (done)" if km.converged else ""))

    def _tab_changed(self, index: int) -> None:
        if index == TAB_KMEANS:
            if self.runner.current is not None:
                self._render_kmeans(self.runner.current, theme.current())
            self.update_sigma()

    def update_sigma(self) -> None:
        if self._ctx is None or self._start_means is None:
            return
        task = self.task("sigma", on_done=self._sigma_done, on_error=self.show_error)
        task.start(run.sigma_limit, self._ctx.X, self._start_means, self.sigma_slider.value())
        self.sigma_label.setText("Running EM with fixed σ …")

    def _sigma_done(self, result: run.SigmaResult) -> None:
        self.sigma_result = result
        s = theme.current()
        X = self._ctx.X if self._ctx is not None else self.canvas.X
        if len(X) != len(result.responsibilities):
            return
        self.sigma_points.setData(pos=X, size=s.marker_size * 0.8, pen=pg.mkPen(None),
                                  brush=self._brushes(blend_colours(result.responsibilities, PALETTE)))
        k = len(result.means)
        self.sigma_means.setData(pos=result.means, symbol="d", size=s.marker_size * 1.9,
                                 brush=[pg.mkBrush(theme.CATEGORICAL[j % 8]) for j in range(k)],
                                 pen=pg.mkPen(s.foreground, width=1.5 * s.scale))
        xs, ys = [], []
        for m in result.means:
            x, y = ellipse_xy(m, result.sigma**2 * np.eye(2), radii=(1.0,))
            xs += [x, [np.nan]]
            ys += [y, [np.nan]]
        self.sigma_circles.setData(np.concatenate(xs), np.concatenate(ys),
                                   pen=pg.mkPen(s.foreground, width=max(1.0, s.line_width * 0.5)))
        self.sigma_plot.set_title(f"EM, Σₖ = σ²I, σ = {result.sigma:.3g}")
        self.sigma_label.setText(
            f"{100 * result.agreement:.1f}% as k-means, means ≤ {result.max_shift:.2g} apart. σ → 0: k-means.")
        self.sigma_label.setToolTip(
            f"EM with fixed Σₖ = σ²I and cₖ = 1/K from the run's initial means ({result.n_iter} iterations): "
            f"{100 * result.agreement:.1f}% of the points get the same cluster as k-means from the same means, "
            f"whose centres are at most {result.max_shift:.3g} from EM's means. As σ shrinks the responsibilities "
            "become 0 or 1 and EM turns into k-means.")


class RestartsTab:
    """EM from seeded starts: how many local optima, and the best and the worst."""

    def _build_restarts_tab(self) -> QtWidgets.QWidget:
        self.restarts_button = QtWidgets.QPushButton(f"Run {run.N_RESTARTS} restarts")
        self.restarts_button.setToolTip("EM from 20 seeded starts with the current parameters: how many different "
                                        "local optima, and which is best")
        self.restarts_button.clicked.connect(self.run_restarts)
        self.restarts_label = NoteLabel("EM finds a local maximum of ℓ; different starts can end in "
                                         "different ones.")
        self.strip_plot = PlotPanel("Final ℓ per restart", "optimum", "ℓ", legend=False)
        self.strip_item = pg.ScatterPlotItem()
        self.strip_best = pg.ScatterPlotItem()
        self.strip_plot.plot_item.addItem(self.strip_item)
        self.strip_plot.plot_item.addItem(self.strip_best)
        self.best_plot = _aspect_plot("Best ◆, worst ✕")
        self.best_points = pg.ScatterPlotItem()
        self.restart_means_item = pg.ScatterPlotItem()
        self.restart_means_item.setZValue(10)
        self.best_plot.plot_item.addItem(self.best_points)
        self.best_plot.plot_item.addItem(self.restart_means_item)
        return page([self.restarts_button, (self.restarts_label, 1)],
                    splitter(False, self.strip_plot, self.best_plot))

    def run_restarts(self) -> None:
        X = self.canvas.X.copy()
        try:
            run.check_context(run.RunContext(X=X, params={**self.params(), "init": "random"}, seed=self.seed))
        except ValueError as exc:
            self.restarts_label.setText(f"⚠ {exc}")
            return
        self._restarts_X = X
        self.strip_item.setData([], [])
        self.strip_best.setData([], [])
        task = self.task("restarts", on_item=self._restart_item, on_done=lambda _r: None,
                         on_error=lambda m: self.restarts_label.setText(f"⚠ {m}"))
        task.start(run.restarts_steps, X, self.params(), self.seed)
        self.restarts_label.setText("Running …")

    def _restart_item(self, snap) -> None:
        self.restarts_result = snap
        s = theme.current()
        ll = np.asarray(snap.log_likelihoods)
        ids = np.asarray(snap.solution_ids)
        counts = np.bincount(ids)
        x = strip_positions(ids)
        self.strip_item.setData(x=x, y=ll, symbol="o", size=s.marker_size * 1.2,
                                brush=[pg.mkBrush(theme.CATEGORICAL[i % 8]) for i in ids],
                                pen=pg.mkPen(s.foreground, width=s.scale))
        b = snap.best_index
        self.strip_best.setData(x=[x[b]], y=[ll[b]], symbol="o", size=s.marker_size * 2.4, brush=pg.mkBrush(None),
                                pen=pg.mkPen(theme.OKABE_ITO["bluish_green"], width=3 * s.scale))
        self.strip_plot.plot_item.setXRange(-0.5, max(int(ids.max()), 1) + 0.5, padding=0)
        self.strip_plot.plot_item.getAxis("bottom").setTicks([[(i, str(i + 1)) for i in range(len(counts))]])
        done = len(ll)
        spread = float(ll.max() - ll.min()) if done > 1 else 0.0
        self.restarts_label.setText(
            f"{done} of {snap.n_restarts} restarts: <b>{snap.n_distinct}</b> distinct optim"
            f"{'um' if snap.n_distinct == 1 else 'a'} (restarts reaching each: {', '.join(map(str, counts))}); "
            f"best ℓ = {ll[b]:,.1f}, spread {spread:,.1f}")
        X = self._restarts_X
        self.best_points.setData(pos=X, size=s.marker_size * 0.6, brush=pg.mkBrush(160, 160, 160), pen=pg.mkPen(None))
        self._draw_restart_means(snap, s)

    def _draw_restart_means(self, snap, s) -> None:
        best = np.asarray(snap.best_means)
        pts, symbols = [best], ["d"] * len(best)
        brushes = [pg.mkBrush(theme.OKABE_ITO["bluish_green"])] * len(best)
        if snap.worst_index != snap.best_index:
            worst = np.asarray(snap.worst_means)
            pts.append(worst)
            symbols += ["x"] * len(worst)
            brushes += [pg.mkBrush(theme.OKABE_ITO["vermillion"])] * len(worst)
        self.restart_means_item.setData(pos=np.vstack(pts), symbol=symbols, brush=brushes, size=s.marker_size * 1.8,
                                        pen=pg.mkPen(s.foreground, width=s.scale))


class ModelOrderTab:
    """BIC, AIC and split-half instability for K = 1 … 8, with each K's fit as a thumbnail."""

    def _build_order_tab(self) -> QtWidgets.QWidget:
        self.order_button = QtWidgets.QPushButton("Compare K = 1…8")
        self.order_button.setToolTip("Fit K = 1..8 (two restarts each), then split-half stability; "
                                     "fills in as each K is done")
        self.order_button.clicked.connect(self.run_model_order)
        self.order_label = NoteLabel("BIC = −2ℓ + m log n and AIC = −2ℓ + 2m (lower is better).")
        self.crit_plot = PlotPanel("BIC and AIC", "K", "criterion", legend_corner="top")
        self.bic_curve = self.crit_plot.curve("BIC")
        self.aic_curve = self.crit_plot.curve("AIC")
        self.best_k_line = pg.InfiniteLine(angle=90, movable=False, label="BIC's K",
                                           labelOpts={"position": 0.9, "anchors": [(0, 0), (0, 0)]})
        self.best_k_line.setVisible(False)
        self.crit_plot.plot_item.addItem(self.best_k_line, ignoreBounds=True)
        self.stab_plot = PlotPanel("Split-half instability", "K", "disagreement", legend=False)
        self.stab_curve = self.stab_plot.curve("instability")
        self._style_criteria(theme.current())
        self.thumbs = PlotPanel("Fit for each K (BIC's K framed)", "", "", legend=False)
        self.thumbs.plot_item.setAspectLocked(True)
        for name in ("left", "bottom"):
            self.thumbs.plot_item.hideAxis(name)
        self.thumb_points = pg.ScatterPlotItem()
        self.thumb_lines = pg.PlotCurveItem(connect="finite")
        self.thumb_frames = pg.PlotCurveItem(connect="finite")
        self.thumb_best = pg.PlotCurveItem(connect="finite")
        self.thumb_labels: list[pg.TextItem] = []
        for item in (self.thumb_points, self.thumb_lines, self.thumb_frames, self.thumb_best):
            self.thumbs.plot_item.addItem(item)
        curves = splitter(False, self.crit_plot, self.stab_plot)
        return page([self.order_button, (self.order_label, 1)],
                    splitter(True, curves, self.thumbs, stretch=(1, 1), sizes=(300, 300)))

    def _style_criteria(self, s: theme.Style) -> None:
        """Each criterion's markers in its line's colour and a shape of their own (BIC round, AIC
        square): the two stay apart where their lines cross, and in grey print."""
        for series, symbol in ((self.bic_curve, "o"), (self.aic_curve, "s"), (self.stab_curve, "o")):
            colour = series.item._sml_style[0]
            series.item.setSymbol(symbol)
            series.item.setSymbolSize(s.marker_size * 0.9)
            series.item.setSymbolBrush(pg.mkBrush(colour))
            series.item.setSymbolPen(pg.mkPen(s.foreground, width=max(1.0, 0.6 * s.scale)))

    def run_model_order(self) -> None:
        X = self.canvas.X.copy()
        if len(X) < 4 or len(np.unique(X, axis=0)) < 2:
            self.order_label.setText("⚠ Comparing K needs at least 4 points with some spread.")
            return
        self._order_X = X
        self.bic_curve.clear()
        self.aic_curve.clear()
        self.stab_curve.clear()
        self.best_k_line.setVisible(False)
        task = self.task("order", on_item=self._order_item, on_done=lambda _r: None,
                         on_error=lambda m: self.order_label.setText(f"⚠ {m}"))
        task.start(run.model_order, X, self.params(), self.seed)
        self.order_label.setText("Fitting K = 1 …")

    def _order_item(self, snap) -> None:
        self.order_result = snap
        ks = np.asarray(snap.ks, dtype=float)
        done = np.isfinite(snap.bic)
        self.bic_curve.set(ks[done], np.asarray(snap.bic)[done])
        self.aic_curve.set(ks[done], np.asarray(snap.aic)[done])
        inst = np.asarray(snap.instability)
        self.stab_curve.set(ks[np.isfinite(inst)], inst[np.isfinite(inst)])
        if snap.best_bic_k:
            self.best_k_line.setValue(snap.best_bic_k)
            self.best_k_line.setVisible(True)
        text = f"K = {snap.best_bic_k} by BIC, K = {snap.best_aic_k} by AIC"
        if np.isfinite(inst).any():
            stable = [int(k) for k, v in zip(snap.ks, inst) if np.isfinite(v) and k > 1]
            if stable:
                best = min(stable, key=lambda kk: inst[list(snap.ks).index(kk)])
                text += f"; most stable K > 1: {best}"
        if self.truth is not None and self.form.value("data") != run.OWN:
            text += f" (the sample has {len(self.truth.weights)} components)"
        self.order_label.setText(text + ("" if snap.progress >= 1.0 else " …"))
        self._draw_thumbnails(snap)

    def _draw_thumbnails(self, snap) -> None:
        """Each K's fit in its own cell of one plot (4 × 2 cells), the data scaled into the cell."""
        X = self._order_X
        lo, hi = X.min(axis=0), X.max(axis=0)
        span = float(max(hi[0] - lo[0], hi[1] - lo[1], 1e-9))
        cell = 1.15
        pts, lines_x, lines_y, frame_x, frame_y = [], [], [], [], []
        best_x, best_y = [], []
        for label in self.thumb_labels:
            self.thumbs.plot_item.removeItem(label)
        self.thumb_labels = []
        s = theme.current()
        for i, model in enumerate(snap.models):
            k = int(snap.ks[i])
            col, row = i % 4, i // 4
            ox, oy = col * cell, -row * cell
            if model is None:
                continue
            _w, means, covs = model
            pts.append((X - lo) / span + (ox, oy))
            for m, S in zip(means, covs):
                x, y = ellipse_xy((m - lo) / span + (ox, oy), S / span**2, radii=(2.0,), n=40)
                lines_x += [x, [np.nan]]
                lines_y += [y, [np.nan]]
            fx = [ox - 0.05, ox + 1.05, ox + 1.05, ox - 0.05, ox - 0.05, np.nan]
            fy = [oy - 0.05, oy - 0.05, oy + 1.05, oy + 1.05, oy - 0.05, np.nan]
            (best_x if k == snap.best_bic_k else frame_x).extend(fx)
            (best_y if k == snap.best_bic_k else frame_y).extend(fy)
            text = pg.TextItem(f"K={k}", anchor=(0, 0), color=s.foreground)
            text.setPos(ox - 0.05, oy + 1.05)
            self.thumbs.plot_item.addItem(text)
            self.thumb_labels.append(text)
        if pts:
            self.thumb_points.setData(pos=np.vstack(pts), size=max(2.0, 3 * s.scale), pen=pg.mkPen(None),
                                      brush=pg.mkBrush(140, 140, 140))
            self.thumb_lines.setData(np.concatenate(lines_x), np.concatenate(lines_y),
                                     pen=pg.mkPen(theme.OKABE_ITO["blue"], width=s.scale))
        self.thumb_frames.setData(np.array(frame_x, float), np.array(frame_y, float),
                                  pen=pg.mkPen(s.foreground, width=0.5 * s.scale))
        self.thumb_best.setData(np.array(best_x, float), np.array(best_y, float),
                                pen=pg.mkPen(theme.OKABE_ITO["vermillion"], width=3 * s.scale))


class SideResults:
    """The restarts and the comparison of K belong to the data and parameters they ran on."""

    def _side_results_stale(self) -> None:
        for name in ("restarts", "order"):
            t = self._tasks.get(name)
            if t is not None and t.busy:
                t.cancel()
        if self.restarts_result is not None or self.order_result is not None:
            self.restarts_label.setText("The data or parameters changed: run the restarts again.")
            self.order_label.setText("The data or parameters changed: compare again.")
        self.restarts_result = None
        self.order_result = None
