"""The Gaussian-process lab's tabs, one mixin each, mixed into :class:`~.lab.GPLab`: the posterior
on the points (the canvas), the prior, the evidence map with the optimiser's path, and the same
points under five kernels. Each builds its widgets (``_build_<tab>_tab``) and draws a snapshot
or a result into them; the lab's state stays on the lab."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme
from ...widgets.image_view import ImageView
from ...widgets.labels import NoteLabel
from ...widgets.legends import outside_legend
from ...widgets.pages import splitter
from ...widgets.plots import PlotPanel
from . import run, side_tasks

TAB_POSTERIOR, TAB_PRIOR, TAB_EVIDENCE, TAB_KERNELS = range(4)  # in the order the lab adds them
ORANGE, BLUE, GREEN, VERMILLION, PURPLE, SKY, YELLOW = (theme.OKABE_ITO[k] for k in (
    "orange", "blue", "bluish_green", "vermillion", "reddish_purple", "sky_blue", "yellow"))
DOT, DASH = QtCore.Qt.PenStyle.DotLine, QtCore.Qt.PenStyle.DashLine
#: the map's colours span this many nats below its top (lower is the darkest colour)
MAP_DEPTH = 30.0


def pen(color, width=None, style=QtCore.Qt.PenStyle.SolidLine, alpha=None):
    """A pen scaled for the current style (projector mode thickens it)."""
    s = theme.current()
    c = pg.mkColor(color)
    if alpha is not None:
        c.setAlphaF(alpha)
    p = pg.mkPen(c, width=s.line_width if width is None else width * s.scale)
    p.setStyle(style)
    return p


def retitle(plot, text: str) -> None:
    """Change a plot's title text only (a full restyle each frame would lay its axes out again)."""
    pi = plot.getPlotItem() if hasattr(plot, "getPlotItem") else plot
    if getattr(pi, "_sml_title", None) == text:
        return
    if isinstance(plot, PlotPanel):
        plot._title = text  # what a later restyle shows
    t = theme.current()
    pi._sml_title = text
    pi.setTitle(text, color=t.foreground, size=f"{t.font_pt * 1.1:.0f}pt")


class Band(QtWidgets.QGraphicsPathItem):
    """The area between two curves as one filled path (redrawn once per frame, not once per edge)."""

    def __init__(self):
        super().__init__()
        self.setPen(QtGui.QPen(QtCore.Qt.PenStyle.NoPen))

    def set(self, x, lo, hi) -> None:
        path = pg.arrayToQPath(np.concatenate([x, x[::-1]]), np.concatenate([hi, lo[::-1]]))
        path.closeSubpath()
        self.setPath(path)

    def clear(self) -> None:
        self.setPath(QtGui.QPainterPath())


def _band_brush(alpha: float = 0.25):
    c = pg.mkColor(SKY)
    c.setAlphaF(alpha)
    return pg.mkBrush(c)


