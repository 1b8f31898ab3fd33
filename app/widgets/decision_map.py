"""Decision-map item: a heat map of a decision function f on a grid with its contours.

Frames are computed off the GUI thread by :func:`smlengine.grid.decision_frame` (pure
numpy, no Qt) inside ``Lab.prepare``; :class:`DecisionMap` only draws them.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from smlengine.grid import DecisionFrame, decision_frame, grid_points  # noqa: F401 - re-exported

from .. import style as theme


#: opacity of the map's strongest shade: on white, and on the dark theme's near-black ground
MAP_ALPHA = {"light": 110, "dark": 160}
#: on the dark ground the class colours are lightened by this fraction toward white: at partial
#: opacity over near-black the blue of class +1 sinks to black and its region vanishes on a projector
DARK_TINT = 0.35


def _diverging_lut(style: theme.Style) -> np.ndarray:
    """RGBA for f from −1 (class −1's colour) through 0 (clear) to +1 (class +1's colour).

    On white a shade fades toward the ground in colour and in opacity. On the dark ground the
    colours are lightened tints and keep their hue, only the opacity fades: fading them toward
    near-black as well would draw a confident region almost black.
    """
    neg = np.array(QtGui.QColor(theme.NEG_COLOR).getRgb()[:3], float)
    pos = np.array(QtGui.QColor(theme.POS_COLOR).getRgb()[:3], float)
    t = np.linspace(-1, 1, 256)[:, None]
    if style.theme == "dark":
        neg, pos = neg + (255 - neg) * DARK_TINT, pos + (255 - pos) * DARK_TINT
        rgb = np.where(t < 0, neg, pos)
    else:
        mid = np.array(QtGui.QColor(style.background).getRgb()[:3], float)
        rgb = np.where(t < 0, mid + (neg - mid) * (-t), mid + (pos - mid) * t)
    a = (np.abs(t[:, 0]) ** 0.7 * MAP_ALPHA.get(style.theme, MAP_ALPHA["light"])).astype(np.ubyte)
    return np.column_stack([rgb.astype(np.ubyte), a])


class DecisionMap:
    """Heat map of f (negative = class −1 colour, positive = class +1 colour) plus the
    f = 0 boundary and, optionally, dashed margins f = ±1."""

    def __init__(self, plot_item: pg.PlotItem, *, margins: bool = False):
        self.plot_item = plot_item
        self.margins = margins
        self.image = pg.ImageItem()
        self.image.setZValue(-20)
        plot_item.addItem(self.image)
        self.boundary = pg.PlotCurveItem(connect="finite")
        self.boundary.setZValue(5)
        plot_item.addItem(self.boundary)
        self.margin_curves = {}
        for level in (-1.0, 1.0):
            c = pg.PlotCurveItem(connect="finite")
            c.setZValue(4)
            plot_item.addItem(c)
            self.margin_curves[level] = c
        self.frame: DecisionFrame | None = None
        self.apply_style(theme.current())

    def apply_style(self, s: theme.Style) -> None:
        self.style = s
        self.image.setLookupTable(_diverging_lut(s))
        self.boundary.setPen(pg.mkPen(s.foreground, width=s.line_width * 1.2))
        dash = pg.mkPen(s.foreground, width=max(1.0, s.line_width * 0.7))
        dash.setStyle(QtCore.Qt.PenStyle.DashLine)
        for c in self.margin_curves.values():
            c.setPen(dash)
        if self.frame is not None:
            self.set_frame(self.frame)

    def set_frame(self, frame: DecisionFrame | None) -> None:
        self.frame = frame
        if frame is None:
            self.clear()
            return
        v = frame.values
        scale = np.nanpercentile(np.abs(v), 90) if np.isfinite(v).any() else 1.0
        scale = scale if scale > 0 else 1.0
        shaded = np.tanh(1.5 * v / scale)  # saturating so both sides are visibly shaded
        xmin, xmax, ymin, ymax = frame.extent
        self.image.setImage(shaded.T, levels=(-1.0, 1.0), autoLevels=False)
        self.image.setRect(QtCore.QRectF(xmin, ymin, xmax - xmin, ymax - ymin))
        self.image.setVisible(True)
        x0, y0 = frame.contours.get(0.0, (np.array([]), np.array([])))
        self.boundary.setData(x0, y0)
        for level, curve in self.margin_curves.items():
            if self.margins and level in frame.contours:
                curve.setData(*frame.contours[level])
                curve.setVisible(True)
            else:
                curve.setData([], [])
                curve.setVisible(False)

    def clear(self) -> None:
        self.image.setVisible(False)
        self.boundary.setData([], [])
        for c in self.margin_curves.values():
            c.setData([], [])


class MapExtent:
    """The box a map under data is computed over: the visible range of its plot, never less
    than the data box, grown by ``slack`` so that small pans and resizes reuse the map.

    An aspect-locked plot shows more than its data box in one direction, by how much depends
    on the widget's shape (projector mode, a folded side panel, a resized window). The map
    follows that: :attr:`extent` is read by the lab's ``prepare`` on the worker thread (a
    tuple, replaced whole), and ``on_grown`` is called on the GUI thread when the visible
    range leaves the last extent, so the lab can prepare the frame on screen again.
    """

    def __init__(self, plot_item: pg.PlotItem, data_box: Callable[[], tuple], on_grown: Callable[[], None],
                 slack: float = 0.08):
        self.plot_item = plot_item
        self.data_box = data_box
        self.on_grown = on_grown
        self.slack = slack
        self.extent: tuple[float, float, float, float] = self._wanted()
        plot_item.getViewBox().sigRangeChanged.connect(self._range_changed)

    def visible(self) -> tuple[float, float, float, float]:
        (x0, x1), (y0, y1) = self.plot_item.getViewBox().viewRange()
        return (float(x0), float(x1), float(y0), float(y1))

    def _wanted(self) -> tuple[float, float, float, float]:
        dx0, dx1, dy0, dy1 = self.data_box()
        vx0, vx1, vy0, vy1 = self.visible()
        x0, x1, y0, y1 = min(dx0, vx0), max(dx1, vx1), min(dy0, vy0), max(dy1, vy1)
        gx, gy = self.slack * (x1 - x0), self.slack * (y1 - y0)
        return (x0 - gx, x1 + gx, y0 - gy, y1 + gy)

    @staticmethod
    def contains(outer, inner) -> bool:
        return outer[0] <= inner[0] and outer[1] >= inner[1] and outer[2] <= inner[2] and outer[3] >= inner[3]

    def covers(self, extent) -> bool:
        """True when a map over ``extent`` fills the visible range."""
        return extent is not None and self.contains(extent, self.visible())

    def refresh(self) -> bool:
        """Recompute the extent for the data and the view now; True if it changed."""
        wanted = self._wanted()
        # grow to the new view; shrink only when the view is much smaller (a finer grid)
        if self.contains(self.extent, wanted) and _area(wanted) > 0.45 * _area(self.extent):
            return False
        self.extent = wanted
        return True

    def _range_changed(self, *_args) -> None:
        if self.refresh():
            self.on_grown()


def _area(extent) -> float:
    return max(extent[1] - extent[0], 0.0) * max(extent[3] - extent[2], 0.0)
