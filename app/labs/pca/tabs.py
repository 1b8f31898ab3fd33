"""The PCA lab's tabs of the run, one class each, mixed into :class:`~.lab.PCALab`: the power
method, the compression with d components and the scores (the Draw and Race tabs have modules of
their own). Each builds its tab and draws what depends on the data and d; the lab renders the
snapshots and keeps the state (``_data``, ``d``, ``selected``).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets import plot_style
from ...widgets.plots import PlotPanel
from . import run
from .views import DIVERGING, ImagePanel

N_GALLERY = 8  # eigen-digits in the gallery (2 rows of 4)
SYMBOLS = ["o", "s", "t", "d", "+", "x", "star", "h", "p", "t1"]


#: the smallest side of a digit in the projector's image strips, in pixels: readable from the back row
MIN_TILE_PX = 150


def strip_height() -> int:
    """Height of a projector strip of digits: the title, a digit of MIN_TILE_PX and its label."""
    s = theme.current()
    return int(MIN_TILE_PX + 3.6 * s.font_pt * 96 / 72 + 12)


def label_units(view, shape) -> float:
    """Room above a row of digits for their labels, in image pixels (a line of text at the size
    the digits are drawn when they are MIN_TILE_PX)."""
    return 1.5 * theme.current().font_pt * 96 / 72 * min(shape) / MIN_TILE_PX


def tiles_across(view, shape, pad: int = 1) -> int:
    """How many digits of ``shape`` fit side by side in ``view`` at MIN_TILE_PX each (at least 1)."""
    h, w = shape
    width = view.vb.width() if view.vb.width() > 1 else view.width()
    scale = MIN_TILE_PX / min(h, w)  # screen pixels per image pixel
    return max(1, int((width * 0.96 / scale + pad) // (w + pad)))


class PowerTab:
    """The power method live: the iterate v and the eigen-digits found so far, the Rayleigh quotient
    and the convergence of v to ξⱼ (drawn by the lab's ``render``)."""

    def _build_power_tab(self) -> QtWidgets.QWidget:
        self.iterate_view = ImagePanel("Iterate v")
        self.found_view = ImagePanel("Found ξⱼ")
        images = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        images.addWidget(self.iterate_view)
        images.addWidget(self.found_view)
        images.setSizes([300, 200])
        self.rayleigh_panel = PlotPanel("Rayleigh quotient", "step", "ρ = vᵀBv", legend_corner="bottom-right")
        self.rayleigh_curve = self.rayleigh_panel.curve("ρ")
        self.rayleigh_exact_item = pg.PlotDataItem([], [], name="exact λⱼ")
        self.rayleigh_exact_item.setPen(pg.mkPen(theme.OKABE_ITO["bluish_green"], width=1.5,
                                                 style=QtCore.Qt.PenStyle.DashLine))
        # the exact values grow with the run's last step: they follow the view, not drive it
        self.rayleigh_panel.plot_item.addItem(self.rayleigh_exact_item, ignoreBounds=True)
        self.angle_panel = PlotPanel("Convergence", "step", "radians / norm", log_y=True, legend_corner="top")
        self.angle_curve = self.angle_panel.curve("∠(v, ξⱼ)")
        self.change_curve = self.angle_panel.curve("‖Δv‖")
        self.predicted_curve = self.angle_panel.curve("θ₀·rateᵗ", color=theme.OKABE_ITO["black"], dash=2)
        curves = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        curves.addWidget(self.rayleigh_panel)
        curves.addWidget(self.angle_panel)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(images)
        split.addWidget(curves)
        split.setSizes([300, 600])
        self.power_splits = (split, images, curves)
        for view in (self.iterate_view, self.found_view):  # fewer, larger eigen-digits in a narrower view
            view.vb.sigResized.connect(self._tiles_resized)
        return split

    def _arrange_power(self, projector: bool) -> None:
        """Normal mode: the images in a column beside the curves. Projector mode: the images in a
        strip across the top (each digit at least MIN_TILE_PX), the curves side by side below."""
        split, images, curves = self.power_splits
        across, down = QtCore.Qt.Orientation.Horizontal, QtCore.Qt.Orientation.Vertical
        split.setOrientation(down if projector else across)
        images.setOrientation(across if projector else down)
        curves.setOrientation(across if projector else down)
        # the iterate is one digit: the found ones take the rest of the strip
        images.setStretchFactor(0, 1 if projector else 3)
        images.setStretchFactor(1, 4 if projector else 2)
        if projector:
            split.setSizes([strip_height(), max(1, sum(split.sizes()) - strip_height())])
            wide = max(sum(images.sizes()), 4 * MIN_TILE_PX)
            images.setSizes([MIN_TILE_PX + 40, wide - MIN_TILE_PX - 40])
            curves.setSizes([1, 1])
        else:
            split.setSizes([300, 600])
            images.setSizes([300, 200])
            curves.setSizes([1, 1])

    def _tiles_resized(self, *_args) -> None:
        """A resized image view shows as many eigen-digits as fit at MIN_TILE_PX (projector mode)."""
        snap, data = self.runner.current, self._data
        if data is None or not theme.current().projector:
            return
        if tiles_across(self.gallery, data.shape) != getattr(self, "_gallery_fit", None):
            self._draw_gallery(data)
        if snap is not None and snap.data is data and tiles_across(self.found_view, data.shape) != getattr(
                self, "_found_fit", None):
            self._found_key = None
            self._draw_found(snap)

    def _draw_found(self, p) -> None:
        """The eigen-digits found so far: all of them in rows of four (normal mode); in projector
        mode the newest that fit across the view at MIN_TILE_PX each."""
        data = p.data
        h, w = data.shape
        key = (id(p.components), id(data), theme.current().projector)
        if key == self._found_key:
            return
        self._found_key = key
        k = len(p.components)
        if not k:
            self.found_view.hide_image("found")
            self.found_view.set_labels([])
            self.found_view.set_title("Found: none yet")
            return
        if theme.current().projector:
            self._found_fit = tiles_across(self.found_view, data.shape)
            first = max(0, k - self._found_fit)
            cols, pad = k - first, 1
        else:
            first, cols, pad = 0, min(k, 4), 1
        tiles = run.normalised(np.asarray(p.components[first:]).reshape(k - first, h, w))
        img = run.mosaic(tiles, cols, pad=pad)
        self.found_view.draw("found", img, (-1, 1), lut=DIVERGING)
        if theme.current().projector:
            self.found_view.set_labels([(c * (w + pad) + w / 2, 0, f"ξ{first + c + 1}") for c in range(cols)])
            self.found_view.fit(img.shape[1], img.shape[0], top=-label_units(self.found_view, data.shape))
        else:
            self.found_view.set_labels([])
            self.found_view.fit(img.shape[1], img.shape[0])
        self.found_view.set_title(f"Found ξ₁…ξ{k}" if first == 0 else f"Found ξ{first + 1}…ξ{k} (of {k})")


class CompressionTab:
    """The mean and the eigen-digits, the scree plot, reconstructions with d components and the
    error against d; d set by its slider."""

    def _build_compression_tab(self) -> QtWidgets.QWidget:
        self.gallery = ImagePanel("Mean and eigen-digits")
        self.scree_panel = PlotPanel("Scree", "component j", "% of variance", legend_corner="top")
        if self.scree_panel.legend is not None:  # one row: the plot keeps its height for the curves
            self.scree_panel.legend.setColumnCount(2)
        self.scree_curve = self.scree_panel.curve("λⱼ / Σλ")
        self.cumulative_curve = self.scree_panel.curve("cumulative")
        self.scree_curve.item.setSymbol("o")
        self.scree_curve.item.setSymbolSize(6)
        self.gap_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(theme.OKABE_ITO["vermillion"], width=2,
                                                               style=QtCore.Qt.PenStyle.DashLine),
                                        label="gap",
                                        labelOpts={"position": 0.92, "color": theme.OKABE_ITO["vermillion"]})
        self.scree_panel.plot_item.addItem(self.gap_line)
        self.scree_d_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(theme.OKABE_ITO["bluish_green"], width=2))
        self.scree_panel.plot_item.addItem(self.scree_d_line)

        self.recon_view = ImagePanel("Reconstructions")
        self.d_slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.d_slider.setRange(1, 64)
        self.d_slider.setToolTip("Number d of components used to reconstruct the images")
        self.d_box = QtWidgets.QSpinBox()
        self.d_box.setRange(1, 64)
        self.d_box.setToolTip("Number d of components used to reconstruct the images")
        self.d_slider.valueChanged.connect(self.set_d)
        self.d_box.valueChanged.connect(self.set_d)
        self.compression_label = QtWidgets.QLabel()
        self.compression_label.setWordWrap(True)
        recon = QtWidgets.QWidget()
        rl = QtWidgets.QVBoxLayout(recon)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.setSpacing(2)
        rl.addWidget(self.recon_view, 1)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("d"))
        row.addWidget(self.d_slider, 1)
        row.addWidget(self.d_box)
        rl.addLayout(row)
        rl.addWidget(self.compression_label)

        self.error_panel = PlotPanel("Error vs d", "d", "mean ‖x − x⁽ᵈ⁾‖²", legend=False)
        self.error_curve = self.error_panel.curve("error")
        self.error_d_marker = pg.ScatterPlotItem()
        self.error_d_marker.setZValue(10)
        self.error_panel.plot_item.addItem(self.error_d_marker)

        top = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        top.addWidget(self.gallery)
        top.addWidget(self.scree_panel)
        top.setSizes([520, 400])
        bottom = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        bottom.addWidget(recon)
        bottom.addWidget(self.error_panel)
        bottom.setSizes([560, 360])
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setSizes([400, 400])
        self.compression_splits = (split, top, bottom)
        self.gallery.vb.sigResized.connect(self._tiles_resized)
        return split

    def _arrange_compression(self, projector: bool) -> None:
        """Normal mode: eigen-digits and scree above, reconstructions and error below. Projector
        mode: the mean and eigen-digits in a strip across the top (each at least MIN_TILE_PX),
        the reconstructions beside the scree plot below; the error against d, which the scree's
        cumulative curve and the caption under the reconstructions already give, folds away."""
        split, top, bottom = self.compression_splits
        if projector:
            bottom.insertWidget(1, self.scree_panel)
            self.error_panel.hide()
            split.setSizes([strip_height(), max(1, sum(split.sizes()) - strip_height())])
            bottom.setSizes([1, 1])
        else:
            top.insertWidget(1, self.scree_panel)
            self.error_panel.show()
            top.setSizes([520, 400])
            bottom.setSizes([560, 360])
            split.setSizes([400, 400])

    def _draw_gallery(self, data: run.PCAData) -> None:
        if theme.current().projector:
            self._draw_gallery_strip(data)
            return
        self._gallery_fit = None
        h, w = data.shape
        g = self.gallery
        k = min(N_GALLERY, data.K)
        tiles = run.normalised(data.components[:k].reshape(k, h, w))
        cols = min(4, k)
        pad = max(1, round(max(h, w) / 4))
        gap = max(pad, round(0.45 * h))  # rows leave room for the labels
        rows = -(-k // cols)
        img = np.full((rows * (h + gap) - gap, cols * (w + pad) - pad), np.nan)
        for i in range(k):
            r, c = divmod(i, cols)
            img[r * (h + gap): r * (h + gap) + h, c * (w + pad): c * (w + pad) + w] = tiles[i]
        x0 = w + 2 * pad
        y_mean = (img.shape[0] - h) / 2
        g.draw("mean", data.mean.reshape(h, w), (data.lo, data.hi), x=0, y=y_mean)
        g.draw("eigen", img, (-1, 1), x=x0, y=0, lut=DIVERGING)
        labels = [(w / 2, y_mean, "mean")]
        for i in range(k):
            r, c = divmod(i, cols)
            labels.append((x0 + c * (w + pad) + w / 2, r * (h + gap), f"ξ{i + 1}"))
        g.set_labels(labels)
        g.fit(x0 + img.shape[1], img.shape[0], top=-0.4 * h)
        g.set_title("Mean and eigen-digits")

    def _draw_gallery_strip(self, data: run.PCAData) -> None:
        """Projector mode: the mean and the first eigen-digits in one row, as many as fit across
        the view at MIN_TILE_PX each."""
        h, w = data.shape
        g, pad = self.gallery, 1
        self._gallery_fit = tiles_across(g, data.shape)
        k = max(1, min(N_GALLERY, data.K, self._gallery_fit - 1))
        tiles = run.normalised(data.components[:k].reshape(k, h, w))
        img = run.mosaic(tiles, k, pad=pad)
        x0 = w + pad
        g.draw("mean", data.mean.reshape(h, w), (data.lo, data.hi), x=0, y=0)
        g.draw("eigen", img, (-1, 1), x=x0, y=0, lut=DIVERGING)
        g.set_labels([(w / 2, 0, "mean")] + [(x0 + c * (w + pad) + w / 2, 0, f"ξ{c + 1}") for c in range(k)])
        g.fit(x0 + img.shape[1], h, top=-label_units(g, data.shape))
        g.set_title(f"Mean and eigen-digits ξ₁…ξ{k} (of {data.K})")

    def _draw_scree(self, data: run.PCAData) -> None:
        K = data.K
        js = np.arange(1, K + 1)
        self.scree_curve.set(js, 100 * data.ratio)
        self.cumulative_curve.set(js, 100 * data.cumulative)
        self.gap_line.setVisible(data.gap is not None)
        if data.gap is not None:
            self.gap_line.setPos(data.gap + 0.5)
        self.scree_panel.plot_item.setXRange(0, min(K, 40) + 0.5, padding=0)
        self.scree_panel.plot_item.setYRange(0, 100, padding=0.03)
        ds = np.arange(K + 1)
        self.error_curve.set(ds, data.errors / data.n)
        self.error_panel.plot_item.setXRange(0, min(K, 40), padding=0.02)

    def set_d(self, d: int) -> None:
        d = int(d)
        if self._data is not None:
            d = min(max(d, 1), self._data.K)
        for wdg in (self.d_slider, self.d_box):
            if wdg.value() != d:
                wdg.blockSignals(True)
                wdg.setValue(d)
                wdg.blockSignals(False)
        if d == self.d and self._data is not None and self.recon_view.images:
            return
        self.d = d
        self._update_d_views()

    def _update_d_views(self) -> None:
        data = self._data
        if data is None:
            return
        d = self.d
        h, w = data.shape
        idx = data.sample
        originals = data.X[idx].reshape(-1, h, w)
        recon = run.reconstruct(data, idx, d).reshape(-1, h, w)
        pad = max(1, round(max(h, w) / 4))
        cols = min(5, len(idx))
        groups = -(-len(idx) // cols)
        # originals above their reconstructions, in groups of `cols`
        tiles, labels = [], []
        for g in range(groups):
            part = slice(g * cols, (g + 1) * cols)
            for block in (originals[part], recon[part]):
                row = np.full((cols, h, w), np.nan)
                row[: len(block)] = block
                tiles.append(row)
            y0 = 2 * g * (h + pad)
            labels += [(-pad, y0 + h / 2, "x", (1.0, 0.5)), (-pad, y0 + h + pad + h / 2, f"x⁽{d}⁾", (1.0, 0.5))]
        img = run.mosaic(np.concatenate(tiles), cols, pad=pad)
        self.recon_view.draw("strip", img, (data.lo, data.hi))
        self.recon_view.set_labels(labels)
        self.recon_view.fit(img.shape[1], img.shape[0], left=-2.2 * w)
        self.recon_view.set_title(f"Rebuilt from d = {d}")  # short: one line in a narrow projector pane
        num = run.compression_numbers(data, d)
        self.compression_label.setText(
            f"d = {d}: store {num['stored']:,} numbers instead of {num['raw']:,} "
            f"(ratio {num['ratio']:.2f}×); error {num['mse']:.3g} per image, "
            f"{100 * (1 - num['explained']):.1f}% of the variance")
        self.scree_d_line.setPos(d)
        self.error_d_marker.setData([d], [num["mse"]], size=theme.current().marker_size * 1.3,
                                    brush=pg.mkBrush(theme.OKABE_ITO["bluish_green"]), pen=pg.mkPen(None))
        self._update_selected()
        self._update_drawing()
        self._update_maths()


class ScoresTab:
    """The first two PC scores of every image; a clicked point shows its image and reconstruction."""

    def _build_scores_tab(self) -> QtWidgets.QWidget:
        self.scores_panel = PlotPanel("First two PC scores", "c₁", "c₂", legend_corner="top-right")
        if self.scores_panel.legend is not None:
            self.scores_panel.legend.setColumnCount(2)
        self.selected_marker = pg.ScatterPlotItem()
        self.selected_marker.setZValue(20)
        self.scores_panel.plot_item.addItem(self.selected_marker)
        self.selected_view = ImagePanel("Clicked digit")
        self.selected_label = QtWidgets.QLabel("Click a point to see its image and reconstruction.")
        self.selected_label.setWordWrap(True)
        side = QtWidgets.QWidget()
        sl = QtWidgets.QVBoxLayout(side)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(self.selected_view, 1)
        sl.addWidget(self.selected_label)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(self.scores_panel)
        split.addWidget(side)
        split.setSizes([620, 300])
        return split

    def _draw_scores(self, data: run.PCAData) -> None:
        pi = self.scores_panel.plot_item
        legend = self.scores_panel.legend
        for item in self._scatter_items:
            pi.removeItem(item)
            if legend is not None:
                legend.removeItem(item)
        self._scatter_items = []
        s = theme.current()
        c1 = data.scores[:, 0]
        c2 = data.scores[:, 1] if data.K > 1 else np.zeros(data.n)
        classes = np.unique(data.labels)
        for i, cls in enumerate(classes):
            idx = np.flatnonzero(data.labels == cls)
            color = theme.CATEGORICAL[int(cls) % len(theme.CATEGORICAL)] if cls >= 0 else theme.OKABE_ITO["blue"]
            symbol = SYMBOLS[int(cls) % len(SYMBOLS)] if cls >= 0 else "o"
            name = f"digit {cls}" if cls >= 0 else "image"
            item = pg.ScatterPlotItem(x=c1[idx], y=c2[idx], data=idx, symbol=symbol, size=s.marker_size * 0.8,
                                      pen=pg.mkPen(color, width=1.2), brush=pg.mkBrush(color + "90"),
                                      name=name if len(classes) > 1 else None,
                                      hoverable=True, tip=None)
            item.sigClicked.connect(self._scatter_clicked)
            pi.addItem(item)
            self._scatter_items.append(item)
        if legend is not None:
            legend.setVisible(len(classes) > 1)
            plot_style.style_plot(self.scores_panel, s)
        self.scores_panel.plot_item.autoRange()

    def _scatter_clicked(self, item, points, *args) -> None:
        if len(points):
            self.select(int(points[0].data()))

    def select(self, index: int) -> None:
        """Show digit ``index`` and its reconstruction (the scores plot's click)."""
        data = self._data
        if data is None or not (0 <= index < data.n):
            return
        self.selected = int(index)
        self._update_selected()
        self._update_maths()

    def _update_selected(self) -> None:
        data = self._data
        i = self._selected_index()
        if data is None or i < 0:
            return
        h, w = data.shape
        pad = max(1, round(max(h, w) / 4))
        x = data.X[i].reshape(h, w)
        rec = run.reconstruct(data, [i], self.d).reshape(h, w)
        img = run.mosaic(np.stack([x, rec]), 2, pad=pad)
        self.selected_view.draw("pair", img, (data.lo, data.hi))
        self.selected_view.set_labels([(w / 2, 0, "x"), (w + pad + w / 2, 0, f"x⁽{self.d}⁾")])
        self.selected_view.fit(img.shape[1], img.shape[0], top=-0.3 * h)
        c1 = data.scores[i, 0]
        c2 = data.scores[i, 1] if data.K > 1 else 0.0
        s = theme.current()
        self.selected_marker.setData([c1], [c2], symbol="o", size=s.marker_size * 2.2, brush=pg.mkBrush(None),
                                     pen=pg.mkPen(s.foreground, width=2.5 * s.scale))
        what = f"digit {data.labels[i]}" if data.labels[i] >= 0 else "image"
        err = float(np.linalg.norm(data.X[i] - rec.ravel()))
        self.selected_label.setText(f"#{i} ({what}): c₁ = {c1:.3g}, c₂ = {c2:.3g}; ‖x − x⁽{self.d}⁾‖ = {err:.3g}")
