"""Image views of the face-detection lab: a photo or map drawn pixel for pixel, with boxes."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from ... import style as theme


class PhotoView(pg.PlotWidget):
    """A grey/RGB image (first row at the top, square pixels) with a title, clickable.

    ``clicked(x, y)`` gives image coordinates (columns, rows) of a left click inside the image.
    Box layers are single NaN-broken polylines (:meth:`boxes` returns the item of a layer).
    """

    clicked = QtCore.Signal(float, float)

    def __init__(self, title: str = "", parent=None, *, colormap: str | None = None):
        super().__init__(parent)
        self._title = title
        pi = self.getPlotItem()
        pi.invertY(True)
        pi.setAspectLocked(True)
        pi.hideAxis("left")
        pi.hideAxis("bottom")
        pi.setMenuEnabled(False)
        pi.hideButtons()
        self.vb = pi.getViewBox()
        self.vb.setMouseEnabled(False, False)
        self.image = pg.ImageItem(axisOrder="row-major")
        pi.addItem(self.image)
        self.under = pg.ImageItem(axisOrder="row-major")  # a faint photo under a map
        self.under.setZValue(-1)
        pi.addItem(self.under)
        self.colorbar = None
        if colormap is not None:
            self.colorbar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=pg.colormap.get(colormap), interactive=False,
                                            width=14)
            self.colorbar.setImageItem(self.image)
            pi.layout.addItem(self.colorbar, 2, 5)
        self.layers: dict[str, pg.PlotDataItem] = {}
        self._pens: dict[str, tuple] = {}
        self.shape = (0, 0)
        self._key = None
        self.setMinimumSize(120, 90)
        self.scene().sigMouseClicked.connect(self._clicked)
        self.apply_style(theme.current())
        theme.manager().changed.connect(self.apply_style)

    def layer(self, name: str, color: str, width: float = 3.0, dash=QtCore.Qt.PenStyle.SolidLine, z: float = 10):
        item = pg.PlotDataItem([], [], connect="finite")
        item.setZValue(z)
        self.getPlotItem().addItem(item)
        self.layers[name] = item
        self._pens[name] = (color, width, dash)
        self._style_layer(name, theme.current())
        return item

    def _style_layer(self, name: str, s: theme.Style) -> None:
        color, width, dash = self._pens[name]
        pen = pg.mkPen(color, width=width * s.scale)
        pen.setStyle(dash)
        pen.setCosmetic(True)
        self.layers[name].setPen(pen)

    def set_boxes(self, name: str, xs, ys) -> None:
        self.layers[name].setData(xs, ys, connect="finite")

    def set_image(self, arr: np.ndarray, key=None, *, levels=None, rect=None, extent=None) -> None:
        """Show ``arr``; skipped when ``key`` is unchanged. ``rect`` (x, y, w, h) places it in image
        coordinates (default: pixel for pixel); ``extent`` (h, w) fixes the visible range."""
        if key is not None and key == self._key:
            return
        self._key = key
        kw = {"autoLevels": False}
        if arr.ndim == 2:
            kw["levels"] = levels if levels is not None else (0.0, 1.0)
            if self.colorbar is not None:
                self.colorbar.setLevels(kw["levels"])
        else:
            kw["levels"] = (0, 255) if arr.dtype == np.uint8 else (0.0, 1.0)
        self.image.setImage(arr, **kw)
        x, y, w, h = rect if rect is not None else (0, 0, arr.shape[1], arr.shape[0])
        self.image.setRect(QtCore.QRectF(x, y, w, h))
        shape = tuple(extent) if extent is not None else arr.shape[:2]
        if shape != self.shape:
            self.shape = shape
            self.vb.setRange(xRange=(0, shape[1]), yRange=(0, shape[0]), padding=0.01)

    def set_under(self, grey: np.ndarray | None, key=None, opacity: float = 0.35) -> None:
        if grey is None:
            self.under.clear()
            return
        self.under.setImage(grey, levels=(0.0, 1.0), autoLevels=False)
        self.under.setRect(QtCore.QRectF(0, 0, grey.shape[1], grey.shape[0]))
        self.under.setOpacity(opacity)

    def forget(self) -> None:
        self._key = None

    def _clicked(self, ev) -> None:
        if not self.shape[0] or ev.button() != QtCore.Qt.MouseButton.LeftButton:
            return
        pos = self.vb.mapSceneToView(ev.scenePos())
        if 0 <= pos.y() < self.shape[0] and 0 <= pos.x() < self.shape[1]:
            self.clicked.emit(float(pos.x()), float(pos.y()))

    def set_title(self, title: str) -> None:
        if title != self._title:
            self._title = title
            theme.style_plot(self, theme.current(), title=title)

    def apply_style(self, s: theme.Style | None = None) -> None:
        s = s or theme.current()
        theme.style_plot(self, s, title=self._title)
        for name in self.layers:
            self._style_layer(name, s)
        if self.colorbar is not None:
            font = QtGui.QFont()
            font.setPointSizeF(s.font_pt * 0.85)
            axis = self.colorbar.axis
            axis.setTickFont(font)
            axis.setPen(pg.mkPen(s.foreground))
            axis.setTextPen(pg.mkPen(s.foreground))
            axis.enableAutoSIPrefix(False)
