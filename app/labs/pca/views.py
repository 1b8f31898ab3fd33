"""Image views of the PCA lab: tiles of images in one plot (no axes, pixels square, row 0 at
the top) and a small canvas to draw a digit with the mouse."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from ... import style as theme


def _lut(colors) -> np.ndarray:
    pos = np.linspace(0.0, 1.0, len(colors))
    return pg.ColorMap(pos, [QtGui.QColor(c) for c in colors]).getLookupTable(0.0, 1.0, 256)


#: pictures of digits: white paper, dark ink (0 → white)
GREYS = _lut(["#FFFFFF", "#000000"])
#: signed images (eigen-digits, residuals): blue − white 0 − red, used with symmetric levels
DIVERGING = _lut(["#2166AC", "#92C5DE", "#F7F7F7", "#F4A582", "#B2182B"])


class ImagePanel(pg.PlotWidget):
    """Several images placed side by side in one view, with short text labels."""

    def __init__(self, title: str = "", parent=None):
        super().__init__(parent)
        self.plot_item = self.getPlotItem()
        self._title = title
        for name in ("left", "bottom"):
            self.plot_item.hideAxis(name)
        vb = self.plot_item.getViewBox()
        vb.invertY(True)
        vb.setAspectLocked(True)
        vb.setMouseEnabled(False, False)
        vb.setMenuEnabled(False)
        self.plot_item.hideButtons()
        self._rect: tuple | None = None
        vb.sigResized.connect(self._refit)
        self.images: dict[str, pg.ImageItem] = {}
        self._labels: list[pg.TextItem] = []
        self._label_specs: list[tuple[float, float, str, tuple]] = []
        self.setMinimumSize(120, 90)
        self.apply_style(theme.current())
        theme.manager().changed.connect(self.apply_style)

    def image(self, name: str, lut=GREYS) -> pg.ImageItem:
        """The named image item (created on first use)."""
        if name not in self.images:
            item = pg.ImageItem(axisOrder="row-major")
            item.setLookupTable(lut)
            self.plot_item.addItem(item)
            self.images[name] = item
        return self.images[name]

    def draw(self, name: str, array: np.ndarray, levels, *, x: float = 0.0, y: float = 0.0, lut=GREYS) -> pg.ImageItem:
        """Draw ``array`` (rows × cols) with its top-left corner at (x, y), one unit per pixel."""
        item = self.image(name, lut)
        arr = np.asarray(array, dtype=float)
        item.setImage(arr, levels=levels, autoLevels=False)
        item.setRect(QtCore.QRectF(x, y, arr.shape[1], arr.shape[0]))
        item.setVisible(True)
        return item

    def hide_image(self, name: str) -> None:
        if name in self.images:
            self.images[name].setVisible(False)

    def set_labels(self, specs) -> None:
        """Text labels ``(x, y, text[, anchor])``, anchor (0.5, 1) = centred above the point."""
        specs = [(float(s[0]), float(s[1]), str(s[2]), tuple(s[3]) if len(s) > 3 else (0.5, 1.0)) for s in specs]
        self._label_specs = specs
        while len(self._labels) < len(specs):
            t = pg.TextItem()
            self.plot_item.addItem(t)
            self._labels.append(t)
        s = theme.current()
        for item, (x, y, text, anchor) in zip(self._labels, specs):
            item.setAnchor(anchor)
            item.setPos(x, y)
            item.setHtml(f"<span style='font-size:{s.font_pt:.0f}pt; color:{s.foreground}'>{text}</span>")
            item.setVisible(True)
        for item in self._labels[len(specs):]:
            item.setVisible(False)

    def label_texts(self) -> list[str]:
        return [spec[2] for spec in self._label_specs]

    def fit(self, width: float, height: float, top: float = 0.0, left: float = 0.0) -> None:
        """Show the region [left, width] × [top, height] whole (again after every resize)."""
        self._rect = (left, width, top, height)
        self._refit()

    def _refit(self, *_args) -> None:
        if self._rect is not None:
            left, width, top, height = self._rect
            self.plot_item.getViewBox().setRange(xRange=(left, width), yRange=(top, height), padding=0.02)

    def set_title(self, title: str) -> None:
        """Change the title text (cheap: the fonts are set by ``apply_style``)."""
        if title == self._title:
            return
        self._title = title
        s = theme.current()
        self.plot_item.setTitle(title, color=s.foreground, size=f"{s.font_pt * 1.1:.0f}pt")

    def apply_style(self, s: theme.Style | None = None) -> None:
        s = s or theme.current()
        theme.style_plot(self, s, title=self._title)
        if self._label_specs:
            self.set_labels(self._label_specs)


class _PaintImage(pg.ImageItem):
    """An image the mouse paints on: left button ink, right button eraser."""

    def __init__(self, owner: "DrawCanvas"):
        super().__init__(axisOrder="row-major")
        self.owner = owner
        self._erase = False
        self.setAcceptHoverEvents(True)

    def mouseClickEvent(self, ev):
        if ev.button() in (QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.RightButton):
            ev.accept()
            self.owner.paint_at(ev.pos(), ev.button() == QtCore.Qt.MouseButton.RightButton)

    def mouseDragEvent(self, ev):
        if ev.button() not in (QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.RightButton):
            ev.ignore()
            return
        ev.accept()
        if ev.isStart():
            self._erase = ev.button() == QtCore.Qt.MouseButton.RightButton
        self.owner.paint_at(ev.pos(), self._erase)


class DrawCanvas(ImagePanel):
    """A canvas of h × w pixels to draw an image on (pixel values ``lo``..``hi``)."""

    changed = QtCore.Signal()

    def __init__(self, title: str = "Draw here", parent=None):
        super().__init__(title, parent)
        self.paint = _PaintImage(self)
        self.paint.setLookupTable(GREYS)
        self.plot_item.addItem(self.paint)
        self.pixels = np.zeros((8, 8))
        self.lo, self.hi = 0.0, 16.0
        self.grid = pg.PlotCurveItem(pen=pg.mkPen("#A0A0A0", width=1), connect="pairs")
        self.plot_item.addItem(self.grid)
        self._redraw()

    def set_canvas(self, shape, lo: float, hi: float, pixels=None) -> None:
        """A blank (or the given) drawing of this size and value range."""
        h, w = int(shape[0]), int(shape[1])
        self.lo, self.hi = float(lo), float(hi) if hi > lo else float(lo) + 1.0
        if pixels is not None and np.shape(pixels) == (h, w):
            self.pixels = np.clip(np.asarray(pixels, dtype=float), self.lo, self.hi)
        else:
            self.pixels = np.full((h, w), self.lo)
        self._redraw()
        self.fit(w, h)

    def set_pixels(self, pixels) -> None:
        pixels = np.asarray(pixels, dtype=float)
        if pixels.shape != self.pixels.shape:
            raise ValueError(f"a drawing of shape {self.pixels.shape} was expected, got {pixels.shape}")
        self.pixels = np.clip(pixels, self.lo, self.hi)
        self._redraw()
        self.changed.emit()

    def clear(self) -> None:
        self.pixels = np.full(self.pixels.shape, self.lo)
        self._redraw()
        self.changed.emit()

    def paint_at(self, pos: QtCore.QPointF, erase: bool = False) -> None:
        h, w = self.pixels.shape
        r, c = int(np.floor(pos.y())), int(np.floor(pos.x()))
        radius = max(0, int(round(min(h, w) / 16)))
        rr, cc = np.mgrid[-radius:radius + 1, -radius:radius + 1]
        disc = rr**2 + cc**2 <= radius**2
        rr, cc = rr[disc] + r, cc[disc] + c
        ok = (rr >= 0) & (rr < h) & (cc >= 0) & (cc < w)
        if not ok.any():
            return
        value = self.lo if erase else self.hi
        if np.all(self.pixels[rr[ok], cc[ok]] == value):
            return
        self.pixels[rr[ok], cc[ok]] = value
        self._redraw()
        self.changed.emit()

    def _redraw(self) -> None:
        h, w = self.pixels.shape
        self.paint.setImage(self.pixels, levels=(self.lo, self.hi), autoLevels=False)
        self.paint.setRect(QtCore.QRectF(0, 0, w, h))
        xs, ys = [], []
        if max(h, w) <= 32:
            for i in range(h + 1):
                xs += [0, w]
                ys += [i, i]
            for j in range(w + 1):
                xs += [j, j]
                ys += [0, h]
        self.grid.setData(np.array(xs, float), np.array(ys, float), connect="pairs")