class PosteriorTab:
    """The canvas: the points (click to add), the posterior mean, its ±2σ band, samples, the truth."""

    def _build_posterior_tab(self) -> QtWidgets.QWidget:
        self.make_canvas()
        pi = self.canvas.plot_item
        self.band_hi, self.band_lo = pg.PlotCurveItem([], []), pg.PlotCurveItem([], [])
        self.band = Band()
        self.noise_hi, self.noise_lo = pg.PlotDataItem([], []), pg.PlotDataItem([], [])
        self.sample_items = [pg.PlotDataItem([], []) for _ in range(run.N_POSTERIOR)]
        self.truth_item, self.mean_item = pg.PlotDataItem([], []), pg.PlotDataItem([], [])
        for z, item in enumerate((self.band, self.band_hi, self.band_lo, self.noise_hi, self.noise_lo,
                                  *self.sample_items, self.truth_item, self.mean_item)):
            item.setZValue(-30 + z)  # under the points
            pi.addItem(item, ignoreBounds=True)  # the view follows the points, not a wide band
        self.band_key = pg.PlotDataItem([], [])  # the band's key in the legend (a filled area has none)
        legend = outside_legend(pi, "top", columns=3)
        legend.addItem(self.mean_item, "mean")
        legend.addItem(self.band_key, "±2σ")
        legend.addItem(self.noise_hi, "±2σ of y")
        legend.addItem(self.sample_items[0], "samples")
        legend.addItem(self.truth_item, "truth")
        self.evidence_panel = PlotPanel("log evidence at each step", "step", "log p", legend=False)
        self.evidence_curve = self.evidence_panel.curve("log evidence")
        self.posterior_split = splitter(True, self.canvas, self.evidence_panel, sizes=[620, 180], stretch=[4, 1],
                                        collapsible=False)
        return self.posterior_split

    def _draw_posterior(self, s: run.GPLabSnapshot) -> None:
        g = s.ctx.grid
        self.band_hi.setData(g, s.mean + 2 * s.std)
        self.band_lo.setData(g, s.mean - 2 * s.std)
        self.band.set(g, s.mean - 2 * s.std, s.mean + 2 * s.std)
        wide = 2 * np.sqrt(s.std**2 + s.fit.noise)
        self.noise_hi.setData(g, s.mean + wide)
        self.noise_lo.setData(g, s.mean - wide)
        for item, f in zip(self.sample_items, s.samples):
            item.setData(s.ctx.sample_grid, f)
        self.mean_item.setData(g, s.mean)
        self.truth_item.setData(*((g, s.ctx.truth_grid) if s.ctx.truth_grid is not None else ([], [])))
        legend = self.canvas.plot_item.legend
        named = any(sample.item is self.truth_item for sample, _ in legend.items)
        if named != (s.ctx.truth_grid is not None):  # the legend names the truth only when there is one
            if named:
                legend.removeItem(self.truth_item)
            else:
                legend.addItem(self.truth_item, "truth")
        retitle(self.canvas, f"step {s.step}: log evidence {s.fit.log_marginal_likelihood:.4g}, "
                             f"σ² = {s.fit.noise:.3g}")

    def _style_posterior(self, s: theme.Style) -> None:
        fg = s.foreground
        self.band.setBrush(_band_brush())
        for item in (self.band_hi, self.band_lo):
            item.setPen(pen(SKY, 1.0))
        self.band_key.setPen(pen(SKY, 6.0, alpha=0.5))
        for item in (self.noise_hi, self.noise_lo):
            item.setPen(pen(BLUE, 1.2, DOT))
        for item in self.sample_items:
            item.setPen(pen(PURPLE, 1.0, alpha=0.7))
        self.truth_item.setPen(pen(fg, 1.5, DASH))
        self.mean_item.setPen(pen(VERMILLION, 2.5))
        # projector mode: the points and the band take the whole height (the title names the step's
        # evidence; the Evidence tab follows its climb)
        self.evidence_panel.setVisible(not s.projector)


class PriorTab:
    """Five functions from the prior (the same random numbers at every step), k(x₀, x) and K as an image."""

    def _build_prior_tab(self) -> QtWidgets.QWidget:
        self.prior_panel = PlotPanel("Five functions from the prior GP(0, k)", "x", "f(x)", legend=False)
        self.prior_series = [self.prior_panel.curve(f"f{i + 1}", dash=0) for i in range(run.N_PRIOR)]
        self.kernel_panel = PlotPanel("k(x₀, x)", "x", "k(x₀, x)", legend=False)
        self.kernel_series = self.kernel_panel.curve("k", color=VERMILLION, dash=0)
        self.x0_line = pg.InfiniteLine(angle=90, movable=False)
        self.kernel_panel.plot_item.addItem(self.x0_line, ignoreBounds=True)
        self.cov_view = ImageView("K = k(x, x′)", colormap="viridis")
        right = splitter(True, self.kernel_panel, self.cov_view, sizes=[300, 300])
        return splitter(False, self.prior_panel, right, sizes=[600, 380], stretch=[3, 2])

    def _draw_prior(self, s: run.GPLabSnapshot) -> None:
        for series, f in zip(self.prior_series, s.prior):
            series.set(s.ctx.sample_grid, f)
        self.kernel_series.set(s.ctx.grid, s.kernel_curve)
        self.x0_line.setValue(s.ctx.x0)
        retitle(self.kernel_panel, f"k({s.ctx.x0:.3g}, x)")
        lo, hi = float(s.cov.min()), float(s.cov.max())
        self.cov_view.set_image(np.asarray(s.cov), key=id(s.cov), levels=(lo, hi if hi > lo else lo + 1.0))
        a, b = s.ctx.cov_grid[0], s.ctx.cov_grid[-1]
        self.cov_view.set_title(f"K = k(x, x′) on [{a:.2g}, {b:.2g}]²")

    def _style_prior(self, s: theme.Style) -> None:
        self.x0_line.setPen(pen(s.foreground, 1.0, DASH))


