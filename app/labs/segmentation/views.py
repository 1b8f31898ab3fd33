"""Image views of the segmentation lab: a photo or map drawn pixel for pixel, clickable; a
rectangle brush for any view box (linked views: photo ↔ feature-space scatter)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme


def recolour_points(item: pg.ScatterPlotItem, lut: np.ndarray, old: np.ndarray, new: np.ndarray) -> None:
    """Give point i of ``item`` the brush ``lut[new[i]]``, touching only the points whose index
    changed (``old`` is what they show now).

    ``setBrush(list)`` rebuilds every point's brush and symbol-atlas key in Python (tens of ms
    for 3,000 points); here the changed points get the LUT's own QBrush objects (so their atlas
    keys are reused) and only they are re-rendered, so a frame in which a few labels change
    costs a few microseconds per changed point, and an unchanged frame nothing.
    """
    changed = np.flatnonzero(old != new)
    if not changed.size:
        return
    data = item.data
    data["brush"][changed] = lut[new[changed]]
    data["sourceRect"][changed] = 0  # re-rendered from the atlas by updateSpots
    item.updateSpots()


class RectBrush(QtCore.QObject):
    """Left-drag in a view box draws a rectangle and emits ``brushed(x0, y0, x1, y1)`` in view
    coordinates when the button is released. Other buttons keep the view box's own drag
    (e.g. right-drag zoom in a plot); clicks are untouched. The rectangle stays drawn until
    :meth:`hide`."""

    brushed = QtCore.Signal(float, float, float, float)

    def __init__(self, vb: pg.ViewBox):
        super().__init__()
        self.vb = vb
        self._own_drag = vb.mouseDragEvent
        vb.mouseDragEvent = self.drag  # the scene looks the handler up on the item
        self.band = QtWidgets.QGraphicsRectItem()
        self.band.setZValue(1e6)
        self.band.setVisible(False)
        vb.addItem(self.band, ignoreBounds=True)
        self.restyle(theme.current())

    def restyle(self, s: theme.Style) -> None:
        pen = pg.mkPen(theme.OKABE_ITO["yellow"], width=2.5 * s.scale)
        pen.setCosmetic(True)
        self.band.setPen(pen)
        self.band.setBrush(QtGui.QBrush(QtGui.QColor(240, 228, 66, 40)))

    def drag(self, ev, axis=None) -> None:
        if ev.button() != QtCore.Qt.MouseButton.LeftButton:
            self._own_drag(ev, axis)
            return
        ev.accept()
        a = self.vb.mapSceneToView(ev.buttonDownScenePos())
        b = self.vb.mapSceneToView(ev.scenePos())
        self.show(a.x(), a.y(), b.x(), b.y())
        if ev.isFinish():
            x0, x1 = sorted((a.x(), b.x()))
            y0, y1 = sorted((a.y(), b.y()))
            self.brushed.emit(x0, y0, x1, y1)

    def show(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.band.setRect(QtCore.QRectF(QtCore.QPointF(x0, y0), QtCore.QPointF(x1, y1)).normalized())
        self.band.setVisible(True)

    def hide(self) -> None:
        self.band.setVisible(False)


class ImageView(pg.PlotWidget):
    """An image (row-major, first row at the top, square pixels) with a title and markers.

    ``pixelClicked(row, col, button)`` is emitted for a click inside the image
    (button 1 = left, 2 = right). Axes are hidden: the pixels are the picture.
    """

    pixelClicked = QtCore.Signal(int, int, int)

    def __init__(self, title: str = "", parent=None, *, colormap: str | None = None, brush: bool = False):
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
        self.overlay = pg.ImageItem(axisOrder="row-major")
        self.overlay.setZValue(5)
        pi.addItem(self.overlay)
        self.mask = pg.ImageItem(axisOrder="row-major")  # dims the pixels outside a brushed selection
        self.mask.setZValue(6)
        pi.addItem(self.mask)
        self.markers = pg.ScatterPlotItem(pxMode=True)
        self.markers.setZValue(20)
        pi.addItem(self.markers)
        self.cursor = pg.ScatterPlotItem(pxMode=True)
        self.cursor.setZValue(21)
        pi.addItem(self.cursor)
        self.colorbar = None
        if colormap is not None:  # scalar maps get a colour bar with their values
            self.colorbar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=pg.colormap.get(colormap),
                                            interactive=False, width=12)
            self.colorbar.setImageItem(self.image)
            pi.layout.addItem(self.colorbar, 2, 5)
        self.shape: tuple = (0, 0)
        self._key = None
        self._overlay_key = None
        self.brush = RectBrush(self.vb) if brush else None
        self.setMinimumSize(120, 90)
        self.scene().sigMouseClicked.connect(self._clicked)
        self.apply_style(theme.current())
        theme.manager().changed.connect(self.apply_style)

    # --- data
    def set_image(self, arr: np.ndarray, key=None, *, levels=None, lut=None) -> None:
        """Show ``arr`` ((h, w) scalar with ``levels``/``lut``, or (h, w, 3) RGB); skipped when ``key`` is unchanged."""
        if key is not None and key == self._key:
            return
        self._key = key
        shape = arr.shape[:2]
        kw = {"autoLevels": False}
        if arr.ndim == 2:
            kw["levels"] = levels if levels is not None else (0.0, 1.0)
            if self.colorbar is not None:
                self.colorbar.setLevels(kw["levels"])
            else:
                self.image.setLookupTable(lut)
        else:
            kw["levels"] = (0, 255) if arr.dtype == np.uint8 else (0.0, 1.0)
            self.image.setLookupTable(None)
        self.image.setImage(arr, **kw)
        if shape != self.shape:
            self.shape = shape
            self.image.setRect(QtCore.QRectF(0, 0, shape[1], shape[0]))
            self.overlay.setRect(QtCore.QRectF(0, 0, shape[1], shape[0]))
            self.vb.setRange(xRange=(0, shape[1]), yRange=(0, shape[0]), padding=0.01)

    def set_overlay(self, rgb: np.ndarray | None, key=None) -> None:
        if rgb is None:
            self.overlay.clear()
            self._overlay_key = None
            return
        if key is not None and key == self._overlay_key:
            return
        self._overlay_key = key
        self.overlay.setImage(rgb, levels=(0, 255), autoLevels=False)
        self.overlay.setRect(QtCore.QRectF(0, 0, rgb.shape[1], rgb.shape[0]))

    def set_mask(self, selected: np.ndarray | None) -> None:
        """Dim every pixel outside ``selected`` ((h, w) bool); None removes the mask."""
        if selected is None:
            self.mask.clear()
            self.mask.setVisible(False)
            return
        rgba = np.zeros(selected.shape + (4,), np.uint8)
        rgba[..., 3] = np.where(selected, 0, 170).astype(np.uint8)
        self.mask.setImage(rgba, levels=(0, 255), autoLevels=False)
        self.mask.setRect(QtCore.QRectF(0, 0, selected.shape[1], selected.shape[0]))
        self.mask.setVisible(True)

    def forget(self) -> None:
        self._key = None
        self._overlay_key = None

    def set_markers(self, rows_cols, colors=None, symbol="o") -> None:
        """Markers at pixel centres (list of (row, col)), e.g. the clicked seeds."""
        s = theme.current()
        if not len(rows_cols):
            self.markers.setData([], [])
            return
        rc = np.asarray(rows_cols, dtype=float).reshape(-1, 2)
        brushes = [pg.mkBrush(c) for c in (colors or ["#FFFFFF"] * len(rc))]
        self.markers.setData(x=rc[:, 1] + 0.5, y=rc[:, 0] + 0.5, symbol=symbol, size=s.marker_size * 1.4,
                             pen=pg.mkPen("#000000", width=1.5 * s.scale), brush=brushes)

    def set_cursor(self, row: int | None, col: int | None) -> None:
        s = theme.current()
        if row is None:
            self.cursor.setData([], [])
            return
        self.cursor.setData(x=[col + 0.5], y=[row + 0.5], symbol="+", size=s.marker_size * 2.2,
                            pen=pg.mkPen(theme.OKABE_ITO["yellow"], width=2.5 * s.scale), brush=pg.mkBrush(None))

    # --- events
    def _clicked(self, ev) -> None:
        if not self.shape[0]:
            return
        pos = self.vb.mapSceneToView(ev.scenePos())
        col, row = int(np.floor(pos.x())), int(np.floor(pos.y()))
        if 0 <= row < self.shape[0] and 0 <= col < self.shape[1]:
            button = 2 if ev.button() == QtCore.Qt.MouseButton.RightButton else 1
            self.pixelClicked.emit(row, col, button)

    # --- style
    def set_title(self, title: str) -> None:
        self._title = title
        theme.style_plot(self, theme.current(), title=title)

    def apply_style(self, s: theme.Style | None = None) -> None:
        s = s or theme.current()
        theme.style_plot(self, s, title=self._title)
        if getattr(self, "brush", None) is not None:
            self.brush.restyle(s)
        if self.colorbar is not None:
            from PySide6 import QtGui

            font = QtGui.QFont()
            font.setPointSizeF(s.font_pt * 0.85)
            axis = self.colorbar.axis
            axis.setTickFont(font)
            axis.setPen(pg.mkPen(s.foreground))
            axis.setTextPen(pg.mkPen(s.foreground))
            axis.enableAutoSIPrefix(False)
