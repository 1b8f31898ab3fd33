"""Plots that style themselves, and curves that grow by appending.

:class:`PlotPanel` is a ``pg.PlotWidget`` that knows its title and axis labels and
re-applies the theme and projector scale whenever the style changes (no per-lab
``style_plot`` calls). Its axes never use automatic SI prefixes (no "(x0.001)" on a step
axis) and its left axis has a fixed width, so a changing tick label cannot make the view
range and the axis width chase each other forever.

:class:`Series` is a curve whose data lives in amortised, growing numpy buffers:
``extend`` appends the points of the frames that arrived since the last one, so drawing
costs the same at step 10 and at step 100,000.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from .. import style as st

DASHES = [QtCore.Qt.PenStyle.SolidLine, QtCore.Qt.PenStyle.DashLine, QtCore.Qt.PenStyle.DotLine,
          QtCore.Qt.PenStyle.DashDotLine]


class Series:
    """One curve fed by appending; ``log_y`` keeps only positive values (drawn on a log axis)."""

    def __init__(self, item: pg.PlotDataItem, *, log_y: bool = False):
        self.item = item
        self.log_y = log_y
        self._x = np.empty(256)
        self._y = np.empty(256)
        self.n = 0

    def clear(self) -> None:
        self.n = 0
        self.item.setData([], [])

    def extend(self, xs, ys) -> None:
        xs = np.asarray(xs, dtype=float).ravel()
        ys = np.asarray(ys, dtype=float).ravel()
        if xs.shape != ys.shape:
            raise ValueError("x and y must have the same length")
        if self.log_y:
            ys = np.maximum(ys, 1e-12)  # a converged gap (0) is drawn at the floor, not dropped
        keep = np.isfinite(xs) & np.isfinite(ys)
        xs, ys = xs[keep], ys[keep]
        if not xs.size:
            return
        need = self.n + xs.size
        if need > self._x.size:
            size = max(need, 2 * self._x.size)
            self._x = np.resize(self._x, size)
            self._y = np.resize(self._y, size)
        self._x[self.n:need] = xs
        self._y[self.n:need] = ys
        self.n = need
        self.item.setData(self._x[: self.n], self._y[: self.n])

    def set(self, xs, ys) -> None:
        """Replace the whole curve (for series that are not a history)."""
        self.n = 0
        self.extend(xs, ys)
        if self.n == 0:
            self.item.setData([], [])

    @property
    def x(self) -> np.ndarray:
        return self._x[: self.n].copy()

    @property
    def y(self) -> np.ndarray:
        return self._y[: self.n].copy()


class PlotPanel(pg.PlotWidget):
    """A plot with a title, axis labels and named curves, restyled on every style change.

    Curves get the Okabe–Ito colours in order and their own dash pattern, so they stay
    distinguishable in grey scale. The legend sits in a corner (``legend_corner``) and can be
    hidden (``show_legend``); its font follows the style both ways.
    """

    LEFT_AXIS_EM = 4.2  # width of the left axis in units of the tick font

    def __init__(self, title: str = "", x_label: str = "", y_label: str = "", parent=None, *,
                 log_y: bool = False, legend: bool = True, legend_corner: str = "top-right"):
        super().__init__(parent)
        self.plot_item = self.getPlotItem()
        self.plot_item.setDownsampling(auto=True, mode="peak")
        self.plot_item.setClipToView(True)
        self.plot_item.setLogMode(y=log_y)
        self._title, self._x_label, self._y_label = title, x_label, y_label
        self.log_y = log_y
        for name in ("left", "bottom"):
            self.plot_item.getAxis(name).enableAutoSIPrefix(False)
        self.legend = None
        if legend:
            offsets = {"top-right": (-10, 10), "top-left": (10, 10), "bottom-right": (-10, -10),
                       "bottom-left": (10, -10)}
            self.legend = self.plot_item.addLegend(offset=offsets[legend_corner])
        self.series: dict[str, Series] = {}
        self.setMinimumSize(120, 90)
        self.apply_style(st.current())
        st.manager().changed.connect(self.apply_style)

    # --- curves
    def curve(self, name: str, *, color: str | None = None, dash: int | None = None) -> Series:
        """The named curve, created on first use."""
        if name not in self.series:
            i = len(self.series)
            item = self.plot_item.plot([], [], name=name)
            item._sml_style = (color or st.CATEGORICAL[i % len(st.CATEGORICAL)], DASHES[(dash if dash is not None else i) % 4])
            self.series[name] = Series(item, log_y=self.log_y)
            self._style_curve(item, st.current())
        return self.series[name]

    def clear_series(self) -> None:
        for s in self.series.values():
            s.clear()

    def show_legend(self, visible: bool) -> None:
        if self.legend is not None:
            self.legend.setVisible(visible)

    def set_title(self, title: str) -> None:
        self._title = title
        st.style_plot(self, st.current(), title=title)

    # --- style
    def _style_curve(self, item, s: st.Style) -> None:
        color, dash = item._sml_style
        pen = pg.mkPen(color, width=s.line_width)
        pen.setStyle(dash)
        item.setPen(pen)

    def apply_style(self, s: st.Style | None = None) -> None:
        s = s or st.current()
        st.set_axis_labels(self, self._x_label, self._y_label, s)
        st.style_plot(self, s, title=self._title)
        left = self.plot_item.getAxis("left")
        left.setWidth(int(self.LEFT_AXIS_EM * s.font_pt * 1.4 + 18 * s.scale))
        for series in self.series.values():
            self._style_curve(series.item, s)
