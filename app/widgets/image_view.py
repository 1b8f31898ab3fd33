"""An image drawn pixel for pixel: the one image view of every lab.

:class:`ImageView` is a ``pg.PlotWidget`` that shows a picture the way a picture is read:
square pixels, the first row at the top, no axes, a title, and nothing the mouse can pan or
zoom. Its coordinates are the image's own: ``x`` is the column, ``y`` the row, one unit per
pixel, so pixel ``(row, col)`` covers ``[col, col + 1) × [row, row + 1)``. Like
:class:`~app.widgets.plots.PlotPanel` it restyles itself (theme, projector scale) whenever the
style changes.

What it holds, bottom to top:

* a faint **underlay** (:meth:`set_under`, z −1), e.g. the photo under a map of it;
* the main **image** (:meth:`set_image`, z 0): grey ``(h, w)`` with ``levels`` and an
  optional ``lut`` (or the colour bar's map, ``colormap=``), or RGB(A) ``(h, w, 3|4)``;
* named **image layers** (:meth:`draw`, :meth:`add_image`): label colours over a photo, a
  mask, or several tiles placed side by side, each at its own place and z;
* named **box layers** (:meth:`layer`, :meth:`set_boxes`): NaN-broken polylines (boxes,
  outlines) with a pen that follows the style.

The region shown whole and clickable is :attr:`shape` (rows, cols): the extent of the last
:meth:`set_image`, or set directly (e.g. a map covering part of a photo). A click inside it emits
``clicked(x, y)`` (left button, image coordinates) and ``pixelClicked(row, col, button)``
(button 1 = left, 2 = right).

Images are redrawn only when their ``key`` changes (pass ``id(array)`` or a tuple); call
:meth:`forget` when a new run starts.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from .. import style as theme
from . import plot_style
from .plots import leave_room_below


def _levels(arr: np.ndarray, levels) -> tuple:
    """The levels to draw ``arr`` with: given ones for scalar images, else the dtype's full range."""
    if levels is not None:
        return levels
    return (0, 255) if arr.dtype == np.uint8 else (0.0, 1.0)


