"""Decision-map item: a heat map of a decision function f on a grid with its contours.

Frames are computed off the GUI thread by :func:`smlengine.grid.decision_frame` (pure
numpy, no Qt) inside ``Lab.prepare``; :class:`DecisionMap` only draws them.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from smlengine.grid import DecisionFrame, decision_frame, grid_points  # noqa: F401 - re-exported

from .. import style as theme


def _diverging_lut(style: theme.Style, alpha: int = 110) -> np.ndarray:
    neg = np.array(QtGui.QColor(theme.NEG_COLOR).getRgb()[:3], float)
    pos = np.array(QtGui.QColor(theme.POS_COLOR).getRgb()[:3], float)
    mid = np.array(QtGui.QColor(style.background).getRgb()[:3], float)
    t = np.linspace(-1, 1, 256)[:, None]
    rgb = np.where(t < 0, mid + (neg - mid) * (-t), mid + (pos - mid) * t)
    a = (np.abs(t[:, 0]) ** 0.7 * alpha).astype(np.ubyte)
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