class EvidenceTab:
    """The evidence over (the map's hyper-parameter, σ²), the optimiser's path on it, the fit it gives,
    and the evidence's two terms along the map's first axis."""

    def _build_evidence_tab(self) -> QtWidgets.QWidget:
        self.map_panel = PlotPanel("log evidence over (ℓ, σ²)", "log₁₀ ℓ", "log₁₀ σ²")
        pi = self.map_panel.plot_item
        self.map_image = pg.ImageItem(axisOrder="row-major")
        self.map_image.setZValue(-20)
        self.map_contours = pg.PlotCurveItem([], [], connect="finite")
        self.map_contours.setZValue(-10)
        self.path_item = pg.PlotDataItem([], [], connect="finite")
        self.now_item = pg.ScatterPlotItem()
        for item in (self.map_image, self.map_contours, self.path_item, self.now_item):
            pi.addItem(item)
        self.map_panel.legend.addItem(self.path_item, "path")
        self.map_panel.legend.addItem(self.now_item, "this step")
        self.map_panel.legend.setVisible(True)
        vb = pi.getViewBox()
        vb.setMouseEnabled(False, False)  # the view is the map's box: the map covers it whole
        pi.hideButtons()
        self.fit_panel = PlotPanel("The fit now", "x", "y", legend=False)
        self.fit_points = pg.ScatterPlotItem()
        self.fit_hi, self.fit_lo = pg.PlotCurveItem([], []), pg.PlotCurveItem([], [])
        self.fit_band = Band()
        self.fit_mean = pg.PlotDataItem([], [])
        self.fit_panel.plot_item.addItem(self.fit_band, ignoreBounds=True)
        for item in (self.fit_hi, self.fit_lo, self.fit_mean, self.fit_points):
            self.fit_panel.plot_item.addItem(item)
        self.terms_panel = PlotPanel("Terms vs ℓ", "log₁₀ ℓ", "nats")
        for name in ("fit", "complexity", "log p"):  # short: the legend keeps to two rows on a projector
            self.terms_panel.curve(name)
        self.terms_line = pg.InfiniteLine(angle=90, movable=False)
        self.terms_panel.plot_item.addItem(self.terms_line, ignoreBounds=True)
        right = splitter(True, self.fit_panel, self.terms_panel, sizes=[260, 340])  # the terms carry a legend
        self.evidence_split = splitter(False, self.map_panel, right, sizes=[520, 460], stretch=[1, 1])
        return self.evidence_split

    def _draw_evidence(self, s: run.GPLabSnapshot, frame: run.EvidenceFrame | None) -> None:
        ctx = s.ctx
        symbol = ctx.map_symbol
        self.map_panel.set_labels(x_label=f"log₁₀ {symbol}")
        self.terms_panel.set_labels(title=f"Terms vs {symbol}", x_label=f"log₁₀ {symbol}")
        retitle(self.map_panel, f"log p(y | X, θ), step {s.step}")
        self.path_item.setData(s.path[:, 0], s.path[:, 1])
        self.now_item.setData([s.point[0]], [s.point[1]])
        self.terms_line.setValue(float(s.point[0]))
        self.fit_points.setData(ctx.x, ctx.y)
        g = ctx.grid
        self.fit_hi.setData(g, s.mean + 2 * s.std)
        self.fit_lo.setData(g, s.mean - 2 * s.std)
        self.fit_band.set(g, s.mean - 2 * s.std, s.mean + 2 * s.std)
        self.fit_mean.setData(g, s.mean)
        span = max(float(np.ptp(ctx.y)), 1e-6)
        self.fit_panel.plot_item.setRange(xRange=(g[0], g[-1]), yRange=(float(ctx.y.min()) - 0.5 * span,
                                                                        float(ctx.y.max()) + 0.5 * span), padding=0)
        if frame is not None:
            self._draw_map(frame)

    def _draw_map(self, frame: run.EvidenceFrame) -> None:
        x0, x1, y0, y1 = frame.box
        values = np.where(np.isfinite(frame.values), frame.values, frame.top - 1e6)
        self.map_image.setImage(np.clip(values, frame.top - MAP_DEPTH, frame.top), autoLevels=False,
                                levels=(frame.top - MAP_DEPTH, frame.top))
        n = frame.values.shape[0]
        dx, dy = (x1 - x0) / (n - 1), (y1 - y0) / (n - 1)
        self.map_image.setRect(QtCore.QRectF(x0 - dx / 2, y0 - dy / 2, x1 - x0 + dx, y1 - y0 + dy))
        xs = [frame.contours[d][0] for d in sorted(frame.contours)]
        ys = [frame.contours[d][1] for d in sorted(frame.contours)]
        self.map_contours.setData(np.concatenate(xs) if xs else [], np.concatenate(ys) if ys else [])
        vb = self.map_panel.plot_item.getViewBox()
        vb.disableAutoRange()
        vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
        total = frame.data_fit + frame.complexity + frame.constant
        keep = np.isfinite(total)
        series = self.terms_panel.series
        series["fit"].set(frame.axis[keep], frame.data_fit[keep])
        series["complexity"].set(frame.axis[keep], frame.complexity[keep])
        series["log p"].set(frame.axis[keep], total[keep])
        if keep.any():  # the interesting part: from well below the best evidence to the largest term
            top = float(max(frame.complexity[keep].max(), frame.data_fit[keep].max(), total[keep].max()))
            low = float(total[keep].max()) - 60.0
            self.terms_panel.plot_item.setRange(xRange=(x0, x1), yRange=(low, top + 0.1 * (top - low)), padding=0)

    def _style_evidence(self, s: theme.Style) -> None:
        fg = s.foreground
        self.map_image.setLookupTable(pg.colormap.get("viridis").getLookupTable(nPts=256))
        self.map_contours.setPen(pen("#FFFFFF", 1.0, alpha=0.6))
        self.path_item.setPen(pen(ORANGE, 2.0))
        self.path_item.setSymbol("o")
        self.path_item.setSymbolSize(5 * s.scale)
        self.path_item.setSymbolBrush(pg.mkBrush(ORANGE))
        self.path_item.setSymbolPen(pg.mkPen(None))
        self.now_item.setData(self.now_item.data["x"], self.now_item.data["y"], symbol="star",
                              size=s.marker_size * 2.0, pen=pen(fg, 1.0), brush=pg.mkBrush(VERMILLION))
        self.fit_band.setBrush(_band_brush())
        for item in (self.fit_hi, self.fit_lo):
            item.setPen(pen(SKY, 1.0))
        self.fit_mean.setPen(pen(VERMILLION, 2.0))
        self.fit_points.setData(self.fit_points.data["x"], self.fit_points.data["y"], size=s.marker_size * 0.8,
                                pen=pg.mkPen(fg), brush=pg.mkBrush(BLUE))
        self.terms_line.setPen(pen(fg, 1.0, DASH))


