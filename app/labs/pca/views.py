"""Image views of the PCA lab: tiles of images in one shared image view (no axes, pixels
square, row 0 at the top) with text labels, and a small canvas to draw a digit with the mouse."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from ... import style as theme
from ...widgets.image_view import ImageView


def _lut(colors) -> np.ndarray:
    pos = np.linspace(0.0, 1.0, len(colors))
    return pg.ColorMap(pos, [QtGui.QColor(c) for c in colors]).getLookupTable(0.0, 1.0, 256)


#: pictures of digits: white paper, dark ink (0 → white)
GREYS = _lut(["#FFFFFF", "#000000"])
#: signed images (eigen-digits, residuals): blue − white 0 − red, used with symmetric levels
DIVERGING = _lut(["#2166AC", "#92C5DE", "#F7F7F7", "#F4A582", "#B2182B"])


class ImagePanel(ImageView):
    """Several images placed side by side in one view (named image layers, digits drawn dark
    on white by default), with short text labels."""

    fit_padding = 0.02

    def __init__(self, title: str = "", parent=None):
        self._labels: list[pg.TextItem] = []
        self._label_specs: list[tuple[float, float, str, tuple]] = []
        super().__init__(title, parent)

    def draw(self, name: str, array: np.ndarray, levels, *, x: float = 0.0, y: float = 0.0, lut=GREYS) -> pg.ImageItem:
        """Draw ``array`` (rows × cols) with its top-left corner at (x, y), one unit per pixel."""
        return super().draw(name, np.asarray(array, dtype=float), levels, x=x, y=y, lut=lut)

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

    def apply_style(self, s: theme.Style | None = None) -> None:
        s = s or theme.current()
        super().apply_style(s)
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
