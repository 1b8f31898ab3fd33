"""The look of one plot for the current style: background, axes, tick fonts, labels, its
title (cut with "…" rather than widening the plot) and its legend. Every plot of the labs is
restyled through these two functions when projector mode or the theme changes."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtGui

from .. import style as theme
from .titles import eliding_title


def style_plot(plot: pg.PlotItem | pg.PlotWidget, style: theme.Style | None = None, *,
               title: str | None = None) -> None:
    """Background, axes, labels and tick fonts of one plot, for the current style."""
    style = style or theme.current()
    item = plot.getPlotItem() if isinstance(plot, pg.PlotWidget) else plot
    if isinstance(plot, pg.PlotWidget):
        plot.setBackground(style.background)
    font = QtGui.QFont()
    font.setPointSizeF(style.font_pt)
    for name in ("left", "bottom", "right", "top"):
        axis = item.getAxis(name)
        if axis is None:
            continue
        axis.setPen(pg.mkPen(style.foreground, width=max(1.0, style.scale)))
        axis.setTextPen(pg.mkPen(style.foreground))
        axis.setTickFont(font)
        axis.setStyle(tickTextOffset=int(4 * style.scale))
        # larger fonts get fewer ticks, so labels never run together
        axis.setTickDensity(1.0 / style.scale)
        # no silent "× 1000" on small ranges: pyqtgraph scales by an SI prefix whenever the
        # range falls in one of these intervals, whatever enableAutoSIPrefix says
        axis.setSIPrefixEnableRanges(())
        axis.enableAutoSIPrefix(False)
        label = axis.labelText
        if label:
            axis.setLabel(label, units=axis.labelUnits or None,
                          **{"font-size": f"{style.font_pt:.0f}pt", "color": style.foreground})
    if title is not None or item.titleLabel.text:
        eliding_title(item)  # a long title is cut with "…" rather than widening the plot
        text = title if title is not None else getattr(item, "_sml_title", "")
        item._sml_title = text
        item.setTitle(text, color=style.foreground, size=f"{style.font_pt * 1.1:.0f}pt")
    legend = item.legend
    if legend is not None:
        legend.setLabelTextColor(style.foreground)
        legend.setLabelTextSize(f"{style.legend_pt:.0f}pt")
        legend.setBrush(pg.mkBrush(style.background + "C8"))
        legend.setPen(pg.mkPen(style.foreground + "60"))
        for _sample, label in legend.items:
            label.setText(label.text, color=style.foreground, size=f"{style.legend_pt:.0f}pt")
        fit = getattr(legend, "_sml_fit", None)
        if fit is not None:
            fit()


def set_axis_labels(plot: pg.PlotItem | pg.PlotWidget, bottom: str, left: str,
                    style: theme.Style | None = None) -> None:
    style = style or theme.current()
    item = plot.getPlotItem() if isinstance(plot, pg.PlotWidget) else plot
    kw = {"font-size": f"{style.font_pt:.0f}pt", "color": style.foreground}
    item.setLabel("bottom", bottom, **kw)
    item.setLabel("left", left, **kw)
