"""Widgets of the sampling lab: a compact plot, a chain's path in the plane, a target's density map
with its contours, and the helpers that draw a histogram as steps and stack two panes."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from smlengine.sampling import get_target

from ... import style as theme
from ...widgets.plots import PlotPanel
from . import run


def histogram_steps(edges: np.ndarray, heights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A histogram as a piecewise-constant polyline (x and y of equal length)."""
    return np.repeat(edges, 2)[1:-1], np.repeat(heights, 2)


def stacked(top: QtWidgets.QWidget, bottom: QtWidgets.QWidget, a: int, b: int) -> QtWidgets.QWidget:
    """``top`` over ``bottom``, sharing the height a : b whatever the size (a layout, not a splitter:
    a splitter's sizes set before the page is first shown are not kept)."""
    page = QtWidgets.QWidget()
    lay = QtWidgets.QVBoxLayout(page)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addWidget(top, a)
    lay.addWidget(bottom, b)
    return page


def density_lut(s: theme.Style) -> np.ndarray:
    """Background colour at density 0 to a light blue at the top: a map under the chains."""
    bg = np.array(QtGui.QColor(s.background).getRgb()[:3], float)
    top = np.array(QtGui.QColor(theme.OKABE_ITO["sky_blue"]).getRgb()[:3], float)
    t = np.linspace(0, 1, 256)[:, None] ** 0.8
    mix = bg + (top - bg) * t * (0.85 if s.theme == "light" else 0.6)
    return mix.astype(np.ubyte)


class CompactPanel(PlotPanel):
    """A plot whose y ticks are short (densities, coordinates): a narrower left axis leaves the data more room."""

    LEFT_AXIS_EM = 3.2


class EmptyNote(pg.TextItem):
    """A wrapped sentence on a plot, in its middle (``corner=False``: a plot with nothing to draw
    yet, saying why) or in its top left corner (a count beside what is drawn)."""

    def __init__(self, panel: PlotPanel, corner: bool = False):
        super().__init__("", anchor=(0.0, 0.0) if corner else (0.5, 0.5))
        self.panel, self.corner = panel, corner
        self._shown = None
        panel.plot_item.addItem(self, ignoreBounds=True)

    def show_text(self, text: str) -> None:
        self.setVisible(bool(text))
        if not text:
            return
        s = theme.current()
        box = self.panel.plot_item.getViewBox()
        (x0, x1), (y0, y1) = box.viewRange()
        look = (text, s.foreground, s.legend_pt, round(box.width()))
        if look != self._shown:  # a text item lays its text out again on every change: only then
            self._shown = look
            self.setColor(s.foreground)
            font = QtGui.QFont()
            font.setPointSizeF(s.legend_pt)
            self.setFont(font)
            self.setTextWidth(max(box.width() * (0.45 if self.corner else 0.9), 60.0))
            self.setText(text)
        if self.corner:
            self.setPos(x0, y1)
        else:
            self.setPos((x0 + x1) / 2, (y0 + y1) / 2)


class PathCurve:
    """A chain's path in the plane: its newest ``keep`` states joined by a line (a path is not a
    function of x, so it is a plain curve item, without the clipping and down-sampling of a history)."""

    keep = 300

    def __init__(self, panel: PlotPanel, color: str):
        self.color = color
        self.item = pg.PlotCurveItem()
        self.item.setZValue(2)
        panel.addItem(self.item)
        self.x = np.zeros(0)
        self.y = np.zeros(0)

    def extend(self, xs, ys) -> None:
        self.x = np.concatenate([self.x, xs])[-self.keep:]
        self.y = np.concatenate([self.y, ys])[-self.keep:]
        self.item.setData(self.x, self.y)

    def clear(self) -> None:
        self.x = self.y = np.zeros(0)
        self.item.setData([], [])

    def apply_style(self, s: theme.Style) -> None:
        color = QtGui.QColor(self.color)
        color.setAlpha(190)
        self.item.setPen(pg.mkPen(color, width=max(1.0, 0.6 * s.line_width)))


class TargetPlot:
    """A target's density map and contours on a plot, its view fixed to the target's box."""

    def __init__(self, panel: PlotPanel):
        self.panel = panel
        self.image = pg.ImageItem()
        self.image.setZValue(-20)
        panel.addItem(self.image)
        self.contours = pg.PlotCurveItem(connect="finite")
        self.contours.setZValue(-10)
        panel.addItem(self.contours)
        vb = panel.plot_item.getViewBox()
        vb.setMouseEnabled(False, False)
        panel.plot_item.hideButtons()
        self.name = ""

    def show(self, name: str) -> None:
        if name == self.name:
            return
        self.name = name
        xs, ys, dens, (lx, ly), _ = run.target_picture(name)
        self.image.setImage(dens, levels=(0.0, float(dens.max())), autoLevels=False)
        dx, dy = xs[1] - xs[0], ys[1] - ys[0]
        self.image.setRect(QtCore.QRectF(xs[0] - dx / 2, ys[0] - dy / 2, xs[-1] - xs[0] + dx, ys[-1] - ys[0] + dy))
        self.contours.setData(lx, ly)
        x0, x1, y0, y1 = get_target(name).bounds
        vb = self.panel.plot_item.getViewBox()
        vb.disableAutoRange()
        vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)

    def apply_style(self, s: theme.Style) -> None:
        self.image.setLookupTable(density_lut(s))
        self.contours.setPen(pg.mkPen(s.foreground, width=max(1.0, 0.6 * s.line_width)))
