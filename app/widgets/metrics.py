"""Metric-curve panel: one plot with named curves (cost, error, objective ...) per step."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from .. import style as st


class MetricPanel(pg.PlotWidget):
    """A plot of metrics against the step; curves are created on first use.

    Colours follow the Okabe–Ito order; every curve also has its own line style so the
    panel stays readable in grey scale.
    """

    DASHES = [QtCore.Qt.PenStyle.SolidLine, QtCore.Qt.PenStyle.DashLine, QtCore.Qt.PenStyle.DotLine, QtCore.Qt.PenStyle.DashDotLine]

    def __init__(self, title: str = "", x_label: str = "step", y_label: str = "", parent=None, log_y: bool = False):
        super().__init__(parent)
        self.plot_item = self.getPlotItem()
        # No grid: pyqtgraph paints grid lines with the axes, which costs more than the
        # curves themselves when a panel is redrawn 30 times a second.
        self.plot_item.setDownsampling(auto=True, mode="peak")
        self.plot_item.setClipToView(True)
        self.plot_item.addLegend(offset=(-10, 10))
        self.plot_item.setLogMode(y=log_y)
        self._x_label, self._y_label, self._title = x_label, y_label, title
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.apply_style(st.current())

    def curve(self, name: str) -> pg.PlotDataItem:
        if name not in self.curves:
            i = len(self.curves)
            item = self.plot_item.plot([], [], name=name)
            item._sml_index = i
            self.curves[name] = item
            self._style_curve(item, st.current())
        return self.curves[name]

    def set_series(self, name: str, x, y) -> None:
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        self.curve(name).setData(x, y)

    def clear_series(self) -> None:
        for c in self.curves.values():
            c.setData([], [])

    def _style_curve(self, item, s: st.Style) -> None:
        i = item._sml_index
        pen = pg.mkPen(st.CATEGORICAL[i % len(st.CATEGORICAL)], width=s.line_width)
        pen.setStyle(self.DASHES[i % len(self.DASHES)])
        item.setPen(pen)

    def apply_style(self, s: st.Style) -> None:
        st.set_axis_labels(self, self._x_label, self._y_label, s)
        st.style_plot(self, s, title=self._title)
        for item in self.curves.values():
            self._style_curve(item, s)
        st.style_plot(self, s)