def bar_row(index: int) -> int:
    """The row of the kernel ``index``'s bar: the first kernel on top."""
    return len(side_tasks.COMPARED) - 1 - index


class KernelsTab:
    """The same points under five kernels, each optimised by the evidence (a side task), with the
    evidence each reaches as a bar."""

    def _build_kernels_tab(self) -> QtWidgets.QWidget:
        # the bars below name the curves' colours: no legend takes the curves' room
        self.kernels_panel = PlotPanel("The same points under five kernels (colours as the bars)", "x", "y",
                                       legend=False)
        for name in side_tasks.COMPARED:
            self.kernels_panel.curve(side_tasks.SHORT[name])
        self.kernels_points = pg.ScatterPlotItem()
        self.kernels_panel.plot_item.addItem(self.kernels_points)
        # the bars lie down, each named on its own row (five names side by side overlap on a projector)
        self.bars_panel = PlotPanel("Each kernel's log evidence (the best outlined)", "log p", "", legend=False)
        self.bars = pg.BarGraphItem(x0=[], y=[], width=[], height=0.6)
        self.bars_panel.plot_item.addItem(self.bars)
        self.bars_panel.plot_item.getAxis("left").setTicks(
            [[(bar_row(i), side_tasks.SHORT[n]) for i, n in enumerate(side_tasks.COMPARED)], []])
        self.kernels_note = NoteLabel(lines=2, tight=True)
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(splitter(True, self.kernels_panel, self.bars_panel, sizes=[340, 340], stretch=[1, 1]), 1)
        lay.addWidget(self.kernels_note)
        self.kernel_fits: list[side_tasks.KernelFit] = []
        self._kernels_key = None
        return page

    def _start_kernels(self) -> None:
        """Fit the five kernels to the points (a side task), unless that is done or under way."""
        X = self.canvas.X
        p = self.params()
        if len(X) < 2:
            self.kernels_note.setText("The kernels are compared on two points or more.")
            return
        key = (X.tobytes(), p["length_scale"], p["variance"], p["period"], p["noise"], p["restarts"], self.seed)
        if key == self._kernels_key:
            return
        self._kernels_key = key
        self.kernel_fits = []
        self._draw_kernels()
        self.kernels_note.setText("Fitting the five kernels …")
        grid = np.linspace(*self._grid_range(), run.GRID_POINTS)
        task = self.task("kernels", on_item=self._kernel_fitted, on_done=self._kernels_done,
                         on_error=self._kernels_failed)
        task.start(side_tasks.compare_kernels, X[:, 0].copy(), X[:, 1].copy(), grid,
                   (p["length_scale"], p["variance"], p["period"], p["noise"]), p["restarts"], self.seed)
        self._kernels_grid = grid

    def _kernel_fitted(self, fit: side_tasks.KernelFit) -> None:
        self.kernel_fits.append(fit)
        self._draw_kernels()

    def _kernels_done(self, _result) -> None:
        fits = self.kernel_fits
        if fits:
            best = max(fits, key=lambda f: f.log_evidence)
            self.kernels_note.setText(f"The evidence prefers {side_tasks.SHORT[best.name]} "
                                      f"(log p = {best.log_evidence:.4g}): the best balance of fit and simplicity.")
            self.kernels_note.setToolTip("Each kernel with its hyper-parameters and σ² chosen by the evidence")

    def _kernels_failed(self, message: str) -> None:
        self._kernels_key = None
        self.kernels_note.setText(f"Comparing the kernels failed: {message}")

    def _draw_kernels(self) -> None:
        X = self.canvas.X
        self.kernels_points.setData(X[:, 0], X[:, 1])
        for name in side_tasks.COMPARED:
            self.kernels_panel.series[side_tasks.SHORT[name]].clear()
        for f in self.kernel_fits:
            self.kernels_panel.series[side_tasks.SHORT[f.name]].set(self._kernels_grid, f.mean)
        fits = self.kernel_fits
        if not fits:
            self.bars.setOpts(x0=[], y=[], width=[], height=0.6)
            return
        best = max(f.log_evidence for f in fits)
        fg = theme.current().foreground
        values = np.array([f.log_evidence for f in fits])
        self.bars.setOpts(x0=np.minimum(values, 0.0), width=np.abs(values), y=[bar_row(f.index) for f in fits],
                          height=0.6,
                          brushes=[pg.mkBrush(self.kernels_panel.series[side_tasks.SHORT[f.name]].item.opts["pen"]
                                              .color()) for f in fits],
                          pens=[pen(fg, 3.0) if f.log_evidence == best else pg.mkPen(None) for f in fits])
        self.bars_panel.plot_item.setYRange(-0.6, len(side_tasks.COMPARED) - 0.4, padding=0)
        self.kernels_note.setText(f"{len(fits)} of {len(side_tasks.COMPARED)} kernels fitted …"
                                  if len(fits) < len(side_tasks.COMPARED) else self.kernels_note.text())

    def _style_kernels(self, s: theme.Style) -> None:
        self.kernels_points.setData(self.kernels_points.data["x"], self.kernels_points.data["y"],
                                    size=s.marker_size * 0.8, pen=pg.mkPen(s.foreground), brush=pg.mkBrush(BLUE))