class ImageView(pg.PlotWidget):
    """An image (first row at the top, square pixels) with a title; clickable; self-styling.

    ``colormap`` (a pyqtgraph colormap name, e.g. "viridis") draws scalar images through that
    map and adds a colour bar showing their ``levels``.
    """

    clicked = QtCore.Signal(float, float)  # x (column), y (row) of a left click inside the image
    pixelClicked = QtCore.Signal(int, int, int)  # row, col, button (1 left, 2 right)

    #: margin around the region shown by :meth:`fit`, as a fraction of its size
    fit_padding = 0.01

    def __init__(self, title: str = "", parent=None, *, colormap: str | None = None, colorbar_width: int = 14):
        super().__init__(parent)
        self._title = title
        self.plot_item = pi = self.getPlotItem()
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
        self.images: dict[str, pg.ImageItem] = {}  # named image layers
        self._image_keys: dict[str, object] = {}
        self.layers: dict[str, pg.PlotDataItem] = {}  # named box layers
        self._pens: dict[str, tuple] = {}
        self.colorbar = None
        if colormap is not None:  # scalar maps get a colour bar with their values
            self.colorbar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=pg.colormap.get(colormap),
                                            interactive=False, width=colorbar_width)
            self.colorbar.setImageItem(self.image)
            pi.layout.addItem(self.colorbar, 2, 5)
        self._region: tuple | None = None
        self._shape: tuple = (0, 0)
        self._key = None
        self.vb.sigResized.connect(self._refit)
        self.setMinimumSize(120, 90)
        self.scene().sigMouseClicked.connect(self._clicked)
        self.apply_style(theme.current())
        theme.manager().changed.connect(self.apply_style)

    # --- the main image
    def set_image(self, arr: np.ndarray, key=None, *, levels=None, lut=None, rect=None, extent=None) -> None:
        """Show ``arr``; skipped when ``key`` is unchanged.

        Scalar ``(h, w)`` images use ``levels`` (default (0, 1)) and ``lut`` (ignored when the
        view has a colour bar: its map is used); RGB(A) images use the dtype's full range.
        ``rect`` (x, y, w, h) places the image in image coordinates (default: pixel for pixel
        at the origin); ``extent`` (h, w) is the region shown and clickable (default: the
        image's shape).
        """
        if key is not None and key == self._key:
            return
        self._key = key
        kw = {"autoLevels": False}
        if arr.ndim == 2:
            kw["levels"] = levels if levels is not None else (0.0, 1.0)
            if self.colorbar is not None:
                self.colorbar.setLevels(kw["levels"])
            else:
                self.image.setLookupTable(lut)
        else:
            kw["levels"] = _levels(arr, None)
            self.image.setLookupTable(None)
        self.image.setImage(arr, **kw)
        x, y, w, h = rect if rect is not None else (0, 0, arr.shape[1], arr.shape[0])
        self.image.setRect(QtCore.QRectF(x, y, w, h))
        self.shape = tuple(extent) if extent is not None else arr.shape[:2]

    @property
    def shape(self) -> tuple:
        """(rows, cols) of the image region: shown whole (:meth:`fit`) and clickable."""
        return self._shape

    @shape.setter
    def shape(self, shape) -> None:
        shape = tuple(shape)
        if shape != self._shape:
            self._shape = shape
            if shape[0] and shape[1]:
                self.fit(shape[1], shape[0])

    def set_under(self, grey: np.ndarray | None, key=None, opacity: float = 0.35) -> None:
        """A faint grey picture under the image (``None`` removes it)."""
        if grey is None:
            if "under" in self.images:
                self.images["under"].clear()
                self._image_keys.pop("under", None)
            return
        item = self.draw("under", grey, (0.0, 1.0), key=key, z=-1)
        item.setOpacity(opacity)

    def forget(self) -> None:
        """Redraw every image at its next ``set_image``/``draw`` whatever its key."""
        self._key = None
        self._image_keys.clear()

    # --- image layers
    def add_image(self, name: str, *, z: float = 0.0, lut=None) -> pg.ImageItem:
        """The named image layer (created on first use with this z value and lookup table)."""
        item = self.images.get(name)
        if item is None:
            item = pg.ImageItem(axisOrder="row-major")
            item.setZValue(z)
            if lut is not None:
                item.setLookupTable(lut)
            self.plot_item.addItem(item)
            self.images[name] = item
        return item

    def draw(self, name: str, arr: np.ndarray, levels=None, *, x: float = 0.0, y: float = 0.0, key=None,
             z: float = 0.0, lut=None) -> pg.ImageItem:
        """Draw ``arr`` in the named image layer with its top-left corner at (x, y), one unit per
        pixel (skipped when ``key`` is unchanged); ``z`` and ``lut`` apply when the layer is made."""
        item = self.add_image(name, z=z, lut=lut)
        if key is not None and self._image_keys.get(name) == key:
            return item
        self._image_keys[name] = key
        item.setImage(arr, levels=_levels(arr, levels), autoLevels=False)
        item.setRect(QtCore.QRectF(x, y, arr.shape[1], arr.shape[0]))
        item.setVisible(True)
        return item

    def hide_image(self, name: str) -> None:
        if name in self.images:
            self.images[name].setVisible(False)

    # --- box layers
    def layer(self, name: str, color: str, width: float = 3.0, dash=QtCore.Qt.PenStyle.SolidLine,
              z: float = 10) -> pg.PlotDataItem:
        """A named polyline layer (pen ``width`` in points, scaled in projector mode)."""
        item = pg.PlotDataItem([], [], connect="finite")
        item.setZValue(z)
        self.plot_item.addItem(item)
        self.layers[name] = item
        self._pens[name] = (color, width, dash)
        self._style_layer(name, theme.current())
        return item

    def set_boxes(self, name: str, xs, ys) -> None:
        """The polyline of a layer: boxes or outlines separated by NaN."""
        self.layers[name].setData(xs, ys, connect="finite")

    def _style_layer(self, name: str, s: theme.Style) -> None:
        color, width, dash = self._pens[name]
        pen = pg.mkPen(color, width=width * s.scale)
        pen.setStyle(dash)
        pen.setCosmetic(True)
        self.layers[name].setPen(pen)

    # --- the region shown
    def fit(self, width: float, height: float, top: float = 0.0, left: float = 0.0) -> None:
        """Show the region [left, width] × [top, height] whole (again after every resize)."""
        self._region = (left, width, top, height)
        self._refit()

    def _refit(self, *_args) -> None:
        if self._region is not None:
            left, width, top, height = self._region
            self.vb.setRange(xRange=(left, width), yRange=(top, height), padding=self.fit_padding)

    # --- events
    def _clicked(self, ev) -> None:
        if not self.shape[0]:
            return
        pos = self.vb.mapSceneToView(ev.scenePos())
        x, y = pos.x(), pos.y()
        if not (0 <= y < self.shape[0] and 0 <= x < self.shape[1]):
            return
        button = ev.button()
        self.pixelClicked.emit(int(np.floor(y)), int(np.floor(x)),
                               2 if button == QtCore.Qt.MouseButton.RightButton else 1)
        if button == QtCore.Qt.MouseButton.LeftButton:
            self.clicked.emit(float(x), float(y))

    # --- style
    def set_title(self, title: str) -> None:
        """Change the title text (cheap: the fonts are set by :meth:`apply_style`)."""
        if title == self._title:
            return
        self._title = title
        s = theme.current()
        self.plot_item._sml_title = title
        self.plot_item.setTitle(title, color=s.foreground, size=f"{s.font_pt * 1.1:.0f}pt")

    def apply_style(self, s: theme.Style | None = None) -> None:
        s = s or theme.current()
        plot_style.style_plot(self, s, title=self._title)
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
            leave_room_below(self.plot_item, font)  # for the colour bar's end labels
