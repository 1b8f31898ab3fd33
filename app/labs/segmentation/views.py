"""Image views of the segmentation lab: the shared image view with what segmentation adds
(label colours over the photo, a mask dimming unselected pixels, seed markers, a cursor); a
rectangle brush for any view box (linked views: photo ↔ feature-space scatter)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme
from ...widgets.image_view import ImageView


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


class SegmentView(ImageView):
    """An :class:`~app.widgets.image_view.ImageView` with label colours over the image
    (:meth:`set_overlay`, opacity set by the lab), a mask dimming the pixels outside a brushed
    selection (:meth:`set_mask`), markers at pixel centres (the clicked seeds) and a cursor.
    ``brush=True`` adds a :class:`RectBrush` (left-drag selects a rectangle)."""

    brush: RectBrush | None = None

    def __init__(self, title: str = "", parent=None, *, colormap: str | None = None, brush: bool = False):
        super().__init__(title, parent, colormap=colormap, colorbar_width=12)
        self.overlay = self.add_image("overlay", z=5)
        self.mask = self.add_image("mask", z=6)
        self.markers = pg.ScatterPlotItem(pxMode=True)
        self.markers.setZValue(20)
        self.plot_item.addItem(self.markers)
        self.cursor = pg.ScatterPlotItem(pxMode=True)
        self.cursor.setZValue(21)
        self.plot_item.addItem(self.cursor)
        if brush:
            self.brush = RectBrush(self.vb)

    def set_overlay(self, rgb: np.ndarray | None, key=None) -> None:
        """Label colours ((h, w, 3) uint8) over the image; None removes them."""
        if rgb is None:
            self.overlay.clear()
            self._image_keys.pop("overlay", None)
            return
        self.draw("overlay", rgb, (0, 255), key=key)

    def set_mask(self, selected: np.ndarray | None) -> None:
        """Dim every pixel outside ``selected`` ((h, w) bool); None removes the mask."""
        if selected is None:
            self.mask.clear()
            self.mask.setVisible(False)
            return
        rgba = np.zeros(selected.shape + (4,), np.uint8)
        rgba[..., 3] = np.where(selected, 0, 170).astype(np.uint8)
        self.draw("mask", rgba, (0, 255))

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

    def apply_style(self, s: theme.Style | None = None) -> None:
        s = s or theme.current()
        super().apply_style(s)
        if self.brush is not None:
            self.brush.restyle(s)
